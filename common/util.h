/* common/util.h: internal helpers shared by every part of the library: checked allocation,
 * growable arrays, small string utilities. Not installed; not part of the public API. */
#ifndef KS_UTIL_H
#define KS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Allocation never returns NULL: out of memory aborts with a message (a partial analysis would
 * be a wrong number). */
/* Call the out-of-memory handler (kinesift/common.h) for an allocation of n bytes; never returns. */
_Noreturn void ks_out_of_memory(size_t n);
void *ks_xmalloc(size_t n);
void *ks_xcalloc(size_t n, size_t size);
void *ks_xrealloc(void *p, size_t n);
char *ks_xstrdup(const char *s);
char *ks_xstrndup(const char *s, size_t n);
/* 1 when s ends with suffix. */
int ks_ends_with(const char *s, const char *suffix);
/* Overflow-checked n * size; aborts on overflow. */
size_t ks_mul(size_t n, size_t size);

/* Grow *arr (of element size esz) so that it holds at least need elements; *cap is updated.
 * Growth is geometric (x1.5) to keep the peak close to the final size. KS_GROW (a statement; need
 * is evaluated twice) calls it only when the room is short. */
void ks_grow(void **arr, size_t *cap, size_t need, size_t esz);
/* The capacity ks_grow moves cap to for need (also ks_grow_big's, common/hugemem.h). */
size_t ks_grow_cap(size_t cap, size_t need);
#define KS_GROW(arr, cap, need)                                          \
    do {                                                                 \
        if ((size_t)(need) > (cap))                                      \
            ks_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)));     \
    } while (0)
#define KS_PUSH(arr, n, cap, val)            \
    do {                                     \
        KS_GROW(arr, cap, (n) + 1);          \
        (arr)[(n)++] = (val);                \
    } while (0)

/* A search by halves: moves lo to the first index of [lo, hi) where `before` (an expression of the
 * index `mid`) is false, for a `before` that holds on a prefix of the range (hi ends at lo). */
#define KS_LOWER_BOUND(lo, hi, mid, before)          \
    do {                                             \
        while ((lo) < (hi)) {                        \
            size_t mid = (lo) + ((hi) - (lo)) / 2;   \
            if (before)                              \
                (lo) = mid + 1;                      \
            else                                     \
                (hi) = mid;                          \
        }                                            \
    } while (0)

/* KS_LOWER_BOUND searched outward from a position: moves lo to the first index of [first, end)
 * where `before` (an expression of the index `mid`) is false, for a `before` that holds on a
 * prefix, starting at at (first <= at <= end): steps of 1, 2, 4... forward or back from it bound
 * the answer, then KS_LOWER_BOUND finds it. An answer d away from at costs O(log d): lookups
 * in nearly ascending order (a cursor kept from one to the next) take a few steps each. */
#define KS_GALLOP_BOUND(lo, first, end, at, mid, before)                                          \
    do {                                                                                          \
        size_t gb_lo_ = (first), gb_hi_ = (end), gb_step_ = 1, mid = (at);                        \
        if (mid < gb_hi_ && (before)) { /* forward: every index up to at is before */             \
            gb_lo_ = mid + 1;                                                                     \
            while (gb_hi_ - gb_lo_ > gb_step_ - 1) {                                              \
                mid = gb_lo_ + gb_step_ - 1;                                                      \
                if (!(before)) {                                                                  \
                    gb_hi_ = mid + 1;                                                             \
                    break;                                                                        \
                }                                                                                 \
                gb_lo_ = mid + 1;                                                                 \
                gb_step_ *= 2;                                                                    \
            }                                                                                     \
        } else { /* back: the answer is at or before at */                                        \
            gb_hi_ = mid;                                                                         \
            while (gb_hi_ - gb_lo_ >= gb_step_) {                                                 \
                mid = gb_hi_ - gb_step_;                                                          \
                if (before) {                                                                     \
                    gb_lo_ = mid + 1;                                                             \
                    break;                                                                        \
                }                                                                                 \
                gb_hi_ = mid;                                                                     \
                gb_step_ *= 2;                                                                    \
            }                                                                                     \
        }                                                                                         \
        KS_LOWER_BOUND(gb_lo_, gb_hi_, mid, before);                                              \
        (lo) = gb_lo_;                                                                            \
    } while (0)

/* printf into a new malloc'ed string. */
char *ks_xasprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The first index at or after i of s[0, n) whose byte is not a space (n if none), 8 bytes a step:
 * the indentation of pretty-printed JSON (the scanner, the blank dropper, the shape args). */
static inline size_t ks_skip_spaces(const void *s, size_t i, size_t n)
{
    const unsigned char *p = s;
    while (i + 8 <= n) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        v ^= 0x2020202020202020ULL;
        if (v)
            return i + (size_t)__builtin_ctzll(v) / 8; /* little-endian: the first byte is lowest */
        i += 8;
    }
    while (i < n && p[i] == ' ')
        i++;
    return i;
}

/* The little-endian 32-bit number at p: a gzip trailer's CRC-32 and ISIZE (source/gunzip.c, the
 * size hints of source/source.c and cli/heap.c). */
static inline uint32_t ks_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Bit i set when an odd number of the bits at or below i are set in x (simdjson's prefix XOR): with
 * x a block's quote bits, the bytes inside strings (json/repair.c, parser/compact.c). */
static inline uint64_t ks_prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* A function kept out of line and uncloned: where a bench counts a part of the work by the names of
 * its functions (callgrind, bench/kernels_cost.sh), that part must not melt into its callers. */
#if defined(__clang__)
#define KS_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__)
#define KS_NOINLINE __attribute__((noinline, noclone))
#else
#define KS_NOINLINE
#endif

/* A growable byte buffer. */
typedef struct ks_buf {
    char *p;
    size_t n, cap;
} ks_buf;
void ks_buf_put(ks_buf *b, const void *s, size_t n);
void ks_buf_putc(ks_buf *b, char c);
void ks_buf_puts(ks_buf *b, const char *s);
void ks_buf_printf(ks_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* NUL-terminate (not counted in n) and return p. */
const char *ks_buf_cstr(ks_buf *b);
void ks_buf_free(ks_buf *b);

/* The library's one string hash (hash tables, caches, string flow ids; not security): 8 bytes
 * per step, the tail in one register, a final avalanche (ks_hash_u64). No output depends on its
 * values, only on equality, so it may change. ks_hash_lower is the same hash of the string with
 * ASCII 'A'..'Z' taken as 'a'..'z' (ks_hash_lower(s) == ks_hash(lowercase(s))), for caseless
 * tables (redact's literals). */
uint64_t ks_hash(const void *p, size_t n);
uint64_t ks_hash_lower(const void *p, size_t n);
static inline uint64_t ks_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Time arithmetic that cannot overflow (int64 ns spans from epoch-scale or extreme timestamps):
 * a - b and a + b saturated to the int64 range, and the comparison of two products of ns values
 * with small factors done in 128 bits (a * x >= b * y). */
static inline int64_t ks_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return r;
    return b < 0 ? INT64_MAX : INT64_MIN;
}
static inline int64_t ks_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r))
        return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}
static inline int ks_mul_ge(int64_t a, int64_t x, int64_t b, int64_t y)
{
    return (__int128)a * x >= (__int128)b * y;
}

/* Format a duration in ns for humans: "1.234 ms", "12.0 us", "850 ns". */
void ks_fmt_ns(char *buf, size_t n, int64_t ns);
/* Format a byte count: "35.2 MB". */
void ks_fmt_bytes(char *buf, size_t n, uint64_t bytes);

/* Escape a string for a one-line message: control characters as \xNN, cut to max bytes. */
void ks_fmt_preview(char *buf, size_t n, const char *s, size_t len, size_t max);

/* qsort for arrays that may be empty: qsort(NULL, 0, ...) is undefined (its first argument is
 * declared never null), and an array of one is sorted already. */
static inline void ks_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

#endif
