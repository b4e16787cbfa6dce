/* source/gunzip.h: a gzip decoder that verifies what the format offers. libarchive's gzip filter
 * does not check a member's CRC-32 and ISIZE trailer (a damaged .gz reads as valid, with wrong
 * numbers); ISA-L's igzip does (and decodes 4-6x faster than zlib), so source.c decodes plain
 * gzip streams (a .json.gz, or a .json.gz member of a tar) here instead. Concatenated members are read one after the other (as gzip -d does);
 * bytes after the last member that do not start another one are ignored (as libarchive does).
 * A CRC or length mismatch is an integrity error naming the member (1-based) and the compressed
 * byte; a stream that ends inside a member is a read error (what was decoded stays usable).
 * zstd, xz and bzip2 check their own checksums inside libarchive (libzstd, liblzma, libbz2).
 * Internal to parser/. */
#ifndef KS_GUNZIP_H
#define KS_GUNZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kinesift/common.h"

/* Supplies compressed bytes: a block in *buf, its length, 0 at the end, -1 on error (err set). */
typedef ssize_t (*ks_gz_pull)(void *ctx, const void **buf, ks_error *err);

typedef struct ks_gunzip ks_gunzip;

/* A decoder over head[0..head_len) (bytes already taken from the source, copied) followed by
 * what pull supplies. Never NULL (memory comes from ks_xmalloc). */
ks_gunzip *ks_gunzip_new(const void *head, size_t head_len, ks_gz_pull pull, void *ctx);
void ks_gunzip_free(ks_gunzip *g);

/* Up to n decoded bytes: the count, 0 at the end, KS_ERR on error (err set; *integrity set to 1
 * when a checksum or length did not match, the data delivered before it is then wrong). ISA-L is
 * loaded as the decoder is made (common/lazylib.h); where it cannot be, every read is KS_ERR with
 * the loader's line. */
ssize_t ks_gunzip_read(ks_gunzip *g, void *buf, size_t n, int *integrity, ks_error *err);

/* Compressed bytes consumed so far. */
uint64_t ks_gunzip_in_bytes(const ks_gunzip *g);

/* 1 when p[0..n) starts a gzip member (magic 1f 8b, method deflate). */
int ks_gunzip_magic(const void *p, size_t n);

#endif
