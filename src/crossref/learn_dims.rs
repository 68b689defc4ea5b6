//! Sizes learned from a profile: each static finding the evidence ran is matched against what the
//! evidence measured there. Its symbolic shape (`[batch_size, num_attention_heads, total_seq_len,
//! attn_mask.shape[-1]]`) against a measured input shape of the same rank, or, where the evidence
//! has no shapes (a CUDA snapshot), its one unknown dim solved from the bytes. Each match binds
//! `name = value` by name for the whole project ([`LearnedDims`]); the lint then prices every other
//! site with those values. Also kept: what each measured site held at once (for the capacity
//! check) and the largest static memory a profile measured.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::LintedFile;
use super::locate::{Joiner, LineMatch, Target};
use crate::evidence::report::{analyze, is_static, step_start_ns};
use crate::evidence::{Allocation, Evidence};
use crate::model::LintResult;
use crate::rules::size_estimate::{LearnedDims, SiteMeasure, SizeFigure, ValueSource};

/// The last component of a path (`bs2.trace.json`, `tiny_model.py`), for the basis of a size.
fn file_name(path: &str) -> Arc<str> {
    Arc::from(
        Path::new(path)
            .file_name()
            .map_or(path.into(), |n| n.to_string_lossy()),
    )
}

/// The most bytes `allocs` held at once: a sweep over their lifetimes (a block never freed lives
/// to the end); blocks without times count alone.
fn held_at_once(allocs: &[&Allocation]) -> u64 {
    let mut events: Vec<(i64, i8, u64)> = Vec::new();
    let mut single = 0;
    for a in allocs {
        single = single.max(a.bytes);
        if let Some(t) = a.alloc_time_ns {
            events.push((t, 1, a.bytes));
            events.push((a.free_time_ns.unwrap_or(i64::MAX), -1, a.bytes));
        }
    }
    // Frees before allocations at the same time: a block reused at once is not held twice.
    events.sort_by_key(|&(t, sign, _)| (t, sign));
    let (mut live, mut peak) = (0u64, 0u64);
    for (_, sign, bytes) in events {
        if sign > 0 {
            live = live.saturating_add(bytes);
            peak = peak.max(live);
        } else {
            live = live.saturating_sub(bytes);
        }
    }
    peak.max(single)
}

/// A dim of the figure that a measurement can bind: one plain name written as the dim (not a
/// literal, not an expression of several names).
fn bindable(dim: &crate::rules::size_estimate::DimValue) -> Option<&str> {
    match dim.sources.as_slice() {
        [(name, _, source)] if *name == dim.text && !matches!(source, ValueSource::Literal) => {
            Some(name)
        }
        _ => None,
    }
}

/// The measured shape the figure matches: same rank, every literal equal, a name written twice
/// measured the same; of several, the largest (the enlarged operand, not its small source).
fn matching_shape<'s>(size: &SizeFigure, shapes: &'s [Vec<i64>]) -> Option<&'s [i64]> {
    let dims = &size.estimate.dims;
    shapes
        .iter()
        .filter(|s| s.len() == dims.len() && s.iter().all(|&v| v >= 1))
        .filter(|s| {
            dims.iter().zip(s.iter()).all(|(d, &v)| match bindable(d) {
                Some(name) => dims
                    .iter()
                    .zip(s.iter())
                    .all(|(o, &w)| bindable(o) != Some(name) || w == v),
                None => {
                    d.sources.len() == 1
                        && matches!(d.sources[0].2, ValueSource::Literal)
                        && d.value == v
                }
            })
        })
        .max_by_key(|s| s.iter().map(|&v| v as u128).product::<u128>())
        .map(Vec::as_slice)
}

/// A site measured by bytes only, waiting for the other dims to be known.
struct ByBytes {
    size: SizeFigure,
    bytes: u64,
    evidence: Arc<str>,
    at: Arc<str>,
    key: (Arc<str>, usize),
}

/// Solves the one unknown dim of `p` from its bytes, with every other dim a literal, a size the
/// model's configuration states or one learned from a shape. Only when the bytes divide evenly.
fn solve_by_bytes(p: &ByBytes, learned: &LearnedDims) -> Option<(String, i64, u128)> {
    if p.size.dtype.is_none() || !p.bytes.is_multiple_of(p.size.itemsize) {
        return None;
    }
    let elements = u128::from(p.bytes / p.size.itemsize);
    let mut known: u128 = 1;
    let mut unknown: Option<&str> = None;
    for dim in &p.size.estimate.dims {
        let [(name, value, source)] = dim.sources.as_slice() else {
            return None;
        };
        let last = name.rsplit('.').next().unwrap_or(name);
        let value = match source {
            ValueSource::Literal | ValueSource::Config(_) => *value,
            _ => match learned.get(name, last) {
                Some(d) => d.value,
                None if bindable(dim).is_some() && unknown.is_none_or(|u| u == name) => {
                    if unknown.is_some() {
                        // The same name twice: not a single linear unknown.
                        return None;
                    }
                    unknown = Some(name);
                    continue;
                }
                None => return None,
            },
        };
        known = known.checked_mul(u128::try_from(value).ok()?)?;
    }
    let name = unknown?;
    if known == 0 || !elements.is_multiple_of(known) {
        return None;
    }
    let value = i64::try_from(elements / known).ok().filter(|&v| v >= 1)?;
    Some((name.to_string(), value, elements))
}

/// Learns sizes from `evidence` at the static findings of `result` (see the module documentation).
pub fn learn(
    result: &LintResult,
    files: &[LintedFile],
    evidence: &[Evidence],
    path_map: &[(String, PathBuf)],
    max_file_size: u64,
) -> LearnedDims {
    let mut joiner = Joiner::new(result, files, path_map, max_file_size);
    let mut learned = LearnedDims::default();
    let mut by_bytes: Vec<ByBytes> = Vec::new();
    for ev in evidence {
        let ev_name = file_name(&ev.path.to_string_lossy());
        if let Some(st) = analyze(ev, 0).static_memory
            && st.static_bytes > 0
            && learned
                .static_memory
                .as_ref()
                .is_none_or(|(b, _)| *b < st.static_bytes)
        {
            learned.static_memory = Some((st.static_bytes, ev_name.clone()));
        }
        let step_start = step_start_ns(ev);
        let mut at_diag: Vec<((usize, usize), Vec<&Allocation>)> = Vec::new();
        for a in &ev.allocations {
            if is_static(a, step_start) {
                continue;
            }
            let Some((Target::Diag(ri, di), _, how)) =
                joiner.locate(result, &a.stack, a.op.as_deref())
            else {
                continue;
            };
            if how == Some(LineMatch::AmbiguousInFunction) {
                continue;
            }
            match at_diag.iter_mut().find(|(k, _)| *k == (ri, di)) {
                Some((_, list)) => list.push(a),
                None => at_diag.push(((ri, di), vec![a])),
            }
        }
        for ((ri, di), allocs) in at_diag {
            let d = &result.reports[ri].diagnostics[di];
            let Some(size) = d.size.as_deref() else {
                continue;
            };
            let at: Arc<str> = Arc::from(format!("{}:{}", file_name(&d.file), d.location.row));
            let key = (d.file.clone(), d.location.row);
            let shape = allocs
                .iter()
                .find_map(|a| matching_shape(size, &a.input_shapes));
            let peak_bytes = held_at_once(&allocs);
            let elements = match shape {
                Some(shape) => {
                    for (dim, &v) in size.estimate.dims.iter().zip(shape) {
                        if let Some(name) = bindable(dim) {
                            learned.learn(name, v, &ev_name, &at);
                        }
                    }
                    Some(shape.iter().map(|&v| v as u128).product())
                }
                None => {
                    let largest = allocs.iter().map(|a| a.bytes).max().unwrap_or(0);
                    by_bytes.push(ByBytes {
                        size: size.clone(),
                        bytes: largest,
                        evidence: ev_name.clone(),
                        at: at.clone(),
                        key: key.clone(),
                    });
                    None
                }
            };
            let measure = SiteMeasure {
                peak_bytes,
                elements,
                evidence: ev_name.clone(),
            };
            keep_site(&mut learned, key, measure);
        }
    }
    // Bytes only after every shape: a dim a shape measured is known when solving for another.
    for p in &by_bytes {
        if let Some((name, value, elements)) = solve_by_bytes(p, &learned) {
            learned.learn(&name, value, &p.evidence, &p.at);
            if let Some(m) = learned.sites.get_mut(&p.key)
                && m.elements.is_none()
            {
                m.elements = Some(elements);
            }
        }
    }
    learned
}

/// One measurement per site: one with a shape over one without, then the larger.
fn keep_site(learned: &mut LearnedDims, key: (Arc<str>, usize), m: SiteMeasure) {
    let better = |old: &SiteMeasure| {
        (m.elements.is_some(), m.peak_bytes) > (old.elements.is_some(), old.peak_bytes)
    };
    match learned.sites.get(&key) {
        Some(old) if !better(old) => {}
        _ => {
            learned.sites.insert(key, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Device, DeviceKind};

    fn alloc(bytes: u64, from: i64, to: Option<i64>) -> Allocation {
        let mut a = Allocation::new(
            bytes,
            Device {
                kind: DeviceKind::Cpu,
                index: None,
            },
        );
        a.alloc_time_ns = Some(from);
        a.free_time_ns = to;
        a
    }

    #[test]
    fn held_at_once_sums_overlapping_blocks_only() {
        let a = alloc(8, 0, Some(10));
        let b = alloc(1, 5, Some(8));
        let c = alloc(8, 10, Some(20));
        assert_eq!(held_at_once(&[&a, &b, &c]), 9);
        let lone = Allocation::new(
            7,
            Device {
                kind: DeviceKind::Cpu,
                index: None,
            },
        );
        assert_eq!(held_at_once(&[&lone]), 7);
    }
}
