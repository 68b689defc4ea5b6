//! `einops.repeat` patterns: which are views, and the axes of the result.

/// What an `einops.repeat` pattern does: whether its result is a view (every new axis stands
/// alone on the right, and no group merges axes), and, when the left side is plain names, each
/// output axis.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::analysis) struct EinopsRepeat {
    pub view: bool,
    pub out: Option<Vec<EinopsAxis>>,
}

/// One output axis of an `einops.repeat` pattern.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::analysis) enum EinopsAxis {
    /// The input dim at this position, by its name in the pattern (`b` of `'b n -> b h n'`).
    Keep(usize, String),
    /// A new axis, sized by the keyword of its name (`h=8`).
    New(String),
    /// A literal `1`: a new axis of size one.
    Unit,
}

/// Parses `'b n -> b h n'`; `None` when it adds no axis or is not a repeat pattern.
pub(in crate::analysis) fn einops_repeat_pattern(pattern: &str) -> Option<EinopsRepeat> {
    let (left, right) = pattern.split_once("->")?;
    // Items of one side: a name, `...`, a number, or a group `(a b)`.
    fn items(side: &str) -> Option<Vec<Vec<String>>> {
        let mut out = Vec::new();
        let mut group: Option<Vec<String>> = None;
        for token in side
            .replace('(', " ( ")
            .replace(')', " ) ")
            .split_whitespace()
        {
            match token {
                "(" if group.is_none() => group = Some(Vec::new()),
                ")" => out.push(group.take()?),
                "(" => return None,
                name => match group.as_mut() {
                    Some(g) => g.push(name.to_string()),
                    None => out.push(vec![name.to_string()]),
                },
            }
        }
        group.is_none().then_some(out)
    }
    let (left, right) = (items(left)?, items(right)?);
    let is_axis = |n: &str| {
        n.chars().all(|c| c.is_alphanumeric() || c == '_') && !n.chars().all(|c| c.is_ascii_digit())
    };
    let known: Vec<&String> = left.iter().flatten().collect();
    let new_axis = |n: &String| is_axis(n) && !known.contains(&n);
    if !right.iter().flatten().any(new_axis) {
        return None;
    }
    let view = right.iter().all(|item| item.len() == 1);
    let plain_left = left.iter().all(|i| i.len() == 1 && is_axis(&i[0]));
    let out = (plain_left && view)
        .then(|| {
            right
                .iter()
                .map(|item| {
                    let name = &item[0];
                    match left.iter().position(|l| &l[0] == name) {
                        Some(i) => Some(EinopsAxis::Keep(i, name.clone())),
                        None if is_axis(name) => Some(EinopsAxis::New(name.clone())),
                        None if name == "1" => Some(EinopsAxis::Unit),
                        None => None,
                    }
                })
                .collect::<Option<Vec<_>>>()
        })
        .flatten();
    Some(EinopsRepeat { view, out })
}
