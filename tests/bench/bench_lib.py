#!/usr/bin/env python3
"""tests/bench/bench_lib.py: the arithmetic of the bench scripts and their small tools.

- bench/lib.sh's paired_ratio: the median of the ratios line by line (the runs of one repetition),
  not the ratio of two medians, whatever columns follow the time; an odd and an even count.
- bench/first_touch: usage errors exit 2 with one line; a run prints one line per page size and
  repetition, both sizes in each repetition, in turn first, with positive figures.

    bench_lib.py FIRST_TOUCH   (env KS_SOURCE_ROOT: the source tree)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.environ["KS_SOURCE_ROOT"]
FT = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def paired_ratio(a_lines, b_lines):
    with tempfile.TemporaryDirectory() as d:
        fa, fb = os.path.join(d, "a"), os.path.join(d, "b")
        with open(fa, "w") as f:
            f.write("".join(l + "\n" for l in a_lines))
        with open(fb, "w") as f:
            f.write("".join(l + "\n" for l in b_lines))
        script = f'ROOT="{ROOT}"; WORK="{d}"; BENCH=test; . "$ROOT/bench/lib.sh"; paired_ratio "{fa}" "{fb}"'
        r = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
        check(r.returncode == 0, f"paired_ratio exited {r.returncode}: {r.stderr.strip()}")
        return float(r.stdout.strip() or "nan")


# yajl's times against analyze's, with the peak RSS after each time (as bench/timed prints them):
# the pairs' ratios are 1, 1 and 2 (median 1), while the medians' ratio is 2 / 1 = 2
a = ["1.0 1500", "10.0 1600", "2.0 1550"]
b = ["1.0 9000", "10.0 9100", "1.0 9050"]
got = paired_ratio(a, b)
check(abs(got - 1.0) < 1e-9, f"paired_ratio of three pairs: {got}, want 1 (the ratio of the medians is 2)")
# an even count: the mean of the two middle ratios
a = ["2.0 1", "3.0 1", "8.0 1", "9.0 1"]
b = ["1.0 1", "1.0 1", "2.0 1", "3.0 1"]
want = statistics.median([2.0, 3.0, 4.0, 3.0])
got = paired_ratio(a, b)
check(abs(got - want) < 1e-9, f"paired_ratio of four pairs: {got}, want {want}")

for bad in (["0"], ["64", "0"], ["x"], ["64", "3", "extra"]):
    r = subprocess.run([FT] + bad, capture_output=True, text=True)
    check(r.returncode == 2, f"first_touch {' '.join(bad)}: exit {r.returncode}, want 2")
    check(r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "usage" in r.stderr,
          f"first_touch {' '.join(bad)}: want one usage line on stderr, got {r.stderr!r} / {r.stdout!r}")

r = subprocess.run([FT, "4", "2"], capture_output=True, text=True)
check(r.returncode == 0, f"first_touch 4 2: exit {r.returncode}: {r.stderr.strip()}")
lines = r.stdout.splitlines()
pat = re.compile(r"^(huge|4k) 4 MiB: first writes ([0-9.]+) ms/MiB, again ([0-9.]+) ms/MiB$")
kinds = []
for line in lines:
    m = pat.match(line)
    check(m is not None, f"first_touch line not as documented: {line!r}")
    if m:
        kinds.append(m.group(1))
        check(float(m.group(2)) > 0, f"first_touch: no time for the first writes: {line!r}")
check(kinds == ["huge", "4k", "4k", "huge"], f"first_touch 4 2: kinds {kinds}, want huge 4k then 4k huge")

if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("bench lib: paired ratios and first_touch as documented")
