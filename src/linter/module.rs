//! One parsed module linted: its sites found and claimed by the rules, suppressions and fixes
//! applied, its report built; and the report of a file that could not be read.

use super::*;

pub(super) fn lint_module(
    text: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    force: bool,
    cells: Option<CellContext>,
) -> (FileReport, Found) {
    let display = module.display_path.clone();
    let is_stub = path.extension().is_some_and(|e| e == "pyi");
    let parsed = source::parse_module(text, is_stub);
    let mut file_index = FileIndex::new(text, &parsed);
    file_index.cells = cells.as_ref().map(|c| c.map.clone());
    let index = Arc::new(file_index);
    let lines = &index.lines;
    let mut diagnostics = Vec::new();

    let cell_errors = cells.iter().flat_map(|c| &c.syntax_errors);
    for error in parsed.syntax_errors.iter().chain(cell_errors) {
        if settings.is_enabled(rules::SYNTAX_ERROR.code, path) {
            let mut d = file_diagnostic(
                &rules::SYNTAX_ERROR,
                display.clone(),
                format!("syntax error: {}", error.message),
                lines.position(text, error.range.start()),
            );
            d.range = error.range;
            d.end_location = lines.position(text, error.range.end());
            diagnostics.push(d);
        }
    }

    let mut found = Found {
        methods: analysis::defined_methods(&parsed.body, &module.qualname),
        ..Found::default()
    };
    // A file with no enlarger is still walked for what its small helpers return (their dtype
    // summaries); the walk skips every function that could not hold a site.
    if force || analysis::mentions_enlarger(text) || analysis::has_module_functions(&parsed.body) {
        let FileAnalysis {
            sites,
            summaries: own,
            helper_reads,
            passed,
            in_place,
            ..
        } = analysis::analyze_module(&parsed.body, text, module, summaries, true);
        found.in_place = in_place;
        found.summaries = own;
        found.helper_reads = helper_reads;
        found.passed = passed;
        // A stub is read for what its functions return, never reported for a site.
        let sites = if is_stub { Vec::new() } else { sites };
        let selected = rules::select_sites(sites);
        // The model's configuration (its `config.json`, the folder's `configuration_*.py`
        // parsed) only sizes sites: a file with none does not read it.
        let model_dims = if selected.is_empty() {
            Arc::default()
        } else {
            file_model_dims(path, &parsed.body)
        };
        let ctx = rule_context(settings, &display, path, &model_dims);
        // A helper's sink reached by several enlargements (one site each) is one finding: the
        // first of them that is worth one.
        let mut reported_sinks = rustc_hash::FxHashSet::default();
        for site in &selected {
            let sink_key = (
                site.sink_step.range.start().to_u32(),
                site.sink_step.range.end().to_u32(),
            );
            if reported_sinks.contains(&sink_key) {
                continue;
            }
            let measured = !settings.learned.sites.is_empty() && {
                let row = lines.position(text, site.sink_step.range.start()).row;
                settings.learned.sites.contains_key(&(display.clone(), row))
            };
            let Some(mut finding) = rules::check_site_measured(site, &ctx, measured) else {
                continue;
            };
            if !settings.is_enabled(finding.rule.code, path) {
                continue;
            }
            reported_sinks.insert(sink_key);
            let sink = &site.sink_step;
            let labels = finding
                .labels
                .iter()
                .filter(|(step, _)| step.file.is_none() || step.file.as_deref() != Some(&*display))
                .map(|(step, label)| make_label(step, label, &display, text, lines))
                .collect();
            let location = lines.position(text, sink.range.start());
            let end_location = lines.position(text, sink.range.end());
            rules::at_place(&mut finding, &ctx, &display, location.row);
            let stmt = site.stmt_range;
            let stmt_rows = if stmt.is_empty() {
                (location.row, end_location.row)
            } else {
                (
                    lines.row(stmt.start()).min(location.row),
                    lines.row(stmt.end()).max(end_location.row),
                )
            };
            diagnostics.push(Diagnostic {
                rule: finding.rule,
                level: finding.level,
                pattern_certain: finding.pattern_certain,
                in_test_file: ctx.in_test_file,
                message: finding.message,
                file: display.clone(),
                range: sink.range,
                location,
                end_location,
                primary_label: finding.primary_label,
                labels,
                help: finding.help,
                notes: finding.notes,
                fix: if settings.is_fixable(finding.rule.code) {
                    rules::site_fix(finding.rule, site, text).map(|mut fix| {
                        for e in &mut fix.edits {
                            e.location = lines.position(text, e.range.start());
                            e.end_location = lines.position(text, e.range.end());
                        }
                        fix
                    })
                } else {
                    None
                },
                noqa_row: Some(location.row),
                cell: None,
                stmt_rows: Some(stmt_rows),
                evidence: None,
                size: finding.size.map(Box::new),
            });
        }
    }

    if !diagnostics.is_empty() {
        let suppressions = &index.suppressions;
        diagnostics.retain(|d| {
            let (first, last) = d.stmt_rows.unwrap_or((d.location.row, d.end_location.row));
            d.rule.code == rules::SYNTAX_ERROR.code
                || !suppressions.is_suppressed(d.rule.code, first, last)
        });
    }
    if let Some(ctx) = &cells {
        for d in &mut diagnostics {
            place_in_cell(d, ctx, lines, &display);
        }
    }
    // The count parameters of the functions holding a finding: the project's calls may fix
    // them (see `fixed_counts`).
    if !diagnostics.is_empty() {
        let reported: Vec<TextRange> = diagnostics.iter().map(|d| d.range).collect();
        found.count_params =
            analysis::call_constants::count_params(&parsed.body, &module.qualname, &reported);
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let source = (!diagnostics.is_empty()).then(|| Arc::from(text));
    (
        FileReport {
            display,
            source,
            diagnostics,
            index: Some(index),
        },
        found,
    )
}

pub(super) fn unreadable(
    display: Arc<str>,
    settings: &Settings,
    path: &Path,
    message: String,
    at: Position,
) -> FileReport {
    let diagnostics = if settings.is_enabled(rules::UNREADABLE_FILE.code, path) {
        vec![file_diagnostic(
            &rules::UNREADABLE_FILE,
            display.clone(),
            message,
            at,
        )]
    } else {
        Vec::new()
    };
    FileReport {
        display,
        source: None,
        diagnostics,
        index: None,
    }
}
