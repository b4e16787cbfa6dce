#!/usr/bin/env python3
"""tests/compare/gate_cli.py: `kinesift gate` end to end through the binary, on the corpus trace
hta/ns_resolution_trace (5 ProfilerSteps) and on copies of it made here in a temporary directory.

The first two steps of that capture differ from the last three (its forward pass takes 15 ms
there, 38 ms later), so the gates below skip them (--skip-steps 2) and pool two copies per side
for 6 samples each (docs/statistics.md needs 5).

  pass        the trace against itself (two copies per side: two runs) passes (exit 0); the JSON,
              JUnit and Markdown outputs;
              too few samples are inconclusive (exit 3, 0 with warn); --github-summary
  regression  a copy whose "## forward ##" events are 20 % longer (every other byte identical)
              fails with exit 1 and a JUnit failure naming exactly that check; a regression whose
              interval reaches below the limit (three stretched copies of the resnet trace a side)
              says so in text, JSON, Markdown and JUnit
  errors      on fixtures/compare/steps.json: settings mismatch (exit 2, --allow-mismatch),
              unreadable input, usage errors, an output naming an input (never overwritten), a
              budget with every check kind, bad budgets
  validate    results of `kinesift validate --format json` as inputs
  real        the issue's real pair, as closely as the corpus allows (there is no second capture of
              kineto-tb/resnet50_num_workers_0): a copy of that trace with every timestamp and
              duration stretched by 16.68 % (the difference the issue saw between two captures of
              that configuration) against the original. One run per side: not a regression (the
              old pooled-steps rule, reproduced here from the JSON samples, called it one); with
              the two captures as two runs on each side (swapped), the per-run medians disagree by
              more than the limit: warned, and not a regression either
usage: gate_cli.py pass|regression|errors|validate|real"""
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from decimal import Decimal

KINESIFT = os.environ["KINESIFT"]
CORPUS = os.environ["KS_CORPUS"]
ROOT = os.environ["KS_SOURCE_ROOT"]
TRACE = os.path.join(CORPUS, "hta", "ns_resolution_trace", "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
LABEL = "## forward ##"
STEPS = os.path.join(os.environ["KS_FIXTURES"], "compare", "steps.json")  # 6 steps of 90 us, see gen.py
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def gate(*args, env=None):
    # lines whole (the layout at 80 columns is tests/cli/text_fit.py's)
    env = dict(env if env is not None else os.environ, COLUMNS="10000")
    p = subprocess.run([KINESIFT, "gate", *args], capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr


def pooled(base, cand, *extra):
    """Two copies per side, the first two steps of each left out."""
    return gate("-b", base, "-b", base, "-c", cand, "-c", cand, "--skip-steps", "2", *extra)


def junit_cases(path):
    root = ET.parse(path).getroot()
    cases = {}
    for tc in root.iter("testcase"):
        kinds = [c.tag for c in tc if c.tag in ("failure", "skipped", "error")]
        cases[tc.get("name")] = kinds[0] if kinds else "pass"
    return root, cases


def lengthen(src, dst, label, factor):
    """Copy src to dst with every complete event named label `factor` times longer: only the
    digits of those events' "dur" change. Returns the number of events changed."""
    with gzip.open(src, "rb") as f:
        text = f.read().decode("utf-8")
    pat = re.compile(r'("name": ' + re.escape(json.dumps(label)) + r'[^{}]*?"dur": )(\d+(?:\.\d+)?)')

    def longer(m):
        d = Decimal(m.group(2)) * Decimal(factor)
        return m.group(1) + str(d.quantize(Decimal("0.001")))

    out, n = pat.subn(longer, text)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(out)
    return n


def events(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)["traceEvents"]


def test_pass(tmp):
    js, xml, md = (os.path.join(tmp, n) for n in ("g.json", "g.xml", "g.md"))
    code, out, err = pooled(TRACE, TRACE, "--json", js, "--junit", xml, "--markdown", md)
    check(code == 0, f"the trace against itself passes (exit {code}): {out}{err}")
    doc = json.load(open(js))
    check(doc["schema"] == "kinesift.gate/1" and doc["mode"] == "gate", "gate JSON schema")
    for key in ("tool", "version", "status", "seed", "threshold", "alpha", "context", "metrics", "exit_code"):
        check(key in doc, f"JSON has {key} (statistics.md 4.2)")
    check(doc["status"] == "pass" and doc["exit_code"] == 0, "JSON status pass, exit_code 0")
    check(doc["threshold"] == 0.05 and doc["alpha"] == 0.05, "default threshold 5 %, alpha 0.05")
    check(doc["runs_per_side_min"] == 1 and doc["single_run_margin"] == 0.15, "run parameters in the JSON")
    check(doc["context"]["default_set"] is True, "no budget, no flags: the default set")
    names = [m["name"] for m in doc["metrics"]]
    check(names[0] == "step_time", f"default set starts with step_time: {names}")
    check(f"label {LABEL}" in names, f"{LABEL} (> 5 % of a step) is in the default set: {names}")
    check(not any("ProfilerStep" in n for n in names), "step annotations are not label checks")
    for m in doc["metrics"]:
        check(m["verdict"] == "no-change" and m["status"] == "pass", f"{m['name']}: {m['verdict']}")
        check(m["baseline"]["n"] == 6 and m["candidate"]["n"] == 6, f"{m['name']}: 2 x 3 samples per side")
        check(m["baseline"]["samples"] == m["candidate"]["samples"], f"{m['name']}: same samples")
        for k in ("unit", "ratio", "ci", "p", "test", "reason"):
            check(k in m, f"metric has {k}")
        check(len(m["baseline"]["per_input"]) == 2, "per-input medians of the two pooled copies")
        check(m["holm_m"] == len(names), "Holm across every check")
    # the step samples are the widened step times of steps 103-105, read independently
    walls = analyze_walls(TRACE)
    check(doc["metrics"][0]["baseline"]["samples"] == walls[2:] * 2,
          f"step samples = analyze's steps 103-105: {doc['metrics'][0]['baseline']['samples']} vs {walls}")
    root, cases = junit_cases(xml)
    check(set(cases) == set(names) and set(cases.values()) == {"pass"}, f"JUnit: one passing case per check {cases}")
    check(root.get("failures") == "0" and root.get("tests") == str(len(names)), "JUnit counts")
    text = open(md).read()
    check(text.startswith("### kinesift gate: pass (exit 0)"), f"markdown header: {text[:80]!r}")
    check(text.count("| **pass** |") == len(names), "markdown: one row per check")
    check("kinesift gate: pass (exit 0)" in out, "text result line")

    # too few samples (4 of the fixture's 6 steps skipped): inconclusive, exit 3 or 0 with warn
    code, out, _ = gate("-b", STEPS, "-c", STEPS, "--skip-steps", "4")
    check(code == 3 and "too few samples: 2 baseline, 2 candidate" in out, f"2 samples: exit 3 (got {code}: {out})")
    code, out, err = gate("-b", STEPS, "-c", STEPS, "--skip-steps", "4", "--on-inconclusive=warn")
    check(code == 0 and "inconclusive" in out and "--on-inconclusive=warn" in err,
          f"--on-inconclusive=warn: exit 0 with a warning (got {code}: {err})")

    # GitHub step summary: appended, never replaced
    summary = os.path.join(tmp, "summary.md")
    with open(summary, "w") as f:
        f.write("earlier step\n")
    env = dict(os.environ, GITHUB_STEP_SUMMARY=summary)
    code, _, _ = gate("-b", STEPS, "-b", STEPS, "-c", STEPS, "-c", STEPS, "--step-time", "5", "--github-summary",
                      env=env)
    text = open(summary).read()
    check(code == 0 and text.startswith("earlier step\n### kinesift gate: pass (exit 0)"), "--github-summary appends")
    code, _, err = gate("-b", STEPS, "-c", STEPS, "--github-summary", env={k: v for k, v in os.environ.items()
                                                                            if k != "GITHUB_STEP_SUMMARY"})
    check(code == 2 and "GITHUB_STEP_SUMMARY" in err, "--github-summary without the variable: exit 2")


def analyze_walls(path):
    p = subprocess.run([KINESIFT, "analyze", "--format", "json", path], capture_output=True, text=True)
    return [s["wall_ns"] for s in json.loads(p.stdout)["traces"][0]["steps"]]


def test_regression(tmp):
    longer = os.path.join(tmp, "longer.json")
    n = lengthen(TRACE, longer, LABEL, "1.2")
    base_ev, cand_ev = events(TRACE), events(longer)
    want = sum(1 for e in base_ev if e.get("name") == LABEL and e.get("ph") == "X")
    check(n == want == 5, f"{n} of {want} {LABEL} events made longer")
    changed = [i for i, (a, b) in enumerate(zip(base_ev, cand_ev)) if a != b]
    check(len(base_ev) == len(cand_ev) and len(changed) == want, "every other event is identical")
    for i in changed:
        a, b = base_ev[i], cand_ev[i]
        check({k: v for k, v in a.items() if k != "dur"} == {k: v for k, v in b.items() if k != "dur"},
              "only dur changed")
        check(abs(Decimal(str(b["dur"])) / Decimal(str(a["dur"])) - Decimal("1.2")) < Decimal("1e-6"), "20 % longer")
    xml, js = os.path.join(tmp, "r.xml"), os.path.join(tmp, "r.json")
    code, out, err = pooled(TRACE, longer, "--junit", xml, "--json", js)
    check(code == 1, f"20 % longer label: exit 1 (got {code}): {out}{err}")
    root, cases = junit_cases(xml)
    failed = [n for n, k in cases.items() if k == "failure"]
    check(failed == [f"label {LABEL}"], f"JUnit failure names the check: {cases}")
    check(root.get("failures") == "1", "JUnit: one failure")
    check(all(k == "pass" for n, k in cases.items() if n != f"label {LABEL}"), f"the other checks pass: {cases}")
    doc = json.load(open(js))
    m = next(m for m in doc["metrics"] if m["name"] == f"label {LABEL}")
    check(m["verdict"] == "slower" and doc["status"] == "regression" and doc["exit_code"] == 1, "JSON regression")
    check(abs(m["ratio"] - 1.2) < 0.001 and m["ci"][0] > 1.05 and m["p"] < 0.05, f"ratio 1.2, CI above 1.05: {m}")
    row = [line for line in out.splitlines() if line.rstrip().endswith(f"label {LABEL}")]
    check(len(row) == 1 and row[0].split()[0] == "regression", f"text row of the check: {row}")
    # the same check as a flag with a 30 % limit: +20 % lies within it
    code, out, _ = pooled(TRACE, longer, "--label", f"{LABEL}=30", "--step-time", "5")
    check(code == 0 and re.search(r"^ +pass +\+30 % ", out, re.M), f"--label {LABEL}=30: +20 % lies within 30 % (got {code}: {out})")
    test_caveat(tmp)


def test_errors(tmp):
    # settings mismatch: a copy captured with_stack
    with open(STEPS, encoding="utf-8") as f:
        text = f.read()
    stack = os.path.join(tmp, "with_stack.json")
    with open(stack, "w", encoding="utf-8") as f:
        f.write(text.replace("{", '{"with_stack": 1, ', 1))
    xml = os.path.join(tmp, "m.xml")
    code, out, err = gate("-b", STEPS, "-c", stack, "--junit", xml)
    check(code == 2 and "with_stack off vs on" in err and "--allow-mismatch" in err,
          f"settings mismatch: exit 2 (got {code}: {err})")
    root, cases = junit_cases(xml)
    check(cases == {"gate inputs": "error"}, f"JUnit error test case for the mismatch: {cases}")
    code, out, err = gate("-b", STEPS, "-b", STEPS, "-c", stack, "-c", stack, "--allow-mismatch", "--step-time", "5")
    check(code == 0 and "compared anyway" in err, f"--allow-mismatch: compared (got {code}: {err})")

    # unreadable and corrupt input
    xml2 = os.path.join(tmp, "u.xml")
    code, _, err = gate("-b", STEPS, "-c", os.path.join(tmp, "missing.json"), "--junit", xml2)
    check(code == 2 and "missing.json" in err, f"missing input: exit 2 ({err})")
    _, cases = junit_cases(xml2)
    check(cases == {"gate inputs": "error"}, "JUnit error for an unreadable input")
    broken = os.path.join(tmp, "broken.json")
    with open(broken, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": ')
    code, _, err = gate("-b", STEPS, "-c", broken, "--strict")
    check(code == 2, f"corrupt input with --strict: exit 2 (got {code})")

    # usage errors
    check(gate("-b", STEPS)[0] == 2, "no candidate: exit 2")
    check(gate("-b", STEPS, "-c", STEPS, "--step-time", "x")[0] == 2, "bad --step-time: exit 2")
    check(gate("-b", STEPS, "-c", STEPS, "--label", "fwd")[0] == 2, "--label without =PCT: exit 2")
    check(gate("-b", STEPS, "-c", STEPS, "--on-inconclusive", "maybe")[0] == 2, "bad --on-inconclusive: exit 2")
    check(gate("-b", STEPS, "-c", STEPS, STEPS)[0] == 2, "a stray argument: exit 2")

    # an output naming an input is refused, the input untouched
    copy = os.path.join(tmp, "copy.json")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    before = hashlib.sha256(open(copy, "rb").read()).hexdigest()
    for opt in ("--json", "--junit", "--markdown"):
        code, _, err = gate("-b", copy, "-c", STEPS, opt, copy)
        check(code == 2 and "refusing to overwrite" in err, f"{opt} naming an input: exit 2 ({err})")
    indir = os.path.join(tmp, "runs")
    os.mkdir(indir)
    inside = os.path.join(indir, "run1.json")
    with open(inside, "w", encoding="utf-8") as f:
        f.write(text)
    code, _, err = gate("-b", indir, "-c", STEPS, "--json", inside)
    check(code == 2 and "refusing to overwrite" in err, f"an output naming a trace of an input directory ({err})")
    check(hashlib.sha256(open(copy, "rb").read()).hexdigest() == before, "the input is unchanged")
    check(hashlib.sha256(open(inside, "rb").read()).hexdigest() == before, "the input in the directory is unchanged")

    # standard input is a trace
    with open(STEPS, "rb") as f:
        p = subprocess.run([KINESIFT, "gate", "-b", "-", "-b", STEPS, "-c", STEPS, "-c", STEPS, "--step-time", "5"],
                           stdin=f,
                           capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and "pass" in p.stdout, f"-b - reads a trace from standard input ({p.stderr})")
    code, _, err = gate("-b", STEPS, "-c", STEPS, "--json", os.path.join(tmp, "x.json"), "--junit",
                        os.path.join(tmp, "x.json"))
    check(code == 2 and "two outputs" in err, "the same file for two outputs: exit 2")

    # a budget with every check kind (the fixture's numbers are in gen.py)
    budget = os.path.join(tmp, "budget.json")
    with open(budget, "w") as f:
        json.dump({"schema": "kinesift.budget/1", "checks": [
            {"metric": "step_time", "max_growth_pct": 3},
            {"metric": "label", "name": "bwd", "max_growth_pct": 10},
            {"metric": "gpu_label", "name": "gfwd"},
            {"metric": "gpu_idle_share", "max_growth_points": 1},
            {"metric": "op", "name": "aten::mm", "max_growth_pct": 5},
            {"metric": "kernel_time", "name": "gemm", "max_growth_pct": 5},
            {"metric": "kernel_launches"},
        ]}, f)
    js = os.path.join(tmp, "b.json")
    two = ("-b", STEPS, "-b", STEPS, "-c", STEPS, "-c", STEPS)  # two runs per side
    code, out, err = gate(*two, "--budget", budget, "--normalize-kernels", "--json", js)
    doc = json.load(open(js))
    got = {m["name"]: (m["status"], m["limit"]) for m in doc["metrics"]}
    check(doc["context"]["default_set"] is False, "a budget replaces the default set")
    check(got == {"step_time": ("pass", 0.03), "label bwd": ("pass", 0.1), "gpu_label gfwd": ("pass", 0.05),
                  "gpu_idle_share": ("pass", 1), "op aten::mm": ("pass", 0.05), "kernel_time gemm": ("pass", 0.05),
                  "kernel_launches": ("pass", 0)}, f"budget checks and limits: {got}")
    # the last step launches 1 kernel, the others 2: every run's median is 2 on both sides, so the
    # run-level interval is the point 1 and even a zero limit passes
    check(code == 0, f"budget: exit 0 (got {code}: {out})")
    launches = next(m for m in doc["metrics"] if m["name"] == "kernel_launches")
    check(launches["baseline"]["samples"] == [2, 2, 2, 2, 2, 1] * 2, f"launch samples {launches['baseline']['samples']}")
    idle = next(m for m in doc["metrics"] if m["name"] == "gpu_idle_share")
    check(idle["unit"] == "points" and abs(idle["baseline"]["median"] - 100 * 40 / 90) < 1e-3, "idle share in points")
    # one run per side: said in one line, and never a pass
    code, out, err = gate("-b", STEPS, "-c", STEPS, "--budget", budget, "--normalize-kernels")
    check(code == 3 and err.count("warning: one run per side") == 1 and out.count("warning: one run per side") == 1,
          f"one run per side: one line, exit 3 (got {code}: {err})")
    check(" pass " not in out, f"one run per side: no check passes ({out})")
    # --runs-per-side-min
    code, out, _ = gate(*two, "--step-time", "5", "--runs-per-side-min", "3")
    check(code == 3 and "2 baseline and 2 candidate runs: at least 3 per side required" in out,
          f"--runs-per-side-min 3 with two runs: inconclusive (got {code}: {out})")
    check(gate(*two, "--runs-per-side-min", "0")[0] == 2, "--runs-per-side-min 0: exit 2")
    check(gate(*two, "--runs-per-side-min", "2.5")[0] == 2, "--runs-per-side-min 2.5: exit 2")
    code, _, err = gate("-b", STEPS, "-c", STEPS, "--budget", budget, "--step-time", "5")
    check(code == 2 and "given twice" in err, f"a check in the budget and as a flag: exit 2 ({err})")
    with open(budget, "w") as f:
        json.dump({"checks": [{"metric": "step_time"}, {"metric": "labels", "name": "x"}]}, f)
    code, _, err = gate("-b", STEPS, "-c", STEPS, "--budget", budget)
    check(code == 2 and "checks[1]: unknown metric 'labels'" in err, f"bad budget: exit 2 ({err})")
    code, out, _ = gate("-b", STEPS, "-c", STEPS, "--label", "no such label=5")
    check(code == 2 and "no label named 'no such label'" in out, f"a label on neither side: exit 2 ({out})")


def validate_result(tmp, name, base_ms, cand_ms):
    timer = os.path.join(ROOT, "tests", "validate", "fake_timer.py")
    path = os.path.join(tmp, name)
    cmd = lambda ms: f"{sys.executable} -S -E {timer} {ms} 0.01 25"
    p = subprocess.run([KINESIFT, "validate", "--baseline-cmd", cmd(base_ms), "--candidate-cmd", cmd(cand_ms),
                        "--format", "json", "--output", path], capture_output=True, text=True, timeout=120)
    check(p.returncode in (0, 1, 3) and os.path.exists(path), f"validate ran: {p.returncode} {p.stderr}")
    return path


def test_validate(tmp):
    main = validate_result(tmp, "main.json", 10, 10)
    pr = validate_result(tmp, "pr.json", 10, 13)
    js, xml = os.path.join(tmp, "v.json"), os.path.join(tmp, "v.xml")
    code, out, err = gate("-b", main, "-c", pr, "--json", js, "--junit", xml)
    check(code == 1, f"validate results: the candidate arm 30 % slower: exit 1 (got {code}: {out}{err})")
    doc = json.load(open(js))
    got = {m["name"]: m["status"] for m in doc["metrics"]}
    # one validate result per side is one run per side: the unchanged arm cannot pass, the arm
    # 30 % slower lies beyond the limit plus the single-run margin
    check(got == {"validate commands/baseline-cmd": "inconclusive", "validate commands/candidate-cmd": "regression"},
          f"one check per arm: {got}")
    check(doc["context"]["inputs"] == "validate-results", "inputs are validate results")
    # the samples are the validate file's kept samples per execution
    vdoc = json.load(open(pr))
    raw = vdoc["workloads"][0]["raw"]
    kept = [r["ns"] / r["k"] for r in raw if r["arm"] == 1 and r["status"] == "kept"]
    m = next(m for m in doc["metrics"] if m["name"] == "validate commands/candidate-cmd")
    check(m["candidate"]["samples"] == [round(v) for v in kept], "samples = kept raw samples of the arm")
    code, out, _ = gate("-b", main, "-c", main)
    check(code == 3, f"a validate result against itself, one run per side: inconclusive (got {code}: {out})")
    main2 = validate_result(tmp, "main2.json", 10, 10)
    code, out, _ = gate("-b", main, "-b", main2, "-c", main2, "-c", main)
    check(code == 0, f"two validate results per side of the same commands pass (got {code}: {out})")
    code, _, err = gate("-b", main, "-c", STEPS)
    check(code == 2 and "compare traces with traces" in err, f"validate result vs trace: exit 2 ({err})")


RESNET = os.path.join(CORPUS, "kineto-tb", "resnet50_num_workers_0", "worker0.1623143089861.pt.trace.json.gz")


def stretch(src, dst, factor):
    """Copy src to dst with every "ts" (about the first one) and "dur" multiplied by factor."""
    with gzip.open(src, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    t0 = min(e["ts"] for e in evs if isinstance(e.get("ts"), (int, float)))
    for e in evs:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = round(t0 + (e["ts"] - t0) * factor, 3)
        if isinstance(e.get("dur"), (int, float)):
            e["dur"] = round(e["dur"] * factor, 3)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def test_real(tmp):
    second = os.path.join(tmp, "second_capture.json")
    stretch(RESNET, second, 1.1668)
    js = os.path.join(tmp, "real.json")
    code, out, err = gate("-b", RESNET, "-c", second, "--step-time", "5", "--json", js)
    doc = json.load(open(js))
    m = doc["metrics"][0]
    check(code == 3 and m["status"] == "inconclusive", f"one run per side, +16.68 %: inconclusive (got {code}: {out})")
    check(abs(m["ratio"] - 1.1668) < 0.002, f"the step time ratio is the stretch: {m['ratio']}")
    check(m["test"] == "block-bootstrap" and m["runs"]["baseline"] == 1, f"the single-run method: {m['test']}")
    check(m["ci"][0] > 1.05, f"its within-run interval alone lies above the limit: {m['ci']}")
    check("one run per side" in err, "said in one line")
    # the old rule on the same samples: median ratio above 1.05 and the U test significant, the
    # samples taken as independent (6 + 6 steps with no overlap give the exact p 2/C(12,6))
    a, b = m["baseline"]["samples"], m["candidate"]["samples"]
    check(len(a) == len(b) == 6 and max(a) < min(b), "every stretched step is longer than every original one")
    check(2 / 924 < 0.05 and sorted(b)[2] / sorted(a)[2] > 1.05, "the pooled-steps rule would have said regression")
    # two captures per side (swapped): run-level A/A with a 16.7 % run effect
    code, out, err = gate("-b", RESNET, "-b", second, "-c", second, "-c", RESNET, "--step-time", "5", "--json", js)
    m = json.load(open(js))["metrics"][0]
    check(code == 3 and m["status"] == "inconclusive" and m["test"] == "welch-runs",
          f"two runs per side: inconclusive, by Welch (got {code}: {out})")
    check(abs(m["ratio"] - 1) < 1e-9, f"swapped runs: ratio 1 ({m['ratio']})")
    check("the baseline's per-run medians disagree by 16.7 %" in err and
          "the candidate's per-run medians disagree by 16.7 %" in err, f"spread warnings ({err})")


def test_caveat(tmp):
    """A regression whose interval reaches back below the limit says so in every output. Three
    runs a side, each a copy of the resnet trace stretched by a known factor (baseline 0.99, 1.00,
    1.01; candidate 1.06, 1.09, 1.12): per-run medians spread enough that the 95 % interval of
    the ratio excludes 1 but reaches below 1.05, with the estimate near 1.09."""
    runs = {}
    for f in (0.99, 1.00, 1.01, 1.06, 1.09, 1.12):
        runs[f] = os.path.join(tmp, f"run{f}.json")
        stretch(RESNET, runs[f], f)
    xml, js, md = (os.path.join(tmp, "c." + x) for x in ("xml", "json", "md"))
    args = []
    for f in (0.99, 1.00, 1.01):
        args += ["-b", runs[f]]
    for f in (1.06, 1.09, 1.12):
        args += ["-c", runs[f]]
    code, out, err = gate(*args, "--step-time", "5", "--json", js, "--junit", xml, "--markdown", md)
    m = json.load(open(js))["metrics"][0]
    caveat = "the interval reaches below the +5 % limit"
    check(code == 1 and m["status"] == "regression", f"regression (got {code}: {out})")
    check(m["ci"][0] > 1 and m["ci"][0] < 1.05 and m["ratio"] > 1.05, f"an interval reaching below the limit: {m}")
    check(m["interval_crosses_limit"] is True and m["caveat"] == caveat, f"JSON caveat: {m.get('caveat')}")
    check(f"step_time: regression; {caveat}:" in out, f"text verdict line: {out}")
    check(f"**regression** ({caveat})" in open(md).read(), "Markdown verdict cell")
    root, _ = junit_cases(xml)
    fail = root.find(".//failure")
    check(fail is not None and fail.get("message", "").startswith(caveat), "JUnit failure message")
    check(caveat in (root.find(".//system-out").text or ""), "JUnit system-out")


def main():
    group = sys.argv[1]
    tests = {"pass": test_pass, "regression": test_regression, "errors": test_errors, "validate": test_validate,
             "real": test_real}
    with tempfile.TemporaryDirectory() as tmp:
        tests[group](tmp)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("ok")


main()
