#!/usr/bin/env python3
"""tests/parser/hostile_cli.py: hostile inputs end to end (docs/robustness.md): a damaged gzip is
an error naming the member and the compressed byte (also under --strict), cut and damaged
.xz/.zst/.bz2/.gz name their codec and the compressed byte (never "empty input"), a compressed
empty file is an empty input (never "damaged"), NUL-byte inputs
say what they are, extreme timestamps give no negative span, idle or busy time
(and no undefined behaviour: the ASan+UBSan build halts on any), symbolic link loops in a
directory are skipped and reported, running out of memory says so and exits 2, and the number of ProfilerStep#N annotations costs linear
time (CPU time for 4x the steps must stay well under the 16x of a quadratic scan)."""
import bz2, gzip, json, lzma, os, re, resource, shutil, subprocess, sys, tempfile

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

    # ---- cut and damaged .xz/.zst/.bz2/.gz: the codec, what is wrong and the compressed byte ----
    # Fixtures made here: python's lzma, bz2 and gzip; zstd through its CLI when present.
    big = trace([x("aten::mm%d" % (i % 7), i * 10, 5) for i in range(3000)])
    codecs = {"xz": lzma.compress, "bzip2": bz2.compress, "gzip": gzip.compress}
    if shutil.which("zstd"):
        codecs["zstd"] = lambda b: subprocess.run(["zstd", "-c", "--check"], input=b,
                                                  capture_output=True, check=True).stdout
    else:
        print("hostile_cli: no zstd command: the zstd cases are skipped", file=sys.stderr)

    def xz_check_at(z):
        """Offset of the block check (CRC-64) of a one-block .xz: before the index."""
        index_size = (int.from_bytes(z[-8:-4], "little") + 1) * 4
        return len(z) - 12 - index_size - 8

    # where the integrity check the codec offers lies (a flipped byte there is only caught by it)
    check_at = {"xz": xz_check_at, "bzip2": lambda z: len(z) - 3,  # stream CRC
                "gzip": lambda z: len(z) - 8,                        # CRC-32 trailer
                "zstd": lambda z: len(z) - 1}                        # content checksum
    for codec, compress in codecs.items():
        z = compress(big)
        for cut in (12, len(z) // 2):  # a cut shorter than any block, and one mid-stream
            p = os.path.join(tmp, "cut_%s_%d" % (codec, cut))
            with open(p, "wb") as f:
                f.write(z[:cut])
            r = run("stats", "--strict", p)
            err = r.stderr.decode()
            check(r.returncode == 2 and "empty input" not in err and codec in err and
                  "truncated at compressed byte %d" % cut in err, f"cut {codec} at {cut}: {err!r}")
        if codec != "gzip":  # standard input: the same words (gzip's are checked above)
            r = run("stats", "--strict", "-", stdin=z[:len(z) // 2])
            check(r.returncode == 2 and "truncated at compressed byte %d" % (len(z) // 2) in r.stderr.decode(),
                  f"cut {codec} on stdin: {r.stderr!r}")
        # a compressed empty file is empty, not damaged: every codec, as a file and on stdin
        p = os.path.join(tmp, "nothing_" + codec)
        with open(p, "wb") as f:
            f.write(compress(b""))
        for r in (run("stats", p), run("stats", "-", stdin=compress(b""))):
            err = r.stderr.decode()
            check(r.returncode == 2 and "empty input" in err and "damaged" not in err and
                  (codec == "gzip" or codec in err), f"empty {codec}: {err!r}")
        at = check_at[codec](z)
        bad = bytearray(z)
        bad[at] ^= 0x10
        p = os.path.join(tmp, "damaged_" + codec)
        with open(p, "wb") as f:
            f.write(bad)
        for strict in ([], ["--strict"]):
            r = run("stats", *strict, p)
            err = r.stderr.decode()
            # where the decoder found it: near the damaged byte (each codec reads ahead a little,
            # libbz2 to the end of its stream), or "in its first N" bytes when the open found it
            m = re.search(r"(found at compressed byte|in its first|at compressed byte) (\d+)", err)
            where = m and (at - 128 <= int(m.group(2)) <= len(z) if m.group(1) != "in its first" else
                           at < int(m.group(2)) <= len(z))
            check(r.returncode == 2 and codec in err and "damaged" in err and bool(where),
                  f"damaged {codec} {strict} at {at} of {len(z)}: {err!r}")
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
    # 10^6 one-event threads need ~250 MB resident even on one thread, well above the 200 MB of
    # address space allowed. (With 300 000, since libarchive and libcrypto are no longer mapped at
    # start, a run under the limit sometimes finished: 2 of 6 runs of the test build at 200 MB, 3 of
    # 8 of the release build at 140 MB; why those runs fitted is not known, `--threads 1` failed
    # at 150 MB every time.)
    with open(KS, "rb") as f:
        asan = b"__asan_init" in f.read()
    if not asan:
        p = os.path.join(tmp, "big.json")
        with open(p, "wb") as f:
            f.write(trace([x(f"op{i}", i, 1, tid=i) for i in range(1000000)]))
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
