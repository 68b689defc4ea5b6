#!/usr/bin/env bash
# bench.sh — time oomlint against ruff on a real PyTorch code base.
#
# What it does
#   1. Builds the release binary (`cargo build --release`) unless --no-build,
#      then fails with a clear message if target/release/oomlint is missing.
#   2. Makes sure the tools are there: hyperfine and GNU time from Debian's
#      packages (apt-get, needs root), ruff from PyPI into a venv at
#      ${OOMLINT_BENCH_VENV:-$HOME/.cache/oomlint-bench-venv} (never in the repo).
#   3. Runs ONE hyperfine session comparing
#        target/release/oomlint check --no-cache <DIR> --output-format concise
#        ruff check --no-cache --isolated --output-format concise <DIR>
#      with warmup runs and >= 10 timed runs, --ignore-failure (both exit 1
#      when they report findings), exporting Markdown and JSON.
#      Both get `--output-format concise` so neither pays for rendering
#      source snippets; hyperfine discards stdout either way.
#   4. Measures the peak RSS of each with `/usr/bin/time -v` (median of
#      --rss-runs runs).
#   5. Prints the ratio oomlint/ruff of the mean wall times and both peak RSS.
#
# Usage
#   scripts/bench.sh [options]
#     --corpus DIR     corpus root made by scripts/fetch_corpus.sh
#                      (default ${OOMLINT_CORPUS:-$HOME/.cache/oomlint-corpus});
#                      the target is DIR/transformers-4.40.0/transformers
#     --target DIR     lint this folder instead (overrides --corpus's target)
#     --runs N         timed runs per command (default 10, minimum 10)
#     --warmup N       warmup runs per command (default 3)
#     --rss-runs N     /usr/bin/time -v runs per command (default 3)
#     --no-build       do not run cargo build (the binary must already exist)
#     --ruff-only      benchmark ruff alone (checks the harness; no build,
#                      no oomlint, no ratio)
#     -h, --help       show this header
#
# Results go to $CORPUS/results/<UTC timestamp>/ (bench.md, bench.json,
# rss.txt, summary.txt); $CORPUS/results/latest points at the newest run.
# If the corpus is missing, run scripts/fetch_corpus.sh first.
#
# Environment
#   OOMLINT_CORPUS      corpus root (same as --corpus)
#   OOMLINT_BENCH_VENV  venv holding ruff
#   RUFF_VERSION        ruff version to install into a new venv (default below)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="${OOMLINT_CORPUS:-$HOME/.cache/oomlint-corpus}"
VENV="${OOMLINT_BENCH_VENV:-$HOME/.cache/oomlint-bench-venv}"
RUFF_VERSION="${RUFF_VERSION:-0.17.6}"
TARGET=""
RUNS=10
WARMUP=3
RSS_RUNS=3
BUILD=1
RUFF_ONLY=0

die() { echo "bench.sh: error: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) [[ $# -ge 2 ]] || die "--corpus needs a value"; CORPUS="$2"; shift 2 ;;
    --target) [[ $# -ge 2 ]] || die "--target needs a value"; TARGET="$2"; shift 2 ;;
    --runs) [[ $# -ge 2 ]] || die "--runs needs a value"; RUNS="$2"; shift 2 ;;
    --warmup) [[ $# -ge 2 ]] || die "--warmup needs a value"; WARMUP="$2"; shift 2 ;;
    --rss-runs) [[ $# -ge 2 ]] || die "--rss-runs needs a value"; RSS_RUNS="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --ruff-only) RUFF_ONLY=1; BUILD=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

[[ "$RUNS" =~ ^[0-9]+$ && "$RUNS" -ge 10 ]] || die "--runs must be an integer >= 10 (got $RUNS)"
[[ "$WARMUP" =~ ^[0-9]+$ ]] || die "--warmup must be a non-negative integer"
[[ "$RSS_RUNS" =~ ^[0-9]+$ && "$RSS_RUNS" -ge 1 ]] || die "--rss-runs must be an integer >= 1"

[[ -d "$CORPUS" ]] || die "corpus root $CORPUS not found; run scripts/fetch_corpus.sh (or pass --corpus)"
CORPUS="$(cd "$CORPUS" && pwd)"
if [[ -z "$TARGET" ]]; then
  TARGET="$CORPUS/transformers-4.40.0/transformers"
fi
[[ -d "$TARGET" ]] || die "target folder $TARGET not found; run scripts/fetch_corpus.sh (or pass --target)"
TARGET="$(cd "$TARGET" && pwd)"

# ---------------------------------------------------------------- tools
apt_updated=0
apt_install() {
  # $1 = package; installs from Debian's packages.
  command -v apt-get >/dev/null || die "apt-get not found; install $1 by hand"
  local sudo=""
  [[ "$(id -u)" -eq 0 ]] || sudo="sudo"
  if [[ $apt_updated -eq 0 ]]; then
    echo "apt-get update" >&2
    $sudo apt-get update -qq
    apt_updated=1
  fi
  echo "apt-get install $1" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1" >/dev/null
}

command -v hyperfine >/dev/null || apt_install hyperfine
[[ -x /usr/bin/time ]] || apt_install time
# (captured first: grep -q closing the pipe early would trip pipefail)
time_probe="$(/usr/bin/time -v true 2>&1 || true)"
[[ "$time_probe" == *"Maximum resident set size"* ]] \
  || die "/usr/bin/time is not GNU time (no -v); apt-get install time"

RUFF="$VENV/bin/ruff"
if [[ ! -x "$RUFF" ]]; then
  echo "creating venv $VENV with ruff==$RUFF_VERSION" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "ruff==$RUFF_VERSION"
fi
[[ -x "$RUFF" ]] || die "ruff not found at $RUFF"

OOMLINT="$REPO_ROOT/target/release/oomlint"
if [[ $RUFF_ONLY -eq 0 ]]; then
  if [[ $BUILD -eq 1 ]]; then
    echo "cargo build --release" >&2
    (cd "$REPO_ROOT" && cargo build --release)
  fi
  [[ -x "$OOMLINT" ]] || die "oomlint binary not found at $OOMLINT
  build it first: (cd $REPO_ROOT && cargo build --release)  — or drop --no-build"
fi

# ---------------------------------------------------------------- commands
q() { printf '%q' "$1"; }
RUFF_CMD="$(q "$RUFF") check --no-cache --isolated --output-format concise $(q "$TARGET")"
OOMLINT_CMD="$(q "$OOMLINT") check --no-cache $(q "$TARGET") --output-format concise"

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RESULTS="$CORPUS/results/$STAMP"
mkdir -p "$RESULTS"
ln -sfn "$STAMP" "$CORPUS/results/latest"

py_files=$(find "$TARGET" -type f -name '*.py' | wc -l)
py_bytes=$(find "$TARGET" -type f -name '*.py' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
py_mb=$(awk -v b="$py_bytes" 'BEGIN {printf "%.1f", b/1048576}')

{
  echo "target:  $TARGET ($py_files .py files, $py_mb MB)"
  echo "ruff:    $("$RUFF" --version)"
  [[ $RUFF_ONLY -eq 1 ]] || echo "oomlint: $("$OOMLINT" --version 2>/dev/null || echo "(no --version)") $OOMLINT"
  echo "hyperfine: $(hyperfine --version)"
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "results: $RESULTS"
} | tee "$RESULTS/summary.txt"
echo

# ---------------------------------------------------------------- wall time
HF_ARGS=(--warmup "$WARMUP" --runs "$RUNS" --ignore-failure
         --export-markdown "$RESULTS/bench.md" --export-json "$RESULTS/bench.json")
if [[ $RUFF_ONLY -eq 1 ]]; then
  hyperfine "${HF_ARGS[@]}" -n ruff "$RUFF_CMD"
else
  hyperfine "${HF_ARGS[@]}" -n oomlint "$OOMLINT_CMD" -n ruff "$RUFF_CMD"
fi

# ---------------------------------------------------------------- peak RSS
# Median over RSS_RUNS runs of "Maximum resident set size" (KiB).
peak_rss_kib() {
  local name="$1" cmd="$2" i kib vals=()
  for ((i = 0; i < RSS_RUNS; i++)); do
    # The tools exit 1 on findings; only the time report matters here.
    /usr/bin/time -v bash -c "exec $cmd" >/dev/null 2>"$RESULTS/time-$name-$i.txt" || true
    kib=$(awk -F': *' '/Maximum resident set size/ {print $2}' "$RESULTS/time-$name-$i.txt")
    [[ -n "$kib" ]] || die "could not read peak RSS for $name from $RESULTS/time-$name-$i.txt"
    vals+=("$kib")
  done
  printf '%s\n' "${vals[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

RUFF_RSS=$(peak_rss_kib ruff "$RUFF_CMD")
OOMLINT_RSS=""
[[ $RUFF_ONLY -eq 1 ]] || OOMLINT_RSS=$(peak_rss_kib oomlint "$OOMLINT_CMD")
{
  echo "peak RSS (KiB, median of $RSS_RUNS): ruff $RUFF_RSS"
  [[ -z "$OOMLINT_RSS" ]] || echo "peak RSS (KiB, median of $RSS_RUNS): oomlint $OOMLINT_RSS"
} > "$RESULTS/rss.txt"

# ---------------------------------------------------------------- summary
python3 - "$RESULTS/bench.json" "$RUFF_RSS" "$OOMLINT_RSS" <<'PY' | tee -a "$RESULTS/summary.txt"
import json, sys
path, ruff_rss, oom_rss = sys.argv[1], sys.argv[2], sys.argv[3]
res = {r["command"]: r for r in json.load(open(path))["results"]}
def line(name, rss):
    r = res[name]
    codes = sorted(set(r.get("exit_codes") or []))
    return (f"{name:8s} mean {r['mean']*1000:8.1f} ms ± {r['stddev']*1000:6.1f} ms"
            f"  (min {r['min']*1000:.1f}, max {r['max']*1000:.1f}, n={len(r['times'])},"
            f" exit codes {codes})  peak RSS {int(rss)/1024:.1f} MiB")
print()
if "oomlint" in res:
    print(line("oomlint", oom_rss))
print(line("ruff", ruff_rss))
if "oomlint" in res:
    ratio = res["oomlint"]["mean"] / res["ruff"]["mean"]
    print(f"ratio oomlint/ruff mean wall time: {ratio:.3f}")
    print(f"ratio oomlint/ruff peak RSS:       {int(oom_rss)/int(ruff_rss):.3f}")
PY
echo "results in $RESULTS"
