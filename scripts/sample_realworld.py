#!/usr/bin/env python3
"""sample_realworld.py - choose which oomlint findings get hand-labelled.

Usage:
    scripts/sample_realworld.py OUTDIR > testdata/realworld/sample.tsv

OUTDIR holds one oomlint JSON output per corpus folder, named <folder>.json
(e.g. transformers-5.24.0.json), as made by
    oomlint check --isolated --output-format json --exit-zero <folder> > OUTDIR/<folder>.json
run from the corpus root ($HOME/.cache/oomlint-corpus).

Selection (deterministic, seed 20261201):
  * every finding of the packages in ALL_PACKAGES (the smaller ones and timm);
  * for the big packages (transformers, diffusers): per rule, a random sample
    of max(min(n, 8), round(0.25 * n)) findings (stratified by rule), plus
  * every finding in a file named modeling_*.py whose enclosing function's
    name contains "mask" (the attention-mask helpers).
Prints a header and one row per chosen site: folder, file (relative to the
folder, i.e. starting at the import root), line, code, selected (all, random or
mask-helper). score_realworld.py reads it for its stratum-weighted estimate.
"""
import ast
import json
import os
import random
import sys

SEED = 20261201
BIG = ("transformers-", "diffusers-")
CORPUS = os.environ.get("OOMLINT_CORPUS", os.path.expanduser("~/.cache/oomlint-corpus"))

_func_cache = {}


def enclosing_function(path, line):
    if path not in _func_cache:
        spans = []
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    spans.append((node.lineno, node.end_lineno, node.name))
        except (SyntaxError, OSError, UnicodeDecodeError):
            pass
        _func_cache[path] = spans
    best = None
    for lo, hi, name in _func_cache[path]:
        if lo <= line <= hi and (best is None or lo >= best[0]):
            best = (lo, hi, name)
    return best[2] if best else ""


def main():
    outdir = sys.argv[1]
    rng = random.Random(SEED)
    print("folder\tfile\tline\tcode\tselected")
    for fname in sorted(os.listdir(outdir)):
        if not fname.endswith(".json"):
            continue
        folder = fname[:-5]
        findings = json.load(open(os.path.join(outdir, fname)))
        rows = []
        for f in findings:
            rel = f["filename"].split("/", 1)[1] if f["filename"].startswith(folder + "/") else f["filename"]
            rows.append((rel, f["location"]["row"], f["code"]))
        rows = sorted(set(rows))
        chosen = {}
        if not folder.startswith(BIG):
            for r in rows:
                chosen[r] = "all"
        else:
            by_rule = {}
            for r in rows:
                by_rule.setdefault(r[2], []).append(r)
            for code in sorted(by_rule):
                lst = by_rule[code]
                k = max(min(len(lst), 8), round(0.25 * len(lst)))
                for r in rng.sample(lst, k):
                    chosen[r] = "random"
            for r in rows:
                base = os.path.basename(r[0])
                if base.startswith("modeling_") and r not in chosen:
                    fn = enclosing_function(os.path.join(CORPUS, folder, r[0]), r[1])
                    if "mask" in fn.lower():
                        chosen[r] = "mask-helper"
        for r in sorted(chosen):
            print(f"{folder}\t{r[0]}\t{r[1]}\t{r[2]}\t{chosen[r]}")


if __name__ == "__main__":
    main()
