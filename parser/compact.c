/* parser/compact.c: the compact text of a shape arg handed over whole (see compact.h): the bytes
 * less the blanks outside strings, 16 bytes a step. A step classifies its 16 bytes with SSE2
 * compares (quotes, blanks); which bytes lie inside a string is the prefix XOR of the quote bits
 * (the bytes after an odd number of quotes, the state carried from the step before); SSSE3's
 * pshufb then moves the kept bytes of each 8-byte half together, by a table of the 256 keep masks
 * of 8 bytes, and each half is stored whole (8 bytes; the kept ones first). The last bytes are a
 * step of their own: the text's last 16 bytes with those done before left out of the masks, or,
 * for a text under 16 bytes (most shape texts), a zero-padded copy with the bytes past it left
 * out. A byte loop (values.c) does 8-10 instructions a byte: on the MTIA inference trace, whose
 * every op carries Input Dims, Input type and Concrete Inputs, that was ~12 M instructions of
 * 224 M. Only x86-64 with SSSE3 (chosen at run time); elsewhere the byte loop does all. */
#include "parser/compact.h"

#include <stdint.h>
#include <string.h>

#include "common/cpufeat.h"
#include "common/util.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <pthread.h>

static uint8_t keep_index[256][8]; /* the indexes of the kept bytes of a half, in order; 0x80: none */
static int have_ssse3;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    for (int k = 0; k < 256; k++) {
        int j = 0;
        for (int b = 0; b < 8; b++)
            if (k >> b & 1)
                keep_index[k][j++] = (uint8_t)b;
        while (j < 8)
            keep_index[k][j++] = 0x80; /* pshufb: a zero byte */
    }
    have_ssse3 = ks_cpu_has_ssse3_popcnt();
}

__attribute__((target("ssse3,popcnt"))) static size_t blocks(const unsigned char *s, size_t n, char *o,
                                                             size_t *pm, size_t mmax, unsigned *pin)
{
    const __m128i quote = _mm_set1_epi8('"'), space = _mm_set1_epi8(' '), lf = _mm_set1_epi8('\n'),
                  cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    size_t i = 0, m = *pm;
    unsigned in = *pin ? 0xFFFFu : 0;
    unsigned char tail[16];
    while (m + 16 <= mmax && i < n) {
        unsigned valid = 0xFFFFu;
        __m128i v;
        if (i + 16 <= n) {
            v = _mm_loadu_si128((const __m128i *)(s + i));
        } else if (n >= 16) { /* the last bytes: the last 16, those done before left out */
            v = _mm_loadu_si128((const __m128i *)(s + n - 16));
            valid = 0xFFFFu & ~((1u << (16 - (n - i))) - 1);
        } else { /* a text under 16 bytes: from a zero-padded copy, nothing read past s + n */
            _mm_storeu_si128((__m128i *)(void *)tail, _mm_setzero_si128());
            memcpy(tail, s + i, n - i);
            v = _mm_loadu_si128((const __m128i *)(const void *)tail);
            valid = (1u << (n - i)) - 1;
        }
        unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) & valid;
        __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, lf)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
        unsigned blank = (unsigned)_mm_movemask_epi8(b);
        /* inside a string (an opening quote too): the quotes at or before it odd in number */
        unsigned str = ((unsigned)ks_prefix_xor(q) ^ in) & 0xFFFFu;
        unsigned keep = ~(blank & ~str) & valid;
        uint64_t lo, hi;
        memcpy(&lo, keep_index[keep & 0xFF], 8);
        memcpy(&hi, keep_index[keep >> 8], 8);
        hi += 0x0808080808080808ull; /* the high half's indexes; 0x80 stays above 0x7f: zero */
        __m128i r = _mm_shuffle_epi8(v, _mm_set_epi64x((long long)hi, (long long)lo));
        _mm_storel_epi64((__m128i *)(void *)(o + m), r);
        m += (size_t)__builtin_popcount(keep & 0xFF);
        _mm_storel_epi64((__m128i *)(void *)(o + m), _mm_srli_si128(r, 8));
        m += (size_t)__builtin_popcount(keep >> 8);
        in = str & 0x8000u ? 0xFFFFu : 0; /* the quotes left out change no parity */
        i = i + 16 <= n ? i + 16 : n;
    }
    *pm = m;
    *pin = in ? 1 : 0;
    return i;
}

size_t ks_ps_compact_blocks(const char *s, size_t n, char *o, size_t *m, size_t mmax, unsigned *in)
{
    pthread_once(&once, init);
    if (!have_ssse3)
        return 0;
    return blocks((const unsigned char *)s, n, o, m, mmax, in);
}

#else

size_t ks_ps_compact_blocks(const char *s, size_t n, char *o, size_t *m, size_t mmax, unsigned *in)
{
    (void)s;
    (void)n;
    (void)o;
    (void)m;
    (void)mmax;
    (void)in;
    return 0;
}

#endif
