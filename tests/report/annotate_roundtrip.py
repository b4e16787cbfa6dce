#!/usr/bin/env python3
"""tests/report/annotate_roundtrip.py: `analyze` of a trace written by `annotate` equals `analyze`
of the original. annotate adds its tracks in a process named "kinesift" (categories "kinesift" and
"kinesift.critical_path"); the parser recognises them and leaves them out, counting them in the
diagnostic parse.kinesift_annotation. For every trace of fixtures/real (and the extra corpus):
annotate it, analyze both to JSON, and compare everything but the source path and that one
diagnostic; the text of the annotated trace names no "(kinesift)" device and no "[kinesift]"
category among its rows."""
import glob, json, os, subprocess, sys, tempfile

exe = os.environ["KINESIFT"]
paths = sys.argv[1:] or sorted(glob.glob(os.path.join(os.environ["KS_CORPUS"], "**", "*.json*"), recursive=True))
env = dict(os.environ, COLUMNS="10000")


def run(*args):
    r = subprocess.run([exe, *args], capture_output=True, text=True, env=env)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def normal(out, own):
    d = json.loads(out)
    for t in d["traces"]:
        t.pop("source", None)
        diags = t.get("diagnostics") or []
        mine = [x for x in diags if x["id"] == "parse.kinesift_annotation"]
        assert bool(mine) == own, (own, mine)
        t["diagnostics"] = [x for x in diags if x["id"] != "parse.kinesift_annotation"]
    return d


checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for path in paths:
        out = os.path.join(tmp, "annotated.json")
        run("annotate", "--quiet", "--force", path, "-o", out)
        before = normal(run("analyze", "--quiet", "--format", "json", path), False)
        after = normal(run("analyze", "--quiet", "--format", "json", out), True)
        if before != after:
            b, a = before["traces"][0], after["traces"][0]
            diff = [k for k in set(b) | set(a) if b.get(k) != a.get(k)]
            raise AssertionError("%s: analyze differs after annotate in %s" % (path, diff))
        text = run("analyze", "--quiet", out)
        assert "(kinesift)" not in text and "[kinesift]" not in text, (path, text)
        checked += 1
assert checked >= (1 if sys.argv[1:] else 10), checked
print("ok: %d traces" % checked)
