#!/usr/bin/env python3
"""Validates notebooks against the nbformat 4 schema (run by hand; needs the `nbformat` package).

    python3 scripts/validate_notebooks.py testdata/notebooks/*.ipynb
    python3 scripts/validate_notebooks.py --fixed testdata/notebooks

With --fixed, each notebook is first copied to a temporary folder and fixed there with
`oomlint check --fix --unsafe-fixes` (the binary from --oomlint, default target/debug/oomlint);
the written notebook must validate too, and every field but the code cells' `source` must be
unchanged. Exit status 1 when any notebook fails.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import nbformat
except ImportError:
    sys.exit("needs the nbformat package (pip install nbformat in a venv)")


def notebooks(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(".ipynb"):
                        yield os.path.join(root, f)
        else:
            yield p


def validate(path):
    """The notebook as plain JSON, after checking it against the nbformat 4 schema (nbformat may
    repair what it reads, such as duplicate cell ids, so the comparison uses the plain JSON)."""
    with open(path, encoding="utf-8") as f:
        nb = nbformat.read(f, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb, version=4)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def without_code_sources(nb):
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["source"] = None
    return nb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--fixed", action="store_true")
    ap.add_argument("--oomlint", default="target/debug/oomlint")
    args = ap.parse_args()
    failed = 0
    for path in notebooks(args.paths):
        try:
            before = validate(path)
            if args.fixed:
                with tempfile.TemporaryDirectory() as tmp:
                    copy = os.path.join(tmp, os.path.basename(path))
                    shutil.copy(path, copy)
                    subprocess.run(
                        [os.path.abspath(args.oomlint), "check", "--isolated", "--fix",
                         "--unsafe-fixes", "--exit-zero", "--output-format", "concise", copy],
                        check=True, capture_output=True,
                    )
                    after = validate(copy)
                    if without_code_sources(before) != without_code_sources(after):
                        raise ValueError("a field other than a code cell's source changed")
            print(f"ok      {path}")
        except Exception as e:  # noqa: BLE001 - report every failure, one line each
            failed += 1
            print(f"FAILED  {path}: {type(e).__name__}: {str(e).splitlines()[0]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
