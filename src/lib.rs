//! oomlint: a static linter for PyTorch model code that finds tensors which are enlarged for free
//! (a broadcast view) or by a copy and only then converted, which materializes a huge temporary.
//!
//! The pipeline reads one way: `config`/`discovery` -> `source` (parse) -> `analysis` (facts) ->
//! `rules` (findings) -> `report` (emitters), all reading and writing the output model in `model`.
//! `linter` runs it for a set of files; `app` is the sequence lint -> fix -> evidence ->
//! `crossref` that both front ends use: `cli` and `server` (the language server) only adapt it.
//! `evidence` reads profiler output (traces, snapshots, Ascend folders, OOM logs) into one
//! allocation model; it knows nothing of Python source. `fmt` (sizes, shapes, escaping) is
//! the bottom layer that everything prints with. `testing` holds the fuzz harness.
//!
//! The public API is what the binary, the integration tests and the fuzz crate use (`rules`
//! for the registry the tests iterate); the rest is `pub(crate)`.

// `analysis` and `rules` are being reworked on other branches; the re-exports they no longer need
// outside the crate (`SymExpr`, `FixBuilder`) are left to those changes.
#[allow(unused_imports)]
pub(crate) mod analysis;
pub(crate) mod app;
pub(crate) mod cache;
pub mod cli;
pub mod config;
pub(crate) mod crossref;
pub(crate) mod diagnostic;
pub(crate) mod discovery;
pub mod evidence;
pub(crate) mod fix;
pub(crate) mod fmt;
pub mod linter;
pub(crate) mod model;
pub mod profile;
pub(crate) mod report;
pub mod rules;
pub(crate) mod server;
pub(crate) mod source;
#[cfg(any(test, feature = "fuzzing"))]
pub mod testing;
