#!/bin/sh
# bench/shapes.sh: `kinesift analyze` on traces of different shapes, not only on the
# inflated resnet50 of bench/analyze.sh. In one run, interleaved, medians of KS_BENCH_REPS (>= 3),
# for each input shape over the same plain bytes:
#   - analyze (--format json --quiet) against the raw yajl tokeniser (bench/yajl_raw), with
#     --threads 1 and with the default threads: the ratio yajl time / analyze time, the median of
#     the ratios within each repetition, whose runs of an input follow one another, yajl first in
#     the even ones and last in the odd ones (the machine's speed drifts by 10-30 % over minutes on
#     a shared VM: a ratio of two medians taken apart carries it, a ratio within a pair cancels it)
#     (targets on a quiet machine: >= 1.2 with the default threads on the real shapes of 10 MB and
#     more, >= 0.8 with --threads 1 on every shape; >= 0.8 with the other core busy, --busy and
#     --busy0);
#   - analyze's peak RSS over the input (target <= 0.3 at 1 GiB) and in bytes per event;
#   - the rate on the gzip of the same bytes over the plain rate (target >= 0.9), from its own
#     KS_BENCH_GZ_REPS pairs (default 11: a median of 5 runs that spread +-15 % cannot tell 0.9
#     from 0.95), each pair a plain and a gzip run back to back, in alternating order: the median
#     of the pairs' ratios.
# Shapes: real traces at their own size, each as it was recorded (decompressed), the primary ones
# (an inflated copy repeats a few names, threads and stacks, and flatters the code):
#   resnet50   kineto-tb resnet50 training sample (35 MB, pretty-printed, many Python frames)
#   train_h100 hta ns_resolution H100 training trace (15 MB, dense: ~220 bytes per event)
#   train_py   tracelens b200 eager training trace (14 MB, python_function stacks)
#   nccl       hta nccl_parser_config trace (10 MB, collectives)
#   infer      hta MTIA inference trace (5 MB, record_shapes on: shape args on every op)
#   cpu_dense  hta distributed_info_unavailable (1 MB, CPU ops only)
# Inflated copies only for scale. With --big, two 1 GiB traces (disk ~2.5 GB with their gzip,
# minutes to make and to run): dense_1g inflated from the ns_resolution trace; resnet_1g inflated
# from the resnet50 sample.
# With --sweep, the time per MB of analyze on one shape (ns_resolution) at 10, 30, 100, 300 MB
# (and 1 GiB with --big): the cliff check (target: within +-20 % of the median). The short ones run
# more often (until ~500 MB went through, at most 40 runs, spread over the repetitions): their runs
# spread more.
# With --timings, one more run per input with `analyze --timings`, its table printed (which phase
# bounds the input).
# The cost of a first write to memory (bench/first_touch, 64 MiB on 2 MiB and on 4 KiB pages) is
# printed at the start and at the end of the quiet runs: on a VM it moves by ten times between
# runs, and analyze writes far more memory the first time than raw yajl.
# With --busy, the raw yajl and default-threads runs again, interleaved, while a busy loop at nice
# 19 takes the other core (as a low-priority job on a shared CI runner): the column "ks/yajl
# (busy)" (target >= 0.8). The loop starts after the quiet runs and is stopped at the end.
# With --busy0, the same again with the loop at nice 0, as an ordinary job beside the analysis
# (a training run, a build, a second analysis): the column "ks/yajl (busy0)" (target >= 0.8);
# with --timings too, one `analyze --timings` per input under that load (which phase bounds it).
# The real traces come from $KS_SHARED/corpus when KS_SHARED names a directory with a larger
# corpus, else from fixtures/real (in every clone); a source that is in neither is named and its
# shape skipped. Inputs are made once under KS_BENCH_DIR/shapes.
#
#   bench/shapes.sh [--big] [--sweep] [--timings] [--busy] [--busy0]
#     env (all optional): KS_SHARED=DIR (a larger corpus in DIR/corpus; a user's clone has none:
#     fixtures/real is used)  KS_BENCH_DIR=/tmp/big  KS_BENCH_REPS=3  KS_BENCH_GZ_REPS=11  KS_BENCH_WORK
#     KS_BENCH_ONLY="a b"
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/shapes.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-shapes}
KS_BENCH_REPS=${KS_BENCH_REPS:-3}
. "$ROOT/bench/lib.sh"
BIG=0 SWEEP=0 TIMINGS=0 BUSY=0 BUSY0=0
for a in "$@"; do
    case $a in
    --big) BIG=1 ;;
    --sweep) SWEEP=1 ;;
    --timings) TIMINGS=1 ;;
    --busy) BUSY=1 ;;
    --busy0) BUSY0=1 ;;
    *) echo "usage: bench/shapes.sh [--big] [--sweep] [--timings] [--busy] [--busy0]" >&2; exit 2 ;;
    esac
done
[ "$REPS" -ge 3 ] || { echo "$BENCH: KS_BENCH_REPS must be >= 3 (medians)" >&2; exit 2; }
GZ_REPS=${KS_BENCH_GZ_REPS:-11}
case $GZ_REPS in '' | *[!0-9]*) GZ_REPS=0 ;; esac
[ "$GZ_REPS" -ge 3 ] || { echo "$BENCH: KS_BENCH_GZ_REPS must be a number >= 3 (medians)" >&2; exit 2; }
SHARED=${KS_SHARED:-}
SDIR=$DIR/shapes
mkdir -p "$SDIR"
if [ -n "$SHARED" ] && [ -d "$SHARED/corpus" ]; then
    CORP=$SHARED/corpus
    echo "$BENCH: real traces from $CORP"
else
    CORP=$ROOT/fixtures/real
    echo "$BENCH: ${SHARED:+$SHARED/corpus is absent: }real traces from $CORP (KS_SHARED=DIR: DIR/corpus);"
    echo "  a shape whose source is not there is skipped (and named)"
fi

# mk NAME SOURCE (--reps N | --size S | --copy): $SDIR/NAME.json and its .gz, once (NAME.how
# says from what and how it was made: an input made otherwise under the same name is made again)
mk() {
    name=$1 src=$CORP/$2
    shift 2
    out=$SDIR/$name.json
    how="$src $*"
    if [ ! -s "$out" ] || [ "$(cat "$out.how" 2>/dev/null)" != "$how" ]; then
        if [ ! -f "$src" ]; then
            echo "$BENCH: SKIPPED $name: its source $src is absent" >&2
            return 1
        fi
        echo "$BENCH: making $out from $src ($*)..." >&2
        if [ "$1" = --copy ]; then
            decompress "$src" >"$out.tmp"
        else
            nice -n 19 python3 "$INFLATE" "$src" "$out.tmp" "$@" >&2
        fi
        mv "$out.tmp" "$out"
        rm -f "$out.gz"
        printf '%s\n' "$how" >"$out.how"
    fi
    if [ ! -s "$out.gz" ]; then
        nice -n 19 gzip -c "$out" >"$out.gz.tmp" && mv "$out.gz.tmp" "$out.gz"
    fi
    return 0
}

B200=tracelens/b200/eager_trace.json.gz
NCCL=hta/nccl_parser_config/nccl_data.json.gz
MTIA=hta/mtia_inference_trace/mtia_inference_rank_0.json.gz
CPUONLY=hta/distributed_info_unavailable/distributed_info_not_found.json.gz
NSRES=hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
RESNET=kineto-tb/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz

bench_build
inputs=""
want() { [ -z "${KS_BENCH_ONLY:-}" ] || case " $KS_BENCH_ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
add() { want "$1" && mk "$@" && inputs="$inputs $1" || true; }
add resnet50 "$RESNET" --copy
add train_h100 "$NSRES" --copy
add train_py "$B200" --copy
add nccl "$NCCL" --copy
add infer "$MTIA" --copy
add cpu_dense "$CPUONLY" --copy
if [ "$BIG" = 1 ]; then
    add dense_1g "$NSRES" --size 1G
    add resnet_1g "$RESNET" --size 1G
else
    echo "$BENCH: the 1 GiB traces (dense_1g, resnet_1g) are skipped: --big makes and runs them"
fi
sweep=""
if [ "$SWEEP" = 1 ]; then
    for s in 10M 30M 100M 300M; do
        mk "sweep_$s" "$NSRES" --size "$s" && sweep="$sweep sweep_$s"
    done
    [ "$BIG" = 1 ] && case " $inputs " in *" dense_1g "*) sweep="$sweep dense_1g" ;; esac
fi
[ -n "$inputs$sweep" ] || { echo "$BENCH: no input" >&2; exit 2; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "kinesift shapes benchmark: $REPS interleaved repetitions, MB/s and RSS medians, ratios medians of those within a repetition ($GZ_REPS plain/gzip pairs); $(nproc) CPUs, load average $(load) at the start"
echo "  raw yajl = bench/yajl_raw (empty callbacks, 256 KiB chunks); analyze = kinesift analyze --format json --quiet"
# what a first write costs now (analyze writes tens to hundreds of MB the first time, raw yajl ~2)
touch_cost() { "$FT" 64 1 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $6 } END { print " ms/MiB" }'; }
echo "  first writes (bench/first_touch 64 MiB): $(touch_cost) at the start"
rm -f "$WORK"/t.*
A="analyze --format json --quiet"
# pair P I INPUT...: raw yajl and analyze (default threads) once on each input, back to back, into
# t.INPUT.Pyajl and t.INPUT.Pdef; yajl first when the repetition I is even, second when it is odd
pair() {
    p=$1 r=$2
    shift 2
    for n in "$@"; do
        f=$SDIR/$n.json
        [ $((r % 2)) = 1 ] || run "$Y" "$f" >>"$WORK/t.$n.${p}yajl"
        run "$K" $A "$f" >>"$WORK/t.$n.${p}def"
        [ $((r % 2)) = 0 ] || run "$Y" "$f" >>"$WORK/t.$n.${p}yajl"
    done
}
# the sweep's short inputs run more than once per repetition: a 12 MB run takes ~50 ms and
# spreads by +-15 % from one run to the next on a shared 2-core machine, so three runs would leave
# its median to chance; each input runs until about 500 MB went through analyze (at most 40 runs),
# the same number in every repetition, so every size is measured across the same minutes (the
# machine's speed drifts: a size measured in a later phase of its own would be biased)
sweep_per_rep() { awk -v b="$(wc -c <"$SDIR/$1.json")" -v r="$REPS" \
    'BEGIN { n = int(500e6 / b); if (n > 40) n = 40; k = int((n + r - 1) / r); print k < 1 ? 1 : k }'; }
i=0
while [ "$i" -lt "$REPS" ]; do
    for n in $inputs; do
        f=$SDIR/$n.json
        [ $((i % 2)) = 1 ] || run "$Y" "$f" >>"$WORK/t.$n.yajl"
        run "$K" $A --threads 1 "$f" >>"$WORK/t.$n.t1"
        run "$K" $A "$f" >>"$WORK/t.$n.def"
        [ $((i % 2)) = 0 ] || run "$Y" "$f" >>"$WORK/t.$n.yajl"
    done
    for n in $sweep; do
        j=0
        while [ "$j" -lt "$(sweep_per_rep "$n")" ]; do
            pair s "$j" "$n"
            j=$((j + 1))
        done
    done
    i=$((i + 1))
done
# gzip against plain: pairs back to back, the order alternating (neither always runs second)
i=0
while [ "$i" -lt "$GZ_REPS" ]; do
    for n in $inputs; do
        f=$SDIR/$n.json
        if [ $((i % 2)) = 0 ]; then
            run "$K" $A "$f" >>"$WORK/t.$n.pplain"
            run "$K" $A "$f.gz" >>"$WORK/t.$n.gz"
        else
            run "$K" $A "$f.gz" >>"$WORK/t.$n.gz"
            run "$K" $A "$f" >>"$WORK/t.$n.pplain"
        fi
    done
    i=$((i + 1))
done
echo "  load average $(load) at the end; first writes $(touch_cost)"
if [ "$BUSY" = 1 ] && [ -n "$inputs" ]; then
    nice -n 19 sh -c 'while :; do :; done' &
    spin=$!
    trap 'kill "$spin" 2>/dev/null' EXIT INT TERM
    echo "  --busy: a loop at nice 19 (pid $spin) takes the other core; yajl and analyze again"
    i=0
    while [ "$i" -lt "$REPS" ]; do
        # shellcheck disable=SC2086
        pair b "$i" $inputs
        i=$((i + 1))
    done
    kill "$spin" 2>/dev/null
    trap - EXIT INT TERM
    echo "  load average $(load) after the busy runs"
fi
if [ "$BUSY0" = 1 ] && [ -n "$inputs" ]; then
    sh -c 'while :; do :; done' &
    spin=$!
    trap 'kill "$spin" 2>/dev/null' EXIT INT TERM
    echo "  --busy0: a loop at nice 0 (pid $spin) competes for a core; yajl and analyze again"
    i=0
    while [ "$i" -lt "$REPS" ]; do
        # shellcheck disable=SC2086
        pair c "$i" $inputs
        i=$((i + 1))
    done
    if [ "$TIMINGS" = 1 ]; then
        for n in $inputs; do
            echo
            echo "== $n under --busy0: kinesift analyze --timings (one run, load average $(load))"
            "$K" $A --timings "$SDIR/$n.json" 2>&1 >/dev/null
        done
    fi
    kill "$spin" 2>/dev/null
    trap - EXIT INT TERM
    echo "  load average $(load) after the busy0 runs"
fi

if [ -n "$inputs" ]; then
    printf '\n%-11s %7s %6s %9s %8s %8s %8s %8s %7s %7s %8s %8s %8s\n' input MB 'B/ev' 'yajl MB/s' 'ks MB/s' \
        'ks/yajl' 'ks/yajl' gz/plain 'RSS MB' RSS/in 'RSS B/ev' 'ks/yajl' 'ks/yajl'
    printf '%-11s %7s %6s %9s %8s %8s %8s %8s %7s %7s %8s %8s %8s\n' '' '' '' '' '(deflt)' '(deflt)' \
        '(-j1)' '(deflt)' '(deflt)' '' '' '(busy)' '(busy0)'
fi
for n in $inputs; do
    f=$SDIR/$n.json
    bytes=$(wc -c <"$f")
    ev=$("$K" stats --format json --quiet "$f" | awk -F'[:,]' '/"events":/ { gsub(/ /, "", $2); print $2; exit }')
    ty=$(col_median "$WORK/t.$n.yajl" 1)
    td=$(col_median "$WORK/t.$n.def" 1)
    rss=$(col_median "$WORK/t.$n.def" 2)
    rd=$(paired_ratio "$WORK/t.$n.yajl" "$WORK/t.$n.def")
    r1=$(paired_ratio "$WORK/t.$n.yajl" "$WORK/t.$n.t1")
    rg=$(paired_ratio "$WORK/t.$n.pplain" "$WORK/t.$n.gz")
    busy=-
    [ "$BUSY" = 1 ] && busy=$(paired_ratio "$WORK/t.$n.byajl" "$WORK/t.$n.bdef")
    busy0=-
    [ "$BUSY0" = 1 ] && busy0=$(paired_ratio "$WORK/t.$n.cyajl" "$WORK/t.$n.cdef")
    awk -v n="$n" -v b="$bytes" -v ev="$ev" -v ty="$ty" -v td="$td" -v rd="$rd" -v r1="$r1" -v rg="$rg" -v rss="$rss" \
        -v busy="$busy" -v busy0="$busy0" 'function r(x) { return x == "-" ? x : sprintf("%.3f", x) } BEGIN {
        printf "%-11s %7.1f %6.0f %9.1f %8.1f %8.3f %8.3f %8.3f %7.1f %7.3f %8.1f %8s %8s\n", n, b / 1e6, b / ev,
            b / ty / 1e6, b / td / 1e6, rd, r1, rg, rss * 1024 / 1e6, rss * 1024 / b,
            rss * 1024 / ev, r(busy), r(busy0) }'
done
if [ -n "$sweep" ]; then
    echo
    echo "time per MB (analyze, default threads) against size, one shape (ns_resolution, inflated);"
    echo "  medians of the runs counted, q1-q3: the middle half of analyze's runs"
    for n in $sweep; do
        f=$SDIR/$n.json
        echo "$n $(wc -c <"$f") $(col_median "$WORK/t.$n.sdef" 1) $(col_median "$WORK/t.$n.syajl" 1)" \
            "$(cut -d' ' -f1 "$WORK/t.$n.sdef" | quartiles) $(wc -l <"$WORK/t.$n.sdef")"
    done | awk '{ n[NR] = $1; mb[NR] = $2 / 1e6; k[NR] = $3 / mb[NR] * 1000; y[NR] = $4 / mb[NR] * 1000; s[NR] = k[NR]
                 q1[NR] = $5 / mb[NR] * 1000; q3[NR] = $6 / mb[NR] * 1000; runs[NR] = $7 }
        END {
            m = NR; for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x }
            med = (m % 2) ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
            printf "%-11s %8s %10s %15s %10s %9s %5s\n", "input", "MB", "ks ms/MB", "q1-q3", "yajl ms/MB", "vs median", "runs"
            for (i = 1; i <= m; i++)
                printf "%-11s %8.1f %10.3f %7.3f-%-7.3f %10.3f %+8.1f%% %5d\n", n[i], mb[i], k[i], q1[i], q3[i], y[i],
                    (k[i] / med - 1) * 100, runs[i]
        }'
fi
if [ "$TIMINGS" = 1 ]; then
    for n in $inputs; do
        echo
        echo "== $n: kinesift analyze --timings (one run, load average $(load))"
        "$K" $A --timings "$SDIR/$n.json" 2>&1 >/dev/null
    done
fi
