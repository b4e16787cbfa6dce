/* json/textpos.h: line and column of a byte of a streamed text, for the diagnostics of the parser
 * (parser/) and of the redactor's rewrite (redact/rewrite.c), which both read a window that moves
 * over the input. A reader keeps, for the window's first byte, the newlines before it and the
 * offset of the last of them; the line and column of a byte in the window follow from the
 * newlines between the window's start and the byte.
 *
 * Correct because a line is the count of '\n' before the byte plus one and a column the distance
 * from the byte after the last '\n' plus one (both 1-based, in bytes, as JSON tools report them);
 * '\r' is not a line break. Does not apply to bytes that already left the window: a reader that
 * needs one of them (an event's start) takes its position before dropping it. Internal to the
 * library; no state, any thread. */
#ifndef KS_TEXTPOS_H
#define KS_TEXTPOS_H

#include <stddef.h>
#include <stdint.h>

/* The newlines of b[0 .. n): 16 bytes per step, counted in byte lanes (at most 255 steps before
 * the lanes are summed: 3 instructions per 16 bytes, where the compiler's own vectorisation of a
 * byte loop widens every byte to 64 bits); pretty-printed traces have one every ~40 bytes, too
 * many for a memchr call each. A plain loop where SSE2 is missing. */
uint64_t ks_text_newlines(const char *b, size_t n);

/* Add the newlines of b[0 .. n) to *lines and set *last to the absolute offset of the last of them
 * (b[0] at absolute offset base); *last unchanged when there is none (ks_text_newlines, then one
 * memrchr): this runs over every byte a reader drops. */
void ks_text_count(const char *b, size_t n, uint64_t base, uint64_t *lines, int64_t *last);

/* A window of text: buf[0 .. len) at absolute offset base, with lines newlines before it, the last
 * at absolute offset last_nl (-1 when none). Optionally (upto > 0) what a reader already counted
 * over the window's first bytes: buf[0 .. upto) holds upto_lines newlines, the last at absolute
 * offset upto_last (-1 when none); a byte nearer upto than the window's start is then counted
 * from upto back (the newlines before it are the known ones less those from it to upto), so the
 * position of a byte near the end of a window costs a few bytes' scan, not the window's. */
typedef struct ks_text_win {
    const char *buf;
    size_t len;
    uint64_t base;
    uint64_t lines;
    int64_t last_nl;
    size_t upto;
    uint64_t upto_lines;
    int64_t upto_last;
} ks_text_win;

/* The newlines before the byte at absolute offset abs (those before the window included) and the
 * absolute offset of the last of them (-1 when none); an offset before the window counts as its
 * start, one past it as its end. */
void ks_text_lines_before(const ks_text_win *w, uint64_t abs, uint64_t *lines, int64_t *last);

/* Line and column (1-based) of the byte at absolute offset abs; an offset before the window counts
 * as its start, one past it as its end. */
void ks_text_line_col(const ks_text_win *w, uint64_t abs, uint64_t *line, uint64_t *col);

#endif
