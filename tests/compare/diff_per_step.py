#!/usr/bin/env python3
"""tests/compare/diff_per_step.py: `kinesift diff` of two traces with different numbers of active
steps compares rows per step; step annotations are no rows; the step times' Mann-Whitney U is
exact for small samples, with U given; no p is printed as 0. The traces are written here, and
every expected figure is worked out by hand in the comments. Standard library only."""
import json, os, re, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def trace(walls, kernel_us):
    """one step per wall (us): aten::mm [s, s+10), its launch [s+10, s+12), the kernel gemm
    [s+15, s+15+kernel_us): every step the same work, steps of distinct lengths"""
    ev, s = [], 0
    for i, w in enumerate(walls):
        ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (10 + i), "pid": 1, "tid": 1,
                "ts": s, "dur": w},
               {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": s, "dur": 10},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": s + 10,
                "dur": 2, "args": {"correlation": 100 + i}},
               {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": s + 15, "dur": kernel_us,
                "args": {"device": 0, "stream": 7, "correlation": 100 + i}}]
        s += w
    return {"traceEvents": ev}


def diff(d, before, after, *args):
    pb, pa = os.path.join(d, "before.json"), os.path.join(d, "after.json")
    json.dump(before, open(pb, "w"))
    json.dump(after, open(pa, "w"))
    # MALLOC_PERTURB_: glibc fills new allocations with a non-zero byte, so a field read before
    # it is written shows (under ASan, its own allocator fills them likewise)
    env = dict(os.environ, COLUMNS="10000", MALLOC_PERTURB_="165")
    j = subprocess.run([KS, "diff", pb, pa, "--warmup", "0", "--quiet", "--format", "json", *args],
                       capture_output=True, text=True, env=env)
    t = subprocess.run([KS, "diff", pb, pa, "--warmup", "0", "--quiet", *args], capture_output=True, text=True,
                       env=env)
    check(j.returncode == 0 and t.returncode == 0, "diff runs: %s %s" % (j.stderr, t.stderr))
    return json.loads(j.stdout), t.stdout


def row(doc, table, name):
    for r in doc[table]["rows"]:
        if r["name"] == name:
            return r
    check(False, "no row %s in %s" % (name, table))
    return {}


with tempfile.TemporaryDirectory() as d:
    # 6 steps of 100..105 us against 5 of 200..204 us, the same work in every step: per step
    # nothing changed (gemm 20 us once a step on both sides), in totals every row lost 1/6
    # (gemm 120 -> 100 us, -16.7 %)
    before, after = trace([100, 101, 102, 103, 104, 105], 20), trace([200, 201, 202, 203, 204], 20)
    doc, text = diff(d, before, after)
    ps = doc["per_step"]
    check(ps["defined"] and ps["by_step"] and ps["steps_before"] == 6 and ps["steps_after"] == 5,
          "per step, 6 and 5 steps: %s" % ps)
    g = row(doc, "kernels", "gemm")
    check(g["per_step"] == {"count_before": 1, "count_after": 1, "ns_before": 20000, "ns_after": 20000,
                            "delta_pct": 0}, "gemm per step: %s" % g.get("per_step"))
    check(g["status"] == "same" and g["impact_ns"] == 0, "gemm is the same per step: %s" % g["status"])
    check(g["delta"]["total_pct"] is not None and abs(g["delta"]["total_pct"] + 100 / 6) < 1e-3,
          "the totals stay beside: -16.7 %")
    mm = row(doc, "ops", "aten::mm")
    check(mm["status"] == "same" and mm["per_step"]["ns_before"] == 10000 and mm["per_step"]["ns_after"] == 10000,
          "aten::mm the same per step")
    check(doc["ops"]["changed"] == 0 and doc["kernels"]["changed"] == 0, "no row changed per step")
    # the step annotations are no rows: ProfilerStep#10..15 and #10..14, in the operators and
    # the labels, 2 x (6 + 5) = 22 rows left out
    names = [r["name"] for t in ("ops", "labels", "kernels") for r in doc[t]["rows"]]
    check(not [n for n in names if n.startswith("ProfilerStep#")], "no ProfilerStep row: %s" % names)
    check(ps["step_rows_left_out"] == 22, "22 step rows left out: %s" % ps["step_rows_left_out"])
    check("per step: the sides have 6 and 5 active steps" in text, "the text says it compares per step")
    check("-16.7" not in text and "no change per step" in text, "the text shows no -16.7 %")

    # Mann-Whitney U of the step times: every after step (200..204 us) is longer than every
    # before step (100..105 us): U of before = 0, of after = 6 x 5 = 30; no ties, 6 + 5 steps:
    # exact, p = 2 / C(11, 5) = 2 / 462 = 0.004329
    mw = doc["steps"]["mann_whitney"]
    check(mw["test"] == "mwu-exact" and mw["u"] == 0 and mw["u_after"] == 30 and not mw["ties"],
          "exact U test: %s" % mw)
    check(abs(mw["p"] / (2 / 462) - 1) < 1e-5 and abs(mw["min_p"] / (2 / 462) - 1) < 1e-5, "p = 2/462: %s" % mw["p"])
    cmp = doc["steps"]["comparison"]["step_time"] if "step_time" in doc["steps"]["comparison"] else doc["steps"]["comparison"]
    check(cmp.get("u") == 0, "u filled in the comparison: %s" % cmp.get("u"))
    # the bootstrap: every resample's median ratio is above 1, so its p is 0, a bound: p < 2/10000
    check(cmp.get("p") == 0 and cmp.get("p_below") == 0.0002, "bootstrap p 0 with its bound: %s %s"
          % (cmp.get("p"), cmp.get("p_below")))
    check("bootstrap p < 0.0002" in text, "the text gives the bound")
    check("Mann-Whitney U = 0.0 (after: 30.0), exact two-sided p = 0.00433" in text, "U in the text")
    check(not re.search(r"\bp = 0(\.0*)?\b(?![.\d])", text), "no p printed as 0")

    # a real change per step: gemm 30 us a step after: 20 -> 30 us per step, +50 %
    doc, text = diff(d, before, trace([200, 201, 202, 203, 204], 30))
    g = row(doc, "kernels", "gemm")
    check(g["status"] == "changed" and g["per_step"]["delta_pct"] == 50 and g["impact_ns"] == 10000,
          "gemm +50 %% per step, impact 10 us a step: %s %s" % (g["status"], g["per_step"]))
    # the text's row: per step 1 -> 1, 20 -> 30 us (+50.0 %), in all 120 -> 150 us (+25.0 %)
    line = [l for l in text.splitlines() if l.rstrip().endswith("gemm [kernel]")]
    check(line and re.search(r"changed +1 +1 +20\.000 us +30\.000 us +\+50\.0 % +120\.000 us +150\.000 us +\+25\.0 %",
                             line[0]), "gemm's row: per step and in all: %s" % line)

    # the same number of steps: per-step figures given, rows compared in totals
    doc, text = diff(d, before, trace([200, 201, 202, 203, 204, 205], 20))
    ps = doc["per_step"]
    check(ps["defined"] and not ps["by_step"], "6 and 6 steps: per-step figures, totals compared")
    check("per step: the sides" not in text, "no per-step note for equal step counts")

    # without steps on one side there is no step window: every row's per_step is null, never
    # figures (they once came out of uninitialised memory, different from run to run)
    nosteps = {"traceEvents": [e for e in before["traceEvents"] if e["cat"] != "user_annotation"]}
    doc, text = diff(d, nosteps, after)
    check(not doc["per_step"]["defined"], "no steps before: per-step not defined: %s" % doc["per_step"])
    for table in ("ops", "labels", "kernels"):
        for r in doc[table]["rows"]:
            check(r["per_step"] is None, "%s %s: per_step %s without a step window" % (table, r["name"], r["per_step"]))

# help diff says which test gives which p
h = subprocess.run([KS, "help", "diff"], capture_output=True, text=True).stdout
flat = " ".join(h.split())
check("the bootstrap p (the verdict's)" in flat and "p < 2/resamples, never 0" in flat, "help: the bootstrap p")
check("the Mann-Whitney U test of the step times" in flat and "exact when both sides have at most 50 steps" in flat,
      "help: the U test's p")
check("per-step means" in flat, "help: per step")

if failures:
    sys.exit("%d failures" % len(failures))
print("ok: per-step diff, none without a step window, step rows left out, exact U, p bounds")
