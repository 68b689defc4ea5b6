//! oomlint: a static linter for PyTorch model code that finds tensors which are enlarged for free
//! (a broadcast view) or by a copy and only then converted, which materializes a huge temporary.
//!
//! The pipeline reads one way: `cli` -> `config`/`discovery` -> `source` (parse) -> `analysis`
//! (facts) -> `rules` (findings) -> `report` (emitters). `linter` drives it for a set of files;
//! `server` (the language server, `oomlint server`) drives it on an editor's open buffers.
//! `evidence` reads profiler output (traces, snapshots, Ascend folders, OOM logs) into one
//! allocation model; it knows nothing of Python source.

// `analysis` and `rules` are being reworked on other branches; the re-exports they no longer need
// outside the crate (`SymExpr`, `FixBuilder`) are left to those changes.
#[allow(unused_imports)]
pub(crate) mod analysis;
pub(crate) mod app;
pub mod cli;
pub mod config;
pub(crate) mod crossref;
pub(crate) mod diagnostic;
pub(crate) mod discovery;
pub mod evidence;
pub(crate) mod fix;
pub mod linter;
pub(crate) mod model;
pub mod profile;
pub(crate) mod report;
#[allow(unused_imports)]
pub(crate) mod rules;
pub(crate) mod server;
pub(crate) mod source;
#[cfg(any(test, feature = "fuzzing"))]
pub mod testing;
