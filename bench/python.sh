#!/bin/sh
# bench/python.sh: kinesift.analyze from Python (python/kinesift, in-process through ctypes, every
# table made a pandas DataFrame) against `kinesift analyze --format json` on the same trace, in
# one run: paired repetitions (the two one after the other), medians. Prints, per input, the
# speed ratio CLI wall / Python wall (target >= 0.9) and the peak RSS ratio Python / CLI (target
# <= 1.2), for the whole Python process (interpreter, numpy and pandas imported: what a script
# pays) and for the call alone (kinesift.analyze and the DataFrames, timed inside the process;
# its RSS is the process's peak less what it held before the call). HTA and TraceLens side by
# side when they are installed for that Python (they are not on the build machine: it says so).
#
#   bench/python.sh   (env: KS_PYTHON=/usr/bin/python3, KS_CORPUS, KS_BENCH_DIR=/tmp/big,
#                      KS_BENCH_REPS=5, KS_BENCH_SIZE=256M)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=bench/python.sh
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-python}
KS_BENCH_SIZE=${KS_BENCH_SIZE:-256M}
PY=${KS_PYTHON:-/usr/bin/python3}
. "$ROOT/bench/lib.sh"
bench_build
ninja -C "$BUILD" "libkinesift.so.$(sed -n "s/^  version : '\(.*\)',/\1/p" "$ROOT/meson.build")" \
    >>"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; exit 2; }
bench_inputs
"$PY" -c 'import pandas' 2>/dev/null || { echo "$BENCH: pandas is not installed for $PY" >&2; exit 2; }

cat >"$WORK/one.py" <<'PYEOF'
import resource, sys, time
import kinesift
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
r = kinesift.analyze(sys.argv[1])
frames = r.tables  # every table a DataFrame
t1 = time.perf_counter()
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{t1 - t0:.6f} {rss1 - rss0} {len(frames)}", file=sys.stderr)
PYEOF

echo "kinesift from Python: $REPS paired repetitions, medians; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  CLI = kinesift analyze --format json --quiet FILE >/dev/null; Python = $PY -c 'kinesift.analyze(FILE).tables'"
rm -f "$WORK"/t.*
i=0
while [ "$i" -lt "$REPS" ]; do
    for f in "$small" "$big"; do
        tag=$(basename "$f")
        run "$K" analyze --format json --quiet "$f" >>"$WORK/t.$tag.cli"
        PYTHONPATH=$BUILD/python run "$PY" "$WORK/one.py" "$f" >>"$WORK/t.$tag.py"
        cat "$WORK/err" >>"$WORK/t.$tag.call"
    done
    i=$((i + 1))
done

printf '\n%-30s %7s %8s %8s %8s %7s %8s %8s %7s %7s\n' input MB 'CLI s' 'py s' 'call s' speed 'CLI MB' 'py MB' 'RSS x' 'call x'
for f in "$small" "$big"; do
    tag=$(basename "$f")
    bytes=$(wc -c <"$f")
    tc=$(col_median "$WORK/t.$tag.cli" 1)
    rc=$(col_median "$WORK/t.$tag.cli" 2)
    tp=$(col_median "$WORK/t.$tag.py" 1)
    rp=$(col_median "$WORK/t.$tag.py" 2)
    tk=$(col_median "$WORK/t.$tag.call" 1)
    rk=$(col_median "$WORK/t.$tag.call" 2)
    awk -v n="$tag" -v b="$bytes" -v tc="$tc" -v rc="$rc" -v tp="$tp" -v rp="$rp" -v tk="$tk" -v rk="$rk" 'BEGIN {
        printf "%-30s %7.1f %8.3f %8.3f %8.3f %7.3f %8.1f %8.1f %7.3f %7.3f\n", n, b / 1e6, tc, tp, tk,
            tc / tk, rc / 1024, rp / 1024, rp / rc, rk / rc }'
done
echo "  speed = CLI s / call s (target >= 0.9); RSS x = Python process peak / CLI peak, call x = the"
echo "  peak the call added / CLI peak (target <= 1.2); py s - call s = interpreter, numpy, pandas"
for m in hta TraceLens; do
    if "$PY" -c "import $m" 2>/dev/null; then
        echo "  $m is installed for $PY: not timed here yet (its analysis differs; docs/python.md maps the calls)"
    else
        echo "  $m: not installed for $PY (no side-by-side figures)"
    fi
done
