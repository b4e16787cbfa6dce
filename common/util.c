/* common/util.c: checked allocation, growable arrays and buffers, hashing, number formatting. */
#include "common/util.h"

#include "kinesift/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void default_oom(size_t n)
{
    fprintf(stderr, "kinesift: out of memory (allocating %zu bytes)\n", n);
    exit(2);
}

static ks_oom_handler oom_handler = default_oom;

void ks_set_oom_handler(ks_oom_handler h)
{
    oom_handler = h ? h : default_oom;
}

void ks_out_of_memory(size_t n)
{
    oom_handler(n);
    abort(); /* a handler that returned */
}

#define oom ks_out_of_memory

void *ks_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *ks_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *ks_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

int ks_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

char *ks_xstrdup(const char *s)
{
    return ks_xstrndup(s, strlen(s));
}

char *ks_xstrndup(const char *s, size_t n)
{
    char *p = ks_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

size_t ks_mul(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        ks_out_of_memory(SIZE_MAX); /* more than the address space */
    return n * size;
}

size_t ks_grow_cap(size_t cap, size_t need)
{
    size_t c = cap ? cap : 8;
    while (c < need)
        c = c + c / 2 + 8;
    return c;
}

void ks_grow(void **arr, size_t *cap, size_t need, size_t esz)
{
    if (need <= *cap)
        return;
    size_t c = ks_grow_cap(*cap, need);
    *arr = ks_xrealloc(*arr, ks_mul(c, esz));
    *cap = c;
}

char *ks_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = ks_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void ks_buf_put(ks_buf *b, const void *s, size_t n)
{
    KS_GROW(b->p, b->cap, b->n + n + 1);
    if (n) /* s may be NULL when n is 0 (libarchive's empty blocks): memcpy may not be given it */
        memcpy(b->p + b->n, s, n);
    b->n += n;
}

void ks_buf_putc(ks_buf *b, char c)
{
    ks_buf_put(b, &c, 1);
}

void ks_buf_puts(ks_buf *b, const char *s)
{
    ks_buf_put(b, s, strlen(s));
}

void ks_buf_printf(ks_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    KS_GROW(b->p, b->cap, b->n + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

const char *ks_buf_cstr(ks_buf *b)
{
    KS_GROW(b->p, b->cap, b->n + 1);
    b->p[b->n] = 0;
    return b->p;
}

void ks_buf_free(ks_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

/* 8 little-endian bytes of s (n <= 8 of them; the rest zero) */
static inline uint64_t load_word(const unsigned char *s, size_t n)
{
    uint64_t w = 0;
    if (n == 8)
        memcpy(&w, s, 8);
    else /* byte by byte in a register (a memcpy to the stack stalls the load) */
        for (size_t i = 0; i < n; i++)
            w |= (uint64_t)s[i] << (8 * i);
    return w;
}

/* ASCII upper case to lower case in each byte of w (SWAR: no carry crosses a byte, since each
 * sum stays below 0x100; bytes >= 0x80 are left alone) */
static inline uint64_t lower_word(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t low7 = w & ~high;
    uint64_t ge_a = low7 + (0x80 - 'A') * ones; /* high bit: byte >= 'A' */
    uint64_t gt_z = low7 + (0x80 - 'Z' - 1) * ones; /* high bit: byte > 'Z' */
    uint64_t upper = (ge_a ^ gt_z) & ~w & high;
    return w | (upper >> 2);
}

static inline uint64_t hash(const unsigned char *s, size_t n, int lower)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ULL, w;
    while (n >= 8) {
        w = load_word(s, 8);
        h = (h ^ (lower ? lower_word(w) : w)) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    w = load_word(s, n);
    h = (h ^ (lower ? lower_word(w) : w)) * 0xc4ceb9fe1a85ec53ULL;
    return ks_hash_u64(h ^ (h >> 32));
}

uint64_t ks_hash(const void *p, size_t n)
{
    return hash(p, n, 0);
}

uint64_t ks_hash_lower(const void *p, size_t n)
{
    return hash(p, n, 1);
}

void ks_fmt_ns(char *buf, size_t n, int64_t ns)
{
    double v = (double)ns;
    double a = v < 0 ? -v : v;
    if (a >= 1e9)
        snprintf(buf, n, "%.3f s", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
        snprintf(buf, n, "%.3f us", v / 1e3);
    else
        snprintf(buf, n, "%lld ns", (long long)ns);
}

void ks_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
    double v = (double)bytes;
    if (v >= 1e9)
        snprintf(buf, n, "%.2f GB", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.1f MB", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, n, "%.1f kB", v / 1e3);
    else
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
}

void ks_fmt_preview(char *buf, size_t n, const char *s, size_t len, size_t max)
{
    size_t o = 0;
    if (!n)
        return;
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            if (o + 5 >= n)
                break;
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
        } else {
            if (o + 2 >= n)
                break;
            buf[o++] = (char)c;
        }
    }
    if (len > max && o + 4 < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
}
