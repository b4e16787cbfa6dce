/* common/regex.h: the one wrapper over PCRE2 (JIT when the CPU has it): the user-given patterns of
 * the analyses (--step-label, --data-label) and the redaction rules, built in and user-given.
 * A ks_regex owns its compiled code and its match data, so it matches on one thread at a time.
 * Internal. */
#ifndef KS_REGEX_H
#define KS_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/common.h"

typedef struct ks_regex ks_regex;

/* compile options */
enum {
    KS_REGEX_UTF = 1u << 0,      /* UTF-8 pattern and subject; invalid UTF-8 in a subject never
                                  * matches (it is no error) */
    KS_REGEX_CASELESS = 1u << 1
};

/* an offset of ks_regex_exec's ovector for a group that did not take part in the match */
#define KS_REGEX_UNSET SIZE_MAX

/* Compile a pattern with KS_REGEX_* options. On error returns NULL with err set to the pattern,
 * PCRE2's message and the offset: "bad regular expression /(a/: missing closing parenthesis at
 * offset 2" (the caller says what the pattern was for). */
ks_regex *ks_regex_new(const char *pattern, unsigned options, ks_error *err);
void ks_regex_free(ks_regex *re);

/* Match s (n bytes) from offset start. Returns > 0 on a match with *ov the ovector (pairs of
 * offsets: the match, then each group, KS_REGEX_UNSET when a group is unset), 0 when there is no
 * match, and PCRE2's negative error code when matching failed (a match or depth limit): no
 * answer, not "no match". */
int ks_regex_exec(ks_regex *re, const char *s, size_t n, size_t start, const size_t **ov);

/* 1 when s (n bytes) matches anywhere (a matching error counts as no match); capture 1, when
 * present and made of digits, goes to *num (num may be NULL). */
int ks_regex_match(ks_regex *re, const char *s, size_t n, int64_t *num);

#endif
