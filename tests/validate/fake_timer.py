#!/usr/bin/env python3
"""tests/validate/fake_timer.py: stands in for a PyTorch script in the external-command tests.
Prints N lines `kinesift-sample <ms>` drawn from a normal distribution (MEAN ms, relative
stdev CV), seeded from the run number kinesift exports, and optionally `kinesift-check`.
usage: fake_timer.py MEAN CV N [--check VALUE] [--exit CODE] [--bad] [--quiet]"""
import os
import random
import sys


def main():
    mean, cv, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    rest = sys.argv[4:]
    run = int(os.environ.get("KINESIFT_VALIDATE_RUN", "0"))
    arm = os.environ.get("KINESIFT_VALIDATE_ARM", "?")
    rng = random.Random(f"{arm}:{run}:{mean}:{cv}")
    print(f"fake_timer: {arm} run {run}")  # a line kinesift must ignore
    if "--quiet" not in rest:
        for _ in range(n):
            print(f"kinesift-sample {max(rng.gauss(mean, cv * mean), 0.001):.6f}")
    if "--bad" in rest:
        print("kinesift-sample 12,5")
    if "--check" in rest:
        print(f"kinesift-check {rest[rest.index('--check') + 1]}")
    sys.stdout.flush()
    if "--exit" in rest:
        sys.exit(int(rest[rest.index("--exit") + 1]))


main()
