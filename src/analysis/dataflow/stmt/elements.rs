//! Values inside containers and on attributes: tuple, list and dict elements tracked like names,
//! `self.attr` values every method of a class sees, and the reads of a repeated copy that only
//! some paths make (a cast under `if` is still a reorder on its own path).

use super::*;
use crate::analysis::SinkKind;

/// `x`, `self.mask`, `a.b.c`: the key a value is tracked under.
/// At most three attributes deep (`a.b.c.d`); built in one allocation (it runs for most names
/// the walk reads).
pub(in crate::analysis::dataflow) fn dotted_key(expr: &Expr) -> Option<String> {
    let mut attrs: [&str; 3] = [""; 3];
    let mut depth = 0;
    let mut current = expr;
    let name = loop {
        match current {
            Expr::Name(n) => break n.id.as_str(),
            Expr::Attribute(a) if depth < attrs.len() => {
                attrs[depth] = a.attr.id.as_str();
                depth += 1;
                current = &a.value;
            }
            _ => return None,
        }
    };
    let attrs = &attrs[..depth];
    let mut key =
        String::with_capacity(name.len() + attrs.iter().map(|a| a.len() + 1).sum::<usize>());
    key.push_str(name);
    for attr in attrs.iter().rev() {
        key.push('.');
        key.push_str(attr);
    }
    Some(key)
}

/// `d["mask"]`, `t[0]`: the key an element of a container is tracked under.
pub(in crate::analysis::dataflow) fn element_key(s: &ast::ExprSubscript) -> Option<String> {
    let base = dotted_key(&s.value)?;
    let element = literal_element(&s.slice)?;
    Some(format!("{base}{element}"))
}

/// A literal subscript that names one element: a non-negative integer or a plain string.
pub(super) fn literal_element(expr: &Expr) -> Option<ElementKey> {
    match expr {
        Expr::StringLiteral(s) => {
            let key = s.value.to_str();
            (!key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ' | '.')))
            .then(|| ElementKey::Key(key.to_string()))
        }
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => i
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .map(ElementKey::Index),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `base[element] = v` stores into a container (whose element then holds `v`) rather
/// than writing into a tensor: a string key never indexes a tensor; an integer does unless the
/// base is known not to be one (a list or tuple).
pub(super) fn holds_elements(base: &Fact, element: &ElementKey) -> bool {
    match element {
        ElementKey::Key(_) => base.kind != ValueKind::Tensor && base.enlarged.is_none(),
        ElementKey::Index(_) => base.kind == ValueKind::NotTensor,
    }
}

/// The attributes that every store in a class makes a broadcast view (a definite one, not one
/// on some paths only), or a full-size copy of one (`self.window = w.expand(...).contiguous()`:
/// how other methods read it says whether the copy was needed), with the joined fact a method
/// starts from.
pub(super) fn enlarged_attributes(writes: HashMap<String, Vec<Fact>>) -> HashMap<String, Fact> {
    writes
        .into_iter()
        .filter_map(|(attr, facts)| {
            let all_copies = !facts.is_empty()
                && facts
                    .iter()
                    .all(|f| f.enlarged.is_none() && !f.sink_results.is_empty());
            if all_copies {
                let joined = facts
                    .iter()
                    .skip(1)
                    .fold(facts[0].clone(), |a, f| a.join(f));
                return Some((
                    attr,
                    Fact {
                        kind: ValueKind::Tensor,
                        dtype: joined.dtype,
                        shape: joined.shape,
                        sink_results: joined.sink_results,
                        placement: joined.placement,
                        dtype_sym: joined.dtype_sym,
                        ..Fact::default()
                    },
                ));
            }
            // Broadcast views only: a repeated buffer is already allocated once, its readers'
            // copies are counted per method, and those seen in real code are small kernels.
            let all_enlarged = !facts.is_empty()
                && facts.iter().all(|f| {
                    f.enlarged
                        .as_ref()
                        .is_some_and(|e| !e.may && e.kind == EnlargeKind::View)
                });
            if !all_enlarged {
                return None;
            }
            let joined = facts
                .iter()
                .skip(1)
                .fold(facts[0].clone(), |a, f| a.join(f));
            Some((
                attr,
                Fact {
                    kind: ValueKind::Tensor,
                    dtype: joined.dtype,
                    shape: joined.shape,
                    enlarged: joined.enlarged,
                    placement: joined.placement,
                    dtype_sym: joined.dtype_sym,
                    ..Fact::default()
                },
            ))
        })
        .collect()
}

/// Whether the path reasoning of the branches (a read of a repeated copy in another branch, or
/// after the sink's branch rebound the name, is on no path through the sink) applies to a site.
/// Always for a copy made on every path. For one made on some paths only (`Enlarged::may`: `if
/// num_v_heads > num_heads: q = repeat(q, ...)`), only when the sink surely writes a new tensor
/// of the copy's size: an elementwise op always does; a cast only when the value's dtype is known
/// and the target differs (`sf.float()` of a value of unknown dtype may convert nothing, and two
/// doubts, the copy and the conversion, are not stacked).
fn sure_sink_of_copy_on_some_paths(site: &crate::analysis::Site) -> bool {
    if !site.enlarged.may {
        return true;
    }
    match &site.sink {
        SinkKind::Elementwise => !site.other_operand_enlarged,
        SinkKind::Cast {
            target: Some(target),
            certain: true,
            in_reduction: false,
            inside: None,
        } => site.source_dtype.is_some_and(|s| s != *target),
        _ => false,
    }
}

impl Walker<'_, '_> {
    /// Evaluates a value and, when it is a container whose elements are known (a tuple, list or
    /// dict display, a name whose elements are tracked, a call of a helper that returns one),
    /// those elements.
    pub(in crate::analysis::dataflow) fn eval_with_elements(
        &mut self,
        value: &Expr,
        ctx: UseCtx,
    ) -> (Fact, Elements) {
        if let Some(mapped) = self.mapped_elements(value) {
            return mapped;
        }
        let mut elements = Vec::new();
        match value {
            Expr::Tuple(t) if !t.elts.iter().any(|e| matches!(e, Expr::Starred(_))) => {
                for (i, e) in t.elts.iter().enumerate() {
                    elements.push((ElementKey::Index(i as u32), self.eval(e)));
                }
            }
            Expr::List(t) if !t.elts.iter().any(|e| matches!(e, Expr::Starred(_))) => {
                for (i, e) in t.elts.iter().enumerate() {
                    elements.push((ElementKey::Index(i as u32), self.eval(e)));
                }
            }
            Expr::Dict(d)
                if d.items
                    .iter()
                    .all(|item| item.key.as_ref().and_then(literal_element).is_some()) =>
            {
                for item in &d.items {
                    if let Some(key) = &item.key {
                        self.eval(key);
                        if let Some(element) = literal_element(key) {
                            elements.push((element, self.eval(&item.value)));
                        }
                    }
                }
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                let fact = self.eval_with(value, ctx);
                if let Some(key) = dotted_key(value) {
                    elements = self.elements_of(&key);
                }
                return (fact, elements);
            }
            Expr::Call(call) => {
                let fact = self.eval_with(value, ctx);
                return (fact, self.call_elements(call));
            }
            _ => return (self.eval_with(value, ctx), elements),
        }
        let facts: Vec<Fact> = elements.iter().map(|(_, f)| f.clone()).collect();
        let mut fact = container_of(&facts);
        // A dict's placement would be its keys' (`torch.cat(d)`), unless it has none.
        if !matches!(value, Expr::Dict(d) if !d.items.is_empty()) {
            fact.placement = super::super::expr::elements_placement(&facts);
        }
        (fact, elements)
    }

    /// The tracked elements of the container bound to `key`.
    pub(super) fn elements_of(&self, key: &str) -> Elements {
        let mut out = Vec::new();
        if !self.has_elements {
            return out;
        }
        for (k, fact) in self.env.iter() {
            let Some(rest) = k.strip_prefix(key) else {
                continue;
            };
            let element = if let Some(key) =
                rest.strip_prefix("[\"").and_then(|r| r.strip_suffix("\"]"))
            {
                ElementKey::Key(key.to_string())
            } else if let Some(index) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                match index.parse::<u32>() {
                    Ok(i) => ElementKey::Index(i),
                    Err(_) => continue,
                }
            } else {
                continue;
            };
            if format!("{key}{element}") == *k {
                out.push((element, fact.clone()));
            }
        }
        out.sort_by_key(|(k, _)| k.to_string());
        out
    }

    /// `d["mask"]`, `t[0]`, `helper(...)[0]`: the element, when it is tracked.
    pub(in crate::analysis::dataflow) fn eval_element(
        &mut self,
        s: &ast::ExprSubscript,
        ctx: UseCtx,
    ) -> Option<Fact> {
        if !self.has_elements && self.fs.summaries.elements.is_empty() {
            return None;
        }
        let element = literal_element(&s.slice)?;
        if let Some(key) = element_key(s) {
            return self
                .env
                .contains_key(&key)
                .then(|| self.lookup(&key, ctx, s.range));
        }
        let Expr::Call(call) = &*s.value else {
            return None;
        };
        let qualname = self.callee_qualname(&call.func)?;
        let summary = self
            .fs
            .summaries
            .elements(&qualname)
            .iter()
            .find(|e| e.element.as_ref() == Some(&element))?
            .clone();
        self.eval(&s.value);
        Some(self.summary_fact(&summary, call))
    }

    /// A method that may replace elements of a container (`d.update(...)`, `d.pop("m")`)
    /// forgets what was known about them.
    pub(in crate::analysis::dataflow) fn forget_mutated_elements(&mut self, call: &ast::ExprCall) {
        if let Expr::Attribute(a) = &*call.func
            && matches!(
                a.attr.id.as_str(),
                "update"
                    | "pop"
                    | "popitem"
                    | "clear"
                    | "setdefault"
                    | "insert"
                    | "reverse"
                    | "sort"
                    | "remove"
                    | "__setitem__"
            )
            && let Some(key) = dotted_key(&a.value)
        {
            // `self._tables.update(...)`: elements the class's cache facts do not see.
            self.record_element_write(&a.value, Fact::unknown());
            self.forget_elements(&key);
        }
    }

    /// Forgets the tracked elements of `base`; not what every element of a class's cache is
    /// known to be (`self._tables[*]`): each store in the class was seen to keep that.
    pub(super) fn forget_elements(&mut self, base: &str) {
        let n = base.len();
        self.env.retain(|k| {
            !(k.len() > n && k.starts_with(base) && k.as_bytes()[n] == b'[' && &k[n..] != "[*]")
        });
    }

    /// `self.x = v` (or `self.x += v`, `del self.x`) in a method of the class being walked.
    pub(super) fn record_attr_write(&mut self, target: &Expr, fact: Fact) {
        if self.class_name.is_none() {
            return;
        }
        if let Expr::Attribute(a) = target
            && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
            && let Some(writes) = &mut self.fs.attr_writes
        {
            if super::on_host(&fact) {
                self.fs
                    .attr_host_writes
                    .entry(a.attr.id.to_string())
                    .or_default()
                    .insert(a.range.start().to_u32());
            }
            writes.entry(a.attr.id.to_string()).or_default().push(fact);
        }
    }

    /// `self.register_buffer("mask", value, ...)`: stores `value` on `self.mask`.
    pub(super) fn register_buffer(&mut self, expr: &Expr) -> bool {
        let Expr::Call(call) = expr else { return false };
        let Expr::Attribute(a) = &*call.func else {
            return false;
        };
        let (Expr::Name(recv), [Expr::StringLiteral(name), value, ..]) =
            (&*a.value, call.arguments.args.as_ref())
        else {
            return false;
        };
        if a.attr.id.as_str() != "register_buffer" || recv.id.as_str() != "self" {
            return false;
        }
        let fact = self.eval_with(value, UseCtx::Bind);
        self.eval_keywords(call);
        self.mark_use(&fact, ResultUse::Escapes);
        // A persistent buffer is in the state dict, and `load_state_dict` copies into it in
        // place (`buf.copy_(loaded)`), which a stride-0 view refuses: a copy made for it is
        // needed. A non-persistent one is never loaded.
        if persists(call) {
            self.mark_in_place(&fact);
        }
        let attr = name.value.to_str().to_string();
        if self.class_name.is_some()
            && let Some(writes) = &mut self.fs.attr_writes
        {
            writes.entry(attr.clone()).or_default().push(fact.clone());
            self.fs.buffer_attrs.insert(attr.clone());
        }
        self.set(format!("self.{attr}"), fact);
        true
    }

    /// A read of a repeated copy: which sinks of it never see it read here (the intersection
    /// over every visit of this read).
    pub(in crate::analysis::dataflow) fn note_copy_read(&mut self, at: TextRange, fact: &Fact) {
        let key = (at.start().to_u32(), at.end().to_u32());
        if let Some(call) = self.fs.outer_call {
            let calls = self.fs.callee_reads.entry(key).or_default();
            if !calls.contains(&call) {
                calls.push(call);
            }
        }
        self.fs
            .copy_read_bypass
            .entry(key)
            .and_modify(|ids| ids.retain(|id| fact.copy_bypass.contains(id)))
            .or_insert_with(|| fact.copy_bypass.clone());
    }

    /// At the end of a branch of an `if` (outside loops): the names that a sink of a repeated
    /// copy in this branch rebinds to its result (`r = r.float()`), with that sink and copy. After
    /// the join such a name may still be the copy, but not on the path through the sink.
    pub(super) fn copy_bypasses(
        &self,
        env: Option<&Env>,
        body: &[Stmt],
    ) -> Vec<(String, SiteId, u32)> {
        let (Some(env), Some(first), Some(last)) = (env, body.first(), body.last()) else {
            return Vec::new();
        };
        if !self.loops.is_empty() || self.fs.copy_uses.is_empty() {
            // A later pass of the loop may read the copy before the sink.
            return Vec::new();
        }
        let branch = TextRange::new(first.start(), last.end());
        let mut out = Vec::new();
        for (name, fact) in env.iter() {
            for &id in &fact.sink_results {
                let Some(site) = self.fs.sites.get(id as usize) else {
                    continue;
                };
                // A copy made on some paths only (`if g > 1: q = repeat(q, ...)`) as well, when
                // its sink surely converts (see [`sure_sink_of_copy_on_some_paths`]): on the path
                // through this sink the name no longer holds it either way.
                let (EnlargeKind::Copy, Some(copy), true) = (
                    site.enlarged.kind,
                    site.enlarged.copy_origin,
                    sure_sink_of_copy_on_some_paths(site),
                ) else {
                    continue;
                };
                let still_copy = fact
                    .enlarged
                    .as_ref()
                    .is_some_and(|e| e.copy_origin == Some(copy));
                if !still_copy && branch.contains_range(site.sink_step.range) {
                    out.push((name.to_string(), id, copy));
                }
            }
        }
        out
    }

    /// The branches of an `if` exclude each other (outside loops): a read of a repeated copy in
    /// one branch is on no path through a sink of that copy in another.
    pub(super) fn exclusive_branches(&mut self, branches: &[&[Stmt]]) {
        if !self.loops.is_empty() || branches.len() < 2 || self.fs.copy_uses.is_empty() {
            return;
        }
        let ranges: Vec<Option<TextRange>> = branches
            .iter()
            .map(|b| Some(TextRange::new(b.first()?.start(), b.last()?.end())))
            .collect();
        let Some(whole) = ranges.iter().flatten().copied().reduce(|a, b| a.cover(b)) else {
            return;
        };
        let branch_of = |r: TextRange| {
            ranges
                .iter()
                .position(|b| b.is_some_and(|b| b.contains_range(r)))
        };
        let sinks: Vec<(SiteId, usize)> = self
            .fs
            .sites
            .iter()
            .enumerate()
            .filter(|(_, site)| {
                site.enlarged.kind == EnlargeKind::Copy
                    && sure_sink_of_copy_on_some_paths(site)
                    && whole.contains_range(site.sink_step.range)
            })
            .filter_map(|(id, site)| Some((id as SiteId, branch_of(site.sink_step.range)?)))
            .collect();
        if sinks.is_empty() {
            return;
        }
        // A read inside a callee is in the branch of the calls it was made for, when they are all
        // in one branch (a callee walked once for a call in the `elif`).
        let callee_reads = &self.fs.callee_reads;
        let read_branch_of = |at: TextRange| {
            if whole.contains_range(at) {
                return branch_of(at);
            }
            let calls = callee_reads.get(&(at.start().to_u32(), at.end().to_u32()))?;
            let mut branches = calls
                .iter()
                .map(|c| whole.contains_range(*c).then(|| branch_of(*c)).flatten());
            let first = branches.next()??;
            branches.all(|b| b == Some(first)).then_some(first)
        };
        for (&(start, end), ids) in self.fs.copy_read_bypass.iter_mut() {
            let at = TextRange::new(start.into(), end.into());
            let Some(read_branch) = read_branch_of(at) else {
                continue;
            };
            for &(id, sink_branch) in &sinks {
                if sink_branch != read_branch && !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
    }

    pub(super) fn apply_copy_bypasses(&mut self, bypasses: Vec<(String, SiteId, u32)>) {
        for (name, id, copy) in bypasses {
            if let Some(fact) = self.env.get_mut(&name)
                && fact
                    .enlarged
                    .as_ref()
                    .is_some_and(|e| e.copy_origin == Some(copy))
                && !fact.copy_bypass.contains(&id)
            {
                fact.copy_bypass.push(id);
            }
        }
    }
}

/// Whether `register_buffer(name, value, persistent)` puts the buffer in the state dict: unless
/// `persistent` (the third argument or the keyword) is the literal `False`.
fn persists(call: &ast::ExprCall) -> bool {
    let flag = call
        .arguments
        .args
        .get(2)
        .or_else(|| crate::analysis::shape_infer::keyword(call, "persistent"));
    !matches!(flag, Some(Expr::BooleanLiteral(b)) if !b.value)
}
