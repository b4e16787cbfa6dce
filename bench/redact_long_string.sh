#!/bin/sh
# bench/redact_long_string.sh: `kinesift redact` in time linear in the length of one string. yajl
# lexes a token cut by a feed again from its start at every feed; the engine feeds a token longer
# than its chunk in parts that double (redact/rewrite.c), so the work stays linear. Two one-event
# traces whose name is a string of SMALL and LARGE MiB, of letters and of raw control characters
# (which the pre-filter turns into six-byte escapes); prints the instruction counts of redact on
# each (valgrind --tool=callgrind: repeatable on a loaded machine) and their ratio: about
# LARGE / SMALL (4) when linear, its square (16) when quadratic.
#
#   bench/redact_long_string.sh   (env: KS_KINESIFT=path to use a built binary instead of a
#                                  release build, KS_BENCH_SMALL=2, KS_BENCH_LARGE=8)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/redact_long_string.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-redact-long-string}
. "$ROOT/bench/lib.sh"
SMALL=${KS_BENCH_SMALL:-2}
LARGE=${KS_BENCH_LARGE:-8}
command -v valgrind >/dev/null || { echo "$BENCH: needs valgrind (callgrind)" >&2; exit 2; }
if [ -n "${KS_KINESIFT:-}" ]; then K=$KS_KINESIFT; mkdir -p "$WORK"; else bench_build; fi

make_trace() { # MiB FILL(x|ctl) FILE
    python3 - "$1" "$2" "$3" <<'PY'
import sys
n = int(sys.argv[1]) << 20
fill = b"x" if sys.argv[2] == "x" else b"\x01"
with open(sys.argv[3], "wb") as f:
    f.write(b'{"traceEvents": [{"ph": "X", "name": "/home/benchuser/' + fill * n +
            b'", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}\n')
PY
}

instr() { # FILE: instructions of one redaction
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$K" redact --quiet --force \
        --compress none -o "$WORK/out.json" "$1" 2>&1 | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}

for fill in x ctl; do
    for mb in "$SMALL" "$LARGE"; do
        [ -s "$WORK/$fill-$mb.json" ] || make_trace "$mb" "$fill" "$WORK/$fill-$mb.json"
    done
    a=$(instr "$WORK/$fill-$SMALL.json")
    b=$(instr "$WORK/$fill-$LARGE.json")
    awk -v f="$fill" -v s="$SMALL" -v l="$LARGE" -v a="$a" -v b="$b" 'BEGIN {
        printf "redact, one string of %s MiB (%s): %.0f instructions; of %s MiB: %.0f; ratio %.2f (linear %.0f, quadratic %.0f)\n",
               s, f == "x" ? "letters" : "control characters", a, l, b, b / a, l / s, (l / s) * (l / s) }'
done
