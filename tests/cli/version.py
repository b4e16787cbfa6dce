#!/usr/bin/env python3
"""tests/cli/version.py VERSION YAJL LIBARCHIVE OPENSSL PCRE2 CUDA: `kinesift --version` (and
`kinesift version`) name kinesift's version as meson.build sets it, and for yajl, libarchive,
OpenSSL and PCRE2 both the version running and the one built with, each equal to the version
pkg-config reported for the build (the arguments, from meson's dependency objects); the CUDA
line says "compiled in" exactly when the build has CUDA (CUDA = 1 or 0)."""
import os
import re
import subprocess
import sys

version, yajl, archive, openssl, pcre2, cuda = sys.argv[1:7]
exe = os.environ["KINESIFT"]
outs = [subprocess.run([exe, a], capture_output=True, text=True, check=True).stdout
        for a in ("--version", "version")]
assert outs[0] == outs[1], outs
lines = outs[0].splitlines()
assert lines[0] == "kinesift " + version, lines[0]


def line(prefix):
    hits = [l for l in lines if l.startswith(prefix)]
    assert len(hits) == 1, (prefix, lines)
    return hits[0]


def twice(text, ver, what):
    """ver appears as the running version and again after "built with"."""
    run, _, built = text.partition("(built with ")
    assert re.search(r"(^|[ /])%s\b" % re.escape(ver), run), (what, "running", text)
    assert re.search(r"(^| )%s\b" % re.escape(ver), built), (what, "built with", text)


twice(line("yajl "), yajl, "yajl")
twice(line("libarchive "), archive, "libarchive")
twice(line("OpenSSL "), openssl, "OpenSSL")
twice(line("PCRE2 "), pcre2, "PCRE2")
c = line("CUDA: ")
assert c.startswith("CUDA: compiled in" if cuda == "1" else "CUDA: not compiled in"), c
assert len(lines) == 6, lines
print(outs[0], end="")
