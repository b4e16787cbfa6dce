/* common/jsonw.h: a small JSON writer over yajl_gen for every report writer. Numbers are written
 * from our own text (integers exactly, doubles with "%.6g" in the C locale), never with
 * yajl_gen_double's "%.20g"; invalid UTF-8 in names is written as U+FFFD rather than failing. */
#ifndef KS_JSONW_H
#define KS_JSONW_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

typedef struct ks_jw {
    yajl_gen g;
    FILE *out;   /* when writing to a FILE */
    int failed;  /* a generator call failed (reported once by ks_jw_close) */
    char *buf;   /* yajl_gen's many small pieces, gathered before they go to out */
    size_t nbuf;
    /* indentation (pretty): the nesting depth, and where yajl_gen's compact pieces stand */
    unsigned depth;
    unsigned char in_str;      /* inside a string */
    unsigned char indent_next; /* a new line was started: the next key or value is indented */
    unsigned char final_nl;    /* a top-level number or literal: its new line comes at close */
} ks_jw;

/* Start a writer on a FILE (pretty: indented output). */
void ks_jw_open(ks_jw *w, FILE *out, int pretty);
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
/* Write raw, already valid JSON number text. */
void ks_jw_number_text(ks_jw *w, const char *s, size_t n);

/* Write a parsed yajl tree (yajl_val) back, token for token: numbers from their own text, keys
 * and members in their order, so a document written by this writer, parsed and written again at
 * the same depth, comes out byte for byte as it was (summaries keep analyze's JSON this way). */
struct yajl_val_s;
void ks_jw_tree(ks_jw *w, const struct yajl_val_s *v);

/* key + value shorthands */
void ks_jw_kstr(ks_jw *w, const char *k, const char *s);
void ks_jw_kint(ks_jw *w, const char *k, int64_t v);
void ks_jw_kuint(ks_jw *w, const char *k, uint64_t v);
void ks_jw_kdouble(ks_jw *w, const char *k, double v);
void ks_jw_kbool(ks_jw *w, const char *k, int v);
void ks_jw_knull(ks_jw *w, const char *k);
void ks_jw_kints(ks_jw *w, const char *k, const int64_t *v, size_t n); /* "k": [v0, ...] */

/* Copy s into dst replacing invalid UTF-8 sequences with U+FFFD; returns dst (malloc'ed) or
 * NULL when s is already valid (then use s as is). */
char *ks_utf8_sanitize(const char *s, size_t n, size_t *outlen);
/* 1 when n bytes at s are valid UTF-8. */
int ks_utf8_valid(const char *s, size_t n);

#endif
