#!/usr/bin/env python3
"""tests/layout/diag_ids.py: the diagnostic ids are one table (store/diag_table.h).

What: fails when
  - an id the library emits is not a row of the table: a string literal of a table prefix
    ("parse.", "timeline.", ...) anywhere in the library's sources, or any literal passed as the
    id of ks_diag_count/ks_diag_add/ks_diag_add_at/diag_at/ks_diag_total/ks_diag_get;
  - an id is emitted with a severity other than its row's ("id", KS_SEV_X on one call);
  - the rows are not sorted by id (ks_diag_info_find searches them by halves) or an id repeats;
  - the list "Every diagnostic" of docs/input.md differs from the table in any row (id,
    severity, "read" mark, meaning, in order);
  - a dotted id of a table prefix written in docs/*.md or README.md is not in the table.
Why it is correct: ids reach the diagnostics only as these literals (a computed id is a literal
  returned by a function, e.g. json/repair.c's ks_repair_kind_id, found by the first rule).
When it does not apply: an id built at run time from pieces would not be seen (none is).
usage: diag_ids.py SOURCE_ROOT
"""
import os
import re
import sys

ROOMS = ['common', 'algo', 'json', 'source', 'vocab', 'store', 'parser', 'analysis', 'insights', 'stats',
         'compare', 'ranks', 'report', 'redact', 'validate', 'include']
TABLE = os.path.join('store', 'diag_table.h')
# literals of a table prefix that are not ids, with the reason
NOT_IDS = {
    'parse.repair': "json/repair.c's answer for a repair kind it does not know (unreachable)",
}
ROW = re.compile(r'X\("([^"]+)",\s*(INFO|WARNING|ERROR),\s*([01]),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)')
PIECE = re.compile(r'"((?:[^"\\]|\\.)*)"')


def table(root):
    text = open(os.path.join(root, TABLE)).read().replace('\\\n', '')
    rows = []
    for id_, sev, unc, doc in ROW.findall(text):
        rows.append((id_, sev.lower(), unc == '1', ''.join(PIECE.findall(doc)).replace('\\"', '"')))
    return rows


def sources(root):
    for room in ROOMS:
        for d, _, names in os.walk(os.path.join(root, room)):
            for n in sorted(names):
                p = os.path.join(d, n)
                if n.endswith(('.c', '.h')) and os.path.relpath(p, root) != TABLE:
                    yield os.path.relpath(p, root), open(p, errors='replace').read()


def docs_rows(root):
    text = open(os.path.join(root, 'docs', 'input.md')).read()
    part = text.split('\n## Every diagnostic\n', 1)
    if len(part) != 2:
        return None
    rows = []
    for line in part[1].split('\n## ', 1)[0].splitlines():
        m = re.match(r'^\| `([^`]+)` \| (info|warning|error) \| (read)? \| (.*) \|$', line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3) == 'read', m.group(4)))
    return rows


def main():
    root = sys.argv[1]
    failures = []
    rows = table(root)
    ids = {r[0]: r for r in rows}
    if len(rows) < 30:
        failures.append(f'{TABLE}: only {len(rows)} rows read (the pattern no longer matches?)')
    names = [r[0] for r in rows]
    if names != sorted(names) or len(set(names)) != len(names):
        failures.append(f'{TABLE}: rows not sorted by id, or an id repeats')
    prefixes = sorted({i.split('.')[0] for i in ids})
    lit = re.compile(r'"((?:%s)\.[a-z0-9_]+)"' % '|'.join(prefixes))
    call = re.compile(r'\b(?:ks_diag_(?:count|add|add_at|total|get)|diag_at)\s*\([^,()]*(?:\([^()]*\))?[^,()]*,\s*"([^"]+)"')
    sev = re.compile(r'"([a-z]+\.[a-z0-9_]+)",\s*KS_SEV_([A-Z]+)')
    emitted = 0
    for path, text in sources(root):
        for m in list(lit.finditer(text)) + list(call.finditer(text)):
            i = m.group(1)
            emitted += 1
            if i not in ids and i not in NOT_IDS:
                failures.append(f'{path}: id "{i}" is not in {TABLE}')
        for m in sev.finditer(text):
            i, s = m.group(1), m.group(2).lower()
            if i in ids and ids[i][1] != s:
                failures.append(f'{path}: "{i}" emitted as {s}, the table says {ids[i][1]}')
    if emitted < len(rows):
        failures.append(f'only {emitted} ids found in the sources for {len(rows)} rows')
    drows = docs_rows(root)
    if drows is None:
        failures.append('docs/input.md: no "## Every diagnostic" section')
    elif drows != rows:
        for a, b in zip(drows + [None] * len(rows), rows + [None] * len(drows)):
            if a != b:
                failures.append(f'docs/input.md "Every diagnostic" differs from {TABLE}: '
                                f'docs {a}, table {b}')
                break
    word = re.compile(r'`((?:%s)\.[a-z0-9_]+)`' % '|'.join(prefixes))
    for d in sorted(os.listdir(os.path.join(root, 'docs'))) + ['../README.md']:
        p = os.path.join(root, 'docs', d)
        if p.endswith('.md'):
            for m in word.finditer(open(p).read()):
                i = m.group(1)
                if i not in ids and not re.search(r'\.(c|h|py|md)$', i):
                    failures.append(f'{os.path.normpath(os.path.relpath(p, root))}: `{i}` is not '
                                    f'an id of {TABLE}')
    for f in failures:
        print('FAIL:', f)
    print(f'{len(rows)} ids in the table, {emitted} uses in the sources checked')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
