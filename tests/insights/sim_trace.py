"""tests/insights/sim_trace.py: what the what-if simulators (sim_whatif.py, sim_dataloader.py)
share: a simulated program's events as a Kineto-shaped Chrome trace, times written as exact decimal
text in us (kinesift reads them without floating point), running kinesift on it, and the law both
check on each step."""
import json, os, subprocess, sys

KINESIFT = os.environ["KINESIFT"]


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def chrome_trace(events, tids):
    """events: (thread, name, cat, ts, dur, args) with thread "gpu" (stream 7 of GPU 0) or a key of
    tids (CPU threads of process 1); the trace's text"""
    out = []
    for tid, name, cat, ts, dur, args in events:
        pid, t = (0, 7) if tid == "gpu" else (1, tids[tid])
        if tid != "gpu":
            args = {k: v for k, v in args.items() if k not in ("stream", "device")}
        out.append(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {pid}, "tid": {t}, '
                   f'"ts": {us(ts)}, "dur": {us(dur)}, "args": {json.dumps(args)}}}')
    out.append('{"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}}')
    return '{"schemaVersion": 1, "traceEvents": [\n' + ",\n".join(out) + "\n]}\n"


def kinesift(*args):
    r = subprocess.run([KINESIFT, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"kinesift {args} failed ({r.returncode}): {r.stderr}")
    return json.loads(r.stdout)


def write(tmp, name, prog):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(prog.trace())
    return path


def check_steps(tag, projected, rerun):
    """whatif's steps against the program re-run with the phase really faster: the unchanged model
    gives each measured step exactly (asserted), each projection is within 3 % of the re-run step
    (printed, ok or FAIL); the count of failures"""
    failures = 0
    for s, r in zip(projected, rerun):
        assert s["model_ns"] == s["measured_ns"], ("the unchanged model is the measured step", s)
        err = (s["projected_ns"] - r["wall_ns"]) / r["wall_ns"]
        ok = abs(err) <= 0.03
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {tag}: step {s['number']}: measured "
              f"{s['measured_ns'] / 1e6:8.3f} ms, projected {s['projected_ns'] / 1e6:8.3f} ms, re-run "
              f"{r['wall_ns'] / 1e6:8.3f} ms ({100 * err:+.2f} %)")
    return failures
