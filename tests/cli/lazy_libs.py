#!/usr/bin/env python3
"""tests/cli/lazy_libs.py: libarchive, libcrypto, ISA-L and PCRE2 are loaded when a run needs
them, not at every start (common/lazylib.h: ~5 ms of each run, and ~0.1 ms for ISA-L and PCRE2).

What: runs `kinesift` with the dynamic loader's trace (LD_DEBUG=files, glibc) and reads which
libraries were loaded and how: none is a dependency of the binary ("needed by"); analysing a
plain trace (a file, and one with a byte order mark) loads none; a gzip trace loads ISA-L alone;
a tar, an xz trace, a file that is not JSON and standard input load libarchive (dynamically,
once) and not libcrypto, and ISA-L only where a gzip stream is decoded (a tar's .json.gz member,
gzip on standard input); redact loads libcrypto; --version loads all but ISA-L. PCRE2 is loaded
by the first regular expression: the gaps of a trace with GPU work (its default data-loading
pattern), a regex option (even one a usage error then stops), redact's rules; not by a trace
with CPU work alone, `stats`, or `--help`. The outputs are checked too: the tar, the gzip trace
on standard input, the tar's .json.gz member and the plain file give the same analysis.
Why it is correct: LD_DEBUG=files prints one "file=NAME ...; dynamically loaded by" line per
dlopen that maps a library and "needed by" for what the ELF file itself requires; nothing else
loads a library.
When it does not apply: a libc without LD_DEBUG (musl): the test says so and passes (exit 77 is
a skip for meson). Who may use it: meson test (suite cli)."""
import gzip
import io
import lzma
import os
import re
import subprocess
import sys
import tarfile
import tempfile

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]
trace = os.path.join(fixtures, "example", "train_step.json")
gz = os.path.join(fixtures, "real", "hta", "critical_path", "cuda_event_sync", "event_sync_trace.json.gz")
fails = []


def loads(args, stdin=None, want_rc=0):
    env = dict(os.environ, LD_DEBUG="files")
    r = subprocess.run([exe] + args, input=stdin, capture_output=True, env=env)
    err = r.stderr.decode(errors="replace")
    if r.returncode != want_rc:
        fails.append("%s: exit %d, not %d: %s" % (args, r.returncode, want_rc, err[-400:]))
    got = {}
    for m in re.finditer(r"file=(lib(?:archive|crypto|isal|pcre2-8))\.so[.\d]* \[\d+\];\s+(needed by|dynamically loaded by)", err):
        got.setdefault(m.group(1), set()).add(m.group(2))
    return got, r.stdout


def expect(args, archive, crypto, isal=False, pcre2=None, stdin=None, want_rc=0):
    """pcre2=None: not checked (whether the trace's gaps ran)"""
    got, out = loads(args, stdin, want_rc)
    libs = [("libarchive", archive), ("libcrypto", crypto), ("libisal", isal)]
    if pcre2 is not None:
        libs.append(("libpcre2-8", pcre2))
    for lib, want in libs:
        how = got.get(lib, set())
        if "needed by" in how:
            fails.append("%s: %s is a load-time dependency" % (args, lib))
        if ("dynamically loaded by" in how) != want:
            fails.append("%s: %s %s" % (args, lib, "not loaded" if want else "loaded"))
    return out


probe = subprocess.run([exe, "--help"], capture_output=True, env=dict(os.environ, LD_DEBUG="files"))
if b"file=" not in probe.stderr:
    print("lazy_libs: LD_DEBUG=files prints nothing here (not glibc?): skipped")
    sys.exit(77)

with tempfile.TemporaryDirectory() as d:
    data = open(trace, "rb").read()
    bom = os.path.join(d, "bom.json")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf\n  " + data)
    tar = os.path.join(d, "ranks.tar")
    with tarfile.open(tar, "w") as t:
        info = tarfile.TarInfo("{rank0}.json")  # a name that starts like JSON
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    tgz = os.path.join(d, "ranks-gz.tar")
    with tarfile.open(tgz, "w") as t:
        zdata = gzip.compress(data)
        info = tarfile.TarInfo("rank0.json.gz")
        info.size = len(zdata)
        t.addfile(info, io.BytesIO(zdata))
    xz = os.path.join(d, "t.json.xz")
    with open(xz, "wb") as f:
        f.write(lzma.compress(data))
    notjson = os.path.join(d, "notjson.json")
    with open(notjson, "wb") as f:
        f.write(b"traceEvents")

    a = ["analyze", "--format", "json", "--quiet"]
    plain_out = expect(a + [trace], archive=False, crypto=False, pcre2=True)
    cpu = os.path.join(d, "cpu.json")  # CPU work alone: no gaps, no regular expression
    with open(cpu, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, '
                '"tid": 1, "ts": 1, "dur": 5}]}')
    expect(a + [cpu], archive=False, crypto=False, pcre2=False)
    expect(a + ["--data-label", "load", cpu], archive=False, crypto=False, pcre2=True)
    expect(a + ["--step-label", "(", cpu], archive=False, crypto=False, pcre2=True, want_rc=2)
    expect(["--help"], archive=False, crypto=False, pcre2=False)
    expect(a + [bom], archive=False, crypto=False)
    expect(a + [gz], archive=False, crypto=False, isal=True)
    expect(["stats", "--quiet", trace], archive=False, crypto=False, pcre2=False)
    tar_out = expect(a + [tar], archive=True, crypto=False)
    expect(a + [xz], archive=True, crypto=False)
    expect(a + [notjson], archive=True, crypto=False, want_rc=2)
    expect(a + ["-"], archive=True, crypto=False, stdin=data)
    stdin_gz_out = expect(a + ["-"], archive=True, crypto=False, isal=True, stdin=gzip.compress(data))
    tgz_out = expect(a + [tgz], archive=True, crypto=False, isal=True)
    expect(["redact", "-o", os.path.join(d, "r.json"), trace], archive=False, crypto=True, pcre2=True)
    expect(["--version"], archive=True, crypto=True, pcre2=True)
    # the same trace read by source.c and by libarchive: the same analysis (names aside)
    strip = lambda b: re.sub(rb'"(source|input|name|path)": "[^"]*"', b"", b)
    for what, out in (("the tar", tar_out), ("gzip on standard input", stdin_gz_out),
                      ("the tar of a .json.gz", tgz_out)):
        if strip(plain_out) != strip(out) or not plain_out:
            fails.append("%s: its analysis differs from the plain file's" % what)

for f in fails:
    print("FAIL:", f)
print("lazy_libs: %d checks failed" % len(fails))
sys.exit(1 if fails else 0)
