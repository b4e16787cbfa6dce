/* tests/source/block_feed.h: compressed bytes handed to the gzip decoder (source/gunzip.h, its
 * ks_gz_pull) in blocks of a chosen size, so that a test and the fuzz target can cut the stream
 * anywhere: blocks of `block` bytes, and from byte `small_from` on of at most `small` (the first
 * small block starts at small_from exactly). Who may use it: tests/source/test_gunzip.c and
 * fuzz/fuzz_gunzip.c. */
#ifndef KS_BLOCK_FEED_H
#define KS_BLOCK_FEED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kinesift/common.h"

typedef struct {
    const unsigned char *p;
    size_t n, at, block;
    size_t small_from; /* SIZE_MAX: none */
    size_t small;
} block_feed;

static inline ssize_t block_feed_pull(void *ctx, const void **buf, ks_error *err)
{
    (void)err;
    block_feed *f = ctx;
    size_t block = f->at >= f->small_from && f->small < f->block ? f->small : f->block;
    if (f->at < f->small_from && f->small_from - f->at < block)
        block = f->small_from - f->at;
    size_t k = f->n - f->at < block ? f->n - f->at : block;
    *buf = f->p + f->at;
    f->at += k;
    return (ssize_t)k;
}

#endif
