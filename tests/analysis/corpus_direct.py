#!/usr/bin/env python3
"""tests/analysis/corpus_direct.py: direct GPU time per operator on one real trace, recomputed
independently and compared with `kinesift analyze --format json` to the ns.

Definition (docs/analysis.md; TraceLens's total_direct_kernel_time, except that a label between
the op and the launch owns the work): a kernel, memcpy or memset belongs directly to the innermost
operator or label (cpu_op, user_annotation; legacy Operator, User) on its launch call's thread
whose interval contains the launch call; Python frames and other calls are skipped; a row's
direct time is the union of its kernels' intervals.

The recomputation works from the raw JSON only (Decimal timestamps, containment, no nesting
code of kinesift): GPU work is linked to its launch by the correlation id. Kernels whose owner is
not well defined are left out with the rows they could touch: work without a correlation link
(kinesift links it through flows), launches with no enclosing op (kinesift falls back to the op
with the same External id), and launches whose enclosing ops partially overlap each other (then
nesting, not containment, decides). The test fails when a compared row differs by one ns, and
prints how much of the direct time it compared. Over the whole trace (--window trace)."""
import gzip, json, os, subprocess, sys
from collections import defaultdict
from decimal import Decimal

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())


OWNER = {"cpu_op", "Operator", "user_annotation", "User"}
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


def is_call(cat):
    return cat in ("Runtime",) or cat.endswith(("_runtime", "_driver"))


def args(e):
    a = e.get("args")
    return a if isinstance(a, dict) else {}


def tid_key(e):
    # kinesift names "25738" and 25738 the same thread (docs/analysis.md, Tracks)
    t = e.get("tid")
    return (str(e.get("pid")), str(t))


owners = defaultdict(list)   # thread -> [(ts, end, index, name, cat)]
launches = {}                # correlation -> (thread, ts, end, ext)
gpu = []                     # (ts, end, correlation or None)
for i, e in enumerate(events):
    if not isinstance(e, dict) or e.get("ph") != "X" or "dur" not in e:
        continue
    cat = str(e.get("cat", ""))
    ts, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
    if cat in OWNER:
        owners[tid_key(e)].append((ts, end, i, str(e.get("name")), cat))
    elif is_call(cat) and "correlation" in args(e):
        launches.setdefault(args(e)["correlation"], (tid_key(e), ts, end, args(e).get("External id")))
    elif cat in GPU:
        gpu.append((ts, end, args(e).get("correlation")))

for v in owners.values():
    v.sort()


def enclosing(thread, ts, end):
    """the owners on thread containing [ts, end), by start; None when they do not nest"""
    v = owners.get(thread, [])
    lo, hi = 0, len(v)
    while lo < hi:  # owners starting at or before ts
        mid = (lo + hi) // 2
        if v[mid][0] <= ts:
            lo = mid + 1
        else:
            hi = mid
    return [o for o in v[:lo] if o[1] >= end]


def nested(cands):
    for a in cands:
        for b in cands:
            if a is not b and a[0] <= b[0] < a[1] < b[1]:
                return False
    return True


want = defaultdict(list)  # (name, cat) -> kernel intervals
tainted = set()
left_out = 0
owner_by_ext = {}
for e in events:
    if isinstance(e, dict) and e.get("ph") == "X" and str(e.get("cat", "")) in OWNER and "External id" in args(e):
        owner_by_ext.setdefault(args(e)["External id"], set()).add((str(e.get("name")), str(e.get("cat"))))
for ts, end, corr in gpu:
    l = launches.get(corr) if corr is not None else None
    if l is None:
        left_out += 1
        tainted.add("*")  # flow-linked work may go to any row
        continue
    thread, lts, lend, ext = l
    cands = enclosing(thread, lts, lend)
    if not cands:
        left_out += 1
        for key in owner_by_ext.get(ext, ()):
            tainted.add(key)
        continue
    if not nested(cands):
        left_out += 1
        for o in cands:
            tainted.add((o[3], o[4]))
        continue
    inner = max(cands, key=lambda o: (o[0], -o[1], o[2]))
    want[(inner[3], inner[4])].append((ts, end))


def union(iv):
    iv.sort()
    total, cur = 0, None
    for a, b in iv:
        if cur is None or a > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        elif b > cur[1]:
            cur[1] = b
    return total + (cur[1] - cur[0] if cur else 0)


r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", "--window", "trace", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
(t,) = json.loads(r.stdout)["traces"]
got = {}
for row in t["ops"]:
    if row["cat"] in OWNER:
        got[(row["name"], row["cat"])] = row["gpu_direct_ns"] or 0
compared = skipped = 0
bad = []
if "*" in tainted:
    print(f"{sys.argv[1]}: GPU work linked by flows only: not compared")
    sys.exit(0)
for key in set(got) | set(want):
    if key in tainted:
        skipped += 1
        continue
    w = union(want.get(key, []))
    g = got.get(key, 0)
    compared += w
    if w != g:
        bad.append(f"{key}: kinesift {g} ns, recomputed {w} ns")
total = sum(union(list(v)) for v in want.values())
print(f"{sys.argv[1]}: {len(got)} op rows, {skipped} left out, {left_out} of {len(gpu)} GPU events "
      f"without a clear owner; compared {compared} of {total} ns of direct time")
if bad:
    sys.exit("direct GPU time differs:\n  " + "\n  ".join(sorted(bad)[:20]))
