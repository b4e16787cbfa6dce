/* json/scan.c: the fast scanner of whole array elements (see scan.h for what it accepts and why
 * its calls are yajl's). One pass, no copies but the decoding of strings with escapes; strings
 * are searched 16 bytes at a time with SSE2 where the compiler has it. */
#include "json/scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define OK KS_JSCAN_OK
#define CANCEL KS_JSCAN_CANCELED
#define REFUSE KS_JSCAN_REFUSED

/* The byte at i, or 0 past the end: 0 is refused wherever a byte is looked at. */
#define AT(i) ((i) < len ? buf[i] : 0)

/* The byte that closes a container opened by open ('{' or '['). */
static inline unsigned char closer(unsigned char open)
{
    return open == '{' ? '}' : ']';
}

/* What may follow a number or a literal inside an element: yajl stops there too. */
static inline int ends_value(unsigned char c)
{
    return ks_jscan_blank(c) || c == ',' || c == '}' || c == ']';
}

/* The first byte at or after i that is '"', '\\' or below 0x20 (len if none). */
static inline size_t string_stop(const unsigned char *buf, size_t len, size_t i)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    while (i + 16 <= len) {
        __m128i v = _mm_loadu_si128((const __m128i *)(buf + i));
        /* v <= 0x1f unsigned: min(v, 0x1f) == v */
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return i + (size_t)__builtin_ctz(bits);
        i += 16;
    }
#endif
    while (i < len && buf[i] != '"' && buf[i] != '\\' && buf[i] >= 0x20)
        i++;
    return i;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void dec_put(ks_jscan *s, size_t *n, const void *p, size_t k)
{
    KS_GROW(s->dec, s->dec_cap, *n + k + 1);
    memcpy(s->dec + *n, p, k);
    *n += k;
}

/* One escape at buf[i] == '\\' appended decoded; returns the offset after it, or 0 (refused). */
static size_t escape(ks_jscan *s, size_t *n, const unsigned char *buf, size_t len, size_t i)
{
    unsigned char c = AT(i + 1), out[4];
    switch (c) {
    case '"': case '\\': case '/':
        out[0] = c;
        break;
    case 'b': out[0] = '\b'; break;
    case 'f': out[0] = '\f'; break;
    case 'n': out[0] = '\n'; break;
    case 'r': out[0] = '\r'; break;
    case 't': out[0] = '\t'; break;
    case 'u': {
        unsigned cp = 0;
        for (size_t k = 2; k < 6; k++) {
            int h = hexval(AT(i + k));
            if (h < 0)
                return 0;
            cp = cp << 4 | (unsigned)h;
        }
        if ((cp & 0xFC00) == 0xD800)
            return 0; /* a high surrogate: yajl's pairing rules are its own; let it decide */
        size_t k;
        if (cp < 0x80) {
            out[0] = (unsigned char)cp; /* U+0000 too: yajl appends the one NUL byte */
            k = 1;
        } else if (cp < 0x800) {
            out[0] = (unsigned char)(0xC0 | cp >> 6);
            out[1] = (unsigned char)(0x80 | (cp & 0x3F));
            k = 2;
        } else {
            out[0] = (unsigned char)(0xE0 | cp >> 12);
            out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
            out[2] = (unsigned char)(0x80 | (cp & 0x3F));
            k = 3;
        }
        dec_put(s, n, out, k);
        return i + 6;
    }
    default:
        return 0;
    }
    dec_put(s, n, out, 1);
    return i + 2;
}

/* The rest of a string that string() found an escape or a control byte in, at j: decoded into
 * s->dec from a (its first byte). Out of line: rare in a trace, and string() stays small enough
 * to be inlined at its two calls. */
KS_NOINLINE static size_t string_escaped(ks_jscan *s, const unsigned char *buf, size_t len, size_t a, size_t j,
                                         const unsigned char **str, size_t *slen)
{
    size_t n = 0;
    for (;;) {
        if (j >= len || buf[j] < 0x20)
            return 0;
        dec_put(s, &n, buf + a, j - a);
        if (buf[j] == '"')
            break;
        if (!(a = escape(s, &n, buf, len, j)))
            return 0;
        j = string_stop(buf, len, a);
    }
    *str = s->dec;
    *slen = n;
    return j + 1;
}

/* The string whose opening quote is at i: *str, *slen (decoded when it has escapes) and the
 * offset after its closing quote, or 0 when refused. */
static inline size_t string(ks_jscan *s, const unsigned char *buf, size_t len, size_t i,
                            const unsigned char **str, size_t *slen)
{
    size_t a = i + 1, j = string_stop(buf, len, a);
    if (__builtin_expect(j < len && buf[j] == '"', 1)) {
        *str = buf + a;
        *slen = j - a;
        return j + 1;
    }
    return string_escaped(s, buf, len, a, j, str, slen);
}

static inline int digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Past the decimal digits at i: 8 bytes at a time (a timestamp's 16 integer digits in two steps).
 * A byte's flag is non-zero unless its high nibble is 3 both as it is and plus 6 (0x30-0x39); a
 * carry out of a byte only reaches the bytes after it, so the lowest flag is exact. */
static inline size_t skip_digits(const unsigned char *buf, size_t len, size_t i)
{
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        uint64_t nd = ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL) |
                      (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL);
        if (nd)
            return i + (size_t)__builtin_ctzll(nd) / 8; /* little-endian: the first byte is lowest */
        i += 8;
    }
    while (i < len && digit(buf[i]))
        i++;
    return i;
}

/* yajl's number grammar from i; the offset after it when a blank, ',', '}' or ']' follows, else
 * 0 (refused: yajl would stop there, or wait for more input at the end of the buffer). */
static size_t number(const unsigned char *buf, size_t len, size_t i)
{
    if (AT(i) == '-')
        i++;
    if (AT(i) == '0')
        i++;
    else if (AT(i) >= '1' && AT(i) <= '9')
        i = skip_digits(buf, len, i + 1);
    else
        return 0;
    if (AT(i) == '.') {
        if (!digit(AT(i + 1)))
            return 0;
        i = skip_digits(buf, len, i + 2);
    }
    if (AT(i) == 'e' || AT(i) == 'E') {
        i++;
        if (AT(i) == '+' || AT(i) == '-')
            i++;
        if (!digit(AT(i)))
            return 0;
        while (digit(AT(i)))
            i++;
    }
    return ends_value(AT(i)) ? i : 0;
}

/* "true", "false" or "null" at i, followed by a blank, ',', '}' or ']': the offset after it. */
static size_t literal(const unsigned char *buf, size_t len, size_t i, const char *word, size_t n)
{
    if (len - i <= n || memcmp(buf + i, word, n) != 0)
        return 0;
    return ends_value(buf[i + n]) ? i + n : 0;
}

/* The offset after the array that opens at buf[i] == '[' when its values are arrays (at most maxd
 * deep, itself counted), strings with no escape and no byte below 0x20, numbers and literals, as
 * the calls below accept them, all in the buffer; else 0. */
static size_t raw_array_end(const unsigned char *buf, size_t len, size_t i, int maxd)
{
    int d = 0;
    for (;;) {
        /* buf[i]: the first byte of a value */
        unsigned char c = AT(i);
        size_t j;
        if (c == '[') {
            if (++d > maxd)
                return 0;
            i = ks_jscan_skip_blanks(buf, len, i + 1);
            if (AT(i) == ']')
                goto close;
            continue;
        }
        if (c == '"') {
            j = string_stop(buf, len, i + 1);
            j = j < len && buf[j] == '"' ? j + 1 : 0;
        } else if (c == 't') {
            j = literal(buf, len, i, "true", 4);
        } else if (c == 'f') {
            j = literal(buf, len, i, "false", 5);
        } else if (c == 'n') {
            j = literal(buf, len, i, "null", 4);
        } else {
            j = number(buf, len, i);
        }
        if (!j)
            return 0;
        i = j;
    after:
        i = ks_jscan_skip_blanks(buf, len, i);
        if (AT(i) == ',') {
            i = ks_jscan_skip_blanks(buf, len, i + 1);
            continue;
        }
        if (AT(i) != ']')
            return 0;
    close:
        i++;
        if (--d == 0)
            return i;
        goto after;
    }
}

int ks_jscan_elements(ks_jscan *s, const yajl_callbacks *cb, void *ctx, const unsigned char *buf,
                      size_t len)
{
    unsigned char stack[KS_JSCAN_DEPTH]; /* '{' or '[' per open container */
    int d = 0;
    size_t i = 0, j;
    const unsigned char *str;
    size_t slen;
    int raw = 0; /* the value after this key is wanted whole (want_raw) */

#define CALL(end, call)                                                                            \
    do {                                                                                           \
        s->consumed = (end);                                                                       \
        if (!(call))                                                                               \
            return CANCEL;                                                                         \
    } while (0)

    for (;;) {
        i = ks_jscan_skip_blanks(buf, len, i);
        if (i == len)
            return OK;
value:
        if (raw) {
            raw = 0;
            if (AT(i) == '[' && (j = raw_array_end(buf, len, i, KS_JSCAN_DEPTH - d))) {
                CALL(j, s->raw_array(ctx, buf + i, j - i));
                i = j;
                goto after_value;
            }
        }
        switch (AT(i)) {
        case '{':
        case '[':
            if (d == KS_JSCAN_DEPTH)
                return REFUSE;
            stack[d++] = buf[i++];
            CALL(i, stack[d - 1] == '{' ? cb->yajl_start_map(ctx) : cb->yajl_start_array(ctx));
            i = ks_jscan_skip_blanks(buf, len, i);
            if (AT(i) == closer(stack[d - 1]))
                goto close; /* empty */
            if (stack[d - 1] == '{')
                goto key;
            goto value;
        case '"':
            if (!(j = string(s, buf, len, i, &str, &slen)))
                return REFUSE;
            i = j;
            CALL(i, cb->yajl_string(ctx, str, slen));
            goto after_value;
        case 't':
            if (!(j = literal(buf, len, i, "true", 4)))
                return REFUSE;
            i = j;
            CALL(i, cb->yajl_boolean(ctx, 1));
            goto after_value;
        case 'f':
            if (!(j = literal(buf, len, i, "false", 5)))
                return REFUSE;
            i = j;
            CALL(i, cb->yajl_boolean(ctx, 0));
            goto after_value;
        case 'n':
            if (!(j = literal(buf, len, i, "null", 4)))
                return REFUSE;
            i = j;
            CALL(i, cb->yajl_null(ctx));
            goto after_value;
        default:
            if (!(j = number(buf, len, i)))
                return REFUSE;
            CALL(j, cb->yajl_number(ctx, (const char *)buf + i, j - i));
            i = j;
            goto after_value;
        }
key:
        if (AT(i) != '"' || !(j = string(s, buf, len, i, &str, &slen)))
            return REFUSE;
        i = j;
        s->want_raw = 0;
        CALL(i, cb->yajl_map_key(ctx, str, slen));
        raw = s->want_raw && s->raw_array;
        s->want_raw = 0;
        i = ks_jscan_skip_blanks(buf, len, i);
        if (AT(i) != ':')
            return REFUSE;
        i = ks_jscan_skip_blanks(buf, len, i + 1);
        goto value;
after_value:
        i = ks_jscan_skip_blanks(buf, len, i);
        if (!d) {
            if (i == len)
                return OK;
            if (buf[i] != ',')
                return REFUSE;
            i++;
            continue;
        }
        if (AT(i) == ',') {
            i = ks_jscan_skip_blanks(buf, len, i + 1);
            if (stack[d - 1] == '{')
                goto key;
            goto value;
        }
        if (AT(i) != closer(stack[d - 1]))
            return REFUSE;
close: /* buf[i] closes the innermost container */
        i++;
        d--;
        CALL(i, stack[d] == '{' ? cb->yajl_end_map(ctx) : cb->yajl_end_array(ctx));
        goto after_value;
    }
#undef CALL
}

void ks_jscan_free(ks_jscan *s)
{
    free(s->dec);
    s->dec = NULL;
    s->dec_cap = 0;
}
