//! Fixes: a toolbox of edit builders (move a method before the enlarger, swap or fold
//! statements, fold an elementwise op, replace the sink) that rules call, plus applying edits and
//! writing files atomically. Which fix a finding gets, and how safe it is, is the rule's decision
//! (`rules/*`, next to its document's "Fix safety"); this module does not print.

mod apply;
mod write;

#[cfg(any(test, feature = "fuzzing"))]
pub use apply::selected_edits;
pub use apply::{apply_edits, apply_fixes};
pub use write::{WriteError, write_fixed};

use crate::analysis::{ConversionChain, Site, Step, StepRole};
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::source::{Position, TextRange, TextSize};

fn edit(range: TextRange, content: impl Into<String>) -> Edit {
    Edit {
        content: content.into(),
        range,
        location: Position { row: 0, column: 0 },
        end_location: Position { row: 0, column: 0 },
        cell: None,
    }
}

/// A range from `start` to `end`, if they are in order (never panics on odd input).
fn span(start: TextSize, end: TextSize) -> Option<TextRange> {
    (start <= end).then(|| TextRange::new(start, end))
}

fn slice(text: &str, range: TextRange) -> &str {
    text.get(range.to_std_range()).unwrap_or("")
}

/// Replaces the sink call itself (`repeat(...)` -> `expand(...)`) with `content`.
pub fn replace_sink(
    site: &Site,
    content: String,
    message: String,
    applicability: Applicability,
) -> Fix {
    Fix {
        applicability,
        message,
        edits: vec![edit(site.sink_step.range, content)],
    }
}

/// `1.0 - m.expand(s)` -> `(1.0 - m).expand(s)`; across statements `x = m.expand(s)` then
/// `y = 1.0 - x` -> `x = (1.0 - m).expand(s)` and `y = x`. The caller decides how safe that is
/// from the text of the other operands (`1.0 - `), which `applicability` receives.
pub fn fold_elementwise(
    site: &Site,
    text: &str,
    applicability: impl Fn(&str) -> Applicability,
) -> Option<Fix> {
    let steps = &site.enlarged.steps;
    if steps
        .iter()
        .any(|s| s.file.is_some() || matches!(s.role, StepRole::Call | StepRole::Argument))
    {
        return None;
    }
    let enlarge = steps.iter().find(|s| s.role == StepRole::Enlarge)?;
    let origin = enlarge.receiver?;
    if without_comments(slice(text, span(origin.end(), enlarge.range.start())?)).trim() != "." {
        return None;
    }
    let chain_end = steps.iter().map(|s| s.range.end()).max()?;
    let sink = site.sink_step.range;
    let origin_text = slice(text, origin);
    let chain_suffix = slice(text, span(origin.end(), chain_end)?);
    let op = enlarge
        .code
        .split('(')
        .next()
        .unwrap_or("")
        .trim_start_matches('.');
    // One expression: the sink holds the whole chain.
    if sink.contains_range(span(origin.start(), chain_end)?) {
        let before = slice(text, span(sink.start(), origin.start())?);
        let after = slice(text, span(chain_end, sink.end())?);
        let replaced = format!(
            "{}{chain_suffix}",
            parenthesized(&format!("{before}{origin_text}{after}"))
        );
        return Some(Fix {
            applicability: applicability(&format!("{before}{after}")),
            message: format!("Apply the operation before `{op}`"),
            edits: vec![edit(sink, replaced)],
        });
    }
    // Across statements: `x = <chain>` then `y = <op on x>`.
    let s1 = enlarge.stmt;
    let s2 = site.sink_step.stmt;
    if steps.iter().any(|s| s.stmt != s1) || s1.end() > s2.start() || !same_block(text, s1, s2) {
        return None;
    }
    let (t1, _) = simple_assignment(text, s1)?;
    let (t2, v2_start) = simple_assignment(text, s2)?;
    if chain_end != s1.end() || v2_start != sink.start() || s2.end() != sink.end() {
        return None;
    }
    let sink_text = slice(text, sink);
    let uses: Vec<usize> = word_positions(sink_text, t1).collect();
    let [at] = uses.as_slice() else { return None };
    if mentions_word(slice(text, span(s1.end(), s2.start())?), t1) {
        return None;
    }
    if t2 != t1 && count_word(slice(text, site.scope_range), t1) != 2 {
        return None;
    }
    let rest = format!("{}{}", &sink_text[..*at], &sink_text[at + t1.len()..]);
    // The other operands move up to the first statement: none of their names may be bound or
    // changed in between (`m = x.expand(...)`, `bias = ...`, `y = m + bias`).
    let between = slice(text, span(s1.end(), s2.start())?);
    if identifiers(&rest).any(|name| mentions_word(between, name)) {
        return None;
    }
    let folded = parenthesized(&format!(
        "{}{origin_text}{}",
        &sink_text[..*at],
        &sink_text[at + t1.len()..]
    ));
    // `x = x` would be left behind: the statement goes when it stands on lines of its own.
    let (line2, line2_end) = (
        line_start(text, s2.start()),
        line_end_with_newline(text, s2.end()),
    );
    let second = if t2 == t1
        && slice(text, span(line2, s2.start())?).trim().is_empty()
        && slice(text, span(s2.end(), line2_end)?).trim().is_empty()
    {
        edit(span(line2, line2_end)?, "")
    } else {
        edit(sink, t1.to_string())
    };
    Some(Fix {
        applicability: applicability(&rest),
        message: format!("Apply the operation before `{op}` in the first statement"),
        edits: vec![edit(origin, folded), second],
    })
}

/// Where the enlarger goes back in [`hoist_enlarger`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainPlacement {
    /// After the chain's end value: every conversion runs on the small tensor and the end value
    /// becomes a broadcast view (`m = (~m.bool()).expand(...)`).
    AfterEnd,
    /// On the chain value the end value is computed from (`inv.expand(...).masked_fill(...)`):
    /// the end value stays a full-size tensor of the same layout, every conversion before it
    /// runs on the small tensor.
    OnSpine,
}

/// Moves the enlarger past a whole conversion chain (`analysis::conversion_chain`): the enlarger
/// call is taken out where it stands and written again where `placement` says, so every
/// elementwise conversion between runs on the small tensor. The caller decides how safe that is.
pub fn hoist_enlarger(
    chain: &ConversionChain,
    text: &str,
    placement: ChainPlacement,
    applicability: Applicability,
) -> Option<Fix> {
    let call = slice(text, chain.enlarger_call);
    let op = call.split('(').next().unwrap_or(call).trim();
    let moved = format!(".{call}");
    let mut edits = Vec::new();
    match chain.first_becomes_noop {
        Some(stmt) => {
            let (line, end) = (
                line_start(text, stmt.start()),
                line_end_with_newline(text, stmt.end()),
            );
            if !slice(text, span(line, stmt.start())?).trim().is_empty()
                || !slice(text, span(stmt.end(), end)?).trim().is_empty()
            {
                return None;
            }
            edits.push(edit(span(line, end)?, ""));
        }
        None => edits.push(edit(chain.enlarger, "")),
    }
    let message = match placement {
        ChainPlacement::AfterEnd => {
            let end = chain.end_value;
            if chain.end_is_primary {
                edits.push(edit(TextRange::empty(end.end()), moved));
            } else {
                edits.push(edit(TextRange::empty(end.start()), "("));
                edits.push(edit(TextRange::empty(end.end()), format!("){moved}")));
            }
            format!("Move `{op}` after the conversions that follow it")
        }
        ChainPlacement::OnSpine => {
            let spine = chain.end_spine?;
            edits.push(edit(TextRange::empty(spine.end()), moved));
            format!("Apply the conversions before `{op}`, enlarging only for the last one")
        }
    };
    Some(Fix {
        applicability,
        message,
        edits,
    })
}

/// Where the dot before a method name is (`x.bool()`: the `.`), skipping whitespace between.
fn dot_before(text: &str, name_start: TextSize) -> Option<TextSize> {
    let before = text.get(..name_start.to_usize())?;
    let trimmed = before.trim_end();
    trimmed
        .ends_with('.')
        .then(|| TextSize::try_from(trimmed.len() - 1).ok())
        .flatten()
}

/// Moves the sink method (`.bool()`, `.to(dtype)`) to right after the first enlarger's receiver.
pub fn reorder_before_enlarger(
    site: &Site,
    text: &str,
    applicability: Applicability,
) -> Option<Fix> {
    let steps = &site.enlarged.steps;
    if steps
        .iter()
        .any(|s| s.file.is_some() || matches!(s.role, StepRole::Call | StepRole::Argument))
    {
        return None;
    }
    let enlarge = steps.iter().find(|s| s.role == StepRole::Enlarge)?;
    // Only method-call enlargers (`x.expand(...)`) have a receiver to attach to.
    let origin = enlarge.receiver?;
    // Insert right after the receiver, or before the dot when the receiver is parenthesized
    // (`(a + b).expand(...)`: the receiver's range excludes its parentheses).
    let between = without_comments(slice(text, span(origin.end(), enlarge.range.start())?));
    let insert_at = match between.trim() {
        "." => origin.end(),
        other
            if other.ends_with('.')
                && other[..other.len() - 1]
                    .chars()
                    .all(|c| c == ')' || c.is_whitespace()) =>
        {
            dot_before(text, enlarge.range.start())?
        }
        _ => return None,
    };
    let sink = &site.sink_step;
    let sink_receiver = sink.receiver?;
    let dot = dot_before(text, sink.range.start())?;
    let method = slice(text, sink.range);
    let op = enlarge
        .code
        .split('(')
        .next()
        .unwrap_or("")
        .trim_start_matches('.');
    let moved = format!(".{method}");
    let name_only = method.split('(').next().unwrap_or(method);
    let shown = if method.len() <= 32 && !method.contains('\n') {
        method.to_string()
    } else {
        format!("{name_only}(...)")
    };
    let name = shown.as_str();

    // One expression: `m.expand(...).bool()` -> `m.bool().expand(...)`.
    if sink_receiver.contains_range(enlarge.range)
        && steps.iter().all(|s| sink_receiver.contains_range(s.range))
    {
        return Some(Fix {
            applicability,
            message: format!("Apply `.{name}` before `{op}`"),
            edits: vec![
                edit(TextRange::empty(insert_at), moved),
                edit(removal_range(text, dot, sink.range.end()), ""),
            ],
        });
    }
    across_statements(
        site,
        text,
        enlarge,
        origin,
        insert_at,
        sink_receiver,
        dot,
        &moved,
        applicability,
        op,
        name,
    )
}

/// `m = m.expand(...)` then `m = m.bool()`: swap the statements, or fold the conversion into the
/// first statement, when nothing between them (or elsewhere) uses the intermediate name.
#[allow(clippy::too_many_arguments)]
fn across_statements(
    site: &Site,
    text: &str,
    enlarge: &Step,
    origin: TextRange,
    insert_at: TextSize,
    sink_receiver: TextRange,
    dot: TextSize,
    moved: &str,
    applicability: Applicability,
    op: &str,
    name: &str,
) -> Option<Fix> {
    let steps = &site.enlarged.steps;
    let s1 = enlarge.stmt;
    let s2 = site.sink_step.stmt;
    // The chain is the value of the first statement, possibly continued by statements that only
    // take views of it (`x = m.expand(...)`, `y = x.view(...)`, then `z = y.float()`).
    let mut chain_stmts: Vec<TextRange> = Vec::new();
    for step in steps {
        if chain_stmts.last() != Some(&step.stmt) {
            if chain_stmts.contains(&step.stmt) {
                return None;
            }
            chain_stmts.push(step.stmt);
        }
    }
    if chain_stmts.first() != Some(&s1) || chain_stmts.iter().any(|c| c.end() > s2.start()) {
        return None;
    }
    // The conversion must run whenever the enlargement does: a conversion under an `if` (or in
    // a loop, a `with`, another branch) moved into the first statement would apply on paths
    // that never converted.
    if !same_block(text, s1, s2) {
        return None;
    }
    let (t1, v1_start) = simple_assignment(text, s1)?;
    let (t2, v2_start) = simple_assignment(text, s2)?;
    if v2_start != sink_receiver.start() || s2.end() != site.sink_step.range.end() {
        return None;
    }
    // Each chain statement must end with its last step, and each continuation must start from
    // the previous statement's name and hold only view steps (a view with a dtype would change
    // meaning once the cast moves before it).
    let mut names: Vec<&str> = Vec::new();
    for (i, stmt) in chain_stmts.iter().enumerate() {
        let (target, value_start) = simple_assignment(text, *stmt)?;
        let in_stmt: Vec<&Step> = steps.iter().filter(|s| s.stmt == *stmt).collect();
        if in_stmt.iter().map(|s| s.range.end()).max()? != stmt.end() {
            return None;
        }
        if i > 0 {
            let previous = names[i - 1];
            let rest = slice(text, span(value_start, stmt.end())?);
            let follows = rest
                .strip_prefix(previous)
                .is_some_and(|r| r.starts_with('.') || r.starts_with('['));
            if !follows
                || in_stmt
                    .iter()
                    .any(|s| s.role != StepRole::View || s.code.contains("torch."))
            {
                return None;
            }
        }
        names.push(target);
    }
    let last_name = *names.last()?;
    if slice(text, sink_receiver) != last_name {
        return None;
    }
    // The conversion moves up into the first statement: the names its arguments read must mean
    // the same there (not bound between the statements, as `dtype = x.dtype` before
    // `m = m.to(dtype=dtype)`, nor one of the chain's own names).
    let args = moved.split_once('(').map_or("", |(_, a)| a);
    let between = without_comments(slice(text, span(s1.end(), s2.start())?));
    if identifiers(args).any(|n| mentions_word(&between, n) || names.contains(&n)) {
        return None;
    }
    // Nothing between the statements may read the intermediates.
    let mut bounds: Vec<TextRange> = chain_stmts.clone();
    bounds.push(s2);
    for (i, pair) in bounds.windows(2).enumerate() {
        if mentions_word(slice(text, span(pair[0].end(), pair[1].start())?), names[i]) {
            return None;
        }
    }
    // Intermediates other than the final name must have no other use in the function.
    let scope = slice(text, site.scope_range);
    for (i, name) in names.iter().enumerate() {
        let last = i + 1 == names.len();
        if *name == t2 || (!last && names[i + 1] == *name) {
            continue;
        }
        if count_word(scope, name) != 2 {
            return None;
        }
    }
    let multi = chain_stmts.len() > 1;
    let origin_text = slice(text, span(v1_start, origin.end())?);
    if !multi && t2 == t1 && origin_text == t1 {
        // Swap whole lines: `m = m.bool()` goes before `m = m.expand(...)`.
        let line1 = line_start(text, s1.start());
        let (line2, line2_end) = (
            line_start(text, s2.start()),
            line_end_with_newline(text, s2.end()),
        );
        if !slice(text, span(line1, s1.start())?).trim().is_empty()
            || !slice(text, span(line2, s2.start())?).trim().is_empty()
            || slice(text, span(line1, s1.start())?) != slice(text, span(line2, s2.start())?)
        {
            return None;
        }
        let mut moved_line = slice(text, span(line2, line2_end)?).to_string();
        if !moved_line.ends_with(['\n', '\r']) {
            moved_line.push_str(line_ending(text));
        }
        return Some(Fix {
            applicability,
            message: format!("Swap the statements so `.{name}` comes before `{op}`"),
            edits: vec![
                edit(TextRange::empty(line1), moved_line),
                edit(span(line2, line2_end)?, ""),
            ],
        });
    }
    // Fold: `m = mask.bool().expand(...)`, then the last statement reads the name as is.
    let mut edits = vec![edit(TextRange::empty(insert_at), moved.to_string())];
    if t2 == last_name {
        let line2 = line_start(text, s2.start());
        let line2_end = line_end_with_newline(text, s2.end());
        if !slice(text, span(line2, s2.start())?).trim().is_empty()
            || !slice(text, span(s2.end(), line2_end)?).trim().is_empty()
        {
            return None;
        }
        edits.push(edit(span(line2, line2_end)?, ""));
    } else {
        edits.push(edit(
            removal_range(text, dot, site.sink_step.range.end()),
            "",
        ));
    }
    Some(Fix {
        applicability,
        message: format!("Apply `.{name}` before `{op}` in the first statement"),
        edits,
    })
}

/// Whether `second` runs exactly when `first` does, as far as the layout tells: both start
/// lines have the same indentation and no code line between them is indented less (which would
/// close the block) or opens a block holding `second`.
fn same_block(text: &str, first: TextRange, second: TextRange) -> bool {
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let (Some(head), Some(between)) = (
        span(line_start(text, first.start()), first.start()),
        span(first.end(), line_start(text, second.start())),
    ) else {
        return false;
    };
    let level = slice(text, head).len();
    let second_line = slice(
        text,
        TextRange::new(
            line_start(text, second.start()),
            second.start().max(line_start(text, second.start())),
        ),
    );
    if !slice(text, head).trim().is_empty()
        || !second_line.trim().is_empty()
        || second_line.len() != level
    {
        return false;
    }
    // The rest of the first statement's last line, then whole lines up to the second.
    let between = slice(text, between);
    between.split(['\n', '\r']).skip(1).all(|line| {
        let code = line.trim();
        code.is_empty() || code.starts_with('#') || indent(line) >= level
    })
}

/// The span to delete for a moved method call `.name(...)`: when it stands alone on its line (a
/// chain split over lines), the whole line goes, so no blank line is left behind.
fn removal_range(text: &str, dot: TextSize, end: TextSize) -> TextRange {
    let line = line_start(text, dot);
    let line_end = line_end_with_newline(text, end);
    let (Some(before), Some(after)) = (span(line, dot), span(end, line_end)) else {
        return TextRange::new(dot.min(end), end.max(dot));
    };
    if slice(text, before).trim().is_empty()
        && slice(text, after).trim().is_empty()
        && line > TextSize::default()
    {
        TextRange::new(line, line_end)
    } else {
        TextRange::new(dot.min(end), end.max(dot))
    }
}

/// Code with `# ...` comments removed (for checking what separates chain links).
fn without_comments(code: &str) -> String {
    code.split(['\n', '\r'])
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `name = value` on one statement: the target name and where the value starts.
fn simple_assignment(text: &str, stmt: TextRange) -> Option<(&str, TextSize)> {
    let code = slice(text, stmt);
    let eq = code.find('=')?;
    let target = code[..eq].trim();
    if target.is_empty()
        || !target.chars().all(|c| c.is_alphanumeric() || c == '_')
        || code[eq + 1..].starts_with('=')
    {
        return None;
    }
    let rest = &code[eq + 1..];
    let value_offset = eq + 1 + (rest.len() - rest.trim_start().len());
    Some((
        target,
        stmt.start() + TextSize::try_from(value_offset).ok()?,
    ))
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Occurrences of `word` as a whole identifier (not an attribute `x.word`).
fn word_positions<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(word).filter_map(move |(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let ok = !before.is_some_and(|c| is_word_char(c) || c == '.')
            && !after.is_some_and(is_word_char);
        ok.then_some(i)
    })
}

/// The names in a piece of code (`self.offset * 2` -> `self`, `offset`).
fn identifiers(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
}

fn mentions_word(text: &str, word: &str) -> bool {
    word_positions(text, word).next().is_some()
}

fn count_word(text: &str, word: &str) -> usize {
    word_positions(text, word).count()
}

// Lines end with `\n`, `\r\n` or (as Python also accepts) a lone `\r`.
fn line_start(text: &str, offset: TextSize) -> TextSize {
    let before = &text[..offset.to_usize().min(text.len())];
    TextSize::try_from(before.rfind(['\n', '\r']).map_or(0, |p| p + 1)).unwrap_or_default()
}

fn line_end_with_newline(text: &str, offset: TextSize) -> TextSize {
    let start = offset.to_usize().min(text.len());
    let end = match text[start..].find(['\n', '\r']) {
        Some(p) if text[start + p..].starts_with("\r\n") => start + p + 2,
        Some(p) => start + p + 1,
        None => text.len(),
    };
    TextSize::try_from(end).unwrap_or_default()
}

fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else if text.contains('\r') {
        "\r"
    } else {
        "\n"
    }
}

/// `expr` ready for a method call to follow it: in parentheses unless it is a call, name,
/// attribute or subscript.
fn parenthesized(expr: &str) -> String {
    if crate::source::is_primary_expression(expr) {
        expr.to_string()
    } else {
        format!("({expr})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(count_word("m = m.bool(); mm = x.m; m2 = m", "m"), 3);
        assert!(!mentions_word("self.mask + maskx", "mask"));
        assert_eq!(
            simple_assignment("a = b.c()", TextRange::new(0.into(), 9.into())).map(|x| x.0),
            Some("a")
        );
        assert!(simple_assignment("a == b", TextRange::new(0.into(), 6.into())).is_none());
        assert!(simple_assignment("a.b = c", TextRange::new(0.into(), 7.into())).is_none());
    }
}
