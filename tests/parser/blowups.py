#!/usr/bin/env python3
"""tests/parser/blowups.py: memory out of proportion to the input (docs/robustness.md). Each case
runs the same command on a small and a large version of one hostile shape and compares the peak
resident memory of the two runs (os.wait4's ru_maxrss), never a wall-clock time, so it holds on a
loaded machine and under ASan:
  - a run of blanks between two events (also inside an event, after a key, before a ',') needs no
    memory: 96 MiB of blanks in a .json.gz cost what 1 MiB does (parse and redact)."""
import gzip, os, shutil, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
failures = []
MiB = 1 << 20


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def peak(*args):
    """Exit status, stderr and the peak resident memory (bytes) of one run of kinesift."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen([KS, *args], stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read().decode(errors="replace"), ru.ru_maxrss * 1024


EV = '{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}'

tmp = tempfile.mkdtemp(prefix="ks_blowups_")
try:
    # ---- blanks: a run of blanks costs no memory --------------------------------------------
    shapes = {  # before the blanks, after them
        "between events": ('{"traceEvents":[' + EV + ',', EV + ']}'),
        "before a comma": ('{"traceEvents":[' + EV, ',' + EV + ']}'),
        "after a key": ('{"traceEvents":[' + EV + ',{"ph":"X","name":', '"b","ts":1,"dur":2,"pid":1,"tid":1}]}'),
        "after the trace": ('{"traceEvents":[' + EV + ']}', ''),
    }
    unit = b" \n\t\r" * (MiB // 4)

    def blanks(name, mib):
        pre, post = shapes[name]
        p = os.path.join(tmp, f"{name.replace(' ', '_')}{mib}.json.gz")
        with gzip.open(p, "wb", compresslevel=1) as f:
            f.write(pre.encode())
            for _ in range(mib):
                f.write(unit)
            f.write(post.encode())
        return p

    for name in shapes:
        small, large = blanks(name, 1), blanks(name, 96)
        cmds = [["stats"], ["stats", "--threads", "1"]]
        if name != "after a key":  # redact keeps an unrewritten key until its value
            cmds.append(["redact", "--check"])
        for cmd in cmds:
            rs, es, ms = peak(*cmd, small)
            rl, el, ml = peak(*cmd, large)
            check(rs == rl and rs in (0, 1) and el.replace(large, small) == es,
                  f"blanks {name} {cmd}: exit {rs} / {rl}: {es[-200:]!r} / {el[-200:]!r}")
            print(f"blanks {name} {' '.join(cmd)}: peak RSS 1 MiB {ms / MiB:.1f} MiB, 96 MiB {ml / MiB:.1f} MiB")
            check(ml - ms < 24 * MiB, f"blanks {name} {cmd}: 95 MiB more blanks cost {(ml - ms) / MiB:.0f} MiB more memory")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ok")
