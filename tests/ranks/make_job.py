#!/usr/bin/env python3
"""tests/ranks/make_job.py: a synthetic multi-rank job in Kineto's layout with planted faults and
the findings `kinesift ranks` must make, known by construction (tests/ranks/test_faults.py).

Every rank runs the same steps (ProfilerStep#S0 ...): in each step a fixed list of collectives on
one process group ("0", every rank), each preceded on the compute stream by a GEMM and a small
elementwise kernel, launched from record_param_comms / nccl:* CPU ops with the collective args
PyTorch writes (Collective name, In/Out msg nelems, dtype, Group size, Process Group Name/Ranks,
and Seq with --seq). The NCCL kernel of rank r starts when its compute is done (its arrival) and
ends a transfer time after the last rank arrived (every rank ends within END_JITTER of the others).
Times are built on one true clock, then each rank's clock is shifted by an offset and a drift
(ppm) from T0: local = true + offset + drift * (true - T0) / 1e6; written as exact decimal us.

Faults (each optional):
  --straggler R --delay-us D   rank R's GEMM before every all-reduce lasts D us longer
  --jitter-us J                every rank's compute lasts up to J us longer (uniform, per call)
  --drift-ppm P                clock drift drawn in +-P ppm per rank (rank 0: none)
  --skip R:S:K                 rank R never enters the K-th collective (1-based) of step S
  --late R                     rank R's capture starts one step late (its first step is not there)
  --cut R:F                    rank R's file is cut at fraction F of its bytes (killed mid-write)
  --garbage R                  rank R's file is not a trace (unreadable)
  --missing R                  rank R's file is not written (world size still counts it)
  --world W                    distributedInfo.world_size (default: --ranks)
  --memory                     [memory] events (profile_memory=True) on CUDA 0 and the CPU, each rank
                               with its own known peaks (allocated, reserved; answers "memory")
  --no-memory R                rank R has no [memory] events (its memory not observed)
  --mem-hog R                  rank R's CUDA peak is 8 GB above the others'
  --small-card R               rank R's GPU has 16 GiB (deviceProperties totalGlobalMem), the others 80 GiB

OUTDIR/answers.txt (JSON; not .json so that the directory stays a set of traces): per rank its
offset and drift, the straggler, every call's true arrivals and waits by rank
({"step", "name", "call", "waits": {rank: ns}}), the skipped calls, the cut, garbage, late and
missing ranks, the kernel the straggler's evidence must name, and with --memory each rank's memory
plan ({"cuda_peak", "cpu_peak", "reserved", "capacity", ...} by rank; absent: no [memory] events)."""
import argparse, gzip, json, os, random, re

T0 = 1_700_000_000_000_000_000  # ns, an epoch-like start (19 digits: exact int64 ns)
END_JITTER = 500         # ns
# the collectives of one step: (name, nelems, dtype, dtype bytes)
CALLS = [("broadcast", 53120, "Float", 4), ("allreduce", 2049000, "Float", 4),
         ("allreduce", 7875584, "Float", 4), ("allgather", 1 << 20, "BFloat16", 2),
         ("allreduce", 6563840, "Float", 4), ("reduce_scatter", 1 << 22, "BFloat16", 2),
         ("allreduce", 2431040, "Float", 4), ("allreduce", 65536, "Float", 4)]
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
ELEM = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"
NCCL_K = {"broadcast": "ncclKernel_Broadcast_RING_LL_Sum_float", "allreduce": "ncclKernel_AllReduce_RING_LL_Sum_float",
          "allgather": "ncclKernel_AllGather_RING_LL_Sum_bf16", "reduce_scatter": "ncclKernel_ReduceScatter_RING_LL_Sum_bf16"}


def us(ns):
    """exact decimal us text of an int ns"""
    s = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"@@{s}{ns // 1000}.{ns % 1000:03d}@@"


def build(o):
    rng = random.Random(o.seed)
    n = o.ranks
    plan = mem_plan(o)
    world = o.world or n
    offsets = [0] + [rng.randint(-50_000_000, 50_000_000) for _ in range(n - 1)]
    drift = [0.0] + [rng.uniform(-o.drift_ppm, o.drift_ppm) for _ in range(n - 1)]
    skips = set()
    for s in o.skip:
        r, st, k = (int(x) for x in s.split(":"))
        skips.add((r, st, k))
    # the true timeline: per rank, a list of events (true ns); per call, arrivals
    ev = {r: [] for r in range(n)}
    corr = {r: 1000 for r in range(n)}
    truth = []
    seq = 0
    for si in range(o.steps):
        step = o.first_step + si
        s0 = T0 + si * o.step_ms * 1000_000
        for r in range(n):
            if r in o.late and si == 0:
                continue
            ev[r].append(("step", step, s0, o.step_ms * 1000_000 - 1000))
            p = plan.get(r)
            if p:   # allocate the activation, then the gradients; free both before the step ends
                se = s0 + o.step_ms * 1000_000 - 3000
                ev[r] += [("mem", s0 + 100_000, 1, 0, p["act"], 0x7f0000000000 + si * 16),
                          ("mem", s0 + 100_500, 1, 0, WEIGHT_GRAD, 0x7f0000000008 + si * 16),
                          ("mem", se, 1, 0, -WEIGHT_GRAD, 0x7f0000000008 + si * 16),
                          ("mem", se + 500, 1, 0, -p["act"], 0x7f0000000000 + si * 16),
                          ("mem", s0 + 100_200, 0, -1, p["cpu_act"], 0x5500000000 + si * 16),
                          ("mem", se + 800, 0, -1, -p["cpu_act"], 0x5500000000 + si * 16)]
        t = s0 + 200_000
        count = {}
        for k, (name, nel, dt, dsz) in enumerate(CALLS, 1):
            count[name] = count.get(name, 0) + 1
            arr, comp = {}, {}
            for r in range(n):
                c = 400_000 + rng.randint(0, o.jitter_us * 1000)
                if r == o.straggler and name == "allreduce":
                    c += o.delay_us * 1000
                comp[r] = c
                arr[r] = t + 20_000 + c + 5_000   # launch overhead, elementwise 20 us, compute, gap
            present = [r for r in range(n) if not (r in o.late and si == 0) and (r, step, k) not in skips]
            last = max(arr[r] for r in present)
            transfer = 50_000 + nel * dsz // 100   # ns: ~100 GB/s
            end = last + transfer
            seq += 1
            for r in range(n):
                if r in o.late and si == 0:
                    continue
                ev[r].append(("elem", t + 20_000 - 20_000, 20_000, corr[r]))
                corr[r] += 1
                ev[r].append(("gemm", t + 20_000, comp[r], corr[r]))
                corr[r] += 1
                if (r, step, k) in skips:
                    continue
                e = end + rng.randint(-END_JITTER, END_JITTER)
                ev[r].append(("coll", arr[r], e - arr[r], corr[r], name, nel, dt, n, seq))
                corr[r] += 1
            truth.append({"step": step, "name": name, "call": count[name], "seq": seq, "bytes": nel * dsz,
                          "arrivals": {str(r): arr[r] for r in present},
                          "waits": {str(r): last - arr[r] for r in present}})
            t = end + 300_000
    return offsets, drift, ev, truth, world, plan


GIB = 1 << 30


def mem_plan(o):
    """per rank: the bytes allocated before the capture (CUDA, CPU), the activation allocated in
    every step (CUDA, CPU), the reserved level, the capacity; the peaks follow"""
    plan = {}
    for r in range(o.ranks):
        if not o.memory or r in o.no_memory:
            continue
        base = 9_000_000_000 + 1_234_567 * ((3 * r) % o.ranks) + (8_000_000_007 if r == o.mem_hog else 0)
        act = 700_000_000 + 4_099 * r
        cpu_base, cpu_act = 50_000_000 + 1_003 * r, 2_000_000 + 17 * ((5 * r) % o.ranks)
        reserved = base + act + 2 * WEIGHT_GRAD + 64 * (1 << 20) + 2_097_152 * r
        plan[r] = {"base": base, "act": act, "cpu_base": cpu_base, "cpu_act": cpu_act, "reserved": reserved,
                   "capacity": 16 * GIB if r == o.small_card else 80 * GIB,
                   "cuda_peak": base + act + WEIGHT_GRAD, "cpu_peak": cpu_base + cpu_act}
    return plan


WEIGHT_GRAD = 256 * (1 << 20)   # a gradient buffer every rank allocates after the activation


def local(r, t, offsets, drift):
    return t + offsets[r] + round(drift[r] * (t - T0) / 1e6)


def mem_events(r, evs, p, pid, tid, L):
    """the [memory] instants of rank r, their totals running from the bytes allocated before"""
    out, level = [], {1: p["base"], 0: p["cpu_base"]}
    for e in sorted((e for e in evs if e[0] == "mem"), key=lambda e: e[1]):
        _, ts, dtype, did, nbytes, addr = e
        level[dtype] += nbytes
        out.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid, "tid": tid,
                    "ts": us(L(ts)), "args": {"Total Reserved": p["reserved"] if dtype else 0,
                                              "Total Allocated": level[dtype], "Bytes": nbytes, "Addr": addr,
                                              "Device Id": did, "Device Type": dtype}})
    return out


def rank_doc(r, evs, o, offsets, drift, world, plan):
    L = lambda t: local(r, t, offsets, drift)
    D = lambda t, d: L(t + d) - L(t)
    out = []
    pid, tid = 4000 + r, 4000 + r
    out.append({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}})
    group = "[" + ", ".join(str(i) for i in range(world)) + "]"
    if r in plan:
        out += mem_events(r, evs, plan[r], pid, tid, L)
    for e in evs:
        if e[0] == "mem":
            continue
        if e[0] == "step":
            _, step, s0, dur = e
            out.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": tid,
                        "ts": us(L(s0)), "dur": us(D(s0, dur)), "args": {"External id": step}})
            continue
        kind, ts, dur, c = e[:4]
        launch = ts - 60_000 if kind != "coll" else ts - 30_000
        if kind == "coll":
            name, nel, dt, gs, seq = e[4:]
            cargs = {"Collective name": name, "In msg nelems": nel, "Out msg nelems": nel, "Group size": world,
                     "dtype": dt, "Process Group Name": "0", "Process Group Description": "default_pg",
                     "Process Group Ranks": group}
            if o.seq:
                cargs["Seq"] = seq
            out.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": tid,
                        "ts": us(L(launch - 10_000)), "dur": us(D(launch - 10_000, 20_000)),
                        "args": dict(cargs, **{"External id": c})})
            out.append({"ph": "X", "cat": "cpu_op", "name": f"nccl:{name}", "pid": pid, "tid": tid,
                        "ts": us(L(launch - 5_000)), "dur": us(D(launch - 5_000, 10_000)), "args": {"External id": c}})
            kname, stream, args = NCCL_K[name], 40, dict(cargs)
        else:
            op = "aten::mm" if kind == "gemm" else "aten::fill_"
            out.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": pid, "tid": tid, "ts": us(L(launch - 5_000)),
                        "dur": us(D(launch - 5_000, 10_000)), "args": {"External id": c}})
            kname, stream, args = (GEMM if kind == "gemm" else ELEM), 7, {}
        out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                    "ts": us(L(launch)), "dur": us(D(launch, 4_000)), "args": {"correlation": c, "External id": c}})
        args.update({"External id": c, "device": 0, "stream": stream, "correlation": c})
        out.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": stream, "ts": us(L(ts)),
                    "dur": us(D(ts, dur)), "args": args})
        out.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": us(L(ts)), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        out.append({"ph": "s", "id": c, "pid": pid, "tid": tid, "ts": us(L(launch)), "cat": "ac2g", "name": "ac2g"})
    out.sort(key=lambda e: (0 if e["ph"] == "M" else 1, int(e.get("ts", "@@0@@").strip("@").replace(".", ""))))
    # numbers as JSON numbers with their exact text
    body = re.sub(r'"@@([-0-9.]*)@@"', r"\1", ",\n".join(json.dumps(e) for e in out))
    cap = f', "totalGlobalMem": {16 * GIB if r == o.small_card else 80 * GIB}' if o.memory else ""
    head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"' + cap + '}],\n'
            f'"distributedInfo": {{"backend": "nccl", "rank": {r}, "world_size": {world}}},\n'
            '"displayTimeUnit": "ms",\n"traceEvents": [\n')
    return head + body + "\n],\n\"traceName\": \"rank%d\"\n}\n" % r


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--world", type=int, default=0)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--step-ms", type=int, default=20)
    p.add_argument("--first-step", type=int, default=3)
    p.add_argument("--straggler", type=int, default=-1)
    p.add_argument("--delay-us", type=int, default=1500)
    p.add_argument("--jitter-us", type=int, default=0)
    p.add_argument("--drift-ppm", type=float, default=0.0)
    p.add_argument("--skip", action="append", default=[])
    p.add_argument("--late", type=int, action="append", default=[])
    p.add_argument("--cut", action="append", default=[])
    p.add_argument("--garbage", type=int, action="append", default=[])
    p.add_argument("--missing", type=int, action="append", default=[])
    p.add_argument("--seq", action="store_true")
    p.add_argument("--memory", action="store_true")
    p.add_argument("--no-memory", type=int, action="append", default=[])
    p.add_argument("--mem-hog", type=int, default=-1)
    p.add_argument("--small-card", type=int, default=-1)
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    o = p.parse_args()
    offsets, drift, ev, truth, world, plan = build(o)
    os.makedirs(o.outdir, exist_ok=True)
    cuts = {int(c.split(":")[0]): float(c.split(":")[1]) for c in o.cut}
    files = {}
    for r in range(o.ranks):
        if r in o.missing:
            continue
        name = f"rank-{r}.json" + (".gz" if o.gzip else "")
        data = rank_doc(r, ev[r], o, offsets, drift, world, plan).encode()
        if r in o.garbage:
            data = b"this is not a trace\n"
        if o.gzip:
            data = gzip.compress(data, compresslevel=1, mtime=0)
        if r in cuts:
            data = data[:int(len(data) * cuts[r])]
        path = os.path.join(o.outdir, name)
        with open(path, "wb") as f:
            f.write(data)
        files[r] = path
    skipped = [{"rank": r, "step": s, "k": k, "name": CALLS[k - 1][0],
                "call": sum(1 for c in CALLS[:k] if c[0] == CALLS[k - 1][0])} for r, s, k in
               (tuple(int(x) for x in s.split(":")) for s in o.skip)]
    answers = {"ranks": o.ranks, "world": world, "offsets_ns": offsets, "drift_ppm": drift,
               "straggler": o.straggler, "delay_ns": o.delay_us * 1000, "evidence_kernel": GEMM,
               "calls": truth, "skipped": skipped, "late": o.late, "cut": sorted(cuts), "garbage": o.garbage,
               "missing": o.missing, "files": {str(r): p for r, p in files.items()},
               "first_step": o.first_step, "steps": o.steps,
               "memory": {str(r): p for r, p in plan.items()}}
    with open(os.path.join(o.outdir, "answers.txt"), "w") as f:
        json.dump(answers, f, indent=1)


if __name__ == "__main__":
    main()
