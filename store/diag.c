/* store/diag.c: the diagnostics of one trace or analysis (see kinesift/diag.h), and the table of
 * the library's own kinds (store/diag_table.h). Kinds are few (tens), so a linear search by id
 * pointer, then by text, is cheaper than a hash. */
#include "kinesift/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/util.h"
#include "kinesift/store.h"
#include "store/diag_table.h"

void ks_diag_init(ks_diag *d)
{
    memset(d, 0, sizeof *d);
}

void ks_diag_free(ks_diag *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (size_t j = 0; j < d->kinds[i].nexamples; j++)
            free(d->kinds[i].ex[j].text);
    free(d->kinds);
    memset(d, 0, sizeof *d);
}

static ks_diag_kind *kind(ks_diag *d, const char *id, ks_severity sev)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->kinds[i].id == id)
            return &d->kinds[i];
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->kinds[i].id, id))
            return &d->kinds[i];
    KS_GROW(d->kinds, d->cap, d->n + 1);
    ks_diag_kind *k = &d->kinds[d->n++];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->severity = sev;
    return k;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const ks_diag_kind *)a)->id, ((const ks_diag_kind *)b)->id);
}

void ks_diag_sort(ks_diag *d)
{
    if (d->n > 1)
        qsort(d->kinds, d->n, sizeof *d->kinds, by_id);
}

void ks_diag_count(ks_diag *d, const char *id, ks_severity sev, uint64_t n)
{
    ks_diag_kind *k = kind(d, id, sev);
    if (sev > k->severity)
        k->severity = sev;
    k->count += n;
}

static void add(ks_diag *d, const char *id, ks_severity sev, int has_pos, uint64_t byte,
                uint64_t line, uint64_t column, const char *fmt, va_list ap)
{
    ks_diag_kind *k = kind(d, id, sev);
    if (sev > k->severity)
        k->severity = sev;
    k->count++;
    if (k->nexamples >= KS_DIAG_EXAMPLES)
        return;
    char buf[KS_LIMIT_DIAG_TEXT];
    vsnprintf(buf, sizeof buf, fmt, ap);
    ks_diag_example *e = &k->ex[k->nexamples++];
    e->has_pos = has_pos;
    e->byte = byte;
    e->line = line;
    e->column = column;
    e->text = ks_xstrdup(buf);
}

void ks_diag_add(ks_diag *d, const char *id, ks_severity sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, id, sev, 0, 0, 0, 0, fmt, ap);
    va_end(ap);
}

void ks_diag_add_at(ks_diag *d, const char *id, ks_severity sev, uint64_t byte, uint64_t line,
                    uint64_t column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, id, sev, 1, byte, line, column, fmt, ap);
    va_end(ap);
}

const ks_diag_kind *ks_diag_get(const ks_diag *d, const char *id)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->kinds[i].id, id))
            return &d->kinds[i];
    return NULL;
}

uint64_t ks_diag_total(const ks_diag *d, const char *id)
{
    const ks_diag_kind *k = ks_diag_get(d, id);
    return k ? k->count : 0;
}

ks_severity ks_diag_max_severity(const ks_diag *d)
{
    ks_severity s = KS_SEV_INFO;
    for (size_t i = 0; i < d->n; i++)
        if (d->kinds[i].count && d->kinds[i].severity > s)
            s = d->kinds[i].severity;
    return s;
}

const char *ks_severity_name(ks_severity s)
{
    switch (s) {
    case KS_SEV_INFO: return "info";
    case KS_SEV_WARNING: return "warning";
    case KS_SEV_ERROR: return "error";
    }
    return "?";
}

/* ---- the table of the library's kinds ------------------------------------------------------- */

#define KS_DIAG_INFO_ROW(id, sev, uncounted, doc) {id, KS_SEV_##sev, uncounted, doc},
static const ks_diag_info infos[] = {KS_DIAG_TABLE(KS_DIAG_INFO_ROW)};
#undef KS_DIAG_INFO_ROW
#define NINFOS (sizeof infos / sizeof infos[0])

const ks_diag_info *ks_diag_infos(size_t *n)
{
    *n = NINFOS;
    return infos;
}

const ks_diag_info *ks_diag_info_find(const char *id)
{
    size_t lo = 0, hi = NINFOS; /* sorted by id (the table says so; tests check it) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(infos[mid].id, id);
        if (!c)
            return &infos[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

uint64_t ks_trace_events_read(const ks_trace *t)
{
    uint64_t n = t->phase_other;
    for (int c = 0; c < 128; c++)
        n += t->by_phase[c];
    for (size_t i = 0; i < NINFOS; i++)
        if (infos[i].uncounted_event)
            n += ks_diag_total(&t->diag, infos[i].id);
    return n;
}
