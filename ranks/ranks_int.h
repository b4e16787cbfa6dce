/* ranks/ranks_int.h: the ranks room's internals, shared by its files and its tests. */
#ifndef KS_RANKS_INT_H
#define KS_RANKS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "common/limits.h"
#include "kinesift/ranks.h"

/* Align b (m items) on a (n items) with the fewest insertions and deletions (Myers' O(ND) diff),
 * eq(ctx, i, j) saying whether a[i] and b[j] are the same call. pair[j] = the index in a paired
 * with b[j], or -1 when b[j] has no partner; pairs keep both orders. Returns the number of
 * differences, or -1 when more than KS_LIMIT_SEQ_MAX_D (then b[j] is paired with a[j] while both
 * exist and eq holds). */
long ks_seq_align(size_t n, size_t m, int (*eq)(void *ctx, size_t i, size_t j), void *ctx, long *pair);

/* The bandwidth table by message size and the rank x collective duration matrix of r, from its
 * matches (ranks/bandwidth.c). */
void ks_ranks_bandwidth(ks_ranks *r);

/* The memory across ranks of r, per device kind (ranks/memory.c). */
void ks_ranks_memory(ks_ranks *r);

/* The memory reason of a rank read from a summary that carries no "memory" field. */
#define KS_RANK_MEM_OLD_SUMMARY "not observed: the summary was written by a kinesift that kept no memory peaks"

/* A summary read as a stream, line by line (ranks/summary_stream.c): from st, or when st is NULL
 * from text[0 .. len); name for messages. ks_sum_read_line reads the next line (line 1 ends at
 * its newline; report: the analyze report, which runs to the end) into a yajl tree of the fields
 * its reader reads (free with yajl_tree_free): KS_OK, or KS_ERR with a one-line error naming the
 * file, byte, line and column. ks_sum_reader_more: 1 when bytes follow, 0 at the end, KS_ERR. */
struct ks_stream;
struct yajl_val_s;
typedef struct ks_sum_reader ks_sum_reader;
ks_sum_reader *ks_sum_reader_open(const char *name, struct ks_stream *st, const char *text, size_t len);
int ks_sum_read_line(ks_sum_reader *r, int report, struct yajl_val_s **out, ks_error *err);
int ks_sum_reader_more(ks_sum_reader *r, ks_error *err);
void ks_sum_reader_close(ks_sum_reader *r);
/* Reads of at most n bytes (1 .. 64 KiB; the default 64 KiB, a text in memory whole): what is read
 * does not depend on it (tests). */
void ks_sum_reader_chunk(ks_sum_reader *r, size_t n);

#endif
