#!/usr/bin/env python3
"""tests/cli/heap.py: the command's heap on huge pages (cli/heap.c, docs/performance.md).

What: `--timings` names the heap's state on its last line; KINESIFT_HUGE_HEAP=1 runs the command
again with glibc.malloc.hugetlb (where the build and the machine allow it: otherwise the line says
why not, one of the known reasons, and the checks of the run again are skipped), =0 never, and
unset it does so for inputs of 16 MiB or more (a plain file, a gzip by the size its trailer gives,
an xz counted 12 times its size, the trace files of a directory at any depth, as the command reads
them) and not for smaller ones, a directory's other files, or standard input; smaller inputs of
known size (from 256 KiB up, counted together) have the heap's first 32 MiB on huge pages in the
process instead (=0: not either),
standard input not, and the threads' malloc arenas with it (--threads 4 adds few page faults
to --threads 1); either way the heap's top starts on a 2 MiB boundary (the line says so only
where the command found it there); a GLIBC_TUNABLES that names glibc.malloc.hugetlb is left as
it is. The standard output is byte for byte the same either way (text and JSON), and the huge
pages take (fewer page faults: run again, also after a GLIBC_TUNABLES entry that glibc cannot
parse, and in the process). What the command runs itself (validate's commands) sees the user's
GLIBC_TUNABLES, unset or set, and no trace of the run again; the process keeps its name for ps
(the kernel would call it "exe").
Why: running again must change nothing but the memory's page size, and must not leak the tunables
into the user's own workloads, which validate times. Standard library only; KINESIFT and KS_CORPUS
from meson."""
import gzip
import lzma
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile

KS = os.environ["KINESIFT"]
CORPUS = os.environ["KS_CORPUS"]
SMALL = os.path.join(CORPUS, "hta", "critical_path", "alexnet", "benchmark_result_2869224_1695835535_trace.json.gz")
HUGE = ("huge pages (run again with GLIBC_TUNABLES glibc.malloc.hugetlb=1:glibc.malloc.top_pad=4194304;"
        " the heap from a 2 MiB boundary)")
RESERVED = "huge pages (the heap's first 32 MiB from a 2 MiB boundary, in the process: inputs under 16 MiB)"
UNKNOWN = "4 KiB pages (standard input or a list: its size unknown)"
TINY = "4 KiB pages (inputs under 256 KiB: fewer faults than a 2 MiB page costs)"
NOT_HERE = ("4 KiB pages (a sanitizer's allocator)", "4 KiB pages (not glibc on Linux)",
            "4 KiB pages (glibc before 2.35)", "4 KiB pages (transparent huge pages off)",
            "4 KiB pages (under valgrind)")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def env_with(**kv):
    env = {k: v for k, v in os.environ.items()
           if k not in ("KINESIFT_HUGE_HEAP", "GLIBC_TUNABLES", "KINESIFT_HEAP_RUN")}
    for k, v in kv.items():
        if v is not None:
            env[k] = v
    return env


def run(args, env, stdin=None):
    return subprocess.run([KS, *args], capture_output=True, env=env, input=stdin, timeout=300)


def heap_line(stderr):
    lines = [l for l in stderr.decode().splitlines() if l.startswith("  heap: ")]
    check(len(lines) == 1, f"one heap line in --timings: {lines}")
    return lines[0][len("  heap: "):] if lines else ""


def state(path, **kv):
    r = run(["analyze", "--timings", "--quiet", "--format", "json", path], env_with(**kv))
    check(r.returncode == 0, f"analyze --timings {path} {kv}: exit {r.returncode} {r.stderr[-300:]!r}")
    return heap_line(r.stderr)


def thp_always():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[always]" in f.read()
    except OSError:
        return False


def faults(path, env, *args):
    """The minor page faults of `analyze --format json path` (the least of 3 runs), without
    MALLOC_PERTURB_ (meson sets it: malloc then fills the blocks the command keeps unwritten)."""
    env = {k: v for k, v in env.items() if k != "MALLOC_PERTURB_"}
    least = None
    for _ in range(3):
        p = subprocess.Popen([KS, "analyze", "--quiet", "--format", "json", *args, path], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        least = ru.ru_minflt if least is None else min(least, ru.ru_minflt)
    return least


def trace_text(pad, rnd=True):
    """A small valid trace, its one event's arg `pad` long: random (gzip cannot shrink it much), or
    one letter repeated (it shrinks to almost nothing)."""
    letters = (string.ascii_letters + string.digits).encode()
    table = bytes(letters[i % len(letters)] for i in range(256))
    blob = random.Random(7).randbytes(pad).translate(table).decode() if rnd else "a" * pad
    return ('{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2,'
            '"args":{"blob":"%s"}}]}\n' % blob)


def main():
    forced = state(SMALL, KINESIFT_HUGE_HEAP="1")
    here = forced == HUGE
    check(here or forced in NOT_HERE, f"KINESIFT_HUGE_HEAP=1: the run again, or a known reason: {forced!r}")
    if not here:
        print(f"heap.py: no run again here ({forced}): those checks skipped", file=sys.stderr)
    off = state(SMALL, KINESIFT_HUGE_HEAP="0")
    check(off == ("4 KiB pages (KINESIFT_HUGE_HEAP=0)" if here else forced), f"KINESIFT_HUGE_HEAP=0: {off!r}")
    if here:
        check(state(SMALL) == RESERVED, "a small input: not run again, the heap reserved in the process")
        check(state(SMALL, GLIBC_TUNABLES="glibc.malloc.hugetlb=0") ==
              "4 KiB pages (GLIBC_TUNABLES names glibc.malloc.hugetlb: as it says)", "the user's hugetlb stands")

    # the same output either way
    for fmt in (["--format", "json"], []):
        outs = [run(["analyze", "--quiet", *fmt, SMALL], env_with(KINESIFT_HUGE_HEAP=v)) for v in ("0", "1")]
        check(all(o.returncode == 0 for o in outs), f"analyze {fmt}: exit codes {[o.returncode for o in outs]}")
        check(outs[0].stdout == outs[1].stdout and outs[0].stdout, f"analyze {fmt}: the same stdout run again")
        check(outs[0].stderr == outs[1].stderr, f"analyze {fmt}: the same stderr run again")

    tmp = tempfile.mkdtemp(prefix="ks-heap-")
    try:
        big = os.path.join(tmp, "big.json")  # 16 MiB and more on disk
        with open(big, "w") as f:
            f.write(trace_text((16 << 20) + 1000))
        packed = os.path.join(tmp, "packed.json.gz")  # 17 MiB in a few KB of gzip
        with gzip.open(packed, "wt") as f:
            f.write(trace_text(17 << 20, rnd=False))
        small_gz = os.path.join(tmp, "small.json.gz")  # 15 MiB in a few KB
        with gzip.open(small_gz, "wt") as f:
            f.write(trace_text(15 << 20, rnd=False))
        xz = os.path.join(tmp, "packed.json.xz")  # 1.5 MiB of xz: 18 MiB as counted
        with lzma.open(xz, "wt") as f:
            f.write(trace_text(2 << 20))
        small_xz = os.path.join(tmp, "small.json.xz")  # 0.4 MiB: 4.5 MiB as counted
        with lzma.open(small_xz, "wt") as f:
            f.write(trace_text(500 << 10))
        d = os.path.join(tmp, "dir")
        os.mkdir(d)
        shutil.copy(big, os.path.join(d, "rank0.json"))
        nested = os.path.join(tmp, "job")  # job/node0/rank0.json: the command reads it
        os.makedirs(os.path.join(nested, "node0"))
        shutil.copy(big, os.path.join(nested, "node0", "rank0.json"))
        other = os.path.join(tmp, "other")  # a small trace beside 17 MiB that is not one
        os.mkdir(other)
        with open(os.path.join(other, "rank0.json"), "w") as f:
            f.write(trace_text(100))
        with open(os.path.join(other, "weights.bin"), "wb") as f:
            f.write(b"\0" * (17 << 20))
        tiny = os.path.join(tmp, "tiny.json")  # under 256 KiB
        with open(tiny, "w") as f:
            f.write(trace_text(100))
        pair = os.path.join(tmp, "pair")  # two traces of 150 KB: 300 KB together
        os.mkdir(pair)
        for r in (0, 1):
            with open(os.path.join(pair, "rank%d.json" % r), "w") as f:
                f.write(trace_text(150 << 10))
        check(os.path.getsize(packed) < (1 << 20) and os.path.getsize(xz) > (16 << 20) // 12,
              f"inputs of {os.path.getsize(packed)} and {os.path.getsize(xz)} bytes")
        if here:
            check(state(big) == HUGE, "a plain input of 16 MiB: run again")
            check(state(packed) == HUGE, "a gzip of 17 MiB by its trailer: run again")
            check(state(small_gz) == RESERVED, "a gzip of 15 MiB: not run again")
            check(state(xz) == HUGE, "an xz counted 12 times its size: run again")
            check(state(small_xz) == RESERVED, "an xz of 0.4 MiB: not run again")
            check(state(d) == HUGE, "a directory of 16 MiB: run again")
            check(state(nested) == HUGE, "a trace of 16 MiB in a directory's directory: run again")
            check(state(other) == TINY, "a directory whose 17 MiB are not a trace: its small trace alone counted")
            check(state(tiny) == TINY, "an input under 256 KiB: 4 KiB pages, not reserved")
            check(state(pair) == RESERVED, "two traces of 150 KB: counted together, reserved")
            r = run(["analyze", "--timings", "--quiet", "--format", "json", "-"], env_with(), stdin=open(big, "rb").read())
            check(r.returncode == 0 and heap_line(r.stderr) == UNKNOWN,
                  "standard input: its size unknown, not run again, not reserved")
            a = run(["analyze", "--quiet", "--format", "json", big], env_with(KINESIFT_HUGE_HEAP="0"))
            b = run(["analyze", "--quiet", "--format", "json", big], env_with())
            check(a.returncode == 0 and a.stdout == b.stdout, "the big input: the same JSON run again")
            # the tunables took: fewer page faults (the 16 MiB string is kept in the heap), also
            # after a GLIBC_TUNABLES entry that glibc cannot parse
            small_pages = faults(big, env_with(KINESIFT_HUGE_HEAP="0"))
            for user in (None, "garbage") if not thp_always() else ():  # always: both on huge pages
                f = faults(big, env_with(GLIBC_TUNABLES=user))
                check(f < 0.8 * small_pages,
                      f"huge pages with GLIBC_TUNABLES {user!r}: {f} page faults, {small_pages} in 4 KiB pages")
            # in the process: a real 1.7 MB trace, the same JSON, fewer faults (its tables and
            # store in the heap's huge pages)
            mid = os.path.join(CORPUS, "hta", "trace_filter", "sampled_rank-1.json.gz")
            check(state(mid) == RESERVED and state(mid, KINESIFT_HUGE_HEAP="0") == "4 KiB pages (KINESIFT_HUGE_HEAP=0)",
                  "a 1.7 MB input: reserved in the process, not with KINESIFT_HUGE_HEAP=0")
            a = run(["analyze", "--quiet", "--format", "json", mid], env_with(KINESIFT_HUGE_HEAP="0"))
            b = run(["analyze", "--quiet", "--format", "json", mid], env_with())
            check(a.returncode == 0 and a.stdout == b.stdout and a.stdout, "the 1.7 MB input: the same JSON reserved")
            if not thp_always():
                small_pages = faults(mid, env_with(KINESIFT_HUGE_HEAP="0"))
                f = faults(mid, env_with())
                check(f < 0.8 * small_pages, f"reserved in the process: {f} page faults, {small_pages} in 4 KiB pages")
                # the threads' arenas on huge pages too: three more threads add few faults (in 4 KiB
                # pages they add ~200)
                small = [faults(mid, env_with(KINESIFT_HUGE_HEAP="0"), "--threads", n) for n in ("1", "4")]
                huge = [faults(mid, env_with(), "--threads", n) for n in ("1", "4")]
                check(huge[1] - huge[0] < 0.4 * (small[1] - small[0]),
                      f"the threads' arenas on huge pages: --threads 4 adds {huge[1] - huge[0]} page faults "
                      f"to --threads 1, {small[1] - small[0]} in 4 KiB pages")

        # what validate runs sees the user's environment
        for user in (None, "glibc.malloc.arena_max=4"):
            out = os.path.join(tmp, "env.txt")
            cmd = ("env > %s; cat /proc/$PPID/comm > %s.comm; for i in 1 2 3 4 5 6; do echo kinesift-sample 30; done"
                   % (out, out))
            r = run(["validate", "--baseline-cmd", cmd, "--candidate-cmd", cmd, "--runs", "1",
                     "--max-runs", "1"], env_with(KINESIFT_HUGE_HEAP="1", GLIBC_TUNABLES=user))
            check(os.path.exists(out), f"validate ran its command (exit {r.returncode}, {r.stderr[-300:]!r})")
            if not os.path.exists(out):
                continue
            seen = dict(l.split("=", 1) for l in open(out).read().splitlines() if "=" in l)
            check(seen.get("GLIBC_TUNABLES") == user,
                  f"validate's command sees GLIBC_TUNABLES {seen.get('GLIBC_TUNABLES')!r}, the user's {user!r}")
            check("KINESIFT_HEAP_RUN" not in seen, "no KINESIFT_HEAP_RUN in validate's command")
            comm = open(out + ".comm").read().strip() if os.path.exists(out + ".comm") else ""
            want = os.path.basename(KS)[:15]
            check(comm == want, f"the command's name for ps: {comm!r}, wanted {want!r} (the kernel's is 'exe')")
            os.unlink(out)
    finally:
        shutil.rmtree(tmp)

    if failures:
        print(f"heap.py: {len(failures)} failed", file=sys.stderr)
        return 1
    print("heap.py: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
