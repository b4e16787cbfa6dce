#!/usr/bin/env python3
"""bench/blowups.py: time and memory linear in the input for the hostile shapes that were not
(docs/robustness.md). Each shape is built at three sizes, each a multiple of the first; per size
it prints the CPU time (user + system of the one run, os.wait4), the peak RSS and, with
KS_BENCH_CALLGRIND=1, the instructions counted by `valgrind --tool=callgrind` (repeatable on a
loaded machine; the two smaller sizes only, valgrind is slow), and each as a ratio to the
smallest size (and the CPU time to the size before): linear is the size ratio (4, 16),
quadratic its square. The peak RSS has the harness's own as a floor (wait4 counts the process
from its fork). Shapes:
  blanks      a run of blanks between two events of a .json.gz (stats): memory flat
  repairs     one name of 2, 8 and 32 MiB of control characters, tolerant and --strict (stats
              --threads 1): linear, ~12 bytes of peak RSS a repaired byte; --strict stops at the first
              repair, so flat
  gaps        N threads of one process and N GPU idle gaps (analyze --format json): linear
  gaps-open   the same, each thread inside one slice open across every gap (and one short op in
              one gap): linear (threads x gaps before: a thread was split in every gap its slice
              spanned)
  ranks-zip   N tiny ranks in a zip against the same in a directory (ranks -j 1): linear, and a
              few times the directory's cost at every size
  summary-skip    an honest summary (.kss.json.gz) with N MiB of string and N x 16 384 values
              under keys no reader reads, in line 1 and in the analyze report (analyze, ranks):
              memory flat (they are dropped as they pass), time linear
  summary-bomb    no summary: N MiB of string and N x 16 384 values (N = 60: the worst bomb
              within the limits, a 63 KB file of 62 MiB) (analyze): memory flat, time linear
  summary-kept    N x 16 384 values inside the analyze report's JSON trace object, which analyze
              keeps and writes back (analyze --format json): memory linear in what is kept

usage: bench/blowups.py [SHAPE...]   (env: KS_KINESIFT=the binary, default build-test/cli/kinesift;
                                      KS_BENCH_WORK=scratch directory; KS_BENCH_CALLGRIND=1)"""
import atexit, gzip, json, os, re, shutil, subprocess, sys, tempfile, zipfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K = os.environ.get("KS_KINESIFT", os.path.join(ROOT, "build-test", "cli", "kinesift"))
WORK = os.environ.get("KS_BENCH_WORK")
if not WORK:  # a scratch directory of our own goes when the bench ends; the user's is kept
    WORK = tempfile.mkdtemp(prefix="ks-bench-blowups-")
    atexit.register(shutil.rmtree, WORK, True)
CALLGRIND = os.environ.get("KS_BENCH_CALLGRIND") == "1" and shutil.which("valgrind")
MiB = 1 << 20
EV = '{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}'


def measure(args):
    p = subprocess.Popen([K, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def instructions(args):
    out = os.path.join(WORK, "callgrind.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, K, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else None


def row(shape, sizes, make, args, unit):
    base = prev = None
    for i, n in enumerate(sizes):
        path = make(n)
        cpu, rss = measure([*args, path])
        ins = instructions([*args, path]) if CALLGRIND and i < 2 else None
        if base is None:
            base = (n, max(cpu, 1e-3), rss, ins)
        line = (f"{shape:16s} {n:>6} {unit:5s} CPU {cpu:7.2f} s ({cpu / base[1]:5.1f}x)  peak RSS "
                f"{rss / MiB:8.1f} MiB ({rss / base[2]:5.1f}x)")
        if ins:
            line += f"  instructions {ins / 1e6:9.1f} M ({ins / base[3]:5.1f}x)"
        step = f", {cpu / max(prev[1], 1e-3):.1f}x the CPU of {prev[0]}" if prev else ""
        print(line + f"   size {n / base[0]:.0f}x{step}", flush=True)
        prev = (n, cpu)


def blanks(mib):
    p = os.path.join(WORK, f"blanks{mib}.json.gz")
    if not os.path.exists(p):
        with gzip.open(p, "wb", compresslevel=1) as f:
            f.write(('{"traceEvents":[' + EV + ',').encode())
            chunk = b" \n" * (MiB // 2)
            for _ in range(mib):
                f.write(chunk)
            f.write((EV + "]}").encode())
    return p


def repairs(mib):
    p = os.path.join(WORK, f"repairs{mib}.json")
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(('{"traceEvents":[' + EV + ',{"ph":"X","name":"').encode())
            f.write(b"\x01" * (mib * MiB))
            f.write(b'","ts":1,"dur":2,"pid":1,"tid":1}]}')
    return p


def launches(n):
    """n launches, 100 us apart, each of a 50 us kernel: n GPU idle gaps of 50 us"""
    ev = []
    for g in range(n):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": g * 100, "dur": 2, "args": {"correlation": g + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": g * 100 + 5, "dur": 50,
                   "args": {"correlation": g + 1, "device": 0, "stream": 7}})
    return ev


def gaps(n):
    p = os.path.join(WORK, f"gaps{n}.json")
    if not os.path.exists(p):
        ev = [{"ph": "X", "cat": "cpu_op", "name": f"op{t % 50}", "pid": 1, "tid": t + 2, "ts": (t * 97) % (n * 100),
               "dur": 1} for t in range(n)]
        ev += launches(n)
        with open(p, "w") as f:
            json.dump({"traceEvents": ev}, f, separators=(",", ":"))
    return p


def gaps_open(n):
    p = os.path.join(WORK, f"gaps-open{n}.json")
    if not os.path.exists(p):
        ev = []
        for t in range(n):
            ev.append({"ph": "X", "cat": "python_function", "name": f"outer{t % 7}", "pid": 1, "tid": t + 2, "ts": 0,
                       "dur": n * 100 + 10})
            ev.append({"ph": "X", "cat": "cpu_op", "name": f"op{t % 50}", "pid": 1, "tid": t + 2,
                       "ts": (t * 37) % n * 100 + 60, "dur": 3})
        ev += launches(n)
        with open(p, "w") as f:
            json.dump({"traceEvents": ev}, f, separators=(",", ":"))
    return p


def ranks(n, kind):
    d = os.path.join(WORK, f"ranks{n}")
    z = d + ".zip"
    if not os.path.exists(z):
        os.makedirs(d, exist_ok=True)
        with zipfile.ZipFile(z, "w") as zf:
            for r in range(n):
                b = json.dumps({"distributedInfo": {"rank": r, "world_size": n}, "traceEvents": [json.loads(EV)]})
                with open(os.path.join(d, f"rank{r}.json"), "w") as f:
                    f.write(b)
                zf.writestr(f"rank{r}.json", b)
    return z if kind == "zip" else d


def honest_summary():
    p = os.path.join(WORK, "honest.kss.json")
    if not os.path.exists(p):
        t = os.path.join(WORK, "honest.json")
        ev = []
        for i in range(20):
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                       "ts": i * 1000, "dur": 900})
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": i * 1000 + 10,
                       "dur": 500})
        with open(t, "w") as f:
            json.dump({"traceEvents": ev}, f)
        subprocess.run([K, "summarize", "--quiet", t, "-o", p], check=True)
    return open(p, "rb").read().split(b"\n")[:2]


def gz_parts(p, parts):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(p, "wb") as f:
        for part in parts:
            f.write(c.compress(part))
        f.write(c.flush())
    return p


def summary_skip(mib):
    p = os.path.join(WORK, f"summary-skip{mib}.kss.json.gz")
    if not os.path.exists(p):
        line1, line2 = honest_summary()
        half = mib // 2
        gz_parts(p, [line1[:-1] + b',"x_unused":"'] + [b" " * MiB] * half +
                 [b'","y_unused":[' + b"0," * (half * 16384) + b'0]}\n', line2[:-2] + b',"x_unused":"'] +
                 [b" " * MiB] * (mib - half) + [b'","y_unused":[' + b"0," * ((mib - half) * 16384) + b'0]}}\n'])
    return p


def summary_bomb(mib):
    p = os.path.join(WORK, f"summary-bomb{mib}.kss.json.gz")
    if not os.path.exists(p):
        gz_parts(p, [b'{"x":"'] + [b" " * MiB] * mib + [b'","y":[' + b"0," * (mib * 16384 - 10) + b'0]}\n'])
    return p


def summary_kept(n):
    p = os.path.join(WORK, f"summary-kept{n}.kss.json.gz")
    if not os.path.exists(p):
        line1, line2 = honest_summary()
        cut = line2.index(b'"json":{') + len(b'"json":{')
        gz_parts(p, [line1 + b"\n" + line2[:cut] + b'"x":[' + b"0," * (n * 16384 - 1000) + b"0]," + line2[cut:] + b"\n"])
    return p


SHAPES = {
    "blanks": lambda: row("blanks", [64, 256, 1024], blanks, ["stats"], "MiB"),
    "repairs": lambda: (row("repairs", [2, 8, 32], repairs, ["stats", "--threads", "1"], "MiB"),
                        row("repairs strict", [2, 8, 32], repairs, ["stats", "--threads", "1", "--strict"], "MiB")),
    "gaps": lambda: row("gaps", [1000, 4000, 16000], gaps, ["analyze", "--threads", "1", "--format", "json"],
                        "thr+g"),
    "gaps-open": lambda: row("gaps open", [1000, 4000, 16000], gaps_open,
                             ["analyze", "--threads", "1", "--format", "json"], "thr+g"),
    "ranks-zip": lambda: (row("ranks zip", [1000, 4000, 16000], lambda n: ranks(n, "zip"), ["ranks", "-j", "1"],
                              "ranks"),
                          row("ranks directory", [1000, 4000, 16000], lambda n: ranks(n, "dir"),
                              ["ranks", "-j", "1"], "ranks")),
    "summary-skip": lambda: (row("summary skip", [15, 30, 60], summary_skip, ["analyze"], "MiB"),
                             row("summary skip ranks", [15, 30, 60], summary_skip, ["ranks"], "MiB")),
    "summary-bomb": lambda: row("summary bomb", [15, 30, 60], summary_bomb, ["analyze"], "MiB"),
    "summary-kept": lambda: row("summary kept", [16, 32, 63], summary_kept, ["analyze", "--format", "json"],
                                "x16Ki"),
}

os.makedirs(WORK, exist_ok=True)
if not os.access(K, os.X_OK):
    sys.exit(f"bench/blowups.py: {K}: not built (KS_KINESIFT=path)")
print(f"kinesift {K}; inputs in {WORK}; CPU time and peak RSS of one run each"
      + ("; instructions by callgrind" if CALLGRIND else ""))
for name in sys.argv[1:] or SHAPES:
    SHAPES[name]()
