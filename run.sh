#!/bin/sh
# run.sh: install what is missing (Debian 12 packages, as root), build, and run the main job —
# `kinesift analyze` — on the bundled example trace. Idempotent; fast when everything is there.
set -eu
cd "$(dirname "$0")"
./scripts/deps.sh
if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null
EXAMPLE=fixtures/example/train_step.json
echo "== kinesift analyze $EXAMPLE"
exec ./build/cli/kinesift analyze "$EXAMPLE"
