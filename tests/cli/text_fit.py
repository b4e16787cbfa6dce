#!/usr/bin/env python3
"""tests/cli/text_fit.py: text a user reads in a terminal fits it. Every help text (`kinesift
--help`, `help CMD`, `CMD --help`) is at most 80 columns wide, its option lines keep the layout
cli/dist/gen.py reads; `kinesift analyse` is `kinesift analyze` (the docs' spelling) and an
unknown command names the closest one; the text of analyze, stats, whatif, diff, gate, ranks and validate --list fits
the terminal on every real trace (80 columns when stdout is not a terminal and COLUMNS is unset,
else COLUMNS), long names shortened in the middle (whole in JSON), tables aligned; a table too wide
for the terminal is shown in blocks of columns, each repeating the row's key, and no column is
lost. Standard library only."""
import json, os, re, subprocess, sys

KS = os.environ["KINESIFT"]
FIX = os.environ["KS_FIXTURES"]
failures = []


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([KS, *args], capture_output=True, text=True, env=e)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


# ---- help texts within 80 columns ---------------------------------------------------------------
top = run("--help").stdout
cmds = [l.split()[0] for l in top.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        if not l.startswith("   ")]
check(len(cmds) >= 10 and "analyze" in cmds and "help" in cmds, "commands listed: %s" % cmds)
for name, text in [("--help", top)] + [(c, run("help", c).stdout) for c in cmds]:
    wide = [l for l in text.splitlines() if len(l) > 80]
    check(not wide, "help %s: %d lines wider than 80: %r" % (name, len(wide), wide[:2]))
    # every option line keeps its description apart (two spaces) or on the next, deeper line:
    # its left part is options and their arguments, never a sentence
    for l in text.splitlines():
        if re.match(r"^  --?[a-zA-Z]", l):
            left = re.split(r" {2,}", l.strip())[0].split()
            prose = [w for w in left if re.fullmatch(r"[a-z]{3,}[,.;:']?", w)]
            check(len(prose) <= 1, "help %s: prose in the option column: %r" % (name, l))
# the wrapped text says the same words as the text in the source (nothing lost in the reflow)
analyze_help = run("analyze", "--help").stdout
for phrase in ("DUR, here and below", "folded values: CPU self time", "--all-diagnoses"):
    check(phrase in analyze_help, "analyze --help still says %r" % phrase)

# ---- analyse is analyze, and a close misspelling names the command -------------------------------
example = os.path.join(FIX, "example", "train_step.json")
a, b = run("analyze", example, "--quiet"), run("analyse", example, "--quiet")
check(a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout, "analyse = analyze")
check(run("help", "analyse").stdout == run("help", "analyze").stdout, "help analyse")
check(run("summarise", "--help").stdout == run("summarize", "--help").stdout, "summarise = summarize")
for typo, near in (("anlyze", "analyze"), ("analyz", "analyze"), ("dif", "diff"), ("gates", "gate"),
                   ("reprot", "report"), ("redcat", "redact"), ("valid", "validate"),
                   ("Analyze", "analyze")):
    r = run(typo)
    check(r.returncode == 2 and ("did you mean '%s'?" % near) in r.stderr and r.stderr.count("\n") == 1,
          "%s suggests %s: %r" % (typo, near, r.stderr))
    r = run("help", typo)
    check(r.returncode == 2 and ("did you mean '%s'?" % near) in r.stderr, "help %s suggests %s" % (typo, near))
for far in ("xyzzy", "compile", "a"):
    r = run(far)
    check(r.returncode == 2 and "did you mean" not in r.stderr and "no such command" in r.stderr,
          "%s suggests nothing: %r" % (far, r.stderr))

# ---- analyze's text fits the terminal ------------------------------------------------------------
corpus = os.environ.get("KS_CORPUS", os.path.join(FIX, "real"))
traces = sorted(os.path.join(r, f) for r, _, fs in os.walk(corpus) for f in fs if ".json" in f)
check(len(traces) >= 20, "real traces: %d" % len(traces))
plain = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
widest = {}
for t in traces:
    # not a terminal and no COLUMNS: 80 columns
    r = subprocess.run([KS, "analyze", "--quiet", t], capture_output=True, text=True, env=plain)
    wide = [l for l in r.stdout.splitlines() if len(l) > 80]
    check(r.returncode == 0 and not wide, "%s: %d lines wider than 80: %r" % (t, len(wide), wide[:2]))
    check("\x01" not in r.stdout and "\x02" not in r.stdout and "\t" not in r.stdout, "%s: no marker left" % t)
    r2 = run("analyze", "--quiet", t, env={"COLUMNS": "120"})
    widest[t] = max(len(l) for l in r2.stdout.splitlines())
    check(widest[t] <= 120, "%s: COLUMNS=120 gives lines of %d" % (t, widest[t]))
check(max(widest.values()) > 80, "COLUMNS is followed: some line is wider than 80 at 120 columns")

# long names shortened in the middle in text, whole in JSON
b200 = os.path.join(corpus, "tracelens", "b200", "eager_trace.json.gz")
doc = json.loads(run("analyze", "--quiet", "--format", "json", b200).stdout)["traces"][0]
longest = max((k["name"] for k in doc["kernels"][:15]), key=len)
text = run("analyze", "--quiet", b200, env={"COLUMNS": "80"}).stdout
check(len(longest) > 80 and longest not in text, "the longest kernel name is whole only in JSON")
gpu_part = text[text.index("GPU work by total time"):]
gpu_part = gpu_part[:gpu_part.index("\n\n")]
check(any(" ... " in l and l.rstrip().endswith("[kernel]") for l in gpu_part.splitlines()),
      "long kernel names are shortened in the middle in text, their kind kept")

# aligned tables: in the operators table, the first column's values end where its header ends
lines = text.splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith("  Top ") and "operators" in l)
hdr = lines[i + 1]
end = hdr.index("self") + len("self")
rows = []
for l in lines[i + 2:]:
    if not l.strip():
        break
    if re.match(r"^ +[0-9.]+ [mun]?s ", l):
        rows.append(l)
check(len(rows) >= 5 and all(re.match(r"^ +[0-9.]+ [mun]?s", l).end() == end for l in rows),
      "operators table aligned under its header: %r" % rows[:3])


# ---- every other command's text fits too ---------------------------------------------------------
def fits(what, args, wide_env=None):
    """the text at 80 columns (no COLUMNS, not a terminal): no line wider, no marker left; returns
    it and the text with lines whole (COLUMNS=10000)"""
    r = subprocess.run([KS, *args], capture_output=True, text=True, env=plain)
    wide = [l for l in r.stdout.splitlines() if len(l) > 80]
    check(r.stdout and not wide, "%s: %d lines wider than 80: %r" % (what, len(wide), wide[:2]))
    check(not re.search("[\x01\x02\t]", r.stdout), "%s: no marker left" % what)
    whole = run(*args, env={"COLUMNS": "10000"}).stdout
    return r.stdout, whole


def words(text):
    return set(re.findall(r"[A-Za-z_%]+", text))


for i, t in enumerate(traces):
    nxt = traces[(i + 1) % len(traces)]
    fits("stats %s" % t, ["stats", t])
    fits("whatif %s" % t, ["whatif", "--quiet", "--shrink", "@cpu=0.5", t])
    if i % 3 == 0:  # a third of the pairs: each trace is in one
        fits("diff %s" % t, ["diff", t, nxt])
        fits("gate %s" % t, ["gate", "-b", t, "-c", nxt])
        narrow, whole = fits("ranks %s" % t, ["ranks", "--quiet", t])
        # the table in blocks keeps every column and every heading
        for col in ("rank", "rule", "steps", "step_med", "busy", "compute", "exposed", "host_wait", "kernels",
                    "wait", "caused", "last", "source"):
            check(re.search(r"(^| )%s( |$)" % col, narrow, re.M), "ranks %s: column %s at 80 columns" % (t, col))
        check(len(re.findall(r"^rank +rule +steps .*caused +last +source$", whole, re.M)) == 1,
              "ranks %s: one table with COLUMNS=10000" % t)
        check(len(re.findall(r"^rank ", narrow, re.M)) >= 2, "ranks %s: blocks at 80 columns, each keyed by rank" % t)

# the list of validate's workloads (no GPU needed)
fits("validate --list", ["validate", "--list"])

# gate's rows in blocks: every block names the check beside its row, and the values are those of
# the whole line
a = os.path.join(corpus, "hta", "timeline_analysis", "sampled_rank-0.json.gz")
b = os.path.join(corpus, "hta", "trace_filter", "sampled_rank-1.json.gz")
narrow, whole = fits("gate pair", ["gate", "-b", a, "-c", b])
hdr = next(l for l in whole.splitlines() if l.lstrip().startswith("verdict"))
cols_whole = hdr.split()
blocks = [l.split() for l in narrow.splitlines() if l.lstrip().startswith("verdict")]
check(len(blocks) >= 2 and all(bl[0] == "verdict" and bl[-1] == "check" for bl in blocks),
      "gate: blocks of columns, each with the verdict and the check: %r" % blocks)
check(sorted(c for bl in blocks for c in bl[1:-1]) == sorted(cols_whole[1:-1]),
      "gate: each column in exactly one block: %r vs %r" % (blocks, cols_whole))
step_whole = next(l for l in whole.splitlines() if l.rstrip().endswith(" step_time"))
step_rows = [l for l in narrow.splitlines() if l.rstrip().endswith(" step_time")]
check(len(step_rows) == len(blocks) and
      sorted(w for l in step_rows for w in l.split()[1:-1]) == sorted(step_whole.split()[1:-1]),
      "gate: the step_time row's cells, split over the blocks: %r vs %r" % (step_rows, step_whole))

# diff: the GPU direct group stays under its heading
narrow, _ = fits("diff pair", ["diff", a, b])
check(re.search(r"^ +GPU direct *$", narrow, re.M) and re.search(r"^ +count +self *$", narrow, re.M),
      "diff: the column groups in blocks, each under its heading")

if failures:
    sys.exit("%d failures" % len(failures))
print("ok: help within 80 columns, analyse, suggestions, every command's text fits")
