//! Arbitrary text as an `oomlint.toml` (and as a `pyproject.toml`): reading it returns Ok or
//! Err, never panics; a file that reads also builds settings without panicking.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use oomlint::config::{Resolver, read_config_file};

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("oomlint-fuzz-config-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for name in ["oomlint.toml", "pyproject.toml"] {
        let path = dir().join(name);
        std::fs::write(&path, text).expect("write temp config");
        if let Ok(Some(_)) = read_config_file(&path) {
            let _ = Resolver::new(Some(&path), true, Default::default());
        }
    }
});
