#!/usr/bin/env python3
"""tests/parser/hostile_cli.py: hostile inputs end to end (docs/robustness.md): a damaged gzip is
an error naming the member and the compressed byte (also under --strict), cut .xz/.zst/.bz2 and
NUL-byte inputs say what they are, extreme timestamps give no negative span, idle or busy time
(and no undefined behaviour: the ASan+UBSan build halts on any), symbolic link loops in a
directory are skipped and reported, running out of memory says so and exits 2, and the number of ProfilerStep#N annotations costs linear
time (CPU time for 4x the steps must stay well under the 16x of a quadratic scan)."""
import gzip, json, os, resource, shutil, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
failures = []


def run(*args, stdin=None):
    return subprocess.run([KS, *args], input=stdin, capture_output=True)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def trace(events, **top):
    return json.dumps(dict(top, traceEvents=events)).encode()


def x(name, ts, dur, cat="cpu_op", pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


tmp = tempfile.mkdtemp(prefix="ks_hostile_")
try:
    # ---- a damaged gzip: exit 2 with the member and the byte, tolerant and strict -------------
    body = trace([x("aten::mm", i * 10, 5) for i in range(200)])
    good = gzip.compress(body)
    for where, what in ((-8, "CRC-32 mismatch"), (-2, "length (ISIZE) mismatch")):
        bad = bytearray(good)
        bad[len(bad) + where] ^= 0x40
        p = os.path.join(tmp, "damaged.json.gz")
        with open(p, "wb") as f:
            f.write(bad)
        for strict in ([], ["--strict"]):
            r = run("stats", *strict, p)
            err = r.stderr.decode()
            check(r.returncode == 2, f"damaged gzip {what} {strict}: exit {r.returncode}")
            check(what in err and "gzip member 1" in err and "compressed byte" in err,
                  f"damaged gzip {what} {strict}: message {err!r}")
        r = run("stats", "-", stdin=bytes(bad))
        check(r.returncode == 2 and what in r.stderr.decode(), f"damaged gzip on stdin: {r.stderr!r}")
    r = run("stats", "-", stdin=good)
    check(r.returncode == 0, f"intact gzip on stdin: {r.stderr!r}")

    # ---- cut compressed streams and NUL bytes are not "empty input" ---------------------------
    for tool in ("xz", "zstd", "bzip2", "gzip"):
        if not shutil.which(tool):
            continue
        z = subprocess.run([tool, "-c"], input=body, capture_output=True).stdout
        p = os.path.join(tmp, "cut." + tool)
        with open(p, "wb") as f:
            f.write(z[: len(z) // 3])
        r = run("stats", "--strict", p)
        err = r.stderr.decode()
        check(r.returncode == 2 and "empty input" not in err, f"cut {tool}: {r.returncode} {err!r}")
    p = os.path.join(tmp, "zeros.json")
    with open(p, "wb") as f:
        f.write(b"\0" * 10000)
    r = run("stats", p)
    check(r.returncode == 2 and "NUL bytes" in r.stderr.decode(), f"NUL bytes: {r.stderr!r}")
    if os.path.exists("/dev/zero"):
        r = subprocess.run([KS, "stats", "/dev/zero"], capture_output=True, timeout=60)
        check(r.returncode == 2 and "NUL bytes" in r.stderr.decode(), f"/dev/zero: {r.stderr!r}")
    p = os.path.join(tmp, "empty.json")
    open(p, "wb").close()
    r = run("stats", p)
    check(r.returncode == 2 and "empty input" in r.stderr.decode(), f"empty file: {r.stderr!r}")

    # ---- extreme timestamps: spans saturate, nothing negative, no signed overflow -------------
    lo, hi = -9223372036854000, 9223372036850000  # us: the ends of the int64 ns range
    ev = [x("ProfilerStep#1", lo, 1, cat="user_annotation"),
          x("aten::mm", lo + 1000, 9223372036854),
          x("cudaLaunchKernel", lo + 2000, 1, cat="cuda_runtime", correlation=7),
          x("gemm", lo + 3000, -lo + hi, cat="kernel", pid=0, tid=7, correlation=7, device=0, stream=7),
          x("gemm", hi - 50000, 54000, cat="kernel", pid=0, tid=7, device=0, stream=7),
          x("ProfilerStep#2", hi, 4775, cat="user_annotation")]
    p = os.path.join(tmp, "extreme.json")
    with open(p, "wb") as f:
        f.write(trace(ev, baseTimeNanoseconds=1700000000000000000))
    r = run("analyze", "--format", "json", p)
    check(r.returncode == 0, f"extreme timestamps: exit {r.returncode} {r.stderr[-400:]!r}")
    if r.returncode == 0:
        d = json.loads(r.stdout)
        t = d["traces"][0] if "traces" in d else d
        w = t["window"]
        check(w["span_ns"] >= 0 and w["end_ns"] >= w["start_ns"], f"window {w}")
        for g in t["gpu"]:
            for k in ("span_ns", "busy_ns", "idle_ns", "kernel_ns"):
                check(g[k] >= 0, f"gpu {k} = {g[k]}")
            check(g["busy_ns"] <= g["span_ns"], f"busy {g['busy_ns']} > span {g['span_ns']}")
        for k in t["kernels"]:
            check(k.get("total_ns", 0) >= 0, f"kernel total {k}")
    for cmd in (["stats"], ["stats", "--format", "json"], ["analyze"], ["whatif"]):
        r = run(*cmd, p)
        check(r.returncode in (0, 2) and b"runtime error" not in r.stderr, f"{cmd} on extreme: {r.stderr[-400:]!r}")

    # ---- symbolic link loops in a directory: skipped and reported -----------------------------
    d = os.path.join(tmp, "tree")
    os.makedirs(os.path.join(d, "sub"))
    with open(os.path.join(d, "a.json"), "wb") as f:
        f.write(body)
    os.symlink("..", os.path.join(d, "sub", "up"))
    os.symlink("self", os.path.join(d, "self"))
    r = run("stats", d)
    err = r.stderr.decode()
    check(r.returncode == 0 and r.stdout.count(b"\n== ") + r.stdout.startswith(b"== ") == 1,
          f"loop dir: exit {r.returncode}, {err!r}")
    check("sub/up: skipped: a symbolic link loop" in err and "self: skipped" in err, f"loop dir: {err!r}")

    # ---- out of memory: a clear message and exit 2 (not under ASan: it needs the address space)
    with open(KS, "rb") as f:
        asan = b"__asan_init" in f.read()
    if not asan:
        p = os.path.join(tmp, "big.json")
        with open(p, "wb") as f:
            f.write(trace([x(f"op{i}", i, 1, tid=i) for i in range(300000)]))
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))
        r = subprocess.run([KS, "stats", p], capture_output=True, preexec_fn=limit)
        err = r.stderr.decode()
        check(r.returncode == 2 and err.startswith("kinesift: out of memory while reading " + p) and err.count("\n") == 1,
              f"out of memory: exit {r.returncode} {err[-300:]!r}")

    # ---- many ProfilerStep#N: linear time ----------------------------------------------------
    def cpu_of(n):
        p = os.path.join(tmp, f"steps{n}.json")
        with open(p, "wb") as f:
            f.write(trace([x(f"ProfilerStep#{i}", i * 10, 9, cat="user_annotation") for i in range(n)]
                          + [x("aten::add", i * 10 + 1, 2) for i in range(n)]))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = run("analyze", "--format", "json", p)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        check(r.returncode == 0, f"{n} steps: exit {r.returncode}")
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    small, large = cpu_of(10000), cpu_of(40000)
    print(f"10 000 steps {small:.2f} s CPU, 40 000 steps {large:.2f} s CPU")
    check(large < 9 * max(small, 0.05), f"steps: 4x the steps took {large / max(small, 1e-9):.1f}x the CPU time")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ok")
