//! Nested time spans (operators, Python frames): which ones contain a moment, without scanning
//! them all. Spans sorted by start (longest first on ties) get the index of their enclosing span;
//! the spans containing a moment are then the last span started by then and those of its
//! enclosing chain that have not ended yet.

/// No enclosing span.
pub const NONE: u32 = u32::MAX;

/// The enclosing span of each span (or [`NONE`]); `spans` sorted by start, longest first on ties,
/// and properly nested (one thread's spans are).
pub fn nest_parents<T, K: PartialOrd + Copy>(spans: &[T], se: impl Fn(&T) -> (K, K)) -> Vec<u32> {
    let mut parent = Vec::with_capacity(spans.len());
    let mut stack: Vec<u32> = Vec::new();
    for (i, sp) in spans.iter().enumerate() {
        let s = se(sp).0;
        while let Some(&top) = stack.last() {
            if se(&spans[top as usize]).1 < s {
                stack.pop();
            } else {
                break;
            }
        }
        parent.push(stack.last().copied().unwrap_or(NONE));
        stack.push(i as u32);
    }
    parent
}

/// Indices of the spans containing `t`, innermost first (all of them, or only the first).
pub fn containing<T, K: PartialOrd + Copy>(
    spans: &[T],
    parent: &[u32],
    t: K,
    se: impl Fn(&T) -> (K, K),
    only_first: bool,
    out: &mut Vec<usize>,
) {
    out.clear();
    let n = spans.partition_point(|s| se(s).0 <= t);
    let mut cur = n.checked_sub(1);
    // Siblings that started before t but ended: climb to the ancestors that contain t.
    while let Some(i) = cur {
        if se(&spans[i]).1 >= t {
            out.push(i);
            if only_first {
                return;
            }
        }
        cur = (parent[i] != NONE).then_some(parent[i] as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nest_containing() {
        // [0,10] contains [1,3] and [4,9]; [4,9] contains [5,6]; [12,14] stands alone.
        let spans = [(0i64, 10i64), (1, 3), (4, 9), (5, 6), (12, 14)];
        let se = |s: &(i64, i64)| *s;
        let parents = nest_parents(&spans, se);
        assert_eq!(parents, vec![NONE, 0, 0, 2, NONE]);
        let at = |t: i64| {
            let mut out = Vec::new();
            containing(&spans, &parents, t, se, false, &mut out);
            out
        };
        assert_eq!(at(5), vec![3, 2, 0]);
        assert_eq!(at(7), vec![2, 0]);
        assert_eq!(at(3), vec![1, 0]);
        assert_eq!(at(11), Vec::<usize>::new());
        assert_eq!(at(13), vec![4]);
    }
}
