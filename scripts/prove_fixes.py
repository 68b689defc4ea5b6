#!/usr/bin/env python3
"""Proof that oomlint's fixes keep the values and drop the memory.

For every fix fixture in testdata/fixes (FILE.py, the FILE.py.fixed of `--fix` and the FILE.py.unsafe-fixed of
`--fix --unsafe-fixes`, checked by tests/it/fix.rs), this runs each function of
the original and of the fixed file on the same random inputs with torch and checks that the outputs
are bitwise equal (same values, dtype and shape). Then, for the seed case (expand then `.bool()`), it
runs the original and the fixed version at batch sizes 1, 2 and 3 in fresh subprocesses and reports
the peak resident memory of each (ru_maxrss), so the allocation the fix removes is measured.

Needs torch (CPU is enough); not run in CI:
    python3 -m venv ~/.cache/oomlint-torch && ~/.cache/oomlint-torch/bin/pip install torch
    ~/.cache/oomlint-torch/bin/python scripts/prove_fixes.py
"""

import importlib.util
import json
import pathlib
import resource
import subprocess
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXES = ROOT / "testdata" / "fixes"


def load(path, name):
    # The fixed files end in `.unsafe-fixed`: load them by path whatever the extension.
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def mask(b, s, dtype=torch.int64):
    return torch.randint(0, 2, (b, s)).to(dtype)


# Inputs per function: (args builder) -> tuple of arguments. b=batch, h=heads, s=sequence.
B, H, S = 2, 3, 5
CASES = {
    ("seed", "Attention.forward"): lambda: (torch.randn(B, 4, S, S), mask(B, S)[:, None, None, :], B, S),
    ("same_chain", "expand_mask"): lambda: (mask(B, S), torch.float16, S),
    ("same_chain", "multiline"): lambda: (torch.randn(B, H, S, S), mask(B, S)[:, None, None, :], B, H, S),
    ("same_chain", "token_embeds"): lambda: (torch.arange(S), B, S),
    ("same_chain", "repeated"): lambda: (torch.randint(0, 9, (1, S)), 3),
    ("fold", "fold_same_name"): lambda: (torch.randn(B, H, S, S), mask(B, S), B, H, S),
    ("fold", "fold_other_name"): lambda: (torch.randn(B, S, S).half(), torch.randn(B, S), B, S),
    ("unsafe_only", "to_device"): lambda: (torch.randn(B, S, S), torch.randn(B, S).numpy(), B, S, "cpu"),
    ("unsafe_only", "returned"): lambda: (torch.randn(B, S), B, S),
    ("unsafe_only", "guessed_dtype"): lambda: (torch.randn(B, S, S), mask(B, S), B, S, torch.float64),
    ("elementwise", "expand_mask"): lambda: (mask(B, S), torch.float32, S),
    ("elementwise", "inline"): lambda: (torch.randn(B, S, S), torch.randn(B, S), B, S),
    ("elementwise", "inverted"): lambda: (torch.randn(B, S, S), mask(B, S, torch.bool), B, S),
    ("elementwise", "parenthesized"): lambda: (torch.randn(B, S, S), mask(1, S)[0], mask(1, S)[0], B, S),
    ("crlf", "f"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("through_views", "through_views"): lambda: (torch.randn(B, H, S, S), mask(B, S), B, H, S),
    ("through_views", "same_name_views"): lambda: (torch.randn(B, H, S, S), mask(B, S), B, H, S),
    ("through_views", "view_with_dtype_is_refused"): lambda: (torch.randn(B, S, S), mask(B, S, torch.float32), B, S),
    ("through_views", "intermediate_read_later"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("refused", "used_between"): lambda: (torch.randn(B, H, S, S), mask(B, S)[:, None, None, :], B, H, S),
    ("refused", "intermediate_used_later"): lambda: (torch.randn(B, S, S), torch.randn(B, S), B, S),
    ("refused", "not_a_method_enlarger"): lambda: (torch.randn(B, S, S), torch.randn(S), (B, S, S)),
    ("chain", "expand_mask"): lambda: (mask(B, S), torch.float16, S),
    ("chain", "expand_mask_then_scale"): lambda: (mask(B, S), torch.float32, S),
    ("chain", "bool_then_invert"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "bool_then_invert_new_name"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "sub_then_scale"): lambda: (torch.randn(B, 1, S, S), mask(B, S), B, S, torch.float32),
    ("chain", "in_one_expression"): lambda: (torch.randn(B, 1, S, S), mask(B, S), B, S),
    ("chain", "fill_with_its_own_test"): lambda: (torch.randn(B, S, S), mask(B, S), B, S, torch.float64),
    ("chain", "returned_after_invert"): lambda: (mask(B, S), B, S),
    ("chain", "intermediate_read_later"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "size_rebound_in_between"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "other_tensor_operand"): lambda: (torch.randn(B, S, S), mask(B, S), mask(B, S, torch.bool)[:, :, None], B, S),
    ("chain", "passed_to_a_call"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "moved_to_a_device"): lambda: (torch.randn(B, S, S), mask(B, S), B, S, "cpu"),
    ("chain", "Layer.forward"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
    ("chain", "in_a_loop"): lambda: (torch.randn(B, S, S), [mask(B, S), mask(B, S)], B, S),
    ("chain", "same_name_throughout"): lambda: (torch.randn(B, S, S), mask(B, S), B, S),
}


def resolve(module, dotted):
    obj = module
    parts = dotted.split(".")
    for part in parts:
        obj = getattr(obj, part)
    if len(parts) == 2:
        # A method: bind it to an instance with the attribute the seed reads.
        cls = getattr(module, parts[0])
        inst = cls.__new__(cls)
        torch.nn.Module.__init__(inst)
        inst.num_attention_heads = 4
        return getattr(inst, parts[1])
    return obj


def same(a, b, layout=False):
    """Same values, dtype and shape; with `layout`, also the same strides (a safe fix must not
    turn a value its callers see into a broadcast view)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y, layout) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return (
            isinstance(b, torch.Tensor)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and torch.equal(a, b)
            and (not layout or a.stride() == b.stride())
        )
    return a == b


def check_equivalence():
    failures = 0
    checked = 0
    # The safe fixes (`.fixed`) must also keep the returned layout; unsafe ones may return a view.
    for suffix, layout in (("fixed", True), ("unsafe-fixed", False)):
        for stem, func in sorted(CASES):
            src = FIXES / f"{stem}.py"
            fixed = FIXES / f"{stem}.py.{suffix}"
            before = load(src, f"before_{stem}")
            after = load(fixed, f"after_{stem}_{suffix.replace('-', '_')}")
            for seed in range(5):
                torch.manual_seed(seed)
                args = CASES[(stem, func)]()
                out_before = resolve(before, func)(*args)
                out_after = resolve(after, func)(*args)
                checked += 1
                if not same(out_before, out_after, layout):
                    failures += 1
                    print(f"MISMATCH {stem}.{func} ({suffix}, seed {seed})")
    print(
        f"equivalence: {checked - failures}/{checked} runs equal over {len(CASES)} functions "
        "(.fixed: values, dtype, shape and strides; .unsafe-fixed: values, dtype and shape)"
    )
    return failures == 0


SEED_PROGRAM = """
import resource, sys, torch
variant, bs = sys.argv[1], int(sys.argv[2])
heads, seq = 24, 2048
attn_mask = torch.randint(0, 2, (bs, 1, 1, seq))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if variant == "before":
    m = attn_mask.expand(bs, heads, seq, -1)
    m = m.bool()
else:
    m = attn_mask.bool()
    m = m.expand(bs, heads, seq, -1)
# A read that broadcasts, as attention does with its mask.
total = int(m[..., :8].sum())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((peak - base) * 1024)
"""


def measure_seed():
    rows = []
    for bs in (1, 2, 3):
        row = {"batch_size": bs}
        for variant in ("before", "after"):
            out = subprocess.run(
                [sys.executable, "-c", SEED_PROGRAM, variant, str(bs)],
                check=True,
                capture_output=True,
                text=True,
            )
            row[variant] = int(out.stdout.strip())
        row["expected_bool_bytes"] = bs * 24 * 2048 * 2048
        rows.append(row)
        print(
            f"seed bs={bs}: peak RSS growth before fix {row['before'] / 2**20:8.1f} MiB, "
            f"after fix {row['after'] / 2**20:8.1f} MiB "
            f"(the cast's bool tensor is {row['expected_bool_bytes'] / 2**20:.1f} MiB)"
        )
    return rows


def main():
    ok = check_equivalence()
    rows = measure_seed()
    json.dump({"equivalent": ok, "seed_peak_rss": rows}, sys.stdout)
    print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
