//! `oomlint dims --from PROFILE... [--source DIR]`: the sizes the profiles measured at the static
//! findings of the source, printed as a `[tool.oomlint.dims]` block to commit, so that a run
//! without the profile prices the same sites with the same sizes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::DimsArgs;
use super::output::{EXIT_CLEAN, fail, print_evidence_notes, write_output};
use crate::app::{App, load_evidence};
use crate::config::{Overrides, Resolver};
use crate::rules::size_estimate::LearnedDims;

pub(super) fn dims(args: DimsArgs) -> i32 {
    // The sites `check` reports, so that the block prices what a `check --profile` would.
    let resolver = match Resolver::new(args.config.as_deref(), args.isolated, Overrides::default())
    {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let app = App::new(resolver, None).with_cache(!args.no_cache);
    let mut loaded = Vec::new();
    for outcome in load_evidence(&args.from, &[]) {
        match outcome {
            Ok(ev) => {
                print_evidence_notes(&ev);
                loaded.push(ev);
            }
            Err(e) => eprintln!("oomlint: error: {e}"),
        }
    }
    if loaded.is_empty() {
        return fail(&format!(
            "no evidence could be read ({} given; see above)",
            args.from.len()
        ));
    }
    let sources = if args.source.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.source.clone()
    };
    let linted = match app.lint_paths(&sources, false) {
        Ok(linted) => linted,
        Err(e) => return fail(&e.to_string()),
    };
    let here = app.settings_for(Path::new("."));
    let learned = app.learn_dims(&linted, &loaded, &here);
    let text = render(&learned, &args.from);
    if let Err(e) = write_output(args.output_file.as_deref(), text.as_bytes()) {
        return fail(&e);
    }
    EXIT_CLEAN
}

/// A TOML key: bare when it can be (`batch_size`), quoted otherwise (`"x.shape[-1]"`).
fn key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The block: a header naming the profiles, then each size with a comment saying where it was
/// measured (and what else was measured for it).
fn render(learned: &LearnedDims, from: &[PathBuf]) -> String {
    let mut out = String::new();
    let names: Vec<String> = from
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "# Sizes measured by {} (oomlint dims --from); commit them so that runs without the profile use them.",
        names.join(", ")
    );
    let _ = writeln!(out, "[tool.oomlint.dims]");
    if learned.dims.is_empty() {
        let _ = writeln!(out, "# no size was measured at a static finding");
    }
    for (name, dim) in &learned.dims {
        let _ = writeln!(out, "# from {}, {}", dim.evidence, dim.at);
        for (value, evidence, at) in &dim.conflicts {
            let _ = writeln!(
                out,
                "# also measured {value} ({evidence}, {at}); the larger is kept"
            );
        }
        let _ = writeln!(out, "{} = {}", key(name), dim.value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::key;

    #[test]
    fn keys_are_quoted_when_toml_needs_it() {
        assert_eq!(key("batch_size"), "batch_size");
        assert_eq!(key("attn_mask.shape[-1]"), "\"attn_mask.shape[-1]\"");
    }
}
