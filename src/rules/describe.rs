//! Wording shared by the rules: chain labels, sizes, and the suggested order.

use crate::analysis::{EnlargeKind, Site, StepRole};

use super::{Finding, RuleContext, RuleInfo};

/// What a rule tells the user to do, in its own words.
pub struct Advice {
    /// `cast`, `move it to the device`, `apply it`.
    pub verb: &'static str,
    /// Replaces the suggested order in the help when that advice does not fit.
    pub remedy: Option<String>,
    /// Replaces "<verb> before `<op>`" at the end of the message when that advice does not fit.
    pub message_tail: Option<String>,
}

/// Builds the common finding for "an enlarged value is written out at full size".
pub fn enlarged_sink_finding(
    rule: &'static RuleInfo,
    site: &Site,
    ctx: &RuleContext,
    advice: Advice,
) -> Finding {
    let e = &site.enlarged;
    let op = &e.op;
    let sink = short_code(&site.sink_step.code);
    let verb_phrase = if e.may {
        "may materialize"
    } else {
        "materializes"
    };
    let shape = match &e.shape {
        Some(shape) => format!("{shape} tensor"),
        None => format!("{}ed tensor", op_participle_stem(op)),
    };
    let tail = match &advice.message_tail {
        Some(tail) => tail.clone(),
        None => format!("{} before `{op}`", advice.verb),
    };
    let message = format!("`{sink}` after `{op}` {verb_phrase} the full {shape}; {tail}");
    let labels = site
        .enlarged
        .steps
        .iter()
        .map(|step| {
            let text = match step.role {
                StepRole::Enlarge => match e.kind {
                    EnlargeKind::View
                        if step.code.starts_with(".") || step.code.contains(op.as_str()) =>
                    {
                        format!("`{}` is a free stride-0 view here", short_code(&step.code))
                    }
                    EnlargeKind::View => "a free stride-0 view is made here".to_string(),
                    EnlargeKind::Copy => {
                        format!("`{}` copies it larger here", short_code(&step.code))
                    }
                },
                StepRole::View => "still an enlarged view here".to_string(),
                StepRole::Call => {
                    format!("`{}` returns the enlarged value", short_code(&step.code))
                }
                StepRole::Sink => String::new(),
            };
            (step.clone(), text)
        })
        .collect();
    let dtype = site
        .result_dtype
        .map(|d| d.name())
        .unwrap_or("the result dtype");
    let primary_label = match &e.shape {
        Some(shape) => format!("writes every element of {shape} here"),
        None => "writes every element of the enlarged shape here".to_string(),
    };
    let mut notes = Vec::new();
    if let Some(size) = size_note(site, ctx) {
        notes.push(size);
    }
    let _ = dtype;
    Finding {
        rule,
        message,
        primary_label,
        labels,
        help: Some(match &advice.remedy {
            Some(remedy) => remedy.clone(),
            None => suggestion(site, advice.verb),
        }),
        notes,
    }
}

/// `expand` -> `expand`, `repeat` -> `repeat` (for "expanded"/"repeated" wording).
fn op_participle_stem(op: &str) -> &str {
    match op {
        "expand" | "expand_as" => "expand",
        "broadcast_to" => "broadcast",
        "repeat_interleave" | "repeat" => "repeat",
        "tile" => "til",
        _ => "enlarg",
    }
}

/// Long code shortened for a message: `.to(dtype=torch.float16, non_blocking=True)` -> `.to(...)`.
pub fn short_code(code: &str) -> String {
    let code = code.trim();
    if code.chars().count() <= 48 {
        return code.to_string();
    }
    match code.find('(') {
        Some(pos) if code.ends_with(')') => format!("{}(...)", &code[..pos]),
        _ => {
            let cut: String = code.chars().take(45).collect();
            format!("{cut}...")
        }
    }
}

/// The suggested order: one rewritten expression when the chain is one expression, otherwise a
/// sentence naming what to move where.
fn suggestion(site: &Site, verb: &str) -> String {
    let e = &site.enlarged;
    let sink = site.sink_step.code.trim();
    let steps_here = e.steps.iter().all(|s| s.file.is_none());
    let enlarge = e.steps.iter().find(|s| s.role == StepRole::Enlarge);
    let in_one_expression = steps_here
        && enlarge.is_some_and(|s| {
            site.sink_step.range.contains_range(s.range) || site.stmt_range.contains_range(s.range)
        });
    if let Some(callee) = e.steps.iter().find(|s| s.role == StepRole::Call) {
        let origin = enlarge
            .map(|s| short_code(&s.code))
            .unwrap_or_else(|| e.op.clone());
        return format!(
            "{verb} inside `{}` before its `{origin}`, on `{}` (the value is enlarged in the callee)",
            short_code(&callee.code),
            e.receiver_code
        );
    }
    if sink.starts_with('.') {
        if in_one_expression {
            let rest: String = e
                .steps
                .iter()
                .map(|s| s.code.trim())
                .collect::<Vec<_>>()
                .join("");
            return format!("{verb} first: `{}{sink}{rest}`", e.receiver_code);
        }
        let origin = enlarge
            .map(|s| short_code(&s.code))
            .unwrap_or_else(|| e.op.clone());
        return format!(
            "{verb} first: `{}{sink}`, then `{origin}` (convert before enlarging)",
            e.receiver_code
        );
    }
    let origin = enlarge
        .map(|s| short_code(&s.code))
        .unwrap_or_else(|| e.op.clone());
    format!(
        "{verb} to `{}` before `{origin}`, and enlarge the result",
        e.receiver_code
    )
}

/// The size of the full-size result: symbolic, or bytes when `--dim` binds every dim.
fn size_note(site: &Site, ctx: &RuleContext) -> Option<String> {
    let shape = site
        .result_shape
        .as_ref()
        .or(site.enlarged.shape.as_ref())?;
    let lookup = |name: &str| ctx.dims.get(name).copied();
    let dtype = site.result_dtype;
    let itemsize = dtype.map(|d| d.itemsize());
    let dtype_text = match dtype {
        Some(d) => format!("{} B ({})", d.itemsize(), d.name()),
        None => "itemsize".to_string(),
    };
    match (shape.numel(&lookup), itemsize) {
        (Some(numel), Some(size)) => {
            let bytes = numel.saturating_mul(u128::from(size));
            let dims: Vec<String> = shape
                .0
                .iter()
                .map(|d| match d {
                    crate::analysis::Dim::Size(e) => e
                        .evaluate(&lookup)
                        .map_or_else(|| e.to_string(), |v| v.to_string()),
                    crate::analysis::Dim::Unknown => "*".to_string(),
                })
                .collect();
            Some(format!(
                "size: {} = {} elements x {dtype_text} = {}",
                dims.join(" x "),
                group_digits(numel),
                format_bytes(bytes)
            ))
        }
        (Some(numel), None) => Some(format!(
            "size: {shape} = {} elements x itemsize",
            group_digits(numel)
        )),
        _ => Some(format!(
            "size: {shape} x {dtype_text} (bind sizes with --dim NAME=VALUE to get bytes)"
        )),
    }
}

/// `4364894208` -> `4,364,894,208`.
pub fn group_digits(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in binary units: `4.07 GiB`.
pub fn format_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(group_digits(4_364_894_208), "4,364,894,208");
        assert_eq!(group_digits(12), "12");
        assert_eq!(format_bytes(4_364_894_208), "4.07 GiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(short_code(".bool()"), ".bool()");
    }
}
