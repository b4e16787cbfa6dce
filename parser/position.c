/* parser/position.c: where the parser is in the input, and the diagnostics placed there. yajl
 * only knows offsets in the filtered run it was fed; ks_ps_cur_offset maps them back to absolute
 * input offsets through the run's offset map (json/repair.h), and ks_ps_line_col names the line and
 * column from the window, the bytes kept from earlier reader windows, or the saved position of the
 * current event's '{' (json/textpos.h): the same numbers whatever the chunking. A worker's parser
 * (unit.h) has no positions of its own: any positioned diagnostic marks its unit unclean instead,
 * and the main parser reads those events itself. Internal to parser/. */
#include "parser/parser_int.h"

#include <stdarg.h>
#include <stdio.h>

#include "json/textpos.h"

size_t ks_ps_token_end_in(const ks_run *run, const char *raw, size_t out, size_t *hint)
{
    size_t in = ks_run_in_offset_hint(run, out, hint);
    if (in && raw[in - 1] == ',' && (!out || run->res[out - 1] != ','))
        in--;
    return in;
}

uint64_t ks_ps_run_abs(ks_parser *p, size_t out_off)
{
    return p->in.base + p->in.run_start + ks_ps_token_end_in(&p->in.run, p->in.buf + p->in.run_start, out_off, &p->in.run_hint);
}

uint64_t ks_ps_cur_offset(ks_parser *p)
{
    if (p->in.feeding_prefix)
        return p->in.base + p->in.run_start;
    return ks_ps_run_abs(p, p->in.feed_off + ks_ps_consumed(p));
}

void ks_ps_line_col(ks_parser *p, uint64_t abs, uint64_t *line, uint64_t *col)
{
    if (p->pos.has_lc && abs == p->pos.lc_at && abs < p->in.base) {
        *line = p->pos.lc_line;
        *col = p->pos.lc_col;
        return;
    }
    ks_text_win w = {p->in.buf, p->in.len, p->in.base, p->pos.lines_before, p->pos.last_nl, 0, 0, -1};
    if (p->pos.keep.n && abs >= p->pos.keep_base && abs < p->in.base) {
        /* in the bytes kept from an earlier reader window */
        w = (ks_text_win){p->pos.keep.p, p->pos.keep.n, p->pos.keep_base, p->pos.keep_lines, p->pos.keep_last_nl, 0, 0, -1};
        ks_text_line_col(&w, abs, line, col);
        return;
    }
    int in_window = abs >= p->in.base && abs - p->in.base <= p->in.len;
    if (p->pos.win_buf == p->in.buf && p->pos.win_base == p->in.base && p->pos.win_upto <= p->in.len) {
        /* the reader's window: its own count of newlines applies */
        w.upto = p->pos.win_upto;
        w.upto_lines = p->pos.win_lines;
        w.upto_last = p->pos.win_last;
    }
    uint64_t rel = in_window ? abs - p->in.base : 0;
    if (in_window && p->pos.lcc_ok && p->pos.lcc_abs >= p->in.base && p->pos.lcc_abs <= abs &&
        !(w.upto && rel <= w.upto && w.upto - rel < abs - p->pos.lcc_abs)) {
        /* count on from the last position asked for (positions come mostly in order), unless the
         * reader's count from the window's end is nearer */
        size_t off = (size_t)(p->pos.lcc_abs - p->in.base);
        w = (ks_text_win){p->in.buf + off, p->in.len - off, p->pos.lcc_abs, p->pos.lcc_lines, p->pos.lcc_last, 0, 0, -1};
    }
    ks_text_line_col(&w, abs, line, col);
    if (in_window) {
        p->pos.lcc_ok = 1;
        p->pos.lcc_abs = abs;
        p->pos.lcc_lines = *line - 1;
        p->pos.lcc_last = (int64_t)abs - (int64_t)*col; /* the column counts from the byte after it */
    }
}

/* The raw input byte at absolute offset abs, from the kept bytes or the window; -1 past both. */
int ks_ps_raw_byte(const ks_parser *p, uint64_t abs)
{
    if (abs < p->in.base) {
        if (p->pos.keep.n && abs >= p->pos.keep_base && abs - p->pos.keep_base < p->pos.keep.n)
            return (unsigned char)p->pos.keep.p[abs - p->pos.keep_base];
        return -1;
    }
    return abs - p->in.base < p->in.len ? (unsigned char)p->in.buf[abs - p->in.base] : -1;
}

/* The first byte at or after abs that is not a JSON blank (the start of the next token). */
uint64_t ks_ps_next_token(const ks_parser *p, uint64_t abs)
{
    for (;;) {
        int c = ks_ps_raw_byte(p, abs);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return abs;
        abs++;
    }
}

uint64_t ks_ps_offending_token(const ks_parser *p)
{
    uint64_t abs = ks_ps_next_token(p, p->acc.keep);
    return !p->acc.comma && ks_ps_raw_byte(p, abs) == ',' ? ks_ps_next_token(p, abs + 1) : abs;
}

void ks_ps_diag_at(ks_parser *p, const char *id, ks_severity sev, uint64_t at, const char *fmt, ...)
{
    if (p->wk.unit) {
        p->wk.bad = 1; /* positions are the main parser's */
        return;
    }
    const ks_diag_kind *k = ks_diag_get(&p->t->diag, id);
    if (k && k->nexamples >= KS_DIAG_EXAMPLES) {
        ks_diag_count(&p->t->diag, id, sev, 1);
        return;
    }
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    ks_ps_line_col(p, at, &line, &col);
    ks_diag_add_at(&p->t->diag, id, sev, at, line, col, "%s", buf);
}

int ks_ps_fatal_at(ks_parser *p, uint64_t at, const char *fmt, ...)
{
    if (p->wk.unit) {
        p->wk.bad = 1;
        p->failed = 1;
        return 0;
    }
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    ks_ps_line_col(p, at, &line, &col);
    ks_error_set_at(p->err, at, line, col, "%s", buf);
    p->failed = 1;
    return 0;
}
