/* common/threads.c: how the library starts the threads that parse and analyse (threads.h).
 * The hook: one function pointer, set and read atomically (a thread may start while the
 * application sets it), called by each thread ks_thread_create starts. The reader thread
 * (ks_thread_create_bare) does not call it: it allocates little, and a thread's setup would delay
 * its first chunk.
 * The start off the caller's CPU: on a 2-core VM an analysis pool's thread made by pthread_create
 * waited 0.7 ms (median of 80 starts; 1.6 ms at the 90th percentile, 3.3 ms at most) on its
 * creator's CPU before it first ran, while the other CPU was idle and the creator worked on its
 * own share; started on the other CPU, 0.09 ms (0.14 ms at most). The reader thread too: the
 * parser reads its chunks itself until the thread has one ready, and on the parser's CPU the two
 * then shared one CPU (the MTIA inference trace's parse with --threads 1 took 10-13 ms instead of
 * 8). */
#include "common/threads.h"

#include <stdatomic.h>

#include "kinesift/common.h"

static _Atomic(ks_thread_start_fn) hook;

void ks_set_thread_start(ks_thread_start_fn fn)
{
    atomic_store(&hook, fn);
}

static void *boot_main(void *arg)
{
    ks_thread_boot *b = arg;
    if (b->placed) /* on failure it stays where it was put: a CPU the caller may use */
        (void)pthread_setaffinity_np(pthread_self(), sizeof b->cpus, &b->cpus);
    ks_thread_start_fn fn = b->hook ? atomic_load(&hook) : NULL;
    if (fn)
        fn();
    return b->fn(b->arg);
}

static int create(pthread_t *t, ks_thread_boot *b, void *(*fn)(void *), void *arg, int with_hook)
{
    b->fn = fn;
    b->arg = arg;
    b->placed = 0;
    b->hook = with_hook;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return pthread_create(t, NULL, boot_main, b);
    int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof b->cpus, &b->cpus) == 0 &&
        CPU_ISSET(cpu, &b->cpus) && CPU_COUNT(&b->cpus) > 1) {
        cpu_set_t others = b->cpus;
        CPU_CLR(cpu, &others);
        b->placed = pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0;
    }
    int rc = pthread_create(t, &attr, boot_main, b);
    pthread_attr_destroy(&attr);
    if (rc != 0 && b->placed) { /* the mask refused: started as pthread_create would */
        b->placed = 0;
        rc = pthread_create(t, NULL, boot_main, b);
    }
    return rc;
}

int ks_thread_create(pthread_t *t, ks_thread_boot *b, void *(*fn)(void *), void *arg)
{
    return create(t, b, fn, arg, 1);
}

int ks_thread_create_bare(pthread_t *t, ks_thread_boot *b, void *(*fn)(void *), void *arg)
{
    return create(t, b, fn, arg, 0);
}
