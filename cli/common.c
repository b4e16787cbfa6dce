/* cli/common.c: helpers every subcommand shares: one-line errors, usage errors, input loading
 * (directories, archives, stdin) with a progress line on a terminal. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/limits.h"
#include "common/regex.h"
#include "common/util.h"
#include "kinesift/ranks.h"

void ks_cli_put_escaped(FILE *out, const char *s, int keep_newlines)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p < 0x20 && !(keep_newlines && *p == '\n')) || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

/* "kinesift: " + msg + newline, msg's control characters escaped: a name taken from the input (an
 * archive member, a summary's source) never breaks the one line nor sends a terminal codes */
static void error_line(const char *msg)
{
    fputs("kinesift: ", stderr);
    ks_cli_put_escaped(stderr, msg, 0);
    fputc('\n', stderr);
}

void ks_cli_fail(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    error_line(buf);
}

void ks_cli_error_text(const char *file, const ks_error *err, char *out, size_t n)
{
    char buf[800];
    ks_error_format(err, buf, sizeof buf);
    size_t fl = file ? strlen(file) : 0;
    /* the library names some files itself: say it once */
    if (file && !(!strncmp(buf, file, fl) && buf[fl] == ':'))
        snprintf(out, n, "%s: %s", file, buf);
    else
        snprintf(out, n, "%s", buf);
}

void ks_cli_error(const char *file, const ks_error *err)
{
    char buf[1200];
    ks_cli_error_text(file, err, buf, sizeof buf);
    error_line(buf);
}

static int stdout_failure_told;

int ks_cli_write_failed(const char *cmd)
{
    int e = errno;
    if (!stdout_failure_told)
        fprintf(stderr, "kinesift: %s: cannot write standard output: %s\n", cmd,
                e ? strerror(e) : "a write failed");
    stdout_failure_told = 1;
    return KS_EXIT_USAGE;
}

int ks_cli_finish_stdout(const char *cmd, int rc)
{
    int bad = ferror(stdout) != 0;
    errno = 0;
    if (fflush(stdout) != 0)
        bad = 1;
    int e = errno;
    /* a close can fail too (NFS, a full pipe's peer): its errno is the reason then */
    errno = 0;
    if (fclose(stdout) != 0 && errno != EBADF && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad)
        return rc;
    errno = e;
    ks_cli_write_failed(cmd);
    return KS_EXIT_USAGE; /* 2 takes precedence over 1 and 3 (docs/ci.md) */
}

typedef struct seen_file {
    dev_t dev;
    ino_t ino;
    const char *name;
} seen_file;

static void seen_add(seen_file **v, size_t *n, size_t *cap, const struct stat *sb, const char *name)
{
    KS_GROW(*v, *cap, *n + 1);
    (*v)[*n].dev = sb->st_dev;
    (*v)[*n].ino = sb->st_ino;
    (*v)[(*n)++].name = name;
}

static const char *seen_find(const seen_file *v, size_t n, const struct stat *sb)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].dev == sb->st_dev && v[i].ino == sb->st_ino)
            return v[i].name;
    return NULL;
}

int ks_cli_outputs_not_inputs(const char *cmd, char *const *inputs, size_t ninputs,
                              const char *const *outputs, size_t nout)
{
    seen_file *seen = NULL;
    size_t ns = 0, cap = 0;
    struct stat sb;
    char **expand = ks_xcalloc(ninputs + 1, sizeof *expand);
    size_t ne = 0;
    for (size_t i = 0; i < ninputs; i++) {
        const char *in = inputs[i];
        if (!strcmp(in, "-")) {
            if (fstat(0, &sb) == 0 && S_ISREG(sb.st_mode))
                seen_add(&seen, &ns, &cap, &sb, "standard input");
            continue;
        }
        if (stat(in, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) /* a directory is never written over: its files are inputs */
                seen_add(&seen, &ns, &cap, &sb, in);
            expand[ne++] = (char *)in;
        } else if (in[0] == '@' && stat(in + 1, &sb) == 0) {
            seen_add(&seen, &ns, &cap, &sb, in + 1);
            if (S_ISREG(sb.st_mode))
                expand[ne++] = (char *)in;
        }
    }
    char **list = NULL;
    size_t nl = 0;
    ks_error err;
    if (ne && ks_inputs_expand(expand, ne, &list, &nl, &err) == KS_OK) {
        for (size_t i = 0; i < nl; i++)
            if (strcmp(list[i], "-") && stat(list[i], &sb) == 0)
                seen_add(&seen, &ns, &cap, &sb, list[i]);
    } /* else: the load says what is wrong with the inputs */
    int rc = 0;
    for (size_t o = 0; o < nout && !rc; o++) {
        const char *in;
        if (outputs[o] && strcmp(outputs[o], "-") && stat(outputs[o], &sb) == 0 &&
            (in = seen_find(seen, ns, &sb))) {
            if (ninputs == 1 && !strcmp(in, inputs[0])) /* the one file given */
                ks_cli_fail("%s: %s: is the input; refusing to write over it", cmd, outputs[o]);
            else
                ks_cli_fail("%s: %s: is an input of this run (%s); refusing to write over it", cmd, outputs[o], in);
            rc = KS_EXIT_USAGE;
        }
    }
    const char *in;
    if (!rc && fstat(1, &sb) == 0 && S_ISREG(sb.st_mode) && (in = seen_find(seen, ns, &sb))) {
        ks_cli_fail("%s: standard output is an input of this run (%s); refusing to write over it "
                    "(a shell's >> onto the input?)", cmd, in);
        rc = KS_EXIT_USAGE;
    }
    if (list)
        ks_inputs_free(list, nl);
    free(expand);
    free(seen);
    return rc;
}

int ks_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "kinesift %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see kinesift help %s)\n", cmd);
    return KS_EXIT_USAGE;
}

int ks_cli_regex(const char *cmd, const char *opt, const char *pattern)
{
    ks_error err;
    ks_regex *re = ks_regex_new(pattern, KS_REGEX_UTF, &err);
    if (!re)
        return ks_cli_usage(cmd, "%s: %s", opt, err.msg);
    ks_regex_free(re);
    return 0;
}

int ks_cli_choice(const char *value, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (!strcmp(value, choices[i]))
            return i;
    return -1;
}

void ks_cli_warnings(const ks_trace *tr, int quiet)
{
    if (quiet)
        return;
    for (size_t i = 0; i < tr->diag.n; i++) {
        const ks_diag_kind *k = &tr->diag.kinds[i];
        if (k->severity < KS_SEV_WARNING || !k->count)
            continue;
        const ks_diag_example *e = k->nexamples ? &k->ex[0] : NULL;
        if (e && e->has_pos)
            ks_cli_fail("%s: %s: %s x%llu, first at byte %llu (line %llu, column %llu): %s", tr->source,
                        ks_severity_name(k->severity), k->id, (unsigned long long)k->count,
                        (unsigned long long)e->byte, (unsigned long long)e->line,
                        (unsigned long long)e->column, e->text);
        else
            ks_cli_fail("%s: %s: %s x%llu%s%s", tr->source, ks_severity_name(k->severity), k->id,
                        (unsigned long long)k->count, e ? ": " : "", e ? e->text : "");
    }
}

/* ---- progress ------------------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* nothing during the first second (inputs that take a while only), unless KINESIFT_PROGRESS_DELAY
 * says otherwise (seconds; 0 shows it at once) */
static double progress_delay(void)
{
    const char *e = getenv("KINESIFT_PROGRESS_DELAY");
    char *end;
    double d = e && *e ? strtod(e, &end) : 1.0;
    return e && *e && (*end || !(d >= 0)) ? 1.0 : d;
}

void ks_cli_progress_start(ks_cli_progress *pr, int quiet, const ks_source *src)
{
    memset(pr, 0, sizeof *pr);
    pr->enabled = !quiet && isatty(2);
    pr->start = pr->last = now();
    pr->delay = progress_delay();
    pr->size = ks_source_file_size(src);
    pr->src = src;
}

void ks_cli_progress_cb(void *ctx, const ks_stream *st, uint64_t bytes)
{
    ks_cli_progress *pr = ctx;
    if (!pr->enabled)
        return;
    double t = now();
    if (t - pr->start < pr->delay || (pr->shown && t - pr->last < 0.25))
        return;
    pr->last = t;
    char b[32];
    ks_fmt_bytes(b, sizeof b, bytes);
    double rate = t > pr->start ? bytes / (t - pr->start) / 1e6 : 0;
    uint64_t raw = ks_source_raw_offset(pr->src);
    if (pr->size && raw)
        fprintf(stderr, "\rkinesift: reading %s: %s (%.0f MB/s, %.0f%%)   ", ks_stream_name(st), b,
                rate, 100.0 * (double)raw / (double)pr->size);
    else
        fprintf(stderr, "\rkinesift: reading %s: %s (%.0f MB/s)   ", ks_stream_name(st), b, rate);
    pr->shown = pr->ever_shown = 1;
}

void ks_cli_progress_clear(ks_cli_progress *pr)
{
    if (pr->shown)
        fprintf(stderr, "\r\033[K");
    pr->shown = 0;
}

/* whether the last input read showed a progress line: its later phases then say they work too */
static int last_read_slow;

void ks_cli_phase_begin(ks_cli_phase *ph, const char *what, const char *name)
{
    ph->shown = last_read_slow && isatty(2);
    if (ph->shown)
        fprintf(stderr, "\rkinesift: %s %s...", what, name);
}

void ks_cli_phase_end(ks_cli_phase *ph)
{
    if (ph->shown)
        fprintf(stderr, "\r\033[K");
    ph->shown = 0;
}

int ks_cli_threads(const char *s, int *n)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 64)
        return -1;
    *n = (int)v;
    return 0;
}

int ks_cli_threads_opt(void *ctx, const char *cmd, int key, const char *arg)
{
    (void)key;
    if (ks_cli_threads(arg, ctx))
        return ks_cli_usage(cmd, "--threads needs a number from 0 to 64, not '%s'", arg);
    return 0;
}

/* ---- out of memory: "while" what ---------------------------------------------------------- */

static char activity[600] = "starting";

void ks_cli_activity(const char *what, const char *path)
{
    snprintf(activity, sizeof activity, "%s%s%s", what, path ? " " : "", path ? path : "");
}

static void cli_oom(size_t bytes)
{
    /* no allocation here: stderr is unbuffered */
    fprintf(stderr, "kinesift: out of memory while %s (allocating %zu bytes); give it more memory or "
                    "fewer inputs at once\n", activity, bytes);
    exit(KS_EXIT_USAGE);
}

void ks_cli_oom_init(void)
{
    ks_set_oom_handler(cli_oom);
}

static void skipped_input(void *ctx, const char *msg)
{
    (void)ctx;
    ks_cli_fail("warning: %s", msg);
}

void ks_cli_input_errors_add(ks_cli_input_errors *e, const char *input, const char *message)
{
    size_t cap = e->cap;
    KS_GROW(e->input, cap, e->n + 1);
    KS_GROW(e->message, e->cap, e->n + 1);
    e->input[e->n] = ks_xstrdup(input);
    e->message[e->n] = ks_xstrdup(message);
    e->n++;
}

void ks_cli_input_errors_text(FILE *out, const ks_cli_input_errors *e)
{
    if (!e->n)
        return;
    fprintf(out, "\n== %zu input%s not read (the others are above; exit status 2)\n", e->n, e->n == 1 ? "" : "s");
    for (size_t i = 0; i < e->n; i++)
        fprintf(out, "  %s\n", e->message[i]);
}

void ks_cli_input_errors_free(ks_cli_input_errors *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->input[i]);
        free(e->message[i]);
    }
    free(e->input);
    free(e->message);
    memset(e, 0, sizeof *e);
}

/* an input that could not be opened, read or parsed: its one-line error on stderr; 1 when the
 * load goes on with the next input (o->on_error told), 0 when it stops */
static int input_failed(const ks_load_opts *o, void *ctx, const char *name, const ks_error *err)
{
    char buf[1200];
    ks_cli_error_text(name, err, buf, sizeof buf);
    error_line(buf);
    if (!o->on_error)
        return 0;
    o->on_error(ctx, name, buf);
    return 1;
}

int ks_cli_load(char *const *paths, int npaths, const ks_load_opts *o, ks_trace_cb cb, void *ctx)
{
    char **list;
    size_t n;
    ks_error err;
    if (ks_inputs_expand_report(paths, (size_t)npaths, &list, &n, skipped_input, NULL, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    int stdin_used = 0;
    int rc = 0, failed = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!strcmp(list[i], "-")) {
            if (stdin_used++) {
                ks_cli_fail("-: standard input given twice");
                rc = KS_EXIT_USAGE;
                break;
            }
        }
        ks_source *src;
        ks_cli_activity("reading", list[i]);
        if (ks_source_open(list[i], &src, &err) != KS_OK) {
            if (input_failed(o, ctx, list[i], &err)) {
                failed = 1;
                continue;
            }
            rc = KS_EXIT_USAGE;
            break;
        }
        ks_cli_progress pr;
        ks_cli_progress_start(&pr, o->quiet, src);
        ks_parse_opts po;
        ks_parse_opts_init(&po);
        po.strict = o->strict;
        po.threads = o->threads;
        po.timings = o->timings;
        po.progress = ks_cli_progress_cb;
        po.progress_ctx = &pr;
        for (;;) {
            ks_stream *st;
            int r = ks_source_next(src, &st, &err);
            if (r == 0)
                break;
            if (r < 0) {
                ks_cli_progress_clear(&pr);
                if (input_failed(o, ctx, list[i], &err))
                    failed = 1;
                else
                    rc = KS_EXIT_USAGE;
                break;
            }
            if (o->summary && ks_rank_is_summary(ks_stream_name(st))) {
                ks_cli_progress_clear(&pr);
                rc = o->summary(ctx, st);
                if (rc)
                    break;
                continue;
            }
            ks_trace *tr;
            if (ks_parse_stream(st, &po, &tr, &err) != KS_OK) {
                ks_cli_progress_clear(&pr);
                if (input_failed(o, ctx, ks_stream_name(st), &err)) {
                    failed = 1;
                    continue; /* the next member of an archive */
                }
                rc = KS_EXIT_USAGE;
                break;
            }
            ks_cli_progress_clear(&pr);
            last_read_slow = pr.ever_shown;
            rc = cb(ctx, tr);
            if (rc)
                break;
        }
        ks_source_close(src);
    }
    ks_inputs_free(list, n);
    return rc ? rc : failed ? KS_EXIT_USAGE : 0;
}

size_t ks_cli_text_width(void)
{
    const char *c = getenv("COLUMNS");
    if (c && *c) {
        char *end;
        long v = strtol(c, &end, 10);
        if (!*end && v > 0 && v < 100000)
            return (size_t)v;
    }
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}
