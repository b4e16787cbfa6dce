#!/usr/bin/env python3
"""tests/insights/diagnose_cli.py: `kinesift analyze --min-impact PCT` and `--all-diagnoses` on
fixtures/insights/repeated_upload.json, whose 4096-byte constant costs 10 us of GPU time in the
500 us of active steps (2 %, worked out in tests/insights/test_insights.c: the heuristic bound).
Each step's annotation lasts 100 us while its GPU work ends at 90 us, so every step's critical
path is the CPU thread's: neither the copies nor the kernel lie on it, and both repeated_upload
and dominant_kernel claim 0 ns (their time on the path). Hidden and counted at the default 1 %
floor and at 3 %, listed with --min-impact 0, back (marked below_floor) with --all-diagnoses; the
text says how many are hidden and names the denominator; bad values are usage errors (exit 2)."""
import json, os, subprocess

exe = os.environ["KINESIFT"]
trace = os.path.join(os.environ["KS_FIXTURES"], "insights", "repeated_upload.json")


def run(*args):
    r = subprocess.run([exe, "analyze", "--quiet", *args, trace], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="10000"))  # whole lines
    return r.returncode, r.stdout, r.stderr


def diagnoses(*args):
    rc, out, err = run("--format", "json", *args)
    assert rc == 0, err
    (t,) = json.loads(out)["traces"]
    return t["diagnoses"], t["diagnoses_summary"]


d, s = diagnoses()
assert s["denominator"] == "active steps" and s["denominator_ns"] == 500000, s
assert not [x for x in d if x["id"] == "repeated_upload"], d
assert s["hidden"] == 2 and s["min_impact"] == 0.01, s

d, s = diagnoses("--min-impact", "0")
up = [x for x in d if x["id"] == "repeated_upload"]
assert len(up) == 1 and up[0]["impact_ns"] == 0 and up[0]["impact_heuristic_ns"] == 10000, up
assert up[0]["impact_source"] == "critical_path" and up[0]["impact_share"] == 0, up
assert s["hidden"] == 0, s

for pct in ("3", "3%", "3.0"):
    d, s = diagnoses("--min-impact", pct)
    assert not [x for x in d if x["id"] == "repeated_upload"], pct
    assert s["hidden"] == 2 and abs(s["min_impact"] - 0.03) < 1e-12, s

d, s = diagnoses("--min-impact", "3", "--all-diagnoses")
up = [x for x in d if x["id"] == "repeated_upload"]
assert len(up) == 1 and up[0]["below_floor"] is True and s["hidden"] == 0, (up, s)

rc, out, _ = run("--min-impact", "3")
assert rc == 0
assert "2 below the floor of 3% of the active steps not shown: --all-diagnoses lists them" in out, out
assert "in the active steps (500.000 us)" in out, out

for bad in ("x", "-1", "101", "", "5ms"):
    rc, _, err = run("--min-impact", bad)
    assert rc == 2 and "--min-impact" in err, (bad, rc, err)
print("ok")
