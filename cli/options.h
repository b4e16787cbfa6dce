/* cli/options.h: the option tables of the commands (git's parse-options idea): each command
 * describes its options once, as a table of entries (long name, short name, kind of argument,
 * where the value goes, one line of help), and one parser reads argv against it.
 *
 * What: ks_opt_parse parses argv with getopt_long (GNU order: options and operands may mix; "--"
 * ends the options) against a table, stores each value in its target, checks numbers and choices,
 * and turns every mistake into one line on stderr and exit status 2 (an unknown option, a missing
 * argument, an argument given to a flag, a bad value). A table may include another (KS_OPT_TYPE_TABLE:
 * the analysis options shared by analyze, report, annotate and whatif).
 * Why it is correct: every option a command accepts is an entry of its table and nothing else is
 * accepted; `CMD --list-options` prints the table (one name per line, aliases included), which
 * tests/cli/options.py checks against `CMD --help`, so the help text and the table cannot drift.
 * When it does not apply: the help texts stay hand-written (cli/dist/gen.py makes the man pages
 * and the completion from them); the table's help lines are short reminders for the check.
 * Who may use it: cli/ only. Not thread-safe (getopt's state is global). */
#ifndef KS_CLI_OPTIONS_H
#define KS_CLI_OPTIONS_H

#include <stddef.h>

typedef enum ks_opt_type {
    KS_OPT_TYPE_END = 0,  /* ends a table */
    KS_OPT_TYPE_FLAG,     /* no argument: *(int *)target = 1 */
    KS_OPT_TYPE_STRING,   /* *(const char **)target = the argument */
    KS_OPT_TYPE_COUNT,    /* a whole number >= 0: *(long *)target */
    KS_OPT_TYPE_CHOICE,   /* one of choices (NULL-terminated): *(int *)target = its index */
    KS_OPT_TYPE_CALL,     /* call(ctx, cmd, key, arg): 0, or an exit status after its usage error */
    KS_OPT_TYPE_CALL_FLAG, /* the same without an argument (arg is NULL) */
    KS_OPT_TYPE_ALIAS,    /* another name of the entry whose long name is `alias_of` */
    KS_OPT_TYPE_TABLE     /* the entries of another table (target: const ks_option *) */
} ks_opt_type;

typedef struct ks_option {
    const char *name;          /* long name, without the dashes */
    char short_name;           /* 0: none */
    ks_opt_type type;
    void *target;
    const char *help;          /* a short line (the command's --help text is the documentation) */
    const char *const *choices; /* KS_OPT_TYPE_CHOICE */
    const char *what;          /* KS_OPT_TYPE_CHOICE: the noun of the error ("format": "unknown format 'x'") */
    int (*call)(void *ctx, const char *cmd, int key, const char *arg);
    void *ctx;
    int key;                   /* handed to call */
    const char *alias_of;      /* KS_OPT_TYPE_ALIAS */
    const char **given;        /* when set, the long name of the option ("top") is stored there
                                * each time it is given (so the last one given is there) */
} ks_option;

#define KS_OPT_FLAG(n, s, t, h) {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_FLAG, .target = (t), .help = (h)}
#define KS_OPT_STRING(n, s, t, h) {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_STRING, .target = (t), .help = (h)}
#define KS_OPT_COUNT(n, s, t, h) {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_COUNT, .target = (t), .help = (h)}
#define KS_OPT_CHOICE(n, s, t, c, w, h)                                                          \
    {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_CHOICE, .target = (t), .choices = (c), .what = (w), .help = (h)}
#define KS_OPT_CALL(n, s, f, x, k, h)                                                            \
    {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_CALL, .call = (f), .ctx = (x), .key = (k), .help = (h)}
#define KS_OPT_CALL_FLAG(n, s, f, x, k, h)                                                       \
    {.name = (n), .short_name = (s), .type = KS_OPT_TYPE_CALL_FLAG, .call = (f), .ctx = (x), .key = (k), .help = (h)}
#define KS_OPT_ALIAS(n, of) {.name = (n), .type = KS_OPT_TYPE_ALIAS, .alias_of = (of), .help = "same as --" of}
#define KS_OPT_TABLE(t) {.type = KS_OPT_TYPE_TABLE, .target = (void *)(t)}
#define KS_OPT_END() {.type = KS_OPT_TYPE_END}

/* Parse argv[1 ..] (argv[0] is the command name) against tab. Returns 0 with *first the index of
 * the first operand (operands are moved after the options), KS_EXIT_OK's negative -1 after
 * --list-options printed the table (the caller returns 0), or an exit status after a one-line
 * usage error. */
int ks_opt_parse(const char *cmd, const ks_option *tab, int argc, char **argv, int *first);
#define KS_OPT_LISTED (-1)

/* Every long name of tab (nested tables and aliases included) as "--name", and each short name as
 * "-c", one per line: what `CMD --list-options` prints. */
void ks_opt_list(const ks_option *tab);

#endif
