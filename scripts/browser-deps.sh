#!/bin/sh
# scripts/browser-deps.sh: install Debian's chromium for the browser test of `kinesift report`
# (tests/report/browser_report.py runs it when no chromium is found). Root and apt needed;
# idempotent, instant when chromium is there. Exit 0 when a chromium is installed afterwards.
set -eu
for b in chromium chromium-browser; do
    command -v "$b" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "kinesift: chromium is missing (as root: apt-get install chromium)" >&2
    exit 2
fi
echo "kinesift: installing chromium for the browser test" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium >/dev/null 2>&1
