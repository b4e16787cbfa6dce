/* fuzz/fuzz_budget.c: the gate's budget file reader (ks_budget_parse, "kinesift.budget/1") on
 * outside bytes. A parsed budget must hold only what its contract allows: known metrics, a name
 * exactly where the metric needs one, no negative limit. */
#include "fuzz/fuzz.h"
#include "kinesift/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_budget b;
    memset(&b, 0, sizeof b);
    ks_error err;
    if (ks_budget_parse((const char *)data, size, "fuzz", &b, &err) == KS_OK) {
        for (size_t i = 0; i < b.n; i++) {
            const ks_check *c = &b.v[i];
            FUZZ_CHECK(ks_metric_name(c->metric) != NULL, "check %zu: unknown metric", i);
            FUZZ_CHECK(!ks_metric_named(c->metric) == !c->name, "check %zu: name where none belongs, or none", i);
            FUZZ_CHECK(!c->has_limit || c->limit >= 0, "check %zu: negative limit", i);
        }
    } else {
        FUZZ_CHECK(err.msg[0], "error without a message");
    }
    ks_budget_free(&b);
    return 0;
}
