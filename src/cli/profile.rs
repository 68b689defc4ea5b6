//! `oomlint profile`: the memory report of evidence files, optionally with the static findings
//! of a source tree at the hot lines, and a prediction across labelled runs.

use std::path::Path;
use std::sync::Arc;

use super::args::{ProfileArgs, ProfileFormat};
use super::output::{
    EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, fail, print_evidence_notes, write_output,
};
use crate::app::App;
use crate::config::{Overrides, Resolver};
use crate::evidence;
use crate::report;

pub(super) fn profile(args: ProfileArgs) -> i32 {
    let mut loaded = Vec::new();
    let mut failed = false;
    for (path, label) in &args.evidence {
        match evidence::load(path) {
            Ok(ev) => {
                print_evidence_notes(&ev);
                loaded.push((ev, label.clone()));
            }
            Err(e) => {
                eprintln!("oomlint: error: {e}");
                failed = true;
            }
        }
    }
    if loaded.is_empty() {
        // Each failure is already said, in one line; a second line only for several.
        if args.evidence.len() > 1 {
            return fail("no evidence could be read (see above)");
        }
        return EXIT_ERROR;
    }
    let resolver = match Resolver::new(args.config.as_deref(), false, Overrides::default()) {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let app = App::new(resolver, None).with_cache(!crate::cache::disabled_by_env());
    let here = match app.try_settings_for(Path::new(".")) {
        Ok(settings) => settings,
        Err(e) if !args.source.is_empty() => return fail(&e.to_string()),
        // Without a source tree only `path-map` is read from it: the defaults do.
        Err(_) => app.resolver().defaults(),
    };
    let mut linted = None;
    if !args.source.is_empty() {
        match app.lint_paths(&args.source, false) {
            Ok(mut l) => {
                App::resolve_labels(&mut l);
                linted = Some(l);
            }
            Err(e) => return fail(&e.to_string()),
        }
    }
    let tree = linted.as_ref().map(|l| crate::profile::SourceTree {
        result: &l.result,
        files: &l.files,
        path_map: &here.path_map,
    });
    let request = crate::profile::ProfileRequest {
        top: args.top,
        predict: args.predict.clone(),
        capacity: args.capacity,
    };
    let output = crate::profile::build(&loaded, &request, tree.as_ref());
    let mut rendered = Vec::new();
    let written = match args.format {
        ProfileFormat::Text => report::profile::write_text(&mut rendered, &output),
        ProfileFormat::Json => report::profile::write_json(&mut rendered, &output),
        ProfileFormat::Html => report::profile::write_html(&mut rendered, &output),
    };
    if let Err(e) = written {
        return fail(&format!("cannot render the report: {e}"));
    }
    let sent = write_output(args.output_file.as_deref(), &rendered);
    if let Err(e) = sent {
        return fail(&e);
    }
    if failed {
        // A file that could not be read is a usage error, as in `check --profile`.
        EXIT_ERROR
    } else if exceeds_capacity(&output, args.capacity) {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// With `--capacity`, CI wants to know whether the run fits: a measured peak or the predicted
/// one above the capacity is a failure (exit 1).
fn exceeds_capacity(output: &crate::profile::ProfileOutput, capacity: Option<u64>) -> bool {
    let Some(capacity) = capacity else {
        return false;
    };
    let measured = output
        .profiles
        .iter()
        .filter_map(|p| p.report.peak.as_ref())
        .any(|p| p.allocated_bytes > capacity);
    let predicted = output
        .scaling
        .as_ref()
        .and_then(|s| s.prediction.as_ref())
        .is_some_and(|p| p.peak_bytes > capacity as f64);
    measured || predicted
}
