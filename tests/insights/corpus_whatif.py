#!/usr/bin/env python3
"""tests/insights/corpus_whatif.py: laws of `kinesift whatif --format json` on one real trace (an
absolute path, or a path relative to $KS_CORPUS), over the whole trace (--window trace):
  - the model (the replay without change) gives every step its measured time exactly, and no
    scaling (@gpu=1 and @cpu=1) projects every step at it;
  - scaling down (@gpu=0.5, @cpu=0.5, both) never projects a step longer than the model's replay;
  - without --window it replays the active steps, and without steps the whole trace;
  - the waits of a thread on another are reported per step (modelled plus not modelled) and per
    thread pair, adding up to the same time;
  - on hta/timeline_analysis/sampled_rank-0, the main thread's waits in `## backward ##` (tid 4037
    on the autograd thread, tid 23695) are modelled: more than 400 ms over its two steps."""
import json, os, subprocess, sys

path = os.path.join(os.environ["KS_CORPUS"], sys.argv[1])


def whatif(*shrink, window=("--window", "trace")):
    args = [a for s in shrink for a in ("--shrink", s)]
    r = subprocess.run([os.environ["KINESIFT"], "whatif", "--quiet", "--format", "json", *window,
                        *args, path], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"whatif {shrink} failed ({r.returncode}): {r.stderr}")
    (t,) = json.loads(r.stdout)["traces"]
    return t


same = whatif("@gpu=1", "@cpu=1")
for s in same["steps"]:
    assert s["projected_ns"] == s["model_ns"], ("no scaling moved the step", s)
    assert s["model_ns"] == s["measured_ns"], ("the unchanged model is not the measured step", s)
exact = sum(s["model_ns"] == s["measured_ns"] for s in same["steps"])
for shrink in (("@gpu=0.5",), ("@cpu=0.5",), ("@gpu=0.5", "@cpu=0.5")):
    t = whatif(*shrink)
    for s, base in zip(t["steps"], same["steps"]):
        assert s["model_ns"] == base["model_ns"], "the model's replay does not depend on the shrink"
        assert s["projected_ns"] <= s["model_ns"], (shrink, "projected longer", s)
    per_step = sum(s["waits_modeled_ns"] + s["waits_unmodeled_ns"] for s in t["steps"])
    assert per_step == sum(w["wait_ns"] for w in t["waits"]), "the waits per step and per thread pair differ"
    for w in t["waits"]:
        assert w["count"] > 0 and 0 <= w["lag_ns"] <= w["wait_ns"], w
        assert w["tid"] != w["on_tid"], w
# by default the active steps; without steps the whole trace (not the GPU span: its launch calls
# come before the first GPU work)
dflt = whatif("@gpu=1", "@cpu=1", window=())
if same["steps"] and same["steps"][0]["number"] is None:
    assert dflt["steps"] == same["steps"], "without steps, whatif replays the whole trace"
else:
    assert {s["number"] for s in dflt["steps"]} <= {s["number"] for s in same["steps"]}
modelled = {(w["tid"], w["on_tid"]): w["wait_ns"] for w in same["waits"] if w["modeled"]}
if sys.argv[1].endswith("timeline_analysis/sampled_rank-0.json.gz"):
    assert modelled.get(("4037", "23695"), 0) > 400 * 10**6, ("the backward waits are modelled", same["waits"])
print(f"ok: {sys.argv[1]}: {len(same['steps'])} steps ({exact} replayed exactly); "
      f"{sum(modelled.values())} ns of waits modelled")
