#!/usr/bin/env python3
"""tests/cli/python_doc.py: the walkthrough of docs/python.md run as written there (its
```python blocks up to the section "The tables", in order, in one namespace) on real traces, with
the build tree's package (build/python) and the trace copied to trace.json.gz. What the blocks
leave is checked against `kinesift analyze --format json`: `r` is the command's document byte for
byte, `top_ops` the ten ops of most self time with the same int64 nanoseconds, each step's
breakdown adds up to its wall time, and analysis.json is the command's output. A trace without
GPU work runs the same blocks (its GPU tables empty, the reason said).

pandas is required, not optional: scripts/deps.sh installs Debian's python3-pandas (for
/usr/bin/python3; the python3 first on PATH may be another build). The test looks for an
interpreter that has it (this one, /usr/bin/python3, python3 on PATH) and fails when none has:
a documentation walkthrough that is never run is not tested."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

KINESIFT = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
BUILD_PY = os.environ["KS_BUILD_PYTHON"]
REAL = os.path.join(os.environ["KS_FIXTURES"], "real")
TRACES = ["hta/trace_compare/base/base.json.gz", "hta/timeline_analysis/sampled_rank-0.json.gz",
          "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
          "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz"]

DRIVER = r'''
import json, subprocess, sys
ns = {}
exec(compile(open("walkthrough.py").read(), "docs/python.md", "exec"), ns)
r, top_ops = ns["r"], ns["top_ops"]
out = subprocess.run([sys.argv[1], "analyze", "--quiet", "--format", "json", "trace.json.gz"],
                     check=True, capture_output=True).stdout.decode()
assert r.to_json() == out, "to_json is not the command's document"
assert open("analysis.json").read() == out
t = json.loads(out)["traces"][0]
want = sorted(t["ops"], key=lambda o: -o["self_ns"])[:10]
assert str(top_ops["self_ns"].dtype) == "int64", top_ops["self_ns"].dtype
assert [int(v) for v in top_ops["self_ns"]] == [o["self_ns"] for o in want]
assert len(r.steps) == len(t["steps"])
if len(r.steps):
    b = ns["breakdown"]
    parts = [c for c in b.columns if c.startswith("breakdown.")]
    assert len(parts) == 8 and (b[parts].sum(axis=1) == b["wall_ns"]).all()
    assert [int(v) for v in b["wall_ns"]] == [s["wall_ns"] for s in t["steps"]]
assert (t["gpu"] is None) == (len(r.gpu) == 0)
if t["gpu"] is None:
    assert r.reasons["gpu"] == t["gpu_reason"]
assert [d["id"] for d in r.diagnoses] == [d["id"] for d in t["diagnoses"]]
print("walkthrough ok:", len(r.ops), "ops,", len(r.steps), "steps,", len(r.diagnoses), "diagnoses")
'''


def has_pandas(exe):
    return exe and subprocess.run([exe, "-c", "import pandas"], capture_output=True).returncode == 0


interp = next((e for e in (sys.executable, "/usr/bin/python3", shutil.which("python3"))
               if has_pandas(e)), None)
if interp is None:
    sys.exit("FAIL: no Python interpreter with pandas (Debian: apt-get install python3-pandas, "
             "as scripts/deps.sh does)")
with open(os.path.join(ROOT, "docs", "python.md")) as f:
    doc = f.read()
walk = doc.split("\n## The tables", 1)[0]
blocks = re.findall(r"^```python\n(.*?)^```", walk, re.S | re.M)
if len(blocks) < 4:
    sys.exit("FAIL: docs/python.md: the walkthrough's ```python blocks are missing")
with tempfile.TemporaryDirectory() as tmp:
    env = {k: v for k, v in os.environ.items() if k != "KINESIFT_LIB"}
    env["PYTHONPATH"] = BUILD_PY
    with open(os.path.join(tmp, "walkthrough.py"), "w") as f:
        f.write("\n".join(blocks))
    for rel in TRACES:
        shutil.copy(os.path.join(REAL, rel), os.path.join(tmp, "trace.json.gz"))
        r = subprocess.run([interp, "-c", DRIVER, KINESIFT], cwd=tmp, env=env, capture_output=True,
                           text=True, timeout=300)
        print(rel, r.stdout[-1500:], r.stderr[-3000:])
        if r.returncode != 0:
            sys.exit("FAIL: %s: the docs/python.md walkthrough (with %s)" % (rel, interp))
print("ok: the docs/python.md walkthrough on %d traces with %s" % (len(TRACES), interp))
