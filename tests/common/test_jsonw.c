/* tests/common/test_jsonw.c: the JSON writer every report uses (common/jsonw.c), where it does by
 * hand what it once left to libc: integers written without printf (every int64 and uint64 edge,
 * and 20 000 drawn values, against "%lld" / "%llu"), the pieces yajl_gen hands over gathered into
 * 64 KiB writes (pieces of 1, 2 and more bytes across many buffer boundaries, against the text
 * built here), and UTF-8 checked eight ASCII bytes at a time (ks_utf8_valid against a byte-by-byte
 * reference on drawn byte strings, a non-ASCII or broken byte at every offset of the 8-byte
 * blocks; ks_utf8_sanitize's repair); ks_jw_str on C strings (NULL included) writes what
 * ks_jw_strn writes; indented and compact output are byte for byte what yajl_gen writes, beautified
 * or not (drawn documents: every kind of value, empty containers, strings full of quotes,
 * backslashes, brackets, commas, control and NUL bytes and UTF-8, nesting to 40 levels, top-level
 * scalars, members written by the shorthands ks_jw_kint/kuint/kdouble/kbool/knull, across the
 * 64 KiB buffer; every byte value at every offset of strings of 1 to 24 bytes); calls out of place
 * fail where yajl_gen refuses them, writing what it writes; compact text (the parser's shape args,
 * ks_jw_compact) is one line, its tokens what the calls one by one write and give a sink, and
 * members of atoms written at once (ks_jw_katoms) are what the calls one by one write. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "ks_test.h"
#include "common/jsonw.h"

/* what the writer printed for one compact array, written by fill(w, ctx) */
static char *written(void (*fill)(ks_jw *w, void *ctx), void *ctx, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    ks_jw w;
    ks_jw_open(&w, f, 0);
    ks_jw_arr(&w);
    fill(&w, ctx);
    ks_jw_end_arr(&w);
    assert_int_equal(ks_jw_close(&w), 0);
    fclose(f);
    *len = n;
    return text;
}

static uint64_t next(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x;
}

typedef struct ints {
    int64_t s[64];
    uint64_t u[64];
    size_t ns, nu;
} ints;

static void fill_ints(ks_jw *w, void *ctx)
{
    ints *v = ctx;
    for (size_t i = 0; i < v->ns; i++)
        ks_jw_int(w, v->s[i]);
    for (size_t i = 0; i < v->nu; i++)
        ks_jw_uint(w, v->u[i]);
}

static void integers_as_printf_writes_them(void **state)
{
    (void)state;
    uint64_t x = 42;
    for (int round = 0; round < 320; round++) {
        ints v = {.ns = 0, .nu = 0};
        if (round == 0) {
            const int64_t s[] = {0, 1, -1, 9, 10, -10, 99, 100, 999999999, 1000000000, -1000000000,
                                 INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - 1};
            const uint64_t u[] = {0, 1, 9, 10, UINT64_MAX, UINT64_MAX - 1, (uint64_t)INT64_MAX + 1,
                                  10000000000000000000ULL, 9999999999999999999ULL};
            memcpy(v.s, s, sizeof s);
            memcpy(v.u, u, sizeof u);
            v.ns = sizeof s / sizeof s[0];
            v.nu = sizeof u / sizeof u[0];
        } else {
            for (; v.ns < 32; v.ns++) /* all magnitudes: a drawn value shifted right 0..63 bits */
                v.s[v.ns] = (int64_t)(next(&x) >> (next(&x) % 64));
            for (; v.nu < 32; v.nu++)
                v.u[v.nu] = next(&x) >> (next(&x) % 64);
        }
        char want[4096] = "[";
        for (size_t i = 0; i < v.ns; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", i ? "," : "", (long long)v.s[i]);
        for (size_t i = 0; i < v.nu; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%llu", v.ns + i ? "," : "",
                     (unsigned long long)v.u[i]);
        strcat(want, "]");
        size_t n;
        char *got = written(fill_ints, &v, &n);
        assert_string_equal(got, want);
        free(got);
    }
}

/* strings of 0 .. 70 bytes, so that pieces of every size meet the 64 KiB boundary of the buffer */
static void fill_strings(ks_jw *w, void *ctx)
{
    size_t count = *(size_t *)ctx;
    char s[80];
    for (size_t i = 0; i < count; i++) {
        size_t len = i % 71;
        for (size_t j = 0; j < len; j++)
            s[j] = (char)('a' + (i + j) % 26);
        ks_jw_strn(w, s, len);
    }
}

static void pieces_gathered_across_the_buffer(void **state)
{
    (void)state;
    size_t count = 9000; /* about 340 KB of text: five buffers and more */
    size_t n;
    char *got = written(fill_strings, &count, &n);
    char *want = malloc(count * 80 + 3), *o = want;
    *o++ = '[';
    for (size_t i = 0; i < count; i++) {
        if (i)
            *o++ = ',';
        *o++ = '"';
        for (size_t j = 0; j < i % 71; j++)
            *o++ = (char)('a' + (i + j) % 26);
        *o++ = '"';
    }
    *o++ = ']';
    *o = 0;
    assert_true(n > 5 * 65536);
    assert_int_equal(n, (size_t)(o - want));
    assert_memory_equal(got, want, n);
    free(got);
    free(want);
}

/* the same strings through ks_jw_str (C strings, NULL among them) and through ks_jw_strn */
static const char *const cstrings[] = {"", "aten::mm", "a\"quoted\" \\ name\n", "caf\xc3\xa9",
                                       "\xe2\x82\xac and \xf0\x9f\x98\x80", "broken \xc3", "\xff\xfe",
                                       "overlong \xc0\x80", "surrogate \xed\xa0\x80", "\x7f\x01 ctl", NULL};
#define NCSTRINGS (sizeof cstrings / sizeof cstrings[0])

static void fill_cstrings(ks_jw *w, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < NCSTRINGS; i++) {
        ks_jw_obj(w);
        ks_jw_key(w, cstrings[i] ? cstrings[i] : "(null)");
        ks_jw_str(w, cstrings[i]);
        ks_jw_end_obj(w);
    }
}

static void fill_cstrings_n(ks_jw *w, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < NCSTRINGS; i++) {
        const char *k = cstrings[i] ? cstrings[i] : "(null)";
        ks_jw_obj(w);
        ks_jw_strn(w, k, strlen(k));
        ks_jw_strn(w, cstrings[i] ? cstrings[i] : "", cstrings[i] ? strlen(cstrings[i]) : 0);
        ks_jw_end_obj(w);
    }
}

static void str_writes_what_strn_writes(void **state)
{
    (void)state;
    size_t n, m;
    char *got = written(fill_cstrings, NULL, &n);
    char *want = written(fill_cstrings_n, NULL, &m);
    assert_int_equal(n, m);
    assert_memory_equal(got, want, n);
    /* and what that is: escapes, valid UTF-8 kept, broken bytes as U+FFFD */
    assert_non_null(strstr(got, "\"caf\xc3\xa9\""));
    assert_non_null(strstr(got, "\"broken \xef\xbf\xbd\""));
    assert_non_null(strstr(got, "{\"(null)\":\"\"}"));
    assert_non_null(strstr(got, "a\\\"quoted\\\" \\\\ name\\n"));
    assert_true(ks_utf8_valid(got, n));
    free(got);
    free(want);
}

/* the reference: each byte, as RFC 3629 says (no overlongs, no surrogates, at most U+10FFFF) */
static int valid_ref(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t k;
        unsigned lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            k = 1;
        } else if (c == 0xe0) {
            k = 2, lo = 0xa0;
        } else if (c == 0xed) {
            k = 2, hi = 0x9f;
        } else if (c >= 0xe1 && c <= 0xef) {
            k = 2;
        } else if (c == 0xf0) {
            k = 3, lo = 0x90;
        } else if (c >= 0xf1 && c <= 0xf3) {
            k = 3;
        } else if (c == 0xf4) {
            k = 3, hi = 0x8f;
        } else {
            return 0;
        }
        if (i + 1 + k > n)
            return 0;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return 0;
        for (size_t j = 2; j <= k; j++)
            if (p[i + j] < 0x80 || p[i + j] > 0xbf)
                return 0;
        i += 1 + k;
    }
    return 1;
}

static void utf8_checked_by_blocks(void **state)
{
    (void)state;
    /* a valid 2-, 3- and 4-byte sequence, and broken ones, at every offset of 24 ASCII bytes */
    static const char *const seqs[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xe2\x82",
                                       "\xff", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80"};
    for (size_t q = 0; q < sizeof seqs / sizeof seqs[0]; q++)
        for (size_t at = 0; at <= 24; at++) {
            char s[40];
            memset(s, 'x', 24);
            size_t k = strlen(seqs[q]);
            memmove(s + at + k, s + at, 24 - at);
            memcpy(s + at, seqs[q], k);
            size_t n = 24 + k;
            int want = valid_ref((const unsigned char *)s, n);
            assert_int_equal(ks_utf8_valid(s, n), want);
            assert_int_equal(want, q < 3);
            size_t m;
            char *fixed = ks_utf8_sanitize(s, n, &m);
            if (want) {
                assert_null(fixed);
            } else {
                assert_non_null(fixed);
                assert_true(ks_utf8_valid(fixed, m));
                assert_non_null(strstr(fixed, "\xef\xbf\xbd")); /* U+FFFD where it was broken */
                assert_memory_equal(fixed, s, at); /* the ASCII before it kept */
                free(fixed);
            }
        }
    /* drawn strings: mostly ASCII, some high bytes, at any length */
    uint64_t x = 7;
    unsigned char b[64];
    for (int i = 0; i < 200000; i++) {
        size_t n = next(&x) % 48;
        for (size_t j = 0; j < n; j++) {
            uint64_t r = next(&x) >> 33;
            if (r % 16 == 0 && j + 4 <= n) { /* a valid sequence now and then */
                const char *v = seqs[(r >> 4) % 3];
                memcpy(b + j, v, strlen(v));
                j += strlen(v) - 1;
                continue;
            }
            b[j] = (unsigned char)(r % 16 != 1 ? 0x20 + r % 0x5f : 0x80 + (r >> 8) % 0x80);
        }
        assert_int_equal(ks_utf8_valid((const char *)b, n), valid_ref(b, n));
    }
}

/* ---- indentation: ks_jw against yajl_gen's beautify, driven through the same calls ---- */

typedef struct twin {
    ks_jw w;        /* pretty, into a memory stream */
    yajl_gen g;     /* yajl_gen itself: beautify, "  ", into its own buffer */
    uint64_t x;     /* the draw */
    int depth;
    int budget;     /* values left to draw in this document */
} twin;

static const char *const pieces[] = {"a", "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "\t",
                                     "\x01", "\x1f", "/", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                     "aten::mm", "\\\"", "\"\"", "0", "true", "null", "-1.5e3", "\b\f\r",
                                     "\x0b\x0e\x1e", "\x7f", "a/b"};
#define NPIECES (sizeof pieces / sizeof pieces[0])

static void twin_string(twin *t)
{
    char s[256];
    size_t n = 0, k = next(&t->x) % 7;
    for (size_t i = 0; i < k; i++) {
        const char *p = pieces[next(&t->x) % NPIECES];
        memcpy(s + n, p, strlen(p));
        n += strlen(p);
        if (next(&t->x) % 13 == 0)
            s[n++] = 0; /* a NUL byte inside */
    }
    ks_jw_strn(&t->w, s, n);
    assert_int_equal(yajl_gen_string(t->g, (const unsigned char *)s, n), yajl_gen_status_ok);
}

static void twin_scalar(twin *t)
{
    static const char *const numbers[] = {"0", "7", "-3", "1712195495502094500", "2.5e-07", "-0.125"};
    switch (next(&t->x) % 5) {
    case 0: twin_string(t); break;
    case 1: {
        const char *v = numbers[next(&t->x) % 6];
        ks_jw_number_text(&t->w, v, strlen(v));
        assert_int_equal(yajl_gen_number(t->g, v, strlen(v)), yajl_gen_status_ok);
        break;
    }
    case 2: {
        int v = (int)(next(&t->x) % 2);
        ks_jw_bool(&t->w, v);
        assert_int_equal(yajl_gen_bool(t->g, v), yajl_gen_status_ok);
        break;
    }
    case 3:
        ks_jw_null(&t->w);
        assert_int_equal(yajl_gen_null(t->g), yajl_gen_status_ok);
        break;
    default: {
        int64_t v = (int64_t)(next(&t->x) >> (next(&t->x) % 64)) * (next(&t->x) % 2 ? 1 : -1);
        char b[32];
        snprintf(b, sizeof b, "%lld", (long long)v);
        ks_jw_int(&t->w, v);
        assert_int_equal(yajl_gen_number(t->g, b, strlen(b)), yajl_gen_status_ok);
        break;
    }
    }
}

/* a member written by a shorthand (ks_jw_kint, kuint, kdouble, kbool, knull: written at once where
 * they can be), against yajl_gen given the key and the value apart; keys plain and not (empty,
 * UTF-8, a quote, a tab, long) */
static void twin_member_short(twin *t)
{
    static const char *const keys[] = {"a", "self_ns", "gpu.direct_sum_ns", "", "caf\xc3\xa9", "q\"uote",
                                       "tab\there", "a_rather_long_key_of_more_than_forty_bytes_all_plain"};
    static const double doubles[] = {0.1, -2.5e-7, 1e300, 123456789.0, 0.0, 5e-324};
    const char *k = keys[next(&t->x) % (sizeof keys / sizeof *keys)];
    assert_int_equal(yajl_gen_string(t->g, (const unsigned char *)k, strlen(k)), yajl_gen_status_ok);
    char b[40];
    switch (next(&t->x) % 6) {
    case 0: {
        int64_t v = (int64_t)(next(&t->x) >> (next(&t->x) % 64)) * (next(&t->x) % 2 ? 1 : -1);
        ks_jw_kint(&t->w, k, v);
        snprintf(b, sizeof b, "%lld", (long long)v);
        assert_int_equal(yajl_gen_number(t->g, b, strlen(b)), yajl_gen_status_ok);
        break;
    }
    case 1: {
        uint64_t v = next(&t->x) >> (next(&t->x) % 64);
        ks_jw_kuint(&t->w, k, v);
        snprintf(b, sizeof b, "%llu", (unsigned long long)v);
        assert_int_equal(yajl_gen_number(t->g, b, strlen(b)), yajl_gen_status_ok);
        break;
    }
    case 2: {
        uint64_t r = next(&t->x) % 8;
        double v = r < 6 ? doubles[r] : r == 6 ? NAN : -INFINITY;
        ks_jw_kdouble(&t->w, k, v);
        if (isfinite(v)) {
            snprintf(b, sizeof b, "%.6g", v);
            assert_int_equal(yajl_gen_number(t->g, b, strlen(b)), yajl_gen_status_ok);
        } else {
            assert_int_equal(yajl_gen_null(t->g), yajl_gen_status_ok);
        }
        break;
    }
    case 3: {
        int v = (int)(next(&t->x) % 2);
        ks_jw_kbool(&t->w, k, v);
        assert_int_equal(yajl_gen_bool(t->g, v), yajl_gen_status_ok);
        break;
    }
    default:
        ks_jw_knull(&t->w, k);
        assert_int_equal(yajl_gen_null(t->g), yajl_gen_status_ok);
        break;
    }
}

/* a value: a scalar, or an object or an array of 0..5 members while the budget lasts */
static void twin_value(twin *t)
{
    uint64_t r = next(&t->x) % 8;
    int scalar = t->budget <= 0 || t->depth >= 60 || r < 3;
    t->budget--;
    if (scalar) {
        twin_scalar(t);
        return;
    }
    size_t n = next(&t->x) % 6;
    t->depth++;
    if (r % 2) {
        ks_jw_obj(&t->w);
        assert_int_equal(yajl_gen_map_open(t->g), yajl_gen_status_ok);
        for (size_t i = 0; i < n; i++) {
            if (next(&t->x) % 3 == 0) {
                twin_member_short(t);
                continue;
            }
            twin_string(t); /* the key */
            twin_value(t);
        }
        ks_jw_end_obj(&t->w);
        assert_int_equal(yajl_gen_map_close(t->g), yajl_gen_status_ok);
    } else {
        ks_jw_arr(&t->w);
        assert_int_equal(yajl_gen_array_open(t->g), yajl_gen_status_ok);
        for (size_t i = 0; i < n; i++)
            twin_value(t);
        ks_jw_end_arr(&t->w);
        assert_int_equal(yajl_gen_array_close(t->g), yajl_gen_status_ok);
    }
    t->depth--;
}

/* drawn documents written by ks_jw and yajl_gen through the same calls, indented or compact */
static void twin_documents(int pretty)
{
    size_t big = 0;
    for (uint64_t doc = 0; doc < 3000; doc++) {
        twin t = {.x = doc * 7919 + 1 + (uint64_t)pretty, .budget = 200};
        char *text = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&text, &n);
        assert_non_null(f);
        ks_jw_open(&t.w, f, pretty);
        t.g = yajl_gen_alloc(NULL);
        assert_non_null(t.g);
        if (pretty) {
            yajl_gen_config(t.g, yajl_gen_beautify, 1);
            yajl_gen_config(t.g, yajl_gen_indent_string, "  ");
        }
        if (doc % 10 == 0) {
            twin_scalar(&t); /* a top-level scalar now and then */
        } else if (doc % 100 == 1) { /* a long document: the 64 KiB buffer is written many times */
            ks_jw_arr(&t.w);
            assert_int_equal(yajl_gen_array_open(t.g), yajl_gen_status_ok);
            t.budget = 40000;
            while (t.budget > 0)
                twin_value(&t);
            ks_jw_end_arr(&t.w);
            assert_int_equal(yajl_gen_array_close(t.g), yajl_gen_status_ok);
        } else if (doc % 100 == 2) { /* 40 levels: objects and arrays in turn, values beside */
            for (int d = 0; d < 40; d++) {
                if (d % 2) {
                    ks_jw_obj(&t.w);
                    assert_int_equal(yajl_gen_map_open(t.g), yajl_gen_status_ok);
                    if (d < 39)
                        twin_string(&t); /* the key of the container inside */
                } else {
                    ks_jw_arr(&t.w);
                    assert_int_equal(yajl_gen_array_open(t.g), yajl_gen_status_ok);
                    twin_value(&t);
                }
            }
            for (int d = 39; d >= 0; d--) {
                if (d % 2) {
                    twin_string(&t); /* one more member after the nested one */
                    twin_value(&t);
                    ks_jw_end_obj(&t.w);
                    assert_int_equal(yajl_gen_map_close(t.g), yajl_gen_status_ok);
                } else {
                    ks_jw_end_arr(&t.w);
                    assert_int_equal(yajl_gen_array_close(t.g), yajl_gen_status_ok);
                }
            }
        } else {
            twin_value(&t);
        }
        assert_int_equal(ks_jw_close(&t.w), 0);
        fclose(f);
        const unsigned char *want;
        size_t wn;
        assert_int_equal(yajl_gen_get_buf(t.g, &want, &wn), yajl_gen_status_ok);
        assert_int_equal(n, wn);
        assert_memory_equal(text, want, n);
        if (n > big)
            big = n;
        yajl_gen_free(t.g);
        free(text);
    }
    assert_true(big > 4 * 65536);
}

static void indented_as_yajl_gen_beautifies(void **state)
{
    (void)state;
    twin_documents(1);
}

static void compact_as_yajl_gen_writes(void **state)
{
    (void)state;
    twin_documents(0);
}

/* every byte value at every offset of strings of 1 to 24 bytes (the writer looks at 8 bytes at a
 * time for the ones it must escape or check as UTF-8): escaped as yajl_gen escapes, invalid
 * UTF-8 as U+FFFD */
static void every_byte_at_every_offset(void **state)
{
    (void)state;
    for (size_t len = 1; len <= 24; len++) {
        for (size_t at = 0; at < len; at++) {
            for (unsigned c = 0; c < 256; c++) {
                char s[32];
                memset(s, 'a', len);
                s[at] = (char)c;
                char *text = NULL;
                size_t n = 0;
                FILE *f = open_memstream(&text, &n);
                assert_non_null(f);
                ks_jw w;
                ks_jw_open(&w, f, 0);
                ks_jw_strn(&w, s, len);
                assert_int_equal(ks_jw_close(&w), 0);
                fclose(f);
                yajl_gen g = yajl_gen_alloc(NULL);
                assert_non_null(g);
                size_t m;
                char *fixed = ks_utf8_sanitize(s, len, &m);
                assert_int_equal(fixed != NULL, c >= 0x80);
                assert_int_equal(yajl_gen_string(g, (const unsigned char *)(fixed ? fixed : s), fixed ? m : len),
                                 yajl_gen_status_ok);
                const unsigned char *want;
                size_t wn;
                assert_int_equal(yajl_gen_get_buf(g, &want, &wn), yajl_gen_status_ok);
                assert_int_equal(n, wn);
                assert_memory_equal(text, want, n);
                yajl_gen_free(g);
                free(fixed);
                free(text);
            }
        }
    }
}

/* calls out of place: the writer fails (ks_jw_close: -1) where yajl_gen refuses, and writes
 * what yajl_gen writes, nothing for the refused call */
static void refused_as_yajl_gen_refuses(void **state)
{
    (void)state;
    for (int c = 0; c < 8; c++) {
        for (int pretty = 0; pretty < 2; pretty++) {
            char *text = NULL;
            size_t n = 0;
            FILE *f = open_memstream(&text, &n);
            assert_non_null(f);
            ks_jw w;
            ks_jw_open(&w, f, pretty);
            yajl_gen g = yajl_gen_alloc(NULL);
            assert_non_null(g);
            if (pretty) {
                yajl_gen_config(g, yajl_gen_beautify, 1);
                yajl_gen_config(g, yajl_gen_indent_string, "  ");
            }
            int refused = 0;
#define BOTH(jw, gen) do { jw; refused |= (gen) != yajl_gen_status_ok; } while (0)
            switch (c) {
            case 0: /* a number where a key is expected */
                BOTH(ks_jw_obj(&w), yajl_gen_map_open(g));
                BOTH(ks_jw_int(&w, 1), yajl_gen_number(g, "1", 1));
                BOTH(ks_jw_end_obj(&w), yajl_gen_map_close(g));
                break;
            case 1: /* null, a bool, an object, an array where a key is expected, after a member */
                BOTH(ks_jw_obj(&w), yajl_gen_map_open(g));
                BOTH(ks_jw_kint(&w, "a", 1), (yajl_gen_string(g, (const unsigned char *)"a", 1), yajl_gen_number(g, "1", 1)));
                BOTH(ks_jw_null(&w), yajl_gen_null(g));
                BOTH(ks_jw_bool(&w, 1), yajl_gen_bool(g, 1));
                BOTH(ks_jw_obj(&w), yajl_gen_map_open(g));
                BOTH(ks_jw_arr(&w), yajl_gen_array_open(g));
                BOTH(ks_jw_end_obj(&w), yajl_gen_map_close(g));
                break;
            case 2: /* a second top-level value */
                BOTH(ks_jw_int(&w, 7), yajl_gen_number(g, "7", 1));
                BOTH(ks_jw_str(&w, "x"), yajl_gen_string(g, (const unsigned char *)"x", 1));
                break;
            case 3: /* a second top-level container */
                BOTH(ks_jw_arr(&w), yajl_gen_array_open(g));
                BOTH(ks_jw_end_arr(&w), yajl_gen_array_close(g));
                BOTH(ks_jw_obj(&w), yajl_gen_map_open(g));
                break;
            case 4: /* a close after the top-level value is complete */
                BOTH(ks_jw_arr(&w), yajl_gen_array_open(g));
                BOTH(ks_jw_end_arr(&w), yajl_gen_array_close(g));
                BOTH(ks_jw_end_arr(&w), yajl_gen_array_close(g));
                break;
            case 5: /* 127 levels open: the 128th is refused */
                for (int d = 0; d < 128; d++)
                    BOTH(ks_jw_arr(&w), yajl_gen_array_open(g));
                break;
            case 6: /* a string where a key is expected is the key */
                BOTH(ks_jw_obj(&w), yajl_gen_map_open(g));
                BOTH(ks_jw_str(&w, "k"), yajl_gen_string(g, (const unsigned char *)"k", 1));
                BOTH(ks_jw_key(&w, "v"), yajl_gen_string(g, (const unsigned char *)"v", 1));
                BOTH(ks_jw_end_obj(&w), yajl_gen_map_close(g));
                break;
            default: /* a top-level string and number alone */
                BOTH(ks_jw_double(&w, 0.25), yajl_gen_number(g, "0.25", 4));
                break;
            }
#undef BOTH
            assert_int_equal(ks_jw_close(&w), refused ? -1 : 0);
            assert_int_equal(refused, c < 6);
            fclose(f);
            const unsigned char *want;
            size_t wn;
            assert_int_equal(yajl_gen_get_buf(g, &want, &wn), yajl_gen_status_ok);
            if (c != 5) { /* yajl_gen's text after its depth refusal is its own */
                assert_int_equal(n, wn);
                assert_memory_equal(text, want, n);
            }
            yajl_gen_free(g);
            free(text);
        }
    }
}

/* ---- compact text and atoms at once ----------------------------------------------------------- */

/* a drawn compact text as the parser keeps shape args: nested arrays of numbers, literals and
 * strings of any bytes ('"' and '\\' escaped by a backslash, control bytes as \u00xx) */
static void draw_compact(uint64_t *x, char *out, size_t *n, int depth)
{
    out[(*n)++] = '[';
    int k = (int)(next(x) >> 60) % 6;
    for (int i = 0; i < k; i++) {
        if (i)
            out[(*n)++] = ',';
        int kind = (int)(next(x) >> 61);
        if (kind < 2 && depth < 4)
            draw_compact(x, out, n, depth + 1);
        else if (kind < 4) {
            out[(*n)++] = '"';
            int len = (int)(next(x) >> 60);
            for (int j = 0; j < len; j++) {
                unsigned char c = (unsigned char)(next(x) >> 56);
                if (next(x) >> 62) /* mostly plain letters */
                    c = (unsigned char)('a' + c % 26);
                if (c == '"' || c == '\\') {
                    out[(*n)++] = '\\';
                    out[(*n)++] = (char)c;
                } else if (c < 0x20)
                    *n += (size_t)sprintf(out + *n, "\\u%04x", c);
                else
                    out[(*n)++] = (char)c;
            }
            out[(*n)++] = '"';
        } else if (kind == 4) {
            static const char *const lit[] = {"true", "false", "null"};
            const char *l = lit[next(x) % 3];
            memcpy(out + *n, l, strlen(l));
            *n += strlen(l);
        } else
            *n += (size_t)sprintf(out + *n, "%lld", (long long)(int64_t)(next(x) >> 40) - 8000000);
    }
    out[(*n)++] = ']';
}

/* the reference: the text's tokens through the public calls one by one */
static size_t walk_tokens(ks_jw *w, const char *s, size_t n)
{
    if (s[0] == '[') {
        size_t i = 1;
        ks_jw_arr(w);
        while (s[i] != ']')
            i += s[i] == ',' ? 1 : walk_tokens(w, s + i, n - i);
        ks_jw_end_arr(w);
        return i + 1;
    }
    if (s[0] == '"') {
        char buf[256];
        size_t i = 1, m = 0;
        while (s[i] != '"') {
            if (s[i] == '\\' && s[i + 1] == 'u') {
                char h[3] = {s[i + 4], s[i + 5], 0};
                buf[m++] = (char)strtol(h, NULL, 16);
                i += 6;
            } else if (s[i] == '\\') {
                buf[m++] = s[i + 1];
                i += 2;
            } else
                buf[m++] = s[i++];
        }
        ks_jw_strn(w, buf, m);
        return i + 1;
    }
    size_t e = 0;
    while (e < n && s[e] != ',' && s[e] != ']')
        e++;
    if (!memcmp(s, "null", 4))
        ks_jw_null(w);
    else if (!memcmp(s, "true", 4) || !memcmp(s, "false", 5))
        ks_jw_bool(w, s[0] == 't');
    else
        ks_jw_number_text(w, s, e);
    return e;
}

/* the reference for one compact text: its tokens written one by one by a compact writer (the one
 * line ks_jw_compact writes, indented or not), put in place as an atom's text */
static void one_line(ks_jw *w, const char *s, size_t n)
{
    char *c = NULL;
    size_t cn = 0;
    FILE *f = open_memstream(&c, &cn);
    assert_non_null(f);
    ks_jw r;
    ks_jw_open(&r, f, 0);
    walk_tokens(&r, s, n);
    assert_int_equal(ks_jw_close(&r), 0);
    fclose(f);
    ks_jw_number_text(w, c, cn);
    free(c);
}

/* a sink that logs each token as a line: what ks_jw_compact gave it against the calls one by one */
static void log_open(void *c, int a) { fprintf(c, "%c\n", a ? '[' : '{'); }
static void log_close(void *c, int a) { fprintf(c, "%c\n", a ? ']' : '}'); }
static void log_key(void *c, const char *s, size_t n) { fprintf(c, "k%zu:", n), fwrite(s, 1, n, c), fputc('\n', c); }
static void log_str(void *c, const char *s, size_t n) { fprintf(c, "s%zu:", n), fwrite(s, 1, n, c), fputc('\n', c); }
static void log_i(void *c, int64_t v) { fprintf(c, "i%lld\n", (long long)v); }
static void log_u(void *c, uint64_t v) { fprintf(c, "u%llu\n", (unsigned long long)v); }
static void log_d(void *c, double v) { fprintf(c, "d%.17g\n", v); }
static void log_b(void *c, int v) { fprintf(c, "b%d\n", v); }
static void log_null(void *c) { fputs("null\n", c); }
static void log_num(void *c, const char *s, size_t n) { fputc('n', c), fwrite(s, 1, n, c), fputc('\n', c); }

/* the tokens the sink of a writer got for texts[], written (compact 1) by ks_jw_compact or else
 * one by one */
static char *sink_log(char *const *texts, const size_t *lens, size_t nt, int compact, size_t *len)
{
    char *log = NULL, *text = NULL;
    size_t nlog = 0, ntext = 0;
    FILE *lf = open_memstream(&log, &nlog), *tf = open_memstream(&text, &ntext);
    assert_non_null(lf);
    assert_non_null(tf);
    ks_jw_sink sink = {log_open, log_close, log_key, log_str, log_i, log_u, log_d, log_b, log_null, log_num, lf};
    ks_jw_capture(tf, &sink);
    ks_jw w;
    ks_jw_open(&w, tf, 1);
    ks_jw_capture(NULL, NULL);
    ks_jw_arr(&w);
    for (size_t i = 0; i < nt; i++)
        if (compact)
            ks_jw_compact(&w, texts[i], lens[i]);
        else
            walk_tokens(&w, texts[i], lens[i]);
    ks_jw_end_arr(&w);
    assert_int_equal(ks_jw_close(&w), 0);
    fclose(tf);
    fclose(lf);
    free(text);
    *len = nlog;
    return log;
}

static void sink_nop_open(void *c, int a) { (void)c; (void)a; }
static void sink_nop_s(void *c, const char *s, size_t n) { (void)c; (void)s; (void)n; }
static void sink_nop_i(void *c, int64_t v) { (void)c; (void)v; }
static void sink_nop_u(void *c, uint64_t v) { (void)c; (void)v; }
static void sink_nop_d(void *c, double v) { (void)c; (void)v; }
static void sink_nop_b(void *c, int v) { (void)c; (void)v; }
static void sink_count(void *c) { (*(size_t *)c)++; }

#define LONG_KEY "a_key_longer_than_the_text_a_writer_keeps_for_a_key_at_any_depth_" \
                 "____________________________________________________"

/* the members at[0..n): at once (mode 1, 2: ks_jw_katoms) or one call each (mode 0) */
static void members(ks_jw *w, const ks_jw_atom *at, size_t n, int mode)
{
    if (mode) {
        ks_jw_katoms(w, at, n);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        ks_jw_key(w, at[k].key);
        if (at[k].str)
            ks_jw_strn(w, at[k].val, at[k].vlen);
        else if (at[k].raw)
            one_line(w, at[k].val, at[k].vlen);
        else if (!strcmp(at[k].val, "null"))
            ks_jw_null(w);
        else
            ks_jw_number_text(w, at[k].val, at[k].vlen);
    }
}

/* one document: texts[] written (mode 0 the reference one line, 1 ks_jw_compact, 2 ks_jw_compact with a
 * sink) as array elements, as member values and after atoms written by ks_jw_katoms (or, mode 0,
 * ks_jw_key and ks_jw_number_text/ks_jw_null), pretty or not */
static char *compact_doc(char *const *texts, const size_t *lens, size_t nt, int pretty, int mode, size_t *len)
{
    char *text = NULL;
    size_t n = 0, nulls = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    ks_jw_sink sink = {sink_nop_open, sink_nop_open, sink_nop_s, sink_nop_s, sink_nop_i, sink_nop_u,
                       sink_nop_d, sink_nop_b, sink_count, sink_nop_s, &nulls};
    if (mode == 2)
        ks_jw_capture(f, &sink);
    ks_jw w;
    ks_jw_open(&w, f, pretty);
    ks_jw_capture(NULL, NULL);
    ks_jw_arr(&w);
    for (size_t i = 0; i < nt; i++) {
        if (mode)
            ks_jw_compact(&w, texts[i], lens[i]);
        else
            one_line(&w, texts[i], lens[i]);
        ks_jw_obj(&w);
        char num[32];
        int nn = snprintf(num, sizeof num, "%zu", i * 7919);
        /* a string member: plain, or (every seventh) one that needs escapes and repair */
        const char *sv = i % 7 ? "aten::mm" : "a\"b\n\xff";
        /* numbers, null, a string, compact text (raw) and a key too long for the kept key texts */
        ks_jw_atom at[6] = {{"count", num, (size_t)nn, 5, 0, 0},
                            {"rate", "null", 4, 4, 0, 0},
                            {"op", sv, strlen(sv), 2, 1, 0},
                            {"x_y", "1.5e-07", 7, 3, 0, 0},
                            {"shape", texts[i], lens[i], 5, 0, 1},
                            {LONG_KEY, "1", 1, sizeof LONG_KEY - 1, 0, 0}};
        members(&w, at, i % 7, mode);
        /* the same keys a level deeper: what the writer keeps per key is kept per depth too */
        ks_jw_key(&w, "inner");
        ks_jw_obj(&w);
        members(&w, at, (i + 3) % 7, mode);
        ks_jw_end_obj(&w);
        ks_jw_key(&w, "dims");
        if (mode)
            ks_jw_compact(&w, texts[i], lens[i]);
        else
            one_line(&w, texts[i], lens[i]);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    assert_int_equal(ks_jw_close(&w), 0);
    fclose(f);
    if (mode == 2)
        assert_true(nulls > 0);
    *len = n;
    return text;
}

/* one document of 600 objects of 1 to 20 members, their keys drawn from 200 (at any position, a
 * key at one position in one object at another in the next, more keys than the writer keeps texts
 * for: kept texts replaced), every third object a level deeper, every fourth after a member
 * written alone; at once (mode 1) or one call each */
static char *shifting_keys_doc(int pretty, int mode, size_t *len)
{
    static char keys[200][8];
    for (int k = 0; k < 200; k++)
        snprintf(keys[k], sizeof keys[k], "k%03d", k);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    ks_jw w;
    ks_jw_open(&w, f, pretty);
    ks_jw_arr(&w);
    uint64_t x = 99;
    for (size_t r = 0; r < 600; r++) {
        size_t m = 1 + r % 20, first = (size_t)(next(&x) >> 33) % 200;
        ks_jw_atom at[20];
        for (size_t j = 0; j < m; j++) /* m distinct keys from first, in a drawn step */
            at[j] = (ks_jw_atom){keys[(first + j * (r % 3 ? 1 : 7)) % 200], "12", 2, 4, 0, 0};
        ks_jw_obj(&w);
        if (r % 3 == 2) {
            ks_jw_key(&w, "deeper");
            ks_jw_obj(&w);
        }
        if (r % 4 == 1) /* a member before them: a separator before the first */
            ks_jw_kint(&w, "before", (int64_t)r);
        members(&w, at, m, mode);
        if (r % 3 == 2)
            ks_jw_end_obj(&w);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    assert_int_equal(ks_jw_close(&w), 0);
    fclose(f);
    *len = n;
    return text;
}

/* ks_jw_katoms keeps the text before each member by key and looks first where the member at the same
 * position found its text the call before: keys that move between positions, texts replaced by
 * others' and another depth must still write what the calls one by one write */
static void katoms_keys_that_move(void **state)
{
    (void)state;
    for (int pretty = 0; pretty < 2; pretty++) {
        size_t n0, n1;
        char *want = shifting_keys_doc(pretty, 0, &n0), *got = shifting_keys_doc(pretty, 1, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(want, got, n0);
        free(want);
        free(got);
    }
}

/* ks_jw_compact writes each text as one line, byte for byte what the calls one by one write
 * compact, and gives a sink the tokens the calls one by one give it; ks_jw_katoms writes what the calls one by one write; indented or not, with a
 * sink or without, across the 64 KiB buffer (4 000 drawn texts) */
static void compact_text_as_its_tokens_write(void **state)
{
    (void)state;
    enum { NT = 4000 };
    char **texts = calloc(NT, sizeof *texts);
    size_t *lens = calloc(NT, sizeof *lens);
    uint64_t x = 12345;
    for (size_t i = 0; i < NT; i++) {
        texts[i] = malloc(1 << 16);
        if (i % 500 == 7) { /* deeper than the writer's room estimate, and a string inside */
            size_t n = 0;
            for (int k = 0; k < 20; k++)
                texts[i][n++] = '[';
            memcpy(texts[i] + n, "1,\"a\\u0001\",[]", 14);
            n += 14;
            for (int k = 0; k < 20; k++)
                texts[i][n++] = ']';
            lens[i] = n;
        } else if (i % 777 == 5) { /* longer than one buffer's room */
            size_t n = 0;
            texts[i][n++] = '[';
            for (int k = 0; k < 6000; k++)
                n += (size_t)sprintf(texts[i] + n, "%s%d", k ? "," : "", k);
            texts[i][n++] = ']';
            lens[i] = n;
        } else
            draw_compact(&x, texts[i], &lens[i], 0);
    }
    for (int pretty = 0; pretty < 2; pretty++) {
        size_t n0, n1, n2;
        char *want = compact_doc(texts, lens, NT, pretty, 0, &n0);
        char *got = compact_doc(texts, lens, NT, pretty, 1, &n1);
        char *got2 = compact_doc(texts, lens, NT, pretty, 2, &n2);
        assert_true(n0 > 65536);
        assert_int_equal(n0, n1);
        assert_memory_equal(want, got, n0);
        assert_int_equal(n0, n2);
        assert_memory_equal(want, got2, n0);
        free(want);
        free(got);
        free(got2);
    }
    size_t l0, l1;
    char *want = sink_log(texts, lens, NT, 0, &l0), *got = sink_log(texts, lens, NT, 1, &l1);
    assert_true(l0 > 65536);
    assert_int_equal(l0, l1);
    assert_memory_equal(want, got, l0);
    free(want);
    free(got);
    for (size_t i = 0; i < NT; i++)
        free(texts[i]);
    free(texts);
    free(lens);
}

/* Compact texts written as members named in line_keys, parsed and written back by ks_jw_tree_lines,
 * come out byte for byte, indented or not (a summary's analyze report): 2 000 drawn texts with
 * escapes, control bytes and bytes that are not UTF-8 (repaired when first written); without the
 * key list the same document comes out in the calls' indentation instead. */
static void tree_lines_write_back(void **state)
{
    (void)state;
    enum { NT = 2000 };
    static const char *const line_keys[] = {"dims", NULL};
    uint64_t x = 777;
    for (int pretty = 0; pretty < 2; pretty++) {
        char *text = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&text, &n);
        ks_jw w;
        ks_jw_open(&w, f, pretty);
        ks_jw_arr(&w);
        char buf[1 << 14];
        for (size_t i = 0; i < NT; i++) {
            size_t len = 0;
            draw_compact(&x, buf, &len, 0);
            buf[len] = 0;
            if (strstr(buf, "\\u0000")) /* a NUL inside a string: a tree's C strings end there */
                continue;
            ks_jw_obj(&w);
            ks_jw_kint(&w, "n", (int64_t)i);
            ks_jw_key(&w, "dims");
            ks_jw_compact(&w, buf, len);
            ks_jw_key(&w, "other"); /* the same value by the calls one by one: not a line key */
            walk_tokens(&w, buf, len);
            ks_jw_end_obj(&w);
        }
        ks_jw_end_arr(&w);
        assert_int_equal(ks_jw_close(&w), 0);
        fclose(f);
        char err[256];
        yajl_val v = yajl_tree_parse(text, err, sizeof err);
        assert_non_null(v);
        for (int lines = 0; lines < 2; lines++) {
            char *back = NULL;
            size_t nb = 0;
            FILE *g = open_memstream(&back, &nb);
            ks_jw b;
            ks_jw_open(&b, g, pretty);
            if (lines)
                ks_jw_tree_lines(&b, v, line_keys);
            else
                ks_jw_tree(&b, v);
            assert_int_equal(ks_jw_close(&b), 0);
            fclose(g);
            if (lines || !pretty) { /* compact: no line to keep */
                assert_int_equal(nb, n);
                assert_memory_equal(back, text, n);
            } else
                assert_true(nb > n);
            free(back);
        }
        yajl_tree_free(v);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_as_printf_writes_them),
        cmocka_unit_test(pieces_gathered_across_the_buffer),
        cmocka_unit_test(str_writes_what_strn_writes),
        cmocka_unit_test(utf8_checked_by_blocks),
        cmocka_unit_test(indented_as_yajl_gen_beautifies),
        cmocka_unit_test(compact_as_yajl_gen_writes),
        cmocka_unit_test(refused_as_yajl_gen_refuses),
        cmocka_unit_test(every_byte_at_every_offset),
        cmocka_unit_test(compact_text_as_its_tokens_write),
        cmocka_unit_test(katoms_keys_that_move),
        cmocka_unit_test(tree_lines_write_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
