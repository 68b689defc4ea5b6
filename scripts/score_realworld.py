#!/usr/bin/env python3
"""score_realworld.py - score an oomlint build against the hand-labelled real-code set.

Usage:
    # run a linter binary over the corpus itself (the usual way)
    scripts/score_realworld.py --oomlint /tmp/oomlint-7b9370b
    scripts/score_realworld.py --oomlint target/release/oomlint --corpus ~/.cache/oomlint-corpus

    # or score JSON outputs made beforehand, one per corpus folder, named <package>-<version>.json:
    #   cd ~/.cache/oomlint-corpus
    #   oomlint check --isolated --output-format json --exit-zero transformers-5.24.0 > OUT/transformers-5.24.0.json
    scripts/score_realworld.py --json-dir OUT

Options:
    --labels FILE     labels to score against (default testdata/realworld/labels.tsv)
    --corpus DIR      corpus root made by scripts/fetch_corpus.sh
                      (default $OOMLINT_CORPUS or ~/.cache/oomlint-corpus)
    --save-json DIR   with --oomlint: also keep the JSON outputs in DIR
    --sample FILE     the sampler's selection (default testdata/realworld/sample.tsv, made by
                      scripts/sample_realworld.py); used for the stratum-weighted estimate
    --max-false F     exit 1 when more than this fraction of the judged-false
                      findings (FALSE + TINY) of the dev split is still reported (e.g. 0.15)
    --split S         score only this split (dev or heldout); default: both, held-out first
    --packages FILE   every package of the set with its split (default testdata/realworld/packages.tsv);
                      a package with no row yet is still run, so its later findings show as unlabelled

The packages scored are the <package>-<version> pairs that appear in the labels file; each must be a
folder of the corpus (fetch_corpus.sh makes them). A finding is keyed by (package, version, file,
line, code), where file is relative to the corpus folder, i.e. it starts at the package's import root
(transformers/models/llama/modeling_llama.py). Several findings with the same key (two on one line
with the same code) count as one site, as they are labelled once.

Verdicts (see testdata/realworld/README.md):
    TRUE    a reorder/rewrite saves memory in proportion to a realistically large enlargement
    TINY    the pattern is real but the enlarged tensor is small at realistic sizes
    FALSE   no saving is possible (no-op conversion, needed copy, no real enlargement, ...)
    MISSED  a true site the linter did not report when labelled; code = the rule that should fire

Splits: every row has a `split`, `dev` (the packages rules were tuned on) or `heldout` (packages
labelled before a change by an engineer who did not write it, never relabelled to agree with a later
output). Each split is scored on its own; the held-out figures are the ones to report.

Levels: each finding's JSON `level` ("error" or "warning"; a build without levels counts every
finding as an error, as it failed the run on every finding). Per split the scorer prints the
verdicts of the printed errors and of the printed warnings, how many TRUE rows are still printed and
how many of them as errors, and how many FALSE rows are still printed at any level.

Printed, per split:
    findings per package (total and per rule);
    precision per rule = TRUE / (TRUE + TINY + FALSE) among labelled findings still reported;
    how many FALSE and TINY are still reported, and that as a fraction of all judged-false rows
    (the target is at most 15%);
    an estimate of the verdict mix over ALL current findings: per (package, rule) stratum, the mix among
    the randomly sampled (or complete-package) rows still reported, times the stratum's current count
    (the mask-helper rows are left out of it, as they were not drawn at random);
    recall on TRUE + MISSED sites = fraction still reported. A TRUE row counts when its exact key is
    reported; a MISSED row counts when its code is reported on its file and line, or another code is
    that is not itself a labelled row there (a fix may report it under a neighbouring code).
"""
import argparse
import collections
import csv
import json
import os
import subprocess
import sys

VERDICTS = ("TRUE", "TINY", "FALSE", "MISSED")
SPLITS = ("heldout", "dev")
LEVELS = ("error", "warning")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_labels(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t")
        expected = ["package", "version", "file", "line", "code", "verdict", "reason", "split"]
        if reader.fieldnames != expected:
            sys.exit(f"error: {path}: header must be {expected}, got {reader.fieldnames}")
        for n, r in enumerate(reader, start=2):
            if r["verdict"] not in VERDICTS:
                sys.exit(f"error: {path}:{n}: unknown verdict {r['verdict']!r}")
            if r["split"] not in SPLITS:
                sys.exit(f"error: {path}:{n}: split must be one of {SPLITS}, got {r['split']!r}")
            r["line"] = int(r["line"])
            rows.append(r)
    keys = collections.Counter((r["package"], r["version"], r["file"], r["line"], r["code"]) for r in rows)
    dups = [k for k, c in keys.items() if c > 1]
    if dups:
        sys.exit(f"error: {path}: duplicate rows, e.g. {dups[0]}")
    return rows


def read_packages(path):
    """`package  version  split  field  labelled`: every package of the set and its split."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, newline="", encoding="utf-8") as f:
        for n, r in enumerate(csv.DictReader(f, delimiter="\t"), start=2):
            if r.get("split") not in SPLITS:
                sys.exit(f"error: {path}:{n}: split must be one of {SPLITS}, got {r.get('split')!r}")
            out[f"{r['package']}-{r['version']}"] = r["split"]
    return out


def relative_to_folder(filename, folder):
    parts = filename.replace("\\", "/").split("/")
    if folder in parts:
        i = len(parts) - 1 - parts[::-1].index(folder)
        return "/".join(parts[i + 1:])
    return "/".join(parts)


def load_findings(folder, data):
    out = []
    for f in data:
        level = f.get("level", "error")
        out.append((relative_to_folder(f["filename"], folder), f["location"]["row"], f["code"], level))
    return out


def run_oomlint(binary, corpus, folder, save_dir):
    if not os.path.isdir(os.path.join(corpus, folder)):
        sys.exit(f"error: corpus folder {os.path.join(corpus, folder)} missing; run scripts/fetch_corpus.sh")
    proc = subprocess.run(
        [binary, "check", "--isolated", "--output-format", "json", "--exit-zero", folder],
        cwd=corpus, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"error: {binary} failed on {folder} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    if save_dir:
        os.makedirs(save_dir, exist_ok=True)
        with open(os.path.join(save_dir, folder + ".json"), "w", encoding="utf-8") as f:
            f.write(proc.stdout)
    return json.loads(proc.stdout)


def pct(a, b):
    return f"{a / b:.2f}" if b else "  - "


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--oomlint", help="oomlint binary to run over the corpus")
    src.add_argument("--json-dir", help="folder of <package>-<version>.json outputs")
    ap.add_argument("--labels", default=os.path.join(REPO, "testdata", "realworld", "labels.tsv"))
    ap.add_argument("--corpus", default=os.environ.get("OOMLINT_CORPUS", os.path.expanduser("~/.cache/oomlint-corpus")))
    ap.add_argument("--save-json")
    ap.add_argument("--sample", default=os.path.join(REPO, "testdata", "realworld", "sample.tsv"))
    ap.add_argument("--max-false", type=float)
    ap.add_argument("--split", choices=SPLITS)
    ap.add_argument("--packages", default=os.path.join(REPO, "testdata", "realworld", "packages.tsv"))
    args = ap.parse_args()
    # The linter runs inside each corpus folder: a relative path to it must not break.
    if args.oomlint and os.sep in args.oomlint:
        args.oomlint = os.path.abspath(args.oomlint)

    labels = read_labels(args.labels)
    splits = [args.split] if args.split else list(SPLITS)
    labels = [r for r in labels if r["split"] in splits]
    # Every package of the set, also one with no row yet (no finding and no true site when it
    # was labelled): a later finding there must show as unlabelled.
    folder_split = {f: sp for f, sp in read_packages(args.packages).items() if sp in splits}
    for r in labels:
        folder = f"{r['package']}-{r['version']}"
        if folder_split.get(folder, r["split"]) != r["split"]:
            sys.exit(f"error: {args.labels}: {folder} is {r['split']} here but {folder_split.get(folder)} in "
                     f"{args.packages}; a package is wholly dev or held-out")
        folder_split[folder] = r["split"]

    found = {}  # folder -> [(file, line, code, level)]
    for folder in sorted(folder_split):
        if args.oomlint:
            data = run_oomlint(args.oomlint, os.path.abspath(os.path.expanduser(args.corpus)), folder, args.save_json)
        else:
            path = os.path.join(args.json_dir, folder + ".json")
            if not os.path.exists(path):
                sys.exit(f"error: {path} missing")
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        found[folder] = load_findings(folder, data)

    drawn = set()
    if os.path.exists(args.sample):
        with open(args.sample, newline="", encoding="utf-8") as f:
            drawn = {(r["folder"], r["file"], int(r["line"]), r["code"]) for r in csv.DictReader(f, delimiter="\t")
                     if r["selected"] in ("random", "all")}

    status = 0
    for split in splits:
        rows = [r for r in labels if r["split"] == split]
        if not rows:
            continue
        folders = sorted(f for f, sp in folder_split.items() if sp == split)
        print(f"######## split: {split} ({len(folders)} packages, {len(rows)} rows)")
        frac = score_split(rows, {f: found[f] for f in folders}, drawn if split == "dev" else set())
        print()
        if split == "dev" and args.max_false is not None and frac > args.max_false:
            print(f"FAIL: {frac:.1%} of judged-false dev findings still reported (> {args.max_false:.0%})\n")
            status = 1
    return status


def score_split(labels, found, drawn):
    """Prints every table for one split's rows and findings; returns the judged-false fraction."""
    folders = sorted(found)
    reported = set()          # (folder, file, line, code)
    reported_lines = collections.defaultdict(set)    # (folder, file, line) -> codes
    level_of = {}             # (folder, file, line, code) -> "error" if any finding there is one
    per_pkg = {}
    current = collections.Counter()  # (folder, code) -> findings now
    for folder in folders:
        fs = found[folder]
        per_pkg[folder] = (len(fs), collections.Counter(c for _, _, c, _ in fs),
                           collections.Counter(lv for _, _, _, lv in fs))
        for file, line, code, level in fs:
            key = (folder, file, line, code)
            current[(folder, code)] += 1
            reported.add(key)
            reported_lines[(folder, file, line)].add(code)
            if level_of.get(key) != "error":
                level_of[key] = level

    codes = sorted({c for _, cnt, _ in per_pkg.values() for c in cnt} | {r["code"] for r in labels})
    print("== findings per package")
    head = (f"{'package':<38}{'total':>7}{'errors':>8}{'warns':>7}" + "".join(f"{c:>8}" for c in codes)
            + f"{'labelled':>10}")
    print(head)
    labelled_per = collections.Counter(f"{r['package']}-{r['version']}" for r in labels if r["verdict"] != "MISSED")
    tot = collections.Counter()
    tot_lv = collections.Counter()
    for folder in folders:
        n, cnt, lv = per_pkg[folder]
        tot.update(cnt)
        tot_lv.update(lv)
        print(f"{folder:<38}{n:>7}{lv['error']:>8}{lv['warning']:>7}" + "".join(f"{cnt.get(c, 0):>8}" for c in codes)
              + f"{labelled_per[folder]:>10}")
    print(f"{'all':<38}{sum(tot.values()):>7}{tot_lv['error']:>8}{tot_lv['warning']:>7}"
          + "".join(f"{tot.get(c, 0):>8}" for c in codes) + f"{sum(labelled_per.values()):>10}")

    by_rule = collections.defaultdict(collections.Counter)   # code -> verdict -> still reported
    judged = collections.defaultdict(collections.Counter)    # code -> verdict -> labelled
    by_pkg = collections.defaultdict(collections.Counter)    # folder -> verdict -> still reported
    by_level = collections.defaultdict(collections.Counter)  # level -> verdict -> still reported
    labelled_keys = {(f"{r['package']}-{r['version']}", r["file"], r["line"], r["code"]) for r in labels}
    recall_hit = collections.Counter()
    recall_err = collections.Counter()
    recall_all = collections.Counter()
    for r in labels:
        folder = f"{r['package']}-{r['version']}"
        key = (folder, r["file"], r["line"], r["code"])
        v = r["verdict"]
        judged[r["code"]][v] += 1
        if v == "MISSED":
            # the exact code, or another code on that line that is not itself a labelled finding
            line_key = (folder, r["file"], r["line"])
            hits = [(*line_key, c) for c in reported_lines.get(line_key, ())
                    if c == r["code"] or (*line_key, c) not in labelled_keys]
            level = "error" if any(level_of[h] == "error" for h in hits) else ("warning" if hits else None)
        else:
            level = level_of.get(key)
        if level:
            by_rule[r["code"]][v] += 1
            by_pkg[folder][v] += 1
            by_level[level][v] += 1
        if v in ("TRUE", "MISSED"):
            recall_all[v] += 1
            recall_hit[v] += int(level is not None)
            recall_err[v] += int(level == "error")

    print()
    print("== labelled findings still reported, by rule (precision = TRUE / (TRUE+TINY+FALSE))")
    print(f"{'rule':<8}{'TRUE':>8}{'TINY':>8}{'FALSE':>8}{'precision':>11}   {'labelled T/Y/F':>16}")
    all_rep = collections.Counter()
    all_lab = collections.Counter()
    for c in codes:
        rep, lab = by_rule[c], judged[c]
        all_rep.update(rep)
        all_lab.update(lab)
        n = rep["TRUE"] + rep["TINY"] + rep["FALSE"]
        print(f"{c:<8}{rep['TRUE']:>8}{rep['TINY']:>8}{rep['FALSE']:>8}{pct(rep['TRUE'], n):>11}"
              f"   {lab['TRUE']:>6}/{lab['TINY']}/{lab['FALSE']}")
    n = all_rep["TRUE"] + all_rep["TINY"] + all_rep["FALSE"]
    print(f"{'all':<8}{all_rep['TRUE']:>8}{all_rep['TINY']:>8}{all_rep['FALSE']:>8}{pct(all_rep['TRUE'], n):>11}"
          f"   {all_lab['TRUE']:>6}/{all_lab['TINY']}/{all_lab['FALSE']}")

    print()
    print("== labelled findings still reported, by package")
    # "unlabelled": current findings with no label row. Where it is 0 the precision is over a census of
    # the package's findings, not over a sample.
    print(f"{'package':<38}{'TRUE':>8}{'TINY':>8}{'FALSE':>8}{'precision':>11}{'unlabelled':>12}")
    unlabelled_by_level = collections.Counter()
    for folder in folders:
        rep = by_pkg[folder]
        n = rep["TRUE"] + rep["TINY"] + rep["FALSE"]
        unl = [k for k in reported if k[0] == folder and k not in labelled_keys]
        unlabelled_by_level.update(level_of[k] for k in unl)
        print(f"{folder:<38}{rep['TRUE']:>8}{rep['TINY']:>8}{rep['FALSE']:>8}{pct(rep['TRUE'], n):>11}{len(unl):>12}")

    print()
    print("== by level (labelled rows still printed at that level; a MISSED row now reported counts as TRUE)")
    print(f"{'level':<10}{'TRUE':>8}{'TINY':>8}{'FALSE':>8}{'precision':>11}{'unlabelled':>12}")
    for level in LEVELS:
        rep = by_level[level]
        t = rep["TRUE"] + rep["MISSED"]
        n = t + rep["TINY"] + rep["FALSE"]
        print(f"{level:<10}{t:>8}{rep['TINY']:>8}{rep['FALSE']:>8}{pct(t, n):>11}{unlabelled_by_level[level]:>12}")
    t_all, t_hit, t_err = recall_all["TRUE"], recall_hit["TRUE"], recall_err["TRUE"]
    f_all = all_lab["FALSE"]
    print(f"TRUE rows still printed: {t_hit} of {t_all} = {pct(t_hit, t_all)}; as errors: {t_err} = {pct(t_err, t_all)}")
    print(f"FALSE rows still printed at any level: {all_rep['FALSE']} of {f_all} = {pct(all_rep['FALSE'], f_all)}")

    # The bar is about the findings of the first release that were judged false. The rows drawn at
    # random from its output (or every finding of a small package) estimate that without bias; the
    # rows added later (mask helpers, the census of later versions' findings) are all findings that
    # a later version still reported, so counting them too leans the figure towards "still reported".
    judged_false = all_lab["FALSE"] + all_lab["TINY"]
    still_false = all_rep["FALSE"] + all_rep["TINY"]
    frac_all = still_false / judged_false if judged_false else 0.0
    drawn_false = drawn_still = 0
    for r in labels:
        key = (f"{r['package']}-{r['version']}", r["file"], r["line"], r["code"])
        if key in drawn and r["verdict"] in ("FALSE", "TINY"):
            drawn_false += 1
            drawn_still += int(key in reported)
    frac = drawn_still / drawn_false if drawn_false else frac_all
    print()
    print("== judged-false still reported (target: at most 15%)")
    print(f"FALSE still reported: {all_rep['FALSE']} of {all_lab['FALSE']}")
    print(f"TINY  still reported: {all_rep['TINY']} of {all_lab['TINY']}")
    print(f"FALSE+TINY still reported, all labelled rows: {still_false} of {judged_false} = {frac_all:.1%}")
    if drawn_false:
        print(f"FALSE+TINY still reported, first-release draw (random + complete packages): "
              f"{drawn_still} of {drawn_false} = {frac:.1%}  [{'meets' if frac <= 0.15 else 'misses'} the 15% bar]")

    if drawn:
        mix = collections.defaultdict(collections.Counter)
        for r in labels:
            key = (f"{r['package']}-{r['version']}", r["file"], r["line"], r["code"])
            if key in drawn and key in reported and r["verdict"] != "MISSED":
                mix[(key[0], key[3])][r["verdict"]] += 1
        est = collections.Counter()
        unknown = 0
        for stratum, n in current.items():
            m = sum(mix[stratum].values())
            if m == 0:
                unknown += n
                continue
            for v in ("TRUE", "TINY", "FALSE"):
                est[v] += n * mix[stratum][v] / m
        total = sum(current.values())
        if total:
            print()
            print("== estimated verdict mix over all current findings (stratum-weighted)")
            print(f"of {total} findings: TRUE ~{est['TRUE']:.0f} ({est['TRUE'] / total:.1%}), "
                  f"TINY ~{est['TINY']:.0f} ({est['TINY'] / total:.1%}), FALSE ~{est['FALSE']:.0f} ({est['FALSE'] / total:.1%})"
                  + (f"; {unknown} in strata with no labelled finding left" if unknown else ""))

    print()
    print("== recall on true sites (TRUE + MISSED still reported)")
    ra, rh, re_ = sum(recall_all.values()), sum(recall_hit.values()), sum(recall_err.values())
    print(f"TRUE   reported: {recall_hit['TRUE']} of {recall_all['TRUE']}")
    print(f"MISSED reported: {recall_hit['MISSED']} of {recall_all['MISSED']}")
    print(f"recall: {rh} of {ra} = {pct(rh, ra)}; as errors: {re_} = {pct(re_, ra)}")
    return frac


if __name__ == "__main__":
    sys.exit(main())
