/* parser/compact.h: the compact text of a shape arg that the fast scanner hands over whole
 * (parser/compact.c; values.c, ks_ps_cap_raw). Internal to parser/. */
#ifndef KS_PARSER_COMPACT_H
#define KS_PARSER_COMPACT_H

#include <stddef.h>

/* Copy s[0 .. n) to o at *m less the blanks (space, '\n', '\r', '\t') outside strings, 16 input
 * bytes a step, while a step's output stays below mmax (every byte it writes, too, is below
 * mmax). The strings hold no escape (json/scan.h), so each '"' opens or closes one; *in is 1
 * inside a string, on entry and on return. Returns the input bytes done (all of them unless the
 * output came near mmax; 0 where the CPU lacks SSSE3): the caller does the rest byte by byte,
 * with the same result. */
size_t ks_ps_compact_blocks(const char *s, size_t n, char *o, size_t *m, size_t mmax, unsigned *in);

#endif
