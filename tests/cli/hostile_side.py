#!/usr/bin/env python3
"""tests/cli/hostile_side.py: hostile side inputs and outputs end to end (docs/robustness.md).

Side inputs (summaries, budgets, validate results, redaction rules, nvidia-smi CSV, @LIST): a
document nested far deeper than anything kinesift writes is refused with one line before a tree
is built (it overflowed the stack when the tree was freed, exit 139), a decompression bomb or an
endless input stops at its size limit with one line, exit 2. Run under ASan+UBSan too."""
import gzip, json, os, stat, subprocess, sys, tempfile, time, zlib

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

    # ---- outputs: never a device node, never an input, never a silent failed write -----------
    d = os.path.join(tmp, "out")
    os.makedirs(d)
    dev = os.path.join(d, "nulldev")
    have_dev = True
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:  # not root: a FIFO is a node a rename would replace too
        have_dev = False
        os.mkfifo(dev)
    before = os.stat(dev)
    t2 = write(os.path.join(tmp, "t2.json"), trace(40, "aten::add"))
    for cmd in (["diff", t, t2, "--output", dev], ["gate", "-b", t, "-c", t2, "--json", dev],
                ["gate", "-b", t, "-c", t2, "--junit", dev], ["gate", "-b", t, "-c", t2, "--markdown", dev],
                ["redact", t, "-o", os.path.join(d, "red.json"), "--report-json", dev]):
        r = run(*cmd)
        after = os.stat(dev)
        check(r.returncode == 2 and b"not a regular file" in r.stderr and after.st_mode == before.st_mode and
              after.st_ino == before.st_ino, f"{cmd[0]} onto a device node: {r.returncode} {r.stderr[-300:]!r}")
    # an input reached through a directory or an @LIST
    D, E = os.path.join(tmp, "D"), os.path.join(tmp, "E")
    os.makedirs(D)
    os.makedirs(E)
    r0 = write(os.path.join(D, "r0.json"), trace())
    write(os.path.join(E, "r0.json"), trace(40, "aten::add"))
    lst = write(os.path.join(tmp, "list.txt"), (r0 + "\n").encode())
    keep = open(r0, "rb").read()
    for cmd in (["report", D, "-o", r0, "--force", "--quiet"], ["report", "@" + lst, "-o", r0, "--force", "--quiet"],
                ["diff", D, E, "--output", r0], ["diff", "@" + lst, E, "--output", r0],
                ["gate", "-b", "@" + lst, "-c", E, "--json", r0],
                ["summarize", "@" + lst, "-o", os.path.join(tmp, "l.kss.json")],  # not an input: passes
                ["report", "@" + lst, "-o", lst, "--force", "--quiet"]):  # the list file itself
        r = run(*cmd)
        ok = r.returncode == 0 if cmd[0] == "summarize" else \
            (r.returncode == 2 and b"is an input" in r.stderr and open(r0, "rb").read() == keep and
             open(lst, "rb").read() == (r0 + "\n").encode())
        check(ok, f"{' '.join(cmd)}: {r.returncode} {r.stderr[-300:]!r}")
    # standard output appended onto an input (a shell's >>)
    for cmd in (["redact", r0], ["redact", r0, "-o", "-"], ["analyze", r0], ["stats", D], ["ranks", "@" + lst],
                ["whatif", r0, "--shrink", "aten::mm=0.5"]):
        with open(r0, "ab") as out:
            r = subprocess.run([KS, *cmd], stdout=out, stderr=subprocess.PIPE, timeout=120)
        check(r.returncode == 2 and b"standard output is an input" in r.stderr and open(r0, "rb").read() == keep,
              f"{' '.join(cmd)} >> input: {r.returncode} {r.stderr[-300:]!r}")
    # a full disk, /dev/full: one line naming the output, exit 2
    if os.path.exists("/dev/full"):
        for cmd in (["whatif", t, "--shrink", "aten::mm=0.5"], ["whatif", t, "--shrink", "aten::mm=0.5", "--format", "json"],
                    ["ranks", t], ["analyze", t], ["stats", t], ["diff", t, t2], ["gate", "-b", t, "-c", t2],
                    ["redact", t, "-o", "-"]):
            with open("/dev/full", "wb") as out:
                r = subprocess.run([KS, *cmd], stdout=out, stderr=subprocess.PIPE, timeout=120)
            err = r.stderr.decode()
            check(r.returncode == 2 and "cannot write standard output: No space left on device" in err and
                  len(err.strip().splitlines()) <= 2,
                  f"{' '.join(cmd)} > /dev/full: {r.returncode} {err[-300:]!r}")

    def small_fsize():  # a file system that fills after 4 KiB: writes fail with EFBIG
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    big = trace(400)
    tb, tb2 = write(os.path.join(tmp, "tb.json"), big), write(os.path.join(tmp, "tb2.json"), trace(400, "aten::add"))
    # the inputs are written before the limit applies; outputs of more than 4 KiB fail
    for cmd, out in ((["diff", tb, tb2, "--format", "json", "--output", os.path.join(d, "diff.json")], "diff.json"),
                     (["gate", "-b", tb, "-c", tb2, "--json", os.path.join(d, "gate.json")], "gate.json"),
                     (["whatif", tb, "--shrink", "aten::mm=0.5", "--format", "json"], None)):
        if out:
            r = subprocess.run([KS, *cmd], capture_output=True, preexec_fn=small_fsize, timeout=120)
        else:
            with open(os.path.join(d, "whatif.json"), "wb") as so:
                r = subprocess.run([KS, *cmd], stdout=so, stderr=subprocess.PIPE, preexec_fn=small_fsize, timeout=120)
        err = r.stderr.decode()
        named = ("cannot write %s" % os.path.join(d, out)) if out else "cannot write standard output"
        check(r.returncode == 2 and named in err and "File too large" in err and
              (not out or not os.path.exists(os.path.join(d, out))), f"{cmd[0]} on a full disk: {r.returncode} {err[-300:]!r}")

    # ---- temporaries: 0600 until in place; a SIGKILL leaves nothing readable by others --------
    body = json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "op /home/alice/x %d" % i, "pid": 1,
                                        "tid": 1, "ts": i, "dur": 1} for i in range(100000)]}).encode()
    for no_tmpfile in ("1", "0"):
        kd = os.path.join(tmp, "kill" + no_tmpfile)
        os.makedirs(kd)
        env = dict(os.environ, KINESIFT_NO_O_TMPFILE=no_tmpfile)
        p = subprocess.Popen([KS, "redact", "-", "-o", os.path.join(kd, "o.json")], stdin=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env)
        p.stdin.write(body[:len(body) // 2])
        p.stdin.flush()
        deadline = time.time() + 60
        while time.time() < deadline and no_tmpfile == "1" and not os.listdir(kd):
            time.sleep(0.05)
        time.sleep(0.5)
        p.kill()
        p.wait()
        p.stdin.close()
        left = [(f, os.stat(os.path.join(kd, f)).st_mode & 0o777) for f in os.listdir(kd)]
        check(all(m & 0o077 == 0 for _, m in left) and (no_tmpfile == "1" or not left),
              f"after SIGKILL (KINESIFT_NO_O_TMPFILE={no_tmpfile}): {left}")
        if no_tmpfile == "1":
            check(len(left) == 1, f"the named temporary was there to test: {left}")
    # a finished output has the usual mode of a new file
    for no_tmpfile in ("1", "0"):
        o = os.path.join(d, "mode%s.json" % no_tmpfile)
        r = subprocess.run([KS, "redact", t, "-o", o], capture_output=True,
                           env=dict(os.environ, KINESIFT_NO_O_TMPFILE=no_tmpfile),
                           preexec_fn=lambda: os.umask(0o027))
        check(r.returncode == 0 and os.stat(o).st_mode & 0o777 == 0o640,
              f"output mode under umask 027: {r.returncode} {oct(os.stat(o).st_mode) if os.path.exists(o) else None}")

    # ---- endless side inputs: /dev/zero as an nvidia-smi CSV or an @LIST --------------------
    if os.path.exists("/dev/zero"):
        r = run("analyze", "--smi", "/dev/zero", "--smi-tz", "UTC", t, timeout=60)
        check(one_line_error(r, "/dev/zero", "NUL byte"), f"analyze --smi /dev/zero: {r.returncode} {r.stderr[-300:]!r}")
        r = run("analyze", "@/dev/zero", timeout=60)
        check(one_line_error(r, "@/dev/zero", "NUL byte"), f"analyze @/dev/zero: {r.returncode} {r.stderr[-300:]!r}")
    # endless lines without a NUL: the size limits
    p = subprocess.Popen(["sh", "-c", "yes 'x,y,z' | exec \"$0\" analyze --smi /dev/stdin --smi-tz UTC \"$1\"", KS, t],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = p.communicate(timeout=300)
    check(p.returncode == 2 and b"not an nvidia-smi CSV" in err, f"analyze --smi endless: {p.returncode} {err[-300:]!r}")
    p = subprocess.Popen(["sh", "-c", "yes '# comment' | exec \"$0\" analyze @/dev/stdin", KS],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = p.communicate(timeout=300)
    check(p.returncode == 2 and b"larger than 16 MiB" in err, f"analyze @endless: {p.returncode} {err[-300:]!r}")
    # a NUL byte in an @LIST line: an error, never a cut path
    nl = write(os.path.join(tmp, "nul.lst"), t.encode() + b"\0/\n")
    r = run("stats", "@" + nl)
    check(one_line_error(r, "nul.lst", "line 1: NUL byte"), f"NUL byte in an @LIST: {r.returncode} {r.stderr[-300:]!r}")

    # ---- tampered summaries: every field against the writer's laws ---------------------------
    doc = json.loads(line1)
    doc2 = json.loads(line2)

    def tampered(name, **changes):
        d = dict(doc, **changes)
        return write(os.path.join(tmp, name + ".kss.json"), json.dumps(d).encode() + b"\n" + line2 + b"\n")
    span = max(doc["gpu_span_ns"], 1)
    cases = {
        "busy-over-span": dict(gpu_busy_ns=span * 5 * 10**6, gpu_span_ns=span),
        "negative-compute": dict(compute_ns=-5),
        "exposed-over-comm": dict(exposed_communication_ns=doc["communication_ns"] + 1),
        "median-not-quantile": dict(step_median_ns=doc["step_median_ns"] + 1),
        "negative-host-wait": dict(host_wait_ns=-7),
        "rank-past-world": dict(distributed_rank=9, world_size=4),
    }
    for name, ch in cases.items():
        p = tampered(name, **ch)
        for cmd in ("ranks", "analyze"):
            r = run(cmd, p)
            check(one_line_error(r, name, "tampered"), f"{cmd} of a tampered summary ({name}): {r.returncode} {r.stderr[-300:]!r}")
    # terminal codes in the report a summary keeps: escaped, never replayed; the error line of a
    # name with a newline and an escape stays one line
    esc = dict(doc2)
    esc["analyze"] = dict(doc2["analyze"], text="\x1b]0;owned\x07\x1b[2J report\n", csv="a,\x1b[31m,b\n")
    p = write(os.path.join(tmp, "esc.kss.json"), line1 + b"\n" + json.dumps(esc).encode() + b"\n")
    for fmt in ("text", "csv"):
        r = run("analyze", "--format", fmt, p)
        check(r.returncode == 0 and b"\x1b" not in r.stdout and b"\\x1b" in r.stdout,
              f"analyze --format {fmt} of a summary with terminal codes: {r.returncode} {r.stdout[:200]!r}")
    import tarfile, io
    tp = os.path.join(tmp, "members.tar")
    with tarfile.open(tp, "w") as tf:
        bad = b"{not json"
        ti = tarfile.TarInfo("evil\x1b[2J\nrank0.json")
        ti.size = len(bad)
        tf.addfile(ti, io.BytesIO(bad))
    r = run("stats", tp)
    err = r.stderr
    check(r.returncode == 2 and b"\x1b" not in err and len(err.strip().split(b"\n")) == 1 and b"\\x1b" in err,
          f"an archive member's name with control characters in an error line: {r.returncode} {err!r}")
finally:
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print("%d failure(s)" % len(failures), file=sys.stderr)
    sys.exit(1)
print("ok")
