#!/usr/bin/env python3
"""tests/ranks/test_ranks.py: `kinesift ranks` end to end on rank sets generated from the corpus
trace with NCCL kernels (scripts/make_ranks.py): one rank delays every all-reduce by a known
amount and every rank's clock is shifted by up to +-50 ms. Checked against the answers known by
construction: the straggler, each other rank's wait (= the delay, within 1 us), the offsets
(within 5 us), bytes and bus bandwidth recomputed from the trace's own args, compute /
communication / exposed communication recomputed here as interval unions. Also: 8 ranks named by
file only, a tar of ranks, an @list, -j 1 = -j 4 byte for byte, mismatched call counts, a rank
without GPU events, duplicate ranks and disagreeing world sizes (exit 2, both files named)."""
import gzip, json, os, shutil, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
SRC = os.path.join(os.environ["KS_CORPUS"], "hta", "nccl_parser_config", "nccl_data.json.gz")
GEN = os.path.join(ROOT, "scripts", "make_ranks.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    return subprocess.run([KS, "ranks", *args], capture_output=True)


def ranks_json(*args):
    r = run("--format", "json", "--quiet", *args)
    check(r.returncode == 0, f"ranks {args}: exit {r.returncode} {r.stderr.decode()!r}")
    return json.loads(r.stdout) if r.returncode == 0 else None


def generate(out, *opts):
    subprocess.run([sys.executable, GEN, SRC, out, *opts], check=True)
    with open(os.path.join(out, "answers.txt")) as f:
        return json.load(f)


def unions(iv):
    iv = sorted(iv)
    out = []
    for a, b in iv:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(u):
    return sum(b - a for a, b in u)


def subtract(u, v):
    """u minus v, both unions"""
    out, j = [], 0
    for a, b in u:
        cur = a
        while j < len(v) and v[j][1] <= cur:
            j += 1
        k = j
        while k < len(v) and v[k][0] < b:
            if v[k][0] > cur:
                out.append([cur, v[k][0]])
            cur = max(cur, v[k][1])
            k += 1
        if cur < b:
            out.append([cur, b])
    return out


def us_ns(x):
    from decimal import Decimal
    return int(Decimal(x) * 1000)


def independent_gpu(path):
    """compute, communication and exposed communication of one rank, recomputed here: kernels by
    device, NCCL by name or collective args, unions"""
    with gzip.open(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=str)
    comp, comm = {}, {}
    for e in doc["traceEvents"]:
        if e.get("cat") != "kernel" or e.get("ph") != "X":
            continue
        d = e["args"].get("device", -1)
        a, b = us_ns(e["ts"]), us_ns(e["ts"]) + us_ns(e["dur"])
        is_comm = "nccl" in e["name"].lower() or "Collective name" in e["args"]
        (comm if is_comm else comp).setdefault(d, []).append((a, b))
    c = sum(length(unions(v)) for v in comp.values())
    m = sum(length(unions(v)) for v in comm.values())
    x = sum(length(subtract(unions(comm[d]), unions(comp.get(d, [])))) for d in comm)
    return c, m, x


def allreduce_bytes(path):
    with gzip.open(path, "rb") as f:
        doc = json.loads(f.read())
    ks = [e for e in doc["traceEvents"]
          if e.get("cat") == "kernel" and e.get("args", {}).get("Collective name") == "allreduce"]
    return [e["args"]["In msg nelems"] * 4 for e in sorted(ks, key=lambda e: e["ts"])]


def check_straggler_set(j, ans, rule, label):
    n, s, delay = ans["ranks"], ans["straggler"], ans["delay_ns"]
    check(j["straggler"] is not None and j["straggler"]["rank"] == s, f"{label}: straggler {s} named")
    check(j["straggler"]["times_last"] == ans["allreduce_calls"], f"{label}: last at every all-reduce")
    check([r["rank"] for r in j["ranks"]] == list(range(n)), f"{label}: ranks 0..{n-1}")
    check(all(r["rule"] == rule for r in j["ranks"]), f"{label}: every rank by {rule}")
    off = ans["offsets_ns"]
    for r in j["ranks"]:
        want = off[r["rank"]] - off[0]
        check(abs(r["clock_offset_ns"] - want) <= 5000, f"{label}: rank {r['rank']} offset {r['clock_offset_ns']} vs {want}")
    ar = [m for m in j["collectives"] if m["name"] == "allreduce"]
    check(len(ar) == ans["allreduce_calls"], f"{label}: {len(ar)} all-reduces matched")
    check(j["unmatched"] == [], f"{label}: nothing unmatched")
    for m in ar:
        check(len(m["arrivals"]) == n, f"{label}: all-reduce {m['index']} on every rank")
        check(m["last_rank"] == s, f"{label}: all-reduce {m['index']} last arrival")
        for a in m["arrivals"]:
            want = 0 if a["rank"] == s else delay
            check(abs(a["wait_ns"] - want) <= 1000, f"{label}: all-reduce {m['index']} rank {a['rank']} wait {a['wait_ns']} vs {want}")
    check(abs(j["straggler"]["caused_wait_ns"] - (n - 1) * delay * ans["allreduce_calls"]) <= 1000 * n * ans["allreduce_calls"],
          f"{label}: wait caused by the straggler")
    check(j["alignment"]["trusted"], f"{label}: alignment trusted")
    return ar


tmp = tempfile.mkdtemp(prefix="ks-ranks-")
try:
    # ---- 4 ranks, distributedInfo, straggler 2, delay 500 us --------------------------------
    d4 = os.path.join(tmp, "four")
    a4 = generate(d4, "--ranks", "4", "--straggler", "2", "--delay-us", "500", "--seed", "4")
    j4 = ranks_json(d4)
    ar = check_straggler_set(j4, a4, "distributedInfo", "4 ranks")
    # bytes and bus bandwidth (nccl-tests: allreduce busbw = algbw * 2(n-1)/n) from the args
    want_bytes = allreduce_bytes(a4["files"][0])
    check([m["bytes"] for m in ar] == want_bytes, "4 ranks: all-reduce bytes = In msg nelems x 4 (Float)")
    for m in ar:
        algbw = m["bytes"] / m["transfer_ns"]
        check(abs(m["algbw_gbps"] - algbw) <= 1e-4 * algbw, f"all-reduce {m['index']} algbw")
        check(abs(m["busbw_gbps"] - algbw * 2 * 3 / 4) <= 1e-4 * algbw, f"all-reduce {m['index']} busbw")
    # per-rank unions recomputed here
    for r in j4["ranks"]:
        c, m, x = independent_gpu(a4["files"][r["rank"]])
        check(r["compute_ns"] == c, f"rank {r['rank']} compute {r['compute_ns']} vs {c}")
        check(r["communication_ns"] == m, f"rank {r['rank']} communication {r['communication_ns']} vs {m}")
        check(r["exposed_communication_ns"] == x, f"rank {r['rank']} exposed {r['exposed_communication_ns']} vs {x}")
        check(0 <= r["overlap_share"] <= 1, "overlap share in [0, 1]")
        check(r["steps"] == 3 and r["step_p90_ns"] >= r["step_median_ns"], "steps and p90 >= median")
    # -j does not change a byte, in any format
    for fmt in ("text", "json", "csv", "markdown"):
        r1, r4 = run("--format", fmt, "-j", "1", d4), run("--format", fmt, "-j", "4", d4)
        check(r1.returncode == 0 and r1.stdout == r4.stdout and r1.stdout, f"-j 1 = -j 4 ({fmt})")
    csv = run("--format", "csv", d4).stdout.decode().splitlines()
    check(len(csv) == 5 and csv[0].startswith("rank,rule,"), "csv: header and one row per rank")
    md = run("--format", "markdown", d4).stdout.decode()
    check(md.startswith("| rank |") and "rank 2 is the straggler" in md, "markdown table and diagnosis")
    txt = run(d4).stdout.decode()
    check("hypothesis: rank 2 is the straggler" in txt and "next check:" in txt, "text diagnosis")
    # @list (any order): the same report
    lst = os.path.join(tmp, "list.txt")
    with open(lst, "w") as f:
        f.write("# ranks\n" + "\n".join(reversed(a4["files"])) + "\n")
    rl = run("@" + lst)
    check(rl.stdout.decode() == txt, f"@list gives the directory's report: {rl.stderr!r}")

    # ---- summaries: small, and the same report from them, alone or mixed with traces ----------
    sd = os.path.join(tmp, "sums")
    os.mkdir(sd)
    sums = []
    for i, f in enumerate(a4["files"]):
        out = os.path.join(sd, f"rank-{i}.kss.json.gz")
        r = subprocess.run([KS, "summarize", f, "-o", out], capture_output=True)
        check(r.returncode == 0, f"summarize {f}: {r.stderr!r}")
        with gzip.open(f, "rb") as g:
            size = len(g.read())
        # line 1 (what ranks reads) <= 1 % of the decompressed trace; the whole summary with
        # analyze's report (line 2) <= 1 % as written (gzip) against the decompressed trace
        with gzip.open(out, "rb") as g:
            line1 = len(g.readline())
        ssize = os.path.getsize(out)
        check(line1 <= size // 100, f"summary line 1 {line1} bytes <= 1% of the trace's {size}")
        check(ssize <= size // 100, f"summary {ssize} bytes (gzip) <= 1% of the trace's {size}")
        sums.append(out)
    for fmt in ("text", "json", "csv", "markdown"):
        direct = run("--format", fmt, d4).stdout
        check(run("--format", fmt, sd).stdout == direct, f"report from summaries = from traces ({fmt})")
        mixed = run("--format", fmt, sums[0], a4["files"][1], sums[2], a4["files"][3]).stdout
        check(mixed == direct, f"summaries and traces mixed ({fmt})")
    r = subprocess.run([KS, "summarize", a4["files"][0], "-o", sums[0]], capture_output=True)
    check(r.returncode == 2 and b"exists" in r.stderr and r.stderr.count(b"\n") == 1, "summarize does not overwrite")
    r = subprocess.run([KS, "summarize", a4["files"][0], "-o", os.path.join(tmp, "x.json")], capture_output=True)
    check(r.returncode == 2 and b".kss.json" in r.stderr, "summary names contain .kss.json")
    bad = os.path.join(tmp, "bad.kss.json")
    with open(bad, "w") as f:
        f.write('{"schema": "kinesift.summary/1", "source": "x"}')
    r = run(bad)
    check(r.returncode == 2 and b"bad.kss.json" in r.stderr and r.stderr.count(b"\n") == 1, "a broken summary: one line, exit 2")

    # ---- duplicates and world sizes: exit 2, one line naming both ----------------------------
    dup = os.path.join(tmp, "dup.json.gz")
    shutil.copy(a4["files"][1], dup)
    r = run(d4, dup)
    err = r.stderr.decode()
    check(r.returncode == 2 and err.count("\n") == 1 and "rank-1.json.gz" in err and "dup.json.gz" in err,
          f"duplicate rank is an error naming both: {err!r}")
    r = run("--allow-mixed", "--format", "json", d4, dup)
    check(r.returncode == 0 and json.loads(r.stdout)["ranks"][4]["rule"] == "input order", "--allow-mixed renumbers")
    with gzip.open(a4["files"][1], "rb") as f:
        t = f.read().replace(b'"rank": 1, "world_size": 4', b'"rank": 9, "world_size": 6', 1)
    other = os.path.join(tmp, "other.json.gz")
    with open(other, "wb") as f:
        f.write(gzip.compress(t, 1))
    r = run(d4, other)
    err = r.stderr.decode()
    check(r.returncode == 2 and "world size" in err and "other.json.gz" in err, f"world sizes disagree: {err!r}")

    # ---- 8 ranks named by file only (worker_N.), straggler 5, and their tar -------------------
    d8 = os.path.join(tmp, "eight")
    tar = os.path.join(tmp, "eight.tar")
    a8 = generate(d8, "--ranks", "8", "--straggler", "5", "--delay-us", "250", "--seed", "8", "--name-only",
                  "--names", "worker_{r}.json.gz", "--tar", tar)
    j8 = ranks_json(d8)
    check_straggler_set(j8, a8, "file name", "8 ranks")
    jt = ranks_json(tar, "-j", "3")
    strip = lambda j: [{k: v for k, v in r.items() if k != "source"} for r in j["ranks"]]
    check(strip(jt) == strip(j8) and jt["collectives"] == j8["collectives"], "a tar of ranks = the directory")
    check(all(":" in r["source"] for r in jt["ranks"]), "tar members named archive:member")

    # ---- mismatched counts and a rank without GPU events ----------------------------------------
    d3 = os.path.join(tmp, "three")
    a3 = generate(d3, "--ranks", "3", "--drop-last", "1", "--no-gpu", "2", "--seed", "3")
    j3 = ranks_json(d3)
    um = j3["unmatched"]
    check(len(um) == 1 and um[0]["rank"] == 1 and um[0]["name"] == "allreduce" and um[0]["missing"] == 1,
          f"one unmatched all-reduce on rank 1: {um}")
    check(sum(1 for m in j3["collectives"] if m["name"] == "allreduce") == a3["allreduce_calls"] - 1,
          "the other all-reduces matched")
    r2 = j3["ranks"][2]
    check(r2["compute_ns"] is None and r2["communication_ns"] is None and "not observed" in r2["gpu_reason"],
          "rank without GPU: null figures with the reason")
    check(r2["wait_ns"] is None and "not observed" in r2["collectives_reason"], "rank without GPU: no waits")
    txt3 = run(d3).stdout.decode()
    # the call dropped: the last all-reduce kernel in file order; named by its step and its place
    # among the step's all-reduces in time (recomputed here from the source)
    with gzip.open(SRC, "rb") as f:
        ev = json.loads(f.read())["traceEvents"]
    ars = [e for e in ev if e.get("cat") == "kernel" and e.get("args", {}).get("Collective name") == "allreduce"]
    steps = [(us_ns(e["ts"]), us_ns(e["ts"]) + us_ns(e["dur"]), int(e["name"].split("#")[1])) for e in ev
             if e.get("name", "").startswith("ProfilerStep#")]
    dropped = ars[-1]
    st = [n for a, b, n in steps if a <= us_ns(dropped["ts"]) < b][0]
    in_step = sorted(us_ns(e["ts"]) for e in ars if any(a <= us_ns(e["ts"]) < b and n == st for a, b, n in steps))
    k = in_step.index(us_ns(dropped["ts"])) + 1
    last = k == len(in_step) and st == max(n for _, _, n in steps)
    kind = "never arrived" if last else "skipped"
    check(um[0]["kind"] == kind and um[0]["step"] == st and um[0]["call"] == k, f"the missing call {kind} #{k} of step {st}: {um}")
    phrase = f"rank 1 never {'arrived at' if last else 'entered'} allreduce #{k} of step {st} (group 0)"
    check(phrase in txt3, f"the missing call named in text: {phrase!r} in {txt3}")
    check("rank 2: GPU figures not observed" in txt3, "no-GPU reason in text")

    # ---- usage ---------------------------------------------------------------------------------
    r = run()
    check(r.returncode == 2 and b"no input file" in r.stderr, "no input is a usage error")
    r = run("-j", "0", d4)
    check(r.returncode == 2, "-j 0 is a usage error")
    r = subprocess.run([KS, "--help"], capture_output=True)
    check(b"ranks" in r.stdout, "--help lists ranks")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ranks: all checks passed")
