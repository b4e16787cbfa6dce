#!/bin/sh
# run.sh: install what is missing, build, and run the main job (kinesift analyze) on the bundled
# example trace. Idempotent; fast when everything is already there.
set -eu
cd "$(dirname "$0")"
./scripts/deps.sh
if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null
EXAMPLE=fixtures/example/train_step.json
echo "== kinesift stats $EXAMPLE"
./build/cli/kinesift stats "$EXAMPLE"
if ./build/cli/kinesift help analyze 2>/dev/null | grep -q "usage: kinesift analyze FILE"; then
    echo
    echo "== kinesift analyze $EXAMPLE"
    ./build/cli/kinesift analyze "$EXAMPLE"
fi
