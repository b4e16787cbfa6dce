#!/bin/sh
# bench/memory_cost.sh: what the memory view costs `kinesift analyze --format json`, in instructions
# counted by callgrind (repeatable on a loaded machine, unlike wall time), on every corpus trace
# that carries [memory] events: the inclusive instructions of the memory pass (ks_memory_build),
# the per-step rows (ks_memory_steps), the memory_growth check (ks_memory_growth_check) and the
# JSON writer (ks_memory_json), as a share of the whole run's (target <= 5 %). The parser's share
# (reading six more args keys of the [memory] events) is not apart in these counts: it is in the
# total. One thread (--threads 1), so the counts do not depend on scheduling.
#
#   bench/memory_cost.sh   (env: KS_CORPUS; KS_BENCH_KINESIFT=path: use that build instead of
#                           an optimised one of its own)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/memory_cost.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-memory}
. "$ROOT/bench/lib.sh"
need_callgrind
bench_kinesift

echo "memory view cost in analyze --format json --threads 1: callgrind instructions (Ir), inclusive"
printf '%-62s %14s %12s %8s\n' trace 'total Ir' 'memory Ir' share
worst=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
    decompress "$f" | grep -q '"\[memory\]"' || continue
    line=$(callgrind_share "$f" 'ks_memory_build|ks_memory_steps|ks_memory_growth_check|ks_memory_json')
    set -- $line
    printf '%-62s %14s %12s %7.2f%%\n' "${f#"$CORPUS"/}" "$1" "$2" "$(awk -v r="$3" 'BEGIN { print r * 100 }')"
    worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 5%%)  %s\n", w * 100, (w <= 0.05 ? "met" : "SHORT")
    exit w <= 0.05 ? 0 : 1 }'
