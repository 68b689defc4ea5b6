#!/usr/bin/env bash
# Throughput and peak memory of the Chrome trace reader on a large trace (issue 4: >= 300 MB/s on
# one core, <= 200 MB peak RSS on a 1 GB trace), against Python's json.load as a baseline.
#
# Usage: scripts/bench_trace.sh [BIG.json] [SIZE_MB]
#   BIG.json  the trace to read; made by scripts/make_big_trace.py when missing
#             (default: $TMPDIR/oomlint-bench/big.json)
#   SIZE_MB   its size when it has to be made (default 1024)
# Env: OOMLINT (the binary, default target/release/oomlint), SOURCE (the trace to repeat),
#      SKIP_PYTHON=1 to leave out the json.load baseline, CPU (the core to pin to, default 0).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
big="${1:-${TMPDIR:-/tmp}/oomlint-bench/big.json}"
size_mb="${2:-1024}"
oomlint="${OOMLINT:-$root/target/release/oomlint}"
source_trace="${SOURCE:-$root/testdata/samples/torch-cpu/expand_then_cast_bs2.trace.json}"
cpu="${CPU:-0}"

if [[ ! -x "$oomlint" ]]; then
    echo "building $oomlint" >&2
    (cd "$root" && cargo build --release)
fi
if [[ ! -f "$big" ]]; then
    mkdir -p "$(dirname "$big")"
    echo "making $big ($size_mb MB) from $source_trace" >&2
    python3 "$root/scripts/make_big_trace.py" "$source_trace" "$big" "$size_mb" >&2
fi

bytes=$(stat -c %s "$big")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Warm the page cache so both runs read from memory.
cat "$big" > /dev/null

# measure NAME CMD...: prints wall seconds, CPU seconds and peak RSS (KB) into $tmp/NAME.
measure() {
    local name="$1"
    shift
    /usr/bin/time -v -o "$tmp/$name.time" taskset -c "$cpu" "$@" > "$tmp/$name.out"
    local wall user sys rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/$name.time")
    user=$(awk -F': ' '/User time/ { print $2 }' "$tmp/$name.time")
    sys=$(awk -F': ' '/System time/ { print $2 }' "$tmp/$name.time")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/$name.time")
    echo "$wall $user $sys $rss" > "$tmp/$name"
}

report() {
    local name="$1" label="$2"
    read -r wall user sys rss < "$tmp/$name"
    awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v mb="$mb" 'BEGIN {
        cpu = u + s
        printf "%-22s wall %7.2f s  %7.1f MB/s | cpu %7.2f s  %7.1f MB/s | peak RSS %7.1f MB\n",
            l, w, mb / w, cpu, mb / cpu, r / 1024 }'
}

echo "trace: $big ($mb MB), pinned to cpu $cpu"
measure oomlint "$oomlint" profile "$big" --format json
report oomlint "oomlint profile"
if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
    measure python python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$big"
    report python "python json.load"
    read -r ow ou os orss < "$tmp/oomlint"
    read -r pw pu ps prss < "$tmp/python"
    awk -v ow="$ow" -v pw="$pw" -v ou="$ou" -v os="$os" -v pu="$pu" -v ps="$ps" \
        -v orss="$orss" -v prss="$prss" 'BEGIN {
        oc = ou + os; pc = pu + ps
        printf "oomlint vs json.load: %.1fx faster (wall), %.1fx faster (cpu), %.1fx less memory\n",
            pw / ow, pc / oc, prss / orss }'
fi
read -r ow ou os orss < "$tmp/oomlint"
awk -v w="$ow" -v r="$orss" -v mb="$mb" 'BEGIN {
    ok_t = (mb / w >= 300) ? "ok" : "below"; ok_m = (r / 1024 <= 200) ? "ok" : "above"
    printf "bar (>= 300 MB/s wall, <= 200 MB): throughput %s, memory %s\n", ok_t, ok_m }'
