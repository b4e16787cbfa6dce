#!/bin/sh
# bench/python.sh: kinesift.analyze from Python (python/kinesift, in-process through ctypes, every
# table made a pandas DataFrame) against `kinesift analyze --format json` on the same trace, in
# one run: paired repetitions (the two one after the other), medians. Prints, per input, the
# speed ratio CLI wall / call wall (target >= 0.9), the CPU time ratio (user + system, steadier
# under load) and the peak RSS ratio call / CLI (target <= 1.2), the call being kinesift.analyze
# and every table made a DataFrame, timed inside the process after numpy and pandas are imported
# (its RSS: the process's peak less what it held before the call); and the whole Python process
# (interpreter, numpy and pandas imported: what a script pays). HTA and TraceLens side by
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
import numpy, pandas  # imported, and a first DataFrame made, before the call: not its cost
pandas.DataFrame({"a": numpy.zeros(2, dtype=numpy.int64)}).sum()
import kinesift
u0, rss0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
r = kinesift.analyze(sys.argv[1])
frames = r.tables  # every table a DataFrame
t1 = time.perf_counter()
u1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime
print(f"{t1 - t0:.6f} {u1.ru_maxrss - rss0} {cpu:.6f} {len(frames)}", file=sys.stderr)
PYEOF

echo "kinesift from Python: $REPS paired repetitions, medians; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  CLI = kinesift analyze --format json --quiet FILE >/dev/null; Python = $PY -c 'kinesift.analyze(FILE).tables'"
rm -f "$WORK"/t.*
i=0
while [ "$i" -lt "$REPS" ]; do
    for f in "$small" "$big"; do
        tag=$(basename "$f")
        run /usr/bin/time -o "$WORK/cpu" -f "%U %S" "$K" analyze --format json --quiet "$f" >>"$WORK/t.$tag.cli"
        awk '{ print $1 + $2 }' "$WORK/cpu" >>"$WORK/t.$tag.clicpu"
        PYTHONPATH=$BUILD/python run "$PY" "$WORK/one.py" "$f" >>"$WORK/t.$tag.py"
        cat "$WORK/err" >>"$WORK/t.$tag.call"
    done
    i=$((i + 1))
done

printf '\n%-20s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n' input MB 'CLI s' 'py s' 'call s' speed \
    'CLI c' 'call c' 'c x' 'CLI MB' 'py MB' 'call x'
for f in "$small" "$big"; do
    tag=$(basename "$f")
    bytes=$(wc -c <"$f")
    tc=$(col_median "$WORK/t.$tag.cli" 1)
    rc=$(col_median "$WORK/t.$tag.cli" 2)
    cc=$(median <"$WORK/t.$tag.clicpu")
    tp=$(col_median "$WORK/t.$tag.py" 1)
    rp=$(col_median "$WORK/t.$tag.py" 2)
    tk=$(col_median "$WORK/t.$tag.call" 1)
    rk=$(col_median "$WORK/t.$tag.call" 2)
    ck=$(col_median "$WORK/t.$tag.call" 3)
    awk -v n="$tag" -v b="$bytes" -v tc="$tc" -v rc="$rc" -v cc="$cc" -v tp="$tp" -v rp="$rp" -v tk="$tk" \
        -v rk="$rk" -v ck="$ck" 'BEGIN {
        printf "%-20s %6.1f %6.2f %6.2f %6.2f %6.3f %6.2f %6.2f %6.3f %6.1f %6.1f %6.3f\n", n, b / 1e6, tc, tp, tk,
            tc / tk, cc, ck, ck / cc, rc / 1024, rp / 1024, rk / rc }'
done
echo "  speed = CLI s / call s, wall (target >= 0.9); c x = call CPU s / CLI CPU s (user + system: the"
echo "  figure the load of a shared machine moves least); call x = the peak RSS the call added / the"
echo "  CLI's peak (target <= 1.2); py MB: the whole Python process (interpreter, numpy, pandas"
echo "  imported: what a script pays), py s the same for time"
for m in hta TraceLens; do
    if "$PY" -c "import $m" 2>/dev/null; then
        echo "  $m is installed for $PY: not timed here yet (its analysis differs; docs/python.md maps the calls)"
    else
        echo "  $m: not installed for $PY (no side-by-side figures)"
    fi
done
