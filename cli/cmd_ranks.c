/* cli/cmd_ranks.c: `kinesift ranks TRACE...`: one trace per rank of a distributed job, read
 * concurrently (-j), each reduced to its ks_rank and freed, then matched across ranks. Archives
 * stand for their members (one job per member, so ranks inside one tar are read in parallel too).
 * Output does not depend on -j: results are kept in input order and sorted by rank. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/ranks.h"
#include "kinesift/source.h"

const char ks_help_ranks[] =
    "usage: kinesift ranks TRACE... [--format text|json|csv|markdown] [-j N] [--allow-mixed]\n"
    "                      [--allow-incomplete] [--straggler-pct P] [--no-align]\n"
    "                      [--align-tolerance DUR] [--step-label REGEX] [--strict] [--quiet]\n"
    "\n"
    "Cross-rank analysis of a distributed job: one trace per rank (files, directories searched\n"
    "recursively, tar/zip archives of ranks, or @LIST naming one path a line), or its summary\n"
    "(kinesift summarize, *.kss.json[.gz]), mixed freely: the report is the same either way. Each rank's rank comes\n"
    "from distributedInfo.rank, else its file name (rank-3, rank_3, rank3, _3.), else the input order;\n"
    "the report says which rule gave it. Two traces with the same rank, or world sizes that disagree,\n"
    "are an error (exit 2) naming both, unless --allow-mixed. Ranks of the job (distributedInfo\n"
    "world_size) with no trace are counted and listed.\n"
    "\n"
    "Per rank: active steps (count, median, p90), GPU busy share, compute (kernels that are not\n"
    "communication), communication, exposed communication (communication while no compute kernel runs\n"
    "on the device: unions), overlap share, host wait (GPU idle waiting for the host's next launch),\n"
    "kernels. Collectives are matched across ranks by step number (ProfilerStep#N), then by identity\n"
    "(process group, Seq, Collective name, message size), then by sequence alignment of each rank's\n"
    "calls, so that a rank that skipped a call is named (\"rank 2 never entered allreduce #3 of step\n"
    "5\") and its other calls still match. Clocks are aligned on the collectives' end times (an offset\n"
    "and a drift per rank; a slope beyond 1000 ppm is no clock's, and the rank keeps its offset alone),\n"
    "each rank's wait computed (last arrival - own arrival) and attributed to\n"
    "the last arrival: the straggler is the rank that made the others wait most, stated as a\n"
    "hypothesis with its evidence (its kernels and ops that take longer than on the median rank) and\n"
    "the next check. Also: the last collective each rank entered and the ranks that never arrived\n"
    "(the hang view), bandwidth by message size (algbw, busbw), a rank x collective duration matrix,\n"
    "and memory: each rank's peak allocated and reserved per device (exact bytes, from the [memory]\n"
    "events of profile_memory=True; not observed, with the reason, for a rank without them) and, per\n"
    "device kind, the max, the median, max/median and the device closest to its capacity.\n"
    "\n"
    "A rank whose trace is cut (the job was killed mid-write) is named with the byte where it ends;\n"
    "it is kept out of the straggler and of the calls after its end.\n"
    "\n"
    "  --format FMT            text (default), json (schema kinesift.ranks/3, docs/ranks.md), csv (one\n"
    "                          row per rank), markdown\n"
    "  -j, --jobs N            ranks read and analysed at once (default: the number of cores); each\n"
    "                          rank's events are freed once its figures are taken; same output for any N\n"
    "  --allow-mixed           accept duplicate ranks (renumbered by input order) and world sizes\n"
    "                          that disagree\n"
    "  --allow-incomplete      a cut or unreadable rank does not make the exit status 2 (it is still\n"
    "                          named in the report)\n"
    "  --straggler-pct P       name ranks whose median step or compute time is more than P% above\n"
    "                          the ranks' median, and evidence that is more than P% above it (default 5)\n"
    "  --no-align              do not estimate clock offsets (ranks share one clock)\n"
    "  --align-tolerance DUR   clock spread above which waits are flagged as untrusted (default 20us)\n"
    "  --step-label REGEX      steps are the user annotations matching REGEX (default ProfilerStep#N)\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no warnings on stderr\n"
    "\n"
    "An input that cannot be read (not a trace, empty, unreadable) does not stop the others: the\n"
    "ranks read are matched and reported, each failure is listed after them (JSON: \"errors\", with\n"
    "the rank its file name gives).\n"
    "\n"
    "Text fits the terminal ($COLUMNS, else its width, else 80 columns): tables aligned, a table\n"
    "too wide in blocks of columns, long names shortened in the middle, long lines wrapped.\n"
    "\n"
    "Exit status: 0 every rank read whole and the waits trusted; 2 usage or input error (duplicate\n"
    "ranks, or a rank cut or unreadable, unless --allow-incomplete); 3 the waits are not to be trusted\n"
    "(the clocks disagree beyond --align-tolerance, a rank could not be aligned, or no collective\n"
    "matched); the JSON says the same in \"verdict\".\n";

typedef struct job {
    char *path;
    long member;      /* -1: a plain file; else the index of the archive member */
    ks_rank r;
    int ok;
    char *error;      /* one line, when !ok */
} job;

typedef struct pool {
    job *v;
    size_t n, next;
    pthread_mutex_t mu;
    ks_parse_opts po;
    ks_rank_opts ro;
} pool;

static void job_fail(job *j, const char *name, const ks_error *err)
{
    if (err->has_pos)
        j->error = ks_xasprintf("%s: byte %llu (line %llu, column %llu): %s", name, (unsigned long long)err->byte,
                                (unsigned long long)err->line, (unsigned long long)err->column, err->msg);
    else
        j->error = ks_xasprintf("%s: %s", name, err->msg);
}

static void read_summary(job *j, ks_stream *st)
{
    ks_error err;
    if (ks_rank_summary_stream(st, &j->r, &err) != KS_OK)
        j->error = ks_xstrdup(err.msg);
    else {
        j->ok = 1;
    }
}

/* A worker's open archive: the member it returned last. Jobs are taken in input order, so a
 * worker's next member of the same archive lies after it: it reads on from there instead of
 * opening the archive again and reading up to the member (members x members headers and skips:
 * 4 000 tiny ranks in a zip took 138 s, the same as a directory 0.14 s); each worker reads an
 * archive's headers at most once. */
typedef struct cursor {
    const char *path;
    ks_source *src;
    long at;
} cursor;

static void cursor_close(cursor *c)
{
    ks_source_close(c->src);
    memset(c, 0, sizeof *c);
}

/* open the job's trace (or read on to its member), parse it, reduce it to its ks_rank and free
 * the events */
static void run_job(pool *p, job *j, cursor *c)
{
    ks_error err;
    if (j->error) /* could not even be listed (make_jobs) */
        return;
    if (j->member < 0 || c->path != j->path || c->at >= j->member)
        cursor_close(c);
    if (!c->src) {
        if (ks_source_open(j->path, &c->src, &err) != KS_OK) {
            c->src = NULL;
            job_fail(j, j->path, &err);
            return;
        }
        c->path = j->path;
        c->at = -1;
    }
    ks_stream *st = NULL;
    for (long k = c->at + 1; k <= (j->member < 0 ? 0 : j->member); k++) {
        int r = ks_source_next(c->src, &st, &err);
        if (r <= 0) {
            if (r == 0)
                ks_error_set(&err, "archive member %ld is gone", j->member);
            job_fail(j, j->path, &err);
            cursor_close(c);
            return;
        }
        c->at = k;
    }
    if (ks_rank_is_summary(ks_stream_name(st))) {
        read_summary(j, st);
    } else {
        ks_trace *tr;
        if (ks_parse_stream(st, &p->po, &tr, &err) != KS_OK)
            job_fail(j, ks_stream_name(st), &err);
        else {
            if (ks_rank_from_trace(tr, &p->ro, &j->r, &err) != KS_OK)
                job_fail(j, tr->source, &err);
            else
                j->ok = 1;
            ks_trace_free(tr);
        }
    }
    if (!j->ok || j->member < 0)
        cursor_close(c); /* a failed read may have left the archive unusable: open it again */
}

static void *worker(void *arg)
{
    pool *p = arg;
    cursor c = {0};
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            break;
        run_job(p, &p->v[i], &c);
    }
    cursor_close(&c);
    return NULL;
}

/* one job per plain file, one per member of an archive */
static int make_jobs(char **list, size_t n, job **out, size_t *nout)
{
    job *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(list[i], "-")) {
            ks_cli_fail("-: ranks reads files (it opens each rank on its own), not standard input");
            goto fail;
        }
        ks_source *src;
        ks_error err;
        long members = -1;
        int failed = ks_source_open(list[i], &src, &err) != KS_OK;
        if (!failed && ks_source_is_archive(src)) {
            ks_stream *st;
            int r;
            members = 0;
            while ((r = ks_source_next(src, &st, &err)) > 0)
                members++;
            failed = r < 0;
        }
        if (!failed || members >= 0)
            ks_source_close(src);
        if (failed) { /* the others are read; this one is listed (read_ranks) */
            KS_GROW(v, cap, nv + 1);
            memset(&v[nv], 0, sizeof v[nv]);
            v[nv].path = list[i];
            v[nv].member = -1;
            job_fail(&v[nv++], list[i], &err);
            continue;
        }
        for (long k = members < 0 ? -1 : 0; k < (members < 0 ? 0 : members); k++) {
            KS_GROW(v, cap, nv + 1);
            memset(&v[nv], 0, sizeof v[nv]);
            v[nv].path = list[i];
            v[nv++].member = k;
        }
    }
    *out = v;
    *nout = nv;
    return 0;
fail:
    free(v);
    return KS_EXIT_USAGE;
}

static int read_ranks(job *v, size_t n, int jobs, const ks_load_opts *lo, const ks_rank_opts *ro)
{
    pool p = {v, n, 0, PTHREAD_MUTEX_INITIALIZER, {0}, *ro};
    ks_parse_opts_init(&p.po);
    p.po.strict = lo->strict;
    p.po.threads = jobs > 1 ? 1 : 0; /* the ranks are the parallelism */
    if (jobs > 1) /* nor a reader thread per rank: j parsers already fill the cores (-7 % wall on
                   * 4 x 64 MB ranks, -j 2, bench/ranks.sh inputs) */
        p.po.reader_thread = -1;
    if ((size_t)jobs > n)
        jobs = (int)n;
    pthread_t *th = ks_xcalloc((size_t)jobs, sizeof *th);
    int started = 0;
    for (int i = 1; i < jobs; i++)
        if (pthread_create(&th[i], NULL, worker, &p) == 0)
            started = i;
        else
            break;
    worker(&p);
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&p.mu);
    /* every input that failed, each on its own line; the others go on */
    int failed = 0;
    for (size_t i = 0; i < n; i++)
        if (!v[i].ok) {
            ks_cli_fail("%s", v[i].error);
            failed = 1;
        }
    return failed;
}

static int default_jobs(void)
{
    int c = ks_cpus();
    return c > 64 ? 64 : c;
}

/* the options that take a checked value (the option table hands them here) */
typedef struct ranks_args {
    int jobs;
    ks_ranks_opts *mo;
} ranks_args;

static int ranks_opt(void *ctx, const char *cmd, int key, const char *arg)
{
    ranks_args *r = ctx;
    char *end;
    switch (key) {
    case 'j':
        r->jobs = (int)strtol(arg, &end, 10);
        if (end == arg || *end || r->jobs < 1 || r->jobs > 256)
            return ks_cli_usage(cmd, "-j wants a number of jobs from 1 to 256, not '%s'", arg);
        return 0;
    case 'p':
        r->mo->straggler_pct = strtod(arg, &end);
        if (end == arg || *end || !(r->mo->straggler_pct >= 0) || r->mo->straggler_pct > 1e6)
            return ks_cli_usage(cmd, "--straggler-pct wants a percentage >= 0, not '%s'", arg);
        return 0;
    case 'A': r->mo->align = 0; return 0;
    case 'T':
        if (ks_duration_parse(arg, &r->mo->align_tolerance) || r->mo->align_tolerance < 0)
            return ks_cli_usage(cmd, "--align-tolerance wants a duration such as 20us, not '%s'", arg);
        return 0;
    default: return ks_cli_usage(cmd, "bad option");
    }
}

int ks_cmd_ranks(int argc, char **argv)
{
    static const char *const formats[] = {[KS_FORMAT_TEXT] = "text", [KS_FORMAT_JSON] = "json", [KS_FORMAT_CSV] = "csv",
                                          [KS_FORMAT_MARKDOWN] = "markdown", NULL};
    int format = KS_FORMAT_TEXT, allow_mixed = 0, allow_incomplete = 0, first;
    ks_load_opts lo = {0};
    ks_rank_opts ro = {0};
    ks_ranks_opts mo;
    ks_ranks_opts_init(&mo);
    ranks_args ra = {default_jobs(), &mo};
    ks_option tab[] = {
        KS_OPT_CHOICE("format", 0, &format, formats, "format", "text, json, csv or markdown"),
        KS_OPT_CALL("jobs", 'j', ranks_opt, &ra, 'j', "ranks read at once"),
        KS_OPT_FLAG("allow-mixed", 0, &allow_mixed, "ranks of several jobs are not an error"),
        KS_OPT_FLAG("allow-incomplete", 0, &allow_incomplete, "a cut or unreadable rank does not fail the run"),
        KS_OPT_CALL("straggler-pct", 0, ranks_opt, &ra, 'p', "a straggler is this much slower"),
        KS_OPT_CALL_FLAG("no-align", 0, ranks_opt, &ra, 'A', "no clock offsets"),
        KS_OPT_CALL("align-tolerance", 0, ranks_opt, &ra, 'T', "spread above which waits are not trusted"),
        KS_OPT_STRING("step-label", 0, &ro.step_label, "steps are the annotations matching REGEX"),
        KS_OPT_FLAG("strict", 0, &lo.strict, "malformed input is an error"),
        KS_OPT_FLAG("quiet", 0, &lo.quiet, "no progress line"),
        KS_OPT_END(),
    };
    int prc = ks_opt_parse("ranks", tab, argc, argv, &first);
    if (prc)
        return prc == KS_OPT_LISTED ? 0 : prc;
    if (first < argc && ks_cli_outputs_not_inputs("ranks", argv + first, (size_t)(argc - first), NULL, 0))
        return KS_EXIT_USAGE;
    if (first >= argc)
        return ks_cli_usage("ranks", "no input file");
    int jobs = ra.jobs;
    char **list;
    size_t nlist;
    ks_error err;
    if (ks_inputs_expand(argv + first, (size_t)(argc - first), &list, &nlist, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    job *v = NULL;
    size_t n = 0, nok = 0, nbad = 0;
    int rc = make_jobs(list, nlist, &v, &n), failed = 0;
    if (!rc)
        failed = read_ranks(v, n, jobs, &lo, &ro);
    /* the ranks read, and the inputs that were not (listed by the report, exit 2) */
    ks_rank *rk = ks_xcalloc(n + 1, sizeof *rk);
    const char **bad_in = ks_xcalloc(n + 1, sizeof *bad_in), **bad_msg = ks_xcalloc(n + 1, sizeof *bad_msg);
    int64_t *bad_rank = ks_xcalloc(n + 1, sizeof *bad_rank);
    for (size_t i = 0; i < n; i++) {
        if (v[i].ok)
            rk[nok++] = v[i].r;
        else {
            ks_rank_free(&v[i].r);
            bad_in[nbad] = v[i].path;
            bad_rank[nbad] = ks_rank_from_name(v[i].path);
            bad_msg[nbad++] = v[i].error;
        }
    }
    if (!rc && failed && !nok) /* each failure has said so on its own line */
        rc = KS_EXIT_USAGE;
    n = nok;
    if (!rc && ks_ranks_identify(rk, n, allow_mixed, &err) != KS_OK) {
        ks_cli_fail("%s", err.msg);
        rc = KS_EXIT_USAGE;
    }
    if (!rc) {
        ks_ranks r;
        ks_ranks_match(rk, n, &mo, &r);
        r.error_input = bad_in;
        r.error_message = bad_msg;
        r.error_rank = bad_rank;
        r.nerrors = nbad;
        r.allow_incomplete = allow_incomplete;
        rc = ks_ranks_verdict(&r);
        ks_ranks_report(stdout, &r, format, ks_cli_text_width());
        if (!lo.quiet)
            for (size_t i = 0; i < n; i++)
                if (rk[i].truncated)
                    fprintf(stderr, "kinesift: rank %" PRId64 " (%s) is cut at byte %" PRIu64 "%s\n", rk[i].rank,
                            rk[i].source, rk[i].cut_byte,
                            allow_incomplete ? "" : ": exit status 2 (--allow-incomplete to accept it)");
        ks_ranks_free(&r);
    }
    for (size_t i = 0; i < n; i++)
        ks_rank_free(&rk[i]);
    for (size_t i = 0; i < nbad; i++)
        free((char *)bad_msg[i]);
    free(bad_in);
    free(bad_msg);
    free(bad_rank);
    free(rk);
    free(v);
    ks_inputs_free(list, nlist);
    return rc;
}
