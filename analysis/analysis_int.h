/* analysis/analysis_int.h: what the analysis passes share among themselves beyond the public
 * ks_analysis: the private state, id lookups and the entry point of each pass. Private to
 * analysis/ and its tests; later rooms include analysis/gpuwork_index.h and analysis/passes.h. */
#ifndef KS_ANALYSIS_INT_H
#define KS_ANALYSIS_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "analysis/gpuwork_index.h"
#include "analysis/passes.h"
#include "common/i64map.h"
#include "kinesift/analysis.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"

/* gpuwork.c: the index, built before the passes and freed with the analysis. */
void ks_gpuwork_build(const ks_trace *t, ks_gpuwork *w);
void ks_gpuwork_free(ks_gpuwork *w);


struct ks_analysis_priv {
    int threads;         /* for the passes (pool.h); 1: one after the other on the caller's */
    atomic_int ext_ops_built; /* ext_ops is built on first need (few traces need it), under
                               * ext_ops_mu: passes on several threads may need it at once */
    pthread_mutex_t ext_ops_mu;
    ks_i64map ext_ops;   /* (External id) -> packed slice ref of the CPU op carrying it */
    ks_gpuwork gpuwork;  /* every GPU work event, built before the passes */
    struct ks_timings *timings; /* ks_analysis_opts.timings (NULL: not timed) */
    int tables_made;     /* ops, labels, kernels are made for the current window */
    ks_slice *room;      /* the slices of the small tracks, one array (analyze.c, small_tracks_room) */
    size_t room_n;
    uint8_t **comm;      /* per GPU track, 1 for each event that is communication (comm.c,
                          * ks_comm_mark, made with the links); NULL before */
    uint8_t *comm_names; /* per string id, ks_comm_kernel_name of the kernel names ks_comm_mark
                          * met (0 not asked, 1 no, 2 yes); NULL before */
    _Atomic uint8_t *kclass, *oclass; /* per string id, the class of the name as a kernel and as
                                       * an op, 0 not yet decided (workclass.c) */
    size_t nclass;
    struct ks_shapes *_Atomic shapes; /* ks_analysis_shapes: built on first need for the window
                                       * (shapes.c), NULL before */
};

/* shapes.c: frees the memo of ks_analysis_shapes (the window changes, the analysis is freed). */
void ks_shapes_memo_free(ks_analysis *a);

/* workclass.c: the memo of the classes of the trace's names (made with the analysis). */
void ks_class_memo_init(ks_analysis *a);
void ks_class_memo_free(ks_analysis *a);


/* comm.c: every GPU event's answer kept once the links are made (ks_comm_gpu_event reads them). */
void ks_comm_mark(ks_analysis *a);
void ks_comm_marks_free(ks_analysis *a);

/* links.c: CPU launch <-> GPU work (fills a->gpu_launch, a->links, priv->ext_ops). */
void ks_links_build(ks_analysis *a);
/* gpu.c: per-device unions in the window (fills a->gpu / a->gpu_reason); ks_gpu_comm (needs
 * the links and ks_gpu_build) adds each device's communication, exposed communication included. */
void ks_gpu_build(ks_analysis *a);
void ks_gpu_comm(ks_analysis *a);
/* gpu.c: a->device_activity, the events of other accelerators on device tracks (called by
 * ks_gpu_build); ks_device_activity_free empties it. */
void ks_device_activity_build(ks_analysis *a);
void ks_device_activity_free(ks_analysis *a);

/* aggregate.c: ops, labels and kernels tables: ks_aggregate_build does it all; the steps apart,
 * for running them beside other passes: begin, cpu (needs the timelines), gpu (needs the links),
 * end (fills a->ops and a->labels, frees g); ks_kernels_build (needs the links) is independent
 * of the other four. */
typedef struct ks_agg ks_agg;
void ks_aggregate_build(ks_analysis *a);
ks_agg *ks_aggregate_begin(ks_analysis *a);
void ks_aggregate_cpu(ks_agg *g);
void ks_aggregate_gpu(ks_agg *g);
void ks_aggregate_end(ks_agg *g);
void ks_kernels_build(ks_analysis *a);

/* Fill a->links.launch_calls and other_runtime_calls over the whole trace (calls.c). */
void ks_calls_count(ks_analysis *a);

/* Events on GPU tracks: the most a pass over GPU work can collect. */
static inline size_t ks_gpu_track_events(const ks_trace *t)
{
    size_t n = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].kind == KS_TRACK_GPU)
            n += t->tracks[k].n;
    return n;
}

#endif
