//! Which analysis sites become findings. The analysis reports every site with plain facts about
//! its result (thrown away, written in place, its copy read elsewhere, read only by broadcasting);
//! the policy of which of those are worth a finding, and which rule wins when two would claim the
//! same code, lives here with the rules.

use crate::analysis::{EnlargeKind, SinkKind, Site, StepRole};
use crate::source::TextRange;

/// The sites worth a finding, in the order the analysis gave them.
pub(crate) fn select_sites(sites: Vec<Site>) -> Vec<Site> {
    let why_not = selection(&sites);
    sites
        .into_iter()
        .zip(why_not)
        .filter(|(_, why_not)| why_not.is_none())
        .map(|(site, _)| site)
        .collect()
}

/// For each site, why it is not worth a finding (`None`: it is).
pub(crate) fn selection(sites: &[Site]) -> Vec<Option<NotWorth>> {
    let why_not: Vec<Option<NotWorth>> = sites
        .iter()
        .map(|site| match site.sink {
            // Judged below, once the conversions are known.
            SinkKind::RepeatAsExpand { .. } => None,
            _ => why_conversion_is_not_worth(site),
        })
        .collect();
    // A repeat already reported for its conversion is not also a repeat-instead-of-expand.
    let reported_repeats: Vec<TextRange> = sites
        .iter()
        .zip(&why_not)
        .filter(|(site, why_not)| {
            why_not.is_none() && !matches!(site.sink, SinkKind::RepeatAsExpand { .. })
        })
        .flat_map(|(site, _)| site.enlarged.steps.iter())
        .filter(|step| step.role == StepRole::Enlarge)
        .map(|step| step.range)
        .collect();
    sites
        .iter()
        .zip(why_not)
        .map(|(site, why_not)| match site.sink {
            SinkKind::RepeatAsExpand {
                table_join: true, ..
            } => Some(NotWorth::TableJoin),
            SinkKind::RepeatAsExpand {
                ref read_through, ..
            } => {
                if !(site.only_broadcast_reads || callers_only_broadcast(site)) {
                    Some(NotWorth::CopyReadBeyondBroadcast)
                } else if read_through.is_none() && reported_repeats.contains(&site.sink_step.range)
                {
                    // (A copy read through an elementwise map and then only broadcast is worth
                    // its own finding: whatever the map's finding says of dtypes, the copy
                    // itself is needless.)
                    Some(NotWorth::RepeatReportedForConversion)
                } else {
                    None
                }
            }
            _ => why_not,
        })
        .collect()
}

/// Why a site is not worth a finding, as `oomlint sites` prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotWorth {
    /// The conversion's result is thrown away.
    Discarded,
    /// The same conversion of the same value appears earlier on the line.
    RepeatsEarlierOnLine,
    /// An op with a small operand whose full-size result the function returns as it is.
    ReturnedResult,
    /// A copy that a loop rebinds at full size on every pass.
    LoopState,
    /// The full-size result is written in place later (the copy is needed for that write).
    WrittenInPlace,
    /// The full-size result goes where only dense memory will do (a kernel launch,
    /// `torch.ops.*`, `assert x.is_contiguous()`): the copy is needed there.
    NeedsDense,
    /// The repeated tensor is also read elsewhere: converting first would need a second repeat.
    CopyReadElsewhere,
    /// A `repeat` whose copy some consumer reads as more than a broadcast or a join.
    CopyReadBeyondBroadcast,
    /// A `repeat` already reported for the conversion that follows it.
    RepeatReportedForConversion,
    /// A `repeat` joined with nothing but other copies and views: a table built from sizes.
    TableJoin,
}

impl std::fmt::Display for NotWorth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NotWorth::Discarded => "the result is thrown away",
            NotWorth::RepeatsEarlierOnLine => "the same conversion appears earlier on the line",
            NotWorth::ReturnedResult => {
                "the full-size result is what the function returns (converting first would \
                 return a view)"
            }
            NotWorth::LoopState => "the copy is a loop's state, made at full size on every pass",
            NotWorth::WrittenInPlace => "needed copy: the result is written in place later",
            NotWorth::NeedsDense => {
                "needed copy: a kernel or a contiguity check reads the result as dense memory"
            }
            NotWorth::CopyReadElsewhere => {
                "the repeated copy is also read elsewhere: converting first needs a second repeat"
            }
            NotWorth::CopyReadBeyondBroadcast => {
                "needed copy: a consumer reads the repeat as more than a broadcast or a join"
            }
            NotWorth::RepeatReportedForConversion => {
                "the repeat is reported for the conversion that follows it"
            }
            NotWorth::TableJoin => {
                "joined with nothing but other copies and views: a table built from sizes alone \
                 (a coordinate grid, a position table)"
            }
        })
    }
}

/// A `repeat` a function returns, whose every caller in the project only broadcasts the result:
/// there is at least one call, each resolved call's result is read and only by broadcasting
/// consumers, and the function's name appears nowhere else (not passed as a value, not listed
/// in `__all__`, not re-exported by a package's `__init__`). Callers outside the project cannot
/// be seen: a public function is reported too, with a note (the fix is never applied for it).
pub(crate) fn callers_only_broadcast(site: &Site) -> bool {
    site.returned_to_callers.as_ref().is_some_and(|r| {
        r.callers.calls > 0
            && r.callers.broadcast_calls == r.callers.calls
            && r.callers.other_mentions == 0
    })
}

/// Whether a materialized broadcast is a copy the code needs for its layout or an in-place write:
/// its full-size result is merged across the broadcast dims (and not converted again
/// afterwards in the same function, which would be a second copy that converting first avoids;
/// a caller converting what a helper returns does not make the helper's merge avoidable; nor only
/// an operand of elementwise operators, which could run in the unmerged shape on the view; a
/// matrix product reads the merged layout), written in place, handed where only a dense tensor
/// will do (a kernel launch, `torch.ops.*`, `assert x.is_contiguous()`, a `.contiguous()` handed
/// to code outside the project), passed as a convolution's weight
/// (which must be dense), or an explicit `.clone()` that the function returns (it hands its
/// callers memory of their own, which any of them may write). OOM131 claims these; OOM103 the
/// others.
pub(crate) fn copy_needed_for_layout(site: &Site) -> bool {
    site.enlarged.kind == EnlargeKind::View
        && site.sink == SinkKind::Materialize
        && ((site.merged_later && !site.result_converted && !only_combined(site))
            || site.written_in_place
            || site.result_needs_dense
            || contiguous_for_outside_code(site)
            || site.result_is_conv_weight
            || returned_clone(site))
}

/// The sink is a `.clone()` / `torch.clone(...)` whose result the function returns.
pub(crate) fn returned_clone(site: &Site) -> bool {
    site.result_returned && sink_call_is(site, "clone")
}

/// The sink is a `.contiguous()` whose result goes straight to code this analysis cannot follow
/// (another package's function, a compiled extension, a custom autograd Function's `apply`, a
/// callable computed at run time). `.contiguous()` changes nothing but the layout, and such code
/// may read raw memory or check strides: the author made the copy for it.
pub(crate) fn contiguous_for_outside_code(site: &Site) -> bool {
    site.result_leaves_project && sink_call_is(site, "contiguous")
}

/// The sink's call is `name(...)` or `<something>.name(...)`.
fn sink_call_is(site: &Site, name: &str) -> bool {
    let code = site.sink_step.code.trim_start();
    let callee = code.split('(').next().unwrap_or("").trim();
    callee == name || callee.strip_suffix(name).is_some_and(|r| r.ends_with('.'))
}

/// The full-size result is read by an elementwise operator and by no matrix product or attention:
/// the operator could run in the unmerged shape, on the broadcast view.
pub(crate) fn only_combined(site: &Site) -> bool {
    site.result_combined && !site.result_contracted
}

/// A conversion (cast, move, materialization, elementwise op) of an enlarged value: why it is
/// not worth a finding, if it is not.
fn why_conversion_is_not_worth(site: &Site) -> Option<NotWorth> {
    // A conversion whose result is thrown away allocates nothing anyone keeps; the same
    // conversion written twice on one line is one finding, not two with the same text.
    if site.discarded {
        return Some(NotWorth::Discarded);
    }
    if site.repeats_earlier_on_line {
        return Some(NotWorth::RepeatsEarlierOnLine);
    }
    // An op with a small tensor operand whose full-size result leaves the function as it is:
    // that tensor is the function's output, and doing the op first would hand the caller a
    // broadcast view in its place (not a reorder that keeps the result). It is also what one
    // safe fix of a returned chain leaves (`m.expand(...).masked_fill(m.bool(), min)`). When the
    // result is converted again first (`(causal + padding).to(dtype)`), the op is reported.
    if site.small_tensor_operand
        && site.result_escapes
        && !site.result_converted
        && !site.result_converted_by_caller
    {
        return Some(NotWorth::ReturnedResult);
    }
    // A copy that enters a loop as its state (`h = layer(h)`, `z = block(z.to(d) + x)` rebind it
    // at full size each pass): the loop makes a tensor of that full size on its first pass
    // anyway, so keeping the broadcast view saves nothing that lasts.
    if site.sink == SinkKind::Materialize && site.result_is_loop_state {
        return Some(NotWorth::LoopState);
    }
    match site.enlarged.kind {
        // The copy was needed for the in-place write, or for a consumer that reads only dense
        // memory (converting first would leave a view that must be copied there anyway); a
        // `.contiguous()`/`.clone()` made for it is still a site (OOM131 reports needed copies
        // when selected).
        EnlargeKind::View if site.written_in_place && site.sink != SinkKind::Materialize => {
            Some(NotWorth::WrittenInPlace)
        }
        EnlargeKind::View if site.result_needs_dense && site.sink != SinkKind::Materialize => {
            Some(NotWorth::NeedsDense)
        }
        EnlargeKind::View => None,
        // After the reorder the result is still a real, writable copy; but when the repeated
        // tensor is also read elsewhere, converting first would need a second repeat, which saves
        // nothing.
        EnlargeKind::Copy if site.copy_read_elsewhere => Some(NotWorth::CopyReadElsewhere),
        EnlargeKind::Copy => None,
    }
}

#[cfg(test)]
mod tests {
    //! Table-driven: a small file, every site the analysis reports (by its sink code), and the
    //! ones selected for a finding.

    use super::*;
    use crate::analysis::{ModuleInfo, SummaryTable, analyze_module};
    use crate::source::parse_module;

    fn codes<'a>(sites: impl IntoIterator<Item = &'a Site>) -> Vec<String> {
        sites
            .into_iter()
            .map(|s| s.sink_step.code.clone())
            .collect()
    }

    #[test]
    fn policy() {
        let cases: &[(&str, &str, &[&str], &[&str])] = &[
            (
                "a thrown-away conversion is not reported",
                "def f(x, b):\n    x.expand(b, 4).float()\n    return x.expand(b, 4).half()\n",
                &[".float()", ".half()"],
                &[".half()"],
            ),
            (
                "a broadcast view converted and then written in place needed the copy",
                "def f(x, b):\n    y = x.expand(b, 4).float()\n    y += 1\n    return y\n",
                &[".float()"],
                &[],
            ),
            (
                "a clone of a broadcast view written in place is kept (OOM131 claims it)",
                "def f(x, b):\n    y = x.expand(b, 4).clone()\n    y[0] = 1\n    return y\n",
                &[".clone()"],
                &[".clone()"],
            ),
            (
                "a repeated copy converted and then written in place is still reported",
                "def f(x, b):\n    y = x.repeat(b, 1).float()\n    y += 1\n    return y\n",
                // The repeat of a dim of unknown size is an OOM121 "may" candidate, read by more
                // than a broadcast here.
                &[".repeat(b, 1)", ".float()"],
                &[".float()"],
            ),
            (
                "a repeated copy also read elsewhere is not reported",
                "def f(x, b):\n    r = x.repeat(b, 1)\n    y = r.float()\n    return y, r.sum()\n",
                &[".repeat(b, 1)", ".float()"],
                &[],
            ),
            (
                "a repeated copy read once is reported",
                "def f(x, b):\n    r = x.repeat(b, 1)\n    return r.float()\n",
                &[".repeat(b, 1)", ".float()"],
                &[".float()"],
            ),
            (
                "a copy that starts a loop's state is not reported",
                "def f(x, b, n, layers):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).contiguous()\n    for layer in layers:\n        h = layer(h)\n    return h\n",
                &[".contiguous()"],
                &[],
            ),
            (
                "a copy a loop only reads is reported",
                "def f(x, b, n, layers, y):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).contiguous()\n    for layer in layers:\n        y = layer(y, h)\n    return y\n",
                &[".contiguous()"],
                &[".contiguous()"],
            ),
            (
                "a cast that starts a loop's state is still reported",
                "def f(x, b, n, layers):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).float()\n    for layer in layers:\n        h = layer(h)\n    return h\n",
                &[".float()"],
                &[".float()"],
            ),
            (
                "a broadcast view cast for a kernel launch: the kernel needs the full-size copy",
                "def k(a, o):\n    pass\n\ndef f(x, b, out):\n    y = x.expand(b, 4).to(torch.int32)\n    k[(b,)](y, out)\n    return out\n",
                &[".to(torch.int32)"],
                &[],
            ),
            (
                "a copy for `torch.ops` is kept (OOM131 claims it)",
                "def f(x, b):\n    y = x.expand(b, 4).contiguous()\n    return torch.ops.ext.op(y)\n",
                &[".contiguous()"],
                &[".contiguous()"],
            ),
            (
                "pinning is not a sink, nor is the move of the pinned copy (the repeat of the [4]\
                 tensor adds a dim, an OOM121 candidate, which pinning reads beyond a broadcast)",
                "def f(x, b):\n    y = torch.ones(4).repeat(b, 1).pin_memory()\n    return y.to(\"cuda\")\n",
                &[".repeat(b, 1)"],
                &[],
            ),
            (
                "an operand the expand took its size from is full-size",
                "def f(c, e):\n    return c.expand_as(e) * e\n",
                &[],
                &[],
            ),
            (
                "a repeat read only by broadcasting is a repeat-instead-of-expand",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r * x\n",
                &[".repeat(n, 1)"],
                &[".repeat(n, 1)"],
            ),
            (
                "a repeat read otherwise is not",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r.sum()\n",
                &[".repeat(n, 1)"],
                &[],
            ),
            (
                "a repeat reported for its conversion is not also a repeat-instead-of-expand",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r * 2.0\n",
                &[".repeat(n, 1)", "r * 2.0"],
                &["r * 2.0"],
            ),
        ];
        for (what, code, all, selected) in cases {
            let text = format!("import torch\n{code}");
            let parsed = parse_module(&text, false);
            let analysis = analyze_module(
                &parsed.body,
                &text,
                &ModuleInfo::default(),
                &SummaryTable::default(),
                false,
            );
            assert_eq!(codes(&analysis.sites), *all, "all sites: {what}");
            assert_eq!(
                codes(&select_sites(analysis.sites)),
                *selected,
                "selected: {what}"
            );
        }
    }

    #[test]
    fn a_returned_repeat_is_selected_when_every_caller_only_broadcasts() {
        let module = |name: &str| ModuleInfo {
            qualname: name.to_string(),
            ..ModuleInfo::default()
        };
        let analyze = |text: &str, name: &str, table: &SummaryTable| {
            let parsed = parse_module(text, false);
            analyze_module(&parsed.body, text, &module(name), table, true)
        };
        let helper = "import torch\n\ndef _spread(x, b, q, d):\n    return x.view(b, q, 1).repeat(1, 1, d)\n\n\ndef _kept(x, b, q, d):\n    r = x.view(b, q, 1).repeat(1, 1, d)\n    r.add_(1)\n    return r\n";
        let first = analyze(helper, "pkg.geo", &SummaryTable::default());
        let flags: Vec<(String, bool)> = first
            .summaries
            .iter()
            .map(|s| (s.qualname.clone(), s.returns_repeat))
            .collect();
        assert_eq!(
            flags,
            [
                ("pkg.geo._spread".to_string(), true),
                ("pkg.geo._kept".to_string(), false)
            ]
        );
        // Not selected while the callers are not known.
        assert!(select_sites(first.sites).is_empty());
        let mut table = SummaryTable::default();
        for summary in first.summaries {
            table.insert(summary);
        }
        // (caller, calls, broadcast calls, other mentions); a value that may be the call's result
        // counts every read of it for the call.
        let cases: &[(&str, u32, u32, u32)] = &[
            (
                "def f(h, x):\n    return h * _spread(x, 2, 3, 4)\n",
                1,
                1,
                0,
            ),
            (
                "def f(h, x):\n    s = _spread(x, 2, 3, 4)\n    return torch.where(h > 0, h + s, s)\n",
                1,
                1,
                0,
            ),
            (
                "def f(h, x):\n    s = _spread(x, 2, 3, 4)\n    s[0] = 1\n    return h * s\n",
                1,
                0,
                0,
            ),
            (
                "def f(h, x):\n    return h * _spread(x, 2, 3, 4).view(-1)\n",
                1,
                0,
                0,
            ),
            ("def f(h, x):\n    return g(_spread(x, 2, 3, 4))\n", 1, 0, 0),
            ("def f(h, x):\n    return _spread(x, 2, 3, 4)\n", 1, 0, 0),
            (
                "def f(h, x):\n    _spread(x, 2, 3, 4)\n    return h\n",
                1,
                0,
                0,
            ),
            (
                "def f(h, x, c):\n    s = _spread(x, 2, 3, 4) if c else h\n    return h * s\n",
                1,
                1,
                0,
            ),
            (
                "def f(h, x, c):\n    s = _spread(x, 2, 3, 4)\n    if c:\n        s = h\n    s.mul_(2)\n    return h * s\n",
                1,
                0,
                0,
            ),
            (
                "F = _spread\n\ndef f(h, x):\n    return h * _spread(x, 2, 3, 4)\n",
                1,
                1,
                1,
            ),
            ("__all__ = [\"_spread\"]\n", 0, 0, 1),
            // Stored where reads are not seen: on an object, in a container, as a global, or
            // captured by a nested function.
            (
                "class M:\n    def f(self, h, x):\n        self.m = _spread(x, 2, 3, 4)\n        return h * self.m\n",
                1,
                0,
                0,
            ),
            (
                "def f(h, x, d):\n    d[\"m\"] = _spread(x, 2, 3, 4)\n    return h * d[\"m\"]\n",
                1,
                0,
                0,
            ),
            ("Z = _spread(1, 2, 3, 4)\nW = torch.ones(2) * Z\n", 1, 0, 0),
            (
                "def f(h, x):\n    m = _spread(x, 2, 3, 4)\n    def g():\n        m.add_(1)\n    g()\n    return h * m\n",
                1,
                0,
                0,
            ),
            (
                "def f(h, x):\n    global m\n    m = _spread(x, 2, 3, 4)\n    return h * m\n",
                1,
                0,
                0,
            ),
            (
                "def f(h, x):\n    m = _spread(x, 2, 3, 4)\n    def g(y):\n        return y\n    return h * m\n",
                1,
                1,
                0,
            ),
            ("Y = torch.ones(2) * _spread(1, 2, 3, 4)\n", 1, 1, 0),
            ("def _spread_more(x):\n    return x\n", 0, 0, 0),
        ];
        for (code, calls, broadcast, other) in cases {
            let text = format!("import torch\nfrom pkg.geo import _spread\n{code}");
            let reads = analyze(&text, "pkg.user", &table).helper_reads;
            let got = reads
                .iter()
                .find(|(q, _)| q == "pkg.geo._spread")
                .map(|(_, r)| (r.calls, r.broadcast_calls, r.other_mentions))
                .unwrap_or_default();
            assert_eq!(got, (*calls, *broadcast, *other), "{code}");
        }
        // Every caller broadcasts: the repeat is selected, with what the callers are.
        let reads = crate::analysis::CallerReads {
            calls: 2,
            broadcast_calls: 2,
            other_mentions: 0,
            files: 1,
        };
        table.repeat_callers.insert("pkg.geo._spread".into(), reads);
        let selected = select_sites(analyze(helper, "pkg.geo", &table).sites);
        assert_eq!(codes(&selected), [".repeat(1, 1, d)"]);
        let returned = selected[0].returned_to_callers.as_ref().expect("returned");
        assert_eq!(returned.function, "pkg.geo._spread");
        assert!(!returned.public);
        // One call that needs the copy, or one other mention: not selected.
        for other in [
            crate::analysis::CallerReads {
                broadcast_calls: 1,
                ..reads
            },
            crate::analysis::CallerReads {
                other_mentions: 1,
                ..reads
            },
        ] {
            table.repeat_callers.insert("pkg.geo._spread".into(), other);
            assert!(select_sites(analyze(helper, "pkg.geo", &table).sites).is_empty());
        }
    }

    #[test]
    fn copies_needed_for_layout() {
        // (what, code, is the one materialization a layout copy)
        let cases: &[(&str, &str, bool)] = &[
            (
                "repeat_kv merges the new dim",
                "def f(h, b, kv, n, s, d):\n    h = h[:, :, None].expand(b, kv, n, s, d)\n    return h.reshape(b, kv * n, s, d)\n",
                true,
            ),
            (
                "contiguous then a merging view",
                "def f(e, b, w, d):\n    e = e.unsqueeze(1).expand(b, b, w, d).contiguous()\n    return e.view(b * b, w, d)\n",
                true,
            ),
            (
                "contiguous then a view that keeps the dims",
                "def f(m, b, h, q, k):\n    m = m[:, None, None, :].expand(b, h, q, k).contiguous()\n    return m.view(b, h, q, k)\n",
                false,
            ),
            (
                "merged, then converted again",
                "def f(m, l, b, s, k, dev):\n    return m[None, :, :, None].expand(l, b, s, k).reshape(-1).to(dev)\n",
                false,
            ),
            (
                "merged, then read by an elementwise op",
                "def f(x, rms, B, C, H, W):\n    return x / rms.expand(B, 8, C // 8, H, W).reshape(B, C, H, W)\n",
                false,
            ),
            (
                "merged, read by an elementwise op and by a matmul",
                "def f(q, r, b, kv, n, s, d):\n    k = r[:, :, None].expand(b, kv, n, s, d).reshape(b, kv * n, s, d)\n    return torch.matmul(q, k) + k\n",
                true,
            ),
            (
                "contiguous then asserted contiguous",
                "def f(m, b, q):\n    c = m[:, None, :].expand(b, q, -1).contiguous()\n    assert c.is_contiguous()\n    return c.sum()\n",
                true,
            ),
            (
                "contiguous then tested in an if",
                "def f(m, b, q):\n    c = m[:, None, :].expand(b, q, -1).contiguous()\n    if c.is_contiguous():\n        return c.sum()\n    return c\n",
                false,
            ),
            (
                "clone made a parameter (the optimizer writes it)",
                "def f(m, b, q):\n    return torch.nn.Parameter(m[:, None, :].expand(b, q, -1).clone())\n",
                true,
            ),
            (
                "clone written in place",
                "def f(m, b, q):\n    c = m[:, None, :].expand(b, q, -1).clone()\n    c[..., 0] = 1\n    return c\n",
                true,
            ),
        ];
        for (what, code, layout) in cases {
            let text = format!("import torch\n{code}");
            let parsed = parse_module(&text, false);
            let analysis = analyze_module(
                &parsed.body,
                &text,
                &ModuleInfo::default(),
                &SummaryTable::default(),
                false,
            );
            let site = analysis
                .sites
                .iter()
                .find(|s| s.sink == SinkKind::Materialize)
                .unwrap_or_else(|| panic!("no materialization: {what}"));
            assert_eq!(copy_needed_for_layout(site), *layout, "{what}");
        }
    }
}
