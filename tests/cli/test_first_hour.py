#!/usr/bin/env python3
"""tests/cli/test_first_hour.py: what a new user meets in the first hour: telemetry of
the right GPU and in any time zone, errors that name their file, units of time options, help,
truncated traces, counts and output on a terminal. Expected values are worked by hand from the
fixtures written here (a trace of three 1 s steps, see fixtures/insights/telemetry.json, and CSVs
whose samples are chosen so that each answer tells one GPU or one reading from another).
Standard library only; terminal behaviours run under a pseudo-terminal (pty)."""
import calendar, gzip, json, os, pty, select, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
FIX = os.environ["KS_FIXTURES"]
failures = []


def run(*args, stdin=None):
    return subprocess.run([KS, *args], input=stdin, capture_output=True)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def one_line_error(r, *needles):
    err = r.stderr.decode()
    check(r.returncode == 2, f"exit 2 expected, got {r.returncode}: {err!r}")
    check(err.count("\n") == 1 and err.startswith("kinesift"), f"one-line error expected: {err!r}")
    check(r.stdout == b"", f"nothing on stdout with an error: {r.stdout[:200]!r}")
    for n in needles:
        check(n in err, f"{n!r} not in {err!r}")
    return err


def on_tty(*args, timeout=60, env=None):
    """Run with stdout and stderr on a pseudo-terminal; returns (exit status, what it printed)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(KS, [KS, *args], dict(os.environ, **(env or {})))
    out = b""
    while True:
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            os.kill(pid, 9)
            break
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        out += b
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


telemetry = json.load(open(os.path.join(FIX, "insights", "telemetry.json")))


def trace_at(d, name, base_utc, devices=None):
    """The telemetry fixture (three 1 s steps, kernels on device 0) with its ts 0 at base_utc (s)."""
    t = dict(telemetry)
    t["baseTimeNanoseconds"] = base_utc * 10**9
    if devices is not None:
        t["deviceProperties"] = [{"id": i, "name": n, "totalGlobalMem": 85899345920, "computeMajor": 9,
                                  "computeMinor": 0, "numSms": 132} for i, n in enumerate(devices)]
    p = os.path.join(d, name)
    json.dump(t, open(p, "w"))
    return p


def stamp(utc, offset_s):
    """nvidia-smi's local timestamp of a Unix time (fractional s) in a zone offset_s ahead of UTC."""
    import time
    sec = int(utc // 1)
    ms = int(round((utc - sec) * 1000))
    return time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(sec + offset_s)) + ".%03d" % ms


def csv(d, name, header, rows):
    p = os.path.join(d, name)
    open(p, "w").write(header + "\n" + "\n".join(", ".join(r) for r in rows) + "\n")
    return p


def analyze_json(*args):
    r = run("analyze", "--format", "json", *args)
    check(r.returncode == 0, f"analyze {args}: {r.stderr!r}")
    return json.loads(r.stdout)["traces"][0]["telemetry"] if r.returncode == 0 else None


HDR = "timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]"
U0, U1 = "GPU-00000000-0000-4000-8000-00000000aaaa", "GPU-00000000-0000-4000-8000-00000000bbbb"

with tempfile.TemporaryDirectory() as d:
    # ---- telemetry of the right GPU --------------------------------------------------------
    # GPU 0 (the profiled one) at 68 %, GPU 1 idle, sampled every 0.5 s inside the 3 s window:
    # the mean over GPU 0 is 68, over GPU 1 is 0, over both (the old answer) 34.
    base = 1700000000
    rows = []
    for k in range(6):
        t = stamp(base + 0.25 + 0.5 * k, 0)
        rows.append([t, "0", U0, "NVIDIA H100", "68 %", "1000 MiB", "81559 MiB"])
        rows.append([t, "1", U1, "NVIDIA H100", "0 %", "10 MiB", "81559 MiB"])
    two = csv(d, "two.csv", HDR, rows)
    both = trace_at(d, "both.json", base, ["NVIDIA H100", "NVIDIA H100"])
    tel = analyze_json("--smi", two, "--smi-tz", "UTC", both)
    if tel:
        check(tel["window"]["samples"] == 6 and tel["window"]["util_mean"] == 68, f"trace's device 0 matched: {tel}")
        check(tel["gpu"] == U0 and "device 0" in tel["gpu_match"], f"gpu and gpu_match: {tel}")
        check(tel["gpus"] == [U0, U1], "every GPU of the CSV listed")
    r = run("analyze", "--smi", two, "--smi-tz", "UTC", both)
    check(r.returncode == 0 and f"GPU {U0}" in r.stdout.decode(), "text names the GPU used")
    # the CSV's index column, not the order of appearance, names a GPU: rows of GPU 1 first
    swapped = csv(d, "swapped.csv", HDR, [rows[i ^ 1] for i in range(len(rows))])
    tel = analyze_json("--smi", swapped, "--smi-tz", "UTC", both)
    check(tel and tel["window"]["util_mean"] == 68, "index column honoured")
    for sel, want in (("1", 0), (U1, 0), ("0", 68), (U0, 68)):
        tel = analyze_json("--smi", two, "--smi-tz", "UTC", "--smi-gpu", sel, both)
        check(tel and tel["window"]["util_mean"] == want and "--smi-gpu" in tel["gpu_match"],
              f"--smi-gpu {sel} -> {want}")
    one_line_error(run("analyze", "--smi", two, "--smi-tz", "UTC", "--smi-gpu", "7", both), "two.csv",
                   "--smi-gpu 7", U0, U1)
    # ambiguous: no deviceProperties (a CUDA_VISIBLE_DEVICES subset cannot be ruled out), one
    # device listed for two GPUs, or names that disagree: refuse with the list, never average
    for name, devs in (("nodev.json", None), ("onedev.json", ["NVIDIA H100"]),
                       ("othername.json", ["NVIDIA A100", "NVIDIA A100"])):
        tr = trace_at(d, name, base, devs)
        one_line_error(run("analyze", "--smi", two, "--smi-tz", "UTC", tr), "two.csv", "--smi-gpu", U0, U1,
                       "never averaged")
    # eight GPUs: the list still fits the one-line error, with every index
    eight = csv(d, "eight.csv", HDR, [[stamp(base + 0.25, 0), str(i), "GPU-%08d-0000-4000-8000-00000000aaaa" % i,
                                       "NVIDIA H100 80GB HBM3", "1 %", "1 MiB", "2 MiB"] for i in range(8)])
    err = one_line_error(run("analyze", "--smi", eight, "--smi-tz", "UTC", both), "eight.csv", "--smi-gpu")
    check(all(f"{i} GPU-{i:08d}" in err for i in range(8)), f"every index listed: {err!r}")
    # a CSV of one GPU needs no match
    one = csv(d, "one.csv", HDR, [r for r in rows if r[1] == "1"])
    tel = analyze_json("--smi", one, "--smi-tz", "UTC", trace_at(d, "plain.json", base))
    check(tel and tel["window"]["samples"] == 6 and tel["window"]["util_mean"] == 0 and tel["gpu"] == U1,
          "one GPU used as is")

    # ---- time zones --------------------------------------------------------------------------
    # Europe/Paris is +01:00 in November and +02:00 in July: the same zone name aligns both
    h1 = "timestamp, uuid, utilization.gpu [%]"
    for base_utc, off in ((1700000000, 3600), (1688205600, 7200)):
        tr = trace_at(d, f"tz{base_utc}.json", base_utc)
        c = csv(d, f"tz{base_utc}.csv", h1, [[stamp(base_utc + 0.5 + k, off), U0, f"{10 * (k + 1)} %"]
                                              for k in range(3)])
        tel = analyze_json("--smi", c, "--smi-tz", "Europe/Paris", tr)
        check(tel and tel["window"]["samples"] == 3 and tel["window"]["util_mean"] == 20,
              f"Europe/Paris at {base_utc} (+{off // 3600}h): {tel and tel['window']}")
        fixed = analyze_json("--smi", c, "--smi-tz", "+%02d:00" % (off // 3600), tr)
        check(tel == fixed, "a zone and its offset of the day agree")
        wrong = analyze_json("--smi", c, "--smi-tz", "UTC", tr)
        check(wrong and wrong["window"] is None, "UTC misplaces them (the zone matters)")
    # the hour repeated on 2023-10-29 (02:00-03:00 twice in Paris): samples in order, read as
    # 02:50 CEST (00:50 UTC), then 02:10 and 02:30 CET (01:10, 01:30 UTC). The trace starts at
    # 01:29:59.5 UTC: only the last is inside, which holds only when later readings are taken
    fall = 1698543000 - 0.5
    tr = trace_at(d, "fall.json", 0)
    t = json.load(open(tr))
    t["baseTimeNanoseconds"] = int(fall * 10**9)
    json.dump(t, open(tr, "w"))
    c = csv(d, "fall.csv", h1, [["2023/10/29 02:50:00.000", U0, "10 %"], ["2023/10/29 02:10:00.000", U0, "20 %"],
                                ["2023/10/29 02:30:00.000", U0, "30 %"]])
    tel = analyze_json("--smi", c, "--smi-tz", "Europe/Paris", tr)
    check(tel and tel["window"]["samples"] == 1 and tel["window"]["util_mean"] == 30, f"repeated hour: {tel}")
    # 02:30 on 2023-03-26 does not exist in Paris
    c = csv(d, "spring.csv", h1, [["2023/03/26 01:59:00.000", U0, "1 %"], ["2023/03/26 02:30:00.000", U0, "2 %"]])
    one_line_error(run("analyze", "--smi", c, "--smi-tz", "Europe/Paris", tr), "spring.csv", "line 3",
                   "does not exist in Europe/Paris")
    one_line_error(run("analyze", "--smi", c, "--smi-tz", "Mars/Olympus", tr), "--smi-tz", "Mars/Olympus")
    one_line_error(run("analyze", "--smi", c, "--smi-tz", "../../etc/passwd", tr), "--smi-tz")

    # ---- errors about the CSV name the CSV and its line ------------------------------------
    bad = csv(d, "bad.csv", h1, [[stamp(base, 0), U0, "1 %"], ["yesterday", U0, "2 %"]])
    err = one_line_error(run("analyze", "--smi", bad, "--smi-tz", "UTC", both), "bad.csv: line 3", "yesterday")
    check("byte" not in err and "both.json" not in err, f"no position in the trace: {err!r}")
    nan = csv(d, "nan.csv", h1, [[stamp(base, 0), U0, "lots"]])
    one_line_error(run("analyze", "--smi", nan, "--smi-tz", "UTC", both), "nan.csv: line 2", "'lots'")
    one_line_error(run("analyze", "--smi", d, "--smi-tz", "UTC", both), d, "is a directory")
    png = os.path.join(d, "plot.png")
    open(png, "wb").write(b"\x89PNG\r\n\x1a\n" + bytes(64))
    one_line_error(run("analyze", "--smi", png, "--smi-tz", "UTC", both), "plot.png", "PNG image")
    # a pipe is read once, as it comes (no sniffing that would lose its start)
    p = subprocess.run(["sh", "-c", 'cat "$2" | "$0" analyze --format json --smi /dev/stdin --smi-tz UTC "$1"', KS,
                        both, two], capture_output=True)
    check(p.returncode == 0 and json.loads(p.stdout)["traces"][0]["telemetry"]["window"]["util_mean"] == 68,
          f"--smi from a pipe: {p.stderr!r}")
    nohdr = csv(d, "nohdr.csv", "utilization.gpu [%]", [["3 %"]])
    one_line_error(run("analyze", "--smi", nohdr, "--smi-tz", "UTC", both), "nohdr.csv: line 1", "timestamp")

# ---- help -----------------------------------------------------------------------------------
top = run("--help")
r = run("help")
check(r.returncode == 0 and r.stdout == top.stdout, "kinesift help = kinesift --help: the command list")
r = run("help", "help")
check(r.returncode == 0 and r.stdout.startswith(b"usage: kinesift help"), f"help help: {r.stderr!r}")
one_line_error(run("help", "nope"), "no such command: nope")
# every command whose own help says it can exit 1 is named in the top-level exit status, and so is
# every outcome it exits 1 for
import re
exit_top = top.stdout.decode().split("Exit status:")[1]
for cmd in ("stats", "analyze", "whatif", "redact", "diff", "gate", "validate"):
    text = run("help", cmd).stdout.decode()
    status = " ".join(text.split("Exit status")[1].split())
    if re.search(r"[:,] 1 ", status):
        check(cmd in exit_top, f"top-level help names {cmd} for exit 1")
for outcome in ("slower", "different-results", "regression", "--check"):
    check(outcome in exit_top, f"top-level exit status names {outcome}")

# ---- errors name their file; usage errors never on stdout -----------------------------------
example = os.path.join(FIX, "example", "train_step.json")
with tempfile.TemporaryDirectory() as d:
    missing = os.path.join(d, "missing.json")
    one_line_error(run("gate", "--budget", missing, "-b", example, "-c", example), "missing.json", "No such file")
    r = run("gate", "-b", missing, "-c", example)
    check(r.returncode == 2 and b"missing.json" in r.stdout, f"gate's report names the file: {r.stdout[:300]!r}")
    one_line_error(run("redact", example, "-o", os.path.join(d, "nodir", "x.json")), "nodir/x.json")
    one_line_error(run("redact", "--deny-file", missing, example, "-o", os.path.join(d, "x.json")),
                   "missing.json")
    # a bad pattern is about the option, not about the trace
    for cmd in ("analyze", "diff", "gate", "whatif"):
        err = one_line_error(run(cmd, "--step-label", "(", example, example), "--step-label", "parenthesis")
        check("train_step" not in err, f"{cmd}: the regex error does not name the trace: {err!r}")
    one_line_error(run("analyze", "--data-label", "[", example), "--data-label")
    for args in (("stats", "--bogus", example), ("analyze", "--top", "x", example), ("diff", example),
                 ("gate", "-b", example), ("redact",), ("whatif", example), ("validate", "--runs", "0"),
                 ("analyze", "--gap-threshold", "5 parsecs", example)):
        r = run(*args)
        check(r.returncode == 2 and r.stdout == b"" and r.stderr, f"usage error {args} on stderr only: "
              f"{r.returncode} {r.stdout[:200]!r}")

# ---- time options take a unit; a bare number is what --help says (microseconds) --------------
h = run("help", "analyze").stdout.decode()
check("bare number is microseconds" in " ".join(h.split()), "--help states the unit of a bare DUR")
def gaps(*opt):
    r = run("analyze", "--format", "json", *opt, example)
    check(r.returncode == 0, f"analyze {opt}: {r.stderr!r}")
    return [(g["threshold_ns"], g["count"], g["total_ns"]) for g in json.loads(r.stdout)["traces"][0]["gaps"]]
g5 = gaps("--gap-threshold", "5")
check(g5 == gaps("--gap-threshold", "5us") == gaps("--gap-threshold", "5000ns") and g5[0][0] == 5000,
      f"--gap-threshold 5 = 5us = 5000ns: {g5}")
g2 = gaps("--gap-threshold", "2ms")
check(g2[0][0] == 2000000 and g2[0][1] <= g5[0][1], f"--gap-threshold 2ms: {g2}")
one_line_error(run("analyze", "--gap-threshold", "5 parsecs", example), "--gap-threshold")

# ---- truncated inputs say what was found, where --------------------------------------------
with tempfile.TemporaryDirectory() as d:
    cut = os.path.join(d, "cut.json")
    open(cut, "w").write('{"traceEvents": [')
    one_line_error(run("stats", cut), "byte 17 ", "before any complete event", "traceEvents array opened")
    one_line_error(run("analyze", cut), "byte 17 ", "before any complete event")
    # one complete event, then a cut one: it is kept, and the byte is where that event ended
    head = '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}'
    open(cut, "w").write(head + ', {"ph": ')
    r = run("stats", "--format", "json", cut)
    t = json.loads(r.stdout)["traces"][0]
    ex = {x["id"]: x for x in t["diagnostics"]}["parse.truncated"]["examples"][0]
    check(r.returncode == 0 and f"the 1 complete event before byte {len(head)} is kept" in ex["text"],
          f"one event kept, at the right byte: {ex}")
    # a gzip trace cut before its GPU events (CPU events first, as Kineto writes them): the GPU is
    # not observed because the input ended first, not because the trace has none
    import random
    rnd = random.Random(1)
    cpu = [{"ph": "X", "cat": "cpu_op", "name": "op%d" % rnd.randrange(10**6), "pid": 1, "tid": 1, "ts": i * 10,
            "dur": 5} for i in range(20000)]
    gpu = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": i * 10 + 2, "dur": 3,
            "args": {"device": 0, "stream": 7}} for i in range(100)]
    z = gzip.compress(json.dumps({"traceEvents": cpu + gpu}).encode(), compresslevel=1)
    cutgz = os.path.join(d, "cut.json.gz")
    open(cutgz, "wb").write(z[: len(z) // 2])
    r = run("analyze", "--format", "json", cutgz)
    check(r.returncode == 0, f"a truncated gzip trace is analysed: {r.stderr!r}")
    if r.returncode == 0:
        t = json.loads(r.stdout)["traces"][0]
        check(t["gpu"] is None and "truncated before any kernel" in t["gpu_reason"], f"gpu_reason: {t['gpu_reason']}")
    full = os.path.join(d, "full.json")
    json.dump({"traceEvents": cpu[:10]}, open(full, "w"))
    t = json.loads(run("analyze", "--format", "json", full).stdout)["traces"][0]
    check("has no kernel" in t["gpu_reason"], "a whole trace without GPU work still says it has none")

# ---- redact: counts that say what they count; terminals ------------------------------------
with tempfile.TemporaryDirectory() as d:
    # one string holding three e-mail addresses: 1 string changed by 3 replacements
    mails = os.path.join(d, "mails.json")
    json.dump({"traceEvents": [{"ph": "X", "name": "send to ann@example.com, bob@example.org and cy@example.net",
                                "ts": 1, "dur": 2, "pid": 1, "tid": 1},
                               {"ph": "X", "name": "op", "ts": 4, "dur": 2, "pid": 1, "tid": 1}]}, open(mails, "w"))
    r = run("redact", "--report", mails, "-o", os.path.join(d, "out.json"))
    err = r.stderr.decode()
    check(r.returncode == 0 and "2 events; 1 string changed by 3 replacements" in err, f"redact summary: {err!r}")
    check("a string can hold" in " ".join(err.split()), "the report says what 'replaced' counts")
    total = [l for l in err.splitlines() if l.split()[:1] == ["total"]]
    check(total and total[0].split()[-1] == "3", f"report total = the summary's replacements: {total}")
    # compressed output to a terminal is refused, as gzip does; -o - and --force insist
    gz = os.path.join(d, "mails.json.gz")
    open(gz, "wb").write(gzip.compress(open(mails, "rb").read()))
    rc, out = on_tty("redact", gz)
    check(rc == 2 and "not written to a terminal" in out and "\x1f\x8b" not in out, f"gzip to a tty refused: {rc} {out!r}")
    for extra in (["-o", "-"], ["--force"]):
        rc, out = on_tty("redact", "--quiet", *extra, gz)
        check(rc == 0 and "\x1f" in out and "not written" not in out, f"redact {extra} writes to the tty: {rc}")
    rc, out = on_tty("redact", "--quiet", "--compress", "none", gz)
    check(rc == 0 and "ann@example.com" not in out and '"traceEvents"' in out, "plain JSON to a tty is fine")
    r = run("redact", "--quiet", gz)  # a pipe is not a terminal
    check(r.returncode == 0 and r.stdout[:2] == b"\x1f\x8b", "gzip to a pipe as before")
    r = run("redact", "--quiet", "-o", "-", gz)
    check(r.returncode == 0 and r.stdout[:2] == b"\x1f\x8b" and not os.path.exists("-"), "-o - is standard output")
    # the progress line of stats/analyze, on a terminal only (shown at once here)
    now = {"KINESIFT_PROGRESS_DELAY": "0"}
    rc, out = on_tty("redact", gz, "-o", os.path.join(d, "p.json.gz"), env=now)
    check(rc == 0 and "\rkinesift: reading " in out and "\r\x1b[K" in out, f"redact progress on a tty: {out!r}")
    rc, out = on_tty("stats", gz, env=now)
    check(rc == 0 and "\rkinesift: reading " in out, "stats progress on a tty (the same line)")
    rc, out = on_tty("redact", "--quiet", gz, "-o", os.path.join(d, "q.json.gz"), env=now)
    check(rc == 0 and "reading" not in out, "--quiet: no progress line")
    r = subprocess.run([KS, "redact", gz, "-o", os.path.join(d, "s.json.gz")], capture_output=True,
                       env=dict(os.environ, **now))
    check(b"\r" not in r.stderr and b"reading" not in r.stderr, "no progress line when stderr is not a terminal")
    # after the reading line, the analysis says it is working, and that line is gone before output
    rc, out = on_tty("analyze", example, env=now)
    check(rc == 0 and "\rkinesift: analysing " in out, f"analysis phase shown: {out[:300]!r}")
    check(out.index("analysing") < out.index("\r\x1b[K", out.index("analysing")) < out.index("window"),
          "the phase line is cleared before the report")

# ---- gate's numbers read as numbers -----------------------------------------------------------
# the example has 6 steps; --skip-steps 5 leaves 1 sample per side, so
# both checks are inconclusive for the same reason, with the same suggestion
r = run("gate", "-b", example, "-c", example, "--kernel-launches", "1", "--step-time", "5", "--skip-steps", "5")
out = r.stdout.decode()
check(r.returncode == 3, f"gate with 1 sample per side is inconclusive: {r.returncode}")
check("6 steps: 1 sample (5 warm-up" in out and "1 samples" not in out, f"singular: {out!r}")
# kernel launches of the last step (the one kept), counted here from the trace
ev = json.load(open(example))["traceEvents"]
last = max((e for e in ev if e.get("name", "").startswith("ProfilerStep#")), key=lambda e: e["ts"])
launches = sum(1 for e in ev if e.get("cat") == "cuda_runtime" and "LaunchKernel" in e["name"]
               and last["ts"] <= e["ts"] < last["ts"] + last["dur"])
# the row's figures, its check's name on the row or on the line below it (the table fits 80 columns)
rows = out.splitlines()
launch = [l for i, l in enumerate(rows) if "+1 %" in l and (l.rstrip().endswith(" kernel_launches") or
                                                             (i + 1 < len(rows) and rows[i + 1].strip() == "kernel_launches"))]
check(launch and launch[0].split()[3:5] == [str(launches)] * 2, f"counts as integers ({launches}): {launch}")
sugg = [l for l in out.splitlines() if l.strip().startswith("suggestion")]
check(len(sugg) == 1 and "kernel_launches, step_time" in sugg[0], f"the suggestion once: {sugg}")
r = run("gate", "-b", example, "-c", example, "--skip-steps", "0")
check("6 steps: 6 samples" in r.stdout.decode(), "plural kept")

# ---- diff: short names in text, "no change", pairs by rank ------------------------------------
with tempfile.TemporaryDirectory() as d:
    ev = json.load(open(example))
    r = run("diff", example, example)
    out = r.stdout.decode()
    check(r.returncode == 0 and "no change: the same operators" in out and "\n  same " not in out,
          f"A/A says no change: {out[:600]!r}")
    check(out.count(" rows, no change") == 3, "each unchanged table is one line")
    # one kernel renamed to a 300-character name in the after trace: shortened in text only
    long = "void at::native::" + "very_long_template_argument_" * 10 + "kernel<" + "x" * 20 + ">(float*, int)"
    after = json.loads(json.dumps(ev))
    kname = next(e["name"] for e in after["traceEvents"] if e.get("cat") == "kernel")
    for e in after["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"] == kname:
            e["name"] = long
    ap = os.path.join(d, "after.json")
    json.dump(after, open(ap, "w"))
    out = run("diff", example, ap).stdout.decode()
    check(long not in out and long[:40] in out and long[-20:] in out and " ... " in out,
          "a long name is shortened in the middle in text")
    check(max(len(l) for l in out.splitlines() if "[kernel]" in l) < 220, "kernel rows stay readable")
    j = json.loads(run("diff", "--format", "json", example, ap).stdout)
    check(long in json.dumps(j), "JSON keeps the whole name")
    check(long in run("diff", "--format", "csv", example, ap).stdout.decode(), "CSV keeps the whole name")
    # directories of ranks: pairs by rank, whatever the file names' order
    for side, names in (("b", ("z_rank1.json", "a_rank0.json")), ("a", ("a_rank1.json", "z_rank0.json"))):
        os.mkdir(os.path.join(d, side))
        for name in names:
            t = json.loads(json.dumps(ev if side == "b" else after))
            t["distributedInfo"] = {"rank": int(name[-6]), "world_size": 2, "backend": "nccl"}
            json.dump(t, open(os.path.join(d, side, name), "w"))
    B, A = os.path.join(d, "b"), os.path.join(d, "a")
    r = run("diff", B, A)
    out = r.stdout.decode()
    heads = [l for l in out.splitlines() if l.startswith("== rank ")]
    check(r.returncode == 0 and len(heads) == 2 and "rank 0: " in heads[0] and "a_rank0.json" in heads[0]
          and "z_rank0.json" in heads[0] and "rank 1: " in heads[1], f"pairs by rank: {heads}")
    r = run("diff", "--format", "json", B, A)
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    check(j.get("schema") == "kinesift.diff-ranks/1" and [p["rank"] for p in j["pairs"]] == [0, 1]
          and all(p["diff"]["schema"] == "kinesift.diff/1" for p in j["pairs"]), "JSON of pairs")
    r = run("diff", B, B)
    check(r.returncode == 0 and r.stdout.decode().count("no change: the same") == 2, "A/A of directories")
    one_line_error(run("diff", "--format", "csv", B, A), "csv")
    # why they cannot be paired
    os.mkdir(os.path.join(d, "c"))
    t = json.loads(json.dumps(ev))
    t.pop("distributedInfo", None)
    json.dump(t, open(os.path.join(d, "c", "norank0.json"), "w"))
    json.dump(t, open(os.path.join(d, "c", "norank1.json"), "w"))
    one_line_error(run("diff", B, os.path.join(d, "c")), "no rank", "norank")
    os.remove(os.path.join(d, "a", "a_rank1.json"))
    one_line_error(run("diff", B, A), "holds 2 traces", "1")
    t["distributedInfo"] = {"rank": 0, "world_size": 2}
    json.dump(t, open(os.path.join(d, "a", "dup0.json"), "w"))
    one_line_error(run("diff", B, A), "both rank 0")
    os.remove(os.path.join(d, "a", "dup0.json"))
    t["distributedInfo"] = {"rank": 5, "world_size": 8}
    json.dump(t, open(os.path.join(d, "a", "r5.json"), "w"))
    one_line_error(run("diff", B, A), "rank 1", "no counterpart")

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
