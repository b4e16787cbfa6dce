/* json/textpos.c: line and column of a byte of a streamed text (textpos.h). */
#include "json/textpos.h"

#include <string.h>

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
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += b[i] == '\n';
    if (!k)
        return;
    const char *l = memrchr(b, '\n', n);
    *lines += k;
    *last = (int64_t)(base + (uint64_t)(l - b));
}

void ks_text_line_col(const ks_text_win *w, uint64_t abs, uint64_t *line, uint64_t *col)
{
    uint64_t lines = w->lines;
    int64_t last = w->last_nl;
    uint64_t rel = abs > w->base ? abs - w->base : 0;
    if (rel > w->len)
        rel = w->len;
    ks_text_count(w->buf, (size_t)rel, w->base, &lines, &last);
    *line = lines + 1;
    *col = abs > (uint64_t)(last + 1) ? abs - (uint64_t)(last + 1) + 1 : 1;
}
