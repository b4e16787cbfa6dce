#!/usr/bin/env python3
"""tests/insights/critpath_impact.py: a diagnosis's impact is its item's time on the critical path
when the path covers the denominator (impact_source "critical_path"), at most the heuristic bound.

fixtures/insights/sync_off_path.json, worked out by hand: one step of 1000 us (tid 1's annotation
ends at 600 us, its last kernel kB at 1000 us). tid 2 launches kA (20-200 us) and waits for it in
cudaStreamSynchronize (20-210 us): 180 us waiting on a busy GPU, then the GPU idles from 200 to
420 us (210 us of it after the call). The heuristic bound of sync_in_loop is the smaller, 180 us.
But kB is launched by tid 1 at 400 us after prep (0-400 us), which never waited for tid 2: the
path is prep (400 us), the launch call (5 us), its latency (15 us), kB (580 us), and nothing of it
is on tid 2. Removing the sync saves nothing: its impact is 0 (hidden under the 1 % floor), kB's
580 us and prep's 400 us are on the path whole."""
import json, os, subprocess

exe = os.environ["KINESIFT"]
trace = os.path.join(os.environ["KS_FIXTURES"], "insights", "sync_off_path.json")


def analyze(*args):
    r = subprocess.run([exe, "analyze", "--quiet", *args, trace], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="10000"))
    assert r.returncode == 0, r.stderr
    return r.stdout


(t,) = json.loads(analyze("--format", "json", "--all-diagnoses"))["traces"]
s = t["diagnoses_summary"]
assert s["denominator"] == "active steps" and s["denominator_ns"] == 1000000, s
d = {x["id"]: x for x in t["diagnoses"]}
sync = d["sync_in_loop"]
assert sync["impact_heuristic_ns"] == 180000, sync
assert sync["impact_ns"] == 0 and sync["impact_source"] == "critical_path" and sync["below_floor"], sync
assert "On the critical path of the active steps: 0 ns" in sync["evidence"] or \
    "On the critical path of the active steps: 0" in sync["evidence"], sync["evidence"]
k = d["dominant_kernel"]
assert k["impact_ns"] == 580000 and k["impact_heuristic_ns"] == 580000 and k["impact_source"] == "critical_path", k
op = d["dominant_op"]
assert op["impact_ns"] == 400000 and op["impact_source"] == "critical_path", op
# ranked by the path's figures: the kernel, the op, then the sync
assert [x["id"] for x in t["diagnoses"]] == ["dominant_kernel", "dominant_op", "sync_in_loop"], t["diagnoses"]

# at the default floor the sync is hidden and counted
(t,) = json.loads(analyze("--format", "json"))["traces"]
assert "sync_in_loop" not in [x["id"] for x in t["diagnoses"]] and t["diagnoses_summary"]["hidden"] == 1, t

text = analyze("--all-diagnoses")
assert "its time on the critical path of the active steps (without the path: 180.000 us" in text, text
# caveats carry no source
caveats = 0
for tr in json.loads(analyze("--format", "json", os.path.join(os.environ["KS_FIXTURES"], "insights",
                                                               "graph_capture.json")))["traces"]:
    for x in tr["diagnoses"]:
        if x["kind"] == "caveat":
            caveats += 1
            assert x["impact_source"] is None and x["impact_heuristic_ns"] is None, x
assert caveats, "graph_capture.json has its caveat"
print("ok")
