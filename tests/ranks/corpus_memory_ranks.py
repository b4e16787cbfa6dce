#!/usr/bin/env python3
"""tests/ranks/corpus_memory_ranks.py: on one real trace (an absolute path, or a path relative to
$KS_CORPUS), the memory peaks `kinesift ranks` gives the trace as a rank equal what `kinesift
analyze` reports for the trace alone, device for device, in exact bytes: peak allocated, peak
reserved, capacity (and their shares); a trace without [memory] events has memory null with the
same reason in both. With memory events, the same holds through a summary (summarize, then
ranks over it), and the across-ranks row of each device kind is that of the one rank (max =
median = its largest peak of the kind, imbalance 1)."""
import gzip, json, os, subprocess, sys, tempfile

K = os.environ["KINESIFT"]
path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
fail = []


def check(ok, what):
    if not ok:
        fail.append(what)


def run(*args):
    r = subprocess.run([K, *args], capture_output=True, text=True)
    return r


a = run("analyze", "--quiet", "--format", "json", path)
if a.returncode:
    sys.exit(f"analyze failed ({a.returncode}): {a.stderr}")
tr = json.loads(a.stdout)["traces"][0]
want = tr["memory"]


def same_device(m, d, where):
    for k in ("device_type", "device_type_id", "device", "peak_allocated_bytes", "peak_reserved_bytes",
              "capacity_bytes", "peak_share_of_capacity", "peak_reserved_share_of_capacity"):
        check(m.get(k) == d.get(k), f"{where}: {k} {m.get(k)!r} == analyze's {d.get(k)!r}")


def law(doc, how):
    rk = doc["ranks"]
    check(len(rk) == 1, f"{how}: one rank")
    got = rk[0]
    if want is None:
        check(got["memory"] is None and got["memory_reason"] == tr["memory_reason"],
              f"{how}: memory null with analyze's reason {tr['memory_reason']!r}: {got['memory_reason']!r}")
        check(doc["memory"] is None and doc["memory_reason"], f"{how}: no memory across ranks, with a reason")
        return
    check(isinstance(got["memory"], list) and got["memory_reason"] is None, f"{how}: memory is a list")
    if not isinstance(got["memory"], list):
        return
    check(len(got["memory"]) == len(want), f"{how}: {len(got['memory'])} devices == analyze's {len(want)}")
    for m, d in zip(got["memory"], want):
        same_device(m, d, f"{how}: {d['device_type']} {d['device']}")
    kinds = {k["device_type_id"]: k for k in doc["memory"]["kinds"]}
    for t in {d["device_type_id"] for d in want}:
        peaks = [d["peak_allocated_bytes"] for d in want if d["device_type_id"] == t and d["peak_allocated_bytes"] is not None]
        k = kinds.get(t)
        check(k is not None, f"{how}: a kind row for device type {t}")
        if not k or not peaks:
            continue
        check(k["max_allocated_bytes"] == max(peaks), f"{how}: type {t} max {k['max_allocated_bytes']} == {max(peaks)}")
        if len(peaks) == 1:
            check(k["median_allocated_bytes"] == peaks[0] and (peaks[0] == 0 or k["imbalance"] == 1),
                  f"{how}: type {t}: one device, median = max, imbalance 1")


r = run("ranks", "--format", "json", path)
check(r.returncode in (0, 3), f"ranks exit {r.returncode}: {r.stderr}")
if r.stdout:
    law(json.loads(r.stdout), "ranks of the trace")
if want is not None:
    with tempfile.TemporaryDirectory() as d:
        s = os.path.join(d, "rank.kss.json.gz")
        x = run("summarize", path, "-o", s)
        check(x.returncode == 0, f"summarize exit {x.returncode}: {x.stderr}")
        line1 = json.loads(gzip.decompress(open(s, "rb").read()).split(b"\n")[0])
        check(line1.get("memory") is not None, "the summary carries memory")
        r = run("ranks", "--format", "json", s)
        check(r.returncode in (0, 3), f"ranks of the summary exit {r.returncode}: {r.stderr}")
        if r.stdout:
            law(json.loads(r.stdout), "ranks of the summary")

if fail:
    print(f"{sys.argv[1]}:")
    for f in fail:
        print("  FAIL", f)
    sys.exit(1)
print(f"{sys.argv[1]}: memory {'not observed' if want is None else f'{len(want)} device(s)'}: ranks agree with analyze")
