#!/usr/bin/env python3
"""bench/ab.py: two builds (or two settings) of a command, timed against each other in one run.

On a shared or virtual machine the speed drifts by 10-20 % from one minute to the next, so
figures taken minutes apart cannot tell a 3 % change. Here A and B run as pairs, back to back, in
a random order per pair (neither always runs second), and each pair gives one ratio B/A: the
drift cancels within the pair. Per input it prints the median wall time of each side, the median
of the paired ratios with a 90 % bootstrap interval (resampling the pairs; seeded, so a rerun of
the same times gives the same interval), and the same for the CPU time of the command (user +
system, from wait4: it leaves out time spent waiting, so a change that only waits less shows in
the wall ratio alone). A ratio under 1 means B took less.

Not a timed test: it measures what the machine gives, and prints it. Standard library only.

    bench/ab.py --a BUILD_A/cli/kinesift --b BUILD_B/cli/kinesift [--reps 41] [--seed 1]
                [--a-env K=V]... [--b-env K=V]... [--a-args "..."] [--b-args "..."]
                [--args "analyze --format json --quiet"] INPUT...

The command of a side is its program, its arguments (--a-args / --b-args, else --args), then the
input. For raw yajl as a side: --a BUILD/bench/yajl_raw --a-args "". Exit status 0; 2 on a usage
error or when a command fails (its status and the first lines of its standard error are
printed).
"""
import argparse
import os
import random
import shlex
import signal
import statistics
import subprocess
import sys
import time


def parse_env(items):
    env = {}
    for kv in items:
        if "=" not in kv:
            sys.exit(f"bench/ab.py: --a-env/--b-env needs K=V, not '{kv}'")
        k, v = kv.split("=", 1)
        env[k] = v
    return env


def run(cmd, env):
    """(wall seconds, CPU seconds) of one run; exits 2 when the command fails."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        lines = err.decode(errors="replace").splitlines()[:5]
        print(f"bench/ab.py: {shlex.join(cmd)}: exit status {p.returncode}", file=sys.stderr)
        for line in lines:
            print(f"  {line}", file=sys.stderr)
        sys.exit(2)
    return wall, ru.ru_utime + ru.ru_stime


def interval(ratios, rng, level=0.90, resamples=2000):
    """the median of ratios and a bootstrap interval of it"""
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
    lo = meds[int((1 - level) / 2 * resamples)]
    hi = meds[int((1 + level) / 2 * resamples) - 1]
    return statistics.median(ratios), lo, hi


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head: end quietly, as a command-line tool does
    ap = argparse.ArgumentParser(description="paired A/B timing of two commands (see the top of this file)")
    ap.add_argument("--a", required=True, help="program of side A")
    ap.add_argument("--b", required=True, help="program of side B")
    ap.add_argument("--args", default="analyze --format json --quiet", help="arguments before the input")
    ap.add_argument("--a-args", help="side A's arguments instead of --args")
    ap.add_argument("--b-args", help="side B's arguments instead of --args")
    ap.add_argument("--a-env", action="append", default=[], help="K=V added to side A's environment")
    ap.add_argument("--b-env", action="append", default=[], help="K=V added to side B's environment")
    ap.add_argument("--reps", type=int, default=41, help="pairs per input (default 41)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the order and of the bootstrap")
    ap.add_argument("inputs", nargs="+")
    o = ap.parse_args()
    if o.reps < 3:
        ap.error("--reps needs 3 or more")
    for prog in (o.a, o.b):
        if not os.access(prog, os.X_OK):
            ap.error(f"'{prog}' is not an executable file")
    for f in o.inputs:
        if not os.path.isfile(f):
            ap.error(f"'{f}' is not a file")
    sides = []
    for prog, args, env in ((o.a, o.a_args, o.a_env), (o.b, o.b_args, o.b_env)):
        e = dict(os.environ)
        e.update(parse_env(env))
        sides.append(([prog] + shlex.split(o.args if args is None else args), e))
    rng = random.Random(o.seed)
    print(f"bench/ab.py: {o.reps} pairs per input, each in a random order; load average "
          f"{' '.join('%.2f' % x for x in os.getloadavg())} at the start")
    for name, (cmd, _), env in (("A", sides[0], o.a_env), ("B", sides[1], o.b_env)):
        print(f"  {name}: {' '.join(env) + ' ' if env else ''}{shlex.join(cmd)} INPUT")
    print(f"{'input':<28} {'A ms':>9} {'B ms':>9} {'B/A wall':>9} {'90 % interval':>16} {'B/A CPU':>9} {'90 % interval':>16}")
    for f in o.inputs:
        a_wall, b_wall, r_wall, r_cpu = [], [], [], []
        for _ in range(o.reps):
            order = [0, 1] if rng.random() < 0.5 else [1, 0]
            got = {}
            for s in order:
                cmd, env = sides[s]
                got[s] = run(cmd + [f], env)
            a_wall.append(got[0][0])
            b_wall.append(got[1][0])
            r_wall.append(got[1][0] / got[0][0])
            r_cpu.append(got[1][1] / got[0][1] if got[0][1] > 0 else float("nan"))
        w, wlo, whi = interval(r_wall, rng)
        cpu = [x for x in r_cpu if x == x]
        if len(cpu) >= 3:
            c, clo, chi = interval(cpu, rng)
            cpu_txt = f"{c:>9.3f} {'[%.3f, %.3f]' % (clo, chi):>16}"
        else:
            cpu_txt = f"{'-':>9} {'-':>16}"
        name = os.path.basename(f)
        print(f"{name:<28} {statistics.median(a_wall) * 1e3:>9.2f} {statistics.median(b_wall) * 1e3:>9.2f} "
              f"{w:>9.3f} {'[%.3f, %.3f]' % (wlo, whi):>16} {cpu_txt}")
    print(f"  load average {' '.join('%.2f' % x for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
