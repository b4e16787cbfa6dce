/* validate/extcmd.c: the external-command mode of `validate` (`--baseline-cmd/--candidate-cmd`).
 * Each command is run through /bin/sh -c, one invocation at a time, baseline and candidate
 * interleaved in seeded random blocks; it times its own iterations (torch.cuda.Event) and
 * prints one `kinesift-sample <ms>` line per iteration, optionally `kinesift-check <value>`
 * lines for the output check. In every invocation the first sample is discarded and the
 * following ones are warm-up until at least 3 samples and 100 ms; the rest are kept. No CUDA
 * is needed here and nothing is timed by kinesift itself. */
#include "kinesift/validate.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "validate/validate_int.h"

#define SAMPLE_TAG "kinesift-sample"
#define CHECK_TAG "kinesift-check"
#define MAX_NS INT64_C(1000000000000000000) /* 1e18 ns: 31 years */

/* Exact decimal milliseconds to ns, rounded half away from zero. s points at the number,
 * which must fill the rest of the (trimmed) line. */
static int parse_ms(const char *s, int64_t *ns)
{
    char digits[64];
    size_t nd = 0;
    long e10 = 6; /* ms -> ns */
    int any = 0, dot = 0;
    if (*s == '+')
        s++;
    for (; *s; s++) {
        if (isdigit((unsigned char)*s)) {
            any = 1;
            if (nd == 0 && *s == '0') { /* leading zero: only shifts the point */
                if (dot)
                    e10--;
                continue;
            }
            if (nd >= sizeof digits - 1)
                return -1;
            digits[nd++] = *s;
            if (dot)
                e10--;
        } else if (*s == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (!any)
        return -1;
    if (*s == 'e' || *s == 'E') {
        char *end;
        errno = 0;
        long e = strtol(s + 1, &end, 10);
        if (end == s + 1 || errno || e > 100 || e < -100)
            return -1;
        e10 += e;
        s = end;
    }
    if (*s)
        return -1;
    /* value = digits x 10^e10 */
    uint64_t v = 0;
    long keep = (long)nd + (e10 < 0 ? e10 : 0); /* digits before the point */
    for (long i = 0; i < keep && i < (long)nd; i++) {
        if (v > (uint64_t)MAX_NS / 10)
            return -1;
        v = v * 10 + (uint64_t)(digits[i] - '0');
    }
    if (e10 > 0) {
        for (long i = 0; i < e10; i++) {
            if (v > (uint64_t)MAX_NS / 10)
                return -1;
            v *= 10;
        }
    } else if (keep >= 0 && keep < (long)nd && digits[keep] >= '5') {
        v++; /* round half away from zero on the first dropped digit */
    }
    if (v > (uint64_t)MAX_NS)
        return -1;
    *ns = (int64_t)v;
    return 0;
}

/* The line without trailing whitespace (CR, LF) and leading blanks, into buf. */
static const char *trim(const char *line, char *buf, size_t n)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t len = strlen(line);
    while (len && isspace((unsigned char)line[len - 1]))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    return buf;
}

/* 1 when the line starts with tag followed by a blank or the end. */
static int tagged(const char *line, const char *tag, const char **rest)
{
    size_t n = strlen(tag);
    if (strncmp(line, tag, n) != 0 || (line[n] && line[n] != ' ' && line[n] != '\t'))
        return 0;
    line += n;
    while (*line == ' ' || *line == '\t')
        line++;
    *rest = line;
    return 1;
}

int ks_extcmd_parse_sample(const char *line, int64_t *ns)
{
    char buf[256];
    const char *rest;
    if (!tagged(trim(line, buf, sizeof buf), SAMPLE_TAG, &rest))
        return 0;
    return parse_ms(rest, ns) == 0 ? 1 : -1;
}

int ks_extcmd_parse_check(const char *line, char **value)
{
    char buf[1024];
    const char *rest;
    if (!tagged(trim(line, buf, sizeof buf), CHECK_TAG, &rest))
        return 0;
    *value = ks_xstrdup(rest);
    return 1;
}

/* ---- running ----------------------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The check lines of one arm's first invocation. */
typedef struct checks {
    char **v;
    size_t n, cap;
    int done; /* the first invocation has been read */
} checks;

typedef struct arm_run {
    uint32_t runs;
    uint32_t kept;
    uint32_t last_n, last_kept; /* samples printed and kept by the latest run */
    int64_t last_ns;            /* their sum */
    int64_t spent_ns;
    checks chk;
} arm_run;

static const char *arm_name(uint32_t arm)
{
    return arm == 0 ? "baseline" : "candidate";
}

/* Apply the per-invocation warm-up rule to the next sample. */
typedef struct warm {
    uint32_t seen;
    int64_t warm_ns;
    uint32_t warm_runs;
} warm;

static ks_sample_status classify(const ks_vopts *o, warm *w, int64_t ns)
{
    if (w->seen++ == 0)
        return KS_SAMPLE_FIRST;
    int need_runs = w->warm_runs < o->warmup_runs;
    int need_time = w->warm_ns < o->warmup_ns && w->warm_ns < o->warmup_cap_ns;
    if (need_runs || need_time) {
        w->warm_runs++;
        w->warm_ns += ns;
        return KS_SAMPLE_WARMUP;
    }
    return KS_SAMPLE_KEPT;
}

static pid_t spawn(const char *cmd, uint32_t arm, uint32_t run, int *fd, ks_error *err)
{
    int p[2];
    if (pipe(p) != 0)
        return ks_error_set(err, "cannot create a pipe: %s", strerror(errno)), -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return ks_error_set(err, "cannot fork: %s", strerror(errno)), -1;
    }
    if (pid == 0) {
        char runs[24];
        snprintf(runs, sizeof runs, "%u", run);
        setenv("KINESIFT_VALIDATE_ARM", arm_name(arm), 1);
        setenv("KINESIFT_VALIDATE_RUN", runs, 1);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, 0);
            close(devnull);
        }
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

static int wait_status(pid_t pid, const char *cmd, uint32_t arm, uint32_t run, ks_error *err)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return ks_error_set(err, "waitpid: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return KS_OK;
    if (WIFEXITED(st))
        return ks_error_set(err, "the %s command exited with status %d (run %u): %s",
                            arm_name(arm), WEXITSTATUS(st), run, cmd);
    return ks_error_set(err, "the %s command was killed by signal %d (run %u): %s",
                        arm_name(arm), WTERMSIG(st), run, cmd);
}

/* One invocation of arm's command: read its samples into out. */
static int invoke(const ks_vopts *o, const char *cmd, uint32_t arm, uint32_t block,
                  arm_run *ar, ks_vrun *out, ks_error *err)
{
    uint32_t run = ++ar->runs;
    int fd;
    int64_t t0 = now_ns();
    pid_t pid = spawn(cmd, arm, run, &fd, err);
    if (pid < 0)
        return KS_ERR;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        wait_status(pid, cmd, arm, run, err);
        return ks_error_set(err, "fdopen: %s", strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    warm w = {0};
    uint32_t nsamples = 0;
    ar->last_n = ar->last_kept = 0;
    ar->last_ns = 0;
    int rc = KS_OK;
    while (getline(&line, &cap, f) >= 0) {
        int64_t ns;
        char *value;
        int k = ks_extcmd_parse_sample(line, &ns);
        if (k < 0 && rc == KS_OK) {
            char shown[120];
            ks_fmt_preview(shown, sizeof shown, line, strlen(line), 80);
            rc = ks_error_set(err, "the %s command printed a malformed sample line (run %u): "
                                   "'%s' (expected 'kinesift-sample <milliseconds>')",
                              arm_name(arm), run, shown);
        } else if (k > 0 && rc == KS_OK) {
            ks_vsample s = {.arm = arm, .block = block, .run = run, .k = 1, .ns = ns,
                            .host_ns = -1, .sm_clock_mhz = NAN};
            s.status = classify(o, &w, ns);
            ar->kept += s.status == KS_SAMPLE_KEPT;
            ar->last_kept += s.status == KS_SAMPLE_KEPT;
            ar->last_n++;
            ar->last_ns += ns;
            ks_vrun_push(out, &s);
            nsamples++;
        } else if (!ar->chk.done && ks_extcmd_parse_check(line, &value)) {
            KS_PUSH(ar->chk.v, ar->chk.n, ar->chk.cap, value);
        }
    }
    free(line);
    fclose(f);
    ar->chk.done = 1;
    int wrc = wait_status(pid, cmd, arm, run, rc == KS_OK ? err : &(ks_error){0});
    ar->spent_ns += now_ns() - t0;
    if (rc != KS_OK)
        return rc;
    if (wrc != KS_OK)
        return wrc;
    if (nsamples == 0)
        return ks_error_set(err, "the %s command printed no 'kinesift-sample <ms>' line (run "
                                 "%u): %s",
                            arm_name(arm), run, cmd);
    return KS_OK;
}

static int is_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && !errno;
}

static void compare_checks(const checks *a, const checks *b, double rtol, ks_vcheck *out)
{
    out->detail[0] = '\0';
    if (a->n == 0 && b->n == 0) {
        out->result = KS_CHECK_NOT_PROVIDED;
        snprintf(out->detail, sizeof out->detail, "no kinesift-check line printed");
        return;
    }
    if (a->n != b->n) {
        out->result = KS_CHECK_MISMATCH;
        snprintf(out->detail, sizeof out->detail,
                 "the baseline printed %zu kinesift-check lines, the candidate %zu", a->n, b->n);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        double x, y;
        int same;
        if (is_number(a->v[i], &x) && is_number(b->v[i], &y))
            same = fabs(x - y) <= rtol * fmax(fabs(x), fabs(y));
        else
            same = strcmp(a->v[i], b->v[i]) == 0;
        if (!same) {
            out->result = KS_CHECK_MISMATCH;
            snprintf(out->detail, sizeof out->detail,
                     "kinesift-check %zu: baseline '%.80s', candidate '%.80s'%s", i + 1,
                     a->v[i], b->v[i], rtol > 0 ? " (beyond --check-rtol)" : "");
            return;
        }
    }
    out->result = KS_CHECK_MATCH;
    snprintf(out->detail, sizeof out->detail, "%zu kinesift-check value%s equal%s", a->n,
             a->n == 1 ? "" : "s", rtol > 0 ? " within --check-rtol" : "");
}

/* After a block: stop? Not before every command made --min-runs runs; then stop.c's rules. */
static int cmd_should_stop(const ks_vopts *o, const arm_run *ar, uint32_t narms, ks_vrun *out)
{
    ks_vstop_tally t = {.narms = narms, .least = UINT32_MAX, .min_runs = o->min_runs, .who = "command"};
    uint32_t min_runs = 0;
    for (uint32_t a = 0; a < narms; a++) {
        t.done += ar[a].kept >= o->samples;
        min_runs += ar[a].runs >= o->min_runs;
        t.timeout += ar[a].spent_ns >= o->timeout_ns;
        t.maxruns += ar[a].runs >= o->max_runs;
        t.capped += ar[a].kept >= o->max_samples;
        if (ar[a].kept < t.least)
            t.least = ar[a].kept;
    }
    if (min_runs < narms)
        return 0;
    return ks_vstop_decide(o, &t, out);
}

/* After the first block: a command whose run kept nothing (every sample first or warm-up) would
 * keep nothing in any run (warm-up restarts in each): stop with what to change. */
static int all_warmup(const ks_vopts *o, const arm_run *ar, uint32_t narms, ks_error *err)
{
    for (uint32_t a = 0; a < narms; a++)
        if (ar[a].runs && !ar[a].last_kept)
            return ks_error_set(err, "each %s run printed %u sample%s over %.3g ms; all are warm-up (the first "
                                     "sample of a run is discarded, then warm-up lasts >= %u samples and >= %.3g "
                                     "ms): print more iterations or lower --warmup-ms",
                                arm_name(a), ar[a].last_n, ar[a].last_n == 1 ? "" : "s",
                                (double)ar[a].last_ns / 1e6, o->warmup_runs, (double)o->warmup_ns / 1e6);
    return KS_OK;
}

int ks_extcmd_run(const ks_vopts *o, const char *const *cmds, uint32_t narms, ks_vrun *out,
                  ks_vcheck *check, ks_error *err)
{
    memset(out, 0, sizeof *out);
    out->narms = narms;
    out->k = 1;
    if (narms < 2)
        return ks_error_set(err, "a comparison needs at least two commands");
    arm_run *ar = ks_xcalloc(narms, sizeof *ar);
    int *order = ks_xmalloc(ks_mul(narms, sizeof *order));
    ks_rng rng;
    ks_rng_seed(&rng, o->seed);
    int rc = KS_OK;
    for (uint32_t block = 0; rc == KS_OK; block++) {
        for (uint32_t a = 0; a < narms; a++)
            order[a] = (int)a;
        ks_rng_shuffle(&rng, order, narms);
        for (uint32_t i = 0; i < narms && rc == KS_OK; i++) {
            uint32_t a = (uint32_t)order[i];
            rc = invoke(o, cmds[a], a, block, &ar[a], out, err);
        }
        out->nblocks = block + 1;
        if (rc == KS_OK && block == 0)
            rc = all_warmup(o, ar, narms, err);
        if (rc == KS_OK && cmd_should_stop(o, ar, narms, out))
            break;
    }
    if (rc == KS_OK && check)
        for (uint32_t a = 1; a < narms; a++)
            compare_checks(&ar[0].chk, &ar[a].chk, o->check_rtol, &check[a]);
    for (uint32_t a = 0; a < narms; a++) {
        for (size_t i = 0; i < ar[a].chk.n; i++)
            free(ar[a].chk.v[i]);
        free(ar[a].chk.v);
    }
    free(ar);
    free(order);
    return rc;
}
