//! Subscripts: indexing a tensor keeps, narrows or ends an enlargement (a slice of one element
//! of the grown dim, boolean-mask indexing), and indexing a container reads its element.

use super::*;

impl Walker<'_, '_> {
    pub(super) fn eval_subscript(&mut self, s: &ast::ExprSubscript) -> Fact {
        self.eval_subscript_of(s).1
    }

    /// The indexed value and the subscript's value: a store through the subscript
    /// (`x[i] += v`) writes the first in place.
    pub(in crate::analysis::dataflow) fn eval_subscript_of(
        &mut self,
        s: &ast::ExprSubscript,
    ) -> (Fact, Fact) {
        let value = self.eval_not_consuming(&s.value, false);
        let mut result = self.index_value(s, &value);
        super::super::unit_results::note_tuple_element_dims(&mut result, s);
        (value, result)
    }

    fn index_value(&mut self, s: &ast::ExprSubscript, value: &Fact) -> Fact {
        let index_ctx = super::super::broadcast_reads::index_ctx(value, &s.slice, false);
        self.eval_with(&s.slice, index_ctx);
        // An element of a class's cache whose every element is known (`self._tables[key]`).
        if !self.fs.class_attrs.is_empty()
            && let Some(key) = dotted_key(&s.value)
            && let Some(element) = self.env.get(&format!("{key}[*]"))
        {
            return element.clone();
        }
        if value.is_not_tensor() {
            return Fact::unknown();
        }
        let step_start = super::super::after_closing(self.fs.text, s.value.end(), s.slice.start());
        let elts: Vec<&Expr> = match &*s.slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let kinds: Vec<Index> = elts.iter().map(|e| classify_index(e)).collect();
        // `x[:1]`, `x[2:3]`: one element of a dim that may be the enlarged one.
        let takes_one = elts.iter().any(|e| slice_takes_one(e));
        let basic = kinds
            .iter()
            .all(|k| !matches!(k, Index::Int | Index::Other));
        // Slices, `None`, `...` and integers index a view: the same memory as the indexed
        // tensor (a tensor index copies; an unknown name may be either).
        let view = kinds.iter().all(|k| !matches!(k, Index::Other));
        let name = dotted_key(&s.value);
        let shape = index_shape(&kinds, value.shape.as_ref(), name.as_deref());
        // Items read from one dict under different keys are unrelated values: each gets its
        // own dtype name (`features["mask"]` need not share `features["emb"]`'s dtype).
        let dtype_sym = match &*s.slice {
            Expr::StringLiteral(_) if value.dtype.is_none() => {
                Some(Rc::from(self.fs.code(s.range()).as_str()))
            }
            _ => value.dtype_sym.clone(),
        };
        match &value.enlarged {
            Some(enlarged) if basic && !takes_one => {
                let mut e = (**enlarged).clone();
                e.steps.push(Step {
                    role: StepRole::View,
                    file: None,
                    range: TextRange::new(s.value.end(), s.end()),
                    code: self.fs.code(TextRange::new(step_start, s.end())),
                    receiver: None,
                    stmt: self.stmt_range,
                });
                e.shape = shape.clone();
                Fact {
                    kind: ValueKind::Tensor,
                    dtype: value.dtype,
                    shape,
                    enlarged: Some(Rc::new(e)),
                    sink_results: value.sink_results.clone(),
                    repeat_candidate: None,
                    helper_calls: Vec::new(),
                    unit_dims: Vec::new(),
                    placement: value.placement,
                    dtype_sym: value.dtype_sym.clone(),
                    copy_bypass: Vec::new(),
                    leading_size_of: None,
                    int_value: None,
                    device_sym: value.device_sym.clone(),
                }
            }
            _ => Fact {
                kind: value.kind.clone(),
                dtype: value.dtype,
                shape,
                enlarged: None,
                sink_results: if view {
                    value.sink_results.clone()
                } else {
                    Vec::new()
                },
                repeat_candidate: None,
                helper_calls: Vec::new(),
                unit_dims: Vec::new(),
                placement: value.placement,
                dtype_sym,
                copy_bypass: Vec::new(),
                leading_size_of: None,
                int_value: None,
                device_sym: value.device_sym.clone(),
            },
        }
    }
}
