/* kinesift/common.h: the few types every part of libkinesift shares (errors, ids, time).
 *
 * Threads, the contract of the whole library (each header adds what is particular to it):
 *  - Every function may be called from several threads at once, each call on its own objects
 *    (a ks_trace, ks_analysis, ks_redactor, ks_source, writer, ...): two calls share nothing
 *    they write, except what a header names. An object that calls take as const (a finished
 *    ks_trace or ks_analysis) may be read by several threads at once; an object that a call
 *    writes belongs to one thread at a time (the caller synchronises handing it over).
 *  - Threads the library starts (the parser's reader and workers, the analysis pool) live inside
 *    one call and are joined before it returns; none outlives a call.
 *  - Process-wide state, to be set by one thread before others start: ks_set_oom_handler (here),
 *    ks_redact_cleanup_on_signals (redact.h); and the time zone, which telemetry with a named
 *    zone sets while it reads (insights.h). The library never calls setlocale, umask or chdir;
 *    its lazily built tables are built once (pthread_once). */
#ifndef KINESIFT_COMMON_H
#define KINESIFT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Times are int64 nanoseconds everywhere inside the library. */
typedef int64_t ks_ns;

/* Interned string id; 0 is the empty / absent string. */
typedef uint32_t ks_str;

/* The formats of a report, numbered as a command's --format choices list them: text, json and
 * csv, then the command's own fourth: markdown (diff, ranks) or folded stacks (analyze). */
enum ks_format {
    KS_FORMAT_TEXT = 0,
    KS_FORMAT_JSON = 1,
    KS_FORMAT_CSV = 2,
    KS_FORMAT_MARKDOWN = 3,
    KS_FORMAT_FOLDED = 3
};

/* A status for library calls: 0 = ok, negative = failure described in a ks_error. */
enum { KS_OK = 0, KS_ERR = -1 };

/* An error with an optional position in the (decompressed) input. */
typedef struct ks_error {
    char msg[512];
    int has_pos;        /* byte/line/column below are meaningful */
    uint64_t byte;      /* 0-based byte offset in the decompressed input */
    uint64_t line;      /* 1-based */
    uint64_t column;    /* 1-based, in bytes */
} ks_error;

/* Set err->msg from a printf-style format; clears the position. Returns KS_ERR. */
KS_API int ks_error_set(ks_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Same, with a position. Returns KS_ERR. */
KS_API int ks_error_set_at(ks_error *err, uint64_t byte, uint64_t line, uint64_t column,
                           const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Format "byte N (line L, column C): msg" or just "msg" into buf. */
KS_API void ks_error_format(const ks_error *err, char *buf, size_t n);

/* Out of memory: every allocation of the library that fails (malloc, an mmap'ed store, a size
 * that overflows) calls the handler with the bytes asked for. It must not return (exit or
 * longjmp); the default prints "kinesift: out of memory (allocating N bytes)" and exits with 2.
 * NULL restores the default. */
typedef void (*ks_oom_handler)(size_t bytes);
KS_API void ks_set_oom_handler(ks_oom_handler h);

/* Each thread the library starts to parse or analyse (the parser's workers, the analysis pool's
 * threads; not the reader thread, which allocates little) calls fn first, before it allocates: for
 * the application's setup of its threads (the command puts their malloc arenas on huge pages).
 * fn must be thread-safe. NULL: none (the default). */
typedef void (*ks_thread_start_fn)(void);
KS_API void ks_set_thread_start(ks_thread_start_fn fn);

/* The CPUs this process may use: its affinity mask (taskset, a container's cpuset) capped by its
 * cgroups' CPU quotas (cpu.max; v1 cpu.cfs_quota_us), rounded up, at least 1; worked out once.
 * Every default thread count ("0: one per core") counts these, not the machine's CPUs. */
KS_API int ks_cpus(void);

/* The library version, e.g. "0.1.0". */
KS_API const char *ks_version(void);

#ifdef __cplusplus
}
#endif
#endif
