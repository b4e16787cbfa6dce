#!/usr/bin/env python3
"""tests/layout/check_cli_includes.py: the command line is a client of the library's public API.

What: reads the `#include "..."` lines of every .c/.h under cli/ and fails when one names a
  header that is neither the CLI's own (cli/...), nor a public header (kinesift/...), nor one of
  the shared infrastructure headers of common/ listed in COMMON below, nor the CUDA backend's
  entry point (validate/cuda_wl.h: libkinesift-cuda is a separate library that only the command
  links, docs/architecture.md). In particular no cli/ file may include a room's private header
  (`room/room_int.h` or any other header of a room).
Why it is correct: the include lines are the only way C code in cli/ sees a declaration that is
  not in include/kinesift/ (a declaration copied by hand would hide it; review catches that), so
  a cli/ whose includes pass calls the library only through its public API, as docs/
  architecture.md's boundary says ("cli/ only parses options, calls the library and picks a
  writer").
When it does not apply: the command links the static library, where visibility does not stop a
  call to an internal function declared by hand.
Who may use it: meson test (suite 'layout'); by hand as `check_cli_includes.py SOURCE_ROOT`, or
  `--self-test` to check the checker on made-up files.
Known departures are listed in ALLOWED with the reason; the list only shrinks.
"""
import os
import re
import sys

# common/ infrastructure the command may use like any C library: allocation and growable arrays,
# checking a regular expression option, the named limits of options, the libraries loaded at first
# use (--version loads them to ask their versions).
COMMON = {'common/util.h', 'common/regex.h', 'common/limits.h', 'common/lazylib.h'}
CUDA_ENTRY = {'validate/cuda_wl.h'}

# (file, header): known departures, with the reason.
ALLOWED = set()  # none left (diff/gate outputs: the public ks_outfile of kinesift/report.h)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(header):
    return (header.startswith('cli/') or header.startswith('kinesift/') or header in COMMON
            or header in CUDA_ENTRY)


def check(files, departures=None):
    """files: {path relative to the root: text}; departures: the known ones (ALLOWED when None).
    Returns the list of errors."""
    departures = ALLOWED if departures is None else departures
    errors = []
    for f, text in sorted(files.items()):
        for inc in INCLUDE.findall(text):
            if allowed(inc) or (f, inc) in departures:
                continue
            why = 'a private header of room ' + inc.split('/')[0] if '/' in inc else 'not a public header'
            errors.append(f'{f}: includes "{inc}": {why} (the CLI uses the public API only)')
    return errors


def cli_files(root):
    out = {}
    top = os.path.join(root, 'cli')
    for d, _, names in os.walk(top):
        for n in names:
            if n.endswith(('.c', '.h')):
                p = os.path.join(d, n)
                with open(p, encoding='utf-8', errors='replace') as fh:
                    out[os.path.relpath(p, root).replace(os.sep, '/')] = fh.read()
    return out


def self_test():
    good = {'cli/a.c': '#include "cli/cli.h"\n#include "kinesift/store.h"\n#include "common/util.h"\n'
                       '#include <stdio.h>\n'}
    assert check(good) == [], check(good)
    for bad in ('analysis/analysis_int.h', 'report/report_int.h', 'common/jsonw.h', 'store/bigarray.h',
                'parse.h'):
        errs = check({'cli/b.c': '#include "kinesift/store.h"\n  #  include "%s"\n' % bad})
        assert len(errs) == 1 and bad in errs[0], (bad, errs)
    # a listed departure passes, the same include elsewhere does not
    errs = check({'cli/cmd_diff.c': '#include "report/report_int.h"\n',
                  'cli/cmd_x.c': '#include "report/report_int.h"\n'},
                 {('cli/cmd_diff.c', 'report/report_int.h')})
    assert len(errs) == 1 and errs[0].startswith('cli/cmd_x.c'), errs
    print('check_cli_includes self-test: ok')


def main(argv):
    if len(argv) == 2 and argv[1] == '--self-test':
        self_test()
        return 0
    if len(argv) != 2:
        print('usage: check_cli_includes.py SOURCE_ROOT | --self-test', file=sys.stderr)
        return 2
    files = cli_files(argv[1])
    if not files:
        print('check_cli_includes: no file under cli/', file=sys.stderr)
        return 2
    errors = check(files)
    for e in errors:
        print(e)
    # a departure that is gone must leave the list
    stale = [a for a in ALLOWED if a[0] in files and f'"{a[1]}"' not in files[a[0]]]
    for f, h in sorted(stale):
        print(f'{f}: no longer includes "{h}": remove it from ALLOWED')
    print(f'check_cli_includes: {len(files)} files, {len(errors) + len(stale)} problems')
    return 1 if errors or stale else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
