#!/bin/sh
# scripts/deps.sh: install the Debian 12 packages kinesift needs, only those that are missing.
# Used by run.sh and test.sh; idempotent, and instant when everything is there.
set -eu

PKGS="gcc g++ libc6-dev pkg-config meson ninja-build libyajl-dev libarchive-dev libcmocka-dev \
libssl-dev libpcre2-dev libisal-dev publicsuffix python3 python3-pandas python3-numpy \
python3-setuptools python3-pip gzip zstd xz-utils bzip2 libarchive-tools tzdata"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "kinesift: missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 2
fi
echo "kinesift: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
