//! oomlint: a static linter for PyTorch model code that finds tensors which are enlarged for free
//! (a broadcast view) or by a copy and only then converted, which materializes a huge temporary.
//!
//! The pipeline reads one way: `cli` -> `config`/`discovery` -> `source` (parse) -> `analysis`
//! (facts) -> `rules` (findings) -> `report` (emitters).
pub mod evidence;
