//! Which analysis sites become findings. The analysis reports every site with plain facts about
//! its result (thrown away, written in place, its copy read elsewhere, read only by broadcasting);
//! the policy of which of those are worth a finding, and which rule wins when two would claim the
//! same code, lives here with the rules.

use crate::analysis::{EnlargeKind, SinkKind, Site, StepRole};
use crate::source::TextRange;

/// The sites worth a finding, in the order the analysis gave them.
pub(crate) fn select_sites(sites: Vec<Site>) -> Vec<Site> {
    let worth: Vec<bool> = sites
        .iter()
        .map(|site| match site.sink {
            // Judged below, once the conversions are known.
            SinkKind::RepeatAsExpand { .. } => false,
            _ => conversion_is_worth_reporting(site),
        })
        .collect();
    // A repeat already reported for its conversion is not also a repeat-instead-of-expand.
    let reported_repeats: Vec<TextRange> = sites
        .iter()
        .zip(&worth)
        .filter(|(_, worth)| **worth)
        .flat_map(|(site, _)| site.enlarged.steps.iter())
        .filter(|step| step.role == StepRole::Enlarge)
        .map(|step| step.range)
        .collect();
    sites
        .into_iter()
        .zip(worth)
        .filter(|(site, worth)| match site.sink {
            SinkKind::RepeatAsExpand { .. } => {
                site.only_broadcast_reads && !reported_repeats.contains(&site.sink_step.range)
            }
            _ => *worth,
        })
        .map(|(site, _)| site)
        .collect()
}

/// A conversion (cast, move, materialization, elementwise op) of an enlarged value.
fn conversion_is_worth_reporting(site: &Site) -> bool {
    // A conversion whose result is thrown away allocates nothing anyone keeps.
    if site.discarded {
        return false;
    }
    match site.enlarged.kind {
        // The copy was needed for the in-place write.
        EnlargeKind::View => !site.written_in_place,
        // After the reorder the result is still a real, writable copy; but when the repeated
        // tensor is also read elsewhere, converting first would need a second repeat, which saves
        // nothing.
        EnlargeKind::Copy => !site.copy_read_elsewhere,
    }
}
