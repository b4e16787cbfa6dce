/* fuzz/scan_diff.h: the fast scanner (json/scan.h) against yajl on one buffer. Both drive the same
 * recording callbacks, which log every call with its arguments and the consumed offset the parser
 * would read there (yajl_get_bytes_consumed, or ks_jscan.consumed); a callback may cancel at the
 * k-th call. When the scanner accepts the buffer (OK or canceled), yajl, fed '[' and then the
 * buffer with yajl_dont_validate_strings as the parser configures it, must return the same status
 * with the same log. Used by fuzz/fuzz_scan.c and tests/json/test_scan.c; only for those. */
#ifndef KS_FUZZ_SCAN_DIFF_H
#define KS_FUZZ_SCAN_DIFF_H

#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "common/util.h"
#include "json/scan.h"

typedef struct scan_rec {
    ks_buf log;
    yajl_handle h;     /* yajl's run, or NULL: the scanner's */
    const ks_jscan *s;
    int on;            /* 0 while the '[' is fed to yajl */
    long cancel_at;    /* the call (from 0) that returns 0; -1 none */
    long calls;
} scan_rec;

static int scan_rec_call(scan_rec *r, const char *what, const void *p, size_t n)
{
    if (!r->on)
        return 1;
    size_t at = r->h ? yajl_get_bytes_consumed(r->h) : r->s->consumed;
    ks_buf_printf(&r->log, "%s@%zu:%zu:", what, at, n);
    if (p)
        ks_buf_put(&r->log, p, n);
    ks_buf_put(&r->log, "\n", 1);
    return r->calls++ != r->cancel_at;
}

static int sr_null(void *c) { return scan_rec_call(c, "null", NULL, 0); }
static int sr_bool(void *c, int b) { return scan_rec_call(c, b ? "true" : "false", NULL, 0); }
static int sr_number(void *c, const char *s, size_t n) { return scan_rec_call(c, "num", s, n); }
static int sr_string(void *c, const unsigned char *s, size_t n) { return scan_rec_call(c, "str", s, n); }
static int sr_start_map(void *c) { return scan_rec_call(c, "{", NULL, 0); }
static int sr_key(void *c, const unsigned char *s, size_t n) { return scan_rec_call(c, "key", s, n); }
static int sr_end_map(void *c) { return scan_rec_call(c, "}", NULL, 0); }
static int sr_start_array(void *c) { return scan_rec_call(c, "[", NULL, 0); }
static int sr_end_array(void *c) { return scan_rec_call(c, "]", NULL, 0); }

static const yajl_callbacks scan_rec_callbacks = {
    sr_null, sr_bool, NULL, NULL, sr_number, sr_string, sr_start_map, sr_key, sr_end_map, sr_start_array, sr_end_array,
};

/* Outcome of one comparison. */
typedef struct scan_diff {
    int scan;          /* KS_JSCAN_* */
    int same;          /* 1 when yajl agreed (or the scanner refused) */
    char why[160];
} scan_diff;

static scan_diff scan_compare(const unsigned char *buf, size_t len, long cancel_at)
{
    scan_diff d = {0, 1, ""};
    ks_jscan s = {0};
    scan_rec a = {{0}, NULL, &s, 1, cancel_at, 0};
    d.scan = ks_jscan_elements(&s, &scan_rec_callbacks, &a, buf, len);
    if (d.scan != KS_JSCAN_REFUSED) {
        scan_rec b = {{0}, NULL, NULL, 0, cancel_at, 0};
        b.h = yajl_alloc(&scan_rec_callbacks, NULL, &b);
        yajl_config(b.h, yajl_dont_validate_strings, 1);
        yajl_status ys = yajl_parse(b.h, (const unsigned char *)"[", 1);
        b.on = 1;
        if (ys == yajl_status_ok)
            ys = yajl_parse(b.h, buf, len);
        yajl_status want = d.scan == KS_JSCAN_OK ? yajl_status_ok : yajl_status_client_canceled;
        ks_buf_cstr(&a.log);
        ks_buf_cstr(&b.log);
        if (ys != want) {
            d.same = 0;
            snprintf(d.why, sizeof d.why, "scanner %d, yajl status %d", d.scan, (int)ys);
        } else if (a.log.n != b.log.n || memcmp(a.log.p, b.log.p, a.log.n)) {
            size_t i = 0;
            while (i < a.log.n && i < b.log.n && a.log.p[i] == b.log.p[i])
                i++;
            d.same = 0;
            snprintf(d.why, sizeof d.why, "calls differ at log byte %zu: scanner \"%.40s\" yajl \"%.40s\"", i,
                     a.log.p + i, b.log.p + i);
        }
        yajl_free(b.h);
        ks_buf_free(&b.log);
    }
    ks_buf_free(&a.log);
    ks_jscan_free(&s);
    return d;
}

#endif
