#!/bin/sh
# bench/critpath_cost.sh: what the dependency graph and the critical path cost `kinesift analyze
# --format json`, on every corpus trace (and any trace given as an argument: a bench shape):
#  - time: instructions counted by callgrind (repeatable on a loaded machine, unlike wall time),
#    inclusive, of ks_critpath_build (graph and paths) as a share of the whole run's, one thread
#    (--threads 1) so the counts do not depend on scheduling; target <= 15 %;
#  - wall time: the "critical path" row of `analyze --timings` (the same call) over the run's total,
#    the median of KS_BENCH_REPS runs (default 3), --threads 1; target <= 15 %. The instructions
#    miss what memory costs (fresh pages, reads from memory): a build that writes and reads back
#    big arrays can take several times the wall share its instructions suggest. Noisier than the
#    counts on a loaded machine (each run's share is of its own total);
#  - memory: the heap the built graph holds and the heap the paths keep, per event of the trace
#    (bench/critpath_mem: glibc's mallinfo2 before and after each build; the temporaries freed
#    inside a build are not counted); target <= 40 bytes per event for the two together (the graph
#    and the paths are both alive at the end of the build).
# Traces under 1000 events are listed but left out of the verdicts (fixed costs dominate them).
#
#   bench/critpath_cost.sh [TRACE...]   (env: KS_CORPUS; KS_BENCH_REPS=3; KS_BENCH_BUILD=dir: use that build dir
#                                        (with cli/kinesift and bench/critpath_mem) instead of an
#                                        optimised one of its own)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/critpath_cost.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-critpath}
KS_BENCH_REPS=${KS_BENCH_REPS:-3}
. "$ROOT/bench/lib.sh"
need_callgrind
mkdir -p "$WORK"
# wall_share TRACE: the median over $REPS runs of the "critical path" row's time over the total
wall_share() {
    for _ in $(seq "$REPS"); do
        "$K" analyze --format json --quiet --threads 1 --timings "$1" 2>&1 >/dev/null |
            awk '$1 == "critical" && $2 == "path" { p = $3 } $1 == "total" { t = $2 }
                 END { print (t > 0 ? p / t : 0) }'
    done | median
}
if [ -n "${KS_BENCH_BUILD:-}" ]; then
    K=$KS_BENCH_BUILD/cli/kinesift
    M=$KS_BENCH_BUILD/bench/critpath_mem
else
    bench_build
    ninja -C "$BUILD" bench/critpath_mem >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; exit 2; }
    M=$BUILD/bench/critpath_mem
fi

echo "critical path cost in analyze --format json --threads 1: callgrind instructions (Ir), inclusive;"
echo "memory: heap held after the build (mallinfo2), bytes per event"
echo "wall: the --timings row 'critical path' over the total, median of $REPS runs"
printf '%-58s %9s %14s %12s %7s %7s %7s %7s\n' trace events 'total Ir' 'path Ir' share wall 'graph/e' 'path/e'
worst=0
worst_wall=0
worst_mem=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort) "$@"; do
    set -- $("$M" "$f")
    events=$2 graph=$3 path=$4
    line=$(callgrind_share "$f" 'ks_critpath_build')
    set -- $line
    name=${f#"$CORPUS"/}
    wall=$(wall_share "$f")
    printf '%-58.58s %9d %14s %12s %6.2f%% %6.2f%% %7.1f %7.1f\n' "$name" "$events" "$1" "$2" \
        "$(awk -v r="$3" 'BEGIN { print r * 100 }')" "$(awk -v r="$wall" 'BEGIN { print r * 100 }')" \
        "$(awk -v b="$graph" -v n="$events" 'BEGIN { print n ? b / n : 0 }')" \
        "$(awk -v b="$path" -v n="$events" 'BEGIN { print n ? b / n : 0 }')"
    if [ "$events" -ge 1000 ]; then
        worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
        worst_wall=$(awk -v a="$worst_wall" -v b="$wall" 'BEGIN { print (b > a ? b : a) }')
        worst_mem=$(awk -v a="$worst_mem" -v b="$graph" -v c="$path" -v n="$events" \
            'BEGIN { m = (b + c) / n; print (m > a ? m : a) }')
    fi
done
awk -v w="$worst" -v x="$worst_wall" -v m="$worst_mem" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 15%%)  %s\n", w * 100, (w <= 0.15 ? "met" : "SHORT")
    printf "the largest wall share %.2f%% (target <= 15%%)  %s\n", x * 100, (x <= 0.15 ? "met" : "SHORT")
    printf "the most bytes per event, graph + paths %.1f (target <= 40)  %s\n", m, (m <= 40 ? "met" : "SHORT")
    exit (w <= 0.15 && x <= 0.15 && m <= 40) ? 0 : 1 }'
