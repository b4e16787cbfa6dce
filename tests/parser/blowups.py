#!/usr/bin/env python3
"""tests/parser/blowups.py: memory out of proportion to the input (docs/robustness.md). Each case
runs the same command on a small and a large version of one hostile shape and compares the peak
resident memory of the two runs (os.wait4's ru_maxrss), never a wall-clock time, so it holds on a
loaded machine and under ASan:
  - a run of blanks between two events (also inside an event, after a key, before a ',') needs no
    memory: 48 MiB of blanks in a .json.gz cost what 1 MiB does (parse and redact).
  - --strict fails at the first repair inside one string: 24 MiB of control characters in a
    name cost what 1 MiB does (all of it was filtered, ~34 bytes a byte, before the error).
Where the blow-up was time, the CPU time (user + system, os.wait4) of the two runs is compared,
with room for the noise of a loaded machine but far below the old growth:
  - the GPU idle gaps seen from many threads (gaps x threads^2 before): 4x the threads and 4x the
    gaps must cost under 10x the CPU time of the small trace (64x and more before);
  - `ranks` over a zip and a tar of 1 200 tiny ranks (members^2 before): under 4x the CPU time of
    the same ranks in a directory (1 000x before)."""
import gzip, io, json, os, shutil, subprocess, sys, tarfile, tempfile, zipfile

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


def cpu(*args):
    """Exit status and the CPU time (user + system, seconds) of one run of kinesift."""
    p = subprocess.Popen([KS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime


def ratio(what, small_args, large_args, limit, floor=0.05):
    rs, cs = cpu(*small_args)
    rl, cl = cpu(*large_args)
    check(rs == 0 and rl == 0, f"{what}: exit {rs} / {rl}")
    r = cl / max(cs, floor)
    print(f"{what}: CPU {cs:.2f} s small, {cl:.2f} s 4x: {r:.1f}x")
    check(r < limit, f"{what}: 4x the input took {r:.1f}x the CPU time (at most {limit}x)")


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
        small, large = blanks(name, 1), blanks(name, 48)
        cmds = [["stats"], ["stats", "--threads", "1"]]
        if name != "after a key":  # redact keeps an unrewritten key until its value
            cmds.append(["redact", "--check"])
        for cmd in cmds:
            rs, es, ms = peak(*cmd, small)
            rl, el, ml = peak(*cmd, large)
            check(rs == rl and rs in (0, 1) and el.replace(large, small) == es,
                  f"blanks {name} {cmd}: exit {rs} / {rl}: {es[-200:]!r} / {el[-200:]!r}")
            print(f"blanks {name} {' '.join(cmd)}: peak RSS 1 MiB {ms / MiB:.1f} MiB, 48 MiB {ml / MiB:.1f} MiB")
            check(ml - ms < 24 * MiB, f"blanks {name} {cmd}: 47 MiB more blanks cost {(ml - ms) / MiB:.0f} MiB more memory")

    # ---- repairs inside one string: --strict fails at the first, without reading the string ----
    def control_string(mib):
        p = os.path.join(tmp, f"control{mib}.json")
        with open(p, "wb") as f:
            f.write(('{"traceEvents":[' + EV + ',{"ph":"X","name":"').encode())
            f.write(b"\x01" * (mib * MiB))
            f.write(b'","ts":1,"dur":2,"pid":1,"tid":1}]}')
        return p

    small, large = control_string(1), control_string(24)
    for cmd in (["stats", "--strict"], ["stats", "--strict", "--threads", "1"]):
        rs, es, ms = peak(*cmd, small)
        rl, el, ml = peak(*cmd, large)
        print(f"repairs {' '.join(cmd)}: peak RSS 1 MiB {ms / MiB:.1f} MiB, 24 MiB {ml / MiB:.1f} MiB")
        check(rs == 2 and rl == 2 and "malformed string: repaired_control_character (--strict)" in el
              and el.replace(large, small) == es, f"repairs {cmd}: exit {rs} / {rl}: {es!r} / {el!r}")
        check(ml - ms < 24 * MiB, f"repairs {cmd}: 23 MiB more control characters cost {(ml - ms) / MiB:.0f} MiB more "
              "memory before the first repair failed the parse")

    # ---- GPU idle gaps seen from many threads -----------------------------------------------
    def gaps_trace(n):
        """n CPU threads of one process, each with one short op, and n kernels launched from one
        thread with a 45 us idle gap after each."""
        ev = [{"ph": "X", "cat": "cpu_op", "name": f"op{t % 50}", "pid": 1, "tid": t + 2, "ts": (t * 97) % (n * 100),
               "dur": 1} for t in range(n)]
        for g in range(n):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": g * 100, "dur": 2, "args": {"correlation": g + 1}})
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": g * 100 + 5, "dur": 50,
                       "args": {"correlation": g + 1, "device": 0, "stream": 7}})
        p = os.path.join(tmp, f"gaps{n}.json")
        with open(p, "w") as f:
            json.dump({"traceEvents": ev}, f, separators=(",", ":"))
        return p

    small, large = gaps_trace(1000), gaps_trace(4000)
    for cmd in (["analyze", "--threads", "1", "--format", "json"], ["summarize", "--threads", "1"]):
        extra = ["-o", os.path.join(tmp, "s.kss.json"), "--force"] if cmd[0] == "summarize" else []
        ratio(f"gaps {cmd[0]}", [*cmd, *extra, small], [*cmd, *extra, large], 10)

    # ---- ranks over an archive of many tiny ranks ---------------------------------------------
    def rank(r, n):
        return json.dumps({"distributedInfo": {"rank": r, "world_size": n}, "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}).encode()

    def archives(n):
        d = os.path.join(tmp, f"ranks{n}")
        os.makedirs(d)
        z, t = d + ".zip", d + ".tar"
        with zipfile.ZipFile(z, "w") as zf, tarfile.open(t, "w") as tf:
            for r in range(n):
                b = rank(r, n)
                with open(os.path.join(d, f"rank{r}.json"), "wb") as f:
                    f.write(b)
                zf.writestr(f"rank{r}.json", b)
                ti = tarfile.TarInfo(f"rank{r}.json")
                ti.size = len(b)
                tf.addfile(ti, io.BytesIO(b))
        return d, z, t

    # the same ranks in a directory, a zip and a tar: the archives may cost a few times what the
    # directory does (libarchive per member), not members times more (before: 138 s against 0.14 s
    # for 4 000 ranks)
    d, z, t = archives(1200)
    for jobs in ("1", "3"):
        rd, cd = cpu("ranks", "-j", jobs, d)
        for name, arch in (("zip", z), ("tar", t)):
            ra, ca = cpu("ranks", "-j", jobs, arch)
            print(f"ranks -j {jobs}: 1 200 ranks in a directory CPU {cd:.2f} s, in a {name} {ca:.2f} s")
            # these ranks share no collective, so no wait is measured: exit 3 (docs/ranks.md),
            # the same for the directory and the archive
            check(rd == 3 and ra == rd, f"ranks -j {jobs} {name}: exit {rd} / {ra} (3 / 3 expected)")
            check(ca < 4 * max(cd, 0.05), f"ranks -j {jobs}: a {name} of 1 200 ranks took {ca / max(cd, 0.05):.1f}x the "
                  "CPU time of the same directory (at most 4x)")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ok")
