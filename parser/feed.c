/* parser/feed.c: feeding yajl and settling what it did. A filtered run (json/repair.h) goes to
 * yajl whole or in parts; afterwards the repairs yajl accepted are counted (the others stay
 * pending: they are filtered again after a resynchronisation), and a syntax error is placed at the
 * offending input byte (yajl's own offset depends on how the input was cut, so it is named from
 * the raw bytes the window keeps after the last accepted token) and handed to recover.c. Also the
 * window's bookkeeping: where it may be cut, and dropping its head while counting its newlines.
 * Internal to parser/ (parse.c, spec.c). */
#include "parser/parser_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/textpos.h"

void ks_ps_on_repair(void *ctx, int kind, size_t in_off)
{
    ks_parser *p = ctx;
    ks_pending_add(&p->rp.pending, &p->rp.npending, &p->rp.pending_cap, (uint32_t)kind, p->in.base + p->in.run_start + in_off, 1);
}

/* Count the pending repairs that lie before limit (yajl accepted them: a token ended after them,
 * or the syntax error lies after them); the others stay pending, in order. After a syntax error
 * the caller drops them: they are filtered again after the resynchronisation. */
void ks_ps_commit_repairs(ks_parser *p, uint64_t limit)
{
    size_t kept = 0;
    for (size_t i = 0; i < p->rp.npending; i++) {
        int kind = (int)p->rp.pending[i].kind;
        uint64_t at = p->rp.pending[i].at, n = p->rp.pending[i].n;
        if (at >= limit) {
            p->rp.pending[kept++] = p->rp.pending[i];
            continue;
        }
        uint64_t take = limit - at < n ? limit - at : n; /* those before limit */
        if (take < n) {
            p->rp.pending[kept] = p->rp.pending[i];
            p->rp.pending[kept].at = at + take;
            p->rp.pending[kept++].n = (uint32_t)(n - take);
        }
        if (p->strict && !ks_repair_kind_lenient(kind) && !p->rp.strict_kind) {
            p->rp.strict_kind = kind + 1;
            p->rp.strict_at = at;
        }
        const char *id = ks_repair_kind_id(kind);
        ks_severity sev = ks_repair_kind_lenient(kind) ? KS_SEV_INFO : KS_SEV_WARNING;
        const char *what = ks_repair_kind_what(kind);
        for (uint64_t j = 0; j < take; j++) {
            if (p->wk.unit) { /* a worker's unit: positions are the main parser's, the unit is unclean */
                ks_ps_diag_at(p, id, sev, at + j, "%s", what);
                break;
            }
            const ks_diag_kind *k = ks_diag_get(&p->t->diag, id);
            if (k && k->nexamples >= KS_DIAG_EXAMPLES) {
                ks_diag_count(&p->t->diag, id, sev, take - j); /* the rest have no example to give */
                break;
            }
            ks_ps_diag_at(p, id, sev, at + j, "%s", what);
        }
    }
    p->rp.npending = kept;
}

/* The first repair in strict mode is the error. Returns 0 when there was one (err set). */
int ks_ps_strict_repair_ok(ks_parser *p, ks_error *err)
{
    if (!p->rp.strict_kind)
        return 1;
    uint64_t line, col;
    ks_ps_line_col(p, p->rp.strict_at, &line, &col);
    ks_error_set_at(err, p->rp.strict_at, line, col, "malformed string: %s (--strict)",
                    ks_repair_kind_id(p->rp.strict_kind - 1) + 6);
    return 0;
}

/* in.buf[0..upto) is about to be dropped: keep the line and column of the current event's start
 * when it lies there */
void ks_ps_remember_event_start(ks_parser *p, size_t upto)
{
    uint64_t b = p->rs.brace;
    if (p->mode == M_RESYNC && p->rs.state == 2 && !p->rs.brace_lc && b >= p->in.base &&
        b < p->in.base + upto) {
        ks_ps_line_col(p, b, &p->rs.brace_line, &p->rs.brace_col);
        p->rs.brace_lc = 1;
    }
    uint64_t s = p->ev.start;
    if (s >= p->in.base && s < p->in.base + upto) {
        ks_ps_line_col(p, s, &p->pos.lc_line, &p->pos.lc_col);
        p->pos.lc_at = s;
        p->pos.has_lc = 1;
    }
}

void ks_ps_skip_kept_blanks(ks_parser *p)
{
    if (!p->acc.has || p->acc.keep < p->in.base)
        return; /* a kept byte is never a blank: the skip stops at a token or the window's end */
    const char *s = p->in.buf, *end = p->in.buf + p->in.len;
    const char *q = s + (p->acc.keep - p->in.base);
    while (q < end) {
        char c = *q;
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
            q++;
        else if ((c == ',' || c == ':') && !p->acc.comma) {
            p->acc.comma = 1;
            q++;
        } else
            break;
    }
    p->acc.keep = p->in.base + (uint64_t)(q - s);
}

/* Where the window may be cut before reading on, at most pos: not after the end of the last
 * accepted token (see acc.abs) or the blanks after it (acc.keep). */
size_t ks_ps_drop_point(const ks_parser *p, size_t pos)
{
    if (p->mode == M_PARSE && p->acc.has && p->acc.keep >= p->in.base && p->acc.keep - p->in.base < pos)
        return (size_t)(p->acc.keep - p->in.base);
    return pos;
}

/* Drop in.buf[0..pos), counting its newlines. */
void ks_ps_discard(ks_parser *p, size_t pos)
{
    if (!pos)
        return;
    ks_ps_remember_event_start(p, pos);
    ks_text_count(p->in.buf, pos, p->in.base, &p->pos.lines_before, &p->pos.last_nl);
    memmove(p->in.buf, p->in.buf + pos, p->in.len - pos);
    p->in.len -= pos;
    p->in.base += pos;
}

static char *yajl_message(yajl_handle h)
{
    unsigned char *m = yajl_get_error(h, 0, NULL, 0);
    char *s = ks_xstrdup(m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(h, m);
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = 0;
    return s;
}

/* Hand run[off, off + len) to yajl. */
yajl_status ks_ps_feed_part(ks_parser *p, size_t off, size_t len)
{
    p->in.feed_off = off;
    return len ? yajl_parse(p->h, (const unsigned char *)p->in.run.res + off, len) : yajl_status_ok;
}

/* yajl's lexer stops one byte after the offending byte for an invalid character and a
 * misspelt literal ("trux"), and at the offending byte for every other lexical error (it steps
 * back there): 1 for the two kinds that must be moved back one byte. The offending byte is always
 * in the current feed (a token start or a literal's mismatch is read in the call that fails). */
static int lexed_past_offender(const char *msg)
{
    return strstr(msg, "lexical error: invalid char in json text") != NULL;
}

/* "after key and value, inside map, I expect ',' or '}'" and "after array element, I expect ','
 * or ']'": yajl moves its offset back by the offending token's length, and to the start of the
 * current feed when that token began in an earlier one (yajl_parser.c), so its position depends on
 * the chunking. "trailing garbage": yajl's offset is the end of the first token after the trace
 * (one byte past an invalid byte), which a read may not have reached yet when a feed ends after the
 * trace. In both, the offending token is the first one after the last accepted token: named here
 * from the raw bytes, which the window keeps from there on (acc.abs). */
static int before_offending_token(const char *msg)
{
    return strstr(msg, "I expect ','") != NULL || strstr(msg, "trailing garbage") != NULL;
}

/* "unallowed token at this point in JSON text", "invalid object key (must be a string)" and
 * "object key and value must be separated by a colon (':')": yajl's offset is the end of the
 * offending token (it lexed the token, then refused it), the same whatever the chunking once
 * mapped as a token end (ks_ps_token_end_in); the byte there is not the offender, so it is not
 * named (a zero after the token is no "NUL byte"). */
static int after_offending_token(const char *msg)
{
    return strstr(msg, "unallowed token") != NULL || strstr(msg, "invalid object key") != NULL ||
           strstr(msg, "separated by a colon") != NULL;
}

/* --strict: a repair yajl has lexed (the run went through without an error) inside the token after
 * the last accepted one is the error now, without reading that token to its end (32 MiB of control
 * characters in one name were all filtered first), when nothing can name an error before it:
 * yajl lexes a string's content as it goes (the filter left nothing it refuses), and places an
 * error before the token's end only at the token's start, as "I expect ','" after a complete value
 * with no ',' between, or "trailing garbage" after the trace; a callback fails only on a
 * top-level value. Else the repair waits, as in tolerant mode, for yajl to accept it. */
static void strict_repair_now(ks_parser *p, yajl_status ys)
{
    if (!p->strict || p->rp.strict_kind || !p->rp.npending || ys != yajl_status_ok || !p->acc.has || p->nest.top_done ||
        !p->nest.depth || (p->acc.value && !p->acc.comma))
        return;
    for (size_t i = 0; i < p->rp.npending; i++)
        if (!ks_repair_kind_lenient((int)p->rp.pending[i].kind)) {
            p->rp.strict_kind = p->rp.pending[i].kind + 1;
            p->rp.strict_at = p->rp.pending[i].at;
            return;
        }
}

/* After the run (or its parts) went to yajl: settle its repairs and the syntax error, if any. */
int ks_ps_settle(ks_parser *p, size_t pos, yajl_status ys, ks_error *err, uint64_t *err_at)
{
    if (p->failed)
        return 0;
    *err_at = UINT64_MAX;
    if (p->acc.set) {
        size_t hint = 0;
        p->acc.abs = p->in.base + pos + ks_ps_token_end_in(&p->in.run, p->in.buf + pos, p->acc.run, &hint);
        p->acc.set = 0;
        p->acc.has = 1;
        p->acc.keep = p->acc.abs;
        p->acc.comma = 0;
    }
    char *msg = NULL;
    if (ys != yajl_status_ok) {
        size_t out_off = p->in.feed_off + yajl_get_bytes_consumed(p->h);
        msg = yajl_message(p->h);
        size_t hint = 0, in_off;
        int at_end = after_offending_token(msg);
        if (lexed_past_offender(msg)) {
            /* name the offending byte itself, as the other lexical errors do (in input bytes: the
             * filtered run may have dropped blanks before it, and a trailing comma after it) */
            in_off = ks_ps_token_end_in(&p->in.run, p->in.buf + pos, out_off, &hint);
            if (in_off > 0)
                in_off--;
        } else if (at_end) {
            in_off = ks_ps_token_end_in(&p->in.run, p->in.buf + pos, out_off, &hint);
        } else {
            in_off = ks_run_in_offset(&p->in.run, out_off);
        }
        *err_at = p->in.base + pos + in_off;
        if (before_offending_token(msg) && p->acc.has)
            *err_at = ks_ps_offending_token(p);
        if (!at_end && ks_ps_raw_byte(p, *err_at) == 0) {
            /* binary data (/dev/zero, a sparse or zero-filled file): say so */
            free(msg);
            char buf[64];
            snprintf(buf, sizeof buf, "NUL byte at byte %llu", (unsigned long long)*err_at);
            msg = ks_xstrdup(buf);
        }
    }
    ks_ps_commit_repairs(p, *err_at != UINT64_MAX ? *err_at : p->acc.has ? p->acc.abs : 0);
    if (*err_at != UINT64_MAX) {
        p->rp.npending = 0;
        p->acc.has = 0; /* resynchronising: nothing to keep */
    } else {
        ks_ps_skip_kept_blanks(p);
        strict_repair_now(p, ys);
    }
    if (!ks_ps_strict_repair_ok(p, err)) {
        free(msg);
        return 0;
    }
    if (ys != yajl_status_ok) {
        int ok = ks_ps_on_syntax_error(p, *err_at, msg);
        free(msg);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Hand the filtered run of in.buf[pos ..] (p->in.run) to yajl and settle its repairs. Returns 0
 * on a fatal error (err set); else 1, with *err_at the absolute offset of a syntax error
 * (p->mode set by ks_ps_on_syntax_error) or UINT64_MAX. */
int ks_ps_feed_run(ks_parser *p, size_t pos, ks_error *err, uint64_t *err_at)
{
    p->in.run_hint = 0;
    p->in.last_ev_run_end = SIZE_MAX;
    return ks_ps_settle(p, pos, ks_ps_feed_part(p, 0, p->in.run.len), err, err_at);
}
