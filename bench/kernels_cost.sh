#!/bin/sh
# bench/kernels_cost.sh: what the kernel view costs `kinesift analyze --format json`, in instructions
# counted by callgrind (repeatable on a loaded machine, unlike wall time), on every corpus trace:
# the inclusive instructions of
#   - the parser keeping the shape and launch args (Input Dims, Input type, Concrete Inputs, grid,
#     block) as compact text, with the interning of each text: whole, as the fast scanner hands
#     most of them over (ks_ps_cb_raw_array; a text met before found by its bytes,
#     parser/shapememo.c), or from the calls for each value (ks_ps_cap_begin,
#     ks_ps_cap_open, ks_ps_cap_close, cap_value); the store adding their records
#     (ks_trace_add_shape, ks_trace_add_launch) and sorting them (sort_ks_shape_info,
#     sort_ks_launch_info);
#   - the work classes and tensor-core time per device, window and step (ks_kernels_json_classes);
#   - the ops grouped by shape with their FLOPs, bytes, rates and roofline
#     (ks_kernels_json_shapes);
#   - the kernel view's diagnoses (ks_dx_kernel_view);
# as a share of the whole run's (target <= 5 %); the column "analysis", the last three alone (the
# parse's part left out). A kernel name is classified once per analysis, and the shapes table built
# once (kinesift/kernels.h, ks_analysis_kernel_class, ks_analysis_shapes), by whichever asks first:
# that cost is in one of them. Not apart in these counts, and so in the total only: the lexing of
# the shape args (yajl or the fast scanner read them whether kept or not: the scanner's walk over a
# whole array in its place) and the calls that bring each value to cap_value, the launch args read
# as numbers (registers, shared memory, occupancy), the launch stats of the kernels rows and the
# class names of the ops and kernels rows (after the first ask, a read of the memo). One thread
# (--threads 1), so the counts do not depend on scheduling.
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
printf '%-62s %14s %12s %8s %12s\n' trace 'total Ir' 'kernels Ir' share 'analysis'
ANALYSIS='ks_kernels_json_classes|ks_kernels_json_shapes|ks_dx_kernel_view'
PARTS="$ANALYSIS|ks_ps_cap_begin|ks_ps_cap_open|ks_ps_cap_close|cap_value|ks_ps_cb_raw_array"
PARTS="$PARTS|ks_trace_add_shape|ks_trace_add_launch|sort_ks_shape_info|sort_ks_launch_info"
worst=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
    line=$(callgrind_share "$f" "$PARTS" "$ANALYSIS")
    set -- $line
    printf '%-62s %14s %12s %7s%% %11s%%\n' "${f#"$CORPUS"/}" "$1" "$2" \
        "$(awk -v r="$3" 'BEGIN { printf "%.2f", r * 100 }')" "$(awk -v r="$5" 'BEGIN { printf "%.2f", r * 100 }')"
    worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 5%%)  %s\n", w * 100, (w <= 0.05 ? "met" : "SHORT")
    exit w <= 0.05 ? 0 : 1 }'
