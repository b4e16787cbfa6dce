#!/usr/bin/env python3
"""tests/compare/extreme_profile.py: the gate's per-step profile (compare/gate_profile.c) on a
slice spanning the int64 range (an aten::mm from -9.2e18 to +9.2e18 ns inside an active step):
its time is credited saturated, with no signed overflow. The ASan+UBSan build halts on one
(UBSAN_OPTIONS=halt_on_error=1 in the tests' environment), so there the run must exit as a gate
does (0 pass, 3 inconclusive) with no "runtime error" on stderr."""
import os, subprocess, sys

KS = os.environ["KINESIFT"]
trace = os.path.join(os.path.dirname(os.path.abspath(__file__)), "extreme", "int64-spanning-op.json")
r = subprocess.run([KS, "gate", "-b", trace, "-c", trace, "--op", "aten::mm=10"], capture_output=True)
err = r.stderr.decode(errors="replace")
if r.returncode not in (0, 3) or "runtime error" in err:
    print(f"gate on an int64-spanning op: exit {r.returncode}\n{err[-2000:]}", file=sys.stderr)
    sys.exit(1)
print("ok")
