#!/bin/sh
# scripts/compare-outputs.sh: proves that a change of layout or refactoring changed no output.
# It runs two builds of `kinesift` over every real trace of fixtures/real (or DIR) with the
# commands whose output users read -- stats (text, json), analyze (text, json), report (the HTML
# page on stdout) and diff (each trace against the next one in sorted order; text, json) -- and
# compares stdout, stderr and exit status of the two builds byte for byte.
#
# usage: scripts/compare-outputs.sh OLD_KINESIFT NEW_KINESIFT [DIR]
# Exit status 0 when every output is identical, 1 when one differs (each difference is named),
# 2 on bad usage. Outputs are kept in a temporary directory named on the last line.
# When it does not apply: outputs that carry the time of the run or absolute paths of the
# binary would differ between any two runs; none of these commands prints either.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 OLD_KINESIFT NEW_KINESIFT [DIR]" >&2
    exit 2
fi
old=$1 new=$2
dir=${3:-$(dirname "$0")/../fixtures/real}
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/ks-compare.XXXXXX")
traces=$(find "$dir" -type f \( -name '*.json' -o -name '*.json.gz' \) | LC_ALL=C sort)
[ -n "$traces" ] || { echo "$0: no trace under $dir" >&2; exit 2; }

# run SIDE NAME ARGS...: one command of one build; stdout, stderr and status kept apart.
run() {
    side=$1 name=$2; shift 2
    bin=$old; [ "$side" = new ] && bin=$new
    mkdir -p "$out/$side"
    set +e
    "$bin" "$@" > "$out/$side/$name.out" 2> "$out/$side/$name.err"
    echo $? > "$out/$side/$name.rc"
    set -e
}

n=0
prev=
for t in $traces; do
    n=$((n + 1))
    id=$(printf '%02d' $n)
    for side in old new; do
        run $side "$id.stats.text" stats "$t"
        run $side "$id.stats.json" stats --format json "$t"
        run $side "$id.analyze.text" analyze "$t"
        run $side "$id.analyze.json" analyze --format json "$t"
        run $side "$id.report.html" report "$t" -o -
        if [ -n "$prev" ]; then
            run $side "$id.diff.text" diff "$prev" "$t"
            run $side "$id.diff.json" diff --format json "$prev" "$t"
        fi
    done
    prev=$t
done

files=0 differ=0
for f in "$out"/old/*; do
    files=$((files + 1))
    g="$out/new/${f##*/}"
    if ! cmp -s "$f" "$g"; then
        differ=$((differ + 1))
        echo "differs: ${f##*/}"
    fi
done
echo "$n traces, $files outputs (stdout, stderr, status) compared: $((files - differ)) identical, $differ differ; kept in $out"
[ "$differ" -eq 0 ]
