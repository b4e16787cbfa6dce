#!/usr/bin/env python3
"""tests/analysis/peaks_cli.py: the roofline of `kinesift analyze --format json` (docs/analysis.md,
"Peaks and the roofline") on a trace written here, with the figures worked by hand:

- aten::mm of A[64,128] by B[128,256] in float: 2*64*256*128 = 4,194,304 FLOPs and
  (64*128 + 128*256 + 64*256) * 4 = 229,376 bytes; its kernel runs 10 us, so 0.4194304 TFLOP/s
  and 0.0229376 TB/s, intensity 4,194,304 / 229,376 = 18.2857... FLOP/byte;
- aten::copy_ of 1,024 floats into 1,024 halves: no FLOPs, 6,144 bytes in a 1 us kernel:
  0.006144 TB/s, held to the bandwidth alone.

The device's deviceProperties name picks the peak table's row (H100 SXM: FP32 66.9, 3.35 TB/s, so
the mm's roof is min(66.9, 18.2857 * 3.35 = 61.257) = 61.257, memory-bound); a name the table does
not hold has no peak (null with the reason) and every efficiency null; --peak TFLOPS/TBPS replaces
the table for every device (10/2: roof min(10, 36.571) = 10, compute-bound). A malformed --peak is
a usage error: exit status 2, one line on stderr naming --peak, nothing on stdout."""
import json, os, subprocess, sys, tempfile

exe = os.environ["KINESIFT"]
MM_FLOPS, MM_BYTES, MM_NS = 4194304, 229376, 10000
CP_BYTES, CP_NS = 6144, 1000


def trace(device_name):
    ev = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 20,
         "args": {"External id": 1, "Input Dims": [[64, 128], [128, 256]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3,
         "args": {"correlation": 11, "External id": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 30, "dur": 10,
         "args": {"External id": 2, "Input Dims": [[1024], [1024], []],
                  "Input type": ["c10::Half", "float", "Scalar"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 32, "dur": 3,
         "args": {"correlation": 12, "External id": 2}},
        {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 10, "dur": 10,
         "args": {"correlation": 11, "External id": 1, "device": 0, "stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "copy_kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 1,
         "args": {"correlation": 12, "External id": 2, "device": 0, "stream": 7}},
    ]
    doc = {"traceEvents": ev}
    if device_name is not None:
        doc["deviceProperties"] = [{"id": 0, "name": device_name, "totalGlobalMem": 85018279936}]
    return doc


failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * abs(b)


def analyze(path, *extra):
    r = subprocess.run([exe, "analyze", "--quiet", "--format", "json", "--window", "trace", *extra, path],
                       capture_output=True, text=True)
    assert r.returncode == 0, (extra, r.returncode, r.stderr)
    return json.loads(r.stdout)["traces"][0]


def rows(t):
    return {s["op"]: s for s in t["shapes"]}


def expect(t, what, peak_tflops, tbps, peak_name):
    (roof,) = t["roofline"]
    check(roof["peak"] is not None and roof["peak"]["name"] == peak_name, f"{what}: peak {roof['peak']}")
    if roof["peak"] is None:
        return
    check(close(roof["peak"]["tb_per_s"], tbps), f"{what}: bandwidth {roof['peak']['tb_per_s']}")
    mm, cp = rows(t)["aten::mm"], rows(t)["aten::copy_"]
    # the group's figures, by hand
    check(mm["gflops_each"] == MM_FLOPS / 1e9 and mm["bytes_each"] == MM_BYTES, f"{what}: mm cost {mm}")
    check(mm["kernel_ns"] == MM_NS and close(mm["tflops_per_s"], MM_FLOPS / MM_NS / 1e3), f"{what}: mm rate {mm}")
    check(close(mm["intensity"], MM_FLOPS / MM_BYTES), f"{what}: mm intensity {mm['intensity']}")
    mem_roof = MM_FLOPS / MM_BYTES * tbps
    want_roof = min(peak_tflops, mem_roof)
    check(close(mm["roof_tflops_per_s"], want_roof), f"{what}: mm roof {mm['roof_tflops_per_s']} != {want_roof}")
    check(close(mm["efficiency"], MM_FLOPS / MM_NS / 1e3 / want_roof), f"{what}: mm efficiency {mm['efficiency']}")
    check(mm["bound"] == ("memory" if mem_roof < peak_tflops else "compute"), f"{what}: mm bound {mm['bound']}")
    # the copy: no FLOPs, held to the bandwidth
    check(cp["gflops_each"] == 0 and cp["bytes_each"] == CP_BYTES and cp["kernel_ns"] == CP_NS, f"{what}: copy {cp}")
    check(cp["roof_tflops_per_s"] is None and cp["bound"] == "memory", f"{what}: copy roof {cp}")
    check(close(cp["efficiency"], CP_BYTES / CP_NS / 1e3 / tbps), f"{what}: copy efficiency {cp['efficiency']}")


def unknown(t, what, reason_has):
    (roof,) = t["roofline"]
    check(roof["peak"] is None and reason_has in roof.get("peak_reason", ""), f"{what}: {roof}")
    for s in t["shapes"]:
        check(s["efficiency"] is None and s["bound"] is None and s["roof_tflops_per_s"] is None,
              f"{what}: {s['op']} has a roofline without a peak: {s}")
        check(s["tflops_per_s"] is not None, f"{what}: {s['op']}: the achieved rate does not need a peak")


with tempfile.TemporaryDirectory() as d:
    def write(name, device):
        p = os.path.join(d, name)
        json.dump(trace(device), open(p, "w"))
        return p

    h100 = write("h100.json", "NVIDIA H100 80GB HBM3")
    pcie = write("pcie.json", "NVIDIA H100 PCIe")
    other = write("other.json", "NVIDIA GeForce RTX 4090")
    none = write("none.json", None)

    # the table: the name picks the row; FP32 for a float matmul
    expect(analyze(h100), "H100 SXM", 66.9, 3.35, "NVIDIA H100 SXM")
    expect(analyze(pcie), "H100 PCIe", 51.2, 2.0, "NVIDIA H100 PCIe")
    # not in the table, or no deviceProperties: no roofline, said so
    unknown(analyze(other), "unknown device", "not in the peak table")
    t = analyze(none)
    unknown(t, "no deviceProperties", "no deviceProperties")
    check(t["roofline"][0]["device_name"] is None, "no deviceProperties: a device name")
    # --peak replaces the table, for known and unknown devices alike; compute- and memory-bound
    expect(analyze(h100, "--peak", "10/2"), "--peak 10/2 on an H100", 10, 2, "--peak")
    expect(analyze(other, "--peak", "10/2"), "--peak 10/2 on an unknown device", 10, 2, "--peak")
    expect(analyze(none, "--peak=1000/0.5"), "--peak 1000/0.5", 1000, 0.5, "--peak")
    t = analyze(h100, "--peak", "10/2")
    p = t["roofline"][0]["peak"]
    check(all(p[k] == 10 for k in ("fp64_tflops_per_s", "fp32_tflops_per_s", "tf32_tflops_per_s",
                                   "bf16_fp16_tflops_per_s", "fp8_tflops_per_s")), f"--peak: every type {p}")

    # malformed: a usage error, named, nothing written
    for bad in ["", "abc", "989", "989/", "/3.35", "0/3.35", "989/0", "-1/2", "989/3.35x", "989x/3.35",
                "nan/1", "1/nan", "inf/1", "1e400/1", "989/3.35/1"]:
        r = subprocess.run([exe, "analyze", "--quiet", "--format", "json", "--peak", bad, h100],
                           capture_output=True, text=True)
        check(r.returncode == 2, f"--peak {bad!r}: exit {r.returncode}")
        check(r.stdout == "", f"--peak {bad!r}: wrote {r.stdout[:80]!r}")
        lines = r.stderr.strip().splitlines()
        check(len(lines) >= 1 and "--peak" in lines[0], f"--peak {bad!r}: stderr {r.stderr!r}")
    r = subprocess.run([exe, "analyze", "--quiet", "--format", "json", h100, "--peak"], capture_output=True, text=True)
    check(r.returncode == 2 and r.stdout == "", f"--peak without a value: exit {r.returncode}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
