#!/usr/bin/env python3
"""The GPU's latency on the critical path is bounded: GPU work that starts long after the dependency
that released it (its launch call, the work before it on its stream) waited for something the
trace does not show, and that wait is `unmodeled`, not a launch latency or a stream gap. The bound
is max(100 us, 10 x the graph's median launch latency) (insights/insights_int.h,
KS_LATENCY_MIN_NS, KS_LATENCY_TYPICAL). Each case is a program whose path is worked by hand (us):

  late_launch     five kernels start 5 us after their launch calls end, a sixth 5000 us after
                  (the GPU idle meanwhile), which a synchronize waits for: on the path, the sixth's
                  100 us of launch latency and 4900 us unmodeled;
  slow_launches   the same with every launch 30 us and the sixth 250 us: the bound is 300 us, so
                  its 250 us stay launch latency;
  stream_gap      a kernel queued behind a long one starts 3000 us after it ended: 100 us of
                  stream gap, 2900 us unmodeled.

Every path still tiles its step (its kinds add up to the step's wall time)."""
import json, os, subprocess, sys, tempfile

KINESIFT = os.environ["KINESIFT"]
KINDS = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")


def x(name, cat, ts, dur, pid, tid, args=None):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args or {}}


def kernel(name, ts, dur, corr):
    return x(name, "kernel", ts, dur, 0, 7, {"correlation": corr, "stream": 7, "device": 0})


def call(name, ts, dur, corr):
    return x(name, "cuda_runtime", ts, dur, 1, 1, {"correlation": corr})


def launches(lat, late_lat):
    """five launches [10k, 10k + 5) with their kernels lat after each call's end, then a sixth at
    100 whose kernel starts late_lat after the call's end; a synchronize waits for it; the step
    ends 80 us after the synchronize returned"""
    ev = []
    for k in range(5):
        ts = 10 + 10 * k
        ev += [call("cudaLaunchKernel", ts, 5, k + 1), kernel(f"k{k}", ts + 5 + lat, 3, k + 1)]
    late = 105 + late_lat
    ev += [call("cudaLaunchKernel", 100, 5, 6), kernel("late", late, 10, 6),
           call("cudaDeviceSynchronize", 200, late + 15 - 200, 7)]
    end = late + 15 + 80
    return [x("ProfilerStep#1", "user_annotation", 0, end, 1, 1)] + ev, end


def stream_gap():
    ev = [call("cudaLaunchKernel", 10, 5, 1), kernel("long", 20, 1980, 1),
          call("cudaLaunchKernel", 30, 5, 2), kernel("queued", 5000, 10, 2),
          call("cudaDeviceSynchronize", 40, 4975, 3)]
    return [x("ProfilerStep#1", "user_annotation", 0, 5100, 1, 1)] + ev, 5100


def cases():
    ev, end = launches(5, 5000)
    yield "late_launch", ev, end, {"launch_latency": 100, "unmodeled": 4900, "stream_gap": 0, "gpu": 10}
    ev, end = launches(30, 250)
    yield "slow_launches", ev, end, {"launch_latency": 250, "unmodeled": 0, "stream_gap": 0, "gpu": 10}
    ev, end = stream_gap()
    yield "stream_gap", ev, end, {"stream_gap": 100, "unmodeled": 2900, "launch_latency": 5, "gpu": 1990}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for name, ev, end, want in cases():
            path = os.path.join(d, name + ".json")
            with open(path, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
            r = subprocess.run([KINESIFT, "analyze", "--quiet", "--format", "json", path], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: analyze exit {r.returncode}: {r.stderr[:300]}")
                failures += 1
                continue
            steps = json.loads(r.stdout)["traces"][0]["steps"]
            problems = []
            if len(steps) != 1 or steps[0]["critical_path"] is None:
                problems.append(f"one step with a path expected: {steps}")
            else:
                p = steps[0]["critical_path"]
                got = {k: p[k + "_ns"] for k in KINDS}
                for k, v in want.items():
                    if got[k] != v * 1000:
                        problems.append(f"{k} {got[k]} ns, by hand {v * 1000}")
                if sum(got.values()) != end * 1000 or p["length_ns"] != end * 1000:
                    problems.append(f"the path does not tile the step ({end} us): {got}")
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"ok {name}: {want}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
