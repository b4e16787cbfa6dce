#!/usr/bin/env python3
"""tests/cli/hostile_side.py: hostile side inputs and outputs end to end (docs/robustness.md).

Side inputs (summaries, budgets, validate results, redaction rules, nvidia-smi CSV, @LIST): a
document nested far deeper than anything kinesift writes is refused with one line before a tree
is built (it overflowed the stack when the tree was freed, exit 139), a decompression bomb or an
endless input stops at its size limit with one line, exit 2. Run under ASan+UBSan too."""
import gzip, json, os, subprocess, sys, tempfile, zlib

KS = os.environ["KINESIFT"]
FIX = os.environ.get("KS_FIXTURES") or os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
failures = []


def run(*args, stdin=None, timeout=120, **kw):
    return subprocess.run([KS, *args], input=stdin, capture_output=True, timeout=timeout, **kw)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def one_line_error(r, *words):
    err = r.stderr.decode(errors="replace")
    lines = [l for l in err.splitlines() if l]
    return r.returncode == 2 and len(lines) >= 1 and all(w in err for w in words) and \
        all(l.startswith("kinesift") for l in lines)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def trace(n=40, name="aten::mm"):
    ev = []
    for i in range(n):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1,
                   "tid": 1, "ts": i * 1000, "dur": 900})
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": i * 1000 + 10,
                   "dur": 500})
    return json.dumps({"traceEvents": ev}).encode()


# deep enough that a recursive free of the tree overflows an 8 MiB stack (exit 139 before)
DEEP = 2_500_000

tmp = tempfile.mkdtemp(prefix="ks_hostile_side_")
try:
    t = write(os.path.join(tmp, "t.json"), trace())
    s = os.path.join(tmp, "t.kss.json")
    r = run("summarize", "--quiet", t, "-o", s)
    check(r.returncode == 0, f"summarize: {r.stderr!r}")
    line1, line2 = open(s, "rb").read().split(b"\n")[:2]

    # ---- nesting: every tree read refuses it before building the tree ------------------------
    deep_arr = b"[" * DEEP + b"]" * DEEP
    bombs = {
        # under an unused key of line 1, and inside line 2's report
        "deep1.kss.json.gz": gzip.compress(line1[:-1] + b',"x":' + deep_arr + b"}\n" + line2 + b"\n", 9),
        "deep2.kss.json.gz": gzip.compress(line1 + b'\n{"analyze":{"x":' + deep_arr + b"}}\n", 9),
    }
    for name, data in bombs.items():
        p = write(os.path.join(tmp, name), data)
        check(len(data) < 16384, f"{name}: a small file ({len(data)} bytes)")
        for cmd in (["ranks", p], ["analyze", p], ["report", p, "-o", os.path.join(tmp, "r.html"), "--force"]):
            if name == "deep2.kss.json.gz" and cmd[0] != "analyze":
                continue  # ranks and report read line 1 only
            r = run(*cmd)
            check(one_line_error(r, name, "nested deeper than"), f"{cmd[0]} {name}: exit {r.returncode} {r.stderr[-300:]!r}")
    # one deep summary in a batch: the others are still reported, exit 2
    r = run("ranks", s, os.path.join(tmp, "deep1.kss.json.gz"))
    check(r.returncode == 2 and b"nested deeper" in r.stderr, f"ranks batch with a deep summary: {r.returncode} {r.stderr[-300:]!r}")

    budget = write(os.path.join(tmp, "budget.json"),
                   b'{"schema":"kinesift.budget/1","comment":' + b"[" * DEEP + b"]" * DEEP + b',"checks":[]}')
    r = run("gate", "-b", t, "-c", t, "--budget", budget)
    check(one_line_error(r, "budget.json", "nested deeper than"), f"gate deep budget: {r.returncode} {r.stderr[-300:]!r}")

    vres = write(os.path.join(tmp, "v.json"),
                 b'{"schema":"kinesift.validate/1","x":' + b"[" * DEEP + b"]" * DEEP + b"}")
    r = run("gate", "-b", vres, "-c", vres)
    check(one_line_error(r, "v.json", "nested deeper than"), f"gate deep validate result: {r.returncode} {r.stderr[-300:]!r}")

    rules = write(os.path.join(tmp, "rules.json"), b"[" * 400_000 + b"]" * 400_000)
    r = run("redact", "--rules", rules, t, "-o", os.path.join(tmp, "red.json"))
    check(one_line_error(r, "rules.json", "nested deeper than"), f"redact deep rules: {r.returncode} {r.stderr[-300:]!r}")

    # ---- size: a summary bomb stops at the limit, and so does a tree of tiny values ----------
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [c.compress(line1 + b'\n{"analyze":{"x":"')]
    for _ in range(80):
        parts.append(c.compress(b" " * (1 << 20)))
    parts += [c.compress(b'"}}\n'), c.flush()]
    p = write(os.path.join(tmp, "bomb.kss.json.gz"), b"".join(parts))
    r = run("analyze", p)
    check(one_line_error(r, "bomb.kss.json.gz", "larger than 64 MiB"), f"analyze summary bomb: {r.returncode} {r.stderr[-300:]!r}")
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [c.compress(line1[:-1] + b',"x":"')]
    for _ in range(80):
        parts.append(c.compress(b" " * (1 << 20)))
    parts += [c.compress(b'"}\n'), c.flush()]
    p = write(os.path.join(tmp, "bomb1.kss.json.gz"), b"".join(parts))
    r = run("ranks", p)
    check(one_line_error(r, "bomb1.kss.json.gz", "larger than 64 MiB"), f"ranks summary bomb: {r.returncode} {r.stderr[-300:]!r}")
    p = write(os.path.join(tmp, "values.kss.json"), line1 + b'\n{"analyze":{"x":[' + b"0," * (1 << 20) + b"0]}}\n")
    r = run("analyze", p)
    check(one_line_error(r, "values.kss.json", "more than 1048576 values"), f"analyze values bomb: {r.returncode} {r.stderr[-300:]!r}")
    # an honest summary still reads
    r = run("analyze", s)
    check(r.returncode == 0, f"analyze of an honest summary: {r.stderr!r}")
finally:
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print("%d failure(s)" % len(failures), file=sys.stderr)
    sys.exit(1)
print("ok")
