#!/usr/bin/env python3
"""tests/report/fixtures_report.py: `report`, `annotate` and `analyze --format folded` on every
fixture (the laws of checks.py against analyze's JSON and stats), the folded stacks of a
hand-worked trace, and the refusals (the input as output, an existing file, a truncated trace,
stdin). Standard library only."""
import gzip, json, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks
from checks import check, run

FIX = os.environ["KS_FIXTURES"]
FIXTURES = sorted(os.path.join(d, f) for d, _, fs in os.walk(FIX) for f in fs if f.endswith(".json"))

# Hand-worked (times in us): thread 1: ProfilerStep#1 [0, 100) > a.py [10, 90) python >
# aten::mm [20, 60) > cudaLaunchKernel [30, 35) launching kernel K [40, 50) on stream 7;
# ProfilerStep#2 [100, 150) > aten::add [110, 130).
# CPU self: step#1 100-80 = 20, a.py 80-40 = 40, aten::mm 40-5 = 35, launch 5, step#2 50-20 = 30,
# aten::add 20. Without Python frames a.py's 40 goes to the step: ProfilerStep#* = 20+40+30 = 90.
HAND = {"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "python_function", "name": "a.py(3): f", "pid": 1, "tid": 1, "ts": 10, "dur": 80},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 40},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "K;1", "pid": 0, "tid": 7, "ts": 40, "dur": 10,
     "args": {"correlation": 1, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 110, "dur": 20},
]}

with tempfile.TemporaryDirectory() as d:
    hand = os.path.join(d, "hand.json")
    json.dump(HAND, open(hand, "w"))
    got = checks.folded(hand)
    check(got == {"ProfilerStep#*": 90000, "ProfilerStep#*;aten::mm": 35000,
                  "ProfilerStep#*;aten::mm;cudaLaunchKernel": 5000, "ProfilerStep#*;aten::add": 20000},
          f"hand-worked folded CPU stacks: {got}")
    got = checks.folded(hand, "--python-frames")
    check(got == {"ProfilerStep#*": 50000, "ProfilerStep#*;a.py(3): f": 40000,
                  "ProfilerStep#*;a.py(3): f;aten::mm": 35000,
                  "ProfilerStep#*;a.py(3): f;aten::mm;cudaLaunchKernel": 5000,
                  "ProfilerStep#*;aten::add": 20000}, f"hand-worked folded stacks with Python frames: {got}")
    got = checks.folded(hand, "--folded-metric", "gpu")
    check(got == {"ProfilerStep#*;aten::mm;K:1": 10000}, f"hand-worked folded GPU stacks (';' becomes ':'): {got}")
    r = run("analyze", "--format", "folded", "--folded-metric", "ram", hand)
    check(r.returncode == 2 and b"folded metric" in r.stderr, "unknown folded metric refused")

    for f in FIXTURES:
        checks.check_folded(f)
        checks.check_annotate(f, d)
    # one page for every fixture at once, and the telemetry fixture with its smi samples
    checks.check_report(FIXTURES, d)
    # GPU work all of zero length: a GPU span of 0, whose busy share is n/a (JSON null), not 0.0%
    zero = os.path.join(d, "zero_span.json")
    json.dump({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "K", "pid": 0, "tid": 7, "ts": 20, "dur": 0,
         "args": {"correlation": 1, "stream": 7, "device": 0}}]}, open(zero, "w"))
    root = checks.check_report([zero], d)
    if root is not None:
        shares = root.find_all(lambda n: n.attrs.get("data-field") == "busy_share")
        check([b.all_text() for b in shares] == ["n/a"], f"zero GPU span: busy share n/a, not 0.0%: "
              f"{[b.all_text() for b in shares]}")
    tel = os.path.join(FIX, "insights", "telemetry.json")
    root = checks.check_report([tel], d, ("--smi", os.path.join(FIX, "insights", "smi.csv"), "--smi-tz", "+02:00",
                                          "--smi-offset", "-1.5s"))
    if root is not None:
        tables = root.find_all(lambda n: n.tag == "table" and n.attrs.get("data-table") == "telemetry")
        check(len(tables) == 1 and len(tables[0].find_all(lambda n: n.tag == "tr")) > 2,
              "telemetry table with the window and the steps")

    # refusals: never the input, never an existing file without --force, never a truncated trace
    src = os.path.join(d, "in.json")
    raw = open(os.path.join(FIX, "insights", "input_pipeline.json"), "rb").read()
    open(src, "wb").write(raw)
    r = run("annotate", src, "-o", src, "--force")
    check(r.returncode == 2 and b"is the input" in r.stderr and open(src, "rb").read() == raw,
          "annotate refuses to write over its input")
    r = run("report", src, "-o", src, "--force")
    check(r.returncode == 2 and b"is the input" in r.stderr and open(src, "rb").read() == raw,
          "report refuses to write over its input")
    out = os.path.join(d, "exists.json")
    open(out, "w").write("keep")
    r = run("annotate", src, "-o", out)
    check(r.returncode == 2 and open(out).read() == "keep", "annotate refuses an existing file without --force")
    r = run("annotate", "--quiet", src, "-o", out, "--force")
    check(r.returncode == 0 and json.load(open(out))["traceEvents"], "annotate --force replaces it")
    trunc = os.path.join(d, "trunc.json")
    open(trunc, "wb").write(raw[: len(raw) * 2 // 3])
    r = run("annotate", "--quiet", trunc, "-o", os.path.join(d, "t.json"))
    check(r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"truncated" in r.stderr
          and not os.path.exists(os.path.join(d, "t.json")), "a truncated trace is refused, nothing left behind")
    r = run("annotate", "-", "-o", os.path.join(d, "s.json"))
    check(r.returncode == 2, "annotate refuses stdin")
    r = run("report", src)
    check(r.returncode == 2 and b"no output" in r.stderr, "report needs -o")
    # a bare-array trace with a trailing comma: the events go inside the array, valid JSON
    bare = os.path.join(d, "bare.json")
    open(bare, "w").write('[{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, '
                          '"tid": 1, "ts": 0, "dur": 10},\n]')
    checks.check_annotate(bare, d)
    # a gzip output is gzip, the input plain
    r = run("annotate", "--quiet", src, "-o", os.path.join(d, "o.json.gz"))
    check(r.returncode == 0 and open(os.path.join(d, "o.json.gz"), "rb").read(2) == b"\x1f\x8b",
          "annotate -o X.json.gz writes gzip")
    r = run("report", "--quiet", src, "-o", "-")
    check(r.returncode == 0 and r.stdout.startswith(b"<!DOCTYPE html>"), "report -o - writes the page to stdout")

print(f"{len(FIXTURES)} fixtures, {checks.CHECKED[0]} checks, {len(checks.FAILURES)} failures")
sys.exit(1 if checks.FAILURES else 0)
