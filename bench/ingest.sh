#!/bin/sh
# bench/ingest.sh: ingestion speed and memory. Builds an optimised kinesift and the raw
# yajl tokeniser (bench/yajl_raw.c: empty callbacks, default options, 256 KiB chunks), then
# measures, in one run, over the same bytes:
#   - `kinesift stats` on the plain JSON against yajl_raw: throughput ratio (target >= 0.85);
#   - `kinesift stats` on the gzip of the same JSON: its rate (decompressed bytes per second) as a
#     fraction of the plain-input rate (target >= 0.8);
#   - the peak RSS of `kinesift stats` as a fraction of the decompressed input (target <= 0.3 at
#     1 GiB).
# Inputs: the largest corpus trace, and a 1 GiB trace made from it with inflate-trace (generated
# into KS_BENCH_DIR, never committed; regenerated when missing), each as plain JSON and gzip.
# The machine is shared and noisy: the three programs run interleaved, KS_BENCH_REPS times each
# (default 7), and every figure is a median. Times are wall clock of the whole command.
#
#   bench/ingest.sh   (env: KS_CORPUS, KS_BENCH_DIR=/tmp/big, KS_BENCH_NAME=resnet, KS_BENCH_REPS=7,
#                      KS_BENCH_SIZE=1G)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-ingest}
BENCH=bench/ingest.sh
KS_BENCH_REPS=${KS_BENCH_REPS:-7}
. "$ROOT/bench/lib.sh"
bench_build
bench_inputs

echo "kinesift ingest benchmark: $REPS interleaved repetitions, medians; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  raw yajl = bench/yajl_raw (empty callbacks, 256 KiB chunks); kinesift = kinesift stats --format json --quiet"
rm -f "$WORK"/t.*
i=0
while [ "$i" -lt "$REPS" ]; do
    for f in "$small" "$big"; do
        tag=$(basename "$f")
        run "$Y" "$f" | cut -d' ' -f1 >>"$WORK/t.$tag.yajl"
        run "$K" stats --format json --quiet "$f" >>"$WORK/t.$tag.plain"
        run "$K" stats --format json --quiet "$f.gz" >>"$WORK/t.$tag.gz"
    done
    i=$((i + 1))
done

printf '\n%-34s %8s %10s %10s %7s %10s %8s %9s %9s\n' input MB 'yajl MB/s' 'ks MB/s' ratio 'ks-gz MB/s' gz/plain 'RSS MB' RSS/input
status=0
for f in "$small" "$big"; do # the big one last: its figures stay for the targets
    tag=$(basename "$f")
    bytes=$(wc -c <"$f")
    ty=$(col_median "$WORK/t.$tag.yajl" 1)
    tp=$(col_median "$WORK/t.$tag.plain" 1)
    tg=$(col_median "$WORK/t.$tag.gz" 1)
    rss=$(col_median "$WORK/t.$tag.plain" 2)
    awk -v n="$tag" -v b="$bytes" -v ty="$ty" -v tp="$tp" -v tg="$tg" -v rss="$rss" 'BEGIN {
        printf "%-34s %8.1f %10.1f %10.1f %7.3f %10.1f %8.3f %9.1f %9.3f\n", n, b / 1e6, b / ty / 1e6,
            b / tp / 1e6, ty / tp, b / tg / 1e6, tp / tg, rss * 1024 / 1e6, rss * 1024 / b }'
done
echo
echo "targets at $SIZE:"
awk -v b="$bytes" -v ty="$ty" -v tp="$tp" -v tg="$tg" -v rss="$rss" 'BEGIN {
    r = ty / tp; g = tp / tg; m = rss * 1024 / b
    printf "  throughput kinesift / raw yajl  %.3f  (target >= 0.85)  %s\n", r, (r >= 0.85 ? "met" : "SHORT")
    printf "  peak RSS / decompressed input    %.3f  (target <= 0.30)  %s\n", m, (m <= 0.30 ? "met" : "SHORT")
    printf "  gzip rate / plain rate           %.3f  (target >= 0.80)  %s\n", g, (g >= 0.80 ? "met" : "SHORT")
    exit (r >= 0.85 && m <= 0.30 && g >= 0.80) ? 0 : 1 }' || status=1
exit $status
