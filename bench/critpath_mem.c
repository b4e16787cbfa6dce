/* bench/critpath_mem.c: the memory of the dependency graph and of the critical path, per event of
 * the trace: the heap a built graph holds (what `whatif` keeps while it replays) and what the paths
 * of `analyze` keep, read from glibc's mallinfo2 before and after each is built (arrays with their
 * growth slack, mmapped ones included). The temporaries freed inside each build are not counted.
 * One trace per argument; prints "TRACE EVENTS GRAPH_BYTES PATH_BYTES". Used by
 * bench/critpath_cost.sh. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "kinesift/analysis.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/source.h"
#include "insights/depgraph.h"

static size_t heap(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        ks_source *src;
        ks_stream *stream;
        ks_trace *t = NULL;
        ks_analysis *a = NULL;
        ks_steps st = {0};
        ks_error err;
        if (ks_source_open(argv[i], &src, &err) != KS_OK || ks_source_next(src, &stream, &err) != 1 ||
            ks_parse_stream(stream, NULL, &t, &err) != KS_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], err.msg);
            return 2;
        }
        ks_source_close(src);
        if (ks_analyze(t, NULL, &a, &err) != KS_OK || ks_steps_find(a, NULL, &st, &err) != KS_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], err.msg);
            return 2;
        }
        size_t h0 = heap();
        ks_dg g;
        ks_dg_build(a, ks_critpath_thread(a, &st), &st, 0, &g); /* whole, as whatif holds it */
        size_t graph = heap() - h0;
        ks_dg_free(&g);
        ks_critpath cp;
        h0 = heap();
        if (ks_critpath_build(a, &st, &cp, &err) != KS_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], err.msg);
            return 2;
        }
        size_t path = heap() - h0;
        printf("%s %llu %zu %zu\n", argv[i], (unsigned long long)t->events, graph, path);
        ks_critpath_free(&cp);
        ks_steps_free(&st);
        ks_analysis_free(a);
        ks_trace_free(t);
    }
    return 0;
}
