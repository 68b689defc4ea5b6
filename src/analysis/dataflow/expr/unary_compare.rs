//! Unary operators and comparisons: `~m`, `-m` and `m == v` of an enlarged value are elementwise
//! sinks (a comparison's result is bool); `not`, `is`, `in` give plain values.

use super::*;

impl Walker<'_, '_> {
    pub(super) fn eval_unary(&mut self, u: &ast::ExprUnaryOp) -> Fact {
        let operand = self.eval(&u.operand);
        match u.op {
            UnaryOp::Not => Fact::of_kind(ValueKind::Scalar),
            UnaryOp::UAdd => operand,
            UnaryOp::Invert | UnaryOp::USub => {
                if operand.enlarged.is_some() {
                    let code = u.range;
                    self.sink_receiver = None;
                    return self.sink(
                        &operand,
                        SinkKind::Elementwise,
                        u.range,
                        code,
                        operand.dtype,
                    );
                }
                match operand.kind {
                    ValueKind::Scalar => Fact::of_kind(ValueKind::Scalar),
                    ValueKind::Tensor => {
                        Fact::tensor(operand.dtype, operand.shape.clone()).placed(operand.placement)
                    }
                    _ => Fact {
                        dtype: operand.dtype,
                        placement: operand.placement,
                        ..Fact::unknown()
                    },
                }
            }
        }
    }

    pub(super) fn eval_compare(&mut self, c: &ast::ExprCompare) -> Fact {
        let left = self.eval_with(&c.left, UseCtx::Broadcast);
        let mut facts = vec![left];
        for comparator in &c.comparators {
            facts.push(self.eval_with(comparator, UseCtx::Broadcast));
        }
        if c.ops
            .iter()
            .any(|op| matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn))
        {
            return Fact::of_kind(ValueKind::Scalar);
        }
        if facts.len() == 2 {
            let (a, b) = (&facts[0], &facts[1]);
            let (ea, eb) = (&*c.left, &c.comparators[0]);
            let enlarged = if a.enlarged.is_some() && Self::counts_as_scalar(eb, b, a) {
                Some(a)
            } else if b.enlarged.is_some() && Self::counts_as_scalar(ea, a, b) {
                Some(b)
            } else {
                None
            };
            if let Some(recv) = enlarged {
                let recv = recv.clone();
                let code = c.range;
                self.sink_receiver = None;
                return self.sink(
                    &recv,
                    SinkKind::Elementwise,
                    c.range,
                    code,
                    Some(DType::Bool),
                );
            }
        }
        if facts.iter().all(|f| f.kind == ValueKind::Scalar) {
            return Fact::of_kind(ValueKind::Scalar);
        }
        let is_tensor = facts
            .iter()
            .any(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some());
        Fact {
            kind: if is_tensor {
                ValueKind::Tensor
            } else {
                ValueKind::Unknown
            },
            dtype: Some(DType::Bool),
            placement: operands_placement(&facts.iter().collect::<Vec<_>>()),
            ..Fact::default()
        }
    }
}
