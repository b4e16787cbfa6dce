#!/usr/bin/env python3
"""tests/insights/sim_dataloader.py: what-if against a program with a data loader really made faster.

A small discrete-event simulator (written here, independent of kinesift) runs a training loop fed
by a PyTorch-like DataLoader(num_workers=W, pin_memory=True, prefetch_factor=2) and writes the
Kineto-shaped trace of a window of its steps:
  - W worker processes (not in the trace) each make a batch in a fixed time; batch k goes to worker
    k mod W once its index was sent: the first 2W indices at the start, index k + 2W when the main
    thread takes batch k (a bounded queue: the workers wait for a consumer that is behind);
  - a pin-memory thread takes the batches in order, each once it arrived from its worker, and pins
    it (CPU time, `aten::pin_memory` with `aten::empty` and `aten::copy_` under it; a batch of two
    tensors is two of them, 2 us apart), then a few us of untraced time to hand it over;
  - the main thread, in each step (`ProfilerStep#N`): takes the next batch
    (`enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__`, returning a fixed time after
    the batch is pinned, or after the call began when it was pinned already), copies it to the GPU
    (cudaMemcpyAsync -> a memcpy), runs the forward ops (`## forward ##`: each op CPU time then a
    cudaLaunchKernel), reads the loss (a cudaStreamSynchronize), runs the optimizer's ops and
    synchronizes;
  - one GPU stream runs its work in launch order, each piece no earlier than a fixed launch latency
    after its launch call returned.
The program runs warm-up steps first (not in the trace), so the window starts with the queue, the
workers and the pin-memory thread in their steady state. It is run once as written and once with
one phase really faster from the window's first step on (the state at the window's start is the
same in both: batches already pinned, workers busy), and `kinesift whatif --shrink PHASE=FACTOR`
on the first trace must project each step of the second within 3 %, in four regimes: the workers
the bottleneck, the pin-memory thread the bottleneck (batches of one tensor, and of two), the GPU
the bottleneck. The unchanged model
must give the measured step exactly; the dependency graph must hold the data-queue edges."""
import sys, tempfile

from sim_trace import check_steps, chrome_trace, kinesift, write
LAUNCH_LAT, CALL, SYNC_RET, NEXT_RET, HANDOVER, TENSOR_GAP = 4000, 3000, 2000, 30000, 5000, 2000  # ns
WARMUP, STEPS = 10, 6
NEXT = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"


class Program:
    def __init__(self, p, scale):
        self.p, self.scale = p, scale  # scale: {phase: factor}, from the first traced step on
        self.ev, self.corr, self.stream_free = [], 1, 0
        self.t0 = None  # the window's start (the first traced step's start)

    def f(self, phase, t):
        return self.scale.get(phase, 1.0) if self.t0 is not None and t >= self.t0 else 1.0

    def x(self, tid, name, cat, ts, dur, args=None):
        self.ev.append((tid, name, cat, ts, dur, args or {}))

    def launch(self, t, work_ns, kind="kernel", name="k"):
        c = self.corr
        self.corr += 1
        api = "cudaMemcpyAsync" if kind == "gpu_memcpy" else "cudaLaunchKernel"
        self.x("main", api, "cuda_runtime", t, CALL, {"correlation": c})
        ret = t + CALL
        start = max(ret + LAUNCH_LAT, self.stream_free)
        self.stream_free = start + work_ns
        self.x("gpu", name, kind, start, work_ns, {"correlation": c, "stream": 7, "device": 0})
        return ret

    def sync(self, t):
        end = max(t + CALL, self.stream_free + SYNC_RET)
        self.x("main", "cudaStreamSynchronize", "cuda_runtime", t, end - t)
        return end

    def ops(self, t, phase, n, cpu, gpu):
        for i in range(n):
            c, g = int(cpu * self.f(phase, t)), int(gpu * self.f(phase, t))
            op_start = t
            t += c // 2
            t = self.launch(t, g, name=f"{phase}_kernel_{i % 3}")
            t += c - c // 2
            self.x("main", f"aten::{phase}_{i % 3}", "cpu_op", op_start, t - op_start)
        return t

    def run(self):
        p = self.p
        W, Q = p["workers"], 2 * p["workers"]
        sent, arrived, wfree, pinned, taken = {}, {}, [0] * W, {}, {}
        pin_free = 0

        def pin(k):
            """batch k: made by its worker once its index was sent, then pinned in order"""
            nonlocal pin_free
            w = k % W
            arrived[k] = max(sent[k], wfree[w]) + p["worker"]
            wfree[w] = arrived[k]
            t = max(pin_free, arrived[k])
            n = p.get("tensors", 1)  # the batch's tensors, pinned one by one (the first the largest)
            for i in range(n):
                if i:
                    t += TENSOR_GAP
                d = int(p["pin"] * (0.8 if i == 0 and n > 1 else 0.2 / (n - 1) if n > 1 else 1.0)
                        * self.f("pin", t))
                self.x("pin", "aten::pin_memory", "cpu_op", t, d)
                self.x("pin", "aten::empty", "cpu_op", t + d // 10, d // 10)
                self.x("pin", "aten::copy_", "cpu_op", t + d // 4, d // 2)
                t += d
            pinned[k] = t
            pin_free = pinned[k] + HANDOVER

        t = 1_000_000
        for k in range(Q):
            sent[k] = t
        for s in range(WARMUP + STEPS):
            if s == WARMUP:
                self.t0 = t
            step_start = t
            pin(s)
            ret = max(t, pinned[s]) + NEXT_RET
            self.x("main", NEXT, "user_annotation", t, ret - t)
            taken[s] = t = ret
            sent[s + Q] = ret  # the next index goes to the workers
            t = self.launch(t, p["copy"], kind="gpu_memcpy", name="Memcpy HtoD (Pageable -> Device)")
            fw = t
            t = self.ops(t, "forward", p["nf"], p["cf"], p["kf"])
            self.x("main", "## forward ##", "user_annotation", fw, t - fw)
            t = self.sync(t)
            op = t
            t = self.ops(t, "optimizer", p["no"], p["co"], p["ko"])
            self.x("main", "optimizer", "user_annotation", op, t - op)
            t = self.sync(t)
            t += 10000
            self.x("main", f"ProfilerStep#{s}", "user_annotation", step_start, t - step_start)
        self.t1 = t
        return self

    def trace(self):
        ev = [e for e in self.ev if self.t0 <= e[3] and e[3] + e[4] <= self.t1]  # the window recorded
        return chrome_trace(ev, {"main": 100, "pin": 102})


MAIN = dict(copy=200_000, nf=20, cf=100_000, kf=50_000, no=5, co=50_000, ko=30_000)
REGIMES = {
    # the workers the bottleneck: a batch every 6 ms, the main thread's step about 2.6 ms
    "worker-bound": dict(MAIN, workers=2, worker=12_000_000, pin=1_000_000),
    # the pin-memory thread the bottleneck: 5 ms a batch, the workers make one every 2 ms
    "pin-bound": dict(MAIN, workers=4, worker=8_000_000, pin=5_000_000),
    # the same with batches of two tensors (input, target), each pinned as its own aten::pin_memory
    "pin-bound-2": dict(MAIN, workers=4, worker=8_000_000, pin=5_000_000, tensors=2),
    # the GPU the bottleneck: long kernels; the loader keeps ahead (a batch every 1.5 ms)
    "gpu-bound": dict(MAIN, workers=2, worker=3_000_000, pin=500_000, cf=20_000, kf=400_000),
}
CASES = [("pin", "aten::pin_memory", 0.5), ("forward", "## forward ##", 0.5)]

failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for regime, params in REGIMES.items():
        base = write(tmp, f"{regime}.json", Program(params, {}).run())
        an = kinesift("analyze", "--format", "json", "--window", "trace", base)["traces"][0]
        dq = an["dependency_graph"]["edges"].get("data_queue", {})
        # the calls taking a batch pinned in the window have their edge, inferred
        ok = dq.get("recorded") == 0 and dq.get("inferred", 0) >= 1
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {regime:12s} data_queue edges: {dq}")
        for phase, label, factor in CASES:
            real = kinesift("analyze", "--format", "json", "--window", "trace",
                            write(tmp, f"{regime}-{phase}.json", Program(params, {phase: factor}).run()))
            real = real["traces"][0]["steps"]
            wi = kinesift("whatif", "--format", "json", "--quiet", "--window", "trace", "--shrink",
                          f"{label}={factor}", base)["traces"][0]["steps"]
            assert len(real) == len(wi) == STEPS, (regime, phase, len(real), len(wi))
            failures += check_steps(f"{regime:12s} {label}={factor}", wi, real)
sys.exit(1 if failures else 0)
