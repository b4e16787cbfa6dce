/* tests/insights/hta_critpath.c: the dependency graph against HTA's critical-path analysis on HTA's
 * own test traces (fixtures/real/hta/critical_path). HTA's tests name the edges its graph must
 * hold on each; kinesift's graph must hold the same dependency, marked recorded where the trace
 * records it (docs/analysis.md, "Compared with HTA's critical path"):
 *  - cuda_event_sync: cudaEventSynchronize waits for spin_kernel (the Event Sync names stream 7 and
 *    the cudaEventRecord call: recorded), cudaDeviceSynchronize waits for it too (inferred: a
 *    device sync names no stream);
 *  - cuda_event_sync_multi_stream: the Memset on stream 24 waits (cudaStreamWaitEvent) for the
 *    sgemm on stream 20 launched before the cudaEventRecord, not for the later one on stream 28;
 *  - alexnet: the elementwise kernel on stream 7 (correlation 5629) waits for the fft2d_c2r kernel
 *    on stream 20 (correlation 5606).
 * And HTA's path of the cuda_event_sync step agrees with kinesift's on the GPU: spin_kernel is on
 * it, and the path reaches it through the recorded wait. Usage: hta_critpath FIXTURES_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "kinesift/analysis.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/store.h"
#include "insights/depgraph.h"

#include "corpus_laws.h"

typedef struct loaded {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
    ks_dg g;
} loaded;

static void load(const char *dir, const char *file, loaded *x)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/real/hta/critical_path/%s", dir, file);
    ks_source *src;
    ks_stream *stream;
    ks_error err;
    memset(x, 0, sizeof *x);
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &stream, &err) != 1 ||
        ks_parse_stream(stream, NULL, &x->t, &err) != KS_OK || (ks_source_close(src), 0) ||
        ks_analyze(x->t, NULL, &x->a, &err) != KS_OK || ks_steps_find(x->a, NULL, &x->st, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    ks_dg_build(x->a, ks_critpath_thread(x->a, &x->st), &x->st, 0, &x->g);
}

static void unload(loaded *x)
{
    ks_dg_free(&x->g);
    ks_steps_free(&x->st);
    ks_analysis_free(x->a);
    ks_trace_free(x->t);
}

/* the node of the GPU work with correlation corr, -1 */
static int64_t gpu_node(const loaded *x, int64_t corr)
{
    const ks_gpuwork *gw = ks_gpuwork_of(x->a);
    for (size_t i = x->g.g0; i < x->g.n; i++) {
        const ks_event *e = ks_gpuwork_event(x->t, &gw->v[x->g.v[i].ref]);
        if ((e->flags & KS_EF_CORR) && ks_event_corr(x->t, e) == corr)
            return (int64_t)i;
    }
    return -1;
}

/* the node of the blocking call with correlation corr, -1 */
static int64_t call_node(const loaded *x, int64_t corr)
{
    for (size_t i = 0; i < x->g.g0; i++) {
        const ks_dg_node *v = &x->g.v[i];
        if (v->kind != KS_DG_WAIT_GPU)
            continue;
        const ks_timeline *tl = &x->a->tl[x->g.th[v->lane].track];
        const ks_event *e = &x->t->tracks[tl->track].ev[tl->s[v->ref].ev];
        if ((e->flags & KS_EF_CORR) && ks_event_corr(x->t, e) == corr)
            return (int64_t)i;
    }
    return -1;
}

/* the sync edge src -> dst: 1 recorded, 2 inferred, 0 none */
static int sync_edge(const loaded *x, int64_t src, int64_t dst)
{
    if (src < 0 || dst < 0)
        return 0;
    const ks_dg_node *v = &x->g.v[dst];
    for (uint32_t k = v->p0; k < ks_dg_in_end(&x->g, (size_t)dst); k++) {
        const ks_dg_edge *e = &x->g.e[k];
        if (e->src == (uint32_t)src && e->kind == KS_DEP_SYNC)
            return e->inferred ? 2 : 1;
    }
    return 0;
}

static void event_sync(const char *dir)
{
    loaded x;
    load(dir, "cuda_event_sync/event_sync_trace.json.gz", &x);
    CHECK(x.t->nsyncs == 2, "cuda_event_sync: %zu recorded waits kept, 2 Event Syncs in the trace", x.t->nsyncs);
    int64_t spin = gpu_node(&x, 1526), esync = call_node(&x, 1536), dsync = call_node(&x, 1549);
    CHECK(spin >= 0 && esync >= 0 && dsync >= 0, "cuda_event_sync: nodes %lld %lld %lld", (long long)spin,
          (long long)esync, (long long)dsync);
    CHECK(sync_edge(&x, spin, esync) == 1, "cuda_event_sync: spin_kernel -> cudaEventSynchronize (recorded): %d",
          sync_edge(&x, spin, esync));
    CHECK(sync_edge(&x, spin, dsync) == 2, "cuda_event_sync: spin_kernel -> cudaDeviceSynchronize (inferred): %d",
          sync_edge(&x, spin, dsync));
    /* the event sync waited: it is released by spin_kernel's end */
    CHECK(esync >= 0 && spin >= 0 && x.g.v[esync].start == x.g.v[spin].end,
          "cuda_event_sync: cudaEventSynchronize released at spin_kernel's end");
    /* the step's path: spin_kernel on it, reached through the recorded wait */
    ks_critpath cp;
    ks_error err;
    CHECK(ks_critpath_build(x.a, &x.st, &cp, &err) == KS_OK && cp.n == 1, "cuda_event_sync: one step's path");
    const char *spin_name = "at::cuda::(anonymous namespace)::spin_kernel(long)";
    ks_ns spin_ns = ks_critpath_named(&cp, 0, KS_CP_GPU, ks_strtab_find(x.t->strings, spin_name, strlen(spin_name)));
    CHECK(spin_ns == x.g.v[spin].end - x.g.v[spin].start, "cuda_event_sync: spin_kernel on the path for %lld ns of %lld",
          (long long)spin_ns, (long long)(x.g.v[spin].end - x.g.v[spin].start));
    int recorded_sync = 0;
    for (size_t k = 0; k < cp.v[0].n; k++) {
        ks_cp_piece pc = ks_critpath_piece(&cp, &cp.v[0], k);
        const ks_cp_piece *p = &pc;
        if (p->kind == KS_CP_SYNC && !p->inferred && p->a == x.g.v[spin].end)
            recorded_sync = 1;
    }
    CHECK(recorded_sync, "cuda_event_sync: the path returns from cudaEventSynchronize on a recorded edge");
    ks_critpath_free(&cp);
    unload(&x);
}

static void multi_stream(const char *dir)
{
    loaded x;
    load(dir, "cuda_event_sync_multi_stream/event_sync_trace.json.gz", &x);
    int64_t k1 = gpu_node(&x, 27), k2 = gpu_node(&x, 57), memset3 = gpu_node(&x, 1411);
    CHECK(k1 >= 0 && k2 >= 0 && memset3 >= 0, "multi_stream: nodes");
    CHECK(sync_edge(&x, k1, memset3) == 1, "multi_stream: sgemm (stream 20) -> Memset (stream 24) recorded: %d",
          sync_edge(&x, k1, memset3));
    CHECK(sync_edge(&x, k2, memset3) == 0, "multi_stream: no edge from the sgemm on stream 28");
    CHECK(x.g.edges[KS_DEP_SYNC][0] >= 1, "multi_stream: recorded sync edges");
    unload(&x);
}

static void alexnet(const char *dir)
{
    loaded x;
    load(dir, "alexnet/benchmark_result_2869224_1695835535_trace.json.gz", &x);
    int64_t fft = gpu_node(&x, 5606), elw = gpu_node(&x, 5629);
    CHECK(fft >= 0 && elw >= 0, "alexnet: nodes");
    CHECK(sync_edge(&x, fft, elw) == 1, "alexnet: fft2d_c2r (stream 20) -> elementwise (stream 7) recorded: %d",
          sync_edge(&x, fft, elw));
    printf("alexnet: %llu recorded, %llu inferred sync edges; %llu clock-order edges\n",
           (unsigned long long)x.g.edges[KS_DEP_SYNC][0], (unsigned long long)x.g.edges[KS_DEP_SYNC][1],
           (unsigned long long)x.g.clock_order);
    unload(&x);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hta_critpath FIXTURES_DIR\n");
        return 2;
    }
    event_sync(argv[1]);
    multi_stream(argv[1]);
    alexnet(argv[1]);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
