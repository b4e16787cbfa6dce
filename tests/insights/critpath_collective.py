#!/usr/bin/env python3
"""The critical path marks collectives as waits on peers: a step whose path runs through an NCCL
all-reduce and then a GEMM (a blocking stream synchronize waits for both). The collective's time on
the path is `collective_ns` (JSON), `path_collective_ns` (CSV), marked `collective` among the top
names and named in the text as time that may be another rank's; the GEMM is not a collective. The
figures are the trace's own durations, written here, not the program's output."""
import csv, io, json, os, subprocess, sys, tempfile
from trace_events import x

KINESIFT = os.environ["KINESIFT"]
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
# times in µs as Kineto writes them
AR_TS, AR_DUR = 25, 675   # the all-reduce: launched at 10..20, runs 25..700
MM_TS, MM_DUR = 700, 150  # the GEMM: launched at 30..40, runs 700..850 (after the all-reduce)


def trace():
    ev = [
        x("ProfilerStep#1", "user_annotation", 0, 1000, 1, 1),
        x("cudaLaunchKernel", "cuda_runtime", 10, 10, 1, 1, {"correlation": 1}),
        x("cudaLaunchKernel", "cuda_runtime", 30, 10, 1, 1, {"correlation": 2}),
        x("cudaStreamSynchronize", "cuda_runtime", 50, 850, 1, 1, {"correlation": 3}),
        x(NCCL, "kernel", AR_TS, AR_DUR, 0, 7, {"correlation": 1, "stream": 7, "device": 0}),
        x("ampere_sgemm_128x64_nn", "kernel", MM_TS, MM_DUR, 0, 7, {"correlation": 2, "stream": 7, "device": 0}),
    ]
    return {"schemaVersion": 1, "traceEvents": ev}


def run(path, fmt):
    r = subprocess.run([KINESIFT, "analyze", "--format", fmt, path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def main():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "coll.json")
        with open(path, "w") as f:
            json.dump(trace(), f)
        t = json.loads(run(path, "json"))["traces"][0]
        assert len(t["steps"]) == 1, t["steps"]
        p = t["steps"][0]["critical_path"]
        # the all-reduce and the GEMM are both on the path, whole
        assert p["gpu_ns"] == (AR_DUR + MM_DUR) * 1000, p
        assert p["collective_ns"] == AR_DUR * 1000, p
        assert p["collective_ns"] <= p["gpu_ns"], p
        by = {x["name"]: x for x in p["top"]}
        assert by[NCCL]["collective"] is True and by[NCCL]["ns"] == AR_DUR * 1000, by
        assert by["ampere_sgemm_128x64_nn"]["collective"] is False, by
        assert all(not x["collective"] for x in p["top"] if x["kind"] == "cpu"), p["top"]
        rows = [r for r in csv.DictReader(io.StringIO(run(path, "csv"))) if r["section"] == "step"]
        assert [int(r["path_collective_ns"]) for r in rows] == [AR_DUR * 1000], rows
        text = run(path, "text")
        assert "collectives" in text and "may be waiting for peers" in text, text
    # a step without collectives: nothing marked
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "plain.json")
        tr = trace()
        tr["traceEvents"][4]["name"] = "void at::native::vectorized_elementwise_kernel"
        with open(path, "w") as f:
            json.dump(tr, f)
        p = json.loads(run(path, "json"))["traces"][0]["steps"][0]["critical_path"]
        assert p["collective_ns"] == 0 and not any(x["collective"] for x in p["top"]), p
        assert "collectives" not in run(path, "text")
    print("ok: a collective on the path is marked as a wait on peers")


if __name__ == "__main__":
    sys.exit(main())
