#!/usr/bin/env python3
"""bench/memory_shapes.py: peak memory of `kinesift stats` and `kinesift analyze` on the three
trace shapes whose memory is made of per-track and per-name overheads rather than of events
(docs/robustness.md): N one-event tracks (distinct thread ids), N events with distinct
names on one track, and 10 N tiny events of one name on one track. Prints, per shape and command,
the input size, the peak RSS (getrusage of the child) and their ratio (target: at most 2x).

Not a timed test and not run by the test suite (tests/parser/memory_shapes.py checks a small
shape with a bound); the inputs are generated into a temporary directory and removed.

    bench/memory_shapes.py [--n 1000000] [--kinesift build-h/cli/kinesift] [--keep DIR]
                           [--shapes tracks,names,events]
"""
import argparse, os, resource, shutil, subprocess, sys, tempfile

EVENT = ('{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d,"dur":1,'
         '"args":{"External id":%d}}')


def write_shape(path, n, name_of, tid_of):
    with open(path, "w") as f:
        f.write('{"schemaVersion":1,"traceEvents":[\n')
        for i in range(n):
            if i:
                f.write(",\n")
            f.write(EVENT % (name_of(i), tid_of(i), 1000 + 2 * i, i))
        f.write("\n]}\n")
    return os.path.getsize(path)


SHAPES = {
    # N distinct thread ids, one event each
    "tracks": lambda n: (n, lambda i: "aten::mm", lambda i: i + 1),
    # N distinct names on one track
    "names": lambda n: (n, lambda i: "op_%d" % i, lambda i: 1),
    # 10 N tiny events, one name, one track
    "events": lambda n: (10 * n, lambda i: "aten::mm", lambda i: 1),
}


def peak_rss_kb(cmd):
    """Peak RSS in KiB of one child run (a fresh fork, so RUSAGE_CHILDREN is its own)."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("memory_shapes: failed: %s" % " ".join(cmd))
    return ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000000, help="tracks and names (events: 10x)")
    ap.add_argument("--kinesift", default=os.environ.get("KINESIFT", "build-h/cli/kinesift"))
    ap.add_argument("--keep", help="write the inputs here and keep them")
    ap.add_argument("--shapes", default=",".join(SHAPES),
                    help="comma-separated subset of %s" % ",".join(SHAPES))
    a = ap.parse_args()
    shapes = a.shapes.split(",")
    for s in shapes:
        if s not in SHAPES:
            ap.error("unknown shape %r (known: %s)" % (s, ", ".join(SHAPES)))
    d = a.keep or tempfile.mkdtemp(prefix="ks_memshapes_")
    os.makedirs(d, exist_ok=True)
    try:
        print("shape   events     input MB  command  peak RSS MB  RSS/input")
        for shape in shapes:
            make = SHAPES[shape]
            n, name_of, tid_of = make(a.n)
            p = os.path.join(d, "%s_%d.json" % (shape, a.n))
            size = write_shape(p, n, name_of, tid_of)
            for cmd in ("stats", "analyze"):
                kb = peak_rss_kb([a.kinesift, cmd, "--format", "json", p])
                print("%-7s %-10d %8.1f  %-7s  %11.1f  %9.2f" %
                      (shape, n, size / 1e6, cmd, kb / 1024, kb * 1024 / size))
            if not a.keep:
                os.unlink(p)
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
