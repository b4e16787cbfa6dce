/* redact/redactor.c: a redactor for one run: the options, the key (HMAC context), the compiled
 * patterns, the literals learned so far and the count of rewrites per rule. One redactor serves
 * every trace of an invocation, so the same value gets the same token in every rank file. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lazylib.h"
#include "common/limits.h"
#include "redact/redact_int.h"

/* Patterns (PCRE2; shapes after gitleaks config/gitleaks.toml) */
static const char re_email[] =
    "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    "\\.)+[A-Za-z]{2,24}";
static const char re_jwt[] =
    "(?:(?<![A-Za-z0-9_-])|(?<=%[0-9A-Fa-f]{2}))(?:ey[A-Za-z0-9_-]{17,}\\.ey[A-Za-z0-9_-]{17,}\\.(?:[A-Za-z0-9_-]{10,}={0,2})?"
    "|ZXlK[A-Za-z0-9+/]{40,}={0,2})";
static const char re_pem[] =
    "-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?"
    "(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\\z)";
static const char re_hook[] =
    "(?:https?://)?hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}";
/* scheme://[user]:password@host: the user may be empty (redis://:pw@host), the password may
 * hold '/' and '@' (the last '@' before the host ends it) */
static const char re_url[] =
    "[A-Za-z][A-Za-z0-9+.-]{0,30}://(?!\\[REDACTED:)([^\\s/?#@:'\"\\[\\]<>]*:[^\\s'\"<>]*)@"
    "(?=[^\\s'\"<>@/]*(?:[/?#\\s'\"<>,;]|$))";
static const char re_generic[] =
    "(?i)(?:access|auth|api|credential|creds|key|passw(?:or)?d|pwd|secret|token)[\\w.-]{0,20}?"
    "[ \\t]{0,3}['\"]?[ \\t]{0,3}(?:=>|:=|=|:|%3D|%3A)[ \\t]{0,5}['\"`]?([\\w.=+/-]{10,150})";
/* Authorization: Bearer <token>, Basic <credentials>, also without the header name */
static const char re_bearer[] =
    "(?i)(?:\\b(?:bearer|basic|token)[ \\t]+|authorization[\"']?[ \\t]*[:=][ \\t]*[\"']?"
    "(?!bearer\\b|basic\\b|token\\b))([A-Za-z0-9._~+/-]{8,}=*)";

const char ks_redact_notice[] =
    "Redaction is best-effort: only the structural drops are guaranteed; free text, secrets of\n"
    "unknown shape and what the workload itself reveals (kernel and op names, shapes, timings,\n"
    "hardware) can remain. Review the trace before you share it.";

void ks_redact_opts_init(ks_redact_opts *o)
{
    memset(o, 0, sizeof *o);
}

static char **copy_list(char *const *v, size_t n)
{
    if (!n)
        return NULL;
    char **c = ks_xcalloc(n, sizeof *c);
    for (size_t i = 0; i < n; i++)
        c[i] = ks_xstrdup(v[i]);
    return c;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int compile_all(ks_redactor *rd, ks_error *err)
{
    struct {
        ks_rd_re *re;
        const char *pat;
    } v[] = {
        {&rd->re_email, re_email}, {&rd->re_jwt, re_jwt},   {&rd->re_pem, re_pem},
        {&rd->re_hook, re_hook},   {&rd->re_url, re_url},   {&rd->re_generic, re_generic},
        {&rd->re_bearer, re_bearer},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (ks_rd_re_compile(v[i].re, v[i].pat, err) != KS_OK)
            return KS_ERR;
        else
            v[i].re->fail = &rd->re_failed;
    return KS_OK;
}

/* the redacting machine's own name is hunted too: it often leaks into paths and labels */
static void learn_own_host(ks_redactor *rd)
{
    char h[256];
    if (gethostname(h, sizeof h) != 0)
        return;
    h[sizeof h - 1] = 0;
    ks_rd_learn(rd, KS_CLS_HOST, h, strlen(h));
    char *dot = strchr(h, '.');
    if (dot)
        ks_rd_learn(rd, KS_CLS_HOST, h, (size_t)(dot - h));
}

int ks_redactor_new(const ks_redact_opts *o, ks_redactor **out, ks_error *err)
{
    *out = NULL;
    if (ks_crypto_load(err) != KS_OK) /* the pseudonyms' HMAC: say so before any work */
        return KS_ERR;
    ks_redactor *rd = ks_xcalloc(1, sizeof *rd);
    rd->shapes = o->shapes;
    rd->keep_logs = o->keep_logs;
    rd->drop_args = copy_list(o->drop_args, rd->ndrop_args = o->ndrop_args);
    rd->keep_args = copy_list(o->keep_args, rd->nkeep_args = o->nkeep_args);
    rd->keep_meta = copy_list(o->keep_meta, rd->nkeep_meta = o->nkeep_meta);
    rd->domains = copy_list(o->domains, rd->ndomains = o->ndomains);
    rd->pn = ks_rd_pseudo_new(o->key, o->key_len);
    ks_rd_pseudo_on_failure(rd->pn, &rd->failed);
    if (!rd->pn) {
        ks_redactor_free(rd);
        return ks_error_set(err, "cannot set up HMAC-SHA256 (OpenSSL) or draw a random key");
    }
    if (compile_all(rd, err) != KS_OK) {
        ks_redactor_free(rd);
        return KS_ERR;
    }
    if (o->rules_file &&
        ks_rd_user_rules_load(o->rules_file, &rd->urules, &rd->nurules, err) != KS_OK) {
        ks_redactor_free(rd);
        return KS_ERR;
    }
    for (size_t i = 0; i < rd->nurules; i++)
        rd->urules[i].re.fail = &rd->re_failed;
    rd->nrules = R_NBUILTIN + rd->nurules;
    rd->counts = ks_xcalloc(rd->nrules, sizeof *rd->counts);
    for (size_t i = 0; i < o->ndeny; i++)
        ks_rd_add_deny(rd, o->deny[i], strlen(o->deny[i]));
    rd->nrec = -1;
    ks_rd_words_reset(rd);
    learn_own_host(rd);
    *out = rd;
    return KS_OK;
}

void ks_redactor_free(ks_redactor *rd)
{
    if (!rd)
        return;
    free_list(rd->drop_args, rd->ndrop_args);
    free_list(rd->keep_args, rd->nkeep_args);
    free_list(rd->keep_meta, rd->nkeep_meta);
    free_list(rd->domains, rd->ndomains);
    ks_rd_pseudo_free(rd->pn);
    ks_rd_re *res[] = {&rd->re_email, &rd->re_jwt, &rd->re_pem, &rd->re_hook,
                       &rd->re_url,   &rd->re_generic, &rd->re_bearer};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        ks_rd_re_free(res[i]);
    ks_rd_user_rules_free(rd->urules, rd->nurules);
    for (size_t i = 0; i < rd->nlits; i++)
        free(rd->lits[i].text);
    free(rd->lits);
    ks_rd_litset_free(&rd->lset);
    free(rd->counts);
    free(rd->words);
    ks_rd_scache_free(rd);
    ks_buf_free(&rd->sa);
    ks_buf_free(&rd->sb);
    ks_buf_free(&rd->tmp);
    ks_buf_free(&rd->norm);
    free(rd);
}

uint64_t ks_redact_count_total(const ks_redactor *rd)
{
    uint64_t t = 0;
    for (size_t i = 0; i < rd->nrules; i++)
        t += rd->counts[i];
    return t;
}

uint64_t ks_redact_count(const ks_redactor *rd, const char *rule)
{
    for (size_t i = 0; i < rd->nrules; i++)
        if (!strcmp(ks_rd_rule_name(rd, (int)i), rule))
            return rd->counts[i];
    return 0;
}

/* One line of a terms file: blanks around it, a trailing "<blank># comment" and a line that is
 * only a comment are dropped. Appends the term, if any. */
static void add_term(char ***v, size_t *cnt, size_t *cap, const char *line, size_t l)
{
    size_t b = 0;
    for (size_t i = 0; i < l; i++)
        if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
            l = i;
            break;
        }
    while (l && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
        l--;
    while (b < l && (line[b] == ' ' || line[b] == '\t'))
        b++;
    if (b < l)
        KS_PUSH(*v, *cnt, *cap, ks_xstrndup(line + b, l - b));
}

int ks_redact_read_terms(const char *path, char ***terms, size_t *n, ks_error *err)
{
    *terms = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ks_error_set(err, "%s: cannot open", path);
    /* read whole, up to the limit: /dev/zero or a huge file is an error, not a growing line */
    ks_buf b = {0};
    char tmp[8192];
    size_t r;
    int too_big = 0;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (b.n + r > KS_LIMIT_TERMS_FILE) {
            too_big = 1;
            break;
        }
        ks_buf_put(&b, tmp, r);
    }
    int bad = !too_big && ferror(f);
    fclose(f);
    if (too_big || bad) {
        ks_buf_free(&b);
        return too_big ? ks_error_set(err, "%s: larger than %d bytes (the limit of a terms file)",
                                      path, KS_LIMIT_TERMS_FILE)
                       : ks_error_set(err, "%s: read error", path);
    }
    if (b.n && memchr(b.p, 0, b.n)) {
        size_t at = (size_t)((char *)memchr(b.p, 0, b.n) - b.p);
        ks_buf_free(&b);
        return ks_error_set(err, "%s: byte %zu: a NUL byte (not a text file of terms)", path, at);
    }
    size_t pos = 0, cnt = 0, tcap = 0;
    if (b.n >= 3 && !memcmp(b.p, "\xef\xbb\xbf", 3))
        pos = 3; /* a UTF-8 byte order mark */
    char **v = NULL;
    while (pos < b.n) {
        const char *nl = memchr(b.p + pos, '\n', b.n - pos);
        size_t l = nl ? (size_t)(nl - (b.p + pos)) : b.n - pos;
        add_term(&v, &cnt, &tcap, b.p + pos, l);
        pos += l + 1;
    }
    ks_buf_free(&b);
    *terms = v;
    *n = cnt;
    return KS_OK;
}

void ks_redact_free_terms(char **terms, size_t n)
{
    free_list(terms, n);
}
