/* insights/depgraph.h: the dependency graph of a trace (depgraph.c), for the critical path
 * (critpath.c) and the what-if replay (whatif.c). Internal to insights/. */
#ifndef KS_DEPGRAPH_H
#define KS_DEPGRAPH_H

#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"

enum {
    KS_DG_RUN = 0,         /* CPU work of a thread [a, end) (ops, labels, untraced time between) */
    KS_DG_WAIT_GPU,        /* a blocking call [a, end): released at start by the GPU work it waited
                            * for, then returns (start .. end) */
    KS_DG_WAIT_THREAD,     /* a thread idle in [a, start) until the work of another thread it waited
                            * for ended (plus the lag): start == end */
    KS_DG_IDLE,            /* a thread idle in [a, end) while another worked, going on later than
                            * any of that work ended: kept at its length, not modelled */
    KS_DG_GPU,             /* GPU work [start, end) */
    KS_DG_WAIT_QUEUE,      /* the stepping thread in a call taking the next batch of a data-loader
                            * queue [a, end): released at start by the pin-memory thread's batch
                            * (a data_queue edge), then returns (start .. end) */
    KS_DG_WAIT_EXT         /* the pin-memory thread idle in [a, start) until a worker process (not
                            * in the trace) delivered the next batch: start == end; released by
                            * nothing of the graph (bind -1), never replayed before its start */
};

/* 40 bytes a node, 16 an edge: the graph is kept while whatif replays it */
typedef struct ks_dg_node {
    ks_ns a;               /* CPU: where it begins on its thread (the previous node's end); GPU:
                            * its start */
    ks_ns start;           /* when it was released (= a for CPU work and GPU work) */
    ks_ns end;
    int32_t ref;           /* GPU: index of the work in the GPU work index; WAIT_GPU: the call's
                            * slice; IDLE: the thread busy meanwhile; else -1 */
    int32_t bind;          /* the edge (index in ks_dg.e) that released it last, -1: none */
    uint32_t p0;           /* its incoming edges: e[p0 .. ks_dg_in_end) */
    uint32_t lane : 28;    /* CPU: index of the thread; GPU: ks_dg.nth + index of the stream (a
                            * lane per track: fewer than 2^28) */
    uint32_t kind : 4;
} ks_dg_node;

/* An edge into the node whose incoming edges hold it (ks_dg.e is by target). */
typedef struct ks_dg_edge {
    ks_ns q;               /* the point of src it leaves from (its end, or a launch point in it) */
    uint32_t src;
    uint8_t kind;          /* ks_dep_kind */
    uint8_t inferred;
    uint8_t measured;      /* its lag (ks_dg_lag) is the measured distance from q to the target's
                            * release, else what such an edge needs */
} ks_dg_edge;

typedef struct ks_dg_thread {
    uint32_t track;        /* its timeline: a->tl[track] */
    size_t n0, n1;         /* its nodes, in time order */
} ks_dg_thread;

typedef struct ks_dg_stream {
    uint32_t track;
    size_t n0, n1;
} ks_dg_stream;

typedef struct ks_dg {
    const ks_analysis *a;
    ks_dg_node *v;
    size_t n;
    ks_dg_edge *e;         /* by dst */
    size_t ne;
    ks_dg_thread *th;      /* th[0]: the stepping thread */
    size_t nth;
    int32_t pin;           /* the index in th of the pin-memory thread, -1: none */
    ks_dg_stream *st;
    size_t nst;
    int32_t *thread_of;    /* per track: index in th, -1 */
    uint8_t *launched;     /* per GPU node (index - first GPU node): 1 launched by a replayed thread */
    size_t g0;             /* the first GPU node */
    ks_ns launch_typ;      /* the median launch latency of the launches that released their work */
    uint64_t edges[KS_DEP_NKINDS][2];
    uint64_t clock_order;
    uint64_t unlaunched;
} ks_dg;

/* The end of node i's incoming edges: e[g->v[i].p0 .. ks_dg_in_end(g, i)). */
static inline uint32_t ks_dg_in_end(const ks_dg *g, size_t i)
{
    return i + 1 < g->n ? g->v[i + 1].p0 : (uint32_t)g->ne;
}

/* The lag of edge e into node v: its target starts no earlier than q + lag (as replayed). */
static inline ks_ns ks_dg_lag(const ks_dg *g, const ks_dg_node *v, const ks_dg_edge *e)
{
    if (e->measured)
        return ks_sat_sub(v->start, e->q);
    return e->kind == KS_DEP_LAUNCH ? g->launch_typ : 0;
}

/* The graph of the whole trace; stepping: the track whose steps (st, or NULL) are replayed: its CPU
 * work is cut at their host starts and ends. binds_only: each node keeps of its incoming edges
 * only the one that released it (its bind, at p0; the only edge the critical path walks), so the
 * graph is walked, never replayed (whatif needs every edge); the counts (edges, clock_order) and
 * launch_typ are those of the whole graph. */
void ks_dg_build(const ks_analysis *a, uint32_t stepping, const ks_steps *st, int binds_only, ks_dg *g);
void ks_dg_free(ks_dg *g);

/* The node of thread j holding point q (the last one beginning before q; its first at its start),
 * or -1 when the thread has none. */
int64_t ks_dg_node_at(const ks_dg *g, size_t j, ks_ns q);

/* A replay of the graph with some time scaled: per thread and shrink, the CPU time the shrink
 * covers; per GPU node, its factor. */
typedef struct ks_dg_scale {
    const ks_shrink *sh;
    size_t nsh;
    ks_ivs *cover;         /* [thread * nsh + k]: where shrink k applies on the thread, normalized */
    double *gpu_factor;    /* per GPU node (index - g0) */
    uint8_t *gpu_by;       /* per GPU node: 1 + the shrink scaling it, 0 none */
} ks_dg_scale;

/* The scales of shrinks sh (none: nsh 0). */
void ks_dg_scale_make(const ks_dg *g, const ks_shrink *sh, size_t nsh, ks_dg_scale *sc);
void ks_dg_scale_free(const ks_dg *g, ks_dg_scale *sc);
/* Thread j's CPU time of [x, y) scaled (x <= y). */
ks_ns ks_dg_scaled(const ks_dg *g, const ks_dg_scale *sc, size_t j, ks_ns x, ks_ns y);
/* A replayer of g: the successors of each node, and the room of one replay. */
typedef struct ks_dg_replayer {
    const ks_dg *g;
    uint32_t *out0, *succ;     /* successors by node (CSR) */
    uint32_t *indeg, *in, *done, *queue, *sub;
    size_t nsub;
    uint32_t stamp;            /* in[v], done[v] == stamp: in this replay, replayed */
} ks_dg_replayer;

void ks_dg_replayer_init(const ks_dg *g, ks_dg_replayer *r);
void ks_dg_replayer_free(ks_dg_replayer *r);
/* Replay the nodes released (ks_dg_node.start) in [lo, hi), those of the pin-memory thread from
 * pin_lo (at most lo) on: s0, s1 get their start and end; the other nodes are read as measured
 * (fixed). Monotone: with factors at most 1, no node replayed ends later than measured. Returns
 * the nodes replayed past a cycle. */
uint64_t ks_dg_replay_range(ks_dg_replayer *r, const ks_dg_scale *sc, ks_ns lo, ks_ns hi, ks_ns pin_lo, ks_ns *s0,
                            ks_ns *s1);
/* Replay the graph: s0, s1 (g->n each) get every node's start and end. Unscaled, every node
 * keeps its measured start and end (the law the tests check). Returns the nodes whose edges made
 * a cycle (then replayed at their measured release). */
uint64_t ks_dg_replay(const ks_dg *g, const ks_dg_scale *sc, ks_ns *s0, ks_ns *s1);
/* Where a point q of node v lies in a replay. */
ks_ns ks_dg_map(const ks_dg *g, const ks_dg_scale *sc, size_t v, ks_ns q, const ks_ns *s0, const ks_ns *s1);

/* The steps by the rule of insights/steps.c: per GPU node, the step whose host range holds its
 * launch call (-1 none); per step, its frontier. */
int32_t *ks_dg_item_steps(const ks_dg *g, const ks_steps *st);

/* The thread whose steps are walked: the steps' thread, else the one that launched most GPU work
 * (critpath.c). */
uint32_t ks_critpath_thread(const ks_analysis *a, const ks_steps *st);

#endif
