/* kinesift/critpath.h: what waits for what in each step, and the step's critical path.
 *
 * The dependency graph (insights/depgraph.c) has the CPU time of each replayed thread (the stepping
 * thread, every thread that launched GPU work, a data loader's pin-memory thread) cut into nodes
 * (CPU work, a blocking call's wait, a wait on another thread, a wait for a batch) and one node
 * per piece of GPU work (kernel, memcpy, memset), with the edges: program order on a thread,
 * launch call -> its GPU work, order on a stream, a blocking call -> the GPU work it waited for, a
 * thread -> the work of another thread it waited for, a batch the pin-memory thread pinned -> the
 * call that took it. Each edge is recorded (the trace says it: a correlation, a stream, a Stream
 * Sync on a stream) or inferred (kinesift concluded it from the times: docs/analysis.md,
 * "Critical path").
 *
 * The critical path of a step is the chain of nodes and edges that ended the step, walked back
 * from its end to its start: each node is left for the dependency that released it last. Its
 * pieces tile the step exactly, so the path's length is the step's wall time (a law the tests
 * check on every real trace). Every piece is a kind below; a piece that no dependency explains
 * (before the first node of the graph in the step, clocks out of order) is KS_CP_UNMODELED,
 * never a guess. */
#ifndef KINESIFT_CRITPATH_H
#define KINESIFT_CRITPATH_H

#include "kinesift/analysis.h"
#include "kinesift/insights.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_cp_kind {
    KS_CP_CPU = 0,         /* CPU work of a thread (ops, labels, untraced time between them) */
    KS_CP_GPU,             /* GPU work: kernel, memcpy, memset */
    KS_CP_LAUNCH,          /* launch latency: the launch call's point to its GPU work's start, up
                            * to a bound (docs/analysis.md "Critical path"; past it unmodeled) */
    KS_CP_STREAM_GAP,      /* a stream's gap between two pieces of its work, both on the path, up
                            * to the same bound */
    KS_CP_SYNC,            /* a blocking call after the GPU work it waited for ended (its return) */
    KS_CP_THREAD_WAIT,     /* a thread's lag between the other thread's work it waited for and its
                            * going on */
    KS_CP_UNMODELED,       /* time no dependency of the graph explains */
    KS_CP_NKINDS
} ks_cp_kind;

KS_API const char *ks_cp_kind_name(int kind);

/* One piece of a path: [a, b) of one kind on one track (a CPU thread, a GPU stream; for the gaps,
 * the track of the node they lead to). Read with ks_critpath_piece. */
typedef struct ks_cp_piece {
    ks_ns a, b;
    uint32_t track;
    uint8_t kind;              /* ks_cp_kind */
    uint8_t inferred;          /* the piece is an inferred edge, or a node reached through one */
    ks_str name;               /* GPU: the work's name; CPU, SYNC: the innermost slice at its end
                                * (0: none) */
} ks_cp_piece;

#define KS_CP_TOP 10

/* A name on the path of a step, with its time there (CPU time by the innermost slice, op or
 * label; GPU time by the work's name). */
typedef struct ks_cp_item {
    ks_str name;               /* 0: CPU time under no slice (untraced) */
    uint8_t kind;              /* KS_CP_CPU or KS_CP_GPU */
    uint8_t collective;        /* GPU: a collective (ks_is_comm_kernel): its time may be waiting
                                * for the other ranks */
    ks_ns ns;
} ks_cp_item;

typedef struct ks_cp_step {
    int64_t number;            /* as in ks_steps (-1: the window, without steps) */
    ks_ns start, end;          /* the step's [start, end): its wall time is the path's length */
    ks_ns by_kind[KS_CP_NKINDS]; /* adds up to end - start exactly */
    ks_ns inferred_ns;         /* the part of the path on inferred edges and the nodes they lead to */
    ks_ns collective_ns;       /* the part of its GPU time in collectives (ks_is_comm_kernel): a
                                * collective's time includes waiting for its peers, so it may be
                                * another rank's time, not this one's work */
    size_t first, n;           /* its pieces: first .. first + n of the path's, in time order
                                * (ks_critpath_piece) */
    ks_cp_item top[KS_CP_TOP]; /* the names with most time on the path, most first */
    size_t ntop;
} ks_cp_step;

/* The edges of the graph, by what they are. */
typedef enum ks_dep_kind {
    KS_DEP_PROGRAM = 0,        /* program order on a thread (recorded) */
    KS_DEP_LAUNCH,             /* launch call -> GPU work (recorded: correlation or flow) */
    KS_DEP_STREAM,             /* order of work on a stream (recorded) */
    KS_DEP_SYNC,               /* GPU work -> the blocking call that waited for it (recorded when
                                * a Stream Sync of the call names the stream, or an Event Sync
                                * the stream and the cudaEventRecord call; else inferred: the last
                                * work of each stream launched before it, ended before it
                                * returned); GPU work -> the first work a stream launched after a
                                * cudaStreamWaitEvent on that event (recorded: Stream Wait
                                * Event) */
    KS_DEP_THREAD,             /* a thread that waited -> the other thread's work it waited for
                                * (inferred) */
    KS_DEP_DATA_QUEUE,         /* the pin-memory thread's batch k -> the stepping thread's k-th
                                * _MultiProcessingDataLoaderIter.__next__ (inferred: first in,
                                * first out) */
    KS_DEP_NKINDS
} ks_dep_kind;

KS_API const char *ks_dep_kind_name(int kind);

/* A piece as the path keeps it (12 bytes): its end as an offset from its step's start (the low 32
 * bits; it begins where the piece before it in its step ended, the first at the step's start), its
 * track, kind and inferred flag in one word (track << 4 | inferred << 3 | kind), its name. */
typedef struct ks_cp_packed {
    uint32_t end;
    uint32_t tk;
    ks_str name;
} ks_cp_packed;

typedef struct ks_critpath {
    ks_cp_step *v;
    size_t n;
    size_t npieces;
    ks_cp_packed *packed;      /* the pieces, packed: when they tile their steps and every track's
                                * index is below 2^28 */
    uint32_t *end_hi;          /* the high 32 bits of each packed end, when a step lasts 2^32 ns or
                                * more (else NULL) */
    ks_cp_piece *wide;         /* else the pieces whole (packed is NULL) */
    uint32_t track;            /* the stepping thread */
    uint64_t nodes;            /* in the whole graph */
    uint64_t edges[KS_DEP_NKINDS][2]; /* [kind][0 recorded, 1 inferred] */
    uint64_t clock_order;      /* edges whose source ended after their target began (clocks out of
                                * order): never a path edge, counted */
    uint64_t unlaunched_gpu;   /* GPU work with no launch call on a replayed thread: a root of the
                                * graph at its measured time */
} ks_critpath;

/* The graph and the path of each step of st (restricted to the window as st is), or of the
 * analysed window when st has none (number -1). 0 (KS_OK) or KS_ERR with err set; cp is to be
 * freed in any case. */
KS_API int ks_critpath_build(const ks_analysis *a, const ks_steps *st, ks_critpath *cp, ks_error *err);
KS_API void ks_critpath_free(ks_critpath *cp);

/* Piece k (< s->n) of step s of cp. */
KS_API ks_cp_piece ks_critpath_piece(const ks_critpath *cp, const ks_cp_step *s, size_t k);

/* The time of the path of step i (an index of cp->v) inside [x, y), of one kind (-1: any) and on
 * one track (UINT32_MAX: any): an item's time on the critical path, the most that making the item
 * faster can save in that step as the trace shows it (the diagnoses' impact). */
KS_API ks_ns ks_critpath_overlap(const ks_critpath *cp, size_t i, ks_ns x, ks_ns y, int kind, uint32_t track);
/* Piece k (< s->n) of step s of cp. */
KS_API ks_cp_piece ks_critpath_piece(const ks_critpath *cp, const ks_cp_step *s, size_t k);

/* The time of the path of step i of one kind (KS_CP_CPU, KS_CP_GPU) on pieces named name. */
KS_API ks_ns ks_critpath_named(const ks_critpath *cp, size_t i, int kind, ks_str name);

#ifdef __cplusplus
}
#endif
#endif
