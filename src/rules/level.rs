//! Error or warning: the one decision (as ESLint and clippy have two levels). `check` fails on
//! errors; warnings fail it only with `--max-warnings N` or `fail-on = "warning"`.

use crate::analysis::{EnlargeKind, SinkKind, Site};
use crate::diagnostic::Level;

use super::RuleInfo;
use super::select::{copy_needed_for_layout, only_combined};
use super::size_estimate::SizeFigure;

/// What the level of one finding is decided from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelFacts {
    /// The pattern is certain from facts ([`pattern_is_certain`]).
    pub certain: bool,
    /// The size is large on a stated basis ([`large_on_stated_basis`], or measured bytes at or
    /// above the threshold).
    pub stated_large: bool,
    /// The allocation at the bound sizes exceeds the device (`SizeFigure::exceeds_capacity`).
    pub exceeds_capacity: bool,
    /// The finding is in a test file (`test-files`).
    pub in_test_file: bool,
}

/// The level of a finding. It is an **error** only when it is not in a test file and either
///
/// - the pattern is certain from facts ([`pattern_is_certain`]: every path enlarges, the
///   conversion surely changes the dtype or the device, the sink writes the full shape, and the
///   copy is not one the code needs) **and** its size is large on a stated basis
///   ([`large_on_stated_basis`]: every number of the size comes from the code, `--dim`,
///   `[tool.oomlint.dims]` or the model's configuration, none assumed from a role, and the bytes
///   at those sizes reach `min-static-bytes`; for a profile, the measured bytes reach the
///   threshold), **or**
/// - its allocation at the bound sizes exceeds the device's capacity.
///
/// Every other reported finding is a **warning**: a size guessed from a name, a "may", a copy
/// the code may need, a site in a test file.
pub fn decide(facts: LevelFacts) -> Level {
    if facts.in_test_file {
        return Level::Warning;
    }
    if (facts.certain && facts.stated_large) || facts.exceeds_capacity {
        Level::Error
    } else {
        Level::Warning
    }
}

/// The level of a static finding for `site` with its size figure.
pub fn static_level(
    site: &Site,
    size: Option<&SizeFigure>,
    min_static_bytes: u64,
    in_test_file: bool,
) -> Level {
    finding_level(
        pattern_is_certain(site),
        size,
        min_static_bytes,
        in_test_file,
    )
}

/// The level of a static finding whose pattern certainty is already known (`Finding::
/// pattern_certain`): decided when the rule claims the site, and again once the capacity check
/// has filled `exceeds_capacity`.
pub fn finding_level(
    certain: bool,
    size: Option<&SizeFigure>,
    min_static_bytes: u64,
    in_test_file: bool,
) -> Level {
    decide(LevelFacts {
        certain,
        stated_large: large_on_stated_basis(size, min_static_bytes),
        exceeds_capacity: size.is_some_and(|s| s.exceeds_capacity == Some(true)),
        in_test_file,
    })
}

/// The level of a rule that is not about a site. A file that does not parse or cannot be read
/// (OOM001, OOM002) is an error wherever it is. Profile findings are measured facts, so their
/// size has a stated basis (the bytes the evidence recorded, at or above `min-bytes`): an OOM
/// site (OOM203, the run died there) and a materialized broadcast the profile saw (OOM201, the
/// certain pattern) are errors; a large allocation (OOM202) is a warning, since nothing says it
/// can be avoided. In a test file each is a warning.
pub fn rule_level(rule: &RuleInfo, in_test_file: bool) -> Level {
    match rule.code {
        "OOM001" | "OOM002" => Level::Error,
        "OOM201" | "OOM203" => decide(LevelFacts {
            certain: true,
            stated_large: true,
            exceeds_capacity: false,
            in_test_file,
        }),
        _ => Level::Warning,
    }
}

/// Whether a site's pattern is certain from facts:
///
/// - every path reaches the sink enlarged (not `Enlarged::may`);
/// - the conversion surely writes a new full-size tensor: a cast whose argument is surely a
///   dtype (`certain`), not a reduction's `dtype=`, to a known dtype other than the value's. When
///   the value's dtype is known and equal the analysis reports no site; when it is not known
///   (a parameter: the seed's `attn_mask.bool()`), the cast the author wrote is taken to convert,
///   since nothing the analysis knows says it is a no-op (the no-op classes are removed by
///   learning the dtype, e.g. from the op a value comes from); a device move only when the value is known to live elsewhere
///   (`moves_across_devices`); an elementwise op always writes its full-size result, unless its
///   other operand is itself enlarged over the same dims (then moving one enlargement alone does
///   not help);
/// - the copy is not one the code needs: a `.contiguous()`/`.clone()` is certain only when the
///   analysis sees what follows it (it is merged and then converted again, or only combined by
///   elementwise ops); dropping it is otherwise advice about consumers the analysis may not see
///   (a kernel that checks strides). A repeat that could be an `expand` is certain when its
///   readers are seen to broadcast; for a public function, callers outside the project are not.
pub fn pattern_is_certain(site: &Site) -> bool {
    if site.enlarged.may {
        return false;
    }
    let sink_certain = match &site.sink {
        SinkKind::Cast {
            target,
            certain,
            in_reduction,
            inside,
        } => {
            // A cast the analysis knows to be a no-op is no site at all; a source of unknown
            // dtype is taken to differ (see the doc comment). A conversion inside an op is
            // certain only of a source known to be what it converts (a bool mask).
            match inside {
                Some(_) => site.source_dtype == Some(crate::analysis::DType::Bool),
                None => {
                    *certain && !*in_reduction && target.is_some() && *target != site.source_dtype
                }
            }
        }
        SinkKind::DeviceMove => site.moves_across_devices,
        SinkKind::Elementwise => !site.other_operand_enlarged,
        SinkKind::Materialize => {
            site.enlarged.kind == EnlargeKind::View
                && !copy_needed_for_layout(site)
                && site.merged_later
                && (site.result_converted || only_combined(site))
        }
        SinkKind::RepeatAsExpand {
            may_if: Some(_), ..
        } => false,
        SinkKind::RepeatAsExpand { .. } => match &site.returned_to_callers {
            _ if site.only_broadcast_reads => true,
            Some(returned) => !returned.public,
            None => false,
        },
    };
    sink_certain && !site.result_needs_contiguous
}

/// Whether a size is large on a stated basis: every dim's number is stated
/// ([`SizeFigure::basis_is_stated`]) and the bytes at those sizes reach `min_static_bytes`.
/// No figure (the rank is unknown) is not a stated size.
pub fn large_on_stated_basis(size: Option<&SizeFigure>, min_static_bytes: u64) -> bool {
    size.is_some_and(|s| s.basis_is_stated() && s.estimate.bytes >= u128::from(min_static_bytes))
}

#[cfg(test)]
mod tests;
