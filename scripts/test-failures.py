#!/usr/bin/env python3
"""scripts/test-failures.py BUILD_DIR [LINES]: what each failed test of the last `meson test` in
BUILD_DIR printed last (its meson-logs/testlog.json): the test's name and result, then its last
LINES lines (default 15), each indented. test.sh prints it after a suite with failures, so that a
log that keeps only what test.sh printed (a CI page) still says why a test failed. Prints
nothing when every test passed or the log is missing."""
import json
import os
import sys

BAD = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: test-failures.py BUILD_DIR [LINES]")
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    path = os.path.join(sys.argv[1], "meson-logs", "testlog.json")
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return 0
    with f:
        for row in f:
            try:
                test = json.loads(row)
            except ValueError:
                continue
            if test.get("result") not in BAD:
                continue
            out = (test.get("stdout") or "") + (test.get("stderr") or "")
            tail = [l for l in out.splitlines() if l.strip()][-lines:]
            print("-- %s: %s (exit status %s), its last %d lines:"
                  % (test.get("name"), test.get("result"), test.get("returncode"), len(tail)))
            for l in tail:
                print("   " + l[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
