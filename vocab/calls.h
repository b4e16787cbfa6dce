/* vocab/calls.h: the runtime and driver API calls by name (vocab/calls.c): which block the host,
 * on which platform, what a call launches, set-up, capture and allocator calls. */
#ifndef KS_VOCAB_CALLS_H
#define KS_VOCAB_CALLS_H

/* 1 for runtime/driver calls that block the host until the GPU is done: synchronize calls and the
 * synchronous copies, CUDA and HIP, runtime and driver (calls.c). */
int ks_is_blocking_call(const char *name);
/* The platform of a blocking call (its table, calls.c), or 0 when it does not block. */
enum { KS_PLATFORM_CUDA = 1, KS_PLATFORM_HIP = 2 };
int ks_blocking_call_platform(const char *name);

/* What a runtime/driver call launches (calls.c): a kernel, a graph, a copy, a set, or 0 for any
 * other call (cudaEventQuery, cudaFuncSetAttribute, cudaStreamGetPriority...). */
enum { KS_LAUNCH_KERNEL = 1, KS_LAUNCH_GRAPH = 2, KS_LAUNCH_MEMCPY = 3, KS_LAUNCH_MEMSET = 4 };
int ks_launch_call_kind(const char *name);
/* Set-up calls (allocator growth, pinned memory, stream creation and priority queries, module
 * loading), stream-capture calls (begin/end capture, instantiate) and allocator calls alone. */
int ks_is_init_call(const char *name);
int ks_is_capture_call(const char *name);
int ks_is_alloc_call(const char *name);

#endif
