#!/usr/bin/env python3
"""Proof, with real torch, of the enlargers, sinks and operands oomlint recognises since issue 12.

For each spelling this checks three things on CPU:
  1. the enlarged input really is enlarged: a broadcast view (a stride-0 dim, sharing the small
     tensor's storage) or a repeated copy (its own storage, numel a multiple of the source's);
  2. the sink allocates the full size: the bytes the profiler records for it are
     numel(enlarged) x itemsize(result), not the small tensor's;
  3. the reorder oomlint suggests (the op or cast first, the enlargement after) gives equal values
     (same dtype, same shape, bitwise equal), and allocates only the small size.

Needs torch and einops (CPU is enough); not run in CI:
    ~/.cache/oomlint-torch/bin/python scripts/prove_recall.py
"""

import sys

import einops
import torch
import torch.nn.functional as F
from einops import repeat

B, H, Q, K, D = 4, 8, 64, 64, 16
FAILURES = []


def allocated(fn):
    """Bytes allocated by fn() (the sum of the positive allocations the profiler records)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn()
    total = sum(e.self_cpu_memory_usage for e in prof.events() if e.self_cpu_memory_usage > 0)
    return out, total


def is_view(t, small):
    return 0 in t.stride() and t.untyped_storage().data_ptr() == small.untyped_storage().data_ptr()


def is_copy(t, small):
    return (
        t.untyped_storage().data_ptr() != small.untyped_storage().data_ptr()
        and t.numel() % small.numel() == 0
        and t.numel() > small.numel()
    )


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def check(name, enlarged_ok, kind, sink, reordered, full_numel, itemsize):
    """sink/reordered: zero-argument callables giving the original result and the reordered one
    (for a repeated copy, both include the enlargement: the copy is made either way)."""
    out, bytes_sink = allocated(sink)
    fixed, bytes_fixed = allocated(reordered)
    full = full_numel * itemsize
    ok_alloc = bytes_sink >= full
    ok_equal = same(out, fixed)
    ok_smaller = bytes_fixed < bytes_sink
    verdict = "ok" if (enlarged_ok and ok_alloc and ok_equal and ok_smaller) else "FAIL"
    if verdict == "FAIL":
        FAILURES.append(name)
    print(
        f"{verdict:4} {name:44} input {kind:5} {'yes' if enlarged_ok else 'NO':3} | "
        f"sink allocates {bytes_sink:>9} B (full size {full:>9} B: {'yes' if ok_alloc else 'NO'}) | "
        f"reordered {bytes_fixed:>8} B, equal: {'yes' if ok_equal else 'NO'}"
    )


def main():
    torch.manual_seed(0)
    am = torch.randint(0, 2, (B, K))  # int64 padding mask
    bm = am.bool()

    # einops.repeat adding a standalone axis: a stride-0 view.
    e = einops.repeat(am, "b n -> b h n", h=H)
    check("einops.repeat 'b n -> b h n' .float()", is_view(e, am), "view",
          lambda: einops.repeat(am, "b n -> b h n", h=H).float(),
          lambda: einops.repeat(am.float(), "b n -> b h n", h=H), B * H * K, 4)
    e = repeat(am, "b k -> b h q k", h=H, q=Q)
    check("from einops import repeat: 'b k -> b h q k'", is_view(e, am), "view",
          lambda: repeat(am, "b k -> b h q k", h=H, q=Q).to(torch.float16),
          lambda: repeat(am.to(torch.float16), "b k -> b h q k", h=H, q=Q), B * H * Q * K, 2)
    # einops.repeat grouping the new axis: a copy.
    e = einops.repeat(am, "b n -> (b h) n", h=H)
    check("einops.repeat 'b n -> (b h) n' .float()", is_copy(e, am), "copy",
          lambda: einops.repeat(am, "b n -> (b h) n", h=H).float(),
          lambda: einops.repeat(am.float(), "b n -> (b h) n", h=H), B * H * K, 4)

    # torch.broadcast_tensors: the smaller one comes back as a stride-0 view.
    small = am[:, None, None, :]
    scores = torch.randn(B, H, Q, K)
    m2, _ = torch.broadcast_tensors(small, scores)
    check("torch.broadcast_tensors(a, b) then .float()", is_view(m2, am), "view",
          lambda: torch.broadcast_tensors(small, scores)[0].float(),
          lambda: torch.broadcast_tensors(small.float(), scores)[0], B * H * Q * K, 4)

    # torch.cat((x, x)) and torch.stack([x] * n): copies.
    x = torch.randint(0, 2, (B * 64, K))
    c = torch.cat((x, x))
    check("torch.cat((x, x)) .float()", is_copy(c, x), "copy",
          lambda: torch.cat((x, x)).float(), lambda: torch.cat((x.float(), x.float())), 2 * x.numel(), 4)
    s = torch.stack([x] * 4)
    check("torch.stack([x] * n) .half()", is_copy(s, x), "copy",
          lambda: torch.stack([x] * 4).half(), lambda: torch.stack([x.half()] * 4), 4 * x.numel(), 2)

    # expand(x.shape) (timm evo_norm's group_std) and expand(*other.shape).
    xs = torch.randn(B, 4, D // 4, Q, K)
    std = torch.rand(B, 4, 1, 1, 1) + 0.5
    ev = std.expand(xs.shape)
    check("std.expand(x.shape) .half()", is_view(ev, std), "view",
          lambda: std.expand(xs.shape).half(), lambda: std.half().expand(xs.shape), xs.numel(), 2)
    check("std.expand(x.shape).reshape(B, C, H, W)", is_view(ev, std), "view",
          lambda: std.expand(xs.shape).reshape(B, D, Q, K),
          # Per-channel std, expanded after the merge: a view with the same values.
          lambda: std.repeat_interleave(D // 4, dim=1).reshape(B, D, 1, 1).expand(B, D, Q, K),
          xs.numel(), 4)
    check("m.expand(*other.shape) .float()", is_view(small.expand(*scores.shape), am), "view",
          lambda: small.expand(*scores.shape).float(), lambda: small.float().expand(*scores.shape),
          scores.numel(), 4)

    # F.pad of a broadcast view (padding a dim that was not enlarged).
    ex = bm[:, None, None, :].expand(B, H, Q, K)
    check("F.pad(m.expand(...), (0, 1))", is_view(ex, bm), "view",
          lambda: F.pad(bm[:, None, None, :].expand(B, H, Q, K), (0, 1)),
          lambda: F.pad(bm[:, None, None, :], (0, 1)).expand(B, H, Q, K + 1), B * H * Q * (K + 1), 1)

    # Out-of-place masked_fill whose mask comes from the small source.
    fm = torch.randn(B, K)
    check("m.masked_fill(src == 0, 0.0)", is_view(fm[:, None, None, :].expand(B, H, Q, K), fm), "view",
          lambda: fm[:, None, None, :].expand(B, H, Q, K).masked_fill(am[:, None, None, :] == 0, 0.0),
          lambda: fm[:, None, None, :].masked_fill(am[:, None, None, :] == 0, 0.0).expand(B, H, Q, K),
          B * H * Q * K, 4)

    # A reduction with dtype= converts its whole input first.
    check("m.sum(dim=-1, dtype=torch.float32)", is_view(ex, bm), "view",
          lambda: bm[:, None, None, :].expand(B, H, Q, K).sum(dim=-1, dtype=torch.float32),
          lambda: bm[:, None, None, :].to(torch.float32).expand(B, H, Q, K).sum(dim=-1),
          B * H * Q * K, 4)

    # Comparisons and arithmetic with non-literal scalars.
    class Cfg:
        p = 0.3
        offset = 2.5
    cfg = Cfg()
    noise = torch.rand(B, K)
    check("noise >= self.p", is_view(noise[:, None, None, :].expand(B, H, Q, K), noise), "view",
          lambda: noise[:, None, None, :].expand(B, H, Q, K) >= cfg.p,
          lambda: (noise[:, None, None, :] >= cfg.p).expand(B, H, Q, K), B * H * Q * K, 1)
    check("m + self.offset", is_view(fm[:, None, None, :].expand(B, H, Q, K), fm), "view",
          lambda: fm[:, None, None, :].expand(B, H, Q, K) + cfg.offset,
          lambda: (fm[:, None, None, :] + cfg.offset).expand(B, H, Q, K), B * H * Q * K, 4)

    def min_value_of_dtype(dtype):
        return torch.finfo(dtype).min

    fam = am.float()
    check("m * min_value_of_dtype(dtype)", is_view(fam[:, None, :].expand(B, Q, K), fam), "view",
          lambda: fam[:, None, :].expand(B, Q, K) * min_value_of_dtype(torch.float32),
          lambda: (fam[:, None, :] * min_value_of_dtype(torch.float32)).expand(B, Q, K), B * Q * K, 4)
    scale = 0.125
    emb = torch.randn(Q, D * 8)
    check("scale * emb (python float)", is_view(emb[None].expand(B, -1, -1), emb), "view",
          lambda: scale * emb[None].expand(B, -1, -1),
          lambda: (scale * emb)[None].expand(B, -1, -1), B * emb.numel(), 4)

    # torch.where with 0-d tensor branches (transformers masking_utils eager_mask).
    check("torch.where(m, torch.tensor(0.0), min)", is_view(ex, bm), "view",
          lambda: torch.where(bm[:, None, None, :].expand(B, H, Q, K), torch.tensor(0.0), torch.finfo(torch.float32).min),
          lambda: torch.where(bm[:, None, None, :], torch.tensor(0.0), torch.finfo(torch.float32).min).expand(B, H, Q, K),
          B * H * Q * K, 4)
    check("torch.where(m, torch.zeros(()), min)", is_view(ex, bm), "view",
          lambda: torch.where(bm[:, None, None, :].expand(B, H, Q, K), torch.zeros(()), torch.finfo(torch.float32).min),
          lambda: torch.where(bm[:, None, None, :], torch.zeros(()), torch.finfo(torch.float32).min).expand(B, H, Q, K),
          B * H * Q * K, 4)

    # A binary op whose other operand lacks the grown dims.
    pm = torch.rand(B, Q, K) > 0.3
    causal = torch.tril(torch.ones(Q, K, dtype=torch.bool))[None, None, :, :]
    check("mask.expand(heads) & ~causal[1,1,q,k]", is_view(pm[:, None].expand(B, H, Q, K), pm), "view",
          lambda: pm[:, None, :, :].expand(B, H, Q, K) & ~causal,
          lambda: (pm[:, None, :, :] & ~causal).expand(B, H, Q, K), B * H * Q * K, 1)

    # expand((batch, heads) + causal.shape) + a padding mask lacking heads (prophetnet).
    cm = torch.triu(torch.full((Q, Q), -1e9), 1)
    pad = (1.0 - am[:, None, None, :Q].float()) * torch.finfo(torch.float32).min
    check("expand((b, h) + c.shape) + pad[b,1,1,k]", is_view(cm[None, None].expand((B, H) + cm.shape), cm), "view",
          lambda: cm[None, None, :, :].expand((B, H) + cm.shape) + pad,
          lambda: (cm[None, None, :, :] + pad).expand((B, H) + cm.shape), B * H * Q * Q, 4)

    # expand x expand over the same dims: both sources lack heads and queries, so the op runs on
    # the small sources (broadcast against each other) and the result is expanded after.
    pv = torch.rand(B, K) > 0.3
    vv = torch.rand(B, K) > 0.6
    check("pad.expand(b,h,q,k) & valid.expand(b,h,q,k)",
          is_view(pv[:, None, None, :].expand(B, H, Q, K), pv) and is_view(vv[:, None, None, :].expand(B, H, Q, K), vv), "view",
          lambda: pv[:, None, None, :].expand(B, H, Q, K) & vv[:, None, None, :].expand(B, H, Q, K),
          lambda: (pv[:, None, None, :] & vv[:, None, None, :]).expand(B, H, Q, K), B * H * Q * K, 1)
    # [b, 1, q, k] and [1, 1, q, k]: only heads are grown in both.
    mq = torch.rand(B, Q, K)
    cq = torch.rand(Q, K)
    check("mask[b,1,q,k].expand * causal[1,1,q,k].expand",
          is_view(mq[:, None].expand(B, H, Q, K), mq) and is_view(cq[None, None].expand(B, H, Q, K), cq), "view",
          lambda: mq[:, None, :, :].expand(B, H, Q, K) * cq[None, None, :, :].expand(B, H, Q, K),
          lambda: (mq[:, None, :, :] * cq[None, None, :, :]).expand(B, H, Q, K), B * H * Q * K, 4)

    # Function forms of `~`: torch.logical_not / torch.bitwise_not of a repeated copy or a
    # broadcast view (diffusers: mask.view(b, h, -1, k).repeat(1, 1, q, 1) then logical_not).
    bk = torch.rand(B, H, 1, K) > 0.5
    rb = bk.repeat(1, 1, Q, 1)
    check("torch.logical_not(m.repeat(1, 1, q, 1))", is_copy(rb, bk), "copy",
          lambda: torch.logical_not(bk.repeat(1, 1, Q, 1)),
          lambda: torch.logical_not(bk).repeat(1, 1, Q, 1), B * H * Q * K, 1)
    check("torch.bitwise_not(m.expand(b, h, q, k))", is_view(bk.expand(B, H, Q, K), bk), "view",
          lambda: torch.bitwise_not(bk.expand(B, H, Q, K)),
          lambda: torch.bitwise_not(bk).expand(B, H, Q, K), B * H * Q * K, 1)

    # OOM121: gather accepts an expanded index; repeat copies it.
    xg = torch.randn(B, Q, D * 8)
    ids = torch.argsort(torch.rand(B, Q), dim=1)[:, : Q // 2]
    rep = ids.unsqueeze(-1).repeat(1, 1, D * 8)
    check("gather(x, 1, ids.unsqueeze(-1).repeat(1,1,D))", is_copy(rep, ids), "copy",
          lambda: torch.gather(xg, 1, ids.unsqueeze(-1).repeat(1, 1, D * 8)),
          lambda: torch.gather(xg, 1, ids.unsqueeze(-1).expand(-1, -1, D * 8)),
          rep.numel(), 8)

    # OOM121 across a function boundary: a helper returns `x.view(B, Q, 1).repeat(1, 1, D)` and its
    # callers only multiply with broadcasting; `expand` gives the same products without the copy.
    def spread_repeat(t):
        return t.view(B, Q, 1).repeat(1, 1, D * 8)

    def spread_expand(t):
        return t.view(B, Q, 1).expand(-1, -1, D * 8)

    w = torch.randn(B, Q)
    hs = torch.randn(B, Q, D * 8)
    check("helper returns x.view(B,Q,1).repeat(1,1,D); h * it", is_copy(spread_repeat(w), w), "copy",
          lambda: hs * spread_repeat(w), lambda: hs * spread_expand(w), B * Q * D * 8, 4)
    check("helper's result in torch.where(c, h + r, h - r)", is_copy(spread_repeat(w), w), "copy",
          lambda: torch.where(hs > 0, hs + spread_repeat(w), hs - spread_repeat(w)),
          lambda: torch.where(hs > 0, hs + spread_expand(w), hs - spread_expand(w)), B * Q * D * 8, 4)
    # The trap: a caller that writes the result in place needs the copy (the view refuses it).
    try:
        spread_expand(w).add_(1)
        refused = False
    except RuntimeError:
        refused = True
    spread_repeat(w).add_(1)
    print(f"{'ok' if refused else 'FAIL':4} {'trap: in-place write to the expanded result':44} "
          f"refused by torch: {'yes' if refused else 'NO'} (the repeat accepts it)")
    if not refused:
        FAILURES.append("trap: in-place write to the expanded result")

    # OOM121: a gather index repeated over two size-1 dims read off the gathered tensor (a whole
    # map per selected query, pp_doclayout's masks); an expanded index gathers the same.
    Hm, Wm = 24, 32
    maps = torch.randn(B, Q, Hm, Wm)
    top = torch.topk(torch.rand(B, Q), Q // 4, dim=-1).indices
    rep4 = top.unsqueeze(-1).unsqueeze(-1).repeat(1, 1, maps.shape[-2], maps.shape[-1])
    check("maps.gather(1, idx[...,None,None].repeat(1,1,H,W))", is_copy(rep4, top), "copy",
          lambda: maps.gather(dim=1, index=top.unsqueeze(-1).unsqueeze(-1).repeat(1, 1, maps.shape[-2], maps.shape[-1])),
          lambda: maps.gather(dim=1, index=top.unsqueeze(-1).unsqueeze(-1).expand(-1, -1, maps.shape[-2], maps.shape[-1])),
          rep4.numel(), 8)

    # OOM121: vit_mae's unshuffle: a full permutation repeated by the hidden size read off a
    # tensor, then moved to the tensor's device; the expanded index moves (here: stays) as well.
    hs = torch.randn(B, Q, D * 8)
    restore = torch.argsort(torch.rand(B, Q), dim=1)
    rep3 = restore.unsqueeze(-1).repeat(1, 1, hs.shape[2])
    check("gather(t, 1, perm[...,None].repeat(1,1,x.shape[2]).to(dev))", is_copy(rep3, restore), "copy",
          lambda: torch.gather(hs, dim=1, index=restore.unsqueeze(-1).repeat(1, 1, hs.shape[2]).to(hs.device)),
          lambda: torch.gather(hs, dim=1, index=restore.unsqueeze(-1).expand(-1, -1, hs.shape[2]).to(hs.device)),
          rep3.numel(), 8)

    # OOM103: a merged copy of a broadcast view read by an elementwise op. Group statistics
    # expanded to the grouped shape and reshaped to [B, C, H, W] (timm's evo_norm), divided into
    # the activations: dividing in the grouped shape needs no copy of the statistics.
    Cg, G, Hs, Ws = 64, 8, 16, 16
    act = torch.randn(B, Cg, Hs, Ws)
    xg5 = act.reshape(B, G, Cg // G, Hs, Ws)
    rms = xg5.square().mean(dim=(2, 3, 4), keepdim=True).add(1e-5).sqrt()
    check("x / rms.expand(xg.shape).reshape(B,C,H,W)", is_view(rms.expand(xg5.shape), rms), "view",
          lambda: act / rms.expand(xg5.shape).reshape(B, Cg, Hs, Ws),
          lambda: (xg5 / rms).reshape(B, Cg, Hs, Ws), B * Cg * Hs * Ws, 4)
    # Swin's shifted-window mask: [nW, N, N] expanded over windows' batch and heads, merged to
    # [B*nW, H, N, N] and added to the position bias [H, N, N]: adding before the expand leaves
    # one full-size copy (the merge) instead of two (the merge and the sum).
    nW, Nw = 4, 16
    wmask = torch.randn(nW, Nw, Nw)
    bias = torch.randn(H, Nw, Nw)
    Bw = B * nW
    check("bias + mask.view(1,nW,1,N,N).expand(..).reshape", is_view(wmask.view(1, nW, 1, Nw, Nw).expand(Bw // nW, -1, H, -1, -1), wmask), "view",
          lambda: bias + wmask.view(1, nW, 1, Nw, Nw).expand(Bw // nW, -1, H, -1, -1).reshape(-1, H, Nw, Nw),
          lambda: (bias.view(1, 1, H, Nw, Nw) + wmask.view(1, nW, 1, Nw, Nw)).expand(Bw // nW, -1, -1, -1, -1).reshape(-1, H, Nw, Nw),
          Bw * H * Nw * Nw, 4)

    # Values across calls (issue 20): an expanded tensor passed to a method of the same class
    # with a keyword (`self.mix(src, scale=2.0)`, `mix` casts `x`); the reorder casts at the call
    # site, before the expand, and leaves `mix` as it is (other callers share it).
    class Head(torch.nn.Module):
        def mix(self, x, scale):
            return x.float() * scale

    head = Head()
    src_small = torch.randn(1, H, Q, K, dtype=torch.bfloat16)
    src = src_small.expand(B, -1, -1, -1)
    check("self.mix(src.expand(...), scale=2.0); mix: x.float() * scale", is_view(src, src_small), "view",
          lambda: head.mix(x=src, scale=2.0),
          lambda: head.mix(x=src_small.float().expand(B, -1, -1, -1), scale=2.0),
          B * H * Q * K, 4)
    # `q, k = map(lambda t: t.repeat(1, 1, g, 1), (q, k))` then `map(torch.sigmoid, (q, k))`:
    # each element is a separate copy; the op first, the repeat after, gives equal values.
    qs, ks = torch.randn(B, Q, 2, D), torch.randn(B, Q, 2, D)
    qr, kr = map(lambda t: t.repeat(1, 1, 4, 1), (qs, ks))
    check("map(torch.sigmoid, map(lambda t: t.repeat(...), (q, k)))", is_copy(qr, qs) and is_copy(kr, ks), "copy",
          lambda: list(map(torch.sigmoid, map(lambda t: t.repeat(1, 1, 4, 1), (qs, ks))))[0],
          lambda: list(map(lambda t: torch.sigmoid(t).repeat(1, 1, 4, 1), (qs, ks)))[0],
          B * Q * 8 * D, 4)

    # Issue 20, op table: one-argument math, an op along a dim that did not grow, resampling and
    # an nn.Linear, each on a broadcast view; and cos/sin of one repeated copy (both move first,
    # the copy is never made). The rewrite: the op first, the enlargement after (still a view).
    th = torch.randn(Q, D // 2)
    rep = th.repeat(1, 2)
    check("torch.cos(t.repeat(1, 2)), torch.sin(...)", is_copy(rep, th), "copy",
          lambda: torch.cat([torch.cos(th.repeat(1, 2)), torch.sin(th.repeat(1, 2))]),
          lambda: torch.cat([torch.cos(th).repeat(1, 2), torch.sin(th).repeat(1, 2)]),
          2 * Q * D, 4)
    xs = torch.randn(B, K)
    ev = xs[:, None, :].expand(-1, Q, -1)
    check("torch.exp(x[:, None].expand(b, q, k))", is_view(ev, xs), "view",
          lambda: torch.exp(xs[:, None, :].expand(-1, Q, -1)),
          lambda: torch.exp(xs)[:, None, :].expand(-1, Q, -1), B * Q * K, 4)
    check("F.softplus(x[:, None].expand(b, q, k))", is_view(ev, xs), "view",
          lambda: F.softplus(xs[:, None, :].expand(-1, Q, -1)),
          lambda: F.softplus(xs)[:, None, :].expand(-1, Q, -1), B * Q * K, 4)
    check("F.normalize(x[:, None].expand(b, q, k), dim=-1)", is_view(ev, xs), "view",
          lambda: F.normalize(xs[:, None, :].expand(-1, Q, -1), dim=-1),
          lambda: F.normalize(xs, dim=-1)[:, None, :].expand(-1, Q, -1), B * Q * K, 4)
    check("x[:, None].expand(b, q, k).softmax(-1)", is_view(ev, xs), "view",
          lambda: xs[:, None, :].expand(-1, Q, -1).softmax(-1),
          lambda: xs.softmax(-1)[:, None, :].expand(-1, Q, -1), B * Q * K, 4)
    img = torch.randn(1, 3, 8, 8)
    check("F.interpolate(img.expand(b, ...), scale_factor=2)", is_view(img.expand(B, -1, -1, -1), img), "view",
          lambda: F.interpolate(img.expand(B, -1, -1, -1), scale_factor=2),
          lambda: F.interpolate(img, scale_factor=2).expand(B, -1, -1, -1), B * 3 * 16 * 16, 4)
    # The rewrite keeps the enlarged value a view: a stride-0 dim over the small result.
    for label, small in (("exp", torch.exp(xs)), ("softplus", F.softplus(xs))):
        rewritten = small[:, None, :].expand(-1, Q, -1)
        if not is_view(rewritten, small):
            FAILURES.append(f"{label} rewrite is not a view")
        print(f"{'ok' if is_view(rewritten, small) else 'FAIL':4} {label}(x) then expand: stride {rewritten.stride()}")
    lin = torch.nn.Linear(K, D)
    seq = torch.randn(1, Q, K)
    with torch.no_grad():
        check("self.proj(x.expand(b, -1, -1)) with nn.Linear", is_view(seq.expand(B, -1, -1), seq), "view",
              lambda: lin(seq.expand(B, -1, -1)),
              lambda: lin(seq).expand(B, -1, -1), B * Q * D, 4)

    # Issue 20, where a tensor lives: a list of `.cpu()` results joined by torch.cat is on the
    # host, and a repeat of it moved to the device equals the moved source repeated (equal
    # values only: the bytes a move copies are not counted by the CPU profiler).
    feats = torch.cat([torch.randn(2, Q, D).cpu() for _ in range(3)])
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"note torch.cat of .cpu() tensors lives on {feats.device.type} (host: "
          f"{'yes' if feats.device.type == 'cpu' else 'NO'})")
    if feats.device.type != "cpu":
        FAILURES.append("host list: torch.cat of .cpu() tensors is not on the host")
    rep = feats[1].repeat(B, 1, 1)
    moved_first = feats[1].to(dev).repeat(B, 1, 1)
    ok = is_copy(rep, feats[1]) and same(rep.to(dev), moved_first)
    print(f"{'ok' if ok else 'FAIL':4} host list: feats[i].repeat(k,1,1).to({dev}) input copy, "
          f"equal to the moved source repeated: {'yes' if ok else 'NO'}")
    if not ok:
        FAILURES.append("host list: feats[i].repeat(k,1,1).to(dev)")

    # OOM121: repeat_interleave (function spelling) and tile of a size-1 dim read only by a
    # broadcasting add: the expanded view gives equal sums without the copy.
    img = torch.randn(1, D, 8, 8)
    dense = torch.randn(B * 2, D, 8, 8)
    n = B * 2
    ri = torch.repeat_interleave(img, n, dim=0)
    check("torch.repeat_interleave(x, n, dim=0) + y", is_copy(ri, img), "copy",
          lambda: torch.repeat_interleave(img, n, dim=0) + dense,
          lambda: img.expand(n, *img.shape[1:]) + dense, 2 * dense.numel(), 4)
    # OOM121 "may": the same repeat of a leading dim of unknown size. With dim 0 of size 1 the
    # expanded view is equal (above); with dim 0 of size 2 `expand` refuses: the warning's
    # condition ("if dim 0 of `x` is 1") is what decides, so it is never certain.
    two = torch.randn(2, D, 8, 8)
    try:
        two.expand(n, *two.shape[1:])
        refused = False
    except RuntimeError:
        refused = True
    ok = refused and torch.repeat_interleave(two, n // 2, dim=0).shape[0] == n
    print(f"{'ok' if ok else 'FAIL':4} repeat_interleave of a dim 0 of size 2 is no expand: {'yes' if ok else 'NO'}")
    if not ok:
        FAILURES.append("repeat_interleave dim 0 of size 2 vs expand")
    check("x.tile(n, 1, 1, 1) * y", is_copy(img.tile(n, 1, 1, 1), img), "copy",
          lambda: img.tile(n, 1, 1, 1) * dense,
          lambda: img.expand(n, -1, -1, -1) * dense, 2 * dense.numel(), 4)

    # OOM121: the input of a gather repeated over a size-1 batch dim (a learned `[1, N, D]` table):
    # gather reads a stride-0 input; the expanded table gathers the same rows without the copy.
    table = torch.randn(1, Q, D * 8)
    keep = torch.argsort(torch.rand(B, Q), dim=1)[:, : Q // 4].unsqueeze(-1).expand(-1, -1, D * 8)
    check("gather(table.repeat(B,1,1), 1, idx)", is_copy(table.repeat(B, 1, 1), table), "copy",
          lambda: torch.gather(table.repeat(B, 1, 1), 1, keep),
          lambda: torch.gather(table.expand(B, -1, -1), 1, keep), B * table.numel(), 4)
    check("table.repeat(B,1,1).take_along_dim(idx, 1)", is_copy(table.repeat(B, 1, 1), table), "copy",
          lambda: table.repeat(B, 1, 1).take_along_dim(keep, dim=1),
          lambda: table.expand(B, -1, -1).take_along_dim(keep, dim=1), B * table.numel(), 4)

    # OOM121: a repeat read only by a pointwise op of the op table (mace's Chebyshev basis: the
    # `[1, K]` orders repeated to `[E, K]`); the op broadcasts, the expanded orders give the same.
    edges = torch.rand(B * Q, 1, dtype=torch.float64).repeat(1, D)
    orders = torch.arange(1, D + 1, dtype=torch.float64).unsqueeze(0)
    E = edges.shape[0]
    check("chebyshev_polynomial_t(x, n.repeat(E, 1))", is_copy(orders.repeat(E, 1), orders), "copy",
          lambda: torch.special.chebyshev_polynomial_t(edges, orders.repeat(E, 1)),
          lambda: torch.special.chebyshev_polynomial_t(edges, orders.expand(E, -1)), 2 * edges.numel(), 8)
    check("torch.hypot(x, n.repeat(E, 1))", is_copy(orders.repeat(E, 1), orders), "copy",
          lambda: torch.hypot(edges, orders.repeat(E, 1)),
          lambda: torch.hypot(edges, orders.expand(E, -1)), 2 * edges.numel(), 8)

    # Not OOM121: einops `repeat` with every new axis standing alone returns a stride-0 view of
    # its input (einops expands), so a gather index made so is free already.
    idx_small = torch.randint(0, Q, (B, Q))
    idx_view = repeat(idx_small, "b n -> b n d", d=D)
    ok = is_view(idx_view, idx_small)
    print(f"{'ok' if ok else 'FAIL':4} einops repeat('b n -> b n d') is a stride-0 view: {'yes' if ok else 'NO'}")
    if not ok:
        FAILURES.append("einops repeat('b n -> b n d') view")

    # Unknown is not "no": `.to(x.device)` of a value already there returns the view itself, so
    # the op after it writes the full tensor; doing it before the expand gives equal values.
    xm = torch.randn(B, D, 8, 8)
    lam_small = torch.rand(B)
    lam = lam_small.view(-1, 1, 1, 1).expand_as(xm).to(xm.device)
    check("view.expand_as(x).to(x.device), then 1 - lam", is_view(lam, lam_small), "view",
          lambda: 1 - lam_small.view(-1, 1, 1, 1).expand_as(xm).to(xm.device),
          lambda: (1 - lam_small).view(-1, 1, 1, 1).expand_as(xm), xm.numel(), 4)

    # A scalar attribute operand (`self.C = 5000`) and a dict item cast to another's dtype.
    pe = torch.randn(1, D, Q)
    check("pe.repeat(B, 1, 1) / C", is_copy(pe.repeat(B, 1, 1), pe), "copy",
          lambda: pe.repeat(B, 1, 1) / 5000, lambda: (pe / 5000).repeat(B, 1, 1), 2 * B * D * Q, 4)
    features = {"token_embeddings": torch.randn(B, Q, D), "attention_mask": torch.randint(0, 2, (B, Q))}
    emb, mask = features["token_embeddings"], features["attention_mask"]
    check("dict items: mask.expand(emb.size()).to(emb.dtype)",
          is_view(mask.unsqueeze(-1).expand(emb.size()), mask), "view",
          lambda: mask.unsqueeze(-1).expand(emb.size()).to(emb.dtype),
          lambda: mask.unsqueeze(-1).to(emb.dtype).expand(emb.size()), emb.numel(), 4)

    # OOM121, gather's input (issue 20, lightly's I-JEPA predictor): a [1, N, D] position table
    # repeated over the batch only to be gathered from (there through `utils.apply_masks`, a
    # helper called through its module); gather reads an expanded input as it reads the copy.
    pos_table = torch.randn(1, Q, D * 8)
    keep = torch.argsort(torch.rand(B, Q), dim=1)[:, : Q // 2].unsqueeze(-1).expand(-1, -1, D * 8)
    check("gather(pos.repeat(B, 1, 1), 1, keep)", is_copy(pos_table.repeat(B, 1, 1), pos_table), "copy",
          lambda: torch.gather(pos_table.repeat(B, 1, 1), 1, keep),
          lambda: torch.gather(pos_table.expand(B, -1, -1), 1, keep), B * Q * D * 8, 4)

    # OOM113 on a copy made on some paths only (issue 20, fla's GVA layers): `if num_v_heads >
    # num_heads: q = repeat(q, '... h d -> ... (h g) d')`, then `q.relu()` in a branch; on the
    # path where the repeat runs, relu first and the repeat after give equal values.
    qh = torch.randn(B, Q, 2, D)
    qg = repeat(qh, "... h d -> ... (h g) d", g=4)
    check("repeat(q, '... h d -> ... (h g) d').relu()", is_copy(qg, qh), "copy",
          lambda: repeat(qh, "... h d -> ... (h g) d", g=4).relu(),
          lambda: repeat(qh.relu(), "... h d -> ... (h g) d", g=4), qg.numel(), 4)

    # OOM121, a repeat read only by a join (issue 20, torch_points3d's PointNet segmentation
    # head): `torch.cat([x, g.unsqueeze(1).repeat(1, N, 1)], -1)`. cat reads each input through
    # its strides, so the expanded global feature gives the same result without the repeat's copy.
    pts = torch.randn(B, Q, D)
    glob = torch.randn(B, D * 8)
    tiled = glob.unsqueeze(1).repeat(1, Q, 1)
    check("cat([x, g.unsqueeze(1).repeat(1, N, 1)], -1)", is_copy(tiled, glob), "copy",
          lambda: torch.cat([pts, glob.unsqueeze(1).repeat(1, Q, 1)], dim=-1),
          lambda: torch.cat([pts, glob.unsqueeze(1).expand(-1, Q, -1)], dim=-1), tiled.numel(), 4)
    check("stack((x, c[:, None].repeat(1, N, 1)))", is_copy(tiled, glob), "copy",
          lambda: torch.stack((tiled, glob[:, None, :].repeat(1, Q, 1)), dim=0),
          lambda: torch.stack((tiled, glob[:, None, :].expand(-1, Q, -1)), dim=0), tiled.numel(), 4)

    # OOM121, dims torch keeps at 1 (issue 20, mmaction's ACRN head and ECAPA-style statistics
    # pooling): `nn.AdaptiveMaxPool3d(1)` and a `keepdim=True` reduction leave size-1 dims, so a
    # repeat of them stretches one value; expand gives the same cat / product without the copy.
    clip = torch.randn(B, D, 2, 8, 8)
    pooled = torch.nn.AdaptiveMaxPool3d(1)(clip)
    ctx = torch.randn(B, D, 1, 8, 8)
    check("cat([AdaptiveMaxPool3d(1)(x).repeat(1,1,1,h,w), f])", is_copy(pooled.repeat(1, 1, 1, 8, 8), pooled),
          "copy",
          lambda: torch.cat([pooled.repeat(1, 1, 1, 8, 8), ctx], dim=1),
          lambda: torch.cat([pooled.expand(-1, -1, -1, 8, 8), ctx], dim=1), B * D * 64, 4)
    frames = torch.randn(B, D * 8, Q)
    mean = frames.mean(dim=2, keepdim=True)
    check("cat([x, x.mean(2, keepdim=True).repeat(1,1,T)])", is_copy(mean.repeat(1, 1, Q), mean), "copy",
          lambda: torch.cat([frames, frames.mean(dim=2, keepdim=True).repeat(1, 1, Q)], dim=1),
          lambda: torch.cat([frames, frames.mean(dim=2, keepdim=True).expand(-1, -1, Q)], dim=1),
          frames.numel(), 4)

    # OOM121, a 0-d tensor repeated (issue 20, torchaudio's SpecAugment): a reduction over every
    # dim has no dims, so `repeat(shape)` stretches one value; torch.where broadcasts the expand.
    spec = torch.randn(B, Q, K)
    cond = torch.rand(B, Q, K) > 0.5
    fill = spec.mean()
    check("where(m, x.mean().repeat(x.shape), x)", is_copy(fill.repeat(spec.shape), fill), "copy",
          lambda: torch.where(cond, fill.repeat(spec.shape), spec),
          lambda: torch.where(cond, fill.expand(spec.shape), spec), spec.numel(), 4)

    # OOM101, a conversion inside an op (issue 20, F5-TTS's and diffusers' attention): sdpa turns a
    # bool attn_mask into an additive float mask at the size it is given. The expanded mask costs a
    # full [B, H, Q, K] float tensor; the [B, 1, 1, K] one is broadcast by the call.
    q = torch.randn(B, H, Q, D)
    k = torch.randn(B, H, K, D)
    v = torch.randn(B, H, K, D)
    keep = (torch.rand(B, K) > 0.2).view(B, 1, 1, K)
    keep_full = keep.expand(B, H, Q, K)
    check("sdpa(q, k, v, attn_mask=bool_mask.expand(B,H,Q,K))", is_view(keep_full, keep), "view",
          lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=keep_full),
          lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=keep), B * H * Q * K, 4)

    # OOM121, a repeat used only as a tensor index (issue 20, torchmetrics' ignore-index mask and
    # kornia's LoFTR dustbin filter): indexing reads the mask through its strides, so the expanded
    # mask selects the same elements for a read and for a write, without the repeat's copy.
    preds = torch.randn(B, Q, K)
    ignore = torch.rand(B, K) > 0.7
    rep_mask = ignore.unsqueeze(1).repeat(1, Q, 1)

    def write_with(mask):
        out = preds.clone()
        out[mask] = 0.0
        return out

    check("x[m.unsqueeze(1).repeat(1, C, 1)] = v", is_copy(rep_mask, ignore), "copy",
          lambda: write_with(ignore.unsqueeze(1).repeat(1, Q, 1)),
          lambda: write_with(ignore.unsqueeze(1).expand(-1, Q, -1)), rep_mask.numel(), 1)
    check("x[m.unsqueeze(1).repeat(1, C, 1)]", is_copy(rep_mask, ignore), "copy",
          lambda: preds[ignore.unsqueeze(1).repeat(1, Q, 1)],
          lambda: preds[ignore.unsqueeze(1).expand(-1, Q, -1)], rep_mask.numel(), 1)

    # OOM121, a repeat read only by masked_select (fairchem's grid-cell neighbour search): torch
    # broadcasts the input and the mask, so the expanded index selects the same elements.
    # Sizes of at least 32768 elements (ATen's GRAIN_SIZE): below it, the CPU kernel takes a serial
    # path for contiguous inputs only, so a small broadcast mask costs two int64 buffers that the
    # copy does not; at realistic sizes both take the parallel path and `expand` saves the copy.
    n_atoms, cells, per_cell = 512, 8, D
    pad = torch.rand(n_atoms, cells, per_cell) > 0.5
    atoms = torch.arange(n_atoms).view(-1, 1, 1)
    check("masked_select(a.repeat(1, C, M), m)", is_copy(atoms.repeat(1, cells, per_cell), atoms), "copy",
          lambda: torch.masked_select(atoms.repeat(1, cells, per_cell), pad),
          lambda: torch.masked_select(atoms.expand(-1, cells, per_cell), pad), pad.numel(), 8)
    Qs, Ks = 4 * Q, 4 * K
    text = torch.rand(B, 1, Ks) > 0.3
    scores = torch.randn(B, Qs, Ks)
    check("x.masked_select(m.repeat(1, Q, 1))", is_copy(text.repeat(1, Qs, 1), text), "copy",
          lambda: scores.masked_select(text.repeat(1, Qs, 1)),
          lambda: scores.masked_select(text.expand(-1, Qs, -1)), scores.numel(), 1)

    # OOM121, a repeat read only by a sampler: bernoulli and poisson draw each output element from
    # the input element at its position, so with the same seed an expanded input gives the same
    # samples without the copy. Not torch.normal: with an expanded std its CPU kernel allocates
    # more than with the copy (Captum's `torch.normal(0, torch.tensor(s).repeat(shape))` is better
    # written `torch.normal(0, s, size=shape)`, which no reorder gives), so it is no OOM121 reader.
    def seeded(fn):
        torch.manual_seed(0)
        return fn()

    probs = torch.rand(1, 1, K)
    check("torch.bernoulli(p.repeat(B, Q, 1))", is_copy(probs.repeat(B, Q, 1), probs), "copy",
          lambda: seeded(lambda: torch.bernoulli(probs.repeat(B, Q, 1))),
          lambda: seeded(lambda: torch.bernoulli(probs.expand(B, Q, -1))), B * Q * K, 4)
    rates = torch.rand(1, K) * 3
    check("torch.poisson(r.repeat(Q, 1))", is_copy(rates.repeat(Q, 1), rates), "copy",
          lambda: seeded(lambda: torch.poisson(rates.repeat(Q, 1))),
          lambda: seeded(lambda: torch.poisson(rates.expand(Q, -1))), Q * K, 4)

    # OOM121, a unit dim known through torch.cat (xLSTM's forget-gate matrix): the joined result
    # keeps the last dim of 1, and the repeat over it is only subtracted from its own transpose.
    gates = torch.randn(B, H, Q, 1)
    cum = torch.cat([torch.zeros(B, H, 1, 1), torch.cumsum(gates, dim=-2)], dim=-2)
    S1 = cum.shape[-2]
    check("r = cat(...).repeat(1,1,1,S); r - r.mT", is_copy(cum.repeat(1, 1, 1, S1), cum), "copy",
          lambda: (lambda r: r - r.transpose(-2, -1))(cum.repeat(1, 1, 1, S1)),
          lambda: (lambda r: r - r.transpose(-2, -1))(cum.expand(-1, -1, -1, S1)), B * H * S1 * S1, 4)

    # OOM121, a repeat read through an elementwise map and then only broadcast (Boltz's pair bias
    # `z.repeat_interleave(m, 0)` read as `attn + z.float()`): the map commutes with the repeat,
    # so mapping the small tensor and expanding it gives equal values without either full copy.
    pair = torch.randn(1, H, Q, Q, dtype=torch.bfloat16)
    attn = torch.randn(B, H, Q, Q)
    check("attn + z.repeat_interleave(m, 0).float()", is_copy(pair.repeat_interleave(B, 0), pair), "copy",
          lambda: attn + pair.repeat_interleave(B, 0).float(),
          lambda: attn + pair.float().expand(B, -1, -1, -1), B * H * Q * Q, 2)
    gate = torch.randn(B, D)
    feats = torch.randn(B, Q, D)
    check("x * g.unsqueeze(1).repeat(1, Q, 1).sigmoid()", is_copy(gate.unsqueeze(1).repeat(1, Q, 1), gate), "copy",
          lambda: feats * gate.unsqueeze(1).repeat(1, Q, 1).sigmoid(),
          lambda: feats * gate.unsqueeze(1).sigmoid().expand(-1, Q, -1), B * Q * D, 4)

    print()
    if FAILURES:
        print(f"{len(FAILURES)} FAILED: {', '.join(FAILURES)}")
        return 1
    print("all spellings proved: enlarged input, full-size sink, equal values after the reorder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
