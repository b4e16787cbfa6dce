#!/usr/bin/env python3
"""tests/report/text_laws.py [TRACE ...]: analyze's text report says what its JSON says.

For each trace (the arguments, each with the default window and with --window trace; without
any, the fixtures of fixtures/insights, one with the nvidia-smi samples of
fixtures/insights/smi.csv), analyze writes text (COLUMNS=10000: no line wraps; --top 0: every row)
and JSON, and every figure of the text is parsed and checked to be the JSON's figure as the text
formats it (report/analyze_text.c, insights_text.c, kernels_text.c, memory_text.c: durations as
ks_fmt_ns, bytes as ks_fmt_bytes, percentages with one decimal of the denominator the line names,
recomputed here from the JSON's integers), section by section: the source and window lines, the
GPU lines per device (and the span's share of the window), the work classes and tensor cores, the
other accelerators' devices, the links, the operators and labels tables, the GPU work table and
its share, memory per device (peak, reserved, capacity, live at the peak, events and laws, steps,
ops), the steps (header, histogram, every row), the critical path (recomputed from the steps'
paths), threads, GPU idle gaps (causes, threads, labels), nvidia-smi, diagnoses and diagnostics.
Where the JSON has null the text must say n/a or not observed, never 0, 0.0 or 0%; where the text
says n/a the JSON must have null. Every non-empty line of the text must be one a check read: a
section or line this test does not know fails, so a new figure cannot go unchecked."""
import json, os, re, subprocess, sys, tempfile

exe = os.environ["KINESIFT"]
FAILURES = []
CHECKED = [0]


def check(ok, what):
    CHECKED[0] += 1
    if not ok:
        FAILURES.append(what)
        if len(FAILURES) <= 40:
            print("FAIL:", what)
    return ok


def run(*args):
    r = subprocess.run([exe, "analyze", "--quiet", *args], capture_output=True,
                       env=dict(os.environ, COLUMNS="10000"))
    assert r.returncode == 0, (args, r.returncode, r.stderr[-2000:])
    return r.stdout.decode("utf-8", "surrogateescape")


# ---- the text's formats ----------------------------------------------------------------------

def ns(v):
    """ks_fmt_ns"""
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:.3f} s"
    if a >= 1e6:
        return f"{v / 1e6:.3f} ms"
    if a >= 1e3:
        return f"{v / 1e3:.3f} us"
    return f"{v} ns"


def nbytes(v):
    """memory_text.c by(): ks_fmt_bytes with a sign"""
    if v < 0:
        return "-" + nbytes(-v)
    if v >= 1e9:
        return f"{v / 1e9:.2f} GB"
    if v >= 1e6:
        return f"{v / 1e6:.1f} MB"
    if v >= 1e3:
        return f"{v / 1e3:.1f} kB"
    return f"{v} B"


def pct(a, b, digits=1, sign="%"):
    """a share of b as the text prints it, "12.3%"; the JSON's null, and any share of nothing (b
    not positive), is n/a"""
    if a is None or b is None or b <= 0:
        return "n/a"
    return f"{100.0 * a / b:.{digits}f}{sign}"


def g6(a, b):
    """a / b as the JSON writes a double (6 significant digits); null without a denominator"""
    return float(f"{a / b:.6g}") if b > 0 else None


def raw(s):
    """a JSON string as the text's bytes"""
    return s.encode("utf-8", "surrogateescape")


def text_of(b):
    return b.decode("utf-8", "surrogateescape")


def preview(s, mx):
    """ks_fmt_preview: the first mx bytes, control characters as \\xNN, "..." when longer"""
    b = raw(s)
    out = bytearray()
    for c in b[:mx]:
        out += (b"\\x%02x" % c) if c < 0x20 or c == 0x7f else bytes([c])
    if len(b) > mx:
        out += b"..."
    return text_of(bytes(out))


def text_name(s, mx):
    """ks_text_name: s when at most mx bytes, else its head (two thirds) and tail around " ... ",
    cut on UTF-8 character boundaries"""
    b = raw(s)
    if len(b) <= mx or mx < 16:
        return s

    def start(i):
        while i > 0 and (b[i] & 0xC0) == 0x80:
            i -= 1
        return i

    keep = mx - 5
    head, tail = start(keep * 2 // 3), start(len(b) - (keep - keep * 2 // 3))
    return text_of(b[:head] + b" ... " + b[max(tail, head):])


def plain(s, mx=90):
    """a name the text tables print unchanged (short, no control characters)"""
    return len(raw(s)) <= mx and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in s)


DUR = r"-?\d+(?:\.\d{3})? (?:ns|us|ms|s)"
BYTES = r"-?\d+(?:\.\d+)? (?:B|kB|MB|GB)"


class Lines:
    """the text's lines, each to be claimed by a check; what no check read is reported"""

    def __init__(self, text):
        self.v = text.split("\n")
        self.read = [False] * len(self.v)

    def take(self, i):
        self.read[i] = True
        return self.v[i]

    def find(self, prefix, start=0):
        for i in range(start, len(self.v)):
            if not self.read[i] and self.v[i].startswith(prefix):
                return i
        return -1


# ---- the sections -------------------------------------------------------------------------------

def header(L, t, what):
    check(L.take(0) == f"== {t['source']}", f"{what}: source line")
    i = 1
    w = t["window"]
    line = L.take(i)
    if w["span_ns"] is None:
        check(line == "  window   no timed events", f"{what}: window without events: {line!r}")
    else:
        check(line == f"  window   {w['chosen']}, {ns(w['span_ns'])} [{w['start_ns']}, {w['end_ns']}) ns",
              f"{what}: window line {line!r} vs {w}")
    i += 1
    if w["basis"] not in ("trace", "window") and not w["basis"].startswith("-"):
        want = f"           (the default; --window SPEC or --window trace changes it; \"of the {w['basis']}\" is of this window"
        if union(t):
            want += (f", but in the diagnoses of their union: the window less the gaps between steps, "
                     f"{ns(t['diagnoses_summary']['denominator_ns'])}")
        check(L.take(i) == want + ")", f"{what}: the window's basis line {L.v[i]!r} vs {want!r}")
        i += 1
    return i


def union(t):
    """the diagnoses' denominator has the window's name but not its size: the active steps' union
    (the window less the gaps between steps), which the text must say where it names either"""
    sm, w = t["diagnoses_summary"], t["window"]
    return sm["denominator"] == w["basis"] == "active steps" and sm["denominator_ns"] != w["span_ns"]


def gpu_lines(L, i, t, what):
    w = t["window"]
    if t["gpu"] is None:
        check(L.take(i) == f"  GPU      {t['gpu_reason']}", f"{what}: GPU not observed: {L.v[i]!r}")
        return i + 1
    for g in t["gpu"]:
        line = L.take(i)
        want = (f"  GPU {g['device']:<4d} busy {ns(g['busy_ns'])} of its {ns(g['span_ns'])} GPU span "
                f"({pct(g['busy_ns'], g['span_ns'])}), idle {ns(g['idle_ns'])} ({pct(g['idle_ns'], g['span_ns'])})")
        if w["span_ns"] is not None and w["span_ns"] >= 2 * g["span_ns"]:
            want += (f"; the span is only {pct(g['span_ns'], w['span_ns'], 2)} of the {w['basis']}: "
                     f"{ns(g['busy_ns'])} busy in a {ns(w['span_ns'])} window")
        check(line == want, f"{what}: GPU {g['device']} line {line!r} vs {want!r}")
        check(g["busy_ns"] + g["idle_ns"] == g["span_ns"], f"{what}: GPU {g['device']} busy + idle = span")
        check(g["busy_share"] == g6(g["busy_ns"], g["span_ns"]), f"{what}: GPU {g['device']} busy_share of the span")
        line = L.take(i + 1)
        want = (f"           kernel {ns(g['kernel_ns'])}, memcpy {ns(g['memcpy_ns'])}, memset {ns(g['memset_ns'])}, "
                f"communication {ns(g['comm_ns'])}; {g['kernels']} kernels, {g['memcpys']} memcpy, {g['memsets']} "
                f"memset on {g['streams']} stream{'' if g['streams'] == 1 else 's'}")
        check(line == want, f"{what}: GPU {g['device']} work line {line!r} vs {want!r}")
        i += 2
        if g["comm_ns"]:
            ov = g["comm_ns"] - g["comm_exposed_ns"]
            want = (f"           communication {ns(g['comm_ns'])}: exposed {ns(g['comm_exposed_ns'])} (no compute "
                    f"kernel running), overlapped with compute {ns(ov)} ({pct(ov, g['comm_ns'])} of the communication)")
            check(L.take(i) == want, f"{what}: GPU {g['device']} communication {L.v[i]!r} vs {want!r}")
            i += 1
    check(L.take(i).startswith("           (busy = union of kernel, memcpy and memset time;"), f"{what}: busy note")
    return i + 1


def class_lines(L, i, t, what):
    c = t["classes"]
    if c is None:
        return i
    busy = {g["device"]: g["busy_ns"] for g in t["gpu"] or []}
    rows = sorted(c["window"], key=lambda r: (r["device"], -r["busy_ns"]))
    devices = []
    for r in rows:
        if r["device"] not in devices:
            devices.append(r["device"])

    def share(r):
        # the JSON's busy_share, as text: n/a where it is null
        s = r["busy_share"]
        if s is None:
            return "n/a"
        check(s == g6(r["busy_ns"], busy[r["device"]]), f"{what}: classes busy_share of the device's busy time")
        return pct(r['busy_ns'], busy[r['device']])

    for d in devices:
        line = L.take(i)
        m = re.match(r"^  classes  GPU (-?\d+):(.*)$", line)
        if not check(m and int(m.group(1)) == d, f"{what}: classes line for GPU {d}: {line!r}"):
            return i + 1
        items = m.group(2).split(",")
        mine = [r for r in rows if r["device"] == d]
        check(len(items) == len(mine), f"{what}: GPU {d}: one class each")
        got = {}
        for it in items:
            mm = re.match(rf"^ (\S+) ({DUR}) \((n/a|\d+\.\d%)\)$", it)
            if check(mm, f"{what}: class item {it!r}"):
                got[mm.group(1)] = (mm.group(2), mm.group(3))
        for r in mine:
            check(got.get(r["class"]) == (ns(r["busy_ns"]), share(r)),
                  f"{what}: GPU {d} class {r['class']}: text {got.get(r['class'])} vs JSON {r}")
        i += 1
    for r in c["tensor_core"]:
        want = f"  tensor cores  GPU {r['device']}: {ns(r['busy_ns'])} ({share(r)})"
        check(L.take(i) == want, f"{what}: tensor cores {L.v[i]!r} vs {want!r}")
        i += 1
    if c["window"]:
        check(L.take(i).startswith("           (union of each class's work, % of the device's busy time;"),
              f"{what}: classes note {L.v[i]!r}")
        i += 1
    return i


def device_lines(L, i, t, what):
    for d in t["device_activity"]:
        lab = f" ({d['label']})" if d["label"] is not None else ""
        want = (f"  device {d['device']}{lab}: busy {ns(d['busy_ns'])} of {ns(d['span_ns'])} span "
                f"({pct(d['busy_ns'], d['span_ns'])}), idle {ns(d['idle_ns'])} ({pct(d['idle_ns'], d['span_ns'])}); "
                f"{d['events']} events on {d['tracks']} track{'' if d['tracks'] == 1 else 's'} "
                f"({', '.join(d['categories'])})")
        check(L.take(i) == want, f"{what}: device line {L.v[i]!r} vs {want!r}")
        check(d["busy_share"] == g6(d["busy_ns"], d["span_ns"]), f"{what}: device {d['device']} busy_share")
        want = "           by name (union each):" + ",".join(
            f" {text_name(x['name'], 40)} {ns(x['busy_ns'])} x{x['count']}" for x in d["by_name"][:6]) + \
            (", ..." if len(d["by_name"]) > 6 else "")
        check(L.take(i + 1) == want, f"{what}: device by name {L.v[i + 1]!r} vs {want!r}")
        i += 2
    if t["device_activity"]:
        check(L.take(i).startswith("           (kinesift does not interpret these device events"),
              f"{what}: device activity note")
        i += 1
    return i


def links_line(L, i, t, what):
    lk = t["links"]
    if not (lk["gpu_events"] or lk["launches"] or lk["launch_calls"] or lk["other_runtime_calls"]):
        return i
    want = (f"  links    {lk['gpu_events']} GPU events: {lk['linked_by_correlation']} linked by correlation, "
            f"{lk['linked_by_flow']} by flow, {lk['unlinked_gpu']} without a launch; {lk['launch_calls']} launch calls "
            f"(kernel, graph, copy and set launches), {lk['other_runtime_calls']} other runtime calls; "
            f"{lk['launches_without_gpu']} calls with a correlation id have no GPU work")
    check(L.take(i) == want, f"{what}: links {L.v[i]!r} vs {want!r}")
    return i + 1


def sections(L):
    """{first line: index} of the blocks after a blank line"""
    out = []
    for i in range(1, len(L.v)):
        if L.v[i - 1] == "" and L.v[i]:
            out.append(i)
    return out


def op_table(L, i, rows, title, what, span):
    check(L.take(i) == f"  Top {len(rows)} {title} by self time (of {len(rows)})", f"{what}: {title} title {L.v[i]!r}")
    check(re.match(r"^\s+self\s+inclusive\s+count\s+median\s+p90\s+GPU direct\s+GPU subtree\s+name \[category\]$",
                   L.take(i + 1)), f"{what}: {title} head")
    i += 2
    for o in rows:
        line = L.take(i)
        m = re.match(rf"^\s+({DUR})\s+({DUR})\s+(\d+)\s+({DUR})\s+({DUR})\s+({DUR}|n/a)\s+({DUR}|n/a)  (.*)$", line)
        if not check(m, f"{what}: {title} row {line!r}"):
            i += 1
            continue
        want = (ns(o["self_ns"]), ns(o["incl_ns"]), str(o["count"]), ns(o["median_ns"]), ns(o["p90_ns"]),
                ns(o["gpu_direct_ns"]) if o["gpu_direct_ns"] is not None else "n/a",
                ns(o["gpu_subtree_ns"]) if o["gpu_subtree_ns"] is not None else "n/a")
        check(m.groups()[:7] == want, f"{what}: {title} {o['name']!r}: text {m.groups()[:7]} vs JSON {want}")
        check(o["share"] == g6(o["incl_ns"], span or 0), f"{what}: {title} {o['name']!r}: share of the window")
        name = m.group(8)
        suffix = f" [{o['cat']}]" + (" (GPU range)" if o["kind"] == "gpu_user_annotation" else "") + \
            (" (unfinished instances)" if o["unfinished"] else "")
        check(name.endswith(suffix), f"{what}: {title} row's category and notes {name!r} vs {suffix!r}")
        if plain(o["name"]):
            check(name == o["name"] + suffix, f"{what}: {title} row name {name!r} vs {o['name']!r}")
        i += 1
    if any(o["kind"] == "gpu_user_annotation" for o in rows):
        check(L.take(i).startswith("  (GPU range: a gpu_user_annotation row"), f"{what}: GPU range note")
        i += 1
    return i


def kernel_table(L, i, t, what):
    ks = t["kernels"]
    span = sum(g["span_ns"] for g in t["gpu"] or [])
    many = len(t["gpu"] or []) > 1
    want = (f"  Top {len(ks)} GPU work by total time (of {len(ks)}); share: of the GPU span ({ns(span)}"
            + (", the devices' spans added" if many else "") + ")")
    check(L.take(i) == want, f"{what}: GPU work title {L.v[i]!r} vs {want!r}")
    check(re.match(r"^\s+total\s+share\s+count\s+median\s+p90\s+max\s+name \[kind\]$", L.take(i + 1)),
          f"{what}: GPU work head")
    i += 2
    for k in ks:
        line = L.take(i)
        m = re.match(rf"^\s+({DUR})\s+(\d+\.\d%|n/a)\s+(\d+)\s+({DUR})\s+({DUR})\s+({DUR})  (.*)$", line)
        if not check(m, f"{what}: GPU work row {line!r}"):
            i += 1
            continue
        check(k["share"] == g6(k["total_ns"], span),
              f"{what}: the JSON's kernel share is of the GPU span added over the devices")
        want = (ns(k["total_ns"]), pct(k['total_ns'], span), str(k["count"]),
                ns(k["median_ns"]), ns(k["p90_ns"]), ns(k["max_ns"]))
        check(m.groups()[:6] == want, f"{what}: GPU work {k['name'][:60]!r}: text {m.groups()[:6]} vs JSON {want}")
        check(m.group(7).endswith(f" [{k['kind']}]"), f"{what}: GPU work kind {m.group(7)[-30:]!r}")
        if plain(k["name"]):
            check(m.group(7) == f"{k['name']} [{k['kind']}]", f"{what}: GPU work name {m.group(7)!r}")
        i += 1
    return i


def memory(L, i, t, what):
    check(L.take(i) == "  Memory (allocator events over the whole trace)", f"{what}: memory title")
    i += 1
    if t["memory"] is None:
        check(L.take(i) == f"    {t['memory_reason']}", f"{what}: memory not observed {L.v[i]!r}")
        return i + 1
    w0 = t["window"]["start_ns"]

    def at(x):
        return ns(x - w0) if x >= w0 else "-" + ns(w0 - x)

    for m in t["memory"]:
        total = m["level_basis"] == "total_allocated"
        check(total == (m["peak_allocated_bytes"] is not None), f"{what}: memory: a peak exactly with Total Allocated")
        if m["device_type_id"] == 0 and m["device"] == -1:
            lab = "CPU"
        elif m["device_type"] is not None:
            lab = f"{m['device_type']} {m['device']}"
        else:
            lab = f"device type {m['device_type_id']} id {m['device']}"
        if total:
            want = f"    {lab}: peak {nbytes(m['peak_allocated_bytes'])} allocated"
        else:
            want = (f"    {lab}: peak not observed (no Total Allocated: PyTorch before 1.10); the sum of Bytes rose "
                    f"at most {nbytes(m['peak_level_bytes'])} above the first event's level")
        want += f" at {at(m['peak_ns'])}"
        if m["peak_step"] is not None:
            want += f" (step {m['peak_step']})"
        want += " in " + (" > ".join(m["peak_op_path"]) if m["peak_op_path"] else "[no op]")
        check(L.take(i) == want, f"{what}: memory peak {L.v[i]!r} vs {want!r}")
        i += 1
        if m["peak_reserved_bytes"] is not None:
            want = f"      reserved: peak {nbytes(m['peak_reserved_bytes'])}"
            if total and m["reserved_at_peak_bytes"] is not None:
                want += (f"; at the allocated peak {nbytes(m['reserved_at_peak_bytes'])}, of which "
                         f"{nbytes(m['reserved_minus_allocated_at_peak_bytes'])} cached or fragmented")
            check(L.take(i) == want, f"{what}: memory reserved {L.v[i]!r} vs {want!r}")
            i += 1
        if m["capacity_bytes"] is not None and total:
            want = (f"      capacity {nbytes(m['capacity_bytes'])} (deviceProperties): the allocated peak is "
                    f"{100.0 * m['peak_allocated_bytes'] / m['capacity_bytes']:.2f}% of it")
            check(m["peak_share_of_capacity"] == g6(m["peak_allocated_bytes"], m["capacity_bytes"]),
                  f"{what}: memory share of capacity")
            if m["peak_reserved_bytes"] is not None:
                want += f", the reserved peak {100.0 * m['peak_reserved_bytes'] / m['capacity_bytes']:.2f}%"
            check(L.take(i) == want, f"{what}: memory capacity {L.v[i]!r} vs {want!r}")
            i += 1
        if m["live_at_peak"]:
            want = "      live at the peak:" + ",".join(
                f" {nbytes(x['bytes'])} allocated before the capture" if x["allocations"] is None
                else f" {nbytes(x['bytes'])} by {x['op']} ({x['allocations']})" for x in m["live_at_peak"])
            check(L.take(i) == want, f"{what}: memory live at the peak {L.v[i][:200]!r} vs {want[:200]!r}")
            i += 1
        want = (f"      {m['events']} events: {m['allocations']} allocations ({nbytes(m['allocated_bytes'])}), "
                f"{m['frees']} frees ({nbytes(m['freed_bytes'])}), net {nbytes(m['net_bytes'])}; ")
        lw = m["laws"]
        if total:
            want += f"Bytes follow Total Allocated in {lw['checked'] - lw['breaks']} of {lw['checked']} events"
            if lw["breaks"]:
                want += " (the others: events the profiler dropped, or tied timestamps)"
        else:
            want += "no Total Allocated to check Bytes against"
        check(L.take(i) == want, f"{what}: memory events {L.v[i]!r} vs {want!r}")
        i += 1
        for s in m["steps"]:
            want = (f"      step {s['number']}: {nbytes(s['start_bytes'])} -> {nbytes(s['end_bytes'])} "
                    f"({'+' if s['growth_bytes'] >= 0 else ''}{nbytes(s['growth_bytes'])}), peak {nbytes(s['peak_bytes'])}")
            check(s["growth_bytes"] == s["end_bytes"] - s["start_bytes"], f"{what}: memory step growth")
            check(L.take(i) == want, f"{what}: memory step {L.v[i]!r} vs {want!r}")
            i += 1
        if m["ops"]:
            want = "      ops by allocated bytes (inclusive; self in brackets):" + ",".join(
                f" {o['name']} {nbytes(o['allocated_bytes'])} in {o['allocations']} [{nbytes(o['self_allocated_bytes'])}]"
                for o in [o for o in m["ops"] if o["allocations"]][:5])
            check(L.take(i) == want, f"{what}: memory ops {L.v[i][:200]!r} vs {want[:200]!r}")
            i += 1
    return i


def steps(L, i, t, what):
    sm, st = t["steps_summary"], t["steps"]
    o = sm["outside_window"]
    outside = ""
    if o["warmup"] + o["unfinished"] + o["active"]:
        parts = [f"{o[k]} {k.replace('warmup', 'warm-up')}" for k in ("warmup", "unfinished", "active") if o[k]]
        outside = f" (and {o['warmup'] + o['unfinished'] + o['active']} outside the window: {', '.join(parts)})"
    if not st:
        # steps left out by the window are counted even when none is in it
        want = f"  Steps ({sm['source']}): none in the window{outside}" if outside else f"  Steps: {sm['source']}"
        check(L.take(i) == want, f"{what}: no steps in the window {L.v[i]!r} vs {want!r}")
        return i + 1
    want = f"  Steps ({sm['source']}): {sm['count']}, {sm['warmup']} warm-up" + outside
    a = sm["active"]
    if a:
        want += (f"; active window: median {ns(a['median_ns'])}, mean {ns(a['mean_ns'])}, min {ns(a['min_ns'])}, "
                 f"max {ns(a['max_ns'])} over {a['count']} steps")
    else:
        want += "; no active step"
    check(L.take(i) == want, f"{what}: steps head {L.v[i]!r} vs {want!r}")
    check(sm["count"] == len(st), f"{what}: steps count")
    i += 1
    walls = [s["wall_ns"] for s in st]
    if len(st) >= 2:
        lo, hi = min(walls), max(walls)
        bins = [0] * 10
        for w in walls:
            bins[min((w - lo) * 10 // (hi - lo + 1), 9)] += 1
        want = (f"  step wall times: {len(st)} steps in 10 equal bins from {ns(lo)} to {ns(hi)}: "
                + " ".join(map(str, bins)))
        check(L.take(i) == want, f"{what}: step histogram {L.v[i]!r} vs {want!r}")
        i += 1
    check(L.take(i) == "  (busy, idle and the breakdown: % of the step's wall)", f"{what}: steps note")
    check(L.take(i + 1).split() == ["step", "wall", "busy", "idle", "kernel", "memcpy", "memset", "comm", "runtime",
                                    "data", "cpu", "other"], f"{what}: steps head row {L.v[i + 1]!r}")
    i += 2
    for s in st:
        f = L.take(i).split()
        flags = ", ".join(x for x, on in (("warm-up", s["warmup"]), ("unfinished", s["unfinished"])) if on)
        want = [str(s["number"]), *ns(s["wall_ns"]).split(),
                pct(s['busy_ns'], s['wall_ns'], 0), pct(s['idle_ns'], s['wall_ns'], 0),
                *[pct(v, s["wall_ns"], 1, "") for v in s["breakdown"].values()]] + flags.split()
        check(f == want, f"{what}: step {s['number']} row {f} vs {want}")
        i += 1
    return i


def critpath(L, i, t, what):
    """the critical path summed over the steps' paths (or the window's), recomputed from the JSON"""
    st = t["steps"]
    if st and all(s["critical_path"] is not None for s in st):
        paths, where = [s["critical_path"] for s in st], "steps,"
    elif t["dependency_graph"] and t["dependency_graph"]["window_critical_path"] is not None:
        paths, where = [t["dependency_graph"]["window_critical_path"]], "the window,"
    else:
        check(False, f"{what}: the text has a critical path, the JSON none: {L.v[i]!r}")
        return i + 1
    kinds = [k[:-3] for k in paths[0] if k.endswith("_ns") and k not in ("length_ns", "inferred_ns", "collective_ns")]
    wall = sum(p["length_ns"] for p in paths)
    by = {k: sum(p[k + "_ns"] for p in paths) for k in kinds}
    inferred = sum(p["inferred_ns"] for p in paths)
    coll = sum(p["collective_ns"] for p in paths)
    want = (f"  Critical path ({where} {ns(wall)}: what ended each; docs/analysis.md, \"Critical path\"):"
            + "".join(f" {k} {pct(by[k], wall)}" for k in kinds if by[k]) + f"; on inferred edges {pct(inferred, wall)}")
    check(L.take(i) == want, f"{what}: critical path {L.v[i]!r} vs {want!r}")
    i += 1
    if coll:
        want = f"    part of gpu: collectives {pct(coll, wall)} of the {ns(wall)} above: "
        check(L.take(i).startswith(want), f"{what}: collectives {L.v[i]!r} vs {want!r}")
        i += 1
    top = []  # (kind, name, ns, collective), merged over the steps as the text does (40 at most)
    for p in paths:
        for x in p["top"]:
            q = [j for j, y in enumerate(top) if y[0] == x["kind"] and y[1] == x["name"]]
            if q:
                top[q[0]][2] += x["ns"]
            elif len(top) < 40:
                top.append([x["kind"], x["name"], x["ns"], x["collective"]])
    top.sort(key=lambda y: -y[2])
    for kind, name, v, c in top[:5]:
        nm = "(CPU time under no slice)" if name is None else text_of(raw(name)[:100])
        want = f"    {pct(v, wall):>6}  {kind:<3} {nm}" + (" (collective: may be waiting for peers)" if c else "")
        check(L.take(i) == want, f"{what}: critical path name {L.v[i]!r} vs {want!r}")
        i += 1
    return i


def who(x):
    return f"tid {x['tid']}" + (f" ({text_of(raw(x['thread_name'])[:60])})" if x["thread_name"] else "")


def threads(L, i, t, what):
    th = t["threads"]
    if not check(th is not None and th["launchers"], f"{what}: the text has threads, the JSON none"):
        return i + 1
    busy = th["gpu_busy_ns"]
    other = sum(sum(x["gpu_ns"].values()) for x in th["launchers"] if x["role"] not in ("steps", "main"))
    want = (f"  Threads: GPU busy {ns(busy)} by the thread that launched it (each ns counted once); {ns(other)} "
            f"({pct(other, busy)} of it) launched by threads other than the {'stepping' if t['steps'] else 'main'} "
            f"thread; {th['fwdbwd_flows']} fwdbwd flows tie backward ops to forward ops")
    check(L.take(i) == want, f"{what}: threads {L.v[i]!r} vs {want!r}")
    check(L.take(i + 1).split() == ["role", "own", "thread", "via", "flow", "via", "time", "not", "tied", "thread"],
          f"{what}: threads head")
    i += 2
    for x in th["launchers"]:
        g = x["gpu_ns"]
        line = L.take(i)
        m = re.match(rf"^    (\S+)\s+({DUR})\s+({DUR})\s+({DUR})\s+({DUR})  (.*)$", line)
        want = (x["role"], ns(g["own_thread"]), ns(g["flow"]), ns(g["time"]), ns(g["none"]), who(x))
        check(m and m.groups() == want, f"{what}: launcher {line!r} vs {want}")
        i += 1
    if th["no_launch_ns"]:
        check(L.take(i).split() == ["-"] * 4 + ns(th["no_launch_ns"]).split() +
              "(no launch call in the trace)".split(), f"{what}: no launch row {L.v[i]!r}")
        i += 1
    td = th["tied_ns"]
    want = (f"    tied to steps: own thread {ns(td['own_thread'])}, via flow {ns(td['flow'])}, via time {ns(td['time'])}; "
            f"not tied {ns(td['none'])} (sum = GPU busy)")
    check(L.take(i) == want, f"{what}: tied {L.v[i]!r} vs {want!r}")
    check(sum(td.values()) == busy, f"{what}: tied adds up to GPU busy")
    i += 1
    if t["steps"] and all(s["gpu_tied_ns"] is not None for s in t["steps"]):
        check(L.take(i) == "    GPU time tied to each step: by its own thread, by other threads via flow, via time",
              f"{what}: per-step tie title")
        check(L.take(i + 1).split() == ["step", "own", "thread", "via", "flow", "via", "time"], f"{what}: tie head")
        i += 2
        for s in t["steps"]:
            g = s["gpu_tied_ns"]
            want = [str(s["number"]), *ns(g["own_thread"]).split(), *ns(g["flow"]).split(), *ns(g["time"]).split()]
            check(L.take(i).split() == want, f"{what}: step {s['number']} ties {L.v[i]!r} vs {want}")
            i += 1

    def named(rows):
        nonlocal i
        for x in rows[:8]:
            want = [*ns(x["gpu_ns"]).split(), f"{pct(x['gpu_ns'], busy)}", str(x["gpu_events"])]
            f = L.take(i).split(maxsplit=len(want))
            check(f[:len(want)] == want and L.v[i].endswith("  " + preview(x["name"], 70)),
                  f"{what}: named GPU time {L.v[i]!r} vs {want} {x['name']!r}")
            i += 1

    if th["by_forward_op"]:
        check(L.take(i).startswith("    GPU time of other threads' backward work, by the forward op") and
              L.v[i].endswith("; % of the GPU busy time above):"), f"{what}: forward ops' denominator {L.v[i]!r}")
        i += 1
        named(th["by_forward_op"])
    if th["labels_via_flow"]:
        check(L.take(i).startswith("    ... by label enclosing that forward op") and
              L.v[i].endswith("; % of the GPU busy time above):"), f"{what}: labels' denominator {L.v[i]!r}")
        i += 1
        named(th["labels_via_flow"])
    elif other:
        check(L.take(i).startswith("    GPU time launched by other threads is not attributed to labels ("),
              f"{what}: not attributed {L.v[i]!r}")
        i += 1
    return i


def cause(c, width=70):
    nm = None if c["kind"] == "none" else preview(c["what"], width)
    if c["waiting_on_other_thread"]:
        return f"launching thread waiting on another thread (in {nm} [{c['kind']}])" if nm is not None else \
            "launching thread waiting on another thread (idle)"
    return f"{nm} [{c['kind']}]" if nm is not None else "(nothing: CPU thread idle)"


def gaps(L, i, t, what):
    if t["gaps"] is None:
        check(L.take(i) == f"  GPU idle gaps: {t['gaps_reason']}", f"{what}: gaps not computed {L.v[i]!r}")
        return i + 1
    for g in t["gaps"]:
        if L.v[i] == "":
            i += 1
        tot = g["total_ns"]
        want = (f"  GPU {g['device']} idle gaps >= {ns(g['threshold_ns'])}: {g['count']}, {ns(tot)} "
                f"(of {ns(g['idle_ns'])} idle in all)")
        check(L.take(i) == want, f"{what}: gaps head {L.v[i]!r} vs {want!r}")
        h = g["hta"]
        want = (f"    HTA classes: host wait {ns(h['host_wait_ns'])}, kernel wait {ns(h['kernel_wait_ns'])}, "
                f"other {ns(h['other_ns'])}")
        check(L.take(i + 1) == want, f"{what}: HTA classes {L.v[i + 1]!r} vs {want!r}")
        i += 2
        if not g["count"]:
            continue
        check(L.take(i) == "    GPU idle while the launching CPU thread was in (% of the gaps' time):", f"{what}: by cpu")
        i += 1
        for c in g["by_cpu_activity"][:10]:
            want = [*ns(c["total_ns"]).split(), f"{pct(c['total_ns'], tot)}", str(c["count"])]
            f = L.take(i).split(maxsplit=len(want))
            check(f[:len(want)] == want and L.v[i].endswith("  " + cause(c)),
                  f"{what}: gap cause {L.v[i]!r} vs {want} {cause(c)!r}")
            check(c["share"] == g6(c["total_ns"], tot), f"{what}: gap cause share of the gaps' time")
            i += 1
        if g["threads"]:
            want = (f"    launching thread waiting on another thread: {ns(g['waiting_on_other_thread_ns'])} "
                    f"({pct(g['waiting_on_other_thread_ns'], tot)} of the gaps): ")
            check(L.take(i).startswith(want), f"{what}: waiting {L.v[i]!r} vs {want!r}")
            check(L.take(i + 1).startswith("    every CPU thread of the process during the gaps"), f"{what}: threads")
            i += 2
            for x in g["threads"]:
                s = x["state_ns"]
                want = (f"      {who(x)}: {ns(s['working'])} / {ns(s['blocking_call'])} / {ns(s['label_self'])} / "
                        f"{ns(s['idle'])}; launching thread of {x['launching_gaps']} gaps")
                check(L.take(i) == want, f"{what}: gap thread {L.v[i]!r} vs {want!r}")
                i += 1
                for c in x["by_cpu_activity"][:3]:
                    want = [*ns(c["total_ns"]).split(), f"{pct(c['total_ns'], tot)}"]
                    f = L.take(i).split(maxsplit=len(want))
                    check(f[:len(want)] == want and L.v[i].endswith("  " + cause(c)),
                          f"{what}: gap thread cause {L.v[i]!r} vs {want} {cause(c)!r}")
                    i += 1
        want = "    ... by innermost label (% of the gaps' time):" + ",".join(
            f" {c['what']} {pct(c['total_ns'], tot)}" for c in g["by_label"][:5])
        check(L.take(i) == want, f"{what}: gap labels {L.v[i]!r} vs {want!r}")
        i += 1
    return i


def smi_line(label, s, unit):
    if not s or not s["samples"]:
        return f"    {label:<10} no sample"
    out = f"    {label:<10} {s['samples']} samples: "
    out += (f"utilization min {s['util_min']:.0f} mean {s['util_mean']:.1f} max {s['util_max']:.0f} {unit}"
            if s["util_mean"] is not None else "utilization unknown (N/A)")
    out += (f"; memory used {s['mem_used_min']:.0f}..{s['mem_used_max']:.0f} MiB" if s["mem_used_min"] is not None
            else "; memory unknown")
    return out


def telemetry(L, i, t, what):
    tm = t["telemetry"]
    if not check(tm is not None, f"{what}: the text has nvidia-smi, the JSON none"):
        return i + 1
    want = (f"  nvidia-smi: {tm['samples']} samples of GPU {tm['gpu'] or '-'} ({tm['gpu_match']}), "
            f"{tm['unknown_values']} unknown values (N/A)")
    check(L.take(i) == want, f"{what}: nvidia-smi {L.v[i]!r} vs {want!r}")
    i += 1
    if tm["reason"]:
        check(L.take(i) == f"    {tm['reason']}", f"{what}: nvidia-smi reason")
        return i + 1
    want = smi_line("window", tm["window"], tm["util_unit"])
    check(L.take(i) == want, f"{what}: smi window {L.v[i]!r} vs {want!r}")
    i += 1
    if t["gpu"]:
        g = t["gpu"][0]
        share = tm["trace_busy_share"]
        check(share == g6(g["busy_ns"], g["span_ns"]), f"{what}: telemetry trace_busy_share")
        want = (f"    trace: GPU {g['device']} busy {pct(g['busy_ns'], g['span_ns'])} of its span ({ns(g['busy_ns'])} busy in a {ns(g['span_ns'])} span)")
        check(L.take(i) == want, f"{what}: smi trace busy {L.v[i]!r} vs {want!r}")
        i += 1
    for s in tm["steps"]:
        want = smi_line(f"step {s['number']}", s["smi"], tm["util_unit"])
        check(L.take(i) == want, f"{what}: smi step {L.v[i]!r} vs {want!r}")
        i += 1
    check(L.take(i).startswith("    (utilization.gpu is the share of sample time"), f"{what}: smi note")
    return i + 1


def diagnoses(L, i, t, what):
    sm = t["diagnoses_summary"]
    den, dns = sm["denominator"], sm["denominator_ns"]
    want = (f"  Diagnoses (hypotheses to check, not conclusions): {sm['shown']}, ranked by the step time they could "
            f"save (an upper bound) in the {den} ({ns(dns)}")
    if union(t):
        want += f": their union, the window ({ns(t['window']['span_ns'])}) less the gaps between steps"
    check(L.take(i) == want + ")", f"{what}: diagnoses head {L.v[i]!r} vs {want!r}")
    # a share "of the active steps" (a denominator named as the window) is of the window, unless said
    check(den != t["window"]["basis"] or dns == t["window"]["span_ns"] or union(t),
          f"{what}: the diagnoses' denominator is named as the window but is not its size")
    check(sm["shown"] == len(t["diagnoses"]), f"{what}: diagnoses shown")
    i += 1
    if sm["hidden"]:
        want = (f"  ({sm['hidden']} below the floor of {100.0 * sm['min_impact']:.4g}% of the {den} not shown: "
                f"--all-diagnoses lists them)")
        check(L.take(i) == want, f"{what}: diagnoses hidden {L.v[i]!r} vs {want!r}")
        i += 1
    for d in t["diagnoses"]:
        if d["impact_ns"] is not None:
            want = (f"  [{d['id']}, confidence {d['confidence']}, could save at most {ns(d['impact_ns'])} = "
                    f"{pct(d['impact_ns'], dns)} of the {den}{', below the floor' if d['below_floor'] else ''}]")
            check(d["impact_share"] == g6(d["impact_ns"], dns),
                  f"{what}: {d['id']} impact_share of the denominator")
        elif d["kind"] == "diagnosis":
            want = f"  [{d['id']}, confidence {d['confidence']}, {d['impact_basis']}]"
        else:
            want = f"  [{d['id']}, caveat]"
        check(L.take(i) == want, f"{what}: diagnosis {L.v[i]!r} vs {want!r}")
        check(L.take(i + 1) == f"    hypothesis: {d['hypothesis']}", f"{what}: {d['id']} hypothesis")
        check(L.take(i + 2) == f"    evidence:   {d['evidence']}", f"{what}: {d['id']} evidence")
        if d["id"] == "host_bound":
            # what the launching thread did, as the gap table of a device says it (not "idle" where
            # the table says it waited on another thread)
            m = re.search(r"The launching thread during the gaps: (.*?)\.(?: On the critical path|$)", d["evidence"])
            said = [", ".join(f"{cause(c, 60)} ({ns(c['total_ns'])})" for c in g["by_cpu_activity"][:3])
                    for g in t["gaps"] or []]
            check(m is not None and m.group(1) in said,
                  f"{what}: host_bound's launching-thread causes {m and m.group(1)!r}, not a gap table's {said!r}")
        i += 3
        if d["steps"]:
            want = "    steps:     " + "".join(f" {s}" for s in d["steps"][:12]) + (" ..." if len(d["steps"]) > 12 else "")
            check(L.take(i) == want, f"{what}: {d['id']} steps {L.v[i]!r} vs {want!r}")
            i += 1
        if d["impact_ns"] is not None:
            if d["impact_source"] == "critical_path":
                want = (f"    impact:     its time on the critical path of the {den} (without the path: "
                        f"{ns(d['impact_heuristic_ns'])}, {d['impact_basis']})")
            else:
                want = f"    impact:     {d['impact_basis']}"
            check(L.take(i) == want, f"{what}: {d['id']} impact {L.v[i]!r} vs {want!r}")
            i += 1
        check(L.take(i) == f"    next check: {d['next_check']}", f"{what}: {d['id']} next check")
        check(L.take(i + 1) == f"    refuted if: {d['refuted_if']}", f"{what}: {d['id']} refuted if")
        i += 2
        m = d["measure_by_hand"] or d["validate"]
        if m:
            check(L.take(i) == f"    measure:    {m}", f"{what}: {d['id']} measure")
            i += 1
    return i


def diagnostics(L, i, t, what):
    check(L.take(i) == "  Diagnostics", f"{what}: diagnostics title")
    i += 1
    ds = t["diagnostics"]
    if not ds:
        check(L.take(i) == "    none", f"{what}: no diagnostics")
        return i + 1
    check(L.take(i) == f"    (times relative to the window start, {t['window']['start_ns'] or 0} ns; JSON keeps them "
          f"absolute)", f"{what}: diagnostics origin {L.v[i]!r}")
    i += 1
    for d in ds:
        want = f"    {d['severity']:<7} {d['id']:<40} {d['count']}"
        check(L.take(i) == want, f"{what}: diagnostic {L.v[i]!r} vs {want!r}")
        i += 1
        for e in d["examples"]:
            line = L.take(i)
            if "line" in e:
                check(line == f"            byte {e['byte']} (line {e['line']}, column {e['column']}): {e['text']}",
                      f"{what}: diagnostic example {line!r}")
            else:
                want = "            " + relative(e["text"], t["window"]["start_ns"] or 0)
                check(line == want, f"{what}: diagnostic example {line[:200]!r} vs {want[:200]!r}")
            i += 1
    return i


def rel(v):
    """a time relative to the window start, exactly: +437.810230 ms, -12.500 us, +0 ns"""
    a = abs(v)
    sign = "-" if v < 0 else "+"
    if a >= 1000000:
        return f"{sign}{a // 1000000}.{a % 1000000:06d} ms"
    if a >= 1000:
        return f"{sign}{a // 1000}.{a % 1000:03d} us"
    return f"{sign}{a} ns"


def relative(text, origin):
    """an example's absolute times ("[A, B)" intervals, "at A ns") relative to origin"""
    text = re.sub(r"\[(-?\d+), (-?\d+)\)", lambda m: f"[{rel(int(m.group(1)) - origin)}, {rel(int(m.group(2)) - origin)})",
                  text)
    return re.sub(r"at (-?\d+) ns", lambda m: f"at {rel(int(m.group(1)) - origin)}", text)


def check_trace(path, *extra):
    what = " ".join([os.path.basename(path), *extra])
    doc = json.loads(run("--top", "0", "--format", "json", *extra, path))
    text = run("--top", "0", *extra, path)
    blocks = text.split("\n== ") if len(doc["traces"]) > 1 else [text]
    check(len(blocks) == len(doc["traces"]), f"{what}: one text block per trace")
    for n, (t, block) in enumerate(zip(doc["traces"], blocks)):
        L = Lines(block if not n else "== " + block)
        i = header(L, t, what)
        i = gpu_lines(L, i, t, what)
        i = class_lines(L, i, t, what)
        i = device_lines(L, i, t, what)
        i = links_line(L, i, t, what)
        for s in sections(L):
            first = L.v[s]
            if L.read[s]:
                continue
            if first.startswith("  Top ") and first.endswith(" operators by self time (of %d)" % len(t["ops"])):
                op_table(L, s, t["ops"], "operators", what, t["window"]["span_ns"])
            elif first.startswith("  Top ") and " labels by " in first:
                op_table(L, s, t["labels"], "labels", what, t["window"]["span_ns"])
            elif first.startswith("  Top ") and " GPU work by " in first:
                kernel_table(L, s, t, what)
            elif first.startswith("  Memory ("):
                memory(L, s, t, what)
            elif first.startswith("  Steps"):
                steps(L, s, t, what)
            elif first.startswith("  Critical path ("):
                critpath(L, s, t, what)
            elif first.startswith("  Threads: "):
                threads(L, s, t, what)
            elif first.startswith("  GPU ") and " idle gaps" in first:
                gaps(L, s, t, what)
            elif first.startswith("  nvidia-smi: "):
                telemetry(L, s, t, what)
            elif first.startswith("  Diagnoses ("):
                diagnoses(L, s, t, what)
            elif first == "  Diagnostics":
                diagnostics(L, s, t, what)
        # the sections JSON has are in the text
        check(bool(t["ops"]) == any(x.startswith("  Top ") and " operators " in x for x in L.v), f"{what}: ops table")
        check(bool(t["labels"]) == any(x.startswith("  Top ") and " labels " in x for x in L.v), f"{what}: labels")
        check(bool(t["kernels"]) == any(x.startswith("  Top ") and " GPU work " in x for x in L.v), f"{what}: kernels")
        check(bool(t["diagnoses"]) <= any(x.startswith("  Diagnoses (") for x in L.v), f"{what}: diagnoses")
        unread = [x for x, r in zip(L.v, L.read) if not r and x]
        check(not unread, f"{what}: text lines no check read: {unread[:5]}")
        # no figure printed from a NaN or a NULL string
        for x in L.v:
            check(not re.search(r"\bnan\b|\binf\b|\(null\)", x), f"{what}: NaN or a null string: {x[:160]!r}")


def main():
    args = sys.argv[1:]
    if args:
        for p in args:
            check_trace(p)
            check_trace(p, "--window", "trace")
    else:
        fx = os.path.join(os.environ["KS_FIXTURES"], "insights")
        for f in sorted(os.listdir(fx)):
            if f.endswith(".json"):
                check_trace(os.path.join(fx, f))
        check_trace(os.path.join(fx, "telemetry.json"), "--smi", os.path.join(fx, "smi.csv"), "--smi-tz", "+02:00",
                    "--smi-offset", "-1.5s")
        check_trace(os.path.join(os.environ["KS_FIXTURES"], "analysis", "unknown_device.json"))
        # a window holding none of the steps (and no GPU work): they are counted outside it
        check_trace(os.path.join(fx, "host_bound.json"), "--window", "1000s:2000s")
        # GPU work of zero length: no busy time, so no share of it (JSON null, text n/a)
        ev = []
        for i in range(2):
            ev += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                    "ts": 100 * i, "dur": 100},
                   {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                    "ts": 100 * i + 10, "dur": 5, "args": {"correlation": i + 1}},
                   {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_f16", "pid": 0, "tid": 7, "ts": 100 * i + 20,
                    "dur": 0, "args": {"stream": 7, "device": 0, "correlation": i + 1}}]
        with tempfile.TemporaryDirectory() as d:
            zero = os.path.join(d, "zero_length_gpu.json")
            with open(zero, "w") as f:
                json.dump({"traceEvents": ev}, f)
            doc = json.loads(run("--format", "json", zero))["traces"][0]
            assert doc["gpu"][0]["busy_ns"] == 0 and doc["classes"]["tensor_core"], "zero-length GPU work observed"
            check_trace(zero)
            # the same with nvidia-smi samples: the trace's busy share of a zero span is not observed
            tel = json.load(open(os.path.join(fx, "telemetry.json")))
            for e in tel["traceEvents"]:
                if e["cat"] == "kernel":
                    e["dur"] = 0
            zero = os.path.join(d, "telemetry_zero_length.json")
            with open(zero, "w") as f:
                json.dump(tel, f)
            smi = ["--smi", os.path.join(fx, "smi.csv"), "--smi-tz", "+02:00", "--smi-offset", "-1.5s"]
            doc = json.loads(run("--format", "json", *smi, zero))["traces"][0]
            assert doc["telemetry"]["reason"] is None and doc["telemetry"]["trace_busy_share"] is None, doc["telemetry"]
            check_trace(zero, *smi)
            # a step both warm-up and unfinished (a 'B' never closed, every step made warm-up)
            ev = []
            for i in range(3):
                ev += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                        "ts": 100 * i, "dur": 100},
                       {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100 * i + 10, "dur": 50}]
            ev += [{"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 300},
                   {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 310, "dur": 50}]
            unf = os.path.join(d, "warmup_unfinished.json")
            with open(unf, "w") as f:
                json.dump({"traceEvents": ev}, f)
            doc = json.loads(run("--format", "json", "--window", "trace", "--warmup", "4", unf))["traces"][0]
            assert doc["steps"][-1]["warmup"] and doc["steps"][-1]["unfinished"], doc["steps"][-1]
            check_trace(unf, "--window", "trace", "--warmup", "4")
            # a critical path through collectives (a long NCCL kernel ends each step)
            ev = []
            for i in range(3):
                ev += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                        "ts": 1000 * i, "dur": 100},
                       {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                        "ts": 1000 * i + 10, "dur": 5, "args": {"correlation": 10 + i}},
                       {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0,
                        "tid": 7, "ts": 1000 * i + 20, "dur": 800 - 300 * (i == 1),
                        "args": {"stream": 7, "device": 0, "correlation": 10 + i}}]
            coll = os.path.join(d, "collectives.json")
            with open(coll, "w") as f:
                json.dump({"traceEvents": ev}, f)
            doc = json.loads(run("--format", "json", coll))["traces"][0]
            assert all(s["critical_path"]["collective_ns"] for s in doc["steps"]), doc["steps"]
            check_trace(coll)
    print(f"{' '.join(os.path.basename(a) for a in args) or 'fixtures'}: {CHECKED[0]} checks, "
          f"{len(FAILURES)} failures")
    sys.exit(1 if FAILURES else 0)


main()
