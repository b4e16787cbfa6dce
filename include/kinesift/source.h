/* kinesift/source.h: input sources. A path (or "-" for stdin) is opened through libarchive with
 * every compression filter (gzip, zstd, xz, bzip2, ...) detected by content, never by name. A plain
 * stream yields one trace; a tar or zip yields one trace per regular member, named
 * "archive:member/path", and a compressed member (rank0.json.gz inside a tar) is decompressed too.
 * Bytes are delivered in caller-sized chunks: nothing holds the whole text in memory. */
#ifndef KINESIFT_SOURCE_H
#define KINESIFT_SOURCE_H

#include <sys/types.h>

#include "kinesift/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_source ks_source; /* one opened path */
typedef struct ks_stream ks_stream; /* one trace's decompressed bytes */

/* Open a path; "-" reads standard input. */
KS_API int ks_source_open(const char *path, ks_source **out, ks_error *err);

/* Open an in-memory buffer (not copied; must outlive the source). name is used in messages. */
KS_API int ks_source_open_memory(const char *name, const void *buf, size_t len, ks_source **out,
                                 ks_error *err);

/* Next trace of the source: 1 and *st on success, 0 when there are no more, KS_ERR on error.
 * The previous stream of the same source becomes invalid. */
KS_API int ks_source_next(ks_source *s, ks_stream **st, ks_error *err);

/* 1 when the source is an archive (tar, zip, ...) rather than a single stream. */
KS_API int ks_source_is_archive(const ks_source *s);

KS_API void ks_source_close(ks_source *s);

/* Name of the stream: the path, "-", or "archive:member". */
KS_API const char *ks_stream_name(const ks_stream *st);

/* Compression filters applied, e.g. "gzip", "zstd", "none". */
KS_API const char *ks_stream_filter(const ks_stream *st);

/* Read up to n decompressed bytes: the count, 0 at end of stream, KS_ERR on error. */
KS_API ssize_t ks_stream_read(ks_stream *st, void *buf, size_t n, ks_error *err);

/* Decompressed bytes delivered so far. */
KS_API uint64_t ks_stream_offset(const ks_stream *st);

/* Size of the underlying file when known (for progress), else 0. Compressed size for
 * compressed inputs. */
KS_API uint64_t ks_source_file_size(const ks_source *s);
/* Compressed bytes consumed so far (for progress on compressed inputs); 0 if unknown. */
KS_API uint64_t ks_source_raw_offset(const ks_source *s);

/* Expand command-line inputs: a directory becomes its trace files (recursively, sorted by path:
 * names containing ".json", and .tar/.tgz/.zip archives); @FILE (no file named so) becomes the
 * paths FILE lists, one a line (# comments), each expanded the same way; other paths are kept as
 * given. Returns a NULL-terminated array of malloc'ed strings in *out (free with ks_inputs_free). */
KS_API int ks_inputs_expand(char *const *paths, size_t npaths, char ***out, size_t *nout, ks_error *err);
KS_API void ks_inputs_free(char **list, size_t n);
/* The same, telling notice (may be NULL) about what it skipped: a symbolic link loop (a link to a
 * directory above it, or a link that resolves to itself) is skipped, never followed. */
typedef void (*ks_inputs_notice_fn)(void *ctx, const char *msg);
KS_API int ks_inputs_expand_report(char *const *paths, size_t npaths, char ***out, size_t *nout,
                                   ks_inputs_notice_fn notice, void *ctx, ks_error *err);

#ifdef __cplusplus
}
#endif
#endif
