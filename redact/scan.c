/* redact/scan.c: the string scanners in order (docs/redaction.md §2.5): secrets first (a token
 * may hold '@' or '/'), URL credentials, generic key=value secrets, e-mails, paths, IPv6 (before IPv4: ::ffff:10.1.2.3 is one address), IPv4,
 * host names, learned literals and deny terms, user rules. A one-pass feature scan of the string
 * decides which scanners can match at all, so that the common strings (op and kernel names) cost
 * one table lookup per byte. A rewritten string is scanned again until nothing changes (at most
 * three rounds): what redaction writes is never rewritten, so a second run changes nothing. */
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
    case 5: return (ft->f & F_SLASH) || ((ft->f & F_BSLASH) && (ft->f & F_COLON));
    case 6: return ft->colons >= 2;
    case 7: return ft->dots >= 3 && (ft->f & F_DIGIT);
    case 8: return ft->dots >= 2 || (rd->ndomains && ft->dots >= 1);
    case 9: return rd->nlits > 0;
    case 10: return rd->nurules > 0;
    }
    return 0;
}

static const det_fn steps[] = {
    ks_rd_det_secrets, ks_rd_det_regex_secrets, ks_rd_det_url_userinfo, ks_rd_det_generic,
    ks_rd_det_email,   ks_rd_det_paths,         ks_rd_det_ipv6,         ks_rd_det_ipv4,
    ks_rd_det_fqdn,    ks_rd_det_literals,      ks_rd_det_user_rules,
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

int ks_rd_scan(ks_redactor *rd, const char *s, size_t n, const char **res, size_t *rn)
{
    const char *cur = s;
    size_t cn = n;
    int changed = 0;
    for (int r = 0; r < 3 && round_once(rd, &cur, &cn); r++)
        changed = 1;
    /* after the scan: a literal learned from this very string is not "late" */
    if (++rd->strings_scanned <= KS_RD_WORDS_STRINGS && rd->words)
        ks_rd_words_add(rd, s, n);
    *res = cur;
    *rn = cn;
    return changed;
}
