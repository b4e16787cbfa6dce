#!/usr/bin/env python3
"""tests/analysis/corpus_classes.py TRACE: the work classes of `kinesift analyze --format json` on
one real trace, held to laws that hold on any trace: classes null with a reason exactly when the GPU
figures are; per device the class counts add up to the device's kernels, memcpys and memsets, no
class is busier than its device, the classes together are at least as busy as the device (they
overlap, they never leave work out), memcpy, memset and communication busy times are the GPU row's;
the classes' summed time is the kernels table's total; each kernel row's class time adds up per
class; a step's class is never busier than the step is long. The tensor-core rows per device are no busier
than its kernels, and add up (time, count) to the kernels table's rows marked tensor_core. Each
kernel row's launch args are those of its instances in the raw JSON (recomputed here). On the TraceLens traces, every op that
TraceLens's published report (tests/analysis/tracelens_reference.json, copied from its
repository's tests) puts in a category kinesift also has must get the matching class."""
import json, os, subprocess, sys
from collections import defaultdict

path = sys.argv[1]
if not os.path.isabs(path):
    path = os.path.join(os.environ["KS_CORPUS"], path)
r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", "--window", "trace", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
(t,) = json.loads(r.stdout)["traces"]
assert "classes" in t
for row in t["ops"] + t["labels"] + t["kernels"]:
    assert row["class"] in ("gemm", "conv", "attention", "norm", "elementwise", "reduce", "communication",
                            "memcpy", "memset", "triton", "other"), row
if t["gpu"] is None:
    assert t["classes"] is None and t["classes_reason"] == t["gpu_reason"], (t["classes"], t.get("classes_reason"))
    sys.exit(0)
cl = t["classes"]
by_dev = defaultdict(list)
for c in cl["window"]:
    by_dev[c["device"]].append(c)
assert sorted(by_dev) == sorted(g["device"] for g in t["gpu"]), (sorted(by_dev), t["gpu"])
for g in t["gpu"]:
    rows = {c["class"]: c for c in by_dev[g["device"]]}
    assert sum(c["count"] for c in rows.values()) == g["kernels"] + g["memcpys"] + g["memsets"], (g, rows)
    kern = sum(c["count"] for k, c in rows.items() if k not in ("memcpy", "memset"))
    assert kern == g["kernels"], (kern, g)
    for c in rows.values():
        assert 0 <= c["busy_ns"] <= g["busy_ns"] and c["busy_ns"] <= c["sum_ns"], (c, g)
    assert sum(c["busy_ns"] for c in rows.values()) >= g["busy_ns"], (rows, g)
    assert rows.get("memcpy", {}).get("busy_ns", 0) == g["memcpy_ns"], (rows, g)
    assert rows.get("memset", {}).get("busy_ns", 0) == g["memset_ns"], (rows, g)
    assert rows.get("communication", {}).get("busy_ns", 0) == g["comm_ns"], (rows, g)
assert sum(c["sum_ns"] for c in cl["window"]) == sum(k["total_ns"] for k in t["kernels"])
per_class = defaultdict(int)
mixed = False
for k in t["kernels"]:
    mixed |= 0 < k["comm"] < k["count"]
    per_class[k["class"]] += k["total_ns"]
if not mixed:
    summed = defaultdict(int)
    for c in cl["window"]:
        summed[c["class"]] += c["sum_ns"]
    assert dict(per_class) == dict(summed), (dict(per_class), dict(summed))
for s in cl["steps"]:
    for c in s["classes"]:
        assert 0 <= c["busy_ns"] <= s["end_ns"] - s["start_ns"], (s, c)
    for c in s["tensor_core"]:
        assert 0 <= c["busy_ns"] <= s["end_ns"] - s["start_ns"] and c["busy_ns"] <= c["sum_ns"], (s, c)
# tensor cores: a part of the device's kernels, as busy as the union of its tensor-core kernels at
# most; their summed time and count are the kernels table's rows marked tensor_core (the same
# kernels counted by another pass)
gpu = {g["device"]: g for g in t["gpu"]}
for c in cl["tensor_core"]:
    g = gpu[c["device"]]
    assert 0 < c["busy_ns"] <= c["sum_ns"] and c["busy_ns"] <= g["kernel_ns"], (c, g)
    assert 0 < c["count"] <= g["kernels"], (c, g)
    assert abs(c["busy_share"] - c["busy_ns"] / g["busy_ns"]) <= 5e-6 * c["busy_ns"] / g["busy_ns"], (c, g)  # 6 digits
tc_rows = [k for k in t["kernels"] if k["tensor_core"]]
assert all(k["kind"] == "kernel" and k["class"] != "communication" for k in tc_rows), tc_rows
assert sum(c["sum_ns"] for c in cl["tensor_core"]) == sum(k["total_ns"] for k in tc_rows), (cl["tensor_core"], tc_rows)
assert sum(c["count"] for c in cl["tensor_core"]) == sum(k["count"] for k in tc_rows), (cl["tensor_core"], tc_rows)

# launch args, recomputed from the raw JSON per kernel name (over the kernel events kinesift kept:
# compared where the raw count is the row's): instances recording any, registers and shared memory
# ranges, the duration-weighted occupancy and warps per SM, grid and block of the longest
import gzip
from decimal import Decimal
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
LAUNCH = ("registers per thread", "shared memory", "blocks per SM", "warps per SM", "est. achieved occupancy %",
          "grid", "block")
raw_k = defaultdict(list)
for e in events:
    if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "kernel" and isinstance(e.get("args"), dict):
        raw_k[e.get("name")].append(e)
checked = 0
for k in t["kernels"]:
    if k["kind"] != "kernel":
        assert k["launch"] is None and k["launch_reason"] == "not a kernel", k
        continue
    evs = raw_k.get(k["name"], [])
    if len(evs) != k["count"]:
        continue
    num = lambda v: isinstance(v, (int, Decimal)) and not isinstance(v, bool)
    rec = [e for e in evs if any(num(e["args"].get(f)) or isinstance(e["args"].get(f), list) for f in LAUNCH)]
    L = k["launch"]
    if not rec:
        assert L is None and k["launch_reason"].startswith("not observed"), k
        continue
    assert L["recorded"] == len(rec), (k["name"], L, len(rec))
    regs = [e["args"]["registers per thread"] for e in rec if num(e["args"].get("registers per thread"))]
    if regs:
        assert (L["registers_per_thread_min"], L["registers_per_thread_max"]) == (min(regs), max(regs)), (L, regs)
    shm = [e["args"]["shared memory"] for e in rec if num(e["args"].get("shared memory"))]
    if shm:
        assert (L["shared_memory_bytes_min"], L["shared_memory_bytes_max"]) == (min(shm), max(shm)), (L, shm)
    for field, key in (("est. achieved occupancy %", "est_achieved_occupancy_pct"), ("warps per SM", "warps_per_sm")):
        xs = [(float(e["args"][field]), float(e.get("dur", 0))) for e in rec if num(e["args"].get(field))]
        if not xs:
            assert L[key] is None, (L, field)
            continue
        w = sum(d for _, d in xs)
        want = sum(x * d for x, d in xs) / w if w > 0 else sum(x for x, _ in xs) / len(xs)
        assert abs(L[key] - want) <= 1e-5 * abs(want) + 1e-9, (k["name"], key, L[key], want)
    grids = [e for e in rec if isinstance(e["args"].get("grid"), list)]
    if grids:
        longest = max(float(e.get("dur", 0)) for e in grids)
        assert L["grid"] in [e["args"]["grid"] for e in grids if float(e.get("dur", 0)) == longest], (L, k["name"])
    checked += 1
assert checked or not any(any(f in e["args"] for f in LAUNCH) for v in raw_k.values() for e in v), "nothing compared"

ref = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracelens_reference.json")))
base = os.path.basename(path)
if base in ref:
    names = {o["name"]: o["class"] for o in t["ops"] if o["kind"] == "cpu_op"}
    seen = 0
    for name, cat in ref[base]["categories"].items():
        if name in names:
            seen += 1
            want = ref["category_class"][cat]
            assert names[name] == want, f"{name}: TraceLens {cat}, kinesift {names[name]} (expected {want})"
    assert seen == len(ref[base]["categories"]), (seen, ref[base]["categories"])
