/* tests/source/test_gunzip.c: the gzip decoder (source/gunzip.h) on its own, fed in blocks of every
 * awkward size (1 byte up to whole) and read into outputs of every awkward size, because the
 * decoder (ISA-L) keeps bytes in its own buffers across calls: several members with dynamic,
 * stored and empty deflate data decode to the very bytes compressed; each damaged trailer byte is
 * named as the CRC-32 or the length (ISIZE) of the right member, at that member's end; a stream
 * cut at any byte inside a member is "truncated at compressed byte <cut>", cut between members it
 * is the members before; bytes after the last member that are not gzip are ignored; headers with
 * every optional field decode, damaged ones are named. Members are made with libarchive's gzip
 * writer (zlib), so the decoder reads what another implementation wrote. */
#include "ks_test.h"
#include "tests/source/compress_mem.h"
#include "source/gunzip.h"
#include "tests/source/block_feed.h"

/* The test stream: members of trace-like text (dynamic Huffman blocks), random bytes at level 0
 * (stored blocks), an empty member, and more text. */
enum { NMEMBERS = 4 };
#define SIZES 40000, 70000, 0, 3000 /* the second one is random bytes: two stored blocks */
static unsigned char *plain, *stream;
static size_t plain_n, stream_n, member_end[NMEMBERS];
static uint64_t last_in_bytes; /* ks_gunzip_in_bytes after the last decode() */

static int setup(void **state)
{
    (void)state;
    size_t sizes[NMEMBERS] = {SIZES};
    plain_n = sizes[0] + sizes[1] + sizes[2] + sizes[3];
    plain = malloc(plain_n);
    uint64_t s = 0x9e3779b97f4a7c15u;
    size_t k = 0;
    while (k < sizes[0] + sizes[1] + sizes[2] + sizes[3]) {
        if (k >= sizes[0] && k < sizes[0] + sizes[1]) {
            plain[k++] = (unsigned char)ks_test_rnd(&s);
            continue;
        }
        char ev[160];
        int m = snprintf(ev, sizeof ev, "{\"ph\": \"X\", \"name\": \"aten::op_%u\", \"ts\": %llu.%03u, \"dur\": %u},\n",
                         (unsigned)(ks_test_rnd(&s) % 40), (unsigned long long)(k * 7), (unsigned)(k % 1000),
                         (unsigned)(ks_test_rnd(&s) % 5000));
        for (int i = 0; i < m && k < plain_n; i++)
            plain[k++] = (unsigned char)ev[i];
    }
    stream = NULL;
    stream_n = 0;
    size_t at = 0;
    for (int i = 0; i < NMEMBERS; i++) {
        size_t mn;
        char *m;
        ks_test_compress("gzip", i == 1 ? "0" : "6", plain + at, sizes[i], &m, &mn);
        stream = realloc(stream, stream_n + mn);
        memcpy(stream + stream_n, m, mn);
        stream_n += mn;
        member_end[i] = stream_n;
        at += sizes[i];
        free(m);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(plain);
    free(stream);
    return 0;
}

/* Byte-by-byte feeding costs ISA-L a copy of its window per call (very slow under ASan): where only
 * the end matters, decode() feeds blocks of `tail_block` bytes from byte `tail_from` on and of 4096
 * before. */
static size_t tail_from = SIZE_MAX, tail_block = SIZE_MAX;

/* Decode s[0..n) in blocks of `block` (the first `head` bytes given as the head) into outputs of
 * `out` bytes (0: 1 to 13 bytes, and 4096 every 8th call); the decoded length in *got; KS_OK, or
 * KS_ERR with err and *integrity set. */
static int decode(const unsigned char *s, size_t n, size_t head, size_t block, size_t out, unsigned char *dst,
                  size_t dst_cap, size_t *got, ks_error *err, int *integrity)
{
    block_feed f = {s, n, head, tail_from == SIZE_MAX ? block : 4096, tail_from, tail_block};
    ks_gunzip *g = ks_gunzip_new(s, head, block_feed_pull, &f);
    assert_non_null(g);
    *got = 0;
    int rc = KS_OK;
    size_t calls = 0;
    for (;;) {
        static const size_t cycle[] = {1, 2, 3, 5, 7, 11, 13, 4096}; /* out 0: these in turn */
        size_t o = out ? out : cycle[calls++ % (sizeof cycle / sizeof cycle[0])];
        size_t want = o < dst_cap - *got ? o : dst_cap - *got;
        assert_true(want > 0);
        ssize_t r = ks_gunzip_read(g, dst + *got, want, integrity, err);
        if (r < 0) {
            rc = KS_ERR;
            break;
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    last_in_bytes = ks_gunzip_in_bytes(g);
    ks_gunzip_free(g);
    return rc;
}

static void members_decode_in_blocks_of_every_size(void **state)
{
    (void)state;
    /* block size, output size: each tiny output costs ISA-L a copy of its window, so they come in
     * turn with larger ones (0) */
    static const size_t runs[][2] = {{1, 4096}, {2, 4096}, {3, 1u << 20}, {7, 4096}, {8, 4096}, {9, 1u << 20},
                                     {31, 4096}, {4096, 4096}, {65536, 1u << 20}, {1u << 30, 1u << 20},
                                     {1, 0}, {3, 0}, {8, 0}, {4096, 0}, {1u << 30, 0}};
    unsigned char *dst = malloc(plain_n + 1);
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        size_t block = runs[r][0], out = runs[r][1];
        for (size_t head = 0; head <= 11; head += 11) {
            ks_error err;
            int integrity = 0;
            size_t got;
            int rc = decode(stream, stream_n, head, block, out, dst, plain_n + 1, &got, &err, &integrity);
            if (rc != KS_OK)
                fail_msg("block %zu out %zu head %zu: %s", block, out, head, err.msg);
            assert_int_equal(got, plain_n);
            assert_int_equal(last_in_bytes, stream_n);
            assert_memory_equal(dst, plain, plain_n);
        }
    }
    /* bytes after the last member that do not start another one are ignored, also a 0x1f that
     * ends a block (the next byte decides) */
    unsigned char *tail = malloc(stream_n + 5);
    memcpy(tail, stream, stream_n);
    memcpy(tail + stream_n, "\x1fjunk", 5);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        ks_error err;
        int integrity;
        size_t got;
        tail_from = bytewise ? stream_n : SIZE_MAX;
        tail_block = 1;
        int rc = decode(tail, stream_n + 5, 0, 3, 4096, dst, plain_n + 1, &got, &err, &integrity);
        if (rc != KS_OK)
            fail_msg("trailing bytes%s: %s", bytewise ? " one by one" : "", err.msg);
        assert_int_equal(got, plain_n);
        /* the 0x1f and the byte after it are read when the 0x1f ends a block */
        assert_true(last_in_bytes >= stream_n && last_in_bytes <= stream_n + 2);
    }
    tail_from = tail_block = SIZE_MAX;
    free(tail);
    free(dst);
}

static void each_damaged_trailer_byte_is_named(void **state)
{
    (void)state;
    unsigned char *bad = malloc(stream_n), *dst = malloc(plain_n + 1);
    static const size_t blocks[] = {1, 3, 8, 4096, 1u << 30};
    for (int m = 0; m < NMEMBERS; m++)
        for (int byte = 0; byte < 8; byte++)
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
                memcpy(bad, stream, stream_n);
                bad[member_end[m] - 8 + (size_t)byte] ^= 0x10;
                tail_from = member_end[m] > 40 ? member_end[m] - 40 : 0;
                tail_block = blocks[b];
                ks_error err;
                int integrity = 0;
                size_t got;
                assert_int_equal(decode(bad, stream_n, 0, blocks[b], 4096, dst, plain_n + 1, &got, &err, &integrity),
                                 KS_ERR);
                assert_int_equal(integrity, 1);
                char want[160];
                snprintf(want, sizeof want, "gzip member %d (from compressed byte %zu): %s at compressed byte %zu", m + 1,
                         m ? member_end[m - 1] : 0, byte < 4 ? "CRC-32 mismatch" : "length (ISIZE) mismatch",
                         member_end[m]);
                if (!strstr(err.msg, want))
                    fail_msg("member %d byte %d block %zu: %s (want %s)", m + 1, byte, blocks[b], err.msg, want);
            }
    tail_from = tail_block = SIZE_MAX;
    free(bad);
    free(dst);
}

static void a_cut_stream_is_truncated_at_the_cut(void **state)
{
    (void)state;
    unsigned char *dst = malloc(plain_n + 1);
    /* every cut within 100 bytes of a member's edge (and in the small last members), every 97th elsewhere */
    for (size_t cut = 1; cut < stream_n; cut++) {
        int near = cut < 100;
        for (int m = 0; m < NMEMBERS; m++)
            near |= cut + 100 > member_end[m] && cut < member_end[m] + 100;
        if (!near && cut % 97)
            continue;
        int between = 0;
        size_t plain_before = 0, at = 0;
        static const size_t sizes[NMEMBERS] = {SIZES};
        for (int m = 0; m < NMEMBERS; m++) {
            if (cut == member_end[m]) {
                between = 1;
                plain_before = at + sizes[m];
            }
            at += sizes[m];
        }
        int trailer = 0; /* within 16 bytes of a member's end: also fed byte by byte */
        for (int m = 0; m < NMEMBERS; m++)
            trailer |= cut + 16 > member_end[m] && cut < member_end[m] + 16;
        for (size_t block = trailer ? 1 : 64; block <= 4096; block *= 64) {
            tail_from = cut > 40 ? cut - 40 : 0; /* the last 40 bytes in blocks of `block` */
            tail_block = block;
            ks_error err;
            int integrity = 0;
            size_t got;
            int rc = decode(stream, cut, 0, block, 4096, dst, plain_n + 1, &got, &err, &integrity);
            if (between) {
                if (rc != KS_OK)
                    fail_msg("cut %zu at a member's end: %s", cut, err.msg);
                assert_int_equal(got, plain_before);
                assert_int_equal(last_in_bytes, cut);
                continue;
            }
            if (rc == KS_OK)
                fail_msg("cut %zu (block %zu) inside a member read as valid", cut, block);
            assert_int_equal(integrity, 0);
            char want[64];
            snprintf(want, sizeof want, "is truncated at compressed byte %zu", cut);
            if (!strstr(err.msg, want))
                fail_msg("cut %zu block %zu: %s", cut, block, err.msg);
            assert_true(got <= plain_n);
            assert_memory_equal(dst, plain, got); /* what was decoded before the cut is right */
        }
    }
    tail_from = tail_block = SIZE_MAX;
    free(dst);
}

/* CRC-32 (gzip's, reflected 0xedb88320) bit by bit: the reference for the header CRCs below */
static uint32_t crc32_ref(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? c >> 1 ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

/* Every optional header field (extra, name, comment, header CRC) is read and the header CRC
 * checked; unknown flags, another method and a wrong header CRC are errors naming their byte; the
 * same verdict whatever the blocks (ISA-L's own header reader did not give that). */
static void headers_with_every_field(void **state)
{
    (void)state;
    size_t first = member_end[0]; /* member 1: a 10-byte header, its deflate data, its trailer */
    unsigned char *dst = malloc(plain_n + 1);
    for (int variant = 0; variant < 5; variant++) {
        unsigned char h[64];
        size_t hn = 0;
        unsigned flags = variant == 3 ? 0x20 : 0x1e; /* extra, name, comment, header CRC */
        unsigned char fixed[10] = {0x1f, 0x8b, variant == 4 ? 7 : 8, (unsigned char)flags, 1, 2, 3, 4, 0, 3};
        memcpy(h, fixed, 10), hn = 10;
        if (flags & 4) {
            static const unsigned char extra[] = {5, 0, 'A', 'B', 1, 0, 'x'};
            memcpy(h + hn, extra, sizeof extra), hn += sizeof extra;
        }
        if (flags & 8) /* an empty name, then a comment: a field read one byte too long shows */
            memcpy(h + hn, "", 1), hn += 1;
        if (flags & 16)
            memcpy(h + hn, "trace.json", 11), hn += 11;
        if (flags & 2) {
            uint32_t c = crc32_ref(h, hn) ^ (variant == 1 ? 1u : 0u);
            h[hn++] = (unsigned char)c, h[hn++] = (unsigned char)(c >> 8);
        }
        size_t n = hn + first - 10;
        unsigned char *m = malloc(n);
        memcpy(m, h, hn);
        memcpy(m + hn, stream + 10, first - 10);
        const char *want[] = {NULL, "header CRC mismatch at compressed byte", NULL, "unknown header flags set at compressed byte 3",
                              "unknown compression method 7 at compressed byte 2"};
        char crc_at[64];
        snprintf(crc_at, sizeof crc_at, "header CRC mismatch at compressed byte %zu", hn);
        if (variant == 1)
            want[1] = crc_at;
        static const size_t blocks[] = {1, 2, 5, 64, 1u << 30};
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            ks_error err;
            int integrity = 0;
            size_t got;
            int rc = decode(m, variant == 2 ? hn - 3 : n, 0, blocks[b], 4096, dst, plain_n + 1, &got, &err, &integrity);
            if (variant == 0) {
                if (rc != KS_OK)
                    fail_msg("block %zu: %s", blocks[b], err.msg);
                assert_int_equal(got, 40000);
                assert_memory_equal(dst, plain, got);
            } else if (variant == 2) { /* cut inside the header */
                assert_int_equal(rc, KS_ERR);
                assert_non_null(strstr(err.msg, "is truncated at compressed byte"));
            } else {
                assert_int_equal(rc, KS_ERR);
                assert_int_equal(integrity, 1);
                if (!strstr(err.msg, want[variant]))
                    fail_msg("variant %d block %zu: %s (want %s)", variant, blocks[b], err.msg, want[variant]);
            }
        }
        free(m);
    }
    free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(members_decode_in_blocks_of_every_size),
        cmocka_unit_test(each_damaged_trailer_byte_is_named),
        cmocka_unit_test(a_cut_stream_is_truncated_at_the_cut),
        cmocka_unit_test(headers_with_every_field),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
