/* fuzz/fuzz_options.c: the syntax of option values a user types: --window (against a fixed
 * trace), --overlap, gate metric names and NAME=PCT checks, --smi-tz, --smi-offset durations,
 * sizes, timestamps in microseconds and integers. The first byte chooses the parser; the rest
 * is the value. What a parser accepts must make sense: a window inside out is refused, a parsed
 * integer text round-trips. */
#include <inttypes.h>

#include "fuzz/fixture.h"
#include "kinesift/compare.h"
#include "kinesift/validate.h"
#include "compare/gate_text.h"
#include "analysis/passes.h"
#include "common/optsyntax.h"

static fuzz_fixture fx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_fixture_load(&fx);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fx.a)
        LLVMFuzzerInitialize(NULL, NULL);
    fuzz_in in = {data, size};
    uint32_t which = fuzz_take(&in, 1);
    char *s = fuzz_cstr(in.p, in.n);
    ks_error err;
    switch (which % 9) {
    case 0: {
        ks_ns w0 = 0, w1 = 0;
        if (ks_window_parse(s, fx.a, &fx.steps, &w0, &w1, &err) == KS_OK)
            FUZZ_CHECK(w0 <= w1, "window %s: %" PRId64 " > %" PRId64, s, w0, w1);
        break;
    }
    case 1: {
        ks_overlap_policy p;
        ks_ns clamp = 0;
        (void)ks_overlap_parse(s, &p, &clamp);
        break;
    }
    case 2: {
        ks_metric m;
        if (ks_metric_parse(s, &m) == 0) {
            ks_budget b;
            memset(&b, 0, sizeof b);
            const char *arg = strchr(s, ':');
            (void)ks_budget_add_arg(&b, m, arg ? arg + 1 : "5", &err);
            ks_budget_free(&b);
        }
        break;
    }
    case 3: {
        ks_ns off;
        (void)ks_tz_parse(s, &off);
        break;
    }
    case 4: {
        ks_ns d;
        (void)ks_duration_parse(s, &d);
        break;
    }
    case 5: {
        int64_t v;
        (void)ks_parse_size(s, &v);
        break;
    }
    case 6: {
        int64_t ns;
        (void)ks_parse_us_to_ns(s, in.n, &ns);
        break;
    }
    case 7: {
        int64_t v;
        if (ks_parse_int64(s, strlen(s), &v) == KS_NUM_EXACT) {
            /* an exact integer prints back to the same value */
            char back[32];
            snprintf(back, sizeof back, "%" PRId64, v);
            int64_t again;
            FUZZ_CHECK(ks_parse_int64(back, strlen(back), &again) == KS_NUM_EXACT && again == v, "%s", s);
        }
        break;
    }
    case 8: {
        int64_t n;
        (void)ks_match_profiler_step(s, &n);
        break;
    }
    }
    free(s);
    return 0;
}
