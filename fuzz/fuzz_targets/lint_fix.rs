//! Source -> lint -> fix -> re-parse. Properties: no panic; every edit of a fix lies inside the
//! text on character boundaries; the edits applied together never overlap; the fixed text parses
//! when the input did; fixing the fixed text again changes nothing.
#![no_main]

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use oomlint::analysis::SummaryTable;
use oomlint::config::{Resolver, Settings};
use oomlint::diagnostic::{Applicability, Edit, Fix};
use oomlint::linter::{fix_text, lint_source, module_info};
use oomlint::source::parse_module;

fn settings() -> Arc<Settings> {
    static SETTINGS: OnceLock<Arc<Settings>> = OnceLock::new();
    SETTINGS
        .get_or_init(|| {
            let resolver = Resolver::new(None, true, Default::default()).expect("default settings");
            resolver.settings_for(Path::new("fuzz.py"))
        })
        .clone()
}

/// The fixes `apply_fixes` takes in one round: in order of first edit, skipping any that touches
/// an edit already taken.
fn taken_edits<'a>(fixes: &[&'a Fix]) -> Vec<&'a Edit> {
    let mut ordered: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    ordered.sort_by_key(|f| f.edits.iter().map(|e| e.range.start()).min());
    let mut taken: Vec<&Edit> = Vec::new();
    for fix in ordered {
        let clash = fix.edits.iter().any(|e| {
            taken
                .iter()
                .any(|t| e.range.start() <= t.range.end() && t.range.start() <= e.range.end())
        });
        if !clash {
            taken.extend(fix.edits.iter());
        }
    }
    taken
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.py");
    let settings = settings();
    let result = lint_source(text, path, Arc::from("fuzz.py"), &settings);
    let fixes: Vec<&Fix> = result
        .reports
        .iter()
        .flat_map(|r| r.diagnostics.iter())
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| f.applicability != Applicability::DisplayOnly)
        .collect();
    if fixes.is_empty() {
        return;
    }
    for fix in &fixes {
        for e in &fix.edits {
            let (s, t) = (e.range.start().to_usize(), e.range.end().to_usize());
            assert!(
                s <= t && t <= text.len(),
                "edit {s}..{t} outside a text of {}",
                text.len()
            );
            assert!(
                text.is_char_boundary(s) && text.is_char_boundary(t),
                "edit {s}..{t} splits a character"
            );
        }
    }
    let mut taken = taken_edits(&fixes);
    taken.sort_by_key(|e| (e.range.start(), e.range.end()));
    for pair in taken.windows(2) {
        assert!(
            pair[0].range.end() <= pair[1].range.start(),
            "applied edits overlap: {:?} and {:?}",
            pair[0].range,
            pair[1].range
        );
    }

    let had_errors = !parse_module(text, false).syntax_errors.is_empty();
    let module = module_info(path, Arc::from("fuzz.py"), &Mutex::new(HashMap::new()));
    let summaries = SummaryTable::default();
    let once = fix_text(text, path, &module, &settings, &summaries, true);
    if !had_errors {
        assert!(
            parse_module(&once.text, false).syntax_errors.is_empty(),
            "the fixed text does not parse:\n{}",
            once.text
        );
    }
    let twice = fix_text(&once.text, path, &module, &settings, &summaries, true);
    // Only a converged first pass must be a fixed point.
    if !once.notes.iter().any(|n| n.contains("did not converge")) {
        assert_eq!(once.text, twice.text, "a second fix changed the text");
    }
});
