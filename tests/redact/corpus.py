#!/usr/bin/env python3
"""tests/redact/corpus.py TRACE: one real trace (absolute, or relative to $KS_CORPUS) through redact.
The output must parse, keep every event with its timing fields as text, give the same
`kinesift stats` (and `analyze`, once it exists), pass `redact --check`, and come out of a
second redaction with the same key byte for byte. `--check` on the original must find
something exactly when redaction changed something, and flag every place redaction changed (a
string, a key, a number or a stripped block: the same JSON path)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdlib  # noqa: E402

rel = sys.argv[1]
src = rdlib.corpus_path(rel)
with tempfile.TemporaryDirectory() as tmp:
    key = rdlib.write_key(tmp)
    out1 = os.path.join(tmp, "out1.json")
    out2 = os.path.join(tmp, "out2.json")
    rdlib.run(["redact", "--quiet", "--key-file", key, "--compress", "none", "-o", out1, src],
              check_rc=0)
    raw_in, raw_out = rdlib.read_bytes(src), rdlib.read_bytes(out1)
    a, b = rdlib.load_raw(raw_in), rdlib.load_raw(raw_out)
    n = rdlib.timing_equal(a, b, rel)
    rdlib.stats_equal(src, out1, rel)
    analyzed = rdlib.analyze_equal(src, out1, rel)
    doc = rdlib.check_json(out1)
    if doc["findings"]:
        rdlib.fail("%s: redacted output not clean: %r" % (rel, doc["traces"][0]["shown"][:5]))
    rdlib.run(["redact", "--quiet", "--key-file", key, "--compress", "none", "-o", out2, out1],
              check_rc=0)
    if rdlib.read_bytes(out2) != raw_out:
        rdlib.fail("%s: not idempotent: a second redaction changed the output" % rel)
    orig = rdlib.check_json(src)
    # --check finds at least everything redact changes: each changed string, key, number or
    # stripped block is a finding at the same path on the input
    covered = rdlib.check_covers(src, raw_in, raw_out, rel)
    if (orig["findings"] > 0) != (raw_in != raw_out):
        rdlib.fail("%s: check found %d, but redaction %s the file" % (
            rel, orig["findings"], "changed" if raw_in != raw_out else "did not change"))
    # top-level keys: only the allowlist, the pseudonymised ones, or "__stripped__"
    if isinstance(b, dict):
        for k, v in b.items():
            if k not in a:
                rdlib.fail("%s: new top-level key %s" % (rel, k))
    # the synthetic Hugging Face token of the tracelens/h100 traces must be caught
    if b"HF_TOKEN" in raw_in:
        if b"hf_KsSynthetic" not in raw_in or b"hf_KsSynthetic" in raw_out:
            rdlib.fail("%s: the HF_TOKEN value survived" % rel)
        if rdlib.by_rule(orig).get("sensitive-key", 0) < 1:
            rdlib.fail("%s: --check did not flag HF_TOKEN" % rel)
    print("%s: %d events, %d findings before (covering all %d changed places), clean after, idempotent%s" % (
        rel, n, orig["findings"], covered, ", analyze equal" if analyzed else ""))
