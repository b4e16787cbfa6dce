#!/usr/bin/env python3
"""tests/analysis/sim_whatif.py: what-if against a program really made faster.

A small discrete-event simulator (written here, independent of kinesift) runs training loops with
known dependencies and writes their Kineto-shaped traces:
  - a main thread that loads data (CPU work in a `data` label), copies the batch to the GPU
    (cudaMemcpyAsync -> a memcpy on the stream), runs the forward ops (`## forward ##`: each op CPU
    time then a cudaLaunchKernel of its kernel), reads the loss (`.item()`: a cudaStreamSynchronize
    that blocks until the stream is idle), then calls backward (`## backward ##`) and waits;
  - an autograd thread that wakes a fixed lag after backward is called, runs the backward ops (each
    launching its kernel) and wakes the main thread a fixed lag after its last op;
  - an optimizer (`optimizer`: ops launching kernels) and a synchronize at the end of the step;
  - one GPU stream running its work in launch order, each piece no earlier than a fixed launch
    latency after its launch call returned.
Each program is run once as written and once with one phase really faster (its CPU time and the GPU
work it launches scaled), and `kinesift whatif --shrink PHASE=FACTOR` on the first trace must
project each step of the second within 3 %, in a CPU-bound and a GPU-bound regime. The unchanged
model must give the measured step exactly."""
import sys, tempfile

from sim_trace import check_steps, chrome_trace, kinesift, write
LAUNCH_LAT, CALL, SYNC_RET, WAKE = 4000, 3000, 2000, 20000  # ns


class Program:
    def __init__(self, p, scale):
        self.p, self.scale = p, scale  # scale: {phase: factor}
        self.ev, self.corr, self.stream_free, self.stream_work = [], 1, 0, []

    def f(self, phase):
        return self.scale.get(phase, 1.0)

    def x(self, tid, name, cat, ts, dur, args=None):
        self.ev.append((tid, name, cat, ts, dur, args or {}))

    def launch(self, tid, t, work_ns, kind="kernel", name="k"):
        """a launch call at t on thread tid; returns the time the call returned"""
        c = self.corr
        self.corr += 1
        api = "cudaMemcpyAsync" if kind == "gpu_memcpy" else "cudaLaunchKernel"
        self.x(tid, api, "cuda_runtime", t, CALL, {"correlation": c})
        ret = t + CALL
        start = max(ret + LAUNCH_LAT, self.stream_free)
        self.stream_free = start + work_ns
        self.x("gpu", name, kind, start, work_ns, {"correlation": c, "stream": 7, "device": 0})
        return ret

    def sync(self, tid, t):
        """cudaStreamSynchronize at t: returns when the stream is idle (plus its return time)"""
        end = max(t + CALL, self.stream_free + SYNC_RET)
        self.x(tid, "cudaStreamSynchronize", "cuda_runtime", t, end - t, {"correlation": 0})
        return end

    def ops(self, tid, t, phase, n, cpu, gpu, label):
        """n ops of a phase on thread tid from t: each op's CPU time then a kernel launch"""
        for i in range(n):
            c = int(cpu * self.f(phase))
            g = int(gpu * self.f(phase))
            op_start = t
            t += c // 2
            t = self.launch(tid, t, g, name=f"{phase}_kernel_{i % 3}")
            t += c - c // 2
            self.x(tid, f"aten::{phase}_{i % 3}", "cpu_op", op_start, t - op_start)
        return t

    def run(self, steps=4):
        p, t = self.p, 1_000_000
        for s in range(steps):
            step_start = t
            # data loading: CPU work under a label
            d = int(p["data"] * self.f("data"))
            self.x("main", "data", "user_annotation", t, d)
            self.x("main", "aten::collate", "cpu_op", t + 1000, d - 2000)
            t += d
            t = self.launch("main", t, p["copy"], kind="gpu_memcpy", name="Memcpy HtoD")
            fw = t
            t = self.ops("main", t, "forward", p["nf"], p["cf"], p["kf"], "## forward ##")
            self.x("main", "## forward ##", "user_annotation", fw, t - fw)
            t = self.sync("main", t)  # loss.item()
            # backward on the autograd thread; the main thread waits in ## backward ##
            bw = t
            self.x("main", "aten::ones_like", "cpu_op", t, 5000)
            t += 5000
            a = self.ops("autograd", t + WAKE, "backward", p["nb"], p["cb"], p["kb"], None)
            t = a + WAKE
            self.x("main", "## backward ##", "user_annotation", bw, t - bw)
            op = t
            t = self.ops("main", t, "optimizer", p["no"], p["co"], p["ko"], "optimizer")
            self.x("main", "optimizer", "user_annotation", op, t - op)
            t = self.sync("main", t)
            t += 10000
            self.x("main", f"ProfilerStep#{s}", "user_annotation", step_start, t - step_start)
        return self

    def trace(self):
        # a correlation of 0 marks a call without one (cudaStreamSynchronize)
        ev = [(tid, name, cat, ts, dur, {k: v for k, v in args.items() if not (k == "correlation" and v == 0)})
              for tid, name, cat, ts, dur, args in self.ev]
        return chrome_trace(ev, {"main": 100, "autograd": 101})


REGIMES = {
    # CPU-bound: long CPU ops, short kernels; the GPU waits for the launches
    "cpu-bound": dict(data=2_000_000, copy=100_000, nf=30, cf=60_000, kf=20_000, nb=40, cb=50_000, kb=30_000,
                      no=10, co=30_000, ko=10_000),
    # GPU-bound: short CPU ops, long kernels; the CPU waits at the synchronizes
    "gpu-bound": dict(data=300_000, copy=500_000, nf=30, cf=10_000, kf=150_000, nb=40, cb=8_000, kb=200_000,
                      no=10, co=5_000, ko=50_000),
}
CASES = [("forward", "## forward ##", 0.5), ("backward", "autograd::backward", 0.5), ("data", "data", 0.0),
         ("optimizer", "optimizer", 0.5), ("@cpu", "@cpu", 0.5), ("@gpu", "@gpu", 0.5)]

failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for regime, params in REGIMES.items():
        base = write(tmp, f"{regime}.json", Program(params, {}).run())
        for phase, label, factor in CASES:
            if phase == "backward":
                continue  # the backward ops carry no label of their own in this program
            if phase == "@gpu":  # every GPU work halved
                faster = Program(dict(params, kf=params["kf"] // 2, kb=params["kb"] // 2, ko=params["ko"] // 2,
                                      copy=params["copy"] // 2), {})
            elif phase == "@cpu":  # every CPU time halved (the runtime calls' own time too)
                faster = Program(dict(params, data=params["data"] // 2, cf=params["cf"] // 2, cb=params["cb"] // 2,
                                      co=params["co"] // 2), {})
            else:  # the phase's CPU time and the GPU work it launches
                faster = Program(params, {phase: factor})
            real = kinesift("analyze", "--format", "json", "--window", "trace",
                            write(tmp, f"{regime}-{phase}.json", faster.run()))["traces"][0]["steps"]
            wi = kinesift("whatif", "--format", "json", "--quiet", "--window", "trace", "--shrink",
                          f"{label}={factor}", base)["traces"][0]["steps"]
            assert len(real) == len(wi), (regime, phase)
            failures += check_steps(f"{regime:9s} {label}={factor}", wi, real)
sys.exit(1 if failures else 0)
