/* common/number.c: exact conversion of decimal number text to int64 (docs/trace-format.md section
 * 4), for the parser's numbers and the options' durations alike.
 * A timestamp in microseconds ("1695835535123.456", "12.5e3") becomes nanoseconds by shifting the
 * decimal point in the digit string itself: no double is ever involved, so 19-digit absolute
 * epoch values stay exact. Digits beyond the nanosecond are rounded half away from zero (as
 * Perfetto's llround(x * 1000) intends) and reported as KS_NUM_ROUNDED. */
#include <stdint.h>

#include "kinesift/parse.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int ks_parse_us_to_ns(const char *s, size_t len, int64_t *ns)
{
    size_t i = 0;
    int neg = 0;
    *ns = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    /* integer part: at least one digit */
    size_t int_start = i;
    while (i < len && is_digit(s[i]))
        i++;
    size_t int_end = i;
    if (int_end == int_start)
        return KS_NUM_SYNTAX;
    size_t frac_start = i, frac_end = i;
    if (i < len && s[i] == '.') {
        i++;
        frac_start = i;
        while (i < len && is_digit(s[i]))
            i++;
        frac_end = i;
        if (frac_end == frac_start)
            return KS_NUM_SYNTAX;
    }
    int64_t exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        size_t e0 = i;
        while (i < len && is_digit(s[i])) {
            if (exp < 100000000) /* saturate: anything this large is out of range anyway */
                exp = exp * 10 + (s[i] - '0');
            i++;
        }
        if (i == e0)
            return KS_NUM_SYNTAX;
        if (eneg)
            exp = -exp;
    }
    if (i != len)
        return KS_NUM_SYNTAX;

    /* digit string D = integer digits then fraction digits; value = D * 10^scale ns */
    size_t nfrac = frac_end - frac_start;
    size_t ndig = (int_end - int_start) + nfrac;
    int64_t scale = exp - (int64_t)nfrac + 3;
#define DIGIT(k) ((k) < (int_end - int_start) ? s[int_start + (k)] : s[frac_start + (k) - (int_end - int_start)])

    /* how many leading digits form the integer result */
    int64_t keep = scale >= 0 ? (int64_t)ndig : (int64_t)ndig + scale;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t acc = 0;
    int overflow = 0;
    for (int64_t k = 0; k < keep && k < (int64_t)ndig; k++) {
        unsigned d = (unsigned)(DIGIT((size_t)k) - '0');
        if (acc > (limit - d) / 10) {
            overflow = 1;
            break;
        }
        acc = acc * 10 + d;
    }
    if (!overflow && scale > 0 && acc) {
        for (int64_t k = 0; k < scale; k++) {
            if (acc > limit / 10) {
                overflow = 1;
                break;
            }
            acc *= 10;
        }
    }
    if (overflow)
        return KS_NUM_RANGE;
    int rounded = 0;
    if (keep < (int64_t)ndig) {
        /* dropped digits: positions max(keep,0) .. ndig-1; the first one (at position keep, if
         * keep >= 0) decides the rounding, any non-zero one makes the result rounded */
        for (int64_t k = keep < 0 ? 0 : keep; k < (int64_t)ndig; k++)
            if (DIGIT((size_t)k) != '0') {
                rounded = 1;
                break;
            }
        if (keep >= 0 && DIGIT((size_t)keep) >= '5') {
            if (acc >= limit)
                return KS_NUM_RANGE;
            acc++;
        }
    }
#undef DIGIT
    if (neg)
        *ns = acc == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)acc;
    else
        *ns = (int64_t)acc;
    return rounded ? KS_NUM_ROUNDED : KS_NUM_EXACT;
}

int ks_parse_int64(const char *s, size_t len, int64_t *v)
{
    size_t i = 0;
    int neg = 0;
    *v = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i == len)
        return KS_NUM_SYNTAX;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t acc = 0;
    int overflow = 0;
    for (; i < len; i++) {
        if (!is_digit(s[i]))
            return KS_NUM_SYNTAX;
        unsigned d = (unsigned)(s[i] - '0');
        if (overflow || acc > (limit - d) / 10) {
            overflow = 1;
            continue;
        }
        acc = acc * 10 + d;
    }
    if (overflow) {
        *v = neg ? INT64_MIN : INT64_MAX;
        return KS_NUM_RANGE;
    }
    *v = neg ? (acc == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
    return KS_NUM_EXACT;
}
