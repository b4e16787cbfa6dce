#!/usr/bin/env python3
"""tests/insights/corpus_window.py: the default analysis window of `kinesift analyze --format json`
on one real trace (an absolute path, or a path relative to $KS_CORPUS), re-derived here from the
raw JSON (Decimal timestamps, no kinesift code):

  - with ProfilerStep#N rows: the steps are the ProfilerStep#N annotations of the thread that holds
    most of them, each widened to the end of the GPU work launched (by correlation id) from inside
    it and starting no earlier than the previous one ended; warm-up steps are the leading ones above
    median + max(3 x 1.4826 MAD, 25 % of the median) (never all but two); the window runs from the
    first active step's start to the last one's end, and its `chosen` line names the step numbers;
  - without an active step and with GPU work: the GPU span, first GPU work start to last end;
  - the profiler's own span (`PyTorch Profiler (N)`, category Trace) never stretches the window:
    it lies inside the span of every other row;
  - every share names its denominator (`share_of`) and is of it: device busy shares, kernel shares,
    diagnosis impact shares and gap shares are at most 1; an op or label share is its inclusive
    time over window.span_ns;
  - laws inside the window: the GPU busy time of each device is the union of its GPU work clipped
    to the window; the kernel rows count each GPU work event starting in the window exactly once,
    with its exact duration; and, on traces without partial overlaps, the ops' self times add up,
    thread by thread, to the busy time each thread spends in slices that start in the window
    (every ns of a thread belongs to the innermost slice covering it, the latest to start)."""
import gzip, heapq, json, os, re, subprocess, sys
from collections import defaultdict
from decimal import Decimal

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())


def analyze(*extra):
    r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", *extra, path],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
    (t,) = json.loads(r.stdout)["traces"]
    return t


t = analyze("--top", "0")
whole = analyze("--window", "trace")
w = t["window"]
W0, W1, span = w["start_ns"], w["end_ns"], w["span_ns"]
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
X = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "dur" in e and "ts" in e]
gpu = [e for e in X if e.get("cat") in GPU]

# ---- the steps, re-derived -----------------------------------------------------------------------
STEP = re.compile(r"^ProfilerStep\s*#\s*(\d+)$")
by_thread = defaultdict(list)
for e in X:
    if e.get("cat") in ("user_annotation", "cpu_op", "Operator") and STEP.match(str(e.get("name", ""))):
        by_thread[(str(e.get("pid")), str(e.get("tid")))].append(e)
steps = []
if by_thread:
    rows = max(by_thread.values(), key=len)
    rows.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    open_end = None
    for e in rows:
        a, b = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        if open_end is not None and a < open_end:
            continue  # nested in the previous step
        open_end = b
        steps.append({"number": int(STEP.match(e["name"]).group(1)), "host_start": a, "host_end": b})
    launch = {}
    for e in X:
        cat = str(e.get("cat", ""))
        corr = (e.get("args") or {}).get("correlation")
        if corr is not None and (cat in ("Runtime",) or cat.endswith(("_runtime", "_driver"))):
            launch[corr] = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
    gpu_end = [None] * len(steps)
    starts = [s["host_start"] for s in steps]
    for g in gpu:
        l = launch.get((g.get("args") or {}).get("correlation"))
        if not l:
            continue
        i = sum(1 for s in starts if s <= l[0]) - 1  # the last step starting at or before the launch
        if i < 0 or l[1] > steps[i]["host_end"]:
            continue
        end = ns(g["ts"]) + ns(g["dur"])
        gpu_end[i] = end if gpu_end[i] is None else max(gpu_end[i], end)
    prev = None
    for s, ge in zip(steps, gpu_end):
        s["start"] = s["host_start"] if prev is None else max(s["host_start"], prev)
        s["end"] = max(s["host_end"], s["start"], ge if ge is not None else s["start"])
        prev = s["end"]

    def median(v):
        v = sorted(v)
        n = len(v)
        return v[n // 2] if n % 2 else v[n // 2 - 1] + (v[n // 2] - v[n // 2 - 1]) // 2

    walls = [s["end"] - s["start"] for s in steps]
    warm = [False] * len(steps)
    if len(steps) >= 3:
        med = median(walls)
        mad = median([abs(x - med) for x in walls])
        margin = max(3.0 * 1.4826 * mad, 0.25 * med)
        i = 0
        while i + 2 < len(steps) and walls[i] > med + margin:
            warm[i] = True
            i += 1
    # "unfinished" (cut by the end of the capture) is the one flag taken from kinesift
    unfinished = {s["number"] for s in whole["steps"] if s["unfinished"]}
    assert [s["start"] for s in steps] == [s["start_ns"] for s in whole["steps"]], "steps differ"
    assert [s["end"] for s in steps] == [s["end_ns"] for s in whole["steps"]], "step ends differ"
    assert warm == [s["warmup"] for s in whole["steps"]], (warm, [s["warmup"] for s in whole["steps"]])
    active = [s for s, wu in zip(steps, warm) if not wu and s["number"] not in unfinished]
else:
    active = []

if active:
    assert w["kind"] == "active_steps" and w["basis"] == "active steps", w
    assert (W0, W1) == (active[0]["start"], active[-1]["end"]), (w, active[0], active[-1])
    assert span == W1 - W0, w
    nums = f"{active[0]['number']}-{active[-1]['number']}" if len(active) > 1 else f"{active[0]['number']}"
    assert w["chosen"].startswith(f"active step{'s' if len(active) > 1 else ''} {nums} ({len(active)} step"), w
    assert [s["number"] for s in t["steps"]] == [s["number"] for s in active], "the steps of the window"
    how = f"active steps {nums}"
elif gpu:
    first = min(ns(g["ts"]) for g in gpu)
    last = max(ns(g["ts"]) + ns(g["dur"]) for g in gpu)
    assert w["kind"] == "gpu_span" and w["basis"] == "GPU span", w
    assert (W0, W1, span) == (first, last, last - first), (w, first, last)
    how = "GPU span"
else:
    assert w["kind"] in ("device_span", "cpu_span"), w
    how = w["kind"]

# ---- the profiler's own span does not stretch the window -------------------------------------------
rest = [e for e in events if isinstance(e, dict) and e.get("ph") in ("X", "i", "I") and "ts" in e
        and e.get("cat") != "Trace" and not str(e.get("name", "")).startswith("Iteration Start: ")]
if rest:
    lo = min(ns(e["ts"]) for e in rest)
    hi = max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in rest)
    assert lo <= W0 and W1 <= hi, ("the window reaches past every row but the profiler's", w, lo, hi)
    if w["kind"] == "cpu_span":
        assert (W0, W1) == (lo, hi), ("the CPU span", w, lo, hi)
profiler = [e for e in X if e.get("cat") == "Trace"]

# ---- shares and their denominators -------------------------------------------------------------------
so = t["share_of"]
for k in ("ops", "labels", "kernels", "gpu", "device_activity", "gaps", "steps", "diagnoses"):
    assert so[k], k
assert so["ops"].startswith(w["basis"] + ":"), so["ops"]
for g in t["gpu"] or []:
    assert 0 <= g["busy_share"] <= 1, g
for k in t["kernels"]:
    assert 0 <= k["share"] <= 1, k
for x in t["diagnoses"]:
    assert x["impact_share"] is None or 0 <= x["impact_share"] <= 1, x
for g in t["gaps"] or []:
    for c in g["by_cpu_activity"] + g["by_label"]:
        assert 0 <= c["share"] <= 1, c
for o in t["ops"] + t["labels"]:
    assert abs(o["share"] - o["incl_ns"] / span) < 1e-5, o
assert so["diagnoses"].startswith(t["diagnoses_summary"]["denominator"] + ":"), so

# ---- laws inside the window ---------------------------------------------------------------------------


def union(iv):
    tot, cur = 0, None
    for a, b in sorted(iv):
        if cur is None or a > cur[1]:
            if cur:
                tot += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return tot + (cur[1] - cur[0] if cur else 0)


end_in = W1 + (1 if w["kind"] in ("gpu_span", "device_span", "cpu_span") else 0)  # a span ends 1 ns after
starting = [g for g in gpu if W0 <= ns(g["ts"]) < end_in]
assert sum(k["count"] for k in t["kernels"]) == len(starting), "kernel rows count the GPU work starting in it"
assert sum(k["total_ns"] for k in t["kernels"]) == sum(ns(g["dur"]) for g in starting)
if t["gpu"]:
    busy = union([(max(ns(g["ts"]), W0), min(ns(g["ts"]) + ns(g["dur"]), end_in)) for g in gpu
                  if min(ns(g["ts"]) + ns(g["dur"]), end_in) > max(ns(g["ts"]), W0)])
    assert sum(d["busy_ns"] for d in t["gpu"]) >= busy, "busy below the union"
    if len(t["gpu"]) == 1:
        assert t["gpu"][0]["busy_ns"] == busy, (t["gpu"][0]["busy_ns"], busy)


def owned_in_window(slices):
    """ns of the thread's union whose innermost covering slice (the latest to start) starts in the
    window"""
    pts = sorted({p for a, b in slices for p in (a, b)})
    order = sorted(slices)
    heap, i, tot = [], 0, 0
    for x, y in zip(pts, pts[1:]):
        while i < len(order) and order[i][0] <= x:
            heapq.heappush(heap, (-order[i][0], order[i][1]))
            i += 1
        # the top starts latest; once it has ended it can go (nothing below started later)
        while heap and heap[0][1] <= x:
            heapq.heappop(heap)
        if heap and W0 <= -heap[0][0] < end_in:
            tot += y - x
    return tot


laws = "GPU"
if not t["overlaps"] and t["self_time"]["reassigned_ns"] == 0:
    CPU_CATS = GPU | {"Trace", "gpu_user_annotation", "cuda_sync"}  # the last two are GPU-side rows
    gpu_tracks = {(str(g.get("pid")), str(g.get("tid"))) for g in gpu}
    per = defaultdict(list)
    for e in X:
        key = (str(e.get("pid")), str(e.get("tid")))
        if e.get("cat") not in CPU_CATS and key not in gpu_tracks:
            a = ns(e["ts"])
            per[key].append((a, a + ns(e["dur"])))
    owned = sum(owned_in_window(v) for v in per.values())
    self_sum = sum(o["self_ns"] for o in t["ops"])
    assert self_sum == owned, f"ops self {self_sum} != the threads' time in slices starting in the window {owned}"
    laws = "GPU and CPU"
print(f"ok: {sys.argv[1]}: window {how} = [{W0}, {W1}) ({span} ns, {w['chosen']}); "
      f"{len(profiler)} profiler span row(s) left out; {laws} laws hold inside it")
