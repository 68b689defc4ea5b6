#!/usr/bin/env python3
"""Writes the large hostile inputs of issue 6 into a folder, for scripts/hostile_limits.sh.

Usage: make_hostile_inputs.py OUT_DIR [--small]

Small hostile inputs live in the test suite (tests/it/hostile*.rs); these are the ones too big to
commit or to build in `cargo test`: a 10 MB source file, a 100,000-line function, a 200,000-deep
expression, a torch.profiler trace with 10 million events, a 1 GB log with no OOM line, a 64 MB log
with no newline at all, snapshot pickles built to blow up (shared-reference amplification, deep
nesting, a list inside itself, a long run of MARKs), and an Ascend folder whose CSV has stray quotes.
`--small` divides the sizes by 100 (a quick check of the script itself).
Only the Python standard library is needed.
"""

import gzip
import os
import shutil
import struct
import sys

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "samples")

MODEL = '''

class Block{i}(nn.Module):
    def forward(self, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
'''


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def sources(out, scale):
    parts = ["import torch\nfrom torch import nn\n"]
    size = 0
    i = 0
    while size < 10_000_000 // scale:
        block = MODEL.format(i=i)
        parts.append(block)
        size += len(block)
        i += 1
    write(os.path.join(out, "src_10mb.py"), "".join(parts))

    lines = ["import torch\n\n\ndef long_function(attn_mask, b, h, s):\n"]
    for k in range(100_000 // scale):
        lines.append(f"    v{k} = attn_mask.sum() + {k}\n")
    lines.append("    attn_mask = attn_mask.expand(b, h, s, -1)\n")
    lines.append("    return attn_mask.float()\n")
    write(os.path.join(out, "long_function.py"), "".join(lines))

    depth = 200_000 // scale
    write(os.path.join(out, "deep_expr.py"), "x = " + "(" * depth + "1" + ")" * depth + "\n")
    write(os.path.join(out, "deep_calls.py"), "x = " + "f(" * depth + "1" + ")" * depth + "\n")
    write(os.path.join(out, "binary.py"), os.urandom(1_000_000 // scale))


def trace_10m_events(out, scale):
    """5 events a step (python_function, two cpu_ops, alloc and free), 2 million steps."""
    steps = 2_000_000 // scale
    path = os.path.join(out, "trace_10m_events.json")
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "baseTimeNanoseconds": 1790857026000000000, '
                '"profile_memory": 1, "with_stack": 1, "traceEvents": [\n')
        f.write('{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}}')
        chunk = []
        for k in range(steps):
            ts = 1000 + k * 10
            chunk.append(
                f',\n{{"ph":"X","cat":"python_function","name":"model.py(35): forward","pid":1,"tid":1,'
                f'"ts":{ts},"dur":9,"args":{{"Python id":{k + 1},"Python parent id":0}}}}'
                f',\n{{"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":1,"ts":{ts + 1},"dur":3,'
                f'"args":{{"Input Dims":[[{k % 7 + 1},24,64,64]],"Input type":["long int"]}}}}'
                f',\n{{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,'
                f'"ts":{ts + 2},"args":{{"Bytes":{4096 * (k % 13 + 1)},"Total Allocated":{4096 * (k % 13 + 1)},'
                f'"Total Reserved":0,"Device Id":-1,"Device Type":0,"Addr":{k * 8192}}}}}'
                f',\n{{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":{ts + 5},"dur":2,"args":{{}}}}'
                f',\n{{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,'
                f'"ts":{ts + 8},"args":{{"Bytes":-{4096 * (k % 13 + 1)},"Total Allocated":0,'
                f'"Total Reserved":0,"Device Id":-1,"Device Type":0,"Addr":{k * 8192}}}}}'
            )
            if len(chunk) == 10_000:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
        f.write("\n]}\n")


def traces_broken(out):
    real = os.path.join(SAMPLES, "torch-cpu", "expand_then_cast_bs2.trace.json")
    with open(real, "rb") as f:
        data = f.read()
    write(os.path.join(out, "trace_truncated.json"), data[: len(data) // 2])
    gz = gzip.compress(data)
    write(os.path.join(out, "trace_corrupt.json.gz"), gz[:64] + bytes(b ^ 0x5A for b in gz[64:4096]) + gz[4096:])


def logs(out, scale):
    line = (b"[2026-11-29 11:00:00,000] INFO step 12345 | loss 2.3456 | lr 1.0e-04 | "
            b"grad_norm 0.987 | tokens/s 123456 | mem 13.22 GiB allocated, 20.05 GiB reserved\n")
    block = line * (1 << 20 // len(line) + 1)
    target = (1 << 30) // scale
    with open(os.path.join(out, "log_1gb_no_oom.log"), "wb") as f:
        written = 0
        while written < target:
            f.write(block)
            written += len(block)
    with open(os.path.join(out, "log_64mb_one_line.log"), "wb") as f:
        chunk = b"x" * (1 << 20)
        for _ in range(64 // min(scale, 64)):
            f.write(chunk)


# --- pickles (protocol 2 opcodes, written by hand so nothing is ever executed) ---

PROTO = b"\x80\x02"
STOP = b"."
EMPTY_DICT = b"}"
EMPTY_LIST = b"]"
MARK = b"("
SETITEMS = b"u"
APPEND = b"a"
APPENDS = b"e"


def s(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def i(n):
    return b"J" + struct.pack("<i", n)


def put(k):
    return b"r" + struct.pack("<I", k)


def get(k):
    return b"j" + struct.pack("<I", k)


def snapshot_amplified(out, scale):
    """One segment dict with a million references to one block, referenced a million times:
    4 MB of pickle that names 10^12 blocks."""
    n = 1_000_000 // scale
    parts = [PROTO]
    # memo 0: a block dict
    parts += [EMPTY_DICT, put(0), MARK, s("size"), i(1 << 20), s("requested_size"), i(1 << 20),
              s("state"), s("active_allocated"), s("address"), i(4096), s("frames"), EMPTY_LIST,
              SETITEMS]
    # memo 1: the blocks list, n references to block 0
    parts += [EMPTY_LIST, put(1), MARK]
    parts += [get(0)] * n
    parts += [APPENDS]
    parts.append(b"0")  # POP the blocks list; it stays in the memo
    # memo 2: a segment
    parts += [EMPTY_DICT, put(2), MARK, s("device"), i(0), s("address"), i(4096),
              s("total_size"), i(1 << 30), s("allocated_size"), i(1 << 30), s("segment_type"),
              s("large"), s("blocks"), get(1), SETITEMS]
    parts.append(b"0")
    # root {"segments": [segment] * n, "device_traces": []}
    parts += [EMPTY_DICT, MARK, s("segments"), EMPTY_LIST, MARK]
    parts += [get(2)] * n
    parts += [APPENDS, s("device_traces"), EMPTY_LIST, SETITEMS, STOP]
    write(os.path.join(out, "snapshot_amplified.pickle"), b"".join(parts))


def snapshot_wide(out, scale):
    """A root dict of a million distinct keys (quadratic if keys were searched linearly), and a
    block dict of 100,000 keys referenced 100,000 times (each lookup in it is linear)."""
    n = 1_000_000 // scale
    parts = [PROTO, EMPTY_DICT, MARK]
    for k in range(n):
        parts += [i(k), i(k)]
    parts += [s("segments"), EMPTY_LIST, SETITEMS, STOP]
    write(os.path.join(out, "snapshot_wide_root.pickle"), b"".join(parts))

    m = 100_000 // scale
    parts = [PROTO, EMPTY_DICT, put(0), MARK]
    for k in range(m):
        parts += [i(k), i(k)]
    parts += [s("size"), i(4096), s("state"), s("active_allocated"), SETITEMS, b"0"]
    parts += [EMPTY_DICT, MARK, s("segments"), EMPTY_LIST, EMPTY_DICT, MARK, s("blocks"),
              EMPTY_LIST, MARK]
    parts += [get(0)] * m
    parts += [APPENDS, SETITEMS, APPEND, SETITEMS, STOP]
    write(os.path.join(out, "snapshot_wide_block.pickle"), b"".join(parts))


def snapshot_deep(out, scale):
    """Lists nested a million deep."""
    n = 1_000_000 // scale
    data = PROTO + EMPTY_LIST * n + APPEND * (n - 1) + STOP
    write(os.path.join(out, "snapshot_deep.pickle"), data)


def snapshot_self_ref(out):
    """A list appended to itself (a cycle) as the segments."""
    data = PROTO + EMPTY_DICT + MARK + s("segments") + EMPTY_LIST + put(0) + get(0) + APPEND + SETITEMS + STOP
    write(os.path.join(out, "snapshot_self_ref.pickle"), data)


def snapshot_marks(out, scale):
    """Ten million MARKs and nothing else."""
    write(os.path.join(out, "snapshot_marks.pickle"), PROTO + MARK * (10_000_000 // scale) + STOP)


def not_a_snapshot(out):
    data = PROTO + EMPTY_LIST + MARK + i(1) + i(2) + i(3) + APPENDS + STOP
    write(os.path.join(out, "not_a_snapshot.pickle"), data)


def ascend_quotes(out):
    src = os.path.join(SAMPLES, "ascend", "constructed_bs2_ascend_pt")
    dst = os.path.join(out, "ascend_quotes_pt")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    path = os.path.join(dst, "ASCEND_PROFILER_OUTPUT", "operator_memory.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    # Doubled quotes inside a quoted cell, a quote in the middle of a bare cell, and a quoted cell
    # left open at the end of the file.
    lines[1] = '"aten::""to""",' + lines[1].split(",", 1)[1]
    lines.insert(2, 'aten::"odd"name,1,2,3')
    lines.append('"aten::never_closed,1024,2048')
    write(path, "\n".join(lines) + "\n")


def ascend_large(out, scale):
    """200,000 operators on 4 threads and 200,000 allocation rows: a join that scans every op for
    every row would do 4 * 10^10 comparisons."""
    n = 200_000 // scale
    dst = os.path.join(out, "ascend_large_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(dst, exist_ok=True)
    base = 1766000000000000
    with open(os.path.join(dst, "trace_view.json"), "w") as f:
        f.write('[{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}}')
        for k in range(n):
            tid = 100 + k % 4
            ts = base + (k // 4) * 10
            f.write(
                f',\n{{"ph": "X", "name": "aten::to", "pid": 1, "tid": {tid}, "ts": "{ts}.000", '
                f'"dur": 8.0, "cat": "cpu_op", "args": {{"Input Dims": "2,24,64,64", '
                f'"Input type": "long int", "Call stack": "/workspace/model.py({k % 50 + 1}): forward"}}}}'
            )
        f.write("]\n")
    with open(os.path.join(dst, "operator_memory.csv"), "w") as f:
        f.write("Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type\n")
        for k in range(n):
            ts = base + (k // 4) * 10 + 3
            f.write(f"aten::to,{64 * (k % 7 + 1)}.0,{ts}.000\t,{ts + 4}.000\t,4.000\t,NPU:0\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    scale = 100 if "--small" in sys.argv[2:] else 1
    os.makedirs(out, exist_ok=True)
    sources(out, scale)
    trace_10m_events(out, scale)
    traces_broken(out)
    logs(out, scale)
    snapshot_amplified(out, scale)
    snapshot_deep(out, scale)
    snapshot_wide(out, scale)
    snapshot_self_ref(out)
    snapshot_marks(out, scale)
    not_a_snapshot(out)
    ascend_quotes(out)
    ascend_large(out, scale)
    for name in sorted(os.listdir(out)):
        p = os.path.join(out, name)
        if os.path.isfile(p):
            print(f"{os.path.getsize(p):>14,}  {name}")
        else:
            print(f"{'(folder)':>14}  {name}")


if __name__ == "__main__":
    main()
