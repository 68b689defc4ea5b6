//! Sizes a profile measured (`check --profile`, `dims --from`): the value of each symbolic dim the
//! cross-reference matched against a measured shape or byte count, with where it came from, and
//! what each measured site allocated at once (so a capacity check can scale it to other sizes).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::{Bindings, Estimate, ValueSource};

/// One measured dim: its value, the evidence file and the site (`file:line`) it came from, and the
/// other values other sites or profiles measured for the same name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnedDim {
    pub value: i64,
    pub evidence: Arc<str>,
    pub at: Arc<str>,
    /// Smaller values measured elsewhere (the larger is kept), with their evidence and site.
    pub conflicts: Vec<(i64, Arc<str>, Arc<str>)>,
}

impl LearnedDim {
    pub fn source(&self) -> ValueSource {
        ValueSource::Profile {
            evidence: self.evidence.clone(),
            at: self.at.clone(),
        }
    }

    /// `batch_size: also measured 1 (bs1.trace.json, tiny_model.py:35); the larger, 2, is used`.
    pub fn conflict_note(&self, name: &str) -> Option<String> {
        if self.conflicts.is_empty() {
            return None;
        }
        let others: Vec<String> = self
            .conflicts
            .iter()
            .map(|(v, ev, at)| format!("{v} ({ev}, {at})"))
            .collect();
        Some(format!(
            "`{name}`: the profiles also measured {}; the larger, {} ({}, {}), is used",
            others.join(", "),
            self.value,
            self.evidence,
            self.at
        ))
    }
}

/// What one measured site allocated: the most bytes its allocations held at once in one
/// execution, and the elements of the measured shape its figure matched (to scale the bytes to
/// other sizes), when the evidence recorded a shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteMeasure {
    pub peak_bytes: u64,
    pub elements: Option<u128>,
    pub evidence: Arc<str>,
}

/// Everything the profiles told about sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LearnedDims {
    /// By the dim's name as the code writes it (`total_seq_len`, `attn_mask.shape[-1]`).
    pub dims: BTreeMap<String, LearnedDim>,
    /// By (file as displayed, row) of the finding.
    pub sites: HashMap<(Arc<str>, usize), SiteMeasure>,
    /// The largest static memory a profile measured (weights, caches), with its evidence file.
    pub static_memory: Option<(u64, Arc<str>)>,
}

impl LearnedDims {
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty() && self.sites.is_empty() && self.static_memory.is_none()
    }

    /// The dim by its full name, else by its last attribute (`self.num_heads` -> `num_heads`).
    pub fn get(&self, name: &str, last: &str) -> Option<&LearnedDim> {
        self.dims.get(name).or_else(|| self.dims.get(last))
    }

    /// Records a measured value; of two different values the larger is kept, the other noted.
    pub fn learn(&mut self, name: &str, value: i64, evidence: &Arc<str>, at: &Arc<str>) {
        match self.dims.get_mut(name) {
            None => {
                self.dims.insert(
                    name.to_string(),
                    LearnedDim {
                        value,
                        evidence: evidence.clone(),
                        at: at.clone(),
                        conflicts: Vec::new(),
                    },
                );
            }
            Some(dim) if dim.value == value => {}
            Some(dim) => {
                let other = if value > dim.value {
                    let old = (dim.value, dim.evidence.clone(), dim.at.clone());
                    dim.value = value;
                    dim.evidence = evidence.clone();
                    dim.at = at.clone();
                    old
                } else {
                    (value, evidence.clone(), at.clone())
                };
                if !dim.conflicts.contains(&other) {
                    dim.conflicts.push(other);
                }
            }
        }
    }
}

/// A `-1` kept from a source of unknown size that `site_figure` named after its source
/// (`attn_mask.shape[-1]`): a size bound or measured under that name replaces the unknown-extent
/// default. `None` when the arithmetic overflows.
pub(super) fn bind_named_unknowns(
    estimate: &mut Estimate,
    bindings: &Bindings,
    itemsize: u64,
) -> Option<()> {
    let mut changed = false;
    for dim in &mut estimate.dims {
        let [(name, value, source)] = dim.sources.as_mut_slice() else {
            continue;
        };
        if !matches!(source, ValueSource::Assumed(_) | ValueSource::RoleBound(..))
            || !name.contains(".shape[")
        {
            continue;
        }
        let found = match bindings.by_name.get(name.as_str()) {
            Some(v) => Some((*v, ValueSource::Bound(bindings.origin(name)))),
            None => bindings
                .learned
                .dims
                .get(name.as_str())
                .map(|d| (d.value, d.source())),
        };
        if let Some((v, s)) = found {
            *value = v;
            *source = s;
            dim.value = v;
            changed = true;
        }
    }
    if changed {
        let mut numel: u128 = 1;
        for dim in &estimate.dims {
            numel = numel.checked_mul(u128::try_from(dim.value).ok()?)?;
        }
        estimate.numel = numel;
        estimate.bytes = numel.checked_mul(u128::from(itemsize))?;
    }
    Some(())
}
