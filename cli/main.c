/* cli/main.c: the kinesift command: git-style subcommands over libkinesift. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/heap.h"
#include "common/util.h"
#include "kinesift/common.h"
#ifdef KS_HAVE_CUDA
#include "validate/cuda_wl.h" /* libkinesift-cuda: validate's CUDA backend */
#endif

static const ks_command commands[] = {
    {"stats", "read traces and print what they contain (events, tracks, span, diagnostics)",
     ks_cmd_stats, ks_help_stats},
    {"analyze", "where the time goes: ops, labels, kernels, GPU busy/idle, steps, gaps, diagnoses",
     ks_cmd_analyze, ks_help_analyze},
    {"report", "an HTML page of analyze's figures: step bars, GPU strip, diagnoses, tables",
     ks_cmd_report, ks_help_report},
    {"annotate", "the trace with kinesift's steps, phases, gaps and diagnoses added as tracks",
     ks_cmd_annotate, ks_help_annotate},
    {"whatif", "project the step time if a labelled phase took a fraction of its time",
     ks_cmd_whatif, ks_help_whatif},
    {"redact", "scrub paths, users, hosts, emails and secrets before a trace is shared",
     ks_cmd_redact, ks_help_redact},
    {"diff", "compare a before and an after trace", ks_cmd_diff, ks_help_diff},
    {"gate", "fail CI when a candidate regresses against a baseline", ks_cmd_gate, ks_help_gate},
    {"ranks", "many ranks of one job: who waits for whom, stragglers, clock offsets", ks_cmd_ranks, ks_help_ranks},
    {"summarize", "one rank reduced to what ranks and analyze need (kinesift.summary/2)", ks_cmd_summarize, ks_help_summarize},
    {"validate", "confirm a gain by rerunning a CUDA-event-timed workload without the profiler",
     ks_cmd_validate, ks_help_validate},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char help_help[] =
    "usage: kinesift help [COMMAND]\n"
    "\n"
    "Without COMMAND, the list of commands; with one, its help (the same as kinesift COMMAND --help).\n"
    "\n"
    "Exit status: 0 success, 2 no such command.\n";

/* Other spellings of a command: the British spelling the docs use beside the American one. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"analyse", "analyze"},
    {"summarise", "summarize"},
};

static const ks_command *find(const char *name)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(aliases[i].alias, name))
            name = aliases[i].name;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* Levenshtein distance of a and b, case-insensitive (names of a few letters: a row of 32). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return la > lb ? la : lb;
    size_t row[32];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

/* The command closest to an unknown name, or NULL when none is close: at most 2 edits (1 for a
 * name of up to 4 letters), or the name a prefix of exactly one command. */
static const char *closest(const char *name)
{
    const char *best = NULL, *prefix = NULL;
    size_t bestd = (size_t)-1, nprefix = 0, len = strlen(name);
    for (size_t i = 0; i <= NCOMMANDS; i++) {
        const char *c = i < NCOMMANDS ? commands[i].name : "help";
        size_t d = distance(name, c);
        if (d < bestd)
            bestd = d, best = c;
        if (len >= 2 && !strncmp(name, c, len))
            prefix = c, nprefix++;
    }
    if (bestd <= (len <= 4 ? 1u : 2u))
        return best;
    return nprefix == 1 ? prefix : NULL;
}

static int no_such_command(const char *name)
{
    const char *near = closest(name);
    if (near)
        ks_cli_fail("no such command: %s (did you mean '%s'? see kinesift --help)", name, near);
    else
        ks_cli_fail("no such command: %s (see kinesift --help)", name);
    return KS_EXIT_USAGE;
}

static void usage(FILE *out)
{
    ks_buf b = {0};
    ks_buf_printf(&b,
                  "usage: kinesift [--version] [--help] COMMAND [ARGS]\n"
                  "\n"
                  "Post-process PyTorch profiler (Kineto) traces in the Chrome trace format\n"
                  "(.json, .json.gz/.zst/.xz/.bz2, tar/zip of ranks, directories, '-' for stdin).\n"
                  "\n"
                  "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        ks_buf_printf(&b, "  %-9s  %s\n", commands[i].name, commands[i].summary);
    ks_buf_printf(&b, "  %-9s  %s\n", "help", "show the help of a command: kinesift help COMMAND");
    ks_buf_printf(&b,
                  "\n"
                  "analyse and summarise are the same as analyze and summarize.\n"
                  "\n"
                  "Exit status: 0 success, 1 a finding (gate: a regression; redact --check: a leak;\n"
                  "validate: slower or different-results), 2 usage or input error (an output that\n"
                  "cannot be written or that is an input included), 3 inconclusive\n"
                  "(gate, validate), 77 GPU required but unavailable (validate).\n"
                  "\n"
                  "Environment: KINESIFT_HUGE_HEAP=0 keeps glibc's heap in 4 KiB pages; =1 has the\n"
                  "command run itself again with it on huge pages whatever its inputs (by default:\n"
                  "inputs of 16 MiB or more; smaller files get the heap's first 32 MiB on huge pages\n"
                  "in the process; docs/performance.md, \"The heap on huge pages\").\n");
    ks_cli_help_print(out, ks_buf_cstr(&b));
    ks_buf_free(&b);
}

void ks_cli_help(FILE *out, const char *cmd)
{
    const ks_command *c = find(cmd);
    if (c)
        ks_cli_help_print(out, c->help);
    else
        usage(out);
}

int main(int argc, char **argv)
{
    ks_cli_heap_init(argc, argv); /* may run the command again: before anything else */
    ks_cli_oom_init();
    ks_cli_terminal_guard();
#ifdef KS_HAVE_CUDA
    ks_cuda_enable();
#endif
    if (argc < 2) {
        usage(stderr);
        return KS_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return KS_EXIT_OK;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        ks_cli_version(stdout);
        return KS_EXIT_OK;
    }
    if (!strcmp(name, "help")) {
        if (argc < 3) {
            usage(stdout);
            return KS_EXIT_OK;
        }
        if (!strcmp(argv[2], "help") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
            ks_cli_help_print(stdout, help_help);
            return KS_EXIT_OK;
        }
        if (!find(argv[2]))
            return no_such_command(argv[2]);
        ks_cli_help(stdout, argv[2]);
        return KS_EXIT_OK;
    }
    const ks_command *c = find(name);
    if (!c)
        return no_such_command(name);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            ks_cli_help_print(stdout, c->help);
            return KS_EXIT_OK;
        }
    }
    return ks_cli_finish_stdout(c->name, c->run(argc - 1, argv + 1));
}
