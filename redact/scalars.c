/* redact/scalars.c: the engine's scalar callbacks (strings, numbers, true/false/null) and what
 * happens to each value: kept (copied verbatim later), replaced whole (a sensitive key's value, a
 * host/user/job/id token, a private key's lines, "__stripped__"), rewritten by the scanners
 * (scan.c), or, for a memory Addr number, replaced by its keyed value. Numbers are never changed
 * otherwise, so every ts/dur/id keeps its text. Internal to redact/ (the engine). */
#include "redact/redact_int.h"

#include <stdio.h>
#include <string.h>

#include "kinesift/store.h"

static const char stripped[] = "__stripped__";

static int whole_token(ks_rw_eng *e, int role, const char *s, size_t n, ks_buf *b)
{
    static const int cls_of[] = {[ROLE_HOSTNAME] = KS_CLS_HOST, [ROLE_USERNAME] = KS_CLS_USER,
                                 [ROLE_JOB] = KS_CLS_JOB, [ROLE_ID] = KS_CLS_ID};
    if (!n || ks_rd_is_token(s, n))
        return 0;
    b->n = 0;
    if (role == ROLE_HOSTNAME) {
        ks_rd_learn(e->rd, KS_CLS_HOST, s, n);
        ks_rd_host_token(e->rd, s, n, b);
    } else {
        if (role == ROLE_USERNAME)
            ks_rd_learn(e->rd, KS_CLS_USER, s, n);
        ks_rd_pseudo_append(e->rd->pn, cls_of[role], s, n, b);
    }
    return 1;
}

/* A string value (or a number or literal given as text) in its context: the replacement in
 * (*out, *on), or 0 when it stays. */
static int rewrite_value(ks_rw_eng *e, const ks_rw_vctx *v, const char *s, size_t n, int is_string,
                         const char **out, size_t *on)
{
    ks_redactor *rd = e->rd;
    ks_buf *b = &rd->tmp;
    switch (v->role) {
    case ROLE_SKIP:
    case ROLE_ID2:
        return 0;
    case ROLE_STRIP:
        if (is_string && n == sizeof stripped - 1 && !memcmp(s, stripped, n))
            return 0;
        ks_rd_hit(rd, v->rule, n);
        *out = stripped;
        *on = sizeof stripped - 1;
        return 1;
    case ROLE_SENSITIVE:
        if (!is_string || !n || ks_rd_is_token(s, n))
            return 0;
        {
            /* replaced whole, but the names in it are learned (PWD=/home/bob, a URL with the
             * host): the rules run on it muted */
            const char *r;
            size_t rn;
            int muted = rd->muted;
            rd->muted = 1;
            ks_rd_scan(rd, s, n, &r, &rn);
            rd->muted = muted;
        }
        ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, s, n);
        ks_rd_hit(rd, R_SENSITIVE_KEY, n);
        b->n = 0;
        ks_rd_put_redacted(b, "sensitive-key");
        break;
    case ROLE_HOSTNAME:
    case ROLE_USERNAME:
    case ROLE_JOB:
    case ROLE_ID:
        if (!whole_token(e, v->role, s, n, b))
            return 0;
        ks_rd_hit(rd, v->rule, n);
        break;
    case ROLE_TRACENAME: {
        if (!is_string)
            return 0;
        ks_buf *t = &e->enc; /* scratch for the base name */
        t->n = 0;
        ks_rd_trace_name(rd, s, n, t);
        int named = t->n != n || memcmp(t->p, s, n);
        if (named)
            ks_rd_hit(rd, R_TRACE_NAME, n);
        const char *r;
        size_t rn;
        int scanned = ks_rd_scan(rd, t->p, t->n, &r, &rn);
        if (!named && !scanned)
            return 0;
        b->n = 0;
        ks_buf_put(b, r, rn);
        break;
    }
    case ROLE_NAME:
        if (is_string && ks_match_profiler_step_n(s, n, NULL))
            return 0;
        /* fall through */
    default:
        if (!is_string)
            return 0;
        return ks_rd_scan(rd, s, n, out, on);
    }
    *out = b->p;
    *on = b->n;
    return 1;
}

/* A string copied verbatim that spells letters as \\u escapes would hide a literal learned later
 * from the byte search of verify.c: count them (yajl hands out a pointer into the run only for
 * strings without escapes that lie within one run). */
void ks_rw_note_copy(ks_rw_eng *e, const char *s)
{
    const char *run = e->rep.res;
    if (s >= run && s < run + e->rep.res_len)
        return;
    uint64_t end = ks_rw_tok_end(e);
    uint64_t st = ks_rw_string_start(e, end);
    if (memmem(e->win + (st - e->win_base), (size_t)(end - st), "\\u", 2))
        e->res->escaped_copies++;
}

/* A private key split over several values, one line each: the elements of an array, the
 * values of an object (l1 ... l4) or of nested arrays. The string values after the one with
 * "-----BEGIN ... PRIVATE KEY" (which the private-key rule redacts to its end), up to the one
 * with "-----END", are key material while the engine stays inside the parent of the container
 * that held the BEGIN line (at most PEM_LINES values). 1 when s is such a value (then it is
 * replaced whole). */
#define PEM_LINES 512

static int pem_element(ks_rw_eng *e, const ks_rw_vctx *v, const char *s, size_t n)
{
    if (v->role != ROLE_SCAN)
        return 0;
    if (e->pem_strings >= PEM_LINES)
        e->pem_depth = 0;
    int begin = memmem(s, n, "-----BEGIN", 10) && memmem(s, n, "PRIVATE KEY", 11);
    int end = memmem(s, n, "-----END", 8) != NULL;
    if (!e->pem_depth || begin) {
        e->pem_depth = begin && !end ? e->depth : 0;
        e->pem_strings = 0;
        return 0;
    }
    e->pem_strings++;
    if (end)
        e->pem_depth = 0;
    return n && !ks_rd_is_token(s, n);
}

int ks_rw_on_string(void *ctx, const unsigned char *us, size_t n)
{
    ks_rw_eng *e = ctx;
    const char *s = (const char *)us;
    ks_rw_vctx v;
    ks_rw_value_ctx(e, &v);
    if (v.learn)
        ks_rw_learn_value(e, v.learn, s, n);
    /* inside a stripped block (redact only: --check strips nothing) the rules still run, muted,
     * so that redact learns every name --check learns there; nothing is written */
    if (pem_element(e, &v, s, n)) {
        uint64_t end = ks_rw_tok_end(e), start = ks_rw_string_start_n(e, end, s, n);
        e->tok_start = start;
        e->in_key = 0;
        ks_rd_pseudo_note(e->rd->pn, KS_CLS_SECRET, s, n);
        ks_rd_hit(e->rd, R_PRIVATE_KEY, n);
        static const char red[] = "[REDACTED:private-key]";
        ks_rw_replace_str(e, start, end, red, sizeof red - 1);
        ks_rw_mark(e, end);
        return !e->failed;
    }
    uint64_t end = 0;
    if (e->check) {
        end = ks_rw_tok_end(e);
        e->tok_start = ks_rw_string_start_n(e, end, s, n);
    }
    e->in_key = 0;
    const char *r;
    size_t rn;
    if (rewrite_value(e, &v, s, n, 1, &r, &rn)) {
        if (!end)
            end = ks_rw_tok_end(e);
        ks_rw_replace_str(e, ks_rw_string_start_n(e, end, s, n), end, r, rn);
        ks_rw_mark(e, end);
    } else if (!e->check && !e->discard) {
        ks_rw_note_copy(e, s);
    }
    return !e->failed;
}

/* args.Addr: a keyed value in [2^51, 2^52): exact in a double, equal inputs stay equal, and a
 * value already in that range (redacted before) is left alone */
static int map_addr(ks_rw_eng *e, const char *s, size_t n, char *buf, size_t bn)
{
    size_t i = (n && s[0] == '-') ? 1 : 0;
    if (i == n)
        return 0;
    uint64_t v = 0;
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0; /* fraction or exponent: not an address */
        if (v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[k] - '0');
    }
    const uint64_t lo = 1ULL << 51, hi = 1ULL << 52;
    if (v == 0 || (!i && v >= lo && v < hi))
        return 0;
    uint64_t m = lo + (ks_rd_pseudo_u48(e->rd->pn, s, n) & ((1ULL << 48) - 1));
    snprintf(buf, bn, "%llu", (unsigned long long)m);
    return 1;
}

int ks_rw_on_number(void *ctx, const char *s, size_t n)
{
    ks_rw_eng *e = ctx;
    ks_rw_vctx v;
    ks_rw_value_ctx(e, &v);
    if (e->discard)
        return 1;
    int special = v.role == ROLE_ADDR || v.role == ROLE_STRIP || v.role == ROLE_HOSTNAME ||
                  v.role == ROLE_USERNAME || v.role == ROLE_JOB || v.role == ROLE_ID;
    if (!special)
        return 1;
    uint64_t end = ks_rw_tok_end(e), start = end - n;
    e->tok_start = start;
    e->in_key = 0;
    if (v.role == ROLE_ADDR) {
        char buf[32];
        if (map_addr(e, s, n, buf, sizeof buf)) {
            ks_rd_hit(e->rd, R_ADDR, n);
            ks_rw_replace_raw(e, start, end, buf, strlen(buf));
        }
    } else {
        const char *r;
        size_t rn;
        if (rewrite_value(e, &v, s, n, 0, &r, &rn))
            ks_rw_replace_str(e, start, end, r, rn);
    }
    ks_rw_mark(e, end);
    return !e->failed;
}

static int on_literal(ks_rw_eng *e, size_t n)
{
    ks_rw_vctx v;
    ks_rw_value_ctx(e, &v);
    if (!e->discard && v.role == ROLE_STRIP) {
        uint64_t end = ks_rw_tok_end(e);
        e->tok_start = end - n;
        e->in_key = 0;
        ks_rd_hit(e->rd, v.rule, n);
        ks_rw_replace_str(e, end - n, end, stripped, sizeof stripped - 1);
        ks_rw_mark(e, end);
    }
    return !e->failed;
}

int ks_rw_on_null(void *ctx)
{
    ks_rw_eng *e = ctx;
    /* null says nothing: it stays even where the key is stripped */
    ks_rw_vctx v;
    ks_rw_value_ctx(e, &v);
    return 1;
}

int ks_rw_on_bool(void *ctx, int b)
{
    return on_literal(ctx, b ? 4 : 5);
}
