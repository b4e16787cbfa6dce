/* redact/net.c: network identities in strings (docs/redaction.md §2.5).
 *   - e-mail addresses (PCRE2) -> email-<h>@example.invalid (hashed lowercased);
 *   - IPv4: four octets 0-255, not part of a longer dotted run, not after "==" or an
 *     alphanumeric, not followed by -<digit>, + or ~ (versions: pkg==1.2.3.4, v1.2.3.4,
 *     12.8.4.1-1) -> host-<h>;
 *   - IPv6: a run of hex digits, ':' and '.', delimited by non-identifier characters, that
 *     inet_pton accepts, with >= 4 groups or an embedded IPv4 (so C++ scopes such as c10:: and
 *     at::native never match) -> host-<h>;
 *   - host names: >= 3 labels ending in a generic TLD (com, net, org, edu, gov, io, ai, internal,
 *     local, lan, corp) or under a --domain -> host-<h>. Two-label names are never guessed
 *     (modeling_bert.py, libfoo.so, run.sh end in real TLDs). */
#include <arpa/inet.h>
#include <strings.h>

#include "redact/redact_int.h"

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alnum(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_ident(unsigned char c)
{
    return is_alnum(c) || c == '_';
}

static void host_token(ks_redactor *rd, ks_rd_rw *w, size_t s, size_t e, int rule)
{
    ks_rd_host_token(rd, w->in + s, e - s, ks_rd_rw_replace(w, s, e));
    ks_rd_hit(rd, rule, e - s);
}

/* ---- e-mail ---------------------------------------------------------------------------------- */

int ks_rd_det_email(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0;
    PCRE2_SIZE *ov;
    while (pos < n && ks_rd_re_match(&rd->re_email, in, n, pos, &ov)) {
        size_t s = ov[0], e = ov[1];
        pos = e > s ? e : s + 1;
        if (e <= s || ks_rd_token_at(in + s, n - s) >= e - s)
            continue;
        ks_buf *t = &rd->tmp;
        t->n = 0;
        for (size_t i = s; i < e; i++) {
            char c = in[i];
            ks_buf_putc(t, (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c);
        }
        ks_buf *o = ks_rd_rw_replace(&w, s, e);
        ks_rd_pseudo_append(rd->pn, KS_CLS_EMAIL, t->p, t->n, o);
        ks_buf_puts(o, "@example.invalid");
        ks_rd_hit(rd, R_EMAIL, e - s);
    }
    return ks_rd_rw_done(&w);
}

/* ---- IPv4 ------------------------------------------------------------------------------------ */

/* an octet 0-255 of 1-3 digits at s: its length, or 0 */
static size_t octet(const char *s, size_t n)
{
    size_t k = 0;
    unsigned v = 0;
    while (k < n && k < 4 && is_digit((unsigned char)s[k]))
        v = v * 10 + (unsigned)(s[k++] - '0');
    if (k == 0 || k > 3 || v > 255)
        return 0;
    return k;
}

static size_t ipv4_at(const char *in, size_t n, size_t i)
{
    size_t p = i;
    for (int g = 0; g < 4; g++) {
        size_t k = octet(in + p, n - p);
        if (!k)
            return 0;
        p += k;
        if (g < 3) {
            if (p >= n || in[p] != '.')
                return 0;
            p++;
        }
    }
    /* not part of a longer dotted run, not glued to a word, not a package version
     * (12.8.4.1-1, 1.2.3.4+cu121, 1.2.3.4~rc1) */
    if (p < n && (is_alnum((unsigned char)in[p]) || in[p] == '+' || in[p] == '~' ||
                  ((in[p] == '.' || in[p] == '-') && p + 1 < n &&
                   is_digit((unsigned char)in[p + 1]))))
        return 0;
    return p - i;
}

/* an IPv4 may start at i: a digit not glued to a word, a dotted run or a "==" version pin */
static int ipv4_start(const char *in, size_t i)
{
    if (!is_digit((unsigned char)in[i]))
        return 0;
    if (!i)
        return 1;
    unsigned char b = (unsigned char)in[i - 1];
    return !(is_alnum(b) || b == '_' || b == '.' || b == '-' ||
             (b == '=' && i >= 2 && in[i - 2] == '='));
}

int ks_rd_det_ipv4(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t i = 0;
    while (i + 7 <= n) {
        size_t len = ipv4_start(in, i) ? ipv4_at(in, n, i) : 0;
        if (len) {
            host_token(rd, &w, i, i + len, R_IPV4);
            i += len;
            continue;
        }
        /* step over the rest of this run of digits and dots */
        i++;
        while (i < n && (is_digit((unsigned char)in[i]) || in[i] == '.') &&
               is_digit((unsigned char)in[i - 1]))
            i++;
    }
    return ks_rd_rw_done(&w);
}

/* ---- IPv6 ------------------------------------------------------------------------------------ */

static int v6_char(unsigned char c)
{
    return is_hex(c) || c == ':' || c == '.';
}

int ks_rd_det_ipv6(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t i = 0;
    while (i < n) {
        const char *c = memchr(in + i, ':', n - i);
        if (!c)
            break;
        size_t s = (size_t)(c - in), e = s;
        while (s > i && v6_char((unsigned char)in[s - 1]))
            s--;
        while (e < n && v6_char((unsigned char)in[e]))
            e++;
        i = e + 1;
        while (e > s && in[e - 1] == '.') /* sentence end */
            e--;
        if ((s > 0 && (is_ident((unsigned char)in[s - 1]) || in[s - 1] == ':')) ||
            (e < n && (is_ident((unsigned char)in[e]))) || e - s < 6 || e - s > 45)
            continue;
        char buf[48];
        memcpy(buf, in + s, e - s);
        buf[e - s] = 0;
        unsigned char addr[16];
        if (inet_pton(AF_INET6, buf, addr) != 1)
            continue;
        int groups = 0, dot = 0;
        for (size_t k = s; k < e; k++) {
            if (in[k] == '.')
                dot = 1;
            if (in[k] != ':' && in[k] != '.' && (k == s || in[k - 1] == ':'))
                groups++;
        }
        if (groups < 4 && !dot)
            continue;
        host_token(rd, &w, s, e, R_IPV6);
    }
    return ks_rd_rw_done(&w);
}

/* ---- host names ------------------------------------------------------------------------------ */

static const char *const tlds[] = {"com", "net", "org", "edu", "gov", "io", "ai", "internal",
                                   "local", "lan", "corp"};

static int label_char(unsigned char c)
{
    return is_alnum(c) || c == '-';
}

/* "under a --domain": the name ends with "." + domain (caseless) */
static int under_domain(const ks_redactor *rd, const char *s, size_t n)
{
    for (size_t d = 0; d < rd->ndomains; d++) {
        size_t dl = strlen(rd->domains[d]);
        if (n > dl + 1 && s[n - dl - 1] == '.' && !strncasecmp(s + n - dl, rd->domains[d], dl))
            return 1;
    }
    return 0;
}

/* TLDs that are also everyday Python attribute names (self.net, threading.local, x.ai, f.io):
 * "model.backbone.net" or "encoder.layers.local" in a Module Hierarchy is no host. A name ending
 * in one is a host name only with a sign of one: a label holding a digit or a hyphen
 * (gpu-node-17.cluster.local, ip-10-0-0-1.corp.net), or a URL or e-mail context before it
 * ("//", "@"), or under a --domain. */
static int ambiguous_tld(const char *s, size_t n)
{
    static const char *const amb[] = {"net", "local", "ai", "io", "lan", "corp"};
    for (size_t t = 0; t < sizeof amb / sizeof amb[0]; t++)
        if (strlen(amb[t]) == n && !strncasecmp(s, amb[t], n))
            return 1;
    return 0;
}

static int host_evidence(const char *in, size_t i, size_t e)
{
    for (size_t k = i; k < e; k++)
        if (in[k] == '-' || (in[k] >= '0' && in[k] <= '9'))
            return 1;
    return (i >= 2 && in[i - 1] == '/' && in[i - 2] == '/') || (i >= 1 && in[i - 1] == '@');
}

static int generic_tld(const char *s, size_t n)
{
    for (size_t t = 0; t < sizeof tlds / sizeof tlds[0]; t++)
        if (strlen(tlds[t]) == n && !strncasecmp(s, tlds[t], n))
            return 1;
    return 0;
}

int ks_rd_det_fqdn(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t i = 0;
    while (i < n) {
        unsigned char p = i ? (unsigned char)in[i - 1] : ' ';
        if (!is_alnum((unsigned char)in[i]) || label_char(p) || p == '_' || p == '.' || p == '@') {
            i++;
            continue;
        }
        /* labels separated by single dots */
        size_t e = i, labels = 0, last = i;
        for (;;) {
            size_t k = e;
            while (k < n && label_char((unsigned char)in[k]))
                k++;
            if (k == e)
                break;
            labels++;
            last = e;
            e = k;
            if (e + 1 < n && in[e] == '.' && is_alnum((unsigned char)in[e + 1]))
                e++;
            else
                break;
        }
        size_t next = e > i ? e : i + 1;
        int ok = labels >= 3 && !(e < n && (in[e] == '_' || in[e] == '@')) &&
                 ((generic_tld(in + last, e - last) &&
                   (!ambiguous_tld(in + last, e - last) || host_evidence(in, i, e))) ||
                  under_domain(rd, in + i, e - i));
        if (!ok && labels >= 2 && under_domain(rd, in + i, e - i))
            ok = 1;
        if (ok && !ks_rd_in_token(in, n, i, e - i))
            host_token(rd, &w, i, e, R_FQDN);
        i = next;
    }
    return ks_rd_rw_done(&w);
}
