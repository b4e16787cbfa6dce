/* redact/secrets.c: secrets become "[REDACTED:<rule>]", irreversibly (docs/redaction.md §4).
 * Shapes follow gitleaks' config/gitleaks.toml. Fixed-prefix tokens (AWS, GitHub, GitLab, Hugging
 * Face, Slack, OpenAI, Anthropic, GCP, npm, PyPI, Stripe) are found by prefix + length +
 * character-class checks at word starts; JWTs, PEM blocks, Slack webhooks, URL credentials and
 * generic "key=value" secrets by PCRE2 patterns, each behind a cheap pre-check. Where gitleaks
 * asks for a minimum Shannon entropy the candidate must reach it. Other vendors' fixed-prefix
 * shapes are in vendor.c (rule vendor-token), tried at the same word starts. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "redact/redact_int.h"

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_word(unsigned char c) /* [A-Za-z0-9_] */
{
    return is_alnum(c) || c == '_';
}

static int is_wordd(unsigned char c) /* [A-Za-z0-9_-] */
{
    return is_word(c) || c == '-';
}

static int is_aws(unsigned char c) /* [A-Z2-7] */
{
    return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7');
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* length of the run of chars of a class at s */
static size_t run(const char *s, size_t n, int (*cls)(unsigned char))
{
    size_t k = 0;
    while (k < n && cls((unsigned char)s[k]))
        k++;
    return k;
}

static int starts(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && !memcmp(s, lit, l);
}

/* A candidate secret at s: its length and rule, or 0. */
static size_t fixed_secret(const char *s, size_t n, int *rule)
{
    size_t k;
    switch (s[0]) {
    case 'A':
        if (n >= 20 && (starts(s, n, "AKIA") || starts(s, n, "ASIA") || starts(s, n, "ABIA") ||
                        starts(s, n, "ACCA") ||
                        (starts(s, n, "A3T") && (is_alpha((unsigned char)s[3]) ||
                                                 (s[3] >= '0' && s[3] <= '9'))))) {
            k = run(s + 4, n - 4, is_aws);
            if (k == 16 && (n == 20 || !is_alnum((unsigned char)s[20])) &&
                ks_rd_entropy(s, 20) >= 3.0) {
                *rule = R_AWS;
                return 20;
            }
        }
        if (starts(s, n, "AIza")) {
            k = run(s + 4, n - 4, is_wordd);
            if (k == 35 && ks_rd_entropy(s, 39) >= 4.0) {
                *rule = R_GCP;
                return 39;
            }
        }
        return 0;
    case 'g':
        if (n >= 40 && s[1] == 'h' && s[3] == '_' &&
            (s[2] == 'p' || s[2] == 'o' || s[2] == 'u' || s[2] == 's' || s[2] == 'r')) {
            k = run(s + 4, n - 4, is_alnum);
            if (k >= 36 && ks_rd_entropy(s + 4, k) >= 3.0) {
                *rule = R_GITHUB;
                return 4 + k;
            }
        }
        if (starts(s, n, "github_pat_")) {
            k = run(s + 11, n - 11, is_word);
            if (k >= 82) {
                *rule = R_GITHUB;
                return 11 + k;
            }
        }
        if (starts(s, n, "glpat-")) {
            k = run(s + 6, n - 6, is_wordd);
            if (k >= 20) {
                *rule = R_GITLAB;
                return 6 + k;
            }
        }
        return 0;
    case 'h':
        if (starts(s, n, "hf_")) {
            k = run(s + 3, n - 3, is_alnum);
            if (k >= 34 && k <= 40 && (3 + k == n || !is_alnum((unsigned char)s[3 + k])) &&
                ks_rd_entropy(s + 3, k) >= 3.0) {
                *rule = R_HF;
                return 3 + k;
            }
        }
        return 0;
    case 'a':
        if (starts(s, n, "api_org_")) {
            k = run(s + 8, n - 8, is_alpha);
            if (k == 34) {
                *rule = R_HF;
                return 42;
            }
        }
        return 0;
    case 'x':
        if (n >= 25 && ((starts(s, n, "xox") && s[3] && strchr("bpeasrcd", s[3]) && s[4] == '-') ||
                        starts(s, n, "xapp-"))) {
            k = run(s + 5, n - 5, is_wordd);
            size_t dashes = 0;
            for (size_t i = 5; i < 5 + k; i++)
                dashes += s[i] == '-';
            if (k >= 20 && dashes >= 2) {
                *rule = R_SLACK_TOKEN;
                return 5 + k;
            }
        }
        return 0;
    case 's':
    case 'r':
        if (starts(s, n, "sk-ant-")) {
            k = run(s + 7, n - 7, is_wordd);
            if (k >= 80) {
                *rule = R_ANTHROPIC;
                return 7 + k;
            }
            return 0;
        }
        size_t p = starts(s, n, "sk-proj-") ? 8 : starts(s, n, "sk-svcacct-") ? 11
                 : starts(s, n, "sk-admin-") ? 9 : 0;
        if (p) {
            k = run(s + p, n - p, is_wordd);
            if (k >= 20 && ks_rd_entropy(s + p, k) >= 3.0) {
                *rule = R_OPENAI;
                return p + k;
            }
            return 0;
        }
        if (starts(s, n, "sk-")) {
            k = run(s + 3, n - 3, is_alnum);
            if (k >= 40 && memmem(s + 3, k, "T3BlbkFJ", 8)) {
                *rule = R_OPENAI;
                return 3 + k;
            }
            return 0;
        }
        if (n >= 18 && s[1] == 'k' && s[2] == '_' &&
            (starts(s + 3, n - 3, "test_") || starts(s + 3, n - 3, "live_") ||
             starts(s + 3, n - 3, "prod_"))) {
            k = run(s + 8, n - 8, is_alnum);
            if (k >= 10 && k <= 99) {
                *rule = R_STRIPE;
                return 8 + k;
            }
        }
        return 0;
    case 'n':
        if (starts(s, n, "npm_")) {
            k = run(s + 4, n - 4, is_alnum);
            if (k == 36 && ks_rd_entropy(s + 4, k) >= 3.0) {
                *rule = R_NPM;
                return 40;
            }
        }
        return 0;
    case 'p':
        if (starts(s, n, "pypi-AgEIcHlwaS5vcmc")) {
            k = run(s + 20, n - 20, is_wordd);
            if (k >= 50 && k <= 1000) {
                *rule = R_PYPI;
                return 20 + k;
            }
        }
        return 0;
    }
    return 0;
}

/* s[i] follows a percent-encoded byte (token%3Dghp_...): a word starts there too */
static int after_percent(const char *s, size_t i)
{
    return i >= 3 && s[i - 3] == '%' && isxdigit((unsigned char)s[i - 2]) &&
           isxdigit((unsigned char)s[i - 1]);
}

static void redact_span(ks_redactor *rd, ks_rd_rw *w, size_t s, size_t e, int rule)
{
    ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, w->in + s, e - s);
    ks_rd_put_redacted(ks_rd_rw_replace(w, s, e), ks_rd_builtin[rule].id);
    ks_rd_hit(rd, rule, e - s);
}

int ks_rd_det_secrets(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    static const unsigned char first[256] = {['A'] = 1, ['g'] = 1, ['h'] = 1, ['a'] = 1,
                                             ['x'] = 1, ['s'] = 1, ['r'] = 1, ['n'] = 1,
                                             ['p'] = 1};
    const unsigned char *vfirst = ks_rd_vendor_firsts();
    for (size_t i = 0; i + 18 <= n; i++) { /* the shortest shape has 18 bytes */
        unsigned char c = (unsigned char)in[i];
        if (!first[c] && !vfirst[c])
            continue;
        /* the shapes of secrets.c have prefixes distinctive enough to be found glued to a word
         * (xghp_..., key0AKIA...); the vendors' shapes only at a word start */
        int glued = i && is_alnum((unsigned char)in[i - 1]) && !after_percent(in, i);
        int rule = R_VENDOR;
        size_t len = first[c] ? fixed_secret(in + i, n - i, &rule) : 0;
        if (len && glued && rule == R_OPENAI && !memcmp(in + i, "sk-", 3) &&
            memcmp(in + i, "sk-proj-", 8) && memcmp(in + i, "sk-svcacct-", 11) &&
            memcmp(in + i, "sk-admin-", 9))
            len = 0; /* a bare "sk-" inside a word (disk-..., task-...) */
        if (!len) {
            rule = R_VENDOR;
            len = ks_rd_vendor_token(in + i, n - i, glued);
        }
        if (!len)
            continue;
        redact_span(rd, &w, i, i + len, rule);
        i += len - 1;
    }
    return ks_rd_rw_done(&w);
}

/* All matches of one pattern (group 0) become [REDACTED:rule]. */
static int regex_rule(ks_redactor *rd, ks_rd_re *re, int rule, double min_entropy, const char *in,
                      size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0;
    const size_t *ov;
    while (pos < n && ks_rd_re_match(re, in, n, pos, &ov)) {
        size_t s = ov[0], e = ov[1];
        if (e <= s) {
            pos = s + 1;
            continue;
        }
        if (min_entropy > 0 && ks_rd_entropy(in + s, e - s) < min_entropy) {
            pos = e;
            continue;
        }
        redact_span(rd, &w, s, e, rule);
        pos = e;
    }
    return ks_rd_rw_done(&w);
}

/* Chain detectors: each sees the previous one's output. Returns 1 when any changed. */
typedef int (*det_fn)(ks_redactor *, const char *, size_t, ks_buf *);

int ks_rd_det_regex_secrets(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    int changed = 0;
    const char *cur = in;
    size_t cn = n;
    ks_buf *bufs[2] = {out, &rd->tmp};
    int which = 0;
    struct {
        ks_rd_re *re;
        int rule;
        double ent;
        const char *needle;
    } steps[] = {
        {&rd->re_pem, R_PRIVATE_KEY, 0, "-----BEGIN"},
        {&rd->re_hook, R_SLACK_WEBHOOK, 0, "hooks.slack.com"},
        {&rd->re_jwt, R_JWT, 3.0, NULL},
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        if (steps[k].needle && !memmem(cur, cn, steps[k].needle, strlen(steps[k].needle)))
            continue;
        if (!steps[k].needle && !memmem(cur, cn, "ey", 2) && !memmem(cur, cn, "ZXlK", 4))
            continue;
        ks_buf *dst = bufs[which];
        if (regex_rule(rd, steps[k].re, steps[k].rule, steps[k].ent, cur, cn, dst)) {
            changed = 1;
            cur = dst->p;
            cn = dst->n;
            which ^= 1;
        }
    }
    if (changed && cur != out->p) {
        out->n = 0;
        ks_buf_put(out, cur, cn);
    }
    return changed;
}

/* key=value secrets: group 1 is the value; it must mix letters and digits, reach 3.5 bits of
 * entropy per character and not be one of our tokens. */
int ks_rd_det_generic(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0;
    const size_t *ov;
    while (pos < n && ks_rd_re_match(&rd->re_generic, in, n, pos, &ov)) {
        size_t s = ov[2], e = ov[3];
        pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        if (s == KS_REGEX_UNSET || e <= s)
            continue;
        int letters = 0, digits = 0;
        for (size_t i = s; i < e; i++) {
            unsigned char c = (unsigned char)in[i];
            letters |= is_alpha(c);
            digits |= (c >= '0' && c <= '9');
        }
        if (!letters || !digits || ks_rd_entropy(in + s, e - s) < 3.5 ||
            ks_rd_in_token(in, n, s, e - s) || ks_rd_token_at(in + s, e - s))
            continue;
        redact_span(rd, &w, s, e, R_GENERIC);
    }
    return ks_rd_rw_done(&w);
}

/* scheme://user:password@host: only the user:password part is replaced */
int ks_rd_det_url_userinfo(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0;
    const size_t *ov;
    while (pos < n && ks_rd_re_match(&rd->re_url, in, n, pos, &ov)) {
        size_t s = ov[2], e = ov[3];
        pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        if (s == KS_REGEX_UNSET || e <= s)
            continue;
        redact_span(rd, &w, s, e, R_URL_USERINFO);
    }
    return ks_rd_rw_done(&w);
}

/* caseless: does w occur in s */
static int has_ci(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    for (size_t i = 0; i + l <= n; i++)
        if ((s[i] | 0x20) == w[0] && !strncasecmp(s + i, w, l))
            return 1;
    return 0;
}

/* Authorization: Bearer <token> (and Basic, token, a bare Authorization value): the credential */
int ks_rd_det_bearer(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    if (!has_ci(in, n, "bearer") && !has_ci(in, n, "basic") && !has_ci(in, n, "token") &&
        !has_ci(in, n, "authorization"))
        return 0;
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0;
    const size_t *ov;
    while (pos < n && ks_rd_re_match(&rd->re_bearer, in, n, pos, &ov)) {
        size_t s = ov[2], e = ov[3];
        pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        if (s == KS_REGEX_UNSET || e <= s || ks_rd_in_token(in, n, s, e - s) ||
            ks_rd_token_at(in + s, e - s))
            continue;
        /* "token 12345678" or "basic blocks" are words: a credential mixes letters and digits,
         * or upper and lower case over 12 characters or more (base64) */
        int digits = 0, upper = 0, lower = 0;
        for (size_t i = s; i < e; i++) {
            digits |= in[i] >= '0' && in[i] <= '9';
            upper |= in[i] >= 'A' && in[i] <= 'Z';
            lower |= in[i] >= 'a' && in[i] <= 'z';
        }
        if (!(upper || lower) || !(digits || (upper && lower && e - s >= 12)))
            continue;
        redact_span(rd, &w, s, e, R_AUTH_HEADER);
    }
    return ks_rd_rw_done(&w);
}

/* ---- keys that name a secret, in text -------------------------------------------------------
 * "OPENAI_KEY=...", "db_password: ...", "\"api_key\": \"...\"", "--api-key VALUE",
 * "&sig=...", "X-Amz-Signature=...": a name that the key rule (fields.c, rule sensitive-key)
 * takes for a secret's, then '=' or ':' (or, after a command-line flag, blanks), then a value:
 * quoted, or up to a blank, a quote or one of ",;&)]}<>". The value goes whatever its shape
 * (3 bytes or more, not one of our tokens, not an authentication scheme word: "Authorization:
 * Bearer x" is the auth-header rule's). */
static int name_char(unsigned char c)
{
    return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

static int value_end_char(unsigned char c)
{
    return c <= ' ' || c == '"' || c == '\'' || c == '`' || c == ',' || c == ';' || c == '&' ||
           c == ')' || c == ']' || c == '}' || c == '<' || c == '>';
}

static int scheme_word(const char *s, size_t n)
{
    static const char *const w[] = {"bearer", "basic", "token", "digest", "negotiate", NULL};
    for (size_t i = 0; w[i]; i++)
        if (strlen(w[i]) == n && !strncasecmp(s, w[i], n))
            return 1;
    return 0;
}

/* at in[i] a name's value begins: its span in *vs, *ve, or 0 */
static int keyed_value(const char *in, size_t n, size_t e, int flag, size_t *vs, size_t *ve)
{
    size_t j = e;
    if (j < n && (in[j] == '"' || in[j] == '\'')) /* "api_key": ... */
        j++;
    size_t b = j;
    while (j < n && j - b < 3 && (in[j] == ' ' || in[j] == '\t'))
        j++;
    int sep = 0;
    if (j < n && (in[j] == '=' || in[j] == ':') && !(j + 1 < n && in[j + 1] == ':')) {
        j++;
        if (j < n && in[j] == '=') /* := */
            j++;
        sep = 1;
    } else if (flag && j > b && j == e + (size_t)(j - b)) {
        sep = 1; /* --api-key VALUE */
    }
    if (!sep)
        return 0;
    size_t k = j;
    while (j < n && k + 5 > j && (in[j] == ' ' || in[j] == '\t'))
        j++;
    char q = 0;
    if (j < n && (in[j] == '"' || in[j] == '\'' || in[j] == '`'))
        q = in[j++];
    size_t s = j;
    if (q)
        while (j < n && in[j] != q)
            j++;
    else
        while (j < n && !value_end_char((unsigned char)in[j]))
            j++;
    size_t digits = 0;
    for (size_t t = s; t < j; t++)
        digits += (in[t] >= '0' && in[t] <= '9') || in[t] == '.' || in[t] == '-';
    if (j - s < 3 || digits == j - s || (flag && !q && in[s] == '-') || scheme_word(in + s, j - s) ||
        ks_rd_token_at(in + s, j - s))
        return 0;
    *vs = s;
    *ve = j;
    return 1;
}

int ks_rd_det_keyed(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (!is_alpha(c) || (i && (is_alnum((unsigned char)in[i - 1]) || in[i - 1] == '_' ||
                                   in[i - 1] == '.')))
            continue;
        /* a flag: one or two '-' after the start or a blank */
        size_t d = i;
        while (d > 0 && i - d < 2 && in[d - 1] == '-')
            d--;
        if (d < i && d > 0 && !((unsigned char)in[d - 1] <= ' ' || in[d - 1] == '"' ||
                                in[d - 1] == '\''))
            continue; /* inside a word-with-dashes */
        size_t e = i;
        while (e < n && e - i < 64 && name_char((unsigned char)in[e]))
            e++;
        if (e - i < 2 || e - i >= 64 || (e < n && name_char((unsigned char)in[e]))) {
            i = e;
            continue;
        }
        size_t vs, ve;
        if (ks_rd_sensitive_key(in + i, e - i) && keyed_value(in, n, e, d < i, &vs, &ve) &&
            !ks_rd_in_token(in, n, vs, ve - vs)) {
            ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, in + vs, ve - vs);
            ks_rd_put_redacted(ks_rd_rw_replace(&w, vs, ve), "sensitive-key");
            ks_rd_hit(rd, R_SENSITIVE_KEY, ve - vs);
            i = ve;
            continue;
        }
        i = e;
    }
    return ks_rd_rw_done(&w);
}
