/* redact/unicode.c: the little of Unicode the scanners need: decoding the code point that ends
 * (or starts) at a byte of a UTF-8 string, whether it is a letter or digit (a word goes on) or
 * not (a non-breaking space, U+2028, a fullwidth colon: a delimiter), and simple case folding of a
 * string to lowercase for caseless literals ("MÜLLER" matches "müller").
 *
 * The tables are libc's: the C.UTF-8 locale (Debian's libc-bin ships it), opened once with
 * newlocale and used through iswalnum_l and towlower_l, so the process locale is never set.
 * Folding keeps the byte length: a code point whose lowercase has another UTF-8 length (the
 * Kelvin sign, U+0130) is left as it is, so a literal's length in bytes is the same in every
 * case spelling that folds. Without the locale, only ASCII is folded and every byte >= 0x80 is
 * taken for a letter (a word goes on). Who may use it: redact/. */
#include <locale.h>
#include <pthread.h>
#include <wctype.h>

#include "redact/redact_int.h"

static locale_t utf8_loc;
static pthread_once_t loc_once = PTHREAD_ONCE_INIT;

static void loc_init(void)
{
    utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!utf8_loc)
        utf8_loc = newlocale(LC_CTYPE_MASK, "C.utf8", (locale_t)0);
}

static locale_t loc(void)
{
    pthread_once(&loc_once, loc_init);
    return utf8_loc;
}

/* the code point at s (n bytes): its value and length, or the byte itself (length 1) when the
 * bytes are not a well-formed sequence */
uint32_t ks_rd_u8_next(const char *s, size_t n, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    *len = 1;
    if (!n)
        return 0;
    if (u[0] < 0x80)
        return u[0];
    size_t k = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 0;
    if (!k || k > n)
        return u[0];
    uint32_t cp = u[0] & (0x7f >> k);
    for (size_t i = 1; i < k; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return u[0];
        cp = (cp << 6) | (u[i] & 0x3f);
    }
    *len = k;
    return cp;
}

/* the code point that ends right before s[i], and where it starts */
uint32_t ks_rd_u8_prev(const char *s, size_t i, size_t *start)
{
    size_t b = i;
    *start = i ? i - 1 : 0;
    if (!i)
        return 0;
    while (b > 0 && i - b < 4 && ((unsigned char)s[b - 1] & 0xc0) == 0x80)
        b--;
    if (b > 0 && i - b < 4 && (unsigned char)s[b - 1] >= 0xc0) {
        size_t len;
        uint32_t cp = ks_rd_u8_next(s + b - 1, i - b + 1, &len);
        if (len == i - b + 1) {
            *start = b - 1;
            return cp;
        }
    }
    return (unsigned char)s[i - 1];
}

int ks_rd_cp_word(uint32_t cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    locale_t l = loc();
    if (!l)
        return 1;
    return iswalnum_l((wint_t)cp, l) != 0;
}

int ks_rd_word_before(const char *s, size_t i)
{
    size_t st;
    return i > 0 && ks_rd_cp_word(ks_rd_u8_prev(s, i, &st));
}

int ks_rd_word_at(const char *s, size_t n, size_t i)
{
    size_t len;
    return i < n && ks_rd_cp_word(ks_rd_u8_next(s + i, n - i, &len));
}

static size_t u8_put(uint32_t cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

void ks_rd_fold(const char *s, size_t n, char *out)
{
    locale_t l = NULL;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            out[i++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            continue;
        }
        size_t len;
        uint32_t cp = ks_rd_u8_next(s + i, n - i, &len);
        if (!l)
            l = loc();
        if (len > 1 && l) {
            uint32_t lc = (uint32_t)towlower_l((wint_t)cp, l);
            char b[4];
            if (lc != cp && u8_put(lc, b) == len) {
                memcpy(out + i, b, len);
                i += len;
                continue;
            }
        }
        memcpy(out + i, s + i, len);
        i += len;
    }
}

int ks_rd_has_high(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 1;
    return 0;
}
