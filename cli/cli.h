/* cli/cli.h: what the kinesift subcommands share: the command table, error printing, loading of
 * every input (paths, directories, archives, stdin) with a progress line. Thin over the library. */
#ifndef KS_CLI_H
#define KS_CLI_H

#include <stdio.h>

#include "kinesift/parse.h"

/* Exit codes (docs/input.md, "Exit status and messages"): 0 ok, 1 finding (gate regression, redact --check leak),
 * 2 usage or input error, 3 inconclusive, 77 GPU required but unavailable. */
enum { KS_EXIT_OK = 0, KS_EXIT_FINDING = 1, KS_EXIT_USAGE = 2, KS_EXIT_INCONCLUSIVE = 3,
       KS_EXIT_SKIP = 77 };

typedef struct ks_command {
    const char *name;
    const char *summary;       /* one line for `kinesift --help` */
    int (*run)(int argc, char **argv);
    const char *help;          /* full text for `kinesift help CMD` / `CMD --help` */
} ks_command;

/* Each command lives in cli/cmd_<name>.c. */
#define KS_DECLARE_COMMAND(n)                                                                     \
    int ks_cmd_##n(int argc, char **argv);                                                        \
    extern const char ks_help_##n[]
KS_DECLARE_COMMAND(stats);
KS_DECLARE_COMMAND(analyze);
KS_DECLARE_COMMAND(whatif);
KS_DECLARE_COMMAND(report);
KS_DECLARE_COMMAND(annotate);
KS_DECLARE_COMMAND(redact);
KS_DECLARE_COMMAND(diff);
KS_DECLARE_COMMAND(gate);
KS_DECLARE_COMMAND(validate);
KS_DECLARE_COMMAND(ranks);
KS_DECLARE_COMMAND(summarize);

/* Out of memory: "kinesift: out of memory while <activity> (allocating N bytes)" and exit 2.
 * ks_cli_oom_init installs the handler (main); ks_cli_activity says what is being done. */
void ks_cli_oom_init(void);
void ks_cli_activity(const char *what, const char *path);

/* s on out with its control characters written \xNN (newlines kept when keep_newlines): text
 * that comes from an input (a summary's stored report) never sends a terminal its codes. */
void ks_cli_put_escaped(FILE *out, const char *s, int keep_newlines);
/* When standard output is a terminal, make stdout write its control characters other than
 * newline and tab as \xNN (cli/terminal.c). Called once, first thing in main. */
void ks_cli_terminal_guard(void);
/* "kinesift: msg" on stderr (printf style), one line: control characters written \xNN. */
void ks_cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "kinesift: FILE: byte N (line L, column C): msg" on stderr (FILE once when msg already starts
 * with it). */
void ks_cli_error(const char *file, const ks_error *err);
/* The same text, "FILE: msg", into out (for reports that repeat the error). */
void ks_cli_error_text(const char *file, const ks_error *err, char *out, size_t n);
/* Standard output could not be written: "kinesift: CMD: cannot write standard output: REASON"
 * (errno of the failed write or flush), once; returns KS_EXIT_USAGE. ks_cli_finish_stdout, called
 * by main after every command, flushes and closes standard output and prints the same line when
 * that fails and the command has not said so: no command's last write or close goes unchecked. */
int ks_cli_write_failed(const char *cmd);
int ks_cli_finish_stdout(const char *cmd, int rc);
/* No output may be an input of the run, compared by device and inode: each of outputs[0..nout)
 * (NULL and "-" skipped) and standard output (when it is a regular file: `>> INPUT`) against
 * every input as given, every @LIST file, every file a directory or an @LIST expands to, and
 * standard input when "-" is an input. 0, or KS_EXIT_USAGE after one line naming both. An
 * @LIST that is not a regular file (a pipe) is not read here: it can be read only once. */
int ks_cli_outputs_not_inputs(const char *cmd, char *const *inputs, size_t ninputs,
                              const char *const *outputs, size_t nout);
/* Print a usage error with a hint to --help; returns KS_EXIT_USAGE. */
int ks_cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* `kinesift --version`: kinesift's version, the libraries' (running and built with), CUDA. */
void ks_cli_version(FILE *out);
/* The width text reports fit: $COLUMNS, else the terminal's columns when standard output is one,
 * else 80. */
size_t ks_cli_text_width(void);
/* Print a help text to out, items wider than 80 columns reflowed (cli/helpwrap.c). */
void ks_cli_help_print(FILE *out, const char *text);
/* Print a command's help text to out. */
void ks_cli_help(FILE *out, const char *cmd);

/* Called, instead of parsing, for an input whose name marks a summary (ks_rank_is_summary), with
 * its open stream (read it as it comes: ks_summary_report_stream); returns as ks_trace_cb does. */
struct ks_stream;
typedef int (*ks_summary_cb)(void *ctx, struct ks_stream *st);

/* Common input options. */
typedef struct ks_load_opts {
    int strict;
    int quiet;           /* no progress line */
    int threads;         /* parser threads (ks_parse_opts.threads): 0 = one per core */
    struct ks_timings *timings; /* --timings: the parse's phases go there (ks_parse_opts.timings) */
    ks_summary_cb summary; /* NULL: a summary is read as a trace (and refused as one) */
    /* Keep going after an input that cannot be opened, read or parsed (a config.json among the
     * traces of a directory, an empty or unreadable file): its one-line error is printed on
     * stderr and handed to on_error (input name, message without "kinesift: "), the next input is
     * read, and ks_cli_load returns KS_EXIT_USAGE at the end (unless the trace callback stopped
     * it first). NULL: stop at the first such input. */
    void (*on_error)(void *ctx, const char *input, const char *message);
} ks_load_opts;

/* The inputs that could not be read (ks_load_opts.on_error), kept for the report. */
typedef struct ks_cli_input_errors {
    char **input, **message;
    size_t n, cap;
} ks_cli_input_errors;
void ks_cli_input_errors_add(ks_cli_input_errors *e, const char *input, const char *message);
/* Text: "== N inputs not read" and one line per input, after the reports (nothing when none;
 * the commands print it only after at least one report: an input alone gets its error line). */
void ks_cli_input_errors_text(FILE *out, const ks_cli_input_errors *e);
void ks_cli_input_errors_free(ks_cli_input_errors *e);

/* Parse a --threads value (1..64, or 0 for one per core) into *n; 0 on success. */
int ks_cli_threads(const char *s, int *n);
/* The same as an option table's KS_OPT_TYPE_CALL (cli/options.h): ctx is the int *; 0, or the usage
 * error's exit status. */
int ks_cli_threads_opt(void *ctx, const char *cmd, int key, const char *arg);

/* Called for every trace of every input, in order. Return 0 to go on, non-zero to stop (the
 * value is returned by ks_cli_load). The callback owns tr (must free it). */
typedef int (*ks_trace_cb)(void *ctx, ks_trace *tr);

/* Expand and parse every input. Returns 0, the callback's non-zero value, or KS_EXIT_USAGE after
 * printing a one-line error for an unreadable or corrupt input. */
int ks_cli_load(char *const *paths, int npaths, const ks_load_opts *o, ks_trace_cb cb, void *ctx);

/* The progress line of a long read on a terminal ("reading NAME: 1.2 GiB (800 MB/s, 45%)"), on
 * stderr, from the second second on (KINESIFT_PROGRESS_DELAY=seconds changes that), never with
 * quiet or when stderr is not a terminal. ks_cli_progress_cb is a ks_parse_opts.progress callback. */
typedef struct ks_cli_progress {
    int enabled, shown, ever_shown;
    double start, last, delay;
    uint64_t size;
    const ks_source *src;
} ks_cli_progress;
void ks_cli_progress_start(ks_cli_progress *pr, int quiet, const ks_source *src);
void ks_cli_progress_cb(void *ctx, const ks_stream *st, uint64_t bytes);
void ks_cli_progress_clear(ks_cli_progress *pr);

/* After a read that showed a progress line, "kinesift: analysing NAME..." while the next phase
 * works (cleared before any output). */
typedef struct ks_cli_phase {
    int shown;
} ks_cli_phase;
void ks_cli_phase_begin(ks_cli_phase *ph, const char *what, const char *name);
void ks_cli_phase_end(ks_cli_phase *ph);

/* A regular expression option checked when it is given (its error is about the option, not
 * about a trace): 0, or KS_EXIT_USAGE after the usage error. */
int ks_cli_regex(const char *cmd, const char *opt, const char *pattern);
/* Parse a "--format" value against a NULL-terminated list; returns the index or -1. */
int ks_cli_choice(const char *value, const char *const *choices);

/* Print the trace's warnings (severity >= warning) as one line each on stderr, unless quiet. */
void ks_cli_warnings(const ks_trace *tr, int quiet);


#endif
