#!/bin/sh
# examples/slurm/submit.sh LIST OUTDIR REPORT: submit the map (a job array, one task per line of
# LIST) and the reduce job that waits for all of it (--dependency=afterok). Prints both job ids.
# KINESIFT (the binary, same path on every node) and KS_FORMAT (text|json|csv|markdown) pass on.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 LIST OUTDIR REPORT" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
n=$(grep -v '^#' "$1" | grep -cv '^$')
[ "$n" -gt 0 ] || { echo "$1 names no trace" >&2; exit 2; }
export KS_LIST=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") KS_OUT=$2 KS_REPORT=$3
map=$(sbatch --parsable --export=ALL --array=0-$((n - 1)) "$here/summarize.sbatch")
map=${map%%;*}
reduce=$(sbatch --parsable --export=ALL --dependency=afterok:"$map" "$here/reduce.sbatch")
echo "$map ${reduce%%;*}"
