#!/usr/bin/env python3
"""tests/insights/corpus_diagnose.py: laws the diagnoses of `kinesift analyze --format json` obey on
any trace, checked on one real trace (an absolute path, or a path relative to $KS_CORPUS):
  - the denominator is recomputed here: the active steps' wall times summed when there are active
    steps, else the GPU span (first GPU work start to last end over the devices), else the
    default window (the device span, else the CPU span), which it then names;
  - no diagnosis under the impact floor is listed without --all-diagnoses; with it, the hidden
    ones come back marked below_floor, the others are the same; every impact lies within the
    denominator; diagnoses are ranked by impact, caveats (no impact) last;
  - no compute advice names a communication kernel (the subject of dominant_kernel has no
    communication instance, and no NCCL/RCCL/HCCL-like name);
  - launch calls plus other runtime calls are the runtime/driver calls of the trace, counted here
    from its categories; launch calls are at most that many;
  - the kernel view's diagnoses claim no more than they name: low_efficiency_shape's impact is at
    most the kernel time of a GEMM/attention group of its op under 30 % of its roof, and at most
    the GPU time of the critical paths; fusable_memory_bound's is at most the runs' path time and
    span its evidence prints, and at most the paths' GPU, stream-gap and launch time."""
import gzip, json, os, re, subprocess, sys

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
events = doc["traceEvents"] if isinstance(doc, dict) else doc


def analyze(*extra):
    r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", *extra, path],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
    (t,) = json.loads(r.stdout)["traces"]
    return t


t = analyze()
full = analyze("--all-diagnoses")
s = t["diagnoses_summary"]
floor_ppm = round(s["min_impact"] * 1e6)
assert floor_ppm == 10000, s  # the documented default: 1 %

# the denominator, recomputed
active = [x for x in t["steps"] if not x["warmup"] and not x["unfinished"]]
if active:
    assert s["denominator"] == "active steps", s
    assert s["denominator_ns"] == sum(x["wall_ns"] for x in active), s
elif t["gpu"]:
    assert s["denominator"] == "GPU span", s
    span = max(g["last_ns"] for g in t["gpu"]) - min(g["first_ns"] for g in t["gpu"])
    assert s["denominator_ns"] == span, (s, span)
else:
    # the default window names itself: the device span (other accelerators), else the CPU span
    assert s["denominator"] == ("device span" if t["device_activity"] else "CPU span"), s
    assert s["denominator_ns"] == t["window"]["span_ns"], (s, t["window"])

for doc_t, listed_all in ((t, False), (full, True)):
    prev = None
    seen_caveat = False
    for x in doc_t["diagnoses"]:
        if x["kind"] == "caveat":
            assert x["impact_ns"] is None and not x["below_floor"], x["id"]
            seen_caveat = True
            continue
        assert not seen_caveat, "a diagnosis ranked after a caveat"
        imp = x["impact_ns"]
        assert 0 <= imp <= s["denominator_ns"], (x["id"], imp)
        assert prev is None or imp <= prev, "not ranked by impact"
        prev = imp
        under = imp * 1000000 < s["denominator_ns"] * floor_ppm
        assert x["below_floor"] == under, (x["id"], imp, s)
        if not listed_all:
            assert not under, f"{x['id']} listed under the floor: {imp} of {s['denominator_ns']}"
        for k in ("hypothesis", "evidence", "next_check", "refuted_if", "impact_basis"):
            assert x[k], (x["id"], k)

fs = full["diagnoses_summary"]
assert fs["hidden"] == 0, fs
assert sum(x["below_floor"] for x in full["diagnoses"]) == s["hidden"], (fs, s)
assert [x["id"] for x in full["diagnoses"] if not x["below_floor"]] == [x["id"] for x in t["diagnoses"]]

# no compute advice on a communication kernel
COMM = re.compile(r"nccl|rccl|hccl|all_?reduce|all_?gather|reduce_?scatter|sendrecv|all_?to_?all|multimem",
                  re.I)
rows = {k["name"]: k for k in t["kernels"]}
for x in full["diagnoses"]:
    if x["id"] == "dominant_kernel":
        k = rows[x["subject"]]
        assert k["comm"] == 0 and not COMM.search(x["subject"]), x["subject"]

# the kernel view's diagnoses: each impact is at most the time it names, and at most the
# critical path's time of the kind it counts (the active steps' paths, else the window's)
paths = [x["critical_path"] for x in active] if active else \
    [p for p in [(full.get("dependency_graph") or {}).get("window_critical_path")] if p]
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
for x in full["diagnoses"]:
    if x["id"] == "low_efficiency_shape":
        rows = [r for r in full["shapes"] or [] if r["op"] == x["subject"] and r["class"] in ("gemm", "attention")
                and r["efficiency"] is not None and r["efficiency"] < 0.3 and r["kernel_ns"] >= x["impact_ns"]]
        assert rows, ("no shape of the low-efficiency diagnosis has its impact in kernel time", x)
        assert x["impact_ns"] <= sum(p["gpu_ns"] for p in paths), x
    if x["id"] == "fusable_memory_bound":
        m = re.search(r"the runs span ([0-9.]+) (ns|us|ms|s), ([0-9.]+) (ns|us|ms|s) of which on the critical path",
                      x["evidence"])
        assert m, x["evidence"]
        span = float(m.group(1)) * UNIT[m.group(2)]
        on_path = float(m.group(3)) * UNIT[m.group(4)]
        # the figures are printed to 3 decimals of their unit: half a unit of the last digit
        assert x["impact_ns"] <= on_path + 0.0005 * UNIT[m.group(4)] and on_path <= span + 0.0005 * UNIT[m.group(2)], x
        assert x["impact_ns"] <= sum(p["gpu_ns"] + p["stream_gap_ns"] + p["launch_latency_ns"] for p in paths), x

# launch calls are runtime calls; the two counts add up to the trace's runtime/driver calls
def is_call(e):
    cat = str(e.get("cat", ""))
    return e.get("ph") in ("X", "B") and (cat in ("cuda_runtime", "Runtime", "cuda_driver") or
                                          cat.endswith(("_runtime", "_driver")))

calls = sum(1 for e in events if is_call(e))
li = t["links"]
assert li["launch_calls"] + li["other_runtime_calls"] == calls, (li, calls)
assert li["launch_calls"] <= calls
print(f"ok: {sys.argv[1]}: {len(t['diagnoses'])} diagnoses shown, {s['hidden']} hidden, "
      f"denominator {s['denominator']} {s['denominator_ns']} ns; {li['launch_calls']} launch calls of "
      f"{calls} runtime calls")
