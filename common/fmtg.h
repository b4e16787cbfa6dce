/* common/fmtg.h: a double as "%.Pg" writes it (C locale), without printf: the report writers
 * write many numbers and printf's float formatting costs thousands of instructions each. */
#ifndef KS_FMTG_H
#define KS_FMTG_H

#include <stddef.h>

/* What snprintf(b, 32, "%.*g", prec, v) writes into b (NUL-terminated; 32 bytes hold it for prec
 * from 0 to 17); its length. Exact for every double and every prec from 1 to 17: the digits are
 * the exact binary value rounded to prec significant digits, halves to even, as glibc rounds
 * (test_fmtg checks it against snprintf); values the exact integer arithmetic here does not
 * cover (beyond about 1e38 or below 1e-16, subnormals, NaN, infinities, precision 0) are left to
 * snprintf itself. */
size_t ks_fmt_g(char *b, double v, int prec);

#endif
