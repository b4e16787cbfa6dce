/* source/gunzip.c: gzip decoding with the CRC-32 and ISIZE of every member verified (see
 * source/gunzip.h). zlib's inflate with windowBits 15+16 parses the gzip header and checks the
 * trailer itself ("incorrect data check", "incorrect length check"); this file feeds it, restarts
 * it at each member and turns its verdicts into errors with the member and the byte. */
#include "source/gunzip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/util.h"

struct ks_gunzip {
    z_stream z;
    unsigned char *head;
    size_t head_len;
    int head_used;
    ks_gz_pull pull;
    void *ctx;
    int eof;            /* pull said end */
    int done;           /* last member ended (or trailing bytes ignored) */
    uint64_t member;    /* 1-based number of the member being decoded */
    uint64_t member_at; /* its first compressed byte */
    uint64_t in_before; /* compressed bytes of the blocks before the current one */
    size_t block_len;   /* length of the current block */
};

int ks_gunzip_magic(const void *p, size_t n)
{
    const unsigned char *b = p;
    return n >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8;
}

ks_gunzip *ks_gunzip_new(const void *head, size_t head_len, ks_gz_pull pull, void *ctx)
{
    ks_gunzip *g = ks_xcalloc(1, sizeof *g);
    if (inflateInit2(&g->z, 15 + 16) != Z_OK) {
        free(g);
        return NULL;
    }
    g->head = ks_xmalloc(head_len ? head_len : 1);
    if (head_len)
        memcpy(g->head, head, head_len);
    g->head_len = head_len;
    g->pull = pull;
    g->ctx = ctx;
    g->member = 1;
    return g;
}

void ks_gunzip_free(ks_gunzip *g)
{
    if (!g)
        return;
    inflateEnd(&g->z);
    free(g->head);
    free(g);
}

uint64_t ks_gunzip_in_bytes(const ks_gunzip *g)
{
    return g->in_before + (g->block_len - g->z.avail_in);
}

/* make input available: 1, 0 at the end, -1 on a pull error */
static int refill(ks_gunzip *g, ks_error *err)
{
    while (g->z.avail_in == 0) {
        if (g->eof)
            return 0;
        g->in_before += g->block_len;
        g->block_len = 0;
        const void *b;
        ssize_t n;
        if (!g->head_used) {
            g->head_used = 1;
            b = g->head;
            n = (ssize_t)g->head_len;
        } else {
            n = g->pull(g->ctx, &b, err);
            if (n < 0)
                return -1;
            if (n == 0) {
                g->eof = 1;
                return 0;
            }
        }
        g->z.next_in = (unsigned char *)(uintptr_t)b;
        g->z.avail_in = (uInt)n;
        g->block_len = (size_t)n;
    }
    return 1;
}

/* after a member's end: another member follows (1), or the stream ends here (0), -1 on error */
static int next_member(ks_gunzip *g, ks_error *err)
{
    int r = refill(g, err);
    if (r <= 0)
        return r;
    /* a new member needs its magic; a cut one at a block edge is looked at byte by byte */
    if (g->z.next_in[0] != 0x1f || (g->z.avail_in >= 2 && g->z.next_in[1] != 0x8b))
        return 0; /* trailing bytes that are not gzip: ignored */
    g->member_at = ks_gunzip_in_bytes(g);
    g->member++;
    inflateReset(&g->z);
    return 1;
}

ssize_t ks_gunzip_read(ks_gunzip *g, void *buf, size_t n, int *integrity, ks_error *err)
{
    *integrity = 0;
    if (g->done || n == 0)
        return 0;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    g->z.next_out = buf;
    g->z.avail_out = (uInt)n;
    while (g->z.avail_out == n) {
        int r = refill(g, err);
        if (r < 0)
            return KS_ERR;
        if (r == 0) {
            if (ks_gunzip_in_bytes(g) == g->member_at && g->member > 1)
                break; /* cannot happen: next_member saw bytes */
            return ks_error_set(err, "gzip member %llu (from compressed byte %llu) is truncated at compressed byte %llu",
                                (unsigned long long)g->member, (unsigned long long)g->member_at,
                                (unsigned long long)ks_gunzip_in_bytes(g));
        }
        int z = inflate(&g->z, Z_NO_FLUSH);
        if (z == Z_STREAM_END) {
            int m = next_member(g, err);
            if (m < 0)
                return KS_ERR;
            if (m == 0) {
                g->done = 1;
                break;
            }
            continue;
        }
        if (z == Z_BUF_ERROR)
            continue; /* needs more input: refill */
        if (z != Z_OK) {
            const char *why = g->z.msg ? g->z.msg : "corrupt data";
            int check = !strcmp(why, "incorrect data check") || !strcmp(why, "incorrect length check");
            *integrity = 1;
            if (check)
                return ks_error_set(err, "gzip member %llu (from compressed byte %llu): %s at compressed byte %llu: "
                                         "the data is damaged",
                                    (unsigned long long)g->member, (unsigned long long)g->member_at,
                                    !strcmp(why, "incorrect data check") ? "CRC-32 mismatch" : "length (ISIZE) mismatch",
                                    (unsigned long long)ks_gunzip_in_bytes(g));
            return ks_error_set(err, "gzip member %llu (from compressed byte %llu): %s at compressed byte %llu",
                                (unsigned long long)g->member, (unsigned long long)g->member_at, why,
                                (unsigned long long)ks_gunzip_in_bytes(g));
        }
    }
    return (ssize_t)(n - g->z.avail_out);
}
