/* redact/rewrite.c: the streaming engine of `kinesift redact` and `redact --check`
 * (docs/redaction.md §5).
 *
 * Bytes flow source -> the reader's repairing pre-filter -> yajl, in fixed-size chunks. yajl
 * reports every token with the offset just past it (yajl_get_bytes_consumed inside a callback),
 * so the engine knows each token's span in the filtered stream. Output is the input copied
 * verbatim span by span; only a string (or key) that a rule rewrites is re-encoded, a stripped
 * container is replaced by the string "__stripped__", and a memory Addr number by its keyed
 * value. Numbers, whitespace and key order are never touched, so every ts/dur/id keeps its
 * text, and nothing is ever deleted from traceEvents. Memory: a window holding the bytes since
 * the last flush (one chunk plus an unfinished token) and a stack of open containers.
 *
 * In check mode nothing is written: every rewrite a rule would make is reported as a finding
 * with its event index, JSON path and byte offset (never the value). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "common/limits.h"
#include "common/yajl_alloc.h"
#include "json/repair.h"
#include "json/textpos.h"
#include "kinesift/store.h"
#include "redact/redact_int.h"

#define CHUNK (256 * 1024)
#define OUTBUF (256 * 1024)
/* the parser accepts JSON nested this deep (parser/parser_int.h MAX_SKIP_DEPTH): redact must too */
#define MAX_DEPTH KS_LIMIT_JSON_DEPTH
#define KEY_MAX KS_LIMIT_RD_KEY

enum kind { K_ROOT = 0, K_TOP, K_EVENTS, K_EVENT, K_ARGS, K_OTHER };

typedef struct frame {
    uint8_t is_map;
    uint8_t kind;
    uint8_t role;       /* the container's own role (SCAN, SKIP, SENSITIVE in check mode) */
    uint8_t learn;      /* LEARN_UNAME for a uname map */
    uint8_t in_meta;    /* below a top-level key other than traceEvents */
    /* the member being read: set by its key (maps) */
    uint8_t vrole, vlearn;
    uint16_t vrule;
    int64_t index;      /* arrays: elements begun */
    uint32_t nredacted; /* maps: keys rewritten to a [REDACTED:rule] text so far */
    uint8_t pem_open;   /* arrays: a private key began in an element and has not ended */
    char key[KEY_MAX + 1];
    uint8_t keylen, key_masked;
} frame;

/* the meaning of a key in a kind of container, remembered: keys repeat in every event */
#define KC_SLOTS 1024
#define KC_KEY 40
typedef struct key_slot {
    uint8_t used, kind, role, scan, n;
    uint16_t rule;
    char k[KC_KEY];
} key_slot;

typedef struct eng {
    ks_redactor *rd;
    key_slot *kc;
    int check;
    yajl_handle h;
    ks_error *err;
    int failed;
    ks_redact_result *res;
    const char *name;

    /* window over the filtered stream */
    char *win;
    size_t win_len, win_cap;
    uint64_t win_base;       /* filtered offset of win[0] */
    uint64_t run_base;       /* filtered offset of the current yajl run */
    uint64_t flushed;        /* output done (or discarded) up to here */
    uint64_t prev_end;       /* end of the last token known complete (a flush point) */
    unsigned nvals;          /* values since the last flush point */
    int seen;                /* any value at all */
    int completing;          /* inside yajl_complete_parse */
    int discard;             /* inside a stripped container: bytes are dropped */
    size_t discard_depth;

    /* input offsets, for messages */
    ks_repair rep;
    uint64_t run_in_base;    /* input offset of the current run */
    char *inbuf;
    size_t in_len, in_cap;
    uint64_t in_base;
    uint64_t lines_before;
    int64_t last_nl;

    frame *st;
    size_t depth, cap;
    int64_t events;          /* elements of the events array */
    frame *events_frame;
    size_t events_depth;

    /* output */
    ks_redact_write_fn write;
    void *wctx;
    char *out;
    size_t out_n;
    int write_failed;

    /* check */
    ks_redact_finding_fn on_finding;
    void *fctx;
    int in_key;
    uint64_t tok_start;      /* start of the token being scanned (UINT64_MAX: unknown) */
    ks_buf path;
    ks_buf enc;              /* scratch */
} eng;

/* ---- output ------------------------------------------------------------------------------- */

static void out_flush(eng *e)
{
    if (e->out_n && !e->write_failed && e->write(e->wctx, e->out, e->out_n) != 0)
        e->write_failed = 1;
    e->out_n = 0;
}

static void out_put(eng *e, const char *p, size_t n)
{
    if (e->check || !n)
        return;
    e->res->bytes_out += n;
    if (n >= OUTBUF) {
        out_flush(e);
        if (!e->write_failed && e->write(e->wctx, p, n) != 0)
            e->write_failed = 1;
        return;
    }
    if (e->out_n + n > OUTBUF)
        out_flush(e);
    memcpy(e->out + e->out_n, p, n);
    e->out_n += n;
}

/* Copy (or drop, inside a stripped container) the input up to filtered offset off. */
static void emit_upto(eng *e, uint64_t off)
{
    if (off <= e->flushed)
        return;
    if (!e->discard)
        out_put(e, e->win + (e->flushed - e->win_base), off - e->flushed);
    e->flushed = off;
}

/* JSON string encoding of a rewritten value, straight into the output */
static const unsigned char needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

static void encode_out(eng *e, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    out_put(e, "\"", 1);
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!needs_escape[c])
            continue;
        out_put(e, s + last, i - last);
        last = i + 1;
        switch (c) {
        case '"': out_put(e, "\\\"", 2); break;
        case '\\': out_put(e, "\\\\", 2); break;
        case '\n': out_put(e, "\\n", 2); break;
        case '\r': out_put(e, "\\r", 2); break;
        case '\t': out_put(e, "\\t", 2); break;
        case '\b': out_put(e, "\\b", 2); break;
        case '\f': out_put(e, "\\f", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out_put(e, u, 6);
        }
        }
    }
    out_put(e, s + last, n - last);
    out_put(e, "\"", 1);
}

/* Replace the token [start, end) by a JSON string. */
static void replace_str(eng *e, uint64_t start, uint64_t end, const char *s, size_t n)
{
    if (e->check || e->discard)
        return;
    emit_upto(e, start);
    encode_out(e, s, n);
    e->flushed = end;
    e->res->strings_rewritten++;
}

static void replace_raw(eng *e, uint64_t start, uint64_t end, const char *s, size_t n)
{
    if (e->check || e->discard)
        return;
    emit_upto(e, start);
    out_put(e, s, n);
    e->flushed = end;
}

/* ---- positions ---------------------------------------------------------------------------- */

static uint64_t tok_end(eng *e)
{
    /* in yajl_complete_parse the token pending (a number at the very end of a truncated trace)
     * ends at the end of the stream; yajl's count of bytes consumed is not about any run then */
    if (e->completing)
        return e->win_base + e->win_len;
    return e->run_base + yajl_get_bytes_consumed(e->h);
}

/* The opening quote of the string token that ends at end (its closing quote is at end - 1):
 * the nearest '"' before it that is not escaped (preceded by an even number of '\\'). When
 * yajl handed out a pointer into the run, the string has no escapes: it starts n + 2 bytes
 * before its end. */
static uint64_t string_start_n(eng *e, uint64_t end, const char *s, size_t n)
{
    const char *run = e->rep.res;
    if (s && s >= run && s < run + e->rep.res_len && end >= n + 2)
        return end - n - 2;
    const char *w = e->win;
    size_t p = (size_t)(end - 1 - e->win_base); /* the closing quote */
    for (;;) {
        const char *q = memrchr(w, '"', p);
        if (!q)
            return e->win_base;
        size_t i = (size_t)(q - w), k = i;
        while (k > 0 && w[k - 1] == '\\')
            k--;
        if (((i - k) & 1) == 0)
            return e->win_base + i;
        p = i;
    }
}

static uint64_t string_start(eng *e, uint64_t end)
{
    return string_start_n(e, end, NULL, 0);
}

/* a complete token ends here: everything before may be flushed after the run */
static void mark(eng *e, uint64_t end)
{
    if (end > e->prev_end)
        e->prev_end = end;
}

/* input offset of a filtered offset (exact within the current run) */
static uint64_t in_offset(eng *e, uint64_t f)
{
    if (f >= e->run_base)
        return e->run_in_base + ks_repair_in_offset(&e->rep, (size_t)(f - e->run_base));
    uint64_t delta = e->run_base - e->run_in_base;
    return f > delta ? f - delta : 0;
}

static void line_col(const eng *e, uint64_t abs, uint64_t *line, uint64_t *col)
{
    ks_text_win w = {e->inbuf, e->in_len, e->in_base, e->lines_before, e->last_nl};
    ks_text_line_col(&w, abs, line, col);
}

/* ---- findings ----------------------------------------------------------------------------- */

static int ident_key(const char *k, size_t n)
{
    if (!n || (k[0] >= '0' && k[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

static void member(ks_buf *b, const frame *f)
{
    if (!f->is_map) {
        ks_buf_printf(b, "[%lld]", (long long)(f->index > 0 ? f->index - 1 : 0));
        return;
    }
    if (f->key_masked) {
        ks_buf_puts(b, "[<key with a finding>]");
        return;
    }
    if (ident_key(f->key, f->keylen)) {
        if (b->n)
            ks_buf_putc(b, '.');
        ks_buf_put(b, f->key, f->keylen);
    } else {
        ks_buf_puts(b, "[\"");
        for (size_t i = 0; i < f->keylen; i++) {
            unsigned char c = (unsigned char)f->key[i];
            if (c == '"' || c == '\\')
                ks_buf_putc(b, '\\');
            if (c < 0x20)
                ks_buf_printf(b, "\\u%04x", c);
            else
                ks_buf_putc(b, (char)c);
        }
        if (f->keylen == KEY_MAX)
            ks_buf_puts(b, "...");
        ks_buf_puts(b, "\"]");
    }
}

static const char *build_path(eng *e)
{
    e->path.n = 0;
    for (size_t i = 1; i <= e->depth; i++)
        member(&e->path, &e->st[i]);
    if (!e->path.n)
        ks_buf_puts(&e->path, "$");
    return ks_buf_cstr(&e->path);
}

static void on_hit(void *ctx, int rule, size_t len)
{
    eng *e = ctx;
    if (!e->check)
        return;
    e->res->findings++;
    if (!e->on_finding)
        return;
    ks_redact_finding f;
    f.rule = ks_rd_rule_name(e->rd, rule);
    f.cls = ks_rd_cls_name(ks_rd_rule_cls(e->rd, rule));
    f.event = e->events_frame && e->depth > e->events_depth ? e->events_frame->index - 1 : -1;
    f.path = build_path(e);
    f.byte = in_offset(e, e->tok_start == UINT64_MAX ? e->prev_end : e->tok_start);
    f.length = len;
    f.in_key = e->in_key;
    e->on_finding(e->fctx, &f);
}

/* ---- context ------------------------------------------------------------------------------ */

typedef struct vctx {
    int role, rule, learn, in_meta;
    frame *parent;
} vctx;

/* what the value about to be read means; counts the element of an array */
static void value_ctx(eng *e, vctx *v)
{
    e->seen = 1;
    if (++e->nvals >= 64) { /* keep the window short in long runs of scalars */
        e->nvals = 0;
        mark(e, tok_end(e));
    }
    frame *p = &e->st[e->depth];
    v->parent = p;
    v->learn = LEARN_NONE;
    v->in_meta = p->in_meta;
    v->rule = R_METADATA;
    if (p->kind == K_ROOT) {
        v->role = ROLE_SCAN;
        return;
    }
    if (p->is_map) {
        v->role = p->vrole;
        v->rule = p->vrule;
        v->learn = p->vlearn;
        return;
    }
    p->index++;
    if (p->kind == K_EVENTS)
        e->events++;
    v->role = p->role == ROLE_SKIP ? ROLE_SKIP : ROLE_SCAN;
}

static int push(eng *e, int is_map, int kind, int role, int learn, int in_meta)
{
    if (e->depth + 1 >= MAX_DEPTH) {
        uint64_t at = in_offset(e, tok_end(e) - 1), line, col; /* at the bracket */
        line_col(e, at, &line, &col);
        e->failed = 1;
        ks_error_set_at(e->err, at, line, col, "JSON nested deeper than %d levels (not redacted)",
                        MAX_DEPTH);
        return 0;
    }
    if (e->depth + 2 > e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->st = ks_xrealloc(e->st, e->cap * sizeof *e->st);
        e->events_frame = e->events_depth ? &e->st[e->events_depth] : NULL;
    }
    frame *f = &e->st[++e->depth];
    f->is_map = (uint8_t)is_map;
    f->kind = (uint8_t)kind;
    f->role = (uint8_t)role;
    f->learn = (uint8_t)learn;
    f->in_meta = (uint8_t)in_meta;
    f->vrole = ROLE_SCAN;
    f->vrule = R_METADATA;
    f->vlearn = LEARN_NONE;
    f->index = 0;
    f->nredacted = 0;
    f->pem_open = 0;
    f->keylen = 0;
    f->key_masked = 0;
    if (kind == K_EVENTS && !e->events_depth) {
        e->events_depth = e->depth;
        e->events_frame = f;
    }
    return 1;
}

/* ---- learning ----------------------------------------------------------------------------- */

static void learn_value(eng *e, int learn, const char *s, size_t n)
{
    if (learn == LEARN_HOST)
        ks_rd_learn(e->rd, KS_CLS_HOST, s, n);
    else if (learn == LEARN_USER)
        ks_rd_learn(e->rd, KS_CLS_USER, s, n);
    else if (learn == LEARN_HOME)
        ks_rd_learn_home(e->rd, s, n);
    else if (learn == LEARN_JOB)
        ks_rd_learn(e->rd, KS_CLS_JOB, s, n);
}

/* ---- callbacks ---------------------------------------------------------------------------- */

static const char stripped[] = "__stripped__";

static int whole_token(eng *e, int role, const char *s, size_t n, ks_buf *b)
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
static int rewrite_value(eng *e, const vctx *v, const char *s, size_t n, int is_string,
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
static void note_copy(eng *e, const char *s)
{
    const char *run = e->rep.res;
    if (s >= run && s < run + e->rep.res_len)
        return;
    uint64_t end = tok_end(e);
    uint64_t st = string_start(e, end);
    if (memmem(e->win + (st - e->win_base), (size_t)(end - st), "\\u", 2))
        e->res->escaped_copies++;
}

/* A private key split over the elements of an array (one line each): the elements after the
 * one with "-----BEGIN ... PRIVATE KEY", up to the one with "-----END", are key material. 1 when
 * s is such an element (then it is replaced whole). */
static int pem_element(const vctx *v, const char *s, size_t n)
{
    frame *p = v->parent;
    if (p->is_map || v->role != ROLE_SCAN)
        return 0;
    int begin = memmem(s, n, "-----BEGIN", 10) && memmem(s, n, "PRIVATE KEY", 11);
    int end = memmem(s, n, "-----END", 8) != NULL;
    if (!p->pem_open || begin) {
        p->pem_open = (uint8_t)(begin && !end);
        return 0;
    }
    if (end)
        p->pem_open = 0;
    return n && !ks_rd_is_token(s, n);
}

static int on_string(void *ctx, const unsigned char *us, size_t n)
{
    eng *e = ctx;
    const char *s = (const char *)us;
    vctx v;
    value_ctx(e, &v);
    if (v.learn)
        learn_value(e, v.learn, s, n);
    if (e->discard)
        return 1;
    if (pem_element(&v, s, n)) {
        uint64_t end = tok_end(e), start = string_start_n(e, end, s, n);
        e->tok_start = start;
        e->in_key = 0;
        ks_rd_pseudo_note(e->rd->pn, KS_CLS_SECRET, s, n);
        ks_rd_hit(e->rd, R_PRIVATE_KEY, n);
        static const char red[] = "[REDACTED:private-key]";
        replace_str(e, start, end, red, sizeof red - 1);
        mark(e, end);
        return !e->failed;
    }
    uint64_t end = 0;
    if (e->check) {
        end = tok_end(e);
        e->tok_start = string_start_n(e, end, s, n);
    }
    e->in_key = 0;
    const char *r;
    size_t rn;
    if (rewrite_value(e, &v, s, n, 1, &r, &rn)) {
        if (!end)
            end = tok_end(e);
        replace_str(e, string_start_n(e, end, s, n), end, r, rn);
        mark(e, end);
    } else if (!e->check) {
        note_copy(e, s);
    }
    return !e->failed;
}

/* args.Addr: a keyed value in [2^51, 2^52): exact in a double, equal inputs stay equal, and a
 * value already in that range (redacted before) is left alone */
static int map_addr(eng *e, const char *s, size_t n, char *buf, size_t bn)
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

static int on_number(void *ctx, const char *s, size_t n)
{
    eng *e = ctx;
    vctx v;
    value_ctx(e, &v);
    if (e->discard)
        return 1;
    int special = v.role == ROLE_ADDR || v.role == ROLE_STRIP || v.role == ROLE_HOSTNAME ||
                  v.role == ROLE_USERNAME || v.role == ROLE_JOB || v.role == ROLE_ID;
    if (!special)
        return 1;
    uint64_t end = tok_end(e), start = end - n;
    e->tok_start = start;
    e->in_key = 0;
    if (v.role == ROLE_ADDR) {
        char buf[32];
        if (map_addr(e, s, n, buf, sizeof buf)) {
            ks_rd_hit(e->rd, R_ADDR, n);
            replace_raw(e, start, end, buf, strlen(buf));
        }
    } else {
        const char *r;
        size_t rn;
        if (rewrite_value(e, &v, s, n, 0, &r, &rn))
            replace_str(e, start, end, r, rn);
    }
    mark(e, end);
    return !e->failed;
}

static int on_literal(eng *e, size_t n)
{
    vctx v;
    value_ctx(e, &v);
    if (!e->discard && v.role == ROLE_STRIP) {
        uint64_t end = tok_end(e);
        e->tok_start = end - n;
        e->in_key = 0;
        ks_rd_hit(e->rd, v.rule, n);
        replace_str(e, end - n, end, stripped, sizeof stripped - 1);
        mark(e, end);
    }
    return !e->failed;
}

static int on_null(void *ctx)
{
    eng *e = ctx;
    /* null says nothing: it stays even where the key is stripped */
    vctx v;
    value_ctx(e, &v);
    return 1;
}

static int on_bool(void *ctx, int b)
{
    return on_literal(ctx, b ? 4 : 5);
}

static void set_key(frame *f, const char *k, size_t n, int masked)
{
    size_t l = n > KEY_MAX ? KEY_MAX : n;
    memcpy(f->key, k, l);
    f->keylen = (uint8_t)l;
    f->key_masked = (uint8_t)masked;
}

/* A key is scanned like any string (a secret planted in an args key is found), except the keys
 * the trace format defines: rewriting "stream" or "name" would break the trace. */
static int scan_key(const frame *f, int role, const char *k, size_t n)
{
    if (f->role == ROLE_SKIP)
        return 0;
    switch (f->kind) {
    case K_TOP: return role == ROLE_STRIP || role == ROLE_SCAN;
    case K_EVENT: return ks_rd_event_role(k, n) == ROLE_SCAN;
    case K_ARGS: return !ks_rd_known_arg_key(k, n);
    default: return 1;
    }
}

static int key_role(eng *e, const frame *f, const char *k, size_t n, int *rule)
{
    int role = ROLE_SCAN;
    switch (f->kind) {
    case K_TOP:
        role = ks_rd_top_role(e->rd, k, n, rule);
        break;
    case K_EVENT:
        role = ks_rd_event_role(k, n);
        if (role == ROLE_SCAN)
            role = ks_rd_inner_role(k, n, rule);
        break;
    case K_ARGS:
        role = ks_rd_args_role(e->rd, k, n, rule);
        break;
    default:
        if (f->role == ROLE_SKIP || f->role == ROLE_SENSITIVE)
            role = ROLE_SKIP;
        else
            role = ks_rd_inner_role(k, n, rule);
        break;
    }
    return role;
}

/* role, rule and whether to scan a key, through the key cache */
static int key_info(eng *e, const frame *f, const char *k, size_t n, int *rule, int *scan)
{
    uint8_t kind = (uint8_t)(f->kind | (f->role == ROLE_SKIP ? 0x10 : 0) |
                             (f->role == ROLE_SENSITIVE ? 0x20 : 0));
    key_slot *s = NULL;
    if (n <= KC_KEY) {
        s = &e->kc[(ks_hash(k, n) ^ kind) & (KC_SLOTS - 1)];
        if (s->used && s->kind == kind && s->n == n && !memcmp(s->k, k, n)) {
            *rule = s->rule;
            *scan = s->scan;
            return s->role;
        }
    }
    int role = key_role(e, f, k, n, rule);
    *scan = scan_key(f, role, k, n);
    if (s) {
        s->used = 1;
        s->kind = kind;
        s->n = (uint8_t)n;
        memcpy(s->k, k, n);
        s->role = (uint8_t)role;
        s->rule = (uint16_t)*rule;
        s->scan = (uint8_t)*scan;
    }
    return role;
}

static int on_key(void *ctx, const unsigned char *uk, size_t n)
{
    eng *e = ctx;
    const char *k = (const char *)uk;
    frame *f = &e->st[e->depth];
    int rule = R_METADATA, scan, learn = LEARN_NONE;
    int role = key_info(e, f, k, n, &rule, &scan);
    if (f->in_meta || f->kind == K_TOP) /* metadata, distributedInfo, top-level keys */
        learn = ks_rd_learn_key(k, n, f->learn == LEARN_UNAME);
    f->vrole = (uint8_t)role;
    f->vrule = (uint16_t)rule;
    f->vlearn = (uint8_t)learn;
    int masked = 0;
    if (e->check)
        set_key(f, k, n, 1);
    if (!e->discard && scan) {
        uint64_t end = 0;
        if (e->check) {
            end = tok_end(e);
            e->tok_start = string_start_n(e, end, k, n);
        }
        e->in_key = 1;
        uint64_t before = e->res->findings;
        const char *r;
        size_t rn;
        if (ks_rd_scan(e->rd, k, n, &r, &rn)) {
            masked = 1;
            /* two keys holding secrets would both become "[REDACTED:rule]": a duplicate key that
             * a reader resolves by dropping one value. Later ones are numbered: "...#2". */
            if (memmem(r, rn, "[REDACTED:", 10) && f->nredacted++ > 0) {
                ks_buf *b = &e->enc;
                b->n = 0;
                ks_buf_put(b, r, rn);
                ks_buf_printf(b, "#%u", (unsigned)f->nredacted);
                r = b->p;
                rn = b->n;
            }
            if (!end)
                end = tok_end(e);
            replace_str(e, string_start_n(e, end, k, n), end, r, rn);
            mark(e, end);
        } else if (!e->check) {
            note_copy(e, k);
        }
        masked |= e->res->findings != before;
        e->in_key = 0;
    }
    if (e->check)
        set_key(f, k, n, masked);
    return !e->failed;
}

/* a container opens: its kind and role, or its replacement */
static int on_open(eng *e, int is_map)
{
    vctx v;
    value_ctx(e, &v);
    frame *p = v.parent;
    int in_meta = v.in_meta;
    int learn = v.learn == LEARN_UNAME ? LEARN_UNAME : LEARN_NONE;
    if (p->kind == K_TOP && v.role != ROLE_EVENTS)
        in_meta = 1;
    if (e->discard)
        return push(e, is_map, K_OTHER, ROLE_SKIP, learn, in_meta);
    int kind = K_OTHER, role = ROLE_SCAN;
    switch (v.role) {
    case ROLE_STRIP:
    case ROLE_SENSITIVE:
    case ROLE_HOSTNAME:
    case ROLE_USERNAME:
    case ROLE_JOB:
    case ROLE_ID:
    case ROLE_TRACENAME: {
        int rule = v.role == ROLE_SENSITIVE ? R_SENSITIVE_KEY : v.rule;
        uint64_t end = tok_end(e);
        e->tok_start = end - 1;
        e->in_key = 0;
        ks_rd_hit(e->rd, rule, 1);
        if (e->check) {
            role = v.role == ROLE_SENSITIVE ? ROLE_SENSITIVE : ROLE_SCAN;
            break;
        }
        if (v.role == ROLE_SENSITIVE)
            replace_raw(e, end - 1, end, "\"[REDACTED:sensitive-key]\"", 26);
        else
            replace_raw(e, end - 1, end, "\"__stripped__\"", 14);
        mark(e, end);
        if (!push(e, is_map, K_OTHER, ROLE_SKIP, learn, in_meta))
            return 0;
        e->discard = 1;
        e->discard_depth = e->depth;
        return 1;
    }
    case ROLE_SKIP:
    case ROLE_ID2:
        role = ROLE_SKIP;
        break;
    case ROLE_EVENTS:
        kind = is_map ? K_OTHER : K_EVENTS;
        break;
    case ROLE_ARGS:
        kind = is_map ? K_ARGS : K_OTHER;
        break;
    default:
        if (p->kind == K_ROOT)
            kind = is_map ? K_TOP : K_EVENTS;
        else if (p->kind == K_EVENTS && is_map)
            kind = K_EVENT;
        break;
    }
    return push(e, is_map, kind, role, learn, in_meta);
}

static int on_close(eng *e)
{
    uint64_t end = tok_end(e);
    if (e->discard && e->depth == e->discard_depth) {
        e->flushed = end; /* the container's bytes are gone: "__stripped__" stands for them */
        e->discard = 0;
    }
    if (e->depth == e->events_depth) {
        e->events_depth = 0;
        e->events_frame = NULL;
    }
    e->depth--;
    mark(e, end);
    return 1;
}

static int on_start_map(void *ctx)
{
    return on_open(ctx, 1);
}

static int on_start_array(void *ctx)
{
    return on_open(ctx, 0);
}

static int on_end(void *ctx)
{
    return on_close(ctx);
}

static const yajl_callbacks callbacks = {
    on_null, on_bool, NULL, NULL, on_number, on_string,
    on_start_map, on_key, on_end, on_start_array, on_end,
};

/* ---- the run loop ------------------------------------------------------------------------- */

static void on_repair(void *ctx, int kind, size_t in_off)
{
    eng *e = ctx;
    (void)kind;
    (void)in_off;
    e->res->repairs++;
}

/* append the filtered bytes of a run to the window, dropping what is flushed */
static void window_add(eng *e, const char *p, size_t n)
{
    size_t keep_from = (size_t)(e->flushed - e->win_base);
    if (keep_from) {
        memmove(e->win, e->win + keep_from, e->win_len - keep_from);
        e->win_len -= keep_from;
        e->win_base = e->flushed;
    }
    if (e->win_len + n > e->win_cap) {
        e->win_cap = e->win_len + n + CHUNK;
        e->win = ks_xrealloc(e->win, e->win_cap);
    }
    memcpy(e->win + e->win_len, p, n);
    e->win_len += n;
}

/* drop consumed input bytes, keeping line counts (a counting loop the compiler vectorises) */
static void input_discard(eng *e, size_t pos)
{
    ks_text_count(e->inbuf, pos, e->in_base, &e->lines_before, &e->last_nl);
    memmove(e->inbuf, e->inbuf + pos, e->in_len - pos);
    e->in_len -= pos;
    e->in_base += pos;
}

static int syntax_error(eng *e, uint64_t at_in)
{
    unsigned char *m = yajl_get_error(e->h, 0, NULL, 0);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(e->h, m);
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = 0;
    uint64_t line, col;
    line_col(e, at_in, &line, &col);
    return ks_error_set_at(e->err, at_in, line, col, "%s (the trace does not parse: not redacted)",
                           msg);
}

/* Feed input[pos, pos+avail) through the pre-filter and yajl. Returns bytes consumed or -1. */
static long feed(eng *e, size_t pos, size_t avail, int eof)
{
    e->run_in_base = e->in_base + pos;
    size_t consumed = ks_repair_run(&e->rep, e->inbuf + pos, avail, eof);
    if (!e->rep.res_len)
        return (long)consumed;
    window_add(e, e->rep.res, e->rep.res_len);
    e->run_base = e->win_base + e->win_len - e->rep.res_len;
    yajl_status ys = yajl_parse(e->h, (const unsigned char *)e->rep.res, e->rep.res_len);
    if (!e->failed && e->rd->failed) {
        /* a pattern could not be matched (PCRE2 match or depth limit) or OpenSSL failed: fail
         * closed */
        uint64_t at = e->run_in_base, line, col;
        line_col(e, at, &line, &col);
        if (e->rd->failed == KS_RD_FAIL_CRYPTO)
            ks_error_set_at(e->err, at, line, col,
                            "the keyed hash of the pseudonyms (HMAC-SHA256, OpenSSL) failed in the "
                            "text after this point: not redacted");
        else
            ks_error_set_at(e->err, at, line, col,
                            "a redaction pattern failed (PCRE2 error %d) in the text after this "
                            "point: not redacted",
                            e->rd->failed);
        e->failed = 1;
    }
    if (e->failed)
        return -1;
    if (ys != yajl_status_ok) {
        size_t off = yajl_get_bytes_consumed(e->h);
        syntax_error(e, e->run_in_base + ks_repair_in_offset(&e->rep, off));
        return -1;
    }
    /* everything before the last complete token is decided */
    emit_upto(e, e->prev_end);
    return (long)consumed;
}

static int read_more(eng *e, ks_stream *in, int *eof)
{
    if (e->in_cap < e->in_len + CHUNK) {
        e->in_cap = e->in_len + CHUNK;
        e->inbuf = ks_xrealloc(e->inbuf, e->in_cap);
    }
    ks_error rerr;
    ssize_t r = ks_stream_read(in, e->inbuf + e->in_len, CHUNK, &rerr);
    if (r < 0) {
        uint64_t at = e->in_base + e->in_len, line, col;
        line_col(e, at, &line, &col);
        return ks_error_set_at(e->err, at, line, col, "read error: %s", rerr.msg);
    }
    if (r == 0)
        *eof = 1;
    e->in_len += (size_t)r;
    e->res->bytes_in += (uint64_t)r;
    if (e->rd->progress)
        e->rd->progress(e->rd->progress_ctx, in, e->res->bytes_in);
    return KS_OK;
}

/* At the end: an array of events without its ']' (allowed by the format) is closed. */
static int unterminated_array(const eng *e)
{
    return e->depth == 1 && !e->st[1].is_map && e->st[1].kind == K_EVENTS;
}

static int finish(eng *e)
{
    e->completing = 1;
    yajl_status ys = yajl_complete_parse(e->h);
    e->completing = 0;
    if (e->failed)
        return KS_ERR;
    if (!e->seen)
        return ks_error_set(e->err, "empty input");
    if (ys != yajl_status_ok || e->depth != 0) {
        uint64_t at = e->in_base + e->in_len, line, col;
        line_col(e, at, &line, &col);
        return ks_error_set_at(e->err, at, line, col,
                               "the trace ends inside %zu open container%s (truncated? not "
                               "redacted)",
                               e->depth, e->depth == 1 ? "" : "s");
    }
    emit_upto(e, e->win_base + e->win_len);
    return KS_OK;
}

static void eng_free(eng *e)
{
    if (e->h)
        yajl_free(e->h);
    ks_repair_free(&e->rep);
    free(e->win);
    free(e->inbuf);
    free(e->st);
    free(e->kc);
    free(e->out);
    ks_buf_free(&e->path);
    ks_buf_free(&e->enc);
}

static int run_loop(eng *e, ks_stream *in)
{
    int eof = 0, first = 1, closed = 0;
    size_t pos = 0;
    for (;;) {
        if (read_more(e, in, &eof) != KS_OK)
            return KS_ERR;
        if (first && (e->in_len >= 3 || eof)) {
            first = 0;
            if (e->in_len >= 3 && !memcmp(e->inbuf, "\xef\xbb\xbf", 3))
                pos = 3; /* a byte order mark is dropped */
        }
        if (first)
            continue;
        long c = feed(e, pos, e->in_len - pos, 0);
        if (c < 0)
            return KS_ERR;
        pos += (size_t)c;
        if (eof && !closed && unterminated_array(e)) {
            /* behave as if the file ended with ']' */
            input_discard(e, pos);
            pos = 0;
            if (e->in_cap < e->in_len + 2)
                e->inbuf = ks_xrealloc(e->inbuf, e->in_cap = e->in_len + 2);
            memcpy(e->inbuf + e->in_len, "\n]", 2);
            e->in_len += 2;
            closed = 1;
            e->res->closed_array = 1;
        }
        if (eof) {
            c = feed(e, pos, e->in_len - pos, 1);
            if (c < 0)
                return KS_ERR;
            return finish(e);
        }
        input_discard(e, pos);
        pos = 0;
    }
}

int ks_rd_run(ks_redactor *rd, ks_stream *in, const ks_rd_engine_opts *eo, ks_redact_result *res,
              ks_error *err)
{
    memset(res, 0, sizeof *res);
    eng e;
    memset(&e, 0, sizeof e);
    e.rd = rd;
    e.check = eo->check;
    e.err = err;
    e.res = res;
    e.write = eo->write;
    e.wctx = eo->wctx;
    e.on_finding = eo->on_finding;
    e.fctx = eo->fctx;
    e.last_nl = -1;
    e.tok_start = UINT64_MAX;
    ks_repair_init(&e.rep);
    e.rep.on_repair = on_repair;
    e.rep.ctx = &e;
    e.out = e.check ? NULL : ks_xmalloc(OUTBUF);
    e.cap = 64;
    e.st = ks_xcalloc(e.cap, sizeof *e.st);
    e.kc = ks_xcalloc(KC_SLOTS, sizeof *e.kc);
    /* through the library's out-of-memory handler, like every other allocation */
    e.h = yajl_alloc(&callbacks, ks_yajl_alloc_funcs(), &e);
    if (!e.h) {
        eng_free(&e);
        return ks_error_set(err, "cannot create a JSON parser");
    }
    /* the pre-filter has already replaced invalid UTF-8 */
    yajl_config(e.h, yajl_dont_validate_strings, 1);

    rd->strings_scanned = 0;
    rd->late = 0;
    ks_rd_words_reset(rd);
    rd->hit = on_hit;
    rd->hit_ctx = &e;

    int rc = run_loop(&e, in);
    out_flush(&e);
    if (rc == KS_OK && e.write_failed)
        rc = ks_error_set(err, "cannot write the output");
    res->events = (uint64_t)e.events;
    res->late_literals = rd->late;
    rd->hit = NULL;
    rd->hit_ctx = NULL;
    eng_free(&e);
    return rc;
}

int ks_redact_stream(ks_redactor *rd, ks_stream *in, ks_redact_write_fn w, void *wctx,
                     ks_redact_result *res, ks_error *err)
{
    ks_rd_engine_opts eo = {0};
    eo.write = w;
    eo.wctx = wctx;
    return ks_rd_run(rd, in, &eo, res, err);
}

int ks_redact_check_stream(ks_redactor *rd, ks_stream *in, ks_redact_finding_fn cb, void *ctx,
                           ks_redact_result *res, ks_error *err)
{
    ks_rd_engine_opts eo = {0};
    eo.check = 1;
    eo.on_finding = cb;
    eo.fctx = ctx;
    return ks_rd_run(rd, in, &eo, res, err);
}
