/* common/threads.h: how the library starts the threads that parse and analyse: off the caller's
 * CPU, the application's hook first (kinesift/common.h, ks_set_thread_start). */
#ifndef KS_THREADS_H
#define KS_THREADS_H

#include <pthread.h>
#include <sched.h>

/* What a thread started by ks_thread_create needs until it has started; the caller keeps it
 * until then (beside the pthread_t it joins). */
typedef struct ks_thread_boot {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t cpus; /* the caller's affinity, which the thread takes back first */
    int placed;     /* the thread was started with the caller's CPU left out */
    int hook;       /* the thread calls the application's hook first */
} ks_thread_boot;

/* pthread_create(t, NULL, fn, arg), but the thread is started on one of the CPUs the caller may
 * use other than the one it runs on, and then given back the caller's whole affinity (the
 * scheduler may move it anywhere after that); then, before fn and before anything allocates, it
 * calls the application's hook, if any. For a thread that parses or analyses and whose caller
 * goes on working as soon as it exists (the parser's workers, the analysis pool's threads): a new
 * thread left on the caller's CPU waits there for the scheduler to move it, and then shares that
 * CPU with its caller until the scheduler moves one of them. Where the caller may use one CPU
 * only, or its mask cannot be read or set, the thread starts where pthread_create puts it.
 * Returns its error number, 0 on success. */
int ks_thread_create(pthread_t *t, ks_thread_boot *b, void *(*fn)(void *), void *arg);

/* The same without the application's hook: for a thread that allocates little (the reader
 * thread), whose setup would only delay its first piece of work. */
int ks_thread_create_bare(pthread_t *t, ks_thread_boot *b, void *(*fn)(void *), void *arg);

#endif
