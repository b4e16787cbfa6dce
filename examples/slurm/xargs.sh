#!/bin/sh
# examples/slurm/xargs.sh LIST OUTDIR REPORT [JOBS]: the same map and reduce without a scheduler:
# xargs -P runs JOBS summaries at once on this host (default: its cores), then `kinesift ranks`
# merges them into REPORT. Over many hosts the map line becomes GNU parallel over ssh, the
# summaries landing on shared storage:
#   grep -v '^#' LIST | parallel -S host1,host2 --jobs 8 \
#       'kinesift summarize --quiet --threads 1 --force {} -o OUTDIR/rank-{#}.kss.json.gz'
set -eu
[ $# -ge 3 ] || { echo "usage: $0 LIST OUTDIR REPORT [JOBS]" >&2; exit 2; }
KINESIFT=${KINESIFT:-kinesift}
KS_OUT=$2
export KINESIFT KS_OUT
mkdir -p "$KS_OUT"
grep -v '^#' "$1" | grep -v '^$' | awk '{ print NR - 1; print }' |
    xargs -d '\n' -n 2 -P "${4:-$(nproc)}" sh -c \
        'exec "$KINESIFT" summarize --quiet --threads 1 --force "$2" -o "$KS_OUT/rank-$1.kss.json.gz"' sh
"$KINESIFT" ranks --quiet --format "${KS_FORMAT:-text}" "$KS_OUT" >"$3.tmp"
mv "$3.tmp" "$3"
