/* tests/redact/rd_test.h: what the redact unit tests share: a redactor with a fixed key, and
 * running the engine over a string. */
#ifndef KS_RD_TEST_H
#define KS_RD_TEST_H

#include "ks_test.h"
#include "redact/redact_int.h"

static const unsigned char rd_test_key[32] = "0123456789abcdef0123456789ABCDEF";

static inline ks_redactor *rd_new_opts(ks_redact_opts *o)
{
    ks_error err;
    ks_redactor *rd = NULL;
    o->key = rd_test_key;
    o->key_len = sizeof rd_test_key;
    if (ks_redactor_new(o, &rd, &err) != KS_OK)
        fail_msg("ks_redactor_new: %s", err.msg);
    return rd;
}

static inline ks_redactor *rd_new(void)
{
    ks_redact_opts o;
    ks_redact_opts_init(&o);
    return rd_new_opts(&o);
}

/* Run the scanners on s: a malloc'ed result (s itself when unchanged). */
static inline char *rd_scan(ks_redactor *rd, const char *s)
{
    const char *r;
    size_t n;
    if (!ks_rd_scan(rd, s, strlen(s), &r, &n))
        return ks_xstrdup(s);
    return ks_xstrndup(r, n);
}

static inline int rd_buf_write(void *ctx, const void *p, size_t n)
{
    ks_buf_put((ks_buf *)ctx, p, n);
    return 0;
}

/* Redact a JSON text; returns the output (malloc'ed) or NULL with err set. */
static inline char *rd_redact_text(ks_redactor *rd, const char *json, ks_redact_result *res,
                                   ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    ks_redact_result local;
    if (!res)
        res = &local;
    if (ks_source_open_memory("test", json, strlen(json), &src, err) != KS_OK)
        return NULL;
    if (ks_source_next(src, &st, err) != 1) {
        ks_source_close(src);
        return NULL;
    }
    ks_buf b = {0};
    int rc = ks_redact_stream(rd, st, rd_buf_write, &b, res, err);
    ks_source_close(src);
    if (rc != KS_OK) {
        ks_buf_free(&b);
        return NULL;
    }
    ks_buf_cstr(&b);
    return b.p;
}

static inline char *rd_redact_ok(ks_redactor *rd, const char *json, ks_redact_result *res)
{
    ks_error err;
    char *out = rd_redact_text(rd, json, res, &err);
    if (!out) {
        char b[800];
        ks_error_format(&err, b, sizeof b);
        fail_msg("redact failed: %s", b);
    }
    return out;
}

#define assert_contains(hay, needle)                                                               \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            fail_msg("'%s' not found in '%s'", (needle), (hay));                                   \
    } while (0)
#define assert_not_contains(hay, needle)                                                           \
    do {                                                                                           \
        if (strstr((hay), (needle)))                                                               \
            fail_msg("'%s' still in '%s'", (needle), (hay));                                       \
    } while (0)

#endif
