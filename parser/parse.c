/* parser/parse.c: the trace reader's driver. Bytes flow source -> repair pre-filter -> yajl -> a
 * small state machine that knows the trace layout -> the event store.
 *
 *  - Containers: {"traceEvents": [...], ...metadata} or a bare [...] array; a missing ']' is
 *    allowed; an object cut anywhere keeps every event whose closing '}' was read.
 *  - An event counts only at its closing '}'. A syntax error inside an event drops that event and
 *    resynchronises on the next event start with a fresh yajl handle (errors are sticky).
 *  - Numbers arrive as raw text (yajl_number): ts/dur go to int64 ns exactly, ids to int64.
 *  - Every recovery is counted in the trace's diagnostics with its byte/line/column.
 *  - With more threads, workers parse the middle of chunks ahead (split.h); the same parser
 *    state machine runs there in "unit" mode (spec.c), and the main parser replays what they made.
 *
 * This file holds the loops: reading windows (alone or from the reader thread, reader.h), feeding
 * their runs (feed.c), replaying the workers' units, resynchronising (recover.c) and finishing
 * (finish.c); the state machine itself is in callbacks.c, values.c and commit.c, its state in
 * parser_int.h. The public entry points are those of <kinesift/parse.h>; any thread may parse its
 * own stream. */
#include "kinesift/parse.h"

#include "parser/parser_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/scan.h"
#include "json/textpos.h"
#include "kinesift/timings.h"
#include "parser/spec.h"
#include "parser/split.h"
#include "source/stream.h"

void ks_parse_opts_init(ks_parse_opts *o)
{
    memset(o, 0, sizeof *o);
}

static void parser_free(ks_parser *p)
{
    if (p->h)
        yajl_free(p->h);
    p->h = NULL;
    ks_split_stop_timed(p->split, p->timings); /* before the reader: workers read its chunks */
    p->split = NULL;
    ks_reader_stop_timed(p->in.reader, p->timings);
    p->in.reader = NULL;
    ks_spec_free(p->own_spec); /* the main parser's own scans (own_unit) */
    p->own_spec = NULL;
    ks_unit_free(&p->own_unit);
    ks_unit_maps_free(&p->own_maps);
    ks_ps_release(p);
}


/* 1 when the parser stands between two elements of traceEvents, after the ',' that follows the
 * '}' at run offset brace, which closed an event: then the bytes after it mean what they meant to
 * the worker that parsed them (unit.h). */
static int at_event_boundary(const ks_parser *p, size_t brace)
{
    return p->in.last_ev_run_end == brace + 1 && p->nest.ctx == CX_EVENTS && !p->nest.skip && p->mode == M_PARSE &&
           !p->failed && !p->nest.top_done;
}

static void replay(ks_parser *p, const ks_unit *u)
{
    ks_unit_merge(p->t, u);
    p->events_read += u->events_read;
    p->last_commit_end = u->last_end;
    p->in.last_ev_run_end = u->yb + 1;
    p->acc.run = u->yb + 1;
    p->acc.set = 1;
    p->acc.value = 1; /* the unit ends with an event's '}' */
}

/* 1 when the state the main parser is in lets a unit of its own be replayed at all (it is inside
 * the events, with own scans on). */
static int may_scan(const ks_parser *p)
{
    return p->own_scans && !p->nest.top_done && !p->nest.events_done && p->nest.in_events_seen;
}

/* 1 when own scans are on and the main parser has not reached the events yet (the first chunk:
 * the header, then the events). */
static int before_events(const ks_parser *p)
{
    return p->own_scans && !p->nest.top_done && !p->nest.events_done && !p->nest.in_events_seen;
}

/* Where the events array seems to open in run text s[0..n): after the '[' of a bare array, or
 * after `"traceEvents"` blanks ':' blanks '['; 0 when neither is found. A guess only (the key may
 * be inside a string, or nested): feed_unit replays a unit only when the main parser, having read
 * the bytes before it, stands between two events. */
static size_t events_open(const char *s, size_t n)
{
    static const char key[] = "\"traceEvents\"";
    const unsigned char *b = (const unsigned char *)s;
    size_t i = ks_jscan_skip_blanks(b, n, 0);
    if (i < n && s[i] == '[')
        return i + 1;
    const char *q = memmem(s, n, key, sizeof key - 1);
    if (!q)
        return 0;
    i = ks_jscan_skip_blanks(b, n, (size_t)(q - s) + sizeof key - 1);
    if (i >= n || s[i] != ':')
        return 0;
    i = ks_jscan_skip_blanks(b, n, i + 1);
    return i < n && s[i] == '[' ? i + 1 : 0;
}

/* The main parser's own scan of c's run from the first event boundary at or after from (spec.c),
 * to be replayed as a worker's unit. */
static ks_unit *own_from(ks_parser *p, const ks_rchunk *c, size_t from)
{
    if (!p->own_spec) {
        p->own_spec = ks_spec_new();
        p->own_unit.maps = &p->own_maps;
    }
    ks_spec_parse(p->own_spec, c, from, &p->own_unit);
    return &p->own_unit;
}

/* A chunk no worker took: the main parser runs its middle through the fast scanner itself and
 * replays it, when may_scan, or from the events' start in the chunk that opens them; NULL
 * otherwise (yajl reads the whole run). */
static ks_unit *own_unit(ks_parser *p, const ks_rchunk *c)
{
    size_t from = 0;
    if (!may_scan(p) && !(before_events(p) && (from = events_open(c->run.res, c->run.len))))
        return NULL;
    return own_from(p, c, from);
}

/* ks_ps_feed_run for chunk c's run parsed ahead (a worker's unit or the main parser's own): its
 * edges go to yajl here, the unit is replayed in between (counted in *replayed, and *took set);
 * when the edge does not end on an event boundary, the rest is read here after all. A unit cut
 * before an event only the main parser may read (unit.h): yajl reads that event, and with own
 * scans on the main parser scans on from the event after it (counted in units_own), and so on. */
static int feed_unit(ks_parser *p, const ks_rchunk *c, const ks_unit *u, uint64_t *replayed, int *took,
                     ks_error *err, uint64_t *err_at)
{
    p->in.run_hint = 0;
    p->in.last_ev_run_end = SIZE_MAX;
    size_t off = 0;
    yajl_status ys;
    *took = 0;
    for (int first = 1;; first = 0) {
        ys = ks_ps_feed_part(p, off, u->x - off);
        if (ys != yajl_status_ok || p->failed)
            break;
        off = u->x;
        if (!at_event_boundary(p, u->xb))
            break;
        if (u->y > u->x) {
            replay(p, u);
            (*replayed)++;
            *took |= first;
        }
        off = u->y;
        if (!u->cut || !p->own_scans)
            break;
        u = own_from(p, c, off + 1);
        p->info.scans_refused += (uint64_t)u->refused;
        if (u->state != KS_UNIT_CLEAN)
            break;
        replayed = &p->info.units_own;
    }
    if (ys == yajl_status_ok && !p->failed)
        ys = ks_ps_feed_part(p, off, p->in.run.len - off);
    return ks_ps_settle(p, c->run_start, ys, err, err_at);
}

/* A read failed at absolute offset at (the end of what was read): fatal at the very start, in
 * strict mode or when the stream failed an integrity check (damaged: what was decoded is wrong
 * too), else the decoded part is kept. Returns 0 when fatal (err set). */
static int read_failed(ks_parser *p, uint64_t at, const char *msg, int damaged, ks_error *err)
{
    if (damaged)
        return ks_error_set(err, "read error: %s", msg), 0; /* no decoded position: all of it is suspect */
    if (at == 0 || p->strict) {
        uint64_t line, col;
        ks_ps_line_col(p, at, &line, &col);
        ks_error_set_at(err, at, line, col, "read error: %s", msg);
        return 0;
    }
    /* a damaged compressed stream (killed job): keep what was decoded */
    ks_diag_add(&p->t->diag, "parse.read_error", KS_SEV_ERROR, "input unreadable after byte %llu: %s",
                (unsigned long long)at, msg);
    return 1;
}

/* Read up to n bytes into dst: from the stream, or the raw part of the reader's next chunk. */
static ssize_t read_more(ks_parser *p, ks_stream *st, char *dst, size_t n, ks_error *rerr)
{
    if (!p->in.reader) {
        int64_t t0 = ks_timings_start(p->timings);
        ssize_t k = ks_stream_read(st, dst, n, rerr);
        if (p->timings) /* on this thread: a part of the parse */
            ks_timings_add(p->timings, "parse: read + decompress", ks_timings_now() - t0, k > 0 ? (uint64_t)k : 0,
                           KS_TIMING_WITHIN);
        return k;
    }
    ks_rchunk *c = ks_reader_next(p->in.reader);
    if (!c)
        return 0;
    ks_unit *u = ks_split_unit(p->split, c, 0); /* parsed ahead before the switch: not needed */
    if (u)
        ks_split_release(p->split, u);
    if (c->read_err) {
        *rerr = c->err;
        return -1;
    }
    size_t k = c->len - c->new_off;
    memcpy(dst, c->buf + c->new_off, k);
    return (ssize_t)k;
}

/* 1 when the input is of known size (size: ks_stream_size_hint, 0 unknown) and under
 * MIN_THREAD_CHUNKS chunks */
static int few_chunks(uint64_t size, size_t chunk)
{
    return size && size < (uint64_t)MIN_THREAD_CHUNKS * chunk;
}

/* Workers parsing ahead: threads - 1; by default one per core beyond the first (at most 3), none
 * for an input of known size under MIN_THREAD_CHUNKS chunks. */
static int parse_workers(const ks_parse_opts *o, uint64_t size, size_t chunk)
{
    long n = o->threads;
    if (n <= 0) {
        n = few_chunks(size, chunk) ? 1 : ks_cpus();
        if (n > 4)
            n = 4;
    }
    return n > 1 ? (int)n - 1 : 0;
}

/* How the chunks are read: yajl's own loop (READ_ALONE: an input of one chunk or less, or the
 * option -1), the reader with its thread, or the reader's ring filled by the parser itself
 * (READ_RING: by default, with one parser thread at most, an input under MIN_THREAD_CHUNKS: where
 * parse_workers gives none). */
enum { READ_ALONE, READ_THREAD, READ_RING };
static int read_mode(const ks_parse_opts *o, uint64_t size, size_t chunk)
{
    if (o->reader_thread)
        return o->reader_thread > 0 ? READ_THREAD : READ_ALONE;
    if (size && size <= chunk)
        return READ_ALONE;
    return o->threads <= 1 && few_chunks(size, chunk) ? READ_RING : READ_THREAD;
}

/* How much to read before the next feed: a chunk, or as much as the window holds from the end of
 * the last accepted token when that is more: yajl lexes a token cut by a feed again from its
 * start at the next feed, so a long token is fed in parts that double (time linear in it). */
static size_t read_want(const ks_parser *p)
{
    if (p->mode == M_PARSE && p->acc.has && p->acc.keep >= p->in.base) {
        uint64_t held = p->in.base + p->in.len - p->acc.keep;
        if (held > p->in.chunk)
            return (size_t)held;
    }
    return p->in.chunk;
}

/* Read a chunk onto the window, or chunks until want bytes came (or the end). Returns 0 when a
 * read failed fatally (err set). */
static int fill_window(ks_parser *p, ks_stream *st, const ks_parse_opts *opts, size_t want, int *eof,
                       ks_error *err)
{
    size_t got = 0;
    do {
        if (p->in.cap < p->in.len + p->in.chunk) {
            p->in.cap = p->in.len + p->in.chunk > 2 * p->in.cap ? p->in.len + p->in.chunk : 2 * p->in.cap;
            p->in.own = p->in.buf = ks_xrealloc(p->in.buf, p->in.cap);
        }
        ks_error rerr;
        ssize_t r = read_more(p, st, p->in.buf + p->in.len, p->in.chunk, &rerr);
        if (r < 0) {
            if (!read_failed(p, p->in.base + p->in.len, rerr.msg, ks_stream_damaged(st), err))
                return 0;
            r = 0;
        }
        if (r == 0)
            *eof = 1;
        p->in.len += (size_t)r;
        got += (size_t)r;
        p->t->bytes = p->in.base + p->in.len;
        if (opts->progress)
            opts->progress(opts->progress_ctx, st, p->t->bytes);
    } while (!*eof && want > p->in.chunk && got < want);
    return 1;
}

/* The rest is ignored, but read: the byte count (and a read error) do not depend on where in a
 * chunk the parse stopped. Returns 0 when a read failed fatally (err set). */
static int drain(ks_parser *p, ks_stream *st, const ks_parse_opts *opts, int *eof, ks_error *err)
{
    while (!*eof) {
        ks_ps_discard(p, p->in.len);
        if (!fill_window(p, st, opts, p->in.chunk, eof, err))
            return 0;
    }
    return 1;
}

enum { FILTERED_DONE, FILTERED_SWITCH, FILTERED_FAIL };

/* The reader window c is about to be replaced by the next one, which starts at c's drop point:
 * keep the bytes from the end of the last accepted token and the blanks after it (acc.keep) up to
 * there. */
static void keep_tail(ks_parser *p, const ks_rchunk *c)
{
    size_t done = c->has_run ? c->run_start + c->consumed : 0;
    uint64_t drop = c->base + done;
    if (!p->acc.has || p->acc.keep >= drop) {
        p->pos.keep.n = 0;
        return;
    }
    if (p->acc.keep >= c->base || !p->pos.keep.n) {
        size_t from = p->acc.keep >= c->base ? (size_t)(p->acc.keep - c->base) : 0;
        p->pos.keep.n = 0;
        p->pos.keep_base = c->base + from;
        /* the newlines before the kept bytes: the reader counted the window up to lines_upto */
        ks_text_win w = {c->buf, c->len, c->base, p->pos.lines_before, p->pos.last_nl, c->lines_upto,
                         c->lines, c->last_nl};
        ks_text_lines_before(&w, c->base + from, &p->pos.keep_lines, &p->pos.keep_last_nl);
        ks_buf_put(&p->pos.keep, c->buf + from, done - from);
        return;
    }
    ks_buf_put(&p->pos.keep, c->buf, done);
}

/* 1 when the token after the last accepted one began more than two chunks before the end of
 * what the reader window c filtered. */
static int inside_long_token(const ks_parser *p, const ks_rchunk *c)
{
    uint64_t drop = c->base + (c->has_run ? c->run_start + c->consumed : 0);
    return p->acc.has && p->acc.keep < drop && drop - p->acc.keep > 2 * (uint64_t)p->in.chunk;
}

/* Put the kept bytes in front of our own window. */
static void prepend_keep(ks_parser *p)
{
    size_t k = p->pos.keep.n;
    if (p->in.cap < p->in.len + k + p->in.chunk) {
        p->in.cap = p->in.len + k + p->in.chunk;
        p->in.own = ks_xrealloc(p->in.own, p->in.cap);
    }
    memmove(p->in.own + k, p->in.own, p->in.len);
    memcpy(p->in.own, p->pos.keep.p, k);
    p->in.buf = p->in.own;
    p->in.len += k;
    p->in.base = p->pos.keep_base;
    p->pos.lines_before = p->pos.keep_lines;
    p->pos.last_nl = p->pos.keep_last_nl;
    p->pos.keep.n = 0;
}

/* Leave the reader's windows: ours holds the window c, after the bytes kept from earlier ones
 * when the parse goes on from need_from, before c. */
static void own_window(ks_parser *p, const ks_rchunk *c, uint64_t need_from)
{
    if (p->in.cap < c->len + p->in.chunk) {
        p->in.cap = c->len + p->in.chunk;
        p->in.own = ks_xrealloc(p->in.own, p->in.cap);
    }
    memcpy(p->in.own, c->buf, c->len);
    p->in.buf = p->in.own;
    if (p->pos.keep.n && need_from < p->in.base)
        prepend_keep(p);
    p->pos.keep.n = 0;
}

/* The parse while the reader thread filters: one chunk per read, the run it filtered handed to
 * yajl, the window kept for positions. The first syntax error switches to the single-threaded
 * loop (FILTERED_SWITCH: the window copied to our own buffer, *pos where parsing resumes). */
static int filtered_loop(ks_parser *p, const ks_parse_opts *opts, ks_stream *st, size_t *pos, int *eof,
                         ks_error *err)
{
    uint64_t lines = 0;
    int64_t last_nl = -1;
    ks_rchunk *prev = NULL;
    for (;;) {
        if (prev) {
            ks_ps_remember_event_start(p, p->in.len);
            ks_ps_skip_kept_blanks(p);
            keep_tail(p, prev);
        }
        ks_rchunk *c = prev = ks_reader_next(p->in.reader);
        if (!c)
            return FILTERED_DONE;
        /* the previous window is discarded now, its newlines counted */
        p->pos.lines_before += lines;
        if (last_nl >= 0)
            p->pos.last_nl = last_nl;
        lines = c->lines;
        last_nl = c->last_nl;
        p->in.buf = c->buf;
        p->in.len = c->len;
        p->in.base = c->base;
        p->pos.win_buf = c->buf;
        p->pos.win_base = c->base;
        p->pos.win_upto = c->lines_upto;
        p->pos.win_lines = c->lines;
        p->pos.win_last = c->last_nl;
        p->in.run_start = c->run_start;
        if (c->read_err && !read_failed(p, c->base + c->len, c->err.msg, ks_stream_damaged(st), err))
            return FILTERED_FAIL;
        p->t->bytes = c->bytes;
        if (opts->progress)
            opts->progress(opts->progress_ctx, st, p->t->bytes);
        if (c->bom)
            ks_diag_count(&p->t->diag, "parse.bom", KS_SEV_INFO, 1);
        if (!c->has_run) {
            if (c->eof)
                return FILTERED_DONE;
            continue;
        }
        for (size_t i = 0; i < c->npr; i++)
            ks_pending_add(&p->rp.pending, &p->rp.npending, &p->rp.pending_cap, c->pr[i].kind, c->pr[i].at, c->pr[i].n);
        p->in.run = c->run;
        uint64_t err_at;
        ks_unit *u = ks_split_unit(p->split, c, may_scan(p));
        int mine = ks_split_own(p->split, u); /* read ahead by this thread while it waited */
        ks_unit *own = u ? NULL : own_unit(p, c);
        int refused = u ? u->refused : own ? own->refused : 0; /* before feed_unit reuses own */
        int took = 0; /* u or own replayed */
        int ok = u && u->state == KS_UNIT_CLEAN
                     ? feed_unit(p, c, u, mine ? &p->info.units_own : &p->info.units_replayed, &took, err, &err_at)
                 : own && own->state == KS_UNIT_CLEAN
                     ? feed_unit(p, c, own, &p->info.units_own, &took, err, &err_at)
                     : ks_ps_feed_run(p, c->run_start, err, &err_at);
        p->info.chunks++;
        p->info.scans_refused += (uint64_t)refused;
        if (u) {
            p->info.units_reread += !mine && !took;
            p->info.units_ahead += mine && took;
            ks_split_release(p->split, u);
        }
        if (!ok)
            return FILTERED_FAIL;
        if (err_at != UINT64_MAX) {
            /* resynchronise on the raw bytes: our own window and filter from here on */
            own_window(p, c, err_at);
            *pos = (size_t)(err_at - p->in.base);
            if (*pos > p->in.len)
                *pos = p->in.len;
            *eof = c->eof;
            ks_reader_raw(p->in.reader);
            return FILTERED_SWITCH;
        }
        if (c->eof)
            return FILTERED_DONE; /* the last window stays: ks_ps_finish() reports positions in it */
        if (inside_long_token(p, c)) {
            /* yajl would lex the token again from its start at every chunk: go on with our own
             * window, which grows with the token */
            own_window(p, c, p->acc.keep);
            *pos = (size_t)(c->base + c->run_start + c->consumed - p->in.base);
            p->rp.rep.in_string = c->in_string;
            ks_reader_raw(p->in.reader);
            return FILTERED_SWITCH;
        }
    }
}

int ks_parse_stream(ks_stream *st, const ks_parse_opts *opts, ks_trace **out, ks_error *err)
{
    ks_parse_opts defaults;
    if (!opts) {
        ks_parse_opts_init(&defaults);
        opts = &defaults;
    }
    *out = NULL;
    int64_t t0 = ks_timings_start(opts->timings);
    size_t chunk = opts->chunk_size ? opts->chunk_size : DEFAULT_CHUNK;
    ks_parser p;
    memset(&p, 0, sizeof p);
    p.timings = opts->timings;
    p.t = ks_trace_new(ks_stream_name(st));
    p.t->filter = ks_xstrdup(ks_stream_filter(st));
    p.strict = opts->strict;
    p.err = err;
    p.pos.last_nl = -1;
    p.in.chunk = chunk;
    ks_repair_init(&p.rp.rep);
    p.rp.rep.on_repair = ks_ps_on_repair;
    p.rp.rep.ctx = &p;
    p.h = ks_ps_new_handle(&p);
    p.in.cap = chunk * 2 + 8192;
    p.in.own = ks_xmalloc(p.in.cap);
    p.in.buf = p.in.own;
    if (!p.h) {
        ks_error_set(err, "cannot create a JSON parser");
        goto fail;
    }

    size_t pos = 0;
    int eof = 0, need_more = 1, first = 1;
    uint64_t size = ks_stream_size_hint(st); /* a gzip file's: a read of its trailer */
    int workers = parse_workers(opts, size, chunk), mode = read_mode(opts, size, chunk);
    if (mode != READ_ALONE)
        p.in.reader = ks_reader_start(st, chunk, (opts->reader_thread == 2 || opts->reader_thread == 3 ? KS_READER_EAGER : 0) |
                                                  (mode == READ_RING ? KS_READER_NO_THREAD : 0) |
                                                  (opts->reader_thread == 4 ? KS_READER_TURNS : 0) |
                                                  (opts->timings ? KS_READER_TIMED : 0) |
                                                  (workers + 2 > ks_cpus() ? KS_READER_YIELD : 0));
    if (!p.in.reader)
        workers = 0;
    p.own_scans = opts->own_scans >= 0;
    if (workers || p.own_scans)
        ks_ps_c_locale(); /* made once, before any worker might */
    if (workers) {
        p.split = ks_split_start(p.in.reader, workers, opts->reader_thread == 2 || opts->reader_thread == 3,
                                 opts->reader_thread == 3);
    }
    if (p.in.reader) {
        ks_page_supply supply = {ks_reader_take_block, p.in.reader};
        ks_trace_set_supply(p.t, &supply);
        int r = filtered_loop(&p, opts, st, &pos, &eof, err);
        if (r == FILTERED_FAIL)
            goto fail;
        if (r == FILTERED_DONE)
            goto done;
        need_more = 0;
        first = 0;
    }
    for (;;) {
        if (need_more) {
            if (eof)
                break;
            size_t drop = ks_ps_drop_point(&p, pos);
            ks_ps_discard(&p, drop);
            pos -= drop;
            if (!fill_window(&p, st, opts, read_want(&p), &eof, err))
                goto fail;
            if (first) {
                if (p.in.len < 3 && !eof)
                    continue;
                first = 0;
                if (p.in.len >= 3 && !memcmp(p.in.buf, "\xef\xbb\xbf", 3)) {
                    pos = 3;
                    ks_diag_count(&p.t->diag, "parse.bom", KS_SEV_INFO, 1);
                }
            }
            need_more = 0;
        }
        if (p.mode == M_STOP) {
            if (!drain(&p, st, opts, &eof, err))
                goto fail;
            break;
        }
        if (p.mode == M_RESYNC) {
            const char *prefix;
            if (ks_ps_resync_scan(&p, &pos, &prefix))
                ks_ps_restart(&p, prefix, pos);
            else
                need_more = 1;
            continue;
        }
        size_t avail = p.in.len - pos;
        if (!avail) {
            need_more = 1;
            continue;
        }
        p.in.run_start = pos;
        size_t consumed = ks_repair_run(&p.rp.rep, p.in.buf + pos, avail, eof);
        p.in.run = ks_repair_last_run(&p.rp.rep);
        uint64_t err_at;
        if (!ks_ps_feed_run(&p, pos, err, &err_at))
            goto fail;
        if (err_at != UINT64_MAX) {
            pos = (size_t)(err_at - p.in.base);
            if (pos > p.in.len)
                pos = p.in.len;
            continue;
        }
        pos += consumed;
        if (consumed < avail || pos == p.in.len)
            need_more = 1;
    }
done:
    if (p.rp.npending && !p.failed) {
        /* repairs in the last, unfinished token */
        ks_ps_commit_repairs(&p, UINT64_MAX);
        if (!ks_ps_strict_repair_ok(&p, err))
            goto fail;
    }
    ks_trace_set_supply(p.t, NULL);
    if (opts->info) {
        opts->info->chunks += p.info.chunks;
        opts->info->units_replayed += p.info.units_replayed;
        opts->info->units_reread += p.info.units_reread;
        opts->info->units_own += p.info.units_own;
        opts->info->units_ahead += p.info.units_ahead;
        opts->info->scans_refused += p.info.scans_refused;
        opts->info->chunks_filled += p.in.reader ? ks_reader_self_fills(p.in.reader) : 0;
    }
    if (p.mode == M_PARSE && p.nest.top_done) {
        /* flush yajl: detects nothing new, but keeps the handle consistent */
        yajl_complete_parse(p.h);
    }
    if (p.failed)
        goto fail;
    t0 = ks_timings_stop(p.timings, "parse", t0, p.t->bytes);
    if (ks_ps_finish(&p, err) != KS_OK)
        goto fail;
    ks_timings_stop(p.timings, "store finish", t0, 0);
    parser_free(&p);
    *out = p.t;
    return KS_OK;
fail:
    ks_trace_set_supply(p.t, NULL);
    parser_free(&p);
    ks_trace_free(p.t);
    return KS_ERR;
}


int ks_parse_buffer(const char *name, const void *buf, size_t len, const ks_parse_opts *o,
                    ks_trace **out, ks_error *err)
{
    ks_source *src;
    *out = NULL;
    if (len == 0)
        return ks_error_set(err, "empty input");
    if (ks_source_open_memory(name, buf, len, &src, err) != KS_OK)
        return KS_ERR;
    ks_stream *st;
    int r = ks_source_next(src, &st, err);
    if (r != 1) {
        ks_source_close(src);
        return r == 0 ? ks_error_set(err, "no trace in input") : KS_ERR;
    }
    r = ks_parse_stream(st, o, out, err);
    ks_source_close(src);
    return r;
}
