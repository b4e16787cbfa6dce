#!/bin/sh
# bench/kernels_cost.sh: what the kernel view costs `kinesift analyze --format json`, in instructions
# counted by callgrind (repeatable on a loaded machine, unlike wall time), on every corpus trace:
# the inclusive instructions of the work classes and tensor-core time per device, window and step
# (ks_kernels_json_classes), of the ops grouped by shape with their FLOPs, bytes, rates and
# roofline (ks_kernels_json_shapes) and of the kernel view's diagnoses (ks_dx_kernel_view), as a
# share of the whole run's (target <= 5 %). A kernel name is classified once per analysis, and the
# shapes table built once (kinesift/kernels.h, ks_analysis_kernel_class, ks_analysis_shapes), by
# whichever asks first: that cost is in one of them. Not apart in these counts, and so in the
# total only: the parser keeping shape and launch args, the launch stats of the kernels rows and
# the class names of the ops and kernels rows (after the first ask, a read of the memo). One
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
need_callgrind
bench_kinesift

echo "kernel view cost in analyze --format json --threads 1: callgrind instructions (Ir), inclusive"
printf '%-62s %14s %12s %8s\n' trace 'total Ir' 'kernels Ir' share
worst=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
    line=$(callgrind_share "$f" 'ks_kernels_json_classes|ks_kernels_json_shapes|ks_dx_kernel_view')
    set -- $line
    printf '%-62s %14s %12s %7s%%\n' "${f#"$CORPUS"/}" "$1" "$2" "$(awk -v r="$3" 'BEGIN { printf "%.2f", r * 100 }')"
    worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 5%%)  %s\n", w * 100, (w <= 0.05 ? "met" : "SHORT")
    exit w <= 0.05 ? 0 : 1 }'
