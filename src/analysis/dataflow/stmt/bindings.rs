//! Binding a value to an assignment target: destructuring a tuple or list display element by
//! element, and binding an evaluated fact (with its known elements) to a name, attribute or
//! subscript.

use super::*;

impl Walker<'_, '_> {
    /// `a, b = x.expand(...), y`, `first, *rest = ...`, `(m, _), n = (...), 3`: binds element by
    /// element when the value is a tuple or list display of matching length.
    pub(in crate::analysis::dataflow) fn destructure(&mut self, target: &Expr, value: &Expr) {
        let target_elts = match target {
            Expr::Tuple(t) => Some(&t.elts),
            Expr::List(t) => Some(&t.elts),
            _ => None,
        };
        let value_elts = match value {
            Expr::Tuple(v) => Some(&v.elts),
            Expr::List(v) => Some(&v.elts),
            _ => None,
        };
        if let (Some(targets), Expr::Call(call)) = (target_elts, value)
            && let Some(facts) = self.broadcast_tensors(call, targets.len())
        {
            // `a2, b2 = torch.broadcast_tensors(a, b)`: each one a view of its argument.
            for (t, fact) in targets.iter().zip(facts) {
                self.bind(t, fact);
            }
            return;
        }
        if let (Some(targets), Expr::Call(call)) = (target_elts, value)
            && let Some(part) = self.split_parts(call)
        {
            // `lower, upper = x.unbind(-1)`: each name a view of `x`'s memory.
            for t in targets {
                self.bind(t, part.clone());
            }
            return;
        }
        let (Some(targets), Some(values)) = (target_elts, value_elts) else {
            let (fact, elements) = self.eval_with_elements(value, UseCtx::Bind);
            self.bind_evaluated(target, value, fact, elements);
            return;
        };
        if values.iter().any(|v| matches!(v, Expr::Starred(_))) {
            let fact = self.eval_with(value, UseCtx::Bind);
            self.bind(target, fact);
            return;
        }
        let star = targets.iter().position(|t| matches!(t, Expr::Starred(_)));
        let (before, after) = match star {
            Some(s) => (s, targets.len() - s - 1),
            None => (targets.len(), 0),
        };
        let fits = match star {
            Some(_) => values.len() >= before + after,
            None => values.len() == targets.len(),
        };
        if !fits {
            let fact = self.eval_with(value, UseCtx::Bind);
            self.bind(target, fact);
            return;
        }
        // Every value is evaluated before any name is bound (`a, b = b.expand(...), a`); nested
        // displays are destructured in turn.
        let mut evaluated: Vec<Option<(Fact, Elements)>> = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let in_star = star.is_some() && i >= before && i < values.len() - after;
            if in_star {
                self.eval(v);
                evaluated.push(None);
            } else if matches!(v, Expr::Tuple(_) | Expr::List(_)) {
                evaluated.push(None);
            } else {
                evaluated.push(Some(self.eval_with_elements(v, UseCtx::Bind)));
            }
        }
        let mut pairs: Vec<(&Expr, usize)> = targets[..before].iter().zip(0..before).collect();
        if let Some(s) = star {
            self.bind(&targets[s], Fact::of_kind(ValueKind::NotTensor));
            pairs.extend(
                targets[s + 1..]
                    .iter()
                    .zip(values.len() - after..values.len()),
            );
        }
        for (t, i) in pairs {
            match evaluated[i].take() {
                Some((fact, elements)) => self.bind_evaluated(t, &values[i], fact, elements),
                None => self.destructure(t, &values[i]),
            }
        }
    }

    /// Binds an evaluated value: `x, y = helper(...)` element by element, a container's tracked
    /// elements under the name (`out = helper(...)`, then `out["mask"]`).
    pub(in crate::analysis::dataflow) fn bind_evaluated(
        &mut self,
        target: &Expr,
        value: &Expr,
        fact: Fact,
        elements: Elements,
    ) {
        if let Expr::Tuple(ast::ExprTuple { elts: targets, .. })
        | Expr::List(ast::ExprList { elts: targets, .. }) = target
        {
            if !elements.is_empty() && !targets.iter().any(|t| matches!(t, Expr::Starred(_))) {
                for (i, t) in targets.iter().enumerate() {
                    let key = ElementKey::Index(i as u32);
                    let fact = elements
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map_or_else(Fact::unknown, |(_, f)| f.clone());
                    self.bind(t, fact);
                }
                return;
            }
            let known = self.known_sizes_of_pairs(targets, value);
            self.bind(target, fact);
            self.learn_shape_from_unpack(targets, value);
            self.set_known_sizes(known);
            return;
        }
        let fact = match known_sizes::leading_size_read(value) {
            Some(base) if matches!(target, Expr::Name(_)) => Fact {
                leading_size_of: Some(format!("{}.shape[0]", self.fs.code(base.range())).into()),
                ..fact
            },
            _ => fact,
        };
        let fact = match self.known_dim_read(value) {
            Some(n) if matches!(target, Expr::Name(_)) => Fact {
                int_value: Some(n),
                ..fact
            },
            _ => fact,
        };
        self.bind(target, fact);
        if !elements.is_empty()
            && let Some(key) = dotted_key(target)
        {
            self.has_elements = true;
            for (k, f) in elements {
                self.set(format!("{key}{k}"), f);
            }
        }
    }

    pub(in crate::analysis::dataflow) fn bind(&mut self, target: &Expr, fact: Fact) {
        if !fact.helper_calls.is_empty()
            && (!matches!(target, Expr::Name(_)) || self.returns.is_none() || self.shares_names())
        {
            // A helper's result stored anywhere but a local name (an attribute, a container, a
            // global, unpacked): reads of it elsewhere are not seen.
            self.helper_calls_escape(&fact);
        }
        let module_global =
            matches!(target, Expr::Name(_)) && self.returns.is_none() && self.class_name.is_none();
        if matches!(target, Expr::Attribute(_)) || module_global {
            // Stored on an object, or a module's global that importers read: other code may
            // write to it.
            self.mark_use(&fact, ResultUse::Escapes);
        }
        if let Expr::Name(n) = target
            && self.returns.is_some()
        {
            self.bound_here.insert(n.id.to_string());
            self.note_param_rebound(n.id.as_str());
        }
        match target {
            Expr::Name(n) if self.class_name.is_some() && self.returns.is_none() => {
                // A class attribute (`mask = None` in the class body): `self.mask` may read it.
                if let Some(writes) = &mut self.fs.attr_writes {
                    writes
                        .entry(n.id.to_string())
                        .or_default()
                        .push(Fact::unknown());
                }
                self.set(n.id.to_string(), fact);
            }
            Expr::Name(_) | Expr::Attribute(_) => match dotted_key(target) {
                Some(key) => {
                    self.note_attr_store(target, &fact);
                    self.record_attr_write(target, fact.clone());
                    self.set(key, fact)
                }
                None => {
                    if let Expr::Attribute(a) = target {
                        self.eval(&a.value);
                    }
                }
            },
            Expr::Subscript(s) => {
                let base = self.eval(&s.value);
                // `x[...] = v` writes x in place.
                self.mark_in_place(&base);
                let index_ctx = super::super::broadcast_reads::index_ctx(&base, &s.slice, true);
                self.eval_with(&s.slice, index_ctx);
                if base.kind != ValueKind::Tensor {
                    // `outputs["mask"] = v`: stored in a container that may leave the function.
                    self.mark_use(&fact, ResultUse::Escapes);
                    self.record_element_write(&s.value, fact.clone());
                    // Its elements may no longer share one named device.
                    if base.device_sym.is_some()
                        && let Some(held) = dotted_key(&s.value).and_then(|k| self.env.get_mut(&k))
                    {
                        held.device_sym = None;
                    }
                }
                match (element_key(s), literal_element(&s.slice)) {
                    // `d["m"] = m.expand(...)`: `d["m"]` is tracked like a name.
                    (Some(key), Some(element)) if holds_elements(&base, &element) => {
                        self.has_elements = true;
                        self.set(key, fact);
                    }
                    _ => {
                        // Any other store may replace any element.
                        if let Some(base_key) = dotted_key(&s.value) {
                            self.forget_elements(&base_key);
                        }
                    }
                }
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                // Unpacking a tensor, or a tuple or list of tensors that live in one place
                // (`y, x = torch.meshgrid(a, b)`), gives tensors there.
                let element = match fact.placement {
                    Placement::Host | Placement::Device
                        if fact.enlarged.is_none()
                            && matches!(fact.kind, ValueKind::Tensor | ValueKind::NotTensor) =>
                    {
                        Fact::tensor(None, None).placed(fact.placement)
                    }
                    _ => Fact::unknown(),
                };
                for elt in elts {
                    self.bind(elt, element.clone());
                }
            }
            Expr::Starred(s) => self.bind(&s.value, Fact::of_kind(ValueKind::NotTensor)),
            _ => {
                self.eval(target);
            }
        }
    }
}
