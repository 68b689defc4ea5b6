//! Shared wording of the profile rules (OOM201-OOM203).

use crate::diagnostic::Measured;

use super::describe::{format_bytes, group_digits};

/// `[2, 24, 2048, 2048]`.
pub fn shape(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// `201,326,592 B (192.00 MiB)`.
pub fn bytes(n: u64) -> String {
    format!(
        "{} B ({})",
        group_digits(u128::from(n)),
        format_bytes(u128::from(n))
    )
}

/// The first tensor input: its shape, dtype and strides, as `[2, 24, 2048, 2048] long int,
/// strides [0, 0, 2048, 1]`.
pub fn first_input(m: &Measured) -> Option<String> {
    let i = m.input_shapes.iter().position(|s| !s.is_empty())?;
    let mut out = shape(&m.input_shapes[i]);
    if let Some(d) = m.input_dtypes.get(i).filter(|d| !d.is_empty()) {
        out.push(' ');
        out.push_str(d);
    }
    if let Some(s) = m.input_strides.get(i).filter(|s| !s.is_empty()) {
        out.push_str(&format!(", strides {}", shape(s)));
    }
    Some(out)
}

/// ` x2` when there were several calls.
pub fn times(m: &Measured) -> String {
    if m.calls > 1 {
        format!(" x{}", m.calls)
    } else {
        String::new()
    }
}
