"""tests/redact/rdlib.py: what the redact integration tests share (Python standard library only):
running kinesift, reading traces with every number kept as its text, comparing the timing
fields of two traces event by event, and comparing `kinesift stats` (and, once it exists,
`kinesift analyze`) on the input and the redacted output."""
import gzip
import json
import os
import subprocess
import sys

KINESIFT = os.environ.get("KINESIFT", "kinesift")
CORPUS = os.environ.get("KS_CORPUS", "")
# the fields that carry a trace's structure and timing: never changed by redaction
TIMING_FIELDS = ("ph", "cat", "ts", "dur", "pid", "tid", "id", "bp", "s")
KEY = "kinesift-redact-test-key-0123456789abcdef"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(args, stdin=None, check_rc=None):
    p = subprocess.run([KINESIFT] + args, input=stdin, capture_output=True)
    if check_rc is not None and p.returncode != check_rc:
        fail("kinesift %s: exit %d (want %d)\nstdout: %s\nstderr: %s" % (
            " ".join(args), p.returncode, check_rc, p.stdout[-2000:].decode(errors="replace"),
            p.stderr[-2000:].decode(errors="replace")))
    return p


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def load_raw(data):
    """JSON with every number as its original text."""
    return json.loads(data, parse_float=str, parse_int=str, parse_constant=str)


def events(obj):
    return obj if isinstance(obj, list) else obj.get("traceEvents", [])


def timing_equal(a, b, where):
    ea, eb = events(a), events(b)
    if len(ea) != len(eb):
        fail("%s: %d events in, %d out" % (where, len(ea), len(eb)))
    for i, (x, y) in enumerate(zip(ea, eb)):
        if not isinstance(x, dict):
            continue
        for k in TIMING_FIELDS:
            if x.get(k) != y.get(k):
                fail("%s: event %d: %s %r became %r" % (where, i, k, x.get(k), y.get(k)))
        if x.get("name", "").startswith("ProfilerStep#") and x.get("name") != y.get("name"):
            fail("%s: event %d: step name changed" % (where, i))
        # numbers in args keep their text (Addr excepted: a keyed integer)
        ax, ay = x.get("args"), y.get("args")
        if isinstance(ax, dict) and isinstance(ay, dict):
            for k, v in ax.items():
                if k != "Addr" and isinstance(v, str) and v[:1].isdigit() and k in ay \
                        and ay[k] != v and not isinstance(ay[k], str):
                    fail("%s: event %d: args %s %r became %r" % (where, i, k, v, ay[k]))
    return len(ea)


def stats(path):
    p = run(["stats", "--format", "json", "--quiet", path], check_rc=0)
    return json.loads(p.stdout)["traces"][0]


STATS_FIELDS = ("events", "stored", "counter_samples", "by_phase", "by_category", "span_ns",
                "first_ts_ns", "last_end_ns", "steps", "rank", "world_size", "container")


def stats_equal(inp, out, where):
    a, b = stats(inp), stats(out)
    for k in STATS_FIELDS:
        if a.get(k) != b.get(k):
            fail("%s: stats %s: %r in, %r out" % (where, k, a.get(k), b.get(k)))
    ta = sorted((str(t["pid"]), str(t["tid"]), t["kind"], t["events"]) for t in a["tracks"])
    tb = sorted((str(t["pid"]), str(t["tid"]), t["kind"], t["events"]) for t in b["tracks"])
    if ta != tb:
        fail("%s: tracks differ" % where)


def _strip_names(v):
    """analyze JSON without the strings (names, sources): the timing figures that remain must
    be equal. Lists are compared as multisets: rows tied on a figure may change order when
    their names change."""
    if isinstance(v, dict):
        return {k: _strip_names(x) for k, x in v.items() if not isinstance(x, str)}
    if isinstance(v, list):
        rows = [_strip_names(x) for x in v if not isinstance(x, str)]
        return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))
    return v


def analyze_equal(inp, out, where):
    """`kinesift analyze` on input and output: equal apart from names. Skipped (returns False)
    while the command is not built yet."""
    a = run(["analyze", "--format", "json", "--quiet", inp])
    if a.returncode == 2 and b"not available" in a.stderr:
        return False
    b = run(["analyze", "--format", "json", "--quiet", out])
    if a.returncode != b.returncode:
        fail("%s: analyze exit %d in, %d out" % (where, a.returncode, b.returncode))
    if a.returncode == 0 and _strip_names(json.loads(a.stdout)) != _strip_names(json.loads(b.stdout)):
        fail("%s: analyze timing figures differ" % where)
    return True


def check_json(path, extra=()):
    p = run(["redact", "--check", "--format", "json", *extra, path])
    if p.returncode not in (0, 1):
        fail("check %s: exit %d: %s" % (path, p.returncode, p.stderr.decode(errors="replace")))
    doc = json.loads(p.stdout)
    if (p.returncode == 1) != (doc["findings"] > 0):
        fail("check %s: exit %d with %d findings" % (path, p.returncode, doc["findings"]))
    return doc


def by_rule(doc):
    out = {}
    for t in doc["traces"]:
        for k, v in t["by_rule"].items():
            out[k] = out.get(k, 0) + v
    return out


def corpus_path(rel):
    """The path of a real trace (absolute, or relative to $KS_CORPUS); a failure when it is not
    there (fixtures/real is part of the repository)."""
    path = os.path.join(CORPUS, rel)
    if not os.path.exists(path):
        fail("corpus trace %s not found" % path)
    return path


def write_key(dirname):
    path = os.path.join(dirname, "key")
    with open(path, "w") as f:
        f.write(KEY + "\n")
    return path


# ---- --check covers redact: every value redact changes is a finding on the input ----

def _pairs(data):
    """JSON as nested pair lists (keys in file order, duplicates kept), numbers as their text."""
    return json.loads(data, object_pairs_hook=lambda p: ("{}", p), parse_float=str, parse_int=str,
                      parse_constant=str)


def _member(key, masked):
    """one step of a --check JSON path, spelled as redact/rewrite.c spells it"""
    if masked:
        return "[<key with a finding>]"
    k = key[:64] if len(key.encode()) > 64 else key
    if k and not k[0].isdigit() and all(c.isascii() and (c.isalnum() or c == "_") for c in k):
        return "." + k
    esc = "".join("\\" + c if c in '"\\' else "\\u%04x" % ord(c) if ord(c) < 0x20 else c for c in k)
    return '["' + esc + ('..."]' if k != key else '"]')


def changed_paths(raw, red):
    """The places where redact changed the trace, as --check paths: (path, what) for each string,
    number or key whose text changed and each container replaced by a string."""
    out = []

    def walk(a, b, path):
        if isinstance(a, tuple) and isinstance(b, tuple):
            if len(a[1]) != len(b[1]):
                out.append((path or "$", "object size"))
                return
            for (ka, va), (kb, vb) in zip(a[1], b[1]):
                step = _member(ka, ka != kb)
                p = (path + step) if path or not step.startswith(".") else step[1:]
                if ka != kb:
                    out.append((p, "key"))
                walk(va, vb, p)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append((path or "$", "array size"))
                return
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, "%s[%d]" % (path, i))
        elif a != b:
            out.append((path or "$", "value"))
    walk(_pairs(raw), _pairs(red), "")
    return out


def _under(path, tops):
    """path is one of tops or lies inside one (a member or element of it)"""
    if "$" in tops or path in tops:
        return True
    return any(path[:i] in tops for i in range(1, len(path)) if path[i] in ".[")


def check_covers(src, raw, red, where, extra=()):
    """redact and --check are one detector, in both directions: each place redact changed
    (raw -> red) is flagged by --check on src at the same path, and each finding of --check on
    src lies at or inside a place redact changed (a stripped block holds its findings). Returns
    the number of changed places."""
    doc = check_json(src, ("--max-findings", "100000000") + tuple(extra))
    shown = [d for t in doc["traces"] for d in t["shown"]]
    if len(shown) != doc["findings"]:
        fail("%s: --check showed %d of %d findings" % (where, len(shown), doc["findings"]))
    flagged = {d["path"] for d in shown}
    changed = changed_paths(raw, red)
    missed = [(p, w) for p, w in changed if p not in flagged]
    if missed:
        fail("%s: redact changed %d place(s) that --check on the input does not flag, e.g. %r"
             % (where, len(missed), missed[:5]))
    tops = {p for p, _ in changed}
    unchanged = [(d["path"], d["rule"]) for d in shown if not _under(d["path"], tops)]
    if unchanged:
        fail("%s: --check flags %d place(s) that redact leaves as they are, e.g. %r"
             % (where, len(unchanged), unchanged[:5]))
    return len(changed)
