#!/usr/bin/env python3
"""tests/redact/cli.py: `kinesift redact` on the command line: never over the input, never over
an existing file without --force, compression like the input or as asked, standard input and
output, archives into a directory, malformed input refused with its position and nothing left
behind, --check exit codes and output without values, the report, key handling (file,
environment, random), user rules, deny terms, --drop-arg/--keep-arg/--shapes."""
import gzip
import io
import json
import os
import re
import stat
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdlib  # noqa: E402
from rdlib import fail, run  # noqa: E402

TRACE = {
    "schemaVersion": 1,
    "username": "cliuser",
    "traceEvents": [
        {"ph": "X", "cat": "python_function", "name": "/home/cliuser/proj/m.py(9): fwd", "pid": 7,
         "tid": 7, "ts": 100.125, "dur": 3.5},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 101, "dur": 1,
         "args": {"Input Dims": [[2, 2]], "Module Hierarchy": "top.enc", "note": "mail cli@example.com",
                  "kernel_file": "/tmp/torchinductor_cliuser/a/b.py", "ticket": "see TICKET-4242",
                  "codename": "Project Nightjar"}},
    ],
}
SECRET = "ghp_" + "Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz2Bc4Df6"


def write(path, obj, gz=False):
    data = json.dumps(obj).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)
    return data


def leftovers(d):
    return [n for n in os.listdir(d) if n.startswith(".kinesift-redact")]


def main():
    os.umask(0o022)
    with tempfile.TemporaryDirectory() as tmp:
        key = rdlib.write_key(tmp)
        src = os.path.join(tmp, "in.json")
        data = write(src, TRACE)

        # --- never over the input, never over an existing file without --force --------
        for target in (src, os.path.join(tmp, ".", "in.json")):
            p = run(["redact", "-o", target, "--force", src], check_rc=2)
            if b"is the input" not in p.stderr:
                fail("writing over the input: %s" % p.stderr)
        os.link(src, os.path.join(tmp, "hardlink.json"))
        p = run(["redact", "-o", os.path.join(tmp, "hardlink.json"), "--force", src], check_rc=2)
        if open(src, "rb").read() != data:
            fail("the input changed")
        out = os.path.join(tmp, "out.json")
        with open(out, "w") as f:
            f.write("keep me")
        p = run(["redact", "-o", out, src], check_rc=2)
        if b"exists" not in p.stderr or open(out).read() != "keep me":
            fail("an existing output was replaced without --force")
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        p = run(["redact", "-o", fifo, "--force", src], check_rc=2)  # never replace a non-file
        if b"not a regular file" not in p.stderr or not stat.S_ISFIFO(os.stat(fifo).st_mode):
            fail("a FIFO output: %s" % p.stderr)
        run(["redact", "--quiet", "-o", out, "--force", src], check_rc=0)
        red = open(out, "rb").read()
        if b"cliuser" in red or not red.startswith(b"{"):
            fail("--force output wrong")
        if stat.S_IMODE(os.stat(out).st_mode) != 0o644:
            fail("output mode %o, want 644" % stat.S_IMODE(os.stat(out).st_mode))
        if leftovers(tmp):
            fail("temporary files left: %s" % leftovers(tmp))

        # --- compression --------------------------------------------------------------
        gsrc = os.path.join(tmp, "in.json.gz")
        write(gsrc, TRACE, gz=True)
        gout = os.path.join(tmp, "o1.json.gz")
        run(["redact", "--quiet", "-o", gout, gsrc], check_rc=0)
        if open(gout, "rb").read(2) != b"\x1f\x8b":
            fail("gzip input did not give gzip output")
        run(["redact", "--quiet", "--compress", "none", "-o", os.path.join(tmp, "o2.json"), gsrc],
            check_rc=0)
        if open(os.path.join(tmp, "o2.json"), "rb").read(1) != b"{":
            fail("--compress none gave compressed output")
        zout = os.path.join(tmp, "o3.json.zst")
        run(["redact", "--quiet", "--compress", "zst", "-o", zout, src], check_rc=0)
        if open(zout, "rb").read(4) != b"\x28\xb5\x2f\xfd":
            fail("--compress zst did not give zstd")
        st = json.loads(run(["stats", "--format", "json", "--quiet", zout], check_rc=0).stdout)
        if st["traces"][0]["events"] != 2:
            fail("zstd output unreadable")
        p = run(["redact", "-o", os.path.join(tmp, "o4.json"), gsrc], check_rc=0)
        if b"like the input" not in p.stderr:
            fail("no warning for a gzip output named .json")

        # --- stdin to stdout ----------------------------------------------------------
        p = run(["redact", "--quiet", "--key-file", key, "-"], stdin=data, check_rc=0)
        q = run(["redact", "--quiet", "--key-file", key, src], check_rc=0)
        if p.stdout != q.stdout or b"cliuser" in p.stdout:
            fail("stdin and file give different output")
        json.loads(p.stdout)

        # --- an archive of ranks into a directory, tokens shared --------------------------
        tarp = os.path.join(tmp, "ranks.tar")
        with tarfile.open(tarp, "w") as t:
            for r in (0, 1):
                b = json.dumps(TRACE).encode()
                ti = tarfile.TarInfo("job/cliuser-box_%d.1700000000.pt.trace.json" % (100 + r))
                ti.size = len(b)
                t.addfile(ti, io.BytesIO(b))
        run(["redact", "--quiet", tarp], check_rc=2)  # several traces need -o DIR
        odir = os.path.join(tmp, "outdir")
        run(["redact", "--quiet", "--key-file", key, "-o", odir, tarp], check_rc=0)
        names = sorted(os.listdir(odir))
        if len(names) != 2 or any("cliuser" in n for n in names) or \
                not all(n.endswith(".pt.trace.json") for n in names):
            fail("archive outputs: %s" % names)
        toks = [re.findall(rb"user-[0-9a-f]{8}", open(os.path.join(odir, n), "rb").read()) for n in names]
        if not toks[0] or toks[0] != toks[1]:
            fail("ranks got different tokens for one user")
        run(["redact", "--quiet", "--key-file", key, "-o", odir, tarp], check_rc=2)  # exist
        # a user learned from the second input, mentioned in the first: caught up afterwards
        a1, a2 = os.path.join(tmp, "rank0.json"), os.path.join(tmp, "rank1.json")
        write(a1, {"traceEvents": [{"ph": "i", "ts": 1, "pid": 1, "tid": 1, "s": "t",
                                    "name": "launched by laterlearned"}]})
        write(a2, {"username": "laterlearned", "traceEvents": []})
        odir2 = os.path.join(tmp, "outdir2")
        p = run(["redact", "--key-file", key, "-o", odir2, a1, a2], check_rc=0)
        for n in os.listdir(odir2):
            if b"laterlearned" in open(os.path.join(odir2, n), "rb").read():
                fail("a literal learned from a later input survived in %s" % n)
        if b"redacted again" not in p.stderr:
            fail("no catch-up pass reported: %s" % p.stderr)

        # --- malformed input ------------------------------------------------------------
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"traceEvents": [\n  {"ph": "X", "ts": 1 "dur": 2}\n]}\n')
        bout = os.path.join(tmp, "bad-out.json")
        p = run(["redact", "-o", bout, bad], check_rc=2)
        line = p.stderr.decode().strip()
        if not re.fullmatch(r"kinesift: .*bad\.json: byte \d+ \(line 2, column \d+\): .+", line):
            fail("malformed input message: %r" % line)
        if os.path.exists(bout) or leftovers(tmp):
            fail("a refused input left files behind")
        run(["redact", "--check", bad], check_rc=2)

        # --- --check ----------------------------------------------------------------------
        leak = dict(TRACE)
        leak["traceEvents"] = TRACE["traceEvents"] + [
            {"ph": "i", "ts": 5, "pid": 7, "tid": 7, "s": "t", "name": "x", "args": {"t": "key " + SECRET}}]
        lp = os.path.join(tmp, "leak.json")
        write(lp, leak)
        p = run(["redact", "--check", lp], check_rc=1)
        if SECRET.encode() in p.stdout or b"github-token" not in p.stdout or b"traceEvents[2].args.t" not in p.stdout:
            fail("check output: %s" % p.stdout)
        p = run(["redact", "--check", "--format", "json", lp], check_rc=1)
        doc = json.loads(p.stdout)
        if doc["clean"] or SECRET.encode() in p.stdout:
            fail("check json")
        run(["redact", "--check", out], check_rc=0)

        # --- report -----------------------------------------------------------------------
        rj = os.path.join(tmp, "report.json")
        run(["redact", "--quiet", "--key-file", key, "--report-json", rj, "-o", os.path.join(tmp, "o5.json"), lp],
            check_rc=0)
        rep = json.load(open(rj))
        if rep["key"] != "file" or rep["rules"]["github-token"]["replaced"] != 1 or \
                rep["rules"]["username"]["replaced"] != 1 or rep["distinct"]["user"] != 1:
            fail("report: %r" % rep)
        if "best-effort" not in rep["notice"] or b"cliuser" in open(rj, "rb").read():
            fail("report notice or values")

        # --- keys -------------------------------------------------------------------------
        a = run(["redact", "--quiet", "--key-file", key, src], check_rc=0).stdout
        env = dict(os.environ, KINESIFT_REDACT_KEY=rdlib.KEY)
        import subprocess
        b = subprocess.run([rdlib.KINESIFT, "redact", "--quiet", src], env=env, capture_output=True).stdout
        if a != b:
            fail("the environment key and the same key in a file differ")
        env.pop("KINESIFT_REDACT_KEY")
        r1 = subprocess.run([rdlib.KINESIFT, "redact", src], env=env, capture_output=True)
        r2 = subprocess.run([rdlib.KINESIFT, "redact", "--quiet", src], env=env, capture_output=True)
        if r1.stdout == r2.stdout or b"random" not in r1.stderr:
            fail("random keys: same tokens twice, or not said")
        short = os.path.join(tmp, "short.key")
        with open(short, "w") as f:
            f.write("tooshort\n")
        p = run(["redact", "--key-file", short, src], check_rc=2)
        if b"at least 32" not in p.stderr:
            fail("short key accepted")

        # --- user rules, deny terms, arg options ------------------------------------------
        rules = os.path.join(tmp, "rules.json")
        with open(rules, "w") as f:
            json.dump([{"name": "ticket", "pattern": "TICKET-[0-9]+", "class": "secret"}], f)
        deny = os.path.join(tmp, "deny.txt")
        with open(deny, "w") as f:
            f.write("# code names\nNightjar\n")
        p = run(["redact", "--quiet", "--rules", rules, "--deny-file", deny, "--shapes",
                 "--drop-arg", "Module Hierarchy", "--keep-arg", "kernel_file", src], check_rc=0)
        o = json.loads(p.stdout)["traceEvents"][1]["args"]
        if o["ticket"] != "see [REDACTED:ticket]" or "Nightjar" in o["codename"] or \
                o["Input Dims"] != "__stripped__" or o["Module Hierarchy"] != "__stripped__" or \
                o["kernel_file"] != "/tmp/torchinductor_cliuser/a/b.py":
            fail("options: %r" % o)
        # a terms file without end, or with a NUL byte, is refused with one line naming it
        for bad, what in (("/dev/zero", b"larger than"), (os.path.join(tmp, "nul.txt"), b"NUL byte")):
            if bad.endswith("nul.txt"):
                with open(bad, "wb") as f:
                    f.write(b"term\0more\n")
            p = run(["redact", "--deny-file", bad, "-o", os.path.join(tmp, "never.json"), src],
                    check_rc=2)
            if what not in p.stderr or bad.encode() not in p.stderr or p.stderr.count(b"\n") != 1 \
                    or os.path.exists(os.path.join(tmp, "never.json")):
                fail("deny file %s: %r" % (bad, p.stderr))
        # a pattern that hits PCRE2's match limit on one string fails closed for that string
        # only: it goes whole ([REDACTED:unscannable], counted), the rest is still redacted, and
        # --check reports it (one detector)
        boom = os.path.join(tmp, "boom.json")
        with open(boom, "w") as f:
            json.dump([{"name": "boom", "pattern": "^(\\w+\\s?)*$", "class": "secret"}], f)
        hostile = os.path.join(tmp, "hostile.json")
        write(hostile, {"traceEvents": [
            {"ph": "X", "name": "a" * 40 + "!", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
            {"ph": "X", "name": "/home/limituser/p/x.py", "ts": 2, "dur": 1, "pid": 1, "tid": 1}]})
        p = run(["redact", "--rules", boom, "--report", "--compress", "none", "-o", "-", hostile],
                check_rc=0)
        names = [e["name"] for e in json.loads(p.stdout)["traceEvents"]]
        if names[0] != "[REDACTED:unscannable]" or "limituser" in names[1] or \
                not re.search(rb"unscannable +secret +1", p.stderr):
            fail("match limit: %r %r" % (names, p.stderr))
        doc = rdlib.check_json(hostile, ("--rules", boom))
        if rdlib.by_rule(doc).get("unscannable") != 1:
            fail("--check does not report the unscannable string: %r" % doc["traces"][0]["by_rule"])
        p = run(["redact", "--rules", os.path.join(tmp, "nope.json"), src], check_rc=2)
        run(["redact", "--compress", "lz4", src], check_rc=2)
        run(["redact", "--check", "-o", out, src], check_rc=2)
        p = run(["redact", "--help"], check_rc=0)
        if b"--check" not in p.stdout:
            fail("help")
    print("cli: all behaviours as documented")


main()
