#!/usr/bin/env python3
"""tests/cli/terminal_codes.py: standard output to a terminal carries no terminal codes, whatever
the command and format (cli/terminal.c); to a pipe every byte of a name goes as it is. A trace
whose op, label and kernel names hold ESC sequences and other control characters is run under a
pseudo-terminal (Python's pty) and through a pipe."""
import json, os, pty, subprocess, sys, tempfile

KS = os.environ["KINESIFT"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def under_pty(args):
    m, s = pty.openpty()
    p = subprocess.Popen([KS, *args], stdout=s, stderr=subprocess.PIPE)
    os.close(s)
    out = b""
    while True:
        try:
            d = os.read(m, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not d:
            break
        out += d
    err = p.stderr.read()
    p.wait()
    os.close(m)
    return p.returncode, out, err


EVIL = "evil\u001b[31mRED\u001b]0;title\u0007\u0008x"


def trace(kernel_us):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
          {"ph": "X", "cat": "user_annotation", "name": "lab " + EVIL, "pid": 1, "tid": 1, "ts": 1, "dur": 50},
          {"ph": "X", "cat": "cpu_op", "name": "op " + EVIL, "pid": 1, "tid": 1, "ts": 2, "dur": 20},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 2,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "k " + EVIL, "pid": 0, "tid": 7, "ts": 10, "dur": kernel_us,
           "args": {"device": 0, "stream": 7, "correlation": 1}}]
    return {"traceEvents": ev}


with tempfile.TemporaryDirectory() as d:
    a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    json.dump(trace(20), open(a, "w"))
    json.dump(trace(30), open(b, "w"))
    runs = [["analyze", a], ["analyze", "--format", "csv", a], ["analyze", "--format", "folded", a],
            ["stats", a], ["whatif", "--shrink", "@cpu=0.5", a], ["diff", a, b], ["diff", "--format", "csv", a, b],
            ["diff", "--format", "markdown", a, b], ["ranks", "--format", "csv", a, b],
            ["ranks", "--format", "markdown", a, b], ["ranks", a, b]]
    for args in runs:
        rc, out, err = under_pty(args)
        check(rc in (0, 1, 3), "%s on a terminal: exit %d %r" % (args, rc, err[-300:]))
        bad = sorted({c for c in out if (c < 0x20 and c not in (0x0a, 0x0d, 0x09)) or c == 0x7f})
        # (the terminal itself turns each newline into CR LF)
        check(not bad, "%s on a terminal: control bytes %s" % (args, bad))
        if args[0] in ("analyze", "diff"):  # the commands that print the names
            check(b"evil" in out, "%s on a terminal: the name not shown" % args)
    # to a pipe the CSV and JSON keep the names exactly
    r = subprocess.run([KS, "analyze", "--format", "csv", a], capture_output=True)
    check(r.returncode == 0 and ("op " + EVIL).encode() in r.stdout, "csv to a pipe: the name exact")
    r = subprocess.run([KS, "analyze", "--format", "json", a], capture_output=True)
    names = {o["name"] for o in json.loads(r.stdout)["traces"][0]["ops"]}
    check("op " + EVIL in names, "json to a pipe: the name exact: %s" % names)

if failures:
    sys.exit("%d failure(s)" % len(failures))
print("ok: no terminal codes on a terminal, names exact in a pipe")
