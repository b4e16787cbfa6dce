#!/usr/bin/env python3
"""tests/cli/test_cli.py: the kinesift command as a user meets it: help and version, stdin,
compressed input, one-line errors with byte/line/column and exit 2, JSON schemas of stats and
analyze, what-if on the seed example, and the telemetry options. Standard library only."""
import gzip, json, os, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
FIX = os.environ["KS_FIXTURES"]
failures = []

def run(*args, stdin=None):
    return subprocess.run([KS, *args], input=stdin, capture_output=True)

def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)

def one_line_error(r, *needles):
    err = r.stderr.decode()
    check(r.returncode == 2, f"exit 2 expected, got {r.returncode}: {err!r}")
    check(err.count("\n") == 1 and err.startswith("kinesift"), f"one-line error expected: {err!r}")
    for n in needles:
        check(n in err, f"{n!r} not in {err!r}")

# help and version
r = run("--version")
check(r.returncode == 0 and r.stdout.startswith(b"kinesift "), "--version")
r = run("--help")
for cmd in ("stats", "analyze", "report", "annotate", "whatif", "redact", "diff", "gate", "validate"):
    check(cmd.encode() in r.stdout, f"--help lists {cmd}")
    h = run("help", cmd)
    check(h.returncode == 0 and b"usage: kinesift " + cmd.encode() in h.stdout, f"help {cmd}")
    h2 = run(cmd, "--help")
    check(h2.returncode == 0 and h2.stdout == h.stdout, f"{cmd} --help")
one_line_error(run("nope"), "no such command")
one_line_error(run("analyze"), "no input file")
one_line_error(run("analyze", "--format", "xml", "x.json"), "unknown format")
check(run().returncode == 2, "no command is a usage error")
one_line_error(run("stats", "--threads", "x", "a.json"), "--threads")
one_line_error(run("stats", "--threads", "-1", "a.json"), "--threads")

example = os.path.join(FIX, "example", "train_step.json")
raw = open(example, "rb").read()

# stdin, plain and gzip: the same figures
a = run("stats", "--format", "json", example)
b = run("stats", "--format", "json", "-", stdin=gzip.compress(raw))
check(a.returncode == 0 and b.returncode == 0, "stats of file and stdin")
ja, jb = json.loads(a.stdout)["traces"][0], json.loads(b.stdout)["traces"][0]
check(jb["source"] == "-" and jb["filter"] == "gzip", "stdin source and filter")
for k in ("events", "by_phase", "by_category", "span_ns", "steps", "rank", "world_size"):
    check(ja[k] == jb[k], f"stats {k} equal for file and gzip stdin")
check(json.loads(a.stdout)["schema"] == "kinesift.stats/1", "stats schema")

with tempfile.TemporaryDirectory() as d:
    # errors: missing file, empty file, not JSON, truncated with --strict
    one_line_error(run("stats", os.path.join(d, "missing.json")), "missing.json", "No such file")
    empty = os.path.join(d, "empty.json")
    open(empty, "w").close()
    one_line_error(run("stats", empty), "empty input")
    bad = os.path.join(d, "bad.json")
    open(bad, "w").write('{"traceEvents": [\n  {"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n  {"ph": "X", ts: 2}\n]}')
    r = run("stats", "--strict", bad)
    one_line_error(r, "byte ", "line 3, column ")
    r = run("stats", "--format", "json", bad)
    check(r.returncode == 0, "a broken event is skipped, not fatal")
    t = json.loads(r.stdout)["traces"][0]
    ids = {x["id"]: x for x in t["diagnostics"]}
    check("parse.skipped_event" in ids and ids["parse.skipped_event"]["examples"][0]["line"] == 3,
          "skipped event reported with its line")
    trunc = os.path.join(d, "trunc.json")
    open(trunc, "wb").write(raw[: len(raw) // 2])
    r = run("stats", "--format", "json", trunc)
    t = json.loads(r.stdout)["traces"][0]
    check(r.returncode == 0 and t["truncated"], "truncated object: events kept, flagged")
    one_line_error(run("stats", "--strict", trunc), "truncated")
    # a directory of traces and a tar of them
    os.mkdir(os.path.join(d, "run"))
    for rank in range(2):
        with gzip.open(os.path.join(d, "run", f"rank{rank}.pt.trace.json.gz"), "wb") as f:
            f.write(raw)
    r = run("stats", "--format", "json", os.path.join(d, "run"))
    check(r.returncode == 0 and len(json.loads(r.stdout)["traces"]) == 2, "directory of ranks")
    # telemetry options
    one_line_error(run("analyze", "--smi", os.path.join(FIX, "insights", "smi.csv"), example), "--smi-tz")
    r = run("analyze", "--format", "json", "--smi", os.path.join(FIX, "insights", "smi.csv"), "--smi-tz",
            "+02:00", "--smi-offset", "-1.5s", os.path.join(FIX, "insights", "telemetry.json"))
    check(r.returncode == 0, f"analyze --smi: {r.stderr!r}")
    tel = json.loads(r.stdout)["traces"][0]["telemetry"]
    check(tel["samples"] == 6 and tel["reason"] is None and tel["window"]["util_max"] == 60, "telemetry JSON")
    check([s["smi"]["samples"] for s in tel["steps"]] == [2, 2, 2], "telemetry per step")

# analyze JSON on the example: the schema's sections
r = run("analyze", "--format", "json", example)
check(r.returncode == 0, "analyze example")
doc = json.loads(r.stdout)
check(doc["schema"] == "kinesift.analyze/1", "analyze schema")
t = doc["traces"][0]
for k in ("window", "gpu", "ops", "labels", "kernels", "links", "steps", "steps_summary", "gaps",
          "diagnoses", "telemetry", "diagnostics"):
    check(k in t, f"analyze JSON has {k}")
# the default window is the active steps: the warm-up step 0 is left out of every table, and said
check(len(t["steps"]) == 5 and [s["number"] for s in t["steps"]] == [1, 2, 3, 4, 5], "example steps (active)")
check(t["window"]["kind"] == "active_steps" and t["window"]["chosen"].startswith("active steps 1-5 (5 steps; 1 warm-up")
      and t["window"]["start_ns"] == t["steps"][0]["start_ns"] and t["window"]["end_ns"] == t["steps"][-1]["end_ns"],
      f"example window: {t['window']}")
whole = json.loads(run("analyze", "--format", "json", "--window", "trace", example).stdout)["traces"][0]
check(len(whole["steps"]) == 6 and whole["steps"][0]["warmup"] and not whole["steps"][1]["warmup"], "example steps")
check(whole["window"]["kind"] == "trace", "--window trace: the whole trace")
for s in t["steps"]:
    check(sum(s["breakdown"].values()) == s["wall_ns"], "breakdown adds up to the wall time")
ids = {x["id"] for x in t["diagnoses"]}
check({"input_pipeline", "sync_in_loop", "pageable_copy"} <= ids, f"example diagnoses: {ids}")
for x in t["diagnoses"]:
    for k in ("id", "hypothesis", "evidence", "confidence", "next_check", "refuted_if"):
        check(x.get(k), f"diagnosis {x['id']} has {k}")
# windows
r = run("analyze", "--format", "json", "--window", "steps:2-3", example)
tw = json.loads(r.stdout)["traces"][0]
check([s["number"] for s in tw["steps"]] == [2, 3], "--window steps:2-3 keeps two steps")
one_line_error(run("analyze", "--window", "steps:40", example), "no such step")
# csv
r = run("analyze", "--format", "csv", example)
lines = r.stdout.decode().splitlines()
check(lines[0].startswith("source,section,name"), "csv header")
check(any(",op," in l for l in lines) and any(",kernel," in l for l in lines), "csv sections")

# what-if: the seed example
seed = os.path.join(FIX, "insights", "whatif_seed.json")
for shrink, want in (("prep=0.5", 70), ("gpu_phase=0.5", 90), ("@gpu=0.5", 90)):
    r = run("whatif", "--format", "json", "--shrink", shrink, seed)
    st = json.loads(r.stdout)["traces"][0]["steps"][0]
    check(st["measured_ns"] == 100 * 10**9 and st["model_ns"] == 100 * 10**9, "whatif calibration")
    check(st["projected_ns"] == want * 10**9, f"whatif {shrink} -> {want} s, got {st['projected_ns']}")
one_line_error(run("whatif", seed), "--shrink")
one_line_error(run("whatif", "--shrink", "prep=-1", seed), "FACTOR")
# a label that matches nothing: exit 2 with the closest names, never a "+0.0 %" projection
r = run("whatif", "--shrink", "gpu_phse=0.5", seed)
one_line_error(r, "closest: 'gpu_phase'")

# what-if takes the analysis options of analyze (the one pipeline, ks_insights_run)
def whatif_steps(*args):
    r = run("whatif", "--format", "json", *args)
    check(r.returncode == 0, f"whatif {args}: {r.stderr!r}")
    return json.loads(r.stdout)["traces"][0]["steps"] if r.returncode == 0 else []
every = whatif_steps("--shrink", "@gpu=0.5", "--window", "trace", example)
check([s["number"] for s in every] == list(range(len(every))) and len(every) >= 4, "whatif steps of the example")
# by default the active steps (the warm-up step 0 left out), each replayed as in the whole trace
check(whatif_steps("--shrink", "@gpu=0.5", example) == every[1:], "whatif: the active steps by default")
# --window narrows the replayed steps to those it names, each replayed as without it
inside = whatif_steps("--shrink", "@gpu=0.5", "--window", "steps:2-3", example)
check([s["number"] for s in inside] == [2, 3], f"whatif --window steps:2-3: {[s['number'] for s in inside]}")
check(inside == every[2:4], "whatif --window: the same figures for the steps kept")
# --threads: the same output whatever the number
one = run("whatif", "--shrink", "@gpu=0.5", "--threads", "1", example)
three = run("whatif", "--shrink", "@gpu=0.5", "--threads", "3", example)
check(one.returncode == 0 and one.stdout == three.stdout, "whatif --threads 1 and 3 agree")
one_line_error(run("whatif", "--shrink", "@gpu=0.5", "--threads", "x", example), "--threads")
one_line_error(run("whatif", "--shrink", "@gpu=0.5", "--warmup", "x", example), "--warmup")
# --overlap: B [50,150) outlives its parent A [0,100) (fixtures/analysis/overlap.json, window
# 300 us). Spilled, B keeps its 100 us: at half, 300 - 50 = 250 us; truncated at 100, B is
# [50,100): 300 - 25 = 275 us.
ov = os.path.join(FIX, "analysis", "overlap.json")
for policy, want in (("spill", 250000), ("truncate", 275000)):
    st = whatif_steps("--shrink", "B=0.5", "--overlap", policy, ov)
    check(st and st[0]["projected_ns"] == want, f"whatif --overlap {policy}: {st}")
one_line_error(run("whatif", "--shrink", "B=0.5", "--overlap", "sideways", ov), "overlap")

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
