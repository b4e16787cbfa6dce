/* fuzz/fuzz_whatif.c: a parsed trace through the critical path and the what-if replay, as
 * `kinesift whatif` and `kinesift analyze` run them, and their text and JSON reports. The first
 * byte chooses the shrinks (bits 0-2: the first factor from a table that holds 0, 1, 1000, a
 * factor past the limit and NaN, which must be refused; bits 3-4: the label, @cpu, @gpu, the
 * trace's first label or a name that matches nothing; bit 5: a second shrink @gpu=0.5) and the
 * window (bit 6: the whole trace); the rest is the trace. Properties: the path of every step tiles
 * it (its pieces begin where the one before ended, none empty, the kinds add up to the step's
 * wall time); the replay without change gives the measured step time; no factor at or under 1
 * projects a step longer than measured; extreme timestamps give no undefined behaviour (UBSan)
 * and no memory error. */
#include <math.h>

#include "fuzz/fuzz.h"
#include "kinesift/analysis.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/report.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    return 0;
}

static void check_paths(const ks_critpath *cp)
{
    for (size_t i = 0; i < cp->n; i++) {
        const ks_cp_step *s = &cp->v[i];
        ks_ns at = s->start, kinds = 0;
        for (size_t k = 0; k < s->n; k++) {
            const ks_cp_piece *p = &cp->pieces[s->first + k];
            FUZZ_CHECK(p->a == at && p->b > p->a, "step %zu piece %zu", i, k);
            at = p->b;
        }
        FUZZ_CHECK(!s->n || at == s->end, "step %zu ends at %lld, not %lld", i, (long long)at, (long long)s->end);
        for (int k = 0; k < KS_CP_NKINDS; k++) {
            FUZZ_CHECK(s->by_kind[k] >= 0, "negative kind");
            kinds = kinds > INT64_MAX - s->by_kind[k] ? INT64_MAX : kinds + s->by_kind[k];
        }
        /* the steps' ends never precede their starts; a span past int64 saturates */
        ks_ns wall = s->start < 0 && s->end > INT64_MAX + s->start ? INT64_MAX : s->end - s->start;
        FUZZ_CHECK(kinds == wall || wall == INT64_MAX, "kinds %lld, wall %lld", (long long)kinds, (long long)wall);
    }
}

static const char *first_label(const ks_trace *t)
{
    for (size_t k = 0; k < t->ntracks; k++)
        for (size_t i = 0; i < t->tracks[k].n; i++)
            if (t->tracks[k].ev[i].kind == KS_K_USER_ANNOTATION && t->tracks[k].ev[i].name)
                return ks_trace_str(t, t->tracks[k].ev[i].name);
    return "@cpu";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        LLVMFuzzerInitialize(NULL, NULL);
    fuzz_in in = {data, size};
    uint32_t sel = fuzz_take(&in, 1);
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    po.chunk_size = FUZZ_CHUNK;
    ks_trace *t = NULL;
    ks_error err;
    if (ks_parse_buffer("fuzz", in.p, in.n, &po, &t, &err) != KS_OK)
        return 0;
    static const double factors[8] = {0.0, 0.5, 1.0, 2.0, 1000.0, 1e308, 1e-300, 0.25};
    double f = (sel & 7) == 6 ? nan("") : factors[sel & 7];
    const char *labels[4] = {"@cpu", "@gpu", first_label(t), "no such label in any trace"};
    ks_shrink sh[2] = {{labels[(sel >> 3) & 3], f}, {"@gpu", 0.5}};
    size_t nsh = (sel & 32) ? 2 : 1;
    ks_insights_opts io;
    ks_insights_opts_init(&io);
    io.steps_or_trace = 1;
    if (sel & 64)
        io.window = "trace";
    ks_insights r;
    if (ks_insights_run(t, &io, &r, &err) == KS_OK) {
        check_paths(r.critpath);
        ks_insights_view iv = {&r.steps, &r.gaps, &r.diagnoses, NULL, &r.threads, r.critpath};
        ks_report_opts ro = {15, KS_SORT_SELF, 0, 0, 0};
        ks_analyze_text(sink, r.a, &iv, &ro);
        ks_whatif w;
        int rc = ks_whatif_run(r.a, &r.steps, sh, nsh, &w, &err);
        int refused = !(f >= 0 && f <= 1000);
        FUZZ_CHECK(!refused || rc != KS_OK, "factor %g accepted", f);
        if (rc == KS_OK) {
            int faster = f <= 1.0;
            for (size_t i = 0; i < w.n; i++) {
                FUZZ_CHECK(w.v[i].measured_ns >= 0 && w.v[i].projected_ns >= 0, "negative time");
                FUZZ_CHECK(w.v[i].model_ns == w.v[i].measured_ns, "step %zu: model %lld, measured %lld", i,
                           (long long)w.v[i].model_ns, (long long)w.v[i].measured_ns);
                FUZZ_CHECK(!faster || w.v[i].projected_ns <= w.v[i].model_ns, "step %zu: faster work projected longer",
                           i);
            }
            ks_whatif_text(sink, r.a, &w, sh, nsh, 80);
            ks_whatif_json *jw = ks_whatif_json_begin(sink);
            ks_whatif_json_add(jw, r.a, &w, sh, nsh);
            ks_whatif_json_end(jw);
            ks_whatif_free(&w);
        }
    }
    ks_insights_free(&r);
    ks_trace_free(t);
    return 0;
}
