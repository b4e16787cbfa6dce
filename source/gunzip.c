/* source/gunzip.c: gzip decoding with the CRC-32 and ISIZE of every member verified (see
 * source/gunzip.h). ISA-L's inflate (igzip, libisal) with crc_flag ISAL_GZIP_NO_HDR_VER decodes a
 * member's deflate data and checks its trailer itself; it decodes 4-6x faster than zlib, which
 * matters because decompression runs on the reader thread ahead of the parse.
 * The member's header (RFC 1952 2.3: magic, method, flags, optional extra, name, comment and header
 * CRC) is read here, byte by byte as the blocks come: ISA-L's own header reader gave a different
 * verdict on one damaged header depending on where the blocks were cut (fuzz_gunzip found it), and
 * the decoder's verdicts must not depend on that. This file feeds ISA-L, restarts it at each member
 * and turns its verdicts into errors with the member and the byte. ISA-L reports one code for
 * either trailer field, so on a mismatch the trailer is read back from the bytes just consumed
 * (`tail` keeps the last 8 across blocks) and compared with the CRC ISA-L computed: the CRC
 * differs, or else it is the length (zlib's order). */
#include "source/gunzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lazylib.h"
#include "common/util.h"

struct ks_gunzip {
    struct inflate_state z;
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
    const unsigned char *block; /* the current block */
    unsigned char tail[8];      /* the last bytes of the blocks before the current one */
    size_t tail_len;
    int stuck;                  /* calls in a row that took no input and gave no output */
    int no_isal;                /* ISA-L could not be loaded: every read says why */
    /* the member's header, read here */
    int hstate;        /* H_* */
    unsigned hflags;   /* its FLG byte */
    size_t hneed;      /* bytes left in the fixed part, the extra field or the header CRC */
    size_t hat;        /* bytes of the fixed part read */
    unsigned char hbuf[10];
    uint32_t hcrc;     /* CRC-32 of the header bytes so far */
};

enum { H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DONE };
enum { F_HCRC = 2, F_EXTRA = 4, F_NAME = 8, F_COMMENT = 16 };

uint64_t ks_gunzip_in_bytes(const ks_gunzip *g)
{
    return g->in_before + (g->block_len - g->z.avail_in);
}

/* Every error about a member: "gzip member N (from compressed byte M)", what (": ..." or
 * " is ..."), " at compressed byte <at>", then tail. Returns KS_ERR. */
static int member_error(const ks_gunzip *g, ks_error *err, const char *what, uint64_t at, const char *tail)
{
    return ks_error_set(err, "gzip member %llu (from compressed byte %llu)%s at compressed byte %llu%s",
                        (unsigned long long)g->member, (unsigned long long)g->member_at, what,
                        (unsigned long long)at, tail);
}

static int truncated(const ks_gunzip *g, ks_error *err)
{
    return member_error(g, err, " is truncated", ks_gunzip_in_bytes(g), "");
}

int ks_gunzip_magic(const void *p, size_t n)
{
    const unsigned char *b = p;
    return n >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8;
}

static void restart(ks_gunzip *g)
{
    ks_isal.isal_inflate_reset(&g->z);
    g->z.crc_flag = ISAL_GZIP_NO_HDR_VER;
    g->hstate = H_FIXED;
    g->hneed = sizeof g->hbuf;
    g->hat = 0;
    g->hcrc = 0;
}

/* the header state after its fixed part or a field: the next field the flags announce */
static void header_next(ks_gunzip *g, int after)
{
    g->hstate = H_DONE;
    if (after < H_XLEN && (g->hflags & F_EXTRA)) {
        g->hstate = H_XLEN, g->hneed = 2, g->hat = 0;
        return;
    }
    if (after < H_NAME && (g->hflags & F_NAME)) {
        g->hstate = H_NAME;
        return;
    }
    if (after < H_COMMENT && (g->hflags & F_COMMENT)) {
        g->hstate = H_COMMENT;
        return;
    }
    if (after < H_HCRC && (g->hflags & F_HCRC))
        g->hstate = H_HCRC, g->hneed = 2, g->hat = 0;
}

/* Read header bytes from the current block: 1 when the header is complete, 0 when the block ran
 * out first, 2 when what looked like another member is not one, KS_ERR on a header that is not
 * gzip's (err set; names the byte). */
static int read_header(ks_gunzip *g, ks_error *err)
{
    while (g->hstate != H_DONE && g->z.avail_in) {
        unsigned char c = *g->z.next_in;
        uint64_t at = ks_gunzip_in_bytes(g);
        if (g->hstate != H_HCRC)
            g->hcrc = ks_isal.crc32_gzip_refl(g->hcrc, &c, 1);
        g->z.next_in++;
        g->z.avail_in--;
        switch (g->hstate) {
        case H_FIXED:
        case H_XLEN:
        case H_HCRC:
            g->hbuf[g->hat++] = c;
            if (g->hstate == H_FIXED && g->hat == 2 && c != 0x8b && g->member > 1)
                return 2; /* a 0x1f at a block's end after a member, not followed by 0x8b: trailing bytes */
            if (--g->hneed)
                break;
            if (g->hstate == H_FIXED) {
                if (g->hbuf[0] != 0x1f || g->hbuf[1] != 0x8b) /* the first member's magic was seen */
                    return member_error(g, err, ": not a gzip header", g->member_at, "");
                if (g->hbuf[2] != 8) {
                    char what[48];
                    snprintf(what, sizeof what, ": unknown compression method %u", g->hbuf[2]);
                    return member_error(g, err, what, g->member_at + 2, "");
                }
                g->hflags = g->hbuf[3];
                if (g->hflags & 0xe0)
                    return member_error(g, err, ": unknown header flags set", g->member_at + 3, "");
                header_next(g, H_FIXED);
            } else if (g->hstate == H_XLEN) {
                g->hneed = (size_t)g->hbuf[0] | (size_t)g->hbuf[1] << 8;
                g->hstate = H_EXTRA;
                if (!g->hneed)
                    header_next(g, H_EXTRA);
            } else {
                if ((g->hcrc & 0xffff) != ((uint32_t)g->hbuf[0] | (uint32_t)g->hbuf[1] << 8))
                    return member_error(g, err, ": header CRC mismatch", at + 1, "");
                g->hstate = H_DONE;
            }
            break;
        case H_EXTRA:
            if (!--g->hneed)
                header_next(g, H_EXTRA);
            break;
        case H_NAME:
        case H_COMMENT:
            if (!c)
                header_next(g, g->hstate);
            break;
        }
    }
    return g->hstate == H_DONE;
}

ks_gunzip *ks_gunzip_new(const void *head, size_t head_len, ks_gz_pull pull, void *ctx)
{
    ks_gunzip *g = ks_xcalloc(1, sizeof *g);
    g->no_isal = ks_isal_load(NULL) != KS_OK; /* loaded at the first gzip input (common/lazylib.h) */
    if (!g->no_isal) {
        ks_isal.isal_inflate_init(&g->z);
        restart(g);
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
    free(g->head);
    free(g);
}

/* keep the last 8 bytes of the block being left (with those before it when it is shorter) */
static void keep_tail(ks_gunzip *g)
{
    size_t n = g->block_len;
    if (n == 0)
        return;
    if (n >= sizeof g->tail) {
        memcpy(g->tail, g->block + n - sizeof g->tail, sizeof g->tail);
        g->tail_len = sizeof g->tail;
        return;
    }
    size_t keep = g->tail_len + n > sizeof g->tail ? sizeof g->tail - n : g->tail_len;
    memmove(g->tail, g->tail + g->tail_len - keep, keep);
    memcpy(g->tail + keep, g->block, n);
    g->tail_len = keep + n;
}

/* make input available: 1, 0 at the end, -1 on a pull error */
static int refill(ks_gunzip *g, ks_error *err)
{
    while (g->z.avail_in == 0) {
        if (g->eof)
            return 0;
        keep_tail(g);
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
        if ((size_t)n > UINT32_MAX)
            return ks_error_set(err, "gzip input block of %zd bytes is too large", n), -1;
        g->block = b;
        g->z.next_in = (uint8_t *)(uintptr_t)b;
        g->z.avail_in = (uint32_t)n;
        g->block_len = (size_t)n;
    }
    return 1;
}

/* the 8 compressed bytes before the current position, from the block and the kept tail; 0 when
 * fewer were seen */
static int last8(const ks_gunzip *g, unsigned char out[8])
{
    size_t in_block = g->block_len - g->z.avail_in;
    size_t from_block = in_block < 8 ? in_block : 8;
    size_t from_tail = 8 - from_block;
    if (from_tail > g->tail_len)
        return 0;
    memcpy(out, g->tail + g->tail_len - from_tail, from_tail);
    memcpy(out + from_tail, g->block + in_block - from_block, from_block);
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
    restart(g);
    return 1;
}

/* what ISA-L found wrong in deflate data (the header is read here: no wrapper codes come) */
static const char *isal_why(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return ": invalid deflate block";
    case ISAL_INVALID_SYMBOL: return ": invalid deflate code";
    case ISAL_INVALID_LOOKBACK: return ": invalid distance too far back";
    default: return ": corrupt data";
    }
}

/* which trailer field disagrees: the CRC-32 (also when both do, as zlib reports it) or ISIZE */
static const char *trailer_why(const ks_gunzip *g)
{
    unsigned char t[8];
    if (!last8(g, t))
        return ": CRC-32 or length (ISIZE) mismatch";
    uint32_t crc = ks_le32(t);
    return crc == g->z.crc ? ": length (ISIZE) mismatch" : ": CRC-32 mismatch";
}

ssize_t ks_gunzip_read(ks_gunzip *g, void *buf, size_t n, int *integrity, ks_error *err)
{
    *integrity = 0;
    if (g->no_isal)
        return ks_isal_load(err); /* KS_ERR, with the loader's one line */
    if (g->done || n == 0)
        return 0;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    g->z.next_out = buf;
    g->z.avail_out = (uint32_t)n;
    while (g->z.avail_out == n) {
        if (g->z.block_state == ISAL_BLOCK_FINISH) {
            int m = next_member(g, err);
            if (m < 0)
                return KS_ERR;
            if (m == 0) {
                g->done = 1;
                break;
            }
            continue;
        }
        int r = refill(g, err);
        if (r < 0)
            return KS_ERR;
        if (g->hstate != H_DONE) {
            if (r == 0)
                return truncated(g, err);
            int h = read_header(g, err);
            if (h == 2) {
                g->done = 1;
                break;
            }
            if (h < 0) {
                *integrity = 1;
                return KS_ERR;
            }
            continue; /* more header, or the deflate data from here */
        }
        /* at the end of the input ISA-L may still hold bytes it took in (its own buffers): it is
         * called once more, and only a call that gives nothing and does not end the member is a cut */
        uint32_t out_before = g->z.avail_out, in_before = g->z.avail_in;
        int z = ks_isal.isal_inflate(&g->z);
        if (g->z.avail_in > in_before) {
            /* ISA-L 2.30 hands back more than it was given when it stops on damaged data (its
             * read-ahead "returned" past the block: avail_in wrapped below 0): the position stays
             * where this call started */
            g->z.avail_in = in_before;
            g->z.next_in = (uint8_t *)(uintptr_t)(g->block + g->block_len - in_before);
        }
        if (z == ISAL_DECOMP_OK) {
            int stuck = g->z.avail_out == out_before && g->z.avail_in == in_before &&
                        g->z.block_state != ISAL_BLOCK_FINISH;
            if (r == 0 && stuck)
                return truncated(g, err);
            /* never loop on a decoder that takes and gives nothing (ISA-L always moves on input
             * and room; this guards against a hang, as a clear error) */
            if (stuck && ++g->stuck > 3)
                return member_error(g, err, ": the decoder stopped", ks_gunzip_in_bytes(g), "");
            if (!stuck)
                g->stuck = 0;
            continue; /* output full, input used up (refilled next), or the member ended */
        }
        *integrity = 1;
        if (z == ISAL_INCORRECT_CHECKSUM)
            return member_error(g, err, trailer_why(g), ks_gunzip_in_bytes(g), ": the data is damaged");
        return member_error(g, err, isal_why(z), ks_gunzip_in_bytes(g), "");
    }
    return (ssize_t)(n - g->z.avail_out);
}
