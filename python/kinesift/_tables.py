"""kinesift._tables: a run's column tables (kinesift/tables.h) read with ctypes into Python
columns and pandas DataFrames: no JSON text is parsed for a table.

Types: int64 columns stay int64 (nanoseconds exact; pandas' nullable Int64 where a column has a
null), doubles float64 (Float64 with nulls), booleans bool (boolean with nulls), strings object;
a JSON cell (an array of scalars such as a diagnosis' steps) becomes the Python value; a null is
None or pandas.NA, never 0."""
import ctypes
import itertools
import json
import weakref

INT64, DOUBLE, STRING, BOOL, JSON = 1, 2, 3, 4, 5


class Column:
    """One column: name, type (ks_col_type), values (a numpy array or a list), valid (numpy bool)."""

    def __init__(self, name, type_, values, valid):
        self.name, self.type, self.values, self.valid = name, type_, values, valid

    def to_list(self):
        """Python values, None where null."""
        vals = self.values
        if self.type in (INT64, DOUBLE, BOOL):
            conv = bool if self.type == BOOL else (int if self.type == INT64 else float)
            return [conv(v) if ok else None for v, ok in zip(list(vals), list(self.valid))]
        return list(vals)

    def to_pandas(self):
        import numpy as np
        import pandas as pd
        nulls = not bool(self.valid.all()) if len(self.valid) else False
        if self.type == INT64:
            if nulls:
                return pd.array(pd.arrays.IntegerArray(self.values, ~self.valid), dtype="Int64")
            return self.values
        if self.type == DOUBLE:
            if nulls:
                return pd.arrays.FloatingArray(self.values, ~self.valid)
            return self.values
        if self.type == BOOL:
            b = self.values.astype(bool)
            if nulls:
                return pd.arrays.BooleanArray(b, ~self.valid)
            return b
        out = np.empty(len(self.values), dtype=object)
        out[:] = self.values
        return out


_DTYPES = {ctypes.c_int64: "int64", ctypes.c_double: "float64", ctypes.c_uint8: "bool"}


def _copy(np, ctype, addr, n):
    """n cells of ctype at addr, copied: a numpy array (one memmove into a fresh array; c_uint8
    cells, 0 or 1, as bool), or a list where numpy is not installed"""
    if np is None:
        return list((ctype * n).from_address(addr)) if n else []
    a = np.empty(n, dtype=_DTYPES[ctype])
    if n:
        ctypes.memmove(a.ctypes.data, addr, a.nbytes)
    return a


def _strings(raw, off, ok, all_ok):
    """The cells of a string column: its bytes raw cut at the offsets off (a list, one more than
    the cells), None where not ok (all_ok: no cell is null). Equal cells are one str object (a
    thread's name, a state, an op's name repeat down a column): the column holds references to
    its distinct values, not a copy per row."""
    ends = itertools.islice(off, 1, None)
    if raw.isascii():  # one decode: byte offsets are character offsets
        txt = raw.decode("ascii")
        one = {}.setdefault
        if all_ok:
            return [one(s := txt[a:b], s) for a, b in zip(off, ends)]
        return [one(s := txt[a:b], s) if k else None for a, b, k in zip(off, ends, ok)]
    seen = {}

    def cell(a, b):
        s = seen.get(raw[a:b])
        if s is None:
            s = seen[raw[a:b]] = raw[a:b].decode("utf-8")
        return s
    return [cell(a, b) if k else None for a, b, k in zip(off, ends, ok)]


def _numpy():
    try:
        import numpy as np
    except ImportError:  # records and to_json only
        np = None
    return np


class Handle:
    """One run's ks_tables handle: its tables read one at a time when asked for, its JSON text when
    asked for; freed when the last object holding it is collected (or at exit)."""

    def __init__(self, lib, h):
        self.lib, self.h = lib, h
        self._free = weakref.finalize(self, lib.ks_tables_free, h)  # first: whatever fails next
        self.index = {lib.ks_tables_name(h, i).decode(): i for i in range(lib.ks_tables_count(h))}

    def json(self):
        n = ctypes.c_size_t()
        p = self.lib.ks_tables_json(self.h, ctypes.byref(n))
        return ctypes.string_at(p, n.value).decode("utf-8") if n.value else ""

    def table(self, name):
        """The table name as (rows, [Column]); copies, valid after the handle is freed."""
        lib, h, ti, np = self.lib, self.h, self.index[name], _numpy()
        nrows = lib.ks_tables_rows(h, ti)
        cols = []
        for ci in range(lib.ks_tables_columns(h, ti)):
            cname = lib.ks_tables_column_name(h, ti, ci).decode()
            typ = lib.ks_tables_column_type(h, ti, ci)
            vp = lib.ks_tables_column_valid(h, ti, ci)  # bytes 0 or 1: numpy's bool as they are
            valid = _copy(np, ctypes.c_uint8, vp, nrows)
            if np is None:
                valid = [bool(v) for v in valid]
            dp = lib.ks_tables_column_data(h, ti, ci)
            if typ in (STRING, JSON):
                off = _copy(np, ctypes.c_int64, lib.ks_tables_column_offsets(h, ti, ci), nrows + 1)
                off = off.tolist() if np is not None else off
                raw = ctypes.string_at(dp, off[-1]) if off[-1] else b""
                ok = valid.tolist() if np is not None else valid
                vals = _strings(raw, off, ok, all(ok))
                if typ == JSON:  # the column's cells parsed at once, as one array
                    cells = iter(json.loads("[" + ",".join(v for v in vals if v is not None) + "]"))
                    vals = [next(cells) if v is not None else None for v in vals]
            elif typ == 0:
                vals = [None] * nrows
            elif typ in (INT64, BOOL):
                vals = _copy(np, ctypes.c_int64, dp, nrows)
            else:
                vals = _copy(np, ctypes.c_double, dp, nrows)
            cols.append(Column(cname, typ, vals, valid))
        return nrows, cols


def frame(nrows, cols, drop=()):
    import pandas as pd
    data = {c.name: c.to_pandas() for c in cols if c.name not in drop}
    if not data:
        return pd.DataFrame(index=pd.RangeIndex(nrows))
    # the arrays are fresh copies of the C tables, held by no one else: no second copy
    return pd.DataFrame(data, copy=False)  # columns in the JSON's order, index 0 .. nrows-1


def records(nrows, cols, drop=()):
    lists = [(c.name, c.to_list()) for c in cols if c.name not in drop]
    return [{n: v[i] for n, v in lists} for i in range(nrows)]
