#!/usr/bin/env python3
"""tests/cli/python_doc.py: the pandas snippet of docs/python.md, run as written there (the first
```python block) on real traces, with `kinesift` on PATH and the trace copied to trace.json.gz.
Its tables are checked against the JSON read with the json module: one row per op, kernel, step
and device with the same integer nanoseconds (int64, no float rounding), the ops' self times add
up the same, each step's breakdown columns add up to its wall time (a law of the schema), and a
trace without GPU work has no gpu rows and its reason in gpu_reason.

pandas is required, not optional: scripts/deps.sh installs Debian's python3-pandas (for
/usr/bin/python3; the python3 first on PATH may be another build). The test looks for an
interpreter that has it (this one, /usr/bin/python3, python3 on PATH) and fails when none has:
a documentation snippet that is never run is not tested."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

KINESIFT = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
REAL = os.path.join(os.environ["KS_FIXTURES"], "real")
TRACES = ["hta/trace_compare/base/base.json.gz", "hta/timeline_analysis/sampled_rank-0.json.gz",
          "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"]

DRIVER = r'''
import json, subprocess, sys
ns = {}
exec(compile(open("snippet.py").read(), "docs/python.md", "exec"), ns)
tables = ns["tables"]
doc = json.loads(subprocess.run(["kinesift", "analyze", "--quiet", "--format", "json",
                                 "trace.json.gz"], check=True, capture_output=True).stdout)
t = doc["traces"][0]
for name, key in (("ops", "self_ns"), ("kernels", "total_ns"), ("steps", "wall_ns")):
    df = tables[name]
    assert len(df) == len(t[name]), (name, len(df), len(t[name]))
    if len(df):
        assert str(df[key].dtype) == "int64", (name, df[key].dtype)
        assert [int(v) for v in df[key]] == [r[key] for r in t[name]], name
        assert int(df[key].sum()) == sum(r[key] for r in t[name]), name
        assert set(df["trace"]) == {t["source"]}, name
steps = tables["steps"]
parts = [c for c in steps.columns if c.startswith("breakdown.")]
if len(steps):
    assert len(parts) == 8, parts
    assert (steps[parts].sum(axis=1) == steps["wall_ns"]).all(), "breakdown != wall"
if t["gpu"] is None:
    assert len(tables["gpu"]) == 0
    assert list(tables["gpu_reason"]["reason"]) == [t["gpu_reason"]]
else:
    g = tables["gpu"]
    assert len(g) == len(t["gpu"]) and len(tables["gpu_reason"]) == 0
    assert [int(v) for v in g["busy_ns"]] == [r["busy_ns"] for r in t["gpu"]]
    assert list(g["busy_share"]) == [r["busy_share"] for r in t["gpu"]]
print("snippet ok:", {k: len(v) for k, v in tables.items()})
'''


def has_pandas(exe):
    return exe and subprocess.run([exe, "-c", "import pandas"], capture_output=True).returncode == 0


interp = next((e for e in (sys.executable, "/usr/bin/python3", shutil.which("python3"))
               if has_pandas(e)), None)
if interp is None:
    sys.exit("FAIL: no Python interpreter with pandas (Debian: apt-get install python3-pandas, "
             "as scripts/deps.sh does)")
doc = open(os.path.join(ROOT, "docs", "python.md")).read()
blocks = re.findall(r"^```python\n(.*?)^```", doc, re.S | re.M)
if not blocks:
    sys.exit("FAIL: no ```python block in docs/python.md")
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "bin"))
    os.symlink(KINESIFT, os.path.join(tmp, "bin", "kinesift"))
    env = dict(os.environ, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"])
    with open(os.path.join(tmp, "snippet.py"), "w") as f:
        f.write(blocks[0])
    for rel in TRACES:
        shutil.copy(os.path.join(REAL, rel), os.path.join(tmp, "trace.json.gz"))
        r = subprocess.run([interp, "-c", DRIVER], cwd=tmp, env=env, capture_output=True,
                           text=True, timeout=120)
        print(rel, r.stdout[-1500:], r.stderr[-3000:])
        if r.returncode != 0:
            sys.exit("FAIL: %s: the docs/python.md snippet (with %s)" % (rel, interp))
print("ok: docs/python.md snippet on %d traces with %s" % (len(TRACES), interp))
