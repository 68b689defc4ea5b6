//! Each condition of the level, flipped alone on a site that is otherwise an error.

use std::collections::HashMap;

use super::*;
use crate::analysis::{DType, ModuleInfo, Site, SummaryTable, analyze_module};
use crate::rules::RuleContext;
use crate::rules::size_estimate::{LearnedDims, ModelDims, SizeFigure, site_figure};
use crate::source::parse_module;

/// The sites of a small module, in order.
fn sites(code: &str) -> Vec<Site> {
    let text = format!("import torch\n{code}");
    let parsed = parse_module(&text, false);
    analyze_module(
        &parsed.body,
        &text,
        &ModuleInfo::default(),
        &SummaryTable::default(),
        false,
    )
    .sites
}

/// The seed case: a bool cast of a float mask expanded to `[b, h, q, k]`.
const SEED: &str =
    "def f(m, b, h, q, k):\n    m = m.float()\n    m = m.expand(b, h, q, k)\n    return m.bool()\n";

fn bound(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

fn all_bound() -> HashMap<String, i64> {
    bound(&[("b", 4), ("h", 32), ("q", 4096), ("k", 4096)])
}

const MIN: u64 = 16 * 1024 * 1024;

/// The site's figure at `dims` (bound by `--dim`), nothing else known.
fn figure(site: &Site, dims: &HashMap<String, i64>) -> Option<SizeFigure> {
    let ctx = RuleContext {
        dims,
        dim_origins: &HashMap::new(),
        file: "m.py",
        min_static_bytes: MIN,
        model_dims: &ModelDims::default(),
        learned: &LearnedDims::default(),
        capacity: None,
        in_test_file: false,
    };
    site_figure(site, &ctx)
}

fn level_of(site: &Site, dims: &HashMap<String, i64>, in_test_file: bool) -> Level {
    let figure = figure(site, dims);
    static_level(site, figure.as_ref(), MIN, in_test_file)
}

fn seed() -> Site {
    let mut found = sites(SEED);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

#[test]
fn the_seed_with_its_dims_bound_is_an_error() {
    let site = seed();
    assert_eq!(site.source_dtype, Some(DType::Float32));
    assert!(pattern_is_certain(&site));
    assert_eq!(level_of(&site, &all_bound(), false), Level::Error);
}

#[test]
fn a_guessed_size_is_a_warning() {
    let site = seed();
    // One dim left to its role's default: the basis is not stated.
    let dims = bound(&[("b", 4), ("h", 32), ("q", 4096)]);
    assert_eq!(level_of(&site, &dims, false), Level::Warning);
    assert_eq!(level_of(&site, &HashMap::new(), false), Level::Warning);
    // A role bound by the user is stated.
    let by_role = bound(&[("b", 4), ("h", 32), ("q", 4096), ("sequence", 4096)]);
    assert_eq!(level_of(&site, &by_role, false), Level::Error);
}

#[test]
fn a_small_stated_size_is_a_warning() {
    let site = seed();
    let dims = bound(&[("b", 1), ("h", 1), ("q", 16), ("k", 16)]);
    assert_eq!(level_of(&site, &dims, false), Level::Warning);
}

#[test]
fn a_test_file_is_a_warning() {
    assert_eq!(level_of(&seed(), &all_bound(), true), Level::Warning);
}

#[test]
fn a_may_is_a_warning() {
    let mut site = seed();
    site.enlarged.may = true;
    assert!(!pattern_is_certain(&site));
    assert_eq!(level_of(&site, &all_bound(), false), Level::Warning);
}

#[test]
fn a_cast_that_may_be_a_no_op_is_a_warning() {
    // A source of unknown dtype (a parameter) is taken to differ: the seed's own case.
    let mut site = seed();
    site.source_dtype = None;
    assert_eq!(level_of(&site, &all_bound(), false), Level::Error);
    // The argument is not surely a dtype.
    let mut site = seed();
    site.sink = SinkKind::Cast {
        target: Some(DType::Bool),
        certain: false,
        in_reduction: false,
        inside: None,
    };
    assert_eq!(level_of(&site, &all_bound(), false), Level::Warning);
    // A reduction's `dtype=`.
    let mut site = seed();
    site.sink = SinkKind::Cast {
        target: Some(DType::Bool),
        certain: true,
        in_reduction: true,
        inside: None,
    };
    assert_eq!(level_of(&site, &all_bound(), false), Level::Warning);
}

#[test]
fn a_device_move_is_an_error_only_across_devices() {
    let code = "def f(b, h, q, k, dev):\n    m = torch.ones(1, 1, q, k)\n    m = m.expand(b, h, q, k)\n    return m.to(dev)\n";
    let mut found = sites(code);
    assert_eq!(found.len(), 1, "{found:?}");
    let mut site = found.remove(0);
    assert!(site.moves_across_devices, "made on the host, moved");
    assert_eq!(level_of(&site, &all_bound(), false), Level::Error);
    site.moves_across_devices = false;
    assert_eq!(level_of(&site, &all_bound(), false), Level::Warning);
}

#[test]
fn a_copy_the_code_may_need_is_a_warning() {
    // `.contiguous()` whose consumers the analysis does not see: dropping it may break them.
    let code =
        "def f(m, b, h, q, k):\n    m = m.expand(b, h, q, k).contiguous()\n    return kernel(m)\n";
    let found = sites(code);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(!pattern_is_certain(&found[0]));
    assert_eq!(level_of(&found[0], &all_bound(), false), Level::Warning);
    // A result needed contiguous.
    let mut site = seed();
    site.result_needs_contiguous = true;
    assert_eq!(level_of(&site, &all_bound(), false), Level::Warning);
}

#[test]
fn exceeding_the_capacity_is_an_error_on_any_basis() {
    let site = seed();
    let mut figure = figure(&site, &HashMap::new()).expect("figure");
    assert_eq!(
        static_level(&site, Some(&figure), MIN, false),
        Level::Warning
    );
    figure.exceeds_capacity = Some(true);
    assert_eq!(static_level(&site, Some(&figure), MIN, false), Level::Error);
    figure.exceeds_capacity = Some(false);
    assert_eq!(
        static_level(&site, Some(&figure), MIN, false),
        Level::Warning
    );
    // Still a warning in a test file.
    figure.exceeds_capacity = Some(true);
    assert_eq!(
        static_level(&site, Some(&figure), MIN, true),
        Level::Warning
    );
}

#[test]
fn no_figure_is_no_stated_size() {
    assert!(!large_on_stated_basis(None, 0));
    assert_eq!(static_level(&seed(), None, 0, false), Level::Warning);
}

#[test]
fn rule_levels() {
    use crate::rules::{
        LARGE_ALLOCATION_IN_PROFILE, MATERIALIZED_BROADCAST_IN_PROFILE, OOM_SITE, SYNTAX_ERROR,
        UNREADABLE_FILE,
    };
    assert_eq!(rule_level(&SYNTAX_ERROR, true), Level::Error);
    assert_eq!(rule_level(&UNREADABLE_FILE, false), Level::Error);
    assert_eq!(rule_level(&OOM_SITE, false), Level::Error);
    assert_eq!(
        rule_level(&MATERIALIZED_BROADCAST_IN_PROFILE, false),
        Level::Error
    );
    assert_eq!(rule_level(&OOM_SITE, true), Level::Warning);
    assert_eq!(
        rule_level(&LARGE_ALLOCATION_IN_PROFILE, false),
        Level::Warning
    );
}
