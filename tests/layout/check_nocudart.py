#!/usr/bin/env python3
"""tests/layout/check_nocudart.py: libkinesift (shared and static) carries no CUDA runtime.

What: the CUDA part of validate is its own static library, libkinesift-cuda, linked by the
  kinesift command only (validate/meson.build); libkinesift.so must not need a CUDA library
  (readelf -d NEEDED, ldd) nor hold any CUDA runtime code (no cuda*/cudart symbol in its full
  symbol table, local ones included), and libkinesift.a no CUDA object either.
Why it is correct: the static CUDA runtime defines hundreds of functions named cudaXxx (local
  in a shared library, so `nm` without -D sees them, as it sees __cudart* internals); a library
  without them cannot carry the runtime. The detector is checked on the kinesift binary, which
  must show those symbols (it links libkinesift-cuda), so a blind detector fails the test.
When it does not apply: a build without CUDA (-Dcuda=disabled, or no nvcc): nothing to keep out,
  the test says so and is skipped (exit 77); a stripped library would hide local symbols.
Who may use it: meson test (suite 'layout'):
  check_nocudart.py HAVE_CUDA(0|1) LIBKINESIFT.so LIBKINESIFT.a KINESIFT
"""
import re
import subprocess
import sys

CUDA_SYM = re.compile(r'^(?:cuda[A-Z_]\w*|__cudart\w*|cudart\w*|libcudart\w*)$')


def out(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def cuda_symbols(path):
    names = set()
    for line in out(['nm', '-A', path]).splitlines():
        name = line.split()[-1].split('@')[0] if line.split() else ''
        if CUDA_SYM.match(name):
            names.add(name)
    return names


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    have_cuda, so, static, exe = argv[1] == '1', argv[2], argv[3], argv[4]
    if not have_cuda:
        print('SKIP: this build has no CUDA (-Dcuda=disabled, or nvcc / the static CUDA runtime '
              'not found), so there is no CUDA runtime to keep out of libkinesift')
        return 77
    failures = []
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out(['readelf', '-d', so]))
    bad = [n for n in needed if re.match(r'lib(cuda|cudart|nvidia)', n)]
    if bad:
        failures.append('%s needs %s' % (so, ', '.join(bad)))
    ldd = [line for line in out(['ldd', so]).splitlines() if 'cudart' in line or 'libcuda' in line]
    if ldd:
        failures.append('ldd %s: %s' % (so, '; '.join(l.strip() for l in ldd)))
    for lib in (so, static):
        found = cuda_symbols(lib)
        if found:
            failures.append('%s holds %d CUDA runtime symbols (e.g. %s): the CUDA part belongs '
                            'in libkinesift-cuda (validate/meson.build)' % (
                                lib, len(found), ', '.join(sorted(found)[:3])))
    control = cuda_symbols(exe)
    if len(control) < 10:
        failures.append('detector check: the kinesift binary, which links libkinesift-cuda, '
                        'shows %d CUDA runtime symbols (want many): the test cannot see them'
                        % len(control))
    for f in failures:
        print('FAIL:', f)
    print('NEEDED of %s: %s; CUDA runtime symbols: 0 in the libraries (kinesift binary: %d)' % (
        so, ', '.join(needed), len(control)) if not failures else '%d failures' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
