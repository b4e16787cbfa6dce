#!/usr/bin/env python3
"""tests/layout/check_exports.py: libkinesift.so exports exactly its public API.

What: compares the dynamic symbol table of the shared library (`nm -D --defined-only`) with the
  declarations of the installed public headers (include/kinesift/*.h) and fails when
  - an exported symbol is not `ks_`-prefixed, or is not declared in a public header with KS_API
    (a leak: an internal function reachable by users, a name clash waiting to happen);
  - a function or variable declared in a public header does not carry KS_API (every declaration
    of an installed header is API; an internal one belongs in its room's private header, e.g.
    analysis/analysis_int.h);
  - a KS_API declaration is not exported (a user's program would fail to link).
Why it is correct: the library is built with -fvisibility=hidden (meson's gnu_symbol_visibility),
  so only KS_API declarations (kinesift/api.h: visibility("default")) reach the dynamic table,
  and the dynamic table is exactly what a program linking libkinesift.so can call. The headers
  are read with comments, preprocessor lines and brace bodies (structs, enums, static inline
  definitions) blanked out; what remains at file scope is a list of declarations ending in ';'.
When it does not apply: a declaration spelt through a macro (a name made by ## pasting) is not
  seen; static inline functions in headers are not symbols and are skipped. Exported data
  (D/B/R/V) is held to the same rules as functions.
Who may use it: meson test (suite 'layout'):
  check_exports.py SOURCE_ROOT LIBRARY      the real library against the real headers
  check_exports.py --self-test              the checker on fabricated headers and symbol lists
"""
import os
import re
import subprocess
import sys

HOWTO = ("to fix: a public function (declared in include/kinesift/*.h) needs KS_API in front of "
         "its declaration (kinesift/api.h, included by kinesift/common.h), e.g. "
         "`KS_API int ks_foo(ks_trace *t);`; an internal function must not be declared in "
         "include/kinesift/ at all: move its declaration to its room's private header "
         "(room/room_int.h, e.g. analysis/analysis_int.h), which the library, the CLI and the "
         "tests can include. See docs/architecture.md, 'Public API'.")

IDENT = re.compile(r'[A-Za-z_]\w*')


def blank(text, start, end):
    """text with [start, end) replaced by spaces, newlines kept (offsets stay valid)."""
    return text[:start] + re.sub(r'[^\n]', ' ', text[start:end]) + text[end:]


def strip(text):
    """Comments, string literals, preprocessor lines and the C++ guards blanked out."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"',
                  lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
    # `#ifdef __cplusplus ... #endif` holds only `extern "C" {` or its `}`
    text = re.sub(r'^[ \t]*#[ \t]*ifdef[ \t]+__cplusplus\b.*?^[ \t]*#[ \t]*endif[^\n]*',
                  lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S | re.M)
    text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
                  lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.M)
    return text


def strip_attributes(stmt):
    """`__attribute__((...))` removed (balanced parentheses)."""
    while True:
        m = re.search(r'__attribute__\s*\(', stmt)
        if not m:
            return stmt
        depth, i = 0, m.end() - 1
        while i < len(stmt):
            depth += {'(': 1, ')': -1}.get(stmt[i], 0)
            i += 1
            if depth == 0:
                break
        stmt = stmt[:m.start()] + ' ' + stmt[i:]


def declarations(text):
    """[(name, has_ks_api, offset of the declaration's first character)] for every function
    and extern variable declared at file scope of one header's text."""
    text = strip(text)
    # blank brace bodies, remembering where a body ended a statement (struct/enum definitions
    # end at their ';', static inline function definitions at their '}')
    out, depth, body_start = [], 0, 0
    chars = list(text)
    for i, c in enumerate(text):
        if c == '{':
            if depth == 0:
                body_start = i
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                for j in range(body_start, i + 1):
                    if chars[j] != '\n':
                        chars[j] = ' '
                # a function definition: the text before the body ends in ')'
                before = ''.join(chars[:body_start]).rstrip()
                chars[i] = ';' if before.endswith(')') else ' '
                if before.endswith(')'):
                    chars[body_start] = '@'  # marks a definition, not a declaration
    text = ''.join(chars)
    start = 0
    for m in re.finditer(';', text):
        stmt, off = text[start:m.start()], start
        start = m.end()
        lead = len(stmt) - len(stmt.lstrip())
        off += lead
        stmt = stmt.strip()
        if not stmt or '@' in stmt:
            continue
        words = IDENT.findall(stmt)
        if not words or words[0] == 'typedef' or 'static' in words:
            continue
        has_api = 'KS_API' in words
        flat = strip_attributes(stmt)
        paren = flat.find('(')
        if paren >= 0:
            head = flat[:paren].rstrip()
            if flat[paren + 1:].lstrip().startswith('*') or not IDENT.search(head):
                # `int (*name)(...)` (a function pointer variable) or `T (*f(args))(...)`
                m2 = re.match(r'[^(]*\(\s*\*\s*([A-Za-z_]\w*)', flat)
                if m2:
                    out.append((m2.group(1), has_api, off))
                continue
            name = IDENT.findall(head)[-1]
            out.append((name, has_api, off))
        elif words[0] == 'extern' or 'extern' in words:
            name = IDENT.findall(re.sub(r'\[.*', '', flat))[-1]
            out.append((name, has_api, off))
        # anything else (a struct declaration `struct x;`, an enum) declares no symbol
    return out


def header_declarations(include_dir):
    """{name: (header, has_ks_api)} over every public header."""
    decls = {}
    for h in sorted(os.listdir(include_dir)):
        if h.endswith('.h'):
            with open(os.path.join(include_dir, h), encoding='utf-8') as fh:
                for name, api, _ in declarations(fh.read()):
                    decls[name] = (h, api)
    return decls


def exported(nm_text):
    """{name: nm type letter} of the defined dynamic symbols in `nm -D --defined-only` output."""
    syms = {}
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] in 'TtWDdBbRrVvi' and len(parts[-2]) == 1:
            name = parts[-1].split('@')[0]
            if parts[-2] in 'TWDBRVi':   # global (upper case) or indirect
                syms[name] = parts[-2]
    return syms


def check(decls, syms):
    """The problems as (kind, name, message): kind 'leak', 'no KS_API' or 'hidden' (empty: the
    export table is the public API)."""
    problems = []
    for name in sorted(syms):
        if not name.startswith('ks_'):
            problems.append(('leak', name, 'leak: %s is exported but is not ks_-prefixed (an '
                             'internal or third-party symbol: hide it or make it static)' % name))
        elif name not in decls:
            problems.append(('leak', name, 'leak: %s is exported but declared in no public '
                             'header (is KS_API on a private declaration?)' % name))
        elif not decls[name][1]:
            problems.append(('leak', name, 'leak: %s is exported but its declaration in '
                             'kinesift/%s has no KS_API' % (name, decls[name][0])))
    for name, (header, api) in sorted(decls.items()):
        if not api:
            problems.append(('no KS_API', name, 'no KS_API: %s is declared in kinesift/%s '
                             'without KS_API, so libkinesift.so hides it' % (name, header)))
        elif name not in syms:
            problems.append(('hidden', name, 'hidden: %s is declared KS_API in kinesift/%s but '
                             'libkinesift.so does not export it (not defined in the library, '
                             'or defined static)' % (name, header)))
    return problems


def self_test():
    """The checker on fabricated inputs: each kind of failure is caught, a clean pair passes."""
    header = '''/* a header */
#ifndef X_H
#define X_H
#include "kinesift/common.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ks_thing { int (*cb)(int); char name[8]; } ks_thing;
typedef int (*ks_visit)(void *ctx);
struct ks_opaque;
enum { KS_A = 1, KS_B };
/* int ks_commented(void); */
KS_API int ks_one(ks_thing *t,
                  int n);
KS_API const char *ks_two(void)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
KS_API extern const char ks_data[];
static inline int ks_inline(int x) { return x + 1; }
KS_API int (*ks_fn_returning(void))(int);
int ks_internal(void);
#define KS_MACRO(x) ks_macro_fn(x)
#ifdef __cplusplus
}
#endif
#endif
'''
    found = {n: a for n, a, _ in declarations(header)}
    want = {'ks_one': True, 'ks_two': True, 'ks_data': True, 'ks_fn_returning': True,
            'ks_internal': False}
    failures = []
    if found != want:
        failures.append('declarations: got %s, want %s' % (found, want))
    decls = {n: ('x.h', a) for n, a in want.items() if a}
    good = ('0000000000001000 T ks_one\n0000000000001010 T ks_two\n'
            '0000000000002000 R ks_data\n0000000000001020 T ks_fn_returning\n'
            '                 w __gmon_start__\n')
    cases = [
        ('clean', decls, good, []),
        ('non-ks leak', decls, good + '0000000000001030 T helper\n', ['leak: helper']),
        ('undeclared ks leak', decls, good + '0000000000001030 T ks_priv\n', ['leak: ks_priv']),
        ('hidden public function', decls, good.replace('T ks_two\n', 't ks_two\n'),
         ['hidden: ks_two']),
        ('missing KS_API', dict(decls, ks_internal=('x.h', False)), good,
         ['no KS_API: ks_internal']),
        ('exported without KS_API', dict(decls, ks_internal=('x.h', False)),
         good + '0000000000001040 T ks_internal\n', ['leak: ks_internal', 'no KS_API: ks_internal']),
        ('versioned name', decls, good + '0000000000001050 T memcpy@GLIBC_2.14\n',
         ['leak: memcpy']),
    ]
    for what, d, nm, expect in cases:
        got = sorted('%s: %s' % (kind, name) for kind, name, _ in check(d, exported(nm)))
        if got != sorted(expect):
            failures.append('%s: got %s, want %s' % (what, got, sorted(expect)))
    for f in failures:
        print('FAIL:', f)
    print('self-test: %d of %d cases as expected' % (len(cases) + 1 - len(failures), len(cases) + 1))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, lib = argv[1], argv[2]
    nm = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True,
                        check=True).stdout
    decls = header_declarations(os.path.join(root, 'include', 'kinesift'))
    syms = exported(nm)
    problems = check(decls, syms)
    for _, _, message in problems:
        print(message)
    print('%s: %d exported symbols, %d declared in public headers (%d KS_API)' % (
        os.path.basename(lib), len(syms), len(decls), sum(1 for _, a in decls.values() if a)))
    if problems:
        print('%d problems; %s' % (len(problems), HOWTO))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
