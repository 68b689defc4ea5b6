#!/usr/bin/env python3
"""Records the torch.profiler traces in testdata/profiles/ from testdata/profiles/model/crossattn.py.

Runs the buggy and the fixed cross-attention block on CPU at batch sizes 1 and 2 with
`profile(activities=[CPU], profile_memory=True, record_shapes=True, with_stack=True)` and writes
`crossattn_<variant>_bs<N>.trace.json` (Chrome trace). Needs torch (not in CI):
    ~/.cache/oomlint-torch/bin/python scripts/make_profile_samples.py
The traces are committed; tests/it/profile_own_samples.rs checks what oomlint reads from them.
"""

import pathlib
import sys

import torch
from torch.profiler import ProfilerActivity, profile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "testdata" / "profiles"
sys.path.insert(0, str(OUT / "model"))
from crossattn import BuggyCrossAttention, FixedCrossAttention  # noqa: E402

Q_LEN, K_LEN, HIDDEN = 256, 512, 128


def record(variant, cls, batch):
    torch.manual_seed(0)
    block = cls(hidden=HIDDEN).eval()
    x = torch.randn(batch, Q_LEN, HIDDEN)
    memory = torch.randn(batch, K_LEN, HIDDEN)
    key_padding = torch.ones(batch, K_LEN, dtype=torch.int64)
    with torch.no_grad():
        block(x, memory, key_padding)  # warm-up outside the profiled region
        with profile(
            activities=[ProfilerActivity.CPU],
            profile_memory=True,
            record_shapes=True,
            with_stack=True,
        ) as prof:
            block(x, memory, key_padding)
    path = OUT / f"crossattn_{variant}_bs{batch}.trace.json"
    prof.export_chrome_trace(str(path))
    # Keep paths in the committed files free of this machine's folders.
    text = path.read_text().replace(str(OUT / "model") + "/", "")
    path.write_text(text)
    print(path.relative_to(ROOT), path.stat().st_size, "bytes")


def main():
    print("torch", torch.__version__)
    for batch in (1, 2):
        record("buggy", BuggyCrossAttention, batch)
        record("fixed", FixedCrossAttention, batch)


if __name__ == "__main__":
    main()
