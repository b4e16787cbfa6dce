/* source/stream.h: what the reader (parser/) needs from a stream beyond kinesift/source.h. Not
 * exported. */
#ifndef KS_SOURCE_STREAM_H
#define KS_SOURCE_STREAM_H

#include <stdint.h>

#include "kinesift/source.h"

/* Size of the file (or buffer) the stream comes from; for a gzip file or buffer, the larger of
 * that and the length its trailer gives (ISIZE: a trace compresses 10-30x, and a 2 MB trace in a
 * 150 KB file is read as 2 MB are); the compressed size for other compressed inputs; for an
 * archive member, the member's own size as its header gives it (not the archive's: a tiny member
 * of a large archive is read as a tiny file is); 0 when unknown (standard input, a member whose
 * header has no size). A hint for choosing how to read, never a limit. */
uint64_t ks_stream_size_hint(const ks_stream *st);

/* 1 after a read failed an integrity check (a gzip CRC-32 or ISIZE mismatch, source/gunzip.h):
 * the bytes delivered before are wrong too, so nothing of the stream may be kept. */
int ks_stream_damaged(const ks_stream *st);

/* 1 when s is read here without libarchive (a plain file or buffer, or a gzip stream, whose first
 * bytes are surely JSON: source.c); 0 when libarchive reads or detects it. For tests. */
int ks_source_reads_itself(const ks_source *s);

/* Tests and fuzz targets only: when set, every input goes through libarchive as before the
 * sniffing (source.c), to compare the two paths on the same bytes. Read at each open. */
extern int ks_source_libarchive_only;

#endif
