#!/usr/bin/env python3
"""tests/ranks/test_memory_ranks.py: each rank's memory peak per device and the imbalance across
ranks, on jobs from tests/ranks/make_job.py --memory whose per-rank peaks are known by
construction (different on every rank, one rank 8 GB above the others, one rank on a 16 GiB card,
one rank without [memory] events), through the traces and through summaries (summarize, then
ranks): exact bytes per rank and device, the max and the rank holding it, the median (the house
median: type 7, rounded half up), max/median, the rank and device closest to its capacity, the
rank without memory named with its reason (never 0); the text and HTML reports say the same;
a summary written before memory peaks were kept is still read (memory not observed there); a
summary with a negative peak is refused; a job without memory events says so."""
import gzip, json, os, re, subprocess, sys, tempfile

K = os.environ["KINESIFT"]
HERE = os.path.dirname(os.path.abspath(__file__))
fail = []


def check(ok, what):
    if not ok:
        fail.append(what)


def run(*args):
    # lines whole (the layout at 80 columns is tests/cli/text_fit.py's)
    return subprocess.run([K, *args], capture_output=True, text=True, env=dict(os.environ, COLUMNS="10000"))


def make(d, *args):
    subprocess.run([sys.executable, os.path.join(HERE, "make_job.py"), d, *args], check=True)
    return json.load(open(os.path.join(d, "answers.txt")))


def median(v):
    """ks_quantile_ns at 50: type 7, the fraction rounded half up"""
    v = sorted(v)
    h = (len(v) - 1) * 50
    lo, rem = h // 100, h % 100
    if not rem or lo + 1 >= len(v):
        return v[lo]
    return v[lo] + ((v[lo + 1] - v[lo]) * rem + 50) // 100


def close(a, b):
    return a is not None and abs(a - b) <= 1e-5 * abs(b)


def summarize(src, dst):
    os.makedirs(dst, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if f.endswith(".json"):
            r = run("summarize", os.path.join(src, f), "-o", os.path.join(dst, f[:-5] + ".kss.json.gz"))
            check(r.returncode == 0, f"summarize {f}: {r.stderr}")


def check_json(doc, ans, how, no_mem_reason):
    plan = {int(r): p for r, p in ans["memory"].items()}
    ranks = {x["rank"]: x for x in doc["ranks"]}
    check(doc["schema"] == "kinesift.ranks/3", f"{how}: schema {doc['schema']}")
    for r in range(ans["ranks"]):
        x = ranks[r]
        if r not in plan:
            check(x["memory"] is None and x["memory_reason"] == no_mem_reason,
                  f"{how}: rank {r} memory null with reason {no_mem_reason!r}: {x['memory']!r} {x['memory_reason']!r}")
            continue
        p = plan[r]
        devs = {(m["device_type"], m["device"]): m for m in x["memory"] or []}
        check(set(devs) == {("CPU", -1), ("CUDA", 0)}, f"{how}: rank {r} devices {sorted(devs)}")
        g, c = devs.get(("CUDA", 0), {}), devs.get(("CPU", -1), {})
        check(g.get("peak_allocated_bytes") == p["cuda_peak"], f"{how}: rank {r} CUDA peak {g.get('peak_allocated_bytes')} == {p['cuda_peak']}")
        check(g.get("peak_reserved_bytes") == p["reserved"], f"{how}: rank {r} CUDA reserved {g.get('peak_reserved_bytes')} == {p['reserved']}")
        check(g.get("capacity_bytes") == p["capacity"], f"{how}: rank {r} capacity {g.get('capacity_bytes')} == {p['capacity']}")
        check(close(g.get("peak_share_of_capacity"), p["cuda_peak"] / p["capacity"]), f"{how}: rank {r} share")
        check(c.get("peak_allocated_bytes") == p["cpu_peak"], f"{how}: rank {r} CPU peak {c.get('peak_allocated_bytes')} == {p['cpu_peak']}")
        check(c.get("peak_reserved_bytes") is None and c.get("capacity_bytes") is None and
              c.get("peak_share_of_capacity") is None, f"{how}: rank {r} CPU reserved and capacity not observed")
    m = doc["memory"]
    check(m["ranks_with_memory"] == len(plan), f"{how}: ranks_with_memory {m['ranks_with_memory']} == {len(plan)}")
    check(m["ranks_without_memory"] == sorted(set(range(ans["ranks"])) - set(plan)), f"{how}: ranks_without_memory")
    kinds = {k["device_type"]: k for k in m["kinds"]}
    check(list(kinds) == ["CPU", "CUDA"], f"{how}: kinds {list(kinds)} (by device type)")
    for name, key in (("CUDA", "cuda_peak"), ("CPU", "cpu_peak")):
        k = kinds.get(name, {})
        peaks = {r: p[key] for r, p in plan.items()}
        mx, md = max(peaks.values()), median(peaks.values())
        top = min(r for r, v in peaks.items() if v == mx)
        check(k.get("max_allocated_bytes") == mx and k.get("max_rank") == top,
              f"{how}: {name} max {k.get('max_allocated_bytes')} on rank {k.get('max_rank')} == {mx} on {top}")
        check(k.get("median_allocated_bytes") == md, f"{how}: {name} median {k.get('median_allocated_bytes')} == {md}")
        check(close(k.get("imbalance"), mx / md), f"{how}: {name} imbalance {k.get('imbalance')} == {mx / md}")
        check(k.get("devices") == len(plan) and k.get("ranks") == len(plan), f"{how}: {name} devices and ranks")
    k = kinds.get("CUDA", {})
    res = [p["reserved"] for p in plan.values()]
    check(k.get("max_reserved_bytes") == max(res) and k.get("median_reserved_bytes") == median(res),
          f"{how}: CUDA reserved max/median {k.get('max_reserved_bytes')}/{k.get('median_reserved_bytes')}")
    shares = {r: p["cuda_peak"] / p["capacity"] for r, p in plan.items()}
    best = max(shares, key=lambda r: (shares[r], -r))
    cc = k.get("closest_to_capacity") or {}
    check(cc.get("rank") == best and cc.get("device") == 0 and cc.get("capacity_bytes") == plan[best]["capacity"]
          and cc.get("peak_allocated_bytes") == plan[best]["cuda_peak"] and close(cc.get("share"), shares[best]),
          f"{how}: CUDA closest to capacity {cc} == rank {best}")
    cpu = kinds.get("CPU", {})
    check(cpu.get("closest_to_capacity") is None and "capacity unknown" in (cpu.get("closest_to_capacity_reason") or "")
          and cpu.get("capacity_unknown_devices") == len(plan), f"{how}: CPU closest to capacity not observed, said so")
    return kinds


def check_text(txt, ans, kinds, how, no_mem):
    k = kinds["CUDA"]
    check(re.search(r"^CUDA: peak allocated max .* \(rank %d, CUDA 0\), median .*imbalance %.3fx" %
                    (k["max_rank"], k["imbalance"]), txt, re.M) is not None, f"{how}: text names the CUDA max rank and imbalance")
    cc = k["closest_to_capacity"]
    check(re.search(r"closest to its capacity: rank %d, CUDA 0: .*\(%.1f%%\)" % (cc["rank"], 100 * cc["share"]), txt)
          is not None, f"{how}: text names the rank closest to capacity")
    for r in no_mem:
        check(f"rank {r}: memory not observed" in txt, f"{how}: text says rank {r}'s memory is not observed")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # job A: 6 ranks, rank 2 without memory events, rank 4 the hog, rank 1 on a 16 GiB card (5 ranks: odd median)
        ja = os.path.join(tmp, "a")
        ans = make(ja, "--ranks", "6", "--memory", "--no-memory", "2", "--mem-hog", "4", "--small-card", "1")
        a2 = run("analyze", "--quiet", "--format", "json", os.path.join(ja, "rank-2.json"))
        reason = json.loads(a2.stdout)["traces"][0]["memory_reason"]
        check(reason and reason.startswith("not observed"), f"analyze gives rank 2 a memory reason: {reason!r}")
        sa = os.path.join(tmp, "a-sum")
        summarize(ja, sa)
        for how, src in (("traces", ja), ("summaries", sa)):
            r = run("ranks", "--format", "json", src)
            check(r.returncode == 0, f"{how}: ranks exit {r.returncode}: {r.stderr}")
            kinds = check_json(json.loads(r.stdout), ans, f"job A {how}", reason)
            check(kinds["CUDA"]["max_rank"] == 4 and kinds["CUDA"]["closest_to_capacity"]["rank"] == 1,
                  f"job A {how}: the planted hog (4) and small card (1)")
            t = run("ranks", src)
            check_text(t.stdout, ans, kinds, f"job A {how} text", [2])
        # HTML of the summaries: the kind rows carry the exact max, median and ranks
        html = os.path.join(tmp, "a.html")
        r = run("report", sa, "-o", html)
        check(r.returncode == 0, f"report of summaries: {r.stderr}")
        if r.returncode == 0:
            page = open(html).read()
            k = kinds["CUDA"]
            li = re.search(r'<li data-field="memory_kind" data-device-type="1" data-max="(\d+)" data-max-rank="(\d+)" '
                           r'data-median="(\d+)">(.*?)</li>', page)
            check(li is not None and (int(li[1]), int(li[2]), int(li[3])) == (k["max_allocated_bytes"], 4, k["median_allocated_bytes"]),
                  "HTML: the CUDA row's max, its rank and the median")
            check(li is not None and 'data-field="closest" data-rank="1"' in li[4], "HTML: the rank closest to capacity")
            for rr, p in ans["memory"].items():
                check(f'data-v="{p["cuda_peak"]}"' in page, f"HTML: rank {rr}'s exact CUDA peak")
            check(re.search(r'<tr data-rank="2"><td data-v="2">2</td><td class="none" colspan="5">not observed', page)
                  is not None, "HTML: rank 2's memory not observed")

        # job B: 4 ranks, all with memory, rank 0 the hog (an even count: the median interpolates)
        jb = os.path.join(tmp, "b")
        ansb = make(jb, "--ranks", "4", "--memory", "--mem-hog", "0", "--seed", "7")
        r = run("ranks", "--format", "json", jb)
        check(r.returncode == 0, f"job B: ranks exit {r.returncode}")
        kb = check_json(json.loads(r.stdout), ansb, "job B traces", None)
        check(kb["CUDA"]["max_rank"] == 0, "job B: the hog is rank 0")

        # a summary from before memory peaks were kept: read, memory not observed there
        old = os.path.join(tmp, "old")
        os.makedirs(old)
        for f in sorted(os.listdir(sa)):
            lines = gzip.decompress(open(os.path.join(sa, f), "rb").read()).split(b"\n")
            if f.startswith("rank-3"):
                l1 = json.loads(lines[0])
                del l1["memory"], l1["memory_reason"]
                lines[0] = json.dumps(l1).encode()
            open(os.path.join(old, f), "wb").write(gzip.compress(b"\n".join(lines)))
        r = run("ranks", "--format", "json", old)
        check(r.returncode == 0, f"old summary: ranks exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            d = json.loads(r.stdout)
            x = {y["rank"]: y for y in d["ranks"]}[3]
            check(x["memory"] is None and "kept no memory peaks" in x["memory_reason"],
                  f"old summary: rank 3 memory not observed, said why: {x['memory_reason']!r}")
            check(d["memory"]["ranks_without_memory"] == [2, 3], "old summary: ranks 2 and 3 without memory")
            check(d["memory"]["kinds"][1]["max_rank"] == 4, "old summary: the hog still found")

        # a tampered summary (a negative peak) is refused
        bad = os.path.join(tmp, "bad")
        os.makedirs(bad)
        lines = gzip.decompress(open(os.path.join(sa, "rank-0.kss.json.gz"), "rb").read()).split(b"\n")
        l1 = json.loads(lines[0])
        l1["memory"][1]["peak_allocated_bytes"] = -5
        lines[0] = json.dumps(l1).encode()
        open(os.path.join(bad, "rank-0.kss.json.gz"), "wb").write(gzip.compress(b"\n".join(lines)))
        r = run("ranks", bad)
        check(r.returncode == 2 and "negative memory peak" in r.stderr, f"tampered peak refused: {r.returncode} {r.stderr!r}")

        # no rank with memory events: null with the reason, in JSON and text
        jc = os.path.join(tmp, "c")
        make(jc, "--ranks", "2")
        r = run("ranks", "--format", "json", jc)
        d = json.loads(r.stdout)
        check(d["memory"] is None and d["memory_reason"] == reason and all(x["memory"] is None for x in d["ranks"]),
              "job without memory: memory null with the reason")
        check("memory: not observed on any rank" in run("ranks", jc).stdout, "job without memory: text says so")

    if fail:
        for f in fail:
            print("FAIL", f)
        sys.exit(1)
    print("memory across ranks: peaks, imbalance and the rank closest to capacity as planted")


main()
