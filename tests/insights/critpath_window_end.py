#!/usr/bin/env python3
"""A trace without steps has one critical path, of the window; the default window of a trace with
GPU work is its GPU span, which ends when the last GPU work ends. That work ended the window and
the path starts at it, even when the launching thread was busy at that instant, or long done.
Each case is a program worked by hand (us):

  thread_done   cudaLaunchKernel [10, 15) -> k1 [20, 1020); cudaLaunchKernel [16, 21) -> k2,
                queued behind k1, [1020, 2020); the thread's last op ends at 30. The window is
                [20, 2020): k2 (gpu) <- the stream after k1 (gpu, 1000): gpu 2000, nothing
                unmodeled;
  thread_busy   the same with an op on the thread over [25, 3000), past the window's end: the
                path is the same (the op did not end the window; the GPU work did).

The path tiles the window either way."""
import json, os, subprocess, sys, tempfile

KINESIFT = os.environ["KINESIFT"]
KINDS = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")


def x(name, cat, ts, dur, pid, tid, args=None):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args or {}}


def program(last_op):
    return [x("aten::add", "cpu_op", 0, 22, 1, 1),
            x("cudaLaunchKernel", "cuda_runtime", 10, 5, 1, 1, {"correlation": 1}),
            x("cudaLaunchKernel", "cuda_runtime", 16, 5, 1, 1, {"correlation": 2}),
            x("k1", "kernel", 20, 1000, 0, 7, {"correlation": 1, "stream": 7, "device": 0}),
            x("k2", "kernel", 1020, 1000, 0, 7, {"correlation": 2, "stream": 7, "device": 0}),
            x("aten::mul", "cpu_op", 25, last_op - 25, 1, 1)]


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for name, last_op in (("thread_done", 30), ("thread_busy", 3000)):
            path = os.path.join(d, name + ".json")
            with open(path, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": program(last_op)}, f)
            r = subprocess.run([KINESIFT, "analyze", "--quiet", "--format", "json", path], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: analyze exit {r.returncode}: {r.stderr[:300]}")
                failures += 1
                continue
            t = json.loads(r.stdout)["traces"][0]
            p = t["dependency_graph"]["window_critical_path"]
            got = {k: p[k + "_ns"] for k in KINDS}
            problems = []
            if t["window"]["span_ns"] != 2000000:
                problems.append(f"window {t['window']['span_ns']} ns, not the GPU span [20, 2020) us")
            if got["gpu"] != 2000000 or got["unmodeled"] != 0:
                problems.append(f"gpu {got['gpu']} ns and unmodeled {got['unmodeled']} ns, by hand 2000000 and 0")
            if sum(got.values()) != p["length_ns"] or p["length_ns"] != t["window"]["span_ns"]:
                problems.append(f"the path does not tile the window: {got}, length {p['length_ns']}")
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"ok {name}: {got}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
