#!/usr/bin/env python3
"""tests/analysis/corpus_analyze.py: `kinesift analyze --format json` on one real trace, checked
against an independent reading with Python's json module: the schema's fields are all there, every
kernel/memcpy/memset event is counted exactly once with its exact duration (parsed from the
decimal text with Decimal, never through float), the op rows cover every CPU-side complete event,
and GPU figures are null with a reason exactly when the trace has no GPU work."""
import gzip, json, os, subprocess, sys
from decimal import Decimal

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc

r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
out = json.loads(r.stdout)
assert out["schema"] == "kinesift.analyze/1", out["schema"]
(t,) = out["traces"]
for key in ("source", "window", "gpu", "ops", "labels", "kernels", "links", "diagnostics"):
    assert key in t, key
ROW = ("name", "cat", "count", "self_ns", "incl_ns", "min_ns", "median_ns", "p90_ns", "p99_ns",
       "max_ns", "gpu_direct_ns", "gpu_subtree_ns")
for row in t["ops"] + t["labels"]:
    for k in ROW:
        assert k in row, (k, row)
for row in t["kernels"]:
    for k in ("name", "count", "total_ns", "min_ns", "median_ns", "max_ns"):
        assert k in row, (k, row)

def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())

GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in GPU]
count = sum(k["count"] for k in t["kernels"])
total = sum(k["total_ns"] for k in t["kernels"])
assert count == len(gpu), f"kernel rows count {count}, the trace has {len(gpu)}"
assert total == sum(ns(e["dur"]) for e in gpu), "kernel durations differ"

CPU = {"cpu_op", "Operator", "user_annotation", "User", "python_function", "Python", "cuda_runtime",
       "Runtime", "cuda_driver"}
cpu = [e for e in events if e.get("ph") == "X" and (e.get("cat") in CPU or
       str(e.get("cat", "")).endswith(("_runtime", "_driver")))]
ops = sum(o["count"] for o in t["ops"] if o["cat"] in CPU or o["cat"].endswith(("_runtime", "_driver")))
# an event on a GPU stream is not a CPU op (none of these categories live there in the corpus)
assert ops == len(cpu), f"op rows count {ops} CPU-side events, the trace has {len(cpu)}"

if gpu:
    assert isinstance(t["gpu"], list) and t["gpu"], t.get("gpu_reason")
    for g in t["gpu"]:
        assert 0 <= g["busy_ns"] <= g["span_ns"] and g["idle_ns"] == g["span_ns"] - g["busy_ns"]
else:
    assert t["gpu"] is None and "not observed" in t["gpu_reason"]
    assert all(o["gpu_direct_ns"] is None and o["gpu_subtree_ns"] is None for o in t["ops"])
print(f"ok: {sys.argv[1]}: {len(cpu)} CPU ops, {len(gpu)} GPU events")
