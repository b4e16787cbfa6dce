#!/usr/bin/env python3
"""tests/layout/check_rooms.py: the house plan of docs/architecture.md stays true.

What: reads the `#include "..."` lines of every .c/.h in the library's rooms and fails when
  - a file includes a room that comes after its own in the data-flow order (ROOMS below), or
  - a file includes another room's private header (`ROOM/*_int.h`: private to ROOM and to its
    tests, tests/ROOM/; what later rooms need is in the room's other headers), or
  - the files form a cycle: a unit is a .c with the .h of the same name beside it; unit A depends
    on unit B when a file of A includes a header of B; any cycle in that graph fails.
Why it is correct: the include lines are the only way one room's C code sees another's private
  declarations (public headers in include/kinesift/ are the contract and carry no room), so an
  order-respecting, acyclic include graph is the plan itself.
When it does not apply: calls through public headers (a symbol-level dependency) are not seen
  here (check_symbol_cycles.py reads them from the library's symbol tables);
  a declaration copied by hand instead of included would hide a dependency (review catches it).
Who may use it: meson test (suite 'layout'); run by hand as `check_rooms.py SOURCE_ROOT`.
Known departures are listed in ALLOWED with the reason; the list only shrinks.
"""
import os
import re
import sys

ROOMS = ['common', 'algo', 'json', 'source', 'vocab', 'store', 'parser', 'analysis', 'insights', 'stats',
         'compare', 'ranks', 'report', 'redact', 'validate', 'cli', 'fuzz']

# (including room, included room): departures from the order that are known and left for later.
ALLOWED = set()  # none left (the ranks writer moved from ranks/report.c to report/ranks.c)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRIVATE = re.compile(r'_int\.h$')


def sources(root):
    for room in ROOMS:
        top = os.path.join(root, room)
        for d, _, names in os.walk(top):
            for n in sorted(names):
                if n.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(d, n), root).replace(os.sep, '/')


def test_sources(root):
    """The C files of tests/, tests/ROOM/... (a room's tests live in tests/ROOM/)."""
    top = os.path.join(root, 'tests')
    for d, _, names in os.walk(top):
        for n in sorted(names):
            if n.endswith(('.c', '.h')):
                rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, '/')
                if rel.count('/') >= 2:
                    yield rel


def unit(path):
    return os.path.splitext(path)[0]


def main(root):
    rank = {r: i for i, r in enumerate(ROOMS)}
    errors = []
    graph = {}
    files = list(sources(root))
    for f in files:
        room = f.split('/')[0]
        with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            target = inc.split('/')[0]
            if target not in rank:
                continue
            if rank[target] > rank[room] and (room, target) not in ALLOWED:
                errors.append(f'{f}: includes {inc}: room {target} comes after {room}')
            if target != room and PRIVATE.search(inc):
                errors.append(f'{f}: includes {inc}: private to room {target} and its tests')
            if os.path.exists(os.path.join(root, inc)):
                a, b = unit(f), unit(inc)
                if a != b:
                    graph.setdefault(a, set()).add(b)
    # cycles between units (iterative DFS, colours)
    colour = {}
    for start in sorted(graph):
        if colour.get(start):
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            c = colour.get(nxt, 0)
            if c == 1:
                cyc = path[path.index(nxt):] + [nxt]
                errors.append('include cycle: ' + ' -> '.join(cyc))
            elif c == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                path.append(nxt)
    tests = list(test_sources(root))
    for f in tests:
        room = f.split('/')[1]
        with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
            for inc in INCLUDE.findall(fh.read()):
                target = inc.split('/')[0]
                if target in rank and target != room and PRIVATE.search(inc):
                    errors.append(f'{f}: includes {inc}: private to room {target} and its tests '
                                  f'(tests/{target}/)')
    for e in errors:
        print(e)
    print(f'{len(files)} files in {len(ROOMS)} rooms and {len(tests)} test files checked: '
          f'{len(errors)} problem(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')))
