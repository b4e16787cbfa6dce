/* redact/net.c: network identities in strings (docs/redaction.md §2.5).
 *   - e-mail addresses (PCRE2) -> email-<h>@example.invalid (hashed lowercased);
 *   - IPv4: four octets 0-255, not part of a longer dotted run, not after "==" or an
 *     alphanumeric, not followed by -<digit>, + or ~ (versions: pkg==1.2.3.4, v1.2.3.4,
 *     12.8.4.1-1) -> host-<h>;
 *   - IPv6: a run of hex digits, ':' and '.', delimited by non-identifier characters, that
 *     inet_pton accepts, with >= 4 groups or an embedded IPv4 (so C++ scopes such as c10:: and
 *     at::native never match) -> host-<h>;
 *   - host names: >= 3 labels ending in a public suffix (psl.c) or a private-use name, no file
 *     name, no Python dotted name (the rule is written out above ks_rd_det_fqdn), or under a
 *     --domain -> host-<h>. Two-label names are never guessed (modeling_bert.py, libfoo.so,
 *     run.sh end in real TLDs). */
#include <arpa/inet.h>
#include <string.h>
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
    const size_t *ov;
    while (pos < n && ks_rd_re_match(&rd->re_email, in, n, pos, &ov)) {
        size_t s = ov[0], e = ov[1];
        pos = e > s ? e : s + 1;
        if (e <= s || ks_rd_token_at(in + s, n - s) >= e - s)
            continue;
        /* hashed as written: addresses that differ in case keep distinct tokens */
        ks_buf *o = ks_rd_rw_replace(&w, s, e);
        ks_rd_pseudo_append(rd->pn, KS_CLS_EMAIL, in + s, e - s, o);
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

/* a version follows the word before in[i] (blanks, ':' or '=' between): "cudnn 8.9.2.26",
 * "cuDNN version: 8.9.2.26", "driver=535.104.05.1"; the word names a library or says
 * version, release, build */
static int after_version_word(const char *in, size_t i)
{
    size_t k = i, seps = 0;
    while (k > 0 && seps < 3 && (in[k - 1] == ' ' || in[k - 1] == '\t' || in[k - 1] == ':' ||
                                 in[k - 1] == '='))
        k--, seps++;
    if (!seps)
        return 0;
    size_t e = k;
    while (k > 0 && e - k < 32 && (is_alnum((unsigned char)in[k - 1]) || in[k - 1] == '_' ||
                                   in[k - 1] == '-' || in[k - 1] == '+'))
        k--;
    if (e - k < 2)
        return 0;
    char w[33];
    for (size_t j = 0; j < e - k; j++)
        w[j] = (char)(in[k + j] >= 'A' && in[k + j] <= 'Z' ? in[k + j] + 32 : in[k + j]);
    w[e - k] = 0;
    static const char *const names[] = {
        "version", "ver", "release", "build", "rev", "revision", "cuda", "cudnn", "nccl",
        "cublas", "cufft", "curand", "cusolver", "cusparse", "cupti", "nvtx", "driver", "tensorrt",
        "trt", "rocm", "hip", "miopen", "rccl", "magma", "mkl", "onednn", "mkldnn", "triton",
        "torch", "pytorch", "python", "gcc", "clang", "glibc", "openmpi", "ucx", "nvidia", "cmake",
        "numpy", "libcudnn", "cudatoolkit", "jax", "tensorflow", "protobuf", NULL};
    for (size_t j = 0; names[j]; j++)
        if (!strcmp(w, names[j]))
            return 1;
    return strstr(w, "version") || strstr(w, "cudnn") || strstr(w, "nccl") || strstr(w, "cuda");
}

/* an IPv4 may start at i: a digit not glued to a word, a dotted run or a "==" version pin, not
 * a library's version */
static int ipv4_start(const char *in, size_t i)
{
    if (!is_digit((unsigned char)in[i]))
        return 0;
    if (!i)
        return 1;
    if (after_version_word(in, i))
        return 0;
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
        int groups = 0, dot = 0, digit_last = 0;
        for (size_t k = s; k < e; k++) {
            if (in[k] == '.')
                dot = 1;
            if (in[k] != ':' && in[k] != '.' && (k == s || in[k - 1] == ':')) {
                groups++;
                digit_last = 0;
            }
            if (is_digit((unsigned char)in[k]))
                digit_last = 1;
        }
        /* short forms (2001:db8::1, fe80::1): "::" with a group on each side, and a decimal
         * digit in the last group and in the first one; C++ scopes of hex letters (c10::add,
         * dead::beef) have none there */
        int shortform = 0;
        const char *dc = memmem(in + s, e - s, "::", 2);
        if (dc && groups >= 2 && dc > in + s && dc + 2 < in + e && digit_last) {
            for (const char *q = in + s; q < dc && *q != ':'; q++)
                shortform |= is_digit((unsigned char)*q);
        }
        if (groups < 4 && !dot && !shortform)
            continue;
        host_token(rd, &w, s, e, R_IPV6);
    }
    return ks_rd_rw_done(&w);
}

/* ---- host names ------------------------------------------------------------------------------ */

/* The rule (docs/redaction.md, fqdn): a run of >= 3 labels (letters, digits, '-') joined by
 * single dots is a host name when
 *   1. its last label is a TLD of the public-suffix list (psl.c) or a private-use name the list
 *      does not hold (local, internal, ...), or the name is under a --domain (>= 2 labels then);
 *   2. it is no file name: its last label is not a file extension (py, so, sh, pt, ...: these
 *      are ccTLDs) and it is not a component inside a path (right after '/' or '\' that is not
 *      the "//" of a URL);
 *   3. it is no Python dotted name: a name whose labels are all identifiers (no '-', none
 *      starting with a digit) is a host only outside a module context (a call or index right
 *      after it, or a Python frame or module marker in the string) and with a sign of a host: a
 *      label holding a digit, "//" or '@' before it, ":<port>" after it, an inner label that is
 *      a private-use name or a TLD itself (db.internal.net, mail.google.com), or a last label
 *      that no Python attribute is named after (com, org, edu, gov, mil, int, internal).
 *      In a module context only "//" or '@' before it make it a host. */

static int ieq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !strncasecmp(s, w, n);
}

static int in_list(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (ieq(s, n, list[i]))
            return 1;
    return 0;
}

/* private-use names, which the public-suffix list does not hold (RFC 6762 .local, ICANN's
 * .internal, and the de-facto lan, corp, home, localdomain, intranet) */
static const char *const private_use[] = {"local", "internal", "lan", "corp", "home", "localdomain",
                                          "intranet", NULL};

/* file extensions that are also TLDs: foo.sh, libfoo.so, model.py, weights.pt */
static const char *const extensions[] = {"py", "so", "sh", "pt", "pl", "pm", "rs", "cc", "cu", "cl",
                                         "md", "ps", "ml", "mk", "java", "zip", "mov", NULL};

/* the TLDs that no Python attribute is named after */
static const char *const plain_tlds[] = {"com", "org", "edu", "gov", "mil", "int", "internal",
                                         NULL};

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

/* the string holds a Python frame or module marker: a Call stack, a python_function name, an
 * nn.Module name */
static int python_text(const char *in, size_t n)
{
    return memmem(in, n, ".py(", 4) || memmem(in, n, ".py:", 4) || memmem(in, n, ".py\"", 4) ||
           memmem(in, n, "nn.Module", 9) || memmem(in, n, "<built-in", 9) ||
           memmem(in, n, "<module>", 8);
}

typedef struct dotted {
    size_t s, e;           /* the name */
    size_t lab[2 * 64];    /* label bounds, up to 64 labels */
    size_t nl;
} dotted;

static int identifier_labels(const char *in, const dotted *d)
{
    for (size_t l = 0; l < d->nl; l++) {
        size_t a = d->lab[2 * l], b = d->lab[2 * l + 1];
        if (is_digit((unsigned char)in[a]) || memchr(in + a, '-', b - a))
            return 0;
    }
    return 1;
}

static int host_sign(const char *in, size_t n, const dotted *d)
{
    size_t i = d->s, e = d->e;
    if ((i >= 2 && in[i - 1] == '/' && in[i - 2] == '/') || (i >= 1 && in[i - 1] == '@'))
        return 2; /* a URL's or an e-mail's host: also in a module context */
    {
        /* com, org, edu, gov, mil, internal: no Python attribute, also before a call or index
         * ("int" is one: Tensor.int) */
        const char *t = in + d->lab[2 * (d->nl - 1)];
        size_t tn = d->lab[2 * d->nl - 1] - d->lab[2 * (d->nl - 1)];
        if (in_list(t, tn, plain_tlds) && !ieq(t, tn, "int"))
            return 2;
    }
    if (e + 1 < n && in[e] == ':' && is_digit((unsigned char)in[e + 1]))
        return 1;
    for (size_t k = i; k < e; k++)
        if (is_digit((unsigned char)in[k]))
            return 1;
    for (size_t l = 1; l + 1 < d->nl; l++) {
        const char *a = in + d->lab[2 * l];
        size_t ln = d->lab[2 * l + 1] - d->lab[2 * l];
        if (in_list(a, ln, private_use) || ks_rd_psl_tld(a, ln))
            return 1;
    }
    const char *t = in + d->lab[2 * (d->nl - 1)];
    return ieq(t, d->lab[2 * d->nl - 1] - d->lab[2 * (d->nl - 1)], "int");
}

static int is_host(const ks_redactor *rd, const char *in, size_t n, const dotted *d, int *pytext)
{
    const char *t = in + d->lab[2 * (d->nl - 1)];
    size_t tn = d->lab[2 * d->nl - 1] - d->lab[2 * (d->nl - 1)];
    if (under_domain(rd, in + d->s, d->e - d->s))
        return d->nl >= 2;
    if (d->nl < 3 || !(ks_rd_psl_tld(t, tn) || in_list(t, tn, private_use)))
        return 0;
    /* a path component (conf/foo.bar.net) is a host only by rule 1 alone or with a sign */
    if (in_list(t, tn, extensions))
        return 0;
    if (!identifier_labels(in, d))
        return 1;
    if (*pytext < 0)
        *pytext = python_text(in, n);
    /* a path component (conf/foo.bar.net) counts as a module context */
    int url = d->s >= 2 && in[d->s - 1] == '/' && in[d->s - 2] == '/';
    int comp = d->s >= 1 && (in[d->s - 1] == '/' || in[d->s - 1] == '\\') && !url;
    int module = *pytext || comp || (d->e < n && (in[d->e] == '(' || in[d->e] == '['));
    int sign = host_sign(in, n, d);
    return module ? sign == 2 : sign > 0;
}

int ks_rd_det_fqdn(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    dotted d;
    int pytext = -1;
    size_t i = 0;
    while (i < n) {
        unsigned char p = i ? (unsigned char)in[i - 1] : ' ';
        if (!is_alnum((unsigned char)in[i]) || label_char(p) || p == '.') {
            i++;
            continue;
        }
        /* labels separated by single dots */
        size_t e = i;
        d.nl = 0;
        d.s = i;
        for (;;) {
            size_t k = e;
            while (k < n && label_char((unsigned char)in[k]))
                k++;
            if (k == e)
                break;
            if (d.nl < 64) {
                d.lab[2 * d.nl] = e;
                d.lab[2 * d.nl + 1] = k;
                d.nl++;
            } else { /* more than 64 labels: the last slot follows the last label */
                d.lab[2 * 63] = e;
                d.lab[2 * 63 + 1] = k;
            }
            e = k;
            if (e + 1 < n && in[e] == '.' && is_alnum((unsigned char)in[e + 1]))
                e++;
            else
                break;
        }
        d.e = e;
        size_t next = e > i ? e : i + 1;
        if (d.nl && is_host(rd, in, n, &d, &pytext) && !ks_rd_in_token(in, n, i, e - i))
            host_token(rd, &w, i, e, R_FQDN);
        i = next;
    }
    return ks_rd_rw_done(&w);
}
