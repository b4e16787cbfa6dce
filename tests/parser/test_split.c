/* tests/parser/test_split.c: workers parsing ahead (parser/split.h, parser/unit.h). Where a run is
 * cut (by hand), and that a trace read with workers is the very store a single parser makes, on
 * traces whose units are replayed, on traces whose cuts fall inside strings or outside the events
 * (the main parser must read those units itself), on the chunk that opens the events, on
 * metadata and counter events that stop a scan, and on damaged copies. The counts of
 * ks_parse_info prove that each path was taken. */
#include <stdatomic.h>

#include "ks_test.h"
#include "parser/unit.h"
#include "trace_digest.h"

static void bounds(const char *s, int found, size_t x, size_t xb, size_t y, size_t yb)
{
    size_t a = 0, ab = 0, b = 0, bb = 0;
    int r = ks_unit_bounds(s, strlen(s), 0, &a, &ab, &b, &bb);
    assert_int_equal(r, found);
    if (!found)
        return;
    assert_int_equal(a, x);
    assert_int_equal(ab, xb);
    assert_int_equal(b, y);
    assert_int_equal(bb, yb);
}

static void runs_are_cut_at_event_starts(void **state)
{
    (void)state;
    /*       0123456789012345678901234 */
    bounds("{\"a\":1},{\"b\":2},{\"c\":3}", 1, 8, 6, 16, 14);
    /* blanks and line breaks around the comma */
    bounds("x}, \n {1} ,\t{2}\r\n,\n{3", 1, 6, 1, 19, 14);
    /* one boundary only: no unit */
    bounds("{\"a\":1},{\"b\":2}", 0, 0, 0, 0, 0);
    /* a '{' after ':' or '[' is not a cut */
    bounds("\"args\": {1}, [{2}], {3}", 0, 0, 0, 0, 0);
    /* the last cut must leave at least one event: '}' of the last cut after x */
    bounds("}, {}, {", 1, 3, 0, 7, 4);
    bounds("", 0, 0, 0, 0, 0);
    bounds("},{", 0, 0, 0, 0, 0);
}

/* Events of every kind a worker replays (no metadata, no counters): numeric, string and
 * numeric-string tids, categories and tracks that first appear late, fractional and rounded
 * timestamps, negative ts, flows, instants, kernels with args (grid and block), shape args (whole
 * arrays the fast scanner hands over at once, and some it cannot: an escape, an object inside),
 * collectives (their metadata goes
 * through the unit), names with escapes the fast scanner decodes and, now and then, a surrogate
 * pair it leaves to yajl (json/scan.h), External ids and flow ids past 32 bits (kept beside the
 * records: the units carry them through the merge). With traps, names hold "}, {" so that the
 * first cut of a run often falls inside a string. */
static long long wide_id(int i, long long away)
{
    return i % 5 ? i : i % 2 ? i + away : -i - away;
}

static char *make_trace(int nevents, int traps, int bare, size_t *len)
{
    ks_buf b = {0};
    if (!bare)
        ks_buf_puts(&b, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    else
        ks_buf_puts(&b, "[\n");
    for (int i = 0; i < nevents; i++) {
        int late = i > nevents / 2;
        const char *trap = traps ? "}, {" : "";
        switch (i % 6) {
        case 0:
            ks_buf_printf(&b, "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d%s%s\", \"pid\": 10, "
                              "\"tid\": \"10\", \"ts\": %d.%04d, \"dur\": %d, \"args\": {\"External id\": %lld, "
                              "\"Input Dims\": [[1, 2], [%d],\n []], \"Input type\": [\"float\", \"unsigned char\"%s], "
                              "\"Concrete Inputs\": [\"\", \"[1, 1]\", true, null, -1.5e3, [[]]], \"Ev Idx\": 1e1, "
                              "\"ok\": true, \"no\": null}}",
                          i % 17, trap, i % 600 == 0 ? "\\ud83d\\ude00" : i % 3 ? "" : "\\\"q\\\\\\/\\u00e9",
                          1000 + i, i % 10000, i % 50 + 1, wide_id(i, 3000000000LL), i % 9,
                          /* an escape (decoded by the calls), an object (not kept): never whole */
                          i % 7 == 3 ? ", \"a\\\"b\\u00e9\"" : i % 11 == 5 ? ", {\"x\": [1]}" : "");
            break;
        case 1:
            /* the copies carry "bytes", which lives beside the records (ks_event_bytes): the
             * workers' units must carry it through the merge */
            ks_buf_printf(&b, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"k<%d>%s\", \"pid\": 0, "
                              "\"tid\": \"stream %d\", \"ts\": %d, \"dur\": 3.5, \"args\": {\"correlation\": %d, "
                              "\"stream\": %d, \"device\": 0, \"grid\": [%d, 1, 1], \"block\": [128,1 , 1]%s%d%s}}",
                          late ? "gpu_memcpy" : "kernel", i % 5, trap, 7 + (late ? i % 3 : 0), 1002 + i, i,
                          7 + (late ? i % 3 : 0), i % 13, late ? ", \"bytes\": " : ", \"Bytes?\": ", 8 * i,
                          i % 4 == 1 ? ", \"Collective name\": \"allreduce\", \"In msg nelems\": 4096, "
                                       "\"Out msg nelems\": 4096, \"Group size\": 8, \"dtype\": \"Float\", "
                                       "\"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1]\", \"Seq\": 3"
                                     : "");
            break;
        case 2:
            ks_buf_printf(&b, "  {\"ph\": \"s\", \"id\": %lld, \"pid\": 10, \"tid\": %d, \"ts\": %d, \"cat\": \"ac2g\", "
                              "\"name\": \"ac2g\"}",
                          wide_id(i, 5000000000LL), 10 + (late ? i % 4 : 0), 1000 + i);
            break;
        case 3:
            ks_buf_printf(&b, "  {\"ph\": \"f\", \"id\": %lld, \"bp\": \"e\", \"pid\": 0, \"tid\": \"stream 7\", "
                              "\"ts\": %d, \"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                          wide_id(i - 1, 5000000000LL), late ? -5 : 1003 + i);
            break;
        case 4:
            ks_buf_printf(&b, "  {\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                              "\"pid\": %d, \"tid\": 10, \"ts\": %d, \"args\": {\"Bytes\": %d, \"Total Allocated\": %d, "
                              "\"Addr\": %d, \"Device Type\": 1, \"Device Id\": %d}}",
                          late ? 11 : 10, 1000 + i, i, 7 * i, 4096 + i, i % 3);
            break;
        default:
            ks_buf_printf(&b, "  {\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"step %d\", \"pid\": 10, "
                              "\"tid\": 10, \"ts\": %d}, {\"ph\": \"E\", \"pid\": 10, \"tid\": 10, \"ts\": %d}, {}",
                          i / 6, 1000 + i, 1001 + i);
            break;
        }
        ks_buf_puts(&b, i + 1 < nevents ? ",\n" : "\n");
    }
    if (!bare)
        ks_buf_puts(&b, "  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}, {\"id\": 1, \"name\": "
                        "\"GPU\"}, {\"id\": 2}],\n  \"traceName\": \"x.json\"\n}\n");
    else
        ks_buf_puts(&b, "]\n");
    *len = b.n;
    ks_buf_cstr(&b);
    return b.p;
}

/* Read buf alone by yajl (no reader thread), then with the reader thread: the main parser's own
 * scans alone, with 1 and 3 workers, and with 1 worker and no own scans; then with 1 and 3
 * workers that start on a chunk only once the main parser waits for it (reader_thread 3: the
 * main parser scans its next chunks ahead meanwhile); the stores must be the same. Adds the
 * counts. */
static void same_with_workers(const char *buf, size_t len, size_t chunk, ks_parse_info *info)
{
    static const struct {
        int threads, own_scans, reader;
    } runs[] = {{1, 0, 2}, {2, 0, 2}, {4, 0, 2}, {2, -1, 2}, {2, 0, 3}, {4, 0, 3}};
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = chunk;
    o.reader_thread = -1;
    char *one = digest_parse(buf, len, &o);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        o.reader_thread = runs[r].reader; /* workers get their share of the chunks, always */
        o.threads = runs[r].threads;
        o.own_scans = runs[r].own_scans;
        o.info = info;
        char *two = digest_parse(buf, len, &o);
        if (strcmp(one, two)) {
            size_t line = digest_first_diff_line(one, two);
            fail_msg("chunk %zu threads %d own scans %d reader %d: renderings differ at line %zu", chunk,
                     runs[r].threads, runs[r].own_scans, runs[r].reader, line);
        }
        free(two);
    }
    free(one);
}

/* ks_set_thread_start: each worker thread calls the hook once, first; the reader thread does not
 * (it only reads); NULL removes it. */
static atomic_int hook_calls;

static void count_thread(void)
{
    atomic_fetch_add(&hook_calls, 1);
}

static void workers_call_the_thread_hook(void **state)
{
    (void)state;
    size_t len;
    char *t = make_trace(6000, 0, 0, &len);
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 4096;
    o.reader_thread = 2;
    ks_set_thread_start(count_thread);
    static const int threads[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
        atomic_store(&hook_calls, 0);
        o.threads = threads[i];
        free(digest_parse(t, len, &o));
        assert_int_equal(atomic_load(&hook_calls), threads[i] - 1);
    }
    ks_set_thread_start(NULL);
    atomic_store(&hook_calls, 0);
    free(digest_parse(t, len, &o));
    assert_int_equal(atomic_load(&hook_calls), 0);
    free(t);
}

/* Every copy of make_trace carries "bytes": 8 x its correlation id, also when a worker read it. */
static void check_copy_bytes(const char *buf, size_t len)
{
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 4096;
    o.reader_thread = 2;
    o.threads = 2;
    ks_trace *t = NULL;
    ks_error err;
    assert_int_equal(ks_parse_buffer("split", buf, len, &o, &t, &err), KS_OK);
    size_t copies = 0;
    for (uint32_t k = 0; k < t->ntracks; k++)
        for (uint32_t i = 0; i < t->tracks[k].n; i++) {
            const ks_event *e = &t->tracks[k].ev[i];
            int64_t bytes = -1;
            if (e->kind != KS_K_MEMCPY)
                continue;
            assert_true(ks_event_bytes(t, k, i, &bytes));
            assert_int_equal(bytes, 8 * ks_event_corr(t, e));
            copies++;
        }
    assert_true(copies > 100);
    ks_trace_free(t);
}

static void units_are_replayed(void **state)
{
    (void)state;
    static const size_t chunks[] = {700, 4096, 32768};
    for (int bare = 0; bare < 2; bare++) {
        size_t len;
        char *t = make_trace(6000, 0, bare, &len);
        ks_parse_info info = {0};
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
            same_with_workers(t, len, chunks[c], &info);
        assert_true(info.chunks > 0);
        /* most of the workers' share is replayed: the cuts of this trace are real boundaries; the
         * main parser scans most of the rest itself; the scanner left some runs to yajl (the
         * surrogate pairs) */
        assert_true(info.units_replayed * 4 > info.chunks);
        assert_true(info.units_own * 4 > info.chunks);
        /* with the held workers, the main parser scanned chunks of its own share ahead */
        assert_true(info.units_ahead > 0);
        assert_true(info.units_ahead <= info.units_own);
        assert_true(info.scans_refused > 0);
        assert_true(info.scans_refused * 4 < info.chunks);
        check_copy_bytes(t, len);
        free(t);
    }
}

/* The main parser scans ahead only while it waits for a worker, and only chunks of its own share
 * (never a worker's), only what it would scan itself: none without own scans, none when the
 * workers are never waited for (one chunk in two is the parser's: with 1 worker at most half). */
static void reads_ahead_only_while_waiting(void **state)
{
    (void)state;
    size_t len;
    char *t = make_trace(6000, 0, 0, &len);
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 2048;
    o.reader_thread = -1;
    char *one = digest_parse(t, len, &o);
    for (int own = 0; own >= -1; own--) {
        ks_parse_info info = {0};
        o.reader_thread = 3;
        o.threads = 2;
        o.own_scans = own;
        o.info = &info;
        char *two = digest_parse(t, len, &o);
        assert_string_equal(one, two);
        free(two);
        if (own < 0) {
            assert_int_equal(info.units_ahead, 0);
            assert_int_equal(info.units_own, 0);
        } else {
            assert_true(info.units_ahead > 0);
            assert_true(info.units_ahead * 2 <= info.chunks + 1);
            assert_true(info.units_replayed > 0); /* the worker's share still the worker's */
        }
    }
    free(one);
    free(t);
}

static void false_cuts_are_read_again(void **state)
{
    (void)state;
    size_t len;
    char *t = make_trace(6000, 1, 0, &len);
    ks_parse_info info = {0};
    same_with_workers(t, len, 4096, &info);
    same_with_workers(t, len, 1000, &info);
    assert_true(info.units_reread > 0);
    free(t);
}

/* The chunk that opens the events: the header before them goes to yajl, the events after it
 * through the fast scanner (the main parser's own unit, from the first event boundary after the
 * array's '['), not the whole chunk through yajl. A header with arrays of objects (their "}, {"
 * are not event boundaries), a nested "traceEvents" before the real one (the guess is refused:
 * yajl reads the chunk), a bare array; in one chunk (the counts tell which path was taken) and in
 * many. */
static void first_chunk_scanned_from_the_events(void **state)
{
    (void)state;
    static const struct {
        const char *head; /* NULL: a bare array */
        int scanned;
    } cases[] = {
        {"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}, {\"id\": 1}, {\"id\": 2}],\n"
         "\"traceEvents\" :\n", 1},
        {"{\"meta\": {\"traceEvents\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}]}, \"traceEvents\": ", 0},
        {NULL, 1},
    };
    size_t blen;
    char *body = make_trace(600, 0, 1, &blen); /* "[ ... ]\n" */
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ks_buf b = {0};
        if (cases[k].head)
            ks_buf_puts(&b, cases[k].head);
        ks_buf_put(&b, body, blen);
        if (cases[k].head)
            ks_buf_puts(&b, "}\n");
        ks_parse_opts o;
        ks_parse_opts_init(&o);
        o.reader_thread = -1;
        o.chunk_size = b.n + 1;
        char *one = digest_parse(b.p, b.n, &o);
        ks_parse_info info = {0};
        o.reader_thread = 2;
        o.threads = 1;
        o.info = &info;
        char *two = digest_parse(b.p, b.n, &o);
        assert_string_equal(one, two);
        assert_int_equal(info.chunks, 1);
        if (cases[k].scanned)
            assert_int_equal(info.units_own, 1);
        else
            assert_int_equal(info.units_own, 0);
        free(two);
        free(one);
        ks_parse_info many = {0};
        same_with_workers(b.p, b.n, 1000, &many);
        assert_true(many.units_own > 0);
        free(b.p);
    }
    free(body);
}

/* A trace with metadata and counter events among the others, which only the main parser reads
 * (commit.c): "ph" first, or after "name", "cat" and "ts" only (a worker's scan stops there and
 * the main parser reads the event, then scans on from the next one), after "pid" as a numeric
 * string (counted when read: the whole unit is the main parser's), after a key given twice, and a
 * run of metadata events at the end, as Kineto writes them. */
static char *make_meta_trace(int nevents, size_t *len)
{
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [\n");
    for (int i = 0; i < nevents; i++) {
        if (i % 7 == 3)
            ks_buf_printf(&b, "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 1, \"tid\": %d, "
                              "\"args\": {\"name\": \"worker %d\"}}", i % 5, i);
        else if (i % 11 == 4)
            ks_buf_printf(&b, "{\"ph\": \"C\", \"name\": \"queue %d\", \"cat\": \"c%d\", \"pid\": 1, \"tid\": 0, "
                              "\"ts\": %d, \"args\": {\"depth\": %d}}", i % 3, i % 4, 100 + i, i);
        else if (i % 13 == 5)
            ks_buf_printf(&b, "{\"cat\": \"m%d\", \"ts\": %d, \"name\": \"process_labels\", \"ph\": \"M\", "
                              "\"pid\": 1, \"args\": {\"labels\": \"CPU %d\"}}", i % 6, i, i);
        else if (i % 97 == 6)
            ks_buf_printf(&b, "{\"name\": \"process_name\", \"pid\": \"%d\", \"ph\": \"M\", \"args\": "
                              "{\"name\": \"proc\"}}", 1 + i % 2);
        else if (i % 89 == 7)
            ks_buf_printf(&b, "{\"name\": \"thread_sort_index\", \"name\": \"thread_sort_index\", \"ph\": \"M\", "
                              "\"pid\": 1, \"tid\": %d, \"args\": {\"sort_index\": %d}}", i % 5, i);
        else
            ks_buf_printf(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, "
                              "\"tid\": %d, \"ts\": %d, \"dur\": 1, \"args\": {\"External id\": %d}}",
                          i % 23, i % 5, 100 + i, i);
        ks_buf_puts(&b, ",\n");
    }
    for (int i = 0; i < 60; i++)
        ks_buf_printf(&b, "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 2, \"tid\": %d, "
                          "\"args\": {\"name\": \"late %d\"}},\n", i, i);
    ks_buf_puts(&b, "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 0, \"ts\": 9, \"dur\": 1}\n]}\n");
    *len = b.n;
    ks_buf_cstr(&b);
    return b.p;
}

/* The scans stop at each such event and go on after it: with own scans alone, a chunk is replayed
 * as several units (more than three a chunk here), and the store is the one yajl alone makes, with
 * workers too. */
static void scans_go_on_after_metadata(void **state)
{
    (void)state;
    size_t len;
    char *t = make_meta_trace(3000, &len);
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = 4096;
    o.reader_thread = -1;
    char *one = digest_parse(t, len, &o);
    ks_parse_info info = {0};
    o.reader_thread = 2;
    o.threads = 1;
    o.info = &info;
    char *two = digest_parse(t, len, &o);
    assert_string_equal(one, two);
    assert_true(info.chunks > 10);
    assert_true(info.units_own > 3 * info.chunks);
    free(two);
    ks_parse_info many = {0};
    same_with_workers(t, len, 4096, &many);
    same_with_workers(t, len, 700, &many);
    assert_true(many.units_replayed > 0);
    /* with held workers, the units scanned on after a cut in a worker's chunk are the main
     * parser's own, not units it scanned ahead: those are at most its share of the chunks */
    ks_parse_info held = {0};
    o.reader_thread = 3;
    o.threads = 2;
    o.info = &held;
    two = digest_parse(t, len, &o);
    assert_string_equal(one, two);
    free(two);
    assert_true(held.units_ahead * 2 <= held.chunks + 1);
    assert_true(held.units_own > held.chunks);
    free(one);
    free(t);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    return ks_test_rnd(&rng_state);
}

/* Damage (bytes overwritten, inserted, deleted; a cut) lands inside units: the worker's unit is
 * unclean or the main parser's state at the cut differs, and the result is still the same. */
static void damaged_units_read_the_same(void **state)
{
    (void)state;
    static const char pool[] = "\"\\,{}[]:\x01\xff\n x0-.e";
    size_t len;
    char *base = make_trace(3000, 0, 0, &len);
    ks_parse_info info = {0};
    for (int i = 0; i < 40; i++) {
        char *b = ks_xmalloc(len + 16);
        memcpy(b, base, len);
        size_t n = ks_test_damage(b, len, pool, 1 + (int)(rnd() % 4), &rng_state);
        if (i % 7 == 0)
            n = (size_t)(rnd() % n) + 1;
        same_with_workers(b, n, i % 2 ? 2048 : 8192, &info);
        free(b);
    }
    assert_true(info.units_replayed > 0);
    assert_true(info.units_reread > 0);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_are_cut_at_event_starts),
        cmocka_unit_test(units_are_replayed),
        cmocka_unit_test(reads_ahead_only_while_waiting),
        cmocka_unit_test(false_cuts_are_read_again),
        cmocka_unit_test(first_chunk_scanned_from_the_events),
        cmocka_unit_test(scans_go_on_after_metadata),
        cmocka_unit_test(damaged_units_read_the_same),
        cmocka_unit_test(workers_call_the_thread_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
