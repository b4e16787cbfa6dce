#!/usr/bin/env python3
"""The dependency graph on bad input: each case is counted or said, never crashed on, and the path
still tiles each step (its length is the step's wall time, no kind negative):
  - a launch call after its kernel (clocks out of order): the launch edge leaves after the kernel
    began, so it never releases it: counted in clock_order_edges;
  - ids pointing nowhere: a kernel whose correlation no call has, an ac2g flow end without its
    start: unlaunched_gpu_work;
  - flows in a cycle: ac2g flows from the kernel back to its launch call and fwdbwd flows going
    back in time between two threads;
  - an Event Sync whose cudaEventRecord correlation is in no call: the wait is inferred (any
    stream), not recorded;
  - a Stream Wait Event whose recorded work ends after the waiting work began: left out, counted
    in clock_order_edges.
`whatif --shrink @gpu=0.5` runs on each too."""
import os, subprocess, sys, tempfile
from trace_events import PATH_KINDS, analyze, call, kernel, x

KINESIFT = os.environ["KINESIFT"]


def flow(ph, cat, id_, ts, pid, tid):
    e = {"ph": ph, "name": cat, "cat": cat, "id": id_, "ts": ts, "pid": pid, "tid": tid}
    if ph == "f":
        e["bp"] = "e"
    return e


def step(*ev):
    return [x("ProfilerStep#1", "user_annotation", 0, 1000, 1, 1)] + list(ev)


CASES = {
    "launch_after_kernel": (step(
        call("cudaLaunchKernel", 100, 10, 1), kernel("k", 50, 30, 1),
        call("cudaStreamSynchronize", 200, 20, 2)), {"clock_order_edges": 1}),
    "ids_nowhere": (step(
        call("cudaLaunchKernel", 10, 10, 1), kernel("k", 30, 30, 1), kernel("orphan", 100, 50, 999),
        flow("f", "ac2g", 4242, 300, 0, 7), kernel("flowed", 300, 20, None),
        call("cudaDeviceSynchronize", 400, 20, 3)), {"unlaunched_gpu_work": 2}),
    "flow_cycles": (step(
        call("cudaLaunchKernel", 10, 10, 1), flow("s", "ac2g", 1, 10, 1, 1),
        kernel("k", 30, 30, 1), flow("f", "ac2g", 1, 30, 0, 7),
        flow("s", "ac2g", 2, 30, 0, 7), flow("f", "ac2g", 2, 10, 1, 1),
        x("backward", "cpu_op", 100, 300, 1, 2), flow("s", "fwdbwd", 3, 100, 1, 2), flow("f", "fwdbwd", 3, 50, 1, 1),
        x("forward", "cpu_op", 40, 50, 1, 1), flow("s", "fwdbwd", 4, 40, 1, 1), flow("f", "fwdbwd", 4, 100, 1, 2),
        call("cudaStreamSynchronize", 500, 20, 2)), {}),
    "event_record_nowhere": (step(
        call("cudaLaunchKernel", 10, 10, 1), kernel("k", 30, 300, 1),
        call("cudaEventSynchronize", 50, 300, 5),
        x("Event Sync", "cuda_sync", 51, 298, 0, -1, {"cuda_sync_kind": "Event Sync", "wait_on_stream": 7,
                                                      "wait_on_cuda_event_record_corr_id": 12345, "stream": -1,
                                                      "correlation": 5, "device": 0})), {"inferred_sync": 1}),
    "stream_wait_backwards": (step(
        call("cudaLaunchKernel", 10, 5, 1), kernel("long", 20, 500, 1, stream=20),
        call("cudaEventRecord", 16, 2, 2),
        call("cudaStreamWaitEvent", 19, 2, 3),
        x("Stream Wait Event", "cuda_sync", 20, 1, 0, 24, {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 20,
                                                           "wait_on_cuda_event_record_corr_id": 2, "stream": 24,
                                                           "correlation": 3, "device": 0}),
        call("cudaLaunchKernel", 22, 5, 4), kernel("waiter", 30, 50, 4, stream=24),
        call("cudaDeviceSynchronize", 600, 10, 6)), {"clock_order_edges": 1}),
}


def fix_none(ev):
    for e in ev:
        if e.get("args", {}).get("correlation", 0) is None:
            del e["args"]["correlation"]
    return ev


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for name, (ev, want) in CASES.items():
            t, err = analyze(d, name, fix_none(ev))
            if err:
                print(f"FAIL {name}: {err}")
                failures += 1
                continue
            path = os.path.join(d, name + ".json")
            g = t["dependency_graph"]
            got = {"clock_order_edges": g["clock_order_edges"], "unlaunched_gpu_work": g["unlaunched_gpu_work"],
                   "inferred_sync": g["edges"]["sync"]["inferred"]}
            problems = [f"{k} {got[k]} < {v}" for k, v in want.items() if got[k] < v]
            if name == "event_record_nowhere" and g["edges"]["sync"]["recorded"]:
                problems.append("a wait on an unknown record call marked recorded")
            for s in t["steps"]:
                p = s["critical_path"]
                if p is None or p["length_ns"] != s["wall_ns"] or sum(p[k + "_ns"] for k in PATH_KINDS) != s["wall_ns"] \
                        or any(p[k + "_ns"] < 0 for k in PATH_KINDS):
                    problems.append(f"step {s['number']}: the path does not tile the step: {p}")
            if not t["steps"]:
                problems.append("no step")
            w = subprocess.run([KINESIFT, "whatif", "--quiet", "--shrink", "@gpu=0.5", path], capture_output=True,
                               text=True)
            if w.returncode != 0:
                problems.append(f"whatif exit {w.returncode}: {w.stderr[:200]}")
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"ok {name}: {got}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
