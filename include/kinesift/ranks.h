/* kinesift/ranks.h: the cross-rank analysis of a distributed job (`kinesift ranks`).
 *
 * Each rank's trace is reduced to a ks_rank (ranks/rank.c): its identity, per-rank figures and
 * the list of its collective kernels; the trace and its analysis can be freed right after, so
 * ranks are read concurrently with about one event store per worker. ks_ranks_match
 * (ranks/match.c) then matches the collectives across ranks, estimates each rank's clock offset
 * from the collectives' end times, and attributes waits to the last arrival (the straggler).
 * Times are int64 ns; figures that cannot be observed are flagged with a reason, never zero. */
#ifndef KINESIFT_RANKS_H
#define KINESIFT_RANKS_H

#include <stdio.h>

#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_rank_rule {
    KS_RANK_DIST = 0,   /* distributedInfo.rank */
    KS_RANK_FILENAME,   /* rank-3, rank_3, rank3, _3. in the file name */
    KS_RANK_ORDER       /* the input order (smallest rank not taken) */
} ks_rank_rule;
KS_API const char *ks_rank_rule_name(ks_rank_rule r);

#define KS_RANK_TOP 3 /* kernels kept as evidence of what a rank did before a collective */

typedef struct ks_rank_coll {
    char *name;             /* "Collective name", or the kind from the kernel name */
    char *pg;               /* "Process Group Name", else its ranks, else "" (unknown) */
    int64_t seq;            /* "Seq", -1 absent */
    int64_t bytes;          /* In msg nelems x dtype size, -1 unknown */
    int64_t group_size;     /* -1 unknown */
    ks_ns start, end;       /* the kernel, on the rank's own clock */
    char *before[KS_RANK_TOP]; /* top compute kernels on its device since the previous collective */
    ks_ns before_ns[KS_RANK_TOP];
} ks_rank_coll;

typedef struct ks_rank {
    char *source;           /* file, or archive:member */
    int64_t rank;
    ks_rank_rule rule;
    int64_t world_size;     /* -1 unknown */
    int64_t name_rank;      /* rank from the file name, -1 none */
    /* steps: count 0 = not observed (steps_reason) */
    size_t steps;
    ks_ns step_median, step_p90;
    ks_ns *step_ns;         /* the `steps` active steps' wall times in step order; NULL when not
                             * known (a kinesift.summary/1 carries only the median and p90) */
    const char *steps_reason;
    /* GPU: gpu_reason set = not observed; summed over devices (each a union) */
    const char *gpu_reason;
    ks_ns gpu_span, gpu_busy, compute, comm, exposed, host_wait;
    uint64_t kernels;
    /* collectives in start order; colls_reason set when there are none */
    ks_rank_coll *colls;
    size_t ncolls;
    const char *colls_reason;
} ks_rank;

typedef struct ks_rank_opts {
    const char *step_label; /* NULL: ProfilerStep#N */
} ks_rank_opts;

/* Reduce one parsed trace to its ks_rank (the rank is left to ks_ranks_identify). */
KS_API int ks_rank_from_trace(const ks_trace *t, const ks_rank_opts *o, ks_rank *out, ks_error *err);
KS_API void ks_rank_free(ks_rank *r);
/* Rank from a file name (basename of the path or archive member): rank-3, rank_3, rank3, _3.;
 * -1 when none. */
KS_API int64_t ks_rank_from_name(const char *source);

/* The reason text of a ks_rank as the static string ks_rank_from_trace uses. */
KS_API const char *ks_rank_reason(const char *text);

/* ---- summaries: a ks_rank on disk (kinesift.summary/2, docs/scale-out.md) ------------------
 * Line 1: the ks_rank (all `ranks` reads; /1 summaries are this line alone). Line 2: the report
 * `analyze` prints for the trace with its default options (all `analyze` reads). */

/* The analyze report of a summary's second line. Writing: json is a whole `analyze --format json`
 * document of the one trace (its trace object is kept), text the text report (default --top),
 * csv its CSV rows without the header. Reading: trace is that trace object, root owns it. */
typedef struct ks_summary_report {
    const char *step_label; /* --step-label of summarize; NULL: ProfilerStep#N */
    const char *json;
    const char *text, *csv;
    const struct yajl_val_s *trace;
    struct yajl_val_s *root;
} ks_summary_report;

/* 1 when the name (file or archive member) is a summary: contains ".kss.json". */
KS_API int ks_rank_is_summary(const char *name);
/* Write r and rep (NULL: no second line) to path (".gz" at the end: gzip), through a temporary
 * file; an existing file is replaced only with force. */
KS_API int ks_rank_summary_write(const ks_rank *r, const ks_summary_report *rep, const char *path, int force,
                                 ks_error *err);
/* Read a summary's first line (/1 or /2) into out (name for messages); the rest is not looked at. */
KS_API int ks_rank_summary_read(const char *name, const char *text, size_t len, ks_rank *out, ks_error *err);
/* Read a summary's analyze report into out (free with ks_summary_report_free); an error naming
 * the file for a /1 summary, which has none. */
KS_API int ks_summary_report_read(const char *name, const char *text, size_t len, ks_summary_report *out,
                                  ks_error *err);
KS_API void ks_summary_report_free(ks_summary_report *r);

/* Give every rank its number (distributedInfo, file name, input order) and check them: two
 * traces with the same rank or disagreeing world sizes are an error naming both, unless
 * allow_mixed (duplicates then take the smallest free rank, rule input order). Sorts v by rank. */
KS_API int ks_ranks_identify(ks_rank *v, size_t n, int allow_mixed, ks_error *err);

/* ---- across ranks -------------------------------------------------------------------------- */

typedef struct ks_match_arrival {
    size_t rank;            /* index into the ranks */
    ks_ns arrival;          /* kernel start, aligned */
    ks_ns wait;             /* last arrival - own arrival */
    const ks_rank_coll *c;  /* the rank's collective */
} ks_match_arrival;

typedef struct ks_match {
    const char *name, *pg;  /* borrowed from the first rank's collective */
    int64_t index;          /* Seq, or the n-th call of (name, pg) */
    ks_match_arrival *arr;
    size_t narr;
    size_t last;            /* rank index of the last arrival; SIZE_MAX on a tie */
    ks_ns last_arrival;
    ks_ns after_ns;         /* the last arrival's own kernel: the transfer itself */
    ks_ns wait_ns;          /* sum of waits */
    int64_t bytes, group;   /* -1 unknown */
    double algbw, busbw;    /* GB/s (1e9 bytes/s); < 0 unknown */
} ks_match;

typedef struct ks_unmatched {
    const char *name, *pg;
    size_t rank;            /* index of a rank with fewer calls */
    int64_t missing;        /* calls the others made and it did not */
} ks_unmatched;

typedef struct ks_rank_stat {
    ks_ns offset;           /* subtracted from the rank's times; 0 for the reference */
    ks_ns residual;         /* largest |end difference - offset| over shared collectives */
    int aligned;            /* 0: no collective shared with the reference */
    ks_ns wait;             /* its own waits */
    ks_ns caused;           /* waits of the others when it arrived last */
    uint64_t times_last;
    int slow_step, slow_compute; /* above the median by more than straggler_pct */
} ks_rank_stat;

typedef struct ks_ranks_opts {
    int align;              /* estimate and apply clock offsets (default 1) */
    ks_ns align_tolerance;  /* spread above which waits are not trusted (default 20 us) */
    double straggler_pct;   /* default 5 */
} ks_ranks_opts;
KS_API void ks_ranks_opts_init(ks_ranks_opts *o);

typedef struct ks_ranks {
    const ks_rank *v;       /* borrowed */
    size_t n;
    ks_rank_stat *st;
    ks_match *m;
    size_t nm;
    ks_unmatched *um;
    size_t num;
    ks_ns spread;           /* largest residual over the ranks */
    int untrusted;          /* spread > tolerance */
    ks_ns total_wait;
    ks_ns step_median, compute_median; /* over the ranks that have them; -1 none */
    size_t straggler;       /* SIZE_MAX: none */
    /* what the straggler did before the collectives it arrived last at */
    char *evidence[KS_RANK_TOP];
    ks_ns evidence_ns[KS_RANK_TOP];
    ks_ranks_opts o;
} ks_ranks;

KS_API void ks_ranks_match(const ks_rank *v, size_t n, const ks_ranks_opts *o, ks_ranks *out);
KS_API void ks_ranks_free(ks_ranks *r);

/* The straggler's confidence: high when it caused most of the waiting and the clocks agree,
 * low when they do not, else medium (the reports and the HTML page share it). */
KS_API const char *ks_ranks_confidence(const ks_ranks *r);

/* Reports: 0 text, 1 json (kinesift.ranks/1), 2 csv (one row per rank), 3 markdown. */
KS_API void ks_ranks_report(FILE *out, const ks_ranks *r, int format);

#ifdef __cplusplus
}
#endif
#endif
