/* tests/store/test_store.c: the store's building blocks: interned strings, diagnostics,
 * category classification (current and legacy spellings), ProfilerStep names, track lookup, ids
 * as text (ks_id_format against snprintf, which it replaces). */
#include "ks_test.h"

#include <math.h>

static void strings_are_interned_once(void **state)
{
    (void)state;
    ks_strtab *t = ks_strtab_new();
    ks_str a = ks_strtab_intern(t, "aten::mm", 8);
    ks_str b = ks_strtab_intern(t, "aten::mmX", 8); /* same 8 bytes */
    ks_str c = ks_strtab_intern(t, "aten::add", 9);
    assert_int_equal(a, b);
    assert_int_not_equal(a, c);
    assert_int_equal(ks_strtab_intern(t, "", 0), 0);
    assert_string_equal(ks_strtab_get(t, a), "aten::mm");
    assert_int_equal(ks_strtab_find(t, "aten::add", 9), c);
    assert_int_equal(ks_strtab_find(t, "nope", 4), 0);
    /* many strings force rehashing and new chunks; all stay retrievable */
    char buf[32];
    ks_str ids[5000];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "name-%d", i);
        ids[i] = ks_strtab_intern(t, buf, (size_t)n);
    }
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "name-%d", i);
        assert_string_equal(ks_strtab_get(t, ids[i]), buf);
    }
    char big[100000];
    memset(big, 'x', sizeof big);
    ks_str g = ks_strtab_intern(t, big, sizeof big);
    assert_int_equal(ks_strtab_len(t, g), sizeof big);
    assert_string_equal(ks_strtab_get(t, a), "aten::mm");
    ks_strtab_free(t);
}

/* ks_hash_lower(s) == ks_hash(ASCII-lowercase(s)) for every byte value at every place of the
 * 8-byte words and the tail (lengths 0..40); and the hash tells different strings apart. */
static void hash_lower_is_hash_of_lowercase(void **state)
{
    (void)state;
    unsigned char s[40], l[40];
    uint64_t x = 0x243f6a8885a308d3ULL;
    for (size_t n = 0; n <= sizeof s; n++)
        for (int round = 0; round < 64; round++) {
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                s[i] = (unsigned char)(round < 4 ? 'A' + (x % 26) : x);
                if (i == (size_t)round % (n ? n : 1))
                    s[i] = (unsigned char)(round * 4); /* every value 0..252 somewhere */
                l[i] = s[i] >= 'A' && s[i] <= 'Z' ? (unsigned char)(s[i] + 32) : s[i];
            }
            assert_true(ks_hash_lower(s, n) == ks_hash(l, n));
        }
    for (int c = 0; c < 256; c++) {
        unsigned char b = (unsigned char)c, lb = c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : b;
        assert_true(ks_hash_lower(&b, 1) == ks_hash(&lb, 1));
    }
    assert_true(ks_hash("abc", 3) != ks_hash("abd", 3));
    assert_true(ks_hash("abc", 3) != ks_hash("abc\0", 4));
    assert_true(ks_hash_lower("Hello.World", 11) == ks_hash("hello.world", 11));
}

static void diagnostics_count_and_keep_examples(void **state)
{
    (void)state;
    ks_diag d;
    ks_diag_init(&d);
    for (int i = 0; i < 8; i++)
        ks_diag_add_at(&d, "x.y", KS_SEV_WARNING, (uint64_t)i, 1, (uint64_t)i + 1, "example %d", i);
    ks_diag_count(&d, "x.y", KS_SEV_ERROR, 2);
    ks_diag_count(&d, "a.b", KS_SEV_INFO, 1);
    const ks_diag_kind *k = ks_diag_get(&d, "x.y");
    assert_int_equal(k->count, 10);
    assert_int_equal(k->nexamples, KS_DIAG_EXAMPLES);
    assert_int_equal(k->severity, KS_SEV_ERROR);
    assert_string_equal(k->ex[4].text, "example 4");
    assert_int_equal(ks_diag_total(&d, "a.b"), 1);
    assert_int_equal(ks_diag_total(&d, "none"), 0);
    assert_int_equal(ks_diag_max_severity(&d), KS_SEV_ERROR);
    ks_diag_free(&d);
}

/* The table of the library's kinds: sorted, found by id, severities as documented. */
static void diagnostics_table(void **state)
{
    (void)state;
    size_t n;
    const ks_diag_info *all = ks_diag_infos(&n);
    assert_true(n >= 30);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(all[i - 1].id, all[i].id) < 0);
    for (size_t i = 0; i < n; i++) {
        assert_ptr_equal(ks_diag_info_find(all[i].id), &all[i]);
        assert_true(all[i].doc && *all[i].doc);
    }
    assert_int_equal(ks_diag_info_find("parse.truncated")->severity, KS_SEV_ERROR);
    assert_int_equal(ks_diag_info_find("parse.bom")->severity, KS_SEV_INFO);
    assert_null(ks_diag_info_find("parse.nope"));
    assert_null(ks_diag_info_find(""));
}

/* Events read = the elements of traceEvents, whatever became of them: 2 X, an unknown phase,
 * {}, an event without "ph", a number (hand-counted: 6). */
static void events_read_counts_every_element(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\":["
                                "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},"
                                "{\"ph\":\"X\",\"name\":\"b\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1},"
                                "{\"ph\":\"Z\",\"name\":\"c\",\"ts\":1,\"pid\":1,\"tid\":1},"
                                "{},"
                                "{\"name\":\"d\",\"ts\":1},"
                                "5]}");
    assert_int_equal(ks_trace_events_read(t), 6);
    assert_int_equal(ks_diag_total(&t->diag, "parse.empty_event"), 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.missing_ph"), 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.non_object_event"), 1);
    ks_trace_free(t);
}

static ks_kind cls(const char *cat, const char *name)
{
    return ks_classify(cat, cat ? strlen(cat) : 0, name, name ? strlen(name) : 0);
}

static void categories_classify(void **state)
{
    (void)state;
    assert_int_equal(cls("cpu_op", NULL), KS_K_CPU_OP);
    assert_int_equal(cls("Operator", NULL), KS_K_CPU_OP);
    assert_int_equal(cls("user_annotation", NULL), KS_K_USER_ANNOTATION);
    assert_int_equal(cls("gpu_user_annotation", NULL), KS_K_GPU_ANNOTATION);
    assert_int_equal(cls("kernel", NULL), KS_K_KERNEL);
    assert_int_equal(cls("Kernel", NULL), KS_K_KERNEL);
    assert_int_equal(cls("Memcpy", NULL), KS_K_MEMCPY);
    assert_int_equal(cls("gpu_memset", NULL), KS_K_MEMSET);
    assert_int_equal(cls("cuda_runtime", NULL), KS_K_RUNTIME);
    assert_int_equal(cls("Runtime", NULL), KS_K_RUNTIME);
    assert_int_equal(cls("mtia_runtime", NULL), KS_K_RUNTIME);
    assert_int_equal(cls("privateuse1_driver", NULL), KS_K_DRIVER);
    assert_int_equal(cls("cuda_sync", NULL), KS_K_SYNC);
    assert_int_equal(cls("ac2g", NULL), KS_K_FLOW_LAUNCH);
    assert_int_equal(cls("async_cpu_to_gpu", NULL), KS_K_FLOW_LAUNCH);
    assert_int_equal(cls("async", NULL), KS_K_FLOW_LAUNCH);
    assert_int_equal(cls("forward_backward", NULL), KS_K_FLOW_FWDBWD);
    assert_int_equal(cls("Trace", NULL), KS_K_TRACE_SPAN);
    assert_int_equal(cls("foo, kernel", NULL), KS_K_KERNEL);
    assert_int_equal(cls("something_else", NULL), KS_K_OTHER);
    assert_int_equal(cls(NULL, "async_gpu"), KS_K_FLOW_LAUNCH);
    assert_true(ks_kind_is_gpu_work(KS_K_MEMSET));
    assert_false(ks_kind_is_gpu_work(KS_K_SYNC));
    assert_false(ks_kind_is_gpu_work(KS_K_GPU_ANNOTATION));
}

static void profiler_step_names(void **state)
{
    (void)state;
    int64_t n = -1;
    assert_true(ks_match_profiler_step("ProfilerStep#12", &n));
    assert_int_equal(n, 12);
    assert_true(ks_match_profiler_step("ProfilerStep # 3", &n));
    assert_int_equal(n, 3);
    assert_false(ks_match_profiler_step("ProfilerStep*", &n));
    assert_false(ks_match_profiler_step("MyProfilerStep#1", &n));
    assert_false(ks_match_profiler_step("ProfilerStep#", &n));
    /* the one rule (kinesift/store.h) at its edges: blanks around '#' only, digits to the end */
    assert_true(ks_match_profiler_step("ProfilerStep\t#\t7", &n));
    assert_int_equal(n, 7);
    assert_true(ks_match_profiler_step("ProfilerStep#007", &n));
    assert_int_equal(n, 7);
    assert_true(ks_match_profiler_step("ProfilerStep#99999999999999999999", &n));
    assert_int_equal(n, INT64_MAX);
    assert_true(ks_match_profiler_step("ProfilerStep#9223372036854775807", &n));
    assert_int_equal(n, INT64_MAX);
    assert_true(ks_match_profiler_step("ProfilerStep#9223372036854775806", &n));
    assert_int_equal(n, INT64_MAX - 1);
    assert_false(ks_match_profiler_step("ProfilerStep#12abc", &n));
    assert_false(ks_match_profiler_step("ProfilerStep#1 alice@example.com", &n));
    assert_false(ks_match_profiler_step("ProfilerStep#1 ", &n));
    assert_false(ks_match_profiler_step(" ProfilerStep#1", &n));
    assert_false(ks_match_profiler_step("ProfilerStep#-1", &n));
    assert_false(ks_match_profiler_step("ProfilerStep# ", &n));
    assert_false(ks_match_profiler_step("ProfilerStep 1", &n));
    assert_false(ks_match_profiler_step("profilerstep#1", &n));
    assert_false(ks_match_profiler_step("", &n));
    /* by length: a NUL inside ends nothing, the length does */
    assert_true(ks_match_profiler_step_n("ProfilerStep#12xyz", 15, &n));
    assert_int_equal(n, 12);
    assert_false(ks_match_profiler_step_n("ProfilerStep#1\0x", 16, NULL));
    assert_false(ks_match_profiler_step_n("ProfilerStep#", 13, NULL));
}

static void steps_and_span(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
        " {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":5},"
        " {\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":0,\"tid\":7,\"ts\":16,\"dur\":9},"
        " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":17,\"dur\":1}]");
    assert_int_equal(ks_trace_step_count(t), 2);
    ks_ns a, b;
    assert_true(ks_trace_span(t, &a, &b));
    assert_int_equal(a, 10000);
    assert_int_equal(b, 25000);
    uint32_t idx;
    ks_id p = {0, KS_ID_INT}, q = {7, KS_ID_INT}, r = {8, KS_ID_INT};
    assert_true(ks_trace_track_find(t, p, q, &idx));
    assert_int_equal(t->tracks[idx].kind, KS_TRACK_GPU);
    assert_false(ks_trace_track_find(t, p, r, &idx));
    ks_trace_free(t);
}


/* The span kept while appending equals a scan of every event: random tracks and times (negative
 * too, instants without a duration), the last event edited through the pointer append returned,
 * and events written into a track by hand. */
static void span_kept_while_appending_matches_a_scan(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int round = 0; round < 20; round++) {
        ks_trace *t = ks_trace_new("span");
        size_t nev = (size_t)round * 37;
        for (size_t i = 0; i < nev; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            ks_id pid = {(int64_t)(x >> 60), KS_ID_INT}, tid = {(int64_t)((x >> 50) & 3), KS_ID_INT};
            ks_event e;
            memset(&e, 0, sizeof e);
            e.ts = (ks_ns)((x >> 20) % 100000) - 50000;
            ks_event_set_dur(&e, (x & 1) ? (ks_ns)((x >> 8) % 5000) : KS_NO_DUR);
            e.ph = (x & 1) ? 'X' : 'i';
            ks_event *p = ks_trace_append(t, ks_trace_track(t, pid, tid), &e);
            if (i + 1 == nev && round % 2)
                p->ts -= 1000000; /* edited after the append: still counted */
        }
        if (round == 7) {
            /* a track whose first event is edited after its append, before the next one */
            ks_id pid = {99, KS_ID_INT};
            uint32_t tr = ks_trace_track(t, pid, pid);
            ks_event e;
            memset(&e, 0, sizeof e);
            ks_event_set_dur(&e, KS_NO_DUR);
            ks_trace_append(t, tr, &e)->ts = -7777777;
            e.ts = 5;
            ks_event_set_dur(&e, 99999999);
            ks_trace_append(t, tr, &e);
        }
        int any = 0;
        ks_ns a = 0, b = 0;
        for (size_t i = 0; i < t->ntracks; i++)
            for (size_t j = 0; j < t->tracks[i].n; j++) {
                const ks_event *e = &t->tracks[i].ev[j];
                if (!any || e->ts < a)
                    a = e->ts;
                if (!any || ks_event_end(e) > b)
                    b = ks_event_end(e);
                any = 1;
            }
        ks_ns f = 1, l = 1;
        assert_int_equal(ks_trace_span(t, &f, &l), any);
        if (any) {
            assert_int_equal(f, a);
            assert_int_equal(l, b);
        }
        ks_trace_finish(t);
        assert_int_equal(ks_trace_span(t, &f, &l), any);
        if (any) {
            assert_int_equal(f, a);
            assert_int_equal(l, b);
        }
        ks_trace_free(t);
    }
}

/* "bytes" lives beside the records: set on several tracks in an interleaved order (so the table
 * is out of key order before the trace is finished), on some events only, once set twice; read
 * back before and after ks_trace_finish, against a table kept here. */
static void bytes_beside_the_records(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("bytes");
    enum { TRACKS = 3, PER = 200 };
    int64_t want[TRACKS][PER];
    uint64_t x = 777;
    for (int i = 0; i < PER; i++)
        for (int k = TRACKS - 1; k >= 0; k--) { /* the last track first: keys arrive out of order */
            ks_id pid = {1, KS_ID_INT}, tid = {k, KS_ID_INT};
            uint32_t tr = ks_trace_track(t, pid, tid);
            ks_event e;
            memset(&e, 0, sizeof e);
            ks_event_set_dur(&e, 1);
            e.ph = 'X';
            ks_trace_append(t, tr, &e);
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            want[tr][i] = (x >> 40) % 3 ? (int64_t)(x >> 20) - (1 << 20) : -1;
            if (want[tr][i] >= 0 || want[tr][i] < -1) {
                ks_trace_set_bytes(t, tr, 5);
                ks_trace_set_bytes(t, tr, want[tr][i]); /* the last value stands */
            }
        }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < TRACKS; k++)
            for (uint32_t i = 0; i < PER; i++) {
                int64_t b = 12345;
                int has = ks_event_bytes(t, k, i, &b);
                assert_int_equal(has, want[k][i] != -1);
                assert_int_equal(b, has ? want[k][i] : 12345);
                assert_int_equal(has, !!(t->tracks[k].ev[i].flags & KS_EF_BYTES));
            }
        assert_false(ks_event_bytes(t, 0, PER, NULL)); /* past the track */
        assert_false(ks_event_bytes(t, TRACKS, 0, NULL));
        ks_trace_finish(t);
    }
    ks_trace_free(t);
}

/* Series are found or made by (track, name), in order of first use; samples and collectives are
 * appended as given. Compared with a table kept here by a plain search. */
static void series_counters_and_collectives(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("series");
    ks_str names[3] = {ks_strtab_intern(t->strings, "mem a", 5), ks_strtab_intern(t->strings, "mem b", 5),
                       ks_strtab_intern(t->strings, "c x", 3)};
    uint32_t track[4], ntrack = 0;
    ks_str name[4 * 3];
    uint32_t on[4 * 3];
    size_t n = 0;
    uint64_t x = 7;
    for (int i = 0; i < 4; i++) {
        ks_id pid = {1, KS_ID_INT}, tid = {i, KS_ID_INT};
        track[ntrack++] = ks_trace_track(t, pid, tid);
    }
    for (int i = 0; i < 500; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t tr = track[(x >> 33) % 4];
        ks_str nm = names[(x >> 40) % 3];
        size_t want = n;
        for (size_t j = 0; j < n; j++)
            if (on[j] == tr && name[j] == nm)
                want = j;
        if (want == n) {
            on[n] = tr;
            name[n++] = nm;
        }
        uint32_t s = ks_trace_series(t, tr, nm);
        assert_int_equal(s, want);
        ks_trace_add_counter(t, i, s, i * 0.5);
    }
    assert_int_equal(t->nseries, n);
    for (size_t j = 0; j < n; j++) {
        assert_int_equal(t->series[j].track, on[j]);
        assert_int_equal(t->series[j].name, name[j]);
    }
    assert_int_equal(t->ncounters, 500);
    for (int i = 0; i < 500; i++) {
        assert_int_equal(t->counters[i].ts, i);
        assert_true(t->counters[i].value == i * 0.5);
    }
    for (uint32_t i = 0; i < 100; i++) {
        ks_coll_info c;
        memset(&c, 0, sizeof c);
        c.track = track[i % 4];
        c.ev = 99 - i;
        c.seq = i;
        ks_trace_add_coll(t, &c);
    }
    ks_trace_finish(t); /* sorts the collectives by (track, ev) */
    assert_int_equal(t->ncolls, 100);
    for (size_t i = 1; i < t->ncolls; i++)
        assert_true(t->colls[i - 1].track < t->colls[i].track ||
                    (t->colls[i - 1].track == t->colls[i].track && t->colls[i - 1].ev < t->colls[i].ev));
    ks_trace_free(t);
}

/* Side records come in each track's event order, the tracks interleaved: the store sorts them by
 * (track, ev) in one pass, each record whole (the counting sort), past 1 MiB in arrays of huge
 * pages; records out of order within a track (the test above) take the merge sort. */
static void side_records_sorted_by_track(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("side");
    uint32_t tr[3];
    for (int i = 0; i < 3; i++)
        tr[i] = ks_trace_track(t, (ks_id){1, KS_ID_INT}, (ks_id){10 + i, KS_ID_INT});
    const uint32_t n = 60000; /* 1.2 MB of shape records */
    uint32_t next_ev[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        int k = (int)((i * 7 + i / 5) % 3); /* runs of one track, the tracks interleaved */
        ks_shape_info si = {tr[k], next_ev[k], i + 1, i + 2, i + 3};
        next_ev[k] += 1 + i % 2;
        ks_trace_add_shape(t, &si);
        ks_launch_args la;
        memset(&la, 0, sizeof la);
        la.has = KS_LAUNCH_REGS;
        la.registers = (int32_t)i; /* all distinct: as many args as records */
        ks_trace_add_launch(t, si.track, si.ev, &la);
    }
    ks_trace_finish(t);
    assert_int_equal(t->nshapes, n);
    assert_int_equal(t->nlaunches, n);
    for (size_t i = 1; i < n; i++) {
        const ks_shape_info *a = &t->shapes[i - 1], *b = &t->shapes[i];
        assert_true(a->track < b->track || (a->track == b->track && a->ev < b->ev));
        assert_int_equal(b->types, b->dims + 1); /* whole records moved */
        assert_int_equal(b->concrete, b->dims + 2);
        assert_int_equal(t->launches[i].track, b->track);
        assert_int_equal(t->launches[i].ev, b->ev);
        assert_int_equal(t->launch_args[t->launches[i].args].registers, (int32_t)b->dims - 1);
    }
    /* each record found by its event */
    for (uint32_t i = 0; i < n; i += 997) {
        const ks_shape_info *si = &t->shapes[i];
        assert_ptr_equal(ks_trace_shape(t, si->track, si->ev), si);
    }
    ks_trace_free(t);
}

/* The launch args of kernels launched alike are kept once: a record is its event and the index of
 * its args (12 bytes; the args beside each event were 96, 36 MB for the 378 000 kernels of the
 * dense 1 GiB shape), and args that differ in any bit stay apart (0.0 and -0.0, a has bit). */
_Static_assert(sizeof(ks_launch_info) == 12, "a launch record is its event and an index of its args");

static void launch_args_shared(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("launch");
    uint32_t tr = ks_trace_track(t, (ks_id){0, KS_ID_INT}, (ks_id){7, KS_ID_INT});
    ks_launch_args a;
    memset(&a, 0, sizeof a);
    a.has = KS_LAUNCH_REGS | KS_LAUNCH_OCC | KS_LAUNCH_GRID;
    a.registers = 64;
    a.occupancy_pct = 0.0;
    a.grid[0] = 132;
    ks_launch_args b, c = a, d = a;
    memset(&b, 0xff, sizeof b); /* a's fields, other bytes between them: the same args */
    b.has = a.has;
    b.registers = a.registers;
    b.shared_mem = a.shared_mem;
    b.blocks_per_sm = a.blocks_per_sm;
    b.warps_per_sm = a.warps_per_sm;
    b.occupancy_pct = a.occupancy_pct;
    memcpy(b.grid, a.grid, sizeof b.grid);
    memcpy(b.block, a.block, sizeof b.block);
    c.occupancy_pct = -0.0;   /* equal as numbers, not as bits */
    d.has |= KS_LAUNCH_BLOCK; /* the same figures, one more recorded */
    const ks_launch_args *four[4] = {&a, &b, &c, &d};
    for (uint32_t i = 0; i < 1000; i++)
        ks_trace_add_launch(t, tr, i, four[i % 4]);
    ks_trace_finish(t);
    assert_int_equal(t->nlaunches, 1000);
    assert_int_equal(t->nlaunch_args, 3); /* a and b one entry; c and d their own */
    for (uint32_t i = 0; i < 1000; i++) {
        const ks_launch_args *l = ks_trace_launch(t, tr, i);
        assert_non_null(l);
        assert_int_equal(l->registers, 64);
        assert_int_equal(l->grid[0], 132);
        assert_int_equal(l->has, i % 4 == 3 ? a.has | KS_LAUNCH_BLOCK : a.has);
        assert_int_equal(signbit(l->occupancy_pct) != 0, i % 4 == 2);
        assert_ptr_equal(l, ks_trace_launch(t, tr, i % 4)); /* shared, not copied */
    }
    assert_null(ks_trace_launch(t, tr, 1000));
    ks_trace_free(t);
}

/* A track is its public record (plain data, small: a trace may have a million of them) and its
 * pid is its process's. */
static void track_is_plain_data(void **state)
{
    (void)state;
    assert_true(sizeof(ks_track) <= 64);
    ks_trace *t = ks_trace_new("pid");
    ks_id p1 = {5, KS_ID_INT}, p2 = {-3, KS_ID_INT}, tid = {1, KS_ID_INT};
    uint32_t a = ks_trace_track(t, p1, tid), b = ks_trace_track(t, p2, tid);
    assert_int_not_equal(a, b);
    assert_true(ks_id_equal(ks_track_pid(t, &t->tracks[a]), p1));
    assert_true(ks_id_equal(ks_track_pid(t, &t->tracks[b]), p2));
    uint32_t found;
    assert_true(ks_trace_track_find(t, p2, tid, &found));
    assert_int_equal(found, b);
    ks_trace_free(t);
}

/* ks_track_next walks the tracks of one kind in index order, each once, and stops after the
 * last; a trace without tracks has none. */
static void track_next_walks_one_kind(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("walk");
    size_t k = 0;
    assert_null(ks_track_next(t, KS_TRACK_CPU, &k));
    const int kinds[] = {KS_TRACK_GPU, KS_TRACK_CPU, KS_TRACK_OTHER, KS_TRACK_CPU, KS_TRACK_GPU};
    for (int i = 0; i < 5; i++) {
        ks_id pid = {1, KS_ID_INT}, tid = {i + 1, KS_ID_INT};
        uint32_t x = ks_trace_track(t, pid, tid);
        assert_int_equal(x, (uint32_t)i);
    }
    for (int i = 0; i < 5; i++)
        t->tracks[i].kind = kinds[i];
    size_t want_cpu[] = {1, 3}, want_gpu[] = {0, 4}, got = 0;
    const ks_track *tr;
    for (k = 0; (tr = ks_track_next(t, KS_TRACK_CPU, &k)); k++) {
        assert_true(got < 2);
        assert_int_equal(k, want_cpu[got++]);
        assert_ptr_equal(tr, &t->tracks[k]);
    }
    assert_int_equal(got, 2);
    got = 0;
    for (k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        assert_true(got < 2);
        assert_int_equal(k, want_gpu[got++]);
    }
    assert_int_equal(got, 2);
    assert_int_equal(k, 5); /* the walk ends past the last track */
    ks_trace_free(t);
}

/* ks_id_format writes what snprintf with "%lld", "%llu" or "%s" wrote, cut the same way, for
 * every kind of id and every buffer size up to past the text */
static void ids_format_as_snprintf(void **state)
{
    (void)state;
    ks_strtab *t = ks_strtab_new();
    const char *texts[] = {"", "7", "rank 3 (worker)", "a string id longer than the buffers of the tests, "
                                                       "well past sixty-four bytes, cut where snprintf cuts"};
    ks_id ids[64];
    size_t n = 0;
    const int64_t ints[] = {0, 1, -1, 9, 10, -10, 123456789, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN,
                            INT64_MIN + 1, -999999999999999999};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        ids[n++] = (ks_id){ints[i], KS_ID_INT};
        ids[n++] = (ks_id){ints[i], KS_ID_UINT}; /* the same bits as unsigned: UINT64_MAX from -1 */
    }
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        ks_str s = ks_strtab_intern(t, texts[i], strlen(texts[i]));
        ids[n++] = (ks_id){(int64_t)s, KS_ID_STR};
        ids[n++] = (ks_id){(int64_t)s, KS_ID_NUM};
    }
    ids[n++] = (ks_id){0, KS_ID_NONE};
    ids[n++] = (ks_id){5, 250}; /* no such type */
    for (size_t i = 0; i < n; i++) {
        char want[128];
        const ks_id id = ids[i];
        switch (id.type) {
        case KS_ID_NONE: snprintf(want, sizeof want, "-"); break;
        case KS_ID_INT: snprintf(want, sizeof want, "%lld", (long long)id.v); break;
        case KS_ID_UINT: snprintf(want, sizeof want, "%llu", (unsigned long long)(uint64_t)id.v); break;
        case KS_ID_STR:
        case KS_ID_NUM: snprintf(want, sizeof want, "%s", ks_strtab_get(t, (ks_str)id.v)); break;
        default: snprintf(want, sizeof want, "?"); break;
        }
        for (size_t size = 0; size <= strlen(want) + 2 && size <= sizeof want; size++) {
            char got[128], cut[128];
            memset(got, 'x', sizeof got);
            ks_id_format(t, id, got, size);
            if (!size) {
                assert_int_equal(got[0], 'x'); /* nothing written */
                continue;
            }
            snprintf(cut, size, "%s", want);
            assert_string_equal(got, cut);
            assert_int_equal(got[size - 1 < strlen(want) ? size - 1 : strlen(want)], 0);
        }
    }
    ks_strtab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_format_as_snprintf),
        cmocka_unit_test(strings_are_interned_once),
        cmocka_unit_test(diagnostics_count_and_keep_examples),
        cmocka_unit_test(categories_classify),
        cmocka_unit_test(hash_lower_is_hash_of_lowercase),
        cmocka_unit_test(diagnostics_table),
        cmocka_unit_test(events_read_counts_every_element),
        cmocka_unit_test(profiler_step_names),
        cmocka_unit_test(steps_and_span),
        cmocka_unit_test(span_kept_while_appending_matches_a_scan),
        cmocka_unit_test(bytes_beside_the_records),
        cmocka_unit_test(series_counters_and_collectives),
        cmocka_unit_test(side_records_sorted_by_track), cmocka_unit_test(launch_args_shared),
        cmocka_unit_test(track_is_plain_data),
        cmocka_unit_test(track_next_walks_one_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
