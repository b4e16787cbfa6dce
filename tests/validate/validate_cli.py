#!/usr/bin/env python3
"""tests/validate/validate_cli.py: `kinesift validate` end to end, without a GPU.

  commands  the external-command mode with fake_timer.py standing in for PyTorch scripts:
            verdicts and exit codes, the warm-up rule and the values checked independently
            from the JSON, interleaving, the output check, errors, --raw, --output; runs whose
            samples are all warm-up stop after the first runs with what to change (never
            n 0 / nan); the protocol line counts exactly what was discarded.
  nogpu     built-in pairs and plugins on a machine without a usable GPU: one line naming
            the cause (the CUDA error and its number, or "built without CUDA support"),
            exit 77, no numbers; usage errors are still exit 2. Skipped (77) when a GPU
            answers.
usage: validate_cli.py commands|nogpu CUDA_BUILT(0|1) PLUGIN_DIR [EXAMPLE_PLUGIN]"""
import csv
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
from decimal import Decimal

KINESIFT = os.environ["KINESIFT"]
HERE = os.path.dirname(os.path.abspath(__file__))
TIMER = os.path.join(HERE, "fake_timer.py")
FAILURES = []


def run(*args):
    p = subprocess.run([KINESIFT, "validate", *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def timer(mean, cv, n=25, extra=""):
    return f"{sys.executable} -S -E {TIMER} {mean} {cv} {n} {extra}".strip()


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def metric(doc):
    check(doc["schema"] == "kinesift.validate/1", "schema")
    check(len(doc["metrics"]) == 1, "one metric")
    return doc["metrics"][0]


def cmd_json(base, cand, *extra):
    code, out, err = run("--baseline-cmd", base, "--candidate-cmd", cand, "--format", "json",
                         *extra)
    try:
        doc = json.loads(out)
    except ValueError:
        check(False, f"JSON output ({code}): {out[:200]!r} {err[:300]!r}")
        return code, None, err
    return code, doc, err


def expected_samples(arm, run_no, mean, cv, n):
    """What fake_timer printed, as exact ns."""
    rng = random.Random(f"{arm}:{run_no}:{float(mean)}:{float(cv)}")
    out = []
    for _ in range(n):
        text = f"{max(rng.gauss(float(mean), float(cv) * float(mean)), 0.001):.6f}"
        out.append(int(Decimal(text) * 1000000))
    return out


def status_by_rule(values, runs=3, min_ms=100.0, cap_ms=2000.0):
    """docs/validate.md: first discarded, then warm-up until >= runs and >= min_ms."""
    st, warm_n, warm_ns = [], 0, 0
    for i, v in enumerate(values):
        if i == 0:
            st.append("first")
        elif warm_n < runs or (warm_ns < min_ms * 1e6 and warm_ns < cap_ms * 1e6):
            st.append("warmup")
            warm_n += 1
            warm_ns += v
        else:
            st.append("kept")
    return st


def test_faster():
    code, doc, err = cmd_json(timer(10, 0.02), timer(8, 0.02))
    if doc is None:
        return
    m = metric(doc)
    check(code == 0 and doc["exit_code"] == 0, f"faster exits 0 ({code}, {err})")
    check(m["verdict"] == "faster", f"10 ms vs 8 ms is faster: {m['verdict']}")
    check(doc["context"]["timing"] == "command", "timing source is the command")
    check(doc["context"]["device"] is None, "no device in command mode")
    wl = doc["workloads"][0]
    raw = wl["raw"]
    # the values and statuses, from what fake_timer printed and the documented rule
    arms = {0: ("baseline", 10, 0.02), 1: ("candidate", 8, 0.02)}
    kept = {0: [], 1: []}
    for arm, (name, mean, cv) in arms.items():
        runs = sorted({s["run"] for s in raw if s["arm"] == arm})
        check(len(runs) >= 3, f"{name}: at least 3 runs")
        for r in runs:
            got = [s for s in raw if s["arm"] == arm and s["run"] == r]
            want = expected_samples(name, r, mean, cv, 25)
            check([s["ns"] for s in got] == want, f"{name} run {r}: exact ns values")
            check([s["status"] for s in got] == status_by_rule(want),
                  f"{name} run {r}: first/warm-up/kept as documented")
            kept[arm] += [s["ns"] for s, st in zip(got, status_by_rule(want)) if st == "kept"]
    # interleaving: each block runs each command once, and not always in the same order
    blocks = {}
    for s in raw:
        blocks.setdefault(s["block"], []).append((s["run"], s["arm"]))
    orders = set()
    for b, runs in blocks.items():
        seq = []
        for r_a in runs:
            if r_a not in seq:
                seq.append(r_a)
        check(sorted(a for _, a in seq) == [0, 1], f"block {b} holds one run of each")
        orders.add(tuple(a for _, a in seq))
    check(len(blocks) >= 3, "at least 3 blocks")
    # the statistics, recomputed here from the kept values (type-7 = 'inclusive')
    for side, arm in (("baseline", 0), ("candidate", 1)):
        v = kept[arm]
        st = m[side]
        check(st["samples"] == v, f"{side}: kept samples in order")
        check(st["n"] == len(v), f"{side}: n")
        check(abs(st["median"] - statistics.median(v)) <= 1, f"{side}: median")
        check(abs(st["mean"] - statistics.fmean(v)) <= 1, f"{side}: mean")
        check(abs(st["stdev"] - statistics.stdev(v)) <= 1, f"{side}: stdev")
        q1, _, q3 = statistics.quantiles(v, n=4, method="inclusive")
        check(abs(st["q1"] - q1) <= 1 and abs(st["q3"] - q3) <= 1, f"{side}: quartiles")
        check(st["min"] == min(v) and st["max"] == max(v), f"{side}: min, max")
    # each command run is one run (statistics.md section 8): the effect is the ratio of the
    # geometric means of the per-run medians, recomputed here
    logs = {}
    for arm in (0, 1):
        name = arms[arm][0]
        meds = []
        for r in sorted({s["run"] for s in raw if s["arm"] == arm}):
            want = expected_samples(name, r, arms[arm][1], arms[arm][2], 25)
            meds.append(statistics.median([v for v, st in zip(want, status_by_rule(want)) if st == "kept"]))
        logs[arm] = [math.log(x) for x in meds]
    ratio = math.exp(statistics.fmean(logs[1]) - statistics.fmean(logs[0]))
    check(abs(m["ratio"] - ratio) < 1e-5, f"ratio {m['ratio']} vs {ratio}")  # six significant digits
    check(m["runs"]["baseline"] == len(logs[0]) and m["runs"]["candidate"] == len(logs[1]), "runs per side")
    check(m["ci"][0] <= ratio <= m["ci"][1], "the CI holds the ratio")
    check(m["ci"][1] < 0.98 and m["p"] < 0.05, "faster: CI below 1 - 2 %, p < alpha")
    check(m["test"] == "welch-runs", "test named")
    check(m["threshold"] == 0.02 and m["alpha"] == 0.05, "validate parameters")
    check(doc["seed"] == 0x6b696e6573696674, "default seed reported")
    check(m["check"] == "not-provided", "no check lines: not-provided")


def test_same_and_noisy():
    code, doc, _ = cmd_json(timer(10, 0.005), timer(10, 0.005))
    if doc:
        m = metric(doc)
        check(m["verdict"] == "no-change" and code == 0,
              f"identical steady distributions: no-change, exit 0 ({m['verdict']}, {code})")
        check(0.98 <= m["ci"][0] and m["ci"][1] <= 1.02, "no-change: CI within 1 +/- 2 %")
    code, doc, _ = cmd_json(timer(10, 0.005), timer(10, 0.005), "--expect", "faster")
    if doc:
        check(code == 1 and metric(doc)["verdict"] == "no-change",
              "--expect faster: no-change exits 1")
    code, doc, _ = cmd_json(timer(10, 0.3), timer(10, 0.3))
    if doc:
        m = metric(doc)
        check(m["verdict"] == "inconclusive" and code == 3,
              f"identical noisy distributions: inconclusive, exit 3 ({m['verdict']}, {code})")
        check(m["reason"] and m["suggestion"], "inconclusive has a reason and a suggestion")
        check(m["baseline"]["noise"] == "very-noisy", "noise flag")
    code, doc, _ = cmd_json(timer(8, 0.02), timer(10, 0.02))
    if doc:
        check(metric(doc)["verdict"] == "slower" and code == 1, "8 ms vs 10 ms: slower, exit 1")
    # too few kept samples: 16 per run (about 5 and 2 kept after the warm-up), 1 run allowed
    code, doc, _ = cmd_json(timer(10, 0.02, 16), timer(8, 0.02, 16), "--runs", "1",
                            "--max-runs", "1")
    if doc:
        m = metric(doc)
        check(m["verdict"] == "inconclusive" and "too few samples" in m["reason"],
              f"too few samples: inconclusive ({m['reason']})")
        check(doc["workloads"][0]["stop"] == "max-runs", "stop: max-runs")


def test_output_check():
    code, doc, _ = cmd_json(timer(10, 0.02, extra="--check 1.5"),
                            timer(8, 0.02, extra="--check 1.25"))
    if doc:
        m = metric(doc)
        check(m["verdict"] == "different-results" and code == 1,
              f"check mismatch: different-results, exit 1 ({m['verdict']})")
        check(m["check"] == "mismatch", "check: mismatch")
    code, doc, _ = cmd_json(timer(10, 0.02, extra="--check 1.5"),
                            timer(8, 0.02, extra="--check 1.5000001"), "--check-rtol", "1e-6")
    if doc:
        m = metric(doc)
        check(m["verdict"] == "faster" and m["check"] == "match",
              f"check within --check-rtol: match ({m['check']})")


def test_all_warmup_and_protocol():
    # 10 samples of 10 ms per run: the first is discarded and 90 ms stay below --warmup-ms 200,
    # so every sample is warm-up; kinesift stops after the first run of each command
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "runs.log")
        cmd = lambda ms: f"echo run >> {log}; " + timer(ms, 0.02, n=10)
        code, out, err = run("--baseline-cmd", cmd(10), "--candidate-cmd", cmd(8), "--warmup-ms", "200")
        runs = open(log).read().count("run") if os.path.exists(log) else 0
    check(code == 2 and "run printed 10 samples over" in err and "all are warm-up" in err and
          "print more iterations or lower --warmup-ms" in err, f"all warm-up: exit 2 with the cause ({code}: {err})")
    check(err.count("\n") == 1 and "nan" not in out + err and "n 0" not in out, "one line, no nan")
    check(runs == 2, f"stopped after the first run of each command ({runs} runs)")
    # the protocol line says exactly what was discarded, as the raw statuses count it
    args = ("--baseline-cmd", timer(10, 0.02), "--candidate-cmd", timer(8, 0.02))
    code, out, _ = run(*args)
    code2, doc, _ = cmd_json(*args[1::2])
    if doc is None:
        return
    raw = doc["workloads"][0]["raw"]
    line = next((x for x in out.splitlines() if x.strip().startswith("protocol:")), "")
    check("in every command run the first sample discarded" in line, f"protocol line: {line}")
    for arm, name in ((0, "baseline-cmd"), (1, "candidate-cmd")):
        st = [r["status"] for r in raw if r["arm"] == arm]
        want = (f"{name} {st.count('first')} first + {st.count('warmup')} warm-up "
                f"({st.count('kept')} kept)")
        check(want in line, f"protocol line counts {want!r}: {line}")


def test_errors_and_files():
    code, _, err = run("--baseline-cmd", timer(10, 0.02, extra="--exit 3"), "--candidate-cmd",
                       timer(8, 0.02))
    check(code == 2 and "exited with status 3" in err, f"failing command: exit 2 ({err})")
    check(err.count("\n") == 1, "one line")
    code, _, err = run("--baseline-cmd", timer(10, 0.02), "--candidate-cmd",
                       timer(8, 0.02, extra="--bad"))
    check(code == 2 and "malformed sample line" in err and "12,5" in err,
          f"malformed sample: exit 2 ({err})")
    code, doc, err = cmd_json(timer(10, 0.02, extra="--quiet"), timer(8, 0.02))
    check(code == 2 and "no 'kinesift-sample <ms>' line" in err, f"no samples: exit 2 ({err})")
    if doc:
        check(doc["status"] == "error" and doc["exit_code"] == 2, "JSON error status")
    code, _, err = run("--baseline-cmd", "true")
    check(code == 2 and "go together" in err, "a lone --baseline-cmd is a usage error")
    with tempfile.TemporaryDirectory() as d:
        out, raw = os.path.join(d, "r.json"), os.path.join(d, "raw.csv")
        code, stdout, _ = run("--baseline-cmd", timer(10, 0.02), "--candidate-cmd",
                              timer(8, 0.02), "--format", "json", "--output", out, "--raw", raw)
        check(code == 0 and stdout == "", "--output: nothing on stdout")
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
        with open(raw, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == len(doc["workloads"][0]["raw"]), "--raw: one row per sample")
        check({r["status"] for r in rows} == {"first", "warmup", "kept"}, "--raw statuses")
        check(rows[0]["role"] in ("baseline", "candidate"), "--raw role column")
    code, out, _ = run("--baseline-cmd", timer(10, 0.02), "--candidate-cmd", timer(8, 0.02))
    check(code == 0 and "verdict: faster" in out and "kinesift timed nothing" in out,
          "text report")


def test_nogpu(cuda_built, plugin_dir, example):
    code, out, err = run("sync-per-op", "--format", "json", "--samples", "10", "--timeout", "1")
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    if doc.get("status") == "ok":
        print("a GPU answered: the no-GPU tests do not apply here")
        sys.exit(77)
    check(code == 77 and doc.get("status") == "unavailable", "JSON: status unavailable, 77")
    check(set(doc) == {"schema", "tool", "version", "mode", "status", "reason", "exit_code"},
          "JSON of a refusal: no numbers, no verdict")
    if cuda_built:
        check("(cuda" in doc["reason"] and "error " in doc["reason"],
              f"the CUDA error name and number: {doc['reason']}")
    else:
        check(doc["reason"] == "built without CUDA support", doc["reason"])
    code, out, err = run()
    check(code == 77 and out == "", f"all pairs: exit 77, nothing on stdout ({code})")
    check(err.count("\n") == 1 and err.startswith("kinesift: validate: "), f"one line: {err!r}")
    check(err.strip().endswith(doc["reason"]), "the same cause in text and JSON")
    ok = os.path.join(plugin_dir, "libks_test_plugin_ok.so")
    code, out, err = run("--workload", ok)
    check(code == 77 and out == "", f"plugin without a GPU: 77 ({code}, {err})")
    if example:  # examples/axpy_plugin.cu, built with CUDA: loads, passes the ABI checks
        code, out, err = run("--workload", example, "--param", "n=1024")
        check(code == 77 and out == "", f"example plugin without a GPU: 77 ({code}, {err})")
        code, _, err = run("--workload", example, "--variants", "fused,nope")
        check(code == 2 and "axpy has no variant 'nope'" in err, f"example variants: {err}")
    else:
        check(not cuda_built, "a CUDA build builds the example plugin")
    bad = os.path.join(plugin_dir, "libks_test_plugin_badabi.so")
    code, _, err = run("--workload", bad)
    check(code == 2 and "ABI version" in err, f"bad plugin: exit 2 before the GPU ({err})")
    for args, what in ((["nope"], "no built-in workload"),
                       (["constant-upload", "--bytes", "x"], "--bytes wants"),
                       (["constant-upload", "--kernels", "3"], "does not apply"),
                       (["small-kernels", "--variants", "launches,nope"], "no variant"),
                       (["--samples", "5"], "--samples wants"),
                       (["--workload", ok, "--variants", "slow,nope"], "no variant"),
                       (["--param", "a=1"], "--param applies"),
                       # more than KS_LIMIT_VALIDATE_* (8): an error, never a silent cut
                       (["constant-upload"] * 9, "at most 8 workloads"),
                       (["small-kernels", "--variants", ",".join(["launches", "fused"] * 4
                                                                 + ["graph"])],
                        "at most 8 arms")):
        code, _, err = run(*args)
        check(code == 2 and what in err, f"usage error {args}: {err.strip()}")
    code, out, _ = run("--list")
    check(code == 0 and all(n in out for n in ("constant-upload", "small-kernels",
                                               "pageable-copy", "sync-per-op")), "--list")


def test_unit_and_caveat():
    # the unit is said in the text report and in the JSON
    args = ("--baseline-cmd", timer(10, 0.02), "--candidate-cmd", timer(8, 0.02))
    code, out, _ = run(*args)
    check("unit: the command run" in out, f"the unit in the text report: {out[:400]}")
    code, doc, _ = cmd_json(*args[1::2])
    if doc:
        check(doc["context"]["protocol"]["comparison_unit"] == "command-run", "comparison_unit: command-run")
    # one run of each command: gate's one-run rule (block bootstrap; beyond the limit plus the
    # 15-point margin only, never no-change): +10 % is inconclusive, +50 % slower
    for cand, want in ((11, "inconclusive"), (15, "slower"), (10, "inconclusive")):
        code, doc, _ = cmd_json(timer(10, 0.02, 60), timer(cand, 0.02, 60), "--runs", "1", "--max-runs", "1")
        if doc:
            m = metric(doc)
            check(m["test"] == "block-bootstrap" and m["runs"]["baseline"] == 1 and m["verdict"] == want,
                  f"one run, {cand} vs 10 ms: {want} ({m['test']}, {m['verdict']}: {m['reason']})")
    # the law on what is printed: slower means the interval excludes 1 and the estimate is beyond
    # the limit; the caveat (JSON field, text verdict line) is there exactly when the interval
    # reaches below the limit. Three runs of 6 samples, 3 % noise, +4 % to +16 % against a 2 %
    # limit give intervals of both kinds (fake_timer's draws depend on the mean).
    kinds = set()
    for cand in (52, 52.5, 53, 54, 55, 56, 58):
        a = ("--baseline-cmd", timer(50, 0.03, 6), "--candidate-cmd", timer(cand, 0.03, 6), "--warmup-ms", "0",
             "--warmup-runs", "1", "--samples", "10", "--runs", "3")
        code, out, _ = run(*a)
        code2, doc, _ = cmd_json(a[1], a[3], *a[4:])
        if not doc:
            continue
        m = metric(doc)
        lo, hi = m["ci"]
        verdict_line = next((x for x in out.splitlines() if x.strip().startswith("verdict:")), "")
        if m["verdict"] == "slower":
            check(lo > 1 and m["ratio"] > 1.02 and code == 1, f"slower: {m['ci']} {m['ratio']}")
            crosses = lo < 1.02
            kinds.add(crosses)
            check(m["interval_crosses_limit"] == crosses, f"interval_crosses_limit {m['interval_crosses_limit']}")
            caveat = "the interval reaches below the +2 % limit"
            check((m["caveat"] == caveat) == crosses, f"caveat {m['caveat']!r} for {m['ci']}")
            check((caveat in verdict_line) == crosses, f"verdict line: {verdict_line}")
        else:
            check(m["caveat"] is None and not m["interval_crosses_limit"], f"no caveat for {m['verdict']}")
    check(kinds == {True, False}, f"both kinds of slower seen over the seeds: {kinds}")


def main():
    group, cuda_built, plugin_dir = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
    example = sys.argv[4] if len(sys.argv) > 4 else ""
    if group == "commands":
        test_faster()
        test_same_and_noisy()
        test_output_check()
        test_errors_and_files()
        test_all_warmup_and_protocol()
        test_unit_and_caveat()
    else:
        test_nogpu(cuda_built, plugin_dir, example)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("ok")


main()
