//! Sizes a model's configuration states: the integer keyword defaults of a configuration class's
//! `__init__` (`def __init__(self, hidden_size=4096, num_attention_heads=32, ...)` in a
//! transformers-style `configuration_*.py`). A fact about a file's text; which file is read for
//! which linted file is the caller's business.

use crate::source::ast::{Expr, Number, Stmt, UnaryOp};
use crate::source::parse_module;

/// The integer keyword defaults of every class's `__init__` in `text`, and its integer
/// dataclass-style fields (`num_attention_heads: int = 16`), in source order; a name given twice
/// keeps its first value.
pub fn config_class_defaults(text: &str) -> Vec<(String, i64)> {
    let parsed = parse_module(text, false);
    let mut out: Vec<(String, i64)> = Vec::new();
    for stmt in &parsed.body {
        let Stmt::ClassDef(class) = stmt else {
            continue;
        };
        for item in &class.body {
            // A dataclass-style field: `num_attention_heads: int = 16`.
            let field = match item {
                Stmt::AnnAssign(a) => match (&*a.target, a.value.as_deref()) {
                    (Expr::Name(n), Some(value)) => Some((n.id.to_string(), value)),
                    _ => None,
                },
                _ => None,
            };
            if let Some((name, value)) = field {
                if let Some(v) = int_literal(value)
                    && !out.iter().any(|(n, _)| *n == name)
                {
                    out.push((name, v));
                }
                continue;
            }
            let Stmt::FunctionDef(def) = item else {
                continue;
            };
            if def.name.id.as_str() != "__init__" {
                continue;
            }
            for param in def.parameters.iter_non_variadic_params() {
                let Some(value) = param.default.as_deref().and_then(int_literal) else {
                    continue;
                };
                let name = param.parameter.name.id.to_string();
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, value));
                }
            }
        }
    }
    out
}

/// `self.num_heads = config.num_attention_heads` (also `self.config.x`, `config.text_config.x`)
/// in any method of any class of `body`: `(num_heads, num_attention_heads)`, in source order, so
/// that a size read through the attribute takes the configuration's value.
pub fn config_aliases(body: &[Stmt]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for stmt in body {
        if let Stmt::ClassDef(class) = stmt {
            for item in &class.body {
                if let Stmt::FunctionDef(def) = item {
                    aliases_in(&def.body, &mut out);
                }
            }
        }
    }
    out
}

fn aliases_in(body: &[Stmt], out: &mut Vec<(String, String)>) {
    for stmt in body {
        match stmt {
            Stmt::Assign(assign) => {
                let [Expr::Attribute(target)] = assign.targets.as_slice() else {
                    continue;
                };
                let Expr::Name(owner) = &*target.value else {
                    continue;
                };
                let Expr::Attribute(value) = &*assign.value else {
                    continue;
                };
                if owner.id.as_str() != "self" || !names_a_config(&value.value) {
                    continue;
                }
                let alias = target.attr.id.to_string();
                let field = value.attr.id.to_string();
                if alias != field && !out.iter().any(|(a, _)| *a == alias) {
                    out.push((alias, field));
                }
            }
            Stmt::If(s) => {
                aliases_in(&s.body, out);
                for clause in &s.elif_else_clauses {
                    aliases_in(&clause.body, out);
                }
            }
            Stmt::With(s) => aliases_in(&s.body, out),
            _ => {}
        }
    }
}

/// `config`, `self.config`, `config.text_config`, `encoder_config`.
fn names_a_config(expr: &Expr) -> bool {
    let last = match expr {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.id.as_str(),
        _ => return false,
    };
    last == "config" || last.ends_with("_config")
}

/// `32`, `-1`; not `True` (a bool is not a size).
fn int_literal(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64(),
            _ => None,
        },
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => int_literal(&u.operand).map(|v| -v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_of_config_classes() {
        let text = "\
from x import PretrainedConfig


class LlamaConfig(PretrainedConfig):
    model_type = 'llama'

    def __init__(
        self,
        vocab_size=32000,
        hidden_size=4096,
        num_attention_heads=32,
        num_key_value_heads=None,
        rope_theta=10000.0,
        tie_word_embeddings=False,
        pad_token_id=-1,
        *args,
        max_position_embeddings: int = 2048,
        **kwargs,
    ):
        super().__init__(**kwargs)


class OtherConfig:
    num_experts: int = 8
    use_cache: bool = True
    layer_types: list | None = None
    def __init__(self, hidden_size=768, head_dim=64):
        pass

    def helper(self, unused=7):
        pass
";
        let got = config_class_defaults(text);
        let want: Vec<(String, i64)> = [
            ("vocab_size", 32000),
            ("hidden_size", 4096),
            ("num_attention_heads", 32),
            ("pad_token_id", -1),
            ("max_position_embeddings", 2048),
            ("num_experts", 8),
            ("head_dim", 64),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
        assert_eq!(got, want);
        assert!(config_class_defaults("def broken(:\n").is_empty());
    }

    #[test]
    fn attributes_read_from_a_config() {
        let text = "\
class Attention(nn.Module):
    def __init__(self, config, layer_idx):
        self.config = config
        self.num_heads = config.num_attention_heads
        self.head_dim = getattr(config, 'head_dim', 64)
        self.hidden_size = config.hidden_size
        if config.use_kv:
            self.num_key_value_heads = self.config.num_key_value_heads
        self.text_dim = config.text_config.hidden_size
        other.num_heads = config.n_head
        self.scale = 0.5
";
        let parsed = parse_module(text, false);
        let got = config_aliases(&parsed.body);
        let want: Vec<(String, String)> = [
            ("num_heads", "num_attention_heads"),
            ("text_dim", "hidden_size"),
        ]
        .into_iter()
        .map(|(a, f)| (a.to_string(), f.to_string()))
        .collect();
        assert_eq!(got, want);
    }
}
