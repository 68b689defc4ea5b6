//! The integration tests, one binary (one link of the crate and its dev-dependencies instead of
//! one per file). Each module is what used to be a `tests/<name>.rs` of its own; `common` holds
//! the helpers they share. Filter as before by module: `cargo test --test it cli::`.

mod common;

mod arange_sizes;
mod cli;
mod evidence_errors;
mod evidence_samples;
mod fix;
mod fixtures;
mod formats;
mod fuzz_regressions;
mod hostile;
mod hostile_evidence;
mod learned_dims;
mod levels;
mod lsp;
mod neovim;
mod notebook;
mod profile_check;
mod profile_own_samples;
mod profile_report;
mod project;
mod project_calls;
mod project_fixed_counts;
mod project_guessed;
mod project_in_place;
mod project_repeat;
mod rule_docs;
mod rule_snapshots;
mod site_marks;
mod sites;
