/* parser/blanks.h: a last pre-filter stage, run by the reader thread after the repair filter: it
 * drops the line breaks and indentation of pretty-printed traces where yajl would only skip them,
 * which saves it ~7% of its work on Kineto's output (and the reader thread, which has time to
 * spare, does it for ~5% of that work).
 *
 * What goes: a run of blanks (' ', '\t', '\r', '\n') that contains a line break, lies within the
 * run, is at least KS_BLANKS_MIN bytes long, follows one of { [ : , and is not followed by '/'.
 * A raw line break is never inside a string once the repair filter has run (it escapes control
 * characters there), so neither is the run nor the byte before it.
 *
 * Why it is exact: the bytes before and after the run stay separate tokens (a structural
 * character ends a token), so yajl sees the same tokens and the parser makes the same calls. The
 * offset map sends the output position where the run was to the run's first byte, which is what
 * yajl means by an offset there: it reports the end of the token it read (here the { [ : or ,),
 * except at a '/' (a comment: the error is put at its start, hence the exclusion) and after a
 * value inside an object (the error is moved back to the start of the unexpected token; a value
 * never ends with { [ : ,). tests/parser/test_reader.c compares traces, diagnostics and errors read
 * with this stage and without. Internal to parser/. */
#ifndef KS_BLANKS_H
#define KS_BLANKS_H

#include <stddef.h>
#include <stdint.h>

#include "json/repair.h"

#define KS_BLANKS_MIN 3

/* Storage for a rewritten run (one per reader slot). out and map are malloc'ed, or lent: slices of
 * memory their owner frees (the reader's ring mapping), never realloc'ed or freed here; a lent one
 * too small is replaced by a malloc'ed one. */
typedef struct ks_blanks_buf {
    char *out;
    size_t cap;
    ks_repair_map *map;
    size_t map_cap;
    int out_lent, map_lent;
} ks_blanks_buf;


void ks_blanks_buf_free(ks_blanks_buf *b);

/* Filter one run (the repair filter's output with its map to input offsets) into *out: the same
 * run when nothing goes, else the shorter bytes and their map, stored in b. */
void ks_blanks_run(const ks_run *in, ks_blanks_buf *b, ks_run *out);

#endif
