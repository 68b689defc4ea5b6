//! Shared wording of the profile rules (OOM201-OOM203).

use crate::diagnostic::Measured;
use crate::fmt::{ShapeStyle, first_tensor_arg};

/// The first tensor input: its shape, dtype and strides, as `[2, 24, 2048, 2048] long int,
/// strides [0, 0, 2048, 1]`.
pub fn first_input(m: &Measured) -> Option<String> {
    first_tensor_arg(
        &m.input_shapes,
        &m.input_dtypes,
        &m.input_strides,
        ShapeStyle::Spaced,
    )
}

/// ` x2` when there were several calls.
pub fn times(m: &Measured) -> String {
    if m.calls > 1 {
        format!(" x{}", m.calls)
    } else {
        String::new()
    }
}
