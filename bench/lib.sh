# bench/lib.sh: what the bench scripts share (sourced, not run): an optimised build of kinesift
# and the raw yajl tokeniser, the benchmark inputs (the largest corpus trace and a trace inflated
# from it, plain and gzip, generated once under $KS_BENCH_DIR, never committed), and timing.
# Expects ROOT (the source tree), WORK (a scratch directory) and the script name in BENCH.

CORPUS=${KS_CORPUS:-$ROOT/fixtures/real}
INFLATE=${KS_INFLATE:-$ROOT/bench/inflate-trace}
DIR=${KS_BENCH_DIR:-/tmp/big}
SIZE=${KS_BENCH_SIZE:-1G}
REPS=${KS_BENCH_REPS:-5}
BUILD=$WORK/build

bench_build() { # builds $K (kinesift), $Y (yajl_raw), $T (timed: the timer of run) and $FT (first_touch)
    mkdir -p "$WORK" "$DIR"
    if [ ! -f "$BUILD/build.ninja" ]; then
        meson setup "$BUILD" "$ROOT" --buildtype=release -Db_ndebug=true -Dtests=disabled -Dcuda=disabled \
            >"$WORK/setup.log" 2>&1 || { cat "$WORK/setup.log"; exit 2; }
    fi
    ninja -C "$BUILD" cli/kinesift bench/yajl_raw bench/timed bench/first_touch >"$WORK/build.log" 2>&1 ||
        { tail -30 "$WORK/build.log"; exit 2; }
    K=$BUILD/cli/kinesift
    Y=$BUILD/bench/yajl_raw
    T=$BUILD/bench/timed
    FT=$BUILD/bench/first_touch
}

# The kinesift to measure: $KS_BENCH_KINESIFT when set, else an optimised build of its own.
bench_kinesift() {
    if [ -n "${KS_BENCH_KINESIFT:-}" ]; then
        mkdir -p "$WORK"
        K=$KS_BENCH_KINESIFT
    else
        bench_build
    fi
}

need_callgrind() {
    command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
        { echo "$BENCH: needs valgrind (callgrind, callgrind_annotate)" >&2; exit 2; }
}

# callgrind_share TRACE REGEX [REGEX2]: prints "total part share" for `$K analyze --format json
# --quiet --threads 1 TRACE` in instructions counted by callgrind (Ir): the whole run's, the
# inclusive ones of the functions whose names match the extended regular expression REGEX, and the
# part over the total; with REGEX2, "part2 share2" after them, the same for it (from the same run).
# callgrind_annotate lists a function once by its source file and once by its object: each
# function is counted once. A matching function called by another matching one is counted in both
# (name only functions that do not call each other).
callgrind_share() {
    cg_out=$WORK/cg.out
    rm -f "$cg_out"
    valgrind --tool=callgrind --callgrind-out-file="$cg_out" "$K" analyze --format json --quiet \
        --threads 1 "$1" >/dev/null 2>"$WORK/vg.log" || { cat "$WORK/vg.log" >&2; exit 2; }
    callgrind_annotate --inclusive=yes --threshold=100 "$cg_out" 2>/dev/null >"$WORK/annotate.txt"
    callgrind_part "$2"
    if [ $# -ge 3 ]; then
        printf ' '
        callgrind_part "$3" | cut -d' ' -f2-
    fi
}

# callgrind_part REGEX: "total part share" from the last callgrind_share's run
callgrind_part() {
    awk -v re="$1" '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        /PROGRAM TOTALS/ { total = num($1); next }
        match($0, "[: ](" re ")[ ([]") {
            f = substr($0, RSTART + 1, RLENGTH - 2)
            if (num($1) > seen[f]) seen[f] = num($1) }
        END { for (f in seen) part += seen[f]
              printf "%.0f %.0f %.5f", total, part, total ? part / total : 0 }' "$WORK/annotate.txt"
}

is_gzip() { [ "$(head -c2 "$1" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; }
decompress() { if is_gzip "$1"; then gzip -dc "$1"; else cat "$1"; fi; }

bench_inputs() { # sets $small and $big (plain JSON; $small.gz and $big.gz beside them)
    largest=""
    best=0
    for f in $(find "$CORPUS" -name '*.json*' -type f | sort); do
        n=$(decompress "$f" | wc -c)
        if [ "$n" -gt "$best" ]; then best=$n; largest=$f; fi
    done
    [ -n "$largest" ] || { echo "$BENCH: no corpus in $CORPUS" >&2; exit 2; }
    name=${KS_BENCH_NAME:-resnet}
    small=$DIR/$name.json
    if [ ! -s "$small" ] || [ "$(wc -c <"$small")" -ne "$best" ]; then
        decompress "$largest" >"$small.tmp" && mv "$small.tmp" "$small"
    fi
    [ -s "$small.gz" ] || { gzip -c "$small" >"$small.gz.tmp" && mv "$small.gz.tmp" "$small.gz"; }
    big=$DIR/${name}_$(echo "$SIZE" | tr 'A-Z' 'a-z').json
    if [ ! -s "$big" ]; then
        echo "$BENCH: generating $big with inflate-trace (once)..." >&2
        python3 "$INFLATE" "$largest" "$big.tmp" --size "$SIZE" >&2 && mv "$big.tmp" "$big"
        rm -f "$big.gz"
    fi
    [ -s "$big.gz" ] || {
        echo "$BENCH: compressing $big (once)..." >&2
        gzip -c "$big" >"$big.gz.tmp" && mv "$big.gz.tmp" "$big.gz"
    }
}

# "seconds peakRSS_KB" of one command (bench/timed.c: no other process inside the interval); its
# output is discarded, a failure is fatal
run() {
    if ! "$T" "$@" >"$WORK/timed" 2>"$WORK/err"; then
        echo "$BENCH: failed: $*" >&2
        cat "$WORK/err" >&2
        exit 2
    fi
    cat "$WORK/timed"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# "q1 q3" of numbers, one per line: the medians of the lower and the upper half (the middle value,
# for an odd count, in neither)
quartiles() { sort -n | awk '{ v[NR] = $1 } END { h = int(NR / 2); lo = int((h + 1) / 2); hi = NR - h + lo
    q1 = (h % 2) ? v[lo] : (v[lo] + v[lo + 1]) / 2; q3 = (h % 2) ? v[hi] : (v[hi] + v[hi + 1]) / 2
    if (NR == 1) { q1 = v[1]; q3 = v[1] }
    print q1, q3 }'; }

# median of field N of the "seconds peakRSS_KB" lines in FILE
col_median() { cut -d' ' -f"$2" "$1" | median; }
# paired_ratio A B: the median of A's times over B's, line by line (the runs of one repetition, back
# to back: the machine's drift from one minute to the next cancels within a pair, as in ab.py)
paired_ratio() { paste -d' ' "$1" "$2" | awk -v n="$(head -1 "$1" | wc -w)" '{ print $1 / $(n + 1) }' | median; }
