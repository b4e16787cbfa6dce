/* json/textpos.c: line and column of a byte of a streamed text (textpos.h). */
#include "json/textpos.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

uint64_t ks_text_newlines(const char *b, size_t n)
{
    uint64_t k = 0;
    size_t i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        size_t end = n - i > 16 * 255 ? i + 16 * 255 : n;
        __m128i acc = zero;
        for (; i + 16 <= end; i += 16) /* a match is -1 in its lane: subtracting counts it */
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(b + i)), nl));
        __m128i sum = _mm_sad_epu8(acc, zero); /* the 16 lanes summed into two 64-bit halves */
        k += (uint64_t)_mm_cvtsi128_si64(sum) + (uint64_t)_mm_extract_epi16(sum, 4);
    }
#endif
    for (; i < n; i++)
        k += b[i] == '\n';
    return k;
}

/* Left out of the fuzz build's coverage instrumentation (clang's -fsanitize=fuzzer): a
 * comparison callback per byte made this loop a tenth of fuzz_parse's time, and where the
 * newlines are guides no fuzzer. ASan and UBSan still check it. */
#if defined(__clang__)
#define KS_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define KS_NO_COVERAGE
#endif

KS_NO_COVERAGE void ks_text_count(const char *b, size_t n, uint64_t base, uint64_t *lines,
                                  int64_t *last)
{
    uint64_t k = ks_text_newlines(b, n);
    if (!k)
        return;
    const char *l = memrchr(b, '\n', n);
    *lines += k;
    *last = (int64_t)(base + (uint64_t)(l - b));
}

void ks_text_lines_before(const ks_text_win *w, uint64_t abs, uint64_t *lines, int64_t *last)
{
    *lines = w->lines;
    *last = w->last_nl;
    uint64_t rel = abs > w->base ? abs - w->base : 0;
    if (rel > w->len)
        rel = w->len;
    if (w->upto && rel <= w->upto && w->upto - rel < rel) {
        /* nearer the end of what was counted: count from the byte to upto and take those away */
        uint64_t after = ks_text_newlines(w->buf + rel, w->upto - (size_t)rel);
        uint64_t k = w->upto_lines - after;
        if (!k)
            return;
        *lines += k;
        if (!after) { /* the last counted newline lies before the byte */
            *last = w->upto_last;
            return;
        }
        const char *l = memrchr(w->buf, '\n', (size_t)rel); /* k > 0: there is one */
        *last = (int64_t)(w->base + (uint64_t)(l - w->buf));
        return;
    }
    ks_text_count(w->buf, (size_t)rel, w->base, lines, last);
}

void ks_text_line_col(const ks_text_win *w, uint64_t abs, uint64_t *line, uint64_t *col)
{
    uint64_t lines;
    int64_t last;
    ks_text_lines_before(w, abs, &lines, &last);
    *line = lines + 1;
    *col = abs > (uint64_t)(last + 1) ? abs - (uint64_t)(last + 1) + 1 : 1;
}
