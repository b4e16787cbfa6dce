#!/usr/bin/env python3
"""tests/ranks/test_analyze_summary.py: `kinesift analyze` of a summary prints the bytes `analyze`
of its trace prints (text, JSON section by section, CSV), for every corpus trace, alone and mixed
with traces; options that would change the report, --format folded and a /1 summary are refused
in one line (exit 2)."""
import glob, json, os, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
CORPUS = os.environ["KS_CORPUS"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def analyze(*args):
    return subprocess.run([KS, "analyze", "--quiet", *args], capture_output=True)


traces = sorted(glob.glob(os.path.join(CORPUS, "**", "*.json*"), recursive=True))
with tempfile.TemporaryDirectory() as tmp:
    sums = []
    for i, f in enumerate(traces):
        out = os.path.join(tmp, f"s{i}.kss.json.gz")
        r = subprocess.run([KS, "summarize", "--quiet", f, "-o", out], capture_output=True)
        check(r.returncode == 0, f"summarize {f}: {r.stderr!r}")
        sums.append(out)
        for fmt in ("text", "json", "csv"):
            a, b = analyze("--format", fmt, f), analyze("--format", fmt, out)
            check(a.returncode == 0 and b.returncode == 0, f"{f} {fmt}: exit {a.returncode} {b.returncode}")
            if fmt == "json" and a.returncode == 0 and b.returncode == 0:
                ta, tb = json.loads(a.stdout)["traces"][0], json.loads(b.stdout)["traces"][0]
                for k in ta:
                    check(ta[k] == tb.get(k), f"{f}: JSON section {k} from the summary")
            check(a.stdout == b.stdout, f"{f}: {fmt} from the summary byte-identical")
    mixed_in = [traces[0], sums[1], traces[2], sums[3]]
    for fmt in ("text", "json", "csv"):
        check(analyze("--format", fmt, *mixed_in).stdout == analyze("--format", fmt, *traces[:4]).stdout,
              f"summaries and traces mixed ({fmt})")
    for args, what in ((["--format", "folded"], "folded"), (["--top", "3"], "--top"),
                       (["--step-label", "x"], "--step-label"), (["--window", "0:1ms"], "--window")):
        r = analyze(*args, sums[0])
        check(r.returncode == 2 and r.stderr.count(b"\n") == 1 and sums[0].encode() in r.stderr, f"{what} refused for a summary")
    old = os.path.join(tmp, "old.kss.json")
    with open(old, "w") as f:
        subprocess.run(["sh", "-c", f"zcat {sums[0]} | head -n 1 | sed 's#summary/2#summary/1#'"], stdout=f, check=True)
    r = analyze(old)
    check(r.returncode == 2 and b"summary/1" in r.stderr and r.stderr.count(b"\n") == 1, "a /1 summary: one line, exit 2")
print(f"{len(traces)} traces; {len(failures)} failures")
sys.exit(1 if failures else 0)
