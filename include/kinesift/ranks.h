/* kinesift/ranks.h: the cross-rank analysis of a distributed job (`kinesift ranks`).
 *
 * Each rank's trace is reduced to a ks_rank (ranks/rank.c): its identity, per-rank figures and
 * the list of its collective kernels; the trace and its analysis can be freed right after, so
 * ranks are read concurrently with about one event store per worker. ks_ranks_match
 * (ranks/match.c) then matches the collectives across ranks, estimates each rank's clock offset
 * from the collectives' end times, and attributes waits to the last arrival (the straggler).
 * Times are int64 ns; figures that cannot be observed are flagged with a reason, never zero.
 *
 * Threads (kinesift/common.h): a ks_rank owns what it holds (the trace may be freed), so ranks
 * reduced on different threads are independent (`kinesift ranks` reduces several at once). */
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
    int64_t step;           /* N of the step its launch fell in (ProfilerStep#N), -1 none */
    ks_ns start, end;       /* the kernel, on the rank's own clock */
    char *before[KS_RANK_TOP]; /* top compute kernels on its device since the previous collective */
    ks_ns before_ns[KS_RANK_TOP];
} ks_rank_coll;

/* a kernel or CPU op name and its time on the rank (the straggler's evidence compares them) */
typedef struct ks_rank_name {
    char *name;
    int op;                 /* 0 kernel (total duration), 1 CPU op (self time) */
    ks_ns ns;
} ks_rank_name;

#define KS_RANK_NAMES 32 /* kernels and ops kept per rank, each, the longest first */

/* a rank's memory peak on one device (kinesift/memory.h, the trace's [memory] events), exact bytes */
typedef struct ks_rank_mem {
    int32_t device_type;    /* c10 Device Type (-1 absent) */
    int32_t device_id;      /* Device Id (-1 the CPU; INT32_MIN absent) */
    char *type_name;        /* "CPU", "CUDA", "HIP"...; NULL for a number c10 does not name */
    int64_t peak_allocated; /* the most Total Allocated of an event; -1 not observed (no totals) */
    int64_t peak_reserved;  /* the most Total Reserved; -1 not observed (none carried, or the CPU) */
    int64_t capacity;       /* deviceProperties totalGlobalMem; -1 unknown */
} ks_rank_mem;

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
    /* steps captured (warm-up included): first and last N, -1 none */
    int64_t first_step, last_step;
    /* the input ended inside the trace (killed mid-write): where, and the end of its last
     * recorded GPU work (or event) on its own clock */
    int truncated;
    uint64_t cut_byte;
    ks_ns last_ns;
    /* the longest kernels (total) and CPU ops (self), KS_RANK_NAMES of each at most */
    ks_rank_name *names;
    size_t nnames;
    /* memory peaks per device, by device type then id; mem_reason set (and nmem 0) when not
     * observed: no [memory] events, or a summary written before they were kept */
    ks_rank_mem *mem;
    size_t nmem;
    const char *mem_reason;
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
/* Read a summary from an open stream (its first line, up to KS_LIMIT_SUMMARY_BYTES, read as it
 * comes: the analyze report after it is not decompressed) into out; err's message names the
 * stream. Summaries are streamed: only the fields a reader reads are kept (docs/robustness.md). */
struct ks_stream;
KS_API int ks_rank_summary_stream(struct ks_stream *st, ks_rank *out, ks_error *err);
/* Read a summary's analyze report into out (free with ks_summary_report_free), after checking its
 * line 1; an error naming the file for a /1 summary, which has none. */
KS_API int ks_summary_report_read(const char *name, const char *text, size_t len, ks_summary_report *out,
                                  ks_error *err);
/* The same from an open stream, read as it comes (up to KS_LIMIT_SUMMARY_BYTES); err's message
 * names the stream. */
KS_API int ks_summary_report_stream(struct ks_stream *st, ks_summary_report *out, ks_error *err);
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
    int64_t index;          /* Seq where every call of (name, group) has one, else the order of the
                             * call among the job's calls of (name, group) */
    int64_t step;           /* the step number the calls fell in, -1 none */
    int64_t call;           /* the k-th call of name on the group in that step (1-based) */
    ks_match_arrival *arr;
    size_t narr;
    size_t last;            /* rank index of the last arrival; SIZE_MAX on a tie */
    ks_ns last_arrival;
    ks_ns after_ns;         /* the last arrival's own kernel: the transfer itself */
    ks_ns wait_ns;          /* sum of waits */
    int64_t bytes, group;   /* -1 unknown */
    double algbw, busbw;    /* GB/s (1e9 bytes/s); < 0 unknown */
} ks_match;

typedef enum ks_miss_kind {
    KS_MISS_SKIPPED = 0,    /* it entered later calls of the group: it never entered this one */
    KS_MISS_NEVER_ARRIVED,  /* its last call of the group came before: it never arrived (a hang?) */
    KS_MISS_EXTRA           /* a call the others (most of the ranks expected) never made */
} ks_miss_kind;
KS_API const char *ks_miss_kind_name(ks_miss_kind k);

/* A call a rank should have made and did not (or made alone). Expected: the ranks that call the
 * group, whose captured steps cover the call's step, and whose trace is not cut (a cut trace
 * loses calls anywhere in file order: they are counted as its unrecorded calls instead). */
typedef struct ks_unmatched {
    const char *name, *pg;
    size_t rank;            /* rank index */
    int64_t missing;        /* 1 (the call named by step and call) */
    int64_t step, call;     /* the call: the call-th of name in step (-1: outside the steps) */
    ks_miss_kind kind;
    size_t match;           /* the match it is missing from, SIZE_MAX for KS_MISS_EXTRA */
    ks_ns at;               /* when the others entered it (aligned; the extra call's own start) */
} ks_unmatched;

typedef struct ks_rank_stat {
    ks_ns offset;           /* subtracted from the rank's times at t0 (ks_ranks.t0); 0 for the reference */
    double drift_ppm;       /* and drift_ppm * (time - t0) / 1e6 more (clock drift); 0 when not fitted */
    double slope_ppm;       /* the fitted slope when beyond KS_LIMIT_DRIFT_PPM (no clock's): drift_ppm
                             * 0 and the offset the median of the end differences; 0 otherwise */
    ks_ns residual;         /* largest |end difference - offset - drift| over shared collectives */
    int aligned;            /* 0: no collective shared with the reference */
    ks_ns wait;             /* its own waits */
    ks_ns caused;           /* waits of the others when it arrived last */
    uint64_t times_last;
    int slow_step, slow_compute; /* above the median by more than straggler_pct */
    size_t last_match;      /* the last matched collective it entered (SIZE_MAX none): the hang view */
    ks_ns dur;              /* the sum of its collective kernels' durations in the matches */
    size_t unrecorded;      /* a cut rank: calls of the others in its captured steps that its trace
                             * does not hold (cut away, or never made: a cut trace cannot tell) */
} ks_rank_stat;

typedef struct ks_ranks_opts {
    int align;              /* estimate and apply clock offsets (default 1) */
    ks_ns align_tolerance;  /* spread above which waits are not trusted (default 20 us) */
    double straggler_pct;   /* default 5 */
} ks_ranks_opts;
KS_API void ks_ranks_opts_init(ks_ranks_opts *o);

/* the straggler's evidence: a kernel or op whose time on it exceeds the median rank's */
typedef struct ks_evidence {
    const char *name;       /* borrowed from the straggler's ks_rank */
    int op;                 /* 0 kernel, 1 CPU op */
    ks_ns ns, median_ns;    /* per active step when every rank has steps, else in all */
} ks_evidence;
#define KS_RANK_EVIDENCE 5

/* bandwidth by message size: one row per (collective name, size bucket [lo, hi) bytes, powers of
 * 4 from 1 kB) */
typedef struct ks_bw_row {
    const char *name;
    int64_t lo, hi;         /* bytes */
    size_t calls;
    ks_ns transfer_median;
    double algbw_median, busbw_median; /* GB/s; < 0 not observed */
} ks_bw_row;

/* the rank x collective duration matrix: one column per (name, group), each cell the sum of that
 * rank's kernel durations over the matched calls (-1: it made none) */
typedef struct ks_dur_matrix {
    const char **name, **pg; /* ncols each */
    size_t ncols;
    ks_ns *ns;              /* n ranks x ncols, row-major */
} ks_dur_matrix;

/* memory across ranks, per device kind (Device Type): over the (rank, device) pairs of that kind
 * with a peak. Ranks are indices into the ranks; SIZE_MAX none. */
typedef struct ks_mem_kind {
    int32_t device_type;
    const char *type_name;   /* borrowed from a rank's ks_rank_mem; NULL unnamed */
    size_t devices;          /* (rank, device) pairs of this kind with an allocated peak */
    size_t ranks;            /* ranks with one */
    size_t no_peak;          /* pairs whose events carry no Total Allocated (peak not observed) */
    int64_t max_allocated, median_allocated; /* the house median (type 7, ks_quantile_ns) */
    size_t max_rank;         /* the first rank (in rank order) holding the max, its device */
    int32_t max_device;
    double imbalance;        /* max / median; < 0 when the median is 0 */
    int64_t max_reserved, median_reserved; /* over the pairs carrying Total Reserved; -1 none */
    double reserved_imbalance;
    /* the device closest to its capacity: the highest peak_allocated / capacity over the pairs
     * whose capacity is known (SIZE_MAX: none known) */
    size_t cap_rank;
    int32_t cap_device;
    double cap_share;
    int64_t cap_allocated, cap_capacity;
    size_t no_capacity;      /* pairs with a peak and no known capacity */
} ks_mem_kind;

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
    ks_ns t0;               /* the reference time of the offsets (the reference's first collective end) */
    ks_ns total_wait;
    ks_ns step_median, compute_median; /* over the ranks that have them; -1 none */
    size_t straggler;       /* SIZE_MAX: none */
    ks_evidence evidence[KS_RANK_EVIDENCE];
    size_t nevidence;
    int64_t world;          /* distributedInfo.world_size (the largest), -1 unknown */
    size_t absent;          /* ranks of [0, world) with no trace (read or not) */
    size_t truncated;       /* ranks whose trace was cut */
    /* whether the waits can be trusted: every rank read whole (or --allow-incomplete), the
     * clocks agree within the tolerance, every rank with collectives aligned; else the reason */
    int waits_trusted;
    const char *trust_reason;
    int exit_status;        /* set by ks_ranks_verdict */
    ks_bw_row *bw;
    size_t nbw;
    ks_dur_matrix dm;
    /* memory across ranks (ks_ranks_memory): one row per device kind, by Device Type */
    ks_mem_kind *mk;
    size_t nmk;
    size_t mem_ranks;       /* ranks with memory events (the others: their mem_reason) */
    ks_ranks_opts o;
    /* inputs that could not be read (the others were matched): set by the caller after
     * ks_ranks_match, borrowed; the reports list them (JSON "errors": [{"input", "error"}]) and
     * name the rank of each where its file name says it (error_rank, -1 unknown) */
    const char *const *error_input, *const *error_message;
    const int64_t *error_rank;
    size_t nerrors;
    int allow_incomplete;   /* set by the caller: a cut or unread rank does not fail the run */
} ks_ranks;

KS_API void ks_ranks_match(const ks_rank *v, size_t n, const ks_ranks_opts *o, ks_ranks *out);
KS_API void ks_ranks_free(ks_ranks *r);

/* After the caller set the errors and allow_incomplete: the exit status of `kinesift ranks`
 * (docs/ranks.md): 0 complete and the waits trusted, 2 a rank cut or unreadable (unless
 * allow_incomplete), 3 the waits not to be trusted (clocks, unaligned ranks); and
 * r->waits_trusted / r->trust_reason updated. */
KS_API int ks_ranks_verdict(ks_ranks *r);

/* The straggler's confidence: high when it caused most of the waiting and the clocks agree,
 * low when they do not, else medium (the reports and the HTML page share it). */
KS_API const char *ks_ranks_confidence(const ks_ranks *r);

/* Reports (enum ks_format): text (fitted to `width` columns, 0: no limit), json (kinesift.ranks/2),
 * csv (one row per rank), markdown. */
KS_API void ks_ranks_report(FILE *out, const ks_ranks *r, int format, size_t width);

#ifdef __cplusplus
}
#endif
#endif
