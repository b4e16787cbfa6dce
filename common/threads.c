/* common/threads.c: the application's hook for the threads the library starts (threads.h): one
 * function pointer, set and read atomically (a thread may start while the application sets it).
 * The reader thread does not call it: it allocates little, and a thread's setup would delay the
 * first chunk the parse waits for. */
#include "common/threads.h"

#include <stdatomic.h>

#include "kinesift/common.h"

static _Atomic(ks_thread_start_fn) hook;

void ks_set_thread_start(ks_thread_start_fn fn)
{
    atomic_store(&hook, fn);
}

void ks_thread_started(void)
{
    ks_thread_start_fn fn = atomic_load(&hook);
    if (fn)
        fn();
}
