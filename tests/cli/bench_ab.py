#!/usr/bin/env python3
"""tests/cli/bench_ab.py: bench/ab.py, the paired A/B timer, runs and reports what it says.

What: with the same kinesift on both sides over two small real traces, it exits 0 and prints one
row per input whose medians are positive and whose ratios (wall and CPU) lie inside their 90 %
intervals and near 1 (0.05-20: the same program); raw yajl as a side takes no arguments; a side
whose command fails stops it with exit status 2 and that command's first line of standard error;
fewer than 3 pairs is a usage error. Why: the figures themselves depend on the machine, so the
checks are the report's shape and laws, not values. Standard library only."""
import os
import re
import subprocess
import sys

KS = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
FIX = os.environ["KS_FIXTURES"]
AB = os.path.join(ROOT, "bench", "ab.py")
INPUTS = [os.path.join(FIX, "real", "hta", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
          os.path.join(FIX, "real", "hta", "critical_path", "alexnet",
                       "benchmark_result_2869224_1695835535_trace.json.gz")]
ROW = re.compile(r"^(\S+) +(\d+\.\d\d) +(\d+\.\d\d) +(\d+\.\d{3}) +\[(\d+\.\d{3}), (\d+\.\d{3})\] +"
                 r"(\d+\.\d{3}) +\[(\d+\.\d{3}), (\d+\.\d{3})\]$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def ab(*args):
    return subprocess.run([sys.executable, AB, *args], capture_output=True, text=True, timeout=300)


r = ab("--reps", "3", "--a", KS, "--b", KS, *INPUTS)
check(r.returncode == 0, f"same program both sides: exit 0 ({r.returncode}: {r.stderr[:300]})")
rows = [m for m in (ROW.match(l) for l in r.stdout.splitlines()) if m]
check([m.group(1) for m in rows] == [os.path.basename(f) for f in INPUTS],
      f"one row per input, in order: {r.stdout}")
for m in rows:
    a_ms, b_ms, w, wlo, whi, c, clo, chi = (float(x) for x in m.groups()[1:])
    check(a_ms > 0 and b_ms > 0, f"{m.group(1)}: positive medians {a_ms} {b_ms}")
    check(wlo <= w <= whi and clo <= c <= chi, f"{m.group(1)}: each ratio inside its interval: {m.group(0)}")
    check(0.05 < w < 20 and 0.05 < c < 20, f"{m.group(1)}: the same program, ratios near 1: {w} {c}")
check("A: " in r.stdout and "B: " in r.stdout and "load average" in r.stdout, "the sides and the load are named")

# a side without arguments (raw yajl is run so), through a program that takes none
r = ab("--reps", "3", "--a", "/bin/true", "--a-args", "", "--b", KS, INPUTS[0])
check(r.returncode == 0 and "A: /bin/true INPUT" in r.stdout, f"a side without arguments: {r.stdout} {r.stderr}")

# a failing side: exit 2, its command and its standard error's first line
r = ab("--reps", "3", "--a", KS, "--b", KS, "--b-args", "analyze --no-such-option", INPUTS[0])
check(r.returncode == 2, f"a failing side: exit 2, not {r.returncode}")
check("--no-such-option" in r.stderr and "exit status" in r.stderr, f"the failing command is named: {r.stderr}")

r = ab("--reps", "2", "--a", KS, "--b", KS, INPUTS[0])
check(r.returncode == 2 and "--reps" in r.stderr, f"fewer than 3 pairs: a usage error ({r.returncode})")

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("bench_ab: ok")
