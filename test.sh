#!/bin/sh
# test.sh: install what is missing, then build and run every test twice: a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build, both with -Werror. Ends with the line
# "N passed, N failed"; exits non-zero on any failure.
# The tests over real traces run over fixtures/real, and also over the traces of $KINESIFT_CORPUS
# when it is set (a directory; read when a build is set up, and again whenever it changes).
set -u
cd "$(dirname "$0")"
./scripts/deps.sh || exit 2
# chromium for the browser test of `kinesift report`; without it that test fails and says why
./scripts/browser-deps.sh || echo "test.sh: chromium could not be installed: report-browser will fail" >&2

JOBS=$(nproc 2>/dev/null || echo 2)
EXTRA=""
if [ -n "${KINESIFT_CORPUS:-}" ]; then
    if [ ! -d "$KINESIFT_CORPUS" ]; then
        echo "test.sh: KINESIFT_CORPUS=$KINESIFT_CORPUS: not a directory" >&2; exit 2
    fi
    EXTRA=$(cd "$KINESIFT_CORPUS" && pwd)
fi
passed=0
failed=0
skipped=0

run_suite() { # name, build dir, meson options...
    name=$1; dir=$2; shift 2
    if [ ! -f "$dir/build.ninja" ]; then
        if ! meson setup "$dir" -Dwerror=true -Dtests=enabled -Dcorpus="$EXTRA" "$@" >"$dir.setup.log" 2>&1; then
            cat "$dir.setup.log"; echo "test.sh: $name: meson setup failed" >&2
            failed=$((failed + 1)); return
        fi
    elif [ "$(cat "$dir/corpus-option" 2>/dev/null)" != "$EXTRA" ]; then
        if ! meson configure "$dir" -Dcorpus="$EXTRA" >"$dir.setup.log" 2>&1; then
            cat "$dir.setup.log"; echo "test.sh: $name: meson configure -Dcorpus failed" >&2
            failed=$((failed + 1)); return
        fi
    fi
    printf '%s\n' "$EXTRA" >"$dir/corpus-option"
    if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
        tail -50 "$dir.build.log"; echo "test.sh: $name: build failed" >&2
        failed=$((failed + 1)); return
    fi
    echo "== $name tests"
    meson test -C "$dir" --num-processes "$JOBS" --print-errorlogs --timeout-multiplier 4 2>&1 | tee "$dir.test.log" \
        | grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|ERROR|TIMEOUT)|^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass):" || true
    ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
    fl=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
    to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
    up=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
    sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
    if [ -z "$ok" ] && [ -z "$fl" ]; then
        echo "test.sh: $name: meson test produced no summary" >&2
        failed=$((failed + 1)); return
    fi
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${fl:-0} + ${to:-0} + ${up:-0}))
    # what the failed tests printed last: the lines above are all a CI page keeps
    [ "$((${fl:-0} + ${to:-0} + ${up:-0}))" -gt 0 ] && python3 scripts/test-failures.py "$dir"
    skipped=$((skipped + ${sk:-0}))
}

run_suite "normal" build-test
run_suite "asan+ubsan" build-asan -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug

# what the optional extra corpus added (tests/corpus_list.py wrote it at setup time)
cat build-test/corpus-summary.txt 2>/dev/null || echo "extra corpus: unknown (no normal build)"
[ "$skipped" -gt 0 ] && echo "($skipped skipped: they need a GPU or a tool this machine lacks)"
echo "$passed passed, $failed failed"
# .ci/run prints the line again after its fuzzing step, so that it stays the last one
[ -n "${KS_SUMMARY_FILE:-}" ] && echo "$passed passed, $failed failed" >"$KS_SUMMARY_FILE"
[ "$failed" -eq 0 ]
