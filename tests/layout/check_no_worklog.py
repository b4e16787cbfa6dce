#!/usr/bin/env python3
"""tests/layout/check_no_worklog.py: the repository speaks of the product, not of its history.

What: reads every tracked text file (git ls-files; or a walk of the tree where git is not there)
  and fails on a line that cites the project's own work log: an issue number ("issue 16",
  "issues 3 and 5"), a numbered work session ("tenth session", "session 4"), or a dated log
  entry ("(December 2026)"). History lives in git; docs are reference.
Why it is correct: those are the spellings the work log used; a reader of the repository cannot
  resolve them, and they age at once.
When it does not apply: references to another project's tracker are sources, not history:
  a line naming an upstream issue or pull request with '#' ("HTA issue #317", "PR #1656") passes.
  docs/trace-format.md and docs/peer-definitions.md cite upstream trackers throughout.
Who may use it: meson test (suite 'layout'); by hand as `check_no_worklog.py SOURCE_ROOT`, or
  `--self-test`.
"""
import os
import re
import subprocess
import sys

ORDINAL = (r'(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|'
           r'thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|'
           r'twentieth|\d+(st|nd|rd|th))')
MONTH = (r'(January|February|March|April|May|June|July|August|September|October|November|'
         r'December)')
PATTERNS = [
    ('an issue number', re.compile(r'\b[Ii]ssues? (\d+)(\s*(,|and)\s*\d+)*\b(?!\s*[-/])')),
    ('a numbered session', re.compile(r'\b' + ORDINAL + r'[- ]session\b|\bsession \d+\b', re.I)),
    ('a dated log entry', re.compile(r'\b(since|until|in|before|after)\s+' + MONTH + r' \d{4}\b'
                                     r'|\(' + MONTH + r' \d{4}[,)]')),
]
SKIP_FILES = {'docs/trace-format.md', 'docs/peer-definitions.md',
              'tests/layout/check_no_worklog.py'}
TEXT = ('.c', '.h', '.md', '.py', '.sh', '.build', '.txt', '.options', '.1', '.cu', '.in')


def findings(line):
    """The kinds of work-log citation on one line (empty when it has none)."""
    if re.search(r'#\d+', line):  # an upstream tracker's issue or PR
        return []
    return [what for what, rx in PATTERNS if rx.search(line)]


def files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True, text=True,
                             check=True).stdout.split('\n')
        return [f for f in out if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(('build', '.'))]
            found += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return found


def check(root):
    bad = []
    for rel in files(root):
        base = os.path.basename(rel)
        if rel in SKIP_FILES or not (rel.endswith(TEXT) or base in ('run.sh', 'test.sh', 'run')):
            continue
        if rel.startswith(('fixtures/', 'fuzz/corpus/', 'fuzz/regress/')):
            continue
        try:
            with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
                for n, line in enumerate(f, 1):
                    for what in findings(line):
                        bad.append(f'{rel}:{n}: {what}: {line.strip()[:100]}')
        except OSError:
            continue
    return bad


def self_test():
    must = ['(issue 16)', 'issues 3 and 5', 'Issue 19: see', 'the tenth session', 'eighth-session',
            'session 4', '(December 2026)', 'since December 2026']
    must_not = ['HTA issue #317', 'PR #1656 (2025-05)', 'a session cookie', 'gitlab_session',
                'the issue is', 'December 2026 is a date']
    fails = [s for s in must if not findings(s)] + [s for s in must_not if findings(s)]
    for s in fails:
        print('self-test: wrong verdict on', repr(s))
    return 1 if fails else 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    problems = check(sys.argv[1] if len(sys.argv) > 1 else '.')
    for p in problems:
        print(p)
    print(f'{len(problems)} work-log citation(s)' if problems else 'no work-log citation')
    sys.exit(1 if problems else 0)
