#!/usr/bin/env python3
"""tests/cli/options.py: the option tables of the commands (cli/options.h) against their --help.

What: for every command parsed by an option table, `CMD --list-options` (the table: one long name
per line, nested tables and aliases included) and `CMD --help` name the same options: each table
entry appears in the help text, and each option the help's usage and option lines offer is an
entry of the table. Every mistake is one line on stderr and exit 2: an unknown option (long or
short), a missing argument, an argument given to a flag, a value that is not one of the choices.
Aliases work: `gate --warmup N` is `gate --skip-steps N` (its older name), and the value counts
(fixtures/compare/steps.json has 6 steps: 4 of warm-up leave 2 samples a side, 0 leave 6).
Why: the tables are the only thing the parser accepts, so a help text that lists more or less
than the table is wrong; the checks need no expected output (the two sources must agree).
Standard library only; KINESIFT and KS_FIXTURES from meson."""
import os
import re
import subprocess
import sys

KS = os.environ["KINESIFT"]
FIX = os.environ["KS_FIXTURES"]
TABLED = ["analyze", "report", "annotate", "whatif", "summarize", "diff", "stats", "ranks", "redact", "gate", "validate"]
failures = []


def run(*args):
    return subprocess.run([KS, *args], capture_output=True, text=True, timeout=120)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def one_line_error(r, *needles):
    check(r.returncode == 2, f"exit 2 expected, got {r.returncode}: {r.stderr!r}")
    check(r.stderr.count("\n") == 1 and r.stderr.startswith("kinesift"), f"one-line error: {r.stderr!r}")
    for n in needles:
        check(n in r.stderr, f"{n!r} not in {r.stderr!r}")


def offered(help_text):
    """The long options of the usage and of the option lines (as tests/cli/dist.py reads them)."""
    usage = help_text.split("\n\n", 1)[0]
    lines = [m.group(1) for m in re.finditer(r"^  (-[^ ].*?)(?: {2,}.*)?$", help_text, re.M)]
    return {f for o in lines + [usage] for f in re.findall(r"--[a-z][a-z0-9-]*", o)}


example = os.path.join(FIX, "example", "train_step.json")
for cmd in TABLED:
    r = run(cmd, "--list-options")
    check(r.returncode == 0 and r.stderr == "", f"{cmd} --list-options: {r.returncode} {r.stderr!r}")
    table = {l for l in r.stdout.split() if l.startswith("--")}
    check(len(table) >= 4, f"{cmd}: a table of options: {table}")
    h = run(cmd, "--help").stdout
    for name in sorted(table):
        check(re.search(re.escape(name) + r"(?![a-z0-9-])", h), f"{cmd} --help names {name} (a table entry)")
    for name in sorted(offered(h) - {"--help"}):
        check(name in table, f"{cmd} --help offers {name}, which is not in its table")
    # mistakes: one line, exit 2
    one_line_error(run(cmd, "--zz-bogus", example), "unknown option '--zz-bogus'")
    one_line_error(run(cmd, "--zz-bogus=1", example), "unknown option '--zz-bogus'")
    one_line_error(run(cmd, "-Z", example), "unknown option '-Z'")
    # an option that takes an argument: ranks reads ranks at once with --jobs; redact has no threads
    needs = {"ranks": "--jobs", "redact": "--key-file", "gate": "--budget",
             "validate": "--workload"}.get(cmd, "--threads")
    one_line_error(run(cmd, example, needs), f"option '{needs}' needs an argument")
    # a flag: redact reads no trace structure and validate no trace at all: no --strict there
    flag = {"redact": "--force", "validate": "--hot"}.get(cmd, "--strict")
    one_line_error(run(cmd, flag + "=yes", example), f"option '{flag}' takes no argument")

one_line_error(run("analyze", "--format", "xml", example), "unknown format 'xml' (text, json, csv or folded)")
one_line_error(run("analyze", "--top", "many", example), "--top needs a number >= 0")
one_line_error(run("whatif", "--format", "yaml", "--shrink", "a=1", example), "unknown format 'yaml' (text or json)")
# options after the operands are still options (GNU order), and "--" ends them
a = run("analyze", "--format", "json", example)
b = run("analyze", example, "--format", "json")
check(a.returncode == 0 and a.stdout == b.stdout, "analyze FILE --format json = analyze --format json FILE")
one_line_error(run("analyze", "--", "--format"), "--format")

# the warm-up option is --warmup everywhere; gate keeps --skip-steps as its alias
steps = os.path.join(FIX, "compare", "steps.json")
g_old = run("gate", "-b", steps, "-c", steps, "--skip-steps", "4")
g_new = run("gate", "-b", steps, "-c", steps, "--warmup", "4")
check(g_old.returncode == 3 and "too few samples: 2 baseline, 2 candidate" in g_old.stdout,
      f"gate --skip-steps 4: {g_old.returncode} {g_old.stdout}")
check((g_new.returncode, g_new.stdout) == (g_old.returncode, g_old.stdout), "gate --warmup 4 = --skip-steps 4")
g_none = run("gate", "-b", steps, "-c", steps, "--warmup", "0")
check("too few samples" not in g_none.stdout, f"gate --warmup 0 keeps the 6 samples: {g_none.stdout}")
one_line_error(run("gate", "-b", steps, "-c", steps, "--warmup", "x"), "--warmup")
for cmd in ("analyze", "report", "annotate", "whatif", "gate"):
    check(re.search(r"--warmup N", run(cmd, "--help").stdout), f"{cmd} --help documents --warmup N")

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
