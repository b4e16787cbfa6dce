#!/bin/sh
# bench/redact.sh: `kinesift redact` against the raw yajl tokeniser (bench/yajl_raw: empty
# callbacks, UTF-8 validation on) on the same plain JSON bytes, in one run: on the largest
# corpus trace and on a 1 GiB trace inflated from it with bench/inflate-trace
# (generated once into the bench input directory under /tmp, never committed; bench/lib.sh).
# Builds its own optimised binary. Prints both rates, their ratio and redact's peak RSS.
#
# Targets: redact >= 0.4x the yajl rate and >= 60 MB/s; peak RSS <= 32 MB whatever
# the input size.
#
# redact is measured as a user runs it: read, redact, write the output file (temporary file,
# fsync, rename). Rates are bytes per second of CPU time (user + system, from wait4), the best
# of N runs, because the 2-core CI machines are shared and wall time there measures the
# neighbours; wall-clock rates are printed too.
#
#   bench/redact.sh     env: KS_CORPUS, KS_BENCH_SIZE (1G), KS_BENCH_DIR (the inputs, /tmp/big, as
#                       in bench/lib.sh), KS_BENCH_WORK, KS_BENCH_RUNS (5)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${KS_BENCH_WORK:-/tmp/kinesift-bench-redact}
BENCH=bench/redact.sh
RUNS=${KS_BENCH_RUNS:-5}
. "$ROOT/bench/lib.sh"
bench_build
bench_inputs
printf 'kinesift-bench-redact-key-0123456789abcdef\n' >"$WORK/key"

python3 - "$BUILD" "$WORK" "$RUNS" "${largest#"$CORPUS"/}" "$small" "inflated $SIZE" "$big" <<'EOF'
import os, subprocess, sys, time

build, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = [(sys.argv[4], sys.argv[5], runs), (sys.argv[6], sys.argv[7], 1)]
K, Y = os.path.join(build, "cli", "kinesift"), os.path.join(build, "bench", "yajl_raw")
out, rssf = os.path.join(d, "out.json"), os.path.join(d, "rss")


def measure(cmd):
    """CPU seconds (user + system of the command), wall seconds, peak RSS in KB."""
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rssf] + cmd,
                         stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("bench/redact.sh: %s failed" % " ".join(cmd))
    return ru.ru_utime + ru.ru_stime, wall, int(open(rssf).read().split()[-1])


print("bench/redact.sh: targets >= 0.4x yajl, >= 60 MB/s, peak RSS <= 32 MB "
      "(rates per CPU second; wall in brackets)")
ok = True
for label, path, n in cases:
    size = os.path.getsize(path)
    y = r = None
    rss = 0
    for _ in range(n):
        yc = measure([Y, path])
        if os.path.exists(out):
            os.unlink(out)
        rc = measure([K, "redact", "--quiet", "--key-file", os.path.join(d, "key"),
                      "--compress", "none", "-o", out, path])
        y = yc if y is None or yc[0] < y[0] else y
        r = rc if r is None or rc[0] < r[0] else r
        rss = max(rss, rc[2])
    ymb, rmb = size / y[0] / 1e6, size / r[0] / 1e6
    ratio = rmb / ymb
    good = ratio >= 0.4 and rmb >= 60 and rss <= 32 * 1024
    ok = ok and good
    print("%-36s %6.0f MB  yajl %6.1f MB/s [%6.1f]  redact %6.1f MB/s [%6.1f]  ratio %.2fx "
          "[%.2fx]  peak RSS %.1f MB  %s" % (
              label, size / 1e6, ymb, size / y[1] / 1e6, rmb, size / r[1] / 1e6, ratio,
              (size / r[1]) / (size / y[1]), rss / 1024, "ok" if good else "BELOW TARGET"))
if os.path.exists(out):
    os.unlink(out)
sys.exit(0 if ok else 1)
EOF
