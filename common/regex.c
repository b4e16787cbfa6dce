/* common/regex.c: PCRE2 behind ks_regex (see regex.h), loaded at the first expression compiled
 * (common/lazylib.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "common/regex.h"

#include <pcre2.h>
#include <stdlib.h>

#include "common/lazylib.h"
#include "common/util.h"

_Static_assert(sizeof(PCRE2_SIZE) == sizeof(size_t) && PCRE2_UNSET == KS_REGEX_UNSET,
               "PCRE2's ovector is handed out as size_t");

struct ks_regex {
    pcre2_code *code;
    pcre2_match_data *md;
};

ks_regex *ks_regex_new(const char *pattern, unsigned options, ks_error *err)
{
    int ec;
    PCRE2_SIZE eo;
    if (ks_pcre2_load(err) != KS_OK)
        return NULL;
    uint32_t flags = (options & KS_REGEX_UTF ? PCRE2_UTF | PCRE2_MATCH_INVALID_UTF : 0) |
                     (options & KS_REGEX_CASELESS ? PCRE2_CASELESS : 0);
    pcre2_code *code =
        ks_pcre2.pcre2_compile_8((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, flags, &ec, &eo, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        ks_pcre2.pcre2_get_error_message_8(ec, msg, sizeof msg);
        ks_error_set(err, "bad regular expression /%s/: %s at offset %zu", pattern, (const char *)msg, (size_t)eo);
        return NULL;
    }
    (void)ks_pcre2.pcre2_jit_compile_8(code, PCRE2_JIT_COMPLETE); /* without it, pcre2_match interprets */
    ks_regex *re = ks_xcalloc(1, sizeof *re);
    re->code = code;
    re->md = ks_pcre2.pcre2_match_data_create_from_pattern_8(code, NULL);
    if (!re->md)
        ks_out_of_memory(sizeof *re);
    return re;
}

void ks_regex_free(ks_regex *re)
{
    if (!re)
        return;
    ks_pcre2.pcre2_match_data_free_8(re->md);
    ks_pcre2.pcre2_code_free_8(re->code);
    free(re);
}

int ks_regex_exec(ks_regex *re, const char *s, size_t n, size_t start, const size_t **ov)
{
    if (start > n)
        return 0;
    int rc = ks_pcre2.pcre2_match_8(re->code, (PCRE2_SPTR)s, n, start, 0, re->md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc < 0)
        return rc;
    *ov = ks_pcre2.pcre2_get_ovector_pointer_8(re->md);
    return rc ? rc : 1; /* 0: the ovector was too small for every group (never: sized from it) */
}

int ks_regex_match(ks_regex *re, const char *s, size_t n, int64_t *num)
{
    const size_t *ov;
    int rc = ks_regex_exec(re, s, n, 0, &ov);
    if (rc <= 0)
        return 0;
    if (num && rc >= 2 && ov[2] != KS_REGEX_UNSET && ov[3] > ov[2]) {
        int64_t v = 0;
        int ok = 1;
        for (size_t i = ov[2]; i < ov[3]; i++) {
            if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10 - 9) {
                ok = 0;
                break;
            }
            v = v * 10 + (s[i] - '0');
        }
        if (ok)
            *num = v;
    }
    return 1;
}
