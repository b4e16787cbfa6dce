#!/bin/sh
# validate/gpu-check.sh: the GPU check of `kinesift validate` (docs/validate.md). One command:
# builds kinesift with CUDA (release, no tests) in $KS_GPU_BUILD (default build-gpu-check),
# then on the GPU (device $KS_GPU_DEVICE, default 0):
#   - every built-in pair, asserting the known gains: constant-upload hoisted faster,
#     small-kernels fused or graph faster, pageable-copy pinned faster, sync-per-op sync-once
#     faster, each with a matching output check;
#   - the baseline against itself (pageable-copy pageable,pageable): no-change;
#   - the example plugin (examples/axpy_plugin.cu): fused faster, output within tolerance;
#   - one external-command pair (examples/event_timer.cu, timed with CUDA events by itself;
#     and the PyTorch example of docs/validate.md as well when torch sees a GPU): fused
#     faster, same checksum.
# Results (JSON, raw CSV, text) go to $KS_GPU_OUT (default $KS_GPU_BUILD/gpu-check); a
# summary table is printed. Meant to finish within 5 minutes on one H200 (the build included).
# Exit: 0 every assertion holds, 1 one fails, 2 build or usage error, 77 no usable GPU (the
# cause is printed: the CUDA error name and number). Never changes clocks or device settings.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${KS_GPU_BUILD:-build-gpu-check}
OUT=${KS_GPU_OUT:-$BUILD/gpu-check}
DEV=${KS_GPU_DEVICE:-0}
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "gpu-check: python3 is needed to read the results" >&2; exit 2; }

echo "== build ($BUILD, -Dcuda=enabled)"
if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" -Dcuda=enabled -Dtests=disabled --buildtype=release \
        >"$BUILD.setup.log" 2>&1 || { cat "$BUILD.setup.log"; echo "gpu-check: meson setup failed" >&2; exit 2; }
fi
ninja -C "$BUILD" >"$BUILD.build.log" 2>&1 || { tail -40 "$BUILD.build.log"; echo "gpu-check: build failed" >&2; exit 2; }
K=$BUILD/cli/kinesift
PLUGIN=$BUILD/examples/libks_example_axpy.so
TIMER=$BUILD/examples/event_timer
for f in "$K" "$PLUGIN" "$TIMER"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "gpu-check: $f was not built" >&2; exit 2; }
done
mkdir -p "$OUT"

# run NAME ARGS...: kinesift validate ARGS with JSON, raw CSV and the text report kept.
run() {
    name=$1; shift
    echo "== $name: kinesift validate $*"
    "$K" validate --device "$DEV" --timeout 10 "$@" --format json --output "$OUT/$name.json" \
        --raw "$OUT/$name.csv" 2>"$OUT/$name.err"
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "gpu-check: no usable GPU: $(sed 's/^kinesift: validate: //' "$OUT/$name.err")"
        exit 77
    fi
    cat "$OUT/$name.err"
    if [ "$rc" -eq 2 ]; then
        echo "gpu-check: $name: error (exit 2)" >&2
        exit 2
    fi
    return 0
}

START=$(date +%s)
# the quickest first: it also answers "is there a GPU"
run sync-per-op sync-per-op
run constant-upload constant-upload
run small-kernels small-kernels
run pageable-copy pageable-copy
run aa-pageable pageable-copy --variants pageable,pageable --samples 100
run plugin-axpy --workload "$PLUGIN"
# event_timer prints 40 iterations per run: warm-up by count only (3 after the first)
run cmd-event-timer --baseline-cmd "$TIMER" --candidate-cmd "$TIMER --fused" \
    --warmup-ms 0 --runs 3
TORCH=0
if "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    TORCH=1
    cat >"$OUT/torch_step.py" <<'EOF'
import sys, torch
x = torch.randn(4096, 4096, device="cuda")
sync_each = "--sync-each" in sys.argv
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for _ in range(30):
    start.record()
    for _ in range(8):
        s = (x @ x).sum()
        if sync_each: s.item()              # the host waits after every op
    end.record(); torch.cuda.synchronize()
    print(f"kinesift-sample {start.elapsed_time(end):.6f}", flush=True)
EOF
    run cmd-torch --baseline-cmd "$PY $OUT/torch_step.py --sync-each" \
        --candidate-cmd "$PY $OUT/torch_step.py" --warmup-ms 0
fi
END=$(date +%s)

# Assertions, from the JSON results.
"$PY" - "$OUT" "$TORCH" "$((END - START))" <<'EOF'
import json, os, sys
out, torch, seconds = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
failed = []

def load(name):
    with open(os.path.join(out, name + ".json"), encoding="utf-8") as f:
        return json.load(f)

def metrics(name):
    return {m["candidate_variant"]: m for m in load(name)["metrics"]}

def expect(name, variants, verdict="faster", any_of=False, check=("match",)):
    m = metrics(name)
    ok = [v for v in variants if m[v]["verdict"] == verdict and m[v]["check"] in check]
    good = bool(ok) if any_of else len(ok) == len(variants)
    if not good:
        failed.append(f"{name}: expected {verdict} for {' or '.join(variants) if any_of else ', '.join(variants)}")

print(f"\n{'result':<22} {'candidate':<14} {'baseline median':>16} {'candidate median':>17} "
      f"{'ratio':>7} {'95 % CI':>17} {'p':>9} {'K':>4}  verdict")
names = ["sync-per-op", "constant-upload", "small-kernels", "pageable-copy", "aa-pageable",
         "plugin-axpy", "cmd-event-timer"] + (["cmd-torch"] if torch else [])
for name in names:
    for m in load(name)["metrics"]:
        b, c = m["baseline"]["median"], m["candidate"]["median"]
        print(f"{name:<22} {m['candidate_variant']:<14} {b/1e3:>13.2f} us {c/1e3:>14.2f} us "
              f"{m['ratio']:>7.3f} [{m['ci'][0]:.3f}, {m['ci'][1]:.3f}] {m['p']:>9.2g} "
              f"{m['batch_k']:>4}  {m['verdict']} ({m['check']})")
dev = load("sync-per-op")["context"]["device"]
print(f"\ndevice: {dev['name']}, driver {dev['driver_version']}, runtime {dev['runtime_version']}; "
      f"measurements took {seconds} s")

expect("constant-upload", ["hoisted"])
expect("small-kernels", ["fused", "graph"], any_of=True)
expect("pageable-copy", ["pinned"])
expect("sync-per-op", ["sync-once"])
expect("aa-pageable", ["pageable"], verdict="no-change", check=("same-variant",))
expect("plugin-axpy", ["fused"])
expect("cmd-event-timer", ["candidate-cmd"])
if torch:
    expect("cmd-torch", ["candidate-cmd"], check=("not-provided",))
for f in failed:
    print("gpu-check: FAIL:", f)
print("gpu-check:", "FAILED" if failed else "all assertions hold")
sys.exit(1 if failed else 0)
EOF
