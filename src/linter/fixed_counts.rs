//! The project's census of calls for the count parameters of reported functions (see
//! `analysis::call_constants`): which files to read, and which to walk again once a count is
//! known to be 1.

use std::collections::HashSet;

use rayon::prelude::*;

use crate::analysis::call_constants::{self, CountParam, ProjectCalls, Targets};
use crate::analysis::{ModuleInfo, SummaryTable};
use crate::discovery::FileJob;
use crate::source;

/// Reads the calls of every candidate in the files that name it, stores the counts fixed at 1
/// in `table`, and returns the files that define a function with one.
pub(super) fn fix_counts(
    table: &mut SummaryTable,
    found: &[(usize, Vec<CountParam>)],
    all: &[&FileJob],
    modules: &[ModuleInfo],
) -> Vec<usize> {
    let params: Vec<CountParam> = found.iter().flat_map(|(_, p)| p.iter().cloned()).collect();
    if params.is_empty() {
        return Vec::new();
    }
    let targets = Targets::new(&params);
    let names: Vec<&String> = targets.names().collect();
    let mut project = ProjectCalls::default();
    let first = census(all, modules, &targets, &names, &HashSet::new());
    // The attributes `__init__` stores a candidate module on may be called from files that do
    // not name its class (a subclass of the model): those are read too.
    let attrs: Vec<String> = first
        .iter()
        .flat_map(|(_, calls)| calls.constructions.iter().map(|(attr, _)| attr.clone()))
        .collect();
    let read: HashSet<usize> = first.iter().map(|(i, _)| *i).collect();
    for (_, calls) in first {
        project.add(calls);
    }
    if !attrs.is_empty() {
        let attr_names: Vec<&String> = attrs.iter().collect();
        for (_, calls) in census(all, modules, &targets, &attr_names, &read) {
            project.add(calls);
        }
    }
    table.unit_counts = call_constants::unit_counts(&params, &project);
    found
        .iter()
        .filter(|(_, params)| {
            params
                .iter()
                .any(|p| table.unit_counts.contains_key(&p.qualname))
        })
        .map(|(i, _)| *i)
        .collect()
}

/// The calls of the files (not in `skip`) whose text names one of `names`.
fn census(
    all: &[&FileJob],
    modules: &[ModuleInfo],
    targets: &Targets,
    names: &[&String],
    skip: &HashSet<usize>,
) -> Vec<(usize, call_constants::FileCalls)> {
    (0..all.len())
        .into_par_iter()
        .filter(|i| !skip.contains(i))
        .filter_map(|i| {
            let src = source::read_source(&all[i].path, all[i].settings.max_file_size).ok()?;
            if !names.iter().any(|n| src.text.contains(n.as_str())) {
                return None;
            }
            if source::notebook::is_notebook(&all[i].path) {
                // Its cells are not read here: every name it holds counts as used otherwise.
                let named: HashSet<String> = names
                    .iter()
                    .filter(|n| src.text.contains(n.as_str()))
                    .map(|n| n.to_string())
                    .collect();
                let calls = call_constants::FileCalls {
                    mentions: named.clone(),
                    attr_mentions: named,
                    ..Default::default()
                };
                return Some((i, calls));
            }
            let is_stub = all[i].path.extension().is_some_and(|e| e == "pyi");
            let parsed = source::parse_module(&src.text, is_stub);
            let calls = call_constants::file_calls(&parsed.body, &modules[i].qualname, targets);
            Some((i, calls))
        })
        .collect()
}
