#!/usr/bin/env python3
"""expand_sites.py -- a rough, independent oracle for oomlint's recall review.

Walks a folder of Python files and, with the stdlib ``ast`` module, lists each
broadcast/expansion call

    .expand(  .expand_as(  .broadcast_to(  .repeat(  .repeat_interleave(  .tile(

(method form ``x.expand(...)`` or function form ``torch.tile(x, ...)``) whose
result is then materialised by

    a cast      .bool() .float() .half() .double() .bfloat16() .long() .int()
                .short() .byte() .char() .cfloat() .cdouble() .type(T)
                .type_as(t) .to(...)
    a copy      .contiguous() .clone()
    a move      .cuda() .cpu() .to(device)  (``.to`` is counted once)

either later in the same chain (``m.expand(b, 1, t, s).to(dtype)``, going
through other method calls, indexing and ``.T``/``.mT``) or through simple
``name = ...`` assignments later in the same function (``m = x.expand(..)``
... ``m.float()``; chains of such names are followed, in source order, until
the name is rebound).

Deliberately crude: no type inference. Not followed:
reductions and non-tensor results (``.sum() .size() .shape`` ...), a second
expansion in the chain (that one is reported instead), binary operators,
function arguments, control flow (branches are read as straight-line code
in source order, so an assignment in an ``else`` can carry an ``if``'s value),
attributes (``self.m = ...``), tuple targets, nested
function bodies (each ``def`` is its own scope). Calls whose receiver chain
starts at ``np``/``numpy``/``jnp``/``jax``/``tf``/``itertools`` are skipped
(TF/Flax ports in transformers).

Output: one line per expansion site,
    path:line: snippet  [how]
where line is the line of the expansion's method name (``.expand``) and ``how`` is
``chain .expand -> .float`` or ``flow .expand via m@L12 -> .to@L15`` (all
sinks of a site, ``; ``-separated); then ``#`` lines with counts per
expansion method, per top-level package and per subpackage (first three
dotted levels).
Files that fail to parse are reported on stderr and skipped.

Usage:
    scripts/expand_sites.py DIR [DIR ...] [--relative]
e.g.
    scripts/expand_sites.py ~/.cache/oomlint-corpus/transformers-4.30.2/transformers \
        > ~/.cache/oomlint-corpus/oracle-transformers-4.30.2.txt
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

EXPAND = {"expand", "expand_as", "broadcast_to", "repeat", "repeat_interleave", "tile"}
CASTS = {
    "bool", "float", "half", "double", "bfloat16", "long", "int", "short",
    "byte", "char", "cfloat", "cdouble", "type", "type_as", "to",
}
COPIES = {"contiguous", "clone"}
MOVES = {"cuda", "cpu"}
SINKS = CASTS | COPIES | MOVES
NEEDS_ARGS = {"type", "to", "type_as"}  # x.type() with no argument is a query
STOPS = {
    # reductions and calls that do not return a same-shaped tensor
    "sum", "mean", "max", "min", "amax", "amin", "any", "all", "prod", "norm",
    "item", "tolist", "numel", "size", "dim", "argmax", "argmin", "std", "var",
    "count_nonzero", "logsumexp", "nonzero", "numpy", "element_size",
    "data_ptr", "stride", "storage", "is_contiguous", "nelement",
}
PASS_ATTRS = {"T", "mT", "H", "mH", "data"}
EXCLUDED_ROOTS = {"np", "numpy", "jnp", "jax", "tf", "itertools"}


def root_name(node: ast.AST) -> str | None:
    """Base name of a receiver chain: ``torch`` for ``torch.nn.f(x).y``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return None


def is_expansion(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in EXPAND
        and root_name(node.func.value) not in EXCLUDED_ROOTS
    )


def walk_up(node: ast.AST, parents: dict) -> tuple[str, ast.AST, str | None]:
    """Follow the chain that consumes ``node``'s value.

    Returns (kind, last_node, method): kind is 'sink' (method is the sink,
    last_node its Call), 'stop', or 'end' (last_node is the chain's top)."""
    cur = node
    while True:
        p = parents.get(cur)
        if isinstance(p, ast.Attribute) and p.value is cur:
            gp = parents.get(p)
            if isinstance(gp, ast.Call) and gp.func is p:
                name = p.attr
                if name in SINKS and (name not in NEEDS_ARGS or gp.args or gp.keywords):
                    return "sink", gp, name
                if name in STOPS or name in EXPAND:
                    return "stop", gp, name
                cur = gp
                continue
            if p.attr in PASS_ATTRS:
                cur = p
                continue
            return "stop", p, p.attr
        if isinstance(p, ast.Subscript) and p.value is cur:
            cur = p
            continue
        return "end", cur, None


@dataclass
class Site:
    path: str
    node: ast.Call  # the expansion call
    hows: list = field(default_factory=list)  # (sort key, text, chain end line)


@dataclass
class Binding:
    pos: tuple  # position after which the name holds the new value
    origin: Site | None  # expansion site the value derives from, if any
    line: int


class Scope:
    """One function body (or the module body), nested defs excluded."""

    def __init__(self, body_nodes):
        self.nodes: list[ast.AST] = []
        stack = list(body_nodes)
        while stack:
            n = stack.pop()
            self.nodes.append(n)
            for c in ast.iter_child_nodes(n):
                if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                stack.append(c)


def pos(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset)


def end_pos(node: ast.AST) -> tuple:
    return (node.end_lineno, node.end_col_offset)


def line_text(lines: list[str], lineno: int) -> str:
    return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""


def shorten(s: str, n: int = 160) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def analyse_scope(scope: Scope, path: str, parents: dict, sites: dict) -> None:
    def site_for(call: ast.Call) -> Site:
        key = id(call)
        if key not in sites:
            sites[key] = Site(path, call)
        return sites[key]

    # 1. chains
    for n in scope.nodes:
        if is_expansion(n):
            kind, last, method = walk_up(n, parents)
            if kind == "sink":
                site_for(n).hows.append(
                    ((last.lineno, 0), f"chain .{n.func.attr} -> .{method}", last.end_lineno)
                )

    # 2. flow through `name = ...`
    stmt_of = {}
    for n in scope.nodes:
        if isinstance(n, ast.stmt):
            for c in ast.walk(n):
                stmt_of.setdefault(id(c), n)
    # every Store of a plain name rebinds it; simple assignments can taint
    events: list[tuple[tuple, str, ast.AST, ast.AST | None]] = []
    for n in scope.nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            st = parents.get(n)
            value = None
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and st.targets[0] is n:
                value = st.value
            elif isinstance(st, ast.AnnAssign) and st.target is n and st.value is not None:
                value = st.value
            anchor = st if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else n
            events.append((end_pos(anchor), n.id, n, value))
    events.sort(key=lambda e: e[0])
    loads: dict[str, list[ast.Name]] = defaultdict(list)
    for n in scope.nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads[n.id].append(n)
    for v in loads.values():
        v.sort(key=pos)

    bindings: dict[str, list[Binding]] = defaultdict(list)

    def reaching(name: str, at: tuple) -> Binding | None:
        best = None
        for b in bindings.get(name, ()):
            if b.pos <= at:
                best = b
        return best

    def origin_of(value: ast.AST) -> tuple[Site | None, str | None]:
        """Expansion (and via-name) that the value of ``value`` derives from."""
        cur = value
        while True:
            if isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute):
                name = cur.func.attr
                if is_expansion(cur):
                    return site_for(cur), None
                if name in SINKS or name in STOPS:
                    return None, None
                cur = cur.func.value
            elif isinstance(cur, ast.Subscript):
                cur = cur.value
            elif isinstance(cur, ast.Attribute) and cur.attr in PASS_ATTRS:
                cur = cur.value
            elif isinstance(cur, ast.Name):
                b = reaching(cur.id, pos(cur))
                return (b.origin, cur.id) if b and b.origin else (None, None)
            else:
                return None, None

    for epos, name, target, value in events:
        origin = None
        if value is not None:
            origin, _ = origin_of(value)
        bindings[name].append(Binding(epos, origin, target.lineno))

    for name, blist in bindings.items():
        for i, b in enumerate(blist):
            if b.origin is None:
                continue
            nxt = blist[i + 1].pos if i + 1 < len(blist) else (10**9, 0)
            for ld in loads.get(name, ()):
                if not (b.pos <= pos(ld) < nxt):
                    continue
                kind, last, method = walk_up(ld, parents)
                if kind == "sink":
                    sink_line = last.func.end_lineno
                    b.origin.hows.append(
                        ((sink_line, 1), f"flow .{b.origin.node.func.attr} via {name}@L{b.line} -> .{method}@L{sink_line}", None)
                    )


def package_of(path: str) -> tuple[str, str]:
    """(top-level package, dotted subpackage up to three levels)."""
    d = os.path.dirname(os.path.abspath(path))
    parts = []
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.append(os.path.basename(d))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    parts.reverse()
    if not parts:
        return "(no package)", "(no package)"
    return parts[0], ".".join(parts[:3])


def iter_py(root: str):
    if os.path.isfile(root):
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                yield os.path.join(dirpath, f)


def scan_file(path: str, shown: str):
    try:
        with open(path, "rb") as fh:
            src = fh.read().decode("utf-8", errors="replace")
        tree = ast.parse(src, filename=path)
    except (SyntaxError, ValueError) as e:
        print(f"{shown}: parse error: {e}", file=sys.stderr)
        return [], 1
    lines = src.splitlines()
    parents = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            parents[c] = n
    sites: dict = {}
    analyse_scope(Scope(tree.body), shown, parents, sites)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            analyse_scope(Scope(n.body), shown, parents, sites)
    out = []
    for s in sites.values():
        if not s.hows:
            continue
        s.hows.sort(key=lambda h: h[0])
        seen, hows = set(), []
        for _, h, _end in s.hows:
            if h not in seen:
                seen.add(h)
                hows.append(h)
        # the line of the `.expand` name itself (a chain may start lines above)
        line = s.node.func.end_lineno or s.node.lineno
        chain_ends = [end for _, h, end in s.hows if h.startswith("chain")]
        if chain_ends:
            first, last = s.node.lineno, min(chain_ends[0], s.node.lineno + 3)
            snippet = shorten(" ".join(lines[first - 1 : last]))
        else:
            snippet = shorten(line_text(lines, line))
        out.append((line, s.node.col_offset, f"{shown}:{line}: {snippet}  [{'; '.join(hows)}]",
                    s.node.func.attr))
    out.sort()
    return [(o[2], o[3]) for o in out], 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="folders (or files) of Python code")
    ap.add_argument("--relative", action="store_true",
                    help="print paths relative to each DIR's parent")
    args = ap.parse_args(argv)
    per_pkg: Counter = Counter()
    per_sub: Counter = Counter()
    per_method: Counter = Counter()
    files = errors = total = 0
    for root in args.dirs:
        base = os.path.dirname(os.path.abspath(root.rstrip("/")))
        for path in iter_py(root):
            files += 1
            shown = os.path.relpath(path, base) if args.relative else path
            hits, err = scan_file(path, shown)
            errors += err
            if hits:
                top, sub = package_of(path)
                per_pkg[top] += len(hits)
                per_sub[sub] += len(hits)
                total += len(hits)
                for h, method in hits:
                    print(h)
                    per_method[method] += 1
    print(f"# files scanned: {files}, parse errors: {errors}, expansion sites materialised: {total}")
    print("# per expansion method:")
    for k, v in sorted(per_method.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"#   .{k}: {v}")
    print("# per top-level package:")
    for k, v in sorted(per_pkg.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"#   {k}: {v}")
    print("# per subpackage:")
    for k, v in sorted(per_sub.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"#   {k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
