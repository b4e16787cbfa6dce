/* redact/check.c: `kinesift redact --check`: the findings of every trace of an input (the first
 * few in detail, all of them counted per rule), read a second time when literals were learned
 * late, and printed as text or JSON. A finding names the rule, the class, the event index, the
 * JSON path and the byte offset, and the value's length: never the value. */
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "redact/redact_int.h"

typedef struct detail {
    const char *rule, *cls; /* static or owned by the redactor */
    int64_t event;
    char *path;
    uint64_t byte;
    size_t length;
    int in_key;
} detail;

typedef struct rule_count {
    const char *rule, *cls;
    uint64_t n;
} rule_count;

typedef struct chk_trace {
    char *source;
    uint64_t total;
    detail *d;
    size_t nd, dcap, max_detail;
    rule_count *rc;
    size_t nrc, rccap;
    int passes;
    int late_unchecked;   /* literals learned late in a stream that cannot be read again */
    char *path;           /* the input and the stream's index in it, for reading it again */
    size_t member;
    uint64_t known;       /* literals known when it was last checked */
    char *error;
} chk_trace;

struct ks_redact_check {
    chk_trace *v;
    size_t n, cap;
};

ks_redact_check *ks_redact_check_new(void)
{
    return ks_xcalloc(1, sizeof(ks_redact_check));
}

static void trace_clear(chk_trace *t)
{
    for (size_t i = 0; i < t->nd; i++)
        free(t->d[i].path);
    free(t->d);
    free(t->rc);
    t->d = NULL;
    t->rc = NULL;
    t->nd = t->dcap = t->nrc = t->rccap = 0;
    t->total = 0;
}

void ks_redact_check_free(ks_redact_check *chk)
{
    if (!chk)
        return;
    for (size_t i = 0; i < chk->n; i++) {
        trace_clear(&chk->v[i]);
        free(chk->v[i].source);
        free(chk->v[i].path);
        free(chk->v[i].error);
    }
    free(chk->v);
    free(chk);
}

uint64_t ks_redact_check_total(const ks_redact_check *chk)
{
    uint64_t t = 0;
    for (size_t i = 0; i < chk->n; i++)
        t += chk->v[i].total;
    return t;
}

static void on_finding(void *ctx, const ks_redact_finding *f)
{
    chk_trace *t = ctx;
    t->total++;
    size_t i = 0;
    while (i < t->nrc && strcmp(t->rc[i].rule, f->rule))
        i++;
    if (i == t->nrc) {
        KS_GROW(t->rc, t->rccap, t->nrc + 1);
        t->rc[t->nrc].rule = f->rule;
        t->rc[t->nrc].cls = f->cls;
        t->rc[t->nrc].n = 0;
        t->nrc++;
    }
    t->rc[i].n++;
    if (t->nd >= t->max_detail)
        return;
    KS_GROW(t->d, t->dcap, t->nd + 1);
    detail *d = &t->d[t->nd++];
    d->rule = f->rule;
    d->cls = f->cls;
    d->event = f->event;
    d->path = ks_xstrdup(f->path);
    d->byte = f->byte;
    d->length = f->length;
    d->in_key = f->in_key;
}

static chk_trace *new_trace(ks_redact_check *chk, const char *source, size_t max_detail)
{
    KS_GROW(chk->v, chk->cap, chk->n + 1);
    chk_trace *t = &chk->v[chk->n++];
    memset(t, 0, sizeof *t);
    t->source = ks_xstrdup(source);
    t->max_detail = max_detail;
    t->passes = 1;
    return t;
}

/* stream number k of path, opened again */
static int reopen(const char *path, size_t k, ks_source **src, ks_stream **st, ks_error *err)
{
    if (ks_source_open(path, src, err) != KS_OK)
        return KS_ERR;
    int r = 1;
    for (size_t i = 0; i <= k && r == 1; i++)
        r = ks_source_next(*src, st, err);
    if (r != 1) {
        ks_source_close(*src);
        return r < 0 ? KS_ERR : ks_error_set(err, "the input changed while it was checked");
    }
    return KS_OK;
}

/* Read stream number k of path again with every literal known; its findings replace the first
 * pass's. */
static int recheck(ks_redactor *rd, const char *path, size_t k, chk_trace *t, ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    if (reopen(path, k, &src, &st, err) != KS_OK)
        return KS_ERR;
    trace_clear(t);
    ks_redact_result res;
    int rc = ks_redact_check_stream(rd, st, on_finding, t, &res, err);
    ks_source_close(src);
    t->passes = 2;
    return rc;
}

int ks_redact_check_path(ks_redactor *rd, const char *path, size_t max_detail,
                         ks_redact_check *chk, ks_error *err)
{
    ks_source *src;
    if (ks_source_open(path, &src, err) != KS_OK)
        return KS_ERR;
    int rc = KS_OK;
    for (size_t k = 0;; k++) {
        ks_stream *st;
        int r = ks_source_next(src, &st, err);
        if (r == 0)
            break;
        if (r < 0) {
            rc = KS_ERR;
            break;
        }
        chk_trace *t = new_trace(chk, ks_stream_name(st), max_detail);
        ks_redact_result res;
        uint64_t gen0 = rd->lit_gen;
        if (ks_redact_check_stream(rd, st, on_finding, t, &res, err) != KS_OK) {
            char b[800];
            ks_error_format(err, b, sizeof b);
            t->error = ks_xstrdup(b);
            rc = KS_ERR;
            break;
        }
        if (res.late_literals && rd->lit_gen > gen0) {
            if (!strcmp(path, "-"))
                t->late_unchecked = 1;
            else if (recheck(rd, path, k, t, err) != KS_OK) {
                rc = KS_ERR;
                break;
            }
        }
        t->path = strcmp(path, "-") ? ks_xstrdup(path) : NULL;
        t->member = k;
        t->known = rd->lit_gen;
    }
    ks_source_close(src);
    return rc;
}

/* 1 when a literal learned after t was checked occurs in it (raw bytes), KS_ERR on an error */
static int has_new_literal(ks_redactor *rd, const chk_trace *t, ks_error *err)
{
    ks_rd_litset ls = {0};
    ks_rd_literals_since(rd, t->known, &ls);
    ks_source *src;
    ks_stream *st;
    int found = KS_ERR;
    if (reopen(t->path, t->member, &src, &st, err) == KS_OK) {
        found = ks_rd_raw_scan_stream(rd, st, &ls, err);
        ks_source_close(src);
    }
    ks_rd_litset_free(&ls);
    return found;
}

int ks_redact_check_incomplete(const ks_redact_check *chk)
{
    for (size_t i = 0; i < chk->n; i++)
        if (chk->v[i].late_unchecked)
            return 1;
    return 0;
}

int ks_redact_check_finish(ks_redactor *rd, ks_redact_check *chk, ks_error *err)
{
    for (;;) {
        uint64_t gen = rd->lit_gen;
        for (size_t i = 0; i < chk->n; i++) {
            chk_trace *t = &chk->v[i];
            if (t->error || t->known >= rd->lit_gen)
                continue;
            if (!t->path) {
                t->late_unchecked = 1;
                t->known = rd->lit_gen;
                continue;
            }
            int found = has_new_literal(rd, t, err);
            if (found < 0 || (found && recheck(rd, t->path, t->member, t, err) != KS_OK)) {
                char b[800];
                ks_error_format(err, b, sizeof b);
                t->error = ks_xstrdup(b);
                return KS_ERR;
            }
            t->known = rd->lit_gen;
        }
        if (rd->lit_gen == gen)
            return KS_OK;
    }
}

/* ---- output ------------------------------------------------------------------------------ */

void ks_redact_check_text(FILE *out, const ks_redact_check *chk)
{
    for (size_t i = 0; i < chk->n; i++) {
        const chk_trace *t = &chk->v[i];
        if (t->error)
            continue;
        if (!t->total) {
            fprintf(out, "%s: clean\n", t->source);
        } else {
            fprintf(out, "%s: %llu finding%s\n", t->source, (unsigned long long)t->total,
                    t->total == 1 ? "" : "s");
            for (size_t j = 0; j < t->nd; j++) {
                const detail *d = &t->d[j];
                fprintf(out, "  %s%s: ", d->path, d->in_key ? " (key)" : "");
                if (d->event >= 0)
                    fprintf(out, "event %lld, ", (long long)d->event);
                fprintf(out, "byte %llu: %s (%s, %zu bytes)\n", (unsigned long long)d->byte,
                        d->rule, d->cls, d->length);
            }
            if (t->total > t->nd)
                fprintf(out, "  ... %llu more\n", (unsigned long long)(t->total - t->nd));
            fprintf(out, "  by rule:");
            for (size_t j = 0; j < t->nrc; j++)
                fprintf(out, " %s %llu", t->rc[j].rule, (unsigned long long)t->rc[j].n);
            fputc('\n', out);
        }
        if (t->late_unchecked)
            fprintf(out, "  note: literals learned late in standard input could not be looked "
                         "for in the part read before\n");
    }
}

int ks_redact_check_json(FILE *out, const ks_redact_check *chk)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "kinesift.redact-check/1");
    uint64_t total = ks_redact_check_total(chk);
    ks_jw_kbool(&w, "clean", total == 0);
    ks_jw_kuint(&w, "findings", total);
    ks_jw_key(&w, "traces");
    ks_jw_arr(&w);
    for (size_t i = 0; i < chk->n; i++) {
        const chk_trace *t = &chk->v[i];
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "source", t->source);
        if (t->error)
            ks_jw_kstr(&w, "error", t->error);
        ks_jw_kuint(&w, "findings", t->total);
        ks_jw_kint(&w, "passes", t->passes);
        ks_jw_kbool(&w, "late_literals_unchecked", t->late_unchecked);
        ks_jw_key(&w, "by_rule");
        ks_jw_obj(&w);
        for (size_t j = 0; j < t->nrc; j++)
            ks_jw_kuint(&w, t->rc[j].rule, t->rc[j].n);
        ks_jw_end_obj(&w);
        ks_jw_key(&w, "shown");
        ks_jw_arr(&w);
        for (size_t j = 0; j < t->nd; j++) {
            const detail *d = &t->d[j];
            ks_jw_obj(&w);
            ks_jw_kstr(&w, "rule", d->rule);
            ks_jw_kstr(&w, "class", d->cls);
            if (d->event >= 0)
                ks_jw_kint(&w, "event", d->event);
            else
                ks_jw_knull(&w, "event");
            ks_jw_kstr(&w, "path", d->path);
            ks_jw_kbool(&w, "in_key", d->in_key);
            ks_jw_kuint(&w, "byte", d->byte);
            ks_jw_kuint(&w, "length", d->length);
            ks_jw_end_obj(&w);
        }
        ks_jw_end_arr(&w);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_end_obj(&w);
    return ks_jw_close(&w);
}
