/* common/threads.h: the application's hook for the threads the library starts (kinesift/common.h,
 * ks_set_thread_start). */
#ifndef KS_THREADS_H
#define KS_THREADS_H

/* First thing in each thread the library starts to parse or analyse (the parser's workers, the
 * analysis pool's threads), before it allocates: calls the application's hook, if any. */
void ks_thread_started(void);

#endif
