/* redact/tokens.c: recognising what redaction itself writes, so that a second run changes
 * nothing (idempotence) and --check does not flag it: pseudonyms "user-1a2b3c4d" (8, 12, 16 ...
 * lowercase hex digits), "<path-1a2b3c4d>", "email-1a2b3c4d@example.invalid", secrets
 * "[REDACTED:rule]" and the structural "__stripped__". */
#include <string.h>

#include "redact/redact_int.h"

#define TOKEN_MAX 96 /* longest token: "[REDACTED:" + 64-char rule name + "]" */

static const char *const prefixes[] = {"user-", "host-", "email-", "job-", "id-", "path-"};
#define NPREFIX (sizeof prefixes / sizeof prefixes[0])
static const char email_domain[] = "@example.invalid";

static int is_lhex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* hex digits of a pseudonym at s: 8, 12, ... 32, not followed by another alphanumeric */
static size_t hex_run(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && k <= 32 && is_lhex((unsigned char)s[k]))
        k++;
    if (k < 8 || k > 32 || (k % 4) != 0)
        return 0;
    if (k < n && is_alnum((unsigned char)s[k]))
        return 0;
    return k;
}

static int rule_char(unsigned char c)
{
    return is_alnum(c) || c == '-' || c == '_' || c == '.';
}

size_t ks_rd_token_at(const char *s, size_t n)
{
    if (n >= 12 && s[0] == '_' && !memcmp(s, "__stripped__", 12))
        return 12;
    if (n >= 12 && s[0] == '[' && !memcmp(s, "[REDACTED:", 10)) {
        size_t k = 10;
        while (k < n && k < 10 + 64 && rule_char((unsigned char)s[k]))
            k++;
        if (k > 10 && k < n && s[k] == ']')
            return k + 1;
        return 0;
    }
    if (n >= 15 && s[0] == '<' && !memcmp(s, "<path-", 6)) {
        size_t h = hex_run(s + 6, n - 6);
        if (h && 6 + h < n && s[6 + h] == '>')
            return 6 + h + 1;
        return 0;
    }
    for (size_t i = 0; i < NPREFIX; i++) {
        size_t pl = strlen(prefixes[i]);
        if (n < pl + 8 || s[0] != prefixes[i][0] || memcmp(s, prefixes[i], pl))
            continue;
        size_t h = hex_run(s + pl, n - pl);
        if (!h)
            return 0;
        size_t end = pl + h;
        if (i == 2) { /* email: the domain is part of the token */
            size_t dl = sizeof email_domain - 1;
            if (n - end >= dl && !memcmp(s + end, email_domain, dl))
                return end + dl;
            return 0;
        }
        return end;
    }
    return 0;
}

int ks_rd_is_token(const char *s, size_t n)
{
    return n && ks_rd_token_at(s, n) == n;
}

int ks_rd_in_token(const char *s, size_t n, size_t pos, size_t len)
{
    size_t from = pos > TOKEN_MAX ? pos - TOKEN_MAX : 0;
    for (size_t p = from; p <= pos && p < n; p++) {
        unsigned char c = (unsigned char)s[p];
        if (c != '_' && c != '[' && c != '<' && c != 'u' && c != 'h' && c != 'e' && c != 'j' &&
            c != 'i' && c != 'p')
            continue;
        size_t l = ks_rd_token_at(s + p, n - p);
        if (l && p + l > pos)
            return 1;
    }
    (void)len;
    return 0;
}

/* Write the token that stands for a secret of rule rule; ks_rd_token_at recognises it. */
void ks_rd_put_redacted(ks_buf *out, const char *rule)
{
    ks_buf_puts(out, "[REDACTED:");
    ks_buf_puts(out, rule);
    ks_buf_putc(out, ']');
}
