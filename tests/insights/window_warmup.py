#!/usr/bin/env python3
"""tests/insights/window_warmup.py: the window line, the steps line and the JSON agree on the steps
the default window leaves out.

fixtures/insights/default_window.json has 5 steps, step 1 a warm-up outlier: the window is the
active steps 2-5 and says "1 warm-up left out"; the steps line lists the 4 steps of the window and
says the warm-up step is outside it; steps_summary.outside_window.warmup is 1. The same with
--warmup 1 on every trace of fixtures/real that has at least 2 steps (the first step forced to be a
warm-up, so the window leaves it out), and without it no step is outside the window."""
import glob, json, os, re, subprocess

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]


def analyze(path, *args, fmt="json"):
    r = subprocess.run([exe, "analyze", "--quiet", "--format", fmt, *args, path], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="10000"))
    assert r.returncode == 0, (path, r.stderr)
    return r.stdout


def left_out(chosen):
    """the window line's count of warm-up steps left out"""
    m = re.search(r"(\d+) warm-up(?: and \d+ unfinished)? left out", chosen)
    return int(m.group(1)) if m else 0


def check(path, *args):
    for t in json.loads(analyze(path, *args))["traces"]:
        s = t["steps_summary"]
        w = left_out(t["window"].get("chosen") or "")
        assert s["outside_window"]["warmup"] == w, (path, args, t["window"], s)
        assert s["count"] == len(t["steps"]), (path, s)
        assert s["warmup"] == sum(1 for x in t["steps"] if x["warmup"]), (path, s)
    return t


dw = os.path.join(fixtures, "insights", "default_window.json")
t = check(dw)
assert t["window"]["chosen"] == "active steps 2-5 (4 steps; 1 warm-up left out)", t["window"]
assert t["steps_summary"]["outside_window"] == {"warmup": 1, "unfinished": 0, "active": 0}, t["steps_summary"]
assert t["steps_summary"]["count"] == 4 and t["steps_summary"]["warmup"] == 0, t["steps_summary"]
text = analyze(dw, fmt="text")
assert "1 warm-up left out" in text, text
assert "Steps (ProfilerStep#N): 4, 0 warm-up (and 1 outside the window: 1 warm-up);" in text, text

forced = 0
for path in sorted(glob.glob(os.path.join(os.environ["KS_CORPUS"], "**", "*.json*"), recursive=True)):
    t = check(path)
    if len(t["steps"]) >= 2:
        t = check(path, "--warmup", "1")
        assert t["steps_summary"]["outside_window"]["warmup"] == 1, (path, t["steps_summary"])
        forced += 1
assert forced >= 3, forced
print("ok")
