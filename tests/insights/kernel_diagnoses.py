#!/usr/bin/env python3
"""The two diagnoses of the kernel view on hand-written traces, every expected figure worked out
here from the trace's own numbers (µs as Kineto writes them), not copied from the program:
  - low_efficiency_shape: a GEMM shape far below the H100's roofline and 23 % of the critical
    path is listed; one close to the roof, and one far below it but 0.9 % of the path, are not;
    an unknown device has no roofline and no such diagnosis, until --peak gives one;
  - fusable_memory_bound: five 10 µs elementwise kernels 2 µs apart on one stream are one run;
    chains broken by a 30 µs kernel, by a 15 µs gap or by a GEMM are not."""
import json, os, subprocess, sys, tempfile
from trace_events import kernel, x

KINESIFT = os.environ["KINESIFT"]
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off"
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)")
H100 = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936}]
BF16 = "c10::BFloat16"


def mm(ts, n, corr):
    """aten::mm of two n x n bf16 matrices at ts (10 µs), launching correlation corr"""
    return [x("aten::mm", "cpu_op", ts, 10, 1, 1, {"Input Dims": [[n, n], [n, n]], "Input type": [BF16, BF16]}),
            x("cudaLaunchKernel", "cuda_runtime", ts + 2, 5, 1, 1, {"correlation": corr})]


def gemm_trace(devices):
    # A: 1024^3, kernel 100..600 (500 µs); B: 8192^3, kernel 600..2100 (1500 µs); C: 64^3, kernel
    # 2100..2120 (20 µs); all on stream 7, launched early; the thread waits in a synchronize until
    # 2130; the step is 0..2200
    ev = [x("ProfilerStep#1", "user_annotation", 0, 2200, 1, 1)]
    ev += mm(10, 1024, 1) + mm(21, 8192, 2) + mm(32, 64, 3)
    ev += [x("cudaStreamSynchronize", "cuda_runtime", 50, 2080, 1, 1, {"correlation": 4}),
           kernel(GEMM, 100, 500, 1), kernel(GEMM, 600, 1500, 2), kernel(GEMM, 2100, 20, 3)]
    doc = {"schemaVersion": 1, "traceEvents": ev}
    if devices:
        doc["deviceProperties"] = devices
    return doc


def fuse_trace():
    # step 0..800; launches at 10 + 3i (2 µs each), kernels on stream 7:
    #   run:      5 x 10 µs at 100, 112, 124, 136, 148 (2 µs apart): one run, span 100..158
    #   a GEMM    160..660 (not memory-bound: ends any run)
    #   broken:   662..672, 674..704 (30 µs: not small), 706..716
    #   gapped:   720..730, 745..755 (15 µs after the previous one), 757..767
    # a synchronize waits until 780
    ks = [(100, 10), (112, 10), (124, 10), (136, 10), (148, 10), (160, 500),
          (662, 10), (674, 30), (706, 10), (720, 10), (745, 10), (757, 10)]
    ev = [x("ProfilerStep#1", "user_annotation", 0, 800, 1, 1)]
    for i, (ts, dur) in enumerate(ks):
        ev.append(x("cudaLaunchKernel", "cuda_runtime", 10 + 3 * i, 2, 1, 1, {"correlation": 100 + i}))
        ev.append(kernel(GEMM if dur == 500 else ADD, ts, dur, 100 + i))
    ev.append(x("cudaStreamSynchronize", "cuda_runtime", 50, 730, 1, 1, {"correlation": 99}))
    return {"schemaVersion": 1, "deviceProperties": H100, "traceEvents": ev}


def analyze(doc, d, *extra):
    path = os.path.join(d, "t.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([KINESIFT, "analyze", "--format", "json", "--all-diagnoses", *extra, path],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["traces"][0]


def by_id(t, i):
    return [x for x in t["diagnoses"] if x["id"] == i]


def main():
    with tempfile.TemporaryDirectory() as d:
        t = analyze(gemm_trace(H100), d)
        assert t["diagnoses_summary"]["denominator_ns"] == 2200 * 1000, t["diagnoses_summary"]
        # the path runs through all three kernels, whole (stream order, then the synchronize)
        assert t["steps"][0]["critical_path"]["gpu_ns"] == (500 + 1500 + 20) * 1000
        rows = {r["input_dims"][0][0]: r for r in t["shapes"]}
        # A: 2*1024^3 = 2,147,483,648 FLOPs in 500 µs: 4.294967296 TFLOP/s; intensity
        # 2147483648 / (3*1024*1024*2) = 341.3 FLOP/byte, x 3.35 TB/s = 1143 > 989.4: the compute
        # roof 989.4 (H100 SXM, bf16 dense); efficiency 4.294967296 / 989.4 = 0.434 %
        a = rows[1024]
        assert abs(a["tflops_per_s"] - 4.294967296) < 1e-9, a
        assert a["bound"] == "compute" and abs(a["efficiency"] - 4.294967296 / 989.4) < 1e-9, a
        # B: 2*8192^3 = 1,099,511,627,776 in 1500 µs: 733.0 TFLOP/s, 74 % of the roof: not listed
        b = rows[8192]
        assert abs(b["efficiency"] - 2 * 8192 ** 3 / 1.5e6 / 1000 / 989.4) < 1e-9 and b["efficiency"] > 0.3, b
        # C: 2*64^3 = 524,288 in 20 µs, 0.0026 % of the roof, but 20 µs is 0.9 % of the path
        c = rows[64]
        assert c["efficiency"] < 0.3 and 20 * 100 < 5 * 2200, c
        (x,) = by_id(t, "low_efficiency_shape")
        assert x["subject"] == "aten::mm", x
        assert x["impact_ns"] == 500 * 1000, x                      # A's whole kernel is on the path
        assert x["impact_ns"] <= a["kernel_ns"] == 500 * 1000, (x, a)
        assert x["confidence"] == "high", x                        # 500 / 2200 = 22.7 % >= 10 %
        assert "[[1024,1024],[1024,1024]]" in x["evidence"] and "efficiency 0.4%" in x["evidence"], x
        assert "NVIDIA H100 SXM" in x["evidence"], x
        assert not by_id(t, "fusable_memory_bound"), t["diagnoses"]

        # an unknown device: no peak, no roofline, no diagnosis
        t = analyze(gemm_trace([{"id": 0, "name": "Imaginary GPU 9000", "totalGlobalMem": 1}]), d)
        assert all(r["efficiency"] is None for r in t["shapes"]), t["shapes"]
        assert not by_id(t, "low_efficiency_shape"), t["diagnoses"]
        # ... until --peak 20/3 gives one: A at 4.294967296 / min(20, 341.3 x 3) = 21.5 % is far
        # below it; B at 733 TFLOP/s is over it (366 %); C still 0.9 % of the path
        t = analyze(gemm_trace([{"id": 0, "name": "Imaginary GPU 9000", "totalGlobalMem": 1}]), d, "--peak", "20/3")
        (x,) = by_id(t, "low_efficiency_shape")
        assert x["impact_ns"] == 500 * 1000 and "efficiency 21.5%" in x["evidence"] and "--peak" in x["evidence"], x

        t = analyze(fuse_trace(), d)
        assert t["diagnoses_summary"]["denominator_ns"] == 800 * 1000
        (x,) = by_id(t, "fusable_memory_bound")
        # one run: 5 kernels of 10 µs (50 µs), spanning 100..158 (58 µs), all of it on the path
        # (the kernels and the four 2 µs stream gaps between them): impact 58 µs, 7.25 % of the
        # 800 µs step (medium: >= 3 %, < 10 %)
        assert x["impact_ns"] == 58 * 1000, x
        assert x["confidence"] == "medium", x
        ev = x["evidence"]
        assert ev.startswith("1 run of 5 kernels"), ev
        assert "their kernels take 50.000 us, the runs span 58.000 us, 58.000 us of which on the critical path" in ev, ev
        assert "The longest run: 5 kernels over 58.000 us on GPU 0 stream 7" in ev, ev
        assert not by_id(t, "low_efficiency_shape"), t["diagnoses"]
    print("ok: kernel view diagnoses on hand-worked traces")


main()
