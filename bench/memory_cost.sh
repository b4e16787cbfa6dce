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
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    { echo "$BENCH: needs valgrind (callgrind, callgrind_annotate)" >&2; exit 2; }
if [ -n "${KS_BENCH_KINESIFT:-}" ]; then
    mkdir -p "$WORK"
    K=$KS_BENCH_KINESIFT
else
    bench_build
fi

echo "memory view cost in analyze --format json --threads 1: callgrind instructions (Ir), inclusive"
printf '%-62s %14s %12s %8s\n' trace 'total Ir' 'memory Ir' share
worst=0
for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
    decompress "$f" | grep -q '"\[memory\]"' || continue
    out=$WORK/cg.out
    rm -f "$out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$K" analyze --format json --quiet --threads 1 "$f" \
        >/dev/null 2>"$WORK/vg.log" || { cat "$WORK/vg.log" >&2; exit 2; }
    callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null >"$WORK/annotate.txt"
    line=$(awk '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        /PROGRAM TOTALS/ { total = num($1) }
        /[: ]ks_memory_build[ ([]|[: ]ks_memory_steps[ ([]|[: ]ks_memory_growth_check[ ([]|[: ]ks_memory_json[ ([]/ {
            mem += num($1) }
        END { printf "%d %d %.5f", total, mem, total ? mem / total : 0 }' "$WORK/annotate.txt")
    set -- $line
    printf '%-62s %14s %12s %7.2f%%\n' "${f#"$CORPUS"/}" "$1" "$2" "$(awk -v r="$3" 'BEGIN { print r * 100 }')"
    worst=$(awk -v a="$worst" -v b="$3" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst" 'BEGIN {
    printf "\nthe largest share %.2f%% (target <= 5%%)  %s\n", w * 100, (w <= 0.05 ? "met" : "SHORT")
    exit w <= 0.05 ? 0 : 1 }'
