/* kinesift/api.h: KS_API, the mark of a function or variable that libkinesift.so exports.
 *
 * What: the library is compiled with hidden symbol visibility (meson gnu_symbol_visibility:
 * 'hidden', i.e. -fvisibility=hidden), so only declarations marked KS_API reach the shared
 * library's dynamic symbol table; everything else is internal and callable only from inside the
 * library, or by programs linking the static library (the kinesift command, the tests).
 * Why it is correct: a declaration's visibility attribute applies to the definition that follows
 * it in the same translation unit, and every library source includes its public header.
 * When it does not apply: compilers without GCC's visibility attribute (KS_API is then empty
 * and every non-static symbol is exported, as before).
 * Who may use it: every declaration in include/kinesift/ *.h and nothing else; the test
 * tests/layout/check_exports.py fails on a public declaration without it, on a KS_API
 * declaration the library does not export, and on any exported symbol that is not KS_API. */
#ifndef KINESIFT_API_H
#define KINESIFT_API_H

#if defined(__GNUC__) || defined(__clang__)
#define KS_API __attribute__((visibility("default")))
#else
#define KS_API
#endif

#endif
