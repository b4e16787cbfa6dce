/* fuzz/fuzz_redact.c: the redactor's streaming rewrite and its check on outside bytes. The first
 * byte chooses options (--shapes, --keep-logs, a deny term); the rest is the trace. The rewrite
 * runs, then the check on the input and on the rewritten output. Memory errors, crashes and
 * undefined behaviour are the findings; whether a secret survives is tests/redact's business. */
#include "common/util.h"
#include "fuzz/fuzz.h"
#include "kinesift/redact.h"
#include "kinesift/source.h"

static const unsigned char key[32] = "0123456789abcdef0123456789ABCDEF";

static int to_buf(void *ctx, const void *p, size_t n)
{
    ks_buf_put((ks_buf *)ctx, p, n);
    return 0;
}

static void on_finding(void *ctx, const ks_redact_finding *f)
{
    (*(uint64_t *)ctx)++;
    FUZZ_CHECK(f->rule && f->cls && f->path, "finding without rule, class or path");
}

static void check(ks_redactor *rd, const void *p, size_t n)
{
    ks_source *src;
    ks_stream *st;
    ks_error err;
    ks_redact_result res;
    uint64_t found = 0;
    if (ks_source_open_memory("fuzz", p, n, &src, &err) != KS_OK)
        return;
    if (ks_source_next(src, &st, &err) == 1)
        (void)ks_redact_check_stream(rd, st, on_finding, &found, &res, &err);
    ks_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    uint32_t flags = fuzz_take(&in, 1);
    char *deny[] = {"secretproject"};
    ks_redact_opts o;
    ks_redact_opts_init(&o);
    o.shapes = flags & 1;
    o.keep_logs = (flags >> 1) & 1;
    if (flags & 4) {
        o.deny = deny;
        o.ndeny = 1;
    }
    o.key = key;
    o.key_len = sizeof key;
    ks_redactor *rd = NULL;
    ks_error err;
    FUZZ_CHECK(ks_redactor_new(&o, &rd, &err) == KS_OK, "ks_redactor_new: %s", err.msg);

    ks_source *src;
    ks_stream *st;
    ks_buf out = {0};
    int ok = 0;
    if (ks_source_open_memory("fuzz", in.p, in.n, &src, &err) == KS_OK) {
        if (ks_source_next(src, &st, &err) == 1) {
            ks_redact_result res;
            ok = ks_redact_stream(rd, st, to_buf, &out, &res, &err) == KS_OK;
        }
        ks_source_close(src);
    }
    check(rd, in.p, in.n);
    if (ok)
        check(rd, out.p, out.n);
    ks_buf_free(&out);
    ks_redactor_free(rd);
    return 0;
}
