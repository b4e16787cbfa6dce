/* tests/redact/test_threads.c: the thread contract of the library (kinesift/common.h): two
 * parses and two redactions run at once on two threads, on different objects, give exactly what
 * they give one after the other. The concurrent round runs first, in a fresh process, so the
 * lazily built tables (pthread_once) are built under contention; it is repeated to give races
 * more chances; the sequential round afterwards is the reference. Each thread redacts a real
 * trace and a synthetic one whose values are longer than the pseudonymiser's cache takes (the
 * shared slot, which once raced) and full of paths, hosts and e-mails, and parses a
 * real trace (the parse's own reader and worker threads run too). Run under ASan/UBSan by the
 * sanitizer build. */
#include <pthread.h>

#include "parser/trace_digest.h"
#include "redact/rd_test.h"

#define ROUNDS 3

typedef struct job {
    const char *redact_path; /* a real trace to redact */
    const char *parse_path;  /* a real trace to parse */
    char *synthetic;         /* a JSON text to redact */
    char *out_file, *out_text, *digest; /* results, malloc'ed */
    char err[512];
} job;

static int buf_write(void *ctx, const void *p, size_t n)
{
    ks_buf_put((ks_buf *)ctx, p, n);
    return 0;
}

static ks_redactor *new_redactor(void)
{
    ks_redact_opts o;
    ks_redact_opts_init(&o);
    o.key = rd_test_key;
    o.key_len = sizeof rd_test_key;
    ks_redactor *rd = NULL;
    ks_error err;
    return ks_redactor_new(&o, &rd, &err) == KS_OK ? rd : NULL;
}

static char *redact_stream(ks_redactor *rd, ks_source *src, ks_error *err)
{
    ks_stream *st;
    if (ks_source_next(src, &st, err) != 1)
        return NULL;
    ks_buf b = {0};
    ks_redact_result res;
    if (ks_redact_stream(rd, st, buf_write, &b, &res, err) != KS_OK) {
        ks_buf_free(&b);
        return NULL;
    }
    ks_buf_cstr(&b);
    return b.p;
}

/* Every result of one job, or its first error in j->err (cmocka may not fail off the main
 * thread). */
static void *run_job(void *arg)
{
    job *j = arg;
    ks_error err = {0};
    ks_redactor *rd = new_redactor();
    ks_source *src = NULL;
    if (!rd) {
        snprintf(j->err, sizeof j->err, "ks_redactor_new failed");
        return NULL;
    }
    if (ks_source_open(j->redact_path, &src, &err) == KS_OK) {
        j->out_file = redact_stream(rd, src, &err);
        ks_source_close(src);
    }
    if (j->out_file &&
        ks_source_open_memory("synthetic", j->synthetic, strlen(j->synthetic), &src, &err) == KS_OK) {
        j->out_text = redact_stream(rd, src, &err);
        ks_source_close(src);
    }
    ks_redactor_free(rd);
    ks_trace *t = NULL;
    if (j->out_text && ks_source_open(j->parse_path, &src, &err) == KS_OK) {
        ks_stream *st;
        if (ks_source_next(src, &st, &err) == 1 && ks_parse_stream(st, NULL, &t, &err) == KS_OK) {
            ks_buf b = {0};
            digest_trace(&b, t);
            ks_buf_cstr(&b);
            j->digest = b.p;
            ks_trace_free(t);
        }
        ks_source_close(src);
    }
    if (!j->digest)
        snprintf(j->err, sizeof j->err, "%s", err.msg[0] ? err.msg : "failed");
    return NULL;
}

static void job_clear(job *j)
{
    free(j->out_file);
    free(j->out_text);
    free(j->digest);
    j->out_file = j->out_text = j->digest = NULL;
}

/* Events whose string values are long (past the pseudonymiser's cache limit) and full of what
 * the scanners replace; seed makes the two threads' texts differ. */
static char *synthetic_trace(int seed)
{
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\":[");
    for (int i = 0; i < 200; i++) {
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"name\":\"op%d\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":%d,"
                          "\"args\":{\"where\":\"",
                      i ? "," : "", i, i * 10, seed);
        for (int k = 0; k < 12; k++)
            ks_buf_printf(&b, "/home/user%d_%d/project/file%d.py host%d-%d.corp.example.com "
                              "someone%d@example.org ",
                          seed, i % 7, k, seed, k, i % 5);
        ks_buf_puts(&b, "\"}}");
    }
    ks_buf_puts(&b, "]}");
    ks_buf_cstr(&b);
    return b.p;
}

static void concurrent_equals_sequential(void **state)
{
    (void)state;
    char r0[4096], r1[4096], p0[4096], p1[4096];
    snprintf(r0, sizeof r0, "%s", ks_fixture("real/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"));
    snprintf(r1, sizeof r1, "%s", ks_fixture("real/hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz"));
    snprintf(p0, sizeof p0, "%s", ks_fixture("real/hta/trace_compare/base/base.json.gz"));
    snprintf(p1, sizeof p1, "%s", ks_fixture("real/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"));
    job par[ROUNDS][2], seq[2] = {{r0, p0, synthetic_trace(1), NULL, NULL, NULL, ""},
                                  {r1, p1, synthetic_trace(2), NULL, NULL, NULL, ""}};
    /* concurrent first: the lazy tables are built while both threads want them */
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t tid[2];
        for (int i = 0; i < 2; i++) {
            par[r][i] = seq[i];
            assert_int_equal(pthread_create(&tid[i], NULL, run_job, &par[r][i]), 0);
        }
        for (int i = 0; i < 2; i++)
            pthread_join(tid[i], NULL);
    }
    for (int i = 0; i < 2; i++) {
        run_job(&seq[i]);
        if (!seq[i].digest)
            fail_msg("sequential job %d: %s", i, seq[i].err);
        /* the synthetic text was rewritten: the check compares real work */
        assert_string_not_equal(seq[i].out_text, seq[i].synthetic);
    }
    assert_string_not_equal(seq[0].out_text, seq[1].out_text);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < 2; i++) {
            job *j = &par[r][i];
            if (!j->digest)
                fail_msg("concurrent job %d round %d: %s", i, r, j->err);
            assert_string_equal(j->out_file, seq[i].out_file);
            assert_string_equal(j->out_text, seq[i].out_text);
            assert_string_equal(j->digest, seq[i].digest);
            job_clear(j);
        }
    for (int i = 0; i < 2; i++) {
        job_clear(&seq[i]);
        free(seq[i].synthetic);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_equals_sequential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
