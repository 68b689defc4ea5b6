//! Which parameters (and `self` attributes) a function writes in place: `x[i] = v`, `x[...] += v`,
//! `x.masked_fill_(...)`, `torch.add(a, b, out=x)`, or passing `x` on to a function that writes
//! that parameter. A copy of a broadcast view handed to such a function is needed (writing the
//! stride-0 view itself would raise): the caller's copy is OOM131's, not OOM103's.
//!
//! Each file records its own functions ([`InPlaceWrites`], syntactic, kept in the project cache);
//! whether a call writes an argument is answered through the table, following the calls a
//! function passes its parameters to (a few levels deep, as other calls are).

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::SummaryTable;

/// How deep a parameter is followed through the calls it is passed to.
const MAX_DEPTH: usize = 3;

/// What one function writes in place of what it is given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InPlaceWrites {
    /// `pkg.mod.f` or `pkg.mod.Class.m`.
    pub qualname: String,
    /// A method called through an object: its first parameter is that object.
    pub is_method: bool,
    /// The parameters in order (no `*args` / `**kwargs`).
    pub params: Vec<String>,
    /// What the body writes in place: a parameter's name, or `self.<attr>`.
    pub written: Vec<String>,
    /// What the body passes to other functions' parameters.
    pub passes: Vec<Forward>,
}

/// A parameter (or `self.<attr>`) passed to another function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forward {
    pub root: String,
    pub call: WriterCall,
}

/// A call of a function of the project, as far as which argument is which.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriterCall {
    /// The callee's qualified name as the caller's imports spell it.
    pub callee: String,
    /// Called through an object (`self.m(x)`): the callee's first parameter is that object.
    pub bound: bool,
    pub slot: Slot,
}

/// Where an argument goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Slot {
    Position(u32),
    Keyword(String),
}

impl InPlaceWrites {
    /// The parameter an argument at `slot` binds to.
    fn param(&self, bound: bool, slot: &Slot) -> Option<&str> {
        match slot {
            Slot::Position(i) => {
                let skip = usize::from(bound && self.is_method);
                self.params.get(*i as usize + skip).map(String::as_str)
            }
            Slot::Keyword(k) => self.params.iter().find(|p| *p == k).map(String::as_str),
        }
    }
}

/// The in-place summaries a lookup consults: this file's own first, then the project's.
pub struct Writers<'a> {
    pub local: &'a HashMap<String, Arc<InPlaceWrites>>,
    pub table: &'a SummaryTable,
}

impl Writers<'_> {
    fn lookup(&self, qualname: &str) -> Option<&InPlaceWrites> {
        self.local
            .get(qualname)
            .map(|w| &**w)
            .or_else(|| self.table.in_place_of(qualname))
    }

    /// Does the call write the argument it is given at its slot in place?
    pub fn writes(&self, call: &WriterCall) -> bool {
        self.writes_at(call, 0)
    }

    fn writes_at(&self, call: &WriterCall, depth: usize) -> bool {
        let Some(w) = self.lookup(&call.callee) else {
            return false;
        };
        w.param(call.bound, &call.slot)
            .is_some_and(|p| self.root_written(w, p, depth))
    }

    /// Does the function write `root` (a parameter or `self.<attr>`) in place, itself or
    /// through a call it passes it to?
    pub fn root_written(&self, w: &InPlaceWrites, root: &str, depth: usize) -> bool {
        w.written.iter().any(|r| r == root)
            || (depth < MAX_DEPTH
                && w.passes
                    .iter()
                    .any(|f| f.root == root && self.writes_at(&f.call, depth + 1)))
    }
}

impl SummaryTable {
    /// Records a function's in-place writes (one per qualified name).
    pub fn add_in_place(&mut self, writes: InPlaceWrites) {
        let short = writes.qualname.rsplit('.').next().unwrap_or("").to_string();
        let list = self.in_place.entry(short).or_default();
        if !list.iter().any(|w| w.qualname == writes.qualname) {
            list.push(Arc::new(writes));
        }
    }

    /// The in-place summary of `qualname`: the function of that name, or the one whose name is
    /// a dotted suffix of the other (a module imported through a `src/` folder); None when none
    /// or several fit.
    pub fn in_place_of(&self, qualname: &str) -> Option<&InPlaceWrites> {
        let short = qualname.rsplit('.').next().unwrap_or("");
        let list = self.in_place.get(short)?;
        if let Some(w) = list.iter().find(|w| w.qualname == qualname) {
            return Some(w);
        }
        let mut fits = list.iter().filter(|w| {
            super::passed::dotted_suffix(&w.qualname, qualname)
                || super::passed::dotted_suffix(qualname, &w.qualname)
        });
        match (fits.next(), fits.next()) {
            (Some(w), None) => Some(w),
            _ => None,
        }
    }

    /// The last names of the functions that write something they are given in place (a file
    /// that calls none of them learns nothing new from the table).
    pub fn in_place_names(&self) -> impl Iterator<Item = &str> {
        self.in_place.keys().map(String::as_str)
    }

    /// Once every file's summaries are in: each function's writes with the calls they go
    /// through resolved (`written` holds every root written, directly or by a callee), and the
    /// functions that write nothing dropped, so that lookups need not follow calls.
    pub fn settle_in_place(&mut self) {
        let local = HashMap::new();
        let writers = Writers {
            local: &local,
            table: self,
        };
        let mut settled: HashMap<String, Vec<Arc<InPlaceWrites>>> = HashMap::new();
        for (short, list) in &self.in_place {
            for w in list {
                let mut roots: Vec<String> = w.written.clone();
                for f in &w.passes {
                    if !roots.contains(&f.root) && writers.root_written(w, &f.root, 0) {
                        roots.push(f.root.clone());
                    }
                }
                if roots.is_empty() {
                    continue;
                }
                settled
                    .entry(short.clone())
                    .or_default()
                    .push(Arc::new(InPlaceWrites {
                        written: roots,
                        passes: Vec::new(),
                        ..(**w).clone()
                    }));
            }
        }
        self.in_place = settled;
    }

    pub fn has_in_place(&self) -> bool {
        !self.in_place.is_empty()
    }

    /// Every recorded summary, for the cache.
    pub fn all_in_place(&self) -> Vec<InPlaceWrites> {
        let mut out: Vec<InPlaceWrites> = self
            .in_place
            .values()
            .flatten()
            .map(|w| (**w).clone())
            .collect();
        out.sort_by(|a, b| a.qualname.cmp(&b.qualname));
        out
    }
}
