#!/usr/bin/env python3
"""tests/report/corpus_report.py TRACE: the laws of checks.py (folded sums, annotate's bytes,
counts and nesting, the report's numbers against analyze's JSON) on one real trace of the corpus
(relative to $KS_CORPUS)."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
with tempfile.TemporaryDirectory() as d:
    checks.check_folded(path)
    checks.check_annotate(path, d)
    checks.check_report([path], d)
print(f"{sys.argv[1]}: {checks.CHECKED[0]} checks, {len(checks.FAILURES)} failures")
sys.exit(1 if checks.FAILURES else 0)
