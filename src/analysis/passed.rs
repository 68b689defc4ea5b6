//! Enlarged values passed across files: a call whose callee is in another file of the project
//! (an imported class's `forward` through `self.block = Block(...)`, a method inherited from an
//! imported base, an imported function) records what it passes; the callee's file, analysed
//! with the project's table, walks that function with its parameters bound to those values, so
//! the callee's sink is a finding in the callee's file, with the caller's steps in its chain.

use serde::{Deserialize, Serialize};

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
        self.passed
            .get(short)
            .into_iter()
            .flatten()
            .filter(move |c| {
                dotted_suffix(&c.callee, qualname) || dotted_suffix(qualname, &c.callee)
            })
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
            let function = c.callee.rsplit_once('.').map(|(m, _)| m);
            let method = function.and_then(|m| m.rsplit_once('.')).map(|(m, _)| m);
            [function, method]
                .into_iter()
                .flatten()
                .any(|m| dotted_suffix(m, module) || dotted_suffix(module, m))
        })
    }
}

/// `long` is `short`, or ends with `.short`.
fn dotted_suffix(long: &str, short: &str) -> bool {
    long == short
        || (long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes()[long.len() - short.len() - 1] == b'.')
}
