//! How numbers, shapes and markup are written in every output: byte sizes in binary units, digit
//! grouping, tensor shapes and arguments, and HTML/XML escaping.
//!
//! This is the bottom of the crate: it depends on nothing else in it, so the rules, the reports,
//! the profile view and the server can all print the same way without depending on each other.

use std::fmt;

/// Binary units, smallest first; sizes stop growing at PiB (`16384.00 PiB` for `u64::MAX`).
const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
const MIB: f64 = 1024.0 * 1024.0;

/// A size in bytes.
///
/// `{}` writes binary units with two decimals (`4.07 GiB`, but `512 B` below 1 KiB); a precision
/// changes the decimals (`{:.1}`: `4.1 GiB`). `{:#}` writes the exact count next to it:
/// `4,364,894,208 B (4.07 GiB)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// A `u128` count, saturating at `u64::MAX`.
    pub fn saturating(bytes: u128) -> Self {
        Bytes(u64::try_from(bytes).unwrap_or(u64::MAX))
    }

    /// A computed (fractional, possibly negative) size: rounded, and 0 below zero.
    pub fn rounded(bytes: f64) -> Self {
        // `as` saturates, so NaN gives 0 and infinity `u64::MAX`.
        Bytes(bytes.max(0.0).round() as u64)
    }

    /// The exact count with grouped digits: `4,364,894,208`.
    pub fn grouped(self) -> Grouped {
        Grouped(u128::from(self.0))
    }

    /// In MiB: whole numbers grouped (`1,024 MiB`), otherwise two decimals (`0.50 MiB`).
    pub fn mib(self) -> String {
        let m = self.0 as f64 / MIB;
        if (m - m.round()).abs() < 1e-9 {
            format!("{} MiB", Grouped(m.round() as u128))
        } else {
            format!("{m:.2} MiB")
        }
    }
}

impl From<u64> for Bytes {
    fn from(bytes: u64) -> Self {
        Bytes(bytes)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            // The precision (if any) applies to the short form in parentheses.
            let short = match f.precision() {
                Some(p) => format!("{:.*}", p, Bytes(self.0)),
                None => Bytes(self.0).to_string(),
            };
            return write!(f, "{} B ({short})", self.grouped());
        }
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit < UNITS.len() - 1 {
            value /= 1024.0;
            unit += 1;
        }
        if unit == 0 {
            write!(f, "{} B", self.0)
        } else {
            write!(
                f,
                "{:.*} {}",
                f.precision().unwrap_or(2),
                value,
                UNITS[unit]
            )
        }
    }
}

/// A count with thousands separators: `4364894208` -> `4,364,894,208`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grouped(pub u128);

impl From<u64> for Grouped {
    fn from(n: u64) -> Self {
        Grouped(u128::from(n))
    }
}

impl From<u128> for Grouped {
    fn from(n: u128) -> Self {
        Grouped(n)
    }
}

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        let mut out = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        f.write_str(&out)
    }
}

/// How a shape is spelled: messages of the rules use `[2, 24]`, the compact profile notes and
/// views use `[2,24]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeStyle {
    Spaced,
    Compact,
}

/// `[2, 24, 2048, 2048]` (or `[2,24,2048,2048]` when compact).
pub fn shape(dims: &[i64], style: ShapeStyle) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    let sep = match style {
        ShapeStyle::Spaced => ", ",
        ShapeStyle::Compact => ",",
    };
    format!("[{}]", parts.join(sep))
}

/// The first tensor argument of a profiled op (the first input with a shape): its shape, dtype
/// and strides, as `[2, 24, 2048, 2048] long int, strides [0, 0, 2048, 1]`. The three lists are
/// parallel, per input; a missing or empty dtype or stride list is left out.
pub fn first_tensor_arg(
    shapes: &[Vec<i64>],
    dtypes: &[String],
    strides: &[Vec<i64>],
    style: ShapeStyle,
) -> Option<String> {
    let i = shapes.iter().position(|s| !s.is_empty())?;
    let mut out = shape(&shapes[i], style);
    if let Some(d) = dtypes.get(i).filter(|d| !d.is_empty()) {
        out.push(' ');
        out.push_str(d);
    }
    if let Some(s) = strides.get(i).filter(|s| !s.is_empty()) {
        out.push_str(", strides ");
        out.push_str(&shape(s, style));
    }
    Some(out)
}

/// Escapes text for HTML element content and quoted attributes.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for an XML attribute or element. Characters XML 1.0 forbids become U+FFFD, and
/// line breaks and tabs are kept as character references (attribute normalization would
/// otherwise turn them into spaces).
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    const GIB: u64 = 1024 * MIB;

    #[test]
    fn bytes_in_binary_units() {
        let cases: &[(u64, &str, &str, &str)] = &[
            // (bytes, `{}`, `{:.1}`, `{:#}`)
            (0, "0 B", "0 B", "0 B (0 B)"),
            (512, "512 B", "512 B", "512 B (512 B)"),
            (1023, "1023 B", "1023 B", "1,023 B (1023 B)"),
            (KIB, "1.00 KiB", "1.0 KiB", "1,024 B (1.00 KiB)"),
            (
                MIB + MIB / 2,
                "1.50 MiB",
                "1.5 MiB",
                "1,572,864 B (1.50 MiB)",
            ),
            (
                192 * MIB,
                "192.00 MiB",
                "192.0 MiB",
                "201,326,592 B (192.00 MiB)",
            ),
            (
                4_364_894_208,
                "4.07 GiB",
                "4.1 GiB",
                "4,364,894,208 B (4.07 GiB)",
            ),
            (GIB, "1.00 GiB", "1.0 GiB", "1,073,741,824 B (1.00 GiB)"),
            (
                u64::MAX,
                "16384.00 PiB",
                "16384.0 PiB",
                "18,446,744,073,709,551,615 B (16384.00 PiB)",
            ),
        ];
        for &(n, short, one, long) in cases {
            assert_eq!(Bytes(n).to_string(), short, "{n}");
            assert_eq!(format!("{:.1}", Bytes(n)), one, "{n}");
            assert_eq!(format!("{:#}", Bytes(n)), long, "{n}");
        }
    }

    #[test]
    fn constructors() {
        assert_eq!(Bytes::saturating(u128::from(u64::MAX) + 1), Bytes(u64::MAX));
        assert_eq!(Bytes::rounded(-3.0), Bytes(0));
        assert_eq!(Bytes::rounded(2.5), Bytes(3));
        assert_eq!(Bytes::rounded(f64::NAN), Bytes(0));
        assert_eq!(Bytes::from(7u64), Bytes(7));
    }

    #[test]
    fn mib() {
        for (n, text) in [
            (0, "0 MiB"),
            (MIB, "1 MiB"),
            (1024 * MIB, "1,024 MiB"),
            (MIB / 2, "0.50 MiB"),
            (MIB + 1, "1.00 MiB"),
        ] {
            assert_eq!(Bytes(n).mib(), text, "{n}");
        }
    }

    #[test]
    fn grouping() {
        for (n, text) in [
            (0u128, "0"),
            (12, "12"),
            (999, "999"),
            (1000, "1,000"),
            (123_456, "123,456"),
            (1_234_567, "1,234,567"),
            (4_364_894_208, "4,364,894,208"),
            (
                u128::MAX,
                "340,282,366,920,938,463,463,374,607,431,768,211,455",
            ),
        ] {
            assert_eq!(Grouped(n).to_string(), text, "{n}");
        }
        assert_eq!(Bytes(1_000_000).grouped().to_string(), "1,000,000");
        assert_eq!(Grouped::from(1000u64), Grouped(1000));
    }

    #[test]
    fn shapes() {
        for (dims, spaced, compact) in [
            (&[][..], "[]", "[]"),
            (&[7][..], "[7]", "[7]"),
            (
                &[2, 24, 2048, 2048][..],
                "[2, 24, 2048, 2048]",
                "[2,24,2048,2048]",
            ),
            (&[-1, 0][..], "[-1, 0]", "[-1,0]"),
        ] {
            assert_eq!(shape(dims, ShapeStyle::Spaced), spaced);
            assert_eq!(shape(dims, ShapeStyle::Compact), compact);
        }
    }

    #[test]
    fn tensor_args() {
        let shapes = vec![vec![], vec![2, 24, 2048, 2048], vec![3]];
        let dtypes = vec![String::new(), "long int".to_string()];
        let strides = vec![vec![], vec![0, 0, 2048, 1]];
        assert_eq!(
            first_tensor_arg(&shapes, &dtypes, &strides, ShapeStyle::Spaced).as_deref(),
            Some("[2, 24, 2048, 2048] long int, strides [0, 0, 2048, 1]")
        );
        assert_eq!(
            first_tensor_arg(&shapes, &dtypes, &strides, ShapeStyle::Compact).as_deref(),
            Some("[2,24,2048,2048] long int, strides [0,0,2048,1]")
        );
        // No dtype or strides recorded for the input.
        assert_eq!(
            first_tensor_arg(&shapes[1..], &[], &[], ShapeStyle::Compact).as_deref(),
            Some("[2,24,2048,2048]")
        );
        assert_eq!(
            first_tensor_arg(&[vec![]], &[], &[], ShapeStyle::Spaced),
            None
        );
        assert_eq!(first_tensor_arg(&[], &[], &[], ShapeStyle::Spaced), None);
    }

    #[test]
    fn escaping() {
        for (text, html, xml) in [
            ("plain", "plain", "plain"),
            (
                "a<b>&\"c'",
                "a&lt;b&gt;&amp;&quot;c&#39;",
                "a&lt;b&gt;&amp;&quot;c&apos;",
            ),
            (
                "<&>\"'",
                "&lt;&amp;&gt;&quot;&#39;",
                "&lt;&amp;&gt;&quot;&apos;",
            ),
            ("x\u{1}y\nz", "x\u{1}y\nz", "x\u{FFFD}y&#10;z"),
            (
                "x\u{1}y\nz\t\r",
                "x\u{1}y\nz\t\r",
                "x\u{FFFD}y&#10;z&#9;&#13;",
            ),
            ("\u{FFFE}é😀", "\u{FFFE}é😀", "\u{FFFD}é😀"),
        ] {
            assert_eq!(html_escape(text), html, "{text:?}");
            assert_eq!(xml_escape(text), xml, "{text:?}");
        }
    }
}
