#!/usr/bin/env bash
# Scaffolds a static rule: the rule file, its document with the seven sections, a positive and
# a negative fixture, and its line in the registry (`rules!` in src/rules/mod.rs).
#
#   scripts/new_rule.sh OOM105 pad-after-expand
#
# Then: write the check (and the fix, if any) in src/rules/, fill in the document, and make the
# fixtures real. `cargo test` fails until the positive fixture is reported: that is the point.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 2 ]]; then
    echo "usage: scripts/new_rule.sh CODE name   (e.g. OOM105 pad-after-expand)" >&2
    exit 2
fi
code=$1
name=$2
if [[ ! $code =~ ^OOM[0-9]{3}$ ]]; then
    echo "new_rule.sh: code must look like OOM105, got '$code'" >&2
    exit 2
fi
if [[ ! $name =~ ^[a-z][a-z-]*[a-z]$ ]]; then
    echo "new_rule.sh: name must be kebab-case, got '$name'" >&2
    exit 2
fi
module="$(echo "$code" | tr 'A-Z' 'a-z')_${name//-/_}"
rule_file="src/rules/$module.rs"
doc="lints/$code.md"
fixtures="testdata/rules/$code"
for path in "$rule_file" "$doc" "$fixtures"; do
    if [[ -e $path ]]; then
        echo "new_rule.sh: $path already exists" >&2
        exit 1
    fi
done
if grep -q "\"$code\"" src/rules/*.rs; then
    echo "new_rule.sh: $code is already registered" >&2
    exit 1
fi

cat >"$rule_file" <<RUST
//! $code $name: TODO one line on what it finds.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "$code",
    name: "$name",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/$code.md"),
    check: Check::Site(check),
    // A fix builder from \`crate::fix\` with the applicability the document's "Fix safety" states.
    fix: None,
};

/// Claims the sites this rule reports (the first rule in code order that claims a site wins).
pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    // TODO: the facts that define this rule. This condition is OOM103's, as an example: an
    // earlier rule in code order claims such sites first, so this rule reports nothing yet.
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::Materialize) {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "apply it",
            remedy: None,
        },
    ))
}
RUST

cat >"$doc" <<MD
# $code: $name

TODO one sentence: what it reports and what to do instead.

## What it does
TODO

## Why is this bad
TODO

## Example
\`\`\`python
import torch


def example(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1)
\`\`\`

## Use instead
\`\`\`python
import torch


def example(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1)
\`\`\`

## Fix safety
TODO: which fix, and when it is safe, unsafe or display-only.

## Memory impact
TODO: bytes = numel(enlarged shape) x itemsize, with one worked figure.

## Known limits
- TODO
MD

mkdir -p "$fixtures"
cat >"$fixtures/positive.py" <<PY
# $code $name: TODO positives, each marked with its expectation.
import torch


def example(mask, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return m  # expect: $code
PY
cat >"$fixtures/negative.py" <<PY
# $code negatives: look-alikes that are fine.
import torch


def example(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1)
PY

# The registry line, in code order.
python3 - "$module" <<'PY'
import re, sys
module = sys.argv[1]
path = "src/rules/mod.rs"
text = open(path).read()
start = text.index("rules! {\n") + len("rules! {\n")
end = text.index("}\n", start)
names = [l.strip().rstrip(",") for l in text[start:end].splitlines() if l.strip()]
names = sorted(set(names + [module]))
body = "".join(f"    {n},\n" for n in names)
open(path, "w").write(text[:start] + body + text[end:])
PY

cargo run -q -- rule --markdown >/dev/null 2>&1 || true
echo "created $rule_file, $doc, $fixtures/{positive,negative}.py; registered $module in src/rules/mod.rs"
echo "next: write the check, fill in the document, regenerate README's table with 'cargo run -- rule --markdown'"
