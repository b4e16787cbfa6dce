#!/usr/bin/env python3
"""tests/report/shared_tids.py: a thread named in a text report is unambiguous when two processes
have a thread of the same tid (a trace merged from several hosts, or from pid namespaces).

What: one trace whose stepping thread (pid 1 tid 1), a second thread of its process (pid 1 tid 2)
and a thread of another process (pid 5) launch kernels in each step; the other process's thread is
tid 2 in one copy, tid 9 in another. Where the tid is shared, analyze's threads table and
whatif's "threads replayed" name every thread by pid and tid; where it is not, by tid alone (as
before). whatif's JSON gives each replayed thread's pid (`thread_pids`, in the order of
`threads`) either way.
Why it is correct: a track is one (pid, tid) (kinesift/store.h); the two tid-2 threads are two
tracks, and without the pid the text would name two threads the same. Standard library only;
KINESIFT from meson."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "insights"))
from trace_events import call, kernel, x  # noqa: E402

KS = os.environ["KINESIFT"]
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)


def trace(other_tid):
    ev, corr = [], 1
    for s in range(3):
        t0 = 1000 + s * 1000
        ev.append(x("ProfilerStep#%d" % s, "user_annotation", t0, 900, 1, 1))
        ev.append(x("aten::mm", "cpu_op", t0 + 10, 100, 1, 1))
        ev += [call("cudaLaunchKernel", t0 + 20, 10, corr, tid=1), kernel("gemm", t0 + 40, 200, corr)]
        corr += 1
        ev.append(x("aten::add", "cpu_op", t0 + 300, 50, 1, 2))
        ev += [call("cudaLaunchKernel", t0 + 310, 10, corr, tid=2), kernel("add_k", t0 + 400, 100, corr)]
        corr += 1
        ev.append(x("aten::mul", "cpu_op", t0 + 500, 50, 5, other_tid))
        ev.append(x("cudaLaunchKernel", "cuda_runtime", t0 + 510, 10, 5, other_tid, {"correlation": corr}))
        ev.append(kernel("mul_k", t0 + 600, 100, corr))
        corr += 1
    return {"schemaVersion": 1, "traceEvents": ev}


def run(*args):
    r = subprocess.run([KS, *args], capture_output=True, text=True, env=dict(os.environ, COLUMNS="10000"))
    check(r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr[-300:]}")
    return r.stdout


with tempfile.TemporaryDirectory() as d:
    for other, shared in ((2, True), (9, False)):
        p = os.path.join(d, f"tid{other}.json")
        with open(p, "w") as f:
            json.dump(trace(other), f)
        text = run("analyze", "--quiet", p)
        rows = [l.split() for l in text.splitlines() if l.strip().startswith(("steps ", "other "))]
        names = [" ".join(r[-4:]) if shared else " ".join(r[-2:]) for r in rows]
        want = ["pid 1 tid 1", "pid 1 tid 2", "pid 5 tid 2"] if shared else ["tid 1", "tid 2", "tid 9"]
        check(sorted(names) == want, f"tid {other}: the threads table names {names}, not {want}")
        check(shared == ("pid 5" in text), f"tid {other}: pids in the text: {'pid 5' in text}")
        wt = run("whatif", "--quiet", "--shrink", "aten::mm=0.5", p)
        line = next((l for l in wt.splitlines() if "threads replayed:" in l), "")
        want = ("threads replayed: pid 1 tid 1 (stepping), pid 1 tid 2, pid 5 tid 2" if shared
                else "threads replayed: tid 1 (stepping), tid 2, tid 9")
        check(line.strip() == want, f"tid {other}: whatif says {line.strip()!r}, not {want!r}")
        wj = json.loads(run("whatif", "--quiet", "--format", "json", "--shrink", "aten::mm=0.5", p))["traces"][0]
        pairs = sorted(zip(wj["thread_pids"], wj["threads"]))
        want = sorted([("1", "1"), ("1", "2"), ("5", str(other))])
        check(len(wj["thread_pids"]) == len(wj["threads"]) and pairs == want,
              f"tid {other}: whatif JSON threads {wj['threads']} pids {wj['thread_pids']}")
        check(wj["threads"][0] == "1" and wj["thread_pids"][0] == "1", "the stepping thread first")

for f in fails:
    print("FAIL:", f)
print(f"shared_tids: {len(fails)} checks failed")
sys.exit(1 if fails else 0)
