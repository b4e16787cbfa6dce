#!/usr/bin/env python3
"""tests/python/test_binding.py TRACE...: the Python package (python/kinesift) against the
command, on every real trace given (fixtures/real and the -Dcorpus directory).

- every table of kinesift.analyze is the CLI's `analyze --format json` table: the document
  (to_json) is the CLI's stdout byte for byte, and each array of objects of the document, walked
  here by the rule of kinesift/tables.h (objects in a row flattened to "a.b", arrays of scalars as
  cells), has a DataFrame with the same rows and, cell by cell, the same values: integers exact
  in int64 (nullable Int64 where the JSON has a null there, never float), null as NA (never 0),
  doubles equal at the JSON's 6 significant digits;
- stats, diff, ranks and redact: the document is the CLI's, and redact's output file is the
  CLI's for the same key;
- bad inputs (truncated, binary, empty, nonexistent, a directory, a cut gzip) raise
  kinesift.Error with the CLI's one-line message, positions as attributes; bad options raise
  OptionError; the interpreter lives on;
- the GIL is released during parse and analysis: another thread runs meanwhile;
- the package finds the library from the build tree (no KINESIFT_LIB), and `pip install` of
  python/ works offline (--no-index --no-build-isolation) into a temporary directory.

Runs with an interpreter that has pandas (Debian's /usr/bin/python3, python3-pandas); exits 77
(meson: skipped) when this one has none."""
import gc
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    import numpy as np
    import pandas as pd
except ImportError:
    print("skipped: pandas and numpy are not installed for", sys.executable)
    sys.exit(77)

KINESIFT = os.environ["KINESIFT"]
BUILD_PY = os.environ["KS_BUILD_PYTHON"]  # build/python: the build tree's copy of the package
SOURCE = os.environ["KS_SOURCE_ROOT"]
TRACES = [a for a in sys.argv[1:] if not a.startswith("-")]
sys.argv = [sys.argv[0]] + [a for a in sys.argv[1:] if a.startswith("-")]
sys.path.insert(0, BUILD_PY)
import kinesift  # noqa: E402


def cli(*args, env=None):
    return subprocess.run([KINESIFT, *args], capture_output=True, env=env)


def flatten(row, prefix=""):
    """One JSON row as cells and child tables, by the rule of kinesift/tables.h."""
    cells, children = {}, {}
    for k, v in row.items():
        name = prefix + k
        if isinstance(v, dict):
            c, ch = flatten(v, name + ".")
            cells.update(c)
            children.update(ch)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            children[name] = v
        else:
            cells[name] = v
    return cells, children


def walk(obj, name, out, parent_row=None):
    """Every table of the document: {name: [cells of each row]}."""
    rows = out.setdefault(name, [])
    for i, row in enumerate(obj):
        cells, children = flatten(row)
        if parent_row is not None:
            cells["_parent"] = parent_row
        rows.append(cells)
        for key, v in children.items():
            walk(v, (name + "." if name else "") + key, out, len(rows) - 1)
    return out


def same(df_value, json_value, dtype):
    if json_value is None:
        return df_value is None or df_value is pd.NA or (isinstance(df_value, float) and math.isnan(df_value))
    if isinstance(json_value, bool):
        return df_value is not pd.NA and bool(df_value) == json_value and str(dtype) in ("bool", "boolean")
    if isinstance(json_value, float) or str(dtype) in ("float64", "Float64"):
        # the JSON writes doubles with 6 significant digits ("%.6g"; a few fields more): the
        # DataFrame holds the double the writer was given
        return df_value is not pd.NA and math.isclose(float(df_value), json_value, rel_tol=1e-5, abs_tol=1e-300)
    if isinstance(json_value, int):
        return str(dtype) in ("int64", "Int64") and int(df_value) == json_value
    return df_value == json_value


def close(a, b):
    """a (the binding's records) equals b (the JSON's), doubles at the JSON's digits"""
    if isinstance(b, float) or isinstance(a, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-300)
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in b)
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class Tables(unittest.TestCase):
    def check_document(self, doc, result, prefix, skip_parent):
        tables = walk([doc], "", {})
        for name, rows in tables.items():
            if name == "":
                continue
            short = name[len(prefix):] if name.startswith(prefix) else name
            df = result.table(short)
            self.assertEqual(len(df), len(rows), f"{name}: rows")
            if not rows:
                continue
            keys = set().union(*rows)
            for col in df.columns:  # a column no row has is an invention
                self.assertIn(col, keys, f"{name}: column {col} is not in the JSON")
            for key in keys:
                if key == "_parent" and short in skip_parent:
                    continue
                self.assertIn(key, df.columns, f"{name}: no column {key}")
                values = [r.get(key) for r in rows]
                s = df[key]
                kinds = {type(v) for v in values if v is not None}
                if kinds <= {int, float} and float in kinds and any(v != int(v) for v in values
                                                                  if isinstance(v, float)):
                    self.assertIn(str(s.dtype), ("float64", "Float64"), f"{name}.{key}")
                if kinds == {int} and (key.endswith(("_ns", "_bytes", "count", "events")) or
                                       str(s.dtype) not in ("float64", "Float64")):
                    # times, counts, bytes: int64, never float (a double the JSON wrote as "0"
                    # is a float column: the JSON's text cannot tell)
                    want = "Int64" if None in values else "int64"
                    self.assertEqual(str(s.dtype), want, f"{name}.{key}")
                for i, (got, want) in enumerate(zip(s.tolist(), values)):
                    if isinstance(want, (list, dict)):
                        self.assertEqual(got, want, f"{name}[{i}].{key}")
                    else:
                        self.assertTrue(same(got, want, s.dtype),
                                        f"{name}[{i}].{key}: {got!r} ({s.dtype}) != JSON {want!r}")

    def test_analyze_equals_cli(self):
        checked = 0
        for path in TRACES:
            with self.subTest(trace=path):
                run = cli("analyze", "--quiet", "--format", "json", path)
                doc = json.loads(run.stdout)
                if len(doc["traces"]) != 1:  # an archive of several traces: analyze takes one
                    with self.assertRaisesRegex(kinesift.Error, "several traces"):
                        kinesift.analyze(path)
                    continue
                r = kinesift.analyze(path)
                self.assertEqual(r.to_json(), run.stdout.decode(), "to_json is the CLI's document")
                t = doc["traces"][0]
                names = set(walk([t], "", {})) - {""}
                self.check_document(t, r, "", skip_parent={k for k in names
                                                            if kinesift._parent_table(k, names) is None})
                self.assertNotIn("_parent", r.threads.columns)
                self.assertNotIn("_parent", r.ops.columns)
                # the named tables are the document's
                self.assertEqual(len(r.ops), len(t["ops"]))
                self.assertEqual(len(r.kernels), len(t["kernels"]))
                self.assertEqual(len(r.steps), len(t["steps"]))
                self.assertEqual(len(r.gaps), len(t["gaps"] or []))
                self.assertEqual(len(r.memory), len(t["memory"] or []))
                self.assertEqual(len(r.shapes), len(t["shapes"] or []))
                self.assertEqual(len(r.threads), len((t["threads"] or {}).get("launchers", [])))
                self.assertTrue(close(r.window, t["window"]), (r.window, t["window"]))
                self.assertTrue(close(r.denominator, t["diagnoses_summary"]))
                self.assertTrue(close(r.diagnoses, t["diagnoses"]), (r.diagnoses, t["diagnoses"]))
                self.assertEqual(r.source, t["source"])
                if len(r.steps):
                    cp = r.critical_path
                    self.assertEqual(list(cp["number"]), [s["number"] for s in t["steps"]])
                    for c in cp.columns[1:]:
                        self.assertTrue(close([None if v is pd.NA else v for v in cp[c].tolist()],
                                              [(s["critical_path"] or {}).get(c) for s in t["steps"]]), c)
                checked += 1
        self.assertGreater(checked, 0)

    def test_tables_read_when_asked_and_freed_with_the_result(self):
        path = next(p for p in TRACES if "trace_compare/base" in p)
        first = kinesift.analyze(path)
        freed = first._h._free  # the library's copy of the run
        self.assertTrue(freed.alive)
        self.assertEqual(first._raw, {}, "no table is read before it is asked for")
        others = [kinesift.analyze(path, threads=1) for _ in range(3)]  # runs that come and go
        want = {n: others[0].table(n) for n in others[0].table_names()}
        del others
        gc.collect()
        self.assertEqual(first.table_names(), list(want))
        for name, df in first.tables.items():
            pd.testing.assert_frame_equal(df, want[name], obj=name)
        text = first.to_json()
        self.assertIs(first.to_json(), text, "the text is read once")
        del first, df
        gc.collect()
        self.assertFalse(freed.alive, "the library's copy is freed with the last Result")

    def test_to_json_runs_again_on_the_same_file_only(self):
        # analyze keeps the tables only; to_json runs the analysis again, refused once the file
        # is not the one analysed
        path = next(p for p in TRACES if "trace_compare/base" in p)
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "t" + (".json.gz" if path.endswith(".gz") else ".json"))
            shutil.copyfile(path, copy)
            want = cli("analyze", "--quiet", "--format", "json", copy).stdout.decode()
            r = kinesift.analyze(copy)
            self.assertEqual(r._h.json(), "", "the call keeps no text")
            ops = r.ops.copy()
            self.assertEqual(r.to_json(), want)
            self.assertIs(r.to_json(), r.to_json(), "the text is made once")
            changed = kinesift.analyze(copy)
            st = os.stat(copy)
            os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
            with self.assertRaisesRegex(kinesift.Error, "not the file analysed any more"):
                changed.to_json()
            pd.testing.assert_frame_equal(changed.ops, ops)  # the tables are still there
            gone = kinesift.analyze(copy)
            os.unlink(copy)
            with self.assertRaisesRegex(kinesift.Error, "changed since"):
                gone.to_json()
        with self.assertRaises(kinesift.OptionError):
            kinesift.analyze(path, text=True)

    def test_equal_strings_are_one_object(self):
        # a column refers to its distinct values (memory: a repeated name is not a str per row)
        path = next(p for p in TRACES if "trace_compare/base" in p)
        r = kinesift.analyze(path)
        checked = 0
        for name, df in r.tables.items():
            for col in df.columns:
                if df[col].dtype != object:
                    continue
                cells = [v for v in df[col].tolist() if isinstance(v, str)]
                if len(set(cells)) < len(cells):
                    self.assertEqual(len({id(v) for v in cells}), len(set(cells)), f"{name}.{col}")
                    checked += 1
        self.assertGreater(checked, 3)

    def test_a_changed_frame_changes_nothing_else(self):
        # the frames own the arrays they are made of: a user's in-place change stays in that frame
        path = next(p for p in TRACES if "trace_compare/base" in p)
        r = kinesift.analyze(path)
        before = r.records("ops")
        self.assertTrue(before, "the trace has ops")
        ops = r.table("ops")
        ints = [c for c in ops.columns if str(ops[c].dtype) == "int64" and c != "_parent"]
        self.assertTrue(ints, "an int64 column to change")
        ops.loc[0, ints[0]] = -12345
        ops.loc[0, "name"] = "changed"
        self.assertEqual(r.records("ops"), before)
        self.assertIs(r.table("ops"), ops, "a frame is made once")
        fresh = kinesift.analyze(path).table("ops")
        self.assertNotEqual(int(fresh.loc[0, ints[0]]), -12345)

    def test_options(self):
        path = next(p for p in TRACES if "trace_compare/base" in p)
        r = kinesift.analyze(path, window="trace", top=3, sort="incl", threads=1)
        run = cli("analyze", "--quiet", "--format", "json", "--window", "trace", "--top", "3",
                  "--sort", "incl", "--threads", "1", path)
        self.assertEqual(r.to_json(), run.stdout.decode())
        self.assertEqual(len(r.ops), 3)
        self.assertEqual(r.window["kind"], "trace")
        for bad in ({"top": "x"}, {"sort": "name"}, {"warmup": -1}, {"overlap": "wrap"},
                    {"no_such_option": 1}, {"gap_threshold": "soon"}):
            with self.assertRaises(kinesift.OptionError):
                kinesift.analyze(path, **bad)
        with self.assertRaises(kinesift.Error) as cm:  # the window, refused by the run
            kinesift.analyze(path, window="steps:x")
        run = cli("analyze", "--quiet", "--format", "json", "--window", "steps:x", path)
        self.assertIn(cm.exception.message.split(": ", 1)[-1], run.stderr.decode())


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        real = next(p for p in TRACES if "trace_compare/base" in p)
        import gzip
        with gzip.open(real, "rb") as f:
            text = f.read()
        with open(real, "rb") as f:
            packed = f.read()
        self.inputs = {
            "binary.json": os.urandom(4096).replace(b"{", b"x").replace(b"[", b"x"),
            "empty.json": b"",
            "cut.json.gz": packed[: len(packed) // 2],
            "garbage-middle.json": text[:20000] + b"\x00\x01}}]]" + text[20000:40000],
        }
        for name, data in self.inputs.items():
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(data)
        os.mkdir(os.path.join(self.dir, "a-directory"))
        self.truncated = os.path.join(self.dir, "truncated.json")
        with open(self.truncated, "wb") as f:
            f.write(text[: len(text) // 3])

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_errors_are_the_cli_lines(self):
        names = list(self.inputs) + ["does-not-exist.json", "a-directory"]
        for name in names:
            path = os.path.join(self.dir, name)
            with self.subTest(input=name):
                with self.assertRaises(kinesift.Error) as cm:
                    kinesift.analyze(path, strict=True)
                e = cm.exception
                self.assertTrue(e.message.startswith(path), e.message)
                self.assertNotIn("\n", e.message)
                run = cli("analyze", "--quiet", "--strict", "--format", "json", path)
                self.assertEqual(run.returncode, 2)
                if name != "a-directory":  # the command expands a directory; the binding refuses it
                    self.assertIn("kinesift: " + e.message + "\n", run.stderr.decode())
                if isinstance(e, kinesift.ParseError):
                    self.assertIn(f"byte {e.byte} (line {e.line}, column {e.column})", e.message)
        # a truncated text is read up to its last whole event by default, refused with --strict
        r = kinesift.analyze(self.truncated)
        self.assertGreater(len(r.ops), 0)
        self.assertEqual(r.to_json(), cli("analyze", "--quiet", "--format", "json",
                                          self.truncated).stdout.decode())
        # the interpreter is alive and the library still works after every error
        self.assertGreater(len(kinesift.analyze(self.truncated).ops), 0)

    def test_type_errors(self):
        with self.assertRaises(TypeError):
            kinesift.analyze(42)
        with self.assertRaises(kinesift.OptionError):
            kinesift.analyze("a\0b")
        with self.assertRaises(kinesift.Error):
            kinesift.analyze("-")


class OtherCommands(unittest.TestCase):
    def test_stats_diff_ranks(self):
        base = next(p for p in TRACES if "trace_compare/base" in p)
        test = next(p for p in TRACES if "trace_compare/test" in p)
        s = kinesift.stats(base)
        self.assertEqual(s.to_json(), cli("stats", "--format", "json", "--quiet", base).stdout.decode())
        doc = json.loads(s.to_json())
        self.assertEqual(len(s.table("traces")), len(doc["traces"]))
        Tables.check_document(self, doc, s, "", set())
        d = kinesift.diff(base, test)
        self.assertEqual(d.to_json(), cli("diff", "--format", "json", "--quiet", base, test).stdout.decode())
        Tables.check_document(self, json.loads(d.to_json()), d, "", set())
        ranks_dir = os.path.dirname(next(p for p in TRACES if "timeline_analysis" in p))
        rk = kinesift.ranks([ranks_dir])
        self.assertEqual(rk.to_json(), cli("ranks", "--format", "json", "--quiet", ranks_dir).stdout.decode())
        Tables.check_document(self, json.loads(rk.to_json()), rk, "", set())
        with tempfile.TemporaryDirectory() as tmp:  # summaries (kinesift summarize) as ranks
            sums = []
            for i, p in enumerate((base,)):
                sums.append(os.path.join(tmp, f"rank{i}.kss.json.gz"))
                self.assertEqual(cli("summarize", "--quiet", p, "-o", sums[-1]).returncode, 0)
            rs = kinesift.ranks(sums)
            self.assertEqual(rs.to_json(), cli("ranks", "--format", "json", "--quiet", *sums).stdout.decode())
            self.assertEqual(len(rs.table("ranks")), 1)
            self.assertEqual(rs.table("ranks").drop(columns="source").to_json(),
                             kinesift.ranks([base]).table("ranks").drop(columns="source").to_json())

    def test_redact(self):
        src = next(p for p in TRACES if "trace_compare/base" in p)
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, KINESIFT_REDACT_KEY="k" * 40)
            os.environ["KINESIFT_REDACT_KEY"] = "k" * 40
            try:
                rep = kinesift.redact(src, os.path.join(tmp, "py.json.gz"))
            finally:
                del os.environ["KINESIFT_REDACT_KEY"]
            run = cli("redact", "--quiet", "--report", "json", src, "-o", os.path.join(tmp, "cli.json.gz"), env=env)
            if run.returncode != 0:
                run = cli("redact", src, "-o", os.path.join(tmp, "cli.json.gz"), env=env)
            self.assertEqual(run.returncode, 0, run.stderr)
            import gzip
            a = gzip.open(os.path.join(tmp, "py.json.gz")).read()
            b = gzip.open(os.path.join(tmp, "cli.json.gz")).read()
            self.assertEqual(a, b)
            self.assertEqual(json.loads(rep.to_json())["schema"], "kinesift.redact-report/1")
            with self.assertRaisesRegex(kinesift.Error, "py.json.gz"):  # never over a file
                kinesift.redact(src, os.path.join(tmp, "py.json.gz"))


class Gil(unittest.TestCase):
    def test_other_threads_run_during_analysis(self):
        big = max(TRACES, key=os.path.getsize)
        seen = []
        stop = threading.Event()

        def spin():  # the time, every 1000 turns of a pure-Python loop
            i = 0
            while not stop.is_set():
                i += 1
                if i % 1000 == 0:
                    seen.append(time.perf_counter())

        kinesift.analyze(big)  # warm: the library loaded, the file cached
        th = threading.Thread(target=spin)
        th.start()
        try:
            time.sleep(0.05)
            lib = kinesift._lib_handle()  # the call analyze makes, timed alone (not the
            t0 = time.perf_counter()      # DataFrames built after it, in Python)
            h = lib.ks_tables_analyze(os.fsencode(big), None)
            t1 = time.perf_counter()
            self.assertIsNone(lib.ks_tables_error(h))
            lib.ks_tables_free(h)
        finally:
            stop.set()
            th.join()
        # a foreign call that held the GIL would stop the loop for its whole length: no sample
        # in its middle; released, the loop runs all along
        lo, hi = t0 + 0.2 * (t1 - t0), t1 - 0.2 * (t1 - t0)
        inside = [x for x in seen if lo < x < hi]
        self.assertGreater(t1 - t0, 0.02, "the call is too short to tell")
        self.assertGreater(len(inside), 10, f"{len(inside)} samples in the middle {hi - lo:.3f} s of the call")


    def test_threads_at_once(self):
        # several analyses at once from a thread pool: each the same document as alone (a
        # writer's values are caught per thread)
        from concurrent.futures import ThreadPoolExecutor
        paths = sorted(TRACES, key=os.path.getsize)[-4:] * 2
        alone = {p: kinesift.analyze(p).to_json() for p in set(paths)}
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda p: (p, kinesift.analyze(p)), paths))
        for p, r in together:
            self.assertEqual(r.to_json(), alone[p], p)
            self.assertEqual(len(r.ops), len(json.loads(alone[p])["traces"][0]["ops"]), p)


class Packaging(unittest.TestCase):
    def test_finds_library_in_build_tree(self):
        env = {k: v for k, v in os.environ.items() if k != "KINESIFT_LIB"}
        env["PYTHONPATH"] = BUILD_PY
        out = subprocess.run([sys.executable, "-c", "import kinesift; print(kinesift.library_path());"
                              "print(kinesift.library_version())"],
                             capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
        self.assertEqual(out.returncode, 0, out.stderr)
        lib, version = out.stdout.split()
        self.assertEqual(os.path.dirname(lib), os.path.dirname(BUILD_PY))
        self.assertEqual(version, cli("--version").stdout.decode().split()[1])

    def test_pip_install_offline(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(os.path.join(SOURCE, "python"), src,
                            ignore=shutil.ignore_patterns("meson.build", "*.in", "__pycache__"))
            target = os.path.join(tmp, "site")
            run = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                                  "--no-index", "--no-deps", "--target", target, src],
                                 capture_output=True, text=True)
            if run.returncode != 0 and "No module named pip" in run.stderr:
                self.skipTest("pip is not installed for " + sys.executable)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertTrue(os.path.exists(os.path.join(target, "kinesift", "__init__.py")))
            env = dict(os.environ, PYTHONPATH=target,
                       KINESIFT_LIB=os.path.join(os.path.dirname(BUILD_PY), "libkinesift.so"))
            trace = os.path.abspath(TRACES[0])
            out = subprocess.run([sys.executable, "-c", "import kinesift, sys; r = kinesift.analyze(sys.argv[1]);"
                                  "print(kinesift.__file__); print(len(r.ops))", trace],
                                 capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(out.stdout.startswith(target), out.stdout)
            # a KINESIFT_LIB that names nothing is an error that says so
            env["KINESIFT_LIB"] = os.path.join(tmp, "nothing.so")
            out = subprocess.run([sys.executable, "-c", "import kinesift; kinesift.analyze('x')"],
                                 capture_output=True, text=True, env=env, cwd=tmp)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("KINESIFT_LIB", out.stderr)

    def test_without_numpy_and_pandas(self):
        # to_json, records, window and diagnoses need neither (a Python without them)
        trace = os.path.abspath(next(p for p in TRACES if "trace_compare/base" in p))
        code = ("import sys, json; sys.modules['numpy'] = None; sys.modules['pandas'] = None\n"
                "import kinesift\n"
                "r = kinesift.analyze(sys.argv[1])\n"
                "t = json.loads(r.to_json())['traces'][0]\n"
                "assert [o['self_ns'] for o in r.records('ops')] == [o['self_ns'] for o in t['ops']]\n"
                "assert r.window == t['window'], r.window\n"
                "try:\n    r.ops\nexcept ImportError:\n    print('no pandas: ok')\n")
        out = subprocess.run([sys.executable, "-c", code, trace], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=BUILD_PY))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no pandas: ok", out.stdout)

    def test_versions_agree(self):
        with open(os.path.join(SOURCE, "python", "pyproject.toml")) as f:
            text = f.read()
        self.assertIn(f'version = "{kinesift.library_version()}"', text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
