/* parser/recover.c: recovery from a syntax error. Outside --strict an error inside traceEvents
 * drops the broken event and resynchronises on the next event start (`,` or `[`, blanks, `{`,
 * blanks, `"`) or on the ']' that closes the array; an error in the metadata before the events
 * resumes at "traceEvents"; an error after the events ends the parse with what was read. yajl's
 * errors are sticky, so parsing resumes with a fresh handle fed a synthetic prefix that puts it in
 * the state it had there. Every recovery is counted in the diagnostics with its position.
 * Internal to parser/ (feed.c, parse.c). */
#include "parser/parser_int.h"

#include <string.h>

/* Decide what to do after yajl reported an error at absolute offset at. Returns 0 when the error
 * is fatal (err set), else 1 with p->mode set. */
int ks_ps_on_syntax_error(ks_parser *p, uint64_t at, const char *msg)
{
    int in_events = p->nest.depth >= 1 && p->nest.stack[0] == CX_EVENTS;
    int in_event = 0;
    for (int i = 0; i < p->nest.depth; i++) {
        if (p->nest.stack[i] == CX_EVENTS)
            in_events = 1;
        if (p->nest.stack[i] == CX_EVENT)
            in_event = 1;
    }
    /* a second document after the trace: a concatenated file, JSON Lines; named as such */
    int second = p->nest.top_done && (ks_ps_raw_byte(p, at) == '{' || ks_ps_raw_byte(p, at) == '[');
    if (p->strict && second)
        return ks_ps_fatal_at(p, at, "invalid JSON: a second JSON document after the trace (a concatenated "
                                     "file or JSON Lines: give one trace per file)");
    if (p->strict)
        return ks_ps_fatal_at(p, at, "invalid JSON: %s", msg);
    if (!p->t->container)
        return ks_ps_fatal_at(p, at, "%s: %s",
                              ks_ps_raw_byte(p, at) == 0 ? "not JSON" : "not a JSON trace", msg);
    if (p->nest.top_done) {
        if (second)
            ks_ps_diag_at(p, "parse.trailing_garbage", KS_SEV_WARNING, at,
                          "a second JSON document after the trace: it and everything after it ignored, "
                          "only the first trace read (a concatenated file or JSON Lines: give one trace "
                          "per file; --strict makes it an error)");
        else
            ks_ps_diag_at(p, "parse.trailing_garbage", KS_SEV_WARNING, at,
                          "bytes after the trace ignored: %s", msg);
        p->mode = M_STOP;
        return 1;
    }
    if (in_events || in_event) {
        ks_ps_diag_at(p, "parse.skipped_event", KS_SEV_ERROR, at, "event skipped: %s", msg);
        p->rs.target = RS_EVENT;
        int ev = 0;
        while (ev < p->nest.depth && p->nest.stack[ev] != CX_EVENTS)
            ev++;
        /* containers open inside traceEvents, then traceEvents itself */
        p->rs.close = (int64_t)(p->nest.depth - ev - 1) + p->nest.skip + 1;
        p->rs.depth = 0;
        p->rs.str = p->rs.esc = 0;
    } else if (p->t->container == '{' && !p->nest.in_events_seen) {
        ks_ps_diag_at(p, "parse.skipped_metadata", KS_SEV_WARNING, at,
                      "metadata skipped up to \"traceEvents\": %s", msg);
        p->rs.target = RS_TRACE_EVENTS;
    } else {
        ks_ps_diag_at(p, "parse.skipped_tail", KS_SEV_WARNING, at,
                      "metadata after the events ignored: %s", msg);
        p->mode = M_STOP;
        return 1;
    }
    p->mode = M_RESYNC;
    p->rs.state = 0;
    p->rs.from = at;
    return 1;
}

/* Follow the brackets outside strings while looking for the next event: 1 at the ']' that closes
 * traceEvents, when it comes before any next event (the broken event was the last one). */
static int closes_events(ks_parser *p, char c)
{
    if (p->rs.str) {
        if (p->rs.esc)
            p->rs.esc = 0;
        else if (c == '\\')
            p->rs.esc = 1;
        else if (c == '"')
            p->rs.str = 0;
        return 0;
    }
    if (c == '"')
        p->rs.str = 1;
    else if (c == '{' || c == '[')
        p->rs.depth++;
    else if (c == '}' || c == ']')
        return --p->rs.depth <= -p->rs.close && c == ']';
    return 0;
}

/* Scan in.buf[*pos..in.len) for the resynchronisation point. Returns 1 when found: *pos is where
 * parsing resumes and *prefix the synthetic JSON to feed before it. */
int ks_ps_resync_scan(ks_parser *p, size_t *pos, const char **prefix)
{
    static const char lit[] = "\"traceEvents\"";
    const char *b = p->in.buf;
    for (size_t i = *pos; i < p->in.len; i++) {
        char c = b[i];
        int blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (p->rs.target == RS_EVENT && closes_events(p, c)) {
            *pos = i;
            *prefix = p->t->container == '[' ? "[" : "{\"traceEvents\":[";
            return 1;
        }
        if (p->rs.target == RS_EVENT) {
            /* ( ',' | '[' ) blank* '{' blank* '"' */
            switch (p->rs.state) {
            case 0: if (c == ',' || c == '[') p->rs.state = 1; break;
            case 1:
                if (c == '{') {
                    p->rs.state = 2;
                    p->rs.brace = p->in.base + i;
                    p->rs.brace_lc = 0;
                }
                else if (!blank) p->rs.state = (c == ',' || c == '[') ? 1 : 0;
                break;
            case 2:
                if (c == '"') {
                    *pos = i;
                    *prefix = p->t->container == '[' ? "[{" : "{\"traceEvents\":[{";
                    return 1;
                }
                if (!blank) p->rs.state = (c == ',' || c == '[') ? 1 : 0;
                break;
            }
        } else {
            /* "traceEvents" blank* ':' blank* '[' */
            if (p->rs.state < (int)sizeof lit - 1) {
                if (c == lit[p->rs.state]) p->rs.state++;
                else p->rs.state = c == '"' ? 1 : 0;
            } else if (p->rs.state == (int)sizeof lit - 1) {
                if (c == ':') p->rs.state++;
                else if (!blank) p->rs.state = c == '"' ? 1 : 0;
            } else {
                if (c == '[') {
                    *pos = i + 1;
                    *prefix = "{\"traceEvents\":[";
                    return 1;
                }
                if (!blank) p->rs.state = c == '"' ? 1 : 0;
            }
        }
    }
    *pos = p->in.len;
    return 0;
}

void ks_ps_restart(ks_parser *p, const char *prefix, size_t pos)
{
    yajl_free(p->h);
    p->h = ks_ps_new_handle(p);
    p->nest.depth = 0;
    p->nest.ctx = 0;
    p->nest.skip = 0;
    p->shp.depth = 0;
    p->nest.key = K_NONE;
    p->nest.top_done = 0;
    ks_repair_reset(&p->rp.rep);
    p->in.run_start = pos;
    p->in.feeding_prefix = p->acc.unplaced = 1;
    yajl_parse(p->h, (const unsigned char *)prefix, strlen(prefix));
    p->in.feeding_prefix = p->acc.unplaced = 0;
    if (prefix[strlen(prefix) - 1] == '{') {
        /* the event starts at its own '{', which may have left the window during the scan */
        p->ev.start = p->rs.brace;
        if (p->rs.brace_lc) {
            p->pos.has_lc = 1;
            p->pos.lc_at = p->rs.brace;
            p->pos.lc_line = p->rs.brace_line;
            p->pos.lc_col = p->rs.brace_col;
        }
    }
    uint64_t at = p->in.base + pos;
    /* the prefix stands for what was accepted up to here: the bytes from here on stay in the
     * window until a token after them is accepted, so that a repair in the first token after
     * the resynchronisation is placed whatever the chunking */
    p->acc.abs = p->acc.keep = at;
    p->acc.comma = 0;
    p->acc.value = 0; /* the prefix ends where a value or key is expected */
    p->acc.has = 1;
    p->acc.set = 0;
    ks_diag_count(&p->t->diag, "parse.resync_bytes_skipped", KS_SEV_WARNING, at - p->rs.from);
    p->mode = M_PARSE;
}
