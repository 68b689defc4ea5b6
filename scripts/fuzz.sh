#!/usr/bin/env bash
# fuzz.sh — run one cargo-fuzz target for a time budget.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [extra libFuzzer args...]
#   TARGET   lint_fix | evidence | config (see fuzz/fuzz_targets/)
#   SECONDS  -max_total_time for libFuzzer
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain the nightly-only flags
# cargo-fuzz passes are allowed with RUSTC_BOOTSTRAP=1, which this script sets. Builds without a
# sanitizer (safe Rust: panics are what we look for) and with debug assertions.
# The working corpus is fuzz/corpus/TARGET (ignored by git), seeded from fuzz/seeds/TARGET
# (committed) and, for lint_fix, from the rule and fix fixtures in testdata/ read in place; crash inputs land in fuzz/artifacts/TARGET. At the end it prints the number of
# executions and of crash/timeout/oom inputs, and exits 1 when there are any.
# Extra arguments go to libFuzzer: `-fork=1 -ignore_crashes=1` keeps fuzzing past a crash.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"
if [[ ! -f "fuzz_targets/$target.rs" ]]; then
    echo "unknown target '$target' (have: $(ls fuzz_targets | sed 's/\.rs$//' | tr '\n' ' '))" >&2
    exit 2
fi
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz is not installed: cargo install cargo-fuzz" >&2; exit 2; }

mkdir -p "corpus/$target" "artifacts/$target"
log=$(mktemp "${TMPDIR:-/tmp}/fuzz-$target.XXXXXX.log")
before=$(find "artifacts/$target" -type f | wc -l)

extra=()
if [[ $target == lint_fix ]]; then
    # libFuzzer reads these folders recursively and writes new inputs only to the first one.
    extra=(../testdata/rules ../testdata/fixes ../testdata/examples)
fi

export RUSTC_BOOTSTRAP=1
set +e
cargo fuzz run --sanitizer none --debug-assertions "$target" "corpus/$target" "seeds/$target" "${extra[@]}" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 "$@" 2>&1 | tee "$log" | grep -E '^(#[0-9]+.*(pulse|DONE)|#[0-9]+: cov|==|thread|panicked|SUMMARY|Test unit written|INFO: fuzzed for)' | tail -n 40
rc=${PIPESTATUS[0]}
set -e

execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n1 || true)
if [[ -z "$execs" ]]; then
    # -fork mode prints no final stats: take the last status line's count (#N).
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#' || true)
fi
after=$(find "artifacts/$target" -type f | wc -l)
echo "target:      $target"
echo "seconds:     $seconds"
echo "executions:  ${execs:-unknown}"
echo "crashes:     $((after - before)) new (fuzz/artifacts/$target)"
echo "corpus:      $(find "corpus/$target" -type f | wc -l) inputs"
echo "log:         $log"
find "artifacts/$target" -type f -newer "$log" 2>/dev/null | sed 's/^/  new: /' || true
if [[ $rc -ne 0 || $after -gt $before ]]; then
    exit 1
fi
