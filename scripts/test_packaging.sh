#!/usr/bin/env bash
# test_packaging.sh — prove the pip package and the pre-commit hooks with the real clients.
#
# NOT part of CI (.ci/run does not call it): it needs PyPI (pip fetches maturin for the build and
# pre-commit / virtualenv for part b) and takes minutes, because the Rust binary is compiled inside
# pip's build (maturin runs cargo) and compiled again when pre-commit builds its hook environment.
#
# What it does
#   a. pip package: a fresh venv in a temporary folder, `pip install <this checkout>` (maturin,
#      `bindings = "bin"`), then the venv's `oomlint --version` must print Cargo.toml's version, and
#      `oomlint check testdata/examples` run from the checkout must exit 1 with OOM101 at
#      tinyformer/attention.py:32.
#   b. pre-commit: `pre-commit` from PyPI into a venv, a temporary git repository whose
#      .pre-commit-config.yaml uses THIS checkout as the hook repository at `git rev-parse HEAD`
#      (hook `oomlint`, and `oomlint-fix` in the manual stage). A model file with the seed case makes
#      `git commit` fail with OOM101 printed; `pre-commit run --hook-stage manual oomlint-fix` rewrites
#      it (cast before expand); then the commit passes.
#
# pre-commit clones the hook repository at `rev`, so it sees only what is COMMITTED in this checkout:
# commit .pre-commit-hooks.yaml, pyproject.toml and the code first. The script warns when the working
# tree has uncommitted changes.
#
# Build time: CARGO_TARGET_DIR is exported for both builds (pip's and pre-commit's), so they reuse
# one warm build folder; default: this checkout's target/ (override with CARGO_TARGET_DIR).
#
# Usage
#   scripts/test_packaging.sh [--keep]     # --keep: leave the temporary folder (printed) in place
# Environment
#   CARGO_TARGET_DIR   cargo build folder shared by the builds (default <checkout>/target)
#   PYTHON             the Python used to make the venvs (default python3)
#   PRE_COMMIT_SPEC    pip requirement for pre-commit (default: pre-commit)
#
# Exit 0 when every step passed; non-zero with the failing step and its log otherwise.
set -euo pipefail

KEEP=0
for arg in "$@"; do
    case "$arg" in
        --keep) KEEP=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

CHECKOUT="$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel)"
cd "$CHECKOUT"
PYTHON="${PYTHON:-python3}"
PRE_COMMIT_SPEC="${PRE_COMMIT_SPEC:-pre-commit}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CHECKOUT/target}"
export CARGO_TERM_COLOR=never
export PIP_DISABLE_PIP_VERSION_CHECK=1

TMP="$(mktemp -d "${TMPDIR:-/tmp}/oomlint-packaging.XXXXXX")"
cleanup() {
    local rc=$?
    if [[ $KEEP == 1 || $rc != 0 ]]; then
        echo "temporary folder kept: $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
mkdir -p "$TMP/logs"

SCRIPT_START=$(date +%s)
declare -a TIMINGS=()
step_start() { STEP_NAME="$1"; STEP_T0=$(date +%s); echo "== $1"; }
step_end() {
    local dt=$(( $(date +%s) - STEP_T0 ))
    TIMINGS+=("$(printf '%5ss  %s' "$dt" "$STEP_NAME")")
    echo "   ok (${dt}s)"
}
fail() {
    echo "FAIL: $STEP_NAME: $*" >&2
    exit 1
}
# run LOG CMD...: run a command with its output in a log; on failure print the log's tail.
run_logged() {
    local log="$1"; shift
    if ! "$@" >"$log" 2>&1; then
        echo "--- last lines of $log" >&2
        tail -n 40 "$log" >&2
        fail "command failed: $*"
    fi
}

command -v cargo >/dev/null || { echo "cargo not found: the pip build compiles the Rust crate" >&2; exit 2; }
command -v git >/dev/null || { echo "git not found" >&2; exit 2; }

REV="$(git rev-parse HEAD)"
VERSION="$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)"
for f in .pre-commit-hooks.yaml pyproject.toml; do
    git cat-file -e "HEAD:$f" 2>/dev/null \
        || { echo "$f is not committed: pre-commit clones the checkout at HEAD, commit first" >&2; exit 2; }
done
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    echo "warning: uncommitted changes in $CHECKOUT; part (b) tests the committed HEAD $REV only" >&2
fi
echo "checkout $CHECKOUT at $REV (version $VERSION); CARGO_TARGET_DIR=$CARGO_TARGET_DIR; temp $TMP"

# ---------------------------------------------------------------- (a) pip install .
step_start "a1. fresh venv + pip install . (maturin builds the binary)"
"$PYTHON" -m venv "$TMP/venv-pip"
run_logged "$TMP/logs/pip-install.log" "$TMP/venv-pip/bin/python" -m pip install "$CHECKOUT"
[[ -x "$TMP/venv-pip/bin/oomlint" ]] || fail "no oomlint executable in the venv's bin/"
step_end

step_start "a2. venv's oomlint --version and check testdata/examples"
out="$("$TMP/venv-pip/bin/oomlint" --version)" || fail "oomlint --version exited $?"
echo "   $out"
[[ "$out" == *"$VERSION"* ]] || fail "--version printed '$out', expected version $VERSION"
set +e
"$TMP/venv-pip/bin/oomlint" check testdata/examples >"$TMP/logs/check-examples.txt" 2>&1
rc=$?
"$TMP/venv-pip/bin/oomlint" check testdata/examples --output-format concise >"$TMP/logs/check-examples-concise.txt" 2>&1
set -e
[[ $rc == 1 ]] || { cat "$TMP/logs/check-examples.txt"; fail "oomlint check testdata/examples exited $rc, expected 1"; }
grep -Eq 'tinyformer/attention\.py:32:[0-9]+: OOM101' "$TMP/logs/check-examples-concise.txt" \
    || { cat "$TMP/logs/check-examples-concise.txt"; fail "no OOM101 at attention.py:32"; }
grep -E 'attention\.py:32:' "$TMP/logs/check-examples-concise.txt" | sed 's/^/   /'
step_end

# ---------------------------------------------------------------- (b) pre-commit
step_start "b1. venv with pre-commit from PyPI"
"$PYTHON" -m venv "$TMP/venv-pc"
run_logged "$TMP/logs/pip-pre-commit.log" "$TMP/venv-pc/bin/python" -m pip install "$PRE_COMMIT_SPEC"
PRE_COMMIT="$TMP/venv-pc/bin/pre-commit"
echo "   $("$PRE_COMMIT" --version)"
step_end

export PRE_COMMIT_HOME="$TMP/pre-commit-home"   # pre-commit's cache (clones, hook venvs), not ~/.cache
export PRE_COMMIT_COLOR=never
PROJ="$TMP/project"
mkdir -p "$PROJ"
cd "$PROJ"
git init -q .
git config user.name "oomlint packaging test"
git config user.email "packaging-test@example.invalid"
git config commit.gpgsign false
cat > .pre-commit-config.yaml <<EOF
repos:
  - repo: $CHECKOUT
    rev: $REV
    hooks:
      - id: oomlint
      - id: oomlint-fix
        stages: [manual]
EOF
printf 'import torch\n' > ok.py
git add .pre-commit-config.yaml ok.py
git commit -q -m "initial" --no-verify
run_logged "$TMP/logs/pre-commit-install.log" "$PRE_COMMIT" install

step_start "b2. pre-commit install-hooks (clones the checkout at $REV, pip builds it again)"
run_logged "$TMP/logs/install-hooks.log" "$PRE_COMMIT" install-hooks
step_end

step_start "b3. git commit of the seed case fails with OOM101"
mkdir -p model
cat > model/attention.py <<'EOF'
import torch


class Attention(torch.nn.Module):
    def forward(self, scores, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return scores.masked_fill(attn_mask, float("-inf"))
EOF
cp model/attention.py "$TMP/attention.before.py"
git add model/attention.py
set +e
git commit -m "add attention" >"$TMP/logs/commit-bad.log" 2>&1
rc=$?
set -e
sed 's/^/   | /' "$TMP/logs/commit-bad.log"
[[ $rc != 0 ]] || fail "the commit passed, expected the oomlint hook to fail it"
grep -q 'OOM101' "$TMP/logs/commit-bad.log" || fail "the failed commit did not print OOM101"
grep -q 'model/attention.py' "$TMP/logs/commit-bad.log" || fail "the failed commit did not name model/attention.py"
[[ "$(git rev-list --count HEAD)" == 1 ]] || fail "a commit was made"
step_end

step_start "b4. pre-commit run --hook-stage manual oomlint-fix rewrites the file"
set +e
"$PRE_COMMIT" run --hook-stage manual oomlint-fix --all-files >"$TMP/logs/fix.log" 2>&1
rc=$?
set -e
sed 's/^/   | /' "$TMP/logs/fix.log"
# pre-commit fails a hook that modified files; that is expected here.
[[ $rc == 1 ]] || fail "pre-commit run oomlint-fix exited $rc, expected 1 (files were modified)"
grep -q 'files were modified by this hook' "$TMP/logs/fix.log" || fail "pre-commit did not report a modified file"
if cmp -s model/attention.py "$TMP/attention.before.py"; then fail "model/attention.py was not changed"; fi
diff -u "$TMP/attention.before.py" model/attention.py | sed 's/^/   /' || true
cat > "$TMP/attention.expected.py" <<'EOF'
import torch


class Attention(torch.nn.Module):
    def forward(self, scores, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.bool()
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        return scores.masked_fill(attn_mask, float("-inf"))
EOF
cmp -s model/attention.py "$TMP/attention.expected.py" || fail "the fixed file is not the expected one (cast first, then expand)"
step_end

step_start "b5. git commit of the fixed file passes"
git add model/attention.py
set +e
git commit -m "add attention (fixed)" >"$TMP/logs/commit-good.log" 2>&1
rc=$?
set -e
sed 's/^/   | /' "$TMP/logs/commit-good.log"
[[ $rc == 0 ]] || fail "the commit failed after the fix (exit $rc)"
[[ "$(git rev-list --count HEAD)" == 2 ]] || fail "no commit was made"
grep -Eq 'oomlint\.+Passed' "$TMP/logs/commit-good.log" || fail "the oomlint hook did not report Passed"
step_end

echo
echo "timings:"
printf '  %s\n' "${TIMINGS[@]}"
echo "  $(( $(date +%s) - SCRIPT_START ))s  total"
echo "PASS: pip package and pre-commit hooks (rev $REV)"
