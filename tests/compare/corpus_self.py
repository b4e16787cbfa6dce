#!/usr/bin/env python3
"""tests/compare/corpus_self.py FILE: a corpus trace compared with itself. `diff` finds no
change, aligns every operator and kernel of `analyze` (same counts), and says nothing about
settings; `gate` never exits 1 or 2 (pass or inconclusive: most corpus traces hold fewer than 5
steps), every check has identical samples on both sides and a pass or inconclusive verdict, and
the JUnit file has one test case per check. FILE is absolute, or relative to $KS_CORPUS."""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

KINESIFT = os.environ["KINESIFT"]
path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([KINESIFT, *args], capture_output=True, text=True, timeout=300)


p = run("diff", path, path, "--format", "json", "--quiet")
check(p.returncode == 0, f"diff exit {p.returncode}: {p.stderr}")
d = json.loads(p.stdout)
for t in ("ops", "labels", "kernels"):
    check(d[t]["changed"] + d[t]["added"] + d[t]["removed"] == 0, f"{t}: no change against itself")
    check(all(r["status"] == "same" and r["impact_ns"] == 0 for r in d[t]["rows"]), f"{t}: every row same")
check(d["settings_mismatch"] == [], "no settings warning")
a = json.loads(run("analyze", path, "--format", "json", "--quiet").stdout)["traces"][0]
# every operator but the step annotations (ProfilerStep#N: compared as steps, not rows)
ops = {(r["name"], r["cat"]): r["count"] for r in a["ops"] if not re.fullmatch(r"ProfilerStep#\d+", r["name"])}
rows = {(r["name"], r["category"]): r["before"]["count"] for r in d["ops"]["rows"]}
check(rows == ops, "diff aligns exactly the operators of analyze, with their counts")
kern = sum(r["count"] for r in a["kernels"])
check(sum(r["before"]["count"] for r in d["kernels"]["rows"]) == kern, "kernel counts as in analyze")

with tempfile.TemporaryDirectory() as tmp:
    js, xml = os.path.join(tmp, "g.json"), os.path.join(tmp, "g.xml")
    p = run("gate", "-b", path, "-c", path, "--json", js, "--junit", xml, "--quiet")
    check(p.returncode in (0, 3), f"gate against itself: exit {p.returncode} ({p.stdout[-400:]})")
    g = json.load(open(js))
    check(g["exit_code"] == p.returncode, "JSON exit_code is the exit status")
    for m in g["metrics"]:
        check(m["verdict"] in ("no-change", "inconclusive"), f"{m['name']}: {m['verdict']}")
        check(m["baseline"]["samples"] == m["candidate"]["samples"], f"{m['name']}: same samples")
    cases = list(ET.parse(xml).getroot().iter("testcase"))
    check(len(cases) == len(g["metrics"]), "one JUnit test case per check")
    check(not any(c.find("failure") is not None or c.find("error") is not None for c in cases),
          "no JUnit failure or error")
if failures:
    sys.exit(1)
print("ok")
