#!/usr/bin/env python3
"""tests/analysis/corpus_analyze.py: `kinesift analyze --format json` on one real trace, checked
against an independent reading with Python's json module: the schema's fields are all there, every
kernel/memcpy/memset event is counted exactly once with its exact duration (parsed from the
decimal text with Decimal, never through float), the op rows cover every CPU-side complete event,
and GPU figures are null with a reason exactly when the trace has no GPU work. It analyses the
whole trace (--window trace): the default window, the active steps, is checked by
corpus_window.py. The trace: an
absolute path, or a path relative to $KS_CORPUS."""
import gzip, json, os, subprocess, sys
from decimal import Decimal

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc

r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", "--window", "trace", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
out = json.loads(r.stdout)
assert out["schema"] == "kinesift.analyze/1", out["schema"]
(t,) = out["traces"]
for key in ("source", "window", "gpu", "ops", "labels", "kernels", "links", "self_time", "diagnostics"):
    assert key in t, key
# the default policy (spill) moves slices, it never cuts or drops one
st = t["self_time"]
assert st["clipped_ns"] == 0 and st["dropped"] == 0 and st["dropped_ns"] == 0, st
assert st["reassigned_ns"] >= 0 and (st["reassigned_ns"] == 0 or st["spilled"] > 0), st
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

# stats and analyze agree on the device tracks: the devices and streams analyze reports are the
# stats tracks of kind "gpu" that hold GPU work; an empty device track is named in the reason
r = subprocess.run([os.environ["KINESIFT"], "stats", "--format", "json", path], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
st_doc = json.loads(r.stdout)
st_tracks = (st_doc["traces"][0] if "traces" in st_doc else st_doc)["tracks"]
with_work = {(str(e.get("pid")), str(e.get("tid"))) for e in gpu}
dev_tracks = [k for k in st_tracks if k["kind"] == "gpu"]
busy_tracks = [k for k in dev_tracks if (str(k["pid"]), str(k["tid"])) in with_work]
assert len(busy_tracks) == len(with_work), "GPU work on a track stats does not call a device track"
if t["gpu"]:
    assert sum(g["streams"] for g in t["gpu"]) == len(busy_tracks), "streams differ from stats"
    assert {g["device"] for g in t["gpu"]} == {k["device"] for k in busy_tracks}, "devices differ from stats"
elif dev_tracks:
    assert "device tracks" in t["gpu_reason"], t["gpu_reason"]

if gpu:
    assert isinstance(t["gpu"], list) and t["gpu"], t.get("gpu_reason")
    for g in t["gpu"]:
        assert 0 <= g["busy_ns"] <= g["span_ns"] and g["idle_ns"] == g["span_ns"] - g["busy_ns"]
else:
    assert t["gpu"] is None and "not observed" in t["gpu_reason"]
    assert all(o["gpu_direct_ns"] is None and o["gpu_subtree_ns"] is None for o in t["ops"])
# steps, gaps and diagnoses: their own invariants
steps = [e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
         and str(e.get("name", "")).startswith("ProfilerStep#")]
for k in ("steps", "steps_summary", "gaps", "diagnoses", "telemetry"):
    assert k in t, k
if steps:
    assert t["steps"], "ProfilerStep annotations but no steps"
prev_end = None
for s in t["steps"]:
    assert sum(v for v in s["breakdown"].values() if v is not None) == s["wall_ns"], s
    assert s["end_ns"] >= s["host_end_ns"] and s["start_ns"] >= s["host_start_ns"], s
    if prev_end is not None:
        assert s["start_ns"] >= prev_end, "steps overlap"
    prev_end = s["end_ns"]
    if gpu:
        assert 0 <= s["busy_ns"] <= s["wall_ns"] and s["busy_ns"] + s["idle_ns"] == s["wall_ns"], s
    else:
        assert s["busy_ns"] is None and s["idle_ns"] is None
if t["gaps"] is not None:
    for g, d in zip(t["gaps"], t["gpu"]):
        assert g["total_ns"] <= g["idle_ns"] == d["idle_ns"], (g["idle_ns"], d["idle_ns"])
        assert sum(c["total_ns"] for c in g["by_cpu_activity"]) == g["total_ns"]
        assert sum(c["total_ns"] for c in g["by_label"]) == g["total_ns"]
        h = g["hta"]
        assert h["host_wait_ns"] + h["kernel_wait_ns"] + h["other_ns"] == g["idle_ns"]
else:
    assert not gpu and "not observed" in t["gaps_reason"]
# the critical path of each step: its length is the step's wall time, its kinds add up to it
kinds = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")
paths = [s["critical_path"] for s in t["steps"]]
if not t["steps"] and t["dependency_graph"]["window_critical_path"] is not None:
    paths = [t["dependency_graph"]["window_critical_path"]]
for s, p in zip(t["steps"] or [None] * len(paths), paths):
    if s is not None:
        assert p["length_ns"] == s["wall_ns"], ("path length != wall", s["number"], p["length_ns"], s["wall_ns"])
    assert sum(p[k + "_ns"] for k in kinds) == p["length_ns"], ("path kinds", p)
    assert all(p[k + "_ns"] >= 0 for k in kinds) and 0 <= p["inferred_ns"] <= p["length_ns"], p
    assert sum(x["ns"] for x in p["top"]) <= p["cpu_ns"] + p["gpu_ns"], p
    # collectives (waits on peers) are part of the GPU time, never CPU items
    assert 0 <= p["collective_ns"] <= p["gpu_ns"], p
    assert sum(x["ns"] for x in p["top"] if x["collective"]) <= p["collective_ns"], p
    assert not any(x["collective"] for x in p["top"] if x["kind"] != "gpu"), p
for x in t["diagnoses"]:
    for k in ("hypothesis", "evidence", "confidence", "next_check", "refuted_if"):
        assert x[k], (x["id"], k)
print(f"ok: {sys.argv[1]}: {len(cpu)} CPU ops, {len(gpu)} GPU events, {len(t['steps'])} steps, "
      f"{len(t['diagnoses'])} diagnoses")
