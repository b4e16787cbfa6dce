/* redact/litset.c: a set of literals (learned user and host names, --deny-file terms) and the
 * search for them in a string or in raw output bytes, caseless and word bounded.
 *
 * What it is: a hash table of the lowercased literals, plus the distinct literal lengths (longest
 * first) and a table of the bytes a literal may start with. At a candidate position (a possible
 * first byte, not preceded by a letter or digit) each length is tried, longest first: the byte
 * after the candidate must not be a letter or digit, then the candidate's lowercase hash is
 * looked up. The first hit is the longest literal that matches there, as a PCRE2 alternation of
 * the literals sorted longest first did before.
 *
 * Why this and not one alternation: a PCRE2 pattern of a few thousand alternatives (a large
 * --deny-file, thousands of home directories) fails to compile, and a failure there silently
 * turned off every literal. The cost here is one table probe per distinct length at each word
 * start, independent of the number of literals; memory is a few words per literal. Nothing can
 * fail but memory, which aborts through ks_xmalloc.
 *
 * Raw mode (searching output bytes, not decoded strings): a literal right after a JSON escape
 * (\n \t \r \b \f \/ and \uXXXX) is at a word start too, because in the decoded string it is.
 * The search then may report a hit that is no word in the decoded text (a literal glued to an
 * escaped letter): that only costs a second pass, it never hides a literal.
 *
 * Who may use it: redact/ only (literals.c owns the redactor's set; output.c and verify.c build
 * sets of literals learned late). */
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "redact/redact_int.h"

static int alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* caseless in every script: a string with bytes >= 0x80 is folded first (unicode.c; the same
 * length), ASCII is lowercased by the hash and the comparison themselves */
#define FOLD_MAX (KS_LIMIT_LITERAL_MAX + 8)

static uint64_t lhash(const char *s, size_t n)
{
    if (n <= FOLD_MAX && ks_rd_has_high(s, n)) {
        char f[FOLD_MAX];
        ks_rd_fold(s, n, f);
        return ks_hash_lower(f, n);
    }
    return ks_hash_lower(s, n);
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static int lequal(const char *a, const char *b, size_t n)
{
    if (n <= FOLD_MAX && (ks_rd_has_high(a, n) || ks_rd_has_high(b, n))) {
        char fa[FOLD_MAX], fb[FOLD_MAX];
        ks_rd_fold(a, n, fa);
        ks_rd_fold(b, n, fb);
        return !memcmp(fa, fb, n);
    }
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return 0;
    return 1;
}

void ks_rd_litset_free(ks_rd_litset *ls)
{
    free(ls->slot);
    free(ls->lens);
    memset(ls, 0, sizeof *ls);
}

static void rehash(ks_rd_litset *ls, const ks_rd_literal *lits)
{
    size_t cap = ls->cap ? ls->cap * 2 : 64;
    uint32_t *old = ls->slot;
    size_t ocap = ls->cap;
    ls->slot = ks_xcalloc(cap, sizeof *ls->slot);
    ls->cap = cap;
    for (size_t i = 0; i < ocap; i++) {
        if (!old[i])
            continue;
        const ks_rd_literal *l = &lits[old[i] - 1];
        size_t p = lhash(l->text, l->n) & (cap - 1);
        while (ls->slot[p])
            p = (p + 1) & (cap - 1);
        ls->slot[p] = old[i];
    }
    free(old);
}

static void add_len(ks_rd_litset *ls, size_t n)
{
    size_t i = 0;
    while (i < ls->nlens && ls->lens[i] > n)
        i++;
    if (i < ls->nlens && ls->lens[i] == n)
        return;
    KS_GROW(ls->lens, ls->lens_cap, ls->nlens + 1);
    memmove(ls->lens + i + 1, ls->lens + i, (ls->nlens - i) * sizeof *ls->lens);
    ls->lens[i] = n;
    ls->nlens++;
}

void ks_rd_litset_add(ks_rd_litset *ls, const ks_rd_literal *lits, size_t idx)
{
    const ks_rd_literal *l = &lits[idx];
    if (!l->n)
        return;
    if ((ls->n + 1) * 2 > ls->cap)
        rehash(ls, lits);
    size_t p = lhash(l->text, l->n) & (ls->cap - 1);
    while (ls->slot[p])
        p = (p + 1) & (ls->cap - 1);
    ls->slot[p] = (uint32_t)(idx + 1);
    ls->n++;
    unsigned char c = (unsigned char)l->text[0];
    ls->first[c] = ls->first[lower(c)] = 1;
    if (c >= 'a' && c <= 'z')
        ls->first[c - 32] = 1;
    if (c >= 0x80) /* another case of a letter may start with another lead byte */
        for (int b = 0xc0; b < 0x100; b++)
            ls->first[b] = 1;
    if (!ls->minlen || l->n < ls->minlen)
        ls->minlen = l->n;
    if (l->n > ls->maxlen)
        ls->maxlen = l->n;
    add_len(ls, l->n);
}

long ks_rd_litset_get(const ks_rd_litset *ls, const ks_rd_literal *lits, const char *s, size_t n)
{
    if (!ls->n)
        return -1;
    size_t p = lhash(s, n) & (ls->cap - 1);
    while (ls->slot[p]) {
        const ks_rd_literal *l = &lits[ls->slot[p] - 1];
        if (l->n == n && lequal(l->text, s, n))
            return (long)ls->slot[p] - 1;
        p = (p + 1) & (ls->cap - 1);
    }
    return -1;
}

/* a JSON escape ends right before s[i] (raw mode) */
static int after_escape(const char *s, size_t i)
{
    if (i >= 2 && s[i - 2] == '\\' && strchr("bfnrt/\"\\", s[i - 1]) && s[i - 1])
        return 1;
    if (i >= 6 && s[i - 6] == '\\' && s[i - 5] == 'u') {
        for (size_t k = i - 4; k < i; k++)
            if (!strchr("0123456789abcdefABCDEF", s[k]) || !s[k])
                return 0;
        return 1;
    }
    return 0;
}

/* not after a letter or digit of any script (a non-breaking space or U+2028 is a delimiter) */
static int word_start(const char *s, size_t i, int raw)
{
    if (i == 0)
        return 1;
    unsigned char p = (unsigned char)s[i - 1];
    if (p < 0x80)
        return !alnum(p) || (raw && after_escape(s, i));
    return !ks_rd_word_before(s, i);
}

static int word_end(const char *s, size_t n, size_t e)
{
    if (e >= n)
        return 1;
    unsigned char c = (unsigned char)s[e];
    return c < 0x80 ? !alnum(c) : !ks_rd_word_at(s, n, e);
}

int ks_rd_litset_maybe(const ks_rd_litset *ls, const char *s, size_t n)
{
    if (!ls->n || n < ls->minlen)
        return 0;
    for (size_t i = 0; i + ls->minlen <= n; i++)
        if (ls->first[(unsigned char)s[i]] && word_start(s, i, 0))
            return 1;
    return 0;
}

long ks_rd_litset_next(const ks_rd_litset *ls, const ks_rd_literal *lits, const char *s,
                       size_t n, size_t from, int raw, size_t *at)
{
    if (!ls->n)
        return -1;
    for (size_t i = from; i + ls->minlen <= n; i++) {
        if (!ls->first[(unsigned char)s[i]] || !word_start(s, i, raw))
            continue;
        for (size_t k = 0; k < ls->nlens; k++) {
            size_t L = ls->lens[k];
            if (i + L > n || !word_end(s, n, i + L))
                continue;
            long idx = ks_rd_litset_get(ls, lits, s + i, L);
            if (idx >= 0) {
                *at = i;
                return idx;
            }
        }
    }
    return -1;
}
