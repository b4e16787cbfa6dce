#!/usr/bin/env python3
"""tests/analysis/corpus_shapes.py TRACE: the ops grouped by shape (`shapes` of `kinesift analyze
--format json --window trace`) on one real trace. Laws on any trace: `shapes` is null with a reason
exactly when no event records "Input Dims" or "Input type"; a group's calls are calls of its op (the
op's row counts at least as many), its kernel time is at most the kernels' total (null, as its
calls_timed, when the trace has no GPU work: not observed), calls_timed <= count,
and its rates are null exactly when nothing timed them or the FLOPs (bytes) are not known, with
min <= median <= max and the mean between; the rows come by kernel time (the most first), op name
and Input Dims text; a group whose FLOPs or bytes are null says why
(cost_reason), and one without bytes has no intensity and no roof. On TraceLens's traces, every
GEMM (and the SDPA and CONV) row of TraceLens's published perf report
(tests/analysis/tracelens_reference.json) has a group with the same op and Input Dims, the same
count, the same GFLOPs and bytes, and TFLOP/s and TB/s within 0.1 % (TraceLens times kernels in
float microseconds)."""
import gzip, json, math, os, subprocess, sys
from collections import defaultdict

path = sys.argv[1]
if not os.path.isabs(path):
    path = os.path.join(os.environ["KS_CORPUS"], path)
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
recorded = any(isinstance(e, dict) and isinstance(e.get("args"), dict) and
               isinstance(e["args"].get("Input Dims", e["args"].get("Input type")), list) for e in events)
r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", "--window", "trace", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
(t,) = json.loads(r.stdout)["traces"]
if not recorded:
    assert t["shapes"] is None and "record_shapes" in t["shapes_reason"], (t["shapes"], t.get("shapes_reason"))
    sys.exit(0)
assert isinstance(t["shapes"], list) and t["shapes"], "shapes recorded, none reported"
count = defaultdict(int)
ops = {o["name"]: o for o in t["ops"] if o["kind"] == "cpu_op"}
total = sum(k["total_ns"] for k in t["kernels"])
gpu = t["links"]["gpu_events"] > 0
for s in t["shapes"]:
    count[s["op"]] += s["count"]
    # without GPU work in the trace the kernel time is not observed: null, as the ops rows' GPU time
    assert gpu or (s["kernel_ns"] is None and s["calls_timed"] is None), s
    assert gpu or all(o["gpu_direct_ns"] is None for o in t["ops"]), "ops rows and shapes disagree"
    if not gpu:
        s = dict(s, kernel_ns=0, calls_timed=0)  # the laws below hold of the rows as they would be
    assert 0 <= s["calls_timed"] <= s["count"], s
    assert 0 <= s["kernel_ns"] <= total, s
    assert (s["kernel_ns"] > 0) == (s["calls_timed"] > 0), s
    for k, each in (("tflops_per_s", "gflops_each"), ("tb_per_s", "bytes_each")):
        v = [s[k], s[k + "_median"], s[k + "_min"], s[k + "_max"]]
        if s["gflops_each"] is None or s[each] is None or s["calls_timed"] == 0:
            assert v == [None] * 4, s
            continue
        mean, med, lo, hi = v
        assert lo <= med <= hi and lo * (1 - 1e-9) <= mean <= hi * (1 + 1e-9), s
    # a figure not known says why; bytes are known only with the FLOPs
    assert ("cost_reason" in s) == (s["gflops_each"] is None or s["bytes_each"] is None), s
    assert s["bytes_each"] is None or s["gflops_each"] is not None, s
    if s["gflops_each"] is not None:
        assert s["gflops_each"] >= 0 and (s["bytes_each"] is None or s["bytes_each"] >= 0), s
    if s["bytes_each"] is None:  # no intensity, no roof
        assert s["intensity"] is None and s["efficiency"] is None and s["bound"] is None, s
for name, n in count.items():
    assert name in ops and ops[name]["count"] >= n, (name, n, ops.get(name))

# the order of the rows: the most kernel time first, then the op name, then the Input Dims text, each
# by bytes (strcmp); checked where the dims hold only integers, whose text is what json.dumps writes
def ints_only(v):
    return v is None or isinstance(v, int) or (isinstance(v, list) and all(ints_only(x) for x in v))

def order_key(s):
    dims = "" if s["input_dims"] is None else json.dumps(s["input_dims"], separators=(",", ":"))
    return (-(s["kernel_ns"] or 0), s["op"].encode(), dims.encode())

rows = t["shapes"]
for p, q in zip(rows, rows[1:]):
    if ints_only(p["input_dims"]) and ints_only(q["input_dims"]):
        assert order_key(p) <= order_key(q), ("rows out of order", p["op"], p["input_dims"], q["op"], q["input_dims"])
    else:
        assert order_key(p)[:2] <= order_key(q)[:2], ("rows out of order", p["op"], q["op"])

ref = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracelens_reference.json")))
base = os.path.basename(path)
if base not in ref:
    sys.exit(0)
MIB = 1024 * 1024

def close(a, b, rel):
    return abs(a - b) <= rel * abs(b)

def group(op, dims):
    for s in t["shapes"]:
        if s["op"] == op and s["input_dims"][:len(dims)] == dims:
            return s
    sys.exit(f"no group {op} {dims}")

checked = 0
for row in ref[base].get("gemm", []) + ref[base].get("conv", []):
    s = group(row["op"], row["input_dims"])
    assert s["count"] == row["count"], (s, row)
    assert close(s["gflops_each"], row["gflops"], 1e-6), (s["gflops_each"], row)
    assert close(s["bytes_each"], row["data_moved_mib"] * MIB, 1e-6), (s["bytes_each"], row)
    if "tb_mean" in row:
        assert close(s["tflops_per_s"], row["tflops_mean"], 1e-3), (s["tflops_per_s"], row)
        assert close(s["tb_per_s"], row["tb_mean"], 1e-3), (s["tb_per_s"], row)
    checked += 1
for row in ref[base].get("sdpa", []):
    # TraceLens models the SDPA op and times its subtree; kinesift times the op that launched the
    # kernel (aten::_flash_attention_forward, in flash_attn's [B, N, H, d] layout): same FLOPs,
    # same bytes, same kernels
    s = group(row["direct_op"], row["direct_dims"])
    assert s["count"] == row["count"], (s, row)
    assert close(s["gflops_each"], row["gflops"], 1e-6), (s["gflops_each"], row)
    assert close(s["bytes_each"], row["data_moved_mib"] * MIB, 1e-6), (s["bytes_each"], row)
    assert close(s["tflops_per_s"], row["tflops_mean"], 1e-3), (s["tflops_per_s"], row)
    checked += 1
assert checked, "nothing compared"
