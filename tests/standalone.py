#!/usr/bin/env python3
"""tests/standalone.py MESON SOURCE_ROOT: the test suite works from a copy of the repository
alone, with no directory beside it and no KINESIFT_CORPUS; and an extra corpus adds tests.

Why this way: building and running the whole suite in a copy would double the CI time (two
cores, two full builds already). What could break in a copy is (a) a file the tests need that is
not in the repository (an untracked or ignored trace), (b) a test that reads a path outside the
repository (../shared, the original checkout), (c) registration that depends on the extra
corpus. So the copy holds exactly the files git would commit (tracked, plus untracked files
git does not ignore: what a commit of this tree would hold; without git, the tree minus build
directories) in an empty temporary directory, and there:
  1. meson setup (tests on, CUDA off: compiling nothing) succeeds with no extra corpus, says
     "extra corpus: not given", and registers every corpus test over every trace of the copy's
     fixtures/real and nothing else; no test's command, arguments or environment names a path
     of the original checkout or a directory beside the copy;
  2. a handful of the copy's own tests (per-trace and named-trace ones, each family) pass under
     `meson test --no-rebuild`, with this build's kinesift binary put where the copy's build
     expects it (the binary is the same code; the tests, fixtures and harness are the copy's);
  3. a second setup with KINESIFT_CORPUS naming a directory of two traces, one byte-identical
     to a fixture and one not, registers the per-trace tests over the new one alone (extra/...),
     says so in its summary line, and one of them passes."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

MESON, SRC = sys.argv[1], os.path.realpath(sys.argv[2])
KINESIFT = os.environ["KINESIFT"]
failures = []
FAMILIES = ("parser-corpus", "analysis-corpus", "analysis-json", "analysis-threads",
            "compare-corpus", "redact-corpus")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, env=None, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, **kw)
    if p.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:],
                                                p.stderr[-4000:]))
    return p.stdout


def repo_files():
    if subprocess.run(["git", "-C", SRC, "rev-parse"], capture_output=True).returncode == 0:
        out = run(["git", "-C", SRC, "ls-files", "-z", "--cached", "--others",
                   "--exclude-standard"])
        return [f for f in out.split("\0") if f and os.path.isfile(os.path.join(SRC, f))]
    files = []
    for d, dirs, names in os.walk(SRC):
        dirs[:] = [x for x in dirs if not x.startswith("build") and x != ".git"]
        files += [os.path.relpath(os.path.join(d, n), SRC) for n in names]
    return files


def traces(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs if ".json" in f)


def setup(copy, build, env):
    out = run([MESON, "setup", build, "-Dtests=enabled", "-Dcuda=disabled"], env=env, cwd=copy)
    tests = json.loads(run([MESON, "introspect", "--tests", build], env=env))
    os.makedirs(os.path.join(build, "cli"), exist_ok=True)
    shutil.copy2(KINESIFT, os.path.join(build, "cli", "kinesift"))
    return out, tests


def run_tests(build, names, env):
    out = run([MESON, "test", "-C", build, "--no-rebuild", "--print-errorlogs", *names], env=env)
    ok = [l for l in out.splitlines() if l.startswith("Ok:")]
    check(ok and int(ok[0].split()[1]) == len(names), "copy: %s\n%s" % (names, out[-3000:]))


with tempfile.TemporaryDirectory() as tmp:
    copy = os.path.join(tmp, "kinesift")
    for f in repo_files():
        os.makedirs(os.path.dirname(os.path.join(copy, f)), exist_ok=True)
        shutil.copy2(os.path.join(SRC, f), os.path.join(copy, f))
    env = {k: v for k, v in os.environ.items() if k != "KINESIFT_CORPUS" and not k.startswith("KS_")}
    real = os.path.join(copy, "fixtures", "real")
    check(traces(real) == traces(os.path.join(SRC, "fixtures", "real")),
          "every trace of fixtures/real is in the repository (none untracked-and-ignored)")

    # 1. no extra corpus
    build = os.path.join(copy, "build")
    out, tests = setup(copy, build, env)
    check("extra corpus: not given" in out, "setup says: extra corpus: not given")
    check(open(os.path.join(build, "corpus-summary.txt")).read().strip() ==
          "extra corpus: not given", "corpus-summary.txt")
    for t in tests:
        blob = json.dumps([t["cmd"], t["env"]])
        check(SRC not in blob, "%s names the original checkout" % t["name"])
        check(os.path.join(tmp, "shared") not in blob and "/shared/" not in blob,
              "%s names a shared directory" % t["name"])
    expected = {"%s real/%s" % (fam, tr) for fam in FAMILIES for tr in traces(real)}
    got = {t["name"] for t in tests if t["name"].split(" ")[0] in FAMILIES and
           t["name"].split(" ")[-1].startswith(("real/", "extra/"))}
    check(not any("extra/" in t["name"] for t in tests), "no extra/ tests without an extra corpus")
    check(got == expected, "corpus tests over fixtures/real exactly: missing %s, extra %s"
          % (sorted(expected - got)[:5], sorted(got - expected)[:5]))
    for t in tests:
        if t["name"] in got:
            path = t["cmd"][-1]
            check(path.startswith(real + os.sep) and os.path.isfile(path),
                  "%s reads %s" % (t["name"], path))
    small = "hta/trace_compare/base/base.json.gz"
    run_tests(build, ["parser-corpus real/" + small, "analysis-json real/" + small,
                      "compare-corpus real/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                      "redact-corpus real/hta/triton_example/triton_example.json.gz",
                      "compare-diff-cli"], env)

    # 3. an extra corpus of one known and one new trace
    extra = os.path.join(tmp, "extra")
    os.makedirs(os.path.join(extra, "again"))
    shutil.copy2(os.path.join(real, small), os.path.join(extra, "again", "base.json.gz"))
    with gzip.open(os.path.join(real, small), "rb") as f, \
         open(os.path.join(extra, "plain.json"), "wb") as g:
        g.write(f.read())
    build2 = os.path.join(copy, "build-extra")
    out, tests = setup(copy, build2, dict(env, KINESIFT_CORPUS=extra))
    check("extra corpus: %s: 2 traces, 1 run, 1 identical to fixtures/real" % extra in out,
          "setup with an extra corpus says what it added")
    names = {t["name"] for t in tests}
    check({"%s extra/plain.json" % fam for fam in FAMILIES} <= names,
          "per-trace tests over extra/plain.json")
    check(not any("extra/again" in n for n in names), "no tests over a trace already in fixtures")
    check(expected <= names, "the fixtures/real tests are still there")
    run_tests(build2, ["parser-corpus extra/plain.json", "analysis-json extra/plain.json"], env)

if failures:
    sys.exit("%d failures" % len(failures))
print("ok: the suite registers and runs from a copy of the repository alone")
