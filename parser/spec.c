/* parser/spec.c: a worker's parser (split.h, unit.h). The same state machine as the main parser
 * (callbacks.c, values.c, commit.c), run in "unit" mode over the middle of a chunk a worker
 * claimed: it is fed '[' and then the run between two likely event boundaries, commits its events
 * into a unit with local tables, and marks the unit unclean whenever it met anything only the main
 * parser may do (positions, metadata, a broken event). The main parser then replays a clean unit
 * or reads the bytes itself, so the store is the same either way. The run goes through the fast
 * scanner (json/scan.h), which calls the same callbacks as yajl would, or through yajl when the
 * scanner refuses it. One ks_spec per worker thread.
 * Internal to parser/ (split.c). */
#include "parser/parser_int.h"

#include <stdlib.h>
#include <string.h>

#include "json/scan.h"
#include "parser/spec.h"
#include "store/writer.h"

struct ks_spec {
    ks_parser p;
    ks_error err;
    ks_jscan scan;
};

ks_spec *ks_spec_new(void)
{
    ks_spec *s = ks_xcalloc(1, sizeof *s);
    s->p.t = ks_trace_new("");
    s->p.t->container = '[';
    s->p.err = &s->err;
    s->p.pos.last_nl = -1;
    return s;
}

void ks_spec_free(ks_spec *s)
{
    if (!s)
        return;
    ks_ps_release(&s->p); /* a worker has no reader or split of its own */
    ks_jscan_free(&s->scan);
    ks_trace_free(s->p.t);
    free(s);
}

/* Move the unit's counts out of the worker's trace (which keeps only its tables). */
static void collect(ks_parser *p, ks_unit *u)
{
    ks_trace *t = p->t;
    memcpy(u->by_phase, t->by_phase, sizeof u->by_phase);
    memset(t->by_phase, 0, sizeof t->by_phase);
    KS_GROW(u->cat_count, u->cat_count_cap, t->ncats);
    memcpy(u->cat_count, t->by_cat, t->ncats * sizeof *t->by_cat);
    u->ncat_count = t->ncats;
    memset(t->by_cat, 0, t->ncats * sizeof *t->by_cat);
    for (size_t i = 0; i < t->diag.n; i++) {
        const ks_diag_kind *k = &t->diag.kinds[i];
        if (k->nexamples)
            p->wk.bad = 1;
        KS_GROW(u->diag, u->diag_cap, u->ndiag + 1);
        u->diag[u->ndiag].id = k->id;
        u->diag[u->ndiag].sev = k->severity;
        u->diag[u->ndiag].n = k->count;
        u->ndiag++;
    }
    ks_diag_free(&t->diag);
    u->events_read = p->events_read;
    /* the input offset after the last event's '}', as the main parser's last_commit_end */
    u->last_end = p->in.last_ev_run_end != SIZE_MAX ? ks_ps_run_abs(p, p->in.last_ev_run_end) : p->last_commit_end;
}

/* The state of a parser at the start of a bare array of events. */
static void spec_begin(ks_parser *p, const ks_rchunk *c, ks_unit *u)
{
    p->in.buf = c->buf;
    p->in.len = c->len;
    p->in.base = c->base;
    p->in.run_start = c->run_start;
    p->in.run = c->run;
    p->in.run_hint = 0;
    p->wk.unit = u;
    p->wk.no++;
    p->wk.bad = p->wk.cut = p->failed = 0;
    p->events_read = 0;
    /* every track used is logged for the unit, under an id of the unit's own: the worker keeps no
     * table of every track it met (a trace may have a million one-event tracks) */
    ks_trace_clear_tracks(p->t);
    p->cache.have_last_track = 0;
    p->nest.depth = 0; /* the '[' fed first opens the events array */
    p->nest.ctx = 0;
    p->nest.skip = 0;
    p->shp.depth = 0;
    p->nest.key = K_NONE;
    p->nest.top_done = p->nest.events_done = 0;
    p->nest.in_events_seen = 1;
    p->mode = M_PARSE;
    p->in.last_ev_run_end = SIZE_MAX;
    p->last_commit_end = 0;
}

/* What a refused scan left in the worker's trace is dropped (the counts collect() would move). */
static void discard(ks_parser *p)
{
    ks_trace *t = p->t;
    memset(t->by_phase, 0, sizeof t->by_phase);
    memset(t->by_cat, 0, t->ncats * sizeof *t->by_cat);
    ks_diag_free(&t->diag);
}

/* Every event complete, and the last one ended at the '}' before y. */
static int clean_end(const ks_parser *p, const ks_unit *u)
{
    return !p->failed && p->nest.depth == 1 && p->nest.ctx == CX_EVENTS && !p->nest.skip && !p->nest.events_done &&
           p->in.last_ev_run_end == u->yb + 1;
}

/* The scan stopped at an event the main parser must read itself (values.c: metadata or a counter,
 * its "ph" read before anything of it was kept): the unit ends at the last event before it (y
 * moved back to its '{'), or holds no event (y = x). 1 when the stop is where the unit's state is
 * whole. */
static int cut_end(const ks_parser *p, ks_unit *u)
{
    if (p->failed || p->nest.skip || p->nest.depth != 2 || p->nest.ctx != CX_EVENT)
        return 0;
    size_t i = p->in.last_ev_run_end == SIZE_MAX ? u->x : p->in.last_ev_run_end;
    if (i != u->x) {
        const char *s = p->in.run.res;
        while (i < u->y && (ks_jscan_blank((unsigned char)s[i]) || s[i] == ','))
            i++;
        if (i >= u->y || s[i] != '{')
            return 0;
        u->yb = p->in.last_ev_run_end - 1;
    } else
        u->yb = u->xb;
    u->y = i;
    u->cut = 1;
    return 1;
}

/* The fast scanner (json/scan.h) over run[x, y): 1 clean, 0 not, -1 refused (yajl must read it). */
static int parse_scan(ks_spec *s, ks_unit *u)
{
    ks_parser *p = &s->p;
    const yajl_callbacks *cb = ks_ps_callbacks();
    p->scan = &s->scan;
    s->scan.raw_array = ks_ps_cb_raw_array; /* the shape args whole (json/scan.h) */
    /* no token of the run is placed: the unit's replay places its end (parse.c) */
    p->acc.unplaced = 1;
    p->in.feeding_prefix = 1;
    int ok = cb->yajl_start_array(p); /* the '[' yajl would be fed first */
    p->in.feeding_prefix = 0;
    int rc = KS_JSCAN_CANCELED;
    if (ok) {
        p->in.feed_off = u->x;
        rc = ks_jscan_elements(&s->scan, cb, p, (const unsigned char *)p->in.run.res + u->x, u->y - u->x);
    }
    p->acc.unplaced = 0;
    p->scan = NULL;
    if (rc == KS_JSCAN_REFUSED)
        return -1;
    if (rc == KS_JSCAN_CANCELED && p->wk.cut)
        return cut_end(p, u);
    return rc == KS_JSCAN_OK && clean_end(p, u);
}

static int parse_yajl(ks_parser *p, ks_unit *u)
{
    int clean = 0;
    p->h = ks_ps_new_handle(p);
    if (p->h) {
        p->in.feeding_prefix = p->acc.unplaced = 1;
        yajl_status ys = yajl_parse(p->h, (const unsigned char *)"[", 1);
        p->in.feeding_prefix = p->acc.unplaced = 0;
        if (ys == yajl_status_ok)
            ys = ks_ps_feed_part(p, u->x, u->y - u->x);
        clean = ys == yajl_status_ok && clean_end(p, u);
        yajl_free(p->h);
        p->h = NULL;
    }
    return clean;
}

void ks_spec_parse(ks_spec *s, const ks_rchunk *c, size_t from, ks_unit *u)
{
    ks_parser *p = &s->p;
    ks_unit_reset(u);
    size_t x, xb, y, yb;
    if (!ks_unit_bounds(c->run.res, c->run.len, from, &x, &xb, &y, &yb))
        return;
    u->x = x, u->xb = xb, u->y = y, u->yb = yb;
    spec_begin(p, c, u);
    int clean = parse_scan(s, u);
    if (clean < 0) {
        /* the same bytes again through yajl, from the same state */
        discard(p);
        ks_unit_reset(u);
        u->x = x, u->xb = xb, u->y = y, u->yb = yb;
        spec_begin(p, c, u);
        u->refused = 1;
        clean = parse_yajl(p, u);
    }
    collect(p, u);
    u->state = clean && !p->wk.bad ? KS_UNIT_CLEAN : KS_UNIT_UNCLEAN;
    p->wk.unit = NULL;
}
