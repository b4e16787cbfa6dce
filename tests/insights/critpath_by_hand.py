#!/usr/bin/env python3
"""Critical paths of small programs worked by hand (us), each a case the model could get wrong:

The GPU's latency is bounded. GPU work that starts long after the dependency that released it (its
launch call, the work before it on its stream) waited for something the trace does not show; that
wait is `unmodeled`, not a launch latency or a stream gap. The bound is max(100 us, 10 x the graph's
median launch latency) (insights/insights_int.h, KS_LATENCY_MIN_NS, KS_LATENCY_TYPICAL):
  late_launch    five kernels start 5 us after their launch calls end, a sixth 5000 us after (the
                 GPU idle meanwhile), which a synchronize waits for: on the step's path, the
                 sixth's 100 us of launch latency and 4900 us unmodeled;
  slow_launches  the same with every launch 30 us and the sixth 250 us: the bound is 300 us, so
                 its 250 us stay launch latency;
  stream_gap     a kernel queued behind a long one starts 3000 us after it ended: 100 us of
                 stream gap, 2900 us unmodeled.

A window without steps ends with the GPU work that ended it. The default window of a trace with
GPU work and no step is its GPU span, which ends when the last GPU work ends; the window's path
starts at that work, whether the launching thread was busy then or long done:
  thread_done    cudaLaunchKernel [10, 15) -> k1 [20, 1020); cudaLaunchKernel [16, 21) -> k2,
                 queued behind k1, [1020, 2020); the thread's last op ends at 30. The window is
                 [20, 2020): k2 <- the stream after k1: gpu 2000, nothing unmodeled;
  thread_busy    the same with an op on the thread over [25, 3000), past the window's end.

Every path tiles its step or window (its kinds add up to its length, the wall time)."""
import sys, tempfile
from trace_events import PATH_KINDS, analyze, call, kernel, x



def step(ev, end):
    return [x("ProfilerStep#1", "user_annotation", 0, end, 1, 1)] + ev, end


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
    return step(ev, late + 15 + 80)


def queued():
    return step([call("cudaLaunchKernel", 10, 5, 1), kernel("long", 20, 1980, 1),
                 call("cudaLaunchKernel", 30, 5, 2), kernel("queued", 5000, 10, 2),
                 call("cudaDeviceSynchronize", 40, 4975, 3)], 5100)


def no_step(last_op):
    return [x("aten::add", "cpu_op", 0, 22, 1, 1), call("cudaLaunchKernel", 10, 5, 1),
            call("cudaLaunchKernel", 16, 5, 2), kernel("k1", 20, 1000, 1), kernel("k2", 1020, 1000, 2),
            x("aten::mul", "cpu_op", 25, last_op - 25, 1, 1)], 2000


def cases():
    """name, (events, length of the step or window in us), the figures worked by hand"""
    yield "late_launch", launches(5, 5000), {"launch_latency": 100, "unmodeled": 4900, "stream_gap": 0, "gpu": 10}
    yield "slow_launches", launches(30, 250), {"launch_latency": 250, "unmodeled": 0, "stream_gap": 0, "gpu": 10}
    yield "stream_gap", queued(), {"stream_gap": 100, "unmodeled": 2900, "launch_latency": 5, "gpu": 1990}
    yield "thread_done", no_step(30), {"gpu": 2000, "unmodeled": 0, "cpu": 0}
    yield "thread_busy", no_step(3000), {"gpu": 2000, "unmodeled": 0, "cpu": 0}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for name, (ev, length), want in cases():
            t, err = analyze(d, name, ev)
            if err:
                print(f"FAIL {name}: {err}")
                failures += 1
                continue
            if t["steps"]:
                paths = [s["critical_path"] for s in t["steps"]]
            else:
                paths = [t["dependency_graph"]["window_critical_path"]]
            problems = []
            if len(paths) != 1 or paths[0] is None:
                problems.append(f"one path expected: {paths}")
            else:
                got = {k: paths[0][k + "_ns"] for k in PATH_KINDS}
                problems += [f"{k} {got[k]} ns, by hand {v * 1000}" for k, v in want.items() if got[k] != v * 1000]
                if sum(got.values()) != length * 1000 or paths[0]["length_ns"] != length * 1000:
                    problems.append(f"the path does not tile its {length} us: {got}")
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"ok {name}: {want}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
