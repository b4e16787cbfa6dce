"""kinesift._lib: libkinesift.so loaded with ctypes, and the C functions of kinesift/tables.h
declared.

Where the library is looked for, first found first:
1. $KINESIFT_LIB, the path of libkinesift.so (an error when it names no loadable library);
2. the directory _config.py names: meson writes it into the build tree's copy of the package
   (build/python/kinesift: the library beside it in the build tree) and into the installed one
   (the prefix's libdir);
3. the system's loader (ldconfig's cache, LD_LIBRARY_PATH): libkinesift.so.0, libkinesift.so;
4. next to a source checkout (the package in python/ of the repository): the build directories
   at the repository's top (build, build-*), newest library first.

ctypes.CDLL calls release the GIL for the length of each foreign call: a parse and analysis
(seconds on a large trace) never blocks the interpreter's other threads."""
import ctypes
import glob
import os

_NAMES = ("libkinesift.so", "libkinesift.so.0")


def _candidates():
    env = os.environ.get("KINESIFT_LIB")
    if env:
        return [("KINESIFT_LIB", env)], True
    out = []
    try:
        from . import _config  # written by meson (build tree or install); absent after pip
        out += [("_config.py", os.path.join(_config.LIBDIR, n)) for n in _NAMES]
    except ImportError:
        pass
    out += [("the system's loader", n) for n in ("libkinesift.so.0", "libkinesift.so")]
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))  # python/kinesift -> the repository
    if os.path.exists(os.path.join(top, "meson.build")):
        found = glob.glob(os.path.join(top, "build*", "libkinesift.so"))
        found.sort(key=os.path.getmtime, reverse=True)
        out += [("a build tree", p) for p in found]
    return out, False


def load():
    tried = []
    cands, only = _candidates()
    for where, path in cands:
        try:
            return _declare(ctypes.CDLL(path)), path
        except OSError as e:
            tried.append(f"{path} ({where}): {e}")
            if only:
                break
    raise OSError("libkinesift.so not found; set KINESIFT_LIB to its path. Tried: " + "; ".join(tried))


def _declare(lib):
    P, S, C, U64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_uint64
    sigs = {
        "ks_version": (C, []),
        "ks_tables_opts_new": (P, []),
        "ks_tables_opts_set": (ctypes.c_int, [P, C, C]),
        "ks_tables_opts_error": (C, [P]),
        "ks_tables_opts_free": (None, [P]),
        "ks_tables_analyze": (P, [C, P]),
        "ks_tables_stats": (P, [C, P]),
        "ks_tables_diff": (P, [C, C, P]),
        "ks_tables_ranks": (P, [ctypes.POINTER(C), S, P]),
        "ks_tables_redact": (P, [C, C, P]),
        "ks_tables_error": (C, [P]),
        "ks_tables_error_at": (ctypes.c_int, [P, ctypes.POINTER(U64)]),
        "ks_tables_json": (P, [P, ctypes.POINTER(S)]),
        "ks_tables_count": (S, [P]),
        "ks_tables_name": (C, [P, S]),
        "ks_tables_rows": (S, [P, S]),
        "ks_tables_columns": (S, [P, S]),
        "ks_tables_column_name": (C, [P, S, S]),
        "ks_tables_column_type": (ctypes.c_int, [P, S, S]),
        "ks_tables_column_valid": (P, [P, S, S]),
        "ks_tables_column_data": (P, [P, S, S]),
        "ks_tables_column_offsets": (P, [P, S, S]),
        "ks_tables_free": (None, [P]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib
