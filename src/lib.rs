//! oomlint: a static linter for PyTorch model code that finds tensors which are enlarged for free
//! (a broadcast view) or by a copy and only then converted, which materializes a huge temporary.
//!
//! The pipeline reads one way: `cli` -> `config`/`discovery` -> `source` (parse) -> `analysis`
//! (facts) -> `rules` (findings) -> `report` (emitters). `linter` drives it for a set of files;
//! `server` (the language server, `oomlint server`) drives it on an editor's open buffers.
//! `evidence` reads profiler output (traces, snapshots, Ascend folders, OOM logs) into one
//! allocation model; it knows nothing of Python source.

pub mod analysis;
pub mod app;
pub mod cli;
pub mod config;
pub mod crossref;
pub mod diagnostic;
pub mod discovery;
pub mod evidence;
pub mod fix;
pub mod linter;
pub mod model;
pub mod profile;
pub mod report;
pub mod rules;
pub mod server;
pub mod source;
#[cfg(any(test, feature = "fuzzing"))]
pub mod testing;
