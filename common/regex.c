/* common/regex.c: PCRE2 behind ks_regex (see regex.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "common/regex.h"

#include <pcre2.h>
#include <stdlib.h>

#include "common/util.h"

struct ks_regex {
    pcre2_code *code;
    pcre2_match_data *md;
};

ks_regex *ks_regex_new(const char *pattern, int caseless, ks_error *err)
{
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (caseless ? PCRE2_CASELESS : 0), &ec,
                                     &eo, NULL);
    if (!code) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(ec, msg, sizeof msg);
        ks_error_set(err, "bad regular expression /%s/: %s at offset %zu", pattern, (const char *)msg, (size_t)eo);
        return NULL;
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* falls back to the interpreter when unavailable */
    ks_regex *re = ks_xcalloc(1, sizeof *re);
    re->code = code;
    re->md = pcre2_match_data_create_from_pattern(code, NULL);
    return re;
}

void ks_regex_free(ks_regex *re)
{
    if (!re)
        return;
    pcre2_match_data_free(re->md);
    pcre2_code_free(re->code);
    free(re);
}

int ks_regex_match(ks_regex *re, const char *s, size_t n, int64_t *num)
{
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, re->md, NULL);
    if (rc < 0)
        return 0;
    if (num && rc >= 2) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
        if (ov[2] != PCRE2_UNSET && ov[3] > ov[2]) {
            int64_t v = 0;
            int ok = 1;
            for (PCRE2_SIZE i = ov[2]; i < ov[3]; i++) {
                if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10 - 9) {
                    ok = 0;
                    break;
                }
                v = v * 10 + (s[i] - '0');
            }
            if (ok)
                *num = v;
        }
    }
    return 1;
}
