#!/usr/bin/env python3
"""tests/analysis/devices_cli.py: other accelerators' device work (docs/analysis.md, "Other
accelerators"). Expected values never come from kinesift:
- the MTIA trace of the corpus: per device, span, busy (union) and idle of its mtia_ccp_events,
  and the union per event name, re-derived here from the raw JSON with exact decimals;
- fixtures/analysis/unknown_device.json, a category kinesift has no table for (npu_ccp) whose
  events carry args.stream: figures worked out by hand (in the fixture's comment below), whole
  trace and with a window; its device tracks are device tracks in `stats` too;
- the validate suggestion only on CUDA: a fixture's small_launches diagnosis offers
  `kinesift validate`; with its runtime calls renamed to HIP (ROCm) or put under mtia_runtime
  (MTIA), the report names the measurement to make by hand instead (text, JSON, annotate)."""
import gzip, json, os, subprocess, sys, tempfile
from decimal import Decimal

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]
corpus = os.environ["KS_CORPUS"]


def run(*args, ok=(0,)):
    r = subprocess.run([exe, *args], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="10000"))  # whole lines
    assert r.returncode in ok, (args, r.returncode, r.stderr)
    return r.stdout


def analyze_json(*args):
    return json.loads(run("analyze", "--quiet", "--format", "json", *args))["traces"][0]


def ns(x):
    return int(Decimal(str(x)) * 1000)


def union(iv):
    total, cur = 0, None
    for a, b in sorted(iv):
        if cur is None or a > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0)


# ---- MTIA: re-derived from the raw events ----------------------------------------------------
mtia = os.path.join(corpus, "hta", "mtia_inference_trace", "mtia_inference_rank_0.json.gz")
with gzip.open(mtia, "rt") as f:
    raw = json.load(f, parse_float=Decimal)["traceEvents"]
by_dev = {}
for e in raw:
    if e.get("cat") == "mtia_ccp_events" and e.get("ph") == "X":
        a = ns(e["ts"])
        by_dev.setdefault(e["pid"], []).append((a, a + ns(e["dur"]), e["name"], e["tid"]))
assert by_dev, "the MTIA trace has mtia_ccp_events"
t = analyze_json(mtia)
assert t["gpu"] is None and "device activity" in t["gpu_reason"], t["gpu_reason"]
rows = {d["device"]: d for d in t["device_activity"]}
assert sorted(rows) == sorted(by_dev), (sorted(rows), sorted(by_dev))
for dev, evs in by_dev.items():
    d = rows[dev]
    first, last = min(a for a, _, _, _ in evs), max(b for _, b, _, _ in evs)
    busy = union([(a, b) for a, b, _, _ in evs])
    want = {"first_ns": first, "last_ns": last, "span_ns": last - first, "busy_ns": busy,
            "idle_ns": last - first - busy, "events": len(evs), "tracks": len({x[3] for x in evs})}
    got = {k: d[k] for k in want}
    assert got == want, (dev, got, want)
    assert d["categories"] == ["mtia_ccp_events"] and d["interpreted"] is False and d["label"] == f"MTIA {dev}"
    names = {}
    for a, b, n, _ in evs:
        names.setdefault(n, []).append((a, b))
    got_names = {x["name"]: (x["count"], x["busy_ns"]) for x in d["by_name"]}
    assert got_names == {n: (len(v), union(v)) for n, v in names.items()}, got_names
    assert [x["busy_ns"] for x in d["by_name"]] == sorted((x["busy_ns"] for x in d["by_name"]), reverse=True)
    print(f"MTIA device {dev}: span {last - first} ns, busy {busy} ns, idle {last - first - busy} ns: as re-derived")
text = run("analyze", "--quiet", mtia)
assert f"device {min(by_dev)} (MTIA {min(by_dev)}): busy" in text, text[:2000]
assert "does not interpret these device events" in text

# ---- a category kinesift has no table for ----------------------------------------------------
# npu_ccp on pid 5 ("NPU 5"), every event with args.stream: exec [100,200) [150,300) on stream 1,
# dma [250,350) [600,650) and a zero-length wait at 700 on stream 2 (us). Union [100,350) +
# [600,650) = 300 us; span 100 .. 700 = 600 us; idle 300 us. By name: exec 200 us (2), dma
# 150 us (2), wait 0 (1). The CPU marker of an unknown category without device stays an op.
unk = os.path.join(fixtures, "analysis", "unknown_device.json")
# the whole trace (the default window would be the device span, without the host marker)
t = analyze_json("--window", "trace", unk)
assert t["gpu"] is None and "device activity" in t["gpu_reason"]
(d,) = t["device_activity"]
want = {"device": 5, "label": "NPU 5", "categories": ["npu_ccp"], "tracks": 2, "events": 5,
        "first_ns": 100000, "last_ns": 700000, "span_ns": 600000, "busy_ns": 300000, "idle_ns": 300000}
assert {k: d[k] for k in want} == want, d
assert [(x["name"], x["count"], x["busy_ns"]) for x in d["by_name"]] == \
    [("npu_exec", 2, 200000), ("npu_dma", 2, 150000), ("npu_wait", 1, 0)], d["by_name"]
assert ("host marker", "my_marker") in [(o["name"], o["cat"]) for o in t["ops"]]
# window [200, 620) us: exec [100,200) ends at its start (out), [150,300) -> [200,300); dma
# [250,350), [600,650) -> [600,620): union 150 + 20 = 170 us, span 200 .. 620, idle 250 us
t = analyze_json("--window", "0.2ms:0.62ms", unk)
(d,) = t["device_activity"]
want = {"events": 3, "first_ns": 200000, "last_ns": 620000, "span_ns": 420000, "busy_ns": 170000,
        "idle_ns": 250000}
assert {k: d[k] for k in want} == want, d
assert {x["name"]: x["busy_ns"] for x in d["by_name"]} == {"npu_exec": 100000, "npu_dma": 120000}
st = json.loads(run("stats", "--format", "json", unk))["traces"][0]
kinds = {(x["pid"], x["tid"]): x["kind"] for x in st["tracks"]}
assert kinds == {(100, 100): "cpu", (5, 1): "gpu", (5, 2): "gpu"}, kinds
text = run("analyze", "--quiet", unk)
assert "device 5 (NPU 5): busy 300.000 us of 600.000 us span (50.0%), idle 300.000 us (50.0%)" in text, text
print("unknown device category: as worked out by hand")

# ---- validate only where it runs -------------------------------------------------------------
src = os.path.join(fixtures, "insights", "tiny_kernels.json")
with open(src) as f:
    cuda_text = f.read()
t = analyze_json(src)
x = [d for d in t["diagnoses"] if d["id"] == "small_launches"]
assert x and x[0]["validate"].startswith("kinesift validate ") and x[0]["measure_by_hand"] is None, x
variants = {"ROCm": cuda_text.replace('"cudaLaunchKernel', '"hipLaunchKernel'),
            "MTIA": cuda_text.replace('"cuda_runtime"', '"mtia_runtime"')}
assert all(v != cuda_text for v in variants.values())
with tempfile.TemporaryDirectory() as tmp:
    for platform, body in variants.items():
        path = os.path.join(tmp, platform + ".json")
        with open(path, "w") as f:
            f.write(body)
        t = analyze_json(path)
        x = [d for d in t["diagnoses"] if d["id"] == "small_launches"]
        assert x, (platform, [d["id"] for d in t["diagnoses"]])
        assert x[0]["validate"] is None, (platform, x[0])
        assert f"this is a {platform} trace" in x[0]["measure_by_hand"], x[0]["measure_by_hand"]
        text = run("analyze", "--quiet", path)
        measure = [l for l in text.splitlines() if l.strip().startswith("measure:")]
        assert measure and all("by hand" in l and platform in l for l in measure), measure
        out = os.path.join(tmp, platform + ".annotated.json")
        run("annotate", "--quiet", path, "-o", out)
        with open(out) as f:
            ann = [e for e in json.load(f)["traceEvents"] if str(e.get("name", "")) == "small_launches"]
        assert ann and all("validate" not in e["args"] and "measure_by_hand" in e["args"] for e in ann), ann[:1]
        print(f"{platform}: the by-hand measurement instead of validate")
print("ok")
