/* algo/pool.c: ks_pool_run (see pool.h): threads started for one batch of items and joined at
 * its end; an atomic counter hands out the items. If a thread cannot be started, the threads that
 * did start (the caller at least) do all the work. */
#include "algo/pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common/threads.h"
#include "kinesift/common.h"

typedef struct pool_batch {
    size_t n;
    atomic_size_t next;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
} pool_batch;

int ks_pool_threads(int requested)
{
    if (requested > 0)
        return requested < KS_POOL_MAX ? requested : KS_POOL_MAX;
    int cpus = ks_cpus();
    return cpus < KS_POOL_MAX_AUTO ? cpus : KS_POOL_MAX_AUTO;
}

static void *work(void *arg)
{
    pool_batch *b = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->n)
            break;
        b->fn(b->ctx, i);
    }
    return NULL;
}

void ks_pool_run(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    assert(fn || !n);
    if (threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i);
        return;
    }
    if ((size_t)threads > n)
        threads = (int)n;
    if (threads > KS_POOL_MAX)
        threads = KS_POOL_MAX;
    pool_batch b;
    b.n = n;
    atomic_init(&b.next, 0);
    b.fn = fn;
    b.ctx = ctx;
    pthread_t tid[KS_POOL_MAX];
    ks_thread_boot boot[KS_POOL_MAX];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (ks_thread_create(&tid[started], &boot[started], work, &b) != 0)
            break;
        started++;
    }
    work(&b);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
