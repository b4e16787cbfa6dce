#!/usr/bin/env python3
"""tests/analysis/corpus_memory.py: the memory laws of `kinesift analyze --format json` on one real
trace (an absolute path, or a path relative to $KS_CORPUS), re-derived from the raw JSON (Decimal
timestamps, exact integers, no kinesift code):

  - the devices are the (Device Type, Device Id) pairs of the instants carrying allocator args,
    each with its event count; a trace without them has `memory` null with a reason;
  - each device's peak_allocated_bytes is the largest Total Allocated an event of it carries
    (null when an event lacks it), peak_reserved_bytes the largest Total Reserved (null when none
    carries it, and for the CPU whose Total Reserved is always 0), the peak's time the first
    event carrying it;
  - the running sum of Bytes follows Total Allocated: in time order (ties in file order) each
    event's Total Allocated is the previous one's plus its Bytes, and the breaks counted here are
    the ones the report counts; where nothing breaks, the sum of Bytes is the change of the level;
  - the ops' self increases add up to the sum of Bytes (every event belongs to one op or to
    [no op]), their self allocations and allocated bytes to the device's;
  - what is live at the peak adds up to the peak (allocations of the capture by op, the rest made
    before it), the timeline keeps the peak and ends at the last level, every step's growth is
    its end less its start."""
import gzip, json, os, subprocess, sys
from collections import defaultdict
from decimal import Decimal

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
KEYS = ("Total Allocated", "Total Reserved", "Addr", "Device Type", "Device Id")


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())


def integer(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


r = subprocess.run([os.environ["KINESIFT"], "analyze", "--quiet", "--format", "json", path],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit(f"analyze failed ({r.returncode}): {r.stderr}")
out = json.loads(r.stdout)["traces"][0]

devs = defaultdict(list)
for i, e in enumerate(events):
    if not isinstance(e, dict) or e.get("ph") not in ("i", "I"):
        continue
    a = e.get("args")
    if not isinstance(a, dict) or not any(k in a for k in KEYS) or "ts" not in e:
        continue
    t, d = integer(a.get("Device Type")), integer(a.get("Device Id"))
    devs[(-1 if t is None else t, -(2 ** 31) if d is None else d)].append((ns(e["ts"]), i, a))

fail = []


def check(ok, what):
    if not ok:
        fail.append(what)


if not devs:
    check(out["memory"] is None and out["memory_reason"], "memory null with a reason without [memory] events")
else:
    mem = out["memory"]
    check(isinstance(mem, list) and out["memory_reason"] is None, "memory is a list")
    got = {((m["device_type_id"] if m["device_type_id"] is not None else -1),
            (m["device"] if m["device"] is not None else -(2 ** 31))): m for m in mem}
    check(set(got) == set(devs), f"devices {sorted(got)} == {sorted(devs)}")
    for key, evs in devs.items():
        m = got.get(key)
        if not m:
            continue
        where = f"device {key}"
        evs.sort(key=lambda x: (x[0], x[1]))
        check(m["events"] == len(evs), f"{where}: events {m['events']} == {len(evs)}")
        ta = [integer(a.get("Total Allocated")) for _, _, a in evs]
        tr = [integer(a.get("Total Reserved")) for _, _, a in evs if integer(a.get("Total Reserved")) is not None]
        b = [integer(a.get("Bytes")) or 0 for _, _, a in evs]
        check(m["net_bytes"] == sum(b), f"{where}: net_bytes {m['net_bytes']} == {sum(b)}")
        check(m["allocated_bytes"] == sum(x for x in b if x > 0), f"{where}: allocated_bytes")
        check(m["freed_bytes"] == -sum(x for x in b if x < 0), f"{where}: freed_bytes")
        check(m["allocations"] == sum(1 for x in b if x > 0), f"{where}: allocations")
        totals = all(x is not None for x in ta)
        if totals:
            peak = max(ta)
            check(m["peak_allocated_bytes"] == peak, f"{where}: peak {m['peak_allocated_bytes']} == max Total Allocated {peak}")
            first = next(evs[i][0] for i in range(len(evs)) if ta[i] == peak)
            check(m["peak_ns"] == first, f"{where}: peak_ns {m['peak_ns']} == {first}")
            breaks = sum(1 for i in range(1, len(evs)) if "Bytes" in evs[i][2] and ta[i] != ta[i - 1] + b[i])
            check(m["laws"]["breaks"] == breaks, f"{where}: law breaks {m['laws']['breaks']} == {breaks}")
            check(m["laws"]["bytes_follow_total_allocated"] == (breaks == 0), f"{where}: law flag")
            check(m["start_level_bytes"] == ta[0] - b[0] and m["end_level_bytes"] == ta[-1], f"{where}: levels")
            if breaks == 0:
                check(m["net_bytes"] == m["end_level_bytes"] - m["start_level_bytes"],
                      f"{where}: the sum of Bytes is the change of Total Allocated")
            check(sum(x["bytes"] for x in m["live_at_peak"]) == peak, f"{where}: live at the peak adds up to it")
        else:
            check(m["peak_allocated_bytes"] is None and m["peak_reason"], f"{where}: no totals, no peak")
            run, best = 0, None
            for x in b:
                run += x
                best = run if best is None else max(best, run)
            check(m["peak_level_bytes"] == best, f"{where}: peak of the running sum {m['peak_level_bytes']} == {best}")
        if tr and not (key[0] == 0 and max(tr) == 0):
            check(m["peak_reserved_bytes"] == max(tr), f"{where}: peak reserved {m['peak_reserved_bytes']} == {max(tr)}")
        else:
            check(m["peak_reserved_bytes"] is None, f"{where}: no reserve recorded, peak reserved null")
        ops = m["ops"]
        check(sum(o["self_increase_bytes"] for o in ops) == m["net_bytes"], f"{where}: ops' increases add up")
        check(sum(o["self_allocated_bytes"] for o in ops) == m["allocated_bytes"], f"{where}: ops' allocated bytes add up")
        check(sum(o["self_allocations"] for o in ops) == m["allocations"], f"{where}: ops' allocations add up")
        for o in ops:
            check(o["allocated_bytes"] >= o["self_allocated_bytes"] and o["allocations"] >= o["self_allocations"],
                  f"{where}: op {o['name']}: inclusive >= self")
        tl = m["timeline"]
        check(tl and max(p[1] for p in tl) == m["peak_level_bytes"], f"{where}: the timeline keeps the peak")
        check(tl and tl[-1][1] == m["end_level_bytes"], f"{where}: the timeline ends at the last level")
        check(all(tl[i][0] <= tl[i + 1][0] for i in range(len(tl) - 1)), f"{where}: the timeline in time order")
        for s in m["steps"]:
            check(s["growth_bytes"] == s["end_bytes"] - s["start_bytes"] and s["peak_bytes"] >= s["start_bytes"]
                  and s["peak_bytes"] >= s["end_bytes"] and s["peak_bytes"] <= m["peak_level_bytes"],
                  f"{where}: step {s['number']}")

if fail:
    print("\n".join(fail))
    sys.exit(1)
print(f"{len(devs)} device(s) with memory events: laws hold")
