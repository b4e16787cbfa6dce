/* common/jsonw.h: a small JSON writer for every report writer. It writes what yajl_gen writes
 * (compact, or indented by two spaces as yajl_gen's beautify indents; strings escaped as
 * yajl_string_encode escapes them), without yajl_gen's calls per piece. Numbers are written from
 * our own text (integers exactly, doubles as "%.6g" writes them in the C locale:
 * common/fmtg.h), never with yajl_gen_double's "%.20g"; invalid UTF-8 in names is written as
 * U+FFFD rather than failing. */
#ifndef KS_JSONW_H
#define KS_JSONW_H

#include <stdint.h>
#include <stdio.h>

#include "common/limits.h"

/* A consumer of a writer's values beside its text (report/tables.c builds tables from them): each
 * call gets a value as the writer was given it (integers exact, doubles whole, strings after the
 * UTF-8 repair), keys apart from strings. A non-finite double comes as null, as it is written. */
typedef struct ks_jw_sink {
    void (*open)(void *ctx, int array);  /* { (0) or [ (1) */
    void (*close)(void *ctx, int array); /* } or ] */
    void (*key)(void *ctx, const char *s, size_t n);
    void (*str)(void *ctx, const char *s, size_t n);
    void (*i64)(void *ctx, int64_t v);
    void (*u64)(void *ctx, uint64_t v);
    void (*dbl)(void *ctx, double v);
    void (*boolean)(void *ctx, int v);
    void (*null)(void *ctx);
    void (*number_text)(void *ctx, const char *s, size_t n); /* raw number text (ks_jw_tree) */
    void *ctx;
} ks_jw_sink;

typedef struct ks_jw {
    const ks_jw_sink *sink; /* when not NULL, every value goes there too (ks_jw_capture) */
    FILE *out;   /* when writing to a FILE */
    int failed;  /* a call out of place or a write failed (reported once by ks_jw_close) */
    char *buf;   /* the text, gathered before it goes to out */
    size_t nbuf;
    unsigned depth;            /* containers open */
    unsigned char pretty;      /* indented */
    unsigned char indent_next; /* a new line was started: the next key or value is indented */
    unsigned char st[KS_LIMIT_JW_DEPTH]; /* what each level expects next (jsonw.c) */
    struct ks_jw_kcache *kc;   /* ks_jw_katoms's keys as written, by address and depth (jsonw.c) */
} ks_jw;

/* Start a writer on a FILE (pretty: indented output). A writer opened on the stream given to
 * ks_jw_capture by the same thread feeds that sink too. */
void ks_jw_open(ks_jw *w, FILE *out, int pretty);
/* Until called again (s NULL: no more), every writer this thread opens on out sends its values to
 * s as well as writing them: the public writers that take a FILE (ks_analyze_json_begin,
 * ks_diff_json, ...) give their values to a sink without a change of their own. */
void ks_jw_capture(FILE *out, const ks_jw_sink *s);
/* Finish: writes what is gathered, flushes, frees; returns 0 or -1 when anything failed. */
int ks_jw_close(ks_jw *w);

void ks_jw_obj(ks_jw *w);     /* { */
void ks_jw_end_obj(ks_jw *w); /* } */
void ks_jw_arr(ks_jw *w);     /* [ */
void ks_jw_end_arr(ks_jw *w); /* ] */
void ks_jw_key(ks_jw *w, const char *k);
void ks_jw_str(ks_jw *w, const char *s);
void ks_jw_strn(ks_jw *w, const char *s, size_t n);
void ks_jw_int(ks_jw *w, int64_t v);
void ks_jw_uint(ks_jw *w, uint64_t v);
void ks_jw_double(ks_jw *w, double v); /* NaN/inf -> null */
void ks_jw_bool(ks_jw *w, int v);
void ks_jw_null(ks_jw *w);
/* The text ks_jw_int writes for v ("%lld" without printf) into b (20 bytes hold it, no NUL);
 * its length. ks_jw_uint_text: ks_jw_uint's ("%llu"). */
size_t ks_jw_int_text(char *b, int64_t v);
size_t ks_jw_uint_text(char *b, uint64_t v);
/* Write raw, already valid JSON number text. */
void ks_jw_number_text(ks_jw *w, const char *s, size_t n);

/* Write a parsed yajl tree (yajl_val) back, token for token: numbers from their own text, keys
 * and members in their order, so a document written by this writer, parsed and written again at
 * the same depth, comes out byte for byte as it was (summaries keep analyze's JSON this way). */
struct yajl_val_s;
void ks_jw_tree(ks_jw *w, const struct yajl_val_s *v);
/* The same, where the members named in line_keys (NULL-terminated) that hold an array were written
 * by ks_jw_compact: on one line again, so that the document still comes out byte for byte. */
void ks_jw_tree_lines(ks_jw *w, const struct yajl_val_s *v, const char *const *line_keys);

/* key + value shorthands */
void ks_jw_kstr(ks_jw *w, const char *k, const char *s);
void ks_jw_kint(ks_jw *w, const char *k, int64_t v);
void ks_jw_kuint(ks_jw *w, const char *k, uint64_t v);
void ks_jw_kdouble(ks_jw *w, const char *k, double v);
void ks_jw_kbool(ks_jw *w, const char *k, int v);
void ks_jw_knull(ks_jw *w, const char *k);
void ks_jw_kints(ks_jw *w, const char *k, const int64_t *v, size_t n); /* "k": [v0, ...] */

/* Compact JSON text of arrays, numbers, literals and strings, without objects or white space, its
 * strings escaping only '"', '\\' and control bytes (as \u00XX): the parser's shape args. Written
 * as the value it is, on one line as compact output writes it, also when indented (a shape reads
 * as one line); its strings escaped and repaired as ks_jw_strn does. A sink gets its tokens as the
 * calls one by one give them. */
void ks_jw_compact(ks_jw *w, const char *s, size_t n);

/* A member whose value is an atom's text: a number as it is to be written, or "null"; or, str set,
 * a string; or, raw set, compact text as ks_jw_compact takes it. The key is plain ASCII without
 * escapes, of static storage (a report's own key, a literal: the writer keeps the text it writes
 * before the value by the key's address); klen and vlen its and the value's lengths. */
typedef struct ks_jw_atom {
    const char *key, *val;
    size_t vlen;
    uint8_t klen, str, raw;
} ks_jw_atom;
/* The members at once: what ks_jw_key and ks_jw_number_text (ks_jw_null, ks_jw_strn,
 * ks_jw_compact) write for each. */
void ks_jw_katoms(ks_jw *w, const ks_jw_atom *m, size_t n);

/* Copy s into dst replacing invalid UTF-8 sequences with U+FFFD; returns dst (malloc'ed) or
 * NULL when s is already valid (then use s as is). */
char *ks_utf8_sanitize(const char *s, size_t n, size_t *outlen);
/* 1 when n bytes at s are valid UTF-8. */
int ks_utf8_valid(const char *s, size_t n);

#endif
