/* redact/rewrite.c: the streaming engine of `kinesift redact` and `redact --check`
 * (docs/redaction.md §5): its run loop and entry points.
 *
 * Bytes flow source -> the reader's repairing pre-filter -> yajl, in fixed-size chunks. yajl
 * reports every token with the offset just past it (yajl_get_bytes_consumed inside a callback),
 * so the engine knows each token's span in the filtered stream. Output is the input copied
 * verbatim span by span; only a string (or key) that a rule rewrites is re-encoded, a stripped
 * container is replaced by the string "__stripped__", and a memory Addr number by its keyed
 * value. Numbers, whitespace and key order are never touched, so every ts/dur/id keeps its
 * text, and nothing is ever deleted from traceEvents. Memory: a window holding the bytes since
 * the last flush (one chunk plus an unfinished token) and a stack of open containers.
 *
 * In check mode nothing is written: every rewrite a rule would make is reported as a finding
 * with its event index, JSON path and byte offset (never the value).
 *
 * The engine's files (state: ks_rw_eng in redact_int.h): emit.c (output), spans.c (positions),
 * findings.c (check mode), frames.c (the container stack), scalars.c and members.c (the yajl
 * callbacks), and this file (the window, feeding, the end, ks_rd_run). */
#include "redact/redact_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yajl_alloc.h"
#include "json/textpos.h"

#define CHUNK (256 * 1024)

static const yajl_callbacks callbacks = {
    ks_rw_on_null, ks_rw_on_bool, NULL, NULL, ks_rw_on_number, ks_rw_on_string,
    ks_rw_on_start_map, ks_rw_on_key, ks_rw_on_end, ks_rw_on_start_array, ks_rw_on_end,
};

static void on_repair(void *ctx, int kind, size_t in_off)
{
    ks_rw_eng *e = ctx;
    (void)kind;
    (void)in_off;
    e->res->repairs++;
}

/* append the filtered bytes of a run to the window, dropping what is flushed */
static void window_add(ks_rw_eng *e, const char *p, size_t n)
{
    size_t keep_from = (size_t)(e->flushed - e->win_base);
    if (keep_from) {
        memmove(e->win, e->win + keep_from, e->win_len - keep_from);
        e->win_len -= keep_from;
        e->win_base = e->flushed;
    }
    if (e->win_len + n > e->win_cap) {
        size_t want = e->win_len + n + CHUNK;
        e->win_cap = want > 2 * e->win_cap ? want : 2 * e->win_cap;
        e->win = ks_xrealloc(e->win, e->win_cap);
    }
    memcpy(e->win + e->win_len, p, n);
    e->win_len += n;
}

/* drop consumed input bytes, keeping line counts (a counting loop the compiler vectorises) */
static void input_discard(ks_rw_eng *e, size_t pos)
{
    ks_text_count(e->inbuf, pos, e->in_base, &e->lines_before, &e->last_nl);
    memmove(e->inbuf, e->inbuf + pos, e->in_len - pos);
    e->in_len -= pos;
    e->in_base += pos;
}

static int syntax_error(ks_rw_eng *e, uint64_t at_in)
{
    unsigned char *m = yajl_get_error(e->h, 0, NULL, 0);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(e->h, m);
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = 0;
    uint64_t line, col;
    ks_rw_line_col(e, at_in, &line, &col);
    return ks_error_set_at(e->err, at_in, line, col, "%s (the trace does not parse: not redacted)",
                           msg);
}

/* Filtered bytes after the last complete token: an unfinished token that yajl holds (or a few
 * small tokens since the last mark). */
static uint64_t pending(const ks_rw_eng *e)
{
    uint64_t end = e->win_base + e->win_len;
    uint64_t from = e->prev_end > e->flushed ? e->prev_end : e->flushed; /* blanks go out */
    return end > from ? end - from : 0;
}

/* Feed input[pos, pos+avail) through the pre-filter and yajl. Returns bytes consumed or -1. */
static long feed(ks_rw_eng *e, size_t pos, size_t avail, int eof)
{
    e->run_in_base = e->in_base + pos;
    size_t consumed = ks_repair_run(&e->rep, e->inbuf + pos, avail, eof);
    if (!e->rep.res_len)
        return (long)consumed;
    /* yajl lexes the token it holds unfinished again from its start: count that work too */
    e->res->bytes_lexed += pending(e) + e->rep.res_len;
    window_add(e, e->rep.res, e->rep.res_len);
    e->run_base = e->win_base + e->win_len - e->rep.res_len;
    yajl_status ys = yajl_parse(e->h, (const unsigned char *)e->rep.res, e->rep.res_len);
    if (!e->failed && e->rd->failed) {
        /* OpenSSL failed: no token can be trusted, fail closed (a pattern that fails on one
         * string fails closed for that string only: scan.c) */
        uint64_t at = e->run_in_base, line, col;
        ks_rw_line_col(e, at, &line, &col);
        ks_error_set_at(e->err, at, line, col,
                        "the keyed hash of the pseudonyms (HMAC-SHA256, OpenSSL) failed in the "
                        "text after this point: not redacted");
        e->failed = 1;
    }
    if (e->failed)
        return -1;
    if (ys != yajl_status_ok) {
        size_t off = yajl_get_bytes_consumed(e->h);
        syntax_error(e, e->run_in_base + ks_repair_in_offset(&e->rep, off));
        return -1;
    }
    /* everything before the last complete token is decided, and so are the blanks after it (and
     * the ',' or ':' among them): they go out now, so that a run of blanks between two tokens
     * needs no memory however long it is */
    ks_rw_emit_upto(e, e->prev_end);
    if (e->flushed >= e->prev_end && e->flushed >= e->win_base) {
        const char *q = e->win + (e->flushed - e->win_base), *end = e->win + e->win_len;
        while (q < end && (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r' || *q == ',' || *q == ':'))
            q++;
        ks_rw_emit_upto(e, e->win_base + (uint64_t)(q - e->win));
    }
    return (long)consumed;
}

static int read_more(ks_rw_eng *e, ks_stream *in, int *eof)
{
    if (e->in_cap < e->in_len + CHUNK) {
        size_t want = e->in_len + CHUNK;
        e->in_cap = want > 2 * e->in_cap ? want : 2 * e->in_cap;
        e->inbuf = ks_xrealloc(e->inbuf, e->in_cap);
    }
    ks_error rerr;
    ssize_t r = ks_stream_read(in, e->inbuf + e->in_len, CHUNK, &rerr);
    if (r < 0) {
        uint64_t at = e->in_base + e->in_len, line, col;
        ks_rw_line_col(e, at, &line, &col);
        return ks_error_set_at(e->err, at, line, col, "read error: %s", rerr.msg);
    }
    if (r == 0)
        *eof = 1;
    e->in_len += (size_t)r;
    e->res->bytes_in += (uint64_t)r;
    if (e->rd->progress)
        e->rd->progress(e->rd->progress_ctx, in, e->res->bytes_in);
    return KS_OK;
}

/* At the end: an array of events without its ']' (allowed by the format) is closed. */
static int unterminated_array(const ks_rw_eng *e)
{
    return e->depth == 1 && !e->st[1].is_map && e->st[1].kind == RW_EVENTS;
}

static int finish(ks_rw_eng *e)
{
    e->completing = 1;
    yajl_status ys = yajl_complete_parse(e->h);
    e->completing = 0;
    if (e->failed)
        return KS_ERR;
    if (!e->seen)
        return ks_error_set(e->err, "empty input");
    if (ys != yajl_status_ok || e->depth != 0) {
        uint64_t at = e->in_base + e->in_len, line, col;
        ks_rw_line_col(e, at, &line, &col);
        return ks_error_set_at(e->err, at, line, col,
                               "the trace ends inside %zu open container%s (truncated? not "
                               "redacted)",
                               e->depth, e->depth == 1 ? "" : "s");
    }
    ks_rw_emit_upto(e, e->win_base + e->win_len);
    return KS_OK;
}

static void eng_free(ks_rw_eng *e)
{
    if (e->h)
        yajl_free(e->h);
    ks_repair_free(&e->rep);
    free(e->win);
    free(e->inbuf);
    free(e->st);
    free(e->kc);
    free(e->out);
    ks_buf_free(&e->path);
    ks_buf_free(&e->enc);
}

static int run_loop(ks_rw_eng *e, ks_stream *in)
{
    int eof = 0, first = 1, closed = 0;
    size_t pos = 0;
    for (;;) {
        if (read_more(e, in, &eof) != KS_OK)
            return KS_ERR;
        if (first && (e->in_len >= 3 || eof)) {
            first = 0;
            if (e->in_len >= 3 && !memcmp(e->inbuf, "\xef\xbb\xbf", 3))
                pos = 3; /* a byte order mark is dropped */
        }
        if (first)
            continue;
        /* inside a token longer than a chunk, feed it in parts that double: yajl lexes a token
         * cut by a feed again from its start, so chunk-sized parts cost its length squared */
        uint64_t held = pending(e);
        if (!eof && held > CHUNK && e->in_len - pos < held)
            continue;
        long c = feed(e, pos, e->in_len - pos, 0);
        if (c < 0)
            return KS_ERR;
        pos += (size_t)c;
        if (eof && !closed && unterminated_array(e)) {
            /* behave as if the file ended with ']' */
            input_discard(e, pos);
            pos = 0;
            if (e->in_cap < e->in_len + 2)
                e->inbuf = ks_xrealloc(e->inbuf, e->in_cap = e->in_len + 2);
            memcpy(e->inbuf + e->in_len, "\n]", 2);
            e->in_len += 2;
            closed = 1;
            e->res->closed_array = 1;
        }
        if (eof) {
            c = feed(e, pos, e->in_len - pos, 1);
            if (c < 0)
                return KS_ERR;
            return finish(e);
        }
        input_discard(e, pos);
        pos = 0;
    }
}

int ks_rd_run(ks_redactor *rd, ks_stream *in, const ks_rd_engine_opts *eo, ks_redact_result *res,
              ks_error *err)
{
    memset(res, 0, sizeof *res);
    ks_rw_eng e;
    memset(&e, 0, sizeof e);
    e.rd = rd;
    e.check = eo->check;
    e.err = err;
    e.res = res;
    e.write = eo->write;
    e.wctx = eo->wctx;
    e.on_finding = eo->on_finding;
    e.fctx = eo->fctx;
    e.last_nl = -1;
    e.tok_start = UINT64_MAX;
    ks_repair_init(&e.rep);
    e.rep.on_repair = on_repair;
    e.rep.ctx = &e;
    e.out = e.check ? NULL : ks_xmalloc(RW_OUTBUF);
    e.cap = 64;
    e.st = ks_xcalloc(e.cap, sizeof *e.st);
    e.kc = ks_xcalloc(RW_KC_SLOTS, sizeof *e.kc);
    /* through the library's out-of-memory handler, like every other allocation */
    e.h = yajl_alloc(&callbacks, ks_yajl_alloc_funcs(), &e);
    if (!e.h) {
        eng_free(&e);
        return ks_error_set(err, "cannot create a JSON parser");
    }
    /* the pre-filter has already replaced invalid UTF-8 */
    yajl_config(e.h, yajl_dont_validate_strings, 1);

    rd->strings_scanned = 0;
    rd->late = 0;
    ks_rd_words_reset(rd);
    rd->hit = ks_rw_on_hit;
    rd->hit_ctx = &e;

    int rc = run_loop(&e, in);
    ks_rw_out_flush(&e);
    if (rc == KS_OK && e.write_failed)
        rc = ks_error_set(err, "cannot write the output");
    res->events = (uint64_t)e.events;
    res->late_literals = rd->late;
    rd->hit = NULL;
    rd->hit_ctx = NULL;
    rd->muted = 0;
    eng_free(&e);
    return rc;
}

int ks_redact_stream(ks_redactor *rd, ks_stream *in, ks_redact_write_fn w, void *wctx,
                     ks_redact_result *res, ks_error *err)
{
    ks_rd_engine_opts eo = {0};
    eo.write = w;
    eo.wctx = wctx;
    return ks_rd_run(rd, in, &eo, res, err);
}

int ks_redact_check_stream(ks_redactor *rd, ks_stream *in, ks_redact_finding_fn cb, void *ctx,
                           ks_redact_result *res, ks_error *err)
{
    ks_rd_engine_opts eo = {0};
    eo.check = 1;
    eo.on_finding = cb;
    eo.fctx = ctx;
    return ks_rd_run(rd, in, &eo, res, err);
}

