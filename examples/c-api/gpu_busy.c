/* examples/c-api/gpu_busy.c: the GPU busy share of a trace through libkinesift's public API.
 *
 *   cc gpu_busy.c $(pkg-config --cflags --libs kinesift) -o gpu_busy
 *   ./gpu_busy TRACE
 *
 * For each trace in TRACE (a file, compressed or not; an archive holds several), prints one line
 * per GPU device: "NAME device D: busy B ns of span S ns, busy share X", where busy is the union
 * of kernel, memcpy and memset time on the device and span runs from its first work start to its
 * last work end (docs/analysis.md) - the figures of `kinesift analyze`. A trace without GPU work
 * prints "NAME: GPU not observed (REASON)": never a busy share of 0. Exit 2 on a bad input. */
#include <stdio.h>

#include <kinesift/analysis.h>
#include <kinesift/parse.h>

static int report(ks_stream *st)
{
    ks_error err;
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    ks_trace *t;
    if (ks_parse_stream(st, &po, &t, &err) != KS_OK) {
        fprintf(stderr, "gpu_busy: %s: %s\n", ks_stream_name(st), err.msg);
        return 2;
    }
    ks_analysis_opts ao;
    ks_analysis_opts_init(&ao);
    ks_analysis *a;
    if (ks_analyze(t, &ao, &a, &err) != KS_OK) {
        fprintf(stderr, "gpu_busy: %s: %s\n", ks_stream_name(st), err.msg);
        ks_trace_free(t);
        return 2;
    }
    if (a->gpu_reason)
        printf("%s: GPU not observed (%s)\n", ks_stream_name(st), a->gpu_reason);
    for (size_t i = 0; !a->gpu_reason && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        printf("%s device %d: busy %lld ns of span %lld ns, busy share ", ks_stream_name(st),
               (int)g->device, (long long)g->busy_ns, (long long)g->span_ns);
        if (g->span_ns > 0)
            printf("%.6f\n", (double)g->busy_ns / (double)g->span_ns);
        else
            printf("not observed (empty span)\n");
    }
    ks_analysis_free(a);
    ks_trace_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gpu_busy TRACE\n");
        return 2;
    }
    ks_error err;
    ks_source *src;
    if (ks_source_open(argv[1], &src, &err) != KS_OK) {
        fprintf(stderr, "gpu_busy: %s: %s\n", argv[1], err.msg);
        return 2;
    }
    int rc = 0, r;
    ks_stream *st;
    while (!rc && (r = ks_source_next(src, &st, &err)) == 1)
        rc = report(st);
    if (!rc && r < 0) {
        fprintf(stderr, "gpu_busy: %s: %s\n", argv[1], err.msg);
        rc = 2;
    }
    ks_source_close(src);
    return rc;
}
