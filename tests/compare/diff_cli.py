#!/usr/bin/env python3
"""tests/compare/diff_cli.py: `kinesift diff` end to end. On the corpus pair
hta/trace_compare/base and test, the changed operators are checked against an independent reading
of the two files with Python's json module (counts per name and category, and inclusive time as
the per-thread union of each name's intervals); then every format, the settings warning, the
output file and the usage errors."""
import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

KINESIFT = os.environ["KINESIFT"]
CORPUS = os.environ["KS_CORPUS"]
FIXTURES = os.environ["KS_FIXTURES"]
BASE = os.path.join(CORPUS, "hta", "trace_compare", "base", "base.json.gz")
TEST = os.path.join(CORPUS, "hta", "trace_compare", "test", "test.json.gz")
CPU_CATS = {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver", "python_function"}
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def diff(*args):
    # whole lines (no terminal width: a row is read as one line)
    p = subprocess.run([KINESIFT, "diff", *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, COLUMNS="10000"))
    return p.returncode, p.stdout, p.stderr


def read(path):
    """(name, cat) -> [count, inclusive ns] of the complete CPU-side events, read independently."""
    with gzip.open(path, "rt") as f:
        evs = json.load(f)["traceEvents"]
    per = defaultdict(list)
    for e in evs:
        # the step annotations (ProfilerStep#N) are compared as steps, not as rows
        if e.get("ph") == "X" and e.get("cat") in CPU_CATS and not re.fullmatch(r"ProfilerStep#\d+", e["name"]):
            ts, dur = int(round(e["ts"] * 1000)), int(round(e["dur"] * 1000))
            per[(e["name"], e["cat"], e["pid"], e["tid"])].append((ts, ts + dur))
    out = defaultdict(lambda: [0, 0])
    for (name, cat, _, _), ivs in per.items():
        ivs.sort()
        total, cur = 0, None
        for a, b in ivs:
            if cur and a < cur[1]:
                cur[1] = max(cur[1], b)
                continue
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        total += cur[1] - cur[0]
        out[(name, cat)][0] += len(ivs)
        out[(name, cat)][1] += total
    return out


def test_corpus_pair():
    # the whole traces (--window trace): the counts below are read from every event of the files
    before, after = read(BASE), read(TEST)
    changed = {k for k in set(before) | set(after) if before.get(k, [0])[0] != after.get(k, [0])[0]}
    check(changed, "the two files differ in some operator counts")
    code, out, err = diff(BASE, TEST, "--format", "json", "--window", "trace")
    check(code == 0, f"diff exit 0 ({err})")
    doc = json.loads(out)
    check(doc["schema"] == "kinesift.diff/1", "schema")
    rows = {(r["name"], r["category"]): r for r in doc["ops"]["rows"]}
    check(set(rows) == set(before) | set(after), f"every operator is a row: {set(rows) ^ (set(before) | set(after))}")
    for key, r in rows.items():
        b, a = before.get(key), after.get(key)
        check((r["before"] is None) == (b is None) and (r["after"] is None) == (a is None), f"{key}: presence")
        if b:
            check(r["before"]["count"] == b[0] and r["before"]["incl_ns"] == b[1], f"{key}: before {r['before']} vs {b}")
        if a:
            check(r["after"]["count"] == a[0] and r["after"]["incl_ns"] == a[1], f"{key}: after {r['after']} vs {a}")
        want = "added" if not b else "removed" if not a else None
        if want:
            check(r["status"] == want, f"{key}: {r['status']}, want {want}")
        if key in changed:
            check(r["status"] in ("added", "removed", "changed"), f"{key} changed count: status {r['status']}")
    impacts = [r["impact_ns"] for r in doc["ops"]["rows"]]
    check(impacts == sorted(impacts, reverse=True), "rows sorted by impact")
    # the text report names every operator whose count changed, with its status
    code, text, _ = diff(BASE, TEST, "--window", "trace", "--top", "0")
    lines = text.splitlines()
    for name, cat in changed:
        hit = [l for l in lines if l.rstrip().endswith(f"{name} [{cat}]") and l.split()[0] in ("added", "removed", "changed")]
        check(hit, f"text lists {name} [{cat}] as changed")
    check(any(l.startswith("  appeared (3): ") for l in lines), "text: the three operators that appeared")
    # kernels: the add<int> kernel ran 3 times before, 2 after
    k = [r for r in doc["kernels"]["rows"] if "CUDAFunctor_add<int>" in r["name"]]
    check(len(k) == 1 and k[0]["before"]["count"] == 3 and k[0]["after"]["count"] == 2, f"kernel counts {k}")
    code, out, _ = diff(BASE, TEST, "--window", "trace", "--format", "json", "--normalize-kernels")
    kn = json.loads(out)["kernels"]["rows"]
    merged = [r for r in kn if r["name"] == "at::native::vectorized_elementwise_kernel"]
    check(len(merged) == 1 and merged[0]["before"]["count"] == 6 and merged[0]["before"]["names"] == 3,
          f"normalised kernels merge: {merged}")
    # steps: two per side, compared but too few for a verdict
    st = doc["steps"]["comparison"]
    check(st["baseline"]["n"] == 2 and st["candidate"]["n"] == 2 and st["verdict"] == "inconclusive", "steps")
    # a bootstrap over 2 steps a side resamples the steps themselves: no interval, no p (the ratio alone)
    check(st["ci"] == [None, None] and st["p"] is None and
          abs(st["ratio"] - st["candidate"]["median"] / st["baseline"]["median"]) < 1e-6, f"no bootstrap over 2 steps: {st}")
    code, text, _ = diff(BASE, TEST, "--window", "trace")
    check("no bootstrap interval or p: 2 and 2 steps (it needs 5 a side)" in " ".join(text.split()),
          "text: no interval over 2 steps")
    # the text gives each side's lag-1 autocorrelation as the JSON does, n/a where it is null
    code, text, _ = diff(BASE, TEST, "--window", "trace")
    m = re.search(r"lag-1 autocorrelation (\S+) / (\S+)\n", text)
    runs = st["runs"]
    for got, want in zip(m.groups() if m else (), (runs["lag1_autocorr_baseline"], runs["lag1_autocorr_candidate"])):
        check(got == ("n/a" if want is None else f"{want:.2f}"), f"text autocorrelation {got}, JSON {want}")
    check(m, "text: the autocorrelation line")
    # CSV: the same rows
    code, out, _ = diff(BASE, TEST, "--window", "trace", "--format", "csv")
    recs = list(csv.DictReader(io.StringIO(out)))
    ops = [r for r in recs if r["section"] == "op"]
    check(len(ops) == len(rows), "CSV: one row per operator")
    for r in ops:
        b = before.get((r["name"], r["category"]))
        check((r["count_before"] == "" and not b) or (b and int(r["count_before"]) == b[0]), f"CSV count {r['name']}")
    code, out, _ = diff(BASE, TEST, "--window", "trace", "--format", "markdown")
    check(code == 0 and "#### Operators:" in out and "| All2All\\_Pooled\\_Req | cpu\\_op | added |" in out, "markdown")
    check("<4" not in out, "markdown: kernel names escaped")


def test_fixtures_and_errors():
    b, a = os.path.join(FIXTURES, "compare", "before.json"), os.path.join(FIXTURES, "compare", "after.json")
    code, out, err = diff(b, a)
    check(code == 0 and "with_stack" in err and "warning: the captures differ in with_stack" in out,
          f"settings warning ({err})")
    code, out, err = diff(b, a, "--quiet")
    check(code == 0 and err == "", "--quiet: nothing on stderr")
    check(diff(b)[0] == 2, "one input: exit 2")
    check(diff(b, a, a)[0] == 2, "three inputs: exit 2")
    check(diff(b, a, "--format", "xml")[0] == 2, "bad format: exit 2")
    check(diff(b, os.path.join(FIXTURES, "compare", "missing.json"))[0] == 2, "missing input: exit 2")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "d.json")
        code, out, _ = diff(b, a, "--format", "json", "--output", path)
        check(code == 0 and out == "" and json.load(open(path))["schema"] == "kinesift.diff/1", "--output")
        copy = os.path.join(tmp, "b.json")
        with open(b) as f, open(copy, "w") as g:
            g.write(f.read())
        code, _, err = diff(copy, a, "--output", copy)
        check(code == 2 and "refusing to overwrite" in err, "--output naming an input")
        check(json.load(open(copy))["traceEvents"], "the input is intact")


def main():
    test_corpus_pair()
    test_fixtures_and_errors()
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("ok")


main()
