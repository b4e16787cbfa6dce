/* parser/reader.c: the reader thread (see reader.h). A ring of slots: the thread fills them in
 * order (read, filter and count newlines), the parser takes them in order and hands each back when
 * it asks for the next one. One mutex; a slot changes hands only under it, so each byte of it is
 * written by one thread at a time. Workers that parse ahead (split.h) may claim a published slot
 * the parser has not taken yet: they only read it, and the slot is not handed back to the thread
 * before they are done.
 * The parser fills the next slot itself when none is ready and no fill is under way (self_fill):
 * the thread has not run yet, or lost its core, or there is none (KS_READER_NO_THREAD: an input of
 * a few chunks, where the fast scanner still serves; two slots then take turns). One fill at a
 * time, whoever does it: the filler sets `filling` under the mutex, and the state a fill carries
 * to the next (the filter, the carried tail, the count of bytes) is the filler's until it clears
 * it. On a 2-core virtual machine a new thread first ran 0.5-3 ms after pthread_create was called
 * (the parse of a 1 MB trace takes 2-3 ms), and a reader at nice + 2 beside a busy core can wait as
 * long for it. */
#include "parser/reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/hugemem.h"
#include "common/threads.h"
#include "common/util.h"
#include "json/textpos.h"
#include "kinesift/timings.h"
#include "store/bigarray.h"

#define NSLOTS 12
#define LOW 4 /* a full queue is refilled once this many slots are free: fewer wake-ups */
#define POOL 2 /* ready memory blocks kept for the store (bigarray.h) */
/* The ring's buffers (each slot's window, its output without indentation and that output's map)
 * are slices of one mapping on huge pages when the chunks are this big or more: the ring is up to
 * 9 MB of memory written once, which in 4 KiB page faults cost 10-25 ms a run on a virtual
 * machine (10 us a fault), and in 2 MiB ones under 1 ms. A slice too small for a window (a long
 * token carried over) or an output is replaced by malloc'ed memory; smaller chunks (tests) have
 * malloc'ed buffers only. */
#define RING_MAP_MIN_CHUNK ((size_t)64 << 10)
#define RING_SLACK ((size_t)16 << 10) /* room in a window for the bytes carried over */

struct ks_reader {
    ks_stream *st;
    size_t chunk;
    pthread_t thread;
    ks_thread_boot boot;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t can_fill, can_take;
    pthread_cond_t can_claim, claim_cv; /* workers wait for chunks; the parser for workers */
    int claims_ended;
    unsigned period, main_share; /* the workers' share (ks_reader_share) */
    int leave_to_workers; /* the parser waits for workers to claim their chunks (tests) */
    int claim_waits;  /* workers waiting on can_claim */
    ks_rchunk slot[NSLOTS];
    unsigned nslots;  /* the slots in turn: NSLOTS, or 2 without the thread (KS_READER_NO_THREAD) */
    char *ring;        /* the mapping the slots' buffers start in (NULL: none) */
    size_t ring_len;
    uint64_t filled;  /* slots published by the thread */
    uint64_t taken;   /* slots handed to the parser (the last one is held until the next call) */
    int stop;         /* the parser is done: the thread must exit */
    int raw;          /* deliver raw chunks only */
    int finished;     /* the thread published its eof chunk */
    void *pool[POOL]; /* ready memory blocks */
    int npool;
    int want_blocks;  /* the store asked for one: keep the pool full from now on */
    int batch;        /* the queue was full: wait for LOW free slots before filling again */
    int eager;        /* optional steps whether ahead or not (tests) */
    int timed;        /* KS_READER_TIMED: the times below are kept */
    int yield;        /* KS_READER_YIELD: run at nice + 2 */
    int self_fill;    /* the parser fills a slot itself when none is ready and none is being filled */
    int turns;        /* KS_READER_TURNS (tests): the thread fills only the odd-numbered chunks */
    int filling;      /* a fill is under way: the filler's state below is its own */
    uint64_t self_fills; /* chunks the parser filled (written under the mutex) */
    int64_t self_ns;  /* the parser's time filling them (written by the parser) */
    int64_t wait_ns;  /* the parser's time waiting for a chunk (written by the parser) */
    int64_t claim_wait_ns; /* the parser's time waiting for workers' chunks (written by the parser) */
    int thread_waits, parser_waits; /* who sleeps on can_fill / can_take */

    /* the filler's (whoever set filling; before the thread starts and after it stops, the parser's) */
    ks_repair filt;
    ks_rchunk *cur;   /* the slot being filled (for the repair callback) */
    char *carry;      /* the filter's unconsumed tail, carried into the next window */
    size_t ncarry, carry_cap;
    uint64_t carry_base;
    uint64_t bytes;
    int first;
    int64_t read_ns, filter_ns; /* the thread's time in reads (decompression included), and after
                                 * them (filter, blanks, newlines) */
    uint64_t thread_bytes;      /* the bytes of the thread's reads */
};

static void on_repair(void *ctx, int kind, size_t in_off)
{
    ks_reader *r = ctx;
    ks_rchunk *c = r->cur;
    ks_pending_add(&c->pr, &c->npr, &c->pr_cap, (uint32_t)kind, c->base + c->run_start + in_off, 1);
}

/* Exchange the output buffers (not the filter state) of two repair structs. */
static void swap_outputs(ks_repair *a, ks_repair *b)
{
    ks_repair t = *a;
    a->res = b->res;
    a->res_len = b->res_len;
    a->out = b->out;
    a->out_cap = b->out_cap;
    a->map = b->map;
    a->nmap = b->nmap;
    a->map_cap = b->map_cap;
    b->res = t.res;
    b->res_len = t.res_len;
    b->out = t.out;
    b->out_cap = t.out_cap;
    b->map = t.map;
    b->nmap = t.nmap;
    b->map_cap = t.map_cap;
}

/* lines: the newlines in buf[0 .. upto), as the filter counted them */
static void count_lines(ks_rchunk *c, size_t upto, uint64_t lines)
{
    c->lines_upto = upto;
    c->lines = lines;
    const char *q = c->lines ? memrchr(c->buf, '\n', upto) : NULL;
    c->last_nl = q ? (int64_t)(c->base + (uint64_t)(q - c->buf)) : -1;
}

static void carry_from(ks_reader *r, const ks_rchunk *c, size_t from)
{
    r->ncarry = c->len - from;
    KS_GROW(r->carry, r->carry_cap, r->ncarry + 1);
    memcpy(r->carry, c->buf + from, r->ncarry);
    r->carry_base = c->base + from;
}

/* Read one chunk into c and, unless raw, run the filter as the single-threaded loop would; and,
 * when the thread is ahead of the parser (it has time), drop the indentation. timed: add the read's
 * and the filter's times to the thread's (a fill by the thread). */
static void fill(ks_reader *r, ks_rchunk *c, int raw, int ahead, int timed)
{
    size_t keep = raw ? 0 : r->ncarry;
    c->len = c->new_off = keep;
    c->base = raw ? r->bytes : r->carry_base;
    c->eof = c->read_err = c->bom = c->has_run = 0;
    c->err.msg[0] = 0;
    c->run_start = c->consumed = 0;
    c->npr = 0;
    c->lines = 0;
    c->last_nl = -1;
    if (c->cap < keep + r->chunk) {
        c->cap = keep + r->chunk + RING_SLACK; /* room for the next carries too */
        if (c->buf_lent) { /* nothing in it is kept: the carry is copied in below */
            c->buf = NULL;
            c->buf_lent = 0;
        }
        c->buf = ks_xrealloc(c->buf, c->cap);
    }
    if (keep)
        memcpy(c->buf, r->carry, keep);
    int64_t t0 = timed ? ks_timings_now() : 0;
    ssize_t n = ks_stream_read(r->st, c->buf + keep, r->chunk, &c->err);
    int64_t t1 = timed ? ks_timings_now() : 0;
    r->read_ns += t1 - t0;
    if (n < 0) {
        c->read_err = 1;
        n = 0;
    }
    if (timed)
        r->thread_bytes += (uint64_t)n;
    if (n == 0)
        c->eof = 1;
    c->len += (size_t)n;
    r->bytes += (uint64_t)n;
    c->bytes = r->bytes;
    if (raw) {
        r->ncarry = 0;
        return;
    }
    size_t pos = 0;
    if (r->first) {
        if (c->len < 3 && !c->eof) {
            carry_from(r, c, 0); /* wait for 3 bytes before looking for a BOM */
            return;
        }
        r->first = 0;
        if (c->len >= 3 && !memcmp(c->buf, "\xef\xbb\xbf", 3)) {
            pos = 3;
            c->bom = 1;
        }
    }
    size_t done = pos;
    uint64_t lines = 0; /* a BOM holds none */
    if (c->len > pos) {
        r->cur = c;
        c->run_start = pos;
        swap_outputs(&r->filt, &c->out);
        c->consumed = ks_repair_run(&r->filt, c->buf + pos, c->len - pos, c->eof);
        swap_outputs(&r->filt, &c->out);
        c->run = ks_repair_last_run(&c->out);
        c->in_string = r->filt.in_string;
        if (ahead) {
            ks_run filtered = c->run;
            ks_blanks_run(&filtered, &c->bbuf, &c->run);
        }
        c->has_run = 1;
        done = pos + c->consumed;
        lines = r->filt.newlines;
    }
    count_lines(c, done, lines);
    carry_from(r, c, done);
    if (timed)
        r->filter_ns += ks_timings_now() - t1;
}

/* Make one ready block for the pool (the lock is held on entry and on return). */
static void make_block(ks_reader *r)
{
    pthread_mutex_unlock(&r->mu);
    void *b = ks_bigarray_ready_block();
    pthread_mutex_lock(&r->mu);
    if (b && r->npool < POOL && !r->stop)
        r->pool[r->npool++] = b;
    else
        ks_bigarray_block_free(b);
    if (!b)
        r->want_blocks = 0; /* mmap refused: the store faults its own pages */
}

/* When the parse has more threads than cores (the main parser, its workers and this one), the
 * scheduler must take one of them off a core now and then. This thread is the one that can best
 * wait: it works ahead of the parser in a ring of NSLOTS chunks, while the main parser, and a
 * worker holding a chunk the main parser will wait for, stop the whole parse when they stop. At
 * nice + 2 the scheduler favours them; when the ring runs dry the parser sleeps and this thread
 * has a core all the same. Measured on 2 cores (docs/performance.md, "What bounds each shape"): gzip input of
 * the dense shapes 6-10 % faster, plain input unchanged, a shape whose decompression is the
 * heaviest 2-5 % slower in gzip; nice + 1 changed nothing. Linux gives each thread its own nice
 * value and raising it needs no privilege (lowering it again would): it only ever lowers this
 * thread's priority, and a failure leaves it as it was. */
static void yield_priority(void)
{
    errno = 0;
    int now = getpriority(PRIO_PROCESS, (id_t)gettid());
    if (errno == 0 && now <= 17)
        (void)setpriority(PRIO_PROCESS, (id_t)gettid(), now + 2);
}

/* Fill the next slot and publish it (the lock is held on entry and on return; filling is set on
 * entry by the caller, who alone fills until it is cleared here). */
static ks_rchunk *fill_next(ks_reader *r, int ahead, int by_thread)
{
    int raw = r->raw;
    ks_rchunk *c = &r->slot[r->filled % r->nslots];
    c->seq = r->filled; /* only the filler changes filled */
    c->claim = c->claim_done = 0;
    c->claim_data = NULL;
    pthread_mutex_unlock(&r->mu);
    fill(r, c, raw, ahead, by_thread && r->timed);
    pthread_mutex_lock(&r->mu);
    r->filling = 0;
    r->filled++;
    if (c->eof)
        r->finished = 1;
    if (r->parser_waits)
        pthread_cond_signal(&r->can_take);
    if (r->thread_waits)
        pthread_cond_signal(&r->can_fill);
    if (r->claim_waits)
        pthread_cond_broadcast(&r->can_claim);
    return c;
}

static void *reader_main(void *arg)
{
    ks_reader *r = arg;
    (void)pthread_setname_np(pthread_self(), "ks-reader"); /* for top, perf and the tests */
    if (r->yield)
        yield_priority();
    for (;;) {
        pthread_mutex_lock(&r->mu);
        /* the parser holds slot (taken - 1) until its next call */
        for (;;) {
            uint64_t used = r->filled - (r->taken ? r->taken - 1 : 0);
            if (r->stop || r->finished) /* finished: the parser filled the last chunk */
                break;
            /* ready memory while the parser has chunks to work on (when it waits for one, it
             * may as well fault its own pages) */
            if (r->want_blocks && (!r->parser_waits || r->eager) &&
                (r->npool == 0 || (used >= NSLOTS && r->npool < POOL))) {
                make_block(r);
                continue;
            }
            int room = used < NSLOTS && (!r->batch || NSLOTS - used >= LOW);
            if (room && !r->filling && (!r->turns || r->filled % 2)) {
                r->batch = 0;
                break;
            }
            if (!room)
                r->batch = 1;
            r->thread_waits = 1;
            pthread_cond_wait(&r->can_fill, &r->mu);
            r->thread_waits = 0;
        }
        if (r->stop || r->finished) {
            pthread_mutex_unlock(&r->mu);
            break;
        }
        /* chunks waiting for the parser, and a core of its own: sharing one with the workers
         * (KS_READER_YIELD), dropping the indentation takes more from them than it saves the
         * parser (docs/performance.md, "The reader thread and the parse workers", item 2) */
        int ahead = r->eager || (!r->yield && r->filled - r->taken >= 2);
        r->filling = 1;
        int eof = fill_next(r, ahead, 1)->eof;
        pthread_mutex_unlock(&r->mu);
        if (eof)
            break;
    }
    return NULL;
}

void *ks_reader_take_block(void *ctx)
{
    ks_reader *r = ctx;
    pthread_mutex_lock(&r->mu);
    void *b = r->npool ? r->pool[--r->npool] : NULL;
    if (!r->want_blocks && !r->finished)
        r->want_blocks = 1;
    if (r->thread_waits)
        pthread_cond_signal(&r->can_fill);
    pthread_mutex_unlock(&r->mu);
    return b;
}

/* The slots' buffers as slices of one huge-page mapping (RING_MAP_MIN_CHUNK): the windows side by
 * side, then the outputs, then the maps, each kind in huge pages of its own, so that a kind no
 * chunk uses (no indentation dropped: no output, no map) takes no memory. */
static void lend_ring(ks_reader *r)
{
    if (r->chunk < RING_MAP_MIN_CHUNK || r->chunk > ((size_t)64 << 20))
        return;
    size_t win = (r->chunk + RING_SLACK + 63) & ~(size_t)63;
    size_t map_n = r->chunk / 24; /* entries: a dropped run a line of 24 bytes or more */
    size_t map_b = (map_n * sizeof(ks_repair_map) + 63) & ~(size_t)63;
    size_t wins = (NSLOTS * win + KS_HUGE_PAGE - 1) & ~(KS_HUGE_PAGE - 1);
    size_t maps = (NSLOTS * map_b + KS_HUGE_PAGE - 1) & ~(KS_HUGE_PAGE - 1);
    r->ring = ks_huge_map(2 * wins + maps, 1, 1); /* address space only until touched */
    if (!r->ring)
        return; /* refused: malloc'ed buffers, as for small chunks */
    r->ring_len = 2 * wins + maps;
    for (int i = 0; i < NSLOTS; i++) {
        ks_rchunk *c = &r->slot[i];
        c->buf = r->ring + (size_t)i * win;
        c->cap = win;
        c->buf_lent = 1;
        c->bbuf.out = r->ring + wins + (size_t)i * win;
        c->bbuf.cap = win;
        c->bbuf.out_lent = 1;
        c->bbuf.map = (ks_repair_map *)(void *)(r->ring + 2 * wins + (size_t)i * map_b);
        c->bbuf.map_cap = map_n;
        c->bbuf.map_lent = 1;
    }
}

ks_reader *ks_reader_start(ks_stream *st, size_t chunk, int flags)
{
    ks_reader *r = ks_xcalloc(1, sizeof *r);
    r->st = st;
    r->chunk = chunk;
    r->eager = flags & KS_READER_EAGER;
    r->timed = !!(flags & KS_READER_TIMED);
    r->yield = !!(flags & KS_READER_YIELD);
    r->turns = !!(flags & KS_READER_TURNS);
    r->self_fill = !r->eager || r->turns || (flags & KS_READER_NO_THREAD);
    r->first = 1;
    ks_repair_init(&r->filt);
    r->filt.on_repair = on_repair;
    r->filt.ctx = r;
    for (int i = 0; i < NSLOTS; i++)
        ks_repair_init(&r->slot[i].out);
    /* Without the thread the parser fills a slot only when it has taken every one before: the one
     * it holds and the next are all that are ever in use, so two slots take turns, their windows
     * in the heap the parse writes to anyway. On a 2-core VM the 1 MB trace (4 chunks) took 0.963
     * of the time it took with the ring of 12 on huge pages, which faulted a 2 MiB page of its own
     * (41 pairs). */
    r->nslots = (flags & KS_READER_NO_THREAD) ? 2 : NSLOTS;
    if (!(flags & KS_READER_NO_THREAD))
        lend_ring(r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->can_fill, NULL);
    pthread_cond_init(&r->can_take, NULL);
    pthread_cond_init(&r->can_claim, NULL);
    pthread_cond_init(&r->claim_cv, NULL);
    if (flags & KS_READER_NO_THREAD)
        return r; /* the parser fills every chunk (self_fill) */
    if (ks_thread_create_bare(&r->thread, &r->boot, reader_main, r) != 0) {
        ks_reader_stop(r);
        return NULL;
    }
    r->started = 1;
    return r;
}

/* 1 when c has a filtered run and is a worker's to parse, or with parsers the main parser's
 * (ks_reader_share; the lock is held) */
static int in_share(const ks_reader *r, const ks_rchunk *c, int parsers)
{
    return r->period && c->has_run && (c->seq % r->period < r->main_share) == parsers;
}

ks_rchunk *ks_reader_next(ks_reader *r)
{
    pthread_mutex_lock(&r->mu);
    if (r->taken) {
        /* the held slot is released below: no worker may still read it */
        ks_rchunk *held = &r->slot[(r->taken - 1) % r->nslots];
        while (held->claim > 0 && !held->claim_done)
            pthread_cond_wait(&r->claim_cv, &r->mu);
    }
    while (r->filled == r->taken && !r->finished) {
        int64_t w0 = r->timed ? ks_timings_now() : 0;
        if (r->self_fill && !r->filling) { /* nobody fills it: the parser does, at once */
            r->filling = 1;
            fill_next(r, 0, 0);
            r->self_fills++;
            if (w0)
                r->self_ns += ks_timings_now() - w0;
            continue;
        }
        r->parser_waits = 1;
        pthread_cond_wait(&r->can_take, &r->mu);
        r->parser_waits = 0;
        if (w0)
            r->wait_ns += ks_timings_now() - w0;
    }
    ks_rchunk *c = NULL;
    if (r->filled > r->taken) {
        c = &r->slot[r->taken % r->nslots];
        while (r->leave_to_workers && !c->claim && in_share(r, c, 0) && !r->claims_ended && !r->raw &&
               !r->stop)
            pthread_cond_wait(&r->claim_cv, &r->mu);
        r->taken++;
        if (!c->claim)
            c->claim = -1; /* the parser's: no worker will start it now */
    } else
        r->taken++; /* release the held slot all the same */
    /* wake the thread once a batch of slots is free (each wake-up costs a system call) */
    if (r->thread_waits && NSLOTS - (r->filled - (r->taken - 1)) >= LOW)
        pthread_cond_signal(&r->can_fill);
    pthread_mutex_unlock(&r->mu);
    return c;
}

uint64_t ks_reader_self_fills(ks_reader *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t n = r->self_fills;
    pthread_mutex_unlock(&r->mu);
    return n;
}

int ks_reader_timed(const ks_reader *r)
{
    return r->timed; /* set before the thread starts, never changed */
}

void ks_reader_raw(ks_reader *r)
{
    pthread_mutex_lock(&r->mu);
    r->raw = 1;
    pthread_cond_broadcast(&r->can_claim);
    pthread_mutex_unlock(&r->mu);
}

/* The first published chunk the main parser has not taken, nobody claimed, of the workers' share
 * (or with parsers the main parser's), or NULL (the lock is held). */
static ks_rchunk *claimable(ks_reader *r, int parsers)
{
    for (uint64_t j = r->taken; j < r->filled; j++) {
        ks_rchunk *c = &r->slot[j % r->nslots];
        if (!c->claim && in_share(r, c, parsers))
            return c;
    }
    return NULL;
}

ks_rchunk *ks_reader_claim(ks_reader *r, int worker)
{
    ks_rchunk *c = NULL;
    pthread_mutex_lock(&r->mu);
    while (!r->claims_ended && !r->raw && !r->stop) {
        c = claimable(r, 0);
        if (c) {
            c->claim = worker;
            if (r->leave_to_workers)
                pthread_cond_broadcast(&r->claim_cv);
            break;
        }
        if (r->finished)
            break; /* nothing more will be published */
        r->claim_waits++;
        pthread_cond_wait(&r->can_claim, &r->mu);
        r->claim_waits--;
    }
    pthread_mutex_unlock(&r->mu);
    return c;
}

ks_rchunk *ks_reader_claim_ahead(ks_reader *r, const ks_rchunk *c, int id)
{
    ks_rchunk *a = NULL;
    pthread_mutex_lock(&r->mu);
    if (!c->claim_done && !r->claims_ended && !r->raw && !r->stop && (a = claimable(r, 1)))
        a->claim = id;
    pthread_mutex_unlock(&r->mu);
    return a;
}

void ks_reader_claim_done(ks_reader *r, ks_rchunk *c, void *data)
{
    pthread_mutex_lock(&r->mu);
    c->claim_data = data;
    c->claim_done = 1;
    pthread_cond_broadcast(&r->claim_cv);
    pthread_mutex_unlock(&r->mu);
}

void *ks_reader_wait_claim(ks_reader *r, ks_rchunk *c)
{
    pthread_mutex_lock(&r->mu);
    int64_t w0 = r->timed && !c->claim_done ? ks_timings_now() : 0;
    while (!c->claim_done)
        pthread_cond_wait(&r->claim_cv, &r->mu);
    if (w0)
        r->claim_wait_ns += ks_timings_now() - w0;
    void *data = c->claim_data;
    pthread_mutex_unlock(&r->mu);
    return data;
}

void ks_reader_share(ks_reader *r, unsigned period, unsigned main_share, int leave_to_workers)
{
    pthread_mutex_lock(&r->mu);
    r->period = period;
    r->main_share = main_share;
    r->leave_to_workers = leave_to_workers;
    pthread_mutex_unlock(&r->mu);
}

void ks_reader_end_claims(ks_reader *r)
{
    pthread_mutex_lock(&r->mu);
    r->claims_ended = 1;
    pthread_cond_broadcast(&r->can_claim);
    pthread_cond_broadcast(&r->claim_cv);
    pthread_mutex_unlock(&r->mu);
}

void ks_reader_stop(ks_reader *r)
{
    ks_reader_stop_timed(r, NULL);
}

void ks_reader_stop_timed(ks_reader *r, ks_timings *t)
{
    if (!r)
        return;
    if (r->started) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_signal(&r->can_fill);
        pthread_cond_broadcast(&r->can_claim);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
    }
    if (t && r->timed && r->started) { /* the thread is joined: its figures are final */
        ks_timings_add(t, "read + decompress (reader thread)", r->read_ns, r->thread_bytes, KS_TIMING_BESIDE);
        ks_timings_add(t, "pre-filter, newlines (reader thread)", r->filter_ns, r->thread_bytes, KS_TIMING_BESIDE);
        ks_timings_add(t, "parse: waiting for the reader", r->wait_ns, 0, KS_TIMING_WITHIN);
    }
    if (t && r->timed) {
        if (r->self_fills) /* the thread had none ready, or there is no thread */
            ks_timings_add(t, "parse: reading chunks itself", r->self_ns, 0, KS_TIMING_WITHIN);
        if (r->period) /* workers parsed ahead */
            ks_timings_add(t, "parse: waiting for the workers", r->claim_wait_ns, 0, KS_TIMING_WITHIN);
    }
    for (int i = 0; i < NSLOTS; i++) {
        if (!r->slot[i].buf_lent)
            free(r->slot[i].buf);
        free(r->slot[i].pr);
        ks_repair_free(&r->slot[i].out);
        ks_blanks_buf_free(&r->slot[i].bbuf);
    }
    for (int i = 0; i < r->npool; i++)
        ks_bigarray_block_free(r->pool[i]);
    ks_repair_free(&r->filt);
    ks_big_free(r->ring, r->ring_len);
    free(r->carry);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->can_fill);
    pthread_cond_destroy(&r->can_take);
    pthread_cond_destroy(&r->can_claim);
    pthread_cond_destroy(&r->claim_cv);
    free(r);
}
