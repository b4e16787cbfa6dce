#!/usr/bin/env python3
"""tests/insights/whatif_extremes.py: whatif on extreme inputs.
  - factors outside [0, 1000] (1e308, inf, nan, 1001) are refused: exit 2, one line naming the
    option and the range; 0 and 1000 are accepted;
  - a step spanning the int64 range of ns (ProfilerStep from -9.2e18 ns to +9.2e18 ns, within the
    78-hour duration limit at each end) gives no negative time: measured, model and projected are
    at least 0 (saturated, never wrapped), the model is the measured time, and the text prints no
    negative duration."""
import json, os, re, subprocess, sys, tempfile

K = os.environ["KINESIFT"]
H = 78 * 3600 * 10**6 - 1  # us: under the longest duration an event keeps
LO, HI = -9223372036854775, 9223372036854000
events = [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": LO, "dur": H},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": LO, "dur": 5},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": LO + 1, "dur": 1,
     "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": HI, "dur": 700,
     "args": {"correlation": 7, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": HI - H, "dur": H},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": HI - 100, "dur": 50},
]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "span.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)
    for bad in ("1e308", "inf", "nan", "1001"):
        r = subprocess.run([K, "whatif", "--shrink", "@cpu=" + bad, path], capture_output=True, text=True)
        assert r.returncode == 2, (bad, r.returncode, r.stdout, r.stderr)
        assert len(r.stderr.strip().split("\n")) == 1, r.stderr
        assert "@cpu" in r.stderr and ("from 0 to 1000" in r.stderr or "FACTOR" in r.stderr or "factor" in r.stderr), r.stderr
    for good in ("0", "1000", "0.5"):
        for label in ("@cpu", "@gpu", "aten::mm"):
            r = subprocess.run([K, "whatif", "--format", "json", "--window", "trace", "--shrink", f"{label}={good}",
                                path], capture_output=True, text=True)
            assert r.returncode == 0, (good, label, r.stderr)
            (t,) = json.loads(r.stdout)["traces"]
            for s in t["steps"]:
                assert s["measured_ns"] >= 0 and s["model_ns"] >= 0 and s["projected_ns"] >= 0, s
                assert s["model_ns"] == s["measured_ns"], s
            r = subprocess.run([K, "whatif", "--window", "trace", "--shrink", f"{label}={good}", path],
                               capture_output=True, text=True)
            assert r.returncode == 0 and not re.search(r"(?<![\w+%])-\d", r.stdout.replace("-" * 3, "")), r.stdout
print("ok: factors out of range refused; an int64-spanning step gives no negative time")
