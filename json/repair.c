/* json/repair.c: the repairing pre-filter (see repair.h). It tracks only one bit of JSON state,
 * "inside a string", and decides with a short look-ahead:
 *   - a '"' inside a string closes it only when the next non-blank byte is one of , : } ] (or the
 *     input ends); otherwise it is an unescaped quote and becomes \" (valid JSON never differs);
 *   - a ',' outside strings followed by ']' or '}' is a trailing comma and is dropped;
 *   - raw control bytes, invalid escapes and invalid UTF-8 inside strings are re-encoded.
 * Clean runs are copied with memcpy, so the cost on valid input is one table-driven scan. */
#include "json/repair.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KS_REPAIR_AVX2 1
#endif

#include "common/cpufeat.h"
#include "common/limits.h"
#include "common/util.h"
#include "json/textpos.h"

#define LOOKAHEAD_MAX KS_LIMIT_REPAIR_LOOKAHEAD /* blanks scanned before a decision is forced */

/* 1 for bytes that need attention inside a string */
static unsigned char in_str_special[256];
/* 1 for bytes that need attention outside strings */
static unsigned char out_str_special[256];
static unsigned char blank[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* The block path (clean_blocks below): the widest the CPU has, chosen once with the tables. */
typedef size_t (*blocks_fn)(const unsigned char *in, size_t i, size_t n, int eof, int *in_string,
                            uint64_t *lines);
static size_t clean_blocks_sse2(const unsigned char *in, size_t i, size_t n, int eof, int *in_string,
                                uint64_t *lines);
static blocks_fn clean_blocks_best = clean_blocks_sse2;
static void choose_blocks(void);

static void build_tables(void)
{
    choose_blocks();
    for (int c = 0; c < 256; c++) {
        in_str_special[c] = (c < 0x20 || c == '"' || c == '\\' || c >= 0x80);
        out_str_special[c] = (c == '"' || c == ',');
        blank[c] = (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    }
}

static void init_tables(void)
{
    pthread_once(&tables_once, build_tables);
}

void ks_repair_init(ks_repair *r)
{
    memset(r, 0, sizeof *r);
    init_tables();
}

void ks_repair_free(ks_repair *r)
{
    free(r->out);
    free(r->map);
    memset(r, 0, sizeof *r);
}

void ks_repair_reset(ks_repair *r)
{
    r->in_string = 0;
}

static const struct repair_kind {
    const char *id, *what;
    int lenient;
} kinds[KS_REPAIR_NKINDS] = {
#define KS_REPAIR_ROW(name, id, what, lenient) [KS_REPAIR_##name] = {id, what, lenient},
    KS_REPAIR_KINDS(KS_REPAIR_ROW)
#undef KS_REPAIR_ROW
};

const char *ks_repair_kind_id(int kind)
{
    return kind >= 0 && kind < KS_REPAIR_NKINDS ? kinds[kind].id : "parse.repair";
}

const char *ks_repair_kind_what(int kind)
{
    return kind >= 0 && kind < KS_REPAIR_NKINDS ? kinds[kind].what : "repaired";
}

int ks_repair_kind_lenient(int kind)
{
    return kind >= 0 && kind < KS_REPAIR_NKINDS && kinds[kind].lenient;
}

static void note(ks_repair *r, int kind, size_t in_off)
{
    r->count[kind]++;
    if (r->on_repair)
        r->on_repair(r->ctx, kind, in_off);
}

static void map_add(ks_repair *r, size_t out, size_t in)
{
    KS_GROW(r->map, r->map_cap, r->nmap + 1);
    r->map[r->nmap] = (ks_repair_map){out, in, 0, 0};
    r->nmap++;
}

/* A repair ends at output offset out and input offset in: it closes the stretch of the last map
 * point (the bytes copied since it, then the expansion). When that stretch has the shape of the
 * one before (as many bytes copied, an expansion as wide), the point before takes it into its run
 * (ks_repair_map) and the last point moves here; else a new point starts here. */
static void map_repaired(ks_repair *r, size_t out, size_t in)
{
    size_t n = r->nmap;
    if (n >= 2 && !r->no_runs) {
        ks_repair_map *p = &r->map[n - 2], *l = &r->map[n - 1];
        size_t gin = in - l->in, gout = out - l->out;
        size_t pin = p->gin ? p->gin : l->in - p->in, pout = p->gin ? p->gout : l->out - p->out;
        if (gout > 0 && gin == pin && gout == pout && gin <= UINT32_MAX && gout <= UINT32_MAX) {
            p->gin = (uint32_t)gin;
            p->gout = (uint32_t)gout;
            l->out = out;
            l->in = in;
            return;
        }
    }
    map_add(r, out, in);
}

/* First index >= i of a byte that needs attention inside a string ('"', '\\', control, >= 0x80),
 * or n. SSE2 looks at 16 bytes at a time (bytes >= 0x80 are negative as signed chars, so one
 * signed compare with 0x20 finds both them and the control characters). */
static size_t scan_in_string(const unsigned char *in, size_t i, size_t n)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmplt_epi8(v, space));
        int mask = _mm_movemask_epi8(m);
        if (mask)
            return i + (size_t)__builtin_ctz((unsigned)mask);
        i += 16;
    }
#endif
    while (i < n && !in_str_special[in[i]])
        i++;
    return i;
}

/* First index >= i of a '"' or ',' (outside strings), or n. */
static size_t scan_outside(const unsigned char *in, size_t i, size_t n)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(',');
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
        int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, comma)));
        if (mask)
            return i + (size_t)__builtin_ctz((unsigned)mask);
        i += 16;
    }
#endif
    while (i < n && !out_str_special[in[i]])
        i++;
    return i;
}

/* Length of a UTF-8 sequence at s: k > 0 valid, 0 invalid, -1 cut by the end of the buffer. */
static int utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int k;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4;
    else
        return 0;
    for (int j = 1; j < k; j++) {
        if ((size_t)j >= n)
            return -1;
        if ((s[j] & 0xc0) != 0x80)
            return 0;
    }
    if (k == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;
    if (k == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
        return 0;
    return k;
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Index of the first non-blank byte at or after i (at most LOOKAHEAD_MAX ahead), or n. */
static size_t skip_blanks(const unsigned char *in, size_t i, size_t n, int *capped)
{
    size_t lim = n - i > LOOKAHEAD_MAX ? i + LOOKAHEAD_MAX : n;
    while (i < lim && blank[in[i]])
        i++;
    *capped = (i == lim && lim < n);
    return i;
}

#ifdef __SSE2__

/* The byte classes of a 64-byte block the fast path looks at, one bit per byte. */
typedef struct block_masks {
    uint64_t bslash, quote, low, comma, close, colon, blank, nl;
} block_masks;

static inline uint64_t movemask(__m128i m, int k)
{
    return (uint64_t)(uint16_t)_mm_movemask_epi8(m) << (16 * k);
}

/* One pass over the four 16-byte vectors: each compared once per class ('}' and ']' together as
 * (byte | 0x20) == '}'; control bytes and bytes >= 0x80 together as signed < 0x20). */
static inline void classify(const unsigned char *p, block_masks *m)
{
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), comma = _mm_set1_epi8(','),
                  colon = _mm_set1_epi8(':'), rb = _mm_set1_epi8('}'), x20 = _mm_set1_epi8(0x20),
                  nl = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        m->bslash |= movemask(_mm_cmpeq_epi8(v, bs), k);
        m->quote |= movemask(_mm_cmpeq_epi8(v, q), k);
        m->low |= movemask(_mm_cmplt_epi8(v, x20), k);
        m->comma |= movemask(_mm_cmpeq_epi8(v, comma), k);
        m->close |= movemask(_mm_cmpeq_epi8(_mm_or_si128(v, x20), rb), k);
        m->colon |= movemask(_mm_cmpeq_epi8(v, colon), k);
        __m128i n = _mm_cmpeq_epi8(v, nl);
        m->nl |= movemask(n, k);
        m->blank |= movemask(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, x20), n),
                                          _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr))),
                             k);
    }
}

/* The first byte that is not blank after bit b of the block at i, as a bit index, or -1 when it
 * lies beyond the block. */
static inline int next_in_block(uint64_t blank, int b)
{
    if (b >= 63)
        return -1;
    uint64_t rest = ~blank & (~0ULL << (b + 1));
    return rest ? __builtin_ctzll(rest) : -1;
}

typedef void (*classify_fn)(const unsigned char *p, block_masks *m);

/* Skip whole 64-byte blocks that need no repair: no backslash, no control or non-ASCII byte inside
 * a string, every closing quote followed by , : } ] (after blanks), no comma before ] or }. Returns
 * the start of the first block that needs the byte-by-byte path (or where the input ends), and
 * updates *in_string. Valid compact or pretty JSON goes through here almost entirely. Look-ahead
 * within the block reads the masks; past it, skip_blanks decides exactly as the byte path does.
 * Made twice from this one body: with the 16-byte classify above, and with the 32-byte one below
 * where the CPU has AVX2 (the masks are the same; choose_blocks picks at run time). */
static inline __attribute__((always_inline)) size_t clean_blocks_with(classify_fn cls, const unsigned char *in,
                                                                    size_t i, size_t n, int eof, int *in_string,
                                                                    uint64_t *lines)
{
    int st = *in_string;
    uint64_t nl = 0;
    while (i + 64 <= n) {
        block_masks m;
        cls(in + i, &m);
        if (m.bslash)
            break;
        uint64_t inside = ks_prefix_xor(m.quote) ^ (st ? ~0ULL : 0);
        if (m.low & inside & ~m.quote)
            break;
        uint64_t closer = m.comma | m.close | m.colon;
        /* closing quotes not directly followed by a closer, and commas followed by a blank or a
         * closing bracket: decided by looking ahead (bit 63 always looks into the next block) */
        uint64_t check_q = m.quote & ~inside & ~(closer >> 1);
        uint64_t check_c = m.comma & ~inside & (((m.blank | m.close) >> 1) | (1ULL << 63));
        /* the first byte that is not blank after each of them, within the block, at once: an add
         * carries a bit just after one through the run of blanks that follows it (the runs after
         * two of them never meet: each starts after a byte that is not blank). Only the block's
         * last byte that is not blank has none within the block: looked at below, byte by byte. */
        uint64_t nonblank = ~m.blank;
        uint64_t last = nonblank ? 1ULL << (63 - __builtin_clzll(nonblank)) : 0;
        uint64_t land_q = (((check_q & ~last) << 1) + m.blank) & nonblank;
        uint64_t land_c = (((check_c & ~last) << 1) + m.blank) & nonblank;
        int ok = !(land_q & ~closer) && !(land_c & m.close);
        check_q &= last;
        check_c &= last;
        while (ok && check_q) {
            int b = __builtin_ctzll(check_q), k = next_in_block(m.blank, b);
            if (k >= 0) {
                ok = (int)((closer >> k) & 1);
            } else {
                int capped;
                size_t j = skip_blanks(in, i + (size_t)b + 1, n, &capped);
                if (j == n && !eof)
                    ok = 0;
                else if (!capped && j < n && in[j] != ',' && in[j] != ':' && in[j] != '}' && in[j] != ']')
                    ok = 0;
            }
            check_q &= check_q - 1;
        }
        while (ok && check_c) {
            int b = __builtin_ctzll(check_c), k = next_in_block(m.blank, b);
            if (k >= 0) {
                ok = !((m.close >> k) & 1);
            } else {
                int capped;
                size_t j = skip_blanks(in, i + (size_t)b + 1, n, &capped);
                if (j == n && !eof)
                    ok = 0;
                else if (!capped && j < n && (in[j] == ']' || in[j] == '}'))
                    ok = 0;
            }
            check_c &= check_c - 1;
        }
        if (!ok)
            break;
        st = (int)(inside >> 63);
        nl += (uint64_t)__builtin_popcountll(m.nl);
        i += 64;
    }
    *in_string = st;
    *lines += nl;
    return i;
}

static size_t clean_blocks_sse2(const unsigned char *in, size_t i, size_t n, int eof, int *in_string,
                                uint64_t *lines)
{
    return clean_blocks_with(classify, in, i, n, eof, in_string, lines);
}

#ifdef KS_REPAIR_AVX2
/* The same masks from two 32-byte vectors, where the CPU has AVX2 (chosen at run time). */
__attribute__((target("avx2"))) static inline uint64_t movemask32(__m256i m, int k)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(m) << (32 * k);
}

__attribute__((target("avx2"))) static inline void classify_avx2(const unsigned char *p, block_masks *m)
{
    const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'), comma = _mm256_set1_epi8(','),
                  colon = _mm256_set1_epi8(':'), rb = _mm256_set1_epi8('}'), x20 = _mm256_set1_epi8(0x20),
                  nl = _mm256_set1_epi8('\n'), tab = _mm256_set1_epi8('\t'), cr = _mm256_set1_epi8('\r');
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
        m->bslash |= movemask32(_mm256_cmpeq_epi8(v, bs), k);
        m->quote |= movemask32(_mm256_cmpeq_epi8(v, q), k);
        m->low |= movemask32(_mm256_cmpgt_epi8(x20, v), k);
        m->comma |= movemask32(_mm256_cmpeq_epi8(v, comma), k);
        m->close |= movemask32(_mm256_cmpeq_epi8(_mm256_or_si256(v, x20), rb), k);
        m->colon |= movemask32(_mm256_cmpeq_epi8(v, colon), k);
        __m256i n = _mm256_cmpeq_epi8(v, nl);
        m->nl |= movemask32(n, k);
        m->blank |= movemask32(_mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, x20), n),
                                               _mm256_or_si256(_mm256_cmpeq_epi8(v, tab), _mm256_cmpeq_epi8(v, cr))),
                               k);
    }
}

__attribute__((target("avx2"))) static size_t clean_blocks_avx2(const unsigned char *in, size_t i, size_t n, int eof,
                                                                 int *in_string, uint64_t *lines)
{
    return clean_blocks_with(classify_avx2, in, i, n, eof, in_string, lines);
}
#endif

static void choose_blocks(void)
{
#ifdef KS_REPAIR_AVX2
    if (ks_cpu_has_avx2())
        clean_blocks_best = clean_blocks_avx2;
#endif
}
#else
static size_t clean_blocks_sse2(const unsigned char *in, size_t i, size_t n, int eof, int *in_string,
                                uint64_t *lines)
{
    (void)in; (void)n; (void)eof; (void)in_string; (void)lines;
    return i;
}

static void choose_blocks(void)
{
}
#endif

static size_t clean_blocks(const unsigned char *in, size_t i, size_t n, int eof, int *in_string, uint64_t *lines)
{
    return clean_blocks_best(in, i, n, eof, in_string, lines);
}

/* Output is produced lazily: verbatim bytes are only remembered (from `pend` to `i`) and copied
 * when a repair forces it, so a run without repairs hands yajl the input itself. */
#define FLUSH()                                                                                   \
    do {                                                                                          \
        if (!dirty) {                                                                             \
            KS_GROW(r->out, r->out_cap, ks_mul(n, 6) + 16);                                       \
            out = (unsigned char *)r->out;                                                        \
            dirty = 1;                                                                            \
        }                                                                                         \
        memcpy(out + o, in + pend, i - pend);                                                     \
        o += i - pend;                                                                            \
    } while (0)

size_t ks_repair_run(ks_repair *r, const char *input, size_t n, int eof)
{
    const unsigned char *in = (const unsigned char *)input;
    unsigned char *out = NULL;
    size_t i = 0, o = 0, pend = 0;
    int dirty = 0;
    r->nmap = 0;
    map_add(r, 0, 0);
    int in_string = r->in_string;
    size_t blocks_from = 0; /* retry the block path from here (after a block that needed care) */
    /* the newlines of in[0 .. counted): the blocks count their own, the bytes between them are
     * counted when the block path takes over again, and at the end */
    uint64_t lines = 0;
    size_t counted = 0;

    while (i < n) {
        if (i >= blocks_from && !r->no_blocks) {
            if (i > counted)
                lines += ks_text_newlines(input + counted, i - counted);
            size_t j = r->narrow_blocks ? clean_blocks_sse2(in, i, n, eof, &in_string, &lines)
                                        : clean_blocks(in, i, n, eof, &in_string, &lines);
            counted = j;
            blocks_from = j + 64;
            i = j;
            if (i == n)
                break;
        }
        if (!in_string) {
            i = scan_outside(in, i, n);
            if (i == n)
                break;
            if (in[i] == '"') {
                i++;
                in_string = 1;
                continue;
            }
            /* ',' */
            int capped;
            size_t k = skip_blanks(in, i + 1, n, &capped);
            if (k == n && !eof)
                goto stop;
            if (!capped && k < n && (in[k] == ']' || in[k] == '}')) {
                note(r, KS_REPAIR_COMMA, i);
                FLUSH();
                pend = ++i;
                map_repaired(r, o, i);
                continue;
            }
            i++;
            continue;
        }
        /* inside a string */
        i = scan_in_string(in, i, n);
        if (i == n)
            break;
        unsigned char c = in[i];
        if (c == '"') {
            int capped;
            size_t k = skip_blanks(in, i + 1, n, &capped);
            if (k == n && !eof)
                goto stop;
            if (capped || k == n || in[k] == ',' || in[k] == ':' || in[k] == '}' || in[k] == ']') {
                i++;
                in_string = 0;
                continue;
            }
            note(r, KS_REPAIR_QUOTE, i);
            FLUSH();
            out[o++] = '\\';
            out[o++] = '"';
            pend = ++i;
            map_repaired(r, o, i);
            continue;
        }
        if (c == '\\') {
            if (i + 1 >= n) {
                if (!eof)
                    goto stop;
            } else {
                unsigned char d = in[i + 1];
                if (d == '"' || d == '\\' || d == '/' || d == 'b' || d == 'f' || d == 'n' ||
                    d == 'r' || d == 't') {
                    i += 2;
                    continue;
                }
                if (d == 'u') {
                    if (i + 6 > n && !eof)
                        goto stop;
                    if (i + 6 <= n && is_hex(in[i + 2]) && is_hex(in[i + 3]) && is_hex(in[i + 4]) &&
                        is_hex(in[i + 5])) {
                        i += 6;
                        continue;
                    }
                }
            }
            /* invalid escape: the backslash was meant literally (Windows path) */
            note(r, KS_REPAIR_ESCAPE, i);
            FLUSH();
            out[o++] = '\\';
            out[o++] = '\\';
            pend = ++i;
            map_repaired(r, o, i);
            continue;
        }
        if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            note(r, KS_REPAIR_CONTROL, i);
            FLUSH();
            out[o++] = '\\';
            out[o++] = 'u';
            out[o++] = '0';
            out[o++] = '0';
            out[o++] = (unsigned char)hex[c >> 4];
            out[o++] = (unsigned char)hex[c & 15];
            pend = ++i;
            map_repaired(r, o, i);
            continue;
        }
        /* c >= 0x80 */
        int k = utf8_len(in + i, n - i);
        if (k < 0 && !eof)
            goto stop;
        if (k > 0) {
            i += (size_t)k;
            continue;
        }
        note(r, KS_REPAIR_UTF8, i);
        FLUSH();
        out[o++] = 0xef;
        out[o++] = 0xbf;
        out[o++] = 0xbd;
        pend = ++i;
        map_repaired(r, o, i);
    }
stop:
    r->in_string = in_string;
    /* (a block is taken only when every decision in it is made: the run never stops inside
     * one, and the fallback is never taken) */
    r->newlines = i >= counted ? lines + ks_text_newlines(input + counted, i - counted) : ks_text_newlines(input, i);
    if (dirty) {
        FLUSH();
        r->res = r->out;
        r->res_len = o;
    } else {
        r->res = input;
        r->res_len = i;
    }
    return i;
}

#undef FLUSH

/* out_off in the stretch of map entry lo: the bytes of a repair's expansion (\u00XX, \", U+FFFD)
 * end that stretch and all come from the one input byte before the next entry; in a run of one
 * shape, the expansion ending each group comes from the last input byte of the group */
static size_t map_at(const ks_run *run, size_t lo, size_t out_off)
{
    const ks_repair_map *m = &run->map[lo];
    size_t d = out_off - m->out, in;
    if (m->gin) {
        size_t g = d / m->gout, k = d % m->gout;
        in = m->in + g * m->gin + (k < m->gin - 1u ? k : m->gin - 1u);
    } else {
        in = m->in + d;
    }
    if (lo + 1 < run->nmap && in >= m[1].in)
        in = m[1].in - 1;
    return in;
}

size_t ks_run_in_offset(const ks_run *run, size_t out_off)
{
    /* binary search for the last map entry with out <= out_off */
    size_t lo = 0, hi = run->nmap;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (run->map[mid].out <= out_off)
            lo = mid;
        else
            hi = mid;
    }
    return map_at(run, lo, out_off);
}

size_t ks_run_in_offset_hint(const ks_run *run, size_t out_off, size_t *hint)
{
    const ks_repair_map *m = run->map;
    size_t lo = *hint < run->nmap ? *hint : 0, hi = run->nmap;
    if (m[lo].out > out_off)
        lo = 0; /* went back: search the whole map */
    else {
        /* offsets mostly increase: gallop forward from the hint, then search the bracket */
        size_t step = 1;
        while (lo + step < run->nmap && m[lo + step].out <= out_off) {
            lo += step;
            step *= 2;
        }
        if (lo + step < run->nmap)
            hi = lo + step;
    }
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (m[mid].out <= out_off)
            lo = mid;
        else
            hi = mid;
    }
    *hint = lo;
    return map_at(run, lo, out_off);
}

ks_run ks_repair_last_run(const ks_repair *r)
{
    ks_run run = {r->res, r->res_len, r->map, r->nmap};
    return run;
}

size_t ks_repair_in_offset(const ks_repair *r, size_t out_off)
{
    ks_run run = ks_repair_last_run(r);
    return ks_run_in_offset(&run, out_off);
}
