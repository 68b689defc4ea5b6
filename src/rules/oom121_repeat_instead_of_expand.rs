//! OOM121 repeat-instead-of-expand: a `repeat` of size-1 dims that only broadcasting consumers
//! read; `expand` gives the same values without the copy.

use crate::diagnostic::{Applicability, Fix};
use crate::analysis::{NumberOperand, RepeatReaders, ReturnedRepeat, SinkKind, Site};

use super::describe::{short_code, size_note};
use super::size_estimate::{SizeFigure, site_figure};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM121",
    name: "repeat-instead-of-expand",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM121.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    let SinkKind::RepeatAsExpand {
        expand_args,
        may_if,
        readers,
        number_operand,
        ..
    } = &site.sink
    else {
        return None;
    };
    let readers = Readers::of(*readers);
    let repeat = short_code(&site.sink_step.code);
    let shape = site
        .result_shape
        .as_ref()
        .map(|s| format!(" {s}"))
        .unwrap_or_default();
    let size = site_figure(site, ctx);
    if !site.only_broadcast_reads
        && let Some(returned) = &site.returned_to_callers
    {
        return Some(returned_finding(site, returned, &repeat, &shape, expand_args, size));
    }
    let number_note = number_operand
        .as_ref()
        .map(|n| op_first_note(n, &site.enlarged.receiver_code));
    if let Some(condition) = may_if {
        // A "may" stands on an operand of the full shape, not a number: no such note.
        return Some(may_finding(
            site,
            condition,
            readers,
            &repeat,
            &shape,
            expand_args,
            size,
        ));
    }
    let mut notes: Vec<String> = size_note(site, size.as_ref()).into_iter().collect();
    notes.extend(number_note);
    notes.extend(read_through_note(site));
    Some(Finding {
        rule: &RULE,
        level: crate::diagnostic::Level::Warning,
        pattern_certain: false,
        message: format!(
            "`{repeat}` copies size-1 dims into a full{shape} tensor that is {}; use `expand({expand_args})`",
            readers.read
        ),
        primary_label: format!("copies here; {}", readers.label),
        labels: Vec::new(),
        help: Some(format!(
            "replace with `{}.expand({expand_args})` (a view: do not write to it in place)",
            site.enlarged.receiver_code
        )),
        notes,
        size,
    })
}

/// `r // self.beam_size` where the operand may be a number: the op's result is as large as the
/// copy, so `expand` alone saves only the copy; applied to the small source first, the op and the
/// enlargement cost nothing.
fn op_first_note(number: &NumberOperand, receiver: &str) -> String {
    format!(
        "if `{}` is a number, `{}` writes a tensor as large as the copy: apply it to `{receiver}` before enlarging, then `expand`, and neither is made",
        number.operand, number.op_text
    )
}

/// How the message words the readers of the copy.
#[derive(Clone, Copy)]
struct Readers {
    /// Completes "a full tensor that is ...".
    read: &'static str,
    /// Completes the primary label "copies here; ...".
    label: &'static str,
}

impl Readers {
    fn of(readers: RepeatReaders) -> Self {
        match readers {
            RepeatReaders::Broadcasting => Readers {
                read: "only broadcast",
                label: "every reader broadcasts",
            },
            RepeatReaders::Joins => Readers {
                read: "only joined by `cat`/`stack`, which copies it again",
                label: "the join reads a broadcast view as well",
            },
            RepeatReaders::Both => Readers {
                read: "only broadcast or joined by `cat`/`stack`",
                label: "every reader broadcasts or joins",
            },
            RepeatReaders::Indexes => Readers {
                read: "only used as an index",
                label: "indexing with a broadcast view selects the same elements",
            },
        }
    }
}

/// The repeated dims are of unknown size: the copy is needless if they are 1, which the
/// message states as its condition.
fn may_finding(
    site: &Site,
    condition: &str,
    readers: Readers,
    repeat: &str,
    shape: &str,
    expand_args: &str,
    size: Option<SizeFigure>,
) -> Finding {
    let mut notes: Vec<String> = size_note(site, size.as_ref()).into_iter().collect();
    notes.extend(read_through_note(site));
    notes.push(format!(
        "the size of the repeated dim is not known here: if {condition}, `expand` gives the same values without the copy; otherwise the repeat is needed"
    ));
    Finding {
        rule: &RULE,
        level: crate::diagnostic::Level::Warning,
        pattern_certain: false,
        message: format!(
            "`{repeat}` may copy a size-1 dim into a full{shape} tensor that is {} (if {condition}); use `expand({expand_args})`",
            readers.read
        ),
        primary_label: format!("copies here if {condition}; {}", readers.label),
        labels: Vec::new(),
        help: Some(format!(
            "if {condition}, replace with `{}.expand({expand_args})` (a view: do not write to it in place)",
            site.enlarged.receiver_code
        )),
        notes,
        size,
    }
}

/// The repeat is what a function returns, and every caller in the project only broadcasts it.
fn returned_finding(
    site: &Site,
    returned: &ReturnedRepeat,
    repeat: &str,
    shape: &str,
    expand_args: &str,
    size: Option<SizeFigure>,
) -> Finding {
    let function = returned
        .function
        .rsplit('.')
        .next()
        .unwrap_or(&returned.function);
    let calls = returned.callers.calls;
    let files = returned.callers.files;
    let mut notes: Vec<String> = size_note(site, size.as_ref()).into_iter().collect();
    notes.push(format!(
        "`{function}` is called {} in {} of the project, and each call's result is only read by broadcasting operations",
        count(calls, "once", "times"),
        count(files, "one file", "files")
    ));
    if returned.public {
        notes.push(format!(
            "`{function}` is public: code outside this project that calls it may need a writable copy"
        ));
    }
    Finding {
        rule: &RULE,
        level: crate::diagnostic::Level::Warning,
        pattern_certain: false,
        message: format!(
            "`{repeat}` copies size-1 dims into a full{shape} tensor that `{function}` returns and every caller only broadcasts; use `expand({expand_args})`"
        ),
        primary_label: "copies here; every caller of the function broadcasts the result".to_string(),
        labels: Vec::new(),
        help: Some(format!(
            "replace with `{}.expand({expand_args})`: `{function}` then returns a view, which no caller writes in place today",
            site.enlarged.receiver_code
        )),
        notes,
        size,
    }
}

/// The copy is read through an elementwise map (`.float()`) before it is broadcast: the map
/// gives the same values on a view, but written after `expand` it would write the full tensor
/// itself, so it goes on the small source first.
fn read_through_note(site: &Site) -> Option<String> {
    let SinkKind::RepeatAsExpand {
        read_through: Some(method),
        ..
    } = &site.sink
    else {
        return None;
    };
    Some(format!(
        "the copy is read through `{method}`, which maps each element on its own: apply it to `{}` first, then `expand`, and neither full tensor is made",
        site.enlarged.receiver_code
    ))
}

/// `once` / `3 times`, `one file` / `2 files`.
fn count(n: u32, one: &str, many: &str) -> String {
    if n == 1 {
        one.to_string()
    } else {
        format!("{n} {many}")
    }
}

/// The fix: `repeat(...)` -> `expand(...)`. Display only: the result becomes a view, and an
/// in-place write to it would now write through to the source (see the document's "Fix
/// safety").
fn fix(site: &Site, _text: &str) -> Option<Fix> {
    let SinkKind::RepeatAsExpand {
        expand_args,
        may_if: None,
        ..
    } = &site.sink
    else {
        return None;
    };
    // Only a method call's name and arguments are replaced: the function spelling
    // (`torch.repeat_interleave(x, n, dim=0)`) is left to the help text.
    if site.sink_step.receiver.is_none() || site.sink_step.code.starts_with("torch.") {
        return None;
    }
    Some(crate::fix::replace_sink(
        site,
        format!("expand({expand_args})"),
        format!("Replace `repeat` with `expand({expand_args})`"),
        Applicability::DisplayOnly,
    ))
}
