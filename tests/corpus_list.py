#!/usr/bin/env python3
"""tests/corpus_list.py REAL EXTRA SUMMARY: the real traces the tests run over, for meson.

Prints the summary line (below) first, then one line per trace, "NAME<TAB>ABSOLUTE PATH", sorted: first every trace of REAL (the
repository's fixtures/real, named real/<relative path>), then every trace of the optional extra
directory EXTRA (named extra/<relative path>). EXTRA is the -Dcorpus option; when empty, the
KINESIFT_CORPUS environment variable at setup time; when both are empty there is no extra corpus.
An extra trace byte for byte equal to one of REAL is not listed again (the same tests on the same
bytes prove nothing more; CI's extra corpus is the upstream copy of fixtures/real). Writes one
line for the test summary into SUMMARY ("extra corpus: not given", or what it added).

A trace is any file whose name contains ".json" (.json, .json.gz, .json.zst, ...). A REAL
or EXTRA directory without traces, or one that does not exist, is an error (exit 1, and
meson setup fails): a test over nothing would pass silently."""
import hashlib
import os
import sys


def traces(root):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files if ".json" in f]
    return sorted(out)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    real, extra, summary = sys.argv[1], sys.argv[2], sys.argv[3]
    extra = extra or os.environ.get("KINESIFT_CORPUS", "")
    real_files = traces(real)
    if not real_files:
        sys.exit(f"corpus_list.py: no traces in {real}")
    lines = [f"real/{os.path.relpath(p, real)}\t{os.path.abspath(p)}" for p in real_files]
    if not extra:
        note = "extra corpus: not given"
    else:
        extra = os.path.abspath(extra)
        if not os.path.isdir(extra):
            sys.exit(f"corpus_list.py: extra corpus {extra}: not a directory")
        seen = {digest(p) for p in real_files}
        extra_files = traces(extra)
        if not extra_files:
            sys.exit(f"corpus_list.py: extra corpus {extra}: no traces in it")
        new = [p for p in extra_files if digest(p) not in seen]
        lines += [f"extra/{os.path.relpath(p, extra)}\t{p}" for p in new]
        note = (f"extra corpus: {extra}: {len(extra_files)} traces, {len(new)} run, "
                f"{len(extra_files) - len(new)} identical to fixtures/real (run once)")
    with open(summary, "w") as f:
        f.write(note + "\n")
    print("\n".join([note] + lines))


main()
