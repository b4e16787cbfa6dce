#!/usr/bin/env python3
"""tests/parser/memory_shapes.py: the memory of many tracks stays bounded per track
(docs/robustness.md, issue 16). A trace of 100 000 one-event tracks (distinct thread ids) is read
by `kinesift stats`; its peak RSS (getrusage of the child), less that of a one-event trace (the
program, its libraries, fixed buffers), divided by the tracks must stay under BYTES_PER_TRACK.

The bound: 100 000 tracks took 370 bytes each above the base before issue 16's store changes
(two event slots per one-event track, the tracks array's growth slack kept) and 306 after; 345
leaves room for the allocator's moods and fails on a return of either. bench/memory_shapes.py prints the same
figure with the input size for the three shapes at any scale. Not under ASan (its shadow memory
and quarantine are not the program's)."""
import os, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
TRACKS = 100000
BYTES_PER_TRACK = 345


def write(path, n):
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write(",\n".join('{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":%d,"ts":%d,"dur":1}'
                           % (i + 1, 1000 + 2 * i) for i in range(n)))
        f.write("\n]}\n")


def peak_rss(path):
    """Peak RSS in bytes of `kinesift stats` on path: a child of its own, so its rusage is its own."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        # without meson's MALLOC_PERTURB_: it writes every byte allocated, so the pages of
        # capacity not yet used would count as memory taken
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
        os.execve(KS, [KS, "stats", "--format", "json", path], env)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("memory_shapes: kinesift stats %s failed" % path)
    return ru.ru_maxrss * 1024


def main():
    with open(KS, "rb") as f:
        if b"__asan_init" in f.read():
            print("memory_shapes: skipped under ASan (its shadow memory is not the program's)")
            return 0
    with tempfile.TemporaryDirectory(prefix="ks_memshapes_") as d:
        one, many = os.path.join(d, "one.json"), os.path.join(d, "many.json")
        write(one, 1)
        write(many, TRACKS)
        base = min(peak_rss(one) for _ in range(2))
        peak = min(peak_rss(many) for _ in range(2))
        per = (peak - base) / TRACKS
        print("memory_shapes: %d one-event tracks (%.1f MB): peak RSS %.1f MB, base %.1f MB, "
              "%.0f bytes per track (bound %d)" % (TRACKS, os.path.getsize(many) / 1e6, peak / 1e6,
                                                    base / 1e6, per, BYTES_PER_TRACK))
        if per > BYTES_PER_TRACK:
            print("FAIL: %.0f bytes per track > %d" % (per, BYTES_PER_TRACK), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
