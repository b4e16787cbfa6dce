#!/bin/sh
# bench/ranks.sh: `kinesift ranks` over N ranks, one run: N traces of SIZE each,
# inflated from the corpus trace with NCCL kernels (inflate-trace --rank R --world N; without
# the tool, copies of the trace itself named rank-R.json), against one single-threaded
# `kinesift analyze --threads 1` of one rank. Prints the throughput ratio (target >= 1.7 on 2
# cores), the peak RSS of ranks -j 1 and -j CORES against the analyze of one rank (target: about
# j stores), and whether -j 1 and -j CORES print the same bytes. Then the -j speedup, time of
# ranks -j 1 / time of ranks -j CORES, measured in the same run twice: as the machine is (quiet
# when nothing else runs: the load average is printed) and with one other core kept busy by a
# spinning shell loop this script starts and stops (the speedup a shared machine gives).
#
#   bench/ranks.sh   (env: KS_CORPUS, KS_BENCH_DIR=/tmp/big, KS_BENCH_RANKS=4, KS_BENCH_RANK_SIZE=64M)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/ranks.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-ranks}
. "$ROOT/bench/lib.sh"
NR=${KS_BENCH_RANKS:-4}
RSIZE=${KS_BENCH_RANK_SIZE:-64M}
[ -f "$INFLATE" ] || INFLATE=$ROOT/../../shared/tools/inflate-trace
bench_build
SRC=$CORPUS/hta/nccl_parser_config/nccl_data.json.gz
[ -f "$SRC" ] || { echo "$BENCH: no $SRC" >&2; exit 2; }
RD=$DIR/ranks-$NR-$RSIZE
mkdir -p "$RD"
r=0
while [ "$r" -lt "$NR" ]; do
    f=$RD/rank-$r.json
    if [ ! -s "$f" ]; then
        if [ -f "$INFLATE" ]; then
            python3 "$INFLATE" "$SRC" "$f.tmp" --size "$RSIZE" --rank "$r" --world "$NR" >&2
        else
            gzip -dc "$SRC" >"$f.tmp"
        fi
        mv "$f.tmp" "$f"
    fi
    r=$((r + 1))
done
J=$(nproc)
bytes=$(cat "$RD"/rank-*.json | wc -c)
one=$(wc -c <"$RD/rank-0.json")
echo "kinesift ranks benchmark: one run; $NR ranks, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB in all; $J CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
a=$(run "$K" analyze --threads 1 --format json --quiet "$RD/rank-0.json")
s1=$(run "$K" ranks -j 1 --format json --quiet "$RD")
sj=$(run "$K" ranks -j "$J" --format json --quiet "$RD")
"$K" ranks -j 1 --format json --quiet "$RD" >"$WORK/j1.json"
"$K" ranks -j "$J" --format json --quiet "$RD" >"$WORK/jn.json"
same=no
cmp -s "$WORK/j1.json" "$WORK/jn.json" && same=yes
echo "$a" "$s1" "$sj" | awk -v b="$bytes" -v o="$one" -v j="$J" -v same="$same" '{
    ta = $1; ra = $2; t1 = $3; r1 = $4; tj = $5; rj = $6
    printf "  analyze --threads 1, one rank  %8.2f s %8.1f MB/s  peak RSS %7.1f MB\n", ta, o / ta / 1e6, ra / 1024
    printf "  ranks -j 1                     %8.2f s %8.1f MB/s  peak RSS %7.1f MB\n", t1, b / t1 / 1e6, r1 / 1024
    printf "  ranks -j %-2d                    %8.2f s %8.1f MB/s  peak RSS %7.1f MB\n", j, tj, b / tj / 1e6, rj / 1024
    r = (b / tj) / (o / ta)
    printf "throughput ranks -j %d / analyze --threads 1: %.2f (target >= 1.7 on 2 cores) %s\n", j, r, (r >= 1.7 ? "met" : "SHORT")
    printf "peak RSS ranks -j %d / analyze of one rank: %.2f (about j = %d expected)\n", j, rj / ra, j
    printf "output -j 1 = -j %d: %s\n", j, same
}'
# the -j speedup, quiet and with one core busy (a spinning loop of this script, stopped by its pid)
q1=$(run "$K" ranks -j 1 --format json --quiet "$RD" | cut -d' ' -f1)
qj=$(run "$K" ranks -j "$J" --format json --quiet "$RD" | cut -d' ' -f1)
sh -c 'while :; do :; done' &
spin=$!
sleep 1
b1=$(run "$K" ranks -j 1 --format json --quiet "$RD" | cut -d' ' -f1)
bj=$(run "$K" ranks -j "$J" --format json --quiet "$RD" | cut -d' ' -f1)
kill "$spin"
wait "$spin" 2>/dev/null || true
awk -v q1="$q1" -v qj="$qj" -v b1="$b1" -v bj="$bj" -v j="$J" 'BEGIN {
    printf "-j speedup (ranks -j 1 / ranks -j %d), quiet:          %.2f (%.2f s / %.2f s)\n", j, q1 / qj, q1, qj
    printf "-j speedup (ranks -j 1 / ranks -j %d), one core busy:  %.2f (%.2f s / %.2f s)\n", j, b1 / bj, b1, bj
}'
