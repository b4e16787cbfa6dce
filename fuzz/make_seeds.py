#!/usr/bin/env python3
"""fuzz/make_seeds.py: (re)writes the seed corpora of fuzz/corpus/TARGET from fixtures/, cut-down
real traces (the first events and the metadata of a few small traces of the corpus) and hand-made
values. Each seed starts with the parameter bytes its target reads first (see fuzz/fuzz_*.c).
Usage: fuzz/make_seeds.py [CORPUS_DIR]   (default ../shared/corpus beside the repository)."""
import gzip
import io
import json
import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "corpus")

# small real traces: cut to their first events, metadata kept
REAL = ["hta/trace_compare/base/base.json.gz", "hta/triton_example/triton_example.json.gz",
        "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
        "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
        "tracelens/torch_compile_triton/trace.json.gz",
        "hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz"]
PREFIX = {"parse": [b"\x00\x07\x00\x01", b"\x80\x02\x01\x00", b"\x00\x40\x02\x01"],
          "analyze": [b"\x00", b"\x03"], "redact": [b"\x00", b"\x05"], "report": [b"\x00", b"\x09"],
          "whatif": [b"\x01", b"\x2a"]}


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def traces():
    for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, "fixtures"))):
        for f in sorted(files):
            if f.endswith(".json"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    yield "fx-" + f[:-5], fh.read()[:16000]
    for rel in REAL:
        path = os.path.join(CORPUS, rel)
        if not os.path.exists(path):
            continue
        with gzip.open(path) as fh:
            doc = json.load(fh)
        if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
            doc["traceEvents"] = doc["traceEvents"][:40]
        name = "real-" + os.path.basename(rel).split(".")[0][:40]
        yield name, json.dumps(doc, indent=1).encode()[:16000]


for name, data in traces():
    for target, prefixes in PREFIX.items():
        for i, p in enumerate(prefixes):
            write(target, "%s-%d" % (name, i), p + data)
write("parse", "hostile-1", b"\x00\x03\x01\x00" + b'{"traceEvents": [{"ph": "X", "name": "a"b\\q\xff\t", "ts": 1.5, "dur": 2,},')
write("parse", "hostile-2", b"\x00\x05\x00\x00" + b'[{"ph":"B","ts":9223372036854775807,"pid":1,"tid":1},{"ph":"E","ts":-9223372036854,"pid":1,"tid":1}')

# scan: the inside of an events array, as a worker hands it to the scanner (after its '['), with
# escapes, exponents, literals and nesting; the first byte 0 (no callback cancels)
for name, data in list(traces())[:8]:
    at = data.find(b"[", data.find(b"traceEvents"))
    cut = data.rfind(b"},", 0, 6000)
    if at >= 0 and cut > at:
        write("scan", name, b"\x00" + data[at + 1:cut + 2])
write("scan", "escapes", b'\x00{"name": "a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\u0000\\u20ac\\udc00", "x": [1e5, -0.5E-3, 0, '
      b'true, false, null, {}, [], [[]]], "\xc3\xa9": {"k": -12}},\n {"ph": "X"}, ')
write("scan", "cancel", b'\xe3{"ph": "X", "args": {"a": [1, 2]}}, {"ph": "i"},')

# gunzip: gzip streams as the decoder reads them (three parameter bytes: block, read and head
# sizes); one member, members with a stored and an empty one, damaged trailers, a cut stream
TEXT = next(traces())[1][:3000]
ONE = gzip.compress(TEXT, compresslevel=6, mtime=0)
MANY = ONE + gzip.compress(bytes(range(256)) * 4, compresslevel=0, mtime=0) + gzip.compress(b"", mtime=0)
write("gunzip", "one", b"\x00\x03\x00" + ONE)
write("gunzip", "members", b"\x05\x01\x07" + MANY + b"junk")
write("gunzip", "crc", b"\x01\x02\x03" + ONE[:-8] + bytes([ONE[-8] ^ 1]) + ONE[-7:])
write("gunzip", "isize", b"\x02\x04\x00" + ONE[:-2] + bytes([ONE[-2] ^ 1]) + ONE[-1:])
write("gunzip", "cut", b"\x03\x00\x0b" + MANY[:len(ONE) + 40])
# ... and as inputs (source.c reads plain and gzip JSON itself, the rest through libarchive): a
# gzip stream and a plain text longer than the 4 KiB looked at, JSON with a zip after it
BIG = next(traces())[1][:6000]
write("gunzip", "json-gz", b"\x07\x04\x00" + gzip.compress(BIG, compresslevel=6, mtime=0))
write("gunzip", "json-plain", b"\x00\x00\x00" + BIG)
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as zf:
    zf.writestr(zipfile.ZipInfo("rank0.json", (2024, 1, 1, 0, 0, 0)), TEXT[:300])
write("gunzip", "json-zip-tail", b"\x00\x00\x00" + BIG[:5000] + zbuf.getvalue())
write("gunzip", "header-flags", b"\x04\x01\x02" + bytes([0x1f, 0x8b, 8, 0x1e, 0, 0, 0, 0, 0, 3, 4, 0, 0x41, 0x42,
                                                            0x6e, 0x61, 0x6d, 0x65, 0, 0x63, 0, 0xff, 0xff]) + ONE[10:])

with open(os.path.join(ROOT, "fixtures", "insights", "smi.csv"), "rb") as fh:
    smi = fh.read()
write("repair", "smi", b"\x03\x05\x09\x11" + smi[:200])
for name, data in list(traces())[:6]:
    write("repair", name, b"\x04\x01\x07\x20\x33" + data[:3000])
write("repair", "broken", b'\x02\x05\x03["a"b", "C:\\x\\y", "\xc3\x28\t", {"k": 1,},]')

write("smi", "fixture", b"\x0d\x00\x00\x00\x00\x00" + smi)
write("smi", "fixture-gpu", b"\x0f\x00\x00\x03\xe8\x02" + smi)
write("smi", "na", b"\x0d\x00\x00\x00\x00\x01" + b"timestamp, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
      b"2023/11/15 00:13:21.750, GPU-x, [Not Supported], N/A, 81559 MiB\n")

write("budget", "full", json.dumps({"schema": "kinesift.budget/1", "threshold_pct": 4, "comment": "ci", "checks": [
    {"metric": "step_time", "max_growth_pct": 3}, {"metric": "label", "name": "## forward ##", "max_growth_pct": 10.5},
    {"metric": "gpu_idle_share", "max_growth_points": 2}, {"metric": "kernel_launches", "comment": "x"},
    {"metric": "kernel_time", "name": "gemm", "max_growth_pct": 0}, {"metric": "op", "name": "aten::mm"},
    {"metric": "gpu_label", "name": "fwd"}, {"metric": "validate", "name": "small-kernels/fused"}]}).encode())
write("budget", "empty", b'{"schema": "kinesift.budget/1", "checks": []}')

write("validate", "ok", b'{"schema": "kinesift.validate/1", "status": "ok", "context": {"device": {"name": "NVIDIA H200"}},'
      b'"workloads": [{"name": "small-kernels", "arms": [{"arm": 0, "variant": "launches"}, {"arm": 1, "variant": "fused"}],'
      b'"raw": [{"arm": 0, "k": 1, "ns": 999, "status": "first"}, {"arm": 0, "k": 4, "ns": 4000, "status": "kept"},'
      b'{"arm": 1, "k": 4, "ns": 2000, "status": "kept"}, {"arm": 1, "k": 4, "ns": 2002, "status": "throttled"}]}],'
      b'"metrics": [{"workload": "small-kernels", "name": "speedup", "value": 1.9}]}')
write("validate", "unavailable", b'{"schema": "kinesift.validate/1", "status": "unavailable", "reason": "no CUDA device", "exit_code": 77}')

OPTIONS = [(0, "steps:1-2"), (0, "steps:0"), (0, "1.5ms:20ms"), (0, "0:"), (0, "500us:1s"), (1, "clamp:1000"),
           (1, "truncate"), (2, "label:fwd=5"), (2, "step_time:3"), (3, "+05:30"), (3, "UTC"), (3, "-0800"),
           (4, "-1.5s"), (4, "250ms"), (5, "64M"), (5, "1g"), (6, "1.5e3"), (6, "-0.0000001"),
           (7, "-9223372036854775808"), (7, "42"), (8, "ProfilerStep#12")]
for i, (sel, text) in enumerate(OPTIONS):
    write("options", "%02d" % i, bytes([sel]) + text.encode())
