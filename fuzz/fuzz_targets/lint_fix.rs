//! Source -> lint -> fix -> re-parse. Properties: no panic; every edit of a fix lies inside the
//! text on character boundaries; the edits applied together never overlap; the fixed text parses
//! when the input did; fixing the fixed text again changes nothing.
#![no_main]

use std::path::Path;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use oomlint::config::{Resolver, Settings};
use oomlint::testing::check_fix_round_trip;

fn settings() -> Arc<Settings> {
    static SETTINGS: OnceLock<Arc<Settings>> = OnceLock::new();
    SETTINGS
        .get_or_init(|| {
            let resolver = Resolver::new(None, true, Default::default()).expect("default settings");
            resolver.settings_for(Path::new("fuzz.py"))
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = check_fix_round_trip(text, &settings()) {
        panic!("{e}");
    }
});
