/* tests/parser/test_parse.c: the trace reader (parse.c) on small hand-written traces, one edge
 * case of docs/trace-format.md section 8 per test. */
#include "ks_test.h"

static const ks_event *only_event(const ks_trace *t)
{
    size_t n = 0;
    const ks_event *e = NULL;
    for (size_t i = 0; i < t->ntracks; i++)
        for (size_t j = 0; j < t->tracks[i].n; j++) {
            e = &t->tracks[i].ev[j];
            n++;
        }
    assert_int_equal(n, 1);
    return e;
}

static const char *ename(const ks_trace *t, const ks_event *e)
{
    return ks_trace_str(t, e->name);
}

static void object_container_and_metadata(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100\", "
        "\"totalGlobalMem\": 85000000000, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        " \"with_stack\": 1, \"host_name\": \"node7\", \"displayTimeUnit\": \"ms\",\n"
        " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8, \"pg_config\": [{\"x\": 1}]},\n"
        " \"traceEvents\": [\n"
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 10, \"tid\": 11, \"ts\": 100.5, \"dur\": 2.25,\n"
        "   \"args\": {\"External id\": 7, \"Input Dims\": [[2, 3], [3, 4]]}}\n"
        " ],\n"
        " \"baseTimeNanoseconds\": 1700000000000000000, \"traceName\": \"/tmp/x.json\"}");
    assert_int_equal(t->container, '{');
    assert_false(t->truncated);
    assert_string_equal(ks_trace_str(t, t->meta.schema_version), "1");
    assert_int_equal(t->meta.ndevices, 1);
    assert_string_equal(ks_trace_str(t, t->meta.devices[0].name), "NVIDIA H100");
    assert_int_equal(t->meta.devices[0].total_global_mem, 85000000000LL);
    assert_int_equal(t->meta.devices[0].num_sms, 132);
    assert_true(t->meta.has_rank);
    assert_int_equal(t->meta.rank, 3);
    assert_int_equal(t->meta.world_size, 8);
    assert_string_equal(ks_trace_str(t, t->meta.backend), "nccl");
    assert_true(t->meta.has_base_time); /* arrives after traceEvents */
    assert_int_equal(t->meta.base_time_ns, 1700000000000000000LL);
    assert_string_equal(ks_trace_str(t, t->meta.trace_name), "/tmp/x.json");
    assert_string_equal(ks_trace_str(t, t->meta.display_time_unit), "ms");
    assert_non_null(ks_meta_find(t, "with_stack"));
    assert_string_equal(ks_trace_str(t, ks_meta_find(t, "host_name")->value), "node7");
    const ks_event *e = only_event(t);
    assert_int_equal(e->ts, 100500);
    assert_int_equal(ks_event_dur(e), 2250);
    assert_int_equal(e->kind, KS_K_CPU_OP);
    assert_true(e->flags & KS_EF_EXT);
    assert_int_equal(ks_event_ext(t, e), 7);
    assert_string_equal(ename(t, e), "aten::mm");
    assert_string_equal(ks_trace_cat_name(t, e->cat), "cpu_op");
    ks_trace_free(t);
}

static void bare_array_without_closing_bracket(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
                                " {\"ph\":\"i\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2},\n");
    assert_int_equal(t->container, '[');
    assert_int_equal(t->events, 2);
    assert_false(t->truncated);
    assert_int_equal(ks_diag_total(&t->diag, "parse.array_unclosed"), 1);
    ks_trace_free(t);
}

static void truncated_object_keeps_complete_events(void **state)
{
    (void)state;
    const char *json = "{\"traceEvents\": [\n"
                       "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                       "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"du";
    ks_trace *t = ks_test_parse(json);
    assert_true(t->truncated);
    assert_int_equal(t->events, 1);
    assert_string_equal(ename(t, &t->tracks[0].ev[0]), "a");
    /* the committed part ends right after the first event's '}' */
    assert_int_equal(t->truncated_at, strchr(json + 18, '}') - json + 1);
    const ks_diag_kind *k = ks_diag_get(&t->diag, "parse.truncated");
    assert_non_null(k);
    assert_int_equal(k->severity, KS_SEV_ERROR);
    assert_int_equal(k->ex[0].byte, strlen(json));
    assert_int_equal(k->ex[0].line, 3);
    ks_trace_free(t);

    ks_error err = ks_test_parse_error(json, 1);
    assert_true(err.has_pos);
    assert_non_null(strstr(err.msg, "truncated"));
}

static void truncated_after_events(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\": [{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5}], \"traceName\": \"/ho");
    assert_true(t->truncated);
    assert_int_equal(t->events, 1);
    ks_trace_free(t);
}

static void trailing_commas_and_empty_events(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\": [{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5,}, {}, ], \"x\": 1,}");
    assert_int_equal(t->events, 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.trailing_comma"), 3);
    assert_int_equal(ks_diag_total(&t->diag, "parse.empty_event"), 1);
    ks_trace_free(t);
}

static void byte_order_mark(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("\xef\xbb\xbf[{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5}]");
    assert_int_equal(t->events, 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.bom"), 1);
    ks_trace_free(t);
}

static void malformed_strings_are_repaired(void **state)
{
    (void)state;
    const char *json = "[{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f(\"x\")\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                       " {\"ph\":\"X\",\"name\":\"C:\\Users\\me\\__init__.py\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},\n"
                       " {\"ph\":\"X\",\"name\":\"two\nlines\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},\n"
                       " {\"ph\":\"X\",\"name\":\"bad\xff\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1}]";
    ks_trace *t = ks_test_parse(json);
    const ks_track *k = ks_test_track(t, 1, 1);
    assert_int_equal(k->n, 4);
    assert_string_equal(ename(t, &k->ev[0]), "f(\"x\")");
    assert_string_equal(ename(t, &k->ev[1]), "C:\\Users\\me\\__init__.py");
    assert_string_equal(ename(t, &k->ev[2]), "two\nlines");
    assert_string_equal(ename(t, &k->ev[3]), "bad\xef\xbf\xbd");
    assert_int_equal(ks_diag_total(&t->diag, "parse.repaired_unescaped_quote"), 2);
    assert_int_equal(ks_diag_total(&t->diag, "parse.repaired_invalid_escape"), 3);
    assert_int_equal(ks_diag_total(&t->diag, "parse.repaired_control_character"), 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.repaired_invalid_utf8"), 1);
    /* positions: the first unescaped quote is on line 1 */
    const ks_diag_kind *q = ks_diag_get(&t->diag, "parse.repaired_unescaped_quote");
    assert_int_equal(q->ex[0].byte, strstr(json, "(\"x") - json + 1);
    assert_int_equal(q->ex[0].line, 1);
    assert_int_equal(q->ex[0].column, q->ex[0].byte + 1);
    /* the control character is on line 3 */
    const ks_diag_kind *c = ks_diag_get(&t->diag, "parse.repaired_control_character");
    assert_int_equal(c->ex[0].line, 3);
    ks_trace_free(t);

    ks_error err = ks_test_parse_error(json, 1);
    assert_true(err.has_pos);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.byte, strstr(json, "(\"x") - json + 1);
}

static void timestamps_in_every_form(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1669329643132548,\"dur\":3},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":\"1695835535123.456\",\"dur\":\"0.5\"},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1.5e3,\"dur\":0},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":4,\"ts\":102.95699890136719,\"dur\":1},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":-3,\"dur\":1}]");
    assert_int_equal(ks_test_track(t, 1, 1)->ev[0].ts, 1669329643132548000LL);
    assert_int_equal(ks_event_dur(&ks_test_track(t, 1, 1)->ev[0]), 3000);
    assert_int_equal(ks_test_track(t, 1, 2)->ev[0].ts, 1695835535123456LL);
    assert_int_equal(ks_event_dur(&ks_test_track(t, 1, 2)->ev[0]), 500);
    assert_int_equal(ks_test_track(t, 1, 3)->ev[0].ts, 1500000);
    assert_int_equal(ks_event_dur(&ks_test_track(t, 1, 3)->ev[0]), 0);
    const ks_event *r = &ks_test_track(t, 1, 4)->ev[0];
    assert_int_equal(r->ts, 102957);
    assert_true(r->flags & KS_EF_TS_INEXACT);
    const ks_event *n = &ks_test_track(t, 1, 5)->ev[0];
    assert_int_equal(n->ts, -3000);
    assert_true(n->flags & KS_EF_NEG_TS);
    assert_int_equal(ks_diag_total(&t->diag, "parse.ts_rounded"), 1);
    ks_trace_free(t);
}

static void bad_durations_and_timestamps_are_counted(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-2},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1e30,\"dur\":1},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":1},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":\"N/A\",\"dur\":1},"
        " {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"blocks per SM\":\"inf\",\"Comms Id\":18446744073709551616,\"External id\":\"N/A\"}}]");
    assert_int_equal(t->events, 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.x_without_dur"), 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.negative_dur"), 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.bad_ts"), 2);
    assert_int_equal(ks_diag_total(&t->diag, "parse.missing_ts"), 1);
    assert_string_equal(ks_trace_str(t, t->procs[0].name), "python");
    const ks_event *e = &t->tracks[0].ev[0];
    assert_false(e->flags & KS_EF_EXT); /* "N/A" is not an id */
    ks_trace_free(t);
}

/* A duration keeps 48 bits of ns (kinesift/store.h): exact up to KS_EVENT_MAX_DUR (78 hours) across
 * the 32-bit split, one ns more is skipped and counted like a "dur" past the int64 range. */
static void durations_up_to_78_hours_are_exact(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":4294967.295},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":4294967.296},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":281470681743.359},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":281470681743.360},"
        " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":0},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":6}]");
    const ks_track *k = ks_test_track(t, 1, 1);
    assert_int_equal(k->n, 5);
    assert_int_equal(ks_event_dur(&k->ev[0]), 4294967295LL);
    assert_int_equal(ks_event_dur(&k->ev[1]), 4294967296LL);
    assert_int_equal(ks_event_dur(&k->ev[2]), KS_EVENT_MAX_DUR);
    assert_int_equal(KS_EVENT_MAX_DUR, 281470681743359LL);
    assert_int_equal(ks_event_end(&k->ev[2]), 3000 + KS_EVENT_MAX_DUR);
    assert_int_equal(ks_event_dur(&k->ev[3]), 0);
    assert_true(ks_event_has_dur(&k->ev[3]));
    assert_int_equal(ks_event_dur(&k->ev[4]), KS_NO_DUR);
    assert_false(ks_event_has_dur(&k->ev[4]));
    assert_int_equal(ks_event_end(&k->ev[4]), 6000);
    assert_int_equal(ks_diag_total(&t->diag, "parse.bad_dur"), 1);
    ks_trace_free(t);
    /* the setter refuses what the record cannot hold and leaves the event as it was */
    ks_event e;
    memset(&e, 0, sizeof e);
    assert_true(ks_event_set_dur(&e, KS_EVENT_MAX_DUR));
    assert_false(ks_event_set_dur(&e, KS_EVENT_MAX_DUR + 1));
    assert_false(ks_event_set_dur(&e, -1));
    assert_int_equal(ks_event_dur(&e), KS_EVENT_MAX_DUR);
    assert_true(ks_event_set_dur(&e, KS_NO_DUR));
    assert_int_equal(ks_event_dur(&e), KS_NO_DUR);
}

static void typed_pids_and_tids(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"i\",\"pid\":1,\"tid\":7,\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":2,\"tid\":7,\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":\"1\",\"tid\":7,\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":-1,\"tid\":0,\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":\"\",\"tid\":\"\",\"ts\":1},"
        " {\"ph\":\"i\",\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":18446744073709551615,\"tid\":1.5,\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":\"stream 7\",\"ts\":1},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":7,\"ts\":2},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":\"7\",\"ts\":3},"
        " {\"ph\":\"i\",\"pid\":1,\"tid\":\"07\",\"ts\":3}]");
    assert_int_equal(t->ntracks, 9);
    /* "1" and "7" are the numbers 1 and 7 (canonical decimal strings); "07" is not */
    assert_int_equal(ks_test_track(t, 1, 7)->n, 4);
    assert_int_equal(ks_diag_total(&t->diag, "parse.numeric_string_id"), 2);
    assert_int_equal(ks_test_track(t, 2, 7)->n, 1);
    assert_int_equal(ks_test_track(t, -1, 0)->n, 1);
    int seen_none = 0, seen_uint = 0, seen_num = 0, seen_str = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        seen_none |= ks_track_pid(t, k).type == KS_ID_NONE && k->tid.type == KS_ID_NONE;
        seen_uint |= ks_track_pid(t, k).type == KS_ID_UINT && (uint64_t)ks_track_pid(t, k).v == UINT64_MAX;
        seen_num |= k->tid.type == KS_ID_NUM && !strcmp(ks_trace_str(t, (ks_str)k->tid.v), "1.5");
        seen_str |= ks_track_pid(t, k).type == KS_ID_STR && !strcmp(ks_trace_str(t, (ks_str)ks_track_pid(t, k).v), "Spans");
    }
    assert_true(seen_none && seen_uint && seen_num && seen_str);
    ks_trace_free(t);
}

static void every_phase_is_counted(void **state)
{
    (void)state;
    const char *phases = "XBEiIRCbnestfSTpFMPNODVvc()=";
    ks_buf b = {0};
    ks_buf_puts(&b, "[");
    for (const char *p = phases; *p; p++)
        ks_buf_printf(&b, "%s{\"ph\":\"%c\",\"name\":\"n\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"id\":1,\"args\":{\"v\":1}}",
                      p == phases ? "" : ",", *p);
    ks_buf_puts(&b, ",{\"ph\":\"XX\",\"pid\":1,\"tid\":1,\"ts\":1}]");
    ks_trace *t = ks_test_parse(ks_buf_cstr(&b));
    for (const char *p = phases; *p; p++)
        assert_int_equal(t->by_phase[(unsigned char)*p], 1);
    assert_int_equal(t->phase_other, 1);
    /* slices, instants, async and flows are stored; counters become samples; M names; the rest
     * is counted as ignored */
    assert_int_equal(t->events, 16);
    assert_int_equal(t->ncounters, 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.ignored_phase"), 10 + 1);
    ks_buf_free(&b);
    ks_trace_free(t);
}

static void flows_and_gpu_args(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":1,\"tid\":1,\"ts\":10},"
        " {\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"bp\":\"e\",\"pid\":0,\"tid\":7,\"ts\":20},"
        " {\"ph\":\"s\",\"cat\":\"async\",\"name\":\"launch\",\"id\":\"0x1f\",\"pid\":1,\"tid\":1,\"ts\":11},"
        " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,"
        "  \"args\":{\"device\":0,\"stream\":7,\"correlation\":42,\"External id\":9}},"
        " {\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5,"
        "  \"args\":{\"device\":0,\"stream\":7,\"correlation\":43,\"bytes\":4096,\"memory bandwidth (GB/s)\":\"N/A\"}},"
        " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":50,\"args\":{\"finished\":false}},"
        " {\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
        " {\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        " {\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":7,\"args\":{\"sort_index\":7}}]");
    const ks_track *cpu = ks_test_track(t, 1, 1);
    const ks_track *gpu = ks_test_track(t, 0, 7);
    assert_int_equal(cpu->kind, KS_TRACK_CPU);
    assert_int_equal(gpu->kind, KS_TRACK_GPU);
    assert_int_equal(gpu->device, 0);
    assert_int_equal(gpu->stream, 7);
    assert_string_equal(ks_trace_str(t, gpu->name), "stream 7 ");
    assert_true(gpu->has_sort_index);
    assert_int_equal(gpu->sort_index, 7);
    assert_string_equal(ks_trace_str(t, t->procs[gpu->process].labels), "GPU 0");
    assert_int_equal(cpu->ev[0].kind, KS_K_FLOW_LAUNCH);
    assert_int_equal(ks_event_corr(t, &cpu->ev[0]), 42);
    assert_int_equal(cpu->ev[1].kind, KS_K_FLOW_LAUNCH); /* legacy async/launch */
    assert_int_equal(ks_event_corr(t, &cpu->ev[1]), 0x1f);
    assert_true(cpu->ev[1].flags & KS_EF_FLOW_STRID);
    assert_true(cpu->ev[2].flags & KS_EF_UNFINISHED);
    assert_true(gpu->ev[0].flags & KS_EF_BP_E);
    const ks_event *k = &gpu->ev[1];
    assert_int_equal(k->kind, KS_K_KERNEL);
    assert_int_equal(ks_event_corr(t, k), 42);
    assert_int_equal(ks_event_ext(t, k), 9);
    assert_true((k->flags & KS_EF_STREAM) && (k->flags & KS_EF_DEVICE)); /* the track's stream and device */
    const ks_event *m = &gpu->ev[2];
    assert_int_equal(m->kind, KS_K_MEMCPY);
    assert_true(m->flags & KS_EF_BYTES);
    int64_t bytes = 0;
    assert_true(ks_event_bytes(t, (uint32_t)(gpu - t->tracks), 2, &bytes));
    assert_int_equal(bytes, 4096);
    assert_false(ks_event_bytes(t, (uint32_t)(gpu - t->tracks), 1, &bytes)); /* a kernel: none */
    ks_trace_free(t);
}

/* Ids are exact whatever their size: those that fit 32 bits stay in the record, the others (past
 * 2^31 either way, a flow id hashed from a string) in the trace's wide ids (kinesift/store.h). */
static void ids_past_32_bits_read_back_exactly(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
        "  \"args\":{\"External id\":2147483647}},"
        " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
        "  \"args\":{\"External id\":2147483648}},"
        " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,"
        "  \"args\":{\"External id\":-2147483648}},"
        " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
        "  \"args\":{\"External id\":-2147483649}},"
        " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1,"
        "  \"args\":{\"device\":0,\"stream\":7,\"correlation\":4294967295,\"External id\":9223372036854775807}},"
        " {\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":-9223372036854775808,\"pid\":1,\"tid\":1,\"ts\":6},"
        " {\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":\"0x123456789\",\"pid\":1,\"tid\":1,\"ts\":7}]");
    const ks_track *cpu = ks_test_track(t, 1, 1);
    const ks_track *gpu = ks_test_track(t, 0, 7);
    static const int64_t ext[] = {2147483647, 2147483648LL, -2147483647LL - 1, -2147483649LL};
    for (size_t i = 0; i < 4; i++) {
        assert_true(cpu->ev[i].flags & KS_EF_EXT);
        assert_int_equal(ks_event_ext(t, &cpu->ev[i]), ext[i]);
        assert_int_equal(!!(cpu->ev[i].flags & KS_EF_EXT_WIDE), i % 2);
    }
    const ks_event *k = &gpu->ev[0];
    assert_int_equal(ks_event_corr(t, k), 4294967295LL);
    assert_int_equal(ks_event_ext(t, k), INT64_MAX);
    assert_true((k->flags & KS_EF_EXT_WIDE) && (k->flags & KS_EF_CORR_WIDE));
    assert_int_equal(ks_event_corr(t, &cpu->ev[4]), INT64_MIN);
    assert_true(cpu->ev[5].flags & KS_EF_FLOW_STRID);
    assert_int_equal(ks_event_corr(t, &cpu->ev[5]), 0x123456789LL);
    assert_int_equal(t->nwide_ids, 6); /* b, d, the kernel's two, both flows */
    ks_trace_free(t);
}

static void counters_become_series(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":0,\"ts\":1,\"args\":{\"used\":10,\"free\":2.5}},"
        " {\"args\":{\"used\":11},\"name\":\"mem\",\"pid\":1,\"tid\":0,\"ts\":2,\"ph\":\"C\"}]");
    assert_int_equal(t->nseries, 2);
    assert_int_equal(t->ncounters, 3);
    assert_string_equal(ks_trace_str(t, t->series[t->counters[0].series].name), "mem used");
    assert_true(t->counters[1].value == 2.5);
    assert_true(t->counters[2].value == 11.0);
    assert_int_equal(t->counters[2].series, t->counters[0].series);
    ks_trace_free(t);
}

static void syntax_error_skips_one_event(void **state)
{
    (void)state;
    const char *json = "{\"traceEvents\": [\n"
                       "  {\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
                       "  {\"ph\": \"X\", name: \"broken\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1},\n"
                       "  {\"ph\": \"X\", \"name\": \"c\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1}\n"
                       "], \"traceName\": \"t\"}";
    ks_trace *t = ks_test_parse(json);
    const ks_track *k = ks_test_track(t, 1, 1);
    assert_int_equal(k->n, 2);
    assert_string_equal(ename(t, &k->ev[0]), "a");
    assert_string_equal(ename(t, &k->ev[1]), "c");
    assert_string_equal(ks_trace_str(t, t->meta.trace_name), "t");
    assert_false(t->truncated);
    const ks_diag_kind *d = ks_diag_get(&t->diag, "parse.skipped_event");
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_int_equal(d->ex[0].line, 3);
    ks_trace_free(t);

    ks_error err = ks_test_parse_error(json, 1);
    assert_true(err.has_pos);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.byte, strstr(json, "name: ") - json + 1); /* the literal "null" expected: the 'a' */
}

/* Lexical errors name the offending byte, whatever the read size: positions worked by hand
 * (byte 0-based, line and column 1-based). */
static void lexical_error_positions(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        uint64_t byte, line, column;
    } cases[] = {
        /* an invalid character: the unquoted key's 'x' */
        {"[{\"ph\":\"i\",x:1}]", 11, 1, 12},
        /* a misspelt literal: the 'x' of "trux"; line 2 starts at byte 17 */
        {"{\"traceEvents\":[\n{\"ts\":trux}]}", 26, 2, 10},
        /* a '-' without digits (yajl steps back to the 'x' itself); line 3 starts at byte 3 */
        {"[\n\n {\"ts\":-x}]", 11, 3, 9},
        /* no digit after the decimal point: the 'e' */
        {"[{\"ph\":\"X\",\"ts\":1.e}]", 18, 1, 19},
        /* an invalid character after a line break: the '@' */
        {"[{\"ph\":\"X\",\"ts\":\n @}]", 18, 2, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t chunk = 1; chunk <= 64; chunk *= 2) {
            ks_error err;
            memset(&err, 0, sizeof err);
            ks_trace *t = NULL;
            ks_parse_opts o;
            ks_parse_opts_init(&o);
            o.strict = 1;
            o.chunk_size = chunk;
            o.reader_thread = -1;
            assert_int_equal(ks_parse_buffer("test", cases[i].json, strlen(cases[i].json), &o, &t, &err),
                             KS_ERR);
            assert_true(err.has_pos);
            assert_int_equal(err.byte, cases[i].byte);
            assert_int_equal(err.line, cases[i].line);
            assert_int_equal(err.column, cases[i].column);
        }
    }
}

static void metadata_error_resyncs_on_trace_events(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"junk\": [1, 2 3], \"traceEvents\": [{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5}]}");
    assert_int_equal(t->events, 1);
    assert_int_equal(ks_diag_total(&t->diag, "parse.skipped_metadata"), 1);
    ks_trace_free(t);
}

static void not_a_trace(void **state)
{
    (void)state;
    ks_error e = ks_test_parse_error("\"just a string\"", 0);
    assert_non_null(strstr(e.msg, "not a trace"));
    e = ks_test_parse_error("   \n ", 0);
    assert_non_null(strstr(e.msg, "no JSON"));
    e = ks_test_parse_error("{\"name\": \"package\", \"version\": 1}", 0);
    assert_non_null(strstr(e.msg, "traceEvents"));
    e = ks_test_parse_error("PK\x03\x04garbage", 0);
    assert_true(strlen(e.msg) > 0);
}

/* Binary zeros (/dev/zero, a zero-filled file) are named as such, with the byte: a leading run by
 * the source, one after blanks or inside the events by the parser. */
static void nul_bytes_named(void **state)
{
    (void)state;
    static const char zeros[4096];
    ks_trace *t = NULL;
    ks_error err;
    assert_int_equal(ks_parse_buffer("z", zeros, sizeof zeros, NULL, &t, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "NUL bytes"));
    static const char lead[] = "  \0[]";
    assert_int_equal(ks_parse_buffer("z", lead, sizeof lead - 1, NULL, &t, &err), KS_ERR);
    assert_string_equal(err.msg, "not JSON: NUL byte at byte 2");
    static const char tail[] = "[{\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1},\0]";
    assert_int_equal(ks_parse_buffer("z", tail, sizeof tail - 1, NULL, &t, &err), KS_OK);
    const ks_diag_kind *k = ks_diag_get(&t->diag, "parse.skipped_event");
    assert_non_null(k);
    assert_non_null(strstr(k->ex[0].text, "NUL byte at byte 35"));
    ks_trace_free(t);
}

/* Top-level keys and metadata given twice: the last value is used, each duplicate counted. */
static void duplicate_top_level_keys_counted(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"host\": \"a\", \"host\": \"b\", \"traceName\": \"x\", \"traceName\": \"y\",\n"
                                " \"traceEvents\": [{\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1}]}");
    assert_int_equal(ks_diag_total(&t->diag, "parse.duplicate_key"), 2);
    assert_string_equal(ks_trace_str(t, t->meta.trace_name), "y");
    assert_int_equal(t->meta.nentries, 1);
    assert_string_equal(ks_trace_str(t, t->meta.entries[0].value), "b");
    ks_trace_free(t);
}

static void duplicate_keys_last_wins(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("[{\"ph\":\"X\",\"name\":\"first\",\"name\":\"second\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"dur\":4}]");
    const ks_event *e = only_event(t);
    assert_string_equal(ename(t, e), "second");
    assert_int_equal(ks_event_dur(e), 4000);
    assert_int_equal(ks_diag_total(&t->diag, "parse.duplicate_key"), 2); /* counted, not silent */
    ks_trace_free(t);
}

/* The same text parsed in chunks of every small size gives the same trace. */
static void chunk_boundaries_do_not_matter(void **state)
{
    (void)state;
    const char *json = "\xef\xbb\xbf{\"schemaVersion\": 1, \"traceEvents\": [\n"
                       "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\"b\xc3\xa9\xff\", \"pid\": 1, \"tid\": 1, \"ts\": 1.5, \"dur\": 10},\n"
                       "  {\"ph\": \"X\", \"name\": \"C:\\x\\y\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1,},\n"
                       "  {\"ph\": \"X\", nope, \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1},\n"
                       "  {\"ph\": \"i\", \"name\": \"tab\there\", \"pid\": 1, \"tid\": 1, \"ts\": 4},\n"
                       "], \"baseTimeNanoseconds\": 5}";
    ks_trace *ref = ks_test_parse(json);
    assert_int_equal(ref->events, 3);
    for (size_t chunk = 1; chunk <= 40; chunk++) {
        ks_parse_opts o;
        ks_parse_opts_init(&o);
        o.chunk_size = chunk;
        ks_trace *t;
        ks_error err;
        assert_int_equal(ks_parse_buffer("chunked", json, strlen(json), &o, &t, &err), KS_OK);
        assert_int_equal(t->events, ref->events);
        assert_int_equal(t->meta.base_time_ns, 5);
        const ks_track *a = ks_test_track(t, 1, 1), *b = ks_test_track(ref, 1, 1);
        for (size_t i = 0; i < a->n; i++) {
            assert_string_equal(ename(t, &a->ev[i]), ename(ref, &b->ev[i]));
            assert_int_equal(a->ev[i].ts, b->ev[i].ts);
        }
        assert_int_equal(t->diag.n, ref->diag.n);
        for (size_t i = 0; i < t->diag.n; i++) {
            const ks_diag_kind *k = ks_diag_get(&ref->diag, t->diag.kinds[i].id);
            assert_non_null(k);
            assert_int_equal(k->count, t->diag.kinds[i].count);
            if (k->nexamples && k->ex[0].has_pos) {
                assert_int_equal(k->ex[0].byte, t->diag.kinds[i].ex[0].byte);
                assert_int_equal(k->ex[0].line, t->diag.kinds[i].ex[0].line);
                assert_int_equal(k->ex[0].column, t->diag.kinds[i].ex[0].column);
            }
        }
        ks_trace_free(t);
    }
    ks_trace_free(ref);
}

/* [memory] instants keep their allocator args exactly (ks_mem_info); a counter whose series is
 * named like one stays a counter; another event's "Device Id" is not an allocator event. */
static void memory_events_keep_their_args(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"traceEvents\": [\n"
        "  {\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2,"
        "   \"ts\": 10, \"args\": {\"Total Reserved\": 9223372036854775807, \"Total Allocated\": 91505152,"
        "   \"Bytes\": -144384, \"Addr\": 18446744073709551615, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": 4}},\n"
        "  {\"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Bytes\": 4}, \"ph\": \"i\", \"s\": \"t\","
        "   \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, \"ts\": 11},\n"
        "  {\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, \"ts\": 12,"
        "   \"args\": {\"Total Allocated\": 1.5, \"Total Reserved\": \"7\", \"Device Type\": 99999999999}},\n"
        "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"tid\": 2, \"ts\": 13, \"args\": {\"Total Allocated\": 5}},\n"
        "  {\"args\": {\"Total Reserved\": 6}, \"name\": \"mem\", \"pid\": 1, \"tid\": 2, \"ts\": 14, \"ph\": \"C\"},\n"
        "  {\"ph\": \"X\", \"name\": \"op\", \"pid\": 1, \"tid\": 2, \"ts\": 15, \"dur\": 1, \"args\": {\"Device Id\": 3}}\n"
        "]}");
    assert_int_equal(t->nmems, 3);
    const ks_mem_info *m = &t->mems[0];
    assert_int_equal(m->ev, 0);
    assert_int_equal(m->has, KS_MEM_BYTES | KS_MEM_ALLOCATED | KS_MEM_RESERVED | KS_MEM_ADDR | KS_MEM_TYPE | KS_MEM_ID);
    assert_int_equal(m->allocated, 91505152);
    assert_int_equal(m->reserved, INT64_MAX);
    assert_int_equal(m->bytes, -144384);
    assert_int_equal((uint64_t)m->addr, UINT64_MAX);
    assert_int_equal(m->device_type, 1);
    assert_int_equal(m->device_id, 0);
    m = &t->mems[1];
    assert_int_equal(m->ev, 1);
    assert_int_equal(m->has, KS_MEM_BYTES | KS_MEM_TYPE | KS_MEM_ID);
    assert_int_equal(m->bytes, 4);
    assert_int_equal(m->device_type, 0);
    assert_int_equal(m->device_id, -1);
    m = &t->mems[2];
    assert_int_equal(m->ev, 2);
    assert_int_equal(m->has, KS_MEM_RESERVED); /* 1.5 is no byte count; "7" is the number 7 */
    assert_int_equal(m->reserved, 7);
    assert_int_equal(t->nseries, 2);
    assert_int_equal(t->ncounters, 2);
    assert_true(t->counters[0].value == 5.0);
    assert_true(t->counters[1].value == 6.0);
    ks_trace_free(t);
}

/* The recorded waits of cuda_sync events keep wait_on_stream and the cudaEventRecord's
 * correlation exactly (ks_sync_info), -1 (unknown) included; a non-integer is left out; an event
 * without them has none. */
static void recorded_waits_keep_their_args(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"traceEvents\": [\n"
        "  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Event Sync\", \"pid\": 0, \"tid\": -1, \"ts\": 10,"
        "   \"dur\": 3, \"args\": {\"cuda_sync_kind\": \"Event Sync\", \"wait_on_stream\": 7,"
        "   \"wait_on_cuda_event_record_corr_id\": 4294967301, \"stream\": -1, \"correlation\": 9}},\n"
        "  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, \"tid\": 7, \"ts\": 11,"
        "   \"dur\": 1, \"args\": {\"stream\": 7, \"correlation\": 10}},\n"
        "  {\"args\": {\"wait_on_cuda_event_record_corr_id\": -1, \"wait_on_stream\": \"x\", \"stream\": 24},"
        "   \"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, \"tid\": 24,"
        "   \"ts\": 12, \"dur\": 2}\n"
        "]}");
    assert_int_equal(t->nsyncs, 2);
    const ks_sync_info *w = ks_trace_sync(t, t->syncs[0].track, 0);
    assert_non_null(w);
    assert_int_equal(w->has, KS_SYNC_STREAM | KS_SYNC_RECORD);
    assert_int_equal(w->wait_stream, 7);
    assert_int_equal(w->record_corr, 4294967301LL);
    w = &t->syncs[1];
    assert_int_equal(w->has, KS_SYNC_RECORD);
    assert_int_equal(w->record_corr, -1);
    assert_ptr_equal(ks_trace_sync(t, w->track, w->ev), w);
    assert_null(ks_trace_sync(t, w->track, w->ev + 1));
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(object_container_and_metadata),
        cmocka_unit_test(bare_array_without_closing_bracket),
        cmocka_unit_test(truncated_object_keeps_complete_events),
        cmocka_unit_test(truncated_after_events),
        cmocka_unit_test(trailing_commas_and_empty_events),
        cmocka_unit_test(byte_order_mark),
        cmocka_unit_test(malformed_strings_are_repaired),
        cmocka_unit_test(timestamps_in_every_form),
        cmocka_unit_test(bad_durations_and_timestamps_are_counted),
        cmocka_unit_test(durations_up_to_78_hours_are_exact),
        cmocka_unit_test(typed_pids_and_tids),
        cmocka_unit_test(every_phase_is_counted),
        cmocka_unit_test(flows_and_gpu_args),
        cmocka_unit_test(ids_past_32_bits_read_back_exactly),
        cmocka_unit_test(counters_become_series),
        cmocka_unit_test(memory_events_keep_their_args),
        cmocka_unit_test(recorded_waits_keep_their_args),
        cmocka_unit_test(syntax_error_skips_one_event),
        cmocka_unit_test(metadata_error_resyncs_on_trace_events),
        cmocka_unit_test(not_a_trace),
        cmocka_unit_test(duplicate_keys_last_wins),
        cmocka_unit_test(nul_bytes_named),
        cmocka_unit_test(duplicate_top_level_keys_counted),
        cmocka_unit_test(lexical_error_positions),
        cmocka_unit_test(chunk_boundaries_do_not_matter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
