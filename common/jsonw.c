/* common/jsonw.c: the JSON writer used by every report (see jsonw.h). */
#include "common/jsonw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "common/util.h"
#include "common/yajl_alloc.h"

#define JW_BUF 65536

static void jw_flush(ks_jw *w)
{
    if (w->nbuf && fwrite(w->buf, 1, w->nbuf, w->out) != w->nbuf)
        w->failed = 1;
    w->nbuf = 0;
}

/* n bytes into the buffer (one fwrite per 64 KiB) */
static inline void put(ks_jw *w, const char *s, size_t n)
{
    if (w->nbuf + n > JW_BUF) {
        jw_flush(w);
        if (n > JW_BUF) {
            if (fwrite(s, 1, n, w->out) != n)
                w->failed = 1;
            return;
        }
    }
    /* most pieces are one or two bytes (punctuation): no call for them */
    char *d = w->buf + w->nbuf;
    if (n == 1) {
        d[0] = s[0];
    } else if (n == 2) {
        d[0] = s[0];
        d[1] = s[1];
    } else {
        memcpy(d, s, n);
    }
    w->nbuf += n;
}

/* compact output: yajl_gen hands over a token or a punctuation mark at a time */
static void print_cb(void *ctx, const char *s, size_t n)
{
    put(ctx, s, n);
}

/* a new line's indentation at the current depth (two spaces a level) before a key or value */
static inline void indent(ks_jw *w)
{
    size_t n = 2 * (size_t)w->depth; /* depth <= YAJL_MAX_DEPTH: 256 bytes at most */
    if (w->nbuf + n > JW_BUF)
        jw_flush(w);
    memset(w->buf + w->nbuf, ' ', n);
    w->nbuf += n;
    w->indent_next = 0;
}

/* Indented output: yajl_gen's compact pieces, indented as its beautify option would indent them
 * (with "  "), without its call per level of indentation. After '{', '[' and ',' a new line,
 * the next key or value indented by its depth; ": " after a key; before a closing bracket a new
 * line at the outer depth (an empty container is "{", an empty line, "}"); a new line after the
 * top-level value. What a piece is, yajl_gen's calls say (yajl_gen.c, 2.1): a punctuation mark,
 * a number or a literal is one piece; a string is its opening quote, the pieces of its escaped
 * text (none of them a lone '"': a quote inside is the piece \"), and its closing quote. The
 * output is checked byte for byte against yajl_gen's own beautify (test_jsonw). */
static void pretty_cb(void *ctx, const char *s, size_t n)
{
    ks_jw *w = ctx;
    if (w->in_str) {
        put(w, s, n);
        if (n == 1 && s[0] == '"') {
            w->in_str = 0;
            if (!w->depth)
                put(w, "\n", 1); /* a top-level string */
        }
        return;
    }
    if (n == 1) {
        switch (s[0]) {
        case '{':
        case '[':
            if (w->indent_next)
                indent(w);
            put(w, s[0] == '{' ? "{\n" : "[\n", 2);
            w->depth++;
            w->indent_next = 1;
            return;
        case '}':
        case ']':
            if (w->depth)
                w->depth--;
            put(w, "\n", 1);
            indent(w);
            put(w, s, 1);
            if (!w->depth)
                put(w, "\n", 1);
            return;
        case ',':
            put(w, ",\n", 2);
            w->indent_next = 1;
            return;
        case ':':
            put(w, ": ", 2);
            w->indent_next = 0;
            return;
        case '"':
            if (w->indent_next)
                indent(w);
            w->in_str = 1;
            put(w, s, 1);
            return;
        default:
            break; /* a one-digit number */
        }
    }
    /* a number or a literal */
    if (w->indent_next)
        indent(w);
    put(w, s, n);
    if (!w->depth)
        w->final_nl = 1;
}

static _Thread_local FILE *capture_out;
static _Thread_local const ks_jw_sink *capture_sink;

void ks_jw_capture(FILE *out, const ks_jw_sink *s)
{
    capture_out = s ? out : NULL;
    capture_sink = s;
}

void ks_jw_open(ks_jw *w, FILE *out, int pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    if (capture_sink && out == capture_out)
        w->sink = capture_sink;
    w->buf = ks_xmalloc(JW_BUF);
    w->g = yajl_gen_alloc(ks_yajl_alloc_funcs());
    if (!w->g) {
        w->failed = 1;
        return;
    }
    yajl_gen_config(w->g, yajl_gen_print_callback, pretty ? pretty_cb : print_cb, w);
}

int ks_jw_close(ks_jw *w)
{
    if (w->g) {
        yajl_gen_free(w->g);
        w->g = NULL;
    }
    if (w->buf) {
        if (w->final_nl)
            put(w, "\n", 1);
        jw_flush(w);
        free(w->buf);
        w->buf = NULL;
    }
    if (w->out && fflush(w->out) != 0)
        w->failed = 1;
    return w->failed ? -1 : 0;
}

static void chk(ks_jw *w, yajl_gen_status s)
{
    if (s != yajl_gen_status_ok)
        w->failed = 1;
}

/* the sink's calls beside the text's (a sink is rare: one test of a pointer otherwise) */
#define SINK(w, call) do { if ((w)->sink) (w)->sink->call; } while (0)

void ks_jw_obj(ks_jw *w) { SINK(w, open(w->sink->ctx, 0)); if (w->g) chk(w, yajl_gen_map_open(w->g)); }
void ks_jw_end_obj(ks_jw *w) { SINK(w, close(w->sink->ctx, 0)); if (w->g) chk(w, yajl_gen_map_close(w->g)); }
void ks_jw_arr(ks_jw *w) { SINK(w, open(w->sink->ctx, 1)); if (w->g) chk(w, yajl_gen_array_open(w->g)); }
void ks_jw_end_arr(ks_jw *w) { SINK(w, close(w->sink->ctx, 1)); if (w->g) chk(w, yajl_gen_array_close(w->g)); }
void ks_jw_null(ks_jw *w) { SINK(w, null(w->sink->ctx)); if (w->g) chk(w, yajl_gen_null(w->g)); }
void ks_jw_bool(ks_jw *w, int v) { SINK(w, boolean(w->sink->ctx, v != 0)); if (w->g) chk(w, yajl_gen_bool(w->g, v != 0)); }

/* a string or a key: invalid UTF-8 replaced, for the text and the sink alike */
static void jw_string(ks_jw *w, const char *s, size_t n, int key)
{
    if (!w->g && !w->sink)
        return;
    if (!s)
        s = "";
    size_t m;
    char *fixed = ks_utf8_sanitize(s, n, &m);
    if (fixed) {
        s = fixed;
        n = m;
    }
    if (w->sink)
        (key ? w->sink->key : w->sink->str)(w->sink->ctx, s, n);
    if (w->g)
        chk(w, yajl_gen_string(w->g, (const unsigned char *)s, n));
    free(fixed);
}

void ks_jw_strn(ks_jw *w, const char *s, size_t n) { jw_string(w, s, n, 0); }
void ks_jw_str(ks_jw *w, const char *s) { jw_string(w, s ? s : "", s ? strlen(s) : 0, 0); }
void ks_jw_key(ks_jw *w, const char *k) { jw_string(w, k ? k : "", k ? strlen(k) : 0, 1); }

/* number text to the text only (the sink has had the value) */
static void gen_number(ks_jw *w, const char *s, size_t n)
{
    if (w->g)
        chk(w, yajl_gen_number(w->g, s, n));
}

void ks_jw_number_text(ks_jw *w, const char *s, size_t n)
{
    SINK(w, number_text(w->sink->ctx, s, n));
    gen_number(w, s, n);
}

/* The decimal digits of v into b (20 bytes at most); their count. What "%llu" writes, without
 * printf's parsing of the format for each of the many integers of a report. */
static size_t decimal(char *b, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        b[i] = t[n - 1 - i];
    return n;
}

void ks_jw_int(ks_jw *w, int64_t v)
{
    char b[24];
    size_t n = 0;
    if (v < 0)
        b[n++] = '-';
    /* the magnitude in unsigned arithmetic: exact for INT64_MIN too */
    n += decimal(b + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    SINK(w, i64(w->sink->ctx, v));
    gen_number(w, b, n);
}

void ks_jw_uint(ks_jw *w, uint64_t v)
{
    char b[24];
    SINK(w, u64(w->sink->ctx, v));
    gen_number(w, b, decimal(b, v));
}

void ks_jw_double(ks_jw *w, double v)
{
    if (!isfinite(v)) {
        ks_jw_null(w);
        return;
    }
    char b[40];
    int n = snprintf(b, sizeof b, "%.6g", v);
    /* "%g" never uses a locale other than C here (the library never calls setlocale) */
    SINK(w, dbl(w->sink->ctx, v));
    gen_number(w, b, (size_t)n);
}

void ks_jw_tree(ks_jw *w, const struct yajl_val_s *v)
{
    if (!v) {
        ks_jw_null(w);
        return;
    }
    switch (v->type) {
    case yajl_t_string: ks_jw_str(w, v->u.string); break;
    case yajl_t_number: ks_jw_number_text(w, v->u.number.r, strlen(v->u.number.r)); break;
    case yajl_t_true: ks_jw_bool(w, 1); break;
    case yajl_t_false: ks_jw_bool(w, 0); break;
    case yajl_t_object:
        ks_jw_obj(w);
        for (size_t i = 0; i < v->u.object.len; i++) {
            ks_jw_key(w, v->u.object.keys[i]);
            ks_jw_tree(w, v->u.object.values[i]);
        }
        ks_jw_end_obj(w);
        break;
    case yajl_t_array:
        ks_jw_arr(w);
        for (size_t i = 0; i < v->u.array.len; i++)
            ks_jw_tree(w, v->u.array.values[i]);
        ks_jw_end_arr(w);
        break;
    default: ks_jw_null(w); break;
    }
}

void ks_jw_kstr(ks_jw *w, const char *k, const char *s) { ks_jw_key(w, k); ks_jw_str(w, s); }
void ks_jw_kint(ks_jw *w, const char *k, int64_t v) { ks_jw_key(w, k); ks_jw_int(w, v); }
void ks_jw_kuint(ks_jw *w, const char *k, uint64_t v) { ks_jw_key(w, k); ks_jw_uint(w, v); }
void ks_jw_kdouble(ks_jw *w, const char *k, double v) { ks_jw_key(w, k); ks_jw_double(w, v); }
void ks_jw_kbool(ks_jw *w, const char *k, int v) { ks_jw_key(w, k); ks_jw_bool(w, v); }
void ks_jw_knull(ks_jw *w, const char *k) { ks_jw_key(w, k); ks_jw_null(w); }

void ks_jw_kints(ks_jw *w, const char *k, const int64_t *v, size_t n)
{
    ks_jw_key(w, k);
    ks_jw_arr(w);
    for (size_t i = 0; i < n; i++)
        ks_jw_int(w, v[i]);
    ks_jw_end_arr(w);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return (n >= 2 && (s[1] & 0xc0) == 0x80) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
            return 0;
        if (c == 0xe0 && s[1] < 0xa0)
            return 0; /* overlong */
        if (c == 0xed && s[1] >= 0xa0)
            return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
            return 0;
        if (c == 0xf0 && s[1] < 0x90)
            return 0;
        if (c == 0xf4 && s[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

int ks_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII eight bytes at a time (names and keys are mostly ASCII) */
        while (i + 8 <= n) {
            uint64_t x;
            memcpy(&x, p + i, 8);
            if (x & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_seq(p + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

char *ks_utf8_sanitize(const char *s, size_t n, size_t *outlen)
{
    if (ks_utf8_valid(s, n))
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    char *o = ks_xmalloc(ks_mul(n, 3) + 1);
    size_t j = 0, i = 0;
    while (i < n) {
        size_t k = p[i] < 0x80 ? 1 : utf8_seq(p + i, n - i);
        if (k) {
            memcpy(o + j, p + i, k);
            j += k;
            i += k;
        } else {
            memcpy(o + j, "\xef\xbf\xbd", 3);
            j += 3;
            i++;
        }
    }
    o[j] = 0;
    *outlen = j;
    return o;
}
