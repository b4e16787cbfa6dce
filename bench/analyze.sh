#!/bin/sh
# bench/analyze.sh: the full analysis. In one run, over the same bytes, the raw yajl
# tokeniser (bench/yajl_raw) against `kinesift analyze --format json` (timelines, links, GPU
# unions, tables, steps, gaps, diagnoses, JSON writing) on the largest corpus trace and on a
# 1 GiB trace inflated from it. Prints the throughput ratio (target >= 0.8) and the peak RSS as a
# fraction of the input (target <= 0.3). Interleaved repetitions, medians (the machine is noisy).
#
#   bench/analyze.sh   (env: KS_CORPUS, KS_BENCH_DIR=/tmp/big, KS_BENCH_REPS=5, KS_BENCH_SIZE=1G)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/analyze.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-analyze}
. "$ROOT/bench/lib.sh"
bench_build
bench_inputs

echo "kinesift analyze benchmark: $REPS interleaved repetitions, medians; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  raw yajl = bench/yajl_raw (empty callbacks, 256 KiB chunks); kinesift = kinesift analyze --format json --quiet"
rm -f "$WORK"/t.*
i=0
while [ "$i" -lt "$REPS" ]; do
    for f in "$small" "$big"; do
        tag=$(basename "$f")
        run "$Y" "$f" | cut -d' ' -f1 >>"$WORK/t.$tag.yajl"
        run "$K" analyze --format json --quiet "$f" >>"$WORK/t.$tag.analyze"
    done
    i=$((i + 1))
done

printf '\n%-34s %8s %10s %10s %7s %9s %9s\n' input MB 'yajl MB/s' 'ks MB/s' ratio 'RSS MB' RSS/input
for f in "$small" "$big"; do # the big one last: its figures stay for the targets
    tag=$(basename "$f")
    bytes=$(wc -c <"$f")
    ty=$(col_median "$WORK/t.$tag.yajl" 1)
    ta=$(col_median "$WORK/t.$tag.analyze" 1)
    rss=$(col_median "$WORK/t.$tag.analyze" 2)
    awk -v n="$tag" -v b="$bytes" -v ty="$ty" -v ta="$ta" -v rss="$rss" 'BEGIN {
        printf "%-34s %8.1f %10.1f %10.1f %7.3f %9.1f %9.3f\n", n, b / 1e6, b / ty / 1e6, b / ta / 1e6,
            ty / ta, rss * 1024 / 1e6, rss * 1024 / b }'
done
echo
echo "targets at $SIZE:"
awk -v b="$bytes" -v ty="$ty" -v ta="$ta" -v rss="$rss" 'BEGIN {
    r = ty / ta; m = rss * 1024 / b
    printf "  throughput analyze / raw yajl   %.3f  (target >= 0.80)  %s\n", r, (r >= 0.80 ? "met" : "SHORT")
    printf "  peak RSS / input                 %.3f  (target <= 0.30)  %s\n", m, (m <= 0.30 ? "met" : "SHORT")
    exit (r >= 0.80 && m <= 0.30) ? 0 : 1 }'
