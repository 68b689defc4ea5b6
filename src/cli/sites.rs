//! `oomlint sites`: every enlargement with its fate, as text, TSV or JSON.

use std::path::PathBuf;
use std::sync::Arc;

use super::args::{SitesArgs, SitesFormat};
use super::output::{EXIT_CLEAN, fail, write_output};
use crate::app::App;
use crate::config::{Overrides, Resolver};
use crate::report::sites as render;

pub(super) fn sites(args: SitesArgs) -> i32 {
    for selector in args.select.iter().flatten() {
        if let Err(e) = crate::config::check_selector(selector) {
            return fail(&e);
        }
    }
    let overrides = Overrides {
        select: args.select.clone(),
        dims: args.dims.clone(),
        min_static_bytes: args.min_static_bytes,
        ..Overrides::default()
    };
    let resolver = match Resolver::new(args.config.as_deref(), args.isolated, overrides) {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let app = App::new(resolver, None).with_cache(false);
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let files = match app.sites(&paths, args.force_exclude) {
        Ok(files) => files,
        Err(e) => return fail(&e.to_string()),
    };
    let rendered = match args.format {
        SitesFormat::Text => render::text(&files),
        SitesFormat::Tsv => render::tsv(&files),
        SitesFormat::Json => match render::json(&files) {
            Ok(json) => json,
            Err(e) => return fail(&format!("cannot render the sites: {e}")),
        },
    };
    if let Err(e) = write_output(args.output_file.as_deref(), rendered.as_bytes()) {
        return fail(&e);
    }
    EXIT_CLEAN
}
