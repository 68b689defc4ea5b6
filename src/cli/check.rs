//! `oomlint check`: lint a tree or stdin, optionally fix it (`fix`), attach profile evidence,
//! and print the report in the chosen format.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::{CheckArgs, ColorChoice};
use super::fix::{self, Fixes};
use super::output::{
    EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, fail, print_evidence_notes, write_output,
};
use crate::app::{App, EvidenceOptions, Linted, load_evidence};
use crate::config::{FailOn, OutputFormat, Overrides, Resolver};
use crate::diagnostic::Level;
use crate::report::{self, ReportOptions};

pub(super) fn check(args: CheckArgs) -> i32 {
    for selector in args
        .select
        .iter()
        .flatten()
        .chain(&args.ignore)
        .chain(&args.extend_select)
    {
        if let Err(e) = crate::config::check_selector(selector) {
            return fail(&e);
        }
    }
    let mut overrides = Overrides {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        extend_select: args.extend_select.clone(),
        dims: args.dims.clone(),
        output_format: args.output_format,
        max_file_size: Some(args.max_file_size),
        min_static_bytes: args.min_static_bytes,
        capacity: args.capacity,
        learned: Arc::default(),
    };
    let resolver = match Resolver::new(args.config.as_deref(), args.isolated, overrides.clone()) {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let mut app = App::new(resolver, args.threads).with_cache(!args.no_cache);

    // Evidence first: the sizes it measured price the lint. A file that cannot be read is
    // reported (one line: the file and the formats tried) and skipped; the run then ends with
    // exit 2, a usage error, whatever else it found.
    let here = app.settings_for(Path::new("."));
    let min_bytes = args.min_bytes.or(here.min_bytes);
    let profiles = if args.profiles.is_empty() && args.oom_logs.is_empty() {
        here.profiles.clone()
    } else {
        args.profiles.clone()
    };
    let mut evidence_failed = false;
    let mut loaded = Vec::new();
    if !profiles.is_empty() || !args.oom_logs.is_empty() {
        let attempts = profiles.len() + args.oom_logs.len();
        for outcome in load_evidence(&profiles, &args.oom_logs) {
            match outcome {
                Ok(ev) => {
                    print_evidence_notes(&ev);
                    loaded.push(ev);
                }
                Err(e) => {
                    eprintln!("oomlint: error: {e}");
                    evidence_failed = true;
                }
            }
        }
        if loaded.is_empty() {
            // Each failure is already said; a second line only when there were several.
            if attempts > 1 {
                return fail(&format!(
                    "no evidence could be read ({attempts} given; see above)"
                ));
            }
            return EXIT_ERROR;
        }
    }

    let stdin_bytes = match &args.stdin_filename {
        Some(_) => {
            let mut bytes = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
                return fail(&format!("cannot read stdin: {e}"));
            }
            Some(bytes)
        }
        None => None,
    };
    let (mut linted, mut stdin_text) = match lint_input(&app, &args, stdin_bytes.clone()) {
        Ok(linted) => linted,
        Err(code) => return code,
    };
    // Sizes measured at the sites the evidence ran price every site: lint again with them.
    if !loaded.is_empty() {
        let learned = app.learn_dims(&linted, &loaded, &here);
        if !learned.is_empty() {
            overrides.learned = Arc::new(learned);
            let resolver = match Resolver::new(args.config.as_deref(), args.isolated, overrides) {
                Ok(r) => Arc::new(r),
                Err(e) => return fail(&e.to_string()),
            };
            app = App::new(resolver, args.threads).with_cache(!args.no_cache);
            (linted, stdin_text) = match lint_input(&app, &args, stdin_bytes) {
                Ok(linted) => linted,
                Err(code) => return code,
            };
        }
    }
    let fixed = if args.fix || args.fix_only || args.diff {
        match fix::fix(&app, &args, &mut linted, stdin_text) {
            Fixes::Done(code) => return code,
            Fixes::Applied(n) => n,
        }
    } else {
        0
    };
    App::resolve_labels(&mut linted);

    if !loaded.is_empty() {
        let options = EvidenceOptions {
            min_bytes,
            here: &here,
            outside: true,
        };
        app.attach_evidence(&mut linted, &loaded, &options);
    }
    let result = linted.result;

    let format = args
        .output_format
        .or(here.output_format)
        .unwrap_or(OutputFormat::Full);
    let to_terminal = args.output_file.is_none() && std::io::stdout().is_terminal();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    let options = ReportOptions {
        format,
        color,
        statistics: args.statistics,
    };
    let mut rendered = Vec::new();
    if let Err(e) = report::write_report(&mut rendered, &result, &options) {
        return fail(&format!("cannot render the report: {e}"));
    }
    let written = write_output(args.output_file.as_deref(), &rendered);
    if let Err(e) = written {
        return fail(&e);
    }
    if fixed > 0 {
        eprintln!("Fixed {fixed} error{}.", if fixed == 1 { "" } else { "s" });
    }
    if evidence_failed {
        return EXIT_ERROR;
    }
    let failing = fails(
        report::count_level(&result, Level::Error),
        report::count_level(&result, Level::Warning),
        here.fail_on,
        args.max_warnings,
    );
    if (failing && !args.exit_zero) || (args.exit_non_zero_on_fix && fixed > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// Whether what remains fails the run: any error; warnings too with `fail-on = "warning"`, or
/// more of them than `--max-warnings N` (as ESLint).
pub(super) fn fails(
    errors: usize,
    warnings: usize,
    fail_on: FailOn,
    max_warnings: Option<usize>,
) -> bool {
    errors > 0
        || (fail_on == FailOn::Warning && warnings > 0)
        || max_warnings.is_some_and(|n| warnings > n)
}

/// Lints stdin's bytes (`--stdin-filename`) or the paths; `Err` is the exit code of a failure.
fn lint_input(
    app: &App,
    args: &CheckArgs,
    stdin_bytes: Option<Vec<u8>>,
) -> Result<(Linted, Option<String>), i32> {
    match (&args.stdin_filename, stdin_bytes) {
        (Some(name), Some(bytes)) => app
            .lint_bytes(bytes, name)
            .map_err(|e| fail(&e.to_string())),
        _ => {
            let paths = if args.paths.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                args.paths.clone()
            };
            app.lint_paths(&paths, args.force_exclude)
                .map(|linted| (linted, None))
                .map_err(|e| fail(&e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_fails_the_run() {
        assert!(!fails(0, 5, FailOn::Error, None));
        assert!(fails(1, 0, FailOn::Error, None));
        assert!(fails(0, 1, FailOn::Warning, None));
        assert!(!fails(0, 0, FailOn::Warning, None));
        assert!(!fails(0, 3, FailOn::Error, Some(3)));
        assert!(fails(0, 4, FailOn::Error, Some(3)));
        assert!(fails(0, 1, FailOn::Error, Some(0)));
    }
}
