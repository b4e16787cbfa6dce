/* report/analyze_folded.c: `kinesift analyze --format folded`: one line per call path,
 * "frame;frame;leaf value", the input of flamegraph.pl, inferno and speedscope. The paths and
 * values come from ks_folded_build (analysis/folded.c); this file only spells them: values in
 * integer ns, frames with ';' replaced by ':' and control characters by spaces (the two things
 * the format cannot carry), paths with a value of 0 left out. Lines of several traces follow
 * each other (the tools add identical paths together). */
#include <stdlib.h>

#include "common/util.h"
#include "kinesift/report.h"

static void frame(FILE *out, const ks_trace *t, const ks_folded_node *n)
{
    switch (n->frame) {
    case KS_FRAME_PYTHON: fputs("[python]", out); return;
    case KS_FRAME_UNLINKED: fputs("[unlinked]", out); return;
    case KS_FRAME_NO_OP: fputs("[no op]", out); return;
    case KS_FRAME_STEP: fputs("ProfilerStep#*", out); return;
    default: break;
    }
    const char *s = n->name ? ks_trace_str(t, n->name) : "";
    if (!*s)
        s = "[unnamed]";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? ' ' : c, out);
    }
}

void ks_analyze_folded(FILE *out, const ks_analysis *a, ks_folded_metric m, int python_frames)
{
    ks_folded f;
    ks_folded_build(a, m, python_frames, &f);
    int32_t *path = NULL;
    size_t cap = 0;
    for (size_t i = 1; i < f.n; i++) {
        if (f.v[i].value <= 0)
            continue;
        size_t depth = 0;
        for (int32_t x = (int32_t)i; x > 0; x = f.v[x].parent)
            KS_PUSH(path, depth, cap, x);
        while (depth--) {
            frame(out, a->trace, &f.v[path[depth]]);
            if (depth)
                fputc(';', out);
        }
        fprintf(out, " %lld\n", (long long)f.v[i].value);
    }
    free(path);
    ks_folded_free(&f);
}
