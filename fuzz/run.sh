#!/bin/sh
# fuzz/run.sh [SECONDS] [TARGET...]: build the libFuzzer targets of fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined, in build-fuzz/) and run each for SECONDS (default 60)
# on its seed corpus (fuzz/corpus/TARGET, which it grows in build-fuzz/corpus/TARGET) with the
# Kineto dictionary. A finding (crash, sanitizer report, failed property) stops with exit 1 and
# leaves its input in build-fuzz/findings/TARGET/; copy it to fuzz/regress/TARGET/ once fixed,
# so the normal test suite replays it (meson test --suite fuzz). Prints the executions per target.
set -eu
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-"parse analyze repair scan gunzip redact smi budget validate options report whatif summary"}
BUILD=${KS_FUZZ_BUILD:-build-fuzz}
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz/run.sh: $CLANG not found" >&2; exit 2; }

if [ ! -f "$BUILD/build.ninja" ]; then
    CC=$CLANG meson setup "$BUILD" -Dfuzz=true -Dtests=disabled -Dcuda=disabled -Dwerror=true \
        -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debugoptimized >"$BUILD.setup.log" 2>&1 ||
        { cat "$BUILD.setup.log"; exit 2; }
fi
targets_ninja=""
for t in $TARGETS; do targets_ninja="$targets_ninja fuzz/fuzz_$t"; done
# shellcheck disable=SC2086
ninja -C "$BUILD" $targets_ninja >"$BUILD.build.log" 2>&1 || { tail -40 "$BUILD.build.log"; exit 2; }

# Per-target options. analyze, redact and report run the whole pipeline on every input, so each execution
# costs about its input's length several times over: inputs are capped at 8 KiB (a trace of some
# 50 events still reaches every analysis and rewrite path; the seeds are cut there), and the
# entropic scheduler is off for them: with ~40 000 coverage features its rare-feature bookkeeping
# (a linear search per feature hit until each has been seen 255 times) took 70% of the time,
# ~11 executions/s against ~60 without it (fuzz/README in docs/robustness.md).
# parse too runs without it: the scheduler's bookkeeping (UpdateFeatureFrequency, AddRareFeature)
# was 36% of fuzz_parse's time (perf); the same binary ran 204 executions per CPU-second with it
# and 332 without (3000 runs from the seeds).
target_opts() {
    case $1 in
    analyze | redact | report | whatif) echo "-max_len=8192 -entropic=0" ;;
    parse) echo "-max_len=65536 -entropic=0" ;;
    *) echo "-max_len=65536" ;;
    esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in $TARGETS; do
    corpus="$BUILD/corpus/$t"
    findings="$BUILD/findings/$t"
    mkdir -p "$corpus" "$findings"
    log="$BUILD/fuzz-$t.log"
    seeds="fuzz/corpus/$t"
    [ -d "fuzz/regress/$t" ] && seeds="$seeds fuzz/regress/$t"
    # shellcheck disable=SC2086
    if "$BUILD/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -dict=fuzz/kineto.dict $(target_opts "$t") \
        -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
        "$corpus" $seeds >"$log" 2>&1; then
        result=clean
    else
        result="FINDING (see $log, input in $findings/)"
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz $t: ${execs:-?} executions in ${SECONDS_EACH}s: $result"
done
exit $status
