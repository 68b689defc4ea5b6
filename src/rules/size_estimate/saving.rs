//! What casting first saves for a cast of a repeated copy. For a copy enlarger of `n` elements by
//! a factor `r` and a cast from itemsize `s` to itemsize `d`, the current order allocates `r*n*s`
//! then `r*n*d`; casting first allocates `n*d` then `r*n*d`. The saving is `n*(r*s - d)`: none
//! when `r*s <= d` (a repeat x2 of bfloat16 cast to float32, a repeat of at most x4 of bool cast
//! to float32). A view enlarger allocates nothing itself, so the reorder always saves there.

use crate::analysis::{DType, EnlargeKind, SinkKind, Site};

use super::{Bindings, ValueSource, names};

/// What the reorder saves, as far as the factor and the dtypes are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saving {
    /// Not a cast of a copy, the target dtype or the factor is not known, or the reorder saves
    /// memory whatever the unknowns are.
    Saves,
    /// Surely nothing: the factor is stated and `factor x itemsize(source) <= itemsize(target)`.
    Nothing {
        op: String,
        factor: i64,
        source: DType,
        target: DType,
    },
    /// Nothing for some value of what is not known (a guessed factor, an unknown source dtype):
    /// the finding is a "may", with this note.
    Depends(String),
}

/// The saving of moving a site's cast before its copying enlarger.
pub fn cast_first_saving(site: &Site, bindings: &Bindings) -> Saving {
    let SinkKind::Cast {
        in_reduction: false,
        ..
    } = site.sink
    else {
        return Saving::Saves;
    };
    let (EnlargeKind::Copy, Some(growth), Some(target)) = (
        site.enlarged.kind,
        site.enlarged.growth.as_ref(),
        site.result_dtype,
    ) else {
        return Saving::Saves;
    };
    if growth.is_empty() {
        return Saving::Saves;
    }
    // The factor: the product of every size the chain grows, each name at its bound value.
    let mut read = Vec::new();
    for g in growth {
        names(g, &mut read);
    }
    let sources: Vec<(String, i64, ValueSource)> = read
        .iter()
        .map(|n| {
            let (v, s) = bindings.value_of(n, &[]);
            (n.clone(), v, s)
        })
        .collect();
    let lookup = |n: &str| sources.iter().find(|(m, _, _)| m == n).map(|(_, v, _)| *v);
    let mut factor: i64 = 1;
    for g in growth {
        let Some(v) = g.evaluate(&lookup).and_then(|v| factor.checked_mul(v)) else {
            return Saving::Saves;
        };
        factor = v;
    }
    let factor = factor.max(1);
    let stated = sources.iter().all(|(_, _, s)| s.is_stated());
    let d = target.itemsize() as i64;
    let op = site.enlarged.op.clone();
    let factor_text = growth
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" x ");
    let guess = || {
        let at: Vec<String> = sources
            .iter()
            .map(|(n, v, s)| format!("{n}={v} ({s})"))
            .collect();
        format!("`{factor_text}` (a guess of {factor} at {})", at.join(", "))
    };
    match (site.source_dtype, stated) {
        (Some(source), true) if factor * source.itemsize() as i64 <= d => Saving::Nothing {
            op,
            factor,
            source,
            target,
        },
        (Some(_), true) => Saving::Saves,
        // The saving is none for a factor up to d / s.
        (Some(source), false) => {
            let s = source.itemsize() as i64;
            if d < s {
                return Saving::Saves;
            }
            Saving::Depends(format!(
                "saving: depends on the factor {}: casting {} to {} first saves nothing when the \
                 factor is at most {}",
                guess(),
                source.name(),
                target.name(),
                d / s
            ))
        }
        // The saving is none for a source of at most d / r bytes (or one already `target`);
        // with the factor guessed too, said only where the guess leaves that possible.
        (None, true) if factor <= d => Saving::Depends(format!(
            "saving: depends on the source dtype, which is not known: after `{op}` x{factor}, \
             casting to {t} first saves nothing for a source of at most {} bytes per element \
             or one already {t}",
            d / factor,
            t = target.name(),
        )),
        (None, true) => Saving::Saves,
        (None, false) if factor <= d => Saving::Depends(format!(
            "saving: depends on the factor {} and on the source dtype, which is not known: \
             casting to {} first saves nothing when factor x source bytes per element is at \
             most {d}",
            guess(),
            target.name()
        )),
        (None, false) => Saving::Saves,
    }
}

impl Saving {
    /// Why a site that saves nothing gives no finding (for `oomlint sites`).
    pub fn describe_nothing(op: &str, factor: i64, source: DType, target: DType) -> String {
        format!(
            "no saving: {op} x{factor} of {} then cast to {} (casting first allocates as much \
             or more)",
            source.name(),
            target.name()
        )
    }
}
