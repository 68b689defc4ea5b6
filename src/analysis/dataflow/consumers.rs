//! Consumers that need a dense tensor or lie outside the project: a kernel launch
//! (`kernel[grid](x, ...)`), a `torch.ops.*` operator, `assert x.is_contiguous()`, and functions
//! of other packages. A broadcast view handed to them may fail a stride check or be read as
//! dense memory, so a copy made for them is needed and a fix must not turn it into a view.

use crate::source::ast::{self, Expr};

use super::stmt::{ResultUse, Walker, dotted_key};
use crate::analysis::facts::Fact;

impl Walker<'_, '_> {
    /// `kernel[grid](...)`: a function object subscripted with a launch grid (Triton's syntax). A
    /// module-level function of this file, an imported name or a module's function is a
    /// function, not a container of modules (`self.layers[i](x)` subscripts an attribute of an
    /// object, `blocks[i](x)` a local list).
    pub(super) fn is_kernel_launch(&self, func: &Expr) -> bool {
        let Expr::Subscript(s) = func else {
            return false;
        };
        match &*s.value {
            Expr::Name(n) => {
                let id = n.id.as_str();
                !self.env.contains_key(id)
                    && (self.fs.module_functions.contains(id) || self.fs.imports.contains_key(id))
            }
            // `kernels.fwd[grid](...)`: a function of a module, of this project or another.
            Expr::Attribute(_) => self.module_path(&s.value).is_some(),
            _ => false,
        }
    }

    /// A dotted path (an import's target) that names code outside the project and outside torch:
    /// another package's function, which may check strides. A path into this file's package, a
    /// function the project's summaries know, or `torch.*` (whose own ops accept views) is not.
    pub(super) fn outside_project(&self, path: &str) -> bool {
        let root = path.split('.').next().unwrap_or(path);
        let own_root = self.fs.module.qualname.split('.').next().unwrap_or("");
        root != "torch"
            && root != own_root
            && !self.fs.module_classes.contains(root)
            && !self.fs.module_functions.contains(root)
            && self.fs.summaries.get(path).is_none()
    }

    /// A dotted path that names a class: one of this file's, or an imported name spelled as a
    /// class (`from .ops import _Rasterize`).
    pub(super) fn names_class(&self, path: &str) -> bool {
        let last = path.rsplit('.').next().unwrap_or(path);
        let own = path
            .strip_prefix(self.fs.module.qualname.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|class| self.fs.module_classes.contains(class));
        own || last
            .trim_start_matches('_')
            .starts_with(|c: char| c.is_ascii_uppercase())
    }

    /// Arguments passed to code outside the project (see [`Walker::outside_project`]).
    pub(super) fn mark_left_project(&mut self, facts: &[Fact]) {
        for fact in facts {
            self.mark_use(fact, ResultUse::LeavesProject);
        }
    }
}

/// The names an assertion requires to be contiguous: `x.is_contiguous()`, also as an operand of
/// `and` (`assert a.is_contiguous() and b.is_contiguous()`).
pub(super) fn asserted_contiguous(test: &Expr) -> Vec<String> {
    match test {
        Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
            b.values.iter().flat_map(asserted_contiguous).collect()
        }
        Expr::Call(c) if c.arguments.is_empty() => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str() == "is_contiguous" => {
                dotted_key(&a.value).into_iter().collect()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}
