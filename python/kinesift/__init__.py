"""kinesift: PyTorch profiler (Kineto) traces analysed in-process by libkinesift, their tables as
pandas DataFrames.

    import kinesift
    r = kinesift.analyze("trace.json.gz")
    r.ops.sort_values("self_ns", ascending=False).head(10)
    r.window, r.denominator, r.diagnoses      # dicts and records
    r.to_json()                               # `kinesift analyze --format json`, byte for byte

Each DataFrame is a table of the command's JSON document (docs/schema-analyze.md), the same rows
and values with the JSON's field names as columns (objects inside a row flattened to "a.b"):
times are int64 nanoseconds, never floats; a figure that was not observed is null (pandas.NA in
a nullable Int64/Float64/boolean column), never 0. docs/python.md walks through it.

The library is called through ctypes, which releases the GIL during each call: other threads
run while a trace is read and analysed. An error raises kinesift.Error (the command's one-line
message, with byte/line/column where the input has a position); bad input never crashes the
interpreter."""
import ctypes
import os
import threading

from . import _lib, _tables

__all__ = ["analyze", "stats", "diff", "ranks", "redact", "Error", "ParseError", "OptionError",
           "Result", "Analysis", "library_path", "library_version"]

_state = {}
_lock = threading.Lock()


class Error(Exception):
    """A run that failed: the message is the line `kinesift` prints after "kinesift: "."""

    def __init__(self, message, byte=None, line=None, column=None):
        super().__init__(message)
        self.message = message
        self.byte, self.line, self.column = byte, line, column


class ParseError(Error):
    """The input is not a trace kinesift can read, at byte/line/column (0-based byte, 1-based
    line and column of the decompressed text)."""


class OptionError(Error, ValueError):
    """An option kinesift does not take, or a value it refuses."""


def _lib_handle():
    with _lock:
        if "lib" not in _state:
            _state["lib"], _state["path"] = _lib.load()
        return _state["lib"]


def library_path():
    """The path of the libkinesift.so in use."""
    _lib_handle()
    return _state["path"]


def library_version():
    return _lib_handle().ks_version().decode()


def _text(v, what):
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if isinstance(v, bytes):
        return v
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a path (str, bytes or os.PathLike), not {type(v).__name__}")
    if "\0" in v:
        raise OptionError(f"{what} holds a NUL byte")
    return v.encode()


def _opts(lib, options):
    o = lib.ks_tables_opts_new()
    try:
        for name, value in options.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "1" if value else "0"
            if lib.ks_tables_opts_set(o, _text(name.replace("_", "-"), "an option name"),
                                      _text(str(value), name)) != 0:
                raise OptionError((lib.ks_tables_opts_error(o) or b"bad option").decode())
    except BaseException:
        lib.ks_tables_opts_free(o)
        raise
    return o


def _run(call, options):
    lib = _lib_handle()
    o = _opts(lib, options)
    try:
        h = call(lib, o)  # GIL released here (ctypes.CDLL)
    finally:
        lib.ks_tables_opts_free(o)
    try:
        msg = lib.ks_tables_error(h)
        if msg is not None:
            pos = (ctypes.c_uint64 * 3)()
            if lib.ks_tables_error_at(h, pos):
                raise ParseError(msg.decode("utf-8", "replace"), pos[0], pos[1], pos[2])
            raise Error(msg.decode("utf-8", "replace"))
    except BaseException:
        lib.ks_tables_free(h)
        raise
    return _tables.Handle(lib, h)  # owns h from here: freed with the last Result holding it


class Result:
    """A command's JSON document as tables: .tables {name: DataFrame} (every array of objects of
    the document, named by its path: "traces", "traces.ops", ...; a nested table's "_parent"
    column is the row of its parent table), .records(name) the same rows as dicts, .to_json()
    the document's text as the command prints it. A table is read from the library's tables
    the first time it is asked for, the text likewise (an Analysis: the analysis run again, see
    analyze); the library's copy is freed with the Result."""

    def __init__(self, handle):
        self._h = handle
        self._names = {n: (n, ()) for n in handle.index}  # name: (the handle's name, columns left out)
        self._raw = {}
        self._frames = {}
        self._text = None
        self._again = None  # a run that gives the text, where the handle has none

    def _read(self, name):
        """(rows, [Column]) of the table name, or None when the document has no such table"""
        if name not in self._raw:
            if name not in self._names:
                return None
            full, drop = self._names[name]
            n, cols = self._h.table(full)
            self._raw[name] = (n, [c for c in cols if c.name not in drop])
        return self._raw[name]

    def table_names(self):
        return list(self._names)

    def table(self, name):
        """The table named name as a DataFrame (an empty one when the document has no such
        table: an empty or null array)."""
        if name not in self._frames:
            t = self._read(name)
            if t is not None:
                # the frame takes the columns' arrays as they are: the raw copy is given up, so
                # that changing the frame never changes what records() reads afterwards
                self._frames[name] = _tables.frame(*t)
                del self._raw[name]
            else:
                import pandas as pd
                self._frames[name] = pd.DataFrame()
        return self._frames[name]

    @property
    def tables(self):
        return {n: self.table(n) for n in self._names}

    def records(self, name):
        t = self._read(name)
        return _tables.records(*t) if t is not None else []

    def to_json(self):
        if self._text is None:
            self._text = self._h.json() if self._again is None else self._again()
        return self._text


def _parent_table(name, names):
    """The table a nested table's rows belong to (the longest prefix of its name that is a
    table), or None for a table of the trace itself ("ops", "threads.launchers")."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:i]) in names:
            return ".".join(parts[:i])
    return None


class Analysis(Result):
    """`kinesift analyze --format json` of one trace (schema kinesift.analyze/1,
    docs/schema-analyze.md). DataFrames: ops, labels, kernels, gpu, classes, device_activity,
    shapes, steps, critical_path (one row per step), critical_path_top, gaps, gaps_longest,
    threads (the launching threads), memory, memory_ops, overlaps; .tables has every table of the
    trace by its path below the trace ("gaps.by_cpu_activity", "memory.live_at_peak", ...).
    Records and dicts: diagnoses, window, denominator (diagnoses_summary), trace (every scalar
    of the trace object: links.*, self_time.*, the *_reason fields)."""

    _NAMES = {"ops": "ops", "labels": "labels", "kernels": "kernels", "gpu": "gpu",
              "classes": "classes.window", "device_activity": "device_activity", "shapes": "shapes",
              "steps": "steps", "critical_path_top": "steps.critical_path.top", "gaps": "gaps",
              "gaps_longest": "gaps.longest", "threads": "threads.launchers", "memory": "memory",
              "memory_ops": "memory.ops", "overlaps": "overlaps", "roofline": "roofline"}

    def __init__(self, handle):
        super().__init__(handle)
        inner = {}
        names = {n[len("traces."):] for n in handle.index if n.startswith("traces.")}
        for name in names:
            # a table of the trace itself: its "_parent" (always 0) left out
            inner[name] = ("traces." + name, ("_parent",) if _parent_table(name, names) is None else ())
        n, cols = handle.table("traces") if "traces" in handle.index else (0, [])
        if n != 1:
            raise Error(f"analyze: expected one trace, the document has {n}")
        self._trace = _tables.records(n, cols, drop=("_parent",))[0]
        self._names = dict(sorted(inner.items(), key=lambda kv: handle.index[kv[1][0]]))

    def __getattr__(self, name):
        names = type(self)._NAMES
        if name in names:
            return self.table(names[name])
        raise AttributeError(name)

    @property
    def source(self):
        return self._trace["source"]

    @property
    def trace(self):
        return dict(self._trace)

    def _prefixed(self, prefix):
        p = prefix + "."
        return {k[len(p):]: v for k, v in self._trace.items() if k.startswith(p)}

    @property
    def reasons(self):
        """Why a table is empty, by table: {"gpu": "no GPU events...", "memory": ...} from the
        trace's *_reason fields that are set (not observed is a reason, never 0)."""
        return {k[:-len("_reason")]: v for k, v in self._trace.items()
                if k.endswith("_reason") and "." not in k and v is not None}

    @property
    def window(self):
        """The window every figure is of: start_ns, end_ns, span_ns, kind, basis, chosen."""
        return self._prefixed("window")

    @property
    def denominator(self):
        """What diagnoses' impact shares are of (diagnoses_summary): denominator, denominator_ns,
        min_impact, shown, hidden."""
        return self._prefixed("diagnoses_summary")

    @property
    def diagnoses(self):
        """The diagnoses as records (dicts), ranked by impact: hypothesis, evidence, next_check,
        refuted_if, ... (docs/insights.md)."""
        return self.records("diagnoses")

    @property
    def critical_path(self):
        """One row per step: its number and the critical_path.* fields without the prefix."""
        s = self.table("steps")
        cols = [c for c in s.columns if c.startswith("critical_path.")]
        out = s[["number"] + cols].copy() if "number" in s.columns else s[cols].copy()
        return out.rename(columns={c: c[len("critical_path."):] for c in cols})


def analyze(path, window=None, steps=None, threads=None, **options):
    """Analyse one trace as `kinesift analyze --format json PATH` does; an Analysis.

    window: "steps:A-B", "START:END" (durations: "1.5ms:20ms") or "trace"; steps: the step label
    regex (--step-label); threads: reading and analysis threads (0: one per core). Other options
    by their command-line names with "_" for "-": warmup, overlap, gap_threshold, data_label,
    min_impact, all_diagnoses, top, sort, peak, strict.

    The call keeps the tables only; to_json() runs the analysis again for the command's text
    (and raises Error if the file changed since)."""
    p = _text(path, "path")
    opts = dict(options, window=window, step_label=steps, threads=threads)
    if opts.get("text") is not None:
        raise OptionError("text is not an option of analyze: to_json() gives the text")
    seen = _identity(p)
    run = lambda lib, o: lib.ks_tables_analyze(p, o)  # noqa: E731
    # the tables only: the text (megabytes for a large trace) is made when to_json() asks
    a = Analysis(_run(run, dict(opts, text=False)))
    a._again = lambda: _again(p, seen, run, opts)
    return a


def _identity(p):
    """What says a file is still the one analysed: device, inode, size, modification time."""
    try:
        st = os.stat(p)
    except OSError:
        return None  # the run says why
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _again(p, seen, run, opts):
    """The document's text of a run again, the same file and options: refused when the file
    changed since (its figures would not be the tables')."""
    if seen is None or _identity(p) != seen:
        # changed, replaced, removed, or a relative path from another working directory
        raise Error(f"{os.fsdecode(p)}: not the file analysed any more (changed since): analyze it "
                    "again for its JSON")
    return _run(run, opts).json()


def stats(path, **options):
    """`kinesift stats --format json PATH` (schema kinesift.stats/1) as a Result: .table("traces")
    one row per trace; options: threads, strict."""
    p = _text(path, "path")
    return Result(_run(lambda lib, o: lib.ks_tables_stats(p, o), options))


def diff(before, after, **options):
    """`kinesift diff --format json BEFORE AFTER` (schema kinesift.diff/1) as a Result; options as
    analyze's (window, step_label, top, threads, strict...)."""
    a, b = _text(before, "before"), _text(after, "after")
    return Result(_run(lambda lib, o: lib.ks_tables_diff(a, b, o), options))


def ranks(paths, **options):
    """`kinesift ranks --format json PATH...` (schema kinesift.ranks/3) as a Result: one trace or
    summary (kinesift summarize, *.kss.json[.gz]) per rank (files, archives, directories);
    options: step_label, threads, strict."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    v = [_text(p, "path") for p in paths]
    arr = (ctypes.c_char_p * max(len(v), 1))(*v)
    return Result(_run(lambda lib, o: lib.ks_tables_ranks(arr, len(v), o), options))


def redact(src, dst, force=False, shapes=False, keep_logs=False, key_file=None):
    """`kinesift redact SRC -o DST`: DST written (atomically; never over SRC, nor over an existing
    file unless force); returns the report (schema kinesift.redact-report/1) as a Result."""
    s, d = _text(src, "src"), _text(dst, "dst")
    opts = {"force": force, "shapes": shapes, "keep_logs": keep_logs, "key_file": key_file}
    return Result(_run(lambda lib, o: lib.ks_tables_redact(s, d, o), opts))
