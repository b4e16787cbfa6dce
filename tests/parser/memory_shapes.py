#!/usr/bin/env python3
"""tests/parser/memory_shapes.py: the memory of many tracks and many names stays bounded per
track and per name (docs/robustness.md). Traces of 100 000 one-event tracks (distinct
thread ids) and of 100 000 events with distinct names are read by `kinesift stats` and
`kinesift analyze`; the peak RSS (getrusage of the child), less that of the same command on a
one-event trace (the program, its libraries, fixed buffers), divided by the tracks or names must
stay under the bound of BOUNDS.

The bounds, in bytes per track or name above the base (measured at this 100 000 scale on a 2-core
Intel Xeon VM; a 2-core AMD EPYC VM gives 125-145 for each of the three):
  tracks/stats    230 (measured ~175, 170-200 from run to run: a 32-byte event record, 64 + 32
                  bytes of track bookkeeping, the parse workers' units);
  tracks/analyze  240 (measured ~186, 185-205: a 32-byte timeline, the small tracks' slices in
                  one array, one array of launch marks; an 88-byte timeline gives ~245-260);
  names/analyze   240 (measured ~194, 190-205: a 56-byte op row, an 80-byte accumulator, no
                  duration array for a row of one instance; a 112-byte row gives ~250-260).
Each bound leaves room for the spread from run to run and fails on a return of the largest of
what it replaced. These are measured with the heap in 4 KiB pages (KINESIFT_HUGE_HEAP=0): the
store's and the analysis's own bytes. The heap on huge pages (cli/heap.c) is measured apart, both
ways, each against the same run in 4 KiB pages: run again with glibc's tunables
(KINESIFT_HUGE_HEAP=1), at most HUGE_EXTRA more (measured 7-8 MB at this scale: partly used 2 MiB
pages and the heap's 4 MiB top pad); and, as these 8 MB inputs get it by default, its first 32 MiB
from inside the process (KINESIFT_HUGE_HEAP unset), at most RESERVED_EXTRA more (measured 8-16 MB:
its top is not handed back, and the 2 MiB pages it touched stay whole). bench/memory_shapes.py prints the ratio to the
input for the shapes at any scale. Not under ASan (its shadow memory and quarantine are not the
program's)."""
import os, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
N = 100000
BOUNDS = [("tracks", "stats", 230), ("tracks", "analyze", 240), ("names", "analyze", 240)]
HUGE_EXTRA = 12 << 20
RESERVED_EXTRA = 24 << 20
# each figure is the least of RUNS runs: how the threads meet moves a run's peak by up to 2-3 MB
# (the arenas of the parse workers and analysis pools), only ever upwards of what the work needs
RUNS = 3


def write(path, n, shape):
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write(",\n".join('{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d,"dur":1}'
                           % ("op_%d" % i if shape == "names" else "aten::mm",
                              i + 1 if shape == "tracks" else 1, 1000 + 2 * i) for i in range(n)))
        f.write("\n]}\n")


def peak_rss(cmd, path, huge="0"):
    """Peak RSS in bytes of `kinesift CMD` on path: a child of its own, so its rusage is its own;
    huge: KINESIFT_HUGE_HEAP (None: unset)."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        # without meson's MALLOC_PERTURB_: it writes every byte allocated, so the pages of
        # capacity not yet used would count as memory taken
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
        env.pop("KINESIFT_HUGE_HEAP", None)
        if huge is not None:
            env["KINESIFT_HUGE_HEAP"] = huge
        os.execve(KS, [KS, cmd, "--format", "json", path], env)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("memory_shapes: kinesift %s %s failed" % (cmd, path))
    return ru.ru_maxrss * 1024


def main():
    with open(KS, "rb") as f:
        if b"__asan_init" in f.read():
            print("memory_shapes: skipped under ASan (its shadow memory is not the program's)")
            return 0
    bad = 0
    with tempfile.TemporaryDirectory(prefix="ks_memshapes_") as d:
        one = os.path.join(d, "one.json")
        write(one, 1, "tracks")
        for shape, cmd, bound in BOUNDS:
            many = os.path.join(d, shape + ".json")
            if not os.path.exists(many):
                write(many, N, shape)
            base = min(peak_rss(cmd, one) for _ in range(RUNS))
            peak = min(peak_rss(cmd, many) for _ in range(RUNS))
            per = (peak - base) / N
            print("memory_shapes: %s %s, %d (%.1f MB): peak RSS %.1f MB, base %.1f MB, %.0f bytes each "
                  "(bound %d)" % (shape, cmd, N, os.path.getsize(many) / 1e6, peak / 1e6, base / 1e6, per,
                                  bound))
            if per > bound:
                print("FAIL: %s %s: %.0f bytes each > %d" % (shape, cmd, per, bound), file=sys.stderr)
                bad = 1
            for how, want, extra in (("run again", "1", HUGE_EXTRA), ("in the process", None, RESERVED_EXTRA)):
                huge = min(peak_rss(cmd, many, want) for _ in range(RUNS))
                print("memory_shapes: %s %s on huge pages (%s): peak RSS %.1f MB, %.1f MB more (bound %.1f)"
                      % (shape, cmd, how, huge / 1e6, (huge - peak) / 1e6, extra / 1e6))
                if huge - peak > extra:
                    print("FAIL: %s %s: the heap on huge pages (%s) takes %.1f MB more than in 4 KiB pages > %.1f"
                          % (shape, cmd, how, (huge - peak) / 1e6, extra / 1e6), file=sys.stderr)
                    bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
