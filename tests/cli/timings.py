#!/usr/bin/env python3
"""tests/cli/timings.py: `analyze --timings` and `stats --timings` (docs/performance.md).

What: with --timings the standard output is byte for byte the one without it (text and JSON,
with --threads 1 and the default threads, and stats), and without it nothing is printed on stderr
(with --quiet); with it, stderr carries the table: every phase of the pipeline is a row (reading,
parse, store finish, each analysis pass, writing, total), no row is negative, each percentage is
its ms over the total, the rows that follow one another on the main thread (no kind) add up to at
most the total, and "other" is exactly what they leave of it; a "within" row is at most the row
its name starts with; the peak resident memory column is filled on the sequential rows and the
total only, the total's is at least every row's and above 1 MB, and with one input it never falls
from one sequential row to the next (a high-water mark; with several inputs a row that ran again
for a later input shows its last, higher figure, so the order law holds only for one; analyze's
"writing" also runs at the very end, after the frees, so the rows after it answer to those before).
Why: the figures depend on the machine, so the checks are laws of the table, not values; the
byte-identical output is what lets a benchmark run with --timings and still measure the real
thing. Standard library only; KINESIFT and KS_CORPUS from meson."""
import os
import re
import subprocess
import sys

KS = os.environ["KINESIFT"]
CORPUS = os.environ["KS_CORPUS"]
BIG = os.path.join(CORPUS, "hta", "nccl_parser_config", "nccl_data.json.gz")  # > one chunk: reader thread
# under one chunk (256 KiB) also decompressed (67 KB): read without the reader thread
SMALL = os.path.join(CORPUS, "hta", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz")
# 25 KB of gzip, 320 KB of JSON: read with the reader thread (its trailer's length counts)
SMALL_GZ_BIG_JSON = os.path.join(CORPUS, "hta", "critical_path", "alexnet",
                                 "benchmark_result_2869224_1695835535_trace.json.gz")
MID = os.path.join(CORPUS, "hta", "mtia_inference_trace", "mtia_inference_rank_0.json.gz")  # 16 158 events
CPUS = os.sysconf("SC_NPROCESSORS_ONLN")  # what --threads 0 counts (algo/pool.c)
ROW = re.compile(r"^  (.+?) +(\d+\.\d{3}) +(\d+\.\d)% +(-|\d+\.\d) +(-|\d+\.\d)(?:  (beside|within))?$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    return subprocess.run([KS, *args], capture_output=True, timeout=300)


def table(stderr, cmd):
    lines = stderr.decode().splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith(f"kinesift {cmd} --timings:")]
    check(len(head) == 1, f"{cmd}: one timings header in {lines[:3]}")
    rows = {}
    order = []
    for l in lines[head[0] + 1:] if head else []:
        m = ROW.match(l)
        if m and m.group(1) != "phase":
            name, ms, pct, rate, peak, kind = m.groups()
            rows[name] = (float(ms), float(pct), rate, kind or "", peak)
            order.append(name)
    return rows, order


def laws(rows, what, one_input=True):
    check("total" in rows and "other (options, opening inputs, unlisted)" in rows, f"{what}: total and other rows")
    if "total" not in rows:
        return
    total = rows["total"][0]
    seq = 0.0
    last_peak = 0.0
    for name, (ms, pct, rate, kind, peak) in rows.items():
        check(ms >= 0, f"{what}: {name} {ms} >= 0")
        if total > 0:
            # the times are printed to 0.001 ms and the share to 0.1 %: each printed time is within
            # 0.0005 ms of the one the share was taken from, which moves ms / total by up to
            # 0.0005 * (1 + ms / total) / total, and the share's own rounding adds 0.05 points
            slack = 0.05 + 100 * 0.0005 * (1 + ms / total) / total + 0.01
            check(abs(pct - 100 * ms / total) <= slack, f"{what}: {name}: {pct}% is {ms} of {total}")
        if kind == "within":
            parent = name.split(":")[0]
            check(parent in rows and ms <= rows[parent][0] + 0.002, f"{what}: {name} within {parent}")
        if kind or name == "other (options, opening inputs, unlisted)":
            check(peak == "-", f"{what}: {name}: no peak memory on a row that is not sequential ({peak})")
        else:
            check(peak != "-", f"{what}: {name}: a peak memory on a sequential row")
            if peak != "-":
                if one_input:
                    check(float(peak) >= last_peak, f"{what}: {name}: peak {peak} MB >= {last_peak} before")
                # analyze's "writing" runs again at the very end (the JSON's tail and the flush,
                # after the frees): its figure is that last run's, which the rows after it in the
                # table ran before, so they are held to the rows before it only
                if name != "writing":
                    last_peak = max(last_peak, float(peak))
        if not kind and name not in ("total", "other (options, opening inputs, unlisted)"):
            seq += ms
    other = rows["other (options, opening inputs, unlisted)"][0]
    check(seq <= total + 0.01, f"{what}: sequential rows {seq} <= total {total}")
    check(rows["total"][4] != "-" and float(rows["total"][4]) > 1.0 and float(rows["total"][4]) >= last_peak,
          f"{what}: the total's peak memory {rows['total'][4]} is the highest ({last_peak})")
    check(abs(other - max(total - seq, 0)) <= 0.01 * (len(rows) + 1), f"{what}: other {other} = {total} - {seq}")


PARSE = ["read + decompress (reader thread)", "pre-filter, newlines (reader thread)", "parse",
         "parse: waiting for the reader", "store finish"]
PASSES = ["analysis: GPU work index", "analysis: communication, calls", "steps", "diagnoses", "writing",
          "free (analysis)", "free (store)"]

# the passes of --threads 1 and of two threads, as rows
ONE = ["analysis: timelines", "analysis: links", "analysis: GPU unions", "analysis: tables", "gaps", "threads",
       "critical path"]
TWO = ["analysis: timelines | GPU unions", "analysis: links", "tables | gaps, threads | critical path"]

for fmt in ("json", "text"):
    for threads in ("1", "2", "0"):
        base = ["analyze", "--format", fmt, "--threads", threads, "--quiet", BIG]
        plain = run(*base)
        timed = run(*base, "--timings")
        what = f"analyze --format {fmt} --threads {threads}"
        check(plain.returncode == 0 and timed.returncode == 0, f"{what}: exit 0")
        check(plain.stdout == timed.stdout, f"{what}: the same stdout with --timings")
        check(plain.stderr == b"", f"{what}: nothing on stderr without --timings: {plain.stderr[:200]!r}")
        rows, order = table(timed.stderr, "analyze")
        for p in PARSE + PASSES:
            check(p in rows, f"{what}: a row '{p}' in {order}")
        # 0: one thread per CPU from 20 000 events (nccl_data has 40 573); with two, the window's
        # tables, the gaps and threads passes and the critical path side by side
        multi = threads == "2" or (threads == "0" and CPUS > 1)
        for p in TWO if multi else ONE:
            check(p in rows, f"{what}: a row '{p}' in {order}")
        for p in ONE if multi else TWO:
            if p not in ("analysis: links",):
                check(p not in rows, f"{what}: no row '{p}' in {order}")
        # the default window (its active steps) is chosen from the timelines: its GPU unions are
        # made with it, the tables once, for it, not first for the whole trace and then again
        check("analysis: window, GPU unions" in rows, f"{what}: the window's GPU unions in {order}")
        tables = "tables | gaps, threads | critical path" if multi else "analysis: tables"
        check(order.index("steps") < order.index("analysis: window, GPU unions") < order.index(tables)
              < order.index("diagnoses"), f"{what}: window, then its tables, then diagnoses: {order}")
        for p in ["analysis: window (tables again)", "analysis: window, tables", "analysis: links | CPU tables",
                  "analysis: GPU time of rows | kernels"]:
            check(p not in rows, f"{what}: no row '{p}' (tables made twice) in {order}")
        if threads == "1":
            check("parse ahead (workers, summed)" not in rows, f"{what}: no workers with --threads 1")
        # the main parser's waits for the workers' chunks, within the parse, when workers ran
        check(("parse: waiting for the workers" in rows) == ("parse ahead (workers, summed)" in rows),
              f"{what}: waits for the workers shown with the workers: {order}")
        if "parse: waiting for the workers" in rows:
            check(rows["parse: waiting for the workers"][3] == "within", f"{what}: the waits are within the parse")
        # and its own chunks scanned ahead during those waits, within the parse, with the workers
        ahead = "parse: own chunks read ahead while waiting"
        check((ahead in rows) == ("parse ahead (workers, summed)" in rows),
              f"{what}: the scans ahead shown with the workers: {order}")
        if ahead in rows:
            check(rows[ahead][3] == "within", f"{what}: the scans ahead are within the parse")
        check(order.index("parse") < order.index("analysis: GPU work index") < order.index("writing"),
              f"{what}: rows in the order they ran: {order}")
        check(rows["parse"][2] != "-" and rows["total"][2] != "-", f"{what}: parse and total have a rate")
        check(rows["read + decompress (reader thread)"][3] == "beside", f"{what}: reading is beside the parse")
        laws(rows, what)

# under 20 000 events (mtia_inference has 16 158) the default keeps the passes on one thread, as --threads 1
r = run("analyze", "--format", "json", "--quiet", "--timings", MID)
rows, order = table(r.stderr, "analyze")
for p in ONE:
    check(p in rows, f"analyze {MID}: a row '{p}' in {order}")
check("analysis: timelines | GPU unions" not in rows and "tables | gaps, threads | critical path" not in rows,
      f"analyze {MID}: no passes side by side in {order}")
laws(rows, f"analyze {MID}")

# a window (nccl_data has ProfilerStep#4 to #6): the tables made once, for it (the default threads)
TABLES = "tables | gaps, threads | critical path" if CPUS > 1 else "analysis: tables"
r = run("analyze", "--format", "json", "--quiet", "--window", "steps:4-5", "--timings", BIG)
rows, order = table(r.stderr, "analyze")
check("analysis: window, GPU unions" in rows and TABLES in rows, f"window: a row for the window in {order}")
check("analysis: window (tables again)" not in rows and "analysis: window, tables" not in rows,
      f"window: the tables made once in {order}")
laws(rows, "analyze --window")
# the whole trace: no window is set, the tables are made after the steps
r = run("analyze", "--format", "json", "--quiet", "--window", "trace", "--timings", BIG)
rows, order = table(r.stderr, "analyze")
check(TABLES in rows and "analysis: window, GPU unions" not in rows,
      f"--window trace: the tables made once, for the whole trace, in {order}")
check(order.index("steps") < order.index(TABLES), f"--window trace: tables after the steps: {order}")
laws(rows, "analyze --window trace")
# several inputs: one table, each phase summed over them
r = run("analyze", "--format", "json", "--quiet", "--timings", BIG, SMALL)
rows, order = table(r.stderr, "analyze")
check("parse" in rows and "parse: read + decompress" in rows, f"two inputs: both reads in {order}")
laws(rows, "analyze, two inputs", one_input=False)

# stats: the parse and the writing
for fmt in ("json", "text"):
    plain = run("stats", "--format", fmt, "--quiet", BIG)
    timed = run("stats", "--format", fmt, "--quiet", "--timings", BIG)
    check(plain.stdout == timed.stdout and plain.returncode == timed.returncode == 0, f"stats {fmt}: same stdout")
    check(plain.stderr == b"", f"stats {fmt}: nothing on stderr without --timings")
    rows, order = table(timed.stderr, "stats")
    for p in PARSE + ["writing", "free (store)"]:
        check(p in rows, f"stats {fmt}: a row '{p}' in {order}")
    check(not any(n.startswith("analysis") for n in rows), f"stats {fmt}: no analysis rows")
    laws(rows, f"stats {fmt}")

# a small input is read without the reader thread: its reads are within the parse
r = run("stats", "--quiet", "--timings", SMALL)
rows, order = table(r.stderr, "stats")
check("parse: read + decompress" in rows and rows["parse: read + decompress"][3] == "within",
      f"small input: reads within the parse: {order}")
laws(rows, "stats, small input")
# a small gzip file of more than a chunk of JSON (its trailer's length counts) but under 6 chunks
# (parser_int.h MIN_THREAD_CHUNKS) is read through the reader's chunks by the parser itself: no
# reader thread and no parse workers by default (their start costs more than they save), its
# reads within the parse; asked for (--threads 2), both run
r = run("stats", "--quiet", "--timings", SMALL_GZ_BIG_JSON)
rows, order = table(r.stderr, "stats")
check("parse: reading chunks itself" in rows and rows["parse: reading chunks itself"][3] == "within",
      f"small gzip of a larger trace: its chunks read by the parser, within the parse: {order}")
for p in ("read + decompress (reader thread)", "parse ahead (workers, summed)", "parse: read + decompress"):
    check(p not in rows, f"small gzip of a larger trace, default threads: no row '{p}': {order}")
laws(rows, "stats, small gzip of a larger trace")
r = run("stats", "--quiet", "--timings", "--threads", "2", SMALL_GZ_BIG_JSON)
rows, order = table(r.stderr, "stats")
check("read + decompress (reader thread)" in rows and "parse ahead (workers, summed)" in rows,
      f"small input, --threads 2: the reader thread and the parse workers run: {order}")
laws(rows, "stats, small gzip of a larger trace, --threads 2")

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("timings: ok")
