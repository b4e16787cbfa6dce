#!/bin/sh
# bench/long_string.sh: time linear in the length of one string. yajl lexes a token cut
# by a feed again from its start at every feed; the parser feeds a long token in doubling parts
# (parse.c, read_want) so that the work stays linear. Two one-event traces whose name is a string
# of SMALL and LARGE MiB (default 8 and 32); prints the best of REPS `kinesift stats` times of each
# and their ratio: about LARGE / SMALL (4) when linear, its square (16) when quadratic.
#
#   bench/long_string.sh   (env: KS_KINESIFT=path to use a built binary instead of a release
#                           build, KS_BENCH_SMALL=8, KS_BENCH_LARGE=32, KS_BENCH_REPS=3)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/long_string.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-long-string}
. "$ROOT/bench/lib.sh"
SMALL=${KS_BENCH_SMALL:-8}
LARGE=${KS_BENCH_LARGE:-32}
REPS=${KS_BENCH_REPS:-3}
if [ -n "${KS_KINESIFT:-}" ]; then K=$KS_KINESIFT; mkdir -p "$WORK"; else bench_build; fi

make_trace() { # MiB FILE
    python3 - "$1" "$2" <<'PY'
import sys
n = int(sys.argv[1]) << 20
with open(sys.argv[2], "w") as f:
    f.write('{"traceEvents": [{"ph": "X", "name": "' + "x" * n +
            '", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}\n')
PY
}

best() { # FILE: the best of REPS times
    i=0
    : >"$WORK/times"
    while [ "$i" -lt "$REPS" ]; do
        run "$K" stats "$1" | cut -d' ' -f1 >>"$WORK/times"
        i=$((i + 1))
    done
    sort -n "$WORK/times" | head -1
}

for mb in "$SMALL" "$LARGE"; do
    [ -s "$WORK/string-$mb.json" ] || make_trace "$mb" "$WORK/string-$mb.json"
done
ts=$(best "$WORK/string-$SMALL.json")
tl=$(best "$WORK/string-$LARGE.json")
awk -v s="$SMALL" -v l="$LARGE" -v a="$ts" -v b="$tl" 'BEGIN {
    printf "one string of %s MiB: %.3f s; of %s MiB: %.3f s; ratio %.2f (linear %.0f, quadratic %.0f)\n",
           s, a, l, b, b / a, l / s, (l / s) * (l / s) }'
