/* redact/spans.c: where the engine is, in the filtered stream and in the input. yajl reports each
 * token with the offset just past it (yajl_get_bytes_consumed inside a callback), so the end of
 * the current token is exact; a string's start is its opening quote, found back from the end (or
 * at once when yajl handed out a pointer into the run: then the string has no escapes). Input
 * offsets come from the repair filter's offset map of the current run, line and column from
 * json/textpos.h. ks_rw_mark records a complete token: everything before it may be flushed.
 * Internal to redact/ (the engine). */
#include "redact/redact_int.h"

#include <string.h>

#include "json/textpos.h"

uint64_t ks_rw_tok_end(ks_rw_eng *e)
{
    /* in yajl_complete_parse the token pending (a number at the very end of a truncated trace)
     * ends at the end of the stream; yajl's count of bytes consumed is not about any run then */
    if (e->completing)
        return e->win_base + e->win_len;
    return e->run_base + yajl_get_bytes_consumed(e->h);
}

/* The opening quote of the string token that ends at end (its closing quote is at end - 1):
 * the nearest '"' before it that is not escaped (preceded by an even number of '\\'). When
 * yajl handed out a pointer into the run, the string has no escapes: it starts n + 2 bytes
 * before its end. */
uint64_t ks_rw_string_start_n(ks_rw_eng *e, uint64_t end, const char *s, size_t n)
{
    const char *run = e->rep.res;
    if (s && s >= run && s < run + e->rep.res_len && end >= n + 2)
        return end - n - 2;
    const char *w = e->win;
    size_t p = (size_t)(end - 1 - e->win_base); /* the closing quote */
    for (;;) {
        const char *q = memrchr(w, '"', p);
        if (!q)
            return e->win_base;
        size_t i = (size_t)(q - w), k = i;
        while (k > 0 && w[k - 1] == '\\')
            k--;
        if (((i - k) & 1) == 0)
            return e->win_base + i;
        p = i;
    }
}

uint64_t ks_rw_string_start(ks_rw_eng *e, uint64_t end)
{
    return ks_rw_string_start_n(e, end, NULL, 0);
}

/* a complete token ends here: everything before may be flushed after the run */
void ks_rw_mark(ks_rw_eng *e, uint64_t end)
{
    if (end > e->prev_end)
        e->prev_end = end;
}

/* input offset of a filtered offset (exact within the current run) */
uint64_t ks_rw_in_offset(ks_rw_eng *e, uint64_t f)
{
    if (f >= e->run_base)
        return e->run_in_base + ks_repair_in_offset(&e->rep, (size_t)(f - e->run_base));
    uint64_t delta = e->run_base - e->run_in_base;
    return f > delta ? f - delta : 0;
}

void ks_rw_line_col(const ks_rw_eng *e, uint64_t abs, uint64_t *line, uint64_t *col)
{
    ks_text_win w = {e->inbuf, e->in_len, e->in_base, e->lines_before, e->last_nl, 0, 0, -1};
    ks_text_line_col(&w, abs, line, col);
}
