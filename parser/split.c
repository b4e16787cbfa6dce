/* parser/split.c: the worker threads that parse ahead of the main parser (see split.h). Each
 * worker has a few units: it takes a free one, claims the next chunk it may parse, fills the unit
 * and hands it over with the chunk; the main parser gives the unit back after the replay.
 * The main parser has units of its own (`own`, no thread): while a worker it waits for is not
 * done, it reads the next chunks of its own share into them, which it would read when it reached
 * them anyway (own_unit in parse.c); the same scanner and the same replay, only sooner. */
#include "parser/split.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"
#include "common/util.h"
#include "kinesift/timings.h"
#include "parser/spec.h"

#define UNITS 3 /* per worker: one being filled, two waiting for the main parser */

typedef struct worker {
    ks_split *s;
    int id;                /* 1.. (reader claims) */
    pthread_t thread;
    ks_thread_boot boot;
    int started;
    ks_spec *spec;
    ks_unit unit[UNITS];
    int free[UNITS];       /* 1: may be filled */
    ks_unit_maps maps;     /* written by the main parser only */
    int64_t busy_ns;       /* time parsing chunks, when the reader is timed (read after the join) */
} worker;

struct ks_split {
    ks_reader *r;
    pthread_mutex_t mu;
    pthread_cond_t unit_free;
    int stopping;
    int nworkers;
    int timed;             /* the reader is timed (KS_READER_TIMED): the workers time their parses */
    worker *w;
    worker own;            /* the main parser's (no thread, id workers + 1): its units and spec are
                            * the main parser's only, busy_ns its time reading ahead while it waited */
    int hold;              /* tests: a worker parses its chunk once the main parser waits for it */
    const ks_rchunk *waited; /* the chunk the main parser waits for (with hold) */
};

/* A free unit of w, now taken, or NULL. The caller holds s->mu, or is the main parser with its
 * own units (only it takes and releases those). */
static ks_unit *free_unit(worker *w)
{
    for (int k = 0; k < UNITS; k++)
        if (w->free[k]) {
            w->free[k] = 0;
            return &w->unit[k];
        }
    return NULL;
}

static ks_unit *take_unit(worker *w)
{
    ks_split *s = w->s;
    ks_unit *u = NULL;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping && !(u = free_unit(w)))
        pthread_cond_wait(&s->unit_free, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return u;
}

void ks_split_release(ks_split *s, ks_unit *u)
{
    worker *w = u->owner;
    pthread_mutex_lock(&s->mu);
    w->free[u - w->unit] = 1;
    pthread_cond_broadcast(&s->unit_free);
    pthread_mutex_unlock(&s->mu);
}

/* hold (tests): the worker starts on c only once the main parser waits for it, so that the main
 * parser has read ahead whatever it could meanwhile */
static void hold_until_waited(ks_split *s, const ks_rchunk *c)
{
    pthread_mutex_lock(&s->mu);
    while (s->waited != c && !s->stopping)
        pthread_cond_wait(&s->unit_free, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    ks_split *s = w->s;
    char name[16];
    snprintf(name, sizeof name, "ks-parse-%d", w->id);
    (void)pthread_setname_np(pthread_self(), name); /* for top, perf and the tests */
    for (;;) {
        ks_unit *u = take_unit(w);
        if (!u)
            break;
        ks_rchunk *c = ks_reader_claim(s->r, w->id);
        if (!c) {
            ks_split_release(s, u);
            break;
        }
        if (s->hold)
            hold_until_waited(s, c);
        int64_t t0 = s->timed ? ks_timings_now() : 0;
        ks_spec_parse(w->spec, c, 0, u);
        if (s->timed)
            w->busy_ns += ks_timings_now() - t0;
        ks_reader_claim_done(s->r, c, u);
    }
    return NULL;
}

static void worker_init(ks_split *s, worker *w, int id)
{
    w->s = s;
    w->id = id;
    w->spec = ks_spec_new();
    for (int k = 0; k < UNITS; k++) {
        w->unit[k].owner = w;
        w->unit[k].maps = &w->maps;
        w->free[k] = 1;
    }
}

static void worker_free(worker *w)
{
    ks_spec_free(w->spec);
    for (int k = 0; k < UNITS; k++)
        ks_unit_free(&w->unit[k]);
    ks_unit_maps_free(&w->maps);
}

ks_split *ks_split_start(ks_reader *r, int workers, int leave_to_workers, int hold)
{
    if (workers < 1)
        return NULL;
    ks_split *s = ks_xcalloc(1, sizeof *s);
    s->r = r;
    s->timed = ks_reader_timed(r);
    s->hold = hold;
    /* the main parser also replays every unit and reads the edges: it takes one chunk in
     * (workers + 1) */
    ks_reader_share(r, (unsigned)workers + 1, 1, leave_to_workers);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->unit_free, NULL);
    s->w = ks_xcalloc((size_t)workers, sizeof *s->w);
    for (int i = 0; i < workers; i++) {
        worker *w = &s->w[i];
        worker_init(s, w, i + 1);
        s->nworkers = i + 1;
        if (ks_thread_create(&w->thread, &w->boot, worker_main, w) != 0)
            break;
        w->started = 1;
    }
    worker_init(s, &s->own, workers + 1);
    if (!s->w[0].started) {
        ks_split_stop(s);
        return NULL;
    }
    return s;
}

ks_unit *ks_split_unit(ks_split *s, ks_rchunk *c, int read_ahead)
{
    if (!s || c->claim <= 0)
        return NULL;
    worker *w = &s->own;
    while (read_ahead && c->claim != w->id) {
        ks_unit *u = free_unit(w);
        ks_rchunk *a = u ? ks_reader_claim_ahead(s->r, c, w->id) : NULL;
        if (!a) {
            if (u)
                w->free[u - w->unit] = 1;
            break;
        }
        int64_t t0 = s->timed ? ks_timings_now() : 0;
        ks_spec_parse(w->spec, a, 0, u);
        if (s->timed)
            w->busy_ns += ks_timings_now() - t0;
        ks_reader_claim_done(s->r, a, u);
    }
    if (s->hold) {
        pthread_mutex_lock(&s->mu);
        s->waited = c;
        pthread_cond_broadcast(&s->unit_free);
        pthread_mutex_unlock(&s->mu);
    }
    return ks_reader_wait_claim(s->r, c);
}

int ks_split_own(const ks_split *s, const ks_unit *u)
{
    return s && u && u->owner == &s->own;
}

void ks_split_stop(ks_split *s)
{
    ks_split_stop_timed(s, NULL);
}

void ks_split_stop_timed(ks_split *s, ks_timings *t)
{
    if (!s)
        return;
    int64_t busy = 0;
    ks_reader_end_claims(s->r);
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_broadcast(&s->unit_free);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->nworkers; i++) {
        worker *w = &s->w[i];
        if (w->started)
            pthread_join(w->thread, NULL);
        busy += w->busy_ns;
        worker_free(w);
    }
    if (t && s->timed) { /* the workers are joined: their figures are final */
        ks_timings_add(t, "parse ahead (workers, summed)", busy, 0, KS_TIMING_BESIDE);
        ks_timings_add(t, "parse: own chunks read ahead while waiting", s->own.busy_ns, 0, KS_TIMING_WITHIN);
    }
    worker_free(&s->own);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->unit_free);
    free(s->w);
    free(s);
}
