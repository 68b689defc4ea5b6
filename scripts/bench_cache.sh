#!/usr/bin/env bash
# bench_cache.sh — what the summary cache buys: a warm one-file run against a cold full check.
#
# The bar (issue 12): on transformers 4.40.0, `oomlint check <one file>` with a warm cache takes
# at most 0.3x a cold full check of the tree. Both are timed with hyperfine:
#   cold:  oomlint check --no-cache <TARGET> --output-format concise
#   warm:  oomlint check <TARGET>/<FILE> --output-format concise
#          (the cache is primed once before; every warm run reads it and re-parses nothing but
#          the named file)
#   edit:  as warm, after appending a comment to one other file of the project each run
#          (that file's summaries are rebuilt, the rest come from the cache)
# and the ratio warm/cold is printed; exit 1 when it is above the bar.
#
# Usage
#   scripts/bench_cache.sh [--target DIR] [--file REL] [--runs N] [--no-build]
#     --target DIR   the tree (default $OOMLINT_CORPUS/transformers-4.40.0/transformers,
#                    OOMLINT_CORPUS defaulting to ~/.cache/oomlint-corpus)
#     --file REL     the one file, relative to the tree (default models/llama/modeling_llama.py)
#     --runs N       timed runs per command (default 10)
#     --no-build     do not run cargo build --release
# The cache is written to <project root>/.oomlint_cache (the top package of the tree when it has
# no config file or VCS root); the script removes it before and after. The edited file is
# restored afterwards.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="${OOMLINT_CORPUS:-$HOME/.cache/oomlint-corpus}"
TARGET="$CORPUS/transformers-4.40.0/transformers"
FILE="models/llama/modeling_llama.py"
EDITED="models/bert/modeling_bert.py"
RUNS=10
BUILD=1

die() { echo "bench_cache.sh: error: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) [[ $# -ge 2 ]] || die "--target needs a value"; TARGET="$2"; shift 2 ;;
    --file) [[ $# -ge 2 ]] || die "--file needs a value"; FILE="$2"; shift 2 ;;
    --runs) [[ $# -ge 2 ]] || die "--runs needs a value"; RUNS="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ -d "$TARGET" ]] || die "target folder $TARGET not found; run scripts/fetch_corpus.sh (or pass --target)"
TARGET="$(cd "$TARGET" && pwd)"
[[ -f "$TARGET/$FILE" ]] || die "$TARGET/$FILE not found (pass --file)"
command -v hyperfine >/dev/null || die "hyperfine not found (scripts/bench.sh installs it)"
if [[ $BUILD -eq 1 ]]; then
  (cd "$REPO_ROOT" && cargo build --release)
fi
OOMLINT="$REPO_ROOT/target/release/oomlint"
[[ -x "$OOMLINT" ]] || die "oomlint binary not found at $OOMLINT"

q() { printf '%q' "$1"; }
CACHE="$TARGET/.oomlint_cache"
EDIT_COPY="$(mktemp)"
cleanup() {
  [[ -f "$EDIT_COPY" ]] && [[ -f "$TARGET/$EDITED" ]] && cp "$EDIT_COPY" "$TARGET/$EDITED"
  rm -f "$EDIT_COPY"
  rm -rf "$CACHE"
}
trap cleanup EXIT
rm -rf "$CACHE"
HAVE_EDIT=0
if [[ -f "$TARGET/$EDITED" ]]; then cp "$TARGET/$EDITED" "$EDIT_COPY"; HAVE_EDIT=1; fi

COLD="$(q "$OOMLINT") check --no-cache $(q "$TARGET") --output-format concise"
WARM="$(q "$OOMLINT") check $(q "$TARGET/$FILE") --output-format concise"
# Prime the cache once.
bash -c "$WARM" >/dev/null || true
[[ -d "$CACHE" ]] || die "no cache was written at $CACHE"

JSON="$(mktemp)"
ARGS=(--warmup 2 --runs "$RUNS" --ignore-failure --export-json "$JSON" -n cold "$COLD" -n warm "$WARM")
if [[ $HAVE_EDIT -eq 1 ]]; then
  # One --prepare per command: only the third one edits.
  ARGS+=(--prepare true --prepare true --prepare "echo '# bench edit' >> $(q "$TARGET/$EDITED")"
         -n edit "$WARM")
fi
hyperfine "${ARGS[@]}"
python3 - "$JSON" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
for name, r in res.items():
    print(f"{name:5s} mean {r['mean']*1000:8.1f} ms ± {r['stddev']*1000:6.1f} ms (min {r['min']*1000:.1f})")
ratio = res["warm"]["mean"] / res["cold"]["mean"]
print(f"ratio warm one-file / cold full check: {ratio:.3f} (bar: <= 0.3)")
if "edit" in res:
    print(f"ratio one-file after an edit elsewhere / cold full check: {res['edit']['mean'] / res['cold']['mean']:.3f}")
sys.exit(0 if ratio <= 0.3 else 1)
PY
