/* tests/report/test_gate_writers.c: the writers' escaping (XML for JUnit, Markdown for step
 * summaries) on hostile names, the JUnit mapping (regression = failure, inconclusive = skipped,
 * error = error) checked on the written text, the Markdown table, and output files written
 * whole then renamed (an aborted write leaves the old file as it was). ks_outfile is a layer over
 * common/afile.h, so it also gets afile's promises: the mode of a new file under the umask with
 * the umask left alone, and no temporary file left by a signal (named fallback, no O_TMPFILE). */
#include "tests/compare/gate_test.h"
#include "common/afile.h"
#include "report/report_int.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a writer wrote, as a string (free it). */
static char *capture_xml(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ks_xml_escape(f, s);
    fclose(f);
    return buf;
}

static char *capture_md(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ks_md_escape(f, s);
    fclose(f);
    return buf;
}

static void xml_escaping(void **state)
{
    (void)state;
    char *x = capture_xml("void k<float, 4>(int) & \"q\" 'a'");
    assert_string_equal(x, "void k&lt;float, 4&gt;(int) &amp; &quot;q&quot; &apos;a&apos;");
    free(x);
    x = capture_xml("tab\tlf\ncr\r bell\x07 esc\x1b");
    assert_string_equal(x, "tab&#9;lf&#10;cr&#13; bell\xEF\xBF\xBD esc\xEF\xBF\xBD");
    free(x);
    x = capture_xml("bad \xff\xfe utf8 \xC3\xA9");
    assert_non_null(strstr(x, "\xEF\xBF\xBD"));
    assert_non_null(strstr(x, "\xC3\xA9")); /* valid UTF-8 stays */
    assert_null(strstr(x, "\xff"));
    free(x);
}

static void markdown_escaping(void **state)
{
    (void)state;
    char *m = capture_md("a|b `c` *d* _e_ [f](g) <script>&amp; #h ~i \\j");
    assert_string_equal(m, "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\[f\\](g) &lt;script&gt;&amp;amp; \\#h \\~i \\\\j");
    free(m);
    m = capture_md("two\nlines\r\nand\x01");
    assert_string_equal(m, "two lines  and ");
    free(m);
}

/* A gate with one check of each outcome over three runs per side: step_time pass, a label with
 * a hostile name 30 % longer (regression), a label whose runs vary by 10 % (inconclusive), a
 * label on neither side (error). */
static void sample_gate(ks_gate *g, ks_profile *a, ks_profile *b)
{
    ks_rng r;
    ks_rng_seed(&r, 77);
    const char *bad = "void k<a&b>(int) | \"x\"";
    for (size_t k = 0; k < 3; k++) {
        gt_profile(&a[k], "base.json", &r, 30, 1, 0.01);
        gt_profile(&b[k], "cand.json", &r, 30, 1, 0.01);
        gt_series(&a[k], KS_METRIC_LABEL, bad, &r, 10e6, 0.01);
        gt_series(&b[k], KS_METRIC_LABEL, bad, &r, 13e6, 0.01);
        gt_series(&a[k], KS_METRIC_LABEL, "edge", &r, 10e6 * (1 + 0.1 * ks_rng_normal(&r)), 0.01);
        gt_series(&b[k], KS_METRIC_LABEL, "edge", &r, 10.3e6 * (1 + 0.1 * ks_rng_normal(&r)), 0.01);
    }
    ks_budget bud = {0};
    ks_error err;
    assert_int_equal(ks_budget_add(&bud, KS_METRIC_STEP_TIME, NULL, 0, 0, &err), KS_OK);
    assert_int_equal(ks_budget_add(&bud, KS_METRIC_LABEL, bad, 0, 0, &err), KS_OK);
    assert_int_equal(ks_budget_add(&bud, KS_METRIC_LABEL, "edge", 0, 0, &err), KS_OK);
    assert_int_equal(ks_budget_add(&bud, KS_METRIC_LABEL, "missing", 0, 0, &err), KS_OK);
    assert_int_equal(ks_gate_run(a, 3, b, 3, &bud, NULL, g, &err), KS_OK);
    ks_budget_free(&bud);
    assert_int_equal(g->n, 4);
    assert_int_equal(g->r[0].status, KS_GATE_PASS);
    assert_int_equal(g->r[1].status, KS_GATE_REGRESSION);
    assert_int_equal(g->r[2].status, KS_GATE_INCONCLUSIVE);
    assert_int_equal(g->r[3].status, KS_GATE_ERROR);
}

static void free3(ks_profile *a, ks_profile *b)
{
    for (size_t k = 0; k < 3; k++) {
        ks_profile_free(&a[k]);
        ks_profile_free(&b[k]);
    }
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void junit(void **state)
{
    (void)state;
    ks_profile a[3], b[3];
    ks_gate g;
    sample_gate(&g, a, b);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_int_equal(ks_gate_junit(f, &g), 0);
    fclose(f);
    assert_non_null(strstr(buf, "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""));
    assert_int_equal(count(buf, "<testcase "), 4);
    assert_int_equal(count(buf, "<failure "), 1);
    assert_int_equal(count(buf, "<skipped "), 1);
    assert_int_equal(count(buf, "<error "), 1);
    assert_non_null(strstr(buf, "name=\"label void k&lt;a&amp;b&gt;(int) | &quot;x&quot;\">\n      <failure "));
    assert_non_null(strstr(buf, "name=\"label missing\">\n      <error type=\"error\""));
    assert_non_null(strstr(buf, "name=\"step_time\">\n      <system-out>verdict: pass"));
    assert_null(strstr(buf, "k<a")); /* nothing unescaped */
    free(buf);

    /* a gate that never ran: one error test case */
    ks_gate e;
    memset(&e, 0, sizeof e);
    ks_gate_set_error(&e, "x.json: not a <trace>");
    buf = NULL;
    f = open_memstream(&buf, &n);
    assert_int_equal(ks_gate_junit(f, &e), 0);
    fclose(f);
    assert_non_null(strstr(buf, "tests=\"1\" failures=\"0\" errors=\"1\""));
    assert_non_null(strstr(buf, "name=\"gate inputs\">\n      <error type=\"input\" "
                                "message=\"x.json: not a &lt;trace&gt;\""));
    assert_int_equal(ks_gate_exit(&e, 1), 2);
    free(buf);
    ks_gate_free(&g);
    free3(a, b);
}

static void markdown(void **state)
{
    (void)state;
    ks_profile a[3], b[3];
    ks_gate g;
    sample_gate(&g, a, b);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_int_equal(ks_gate_markdown(f, &g, 1), 0);
    fclose(f);
    assert_non_null(strstr(buf, "### kinesift gate: error (exit 2): 1 error, 1 regression, 1 inconclusive, 1 pass\n"));
    assert_non_null(strstr(buf, "| label void k&lt;a&amp;b&gt;(int) \\| \"x\" | +5 % |"));
    assert_non_null(strstr(buf, "| **regression** |\n"));
    assert_non_null(strstr(buf, "<details>"));
    assert_null(strstr(buf, "k<a"));
    /* one row per check in the main table: rows start with "| " after the header */
    const char *table = strstr(buf, "|---|");
    assert_non_null(table);
    const char *details = strstr(buf, "<details>");
    size_t rows = 0;
    for (const char *p = table; p < details; p++)
        rows += p[0] == '\n' && p[1] == '|';
    assert_int_equal(rows, 4);
    free(buf);
    ks_gate_free(&g);
    free3(a, b);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = ks_xcalloc(4096, 1);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void output_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/ks_outfile_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = ks_xasprintf("%s/report.xml", dir);
    FILE *f = fopen(path, "w");
    fputs("old\n", f);
    fclose(f);
    ks_outfile *o;
    ks_error err;
    assert_int_equal(ks_outfile_open(&o, path, &err), KS_OK);
    fputs("new\n", ks_outfile_stream(o));
    char *before = slurp(path);
    assert_string_equal(before, "old\n"); /* nothing visible before the commit */
    free(before);
    ks_outfile_abort(o);
    char *after = slurp(path);
    assert_string_equal(after, "old\n");
    free(after);
    assert_int_equal(ks_outfile_open(&o, path, &err), KS_OK);
    fputs("new\n", ks_outfile_stream(o));
    assert_int_equal(ks_outfile_commit(o, &err), KS_OK);
    after = slurp(path);
    assert_string_equal(after, "new\n");
    free(after);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true((st.st_mode & 0444) != 0);
    /* the directory holds nothing else: no temporary left behind */
    char *cmd = ks_xasprintf("test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    assert_true(ks_same_file(path, path));
    char *other = ks_xasprintf("%s/../%s/report.xml", dir, strrchr(dir, '/') + 1);
    assert_true(ks_same_file(path, other));
    assert_false(ks_same_file(path, dir));
    assert_false(ks_same_file(path, "/nonexistent/x"));
    free(other);
    char *missing = ks_xasprintf("%s/no/such/dir/x.json", dir);
    assert_int_equal(ks_outfile_open(&o, missing, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "cannot create"));
    free(missing);
    unlink(path);
    rmdir(dir);
    free(path);
}

/* Files in dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* The committed file has the mode of any new file, 0666 less the umask (applied by the kernel),
 * and the umask is what it was: nothing toggles it. */
static void output_file_mode_follows_umask(void **state)
{
    (void)state;
    char dir[] = "/tmp/ks_outfile_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = ks_xasprintf("%s/report.json", dir);
    mode_t old = umask(027);
    ks_outfile *o;
    ks_error err;
    assert_int_equal(ks_outfile_open(&o, path, &err), KS_OK);
    fputs("{}\n", ks_outfile_stream(o));
    assert_int_equal(ks_outfile_commit(o, &err), KS_OK);
    mode_t now = umask(old);
    assert_int_equal(now, 027);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    unlink(path);
    rmdir(dir);
    free(path);
}

/* Without O_TMPFILE the temporary file has a name next to the target; a signal that kills the
 * writer removes it (the signal cleanup of afile.h walks ks_outfile's files too), and the target
 * keeps its old content. */
static void output_file_removed_on_signal(void **state)
{
    (void)state;
    char dir[] = "/tmp/ks_outfile_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = ks_xasprintf("%s/report.xml", dir);
    FILE *f = fopen(path, "w");
    fputs("old\n", f);
    fclose(f);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("KINESIFT_NO_O_TMPFILE", "1", 1);
        ks_afile_cleanup_on_signals();
        ks_outfile *o;
        ks_error err;
        if (ks_outfile_open(&o, path, &err) != KS_OK)
            _exit(3);
        fputs("new\n", ks_outfile_stream(o));
        fflush(ks_outfile_stream(o));
        char c = entries(dir) == 2 ? 'y' : 'n'; /* the target and the named temporary file */
        if (write(ready[1], &c, 1) != 1)
            _exit(4);
        pause(); /* killed here */
        _exit(5);
    }
    close(ready[1]);
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    assert_int_equal(c, 'y');
    kill(pid, SIGTERM);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(entries(dir), 1); /* only the target: the temporary file is gone */
    char *after = slurp(path);
    assert_string_equal(after, "old\n");
    free(after);
    unlink(path);
    rmdir(dir);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xml_escaping), cmocka_unit_test(markdown_escaping), cmocka_unit_test(junit),
        cmocka_unit_test(markdown),     cmocka_unit_test(output_files),
        cmocka_unit_test(output_file_mode_follows_umask), cmocka_unit_test(output_file_removed_on_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
