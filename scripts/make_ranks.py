#!/usr/bin/env python3
"""scripts/make_ranks.py: build a multi-rank trace set from one real trace with NCCL kernels, with
answers known by construction, to check `kinesift ranks` (tests/ranks/) or to reproduce its
checks by hand.

Every rank is a copy of SRC with distributedInfo.rank/world_size and the collective group
("Process Group Ranks", "Group size") set for N ranks, and every timestamp shifted by the rank's
clock offset (whole ns, drawn in +-OFFSET_MAX_US with --seed). The straggler rank starts each
all-reduce kernel DELAY_US later and ends it at the same time as the others (the transfer ends
together), so after clock alignment every other rank waits exactly DELAY_US at each all-reduce,
and the straggler waits 0. Times are rewritten as exact decimal text (never through a float).

  make_ranks.py SRC OUTDIR --ranks N [--straggler R] [--delay-us D] [--offset-max-us M]
                [--seed S] [--name-only] [--names rank-{r}.json.gz] [--no-gpu R]
                [--drop-last R] [--tar FILE.tar]

--name-only drops distributedInfo (ranks then come from the file names); --no-gpu R removes every
GPU-side event of rank R; --drop-last R removes the last all-reduce kernel of rank R (one
unmatched call). OUTDIR/answers.txt (JSON; not named .json so that the directory stays a set of traces) holds the offsets (ns), the delay (ns), the straggler and the
number of all-reduce kernels."""
import argparse, decimal, gzip, io, json, os, random, re, sys, tarfile

D = decimal.Decimal
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy", "Memset"}


def us_to_ns(v):
    return int((D(v) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def ns_text(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def mark(v):
    """numbers as placeholders holding their exact text (json.dumps cannot write Decimal)"""
    if isinstance(v, D):
        return "@@NUM:" + str(v) + "@@"
    if isinstance(v, dict):
        return {k: mark(x) for k, x in v.items()}
    if isinstance(v, list):
        return [mark(x) for x in v]
    return v


def dumps(doc):
    s = json.dumps(mark(doc))
    return re.sub(r'"@@NUM:([^@]*)@@"', r"\1", s)


def is_allreduce_kernel(e):
    return e.get("cat") == "kernel" and e.get("args", {}).get("Collective name") == "allreduce"


def make_rank(src, r, n, offset_ns, delay_ns, straggler, name_only, no_gpu, drop_last):
    doc = json.loads(src, parse_float=D)
    if name_only:
        doc.pop("distributedInfo", None)
    else:
        di = doc.setdefault("distributedInfo", {})
        di["rank"] = r
        di["world_size"] = n
    group = "[" + ", ".join(str(i) for i in range(n)) + "]"
    events = []
    ar = [i for i, e in enumerate(doc["traceEvents"]) if is_allreduce_kernel(e)]
    drop = ar[-1] if drop_last and ar else -1
    for i, e in enumerate(doc["traceEvents"]):
        if i == drop or (no_gpu and e.get("cat") in GPU_CATS):
            continue
        a = e.get("args")
        if isinstance(a, dict) and "Group size" in a:
            a["Group size"] = n
            a["Process Group Ranks"] = group
        if "ts" in e and e.get("ph") != "M":
            ts = us_to_ns(e["ts"])
            if r == straggler and is_allreduce_kernel(e):
                dur = us_to_ns(e["dur"])
                assert dur > delay_ns, "the delay must be shorter than every all-reduce kernel"
                ts += delay_ns
                e["dur"] = D(ns_text(dur - delay_ns))
            e["ts"] = D(ns_text(ts + offset_ns))
        events.append(e)
    doc["traceEvents"] = events
    return dumps(doc), len(ar)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src")
    p.add_argument("outdir")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--straggler", type=int, default=-1)
    p.add_argument("--delay-us", type=D, default=D(500))
    p.add_argument("--offset-max-us", type=D, default=D(50000))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name-only", action="store_true")
    p.add_argument("--names", default="rank-{r}.json.gz")
    p.add_argument("--no-gpu", type=int, default=-1)
    p.add_argument("--drop-last", type=int, default=-1)
    p.add_argument("--tar")
    o = p.parse_args()
    opener = gzip.open if o.src.endswith(".gz") else open
    with opener(o.src, "rb") as f:
        src = f.read()
    os.makedirs(o.outdir, exist_ok=True)
    rng = random.Random(o.seed)
    omax = us_to_ns(o.offset_max_us)
    delay = us_to_ns(o.delay_us)
    offsets, files, n_ar = [], [], 0
    for r in range(o.ranks):
        off = rng.randint(-omax, omax)
        offsets.append(off)
        text, n_ar_r = make_rank(src, r, o.ranks, off, delay, o.straggler, o.name_only,
                                 r == o.no_gpu, r == o.drop_last)
        n_ar = max(n_ar, n_ar_r)
        name = o.names.format(r=r)
        path = os.path.join(o.outdir, name)
        data = text.encode()
        if name.endswith(".gz"):
            data = gzip.compress(data, compresslevel=1, mtime=0)
        with open(path, "wb") as f:
            f.write(data)
        files.append(path)
    if o.tar:
        with tarfile.open(o.tar, "w") as t:
            for path in files:
                t.add(path, arcname=os.path.basename(path))
    answers = {"ranks": o.ranks, "offsets_ns": offsets, "delay_ns": delay, "straggler": o.straggler,
               "allreduce_calls": n_ar, "files": files}
    with open(os.path.join(o.outdir, "answers.txt"), "w") as f:
        json.dump(answers, f, indent=1)


if __name__ == "__main__":
    main()
