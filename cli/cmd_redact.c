/* cli/cmd_redact.c: `kinesift redact` (scrub a trace before it is shared) and
 * `kinesift redact --check` (scan traces for leaks). The rules live in redact/; this file reads
 * the options, picks the outputs and prints the summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "common/util.h"
#include "kinesift/redact.h"
#include "kinesift/report.h"

const char ks_help_redact[] =
    "usage: kinesift redact [OPTIONS] INPUT [-o OUTPUT]\n"
    "       kinesift redact [OPTIONS] INPUT... -o DIR\n"
    "       kinesift redact --check [--format text|json] FILE...\n"
    "\n"
    "Rewrite a trace so that it can be shared: user names, host names, e-mail and IP addresses,\n"
    "absolute paths, URL credentials, tokens and keys, job names, Kineto log lines and harness\n"
    "metadata (environment, pip lists) are replaced or stripped. Every event stays, in order,\n"
    "with every number (ts, dur, ids) byte for byte: timing analyses give the same figures.\n"
    "Rules and guarantees: docs/redaction.md. Redaction is best-effort: review before sharing.\n"
    "Host names are told from module and file names with the public-suffix list (Debian package\n"
    "publicsuffix, or the file $KINESIFT_PSL names); without it (said once) dotted names of 3\n"
    "or more labels count as hosts unless they are file names or in a Python frame.\n"
    "\n"
    "INPUT is a trace (.json, gzip/zstd/xz/bzip2, detected by content), a tar or zip of traces,\n"
    "a directory, or '-' for standard input. One trace goes to OUTPUT (default: standard\n"
    "output); several traces (several inputs, a directory, an archive) need -o DIR and are\n"
    "written there under their own names, host parts pseudonymised.\n"
    "\n"
    "  -o, --output PATH     output file (or directory for several traces); '-' for standard\n"
    "                        output, even a terminal\n"
    "  --force               replace an existing output file (never an input); write\n"
    "                        compressed output to a terminal (refused otherwise, as gzip does)\n"
    "  --compress C          gz, zst, xz, bz2 or none (default: like the input)\n"
    "  --key-file FILE       pseudonym key (>= 32 bytes); default $" KS_REDACT_KEY_ENV ",\n"
    "                        else a random key for this run (tokens then differ between runs)\n"
    "  --shapes              also strip Input Dims, Input Strides and Concrete Inputs\n"
    "  --drop-arg KEY        replace args KEY by \"__stripped__\" (repeatable)\n"
    "  --keep-arg KEY        keep args KEY exactly as it is, unscanned (repeatable)\n"
    "  --keep-metadata KEY   keep top-level KEY (scanned) instead of stripping it (repeatable)\n"
    "  --keep-logs           keep the Kineto INFO/WARNING/ERROR arrays (scanned)\n"
    "  --domain DOMAIN       also pseudonymise host names under DOMAIN (repeatable)\n"
    "  --deny-file FILE      terms (one per line) always replaced by [REDACTED:deny]\n"
    "  --rules FILE          user rules: JSON [{\"name\", \"pattern\" (PCRE2), \"class\"}], class\n"
    "                        secret, user, host, email, job, id or path\n"
    "  --report              print replacements per rule and distinct values per class\n"
    "  --report-json FILE    the same report as JSON (schema kinesift.redact-report/1)\n"
    "  --quiet               no summary line\n"
    "\n"
    "  --check               scan FILE... with the same rules, rewrite nothing; list each\n"
    "                        finding (event index, JSON path, byte, rule), never the value\n"
    "  --format text|json    --check output (JSON schema kinesift.redact-check/1)\n"
    "  --max-findings N      findings listed per trace (default 20; all are counted)\n"
    "\n"
    "Exit status: 0 success (--check: clean), 1 --check found something, 2 usage or input\n"
    "error (a trace that does not parse is refused, with its byte, line and column).\n";

typedef struct list {
    char **v;
    size_t n, cap;
} list;

typedef struct redact_cli {
    const char *output, *key_file, *deny_file, *report_json;
    int force, report, quiet, check, json;
    int stdout_asked;          /* -o -: standard output on purpose, even a terminal */
    ks_compress compress;
    size_t max_findings;
    ks_redact_opts o;
    list drop, keep, meta, domains, outputs;
    ks_redact_staged **staged; /* outputs written to temporary files, renamed at the end */
    size_t nstaged, staged_cap;
    char **inputs;             /* every input: none may be an output or the report */
    size_t ninputs;
    int created_dir;           /* -o DIR was created by this run (removed again on failure) */
    char **deny;
    size_t ndeny;
    ks_redact_key_source keysrc;
} redact_cli;

static int parse_compress(const char *s, ks_compress *c)
{
    static const char *const names[] = {"none", "gz", "zst", "xz", "bz2", "gzip", "zstd",
                                        "bzip2", NULL};
    static const ks_compress vals[] = {KS_COMPRESS_NONE, KS_COMPRESS_GZIP, KS_COMPRESS_ZSTD,
                                       KS_COMPRESS_XZ,   KS_COMPRESS_BZIP2, KS_COMPRESS_GZIP,
                                       KS_COMPRESS_ZSTD, KS_COMPRESS_BZIP2};
    int k = ks_cli_choice(s, names);
    if (k < 0)
        return -1;
    *c = vals[k];
    return 0;
}

/* the options that take a checked value or add to a list (the option table hands them here) */
enum { O_OUTPUT = 'o', O_COMPRESS = 'c', O_DROP_ARG = 'd', O_KEEP_ARG = 'k', O_KEEP_META = 'm',
       O_DOMAIN = 'D', O_MAX_FINDINGS = 'n' };

static int redact_opt(void *ctx, const char *cmd, int key, const char *arg)
{
    redact_cli *c = ctx;
    switch (key) {
    case O_OUTPUT:
        c->stdout_asked = !strcmp(arg, "-");
        c->output = c->stdout_asked ? NULL : arg;
        return 0;
    case O_COMPRESS:
        if (parse_compress(arg, &c->compress) != 0)
            return ks_cli_usage(cmd, "--compress: '%s' is not gz, zst, xz, bz2 or none", arg);
        return 0;
    case O_DROP_ARG: KS_PUSH(c->drop.v, c->drop.n, c->drop.cap, (char *)arg); return 0;
    case O_KEEP_ARG: KS_PUSH(c->keep.v, c->keep.n, c->keep.cap, (char *)arg); return 0;
    case O_KEEP_META: KS_PUSH(c->meta.v, c->meta.n, c->meta.cap, (char *)arg); return 0;
    case O_DOMAIN: KS_PUSH(c->domains.v, c->domains.n, c->domains.cap, (char *)arg); return 0;
    case O_MAX_FINDINGS: {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 0)
            return ks_cli_usage(cmd, "--max-findings: '%s' is not a count", arg);
        c->max_findings = (size_t)v;
        return 0;
    }
    default: return ks_cli_usage(cmd, "bad option");
    }
}

/* 0 with *first the first operand, KS_OPT_LISTED after --list-options, or an exit status */
static int parse_args(int argc, char **argv, redact_cli *c, int *first)
{
    static const char *const formats[] = {"text", "json", NULL}; /* index 1: c->json */
    c->max_findings = 20;
    ks_option tab[] = {
        KS_OPT_CALL("output", 'o', redact_opt, c, O_OUTPUT, "the output file or directory; - for stdout"),
        KS_OPT_FLAG("force", 0, &c->force, "replace an existing output"),
        KS_OPT_CALL("compress", 0, redact_opt, c, O_COMPRESS, "gz, zst, xz, bz2 or none"),
        KS_OPT_STRING("key-file", 0, &c->key_file, "the pseudonym key"),
        KS_OPT_FLAG("shapes", 0, &c->o.shapes, "also strip input shapes"),
        KS_OPT_CALL("drop-arg", 0, redact_opt, c, O_DROP_ARG, "drop this args key"),
        KS_OPT_CALL("keep-arg", 0, redact_opt, c, O_KEEP_ARG, "keep this args key verbatim"),
        KS_OPT_CALL("keep-metadata", 0, redact_opt, c, O_KEEP_META, "keep this metadata key"),
        KS_OPT_FLAG("keep-logs", 0, &c->o.keep_logs, "keep (and scan) the log arrays"),
        KS_OPT_CALL("domain", 0, redact_opt, c, O_DOMAIN, "a domain to redact"),
        KS_OPT_STRING("deny-file", 0, &c->deny_file, "terms to redact, one per line"),
        KS_OPT_STRING("rules", 0, &c->o.rules_file, "user rules (JSON)"),
        KS_OPT_FLAG("report", 0, &c->report, "what was redacted, by rule"),
        KS_OPT_STRING("report-json", 0, &c->report_json, "the same as JSON in FILE"),
        KS_OPT_FLAG("quiet", 'q', &c->quiet, "no progress line"),
        KS_OPT_FLAG("check", 0, &c->check, "find what would be redacted; write nothing"),
        KS_OPT_CHOICE("format", 0, &c->json, formats, "format", "text or json (--check)"),
        KS_OPT_CALL("max-findings", 0, redact_opt, c, O_MAX_FINDINGS, "findings listed (--check)"),
        KS_OPT_END(),
    };
    int rc = ks_opt_parse("redact", tab, argc, argv, first);
    if (rc)
        return rc;
    if (*first >= argc)
        return ks_cli_usage("redact", "no input file");
    if (c->check && (c->output || c->stdout_asked))
        return ks_cli_usage("redact", "--check writes nothing: -o makes no sense with it");
    return 0;
}

/* options -> redactor */
static int make_redactor(redact_cli *c, ks_redactor **rd)
{
    ks_error err;
    unsigned char *key = NULL;
    size_t klen = 0;
    if (ks_redact_key_load(c->key_file, &key, &klen, &c->keysrc, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    if (c->deny_file && ks_redact_read_terms(c->deny_file, &c->deny, &c->ndeny, &err) != KS_OK) {
        ks_redact_key_free(key, klen);
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    c->o.key = key;
    c->o.key_len = klen;
    c->o.drop_args = c->drop.v;
    c->o.ndrop_args = c->drop.n;
    c->o.keep_args = c->keep.v;
    c->o.nkeep_args = c->keep.n;
    c->o.keep_meta = c->meta.v;
    c->o.nkeep_meta = c->meta.n;
    c->o.domains = c->domains.v;
    c->o.ndomains = c->domains.n;
    c->o.deny = c->deny;
    c->o.ndeny = c->ndeny;
    int rc = ks_redactor_new(&c->o, rd, &err);
    ks_redact_key_free(key, klen);
    c->o.key = NULL;
    if (rc != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    return 0;
}

/* ---- --check ----------------------------------------------------------------------------- */

static int run_check(redact_cli *c, ks_redactor *rd, char **inputs, size_t n)
{
    ks_redact_check *chk = ks_redact_check_new();
    int input_error = 0;
    for (size_t i = 0; i < n; i++) {
        ks_error err;
        ks_cli_activity("checking", inputs[i]);
        if (ks_redact_check_path(rd, inputs[i], c->max_findings, chk, &err) != KS_OK) {
            ks_cli_error(inputs[i], &err);
            input_error = 1;
        }
    }
    ks_error ferr;
    if (!input_error && ks_redact_check_finish(rd, chk, &ferr) != KS_OK) {
        ks_cli_error(NULL, &ferr);
        input_error = 1;
    }
    int werr = 0;
    if (c->json)
        werr = ks_redact_check_json(stdout, chk) != 0;
    else
        ks_redact_check_text(stdout, chk);
    if (fflush(stdout) != 0 || werr) {
        ks_cli_write_failed("redact");
        input_error = 1;
    }
    uint64_t total = ks_redact_check_total(chk);
    if (!input_error && ks_redact_check_incomplete(chk)) {
        /* fail closed: what was read before a name was learned was not searched for it */
        ks_cli_fail("redact --check: names were learned late in standard input, which cannot be "
                    "read again: save it to a file and check that");
        input_error = 1;
    }
    ks_redact_check_free(chk);
    if (input_error)
        return KS_EXIT_USAGE;
    return total ? KS_EXIT_FINDING : KS_EXIT_OK;
}

/* ---- redact ------------------------------------------------------------------------------ */

/* -o out.json for a gzip input writes gzip (like the input): say so */
static void warn_suffix(const char *path, ks_compress c)
{
    static const char *const sufs[] = {".gz", ".zst", ".xz", ".bz2"};
    const char *want = ks_redact_compress_suffix(c);
    for (size_t i = 0; i < 4; i++)
        if (ks_ends_with(path, sufs[i]) && strcmp(sufs[i], want)) {
            ks_cli_fail("warning: %s: the name ends in %s but the output is %s (see --compress)",
                        path, sufs[i], *want ? want + 1 : "not compressed");
            return;
        }
    if (*want && !ks_ends_with(path, want))
        ks_cli_fail("warning: %s: the output is %s-compressed like the input (--compress none "
                    "for plain JSON)",
                    path, want + 1);
}

/* Two counts that differ on purpose: the JSON strings (and keys) whose text changed, and the
 * replacements the rules made in them (a string can hold several: a log line, an environment
 * dump); --report lists the second by rule, for the whole run. */
static void summary(const redact_cli *c, const char *src, const char *dst,
                    const ks_redact_result *r, uint64_t replacements)
{
    if (c->quiet)
        return;
    ks_cli_fail("redact: %s -> %s: %llu events; %llu string%s changed by %llu replacement%s%s%s",
                src, dst ? dst : "standard output", (unsigned long long)r->events,
                (unsigned long long)r->strings_rewritten, r->strings_rewritten == 1 ? "" : "s",
                (unsigned long long)replacements, replacements == 1 ? "" : "s",
                r->repairs ? ", malformed strings repaired" : "",
                r->passes > 1 ? ", second pass for late literals" : "");
    if (r->closed_array)
        ks_cli_fail("redact: %s: the event array had no closing ']': added", src);
}

/* compressed bytes are not for a terminal (as gzip refuses): -o - or --force to insist */
static int refuse_terminal(const redact_cli *c, ks_compress eff)
{
    if (c->output || c->stdout_asked || c->force || eff == KS_COMPRESS_NONE || !isatty(1))
        return 0;
    ks_cli_fail("redact: %s-compressed data not written to a terminal: give -o FILE (or -o - or --force to "
                "write it anyway, --compress none for plain JSON)", ks_redact_compress_suffix(eff) + 1);
    return KS_EXIT_USAGE;
}

static int redact_one(redact_cli *c, ks_redactor *rd, const ks_source *src, ks_stream *st, const char *input,
                      const char *out)
{
    ks_redact_output o = {0};
    o.path = out;
    o.compress = c->compress;
    o.force = c->force;
    o.input = input;
    o.inputs = c->inputs;
    o.ninputs = c->ninputs;
    ks_compress eff = c->compress ? c->compress : ks_redact_compress_of(ks_stream_filter(st));
    if (!out && refuse_terminal(c, eff))
        return KS_EXIT_USAGE;
    if (out && !c->quiet)
        warn_suffix(out, eff);
    ks_cli_progress pr; /* the reading line of stats and analyze */
    ks_cli_progress_start(&pr, c->quiet, src);
    o.progress = ks_cli_progress_cb;
    o.progress_ctx = &pr;
    ks_redact_result res;
    ks_error err;
    ks_redact_staged *sg;
    uint64_t before = ks_redact_count_total(rd);
    int r = ks_redact_stage(rd, st, &o, &res, &sg, &err);
    ks_cli_progress_clear(&pr);
    if (r != KS_OK) {
        ks_cli_error(err.has_pos ? ks_stream_name(st) : NULL, &err);
        return KS_EXIT_USAGE;
    }
    KS_PUSH(c->staged, c->nstaged, c->staged_cap, sg);
    summary(c, ks_stream_name(st), out, &res, ks_redact_count_total(rd) - before);
    return 0;
}

static int ensure_dir(redact_cli *c, const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return 0;
        ks_cli_fail("%s: several traces need -o DIR, and this is not a directory", dir);
        return KS_EXIT_USAGE;
    }
    if (mkdir(dir, 0777) != 0) {
        ks_cli_fail("%s: cannot create the directory: %s", dir, strerror(errno));
        return KS_EXIT_USAGE;
    }
    c->created_dir = 1;
    return 0;
}

/* one output per trace into a directory */
static int redact_into_dir(redact_cli *c, ks_redactor *rd, ks_source *src, const char *input)
{
    for (;;) {
        ks_stream *st;
        ks_error err;
        int r = ks_source_next(src, &st, &err);
        if (r == 0)
            return 0;
        if (r < 0) {
            ks_cli_error(input, &err);
            return KS_EXIT_USAGE;
        }
        ks_compress eff = c->compress ? c->compress : ks_redact_compress_of(ks_stream_filter(st));
        char *name = ks_redact_output_name(rd, ks_stream_name(st), eff);
        char *path = ks_xasprintf("%s/%s", c->output, name);
        free(name);
        for (size_t i = 0; i < c->outputs.n; i++)
            if (!strcmp(c->outputs.v[i], path)) {
                ks_cli_fail("%s: two traces map to this output name; redact them separately",
                            path);
                free(path);
                return KS_EXIT_USAGE;
            }
        KS_PUSH(c->outputs.v, c->outputs.n, c->outputs.cap, path);
        int rc = redact_one(c, rd, src, st, input, path);
        if (rc)
            return rc;
    }
}

/* a path in canonical form (its directory resolved), for comparing paths that may not exist */
static char *canon(const char *p)
{
    const char *slash = strrchr(p, '/');
    char *dir = slash ? ks_xstrndup(p, (size_t)(slash - p) + (slash == p)) : ks_xstrdup(".");
    char *r = realpath(dir, NULL);
    free(dir);
    if (!r)
        return ks_xstrdup(p);
    char *out = ks_xasprintf("%s/%s", r, slash ? slash + 1 : p);
    free(r);
    return out;
}

/* a and b name the same file (the same inode, or the same canonical path when either is new) */
static int same_target(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canon(a), *cb = canon(b);
    int same = !strcmp(ca, cb);
    free(ca);
    free(cb);
    return same;
}

/* --report-json never writes over an input or an output */
static int report_conflict(const redact_cli *c)
{
    const char *r = c->report_json;
    if (!r || !strcmp(r, "-"))
        return 0;
    const char *hit = NULL;
    for (size_t i = 0; i < c->ninputs && !hit; i++)
        if (strcmp(c->inputs[i], "-") && same_target(r, c->inputs[i]))
            hit = "an input";
    if (!hit && c->output && same_target(r, c->output))
        hit = "the output";
    for (size_t i = 0; i < c->outputs.n && !hit; i++)
        if (same_target(r, c->outputs.v[i]))
            hit = "an output";
    if (!hit)
        return 0;
    ks_cli_fail("%s: --report-json would write over %s; refusing (nothing written)", r, hit);
    return KS_EXIT_USAGE;
}

static int run_redact(redact_cli *c, ks_redactor *rd, char **inputs, size_t n)
{
    c->inputs = inputs;
    c->ninputs = n;
    if (report_conflict(c))
        return KS_EXIT_USAGE;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        ks_source *src;
        ks_error err;
        ks_cli_activity("redacting", inputs[i]);
        if (ks_source_open(inputs[i], &src, &err) != KS_OK) {
            ks_cli_error(inputs[i], &err);
            return KS_EXIT_USAGE;
        }
        int several = n > 1 || ks_source_is_archive(src);
        if (several) {
            if (!c->output) {
                ks_source_close(src);
                return ks_cli_usage("redact", "several traces: give an output directory with -o");
            }
            rc = ensure_dir(c, c->output);
            if (!rc)
                rc = redact_into_dir(c, rd, src, inputs[i]);
        } else {
            ks_stream *st;
            int r = ks_source_next(src, &st, &err);
            if (r <= 0) {
                if (r < 0)
                    ks_cli_error(inputs[i], &err);
                else
                    ks_cli_fail("%s: no trace", inputs[i]);
                rc = KS_EXIT_USAGE;
            } else {
                rc = redact_one(c, rd, src, st, inputs[i], c->output);
            }
        }
        ks_source_close(src);
    }
    /* all or nothing: the outputs are renamed into place only when every trace was redacted,
     * after a search for names learned from a later trace in the outputs written before */
    if (!rc)
        rc = report_conflict(c);
    if (rc) {
        for (size_t i = 0; i < c->nstaged; i++)
            ks_redact_staged_abort(c->staged[i]);
        if (c->created_dir)
            rmdir(c->output); /* only when empty: nothing else is touched */
    } else {
        ks_error err;
        size_t redone = 0;
        if (ks_redact_commit_all(rd, c->staged, c->nstaged, &redone, &err) != KS_OK) {
            ks_cli_error(NULL, &err);
            rc = KS_EXIT_USAGE;
        } else if (redone && !c->quiet) {
            fprintf(stderr, "kinesift: redact: %zu output%s redacted again for names learned "
                            "from a later trace\n",
                    redone, redone == 1 ? "" : "s");
        }
    }
    c->nstaged = 0;
    return rc;
}

static int write_reports(const redact_cli *c, ks_redactor *rd)
{
    if (c->report)
        ks_redact_report_text(stderr, rd, c->keysrc);
    else if (!c->quiet)
        fprintf(stderr, "kinesift: redact: key %s. %s\n",
                c->keysrc == KS_KEY_RANDOM ? "drawn at random for this run (tokens differ "
                                             "between runs; see --key-file)"
                                           : "given",
                "Redaction is best-effort: review the trace before you share it "
                "(docs/redaction.md).");
    if (!c->report_json)
        return 0;
    int to_stdout = !strcmp(c->report_json, "-");
    if (to_stdout && !c->output) {
        ks_cli_fail("redact: --report-json -: standard output carries the trace");
        return KS_EXIT_USAGE;
    }
    if (to_stdout) {
        if (ks_redact_report_json(stdout, rd, c->keysrc) != 0 || fflush(stdout) != 0)
            return ks_cli_write_failed("redact");
        return 0;
    }
    /* through the library's one output writer: never over a device node, never half a file */
    ks_outfile *of;
    ks_error err;
    if (ks_outfile_open(&of, c->report_json, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    ks_redact_report_json(ks_outfile_stream(of), rd, c->keysrc);
    if (ks_outfile_commit(of, &err) != KS_OK) { /* a failed write is named here */
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    return 0;
}

static void cli_free(redact_cli *c)
{
    free(c->drop.v);
    free(c->keep.v);
    free(c->meta.v);
    free(c->domains.v);
    for (size_t i = 0; i < c->outputs.n; i++)
        free(c->outputs.v[i]);
    free(c->outputs.v);
    free(c->staged);
    ks_redact_free_terms(c->deny, c->ndeny);
}

int ks_cmd_redact(int argc, char **argv)
{
    redact_cli c;
    memset(&c, 0, sizeof c);
    ks_redact_opts_init(&c.o);
    int first;
    int rc = parse_args(argc, argv, &c, &first);
    if (rc) {
        cli_free(&c);
        return rc == KS_OPT_LISTED ? 0 : rc;
    }
    char **inputs;
    size_t n;
    ks_error err;
    /* the traces and the side files (key, deny terms, rules) against the outputs */
    char **ins = ks_xcalloc((size_t)(argc - first) + 4, sizeof *ins);
    size_t nins = 0;
    for (int i = first; i < argc; i++)
        ins[nins++] = argv[i];
    const char *side[] = {c.key_file, c.deny_file, c.o.rules_file};
    for (size_t i = 0; i < 3; i++)
        if (side[i])
            ins[nins++] = (char *)side[i];
    const char *outs[] = {c.output}; /* --report-json: checked against the outputs too, below */
    int clash = ks_cli_outputs_not_inputs("redact", ins, nins, outs, 1);
    free(ins);
    if (clash) {
        cli_free(&c);
        return KS_EXIT_USAGE;
    }
    if (ks_inputs_expand(argv + first, (size_t)(argc - first), &inputs, &n, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        cli_free(&c);
        return KS_EXIT_USAGE;
    }
    ks_redactor *rd = NULL;
    rc = make_redactor(&c, &rd);
    if (!rc) {
        if (c.check) {
            rc = run_check(&c, rd, inputs, n);
        } else {
            ks_redact_cleanup_on_signals();
            rc = run_redact(&c, rd, inputs, n);
            if (!rc)
                rc = write_reports(&c, rd);
        }
    }
    ks_redactor_free(rd);
    ks_inputs_free(inputs, n);
    cli_free(&c);
    return rc;
}
