#!/usr/bin/env python3
"""Generate src/analysis/torch_ops.tsv: what torch says each public op does.

For every public callable of `torch`, `torch.Tensor`, `torch.nn.functional`, `torch.special` and
`torch.linalg` (and the `torch.nn` modules, by the functional form their `forward` calls), one row:

    namespace  name  kind  dtype  functional  dim_at

kind: pointwise_unary | pointwise_binary | view | reduction | copy | shape_preserving |
      resampling | indexing | factory | contraction | in_place | other | unknown
dtype (of the result): same | promoted | bool | int64 | float | arg | unknown

Where the facts come from:
  * the wheel's packaged native_functions.yaml / tags.yaml: the `pointwise` and `reduction` tags,
    views (a non-mutating `Tensor(a)` return aliasing `self`), `dynamic_output_shape` (indexing:
    nonzero, masked_select, unique), factories (no Tensor argument, a Tensor result);
  * the Python surface: `torch.overrides.get_testing_overrides()` and the namespaces' public names;
  * a probe on tiny CPU tensors for the result dtype (float32 and int64 inputs; float16 with
    float32 for promotion) and for whether the result keeps the input's shape;
  * scripts/torch_ops_hand.tsv, only where torch has no metadata (each row says why).

Usage (needs only PyPI; makes a venv outside the repository, reused on later runs):
    python3 scripts/gen_torch_ops.py [--venv /tmp/oomlint-torch-ops]
"""

import argparse
import inspect
import os
import re
import signal
import subprocess
import sys
import warnings
from pathlib import Path

TORCH_PIN = "2.15.0"
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "analysis" / "torch_ops.tsv"
HAND = ROOT / "scripts" / "torch_ops_hand.tsv"
# Requirements of the wheel that `import torch` does not need on CPU (triton: the GPU compiler).
SKIP_DEPS = ("triton", "cuda-bindings", "optree", "opt-einsum", "pyyaml")


def ensure_venv(venv: Path) -> Path:
    """A venv with the pinned torch wheel: `--no-deps` first (the wheel is large), then the
    requirements its METADATA lists, less those `import torch` does not need."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    ok = subprocess.run([str(python), "-c", f"import torch; assert torch.__version__.startswith('{TORCH_PIN}')"],
                        capture_output=True)
    if ok.returncode == 0:
        return python
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run(pip + ["--no-deps", f"torch=={TORCH_PIN}", "pyyaml"], check=True)
    meta = next((venv / "lib").glob("python*/site-packages/torch-*.dist-info/METADATA"))
    deps = []
    for line in meta.read_text().splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        spec = line.split(":", 1)[1].strip()
        if "extra ==" in spec:
            continue
        req = spec.split(";")[0].strip()
        if req.split("[")[0].split("=")[0].split("<")[0].split(">")[0].split("~")[0].strip() in SKIP_DEPS:
            continue
        deps.append(req)
    subprocess.run(pip + deps, check=True)
    return python


# --- native_functions.yaml ---------------------------------------------------------------------

def parse_schema(func: str):
    """`name.overload(args) -> returns`: (name, overload, [(type, name, kwarg_only)], returns)."""
    head, returns = func.rsplit(") -> ", 1)
    sig_name, args = head.split("(", 1)
    name, _, overload = sig_name.partition(".")
    out, kw_only = [], False
    depth, cur = 0, ""
    for ch in args + ",":
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            part = cur.strip()
            cur = ""
            if not part:
                continue
            if part == "*":
                kw_only = True
                continue
            part = part.split("=")[0].strip()
            typ, _, pname = part.rpartition(" ")
            out.append((typ, pname, kw_only))
        else:
            cur += ch
    return name, overload, out, returns.strip()


def native_facts(yaml_path: Path):
    import yaml

    entries = yaml.safe_load(yaml_path.read_text())
    facts = {}
    for e in entries:
        name, overload, args, returns = parse_schema(e["func"])
        tags = e.get("tags") or []
        if isinstance(tags, str):
            tags = [tags]
        mutating = "!" in e["func"]
        if mutating or name.endswith("_") or "out" in overload:
            continue
        f = facts.setdefault(name, {"pointwise": False, "reduction": False, "view": False, "dynamic": False,
                                    "factory": True, "max_tensors": 0, "dtype_arg": False})
        tensors = [a for a in args if a[0].startswith("Tensor") and not a[2]]
        f["max_tensors"] = max(f["max_tensors"], len(tensors))
        if any(a[0].startswith("Tensor") for a in args):
            f["factory"] = False
        if not returns.startswith("Tensor") and not returns.startswith("("):
            f["factory"] = False
        f["pointwise"] |= "pointwise" in tags
        f["reduction"] |= "reduction" in tags
        f["dynamic"] |= "dynamic_output_shape" in tags
        f["seeded"] = f.get("seeded", False) or "nondeterministic_seeded" in tags
        f["view"] |= bool(re.match(r"Tensor\([a-z]\)", returns)) and "view_copy" not in tags
        f["dtype_arg"] |= any(a[1] == "dtype" for a in args)
        positional = [a[1] for a in args if not a[2]]
        if "dim" in positional and f.get("dim_at") is None:
            f["dim_at"] = positional.index("dim")
    return facts


# --- the Python surface -------------------------------------------------------------------------

def public_names(torch):
    import torch.nn.functional as F

    spaces = {
        "torch": torch,
        "Tensor": torch.Tensor,
        "torch.nn.functional": F,
        "torch.special": torch.special,
        "torch.linalg": torch.linalg,
    }
    overridable = torch.overrides.get_testing_overrides()
    by_id = {}
    for fn in overridable:
        by_id.setdefault(id(fn), fn)
    names = {}
    for ns, mod in spaces.items():
        for name in dir(mod):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(mod, name)
            except Exception:
                continue
            if inspect.ismodule(obj) or not callable(obj):
                continue
            if ns != "Tensor" and isinstance(obj, type):
                continue
            names[(ns, name)] = obj
    # Overridable functions reached through the namespaces under another name are covered above;
    # this keeps the count honest when a namespace hides one.
    for fn in overridable:
        qual = getattr(fn, "__qualname__", "") or getattr(fn, "__name__", "")
        if qual.startswith("TensorBase.") or qual.startswith("Tensor."):
            names.setdefault(("Tensor", qual.split(".", 1)[1]), fn)
    return {k: v for k, v in names.items() if not k[1].startswith("_")}


def aten_name(ns: str, name: str) -> str:
    return {"torch.special": f"special_{name}", "torch.linalg": f"linalg_{name}"}.get(ns, name)


# --- the probe ----------------------------------------------------------------------------------

class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout()


# Functions whose probe would do something other than compute (state, I/O, threads, compilers).
NO_PROBE = re.compile(r"^(manual_seed|seed|set_|save|load|compile|use_deterministic|cuda|backends|"
                      r"autograd|jit|export|from_file|set|get_|is_|sym_|vmap|cond|while_loop|"
                      r"profiler|random|fork|wait|chunk_|empty_cache|hub|register|library|"
                      r"can_cast|promote_types|result_type|typename|numel|split_with|unravel|"
                      r"record|share_memory|storage|untyped|data_ptr|backward|retain|register_)")


def same_values(torch, a, b, unknown=True):
    """Equal tensors; `unknown` when `equal` cannot compare them (complex half)."""
    try:
        return b is not None and a.shape == b.shape and bool(torch.equal(a, b))
    except Exception:
        return unknown


def probe(torch, ns, name, obj):
    """(dtype class, shape class) from calls on tiny tensors, or (None, None)."""
    if NO_PROBE.match(name):
        return None, None
    xf = torch.rand(2, 3) * 0.8 + 0.1
    xi = torch.arange(6).reshape(2, 3)
    xh = xf.half()

    def call(*args):
        if ns == "Tensor":
            return getattr(args[0], name)(*args[1:])
        return obj(*args)

    def attempt(*args, seed=0):
        # Fresh inputs each call: an in-place op must not change what the next call sees; a
        # fixed seed per call keeps the table the same from run to run.
        args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
        torch.manual_seed(seed)
        signal.alarm(2)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = call(*args)
            if isinstance(out, tuple) and out and isinstance(out[0], torch.Tensor):
                out = out[0]  # `values, indices = x.topk(k)`: the values
            return out if isinstance(out, torch.Tensor) else None
        except Exception:
            return None
        finally:
            signal.alarm(0)

    patterns = [lambda x: (x,), lambda x: (x, x), lambda x: (x, -1), lambda x: (x, 1), lambda x: (x, [3])]
    for make in patterns:
        out_f = attempt(*make(xf))
        out_i = attempt(*make(xi))
        again = attempt(*make(xf), seed=1) if out_f is not None else None
        if out_f is not None and not same_values(torch, out_f, again):
            return "random", None  # not the same values twice (dropout, gumbel_softmax): no reorder
        # Values not read (`zeros_like(x)`): a factory shaped like its one tensor input.
        one_tensor = sum(isinstance(a, torch.Tensor) for a in make(xf)) == 1
        other = attempt(*make(xf.flip(-1) * 3 + 1)) if out_f is not None and one_tensor else None
        like = other is not None and tuple(out_f.shape) == (2, 3) and same_values(torch, out_f, other, False)
        if out_f is None and out_i is not None and out_i.dtype == torch.int64:
            # Integer-only (bitwise ops): the result keeps the integer dtype.
            return "same", "same" if tuple(out_i.shape) == (2, 3) else "other"
        if out_f is None:
            continue
        shape = "same" if tuple(out_f.shape) == (2, 3) else ("smaller" if out_f.numel() < 6 else "other")
        if like:
            shape = "like"
        d = out_f.dtype
        if d == torch.bool:
            dtype = "bool"
        elif d == torch.int64:
            dtype = "int64"
        elif d == torch.float32:
            if out_i is not None and out_i.dtype == torch.float32:
                dtype = "float"
            else:
                dtype = "same"
                if len(make(xf)) == 2 and isinstance(make(xf)[1], torch.Tensor):
                    mixed = attempt(xh, xf)
                    if mixed is not None and mixed.dtype == torch.float32:
                        dtype = "promoted"
        else:
            dtype = "unknown"
        return dtype, shape
    return None, None


# --- modules --------------------------------------------------------------------------------

def module_rows(torch, rows):
    """`nn.X` modules whose `forward` calls one `F.y` (or `torch.y`): they act as that function."""
    out = []
    for name in dir(torch.nn):
        cls = getattr(torch.nn, name)
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)) or name.startswith("_"):
            continue
        calls = []
        for meth in ("forward", "_conv_forward"):
            fn = getattr(cls, meth, None)
            if fn is None:
                continue
            try:
                src = inspect.getsource(fn)
            except (OSError, TypeError):
                continue
            calls += re.findall(r"\bF\.(\w+)\(", src)
            calls += [("torch", c) for c in re.findall(r"\btorch\.(\w+)\(", src)]
        fs = [c for c in calls if isinstance(c, str)]
        # A convolution's `_conv_forward` also pads for `padding_mode`: the contraction is the op.
        contractions = [c for c in fs if rows.get(("torch.nn.functional", c), ("",))[0] == "contraction"]
        if contractions:
            fs = contractions[:1]
        if len(set(fs)) == 1:
            kind, dtype, _ = rows.get(("torch.nn.functional", fs[0]), ("unknown", "unknown", ""))
            out.append(("torch.nn", name, kind, dtype, f"F.{fs[0]}"))
        else:
            out.append(("torch.nn", name, "unknown", "unknown", ""))
    return out


def signature_dim(ns, obj):
    """Where `dim` sits in a Python signature (the tensor input at 0), when it has one."""
    try:
        params = list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return None
    if "dim" not in params:
        return None
    return str(params.index("dim") + (1 if ns == "Tensor" and params[:1] != ["self"] else 0))


def classify(torch, native, names, hand):
    rows = {}
    for (ns, name), obj in sorted(names.items()):
        if (ns, name) in hand:
            rows[(ns, name)] = hand[(ns, name)] + (signature_dim(ns, obj) or "",)
            continue
        f = native.get(aten_name(ns, name)) or native.get(name)
        # `torch.negative`, `Tensor.multiply`: documented aliases take their target's facts.
        alias = re.search(r"Alias for :(?:func|meth):`(?:torch\.)?(?:Tensor\.)?(\w+)", getattr(obj, "__doc__", None) or "")
        if alias and native.get(alias.group(1)):
            f = native[alias.group(1)]
        dtype, shape = probe(torch, ns, name, obj)
        if name.endswith("_") and not name.endswith("__"):
            kind = "in_place"
        elif dtype == "random":
            kind, dtype = "other", "same"
        elif f and f["view"]:
            kind = "view"
        elif f and f["pointwise"]:
            kind = "pointwise_binary" if f["max_tensors"] >= 2 else "pointwise_unary"
        elif f and f["reduction"]:
            kind = "reduction"
        elif f and f["dynamic"]:
            kind = "indexing"
        elif f and f["factory"]:
            kind = "factory"
        elif f and f["seeded"]:
            kind = "other"  # random per element (dropout): not the same values when reordered
        elif shape == "like":
            kind = "factory"
        elif shape == "same":
            kind = "shape_preserving"
        elif shape == "smaller":
            kind = "reduction"
        elif f or dtype:
            kind = "other"
        else:
            kind = "unknown"
        if kind in ("view", "in_place"):
            dtype = "same"  # a view or an in-place write keeps the tensor's dtype
        if kind == "factory":
            dtype = "arg" if f and f["dtype_arg"] else (dtype or "unknown")
        dim_at = signature_dim(ns, obj) or (f.get("dim_at") if f else None)
        rows[(ns, name)] = (kind, dtype or "unknown", "" if dim_at is None else str(dim_at))
    # A method documented as the function (`Tensor.negative`: "See torch.negative") where only the
    # function resolves its alias: the function's kind.
    for (ns, name), (kind, dtype, dim_at) in list(rows.items()):
        fn = rows.get(("torch", name))
        if ns == "Tensor" and kind in ("shape_preserving", "other", "unknown") and fn and fn[0].startswith("pointwise"):
            rows[(ns, name)] = (fn[0], dtype, dim_at)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", default="/tmp/oomlint-torch-ops")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.inner:
        python = ensure_venv(Path(args.venv))
        sys.exit(subprocess.run([str(python), __file__, "--inner"]).returncode)

    signal.signal(signal.SIGALRM, _alarm)
    import torch
    import torchgen

    packaged = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
    native = native_facts(packaged / "native_functions.yaml")
    hand = {}
    for line in HAND.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        ns, name, kind, dtype, _why = line.split("\t")
        hand[(ns, name)] = (kind, dtype)
    names = public_names(torch)
    rows = classify(torch, native, names, hand)
    mods = module_rows(torch, rows)
    lines = [
        f"# Generated by scripts/gen_torch_ops.py from torch {torch.__version__} "
        f"(native_functions.yaml tags, torch.overrides, a CPU probe) and scripts/torch_ops_hand.tsv.",
        "# Do not edit: change the hand file and run the script again.",
        "# namespace\tname\tkind\tdtype\tfunctional\tdim_at (position of `dim`, the tensor input at 0)",
    ]
    for (ns, name), (kind, dtype, dim_at) in sorted(rows.items()):
        lines.append(f"{ns}\t{name}\t{kind}\t{dtype}\t\t{dim_at}")
    for ns, name, kind, dtype, via in sorted(mods):
        lines.append(f"{ns}\t{name}\t{kind}\t{dtype}\t{via}\t")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rows) + len(mods)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
