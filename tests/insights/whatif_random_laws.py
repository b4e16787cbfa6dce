#!/usr/bin/env python3
"""tests/insights/whatif_random_laws.py: the laws of the dependency graph on random traces. Each
trace is made from a seed: one to three CPU threads (a tid may repeat in another process), steps or
none, ops, labels that hold no op (waits), kernel and copy launches inside ops and inside blocking
calls, device and stream synchronizes, threads that start just after another's label begins,
kernels without a launch, kernels that overlap on one stream, fwdbwd flows. Laws that hold on any
trace:
  - `whatif` with @gpu=1 and @cpu=1: every step's model is its measured time;
  - @gpu=0.5, @cpu=0.5, @cpu=0 and @gpu=0: no step is projected longer than its model;
  - `analyze --format json`: the critical path of the window (or of each step) has its kinds add
    up to its length, which is the window's (the step's) wall time.
A failure names the seed: `whatif_random_laws.py --seed N --keep DIR` writes that trace to DIR.
The fuzzer (fuzz/fuzz_whatif.c) checks the same laws on mutated bytes; these traces reach the
threads, waits and launches together, which mutations rarely build."""
import json, os, random, subprocess, sys, tempfile
from trace_events import PATH_KINDS, x

K = os.environ["KINESIFT"]
TRACES = 120


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.ev = []
        self.corr = 1
        self.stream_free = {}  # stream -> end of its last work

    def X(self, name, pid, tid, ts, dur, cat, **args):
        self.ev.append(x(name, cat, ts, dur, pid, tid, args))

    def gpu(self, at, launch=True, kind="kernel"):
        """GPU work on a random stream, no earlier than at; returns its end"""
        r = self.r
        s = r.choice((7, 7, 8, 9))
        start = max(at + r.randint(1, 5), self.stream_free.get(s, 0))
        if r.random() < 0.1:  # overlapping the work before it on its stream
            start = max(at + 1, self.stream_free.get(s, 0) - r.randint(1, 20))
        dur = r.randint(1, 60)
        self.stream_free[s] = max(self.stream_free.get(s, 0), start + dur)
        args = {"device": 0, "stream": s}
        if launch:
            args["correlation"] = self.corr
        name = r.choice(("gemm", "relu", "attn")) if kind == "kernel" else "Memcpy HtoD (Pinned -> Device)"
        self.X(name, 0, s, start, dur, "kernel" if kind == "kernel" else "gpu_memcpy", **args)
        return start + dur

    def launch(self, pid, tid, t):
        """a launch call at t and its work; returns the call's end and the work's end"""
        r = self.r
        copy = r.random() < 0.2
        self.X("cudaMemcpyAsync" if copy else "cudaLaunchKernel", pid, tid, t, 2, "cuda_runtime",
               correlation=self.corr)
        end = self.gpu(t + 2, kind="memcpy" if copy else "kernel")
        self.corr += 1
        return t + 2, end

    def thread_body(self, pid, tid, t, until):
        """ops, launches, waits and syncs on one thread from t to until; the ends of its GPU work"""
        r = self.r
        ends = []
        while t < until - 10:
            x = r.random()
            if x < 0.35:  # an op, maybe with launches inside
                d = r.randint(4, 40)
                self.X(r.choice(("aten::mm", "aten::add", "ConvBackward0")), pid, tid, t, d, "cpu_op")
                c = t + 1
                while c + 3 < t + d and r.random() < 0.5:
                    c, e = self.launch(pid, tid, c)
                    ends.append(e)
                    c += 1
                t += d + r.randint(0, 5)
            elif x < 0.55:  # a bare launch
                c, e = self.launch(pid, tid, t)
                ends.append(e)
                t = c + r.randint(0, 5)
            elif x < 0.7:
                # a blocking call until the work launched so far has ended, maybe a launch inside
                done = max(ends + [t + 5])
                end = max(done + r.randint(0, 3), t + 3)
                name = r.choice(("cudaDeviceSynchronize", "cudaStreamSynchronize"))
                self.X(name, pid, tid, t, end - t, "cuda_runtime", correlation=self.corr)
                self.corr += 1
                if r.random() < 0.4 and end - t > 6:
                    _, e = self.launch(pid, tid, t + r.randint(1, end - t - 4))
                    ends.append(e)
                t = end + r.randint(0, 5)
            elif x < 0.85:  # a label that holds no op: the thread waits in it
                d = r.randint(100, 400)
                self.X(r.choice(("## backward ##", "wait_here")), pid, tid, t, d, "user_annotation")
                t += d + r.randint(0, 5)
            else:  # idle
                t += r.randint(20, 200)
        return ends

    def make(self):
        r = self.r
        stepping = (1, 1)
        others = [(r.choice((1, 1, 2)), r.choice((2, 3))) for _ in range(r.randint(0, 2))]
        steps = r.random() < 0.6
        t = 0
        if steps:
            for n in range(r.randint(1, 4)):
                length = r.randint(300, 1200)
                self.X("ProfilerStep#%d" % n, stepping[0], stepping[1], t, length, "user_annotation")
                self.thread_body(stepping[0], stepping[1], t + 1, t + length - 1)
                t += length
        else:
            t = 2000
            self.thread_body(stepping[0], stepping[1], 0, t)
        end = t
        label_starts = [e["ts"] for e in self.ev if e["cat"] == "user_annotation" and e["tid"] == 1
                        and not e["name"].startswith("ProfilerStep")]
        for pid, tid in others:
            # start within 10 ms after a label of the main thread began, else anywhere
            if label_starts and r.random() < 0.7:
                s = r.choice(label_starts) + r.randint(1, 60)
            else:
                s = r.randint(0, end // 2)
            self.thread_body(pid, tid, s, min(end, s + r.randint(100, 1500)))
        for _ in range(r.randint(0, 2)):  # GPU work without a launch call
            self.gpu(r.randint(0, end), launch=False)
        ops = [e for e in self.ev if e["cat"] == "cpu_op"]
        for k in range(min(len(ops) // 3, r.randint(0, 2))):  # fwdbwd flows between two ops
            a, b = r.sample(ops, 2)
            self.ev.append({"ph": "s", "id": 1000 + k, "pid": a["pid"], "tid": a["tid"], "ts": a["ts"],
                            "cat": "fwdbwd", "name": "fwdbwd"})
            self.ev.append({"ph": "f", "id": 1000 + k, "pid": b["pid"], "tid": b["tid"], "ts": b["ts"],
                            "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
        r.shuffle(self.ev)
        return {"traceEvents": self.ev}


def run(args):
    r = subprocess.run([K] + args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, "exit %d: %s" % (r.returncode, r.stderr.strip()[:300])
    return json.loads(r.stdout)["traces"][0], None


def check(path):
    """the laws on one trace: a list of failures"""
    bad = []
    same, err = run(["whatif", "--quiet", "--format", "json", "--shrink", "@gpu=1", "--shrink", "@cpu=1", path])
    if err:
        return ["whatif: " + err]
    for s in same["steps"]:
        if s["model_ns"] != s["measured_ns"] or s["projected_ns"] != s["model_ns"]:
            bad.append("step %s: measured %d, model %d, projected %d without change"
                       % (s.get("number"), s["measured_ns"], s["model_ns"], s["projected_ns"]))
    for shrink in ("@gpu=0.5", "@cpu=0.5", "@cpu=0", "@gpu=0"):
        t, err = run(["whatif", "--quiet", "--format", "json", "--shrink", shrink, path])
        if err:
            bad.append("whatif %s: %s" % (shrink, err))
            continue
        for s in t["steps"]:
            if s["projected_ns"] > s["model_ns"]:
                bad.append("%s: step %s projected %d > model %d" % (shrink, s.get("number"), s["projected_ns"],
                                                                  s["model_ns"]))
    t, err = run(["analyze", "--quiet", "--format", "json", path])
    if err:
        return bad + ["analyze: " + err]
    paths = [(t["dependency_graph"]["window_critical_path"], t["window"]["span_ns"], "window")]
    if paths[0][0] is None:
        paths = [(s["critical_path"], s["wall_ns"], "step %d" % s["index"]) for s in t["steps"]
                 if s.get("critical_path")]
    for cp, wall, what in paths:
        kinds = sum(cp[k + "_ns"] for k in PATH_KINDS)
        if kinds != cp["length_ns"] or cp["length_ns"] != wall:
            bad.append("critical path of the %s: kinds %d, length %d, wall %d" % (what, kinds, cp["length_ns"], wall))
    return bad


def main():
    seeds = range(TRACES)
    keep = None
    if "--seed" in sys.argv:
        seeds = [int(sys.argv[sys.argv.index("--seed") + 1])]
    if "--keep" in sys.argv:
        keep = sys.argv[sys.argv.index("--keep") + 1]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="ks_randlaws_") as d:
        for seed in seeds:
            path = os.path.join(keep or d, "random-%d.json" % seed)
            with open(path, "w") as f:
                json.dump(Gen(seed).make(), f)
            bad = check(path)
            for b in bad:
                print("FAIL: seed %d: %s" % (seed, b))
            failed += bool(bad)
    print("whatif_random_laws: %d traces, %d failed" % (len(seeds), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
