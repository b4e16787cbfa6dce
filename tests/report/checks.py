"""tests/report/checks.py: laws that `report`, `annotate` and `analyze --format folded` must obey
on any trace, checked against `analyze --format json` (the reference) and `stats`. Standard
library only; the drivers are fixtures_report.py (fixtures and hand-worked cases) and
corpus_report.py (one real trace). Each check appends to FAILURES and prints what failed."""
import gzip, json, os, re, subprocess, sys
from decimal import Decimal
from html.parser import HTMLParser

KS = os.environ["KINESIFT"]
FAILURES = []
CHECKED = [0]


def check(cond, what):
    CHECKED[0] += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def run(*args):
    r = subprocess.run([KS, *args], capture_output=True)
    return r


def analyze_json(path, *extra):
    r = run("analyze", "--format", "json", "--quiet", *extra, path)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)["traces"]


def fmt_ns(ns):
    """common/util.c ks_fmt_ns, independently: the units of the text report."""
    a = abs(ns)
    if a >= 1e9:
        return "%.3f s" % (ns / 1e9)
    if a >= 1e6:
        return "%.3f ms" % (ns / 1e6)
    if a >= 1e3:
        return "%.3f us" % (ns / 1e3)
    return "%d ns" % ns


# ---- analyze --format folded -------------------------------------------------------------------

LINE = re.compile(r"^(.+) (\d+)$")


def folded(path, *extra):
    r = run("analyze", "--format", "folded", "--quiet", *extra, path)
    check(r.returncode == 0, f"folded {extra} of {path}: exit {r.returncode} {r.stderr[:200]!r}")
    out = {}
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        m = LINE.match(line)
        if not check(m is not None, f"folded line of {path} has the form 'frames value': {line[:120]!r}"):
            continue
        frames = m.group(1).split(";")
        check(all(frames), f"folded line of {path} has no empty frame: {line[:120]!r}")
        check(int(m.group(2)) > 0, f"folded value > 0: {line[:120]!r}")
        check(m.group(1) not in out, f"each path once: {m.group(1)[:120]!r}")
        out[m.group(1)] = int(m.group(2))
    return out


def check_folded(path):
    t = analyze_json(path, "--top", "0")
    self_sum = sum(o["self_ns"] for tr in t for o in tr["ops"])
    gpu_sum = sum(k["total_ns"] for tr in t for k in tr["kernels"])
    cpu = folded(path)
    check(sum(cpu.values()) == self_sum,
          f"{path}: folded CPU values add up to the ops' self time ({sum(cpu.values())} vs {self_sum})")
    py = folded(path, "--python-frames")
    check(sum(py.values()) == self_sum,
          f"{path}: folded CPU values with Python frames add up to the ops' self time")
    check(len(py) >= len(cpu), f"{path}: Python frames only split paths")
    gpu = folded(path, "--folded-metric", "gpu")
    check(sum(gpu.values()) == gpu_sum,
          f"{path}: folded GPU values add up to the kernels' total time ({sum(gpu.values())} vs {gpu_sum})")


# ---- annotate -----------------------------------------------------------------------------------

def read_maybe_gz(p):
    raw = open(p, "rb").read()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def us_to_ns(v):
    return int(v * 1000) if isinstance(v, Decimal) else v * 1000


ADDED_SCHEMA = {
    "type": "object",
    "required": ["ph", "name", "pid", "tid"],
    "properties": {
        "ph": {"enum": ["X", "M", "C"]},
        "name": {"type": "string", "minLength": 1},
        "pid": {"type": "integer"},
        "tid": {"type": "integer"},
        "cat": {"const": "kinesift"},
        "ts": {"type": "number"},
        "dur": {"type": "number", "minimum": 0},
        "args": {"type": "object"},
    },
    "if_X": ["cat", "ts", "dur", "args"],
    "if_C": ["cat", "ts", "args"],
}


def schema_errors(ev, schema=ADDED_SCHEMA):
    """The subset of JSON Schema the added events need (type, required, enum, const, minimum,
    minLength), and: complete events carry cat, ts, dur and args."""
    errs = []
    types = {"object": dict, "string": str, "number": (int, float, Decimal), "integer": int}
    for k in schema["required"]:
        if k not in ev:
            errs.append(f"missing {k}")
    for k, rule in schema["properties"].items():
        if k not in ev:
            continue
        v = ev[k]
        if "type" in rule and (not isinstance(v, types[rule["type"]]) or isinstance(v, bool)):
            errs.append(f"{k}: not {rule['type']}")
        if "enum" in rule and v not in rule["enum"]:
            errs.append(f"{k}: {v!r} not in {rule['enum']}")
        if "const" in rule and v != rule["const"]:
            errs.append(f"{k}: {v!r} != {rule['const']!r}")
        if "minimum" in rule and isinstance(v, (int, float, Decimal)) and v < rule["minimum"]:
            errs.append(f"{k}: below {rule['minimum']}")
        if "minLength" in rule and isinstance(v, str) and len(v) < rule["minLength"]:
            errs.append(f"{k}: empty")
    if ev.get("ph") == "X":
        errs += [f"X without {k}" for k in schema["if_X"] if k not in ev]
    if ev.get("ph") == "C":
        errs += [f"C without {k}" for k in schema["if_C"] if k not in ev]
        errs += [f"C value {k} not a number" for k, v in ev.get("args", {}).items()
                 if not isinstance(v, (int, float, Decimal)) or isinstance(v, bool)]
    return errs


def stats_phases(path):
    """stats' events by phase, and how many it recognised as kinesift annotate's and left out"""
    r = run("stats", "--format", "json", "--quiet", path)
    assert r.returncode == 0, r.stderr.decode()
    t = json.loads(r.stdout)["traces"][0]
    own = sum(x["count"] for x in t.get("diagnostics") or [] if x["id"] == "parse.kinesift_annotation")
    return t["by_phase"], own


def check_annotate(path, tmp):
    out = os.path.join(tmp, "annotated.json.gz")
    if os.path.exists(out):
        os.unlink(out)
    before = open(path, "rb").read()
    r = run("annotate", "--quiet", path, "-o", out)
    if not check(r.returncode == 0, f"annotate {path}: exit {r.returncode} {r.stderr[:300]!r}"):
        return
    check(open(path, "rb").read() == before, f"annotate leaves {path} as it was")
    orig, ann = read_maybe_gz(path), read_maybe_gz(out)
    # byte for byte: the output is the input with one piece inserted
    p = 0
    while p < len(orig) and orig[p] == ann[p]:
        p += 1
    tail = len(orig) - p
    check(ann[len(ann) - tail:] == orig[p:], f"{path}: the original bytes are kept, one piece inserted")
    piece = ann[p:len(ann) - tail].decode()
    # exact decimals: epoch microseconds have more digits than a double holds
    inserted = json.loads("[" + piece.lstrip(",") + "]", parse_float=Decimal)
    # a Chrome-trace loader other than kinesift's: the json module
    doc = json.loads(ann, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = [e for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
             and e.get("args", {}).get("name") == "kinesift"]
    if not check(len(names) == 1, f"{path}: one process named kinesift"):
        return
    pid = names[0]["pid"]
    added = [e for e in events if e.get("pid") == pid]
    # the path's flows live on the trace's own tracks; everything else on pid kinesift
    flows = [e for e in inserted if e.get("cat") == "kinesift.critical_path"]
    check(added == [e for e in inserted if e.get("cat") != "kinesift.critical_path"],
          f"{path}: the inserted piece is exactly the events of pid kinesift and the path's flows")
    orig_doc = json.loads(re.sub(rb",\s*([\]}])", rb"\1", orig), parse_float=Decimal)  # the trace may have trailing commas
    orig_events = orig_doc["traceEvents"] if isinstance(orig_doc, dict) else orig_doc
    check(all(e.get("pid") != pid for e in orig_events), f"{path}: the kinesift pid is a new one")
    for e in added:
        errs = schema_errors(e)
        check(not errs, f"{path}: added event {e.get('name')!r} fits the schema: {errs}")
    # stats recognises exactly the added events as kinesift's and leaves them out
    (a, own_a), (b, own_b) = stats_phases(path), stats_phases(out)
    check(b == a, f"{path}: stats of the output = stats of the input, the added left out ({b} vs {a})")
    check(own_a == 0 and own_b == len(inserted),
          f"{path}: stats recognised {own_b} added events as kinesift's, {len(inserted)} inserted")
    # nesting: on each added thread, slices are disjoint or contained
    by_tid = {}
    for e in added:
        if e["ph"] == "X":
            by_tid.setdefault(e["tid"], []).append((us_to_ns(e["ts"]), us_to_ns(e["ts"]) + us_to_ns(e["dur"])))
    for tid, v in by_tid.items():
        v.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, t in v:
            while stack and stack[-1] <= s:
                stack.pop()
            ok = not stack or t <= stack[-1]
            check(ok, f"{path}: added slices of thread {tid} nest ([{s}, {t}) against {stack[-1:]})")
            stack.append(t)
    # the figures are analyze's
    tr = analyze_json(path, "--window", "trace")[0]  # annotate marks the whole trace
    steps = [e for e in added if e["ph"] == "X" and e["tid"] == 1]
    check([us_to_ns(e["dur"]) for e in steps] == [s["wall_ns"] for s in tr["steps"]],
          f"{path}: step slices last the steps' wall time")
    check([us_to_ns(e["ts"]) for e in steps] == [s["start_ns"] for s in tr["steps"]],
          f"{path}: step slices start with the steps")
    check([e["args"]["state"] == "warm-up" for e in steps] == [s["warmup"] and not s["unfinished"] for s in tr["steps"]],
          f"{path}: warm-up steps marked")
    phases = [e for e in added if e["ph"] == "X" and e["tid"] == 2]
    want = sum(1 for s in tr["steps"] for v in s["breakdown"].values() if v)
    check(len(phases) == want, f"{path}: one phase slice per non-zero breakdown role")
    # the critical path track: per step, its slices tile the step (the path's length is its wall time)
    path_slices = [e for e in added if e["ph"] == "X" and e["tid"] == 3]
    for s in tr["steps"]:
        mine = sorted((us_to_ns(e["ts"]), us_to_ns(e["dur"])) for e in path_slices if e["args"]["step"] == s["number"])
        check(sum(d for _, d in mine) == s["wall_ns"], f"{path}: step {s['number']}: path slices add up to its wall time")
        check(all(a + d == b for (a, d), (b, _) in zip(mine, mine[1:])), f"{path}: step {s['number']}: path slices tile it")
        check(not mine or mine[0][0] == s["start_ns"], f"{path}: step {s['number']}: the path starts with the step")
    check_path_flows(path, orig_events, path_slices, flows)
    gaps = tr.get("gaps") or []
    for i, g in enumerate(gaps):
        mine = [e for e in added if e["ph"] == "X" and e["tid"] == 10 + i]
        check(len(mine) == g["count"], f"{path}: GPU {g['device']}: one slice per gap ({len(mine)} vs {g['count']})")
        check(sum(us_to_ns(e["dur"]) for e in mine) == g["total_ns"], f"{path}: gap slices add up to the gap time")
    # memory: one counter track per device, its points the timeline's
    for m in tr.get("memory") or []:
        lab = "CPU" if m["device_type_id"] == 0 and m["device"] == -1 else f"{m['device_type']} {m['device']}"
        cs = [e for e in added if e["ph"] == "C" and e["name"] == "memory " + lab]
        key = "allocated" if m["level_basis"] == "total_allocated" else "bytes since the first event"
        check([(us_to_ns(e["ts"]), e["args"][key], e["args"].get("reserved")) for e in cs] ==
              [tuple(p) for p in m["timeline"]], f"{path}: memory counter track of {lab}")
    diag_threads = {e["tid"] for e in added if e["ph"] == "X" and e["tid"] >= 100}
    check(len(diag_threads) == len(tr["diagnoses"]), f"{path}: one thread per diagnosis")


def check_path_flows(path, orig_events, path_slices, flows):
    """The path's flows: one s and one f per id, each on a (pid, tid) of the trace, s no later
    than f; per step, one flow wherever the path's work (its cpu and gpu slices on the path track)
    passes to another thread or stream, leaving from the end of the one and arriving at the start
    of the next (both read from the path track, not from the flows)."""
    tracks = {(e.get("pid"), e.get("tid")) for e in orig_events if "pid" in e and "tid" in e}
    by_id = {}
    for e in flows:
        by_id.setdefault(e["id"], []).append(e)
        check((e["pid"], e["tid"]) in tracks, f"{path}: flow {e['id']} on a track of the trace ({e['pid']}, {e['tid']})")
    pairs = []
    for i, v in by_id.items():
        phs = sorted(e["ph"] for e in v)
        if not check(phs == ["f", "s"], f"{path}: flow {i} has one start and one end ({phs})"):
            continue
        s, f = (v[0], v[1]) if v[0]["ph"] == "s" else (v[1], v[0])
        check(us_to_ns(s["ts"]) <= us_to_ns(f["ts"]) and f.get("bp") == "e", f"{path}: flow {i} goes forward")
        pairs.append((s["args"]["step"], us_to_ns(s["ts"]), (str(s["pid"]), str(s["tid"])), us_to_ns(f["ts"]),
                      (str(f["pid"]), str(f["tid"]))))
    want = []
    steps = sorted({e["args"]["step"] for e in path_slices})
    for st in steps:
        work = sorted((us_to_ns(e["ts"]), us_to_ns(e["dur"]), (e["args"]["on_pid"], e["args"]["on_tid"])) for e in path_slices
                      if e["args"]["step"] == st and e["args"]["kind"] in ("cpu", "gpu"))
        want += [(st, a + d - 1, t1, b, t2) for (a, d, t1), (b, _, t2) in zip(work, work[1:]) if t1 != t2]
    # pid and tid as text (the path track's args are text)
    check(sorted(pairs) == sorted(want), f"{path}: a flow wherever the path changes track "
          f"({len(pairs)} flows, {len(want)} changes; {sorted(set(pairs) ^ set(want))[:3]})")


# ---- report -------------------------------------------------------------------------------------

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def all_text(self):
        return "".join(self.text + [c.all_text() for c in self.children])

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def find_all(self, pred):
        return [n for n in self.iter() if pred(n)]


VOID = {"meta", "br", "img", "input", "link", "hr", "area", "base", "col", "embed", "source", "wbr"}


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


def parse_html(text):
    d = Dom()
    d.feed(text)
    d.close()
    return d.root


def check_page_rules(root, what):
    """Offline, accessible: CSP forbids fetches, nothing is loaded, every SVG has a title and a
    description, every table has column headers."""
    metas = root.find_all(lambda n: n.tag == "meta" and n.attrs.get("http-equiv") == "Content-Security-Policy")
    check(metas and "default-src 'none'" in metas[0].attrs.get("content", ""), f"{what}: CSP meta forbids fetches")
    for n in root.iter():
        for k, v in n.attrs.items():
            check(k not in ("src", "srcset", "action", "formaction", "poster", "data"),
                  f"{what}: no {k}= attribute ({n.tag})")
            if v and k in ("href", "xlink:href"):
                check(v.startswith("#"), f"{what}: links stay in the page ({v[:60]})")
            if v and ("http://" in v or "https://" in v):
                check(False, f"{what}: no http(s) address in an attribute ({k}={v[:60]})")
    for svg in root.find_all(lambda n: n.tag == "svg"):
        tags = [c.tag for c in svg.children]
        check("title" in tags and "desc" in tags, f"{what}: each SVG has <title> and <desc>")
        check(svg.attrs.get("role") == "img", f"{what}: each SVG has role=img")
    for t in root.find_all(lambda n: n.tag == "table"):
        check(t.find_all(lambda n: n.tag == "th"), f"{what}: each table has headers")


def ns_of(n):
    return int(n.attrs["data-ns"])


def check_ns_text(n, what):
    """A figure's text is its data-ns in the text report's units."""
    txt = n.all_text().strip()
    check(txt == fmt_ns(ns_of(n)), f"{what}: shows {fmt_ns(ns_of(n))!r} for {ns_of(n)} ns, not {txt!r}")


def check_tables(sec, tr, what):
    for table, key in (("ops", "ops"), ("labels", "labels"), ("kernels", "kernels")):
        tables = sec.find_all(lambda n: n.tag == "table" and n.attrs.get("data-table") == table)
        rows_json = tr[key]
        if not rows_json:
            check(not tables, f"{what}: no {table} table without rows")
            continue
        if not check(len(tables) == 1, f"{what}: one {table} table"):
            continue
        rows = tables[0].find_all(lambda n: n.tag == "tr" and "data-name" in n.attrs)
        check(len(rows) == len(rows_json), f"{what}: {table} has {len(rows_json)} rows ({len(rows)})")
        for row, js in zip(rows, rows_json):
            check(row.attrs["data-name"] == js["name"], f"{what}: {table} row order as in the JSON")
            for cell in row.find_all(lambda n: n.tag == "td" and "data-field" in n.attrs):
                f = cell.attrs["data-field"]
                if f == "count":
                    check(int(cell.attrs["data-v"]) == js["count"], f"{what}: {table} {js['name'][:40]} count")
                    continue
                if js.get(f) is None:
                    check("data-ns" not in cell.attrs and cell.all_text().strip() == "n/a",
                          f"{what}: {table} {f} not observed shows n/a")
                    continue
                check(ns_of(cell) == js[f], f"{what}: {table} {js['name'][:40]} {f} {ns_of(cell)} == {js[f]}")
                check_ns_text(cell, f"{what}: {table} {f}")


def check_roofline(sec, path, w):
    """The roofline per device against analyze's JSON (all the shapes, no --top): a device with a
    peak has one chart whose points are its op groups with an efficiency and FLOPs (intensity > 0),
    placed on the log axes by their intensity and mean TFLOP/s, monotone in each, sized by kernel
    time, every coordinate finite; its roofs are the peak's bandwidth and compute figures, and its
    title names the peak row and its source. A device without a peak says "No roofline: unknown
    device"."""
    import math
    (tr,) = analyze_json(path)
    if not tr.get("roofline") or tr.get("shapes") is None:
        check(not sec.find_all(lambda n: n.tag == "figure" and n.attrs.get("data-chart") == "roofline"),
              f"{w}: no roofline chart without GPU work or shapes")
        return
    for dev in tr["roofline"]:
        d = dev["device"]
        figs = sec.find_all(lambda n: n.tag == "figure" and n.attrs.get("data-chart") == "roofline"
                            and n.attrs.get("data-device") == str(d))
        rows = [r for r in tr["shapes"] if r["device"] == d and r["efficiency"] is not None
                and (r["gflops_each"] or 0) > 0 and (r["bytes_each"] or 0) > 0 and (r["tflops_per_s"] or 0) > 0]
        if dev["peak"] is None:
            ps = sec.find_all(lambda n: n.tag == "p" and n.attrs.get("data-roofline-device") == str(d))
            check(not figs and len(ps) == 1 and "No roofline: unknown device" in ps[0].all_text(),
                  f"{w}: GPU {d} without a peak: no roofline, said so")
            continue
        if not rows:
            check(not figs, f"{w}: GPU {d}: no chart without a point")
            continue
        if not check(len(figs) == 1, f"{w}: one roofline chart for GPU {d} ({len(figs)})"):
            continue
        svg = figs[0].find_all(lambda n: n.tag == "svg")[0]
        title = [n for n in svg.children if n.tag == "title"][0].all_text()
        check(dev["peak"]["name"] in title and dev["peak"]["source"] in title and f"GPU {d}" in title,
              f"{w}: the roofline's title names GPU {d}, its peak row and source: {title[:120]}")
        for n in svg.iter():
            for k, v in n.attrs.items():
                if k in ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r") or k.startswith("data-") and k not in (
                        "data-roof", "data-chart", "data-device", "data-frame"):
                    for part in v.split():
                        try:
                            ok = math.isfinite(float(part))
                        except ValueError:
                            ok = False
                        check(ok, f"{w}: GPU {d} roofline attribute {k}={v!r} is a finite number")
        x0, x1 = map(float, svg.attrs["data-x-log10"].split())
        y0, y1 = map(float, svg.attrs["data-y-log10"].split())
        left, top, pw, ph = map(float, svg.attrs["data-plot"].split())
        pts = svg.find_all(lambda n: n.tag == "circle")
        check(len(pts) == len(rows), f"{w}: GPU {d}: one point per op group with an efficiency and FLOPs "
                                     f"({len(pts)} vs {len(rows)})")
        got = sorted((float(p.attrs["data-intensity"]), float(p.attrs["data-tflops-per-s"]),
                      int(p.attrs["data-kernel-ns"])) for p in pts)
        want = sorted((r["gflops_each"] * 1e9 / r["bytes_each"], r["tflops_per_s"], r["kernel_ns"]) for r in rows)
        check(len(got) == len(want) and all(abs(a[0] - b[0]) <= 1e-9 * b[0] and abs(a[1] - b[1]) <= 1e-9 * b[1]
                                            and a[2] == b[2] for a, b in zip(got, want)),
              f"{w}: GPU {d}: the points are the JSON's groups (intensity, TFLOP/s, kernel time)")
        for p in pts:
            i, f = float(p.attrs["data-intensity"]), float(p.attrs["data-tflops-per-s"])
            cx, cy = float(p.attrs["cx"]), float(p.attrs["cy"])
            check(x0 <= math.log10(i) <= x1 and y0 <= math.log10(f) <= y1, f"{w}: GPU {d}: point inside the axes")
            check(abs(cx - (left + (math.log10(i) - x0) / (x1 - x0) * pw)) < 0.01 and
                  abs(cy - (top + ph - (math.log10(f) - y0) / (y1 - y0) * ph)) < 0.01,
                  f"{w}: GPU {d}: point placed on log axes ({cx}, {cy})")
        by_i = sorted(pts, key=lambda p: float(p.attrs["data-intensity"]))
        check(all(float(a.attrs["cx"]) <= float(b.attrs["cx"]) for a, b in zip(by_i, by_i[1:])),
              f"{w}: GPU {d}: x grows with intensity")
        by_f = sorted(pts, key=lambda p: float(p.attrs["data-tflops-per-s"]))
        check(all(float(a.attrs["cy"]) >= float(b.attrs["cy"]) for a, b in zip(by_f, by_f[1:])),
              f"{w}: GPU {d}: y rises with TFLOP/s")
        by_k = sorted(pts, key=lambda p: int(p.attrs["data-kernel-ns"]))
        check(all(float(a.attrs["r"]) <= float(b.attrs["r"]) for a, b in zip(by_k, by_k[1:])),
              f"{w}: GPU {d}: points sized by kernel time")
        bw = svg.find_all(lambda n: n.attrs.get("data-roof") == "bandwidth")
        check(len(bw) == 1 and float(bw[0].attrs["data-tb-per-s"]) == dev["peak"]["tb_per_s"],
              f"{w}: GPU {d}: the bandwidth roof is the peak's")
        peaks = {dev["peak"][k] for k in ("fp64_tflops_per_s", "fp32_tflops_per_s", "tf32_tflops_per_s",
                                          "bf16_fp16_tflops_per_s", "fp8_tflops_per_s") if dev["peak"][k]}
        roofs = [float(n.attrs["data-tflops-per-s"]) for n in svg.find_all(lambda n: n.attrs.get("data-roof") == "compute")]
        check(roofs and all(r in peaks for r in roofs), f"{w}: GPU {d}: compute roofs {roofs} are the peak's {peaks}")
        # every point is under its roof (efficiency <= 1 is not a law: a peak table figure can be beaten)
        # the axes are labelled with their units
        texts = " ".join(n.all_text() for n in svg.find_all(lambda n: n.tag == "text"))
        check("FLOP/byte" in texts and "TFLOP/s" in texts, f"{w}: GPU {d}: axes labelled with their units")


def check_report(paths, tmp, extra=()):
    out = os.path.join(tmp, "report.html")
    if os.path.exists(out):
        os.unlink(out)
    r = run("report", "--quiet", *extra, *paths, "-o", out)
    if not check(r.returncode == 0, f"report {paths}: exit {r.returncode} {r.stderr[:300]!r}"):
        return None
    size = os.path.getsize(out)
    check(size < 2_000_000, f"report of {paths} under 2 MB ({size})")
    text = open(out, encoding="utf-8").read()
    root = parse_html(text)
    what = " ".join(os.path.basename(p) for p in paths)
    check_page_rules(root, what)
    traces = []
    smi = []
    if "--smi" in extra:
        i = list(extra).index("--smi")
        smi = list(extra[i:i + 4])
    for p in paths:
        traces += analyze_json(p, "--top", "25", *smi)
    sections = root.find_all(lambda n: n.tag == "section" and "data-trace" in n.attrs)
    summaries = root.find_all(lambda n: n.tag == "li" and "data-trace" in n.attrs)
    check(len(sections) == len(traces) == len(summaries), f"{what}: one section and summary per trace")
    inputs = list(paths) if len(traces) == len(paths) else [None] * len(traces)  # one trace per input file
    for sec, li, tr, src in zip(sections, summaries, traces, inputs):
        w = f"{what}: {tr['source']}"
        span = li.find_all(lambda n: n.attrs.get("data-field") == "span_ns")
        if tr["window"]["span_ns"] is not None:
            check(ns_of(span[0]) == tr["window"]["span_ns"], f"{w}: summary window span")
            check_ns_text(span[0], f"{w}: summary window")
        for b in li.find_all(lambda n: n.attrs.get("data-field") == "busy_share"):
            g = [x for x in tr["gpu"] if x["device"] == int(b.attrs["data-device"])][0]
            check(int(b.attrs["data-busy-ns"]) == g["busy_ns"] and int(b.attrs["data-span-ns"]) == g["span_ns"],
                  f"{w}: summary busy share of GPU {g['device']}")
            # of a zero span not observed: n/a, as the JSON's null
            check(b.all_text() == ("n/a" if g["busy_share"] is None else "%.1f%%" % (100 * g["busy_ns"] / g["span_ns"])),
                  f"{w}: busy share text {b.all_text()!r}, JSON {g['busy_share']}")
            check((g["busy_share"] is None) == (g["span_ns"] <= 0), f"{w}: busy_share null exactly of a zero span")
        top = li.find_all(lambda n: n.attrs.get("data-field") == "top_diagnosis")
        check([t.all_text() for t in top] == [d["id"] for d in tr["diagnoses"][:1]], f"{w}: first diagnosis")
        # step bars
        bars = sec.find_all(lambda n: n.tag == "g" and "data-step" in n.attrs)
        check(len(bars) == len(tr["steps"]), f"{w}: one bar per step")
        for g, st in zip(bars, tr["steps"]):
            check(int(g.attrs["data-step"]) == st["number"] and int(g.attrs["data-wall-ns"]) == st["wall_ns"],
                  f"{w}: bar of step {st['number']}")
            check(("data-warmup" in g.attrs) == st["warmup"], f"{w}: warm-up mark of step {st['number']}")
            roles = {n.attrs["data-role"]: ns_of(n) for n in g.find_all(lambda n: "data-role" in n.attrs)}
            want = {k: v for k, v in st["breakdown"].items() if v}
            check(roles == want, f"{w}: step {st['number']} breakdown {roles} == {want}")
            check(sum(roles.values()) == st["wall_ns"], f"{w}: step {st['number']} bar adds up to its wall")
            for n in g.find_all(lambda n: n.tag == "title"):
                check(n.all_text().strip() != "", f"{w}: bar tooltips are not empty")
        # critical path: one row per step (the first 50; the window's without steps), its rectangles
        # tiling the step (their times add up to its wall), its kinds the JSON's
        paths = [s["critical_path"] for s in tr["steps"]] if tr["steps"] else \
            [p for p in [(tr["dependency_graph"] or {}).get("window_critical_path")] if p]
        rows = sec.find_all(lambda n: n.tag == "g" and "data-path-step" in n.attrs)
        check(len(rows) == min(len(paths), 50), f"{w}: one critical path row per step ({len(rows)}, {len(paths)})")
        kinds = ("cpu", "gpu", "launch_latency", "stream_gap", "sync", "thread_wait", "unmodeled")
        for g, p in zip(rows, paths):
            rects = g.find_all(lambda n: n.tag == "rect")
            check(sum(ns_of(x) for x in rects) == p["length_ns"] == int(g.attrs["data-wall-ns"]),
                  f"{w}: path row {g.attrs['data-path-step']} adds up to the step's wall time")
            check({k: int(g.attrs["data-" + k + "-ns"]) for k in kinds} == {k: p[k + "_ns"] for k in kinds},
                  f"{w}: path row {g.attrs['data-path-step']} kinds")
            check(all(x.attrs["data-kind"] in kinds for x in rects) and len(rects) <= 2 * 900,
                  f"{w}: path rectangles: a kind each, bounded by pixel columns")
            xs = [float(x.attrs["x"]) for x in rects]
            check(xs == sorted(xs), f"{w}: path rectangles in time order")
        # GPU strip
        for g in tr.get("gaps") or []:
            rows = sec.find_all(lambda n: n.tag == "g" and n.attrs.get("data-device") == str(g["device"]))
            if not check(len(rows) == 1, f"{w}: one strip row for GPU {g['device']}"):
                continue
            gaps = rows[0].find_all(lambda n: n.tag == "rect" and n.attrs.get("class") == "gap")
            check(sum(int(x.attrs["data-count"]) for x in gaps) == g["count"], f"{w}: every gap drawn")
            check(sum(ns_of(x) for x in gaps) == g["total_ns"], f"{w}: the gaps' idle time")
            check(len(gaps) <= 900, f"{w}: at most one gap rectangle per pixel column")
            busy = rows[0].find_all(lambda n: n.attrs.get("class") == "busy")
            gpu = [x for x in tr["gpu"] if x["device"] == g["device"]][0]
            check(ns_of(busy[0]) == gpu["busy_ns"], f"{w}: GPU {g['device']} busy time")
        # other accelerators' device activity: one line per device, its figures those of the JSON
        for d in tr.get("device_activity") or []:
            ps = sec.find_all(lambda n: n.tag == "p" and n.attrs.get("data-device") == str(d["device"]))
            if not check(len(ps) == 1, f"{w}: one line for device {d['device']}'s activity"):
                continue
            got = {n.attrs["data-field"]: ns_of(n) for n in ps[0].find_all(lambda n: "data-field" in n.attrs)}
            check(got == {k: d[k] for k in ("busy_ns", "span_ns", "idle_ns")}, f"{w}: device {d['device']} {got}")
        # memory: one chart per device, its peak the JSON's and drawn, every step shaded
        charts = sec.find_all(lambda n: n.tag == "figure" and n.attrs.get("data-chart") == "memory")
        mem = tr.get("memory") or []
        check(len(charts) == len(mem), f"{w}: one memory chart per device ({len(charts)} vs {len(mem)})")
        for c, m in zip(charts, mem):
            check(int(c.attrs["data-peak-bytes"]) == m["peak_level_bytes"] and int(c.attrs["data-peak-ns"]) == m["peak_ns"]
                  and int(c.attrs["data-device"]) == m["device"], f"{w}: memory chart of {m['device_type']} {m['device']}")
            check(len(c.find_all(lambda n: n.tag == "circle" and n.attrs.get("class") == "peak")) == 1,
                  f"{w}: the peak marked")
            check(c.find_all(lambda n: n.tag == "path" and n.attrs.get("data-series")), f"{w}: the level drawn")
        if tr.get("memory") is None:
            check(any("not observed" in n.all_text() for n in sec.find_all(lambda n: n.tag == "p")),
                  f"{w}: memory not observed, said so")
        if src:
            check_roofline(sec, src, w)
        diags = [n.attrs["data-diagnosis"] for n in sec.find_all(lambda n: "data-diagnosis" in n.attrs)]
        check(diags == [d["id"] for d in tr["diagnoses"]], f"{w}: the diagnoses, in order")
        check_tables(sec, tr, w)
    return root
