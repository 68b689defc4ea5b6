#!/usr/bin/env python3
"""Makes a large torch.profiler Chrome trace from a real one by repeating its steps.

Usage: make_big_trace.py SOURCE.trace.json OUT.json TARGET_MB
Each copy of the source's events is shifted in time by the source's span and gets fresh ids
(`Python id`, `Python parent id`, `External id`, `Addr`), so allocations still join to their ops and
stacks as in the source. Used by scripts/bench_trace.sh for the trace reader's throughput.
"""

import json
import sys


def main():
    src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(src) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + e.get("dur", 0) for e in timed)
    span = end - start + 1.0
    head = {k: v for k, v in trace.items() if k != "traceEvents"}
    target = target_mb * 1024 * 1024
    with open(out, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        written = 0
        copy = 0
        first = True
        while written < target:
            shift = copy * span
            id_shift = copy * 10_000_000
            for e in events:
                if e.get("ph") == "M" and copy > 0:
                    continue
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = e2["ts"] + shift
                args = e2.get("args")
                if isinstance(args, dict):
                    args = dict(args)
                    for key in ("Python id", "Python parent id", "External id", "Ev Idx", "Record function id"):
                        if isinstance(args.get(key), int):
                            args[key] = args[key] + id_shift
                    if isinstance(args.get("Addr"), int):
                        args["Addr"] = args["Addr"] + copy * (1 << 40)
                    e2["args"] = args
                line = json.dumps(e2)
                f.write(("" if first else ",\n") + line)
                first = False
                written += len(line) + 2
            copy += 1
        f.write("\n]}\n")
    print(f"{out}: {copy} copies of {len(events)} events")


if __name__ == "__main__":
    main()
