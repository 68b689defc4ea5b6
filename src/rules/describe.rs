//! Wording shared by the rules: chain labels, sizes, and the suggested order.

use crate::analysis::{EnlargeKind, SinkKind, Site, Step, StepRole};

use super::size_estimate::{ASSUMED_ITEMSIZE, SizeFigure, figure_note, site_figure};
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

/// The advice of a cast rule: cast before the enlarger, or, for a conversion torch makes inside
/// an op (a bool `attn_mask` of `scaled_dot_product_attention`), pass the value before it is
/// enlarged: the op broadcasts it and converts it at the size it is given.
pub fn cast_advice(site: &Site) -> Advice {
    let SinkKind::Cast {
        inside: Some(op), ..
    } = &site.sink
    else {
        return Advice {
            verb: "cast",
            remedy: None,
            message_tail: None,
        };
    };
    let enlarger = site
        .enlarged
        .steps
        .iter()
        .rev()
        .find(|s| s.role == StepRole::Enlarge)
        .map(|s| short_code(&s.code))
        .unwrap_or_else(|| site.enlarged.op.clone());
    Advice {
        verb: "pass it",
        remedy: Some(format!(
            "pass `{}` to `{op}` as it is before `{enlarger}`: the call broadcasts the mask over heads and queries, and converts it only at the size it is given",
            site.enlarged.receiver_code
        )),
        message_tail: Some(format!(
            "`{op}` converts a bool mask to float at the size it is given: pass it before `{}` (the call broadcasts it)",
            site.enlarged.op
        )),
    }
}

/// The sink is a conversion torch makes inside an op, not a cast written in the code.
fn converts_inside(site: &Site) -> bool {
    matches!(
        site.sink,
        SinkKind::Cast {
            inside: Some(_),
            ..
        }
    )
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
    let sink = sink_subject(site);
    // Certain only when every path enlarges and the conversion surely writes a new tensor: a
    // device move is a no-op when the tensor is already there.
    // A conversion made inside an op happens for a bool value only: of unknown dtype, it may.
    let verb_phrase = if e.may
        || site.sink == SinkKind::DeviceMove
        || (converts_inside(site) && site.source_dtype != Some(crate::analysis::DType::Bool))
    {
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
    let message = format!("{sink} after `{op}` {verb_phrase} the full {shape}; {tail}");
    let mut copied = false;
    let labels = site
        .enlarged
        .steps
        .iter()
        .map(|step| {
            if step.role == StepRole::Enlarge && step_kind(step, e.kind) == EnlargeKind::Copy {
                copied = true;
            }
            let text = match step.role {
                // Each step in its own words: a chain may expand and then repeat.
                StepRole::Enlarge => match step_kind(step, e.kind) {
                    EnlargeKind::View if step.code.starts_with('.') || step.code.contains(op) => {
                        format!("`{}` is a free stride-0 view here", short_code(&step.code))
                    }
                    EnlargeKind::View => "a free stride-0 view is made here".to_string(),
                    EnlargeKind::Copy => {
                        format!("`{}` copies it larger here", short_code(&step.code))
                    }
                },
                // After a copying step the value is a real tensor, not a view.
                // A move kept in the chain is one that may do nothing (see the analysis).
                StepRole::View if is_move_step(&step.code) => {
                    "may do nothing: the value may still be the enlarged one".to_string()
                }
                StepRole::View if copied => "still enlarged here".to_string(),
                StepRole::View => "still an enlarged view here".to_string(),
                StepRole::Call => {
                    format!("`{}` returns the enlarged value", short_code(&step.code))
                }
                // `passed as `x` to `mix``: the steps after it are in the callee.
                StepRole::Argument => step.code.clone(),
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
    let size = site_figure(site, ctx);
    let mut notes = Vec::new();
    if let Some(note) = size_note(site, size.as_ref()) {
        notes.push(note);
    }
    let _ = dtype;
    Finding {
        rule,
        level: crate::diagnostic::Level::Warning,
        pattern_certain: false,
        message,
        primary_label,
        labels,
        help: Some(match &advice.remedy {
            Some(remedy) => remedy.clone(),
            None => suggestion(site, advice.verb),
        }),
        notes,
        size,
    }
}

/// What the message calls the sink: the method with its receiver when that is a name
/// (`cos.to(x.dtype)`), with the enlarged expression otherwise, so that two findings on one line
/// read differently.
fn sink_subject(site: &Site) -> String {
    let sink = site.sink_step.code.trim();
    if converts_inside(site) {
        return format!("`{}`", short_code(sink));
    }
    if !sink.starts_with('.') {
        return format!("`{}`", short_code(sink));
    }
    match &site.receiver_code {
        Some(recv)
            if recv.len() <= 40
                && recv
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_.[]\"'".contains(c)) =>
        {
            format!("`{recv}{}`", short_code(sink))
        }
        // Through a helper, the callee's own names mean nothing here: name the call.
        Some(recv) if site.enlarged.steps.iter().any(|s| s.role == StepRole::Call) => {
            format!("`{}` of `{}`", short_code(sink), short_code(recv))
        }
        _ => format!(
            "`{}` of `{}`",
            short_code(sink),
            short_code(&site.enlarged.receiver_code)
        ),
    }
}

/// Whether an enlarging step makes a view or a copy (a chain's kind is that of its last one).
fn step_kind(step: &Step, chain: EnlargeKind) -> EnlargeKind {
    let code = step.code.as_str();
    if code.contains("->") || code.contains("broadcast_tensors") {
        // `einops.repeat(x, 'b n -> b h n')` is a view or a copy by its pattern.
        chain
    } else if code.contains("expand") || code.contains("broadcast_to") {
        EnlargeKind::View
    } else if ["repeat", "tile", "cat(", "stack("]
        .iter()
        .any(|op| code.contains(op))
    {
        EnlargeKind::Copy
    } else {
        chain
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
    // The enlargement that makes the full size is the last one of the chain.
    let last_enlarge = e.steps.iter().rposition(|s| s.role == StepRole::Enlarge);
    let in_one_expression = steps_here
        && enlarge.is_some_and(|s| {
            site.sink_step.range.contains_range(s.range) || site.stmt_range.contains_range(s.range)
        });
    let call = e.steps.iter().position(|s| s.role == StepRole::Call);
    if let (Some(call), Some(last)) = (call, last_enlarge)
        && last > call
    {
        // The callee enlarges a little, the caller makes it full size: convert before that.
        return format!(
            "{verb} before `{}`, the enlargement that makes the full size",
            short_code(&e.steps[last].code)
        );
    }
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
        // The rewritten chain is the receiver, the sink and the steps as written, one after the
        // other: only when every step is a method of the one before (`.unsqueeze(1).expand(..)`).
        // A step that is a call of its own (`torch.broadcast_to(x, ..)`) takes the sentence.
        let chained = e.steps.iter().all(|s| s.code.trim_start().starts_with('.'));
        if in_one_expression && chained {
            let rest: String = e
                .steps
                .iter()
                .map(|s| s.code.trim())
                .collect::<Vec<_>>()
                .join("");
            return format!("{verb} first: `{}{sink}{rest}`", e.receiver_code);
        }
        let enlargers: Vec<String> = e
            .steps
            .iter()
            .filter(|s| s.role == StepRole::Enlarge)
            .map(|s| format!("`{}`", short_code(&s.code)))
            .collect();
        let origin = if enlargers.is_empty() {
            format!("`{}`", e.op)
        } else {
            enlargers.join(" and ")
        };
        return format!(
            "{verb} first: `{}{sink}`, then {origin} (convert before enlarging)",
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

/// The size of the full-size result, priced at the bound sizes and the role defaults for the
/// rest, with where every number came from:
/// `size: [bsz, num_heads, q_len, kv_len] x 1 B (bool) = 4.00 GiB at bsz=8 (assumed batch), ...`.
pub(super) fn size_note(site: &Site, figure: Option<&SizeFigure>) -> Option<String> {
    let shape = site
        .result_shape
        .as_ref()
        .or(site.enlarged.shape.as_ref())?;
    let dtype_text = match site.result_dtype {
        Some(d) => format!("{} B ({})", d.itemsize(), d.name()),
        None => format!("{ASSUMED_ITEMSIZE} B (assumed float32)"),
    };
    let Some(figure) = figure else {
        return Some(format!("size: {shape} x {dtype_text}"));
    };
    Some(figure_note(figure, &dtype_text))
}

/// A chain step that is a device move or `.to(...)`: the analysis keeps only moves that may be
/// no-ops in a chain.
fn is_move_step(code: &str) -> bool {
    let name = code.trim_start_matches('.').split('(').next().unwrap_or("");
    crate::analysis::is_move_method(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_codes() {
        assert_eq!(short_code(".bool()"), ".bool()");
    }
}
