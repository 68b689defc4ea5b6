//! Notebooks in the pipeline: the code cells linted as one module, a broken cell as its own
//! syntax error, and positions moved into the cells.

use super::*;

/// What the module linter needs to know about a notebook's module.
pub(super) struct CellContext<'a> {
    pub(super) map: &'a CellMap,
    /// Syntax errors of the cells that do not parse (those cells are blanked in the module).
    pub(super) syntax_errors: Vec<SyntaxError>,
    /// Where a module offset is in the `.ipynb` file.
    pub(super) to_file: &'a dyn Fn(TextSize) -> Position,
}

/// Lints a notebook's file text: the code cells as one module (see `source::notebook`).
pub(super) fn lint_notebook(
    raw: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    force: bool,
) -> (FileReport, Found) {
    let nb = match Notebook::parse(raw) {
        Ok(nb) => nb,
        Err(e) => {
            let at = match e.offset {
                Some(offset) => Lines::new(raw).position(raw, text_size(offset)),
                None => Position { row: 1, column: 1 },
            };
            let report = unreadable(
                module.display_path.clone(),
                settings,
                path,
                format!("cannot read notebook: {e}"),
                at,
            );
            return (report, Found::default());
        }
    };
    let raw_lines = Lines::new(raw);
    let to_file = |offset: TextSize| match nb.file_offset(offset) {
        Some(o) => raw_lines.position(raw, text_size(o)),
        None => Position { row: 1, column: 1 },
    };
    lint_cells(
        &nb.source,
        &nb.layout(),
        path,
        module,
        settings,
        summaries,
        force,
        &to_file,
    )
}

fn text_size(n: usize) -> TextSize {
    TextSize::try_from(n).unwrap_or(TextSize::new(u32::MAX))
}

/// Lints the module of a notebook's cells. Each cell is parsed on its own first: one that does
/// not parse is an OOM001 in that cell and is blanked for the module parse, so the others are
/// still linted (a broken cell would otherwise swallow the statements after it).
#[allow(clippy::too_many_arguments)]
pub(super) fn lint_cells(
    module_text: &str,
    map: &CellMap,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    force: bool,
    to_file: &dyn Fn(TextSize) -> Position,
) -> (FileReport, Found) {
    let mut broken = Vec::new();
    let mut syntax_errors = Vec::new();
    for span in &map.cells {
        let cell = &module_text[span.range];
        let parsed = source::parse_module(cell, false);
        if parsed.syntax_errors.is_empty() {
            continue;
        }
        broken.push(span.range);
        // The first error of the cell: the parser's later ones follow from it.
        if let Some(error) = parsed.syntax_errors.into_iter().next() {
            syntax_errors.push(SyntaxError {
                range: error.range + span.range.start(),
                message: error.message,
            });
        }
    }
    let blanked;
    let text = if broken.is_empty() {
        module_text
    } else {
        blanked = notebook::blank_ranges(module_text, &broken);
        &blanked
    };
    let ctx = CellContext {
        map,
        syntax_errors,
        to_file,
    };
    let (mut report, found) =
        lint_module(text, path, module, settings, summaries, force, Some(ctx));
    if report.source.is_some() {
        // Show the broken cells as they are written.
        report.source = Some(Arc::from(module_text));
    }
    (report, found)
}

/// Turns a notebook module's positions into positions within cells (rows count from the cell's
/// first line; a cell starts a line, so columns stay), notes where they are in the file, and
/// drops a fix whose edits are not all in one cell.
pub(super) fn place_in_cell(
    d: &mut Diagnostic,
    ctx: &CellContext,
    lines: &Lines,
    display: &Arc<str>,
) {
    let spot = |range: TextRange| -> Option<(CellSpot, usize)> {
        let span = ctx.map.cell_at(range.start())?;
        let first_row = lines.row(span.range.start());
        let spot = CellSpot {
            cell: span.number,
            file_location: (ctx.to_file)(range.start()),
            file_end_location: (ctx.to_file)(range.end().min(span.range.end())),
        };
        Some((spot, first_row))
    };
    let within = |p: Position, first_row: usize| Position {
        row: p.row.saturating_sub(first_row) + 1,
        column: p.column,
    };
    if let Some((cell, first_row)) = spot(d.range) {
        d.cell = Some(cell);
        d.location = within(d.location, first_row);
        d.end_location = within(d.end_location, first_row);
        d.noqa_row = d.noqa_row.map(|r| r.saturating_sub(first_row) + 1);
    }
    for label in d.labels.iter_mut().filter(|l| &l.file == display) {
        if let Some((cell, first_row)) = spot(label.range) {
            label.cell = Some(cell);
            label.location = within(label.location, first_row);
            label.end_location = within(label.end_location, first_row);
        }
    }
    if let Some(fix) = &mut d.fix {
        let start = fix.edits.iter().map(|e| e.range.start()).min();
        let end = fix.edits.iter().map(|e| e.range.end()).max();
        let span = match (start, end) {
            (Some(start), Some(end)) => ctx.map.cell_of(TextRange::new(start, end)),
            _ => None,
        };
        match span {
            Some(span) => {
                let first_row = lines.row(span.range.start());
                for e in &mut fix.edits {
                    e.cell = Some(span.number);
                    e.location = within(e.location, first_row);
                    e.end_location = within(e.end_location, first_row);
                }
            }
            None => d.fix = None,
        }
    }
}
