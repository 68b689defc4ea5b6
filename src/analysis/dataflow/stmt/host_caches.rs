//! Tensors a class keeps on the host: `nn.Module.to(device)` moves parameters and buffers only,
//! so a plain attribute or a dict cache filled with host tensors (a factory without `device=`,
//! `torch.from_numpy`, `.cpu()`) stays there, and a `.to(x.device)` of an expanded view of one
//! copies the whole view across.

use super::*;

/// A tensor known to live on the host, not a broadcast view.
pub(in crate::analysis::dataflow) fn on_host(fact: &Fact) -> bool {
    fact.kind == ValueKind::Tensor && fact.enlarged.is_none() && fact.placement == Placement::Host
}

/// What the walk of a class saw stored on `self`.
pub(super) struct ClassStores<'c> {
    pub class_text: &'c str,
    /// Every value stored on `self.<attr>` in a walked method.
    pub writes: &'c HashMap<String, Vec<Fact>>,
    /// Where each walked method stores a host tensor on `self.<attr>` (the target's start).
    pub host_writes: &'c HashMap<String, HashSet<u32>>,
    /// Every value stored into an element of `self.<attr>`.
    pub element_writes: &'c HashMap<String, Vec<Fact>>,
    pub buffers: &'c HashSet<String>,
}

/// The attributes of a class that hold host tensors: a plain attribute (not a buffer) that every
/// statement of the class binds to a host tensor, or to `None` or an empty container, with each
/// such statement walked; and each element of a cache (`self._tables = {}`, then
/// `self._tables[k] = make(...)`) whose container is only ever bound empty and whose every stored
/// element lives on the host. A cache's elements go under `attr[*]`.
pub(super) fn host_caches(stores: &ClassStores<'_>) -> HashMap<String, Fact> {
    let host_tensor = Fact::tensor(None, None).placed(Placement::Host);
    let placeholder = |f: &Fact| f.kind == ValueKind::NotTensor && f.enlarged.is_none();
    let mut out = HashMap::new();
    for (attr, facts) in stores.writes {
        if stores.buffers.contains(attr) || !facts.iter().all(|f| on_host(f) || placeholder(f)) {
            continue;
        }
        // `__init__` is not walked when it enlarges nothing: the text says what else binds it.
        let walked = stores.host_writes.get(attr).map_or(0, HashSet::len);
        if walked > 0 && attr_binds(stores.class_text, attr).is_some_and(|(v, _)| v == walked) {
            out.insert(attr.clone(), host_tensor.clone());
        }
    }
    for (attr, facts) in stores.element_writes {
        if !stores.buffers.contains(attr)
            && stores
                .writes
                .get(attr)
                .is_none_or(|w| w.iter().all(placeholder))
            && attr_binds(stores.class_text, attr).is_some_and(|(v, empty)| v == 0 && empty > 0)
            && facts.iter().all(on_host)
        {
            out.insert(format!("{attr}[*]"), host_tensor.clone());
        }
    }
    out
}

/// Whether a method's text stores into an element of one of its object's attributes
/// (`self._tables[key] = v`): the first walk of a class that enlarges something walks it, for
/// the class's caches.
pub(in crate::analysis::dataflow) fn stores_attr_element(body_text: &str) -> bool {
    // Only a line holding "] =" can: each found by a SIMD search, not a walk over every line
    // of every method. (A line's `\r` ending is kept: it comes after its "] =".)
    let bytes = body_text.as_bytes();
    let mut line_end = 0;
    for at in memchr::memmem::find_iter(bytes, "] =") {
        if at < line_end {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let line = body_text[start..line_end].trim_start();
        if line.starts_with("self.")
            && line
                .split_once("] =")
                .is_some_and(|(target, _)| target.contains('[') && !target.contains('='))
        {
            return true;
        }
    }
    false
}

/// The statements of a class's text that bind `self.<attr>`: how many bind a value, and how many
/// bind `None` or an empty container (`self._tables = {}`). None when one binds it some other way
/// (an augmented or tuple assignment, the name in a string as `setattr` takes it).
fn attr_binds(class_text: &str, attr: &str) -> Option<(usize, usize)> {
    let needle = format!("self.{attr}");
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if class_text.contains(&format!("\"{attr}\"")) || class_text.contains(&format!("'{attr}'")) {
        return None;
    }
    let (mut values, mut empty) = (0, 0);
    for (i, _) in class_text.match_indices(&needle) {
        let rest = &class_text[i + needle.len()..];
        if rest.starts_with(is_word)
            || class_text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| is_word(c) || c == '.')
        {
            continue;
        }
        let rest = rest.trim_start_matches([' ', '\t']);
        let value = if let Some(annotated) = rest.strip_prefix(':') {
            match annotated.split('\n').next().and_then(|l| l.split_once('=')) {
                Some((_, value)) => value,
                None => continue,
            }
        } else if rest.starts_with(',') {
            return None;
        } else if let Some(value) = rest.strip_prefix('=') {
            if value.starts_with('=') {
                continue;
            }
            value
        } else {
            // `self.x += v`, `self.x |= v`.
            if rest.len() > 1 && rest.as_bytes()[1] == b'=' && !rest.starts_with("==") {
                return None;
            }
            continue;
        };
        let value = value.trim_start_matches([' ', '\t']);
        let is_empty = ["{}", "dict()", "[]", "None"].iter().any(|e| {
            value
                .strip_prefix(e)
                .is_some_and(|after| !after.starts_with(is_word))
        });
        if is_empty {
            empty += 1;
        } else {
            values += 1;
        }
    }
    Some((values, empty))
}

impl Walker<'_, '_> {
    /// `self.<attr>[key] = v` in a method of the class being walked (see [`host_caches`]).
    pub(super) fn record_element_write(&mut self, base: &Expr, fact: Fact) {
        if self.class_name.is_none() || self.fs.attr_writes.is_none() {
            return;
        }
        if let Expr::Attribute(a) = base
            && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
        {
            self.fs
                .attr_element_writes
                .entry(a.attr.id.to_string())
                .or_default()
                .push(fact);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{attr_binds, stores_attr_element};

    #[test]
    fn binds_of_an_attribute_read_off_the_text() {
        let class = "def __init__(self):\n    self._t = {}\n    self._tx = 3\n\
                     def f(self, k):\n    if self._t is None:\n        self._t = None\n    \
                     self._t[k] = 1\n    self.cos: Tensor = make()\n";
        assert_eq!(attr_binds(class, "_t"), Some((0, 2)));
        assert_eq!(attr_binds(class, "cos"), Some((1, 0)));
        assert_eq!(attr_binds("self.a, self.b = f()", "a"), None);
        assert_eq!(attr_binds("self.a += t", "a"), None);
        assert_eq!(attr_binds("self.a = {}\nsetattr(self, 'a', t)", "a"), None);
    }

    #[test]
    fn element_stores() {
        assert!(stores_attr_element("    self._t[(h, w)] = make(h, w)\n"));
        assert!(!stores_attr_element("    x[0] = 1\n    self.t = {}\n"));
        assert!(!stores_attr_element("    self.t = x[m == 0] = 1\n"));
        // Any line, whatever the others hold; CRLF endings; no newline at the end.
        assert!(stores_attr_element(
            "    x[0] = 1\r\n    y[1] = 2; z[2] = 3\r\n    self.c[k] = v"
        ));
        assert!(!stores_attr_element(
            "    x[0] = 1; self.c[k] = v\n    self.d = 1\n"
        ));
    }
}
