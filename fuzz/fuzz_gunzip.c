/* fuzz/fuzz_gunzip.c: the gzip decoder (source/gunzip.h) on any bytes, differentially against
 * itself. The first three bytes choose the size of the compressed blocks it is fed (1 byte to all
 * at once), the size of each read (1 byte to 64 KiB) and how many bytes are given as the head; the
 * rest is the stream. What it decodes must not depend on how it is fed or read: the same status,
 * the same bytes when it succeeds, the same integrity flag; the same message for a cut stream and a
 * damaged trailer (their byte is the member's end or the stream's); for damaged deflate data the
 * same message up to the byte (how far ISA-L had read ahead depends on the blocks), and the bytes
 * decoded before the error one a prefix of the other. Never more compressed bytes than given.
 * Then the same stream as an input (source.c, from memory), read by source.c itself where its
 * first 4 KiB are (or decode to) surely JSON, against the same bytes through libarchive
 * (ks_source_libarchive_only): when either reads the whole stream without an error, both do, with
 * the same bytes and the same filter name (libarchive never takes such bytes for an archive). */
#include "fuzz/fuzz.h"
#include "kinesift/source.h"
#include "source/gunzip.h"
#include "source/stream.h"
#include "tests/source/block_feed.h"

typedef struct {
    int rc, integrity;
    uint8_t *out;
    size_t n;
    char msg[sizeof(((ks_error *)0)->msg)];
} result;

/* decoded output is capped: a small stream can expand 1000-fold */
#define OUT_CAP (4u << 20)

static result decode(const uint8_t *p, size_t n, size_t head, size_t block, size_t out)
{
    result r = {KS_OK, 0, malloc(OUT_CAP), 0, ""};
    if (!r.out)
        abort();
    head = head < n ? head : n;
    block_feed f = {p, n, head, block, SIZE_MAX, 0};
    ks_gunzip *g = ks_gunzip_new(p, head, block_feed_pull, &f);
    FUZZ_CHECK(g != NULL, "no decoder");
    ks_error err;
    while (r.n < OUT_CAP) {
        size_t want = OUT_CAP - r.n < out ? OUT_CAP - r.n : out;
        ssize_t k = ks_gunzip_read(g, r.out + r.n, want, &r.integrity, &err);
        if (k < 0) {
            r.rc = KS_ERR;
            snprintf(r.msg, sizeof r.msg, "%s", err.msg);
            break;
        }
        if (k == 0)
            break;
        FUZZ_CHECK((size_t)k <= want, "read %zd of %zu", k, want);
        r.n += (size_t)k;
    }
    FUZZ_CHECK(ks_gunzip_in_bytes(g) <= n, "consumed %llu of %zu", (unsigned long long)ks_gunzip_in_bytes(g), n);
    ks_gunzip_free(g);
    return r;
}

/* The stream read whole as an input: 1 with its bytes and filter when every read succeeded. */
static int read_input(const uint8_t *p, size_t n, int libarchive_only, result *r, char *filter)
{
    ks_source_libarchive_only = libarchive_only;
    ks_source *s;
    ks_error err;
    int ok = ks_source_open_memory("fuzz", p, n, &s, &err) == KS_OK;
    ks_source_libarchive_only = 0;
    if (!ok)
        return 0;
    ks_stream *st;
    ok = ks_source_next(s, &st, &err) == 1 && !ks_source_is_archive(s);
    if (ok)
        snprintf(filter, 96, "%s", ks_stream_filter(st));
    while (ok && r->n < OUT_CAP) {
        ssize_t k = ks_stream_read(st, r->out + r->n, OUT_CAP - r->n, &err);
        if (k < 0)
            ok = 0;
        else if (k == 0)
            break;
        else
            r->n += (size_t)k;
    }
    ks_source_close(s);
    return ok;
}

static void own_against_libarchive(const uint8_t *p, size_t n)
{
    result own = {KS_OK, 0, malloc(OUT_CAP), 0, ""}, ar = {KS_OK, 0, malloc(OUT_CAP), 0, ""};
    if (!own.out || !ar.out)
        abort();
    char fo[96] = "", fa[96] = "";
    int ok_own = read_input(p, n, 0, &own, fo), ok_ar = read_input(p, n, 1, &ar, fa);
    FUZZ_CHECK(ok_own == ok_ar, "read whole by source.c %d, by libarchive %d (filters %s, %s)", ok_own, ok_ar,
               fo, fa);
    if (ok_own) {
        FUZZ_CHECK(!strcmp(fo, fa), "filter %s vs %s", fo, fa);
        FUZZ_CHECK(own.n == ar.n && !memcmp(own.out, ar.out, own.n), "%zu vs %zu bytes read", own.n, ar.n);
    }
    free(own.out);
    free(ar.out);
}

static size_t until_byte(const char *m)
{
    const char *at = strstr(m, " at compressed byte ");
    return at ? (size_t)(at - m) : strlen(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    static const size_t blocks[] = {1, 2, 3, 7, 8, 9, 64, 4096};
    static const size_t outs[] = {1, 5, 13, 4096, 65536};
    size_t block = blocks[fuzz_take(&in, 1) % 8];
    size_t out = outs[fuzz_take(&in, 1) % 5];
    size_t head = fuzz_take(&in, 1) % 16;
    result a = decode(in.p, in.n, 0, in.n ? in.n : 1, 65536);
    result b = decode(in.p, in.n, head, block, out);
    FUZZ_CHECK(a.rc == b.rc, "status %d vs %d (block %zu out %zu head %zu): %s | %s", a.rc, b.rc, block, out, head,
               a.msg, b.msg);
    FUZZ_CHECK(a.integrity == b.integrity, "integrity %d vs %d: %s | %s", a.integrity, b.integrity, a.msg, b.msg);
    if (a.rc == KS_OK) {
        FUZZ_CHECK(a.n == b.n && !memcmp(a.out, b.out, a.n), "%zu vs %zu bytes decoded (block %zu out %zu head %zu)",
                   a.n, b.n, block, out, head);
    } else {
        int exact = strstr(a.msg, "truncated at") || strstr(a.msg, "mismatch");
        if (exact)
            FUZZ_CHECK(!strcmp(a.msg, b.msg), "%s | %s (block %zu out %zu head %zu)", a.msg, b.msg, block, out, head);
        else
            FUZZ_CHECK(until_byte(a.msg) == until_byte(b.msg) && !strncmp(a.msg, b.msg, until_byte(a.msg)),
                       "%s | %s (block %zu out %zu head %zu)", a.msg, b.msg, block, out, head);
        size_t m = a.n < b.n ? a.n : b.n;
        FUZZ_CHECK(!memcmp(a.out, b.out, m), "decoded bytes differ before the error: %s", a.msg);
    }
    free(a.out);
    free(b.out);
    own_against_libarchive(in.p, in.n);
    return 0;
}
