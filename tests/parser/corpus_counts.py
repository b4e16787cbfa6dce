#!/usr/bin/env python3
"""tests/parser/corpus_counts.py: read one real trace with `kinesift stats --format json` and check
it against an independent reading by Python's json module: the same number of events, the same
counts by phase and by category, the same rank/world size, no error, and no diagnostic above
"info" (the corpus files are well-formed). Read again with one parser thread and with four (three
workers parsing ahead), the output must be byte for byte the same. The trace: an absolute path, or
a path relative to $KS_CORPUS."""
import collections, gzip, json, os, subprocess, sys

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])
if not os.path.exists(path):
    sys.exit(f"corpus file missing: {path}")

raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
events = doc["traceEvents"] if isinstance(doc, dict) else doc

r = subprocess.run([os.environ["KINESIFT"], "stats", "--format", "json", path],
                   capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"kinesift stats failed ({r.returncode}): {r.stderr}")
got = json.loads(r.stdout)
for threads in ("1", "4"):
    again = subprocess.run([os.environ["KINESIFT"], "stats", "--format", "json", "--threads", threads, path],
                           capture_output=True, text=True)
    if again.returncode != 0 or again.stdout != r.stdout:
        sys.exit(f"stats --threads {threads} differs from the default reading")
assert got["schema"] == "kinesift.stats/1"
(t,) = got["traces"]

def check(what, a, b):
    if a != b:
        sys.exit(f"{what}: kinesift {a!r}, python {b!r}")

check("events", t["events"], len(events))
check("by_phase", t["by_phase"], dict(collections.Counter(e["ph"] for e in events)))
cats = collections.Counter(e.get("cat", "(none)") for e in events)
check("by_category", t["by_category"], dict(cats))
dist = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
check("rank", t["rank"], dist.get("rank"))
check("world_size", t["world_size"], dist.get("world_size"))
def canon(v):
    # a canonical decimal string names the same thread as the number (2021 Kineto files)
    if isinstance(v, str) and v.lstrip("-").isdigit() and str(int(v)) == v:
        return int(v)
    return v

tracks = {(repr(canon(e.get("pid"))), repr(canon(e.get("tid")))) for e in events
          if e["ph"] not in ("M", "C") and "ts" in e and not (e["ph"] == "X" and "dur" not in e)}
check("tracks", len(t["tracks"]), len(tracks))
# stored: every event that is not metadata or a counter
check("stored", t["stored"], sum(1 for e in events if e["ph"] not in ("M", "C")))
steps = sum(1 for e in events if e.get("cat") in ("user_annotation", "Operator", "cpu_op")
            and e["ph"] == "X" and str(e.get("name", "")).startswith("ProfilerStep#"))
check("steps", t["steps"], steps)
bad = [d for d in t["diagnostics"] if d["severity"] != "info"]
if bad:
    sys.exit(f"unexpected diagnostics: {bad}")
print(f"ok: {sys.argv[1]}: {len(events)} events")
