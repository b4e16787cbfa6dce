/* tests/ks_test.h: what the cmocka tests share: includes, and helpers to parse a JSON text or a
 * fixture file into a trace. */
#ifndef KS_TEST_H
#define KS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/util.h"
#include "kinesift/parse.h"

/* xorshift64 for the tests that damage their inputs: a fixed seed per test, the same damage on
 * every run. */
static inline uint64_t ks_test_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Damage b[0..n) in place: `edits` times, overwrite, insert or delete one byte drawn from pool (a
 * NUL-terminated list of the bytes that matter to a JSON reader). b must have room for n + edits
 * bytes; returns the new length. */
static inline size_t ks_test_damage(char *b, size_t n, const char *pool, int edits, uint64_t *s)
{
    size_t np = strlen(pool);
    for (int k = 0; k < edits && n > 1; k++) {
        size_t at = (size_t)(ks_test_rnd(s) % n);
        char c = pool[ks_test_rnd(s) % np];
        switch (ks_test_rnd(s) % 3) {
        case 0: b[at] = c; break;
        case 1: memmove(b + at + 1, b + at, n - at); b[at] = c; n++; break;
        default: memmove(b + at, b + at + 1, n - at - 1); n--; break;
        }
    }
    return n;
}

/* Parse a NUL-terminated JSON text; fails the test on error. */
static inline ks_trace *ks_test_parse(const char *json)
{
    ks_error err;
    ks_trace *t = NULL;
    if (ks_parse_buffer("test", json, strlen(json), NULL, &t, &err) != KS_OK) {
        char b[800];
        ks_error_format(&err, b, sizeof b);
        fail_msg("parse failed: %s", b);
    }
    return t;
}

/* Parse and expect an error; returns the error. */
static inline ks_error ks_test_parse_error(const char *json, int strict)
{
    ks_error err;
    memset(&err, 0, sizeof err);
    ks_trace *t = NULL;
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.strict = strict;
    if (ks_parse_buffer("test", json, strlen(json), &o, &t, &err) == KS_OK) {
        ks_trace_free(t);
        fail_msg("parse should have failed");
    }
    return err;
}

/* Full path of a file under fixtures/ (static buffer). */
static inline const char *ks_fixture(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", KS_FIXTURES, rel);
    return buf;
}

/* Parse the first trace of a file; fails the test on error. */
static inline ks_trace *ks_test_load(const char *path)
{
    ks_error err;
    ks_source *src;
    ks_stream *st;
    ks_trace *t = NULL;
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &st, &err) != 1)
        fail_msg("%s: %s", path, err.msg);
    if (ks_parse_stream(st, NULL, &t, &err) != KS_OK) {
        char b[800];
        ks_error_format(&err, b, sizeof b);
        fail_msg("%s: %s", path, b);
    }
    ks_source_close(src);
    return t;
}

/* The only track with this (int pid, int tid); fails when absent. */
static inline const ks_track *ks_test_track(const ks_trace *t, int64_t pid, int64_t tid)
{
    ks_id p = {pid, KS_ID_INT}, q = {tid, KS_ID_INT};
    uint32_t i;
    if (!ks_trace_track_find(t, p, q, &i))
        fail_msg("no track pid %lld tid %lld", (long long)pid, (long long)tid);
    return &t->tracks[i];
}

#endif
