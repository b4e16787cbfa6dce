/* redact/verify.c: the safety net for literals learned late. A user or host name learned halfway
 * through a trace (a home path in the 1000th Call stack, the host part of traceName, which
 * Kineto writes last) may have passed unnoticed in strings copied before. The written output is
 * searched for those literals, byte by byte (litset.c: caseless, word bounded, a word also
 * starting right after a JSON escape such as \n or \u0041, across chunk boundaries); only when
 * one is found does the output go through a second pass. A hit that the decoded text would not
 * give costs a second pass, never a miss. */
#include <stdlib.h>
#include <string.h>

#include "redact/redact_int.h"

#define CHUNK (1 << 20)

int ks_rd_raw_scan_stream(ks_redactor *rd, ks_stream *st, const ks_rd_litset *ls, ks_error *err)
{
    if (!ls->n)
        return 0;
    /* the overlap keeps a literal cut by a chunk boundary, its escape before and a byte after */
    size_t overlap = ls->maxlen + 8;
    char *buf = ks_xmalloc(CHUNK + overlap);
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
        size_t at;
        if (ks_rd_litset_next(ls, rd->lits, buf, have, 0, 1, &at) >= 0) {
            found = 1;
            break;
        }
        size_t keep = have > overlap ? overlap : have;
        memmove(buf, buf + have - keep, keep);
        have = keep;
    }
    free(buf);
    return found;
}

int ks_rd_raw_scan(ks_redactor *rd, const char *path, const ks_rd_litset *ls, ks_error *err)
{
    if (!ls->n)
        return 0;
    ks_source *src;
    ks_stream *st;
    if (ks_source_open(path, &src, err) != KS_OK)
        return KS_ERR;
    int r = ks_source_next(src, &st, err);
    if (r <= 0) {
        ks_source_close(src);
        return r < 0 ? KS_ERR : 0;
    }
    int found = ks_rd_raw_scan_stream(rd, st, ls, err);
    ks_source_close(src);
    return found;
}
