//! The memory budget (`--capacity`, `capacity` in the configuration): a finding's allocation at
//! the bound sizes compared with the device's capacity, less the static memory a profile measured
//! (weights, caches) when one is attached. A finding that would exceed it says so in its message
//! and carries `capacity` / `exceeds_capacity` in its size figure.

use crate::fmt::Bytes;

use super::Finding;
use super::size_estimate::{LearnedDims, SizeFigure, ValueSource};

/// What the allocation is compared with.
pub struct Budget<'a> {
    /// The device's capacity in bytes.
    pub capacity: u64,
    /// What the profiles measured (static memory, each site's bytes at once).
    pub learned: &'a LearnedDims,
}

/// `1 GiB`, `1.12 GiB`: two decimals unless the size is whole in its unit.
fn short(bytes: u64) -> String {
    let text = Bytes(bytes).to_string();
    text.replace(".00 ", " ")
}

/// The bytes the finding's site allocates at the bound sizes: its figure, or, where a profile
/// measured the site with a shape, what the site held at once there scaled by the figure's
/// elements over the measured ones (an NPU that materializes an int64 broadcast before the cast
/// allocates more than the result's figure says).
fn allocation(size: &SizeFigure, budget: &Budget, site: Option<(&str, usize)>) -> (u128, bool) {
    let figure = size.estimate.bytes;
    let measured = site
        .and_then(|(file, row)| budget.learned.sites.get(&(file.into(), row)))
        .and_then(|m| {
            let elements = m.elements.filter(|&e| e > 0)?;
            u128::from(m.peak_bytes)
                .checked_mul(size.estimate.numel)
                .map(|b| b / elements)
        });
    match measured {
        Some(m) if m > figure => (m, true),
        _ => (figure, false),
    }
}

/// `batch_size=3`: the sizes the user bound, else every named size of the figure.
fn at_sizes(size: &SizeFigure) -> String {
    let sources: Vec<&(String, i64, ValueSource)> = size
        .estimate
        .dims
        .iter()
        .flat_map(|d| &d.sources)
        .filter(|(_, _, s)| !matches!(s, ValueSource::Literal))
        .collect();
    let bound: Vec<&&(String, i64, ValueSource)> = sources
        .iter()
        .filter(|(_, _, s)| matches!(s, ValueSource::Bound(_) | ValueSource::RoleBound(..)))
        .collect();
    let chosen: Vec<&(String, i64, ValueSource)> = if bound.is_empty() {
        sources
    } else {
        bound.into_iter().copied().collect()
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut parts = Vec::new();
    for (name, value, _) in chosen {
        if !seen.contains(&name.as_str()) {
            seen.push(name);
            parts.push(format!("{name}={value}"));
        }
    }
    parts.join(", ")
}

/// Compares the finding's allocation with the budget; `site` is the finding's file (as
/// displayed) and row, for what a profile measured there.
pub fn apply(finding: &mut Finding, budget: &Budget, site: Option<(&str, usize)>) {
    let Some(size) = finding.size.as_mut() else {
        return;
    };
    let statics = budget.learned.static_memory.as_ref();
    let available = budget
        .capacity
        .saturating_sub(statics.map_or(0, |(bytes, _)| *bytes));
    let (bytes, scaled) = allocation(size, budget, site);
    let exceeds = bytes > u128::from(available);
    size.capacity = Some(available);
    size.exceeds_capacity = Some(exceeds);
    if scaled {
        finding.notes.push(format!(
            "the profile measured what this line holds at once; at these sizes that is {:#}",
            Bytes::saturating(bytes)
        ));
    }
    if !exceeds {
        return;
    }
    let limit = match statics {
        Some((static_bytes, evidence)) => format!(
            "the {} left of the {} capacity after {} of static memory ({evidence})",
            short(available),
            short(budget.capacity),
            short(*static_bytes)
        ),
        None => format!("the {} capacity", short(budget.capacity)),
    };
    let at = at_sizes(size);
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    };
    finding.message = format!(
        "{}; it would allocate {}{at}, more than {limit}",
        finding.message,
        short(u64::try_from(bytes).unwrap_or(u64::MAX))
    );
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn short_sizes() {
        assert_eq!(short(1 << 30), "1 GiB");
        assert_eq!(short(1_207_959_552), "1.12 GiB");
        assert_eq!(short(512), "512 B");
    }
}
