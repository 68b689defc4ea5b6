//! Enlarged values passed across files: a call whose callee is in another file of the project
//! (an imported class's `forward` through `self.block = Block(...)`, a method inherited from an
//! imported base, an imported function) records what it passes; the callee's file, analysed
//! with the project's table, walks that function with its parameters bound to those values, so
//! the callee's sink is a finding in the callee's file, with the caller's steps in its chain.
//!
//! A method called on an object whose class the caller does not know (`emb.rotate(q, f)`, `emb`
//! a parameter) is recorded by the method's name alone, as a guess: it leads to the method only
//! when exactly one class of the whole project defines a method of that name (the table's
//! [`SummaryTable::sole_method`]), and the chain says the guess and its basis.

use serde::{Deserialize, Serialize};

use crate::source::ast::Stmt;

use super::SummaryTable;
use super::facts::{DType, Enlarged, Placement};

/// One enlarged argument, as the caller knows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassedValue {
    /// Steps in the caller's file carry its path (`Step::file`).
    pub enlarged: Enlarged,
    pub dtype: Option<DType>,
    pub placement: Placement,
}

/// A call that passes enlarged values to a function of another file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassedCall {
    /// The callee's qualified name as the caller's imports spell it
    /// (`pkg.block.Block.forward`).
    pub callee: String,
    /// Called through an object (`self.block(x)`, `self.norm(x)`): its first parameter is that.
    pub bound: bool,
    /// Positional arguments up to the first `*args`; None where nothing enlarged is passed.
    pub args: Vec<Option<PassedValue>>,
    pub keywords: Vec<(String, PassedValue)>,
    /// A guess: the callee is only the method's name (`callee`).
    #[serde(default)]
    pub guess: Option<Guess>,
}

/// A method called on an object whose class is not known.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Guess {
    /// The receiver (`emb` of `emb.rotate(...)`).
    pub receiver: String,
    /// Every keyword the call passes, enlarged or not (for the arity check).
    pub keywords: Vec<String>,
}

impl SummaryTable {
    /// Records a call into another file (a call already known is not added again).
    pub fn add_passed(&mut self, call: PassedCall) {
        let short = call.callee.rsplit('.').next().unwrap_or("").to_string();
        let list = self.passed.entry(short).or_default();
        if !list.contains(&call) {
            list.push(call);
        }
    }

    /// The calls that pass enlarged values to the function `qualname` (defined in the file being
    /// analysed): the callee names it, or one is a dotted suffix of the other (a module imported
    /// through a `src/` folder or a namespace package).
    pub fn passed_into(&self, qualname: &str) -> impl Iterator<Item = &PassedCall> {
        let short = qualname.rsplit('.').next().unwrap_or("");
        let sole = self.sole_method(short) == Some(qualname);
        self.passed
            .get(short)
            .into_iter()
            .flatten()
            .filter(move |c| match c.guess {
                Some(_) => sole,
                None => dotted_suffix(&c.callee, qualname) || dotted_suffix(qualname, &c.callee),
            })
    }

    /// Records a method of a class of the project (`pkg.emb.Rotary.rotate`), for the guesses.
    pub fn add_method(&mut self, qualname: &str) {
        let short = qualname.rsplit('.').next().unwrap_or(qualname);
        let list = self.methods.entry(short.to_string()).or_default();
        if !list.iter().any(|q| q == qualname) {
            list.push(qualname.to_string());
        }
    }

    /// The one method of the project named `name`; None when no class or several define one.
    pub fn sole_method(&self, name: &str) -> Option<&str> {
        match self.methods.get(name)?.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// How many classes of the project define a method `name` (for `oomlint sites`).
    pub fn method_count(&self, name: &str) -> usize {
        self.methods.get(name).map_or(0, Vec::len)
    }

    /// Every recorded method, for the cache.
    pub fn all_methods(&self) -> Vec<String> {
        let mut out: Vec<String> = self.methods.values().flatten().cloned().collect();
        out.sort();
        out
    }

    pub fn has_passed(&self) -> bool {
        !self.passed.is_empty()
    }

    /// Every recorded call, for the cache.
    pub fn all_passed(&self) -> Vec<PassedCall> {
        let mut out: Vec<PassedCall> = self.passed.values().flatten().cloned().collect();
        out.sort_by(|a, b| a.callee.cmp(&b.callee));
        out
    }

    /// Does a recorded call lead into the module `module` (a function of it, or a method of one
    /// of its classes)?
    pub fn passes_into_module(&self, module: &str) -> bool {
        self.passed.values().flatten().any(|c| {
            let callee = match c.guess {
                Some(_) => match self.sole_method(&c.callee) {
                    Some(q) => q,
                    None => return false,
                },
                None => c.callee.as_str(),
            };
            let function = callee.rsplit_once('.').map(|(m, _)| m);
            let method = function.and_then(|m| m.rsplit_once('.')).map(|(m, _)| m);
            [function, method]
                .into_iter()
                .flatten()
                .any(|m| dotted_suffix(m, module) || dotted_suffix(module, m))
        })
    }
}

/// `long` is `short`, or ends with `.short`.
pub(super) fn dotted_suffix(long: &str, short: &str) -> bool {
    long == short
        || (long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes()[long.len() - short.len() - 1] == b'.')
}

/// The methods of the module's classes that a guess may lead to (see
/// [`crate::analysis::torch_api::guessable_method`]), by qualified name: each class of the
/// module's top level (and of its `if` blocks), each function of its body.
pub fn defined_methods(body: &[Stmt], module: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::ClassDef(c) => {
                for item in &c.body {
                    if let Stmt::FunctionDef(f) = item
                        && super::torch_api::guessable_method(f.name.id.as_str())
                    {
                        out.push(format!("{module}.{}.{}", c.name.id, f.name.id));
                    }
                }
            }
            Stmt::If(s) => {
                out.extend(defined_methods(&s.body, module));
                for clause in &s.elif_else_clauses {
                    out.extend(defined_methods(&clause.body, module));
                }
            }
            _ => {}
        }
    }
    out
}
