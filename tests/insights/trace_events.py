"""tests/insights/trace_events.py: what the tests that write small traces by hand share
(critpath_bad_input.py, critpath_by_hand.py, critpath_collective.py, kernel_diagnoses.py,
whatif_points_in_waits.py, whatif_random_laws.py): a
complete event ("ph": "X") as Kineto writes it, times in us as plain numbers, and the kernels and
runtime calls most of their events are; the kinds of a critical path; an analysis of such a trace."""
import json, os, subprocess

# the kinds of a critical path's pieces, as analyze's JSON names its figures (kind + "_ns")
PATH_KINDS = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")


def x(name, cat, ts, dur, pid, tid, args=None):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args or {}}


def kernel(name, ts, dur, corr, stream=7):
    """a kernel on a stream of GPU 0 (pid 0, the stream its tid), linked by its correlation"""
    return x(name, "kernel", ts, dur, 0, stream, {"correlation": corr, "stream": stream, "device": 0})


def call(name, ts, dur, corr, tid=1):
    """a runtime call of process 1 carrying a correlation"""
    return x(name, "cuda_runtime", ts, dur, 1, tid, {"correlation": corr})


def analyze(d, name, events):
    """the events written as d/name.json and analysed (analyze --format json): its one trace, and
    None; or None and why analyze failed"""
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)
    r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, f"analyze exit {r.returncode}: {r.stderr[:300]}"
    return json.loads(r.stdout)["traces"][0], None
