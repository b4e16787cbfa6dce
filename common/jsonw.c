/* common/jsonw.c: the JSON writer used by every report (see jsonw.h). */
#include "common/jsonw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "common/fmtg.h"
#include "common/util.h"

#define JW_BUF 65536
#define JW_SLACK 8

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

/* a new line's indentation at a depth (two spaces a level) before a key or value */
static inline void indent_at(ks_jw *w, unsigned depth)
{
    size_t n = 2 * (size_t)depth; /* depth < KS_LIMIT_JW_DEPTH: 256 bytes at most */
    if (w->nbuf + n > JW_BUF)
        jw_flush(w);
    /* eight spaces at a time (the buffer has JW_SLACK bytes beyond JW_BUF for the last ones) */
    char *d = w->buf + w->nbuf;
    for (size_t i = 0; i < n; i += 8)
        memcpy(d + i, "        ", 8);
    w->nbuf += n;
    w->indent_next = 0;
}

/* the indentation at the current depth */
static inline void indent(ks_jw *w)
{
    indent_at(w, w->depth);
}

/* What each level expects next: yajl_gen's states (yajl_gen.c, 2.1), whose rules the writer keeps,
 * so that it writes what yajl_gen wrote, checked byte for byte against it (test_jsonw):
 * - a value where a key is expected (other than a string: a string there is the key) fails, as
 *   does anything after a complete top-level value, and a container opened at the depth limit,
 *   and a close with none open; a failed call writes nothing;
 * - before a key or value: "," after a member, ":" after a key (indented: ",\n" and ": ");
 * - indented: after '{' or '[' and after ',' a new line, the next key or value indented by its
 *   depth; before a closing bracket a new line at the outer depth (an empty container is "{", an
 *   empty line, "}"); a new line after a top-level value. */
enum { ST_START, ST_MAP_START, ST_MAP_KEY, ST_MAP_VAL, ST_ARRAY_START, ST_IN_ARRAY, ST_COMPLETE };

/* before a value (string: a key or a string): 0 when it may not come here (the writer failed) */
static inline int before(ks_jw *w, int string)
{
    unsigned char st = w->st[w->depth];
    if (st == ST_COMPLETE || (!string && (st == ST_MAP_KEY || st == ST_MAP_START))) {
        w->failed = 1;
        return 0;
    }
    if (st == ST_MAP_KEY || st == ST_IN_ARRAY) {
        if (w->pretty) {
            put(w, ",\n", 2);
            w->indent_next = 1;
        } else
            put(w, ",", 1);
    } else if (st == ST_MAP_VAL) {
        put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
        w->indent_next = 0;
    }
    if (w->indent_next)
        indent(w);
    return 1;
}

/* after a value at the current depth: the level's next expectation */
static inline void after(ks_jw *w)
{
    unsigned char *st = &w->st[w->depth];
    switch (*st) {
    case ST_START: *st = ST_COMPLETE; break;
    case ST_MAP_START:
    case ST_MAP_KEY: *st = ST_MAP_VAL; break;
    case ST_ARRAY_START: *st = ST_IN_ARRAY; break;
    case ST_MAP_VAL: *st = ST_MAP_KEY; break;
    default: break;
    }
}

/* indented: the new line after a complete top-level value */
static inline void final_newline(ks_jw *w)
{
    if (w->pretty && w->st[w->depth] == ST_COMPLETE)
        put(w, "\n", 1);
}

static void jw_open(ks_jw *w, int array)
{
    if (!before(w, 0))
        return;
    if (w->depth + 1 >= KS_LIMIT_JW_DEPTH) {
        w->failed = 1;
        return;
    }
    w->st[++w->depth] = array ? ST_ARRAY_START : ST_MAP_START;
    if (w->pretty) {
        put(w, array ? "[\n" : "{\n", 2);
        w->indent_next = 1;
    } else
        put(w, array ? "[" : "{", 1);
}

static void jw_close(ks_jw *w, int array)
{
    if (w->st[w->depth] == ST_COMPLETE || !w->depth) {
        w->failed = 1;
        return;
    }
    w->depth--;
    after(w);
    if (w->pretty) {
        put(w, "\n", 1);
        indent(w);
    }
    put(w, array ? "]" : "}", 1);
    final_newline(w);
}

/* the escape of each byte of a string, as yajl_string_encode writes it (no escape of '/'): 0 none,
 * a letter for \b \t \n \f \r, '"' and '\\' for themselves, 'u' for \u00XX */
static const unsigned char esc[256] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', ['"'] = '"', ['\\'] = '\\',
    [0] = 'u', [1] = 'u', [2] = 'u', [3] = 'u', [4] = 'u', [5] = 'u', [6] = 'u', [7] = 'u',
    [11] = 'u', [14] = 'u', [15] = 'u', [16] = 'u', [17] = 'u', [18] = 'u', [19] = 'u', [20] = 'u',
    [21] = 'u', [22] = 'u', [23] = 'u', [24] = 'u', [25] = 'u', [26] = 'u', [27] = 'u', [28] = 'u',
    [29] = 'u', [30] = 'u', [31] = 'u',
};

/* a string's text: quoted, runs without an escape copied whole */
static void put_string(ks_jw *w, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    put(w, "\"", 1);
    size_t beg = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char e = esc[p[i]];
        if (!e)
            continue;
        if (i > beg)
            put(w, s + beg, i - beg);
        if (e == 'u') {
            char h[6] = {'\\', 'u', '0', '0', "0123456789ABCDEF"[p[i] >> 4], "0123456789ABCDEF"[p[i] & 15]};
            put(w, h, 6);
        } else {
            char h[2] = {'\\', (char)e};
            put(w, h, 2);
        }
        beg = i + 1;
    }
    if (n > beg)
        put(w, s + beg, n - beg);
    put(w, "\"", 1);
}

/* number or literal text as a value */
static void put_atom(ks_jw *w, const char *s, size_t n)
{
    if (!before(w, 0))
        return;
    put(w, s, n);
    after(w);
    final_newline(w);
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
    w->pretty = pretty != 0;
    if (capture_sink && out == capture_out)
        w->sink = capture_sink;
    w->buf = ks_xmalloc(JW_BUF + JW_SLACK);
}

int ks_jw_close(ks_jw *w)
{
    if (w->buf) {
        jw_flush(w);
        free(w->buf);
        w->buf = NULL;
    }
    free(w->kc);
    w->kc = NULL;
    if (w->out && fflush(w->out) != 0)
        w->failed = 1;
    return w->failed ? -1 : 0;
}

/* the sink's calls beside the text's (a sink is rare: one test of a pointer otherwise) */
#define SINK(w, call) do { if ((w)->sink) (w)->sink->call; } while (0)

void ks_jw_obj(ks_jw *w) { SINK(w, open(w->sink->ctx, 0)); jw_open(w, 0); }
void ks_jw_end_obj(ks_jw *w) { SINK(w, close(w->sink->ctx, 0)); jw_close(w, 0); }
void ks_jw_arr(ks_jw *w) { SINK(w, open(w->sink->ctx, 1)); jw_open(w, 1); }
void ks_jw_end_arr(ks_jw *w) { SINK(w, close(w->sink->ctx, 1)); jw_close(w, 1); }
void ks_jw_null(ks_jw *w) { SINK(w, null(w->sink->ctx)); put_atom(w, "null", 4); }
void ks_jw_bool(ks_jw *w, int v) { SINK(w, boolean(w->sink->ctx, v != 0)); put_atom(w, v ? "true" : "false", v ? 4 : 5); }

/* 1 when none of the 8 bytes of x needs a look: no escape (below 0x20, '"', '\\') and ASCII */
static inline int plain8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    uint64_t low = (x - ones * 0x20) & ~x & highs; /* a byte below 0x20 */
    uint64_t quote = (q - ones) & ~q & highs, backslash = (b - ones) & ~b & highs;
    return !((x & highs) | low | quote | backslash);
}

/* 1 when the n bytes at s are ASCII without an escape: written as they are (most names, every key) */
static inline int plain(const char *s, size_t n)
{
    size_t i = 0;
    uint64_t x;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        if (!plain8(x))
            return 0;
    }
    if (i < n && n >= 8) { /* the last 8 bytes, some of them seen already */
        memcpy(&x, s + n - 8, 8);
        return plain8(x);
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] >= 0x80 || esc[(unsigned char)s[i]])
            return 0;
    return 1;
}

/* a string or a key: invalid UTF-8 replaced, for the text and the sink alike */
static void jw_string(ks_jw *w, const char *s, size_t n, int key)
{
    if (!s)
        s = "";
    if (plain(s, n)) {
        if (w->sink)
            (key ? w->sink->key : w->sink->str)(w->sink->ctx, s, n);
        if (before(w, 1)) {
            if (w->nbuf + n + 2 <= JW_BUF) {
                char *d = w->buf + w->nbuf;
                d[0] = '"';
                memcpy(d + 1, s, n);
                d[n + 1] = '"';
                w->nbuf += n + 2;
            } else {
                put(w, "\"", 1);
                put(w, s, n);
                put(w, "\"", 1);
            }
            after(w);
            final_newline(w);
        }
        return;
    }
    size_t m;
    char *fixed = ks_utf8_sanitize(s, n, &m);
    if (fixed) {
        s = fixed;
        n = m;
    }
    if (w->sink)
        (key ? w->sink->key : w->sink->str)(w->sink->ctx, s, n);
    if (before(w, 1)) {
        put_string(w, s, n);
        after(w);
        final_newline(w);
    }
    free(fixed);
}

void ks_jw_strn(ks_jw *w, const char *s, size_t n) { jw_string(w, s, n, 0); }
void ks_jw_str(ks_jw *w, const char *s) { jw_string(w, s ? s : "", s ? strlen(s) : 0, 0); }
/* The text of a plain key at a level that expects one (st), the room checked by the caller: its
 * separator, indentation and quoted text at once; where it ends. Indented, a key always starts a
 * new line ("{\n" or ",\n" before it). */
static char *key_text(ks_jw *w, unsigned char st, const char *k, size_t n)
{
    char *d = w->buf + w->nbuf;
    if (st == ST_MAP_KEY) {
        *d++ = ',';
        if (w->pretty)
            *d++ = '\n';
    }
    if (w->pretty) {
        size_t m = 2 * (size_t)w->depth; /* eight spaces at a time, as indent() */
        for (size_t i = 0; i < m; i += 8)
            memcpy(d + i, "        ", 8);
        d += m;
    }
    *d++ = '"';
    memcpy(d, k, n);
    d += n;
    *d++ = '"';
    return d;
}

/* A key where a key is expected, ASCII without an escape, room in the buffer (a report's keys):
 * key_text (the sink, if any, given it first). Anything else: jw_string. */
static void jw_key(ks_jw *w, const char *k, size_t n)
{
    unsigned char *st = &w->st[w->depth];
    if ((*st != ST_MAP_KEY && *st != ST_MAP_START) || w->nbuf + n + 2 * (size_t)w->depth + 4 > JW_BUF ||
        !plain(k, n)) {
        jw_string(w, k, n, 1);
        return;
    }
    if (w->sink)
        w->sink->key(w->sink->ctx, k, n);
    w->nbuf = (size_t)(key_text(w, *st, k, n) - w->buf);
    w->indent_next = 0;
    *st = ST_MAP_VAL;
}

void ks_jw_key(ks_jw *w, const char *k) { jw_key(w, k ? k : "", k ? strlen(k) : 0); }

/* A member whose value is an atom (a number or a literal), written at once where jw_key's direct
 * path applies, there is no sink and there is room for both: the same text as the key, then the
 * atom. 0 (nothing written) otherwise: the caller writes the key and the value apart. */
static int key_atom(ks_jw *w, const char *k, const char *a, size_t an)
{
    if (!k || w->sink)
        return 0;
    size_t n = strlen(k);
    unsigned char *st = &w->st[w->depth];
    if ((*st != ST_MAP_KEY && *st != ST_MAP_START) || w->nbuf + n + 2 * (size_t)w->depth + an + 6 > JW_BUF ||
        !plain(k, n))
        return 0;
    char *d = key_text(w, *st, k, n);
    *d++ = ':';
    if (w->pretty)
        *d++ = ' ';
    memcpy(d, a, an);
    w->nbuf = (size_t)(d + an - w->buf);
    w->indent_next = 0;
    *st = ST_MAP_KEY; /* a member written: a key next */
    return 1;
}

/* number text to the text only (the sink has had the value) */
static void gen_number(ks_jw *w, const char *s, size_t n)
{
    put_atom(w, s, n);
}

void ks_jw_number_text(ks_jw *w, const char *s, size_t n)
{
    SINK(w, number_text(w->sink->ctx, s, n));
    gen_number(w, s, n);
}

/* the two digits of each number 0 .. 99 */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* The decimal digits of v into b (20 bytes at most); their count. What "%llu" writes, without
 * printf's parsing of the format for each of the many integers of a report: two digits a division,
 * from the last (a report's integers are mostly 16-digit timestamps: one digit a division took
 * ~350 instructions for one). */
static size_t decimal(char *b, uint64_t v)
{
    char t[20];
    char *p = t + sizeof t;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * v, 2);
    } else
        *--p = (char)('0' + v);
    size_t n = (size_t)(t + sizeof t - p);
    memcpy(b, p, n);
    return n;
}

size_t ks_jw_uint_text(char *b, uint64_t v)
{
    return decimal(b, v);
}

size_t ks_jw_int_text(char *b, int64_t v)
{
    size_t n = 0;
    if (v < 0)
        b[n++] = '-';
    /* the magnitude in unsigned arithmetic: exact for INT64_MIN too */
    return n + decimal(b + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void ks_jw_int(ks_jw *w, int64_t v)
{
    char b[24];
    size_t n = ks_jw_int_text(b, v);
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
    char b[32];
    size_t n = ks_fmt_g(b, v, 6);
    SINK(w, dbl(w->sink->ctx, v));
    gen_number(w, b, n);
}

/* a string's text with invalid UTF-8 replaced, as jw_string writes it (no state change) */
static void put_repaired(ks_jw *w, const char *s, size_t n)
{
    size_t m;
    char *fixed = ks_utf8_sanitize(s, n, &m);
    put_string(w, fixed ? fixed : s, fixed ? m : n);
    free(fixed);
}

/* a string to a sink, invalid UTF-8 replaced, as jw_string gives it */
static void sink_repaired(const ks_jw_sink *k, const char *s, size_t n)
{
    size_t m;
    char *fixed = ks_utf8_sanitize(s, n, &m);
    k->str(k->ctx, fixed ? fixed : s, fixed ? m : n);
    free(fixed);
}

/* a tree value's tokens to a sink, as the calls one by one give them */
static void tree_feed(const ks_jw_sink *k, const struct yajl_val_s *v)
{
    if (!v) {
        k->null(k->ctx);
        return;
    }
    switch (v->type) {
    case yajl_t_string: {
        sink_repaired(k, v->u.string, strlen(v->u.string));
        break;
    }
    case yajl_t_number: k->number_text(k->ctx, v->u.number.r, strlen(v->u.number.r)); break;
    case yajl_t_true: k->boolean(k->ctx, 1); break;
    case yajl_t_false: k->boolean(k->ctx, 0); break;
    case yajl_t_object:
        k->open(k->ctx, 0);
        for (size_t i = 0; i < v->u.object.len; i++) {
            k->key(k->ctx, v->u.object.keys[i], strlen(v->u.object.keys[i]));
            tree_feed(k, v->u.object.values[i]);
        }
        k->close(k->ctx, 0);
        break;
    case yajl_t_array:
        k->open(k->ctx, 1);
        for (size_t i = 0; i < v->u.array.len; i++)
            tree_feed(k, v->u.array.values[i]);
        k->close(k->ctx, 1);
        break;
    default: k->null(k->ctx); break;
    }
}

/* a tree value's compact text, piece by piece */
static void tree_text(ks_jw *w, const struct yajl_val_s *v)
{
    if (!v) {
        put(w, "null", 4);
        return;
    }
    switch (v->type) {
    case yajl_t_string: {
        put_repaired(w, v->u.string, strlen(v->u.string));
        break;
    }
    case yajl_t_number: put(w, v->u.number.r, strlen(v->u.number.r)); break;
    case yajl_t_true: put(w, "true", 4); break;
    case yajl_t_false: put(w, "false", 5); break;
    case yajl_t_object:
        put(w, "{", 1);
        for (size_t i = 0; i < v->u.object.len; i++) {
            if (i)
                put(w, ",", 1);
            put_repaired(w, v->u.object.keys[i], strlen(v->u.object.keys[i]));
            put(w, ":", 1);
            tree_text(w, v->u.object.values[i]);
        }
        put(w, "}", 1);
        break;
    case yajl_t_array:
        put(w, "[", 1);
        for (size_t i = 0; i < v->u.array.len; i++) {
            if (i)
                put(w, ",", 1);
            tree_text(w, v->u.array.values[i]);
        }
        put(w, "]", 1);
        break;
    default: put(w, "null", 4); break;
    }
}

static int is_line_key(const char *k, const char *const *line_keys)
{
    for (; line_keys && *line_keys; line_keys++)
        if (!strcmp(k, *line_keys))
            return 1;
    return 0;
}

static void tree(ks_jw *w, const struct yajl_val_s *v, const char *const *line_keys)
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
            const struct yajl_val_s *x = v->u.object.values[i];
            ks_jw_key(w, v->u.object.keys[i]);
            if (x && x->type == yajl_t_array && is_line_key(v->u.object.keys[i], line_keys)) {
                /* what ks_jw_compact wrote: one line, its tokens to the sink */
                if (w->sink)
                    tree_feed(w->sink, x);
                if (before(w, 0)) {
                    tree_text(w, x);
                    w->indent_next = 0;
                    after(w);
                    final_newline(w);
                }
            } else
                tree(w, x, line_keys);
        }
        ks_jw_end_obj(w);
        break;
    case yajl_t_array:
        ks_jw_arr(w);
        for (size_t i = 0; i < v->u.array.len; i++)
            tree(w, v->u.array.values[i], line_keys);
        ks_jw_end_arr(w);
        break;
    default: ks_jw_null(w); break;
    }
}

void ks_jw_tree(ks_jw *w, const struct yajl_val_s *v)
{
    tree(w, v, NULL);
}

void ks_jw_tree_lines(ks_jw *w, const struct yajl_val_s *v, const char *const *line_keys)
{
    tree(w, v, line_keys);
}

void ks_jw_kstr(ks_jw *w, const char *k, const char *s) { ks_jw_key(w, k); ks_jw_str(w, s); }
/* the members with an atom for a value: at once (key_atom), or the key and the value apart */
void ks_jw_kint(ks_jw *w, const char *k, int64_t v)
{
    char b[24];
    if (!key_atom(w, k, b, ks_jw_int_text(b, v))) {
        ks_jw_key(w, k);
        ks_jw_int(w, v);
    }
}

void ks_jw_kuint(ks_jw *w, const char *k, uint64_t v)
{
    char b[24];
    if (!key_atom(w, k, b, decimal(b, v))) {
        ks_jw_key(w, k);
        ks_jw_uint(w, v);
    }
}

void ks_jw_kdouble(ks_jw *w, const char *k, double v)
{
    char b[32];
    if (!(isfinite(v) ? key_atom(w, k, b, ks_fmt_g(b, v, 6)) : key_atom(w, k, "null", 4))) {
        ks_jw_key(w, k);
        ks_jw_double(w, v);
    }
}

void ks_jw_kbool(ks_jw *w, const char *k, int v)
{
    if (!key_atom(w, k, v ? "true" : "false", v ? 4 : 5)) {
        ks_jw_key(w, k);
        ks_jw_bool(w, v);
    }
}

void ks_jw_knull(ks_jw *w, const char *k)
{
    if (!key_atom(w, k, "null", 4)) {
        ks_jw_key(w, k);
        ks_jw_null(w);
    }
}

/* One string of compact text (s at its opening quote, n bytes to the end of the text) decoded as
 * the parser escaped it (\u00XX a byte, a backslash and any other byte that byte) into buf; the
 * decoded length, *used the bytes of s it took. */
static size_t compact_string(const char *s, size_t n, char *buf, size_t *used)
{
    size_t i = 1, m = 0;
    while (i < n && s[i] != '"') {
        if (s[i] == '\\' && i + 5 < n && s[i + 1] == 'u') {
            char h[3] = {s[i + 4], s[i + 5], 0};
            buf[m++] = (char)strtol(h, NULL, 16);
            i += 6;
        } else if (s[i] == '\\' && i + 1 < n) {
            buf[m++] = s[i + 1];
            i += 2;
        } else
            buf[m++] = s[i++];
    }
    *used = i < n ? i + 1 : i;
    return m;
}

/* the compact text's tokens to a sink, as the calls one by one would give them (strings decoded
 * and repaired); the bytes of s taken */
static size_t compact_feed(const ks_jw_sink *k, const char *s, size_t n, char *buf)
{
    size_t i = 0;
    if (i < n && s[i] == '[') {
        k->open(k->ctx, 1);
        i++;
        while (i < n && s[i] != ']')
            i += s[i] == ',' ? 1 : compact_feed(k, s + i, n - i, buf);
        k->close(k->ctx, 1);
        return i < n ? i + 1 : i;
    }
    if (i < n && s[i] == '"') {
        size_t used, m = compact_string(s, n, buf, &used);
        sink_repaired(k, buf, m);
        return used;
    }
    size_t e = 0;
    while (e < n && s[e] != ',' && s[e] != ']')
        e++;
    if (e == 4 && !memcmp(s, "null", 4))
        k->null(k->ctx);
    else if ((e == 4 && !memcmp(s, "true", 4)) || (e == 5 && !memcmp(s, "false", 5)))
        k->boolean(k->ctx, s[0] == 't');
    else
        k->number_text(k->ctx, s, e);
    return e ? e : 1;
}

/* 1 when none of the 8 bytes of x needs a look in compact text: ASCII, no control byte, no '\\'
 * (its strings then need no escape and no repair) */
static inline int bare8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t b = x ^ (ones * '\\');
    uint64_t low = (x - ones * 0x20) & ~x & highs, backslash = (b - ones) & ~b & highs;
    return !((x & highs) | low | backslash);
}

static int bare(const char *s, size_t n)
{
    size_t i = 0;
    uint64_t x;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        if (!bare8(x))
            return 0;
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] >= 0x80 || (unsigned char)s[i] < 0x20 || s[i] == '\\')
            return 0;
    return 1;
}

void ks_jw_compact(ks_jw *w, const char *s, size_t n)
{
    char *buf = NULL;
    if (w->sink) {
        buf = ks_xmalloc(n + 1);
        for (size_t i = 0; i < n;)
            i += compact_feed(w->sink, s + i, n - i, buf);
    }
    if (!before(w, 0)) {
        free(buf);
        return;
    }
    if (bare(s, n))
        put(w, s, n); /* its strings as they are */
    else {
        /* strings with escapes or UTF-8: decoded, repaired and escaped as ks_jw_strn does */
        for (size_t i = 0; i < n;) {
            if (s[i] == '"') {
                if (!buf)
                    buf = ks_xmalloc(n + 1);
                size_t used, m = compact_string(s + i, n - i, buf, &used);
                put_repaired(w, buf, m);
                i += used;
            } else {
                size_t j = i;
                while (j < n && s[j] != '"')
                    j++;
                put(w, s + i, j - i);
                i = j;
            }
        }
    }
    free(buf);
    w->indent_next = 0;
    after(w);
    final_newline(w);
}

/* n bytes from s to d, reading none beyond s + n (d may take up to 7 more): the short ones (most
 * numbers) without a call */
static inline void copy_short(char *d, const char *s, size_t n)
{
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) { /* two 8-byte pieces, overlapping */
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8);
        memcpy(d + n - 8, &y, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else {
        for (size_t k = 0; k < n; k++)
            d[k] = s[k];
    }
}

/* What ks_jw_katoms writes before a member's value, kept per key (by its address) and depth: the
 * separator (",\n", or "," compact), the indentation, the quoted key, ':' and (indented) a space.
 * A row of a table writes the same keys at the same depth row after row: one copy each. Two ways
 * per set, the latest first: a row's two dozen keys stay. */
#define JW_KSET_BITS 6 /* 64 sets of two, indexed by a hash's top bits */
#define JW_KTEXT 128
#define JW_KCHUNK 32 /* the copy's unit: it reads and writes up to JW_KCHUNK - 1 bytes beyond */

typedef struct jw_kprefix {
    const char *key;
    unsigned depth;
    uint8_t len, sep; /* the text's length, the separator's (left out after '{') */
    char text[JW_KTEXT];
} jw_kprefix;

#define JW_KPOS 32 /* members of a call remembered by position */

struct ks_jw_kcache {
    jw_kprefix e[2 << JW_KSET_BITS];
    const jw_kprefix *pos[JW_KPOS]; /* the entry the member at each position had last (checked: an
                                     * entry may since hold another key) */
};

/* What goes before a member's value at the writer's depth, at d: the separator when sep (",\n",
 * compact ","), the indentation, the quoted key, ':' and (indented) a space; where it ends. */
static char *member_text(const ks_jw *w, char *d, int sep, const char *k, size_t klen)
{
    if (sep) {
        *d++ = ',';
        if (w->pretty)
            *d++ = '\n';
    }
    size_t ind = w->pretty ? 2 * (size_t)w->depth : 0;
    memset(d, ' ', ind);
    d += ind;
    *d++ = '"';
    memcpy(d, k, klen);
    d += klen;
    *d++ = '"';
    *d++ = ':';
    if (w->pretty)
        *d++ = ' ';
    return d;
}

/* the entry of key k at depth (ind bytes of indentation), rendered if not kept; NULL when it does
 * not fit one */
static const jw_kprefix *kprefix(const ks_jw *w, struct ks_jw_kcache *kc, unsigned depth, size_t ind, const char *k,
                                 size_t klen)
{
    if (2 + ind + klen + 4 + JW_KCHUNK > JW_KTEXT)
        return NULL;
    uint64_t h = ((uint64_t)(uintptr_t)k ^ depth) * 0x9E3779B97F4A7C15ULL; /* Fibonacci hashing */
    jw_kprefix *e = &kc->e[2 * (h >> (64 - JW_KSET_BITS))];
    if (e[0].key == k && e[0].depth == depth)
        return &e[0];
    if (e[1].key == k && e[1].depth == depth)
        return &e[1];
    e[1] = e[0]; /* the new one first */
    e->sep = (uint8_t)(w->pretty ? 2 : 1);
    e->len = (uint8_t)(member_text(w, e->text, 1, k, klen) - e->text);
    e->key = k;
    e->depth = depth;
    return e;
}

/* Member a of a ks_jw_katoms call, at position i, at d; where it ends. Its key's text is first
 * looked for where the member at its position found its own; first: the object's first member,
 * written without the separator its kept text starts with. */
static inline char *katom(ks_jw *w, struct ks_jw_kcache *kc, unsigned depth, size_t ind, const ks_jw_atom *a,
                          size_t i, int first, char *d)
{
    const char *k = a->key;
    const jw_kprefix *p = i < JW_KPOS ? kc->pos[i] : NULL;
    if (!p || p->key != k || p->depth != depth) {
        p = kprefix(w, kc, depth, ind, k, a->klen);
        if (i < JW_KPOS)
            kc->pos[i] = p;
    }
    if (p) {
        size_t skip = first ? p->sep : 0;
        const char *src = p->text + skip;
        size_t len = p->len - skip;
        memcpy(d, src, JW_KCHUNK);
        for (size_t c = JW_KCHUNK; c < len; c += JW_KCHUNK)
            memcpy(d + c, src + c, JW_KCHUNK);
        d += len;
    } else
        d = member_text(w, d, !first, k, a->klen);
    const char *v = a->val;
    size_t vlen = a->vlen;
    if (a->str) {
        *d = '"';
        copy_short(d + 1, v, vlen);
        d[1 + vlen] = '"';
        return d + vlen + 2;
    }
    copy_short(d, v, vlen);
    return d + vlen;
}

/* Members whose values are atoms, strings or compact text, at once: the keys plain ASCII (a
 * report's own), the strings ASCII without an escape, the compact texts bare, a level that expects
 * a key, room for all in the buffer; anything else member by member. A table's rows give their
 * keys in one order row after row: each member's entry is first looked for where the member at its
 * position found its own, then by its key. */
void ks_jw_katoms(ks_jw *w, const ks_jw_atom *m, size_t n)
{
    const unsigned depth = w->depth;
    unsigned char *st = &w->st[depth];
    size_t need = JW_KCHUNK + n * (2 * (size_t)depth + 8);
    int direct = 1;
    for (size_t i = 0; i < n; i++) {
        need += (size_t)m[i].klen + m[i].vlen;
        if ((m[i].str && !plain(m[i].val, m[i].vlen)) || (m[i].raw && !bare(m[i].val, m[i].vlen)))
            direct = 0;
    }
    if (w->nbuf + need > JW_BUF)
        jw_flush(w);
    if (w->sink || !direct || (*st != ST_MAP_KEY && *st != ST_MAP_START) || need > JW_BUF) {
        for (size_t i = 0; i < n; i++) {
            ks_jw_key(w, m[i].key);
            if (m[i].str)
                ks_jw_strn(w, m[i].val, m[i].vlen);
            else if (m[i].raw)
                ks_jw_compact(w, m[i].val, m[i].vlen);
            else if (m[i].vlen == 4 && !memcmp(m[i].val, "null", 4))
                ks_jw_null(w);
            else
                ks_jw_number_text(w, m[i].val, m[i].vlen);
        }
        return;
    }
    if (!w->kc) { /* the keys alone marked empty: the texts are written before they are read */
        w->kc = ks_xmalloc(sizeof *w->kc);
        for (size_t i = 0; i < sizeof w->kc->e / sizeof w->kc->e[0]; i++)
            w->kc->e[i].key = NULL;
        for (size_t i = 0; i < JW_KPOS; i++)
            w->kc->pos[i] = NULL;
    }
    struct ks_jw_kcache *const kc = w->kc;
    const size_t ind = w->pretty ? 2 * (size_t)depth : 0;
    char *d = w->buf + w->nbuf;
    size_t i = 0;
    if (n && *st != ST_MAP_KEY) /* the first member of the object: no separator before it */
        d = katom(w, kc, depth, ind, &m[i++], 0, 1, d);
    for (; i < n; i++)
        d = katom(w, kc, depth, ind, &m[i], i, 0, d);
    if (n)
        *st = ST_MAP_KEY; /* a member written: a key next */
    w->nbuf = (size_t)(d - w->buf);
    w->indent_next = 0;
}

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
