#!/bin/sh
# bench/kernels_cost.sh: what the kernel view costs `kinesift analyze --format json`, in instructions
# counted by callgrind (repeatable on a loaded machine, unlike wall time), on every corpus trace:
# the inclusive instructions of the work classes and tensor-core time per device, window and step
# (ks_kernels_json_classes) and of the ops grouped by shape with their FLOPs, bytes, rates and
# roofline (ks_kernels_json_shapes), as a share of the whole run's (target <= 5 %). A kernel
# name is classified once per analysis, by whichever asks first (kinesift/kernels.h,
# ks_analysis_kernel_class): that cost is in one of them. Not apart in these counts, and so in
# the total only: the parser keeping shape and launch args, the launch stats of the kernels rows
# and the class names of the ops and kernels rows (after the first ask, a read of the memo). One
# thread (--threads 1), so the counts do not depend on scheduling.
#
#   bench/kernels_cost.sh  (env: KS_CORPUS; KS_BENCH_KINESIFT=path: use that build instead of
#                           an optimised one of its own)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/kernels_cost.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-kernels}
. "$ROOT/bench/lib.sh"
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    { echo "$BENCH: needs valgrind (callgrind, callgrind_annotate)" >&2; exit 2; }
if [ -n "${KS_BENCH_KINESIFT:-}" ]; then
    mkdir -p "$WORK"
    K=$KS_BENCH_KINESIFT
else
    bench_build
fi

echo "kernel view cost in analyze --format json --threads 1: callgrind instructions (Ir), inclusive"
printf '%-62s %14s %12s %8s\n' trace 'total Ir' 'kernels Ir' share
worst=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
    out=$WORK/cg.out
    rm -f "$out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$K" analyze --format json --quiet --threads 1 "$f" \
        >/dev/null 2>"$WORK/vg.log" || { cat "$WORK/vg.log" >&2; exit 2; }
    # --auto=no: the function summaries alone (with debug info, the annotated source would repeat a
    # call's inclusive count on its call line). callgrind_annotate lists a function of a build with
    # debug info twice, by its absolute source path and by its relative one with the object: the
    # same count, taken once (the largest line per function; the two are not inlined anywhere)
    callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$out" 2>/dev/null >"$WORK/annotate.txt"
    line=$(awk '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        /PROGRAM TOTALS/ { total = num($1) }
        /^ *[0-9,]+ +\([ 0-9.]+%\) +[^ ]*:ks_kernels_json_(classes|shapes)( |$)/ {
            match($0, /ks_kernels_json_(classes|shapes)/)
            f = substr($0, RSTART, RLENGTH)
            if (num($1) > seen[f]) seen[f] = num($1) }
        END { for (f in seen) mem += seen[f]
              printf "%d %d %.5f", total, mem, total ? mem / total : 0 }' "$WORK/annotate.txt")
    set -- $line
    printf '%-62s %14s %12s %7s%%\n' "${f#"$CORPUS"/}" "$1" "$2" "$(awk -v r="$3" 'BEGIN { printf "%.2f", r * 100 }')"
    worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 5%%)  %s\n", w * 100, (w <= 0.05 ? "met" : "SHORT")
    exit w <= 0.05 ? 0 : 1 }'
