/* kinesift/diag.h: diagnostics, i.e. everything the reader or an analysis recovered from, skipped
 * or found suspicious. Each kind has a stable dotted id ("parse.truncated", "timeline.overlap"),
 * a severity, a count and the first few examples with their position. Nothing is dropped silently:
 * whatever is not turned into a number is counted here. */
#ifndef KINESIFT_DIAG_H
#define KINESIFT_DIAG_H

#include "kinesift/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_severity {
    KS_SEV_INFO = 0,    /* expected in real traces, shown for completeness */
    KS_SEV_WARNING = 1, /* a number may be affected; read the example */
    KS_SEV_ERROR = 2    /* data was lost (events skipped, file truncated) */
} ks_severity;

#define KS_DIAG_EXAMPLES 5

typedef struct ks_diag_example {
    int has_pos;
    uint64_t byte, line, column; /* in the decompressed input, when has_pos */
    char *text;                  /* short description, owned */
} ks_diag_example;

typedef struct ks_diag_kind {
    const char *id;       /* static string, e.g. "parse.truncated" */
    ks_severity severity;
    uint64_t count;
    size_t nexamples;
    ks_diag_example ex[KS_DIAG_EXAMPLES];
} ks_diag_kind;

typedef struct ks_diag {
    ks_diag_kind *kinds;
    size_t n, cap;
} ks_diag;

KS_API void ks_diag_init(ks_diag *d);
KS_API void ks_diag_free(ks_diag *d);

/* Count n occurrences of kind id (a string with static storage). */
KS_API void ks_diag_count(ks_diag *d, const char *id, ks_severity sev, uint64_t n);

/* Count one occurrence and keep it as an example (while fewer than KS_DIAG_EXAMPLES are kept). */
KS_API void ks_diag_add(ks_diag *d, const char *id, ks_severity sev, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Same, with an input position. */
KS_API void ks_diag_add_at(ks_diag *d, const char *id, ks_severity sev, uint64_t byte, uint64_t line,
                           uint64_t column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* Put the kinds in one order whatever the order they were first counted in (by id): the reader
 * counts repairs and events in an order that depends on its chunking. */
KS_API void ks_diag_sort(ks_diag *d);

/* Look up a kind; NULL when never counted. */
KS_API const ks_diag_kind *ks_diag_get(const ks_diag *d, const char *id);
KS_API uint64_t ks_diag_total(const ks_diag *d, const char *id);

/* Highest severity counted so far (KS_SEV_INFO when empty). */
KS_API ks_severity ks_diag_max_severity(const ks_diag *d);

KS_API const char *ks_severity_name(ks_severity s);

#ifdef __cplusplus
}
#endif
#endif
