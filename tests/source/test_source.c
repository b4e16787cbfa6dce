/* tests/source/test_source.c: inputs through libarchive (source.c, inputs.c): every compression
 * filter detected by content (file names lie on purpose), tar/zip archives yielding one trace per
 * member (also a gzip member inside a tar), and directory expansion. Inputs are written at test
 * time with libarchive's writer into a temporary directory. */
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ks_test.h"
#include "source/stream.h"
#include "tests/source/compress_mem.h"

static const char *TRACE = "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},"
                           "{\"ph\":\"i\",\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":3}]}";

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ks_test_source_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Write data compressed with filter (e.g. "gzip") as a raw stream to path. */
static void write_raw(const char *path, const char *filter, const char *data, size_t n)
{
    struct archive *a = archive_write_new();
    if (strcmp(filter, "none"))
        assert_int_equal(archive_write_add_filter_by_name(a, filter), ARCHIVE_OK);
    assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_pathname(e, "data");
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    assert_int_equal(archive_write_data(a, data, n), (la_ssize_t)n);
    archive_entry_free(e);
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

static void add_member(struct archive *a, const char *name, const char *data, size_t n)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)n);
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    assert_int_equal(archive_write_data(a, data, n), (la_ssize_t)n);
    archive_entry_free(e);
}

/* Open path and parse every trace; returns the count and checks each has 2 events. */
static int parse_all(const char *path, char names[][256], char filters[][96])
{
    ks_source *s;
    ks_error err;
    if (ks_source_open(path, &s, &err) != KS_OK)
        fail_msg("%s: %s", path, err.msg);
    int n = 0;
    ks_stream *st;
    int r;
    while ((r = ks_source_next(s, &st, &err)) == 1) {
        ks_trace *t;
        if (ks_parse_stream(st, NULL, &t, &err) != KS_OK)
            fail_msg("%s: %s", ks_stream_name(st), err.msg);
        assert_int_equal(t->events, 2);
        if (names)
            snprintf(names[n], 256, "%s", t->source);
        if (filters)
            snprintf(filters[n], 96, "%s", t->filter);
        ks_trace_free(t);
        n++;
    }
    if (r < 0)
        fail_msg("%s: %s", path, err.msg);
    ks_source_close(s);
    return n;
}

static void every_filter_detected_by_content(void **state)
{
    (void)state;
    static const char *const filters[] = {"gzip", "zstd", "xz", "bzip2", "none"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        char path[400];
        /* the name says .json.gz whatever the real encoding */
        snprintf(path, sizeof path, "%s/trace_%zu.json.gz", dir, i);
        write_raw(path, filters[i], TRACE, strlen(TRACE));
        char got[1][96];
        assert_int_equal(parse_all(path, NULL, got), 1);
        assert_string_equal(got[0], filters[i]);
    }
}

/* A plain file (no filter: read by source.c itself, not through libarchive) gives its bytes as
 * they are, whatever the sizes asked for: 3 MiB + 5 bytes of varied content (not one libarchive
 * block), read in sizes 1 .. 1 MiB + 3 in turn; the stream's offset and the source's raw offset
 * follow each read; the end reads 0. */
static void plain_file_read_as_it_is(void **state)
{
    (void)state;
    size_t n = (3u << 20) + 5;
    char *data = ks_xmalloc(n), *got = ks_xmalloc(n + 1);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (char)(x >> 24);
    }
    memcpy(data, "{\"traceEvents\": [", 17); /* no compressed stream's magic at the start */
    char path[400];
    snprintf(path, sizeof path, "%s/plain.json", dir);
    write_raw(path, "none", data, n);
    static const size_t sizes[] = {1, 7, 4096, 65537, (1u << 20) + 3, 3};
    ks_source *s;
    ks_error err;
    if (ks_source_open(path, &s, &err) != KS_OK)
        fail_msg("%s", err.msg);
    ks_stream *st;
    assert_int_equal(ks_source_next(s, &st, &err), 1);
    assert_string_equal(ks_stream_filter(st), "none");
    size_t at = 0;
    for (size_t k = 0;; k++) {
        size_t want = sizes[k % (sizeof sizes / sizeof sizes[0])];
        ssize_t r = ks_stream_read(st, got + at, want < n + 1 - at ? want : n + 1 - at, &err);
        assert_true(r >= 0);
        if (r == 0)
            break;
        at += (size_t)r;
        assert_true(at <= n);
        assert_int_equal(ks_stream_offset(st), at);
        assert_int_equal(ks_source_raw_offset(s), at);
    }
    assert_int_equal(at, n);
    assert_memory_equal(got, data, n);
    assert_int_equal(ks_source_next(s, &st, &err), 0);
    ks_source_close(s);
    free(data);
    free(got);
}

/* The whole of path's one stream, its filter and who read it (1: source.c itself). */
static char *read_whole(const char *path, const void *mem, size_t memn, size_t *n, char *filter,
                        int *itself, int *archive)
{
    ks_source *s;
    ks_error err;
    int r = mem ? ks_source_open_memory(path, mem, memn, &s, &err) : ks_source_open(path, &s, &err);
    if (r != KS_OK)
        fail_msg("%s: %s", path, err.msg);
    *itself = ks_source_reads_itself(s);
    *archive = ks_source_is_archive(s);
    ks_stream *st;
    assert_int_equal(ks_source_next(s, &st, &err), 1);
    snprintf(filter, 96, "%s", ks_stream_filter(st));
    size_t cap = 1 << 16, at = 0;
    char *b = ks_xmalloc(cap);
    ssize_t k;
    while ((k = ks_stream_read(st, b + at, cap - at, &err)) > 0)
        if ((at += (size_t)k) == cap)
            b = ks_xrealloc(b, cap *= 2);
    if (k < 0)
        fail_msg("%s: %s", path, err.msg);
    ks_source_close(s);
    *n = at;
    return b;
}

/* Who reads what: a plain or gzip input whose first bytes are surely JSON ('{' or '[' after a
 * byte order mark and white space, no NUL in the first 4 KiB) is read by source.c without
 * libarchive, from a file and from memory; anything else goes through libarchive, a tar whose
 * member name starts with '{' included. The bytes are the same either way. */
static void sniffing_decides_who_reads(void **state)
{
    (void)state;
    size_t bign = 100000; /* more than the 4 KiB looked at */
    char *big = ks_xmalloc(bign);
    for (size_t i = 0; i < bign; i++)
        big[i] = (char)('a' + i % 26);
    memcpy(big, "\xef\xbb\xbf \r\n\t[", 8);
    char *nul = ks_xmalloc(bign);
    memcpy(nul, big, bign);
    nul[4000] = 0; /* inside the bytes looked at */
    char *late = ks_xmalloc(bign);
    memcpy(late, big, bign);
    late[5000] = 0; /* after them: JSON's parser says what it is */
    struct {
        const char *name, *filter, *data;
        size_t n;
        int itself;
    } cases[] = {
        {"plain", "none", TRACE, strlen(TRACE), 1},
        {"bom", "none", big, bign, 1},
        {"late_nul", "none", late, bign, 1},
        {"nul", "none", nul, bign, 0},
        {"blank", "none", "  \n  ", 5, 0},
        {"not_json", "none", "traceEvents", 11, 0},
        {"gzip", "gzip", TRACE, strlen(TRACE), 1},
        {"gzip_big", "gzip", big, bign, 1},
        {"gzip_nul", "gzip", nul, bign, 0},
        {"zstd", "zstd", TRACE, strlen(TRACE), 0},
        {"bzip2", "bzip2", big, bign, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[400], filter[96];
        snprintf(path, sizeof path, "%s/who_%s.json", dir, cases[i].name);
        write_raw(path, cases[i].filter, cases[i].data, cases[i].n);
        for (int m = 0; m < 2; m++) { /* the file, then its bytes in memory */
            char *file = NULL;
            size_t fn = 0;
            if (m) {
                FILE *f = fopen(path, "rb");
                file = ks_xmalloc(1 << 20);
                fn = fread(file, 1, 1 << 20, f);
                fclose(f);
            }
            size_t n;
            int itself, archive;
            char *got = read_whole(path, file, fn, &n, filter, &itself, &archive);
            if (itself != cases[i].itself)
                fail_msg("%s (%s): read by %s", cases[i].name, m ? "memory" : "file",
                         itself ? "source.c" : "libarchive");
            assert_int_equal(archive, 0);
            assert_string_equal(filter, cases[i].filter);
            assert_int_equal(n, cases[i].n);
            assert_memory_equal(got, cases[i].data, n);
            free(got);
            free(file);
        }
    }
    /* JSON with a zip after it: libarchive reads a zip from its end record, so it decides */
    {
        char *zip;
        size_t zn;
        char path[400];
        snprintf(path, sizeof path, "%s/who_zip_tail.zip", dir);
        struct archive *a = archive_write_new();
        archive_write_set_format_zip(a);
        size_t used = 0;
        zn = 4096;
        zip = ks_xmalloc(zn);
        assert_int_equal(archive_write_open_memory(a, zip, zn, &used), ARCHIVE_OK);
        add_member(a, "rank0.json", TRACE, strlen(TRACE));
        archive_write_close(a);
        archive_write_free(a);
        ks_buf b = {0};
        ks_buf_put(&b, big, bign); /* 100 000 bytes of text starting like JSON, then the zip */
        ks_buf_put(&b, zip, used);
        FILE *f = fopen(path, "wb");
        fwrite(b.p, 1, b.n, f);
        fclose(f);
        for (int m = 0; m < 2; m++) {
            ks_source *s;
            ks_error err;
            int r = m ? ks_source_open_memory(path, b.p, b.n, &s, &err) : ks_source_open(path, &s, &err);
            if (r != KS_OK)
                fail_msg("%s", err.msg);
            assert_int_equal(ks_source_reads_itself(s), 0);
            assert_int_equal(ks_source_is_archive(s), 1); /* what libarchive makes of it */
            ks_source_close(s);
        }
        ks_buf_free(&b);
        free(zip);
    }
    /* archives whose first member's name starts like JSON: libarchive's */
    for (int gz = 0; gz < 2; gz++) {
        char path[400];
        snprintf(path, sizeof path, "%s/who_member%d.tar", dir, gz);
        struct archive *a = archive_write_new();
        if (gz)
            archive_write_add_filter_gzip(a);
        archive_write_set_format_pax_restricted(a);
        assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
        add_member(a, "{rank0}.json", TRACE, strlen(TRACE));
        archive_write_close(a);
        archive_write_free(a);
        char filter[96];
        size_t n;
        int itself, archive;
        char *got = read_whole(path, NULL, 0, &n, filter, &itself, &archive);
        assert_int_equal(itself, 0);
        assert_int_equal(archive, 1);
        assert_int_equal(n, strlen(TRACE));
        assert_memory_equal(got, TRACE, n);
        free(got);
    }
    /* an empty buffer named like an existing file is an empty input, as an empty file is (not
     * that file, nor libarchive's "Unrecognized archive format") */
    char path[400];
    snprintf(path, sizeof path, "%s/who_plain.json", dir);
    ks_source *s;
    ks_error err;
    assert_int_equal(ks_source_open_memory(path, NULL, 0, &s, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "empty"));
    free(big);
    free(nul);
    free(late);
}

/* A gzip file cut after its first 4 KiB decode: read by source.c, which keeps what decodes (a
 * truncated trace with its complete events), and says "truncated at compressed byte N" under
 * --strict, as for a cut anywhere later (libarchive failed the open for a cut in its first block). */
static void cut_gzip_keeps_what_decodes(void **state)
{
    (void)state;
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    uint32_t x = 7;
    for (int i = 0; i < 3000; i++) {
        x = x * 1103515245u + 12345u;
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"name\":\"op%u\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2}",
                      i ? "," : "", x >> 16, i * 10);
    }
    ks_buf_puts(&b, "]}");
    char *z;
    size_t zn;
    ks_test_compress("gzip", NULL, b.p, b.n, &z, &zn);
    char path[400];
    snprintf(path, sizeof path, "%s/cut_early.json.gz", dir);
    FILE *f = fopen(path, "wb");
    fwrite(z, 1, zn / 2, f);
    fclose(f);
    for (int strict = 0; strict < 2; strict++) {
        ks_source *s;
        ks_error err;
        if (ks_source_open(path, &s, &err) != KS_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(ks_source_reads_itself(s), 1);
        ks_stream *st;
        assert_int_equal(ks_source_next(s, &st, &err), 1);
        ks_parse_opts o;
        ks_parse_opts_init(&o);
        o.strict = strict;
        ks_trace *t = NULL;
        int r = ks_parse_stream(st, &o, &t, &err);
        ks_source_close(s);
        if (strict) {
            assert_int_equal(r, KS_ERR);
            char want[64];
            snprintf(want, sizeof want, "truncated at compressed byte %zu", zn / 2);
            if (!strstr(err.msg, want) || !strstr(err.msg, "gzip"))
                fail_msg("%s", err.msg);
        } else {
            if (r != KS_OK)
                fail_msg("%s", err.msg);
            assert_int_equal(t->truncated, 1);
            assert_true(t->events > 100 && t->events < 3000);
            ks_trace_free(t);
        }
    }
    free(z);
    ks_buf_free(&b);
}

static void tar_and_zip_yield_one_trace_per_member(void **state)
{
    (void)state;
    char *gz;
    size_t gzn;
    ks_test_compress("gzip", NULL, TRACE, strlen(TRACE), &gz, &gzn);
    static const char *const kinds[] = {"tar", "zip"};
    for (int k = 0; k < 2; k++) {
        char path[400];
        snprintf(path, sizeof path, "%s/ranks.%s", dir, kinds[k]);
        struct archive *a = archive_write_new();
        if (k == 0) {
            archive_write_add_filter_gzip(a);
            archive_write_set_format_pax_restricted(a);
        } else {
            archive_write_set_format_zip(a);
        }
        assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
        add_member(a, "run/rank0.pt.trace.json", TRACE, strlen(TRACE));
        add_member(a, "run/README.txt", "not a trace", 11);
        add_member(a, "run/rank1.pt.trace.json.gz", gz, gzn);
        archive_write_close(a);
        archive_write_free(a);
        char names[4][256], filters[4][96];
        assert_int_equal(parse_all(path, names, filters), 2);
        char want[512];
        snprintf(want, sizeof want, "%s:run/rank0.pt.trace.json", path);
        assert_string_equal(names[0], want);
        snprintf(want, sizeof want, "%s:run/rank1.pt.trace.json.gz", path);
        assert_string_equal(names[1], want);
        assert_non_null(strstr(filters[1], "gzip"));
    }
    free(gz);
}

/* An archive member's size hint is the member's own size, not the archive's: the parser picks
 * how to read by it (a reader thread for large inputs), and a zip of thousands of tiny ranks
 * started threads for every member once the archive passed a chunk. */
static void member_size_hint_is_the_member_size(void **state)
{
    (void)state;
    char *pad = ks_xmalloc(600000);
    uint32_t x = 12345;
    for (size_t i = 0; i < 600000; i++) {
        x = x * 1103515245u + 12345u;
        pad[i] = (char)('a' + (x >> 16) % 26);
    }
    static const char *const kinds[] = {"tar", "zip"};
    for (int k = 0; k < 2; k++) {
        char path[400];
        snprintf(path, sizeof path, "%s/hint.%s", dir, kinds[k]);
        struct archive *a = archive_write_new();
        if (k == 0)
            archive_write_set_format_pax_restricted(a);
        else
            archive_write_set_format_zip(a);
        assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
        add_member(a, "rank0.json", TRACE, strlen(TRACE));
        add_member(a, "pad.json", pad, 600000);
        add_member(a, "rank1.json", TRACE, 40);
        archive_write_close(a);
        archive_write_free(a);
        ks_source *src;
        ks_error err;
        assert_int_equal(ks_source_open(path, &src, &err), KS_OK);
        assert_true(ks_source_file_size(src) > 256 * 1024); /* more than a parser chunk */
        static const uint64_t want[] = {0, 600000, 40};
        ks_stream *st;
        for (int m = 0; m < 3; m++) {
            assert_int_equal(ks_source_next(src, &st, &err), 1);
            assert_int_equal(ks_stream_size_hint(st), m ? want[m] : strlen(TRACE));
        }
        assert_int_equal(ks_source_next(src, &st, &err), 0);
        ks_source_close(src);
    }
    free(pad);
}

/* A gzip file's size hint is the length its trailer gives when that is more than the file: a
 * trace compresses 10-30x, and the parser picks how to read by the hint (the reader thread and the
 * fast scanner past a chunk), so a 600 KB trace in a small .json.gz is read as 600 KB are. Also
 * from memory, through libarchive's detection (KS_SOURCE_LIBARCHIVE_ONLY's path), and not past an
 * archive member's own size. */
static void gzip_size_hint_is_its_length(void **state)
{
    (void)state;
    size_t n = 600000;
    char *json = ks_xmalloc(n);
    size_t k = (size_t)snprintf(json, n, "{\"traceEvents\": [");
    while (k + 64 < n)
        k += (size_t)snprintf(json + k, n - k, "{\"ph\":\"i\",\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":3},");
    memcpy(json + k, "{}]}", 4);
    k += 4;
    memset(json + k, ' ', n - k); /* blanks after the object: n bytes in all */
    char *gz;
    size_t gzn;
    ks_test_compress("gzip", NULL, json, n, &gz, &gzn);
    assert_true(gzn < 256 * 1024 / 4);
    char path[400];
    snprintf(path, sizeof path, "%s/hint.json.gz", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(gz, 1, gzn, f), gzn);
    fclose(f);
    for (int how = 0; how < 3; how++) {
        ks_source *src;
        ks_error err;
        ks_source_libarchive_only = how == 2;
        if (how == 1)
            assert_int_equal(ks_source_open_memory("hint", gz, gzn, &src, &err), KS_OK);
        else
            assert_int_equal(ks_source_open(path, &src, &err), KS_OK);
        ks_stream *st;
        assert_int_equal(ks_source_next(src, &st, &err), 1);
        assert_int_equal(ks_stream_size_hint(st), n);
        ks_source_close(src);
    }
    ks_source_libarchive_only = 0;
    /* a trailer that says less than the file (a member list, a length past 4 GiB): the file size */
    gz[gzn - 4] = gz[gzn - 3] = gz[gzn - 2] = gz[gzn - 1] = 0;
    ks_source *src;
    ks_error err;
    assert_int_equal(ks_source_open_memory("hint", gz, gzn, &src, &err), KS_OK);
    ks_stream *st;
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    assert_int_equal(ks_stream_size_hint(st), gzn);
    ks_source_close(src);
    free(gz);
    free(json);
}

static void memory_source_and_errors(void **state)
{
    (void)state;
    char *z;
    size_t zn;
    ks_test_compress("zstd", NULL, TRACE, strlen(TRACE), &z, &zn);
    ks_trace *t;
    ks_error err;
    assert_int_equal(ks_parse_buffer("mem", z, zn, NULL, &t, &err), KS_OK);
    assert_int_equal(t->events, 2);
    assert_string_equal(t->filter, "zstd");
    ks_trace_free(t);
    /* a corrupt compressed stream: the first bytes decode, then an error */
    z[zn / 2] ^= 0x55;
    z[zn / 2 + 1] ^= 0x55;
    int r = ks_parse_buffer("mem", z, zn, NULL, &t, &err);
    if (r == KS_OK) {
        /* recovered what was decodable: must say so */
        assert_true(ks_diag_total(&t->diag, "parse.read_error") + ks_diag_total(&t->diag, "parse.truncated") +
                        ks_diag_total(&t->diag, "parse.skipped_event") > 0);
        ks_trace_free(t);
    } else {
        assert_true(strlen(err.msg) > 0);
    }
    free(z);

    ks_source *s;
    assert_int_equal(ks_source_open("/nonexistent/trace.json", &s, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "No such file"));
    char empty[400];
    snprintf(empty, sizeof empty, "%s/empty.json", dir);
    FILE *f = fopen(empty, "w");
    fclose(f);
    assert_int_equal(ks_source_open(empty, &s, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "mpty"));
}

/* Parse a buffer (tolerant or strict, with or without the reader thread); the error or NULL. */
static const char *parse_error_of(const char *buf, size_t n, int strict, int reader)
{
    static ks_error err;
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.strict = strict;
    o.reader_thread = reader;
    o.chunk_size = 16;
    ks_trace *t;
    if (ks_parse_buffer("mem", buf, n, &o, &t, &err) == KS_OK) {
        ks_trace_free(t);
        return NULL;
    }
    return err.msg;
}

/* A damaged gzip trailer (CRC-32 or ISIZE) or damaged data whose deflate stream still decodes:
 * an error naming the member and the compressed byte, in tolerant and strict mode, with and
 * without the reader thread (libarchive alone read all three as valid). */
static void gzip_checksums_are_verified(void **state)
{
    (void)state;
    char *gz;
    size_t n;
    ks_test_compress("gzip", NULL, TRACE, strlen(TRACE), &gz, &n);
    assert_null(parse_error_of(gz, n, 1, -1));
    static const struct { long at; const char *what; } damage[] = {
        {-8, "CRC-32 mismatch"}, {-3, "length (ISIZE) mismatch"}, {-1, "length (ISIZE) mismatch"}};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++)
        for (int mode = 0; mode < 4; mode++) {
            char *bad = malloc(n);
            memcpy(bad, gz, n);
            bad[(long)n + damage[i].at] ^= 0x20;
            const char *e = parse_error_of(bad, n, mode & 1, mode & 2 ? 1 : -1);
            assert_non_null(e);
            assert_non_null(strstr(e, damage[i].what));
            assert_non_null(strstr(e, "gzip member 1"));
            free(bad);
        }
    /* two members (the trace cut in two), the second one damaged: named as member 2, from its
     * first byte */
    size_t half = strlen(TRACE) / 2, an, bn;
    char *a, *b;
    ks_test_compress("gzip", NULL, TRACE, half, &a, &an);
    ks_test_compress("gzip", NULL, TRACE + half, strlen(TRACE) - half, &b, &bn);
    char *two = malloc(an + bn);
    memcpy(two, a, an);
    memcpy(two + an, b, bn);
    two[an + bn - 8] ^= 1;
    const char *e = parse_error_of(two, an + bn, 0, -1);
    assert_non_null(e);
    char want[64];
    snprintf(want, sizeof want, "gzip member 2 (from compressed byte %zu)", an);
    assert_non_null(strstr(e, want));
    free(two);
    free(a);
    free(b);
    free(gz);
}

/* Concatenated gzip members decode as one stream (as gzip -d does), also as a tar member, and a
 * damaged member inside a tar is found too. */
static void gzip_members_concatenate_and_tar_members_are_verified(void **state)
{
    (void)state;
    size_t half = strlen(TRACE) / 2;
    char *a, *b;
    size_t an, bn;
    ks_test_compress("gzip", NULL, TRACE, half, &a, &an);
    ks_test_compress("gzip", NULL, TRACE + half, strlen(TRACE) - half, &b, &bn);
    char *cat = malloc(an + bn);
    memcpy(cat, a, an);
    memcpy(cat + an, b, bn);
    ks_trace *t;
    ks_error err;
    assert_int_equal(ks_parse_buffer("mem", cat, an + bn, NULL, &t, &err), KS_OK);
    assert_int_equal(t->events, 2);
    assert_int_equal(t->diag.n, 0);
    ks_trace_free(t);
    for (int damaged = 0; damaged < 2; damaged++) {
        if (damaged)
            cat[an + bn - 7] ^= 4;
        char path[400];
        snprintf(path, sizeof path, "%s/gzmember%d.tar", dir, damaged);
        struct archive *w = archive_write_new();
        archive_write_set_format_pax_restricted(w);
        assert_int_equal(archive_write_open_filename(w, path), ARCHIVE_OK);
        add_member(w, "rank0.json.gz", cat, an + bn);
        archive_write_close(w);
        archive_write_free(w);
        ks_source *s;
        ks_stream *st;
        assert_int_equal(ks_source_open(path, &s, &err), KS_OK);
        assert_int_equal(ks_source_next(s, &st, &err), 1);
        int r = ks_parse_stream(st, NULL, &t, &err);
        if (!damaged) {
            assert_int_equal(r, KS_OK);
            assert_int_equal(t->events, 2);
            ks_trace_free(t);
        } else {
            assert_int_equal(r, KS_ERR);
            assert_non_null(strstr(err.msg, "gzip member 2"));
            assert_non_null(strstr(err.msg, "CRC-32 mismatch"));
        }
        ks_source_close(s);
    }
    free(cat);
    free(a);
    free(b);
}

/* Inputs that are not empty are never called "empty input": a cut .xz/.zst/.bz2/.gz names its
 * codec and says it is truncated at the compressed byte where it ends; NUL bytes say so. */
static void damaged_and_zeroed_inputs_say_what_they_are(void **state)
{
    (void)state;
    static const char *const filters[] = {"gzip", "zstd", "xz", "bzip2"};
    for (size_t i = 0; i < 4; i++) {
        char *z;
        size_t zn;
        ks_test_compress(filters[i], NULL, TRACE, strlen(TRACE), &z, &zn);
        char path[400];
        snprintf(path, sizeof path, "%s/cut_%zu.json", dir, i);
        FILE *f = fopen(path, "wb");
        fwrite(z, 1, zn / 3, f);
        fclose(f);
        ks_source *s;
        ks_error err;
        ks_trace *t;
        int r = ks_source_open(path, &s, &err);
        if (r == KS_OK) {
            ks_stream *st;
            assert_int_equal(ks_source_next(s, &st, &err), 1);
            ks_parse_opts o;
            ks_parse_opts_init(&o);
            o.strict = 1;
            r = ks_parse_stream(st, &o, &t, &err);
            ks_source_close(s);
        }
        assert_int_equal(r, KS_ERR);
        assert_null(strstr(err.msg, "empty"));
        /* the codec and where it ends: every byte of the cut file was taken */
        char want[64];
        snprintf(want, sizeof want, "truncated at compressed byte %zu", zn / 3);
        assert_non_null(strstr(err.msg, filters[i]));
        assert_non_null(strstr(err.msg, want));
        free(z);
    }
    char nul[4096] = {0};
    ks_trace *t;
    ks_error err;
    assert_int_equal(ks_parse_buffer("zeros", nul, sizeof nul, NULL, &t, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "NUL bytes"));
}

static void directories_expand_to_trace_files(void **state)
{
    (void)state;
    char sub[400], path[512];
    snprintf(sub, sizeof sub, "%s/dirtest", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/b", sub);
    mkdir(path, 0755);
    static const char *const files[] = {"b/rank1.pt.trace.json.gz", "a.json", "notes.txt", ".hidden.json", "c.tar"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", sub, files[i]);
        FILE *f = fopen(path, "w");
        fputs("x", f);
        fclose(f);
    }
    char *in[] = {sub, "-"};
    char **out;
    size_t n;
    ks_error err;
    assert_int_equal(ks_inputs_expand(in, 2, &out, &n, &err), KS_OK);
    assert_int_equal(n, 4);
    assert_non_null(strstr(out[0], "dirtest/a.json"));
    assert_non_null(strstr(out[1], "dirtest/b/rank1.pt.trace.json.gz"));
    assert_non_null(strstr(out[2], "dirtest/c.tar"));
    assert_string_equal(out[3], "-");
    assert_null(out[4]);
    ks_inputs_free(out, n);

    snprintf(path, sizeof path, "%s/b", sub);
    char *only[] = {path};
    snprintf(path, sizeof path, "%s/emptydir", dir);
    mkdir(path, 0755);
    assert_int_equal(ks_inputs_expand(only, 1, &out, &n, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "no trace"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_filter_detected_by_content),
        cmocka_unit_test(plain_file_read_as_it_is),
        cmocka_unit_test(sniffing_decides_who_reads),
        cmocka_unit_test(cut_gzip_keeps_what_decodes),
        cmocka_unit_test(tar_and_zip_yield_one_trace_per_member),
        cmocka_unit_test(memory_source_and_errors),
        cmocka_unit_test(gzip_checksums_are_verified),
        cmocka_unit_test(gzip_members_concatenate_and_tar_members_are_verified),
        cmocka_unit_test(damaged_and_zeroed_inputs_say_what_they_are),
        cmocka_unit_test(directories_expand_to_trace_files),
        cmocka_unit_test(member_size_hint_is_the_member_size),
        cmocka_unit_test(gzip_size_hint_is_its_length),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
