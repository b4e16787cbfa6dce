/* tests/parser/test_reader.c: the reader thread (parser/reader.c) changes nothing but speed. Every
 * input is read twice, with the thread and without, and the two results (the whole store, every
 * diagnostic with its position, or the error) must be the same: on edge cases, on hundreds of
 * randomly damaged traces, with tiny and normal chunk sizes, in strict mode, on damaged gzip, and
 * on real traces of fixtures/real with damage injected. */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ks_test.h"
#include "parser/reader.h"
#include "store/bigarray.h"
#include "trace_digest.h"

/* A Kineto-like trace with every construct the parser reacts to. */
static char *make_trace(int nevents, size_t *len)
{
    ks_buf b = {0};
    ks_buf_puts(&b, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"GPU\", "
                    "\"totalGlobalMem\": 85000000000, \"numSms\": 132}\n  ],\n"
                    "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2},\n"
                    "  \"traceEvents\": [\n");
    for (int i = 0; i < nevents; i++) {
        switch (i % 7) {
        case 0:
            ks_buf_printf(&b, "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 10, "
                              "\"tid\": \"10\",\n    \"ts\": %d.%03d, \"dur\": %d,\n    \"args\": {\"External id\": %d, "
                              "\"Input Dims\": [[1, 2], [], [3]], \"Call stack\": \"a.py(1): f;b.py(2): g \\u00e9\"}\n  }",
                          i % 13, 1000 + i, i % 1000, i % 50 + 1, i);
            break;
        case 1:
            ks_buf_printf(&b, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void k<%d>()\", \"pid\": 0, \"tid\": 7, "
                              "\"ts\": %d, \"dur\": 3.5, \"args\": {\"correlation\": %d, \"stream\": 7, \"device\": 0}}",
                          i % 5, 1002 + i, i);
            break;
        case 2:
            ks_buf_printf(&b, "  {\"ph\": \"s\", \"id\": %d, \"pid\": 10, \"tid\": 10, \"ts\": %d, \"cat\": \"ac2g\", "
                              "\"name\": \"ac2g\"}",
                          i, 1000 + i);
            break;
        case 3:
            ks_buf_printf(&b, "  {\"ph\": \"f\", \"id\": %d, \"bp\": \"e\", \"pid\": 0, \"tid\": 7, \"ts\": %d, "
                              "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                          i - 1, 1003 + i);
            break;
        case 4:
            ks_buf_printf(&b, "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 10, \"ts\": %d, \"args\": {\"alloc\": %d, "
                              "\"free\": 1.5e3}}",
                          1000 + i, i * 10);
            break;
        case 5:
            ks_buf_printf(&b, "  {\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                              "\"pid\": 10, \"tid\": 10, \"ts\": %d, \"args\": {\"Bytes\": %d}}",
                          1000 + i, i);
            break;
        default:
            ks_buf_printf(&b, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 10, \"tid\": %d, "
                              "\"args\": {\"name\": \"thread %d\"}}",
                          10 + i % 3, i);
            break;
        }
        ks_buf_puts(&b, i + 1 < nevents ? ",\n" : "\n");
    }
    ks_buf_puts(&b, "  ],\n  \"traceName\": \"x.json\", \"baseTimeNanoseconds\": 1700000000000000000\n}\n");
    *len = b.n;
    ks_buf_cstr(&b);
    return b.p;
}

/* Parse with and without the thread, with workers parsing ahead (split.h), with the thread and
 * the parser taking turns at filling the chunks (reader.h, KS_READER_TURNS), and as the defaults
 * read it with one parser thread (an input of a few chunks: the reader's chunks, no thread); fail
 * with both renderings when one differs. */
static void same_both_ways(const char *buf, size_t len, size_t chunk, int strict)
{
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = chunk;
    o.strict = strict;
    o.reader_thread = -1;
    char *one = digest_parse(buf, len, &o);
    static const int threads[] = {1, 2, 4};
    static const int modes[] = {2, 4};
    for (size_t v = 0; v <= 2 * sizeof threads / sizeof *threads; v++) {
        /* 2: with every optional step of the thread, ahead of the parser or not; 4: the thread
         * fills every other chunk, the parser the others; last, the defaults with one thread */
        int last = v == 2 * sizeof threads / sizeof *threads;
        o.reader_thread = last ? 0 : modes[v % 2];
        o.threads = last ? 1 : threads[v / 2];
        char *two = digest_parse(buf, len, &o);
        if (strcmp(one, two)) {
            /* the first differing line, and the whole input and renderings for a closer look */
            size_t line = digest_first_diff_line(one, two);
            const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
            char path[4096];
            const char *what[3] = {"input", "single", "thread"};
            const char *data[3] = {buf, one, two};
            size_t lens[3] = {len, strlen(one), strlen(two)};
            for (int i = 0; i < 3; i++) {
                snprintf(path, sizeof path, "%s/ks_test_reader.%s", dir, what[i]);
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(data[i], 1, lens[i], f);
                    fclose(f);
                }
            }
            fail_msg("chunk %zu strict %d threads %d reader %d: renderings differ at line %zu (written to "
                     "%s/ks_test_reader.*)",
                     chunk, strict, o.threads, o.reader_thread, line, dir);
        }
        free(two);
    }
    free(one);
}

static const char *const edge_cases[] = {
    "\xef\xbb\xbf{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}",
    "\xef\xbb\xbf",
    "\xef\xbb",
    "",
    "   \n  ",
    "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}",
    "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n {\"ph\": \"X\", \"na",
    "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\"b\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}",
    "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"C:\\path\\x\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},]}",
    "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"tab\there\xff\xc3\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}",
    "{\"traceEvents\": [{\"ph\": \"X\", nope, \"pid\": 1}, {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}]}",
    "{\"a\": [1, 2 3], \"traceEvents\": [{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}]}",
    "{\"traceEvents\": [{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}], \"x\": nope}",
    "[{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}]  trailing garbage",
    "[1, \"x\", [2], {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}]",
    "{\"x\": 1}",
    "\"just a string\"",
    "{\"traceEvents\": {\"ph\": \"i\"}}",
    "[{\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 1e400, \"dur\": -1}, {\"ph\": \"Q\"}, {}, {\"ph\": \"XY\"}]",
    "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"q\"uote\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}, "
    "{\"ph\": \"X\", bad}, {\"ph\": \"X\", \"name\": \"x\\q\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1}]}",
    /* errors that yajl places at the start of a token, after blanks and a line break */
    "[{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2},\n    /x, {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3}]",
    "{\"traceEvents\": [{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"name\": \"x\"\n      \"s\": \"g\"},\n"
    "  {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3}]}",
    "{\"traceEvents\": [{\"ph\": \"i\", \"pid\": 1,\n      \"tid\": 1 2},\n  {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3}]}",
    "{\"traceEvents\": [{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2}\n      {\"ph\": \"i\"},\n   ]}",
    "{\"traceEvents\": [\n\n   {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2},\n  \n   @]}",
    "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"x\"\n      7},\n  {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3}]}",
    "{\"traceEvents\": [{\"ph\": \"i\", \"args\": {}\n      true},\n  {\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3}]}",
};

static void edge_cases_read_the_same(void **state)
{
    (void)state;
    static const size_t chunks[] = {1, 2, 3, 5, 8, 13, 64, 0};
    for (size_t i = 0; i < sizeof edge_cases / sizeof *edge_cases; i++)
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
            for (int strict = 0; strict < 2; strict++)
                same_both_ways(edge_cases[i], strlen(edge_cases[i]), chunks[c], strict);
}

/* Indentation on every short line: more runs dropped per chunk than the reader's ring lends map
 * entries for at the chunk sizes it lends them (64 KiB and more), so each slot's map moves to memory
 * of its own mid-run, with the entries so far; then an error, whose position goes through them. */
static void short_lines_outgrow_the_ring(void **state)
{
    (void)state;
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    for (int i = 0; i < 3000; i++) {
        ks_buf_printf(&b, "%s\n    {\"ph\": \"X\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": %d, "
                          "\"dur\": 1, \"args\": {\"Input Dims\": [",
                      i ? "," : "", 10 * i);
        for (int k = 0; k < 40; k++)
            ks_buf_printf(&b, "%s\n        %d", k ? "," : "", k);
        ks_buf_puts(&b, "\n    ]}}");
    }
    ks_buf_puts(&b, ",\n    x]}");
    static const size_t chunks[] = {0, (size_t)64 << 10, (size_t)100 << 10};
    for (size_t c = 0; c < 3; c++)
        same_both_ways(b.p, b.n, chunks[c], 0);
    ks_buf_free(&b);
}

/* 200 000 line breaks in a row, then an error: its line number needs every one of them counted
 * (the reader thread counts 16 bytes at a time in byte lanes, summed before they overflow). */
static void long_blank_runs_count_lines(void **state)
{
    (void)state;
    ks_buf b = {0};
    ks_buf_puts(&b, "[");
    for (int i = 0; i < 200000; i++)
        ks_buf_puts(&b, i % 3 ? "\n" : "\n\r\n");
    ks_buf_puts(&b, "{\"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 2},\n  x, {\"ph\": \"i\", \"pid\": 1, "
                    "\"tid\": 1, \"ts\": 3}]");
    static const size_t chunks[] = {0, 4096, 100000};
    for (size_t c = 0; c < 3; c++)
        for (int strict = 0; strict < 2; strict++)
            same_both_ways(b.p, b.n, chunks[c], strict);
    ks_buf_free(&b);
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    return ks_test_rnd(&rng_state);
}

/* Damage a copy of buf: overwrite, insert or delete a few bytes with JSON-significant ones. */
static char *damage(const char *buf, size_t len, size_t *out_len, int edits)
{
    static const char pool[] = "\"\\,{}[]:\x01\xff\xc3\n x0-.e/t\t";
    char *b = ks_xmalloc(len + (size_t)edits + 1);
    memcpy(b, buf, len);
    size_t n = ks_test_damage(b, len, pool, edits, &rng_state);
    if (rnd() % 5 == 0)
        n = (size_t)(rnd() % n) + 1; /* cut as a killed job would */
    *out_len = n;
    return b;
}

static void damaged_traces_read_the_same(void **state)
{
    (void)state;
    size_t len;
    char *base = make_trace(120, &len);
    same_both_ways(base, len, 0, 0);
    same_both_ways(base, len, 1000, 1);
    for (int i = 0; i < 160; i++) {
        size_t n;
        char *b = damage(base, len, &n, 1 + (int)(rnd() % 6));
        static const size_t chunks[] = {7, 100, 1024, 4096, 333, 2000, 8192, 64};
        same_both_ways(b, n, chunks[i % 8], 0);
        if (i % 10 == 0)
            same_both_ways(b, n, chunks[(i / 10) % 4], 1);
        free(b);
    }
    free(base);
}

/* Compress with libarchive's gzip filter into a new buffer. */
static char *gzip_buffer(const char *data, size_t len, size_t *out_len)
{
    size_t cap = len + 65536, used = 0;
    char *out = ks_xmalloc(cap);
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_raw(a);
    assert_int_equal(archive_write_open_memory(a, out, cap, &used), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_pathname(e, "trace.json");
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    *out_len = used;
    return out;
}

/* A gzip stream cut short fails to decompress at some point: the decoded part is kept (or, in
 * strict mode and at byte 0, it is an error) the same way with the thread. */
static void damaged_gzip_reads_the_same(void **state)
{
    (void)state;
    size_t len, gzn;
    char *base = make_trace(3000, &len);
    char *gz = gzip_buffer(base, len, &gzn);
    same_both_ways(gz, gzn, 0, 0);
    size_t cuts[] = {gzn / 2, gzn - 9, 12};
    for (size_t i = 0; i < 3; i++)
        for (int strict = 0; strict < 2; strict++) {
            same_both_ways(gz, cuts[i], 4096, strict);
            same_both_ways(gz, cuts[i], 0, strict);
        }
    /* the cut really is a read error */
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.reader_thread = 1;
    ks_trace *t;
    ks_error err;
    o.chunk_size = 4096;
    if (ks_parse_buffer("cut.gz", gz, gzn / 2, &o, &t, &err) != KS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(ks_diag_total(&t->diag, "parse.read_error"), 1);
    assert_true(t->truncated);
    ks_trace_free(t);
    free(gz);
    free(base);
}

/* Render every trace of an in-memory source (a tar of several), read with or without the thread. */
static char *digest_source(const void *buf, size_t len, int thread)
{
    ks_source *src;
    ks_error err;
    assert_int_equal(ks_source_open_memory("traces.tar", buf, len, &src, &err), KS_OK);
    ks_buf b = {0};
    ks_stream *st;
    int r;
    while ((r = ks_source_next(src, &st, &err)) == 1) {
        ks_parse_opts o;
        ks_parse_opts_init(&o);
        o.chunk_size = 4096;
        o.reader_thread = thread;
        ks_trace *t;
        if (ks_parse_stream(st, &o, &t, &err) == KS_OK) {
            digest_trace(&b, t);
            ks_trace_free(t);
        } else {
            ks_buf_printf(&b, "error %s\n", err.msg);
        }
    }
    ks_buf_printf(&b, "end %d\n", r);
    ks_source_close(src);
    ks_buf_cstr(&b);
    return b.p;
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

/* Members of a tar (plain and gzip) read one after the other: the thread of a member reads ahead
 * of where its parse stops (trailing garbage, a fatal error), and the next member is still read
 * whole and the same way. */
static void archive_members_read_the_same(void **state)
{
    (void)state;
    size_t len, gzn;
    char *base = make_trace(600, &len);
    char *garbage = ks_xmalloc(len + 64);
    memcpy(garbage, base, len);
    memcpy(garbage + len, "\n trailing garbage {\n", 21);
    char *gz = gzip_buffer(base, len, &gzn);
    size_t cap = 6 * len + 2 * gzn + 65536, used = 0;
    char *tar = ks_xmalloc(cap);
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_memory(a, tar, cap, &used), ARCHIVE_OK);
    add_member(a, "r0.json", base, len);
    add_member(a, "r1.json", garbage, len + 21);
    add_member(a, "r2.json", "7 not a trace", 13);
    add_member(a, "r3.json.gz", gz, gzn);
    add_member(a, "r4.json", base, len / 2);
    archive_write_close(a);
    archive_write_free(a);
    char *one = digest_source(tar, used, -1), *two = digest_source(tar, used, 2);
    assert_string_equal(one, two);
    assert_non_null(strstr(one, "parse.trailing_garbage"));
    assert_non_null(strstr(one, "error "));
    assert_non_null(strstr(one, "end 0"));
    free(one);
    free(two);
    free(tar);
    free(gz);
    free(garbage);
    free(base);
}

typedef struct progress_log {
    uint64_t v[4096];
    size_t n;
} progress_log;

static void log_progress(void *ctx, const ks_stream *st, uint64_t bytes)
{
    (void)st;
    progress_log *l = ctx;
    if (l->n < 4096)
        l->v[l->n++] = bytes;
}

/* The progress callback sees the same byte counts, on the parser's thread. */
static void progress_is_reported_the_same(void **state)
{
    (void)state;
    size_t len;
    char *base = make_trace(400, &len);
    progress_log a = {{0}, 0}, b = {{0}, 0};
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 1000;
    o.progress = log_progress;
    ks_trace *t;
    ks_error err;
    o.reader_thread = -1;
    o.progress_ctx = &a;
    assert_int_equal(ks_parse_buffer("p", base, len, &o, &t, &err), KS_OK);
    ks_trace_free(t);
    o.reader_thread = 1;
    o.progress_ctx = &b;
    assert_int_equal(ks_parse_buffer("p", base, len, &o, &t, &err), KS_OK);
    ks_trace_free(t);
    assert_true(a.n > 10);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.v, b.v, a.n * sizeof a.v[0]);
    assert_int_equal(a.v[a.n - 1], len);
    free(base);
}

/* The nice value of this process's thread named name (/proc/self/task/TID/stat, field 19), or
 * INT_MIN when there is none. */
static int thread_nice(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int nice = INT_MIN;
    struct dirent *e;
    while ((e = readdir(d)) && nice == INT_MIN) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], comm[64] = "", stat[1024] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* the thread ended */
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        if (strcmp(comm, name))
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        f = fopen(path, "r");
        assert_non_null(f);
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        const char *p = strrchr(stat, ')'); /* after the name: state is field 3, nice field 19 */
        assert_non_null(p);
        p++;
        for (int field = 3; field < 19; field++) {
            p = strchr(p + 1, ' ');
            assert_non_null(p);
        }
        nice = atoi(p + 1);
    }
    closedir(d);
    return nice;
}

typedef struct nice_seen {
    int reader, parser; /* INT_MIN until seen */
} nice_seen;

static void look_at_nice(void *ctx, const ks_stream *st, uint64_t bytes)
{
    (void)st;
    (void)bytes;
    nice_seen *n = ctx;
    if (n->reader != INT_MIN)
        return;
    n->reader = thread_nice("ks-reader"); /* it set its priority before its first read */
    errno = 0;
    n->parser = getpriority(PRIO_PROCESS, (id_t)gettid());
    assert_int_equal(errno, 0);
}

/* When the parse has more threads than the machine has cores (the main parser, its workers and
 * the reader), the reader thread runs at nice + 2 (parser/reader.c: it can wait, the others
 * cannot); otherwise at the parser's own. The store is the same either way. */
static void reader_yields_when_threads_outnumber_cores(void **state)
{
    (void)state;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t len;
    char *base = make_trace(3000, &len);
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 4096;
    o.reader_thread = -1;
    char *one = digest_parse(base, len, &o);
    /* threads cpus + 1: cpus workers, more threads than cores; threads 1: two threads */
    const int threads[] = {(int)cpus + 1, 1};
    for (int i = 0; i < 2; i++) {
        nice_seen seen = {INT_MIN, INT_MIN};
        o.reader_thread = 2; /* the thread reads every chunk: it has run before the first */
        o.threads = threads[i];
        o.progress = look_at_nice;
        o.progress_ctx = &seen;
        char *two = digest_parse(base, len, &o);
        assert_string_equal(one, two);
        free(two);
        assert_true(seen.reader != INT_MIN);
        int more = threads[i] - 1 + 2 > cpus;
        int expect = more && seen.parser <= 17 ? seen.parser + 2 : seen.parser;
        if (seen.reader != expect)
            fail_msg("threads %d on %ld cores: the reader at nice %d, the parser at %d (expected %d)", threads[i],
                     cpus, seen.reader, seen.parser, expect);
    }
    free(one);
    free(base);
}

/* The chunks of text whose indentation the reader dropped (their run is not the filter's own), of
 * all it handed over; the consumer sleeps before each take, so the thread is ahead of it. */
static void count_dropped(const char *text, size_t n, int flags, int *dropped, int *chunks)
{
    ks_source *src;
    ks_stream *st;
    ks_error err;
    assert_int_equal(ks_source_open_memory("t.json", text, n, &src, &err), KS_OK);
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    ks_reader *rd = ks_reader_start(st, 4096, flags);
    assert_non_null(rd);
    ks_rchunk *c;
    *dropped = *chunks = 0;
    for (;;) {
        usleep(2000);
        if (!(c = ks_reader_next(rd)))
            break;
        if (c->has_run) {
            ks_run filtered = ks_repair_last_run(&c->out);
            *dropped += c->run.res != filtered.res;
            (*chunks)++;
        }
        if (c->eof)
            break;
    }
    ks_reader_stop(rd);
    ks_source_close(src);
}

/* Without the thread (KS_READER_NO_THREAD) the parser fills each chunk when it has taken every one
 * before, so only the one it holds and the next are ever in use: two slots take turns, in the
 * heap, with chunks big enough that the threaded reader would take a huge-page ring of 12 (a 2 MiB
 * page faulted for a 1 MB input). The windows hold every byte, in order, carries included. */
static void without_a_thread_two_slots_take_turns(void **state)
{
    (void)state;
    size_t len;
    char *text = make_trace(4000, &len);
    const size_t chunk = (size_t)64 << 10;
    assert_true(len > 5 * chunk);
    ks_source *src;
    ks_stream *st;
    ks_error err;
    assert_int_equal(ks_source_open_memory("t.json", text, len, &src, &err), KS_OK);
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    ks_reader *rd = ks_reader_start(st, chunk, KS_READER_NO_THREAD);
    assert_non_null(rd);
    const ks_rchunk *seen[3] = {NULL, NULL, NULL};
    int nseen = 0, chunks = 0;
    uint64_t at = 0;
    ks_rchunk *c;
    while ((c = ks_reader_next(rd)) != NULL) {
        int known = 0;
        for (int i = 0; i < nseen; i++)
            known |= seen[i] == c;
        if (!known) {
            if (nseen == 2)
                fail_msg("a third slot in use without the thread, at chunk %d", chunks);
            seen[nseen++] = c;
        }
        assert_false(c->buf_lent);
        /* the window starts with the carried bytes, then this chunk's read */
        assert_true(c->base + c->new_off == at);
        assert_memory_equal(c->buf, text + c->base, c->len);
        at = c->base + c->len;
        chunks++;
        if (c->eof)
            break;
    }
    assert_true(chunks > 5);
    assert_int_equal(nseen, 2);
    assert_true(at == len);
    ks_reader_stop(rd);
    ks_source_close(src);
    free(text);
}

/* Dropping the indentation is work the thread does for the parser when it is ahead; when it
 * shares a core with the parse (KS_READER_YIELD: more threads than cores) it leaves it, since it
 * would take that time from a worker (parser/reader.c). Eager (tests) drops it either way. */
static void reader_drops_indentation_only_with_a_core_of_its_own(void **state)
{
    (void)state;
    size_t len;
    char *text = make_trace(700, &len);
    int dropped, chunks;
    count_dropped(text, len, 0, &dropped, &chunks);
    assert_true(chunks >= 8);
    if (dropped == 0)
        fail_msg("a reader with a core of its own, ahead of its parser, dropped no indentation in %d chunks",
                 chunks);
    count_dropped(text, len, KS_READER_YIELD, &dropped, &chunks);
    if (dropped != 0)
        fail_msg("a reader sharing a core dropped the indentation of %d of %d chunks", dropped, chunks);
    count_dropped(text, len, KS_READER_YIELD | KS_READER_EAGER, &dropped, &chunks);
    assert_int_equal(dropped, chunks);
    free(text);
}

/* A fatal error in the first chunk of a long input stops the thread while it is reading ahead
 * (ASan / TSan builds check that nothing leaks or races). */
static void early_error_stops_the_thread(void **state)
{
    (void)state;
    size_t len;
    char *base = make_trace(2000, &len);
    base[0] = '7'; /* not a trace */
    for (int strict = 0; strict < 2; strict++)
        same_both_ways(base, len, 512, strict);
    base[0] = '{';
    base[40] = '\x01'; /* a repair in strict mode: an error */
    same_both_ways(base, len, 512, 1);
    free(base);
}

/* A trace big enough that its track moves to a mapped array filled with the reader thread's ready
 * blocks (store/bigarray.c): 160 000 events (5.1 MB of records) on one thread, read both ways. */
static void big_tracks_read_the_same(void **state)
{
    (void)state;
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [\n");
    for (int i = 0; i < 160000; i++)
        ks_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":1}%s\n",
                      i % 50, i, i + 1 < 160000 ? "," : "");
    ks_buf_puts(&b, "]}\n");
    same_both_ways(b.p, b.n, 0, 0);
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.reader_thread = 1;
    ks_trace *t;
    ks_error err;
    assert_int_equal(ks_parse_buffer("big", b.p, b.n, &o, &t, &err), KS_OK);
    assert_int_equal(t->events, 160000);
    assert_int_equal(t->ntracks, 1);
    assert_true(t->tracks[0].n * sizeof(ks_event) > KS_BIGARRAY_HUGE_MIN);
    assert_int_equal(t->tracks[0].ev[159999].ts, 159999000);
    ks_trace_free(t);
    ks_buf_free(&b);
}

/* The parser fills a chunk itself when the thread has none ready and is not filling one: taking
 * turns (reader_thread 4), at least every other chunk, plain and in gzip; eager (2, tests),
 * never; with the defaults on an input of a few chunks, every one (no thread); and the count says
 * so (ks_parse_info.chunks_filled). The traces themselves are compared above (same_both_ways). */
static uint64_t parse_counted(const char *name, const char *buf, size_t n, int threads, int reader,
                              ks_parse_info *info)
{
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 4096;
    o.threads = threads;
    o.reader_thread = reader;
    o.info = info;
    ks_trace *t;
    ks_error err;
    if (ks_parse_buffer(name, buf, n, &o, &t, &err) != KS_OK)
        fail_msg("%s", err.msg);
    uint64_t events = t->events;
    ks_trace_free(t);
    return events;
}

static void parser_fills_chunks_the_thread_left(void **state)
{
    (void)state;
    size_t len, gzn;
    char *text = make_trace(3000, &len);
    char *gz = gzip_buffer(text, len, &gzn);
    for (int g = 0; g < 2; g++) {
        static const int modes[] = {-1, 4, 2, 1}; /* -1: no thread, the events to expect */
        uint64_t events = 0;
        for (size_t m = 0; m < 4; m++) {
            ks_parse_info info = {0};
            uint64_t got = parse_counted(g ? "t.json.gz" : "t.json", g ? gz : text, g ? gzn : len, 1, modes[m], &info);
            if (m == 0)
                events = got;
            assert_true(events > 2000);
            assert_int_equal(got, events);
            /* at least the reads of the plain text, 4096 bytes each, and the empty one at the end
             * (the source may read less at a time, decompression too); the parser fills every
             * other one, and one of the thread's too when it needs it before the thread woke */
            uint64_t reads = (len + 4095) / 4096 + 1, half = reads / 2;
            if (modes[m] == 4 && (info.chunks_filled < half || (!g && info.chunks_filled > reads)))
                fail_msg("taking turns over %llu chunks (gzip %d), the parser filled %llu", (unsigned long long)reads,
                         g, (unsigned long long)info.chunks_filled);
            if (modes[m] == 2 && info.chunks_filled != 0)
                fail_msg("an eager thread left %llu chunks to the parser", (unsigned long long)info.chunks_filled);
        }
    }
    /* an input of a few chunks, with the defaults: no thread, the parser fills every chunk
     * (parser_int.h MIN_THREAD_CHUNKS), and the trace is the one read without the reader */
    size_t small = 0;
    while (small < 3 * 4096 && small < len)
        small = (size_t)(strstr(text + small + 1, "\n  {") - text);
    memcpy(text + small, "\n]}\n", 5);
    small += 4; /* the events before, closed: 3-4 chunks of 4096 bytes */
    uint64_t events = 0;
    for (int m = 0; m < 2; m++) {
        ks_parse_info info = {0};
        uint64_t got = parse_counted("small.json", text, small, 0, m ? 0 : -1, &info);
        if (!m)
            events = got;
        assert_true(events > 50);
        assert_int_equal(got, events);
        if (m && info.chunks_filled != (small + 4095) / 4096 + 1)
            fail_msg("a %zu-byte input in chunks of 4096 with the defaults: the parser filled %llu chunks", small,
                     (unsigned long long)info.chunks_filled);
    }
    free(gz);
    free(text);
}

/* Real traces, whole and damaged, in 64 KiB chunks. */
static void corpus_traces_read_the_same(void **state)
{
    (void)state;
    static const char *const files[] = {
        "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
        "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
    };
    const char *dir = KS_FIXTURES "/real";
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        ks_source *src;
        ks_stream *st;
        ks_error err;
        if (ks_source_open(path, &src, &err) != KS_OK)
            fail_msg("%s: %s", path, err.msg);
        assert_int_equal(ks_source_next(src, &st, &err), 1);
        ks_buf text = {0};
        char tmp[65536];
        ssize_t r;
        while ((r = ks_stream_read(st, tmp, sizeof tmp, &err)) > 0)
            ks_buf_put(&text, tmp, (size_t)r);
        assert_true(r == 0);
        ks_source_close(src);
        same_both_ways(text.p, text.n, 65536, 0);
        for (int i = 0; i < 4; i++) {
            size_t n;
            char *b = damage(text.p, text.n, &n, 20);
            same_both_ways(b, n, 65536, 0);
            free(b);
        }
        ks_buf_free(&text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edge_cases_read_the_same),
        cmocka_unit_test(long_blank_runs_count_lines),
        cmocka_unit_test(short_lines_outgrow_the_ring),
        cmocka_unit_test(damaged_traces_read_the_same),
        cmocka_unit_test(damaged_gzip_reads_the_same),
        cmocka_unit_test(progress_is_reported_the_same),
        cmocka_unit_test(early_error_stops_the_thread),
        cmocka_unit_test(reader_yields_when_threads_outnumber_cores),
        cmocka_unit_test(reader_drops_indentation_only_with_a_core_of_its_own),
        cmocka_unit_test(archive_members_read_the_same),
        cmocka_unit_test(big_tracks_read_the_same),
        cmocka_unit_test(parser_fills_chunks_the_thread_left),
        cmocka_unit_test(without_a_thread_two_slots_take_turns),
        cmocka_unit_test(corpus_traces_read_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
