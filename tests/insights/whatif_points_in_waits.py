#!/usr/bin/env python3
"""tests/insights/whatif_points_in_waits.py: edges of the dependency graph from a point where a
thread was waiting, before its wait was released. An edge from the wait itself would leave it before
it was released: a cycle through whatever released it, and the replay without change gave a longer
time than measured. Three traces, each checked for several shrinks: the model is the measured
time, no factor at or under 1 projects a step longer than the model, and `analyze`'s critical path
of the window (or of each step) adds up to its length, the wall time.
  opening_wait: the stepping thread (tid 1) opens with `## backward ##` [300, 900) us, holding no
    op: it waits there for the autograd thread (pid 1, tid 2), whose last op ends at 857. A third
    thread (pid 5, tid 2) runs one launch at 410, within 10 ms after the label began, so it counts
    as started by tid 1 at 300, inside the wait that opens tid 1 (the model was 1.200 ms for the
    690 us measured). It starts as measured.
  launch_in_sync: a step whose cudaDeviceSynchronize [303, 351) waits for a kernel [305, 350) on
    stream 7, and holds a launch at 331 of a kernel [335, 390) on stream 8: launched while the call
    still waited (the model was 104 us for the 100 us step). The launch leaves where the call
    began.
  sync_opens_thread: such a call [3, 51) opening its thread (nothing before it), waiting for a kernel
    [2, 40) another thread launched, with a launch at 31 inside it: that launch cannot be placed,
    and its kernel counts as launched by no replayed thread (`unlaunched_gpu_work` 1)."""
import json, os, subprocess, sys, tempfile
from trace_events import PATH_KINDS, call, kernel, x

K = os.environ["KINESIFT"]


def launch(pid, tid, ts, corr):
    return x("cudaLaunchKernel", "cuda_runtime", ts, 2, pid, tid, {"correlation": corr})


TRACES = {
    "opening_wait": ([
        x("## backward ##", "user_annotation", 300, 600, 1, 1),
        launch(1, 1, 950, 5), kernel("adam", 960, 30, 5),
        launch(5, 2, 410, 3), kernel("relu_bwd", 420, 40, 3),
        x("ConvBackward0", "cpu_op", 500, 200, 1, 2),
        launch(1, 2, 855, 6), kernel("acc", 860, 10, 6),
    ], [690000]),
    "launch_in_sync": ([e for n in range(3) for e in [
        x("ProfilerStep#%d" % n, "user_annotation", 100 * n, 100, 1, 1),
        launch(1, 1, 100 * n + 1, 10 * n + 1), kernel("work", 100 * n + 5, 45, 10 * n + 1),
        call("cudaDeviceSynchronize", 100 * n + 3, 48, 10 * n + 2),
        launch(1, 1, 100 * n + 31, 10 * n + 3), kernel("late", 100 * n + 35, 55, 10 * n + 3, stream=8),
        x("aten::item", "cpu_op", 100 * n + 52, 3, 1, 1),
    ]], [100000] * 3),
    "sync_opens_thread": ([
        launch(1, 2, 0, 1), kernel("early", 2, 38, 1),
        call("cudaDeviceSynchronize", 3, 48, 2),
        launch(1, 1, 31, 3), kernel("late", 35, 55, 3, stream=8),
        x("aten::item", "cpu_op", 52, 3, 1, 1),
        launch(1, 1, 60, 4), kernel("work", 64, 20, 4),
    ], [90000]),
}
UNLAUNCHED = {"sync_opens_thread": 1}  # the launch the graph cannot place
SHRINKS = ("@gpu=1", "@cpu=1", "@gpu=0.5", "@cpu=0.5", "@cpu=0", "@gpu=0")


def run(args):
    r = subprocess.run([K] + args, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: kinesift %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return None
    return json.loads(r.stdout)


def main():
    bad = 0
    with tempfile.TemporaryDirectory(prefix="ks_waitpoints_") as d:
        for name, (events, measured) in TRACES.items():
            path = os.path.join(d, name + ".json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            for shrink in SHRINKS:
                doc = run(["whatif", "--format", "json", "--shrink", shrink, path])
                if doc is None:
                    bad = 1
                    continue
                (t,) = doc["traces"]
                factor = float(shrink.rsplit("=", 1)[1])
                got = [s["measured_ns"] for s in t["steps"]]
                if got != measured:
                    print("FAIL: %s: measured %s, %s expected" % (name, got, measured))
                    bad = 1
                for i, s in enumerate(t["steps"]):
                    print("%s: --shrink %s: step %d: measured %d, model %d, projected %d ns"
                          % (name, shrink, i, s["measured_ns"], s["model_ns"], s["projected_ns"]))
                    if s["model_ns"] != s["measured_ns"]:
                        print("FAIL: %s: --shrink %s: step %d: model %d ns, measured %d ns"
                              % (name, shrink, i, s["model_ns"], s["measured_ns"]))
                        bad = 1
                    if factor <= 1 and s["projected_ns"] > s["model_ns"]:
                        print("FAIL: %s: --shrink %s: step %d: projected %d ns > model %d ns"
                              % (name, shrink, i, s["projected_ns"], s["model_ns"]))
                        bad = 1
            doc = run(["analyze", "--format", "json", "--window", "trace", path])
            if doc is None:
                bad = 1
                continue
            (t,) = doc["traces"]
            unl = t["dependency_graph"]["unlaunched_gpu_work"]
            if unl != UNLAUNCHED.get(name, 0):
                print("FAIL: %s: unlaunched_gpu_work %d, %d expected" % (name, unl, UNLAUNCHED.get(name, 0)))
                bad = 1
            # the window's critical path, or each step's where the trace has steps
            paths = [(t["dependency_graph"]["window_critical_path"], t["window"]["span_ns"], "window")]
            if paths[0][0] is None:
                paths = [(s["critical_path"], s["wall_ns"], "step %d" % s["index"]) for s in t["steps"]]
            for cp, wall, what in paths:
                kinds = sum(cp[k + "_ns"] for k in PATH_KINDS)
                print("%s: critical path of the %s: kinds %d ns, length %d ns, wall %d ns"
                      % (name, what, kinds, cp["length_ns"], wall))
                if kinds != cp["length_ns"] or cp["length_ns"] != wall:
                    print("FAIL: %s: the critical path of the %s: kinds %d ns, length %d ns, wall %d ns"
                          % (name, what, kinds, cp["length_ns"], wall))
                    bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
