#!/usr/bin/env python3
"""tests/layout/check_symbol_cycles.py: no two files of the library call each other, and no room
calls a room after it, even through public headers.

What: reads `nm` of the static library libkinesift.a (one member per .c file), links each
  undefined `ks_` symbol of a member to the member that defines it, and fails on every cycle in
  that call graph (a strongly connected group of two or more files), naming the files and the
  symbols that tie them; and on every call from a file of one room to a file of a room that
  comes after it in the data-flow order (ROOMS, as in check_rooms.py; a member is named
  ROOM_FILE.c.o), which makes the rooms a cycle even where the files are not one.
Why it is correct: check_rooms.py sees only `#include` lines, so two files that call each other
  through a public header (kinesift/*.h carries no room) pass it; the object files' symbol tables
  are the calls themselves, whatever header declared them. A file that only references a symbol
  of its own is not an edge.
When it does not apply: calls through function pointers (option tables, yajl callbacks) are not
  symbols and are not seen; static functions never leave their file.
Who may use it: meson test (suite 'layout'): `check_symbol_cycles.py NM LIBKINESIFT_A`;
  `--self-test` checks the checker on fabricated symbol tables.
Known departures are listed in ALLOWED with the reason; the list only shrinks.
"""
import subprocess
import sys

# frozensets of member names (e.g. 'compare_gate.c.o') known to form a cycle, with the reason.
ALLOWED = set()

ROOMS = ['common', 'algo', 'json', 'source', 'vocab', 'store', 'parser', 'analysis', 'insights',
         'stats', 'compare', 'ranks', 'report', 'redact', 'validate']


def upward(members, rooms=None):
    """Calls from a room to a room after it: 'a -> b (symbols)' per pair of files."""
    rank = {r: i for i, r in enumerate(ROOMS if rooms is None else rooms)}
    out = []
    for a, targets in sorted(graph(members).items()):
        ra = rank.get(a.split('_')[0])
        for b, syms in sorted(targets.items()):
            rb = rank.get(b.split('_')[0])
            if ra is not None and rb is not None and rb > ra:
                out.append('room %s calls room %s after it: %s -> %s (%s)'
                           % (a.split('_')[0], b.split('_')[0], a, b, ', '.join(sorted(syms)[:3])))
    return out


def parse_nm(text):
    """nm output of an archive -> {member: (defined set, undefined set)} for ks_ symbols."""
    members, cur = {}, None
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        if line.endswith(':') and ' ' not in line.strip():
            cur = line[:-1]
            members[cur] = (set(), set())
            continue
        if cur is None:
            continue
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            if parts[1].startswith('ks_'):
                members[cur][1].add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDRBVW' and parts[2].startswith('ks_'):
            members[cur][0].add(parts[2])
    return members


def graph(members):
    owner = {}
    for m, (defs, _) in members.items():
        for s in defs:
            owner[s] = m
    edges = {m: {} for m in members}
    for m, (_, undef) in members.items():
        for s in undef:
            o = owner.get(s)
            if o is not None and o != m:
                edges[m].setdefault(o, []).append(s)
    return edges


def sccs(edges):
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = n[0]; n[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = n[0]; n[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def check(members, allowed=None):
    allowed = ALLOWED if allowed is None else allowed
    edges = graph(members)
    errors = []
    for comp in sccs(edges):
        if comp in allowed:
            continue
        ties = []
        for a in sorted(comp):
            for b, syms in sorted(edges[a].items()):
                if b in comp:
                    ties.append('%s -> %s (%s)' % (a, b, ', '.join(sorted(syms)[:3])))
        errors.append('files call each other: ' + '; '.join(ties))
    return errors


def self_test():
    nm = lambda *ms: '\n'.join('%s:\n%s\n' % (name, '\n'.join(lines)) for name, lines in ms)
    ok = nm(('a.c.o', ['0000 T ks_a', '         U ks_b']), ('b.c.o', ['0000 T ks_b', '         U malloc']))
    assert check(parse_nm(ok), set()) == [], 'a chain is not a cycle'
    cyc = nm(('a.c.o', ['0000 T ks_a', '         U ks_b']), ('b.c.o', ['0000 T ks_b', '         U ks_c']),
             ('c.c.o', ['0000 T ks_c', '         U ks_a']), ('d.c.o', ['0000 T ks_d', '         U ks_a']))
    errs = check(parse_nm(cyc), set())
    assert len(errs) == 1 and 'a.c.o -> b.c.o' in errs[0] and 'c.c.o -> a.c.o' in errs[0] and 'd.c.o' not in errs[0], errs
    assert check(parse_nm(cyc), {frozenset({'a.c.o', 'b.c.o', 'c.c.o'})}) == [], 'a listed cycle passes'
    own = nm(('a.c.o', ['0000 T ks_a', '         U ks_a']))
    assert check(parse_nm(own), set()) == [], 'a file calling itself is no cycle'
    up = nm(('store_store.c.o', ['0000 T ks_trace_append', '         U ks_kind_is_cpu_side']),
            ('parser_classify.c.o', ['0000 T ks_kind_is_cpu_side', '         U ks_trace_append']))
    errs = upward(parse_nm(up))
    assert len(errs) == 1 and 'store_store.c.o -> parser_classify.c.o' in errs[0], errs
    down = nm(('parser_a.c.o', ['0000 T ks_a', '         U ks_b']), ('store_b.c.o', ['0000 T ks_b']))
    assert upward(parse_nm(down)) == [], 'a call down the rooms is allowed'
    print('self-test passed')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 3:
        print('usage: check_symbol_cycles.py NM LIBKINESIFT_A | --self-test', file=sys.stderr)
        return 2
    text = subprocess.run([argv[1], argv[2]], check=True, capture_output=True, text=True).stdout
    members = parse_nm(text)
    if not members:
        print('check_symbol_cycles: no member read from ' + argv[2], file=sys.stderr)
        return 2
    errors = check(members)
    up = upward(members)
    for e in errors + up:
        print(e)
    print('%d files, %d cycles, %d upward calls' % (len(members), len(errors), len(up)))
    errors += up
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
