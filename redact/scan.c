/* redact/scan.c: the string scanners in order (docs/redaction.md §2.5): secrets first (a token
 * may hold '@' or '/'), URL credentials, generic key=value secrets, e-mails, paths, IPv6 (before IPv4: ::ffff:10.1.2.3 is one address), IPv4,
 * host names, learned literals and deny terms, user rules. A one-pass feature scan of the string
 * decides which scanners can match at all, so that the common strings (op and kernel names) cost
 * one table lookup per byte. A rewritten string is scanned again until nothing changes (at most
 * three rounds): what redaction writes is never rewritten, so a second run changes nothing.
 *
 * Traces repeat their strings (the same op names, kernel names and Call stacks in every step),
 * so the result of each string of 16 bytes or more is kept in a direct-mapped cache (at most
 * 8 MB), with the rewrites it made so that counts and --check findings are replayed on a hit.
 * A literal learned since invalidates the entries computed before it. */
#include <string.h>

#include "redact/redact_int.h"

enum {
    F_SLASH = 1, F_BSLASH = 2, F_AT = 4, F_COLON = 8, F_DOT = 16, F_EQ = 32, F_DIGIT = 64
};

static const uint8_t feat_tab[256] = {
    ['/'] = F_SLASH, ['\\'] = F_BSLASH, ['@'] = F_AT, [':'] = F_COLON, ['.'] = F_DOT,
    ['='] = F_EQ,    ['0'] = F_DIGIT,   ['1'] = F_DIGIT, ['2'] = F_DIGIT, ['3'] = F_DIGIT,
    ['4'] = F_DIGIT, ['5'] = F_DIGIT,   ['6'] = F_DIGIT, ['7'] = F_DIGIT, ['8'] = F_DIGIT,
    ['9'] = F_DIGIT,
};

typedef struct feats {
    unsigned f;
    size_t dots, colons;
} feats;

static void features(const char *s, size_t n, feats *ft)
{
    unsigned f = 0;
    size_t dots = 0, colons = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned t = feat_tab[(unsigned char)s[i]];
        f |= t;
        dots += (t == F_DOT);
        colons += (t == F_COLON);
    }
    ft->f = f;
    ft->dots = dots;
    ft->colons = colons;
}

typedef int (*det_fn)(ks_redactor *, const char *, size_t, ks_buf *);

/* which scanners can match, from the features */
static int wanted(const ks_redactor *rd, int step, const feats *ft, const char *s, size_t n)
{
    switch (step) {
    case 0: return n >= 18;
    case 1: return n >= 20;
    case 2: return (ft->f & F_AT) && memmem(s, n, "://", 3);
    case 3: return (ft->f & (F_EQ | F_COLON)) && n >= 14;
    case 4: return ft->f & F_AT;
    case 5: return ft->f & (F_SLASH | F_BSLASH);
    case 6: return ft->colons >= 2;
    case 7: return ft->dots >= 3 && (ft->f & F_DIGIT);
    case 8: return ft->dots >= 2 || (rd->ndomains && ft->dots >= 1);
    case 9: return ks_rd_literals_maybe(rd, s, n);
    case 10: return rd->nurules > 0;
    case 11: return n >= 14;
    case 12: return (ft->f & (F_EQ | F_COLON)) || memmem(s, n, " -", 2) || (n && s[0] == '-');
    }
    return 0;
}

static const det_fn steps[] = {
    ks_rd_det_secrets, ks_rd_det_regex_secrets, ks_rd_det_url_userinfo, ks_rd_det_generic,
    ks_rd_det_email,   ks_rd_det_paths,         ks_rd_det_ipv6,         ks_rd_det_ipv4,
    ks_rd_det_fqdn,    ks_rd_det_literals,      ks_rd_det_user_rules,   ks_rd_det_bearer,
    ks_rd_det_keyed,
};
#define NSTEPS (sizeof steps / sizeof steps[0])

/* One round of every scanner; returns 1 when anything changed. */
static int round_once(ks_redactor *rd, const char **cur, size_t *cn)
{
    feats ft;
    features(*cur, *cn, &ft);
    int changed = 0;
    for (size_t k = 0; k < NSTEPS; k++) {
        if (!wanted(rd, (int)k, &ft, *cur, *cn))
            continue;
        ks_buf *dst = (*cur == rd->sa.p) ? &rd->sb : &rd->sa;
        if (steps[k](rd, *cur, *cn, dst)) {
            changed = 1;
            *cur = dst->p;
            *cn = dst->n;
            features(*cur, *cn, &ft);
        }
    }
    return changed;
}

/* ---- the cache ------------------------------------------------------------------------------ */

#define SC_SLOTS 4096
#define SC_MIN 16
#define SC_MAX 8192
#define SC_BUDGET (8u << 20)
#define SC_HITS 256

typedef struct sc_entry {
    uint64_t h, gen;
    char *in, *out;      /* out NULL: unchanged */
    size_t n, on;
    uint16_t nhits;
    uint8_t listed;      /* in the used list */
    struct ks_rd_rec *hits;
} sc_entry;

struct ks_rd_scache {
    sc_entry e[SC_SLOTS];
    size_t bytes;
    uint16_t used[SC_SLOTS]; /* slots ever filled: freed without touching the others */
    size_t nused;
};

static uint64_t sc_hash(const char *s, size_t n)
{
    return ks_hash(s, n);
}

static void sc_clear(struct ks_rd_scache *c, sc_entry *e)
{
    c->bytes -= e->n + (e->out ? e->on : 0) + e->nhits * sizeof *e->hits;
    free(e->in);
    free(e->out);
    free(e->hits);
    e->hits = NULL;
    e->nhits = 0;
    e->in = e->out = NULL;
    e->n = e->on = 0;
}

void ks_rd_scache_free(ks_redactor *rd)
{
    struct ks_rd_scache *c = rd->scache;
    if (!c)
        return;
    for (size_t i = 0; i < c->nused; i++)
        if (c->e[c->used[i]].in)
            sc_clear(c, &c->e[c->used[i]]);
    free(c);
    rd->scache = NULL;
}

/* the generation of what the scanners know: a new literal changes the results */
static uint64_t sc_gen(const ks_redactor *rd)
{
    return rd->nlits;
}

static void sc_store(ks_redactor *rd, sc_entry *e, uint64_t h, const char *s, size_t n,
                     const char *out, size_t on, int changed)
{
    struct ks_rd_scache *c = rd->scache;
    if (e->in)
        sc_clear(c, e);
    if (!e->listed) { /* first use of the slot */
        e->listed = 1;
        c->used[c->nused++] = (uint16_t)(e - c->e);
    }
    if (rd->nrec > SC_HITS)
        return;
    size_t need = n + (changed ? on : 0) + (size_t)rd->nrec * sizeof *e->hits;
    if (c->bytes + need > SC_BUDGET)
        return;
    e->h = h;
    e->gen = sc_gen(rd);
    e->in = ks_xmalloc(n);
    memcpy(e->in, s, n);
    e->n = n;
    if (changed) {
        e->out = ks_xmalloc(on ? on : 1);
        memcpy(e->out, out, on);
        e->on = on;
    }
    e->nhits = (uint16_t)rd->nrec;
    if (rd->nrec) {
        e->hits = ks_xmalloc(sizeof *e->hits * (size_t)rd->nrec);
        memcpy(e->hits, rd->rec, sizeof *e->hits * (size_t)rd->nrec);
    }
    c->bytes += need;
}

static void words_seen(ks_redactor *rd, const char *s, size_t n)
{
    /* after the scan: a literal learned from this very string is not "late" */
    if (++rd->strings_scanned <= KS_RD_WORDS_STRINGS && rd->words)
        ks_rd_words_add(rd, s, n);
}

static int scan_uncached(ks_redactor *rd, const char *s, size_t n, const char **res, size_t *rn)
{
    const char *cur = s;
    size_t cn = n;
    int changed = 0;
    rd->re_failed = 0;
    for (int r = 0; r < 3 && !rd->re_failed && round_once(rd, &cur, &cn); r++)
        changed = 1;
    if (rd->re_failed) {
        /* a pattern could not finish on this string (PCRE2 match or depth limit): nothing in it
         * is known to be clean, so it goes whole; the rest of the trace is redacted as usual */
        rd->re_failed = 0;
        ks_buf *b = cur == rd->sa.p ? &rd->sb : &rd->sa;
        b->n = 0;
        ks_rd_put_redacted(b, "unscannable");
        ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, s, n);
        ks_rd_hit(rd, R_UNSCANNABLE, n);
        cur = b->p;
        cn = b->n;
        changed = 1;
    }
    *res = cur;
    *rn = cn;
    return changed;
}

int ks_rd_scan(ks_redactor *rd, const char *s, size_t n, const char **res, size_t *rn)
{
    if (n < SC_MIN || n > SC_MAX) {
        int changed = scan_uncached(rd, s, n, res, rn);
        words_seen(rd, s, n);
        return changed;
    }
    if (!rd->scache)
        rd->scache = ks_xcalloc(1, sizeof *rd->scache);
    uint64_t h = sc_hash(s, n);
    sc_entry *e = &rd->scache->e[h & (SC_SLOTS - 1)];
    if (e->in && e->h == h && e->n == n && e->gen == sc_gen(rd) && !memcmp(e->in, s, n)) {
        for (int i = 0; i < e->nhits; i++)
            ks_rd_hit(rd, e->hits[i].rule, e->hits[i].len);
        /* its words count in this stream too (it may have been scanned in another one) */
        words_seen(rd, s, n);
        *res = e->out ? e->out : s;
        *rn = e->out ? e->on : n;
        return e->out != NULL;
    }
    rd->nrec = 0;
    int changed = scan_uncached(rd, s, n, res, rn);
    sc_store(rd, e, h, s, n, *res, *rn, changed);
    rd->nrec = -1;
    words_seen(rd, s, n);
    if (changed && e->out) {
        *res = e->out;
        *rn = e->on;
    }
    return changed;
}
