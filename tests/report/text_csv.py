#!/usr/bin/env python3
"""tests/report/text_csv.py: analyze's text that scales and its CSV tables.
- The step table of a 200-step trace whose step times are set by construction: --top 10 shows the
  first 2, the 6 slowest of the others and the last 2 (docs/report.md rule), marks what it leaves
  out, and the histogram line counts every step in the documented bins (recomputed here); --top 0
  shows every step.
- Long names in text follow the documented rule (expected strings written by hand); JSON and CSV
  keep them whole.
- Diagnostics give times relative to the window start (a 'B' never closed, placed by hand).
- The memory section's lists (live at the peak, steps) cut by --top say how many they leave out.
- CSV: parsed with Python's csv; every section's rows equal the JSON's (steps, gaps and their
  causes, diagnoses, GPU and device rows, ops, labels, kernels, memory) on fixtures and corpus traces."""
import atexit, csv, io, json, os, re, shutil, subprocess, sys, tempfile

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]
corpus = os.environ["KS_CORPUS"]


def run(*args):
    # whole lines (no terminal width: the step rows are parsed line by line)
    r = subprocess.run([exe, "analyze", "--quiet", *args], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="10000"))
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r.stdout


tmp = tempfile.mkdtemp(prefix="ks-textcsv-")
atexit.register(shutil.rmtree, tmp, True)  # removed however the test ends

# ---- the step table ------------------------------------------------------------------------
walls = []  # us
ev, t = [], 0
for i in range(200):
    w = 1000 + (i * 37) % 200
    if i in (57, 120):
        w = 5000 + i
    walls.append(w)
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1, "ts": t, "dur": w})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 1, "dur": w - 2})
    t += w
steps_path = os.path.join(tmp, "steps200.json")
with open(steps_path, "w") as f:
    json.dump({"traceEvents": ev}, f)
doc = json.loads(run("--format", "json", steps_path))["traces"][0]
assert [s["wall_ns"] for s in doc["steps"]] == [w * 1000 for w in walls], "steps end at their annotation's end"


def table(text):
    """the step rows shown (step numbers) and the 'not shown' counts, in order"""
    part = text[text.index("  Steps ("):text.index("GPU idle gaps")]
    shown, hidden = [], []
    for line in part.splitlines():
        m = re.match(r"^\s+(\d+)\s+\d", line)
        if m:
            shown.append(int(m.group(1)))
        m = re.match(r"^\s+\.\.\.\s+(\d+) steps? not shown", line)
        if m:
            hidden.append(int(m.group(1)))
    return part, shown, hidden


part, shown, hidden = table(run("--top", "10", steps_path))
others = sorted(range(2, 198), key=lambda i: (-walls[i], i))[:6]
want = sorted([0, 1, 198, 199] + others)
assert shown == want, (shown, want)
assert sum(hidden) == 190 and len(hidden) == len([1 for a, b in zip(want, want[1:]) if b > a + 1])
assert "10 of 200 steps shown" in part
# histogram: bin of a step = (wall - min) * 10 // (max - min + 1), in ns
lo, hi = min(walls) * 1000, max(walls) * 1000
bins = [0] * 10
for w in walls:
    bins[(w * 1000 - lo) * 10 // (hi - lo + 1)] += 1
m = re.search(r"step wall times: 200 steps in 10 equal bins from 1\.000 ms to 5\.120 ms:((?: \d+){10})\n", part)
assert m and [int(x) for x in m.group(1).split()] == bins, (part[:600], bins)
part, shown, hidden = table(run("--top", "0", steps_path))
assert shown == list(range(200)) and not hidden and "steps shown" not in part
part, shown, hidden = table(run(steps_path))  # text default: 15 rows
assert len(shown) == 15 and shown[:3] == [0, 1, 2] and shown[-3:] == [197, 198, 199], shown
print("step table: first, slowest and last; histogram as recomputed")


def step_rows(text):
    """{step number: [the eight breakdown cells]} of the step table"""
    rows = {}
    for line in table(text)[0].splitlines():
        f = line.split()
        if len(f) >= 13 and re.match(r"^\d+$", f[0]):
            rows[int(f[0])] = f[5:13]  # number, wall (2 words), busy, idle, then the roles
    return rows


def check_step_cells(path, *extra):
    """each cell is the JSON's breakdown as % of the wall (one decimal), or n/a where it is null"""
    doc = json.loads(run("--top", "0", "--format", "json", *extra, path))["traces"][0]
    rows = step_rows(run("--top", "0", *extra, path))
    assert len(rows) == len(doc["steps"]) > 0, (path, len(rows))
    nulls = 0
    for st in doc["steps"]:
        cells = rows[st["number"]]
        for cell, (role, v) in zip(cells, st["breakdown"].items()):
            if v is None:
                assert cell == "n/a", (path, st["number"], role, cell)
                nulls += 1
            else:
                assert cell == f"{100.0 * v / st['wall_ns']:.1f}", (path, st["number"], role, cell, v)
    return nulls


# without GPU events the GPU roles are not observed: n/a, as the JSON's null (not 0.0)
assert check_step_cells(steps_path) == 3 * 200
assert check_step_cells(os.path.join(fixtures, "real", "hta", "timeline_analysis", "sampled_rank-0.json.gz")) == 0
print("step table cells: the JSON's breakdown, n/a where it is not observed")

# ---- the memory section's lists, bounded by --top and saying so -------------------------------
mev, total = [], 0
for i in range(20):  # a step each; in it one op that allocates and never frees: 20 lists' entries
    total += 1000 * (i + 1)
    mev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                "ts": 100 * i, "dur": 100})
    mev.append({"ph": "X", "cat": "cpu_op", "name": f"aten::alloc{i}", "pid": 1, "tid": 1, "ts": 100 * i + 10,
                "dur": 40})
    mev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
                "ts": 100 * i + 20, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096 * (i + 1),
                                             "Bytes": 1000 * (i + 1), "Total Allocated": total,
                                             "Total Reserved": 1 << 24}})
mem_path = os.path.join(tmp, "memory20.json")
with open(mem_path, "w") as f:
    json.dump({"traceEvents": mev}, f)
mdoc = json.loads(run("--format", "json", "--top", "0", "--window", "trace", mem_path))["traces"][0]
(mdev,) = mdoc["memory"]
nlive, nsteps = len(mdev["live_at_peak"]), len(mdev["steps"])
assert nlive == 20 and nsteps == 20, (nlive, nsteps)
for top, want_live, want_steps in (("15", 15, 15), ("0", 20, 20), ("3", 3, 3)):
    text = run("--top", top, "--window", "trace", mem_path)
    sec = text[text.index("  Memory"):]
    live = next(l for l in sec.splitlines() if "live at the peak:" in l)
    shown = live.count(" by aten::alloc")
    assert shown == want_live, (top, shown, live)
    more = re.search(r", and (\d+) more \(--top 0 lists them\)$", live)
    assert (int(more.group(1)) if more else 0) == nlive - want_live, (top, live)
    steps = re.findall(r"^      step \d+: ", sec, re.M)
    assert len(steps) == want_steps, (top, len(steps))
    more = re.search(r"^      \.\.\. (\d+) more steps? \(--top 0 lists them\)$", sec, re.M)
    assert (int(more.group(1)) if more else 0) == nsteps - want_steps, (top, sec[:2000])
print("memory: the lists cut by --top say how many more there are")

# ---- names in text -------------------------------------------------------------------------
KERNEL = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
          "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)")
# 1. "void " goes; 2. the parameter list folds; 3. the namespaces inside the template arguments go
# (91 bytes: still one too many); 4. the second level of template arguments folds:
KERNEL_TEXT = "at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<...>, Array<...> >(...)"
DEEP = "ns::k<Outer<Middle<Inner<float, double, int, long, short, char, bool, unsigned>, " + "x" * 80 + ">, y>, z>"
# 3. nothing to drop ("ns::" is outside); 4. the deepest level (Inner's) folds: 120 bytes, still
# too long; then the next (Middle's):
DEEP_TEXT = "ns::k<Outer<Middle<...>, y>, z>"
OP = "a" * 60 + "b" * 60
OP_TEXT = "a" * 56 + " ... " + "b" * 29  # 5. head (2/3 of 85 bytes) and tail around " ... "
names_path = os.path.join(tmp, "names.json")
with open(names_path, "w") as f:
    json.dump({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": OP, "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "kernel", "name": KERNEL, "pid": 0, "tid": 7, "ts": 10, "dur": 20,
         "args": {"stream": 7, "device": 0}},
        {"ph": "X", "cat": "kernel", "name": DEEP, "pid": 0, "tid": 7, "ts": 40, "dur": 10,
         "args": {"stream": 7, "device": 0}},
        {"ph": "X", "cat": "kernel", "name": "short_kernel<1>(int)", "pid": 0, "tid": 7, "ts": 60, "dur": 5,
         "args": {"stream": 7, "device": 0}}]}, f)
assert len(KERNEL_TEXT) <= 90 < len(KERNEL) and len(DEEP) > 90
text = run("--window", "trace", names_path)  # the op runs before the GPU span
assert f"  {KERNEL_TEXT} [kernel]" in text, text
assert f"  {DEEP_TEXT} [kernel]" in text, text
assert "  short_kernel<1>(int) [kernel]" in text
assert f"  {OP_TEXT} [cpu_op]" in text, text
tables = text[:text.index("\n  Steps")]  # the diagnoses quote names whole, as evidence
assert KERNEL not in tables and OP not in tables
doc = json.loads(run("--window", "trace", "--format", "json", names_path))["traces"][0]
assert {k["name"] for k in doc["kernels"]} == {KERNEL, DEEP, "short_kernel<1>(int)"}
rows = list(csv.DictReader(io.StringIO(run("--window", "trace", "--format", "csv", names_path))))
assert {r["name"] for r in rows if r["section"] == "kernel"} == {KERNEL, DEEP, "short_kernel<1>(int)"}
assert OP in {r["name"] for r in rows if r["section"] == "op"}
print("names: shortened in text by the rule, whole in JSON and CSV")

# ---- diagnostics relative to the window start ----------------------------------------------
# the first event starts at 1000 us, the 'B' never closed at 1500 us: +500 us
diag_path = os.path.join(tmp, "diag.json")
with open(diag_path, "w") as f:
    json.dump({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "first", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
        {"ph": "B", "cat": "cpu_op", "name": "open", "pid": 1, "tid": 1, "ts": 1500},
        {"ph": "X", "cat": "cpu_op", "name": "last", "pid": 1, "tid": 1, "ts": 1600, "dur": 50}]}, f)
text = run(diag_path)
assert "'B' \"open\" at +500.000 us never closed" in text, text
assert "(times relative to the window start, 1000000 ns" in text
doc = json.loads(run("--format", "json", diag_path))["traces"][0]
assert any("at 1500000 ns never closed" in e["text"] for d in doc["diagnostics"] for e in d["examples"])
print("diagnostics: relative in text, absolute in JSON")


# ---- CSV tables against the JSON -----------------------------------------------------------
def n(v):
    """a JSON value as the CSV writes it"""
    if v is None:
        return ""
    if v is True or v is False:
        return "1" if v else "0"
    return str(v)


def check_csv(path):
    out = run("--format", "csv", path)
    reader = csv.reader(io.StringIO(out))
    header = next(reader)
    assert len(header) == len(set(header)), header
    body = list(reader)
    assert all(len(r) == len(header) for r in body)
    rows = [dict(zip(header, r)) for r in body]
    t = json.loads(run("--format", "json", path))["traces"][0]
    sec = lambda s: [r for r in rows if r["section"] == s]
    assert {r["source"] for r in rows} <= {t["source"]}
    # steps
    got = [(r["number"], r["name"], r["start_ns"], r["end_ns"], r["wall_ns"], r["busy_ns"], r["idle_ns"],
            r["warmup"], r["unfinished"], r["count"], *[r[k + "_ns"] for k in
            ("kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other")])
           for r in sec("step")]
    want = [(n(s["number"]), s["name"], n(s["start_ns"]), n(s["end_ns"]), n(s["wall_ns"]), n(s["busy_ns"]),
             n(s["idle_ns"]), n(s["warmup"]), n(s["unfinished"]), n(s["gpu_events"]),
             *[n(s["breakdown"][k]) for k in ("kernel", "memcpy", "memset", "communication", "runtime",
                                               "dataloader", "cpu_exec", "other")]) for s in t["steps"]]
    assert got == want, (path, got[:2], want[:2])
    # each step's critical path: its kinds, and its top names as rows of section critical_path
    kinds = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled", "inferred",
             "collective")
    assert [tuple(r["path_" + k + "_ns"] for k in kinds) for r in sec("step")] == \
        [tuple(n(s["critical_path"][k + "_ns"]) for k in kinds) for s in t["steps"]], path
    assert [(r["number"], r["name"], r["cat"], r["total_ns"]) for r in sec("critical_path")] == \
        [(n(s["number"]), n(x["name"]), x["kind"], n(x["ns"])) for s in t["steps"] for x in s["critical_path"]["top"]], path
    # gaps, their causes and the longest
    gaps = t["gaps"] or []
    assert [(r["device"], r["count"], r["total_ns"], r["idle_ns"], r["threshold_ns"], r["hta_host_wait_ns"],
             r["hta_kernel_wait_ns"], r["hta_other_ns"], r["data_loading_ns"]) for r in sec("gap")] == \
        [tuple(n(g[k]) for k in ("device", "count", "total_ns", "idle_ns", "threshold_ns")) +
         tuple(n(g["hta"][k]) for k in ("host_wait_ns", "kernel_wait_ns", "other_ns")) + (n(g["data_loading_ns"]),)
         for g in gaps], path
    for section, key in (("gap_cpu", "by_cpu_activity"), ("gap_label", "by_label")):
        assert [(r["device"], r["name"], r["cat"], r["count"], r["total_ns"]) for r in sec(section)] == \
            [(n(g["device"]), c["what"], c["kind"], n(c["count"]), n(c["total_ns"])) for g in gaps for c in g[key]]
    assert [(r["device"], r["name"], r["start_ns"], r["end_ns"], r["wall_ns"]) for r in sec("gap_longest")] == \
        [(n(g["device"]), x["while"], n(x["start_ns"]), n(x["end_ns"]), n(x["dur_ns"])) for g in gaps
         for x in g["longest"]]
    # diagnoses
    assert [(r["name"], r["cat"], r["hypothesis"], r["evidence"], r["next_check"], r["refuted_if"], r["validate"],
             r["measure_by_hand"], r["steps"], r["count"]) for r in sec("diagnosis")] == \
        [(d["id"], d["confidence"], d["hypothesis"], d["evidence"], d["next_check"], d["refuted_if"],
          n(d["validate"]), n(d["measure_by_hand"]), " ".join(map(str, d["steps"])), n(len(d["steps"])))
         for d in t["diagnoses"]], path
    # devices
    assert [(r["device"], r["span_ns"], r["busy_ns"], r["idle_ns"], r["start_ns"], r["end_ns"], r["total_ns"])
            for r in sec("gpu")] == [tuple(n(g[k]) for k in ("device", "span_ns", "busy_ns", "idle_ns", "first_ns",
                                                             "last_ns", "kernel_ns")) for g in t["gpu"] or []]
    assert [(r["device"], r["name"], r["cat"], r["count"], r["span_ns"], r["busy_ns"], r["idle_ns"], r["start_ns"],
             r["end_ns"]) for r in sec("device")] == \
        [(n(d["device"]), n(d["label"]), ";".join(d["categories"]), n(d["events"]), n(d["span_ns"]),
          n(d["busy_ns"]), n(d["idle_ns"]), n(d["first_ns"]), n(d["last_ns"])) for d in t["device_activity"]]
    # the tables that were there before
    for section, key in (("op", "ops"), ("label", "labels")):
        assert [(r["name"], r["cat"], r["count"], r["self_ns"], r["incl_ns"], r["gpu_direct_ns"]) for r in sec(section)] \
            == [(o["name"], o["cat"], n(o["count"]), n(o["self_ns"]), n(o["incl_ns"]), n(o["gpu_direct_ns"]))
                for o in t[key]], (path, section)
    assert [(r["name"], r["count"], r["total_ns"]) for r in sec("kernel")] == \
        [(k["name"], n(k["count"]), n(k["total_ns"])) for k in t["kernels"]]
    # the window: one row, the JSON's window (how it was chosen, its basis, its span)
    w = t["window"]
    assert [(r["name"], r["cat"], r["start_ns"], r["end_ns"], r["span_ns"]) for r in sec("window")] == \
        [(w["chosen"], w["basis"], n(w["start_ns"]), n(w["end_ns"]), n(w["span_ns"]))], (path, sec("window"), w)
    # memory: a row per device, its live groups, ops and steps
    mem = t["memory"] or []
    lab = lambda m: "CPU" if m["device_type_id"] == 0 and m["device"] == -1 else f"{m['device_type']} {m['device']}"
    assert [(r["device_type"], r["device"], r["count"], r["start_ns"], r["number"], r["peak_allocated_bytes"],
             r["peak_reserved_bytes"], r["capacity_bytes"], r["increase_bytes"], r["start_bytes"], r["end_bytes"],
             r["peak_bytes"], r["law_breaks"]) for r in sec("memory")] == \
        [(lab(m), n(m["device"]), n(m["events"]), n(m["peak_ns"]), n(m["peak_step"]), n(m["peak_allocated_bytes"]),
          n(m["peak_reserved_bytes"]), n(m["capacity_bytes"]), n(m["net_bytes"]), n(m["start_level_bytes"]),
          n(m["end_level_bytes"]), n(m["peak_level_bytes"]), n(m["laws"]["breaks"])) for m in mem], path
    assert [(r["device_type"], r["name"], r["allocations"], r["allocated_bytes"]) for r in sec("memory_live")] == \
        [(lab(m), x["op"], n(x["allocations"]), n(x["bytes"])) for m in mem for x in m["live_at_peak"]], path
    assert [(r["device_type"], r["name"], r["cat"], r["allocations"], r["allocated_bytes"], r["increase_bytes"],
             r["self_allocations"], r["self_allocated_bytes"], r["self_increase_bytes"]) for r in sec("memory_op")] == \
        [(lab(m), o["name"], o["kind"], n(o["allocations"]), n(o["allocated_bytes"]), n(o["increase_bytes"]),
          n(o["self_allocations"]), n(o["self_allocated_bytes"]), n(o["self_increase_bytes"]))
         for m in mem for o in m["ops"]], path
    assert [(r["device_type"], r["number"], r["start_bytes"], r["end_bytes"], r["growth_bytes"], r["peak_bytes"])
            for r in sec("memory_step")] == \
        [(lab(m), n(s["number"]), n(s["start_bytes"]), n(s["end_bytes"]), n(s["growth_bytes"]), n(s["peak_bytes"]))
         for m in mem for s in m["steps"]], path
    known = {"window", "op", "label", "kernel", "gpu", "device", "step", "gap", "gap_cpu", "gap_label", "gap_longest",
             "diagnosis", "critical_path", "memory", "memory_live", "memory_op", "memory_step"}
    assert {r["section"] for r in rows} <= known, {r["section"] for r in rows} - known
    return {s for s in known if sec(s)}


seen = set()
for p in [os.path.join(fixtures, "insights", f) for f in sorted(os.listdir(os.path.join(fixtures, "insights")))
          if f.endswith(".json")] + \
         [os.path.join(fixtures, "analysis", "unknown_device.json"), steps_path,
          os.path.join(corpus, "hta", "mtia_inference_trace", "mtia_inference_rank_0.json.gz"),
          os.path.join(corpus, "hta", "timeline_analysis", "sampled_rank-0.json.gz"),
          os.path.join(corpus, "tracelens", "h100", "gaunernst_bert-small-uncased__1016001.json.gz")]:
    seen |= check_csv(p)
assert seen == {"window", "op", "label", "kernel", "gpu", "device", "step", "gap", "gap_cpu", "gap_label", "gap_longest",
                "diagnosis", "critical_path", "memory", "memory_live", "memory_op", "memory_step"}, seen
print("CSV: every section equal to the JSON")

# `kinesift help analyze` names every section (and docs/analysis.md's CSV table has a row for each)
h = " ".join(subprocess.run([exe, "help", "analyze"], capture_output=True, text=True).stdout.split())
m = re.search(r'the "section" column naming the table \(([a-z_, ]+);', h)
assert m, "help analyze: no section list"
listed = set(m.group(1).replace(" ", "").split(","))
assert listed == seen | {"error"}, ("help analyze's sections", listed ^ (seen | {"error"}))
doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "analysis.md")).read()
for sname in listed:
    assert re.search(r"^\| [^|]*`%s`" % sname, doc, re.M), "docs/analysis.md: no CSV row for %s" % sname
print("CSV: help analyze and docs/analysis.md name every section")
print("ok")
