/* redact/literals.c: literals hunted everywhere (docs/redaction.md §2.2, §2.5).
 *
 * User and host names learned from the trace itself (top-level host_name and username, the
 * traceName host part, uname.node, HOSTNAME/USER/HOME in stripped metadata, users of home paths)
 * and from the redacting machine (its own host name), plus --deny-file terms. They are matched
 * caseless and word bounded (not next to a letter or digit) by the matcher of litset.c (one
 * PCRE2 alternation of thousands of literals does not compile); the longest literal at a place
 * wins. Values too short, numeric or common
 * ("root", "nobody", "localhost") are not learned: they would match everywhere and identify
 * nobody. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/limits.h"
#include "redact/redact_int.h"

#define LIT_MIN KS_LIMIT_LITERAL_MIN
#define LIT_MAX KS_LIMIT_LITERAL_MAX

static const char *const stop_users[] = {"root",    "nobody", "user",    "users",  "admin",
                                         "ubuntu",  "runner", "guest",   "test",   "default",
                                         "none",    "null",   "unknown", "home",   "jenkins",
                                         "docker",  "app",    "python",  "torch",  "cuda",
                                         "ec2-user", "vscode", "daemon", "www-data"};
static const char *const stop_hosts[] = {"localhost", "localhost.localdomain", "none", "null",
                                         "unknown", "host", "default"};

/* host-<h> of a host name as written: names that differ in case keep distinct tokens, so two op
 * names that differ only there are not merged by redaction */
void ks_rd_host_token(ks_redactor *rd, const char *v, size_t n, ks_buf *out)
{
    ks_rd_pseudo_append(rd->pn, KS_CLS_HOST, v, n, out);
}

static int in_list(const char *v, size_t n, const char *const *list, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (strlen(list[i]) == n && !strncasecmp(v, list[i], n))
            return 1;
    return 0;
}

/* bytes of a name: ASCII letters, digits, . - _ and UTF-8 (a user "jörg" is learned like
 * "joerg"); a user or job name may hold spaces */
static int lit_char(unsigned char c, int cls)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '_' || c >= 0x80)
        return 1;
    return cls != KS_CLS_HOST && c == ' ';
}

static int acceptable(int cls, const char *v, size_t n)
{
    if (n < LIT_MIN || n > LIT_MAX || ks_rd_is_token(v, n))
        return 0;
    int letter = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (!lit_char(c, cls))
            return 0;
        letter |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
    }
    if (!letter)
        return 0;
    if (cls != KS_CLS_HOST)
        return !in_list(v, n, stop_users, sizeof stop_users / sizeof stop_users[0]);
    return !in_list(v, n, stop_hosts, sizeof stop_hosts / sizeof stop_hosts[0]);
}

static int known(const ks_redactor *rd, const char *v, size_t n)
{
    return ks_rd_litset_get(&rd->lset, rd->lits, v, n) >= 0;
}

static void add(ks_redactor *rd, int cls, const char *v, size_t n)
{
    KS_GROW(rd->lits, rd->lits_cap, rd->nlits + 1);
    ks_rd_literal *l = &rd->lits[rd->nlits++];
    l->text = ks_xstrndup(v, n);
    l->n = n;
    l->cls = (uint8_t)cls;
    if (cls == KS_CLS_HOST)
        for (size_t i = 0; i < n; i++)
            if (l->text[i] >= 'A' && l->text[i] <= 'Z')
                l->text[i] = (char)(l->text[i] + 32);
    ks_rd_litset_add(&rd->lset, rd->lits, rd->nlits - 1);
    if (n > rd->maxlit)
        rd->maxlit = n;
}

/* ---- words seen ------------------------------------------------------------------------------ */

#define WORD_BITS (1u << 18)

static int alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* the two Bloom bit positions of the lowercase word at s */
static void word_bits(const char *s, size_t n, uint32_t *a, uint32_t *b)
{
    uint64_t h = ks_hash_lower(s, n);
    *a = (uint32_t)(h & (WORD_BITS - 1));
    *b = (uint32_t)((h >> 32) & (WORD_BITS - 1));
}

void ks_rd_words_reset(ks_redactor *rd)
{
    if (!rd->words)
        rd->words = ks_xmalloc(WORD_BITS / 8);
    memset(rd->words, 0, WORD_BITS / 8);
}

void ks_rd_words_add(ks_redactor *rd, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && !alnum((unsigned char)s[i]))
            i++;
        size_t b = i;
        while (i < n && alnum((unsigned char)s[i]))
            i++;
        if (i > b) {
            uint32_t x, y;
            word_bits(s + b, i - b, &x, &y);
            rd->words[x >> 6] |= 1ULL << (x & 63);
            rd->words[y >> 6] |= 1ULL << (y & 63);
        }
    }
}

/* 0 when some word of v was never seen in the strings scanned so far: v cannot have occurred */
static int maybe_seen(const ks_redactor *rd, const char *v, size_t n)
{
    if (rd->strings_scanned > KS_RD_WORDS_STRINGS)
        return 1;
    size_t i = 0;
    while (i < n) {
        while (i < n && !alnum((unsigned char)v[i]))
            i++;
        size_t b = i;
        while (i < n && alnum((unsigned char)v[i]))
            i++;
        if (i > b) {
            uint32_t x, y;
            word_bits(v + b, i - b, &x, &y);
            if (!(rd->words[x >> 6] & (1ULL << (x & 63))) ||
                !(rd->words[y >> 6] & (1ULL << (y & 63))))
                return 0;
        }
    }
    return 1;
}

/* blanks, control characters (a name read from /etc/hostname ends in a newline) and a final
 * dot around a learned value */
static int trim_byte(unsigned char c)
{
    return c <= ' ' || c == 0x7f;
}

void ks_rd_learn(ks_redactor *rd, int cls, const char *v, size_t n)
{
    while (n && (trim_byte((unsigned char)v[n - 1]) || v[n - 1] == '.'))
        n--;
    while (n && trim_byte((unsigned char)*v)) {
        v++;
        n--;
    }
    if (!acceptable(cls, v, n))
        return;
    if (!known(rd, v, n)) {
        add(rd, cls, v, n);
        rd->lit_gen++;
        if (rd->strings_scanned && maybe_seen(rd, v, n))
            rd->late = 1;
    }
    /* the short name of a host name with a domain: node17 of node17.cluster.example.com */
    const char *dot = cls == KS_CLS_HOST ? memchr(v, '.', n) : NULL;
    if (dot && dot > v)
        ks_rd_learn(rd, cls, v, (size_t)(dot - v));
}

void ks_rd_add_deny(ks_redactor *rd, const char *v, size_t n)
{
    if (n >= 2 && !known(rd, v, n))
        add(rd, KS_CLS_SECRET, v, n);
}

size_t ks_rd_literals_since(ks_redactor *rd, uint64_t gen, ks_rd_litset *ls)
{
    /* deny terms are known from the start; learned literals come in order of lit_gen */
    size_t ndeny = 0, k = 0;
    for (size_t i = 0; i < rd->nlits; i++)
        ndeny += rd->lits[i].cls == KS_CLS_SECRET;
    for (size_t i = ndeny + (size_t)gen; i < rd->nlits; i++, k++)
        ks_rd_litset_add(ls, rd->lits, i);
    return k;
}

int ks_rd_literals_maybe(const ks_redactor *rd, const char *s, size_t n)
{
    return ks_rd_litset_maybe(&rd->lset, s, n);
}

int ks_rd_det_literals(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    size_t pos = 0, s;
    long idx;
    while (pos < n && (idx = ks_rd_litset_next(&rd->lset, rd->lits, in, n, pos, 0, &s)) >= 0) {
        const ks_rd_literal *l = &rd->lits[idx];
        size_t e = s + l->n;
        if (ks_rd_in_token(in, n, s, l->n)) {
            pos = s + 1;
            continue;
        }
        pos = e;
        ks_buf *o = ks_rd_rw_replace(&w, s, e);
        if (l->cls == KS_CLS_SECRET) {
            ks_rd_put_redacted(o, "deny");
            ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, l->text, l->n);
            ks_rd_hit(rd, R_DENY, e - s);
        } else {
            /* the token of the text as written here (case kept: see ks_rd_host_token) */
            ks_rd_pseudo_append(rd->pn, l->cls, in + s, l->n, o);
            ks_rd_hit(rd, l->cls == KS_CLS_HOST  ? R_LEARNED_HOST
                          : l->cls == KS_CLS_JOB ? R_LEARNED_JOB
                                                 : R_LEARNED_USER,
                      e - s);
        }
    }
    return ks_rd_rw_done(&w);
}
