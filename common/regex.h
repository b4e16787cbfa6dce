/* common/regex.h: a small wrapper over PCRE2 (with JIT when available) for the user-given
 * patterns of the analyses (--step-label, --data-label). Internal. */
#ifndef KS_REGEX_H
#define KS_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/common.h"

typedef struct ks_regex ks_regex;

/* Compile a pattern (UTF-8). On error returns NULL with err set ("... at offset N"). */
ks_regex *ks_regex_new(const char *pattern, int caseless, ks_error *err);
void ks_regex_free(ks_regex *re);
/* 1 when s (n bytes) matches anywhere; capture 1, when present and made of digits, goes to *num
 * (num may be NULL). */
int ks_regex_match(ks_regex *re, const char *s, size_t n, int64_t *num);

#endif
