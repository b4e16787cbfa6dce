#!/usr/bin/env python3
"""tests/insights/whatif_opening_wait.py: a thread started at a point where another thread had just
begun to wait. The stepping thread (tid 1) opens with a label, `## backward ##` [300, 900) us,
that holds no op: it waits there for the autograd thread (pid 1, tid 2), whose last op ends at 857.
A third thread (pid 5, tid 2: the same tid in another process) runs one launch at 410, within
10 ms after the label began, so it counts as started by tid 1 at 300: a point inside the wait
that opens tid 1, which is itself released by tid 2's work. Taken from that wait, the edge would
close a cycle (tid 1's wait <- tid 2 <- the launching thread <- tid 1's wait), and the replay
without change gave 1.200 ms for the 690 us measured. Checked, for each shrink: the model is
the measured time, no factor under 1 projects the window longer than the model, and
`analyze --format json`'s critical path of the window has its kinds add up to its length."""
import json, os, subprocess, sys, tempfile

K = os.environ["KINESIFT"]
# the kinds a critical path's time is cut into (inferred and collective are shares of them)
KINDS = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")


def X(name, pid, tid, ts, dur, cat="cpu_op", **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def launch(pid, tid, ts, corr):
    return X("cudaLaunchKernel", pid, tid, ts, 2, "cuda_runtime", correlation=corr)


def kernel(name, ts, dur, corr):
    return X(name, 0, 7, ts, dur, "kernel", device=0, stream=7, correlation=corr)


EVENTS = [
    X("## backward ##", 1, 1, 300, 600, "user_annotation"),
    launch(1, 1, 950, 5), kernel("adam", 960, 30, 5),
    launch(5, 2, 410, 3), kernel("relu_bwd", 420, 40, 3),
    X("ConvBackward0", 1, 2, 500, 200),
    launch(1, 2, 855, 6), kernel("acc", 860, 10, 6),
]


def main():
    bad = 0
    with tempfile.TemporaryDirectory(prefix="ks_openwait_") as d:
        path = os.path.join(d, "opening_wait.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": EVENTS}, f)
        for shrink in ("@gpu=1", "@cpu=1", "@gpu=0.5", "@cpu=0.5", "@cpu=0", "## backward ##=0.5", "ConvBackward0=0.25"):
            r = subprocess.run([K, "whatif", "--format", "json", "--shrink", shrink, path], capture_output=True,
                               text=True)
            if r.returncode != 0:
                print("FAIL: whatif --shrink %s: exit %d: %s" % (shrink, r.returncode, r.stderr.strip()))
                bad = 1
                continue
            (t,) = json.loads(r.stdout)["traces"]
            (s,) = t["steps"]
            factor = float(shrink.rsplit("=", 1)[1])
            print("opening_wait: --shrink %s: measured %d, model %d, projected %d ns"
                  % (shrink, s["measured_ns"], s["model_ns"], s["projected_ns"]))
            if s["measured_ns"] != 690000 or s["model_ns"] != s["measured_ns"]:
                print("FAIL: --shrink %s: model %d ns, measured %d ns (690 000 expected)"
                      % (shrink, s["model_ns"], s["measured_ns"]))
                bad = 1
            if factor <= 1 and s["projected_ns"] > s["model_ns"]:
                print("FAIL: --shrink %s: projected %d ns > model %d ns" % (shrink, s["projected_ns"], s["model_ns"]))
                bad = 1
        r = subprocess.run([K, "analyze", "--format", "json", "--window", "trace", path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            print("FAIL: analyze: exit %d: %s" % (r.returncode, r.stderr.strip()))
            return 1
        (t,) = json.loads(r.stdout)["traces"]
        cp = t["dependency_graph"]["window_critical_path"]
        kinds = sum(cp[k + "_ns"] for k in KINDS)
        wall = cp["length_ns"]
        print("opening_wait: critical path of the window: kinds %d ns, wall %d ns" % (kinds, wall))
        if kinds != wall or wall != 690000:
            print("FAIL: the critical path's kinds add up to %d ns, its wall is %d ns (690 000)" % (kinds, wall))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
