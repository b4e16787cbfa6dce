#!/usr/bin/env python3
"""tests/analysis/threads_cli.py: `kinesift analyze --threads N`: bad values are usage errors
(exit 2), and the output is byte for byte the same with 1 thread and with more: JSON of every
fixture with 2, 7 and the default number of threads; JSON, text, CSV, an overlap policy and a
window on the largest corpus trace with 2. (corpus_threads.c compares the library's results on
every corpus trace and fixture, with every overlap policy and a window.)"""
import os, subprocess, sys

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]
corpus = os.environ["KS_CORPUS"]


def run(*args):
    r = subprocess.run([exe, "analyze", "--quiet", *args], capture_output=True)
    return r.returncode, r.stdout, r.stderr


for bad in ("-1", "x", "", "2x", "65"):
    rc, _, err = run("--threads", bad, os.path.join(fixtures, "analysis", "nesting.json"))
    assert rc == 2, (bad, rc)
    assert b"--threads" in err, err

fixture_traces = [os.path.join(fixtures, d, f) for d in ("analysis", "insights")
                  for f in sorted(os.listdir(os.path.join(fixtures, d))) if f.endswith(".json")]
sized = []
for d, _, files in os.walk(corpus):
    sized += [(os.path.getsize(os.path.join(d, f)), os.path.join(d, f)) for f in files if ".json" in f]
largest = max(sized)[1]

VARIANTS = (["--format", "json"], ["--format", "text", "--top", "0"], ["--format", "csv"],
            ["--format", "json", "--overlap", "truncate"], ["--format", "json", "--window", "1ms:"])
checked = 0
# every fixture in JSON with 2, 7 and the default number of threads; the largest corpus trace in
# every format and option set with 2 threads
for path, variants, counts in [(p, VARIANTS[:1], ("2", "7", None)) for p in fixture_traces] + \
                               [(largest, VARIANTS, ("2",))]:
    for v in variants:
        ref = run("--threads", "1", *v, path)
        for n in counts:
            got = run(*(["--threads", n] if n else []), *v, path)
            assert got == ref, f"{path} {' '.join(v)}: --threads {n or 'default'} differs from --threads 1"
        checked += 1
print(f"ok: {checked} outputs identical with 1 thread and with more")
