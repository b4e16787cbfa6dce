/* fuzz/fixture.h: a fixed analysed trace for the targets whose outside bytes are read against a
 * trace (--window specs, nvidia-smi CSV): fixtures/insights/telemetry.json (three steps, a base
 * time that aligns fixtures/insights/smi.csv), parsed, analysed and its steps found once. */
#ifndef KS_FUZZ_FIXTURE_H
#define KS_FUZZ_FIXTURE_H

#include "common/util.h"
#include "fuzz/fuzz.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"

typedef struct fuzz_fixture {
    ks_trace *t;
    ks_analysis *a;
    ks_steps steps;
} fuzz_fixture;

static inline void fuzz_fixture_load(fuzz_fixture *fx)
{
    const char *path = KS_FIXTURES "/insights/telemetry.json";
    FILE *f = fopen(path, "rb");
    FUZZ_CHECK(f != NULL, "cannot open %s", path);
    ks_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ks_buf_put(&b, chunk, n);
    fclose(f);
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    ks_error err;
    FUZZ_CHECK(ks_parse_buffer(path, b.p, b.n, &po, &fx->t, &err) == KS_OK, "%s", err.msg);
    ks_buf_free(&b);
    ks_analysis_opts ao;
    ks_analysis_opts_init(&ao);
    FUZZ_CHECK(ks_analyze(fx->t, &ao, &fx->a, &err) == KS_OK, "%s", err.msg);
    ks_step_opts so;
    ks_step_opts_init(&so);
    FUZZ_CHECK(ks_steps_find(fx->a, &so, &fx->steps, &err) == KS_OK, "%s", err.msg);
}

#endif
