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
    return p->in_base + p->run_start + ks_ps_token_end_in(&p->run, p->inbuf + p->run_start, out_off, &p->run_hint);
}

uint64_t ks_ps_cur_offset(ks_parser *p)
{
    if (p->feeding_prefix)
        return p->in_base + p->run_start;
    return ks_ps_run_abs(p, p->feed_off + ks_ps_consumed(p));
}

void ks_ps_line_col(ks_parser *p, uint64_t abs, uint64_t *line, uint64_t *col)
{
    if (p->has_lc && abs == p->lc_at && abs < p->in_base) {
        *line = p->lc_line;
        *col = p->lc_col;
        return;
    }
    ks_text_win w = {p->inbuf, p->in_len, p->in_base, p->lines_before, p->last_nl, 0, 0, -1};
    if (p->keep.n && abs >= p->keep_base && abs < p->in_base) {
        /* in the bytes kept from an earlier reader window */
        w = (ks_text_win){p->keep.p, p->keep.n, p->keep_base, p->keep_lines, p->keep_last_nl, 0, 0, -1};
        ks_text_line_col(&w, abs, line, col);
        return;
    }
    int in_window = abs >= p->in_base && abs - p->in_base <= p->in_len;
    if (p->win_buf == p->inbuf && p->win_base == p->in_base && p->win_upto <= p->in_len) {
        /* the reader's window: its own count of newlines applies */
        w.upto = p->win_upto;
        w.upto_lines = p->win_lines;
        w.upto_last = p->win_last;
    }
    uint64_t rel = in_window ? abs - p->in_base : 0;
    if (in_window && p->lcc_ok && p->lcc_abs >= p->in_base && p->lcc_abs <= abs &&
        !(w.upto && rel <= w.upto && w.upto - rel < abs - p->lcc_abs)) {
        /* count on from the last position asked for (positions come mostly in order), unless the
         * reader's count from the window's end is nearer */
        size_t off = (size_t)(p->lcc_abs - p->in_base);
        w = (ks_text_win){p->inbuf + off, p->in_len - off, p->lcc_abs, p->lcc_lines, p->lcc_last, 0, 0, -1};
    }
    ks_text_line_col(&w, abs, line, col);
    if (in_window) {
        p->lcc_ok = 1;
        p->lcc_abs = abs;
        p->lcc_lines = *line - 1;
        p->lcc_last = (int64_t)abs - (int64_t)*col; /* the column counts from the byte after it */
    }
}

/* The raw input byte at absolute offset abs, from the kept bytes or the window; -1 past both. */
int ks_ps_raw_byte(const ks_parser *p, uint64_t abs)
{
    if (abs < p->in_base) {
        if (p->keep.n && abs >= p->keep_base && abs - p->keep_base < p->keep.n)
            return (unsigned char)p->keep.p[abs - p->keep_base];
        return -1;
    }
    return abs - p->in_base < p->in_len ? (unsigned char)p->inbuf[abs - p->in_base] : -1;
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
    uint64_t abs = ks_ps_next_token(p, p->acc_keep);
    return !p->acc_comma && ks_ps_raw_byte(p, abs) == ',' ? ks_ps_next_token(p, abs + 1) : abs;
}

void ks_ps_diag_at(ks_parser *p, const char *id, ks_severity sev, uint64_t at, const char *fmt, ...)
{
    if (p->unit) {
        p->unit_bad = 1; /* positions are the main parser's */
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
    if (p->unit) {
        p->unit_bad = 1;
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
