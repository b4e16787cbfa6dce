/* fuzz/fuzz.h: what the libFuzzer targets of fuzz/ share. Each target defines
 * LLVMFuzzerTestOneInput (and may define LLVMFuzzerInitialize); it is linked either with libFuzzer
 * (meson -Dfuzz=true, clang, fuzz/run.sh) or with fuzz/replay.c, a plain main() that feeds it the
 * files of its seed corpus and its regression inputs in the normal test suite. A target aborts
 * (FUZZ_CHECK) when a property that must hold on any input fails; crashes and sanitizer reports
 * are findings too. Only for fuzz/. */
#ifndef KS_FUZZ_H
#define KS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                        \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "fuzz: %s:%d: property failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* The parser's read size in the targets that parse only to get a trace: buffers of 2 x 256 KiB
 * per run cost a fresh mmap under ASan each time; what is parsed does not depend on it (fuzz_parse
 * checks that). */
#define FUZZ_CHUNK 16384

/* A consumer of the input's leading bytes as parameters (chunk sizes, selectors): each take
 * removes bytes from the front; an exhausted input gives 0. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static inline uint32_t fuzz_take(fuzz_in *in, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
        v = v << 8 | *in->p;
    return v;
}

/* The rest of the input as a NUL-terminated copy (free it). */
static inline char *fuzz_cstr(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

#endif
