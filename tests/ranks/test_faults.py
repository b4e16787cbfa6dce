#!/usr/bin/env python3
"""tests/ranks/test_faults.py: `kinesift ranks` on jobs with planted faults (tests/ranks/make_job.py),
checked against the findings known by construction:
- the straggler is the planted rank, and its evidence names the kernel that was made longer;
- waits within 5 us of the truth on every call both sides have, under clock offsets, drift and
  jitter, with a rank that skipped a call and a rank whose capture starts a step late;
- a skipped call is named (rank, name, k-th of its step) and every other call still matches;
- a rank cut mid-write is named with its byte, kept out of the straggler, exit 2 unless
  --allow-incomplete; an unreadable rank is named by its file name's rank; ranks of the world
  with no trace are counted; a rank that never arrived shows in the hang view;
- untrusted clocks give exit 3 and say so in the JSON; matching by Seq where recorded;
- a faulty rank is never silent: its number is in the report of every fault;
- the real 2-rank sample of a 128-rank job says 126 ranks are absent;
- `report DIR_OF_SUMMARIES` reads the directory as `ranks DIR` does."""
import json, os, re, shutil, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
GEN = os.path.join(ROOT, "tests", "ranks", "make_job.py")
CORPUS = os.environ["KS_CORPUS"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    # lines whole (the layout at 80 columns is tests/cli/text_fit.py's)
    return subprocess.run([KS, "ranks", "--quiet", *args], capture_output=True, env=dict(os.environ, COLUMNS="10000"))


def jrun(*args):
    r = run("--format", "json", *args)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        check(False, f"ranks {args}: no JSON ({r.returncode}, {r.stderr!r})")
        return r.returncode, None


def generate(out, *opts):
    subprocess.run([sys.executable, GEN, out, *opts], check=True)
    with open(os.path.join(out, "answers.txt")) as f:
        return json.load(f)


def by_call(j):
    return {(m["step"], m["name"], m["call"]): m for m in j["collectives"]}


def check_waits(j, ans, label, skip_ranks=()):
    """every wait of a rank on a call both it and the truth have: within 5 us"""
    got = by_call(j)
    n = worst = 0
    for t in ans["calls"]:
        m = got.get((t["step"], t["name"], t["call"]))
        if m is None:
            continue
        for a in m["arrivals"]:
            r = str(a["rank"])
            if r in t["waits"] and a["rank"] not in skip_ranks:
                # the truth among the ranks in this match (a cut rank's missing calls excepted)
                present = {x["rank"] for x in m["arrivals"]}
                truth = max(t["arrivals"][str(x)] for x in present) - t["arrivals"][r]
                worst = max(worst, abs(a["wait_ns"] - truth))
                n += 1
    check(n > 0, f"{label}: waits compared")
    check(worst <= 5000, f"{label}: worst wait error {worst} ns > 5 us over {n} waits")
    return n


def check_offsets(j, ans, label):
    t0 = j["alignment"]["t0_ns"]
    T0 = 1_700_000_000_000_000_000
    for r in j["ranks"]:
        k = r["rank"]
        want = ans["offsets_ns"][k] + ans["drift_ppm"][k] * (t0 - T0) / 1e6
        check(abs(r["clock_offset_ns"] - want) <= 5000, f"{label}: rank {k} offset {r['clock_offset_ns']} vs {want:.0f}")
        check(abs(r["clock_drift_ppm"] - ans["drift_ppm"][k]) <= 1.0,
              f"{label}: rank {k} drift {r['clock_drift_ppm']} vs {ans['drift_ppm'][k]}")


tmp = tempfile.mkdtemp(prefix="ks-faults-")
try:
    # ---- straggler, jitter, drift, a skipped call, a late capture --------------------------------
    d = os.path.join(tmp, "mixed")
    a = generate(d, "--ranks", "8", "--straggler", "5", "--delay-us", "1500", "--jitter-us", "3", "--drift-ppm", "30",
                 "--step-ms", "100", "--steps", "5", "--skip", "2:5:5", "--late", "6", "--seed", "11")
    rc, j = jrun(d)
    check(rc == 0, f"mixed: exit {rc}")
    check(j["straggler"]["rank"] == 5, f"mixed: straggler {j['straggler']['rank']} is the planted 5")
    ev = j["straggler"]["evidence"]
    check(ev and ev[0]["name"] == a["evidence_kernel"] and ev[0]["kind"] == "kernel"
          and ev[0]["ns"] > ev[0]["median_ns"], f"mixed: evidence names the slowed kernel: {ev}")
    check(not any(e["name"].startswith("nccl") for e in ev), "mixed: no kernel every rank runs alike in the evidence")
    check_waits(j, a, "mixed")
    check_offsets(j, a, "mixed")
    um = j["unmatched"]
    sk = a["skipped"][0]
    check(len(um) == 1 and um[0]["rank"] == 2 and um[0]["kind"] == "skipped" and um[0]["step"] == 5
          and um[0]["name"] == sk["name"] and um[0]["call"] == sk["call"], f"mixed: the one skipped call: {um}")
    # every other call matched on every rank that has its step
    per_step = len(a["calls"]) // a["steps"]
    check(len(j["collectives"]) == len(a["calls"]), f"mixed: {len(j['collectives'])} calls matched of {len(a['calls'])}")
    for m in j["collectives"]:
        want = {r for r in range(8) if not (r == 6 and m["step"] == a["first_step"])}
        if (m["step"], m["call"], m["name"]) == (5, sk["call"], sk["name"]):
            want.discard(2)
        check({x["rank"] for x in m["arrivals"]} == want, f"mixed: {m['name']} #{m['call']} of step {m['step']} ranks")
    r6 = j["ranks"][6]
    check(r6["first_step"] == a["first_step"] + 1, "mixed: the late rank's first step")
    txt = run(d).stdout.decode()
    check(f"rank 2 never entered {sk['name']} #{sk['call']} of step 5 (group 0)" in txt, "mixed: the skip named in text")
    check("hypothesis: rank 5 is the straggler" in txt, "mixed: straggler in text")
    md = run("--format", "markdown", d).stdout.decode()
    check(f"rank 2 never entered {sk['name']} #{sk['call']} of step 5" in md, "mixed: the skip named in markdown")
    check("waits: trusted" in txt and "exit status 0" in txt, "mixed: verdict in text")
    check("bandwidth by message size" in txt and "collective time by rank" in txt, "mixed: bandwidth and matrix")
    # bandwidth rows recomputed from the matches
    for b in j["bandwidth"]:
        ms = [m for m in j["collectives"] if m["name"] == b["name"] and b["bytes_from"] <= m["bytes"] < b["bytes_to"]]
        check(len(ms) == b["calls"], f"bandwidth row {b['name']} {b['bytes_from']}: calls")
        ts = sorted(m["transfer_ns"] for m in ms)
        check(ts[0] <= b["transfer_median_ns"] <= ts[-1], "bandwidth row: median within the calls")
    # the duration matrix: each cell the sum of the rank's kernel durations in the matches
    cols = j["duration_matrix"]["columns"]
    for row in j["duration_matrix"]["ranks"]:
        for c, v in zip(cols, row["ns"]):
            s = sum(x["duration_ns"] for m in j["collectives"] if m["name"] == c["name"] and m["group"] == c["group"]
                    for x in m["arrivals"] if x["rank"] == row["rank"])
            check(v == s, f"matrix rank {row['rank']} {c['name']}: {v} vs {s}")
    # same bytes for any -j
    check(run("-j", "1", d).stdout == run("-j", "4", d).stdout, "mixed: -j 1 = -j 4")

    # ---- a slope no clock has: beyond 1000 ppm the rank is aligned by its offset alone (the slope
    # is found within 0.1 %: a clock that fast also stretches the durations it measures) ----------
    d = os.path.join(tmp, "steep")
    a = generate(d, "--ranks", "6", "--drift-ppm", "20000", "--steps", "4", "--seed", "3")
    rc, j = jrun(d)
    steep = [k for k in range(1, 6) if abs(a["drift_ppm"][k]) > 1000]
    check(len(steep) >= 2, f"steep: ranks beyond 1000 ppm planted: {a['drift_ppm']}")
    txt = run(d).stdout.decode()
    for r in j["ranks"]:
        k = r["rank"]
        if k in steep:
            check(r["clock_drift_ppm"] == 0 and r["clock_slope_rejected_ppm"] is not None
                  and abs(r["clock_slope_rejected_ppm"] - a["drift_ppm"][k]) <= 1.0 + 1e-3 * abs(a["drift_ppm"][k]),
                  f"steep: rank {k} drift {r['clock_drift_ppm']}, slope {r['clock_slope_rejected_ppm']} "
                  f"vs the planted {a['drift_ppm'][k]}")
            check(f"rank {k:<5} offset" in txt and "drift not fitted (the ends' slope, " in txt,
                  f"steep: rank {k} said not fitted in text")
        else:
            check(r["clock_slope_rejected_ppm"] is None and abs(r["clock_drift_ppm"] - a["drift_ppm"][k]) <= 1.0,
                  f"steep: rank {k} drift {r['clock_drift_ppm']} vs {a['drift_ppm'][k]}")
    check(rc == 3 and not j["alignment"]["trusted"], f"steep: exit {rc}, waits untrusted (the offset alone leaves "
          f"a spread of {j['alignment']['spread_ns']} ns)")

    # ---- Seq recorded: matched by it; a never-arrived call (the hang view) ---------------------
    d = os.path.join(tmp, "seq")
    a = generate(d, "--ranks", "4", "--straggler", "1", "--seq", "--skip", "3:6:8", "--steps", "4", "--seed", "5")
    rc, j = jrun(d)
    check(rc == 0 and j["straggler"]["rank"] == 1, f"seq: exit {rc}, straggler 1")
    um = j["unmatched"]
    check(len(um) == 1 and um[0]["rank"] == 3 and um[0]["kind"] == "never arrived" and um[0]["step"] == 6,
          f"seq: rank 3 never arrived at the last call: {um}")
    check(j["ranks"][3]["last_collective"]["step"] == 6 and j["ranks"][0]["last_collective"]["call"] == um[0]["call"],
          "seq: the hang view's last calls")
    check_waits(j, a, "seq")
    txt = run(d).stdout.decode()
    check("never arrived at allreduce #5 of step 6" in txt and "last collective entered" in txt, "seq: hang view in text")

    # ---- a rank cut mid-write (plain and gzip) ----------------------------------------------------
    for gz in ((), ("--gzip",)):
        d = os.path.join(tmp, "cut" + "".join(gz))
        a = generate(d, "--ranks", "6", "--straggler", "1", "--cut", "3:0.6", "--jitter-us", "2", "--seed", "7", *gz)
        r = run(d)
        err = r.stderr.decode()
        check(r.returncode == 2, f"cut{gz}: exit {r.returncode} (2 without --allow-incomplete)")
        out = r.stdout.decode()
        check(re.search(r"rank 3 is INCOMPLETE: its trace \S+ is cut at byte \d+", out), f"cut{gz}: rank 3 named: {out[:400]}")
        rc, j = jrun("--allow-incomplete", d)
        check(rc == 0, f"cut{gz}: --allow-incomplete exits {rc}")
        r3 = j["ranks"][3]
        check(r3["truncated"] and r3["cut_byte"] > 0, f"cut{gz}: truncated in the JSON")
        check(j["straggler"]["rank"] == 1, f"cut{gz}: the straggler is the planted 1, not the cut rank")
        check(not j["verdict"]["complete"] and j["verdict"]["exit_status"] == 0, f"cut{gz}: verdict {j['verdict']}")
        check(not any(u["rank"] == 3 for u in j["unmatched"]), f"cut{gz}: the calls after its end are not called missed")
        check(r3["unrecorded_calls"] > 0, f"cut{gz}: the calls not in its trace counted")
        md = run("--allow-incomplete", "--format", "markdown", d).stdout.decode()
        check("rank 3 is INCOMPLETE" in md and "exit status 0" in md, f"cut{gz}: named in markdown")
        csv = run("--allow-incomplete", "--format", "csv", d).stdout.decode().splitlines()
        check(csv[0].split(",")[-2] == "truncated" and csv[4].split(",")[-2] == "1", f"cut{gz}: csv truncated column")
        check_waits(j, a, f"cut{gz}")
        r = run("--quiet", d)
        rq = subprocess.run([KS, "ranks", d], capture_output=True)
        check("rank 3" in rq.stderr.decode() and "cut at byte" in rq.stderr.decode(), f"cut{gz}: said on stderr")

    # a cut rank that arrived last until its end is still not the straggler
    d = os.path.join(tmp, "cutlate")
    generate(d, "--ranks", "4", "--straggler", "3", "--cut", "3:0.5", "--seed", "8")
    rc, j = jrun("--allow-incomplete", d)
    check(rc == 0 and (j["straggler"] is None or j["straggler"]["rank"] != 3), f"cutlate: the cut rank is not the straggler")
    check(j["ranks"][3]["truncated"] and "rank 3 is INCOMPLETE" in run("--allow-incomplete", d).stdout.decode(),
          "cutlate: the cut rank is named")

    # the corpus NCCL trace (scripts/make_ranks.py), a rank cut in file order (kernels and ops are
    # not written in time order: the cut loses calls in the middle): named, never the straggler, no
    # call of it called skipped; the others' waits are the planted delay
    src = os.path.join(CORPUS, "hta", "nccl_parser_config", "nccl_data.json.gz")
    d = os.path.join(tmp, "corpus")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_ranks.py"), src, d, "--ranks", "4",
                    "--straggler", "1", "--delay-us", "1500", "--seed", "4"], check=True)
    import gzip
    p2 = os.path.join(d, "rank-2.json.gz")
    with gzip.open(p2, "rb") as f:
        text = f.read()
    with open(p2, "wb") as f:
        f.write(gzip.compress(text[:int(len(text) * 0.8)], 1))
    r = run(d)
    out = r.stdout.decode()
    check(r.returncode == 2 and "rank 2 is INCOMPLETE" in out and "hypothesis: rank 1 is the straggler" in out,
          f"corpus cut: exit {r.returncode}, named, straggler 1")
    rc, j = jrun("--allow-incomplete", d)
    check(rc == 0 and not any(u["rank"] == 2 for u in j["unmatched"]), f"corpus cut: no call of rank 2 called missed")
    for m in j["collectives"]:
        if m["name"] == "allreduce":
            for x in m["arrivals"]:
                want = 0 if x["rank"] == 1 else 1_500_000
                check(abs(x["wait_ns"] - want) <= 5000, f"corpus cut: {m['name']} {m['index']} rank {x['rank']} wait")

    # ---- unreadable and absent ranks ----------------------------------------------------------------
    d = os.path.join(tmp, "gone")
    a = generate(d, "--ranks", "5", "--world", "8", "--garbage", "2", "--missing", "4", "--straggler", "3", "--seed", "9")
    rc, j = jrun(d)
    check(rc == 2, f"gone: exit {rc}")
    check(j["absent_ranks"] == [4, 5, 6, 7] and j["world_size"] == 8, f"gone: absent {j['absent_ranks']}")
    check(len(j["errors"]) == 1 and j["errors"][0]["rank"] == 2, f"gone: the unreadable rank named: {j['errors']}")
    check(j["straggler"]["rank"] == 3, "gone: straggler 3")
    txt = run(d).stdout.decode()
    check("4 ranks of the job have no trace here: 4-7" in txt, "gone: absent ranks in text")
    check("rank 2 (file name): unreadable" in txt, "gone: unreadable rank in text")
    rc, j = jrun("--allow-incomplete", d)
    check(rc == 0 and j["verdict"]["allow_incomplete"], f"gone: --allow-incomplete exit {rc}")

    # ---- clocks that disagree beyond the tolerance: exit 3 ------------------------------------------
    d = os.path.join(tmp, "jitter")
    generate(d, "--ranks", "3", "--jitter-us", "5", "--seed", "3")
    rc, j = jrun("--align-tolerance", "1ns", d)
    check(rc == 3 and not j["verdict"]["waits_trusted"] and j["verdict"]["exit_status"] == 3 and j["verdict"]["reason"],
          f"untrusted: exit {rc} {j and j['verdict']}")
    check("waits: NOT trusted" in run("--align-tolerance", "1ns", d).stdout.decode(), "untrusted: said in text")

    # ---- the real 2-rank sample of a 128-rank job ---------------------------------------------------
    s0 = os.path.join(CORPUS, "hta", "timeline_analysis", "sampled_rank-0.json.gz")
    s1 = os.path.join(CORPUS, "hta", "trace_filter", "sampled_rank-1.json.gz")
    if os.path.exists(s0) and os.path.exists(s1):
        rc, j = jrun(s0, s1)
        check(j["world_size"] == 128 and len(j["absent_ranks"]) == 126, f"sample: world {j['world_size']}")
        check("126 ranks of the job have no trace here: 2-127" in run(s0, s1).stdout.decode(), "sample: said in text")

    # ---- report DIR_OF_SUMMARIES ------------------------------------------------------------------------
    d = os.path.join(tmp, "sum")
    a = generate(d, "--ranks", "3", "--straggler", "2", "--seed", "2")
    sd = os.path.join(tmp, "sums")
    os.mkdir(sd)
    for r, f in a["files"].items():
        subprocess.run([KS, "summarize", f, "-o", os.path.join(sd, f"rank-{r}.kss.json.gz")], check=True)
    check(run(sd).stdout == run(d).stdout, "summaries: ranks DIR_OF_SUMMARIES = ranks DIR")
    page = os.path.join(tmp, "r.html")
    r = subprocess.run([KS, "report", "--quiet", sd, "-o", page], capture_output=True)
    check(r.returncode == 0 and os.path.exists(page), f"report DIR_OF_SUMMARIES: {r.returncode} {r.stderr!r}")
    if r.returncode == 0:
        with open(page) as f:
            html = f.read()
        check('id="ranks"' in html and 'data-rank="2"' in html, "report DIR_OF_SUMMARIES: the ranks section, straggler 2")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ranks faults: all checks passed")
