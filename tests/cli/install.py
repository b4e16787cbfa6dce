#!/usr/bin/env python3
"""tests/cli/install.py MESON BUILD_DIR: `meson install` into a temporary DESTDIR puts in place
what a user or packager expects, and a program builds against it with pkg-config alone.

Checks: the binary; libkinesift shared (real file libkinesift.so.X.Y.Z, soname libkinesift.so.X
as readelf reads it, both links) and static (holding ks_analyze); the public headers; kinesift.pc;
a man page kinesift(1) and kinesift-CMD(1) for each command `kinesift --help` lists; the bash
completion. Then examples/c-api/gpu_busy.c is compiled with `cc $(pkg-config --cflags --libs
kinesift)` (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR pointing into the DESTDIR), shown by ldd
to load the installed library, and run on real traces with and without GPU work: its busy and
span figures must be those of `kinesift analyze --format json`, and a trace without GPU work
must say "not observed" exactly where analyze has gpu = null. The Python package (with
-Dpython enabled or auto and an interpreter found): installed where that interpreter looks for
the prefixes /usr and /usr/local (its sys.path), its _config.py naming the installed libdir, and
it runs from the DESTDIR with the installed library (found by the system's loader)."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

MESON, BUILD = sys.argv[1], sys.argv[2]
KINESIFT = os.environ["KINESIFT"]
ROOT = os.environ["KS_SOURCE_ROOT"]
REAL = os.path.join(os.environ["KS_FIXTURES"], "real")
TRACES = ["hta/trace_compare/base/base.json.gz",            # NVIDIA, one device
          "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",  # AMD
          "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"]  # no GPU work
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    if p.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


opts = {o["name"]: o["value"] for o in json.loads(run([MESON, "introspect", BUILD, "--buildoptions"]))}
version = json.loads(run([MESON, "introspect", BUILD, "--projectinfo"]))["version"]
major = version.split(".")[0]
commands = []
inside = False
for line in run([KINESIFT, "--help"]).splitlines():
    if line == "Commands:":
        inside = True
    elif inside and not line.strip():
        break
    elif inside and not line.startswith("   ") and line.split()[0] != "help":  # not a continuation
        commands.append(line.split()[0])
check(len(commands) >= 7, "commands in --help: %s" % commands)

with tempfile.TemporaryDirectory() as dest:
    run([MESON, "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir", dest])
    pre = dest + opts["prefix"]
    libdir = os.path.join(pre, opts["libdir"])

    def present(rel, base=pre):
        path = os.path.join(base, rel)
        check(os.path.exists(path), "installed: " + path[len(dest):])
        return path

    present(os.path.join(opts["bindir"], "kinesift"))
    real_so = present("libkinesift.so." + version, libdir)
    check(os.path.realpath(os.path.join(libdir, "libkinesift.so." + major)) == real_so and
          os.path.realpath(os.path.join(libdir, "libkinesift.so")) == real_so,
          "libkinesift.so and libkinesift.so.%s link to libkinesift.so.%s" % (major, version))
    soname = re.search(r"Library soname: \[(.*)\]", run(["readelf", "-d", real_so]))
    check(soname and soname.group(1) == "libkinesift.so." + major, "soname: %s" % soname)
    static = present("libkinesift.a", libdir)
    check(" T ks_analyze" in run(["nm", static]), "libkinesift.a defines ks_analyze")
    for h in sorted(os.listdir(os.path.join(ROOT, "include", "kinesift"))):
        present(os.path.join(opts["includedir"], "kinesift", h))
    pcdir = present("pkgconfig", libdir)
    present("kinesift.pc", pcdir)
    man1 = os.path.join(opts["mandir"], "man1")
    for page in ["kinesift"] + ["kinesift-" + c for c in commands]:
        path = present(os.path.join(man1, page + ".1"))
        if os.path.exists(path):
            head = open(path).read().split("\n", 1)[0]
            check(head.startswith('.TH "%s" "1"' % page.upper()), "%s.1 title: %s" % (page, head))
    comp = glob.glob(os.path.join(dest, "**", "bash-completion", "completions", "kinesift"),
                     recursive=True)
    check(len(comp) == 1, "bash completion installed under .../bash-completion/completions")

    # a program built against the installed kinesift.pc alone
    env = dict(os.environ, PKG_CONFIG_PATH=pcdir, PKG_CONFIG_SYSROOT_DIR=dest)
    flags = run(["pkg-config", "--cflags", "--libs", "kinesift"], env=env).split()
    check(("-I" + os.path.join(pre, opts["includedir"])) in flags and ("-L" + libdir) in flags,
          "pkg-config flags point into the DESTDIR: %s" % flags)
    exe = os.path.join(dest, "gpu_busy")
    # a sanitizer build's libkinesift needs the program built with the same sanitizers
    san = [] if opts["b_sanitize"] in ("none", [], "") else \
        ["-fsanitize=" + (opts["b_sanitize"] if isinstance(opts["b_sanitize"], str)
                          else ",".join(opts["b_sanitize"]))]
    run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *san,
         os.path.join(ROOT, "examples", "c-api", "gpu_busy.c")] + flags + ["-o", exe])
    renv = dict(os.environ, LD_LIBRARY_PATH=libdir)
    check(real_so in run(["ldd", exe], env=renv) or libdir in run(["ldd", exe], env=renv),
          "gpu_busy loads the installed libkinesift")
    for rel in TRACES:
        path = os.path.join(REAL, rel)
        out = run([exe, path], env=renv).splitlines()
        doc = json.loads(run([KINESIFT, "analyze", "--quiet", "--format", "json", path]))
        gpu = doc["traces"][0]["gpu"]
        if gpu is None:
            check(len(out) == 1 and "GPU not observed" in out[0], "%s: %s" % (rel, out))
            continue
        check(len(out) == len(gpu), "%s: %d lines for %d devices" % (rel, len(out), len(gpu)))
        for line, g in zip(out, gpu):
            m = re.search(r"device (-?\d+): busy (\d+) ns of span (\d+) ns, busy share ([0-9.]+)",
                          line)
            check(m is not None, "%s: line %r" % (rel, line))
            if m:
                d, busy, span, share = int(m[1]), int(m[2]), int(m[3]), float(m[4])
                check((d, busy, span) == (g["device"], g["busy_ns"], g["span_ns"]),
                      "%s: %s against analyze %s" % (rel, line, g))
                check(abs(share - g["busy_share"]) < 1e-5, "%s: share %s against %s"
                      % (rel, share, g["busy_share"]))
                check(busy > 0, "%s: a GPU trace with busy 0" % rel)

    # the Python package, where meson put it (meson introspect --installed: its targets)
    installed = json.loads(run([MESON, "introspect", BUILD, "--installed"]))
    pkg = [dst for src, dst in installed.items() if dst.endswith(os.path.join("kinesift", "__init__.py"))]
    if opts.get("python") != "disabled" and pkg:
        pkgdir = os.path.dirname(pkg[0])
        for f in ("__init__.py", "_lib.py", "_tables.py", "_config.py"):
            check(os.path.exists(dest + os.path.join(pkgdir, f)), "installed: " + os.path.join(pkgdir, f))
        pyexe = opts.get("python_exe") or ("/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3")
        path = json.loads(run([pyexe, "-c", "import json, sys; print(json.dumps(sys.path))"]))
        if opts["prefix"] in ("/usr", "/usr/local"):
            check(os.path.dirname(pkgdir) in path, "%s is on %s's sys.path %s" % (os.path.dirname(pkgdir), pyexe, path))
        cfg = {}
        exec(open(dest + os.path.join(pkgdir, "_config.py")).read(), cfg)
        check(cfg["LIBDIR"] == os.path.join(opts["prefix"], opts["libdir"]), "_config.py LIBDIR %s" % cfg["LIBDIR"])
        if subprocess.run([pyexe, "-c", "import pandas"], capture_output=True).returncode == 0 and \
                opts["b_sanitize"] in ("none", [], ""):
            env = {k: v for k, v in os.environ.items() if k != "KINESIFT_LIB"}
            env.update(PYTHONPATH=dest + os.path.dirname(pkgdir), LD_LIBRARY_PATH=libdir)
            trace = os.path.join(REAL, TRACES[0])
            out = run([pyexe, "-c", "import kinesift, sys; r = kinesift.analyze(sys.argv[1]); "
                       "print(kinesift.__file__); print(kinesift.library_path()); print(int(r.ops.self_ns.sum()))",
                       trace], env=env, cwd=dest).split()
            doc = json.loads(run([KINESIFT, "analyze", "--quiet", "--format", "json", trace]))
            check(out[0].startswith(dest), "the package imported from the DESTDIR: %s" % out[0])
            check(out[2] == str(sum(o["self_ns"] for o in doc["traces"][0]["ops"])), "installed package's ops: %s" % out)
    elif opts.get("python") == "enabled":
        check(False, "-Dpython=enabled but no Python package installed")

if failures:
    sys.exit("%d failures" % len(failures))
print("ok: installed tree, pkg-config build and gpu_busy on %d traces" % len(TRACES))
