//! Why a site gives no finding, in words (for `oomlint sites`): the reasons
//! [`super::check_site_explained`] and [`super::selection`] return.

use crate::analysis::{DType, SinkKind, Site};
use crate::fmt::Bytes;

/// Why a selected site gives no finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// No rule claims it (a device move that may already be there, for instance).
    Unclaimed,
    /// Below `min-static-bytes` at its bound sizes.
    Tiny { bytes: u128, min_static_bytes: u64 },
    /// A few copies of one example's tensor of unknown extent.
    PerExampleCopy,
    /// An integer index over one extent (positions, patch ids).
    IndexOverOneExtent,
    /// Casting before the copying enlarger saves nothing: `factor x itemsize(source) <=
    /// itemsize(target)` ([`crate::rules::size_estimate::cast_first_saving`]).
    NoSaving {
        op: String,
        factor: i64,
        source: DType,
        target: DType,
    },
}

impl Dropped {
    /// The reason as `oomlint sites` prints it.
    pub fn describe(&self, site: &Site) -> String {
        match self {
            Dropped::Unclaimed if site.sink == SinkKind::DeviceMove && site.move_is_noop => {
                match &site.already_on {
                    Some(on) => format!(
                        "a no-op: the value is already on `{}` (placed there on line {})",
                        on.device, on.line
                    ),
                    None => "a no-op: the value already lives where it is moved".into(),
                }
            }
            Dropped::Unclaimed
                if site.sink == SinkKind::DeviceMove && !site.moves_across_devices =>
            {
                "the value may already be on that device (where it was made is not known)".into()
            }
            Dropped::Unclaimed => "no rule reports this kind of conversion".into(),
            Dropped::Tiny {
                bytes,
                min_static_bytes,
            } => format!(
                "tiny at its bound size: {} is below min-static-bytes ({})",
                Bytes::saturating(*bytes),
                Bytes(*min_static_bytes)
            ),
            Dropped::PerExampleCopy => {
                "a few copies of one example's tensor of unknown extent".into()
            }
            Dropped::IndexOverOneExtent => "an integer index over one extent".into(),
            Dropped::NoSaving {
                op,
                factor,
                source,
                target,
            } => {
                crate::rules::size_estimate::Saving::describe_nothing(op, *factor, *source, *target)
            }
        }
    }
}
