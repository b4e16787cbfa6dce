#!/usr/bin/env python3
"""tests/corpus_list.py: print the trace files of the corpus directory, one per line, relative
to it (used by meson to register one test per real trace). Prints MISSING when absent."""
import os, sys

root = sys.argv[1]
if not os.path.isdir(root):
    print("MISSING")
    sys.exit(0)
out = []
for d, _, files in os.walk(root):
    for f in files:
        if ".json" in f:
            out.append(os.path.relpath(os.path.join(d, f), root))
print("\n".join(sorted(out)))
