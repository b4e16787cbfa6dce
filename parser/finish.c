/* parser/finish.c: the end of the input. What the parser's state at the end means: a bare array
 * without its ']' is allowed, anything else cut is a truncated trace that keeps every event whose
 * '}' was read (or an error when there is none, or in --strict); skipped parts become errors in
 * --strict; thread names, which arrive after the events they name, go to their tracks; the trace
 * is sorted and finished (store). Internal to parser/ (parse.c). */
#include "parser/parser_int.h"

int ks_ps_finish(ks_parser *p, ks_error *err)
{
    ks_trace *t = p->t;
    if (!t->container)
        return ks_error_set(err, p->in.base + p->in.len ? "not a trace: no JSON object or array found"
                                                         : "empty input");
    if (!p->nest.top_done && p->mode != M_STOP) {
        uint64_t end = p->in.base + p->in.len;
        int in_event = 0;
        for (int i = 0; i < p->nest.depth; i++)
            if (p->nest.stack[i] == CX_EVENT)
                in_event = 1;
        if (t->container == '[' && p->nest.depth == 1 && p->nest.stack[0] == CX_EVENTS && !p->nest.skip) {
            ks_diag_add(&t->diag, "parse.array_unclosed", KS_SEV_INFO,
                        "array without its closing ']' (allowed by the format)");
        } else {
            t->truncated = 1;
            t->truncated_at = p->last_commit_end;
            uint64_t line, col;
            ks_ps_line_col(p, end, &line, &col);
            if (!p->events_read) /* nothing to keep: say so, where the input ends */
                return ks_error_set_at(err, end, line, col,
                                       "input ends inside the trace before any complete event "
                                       "(truncated file: %llu bytes%s)", (unsigned long long)end,
                                       p->nest.in_events_seen ? ", the traceEvents array opened and nothing "
                                                           "followed" : "");
            if (p->strict)
                return ks_error_set_at(err, end, line, col,
                                       "input ends inside the trace (truncated file)");
            ks_diag_add_at(&t->diag, "parse.truncated", KS_SEV_ERROR, end, line, col,
                           "input ends inside the trace%s; the %llu complete event%s before byte "
                           "%llu %s kept",
                           in_event ? " (an event was cut)" : "",
                           (unsigned long long)p->events_read, p->events_read == 1 ? "" : "s",
                           (unsigned long long)p->last_commit_end, p->events_read == 1 ? "is" : "are");
        }
    }
    if (p->mode == M_RESYNC)
        ks_diag_count(&t->diag, "parse.resync_bytes_skipped", KS_SEV_WARNING,
                      p->in.base + p->in.len - p->rs.from);
    if (t->container == '{' && !p->nest.in_events_seen)
        return ks_error_set(err, "not a Chrome trace: no \"traceEvents\" array");
    if (p->strict && p->t->diag.n) {
        /* skipped events and similar are errors in strict mode */
        for (size_t i = 0; i < t->diag.n; i++) {
            const ks_diag_kind *k = &t->diag.kinds[i];
            if (k->severity >= KS_SEV_WARNING && k->nexamples && k->ex[0].has_pos)
                return ks_error_set_at(err, k->ex[0].byte, k->ex[0].line, k->ex[0].column,
                                       "%s (%s; --strict)", k->ex[0].text, k->id);
        }
    }
    /* thread names arrive after the events they name */
    for (size_t i = 0; i < p->npt; i++) {
        uint32_t tr;
        if (!ks_trace_track_find(t, p->pt[i].pid, p->pt[i].tid, &tr)) {
            ks_diag_count(&t->diag, "parse.thread_metadata_without_events", KS_SEV_INFO, 1);
            continue;
        }
        if (p->pt[i].has_name)
            t->tracks[tr].name = p->pt[i].name;
        if (p->pt[i].has_sort) {
            t->tracks[tr].sort_index = p->pt[i].sort_index;
            t->tracks[tr].has_sort_index = 1;
        }
    }
    t->events = 0;
    for (size_t i = 0; i < t->ntracks; i++)
        t->events += t->tracks[i].n;
    ks_diag_sort(&t->diag);
    ks_trace_finish(t);
    return KS_OK;
}
