/* redact/verify.c: the safety net for literals learned late. A user or host name learned halfway
 * through a trace (a home path in the 1000th Call stack, the host part of traceName, which
 * Kineto writes last) may have passed unnoticed in strings copied before. The written output is
 * searched for those literals, byte by byte (PCRE2, caseless, word bounded, across chunk
 * boundaries); only when one is found does the output go through a second pass. */
#include <string.h>

#include "redact/redact_int.h"

#define CHUNK (1 << 20)
#define OVERLAP 512 /* longer than any literal */

int ks_rd_raw_scan(const char *path, ks_rd_re *re, ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    if (ks_source_open(path, &src, err) != KS_OK)
        return KS_ERR;
    int r = ks_source_next(src, &st, err);
    if (r <= 0) {
        ks_source_close(src);
        return r < 0 ? KS_ERR : 0;
    }
    char *buf = ks_xmalloc(CHUNK + OVERLAP);
    size_t have = 0;
    int found = 0;
    for (;;) {
        ssize_t n = ks_stream_read(st, buf + have, CHUNK, err);
        if (n < 0) {
            found = KS_ERR;
            break;
        }
        if (n == 0)
            break;
        have += (size_t)n;
        PCRE2_SIZE *ov;
        if (ks_rd_re_match(re, buf, have, 0, &ov)) {
            found = 1;
            break;
        }
        size_t keep = have > OVERLAP ? OVERLAP : have;
        memmove(buf, buf + have - keep, keep);
        have = keep;
    }
    free(buf);
    ks_source_close(src);
    return found;
}
