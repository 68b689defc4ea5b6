use super::*;

const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Masks"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "b2",
   "metadata": {},
   "outputs": [],
   "source": [
    "%matplotlib inline\n",
    "import torch\n",
    "mask = torch.ones(2, 1, 1, 8).expand(2, 4, 8, 8)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "c3",
   "metadata": {},
   "outputs": [
    {
     "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]},
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "!pip install einops\n",
    "m = mask.float()  # \u00e9t\u00e9"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

#[test]
fn code_cells_become_one_module_with_ipython_blanked() {
    let nb = Notebook::parse(NB).expect("notebook");
    assert_eq!(nb.cells.len(), 2);
    assert_eq!(nb.cells[0].number, 2);
    assert_eq!(nb.cells[1].number, 3);
    assert!(nb.source.contains("import torch\n"));
    assert!(!nb.source.contains('%'));
    assert!(!nb.source.contains("pip"));
    assert!(nb.source.contains("m = mask.float()  # été"));
    let parsed = crate::source::parse_module(&nb.source, false);
    assert!(
        parsed.syntax_errors.is_empty(),
        "{:?}",
        parsed.syntax_errors
    );
    // Offsets still line up with each cell's own text, and with the file's.
    let at = nb.source.find("mask.float").expect("cast");
    let map = nb.layout();
    let cell = map.cell_at(text_size(at)).expect("cell");
    assert_eq!(cell.number, 3);
    let within = &nb.source[cell.range.start().to_usize()..at];
    assert_eq!(within, "                   \nm = ");
    let file = nb.file_offset(text_size(at)).expect("in the file");
    assert!(NB[file..].starts_with("mask.float()  # \\u00e9t\\u00e9\""));
    // After an escape the file offset moves on by the escape's length.
    let e = nb.source.find('é').expect("é");
    assert_eq!(
        &NB[nb.file_offset(text_size(e)).expect("é")..][..6],
        "\\u00e9"
    );
    let t = nb.source.rfind('t').expect("t");
    assert_eq!(&NB[nb.file_offset(text_size(t)).expect("t")..][..1], "t");
    // A fix may edit inside one cell, never across two.
    let cast = TextRange::new(text_size(at), text_size(at + 10));
    assert_eq!(map.cell_of(cast).map(|c| c.number), Some(3));
    let across = TextRange::new(text_size(0), text_size(at));
    assert!(map.cell_of(across).is_none());
    // Joining the cells again gives the same module.
    let cells: Vec<(usize, &str)> = map
        .cells
        .iter()
        .map(|c| c.number)
        .zip(nb.cell_sources())
        .collect();
    let (module, again) = CellMap::join(&cells);
    assert_eq!(module, nb.source);
    assert_eq!(again, map);
    let blanked = blank_ranges(&module, &[map.cells[0].range]);
    assert_eq!(blanked.len(), module.len());
    assert!(!blanked.contains("import"));
    assert!(blanked.contains("mask.float"));
}

#[test]
fn write_back_touches_only_the_changed_source() {
    let nb = Notebook::parse(NB).expect("notebook");
    let mut cells: Vec<String> = nb.cell_sources().iter().map(|s| s.to_string()).collect();
    // Unchanged: byte-identical.
    assert_eq!(nb.write_back(&cells).expect("same"), NB);
    cells[1] = cells[1].replace("m = mask.float()", "m = mask.float()\nn = m");
    let written = nb.write_back(&cells).expect("written");
    let old: Vec<&str> = NB.lines().collect();
    let new: Vec<&str> = written.lines().collect();
    let diff = similar::TextDiff::from_slices(&old, &new);
    let changed = diff
        .ops()
        .iter()
        .filter(|op| !matches!(op, similar::DiffOp::Equal { .. }))
        .count();
    assert_eq!(changed, 1, "{written}");
    assert!(
        written.contains("    \"!pip install einops\\n\",\n"),
        "{written}"
    );
    assert!(
        written.contains("    \"m = mask.float()\\n\",\n    \"n = m  # été\"\n   ]"),
        "{written}"
    );
    assert!(written.contains("\"image/png\": \"iVBORw0KGgo=\""));
    assert!(written.ends_with("}\n"));
    let again = Notebook::parse(&written).expect("reparse");
    assert_eq!(again.cells.len(), 2);
}

#[test]
fn broken_and_foreign_notebooks_are_errors_with_a_position() {
    let e = Notebook::parse("{\"cells\": [").expect_err("truncated");
    assert!(e.offset.is_some());
    assert!(Notebook::parse("[1, 2]").is_err());
    let r = NB.replace("\"language\": \"python\"", "\"language\": \"julia\"");
    let e = Notebook::parse(&r).expect_err("julia");
    assert!(e.message.contains("julia"), "{e}");
    let deep = "[".repeat(10_000);
    assert!(Notebook::parse(&deep).is_err());
}

#[test]
fn cell_magics() {
    assert_eq!(blank_ipython("%%bash\nls -la\n"), "      \n      \n");
    assert_eq!(blank_ipython("%%time\nx = f()\n"), "      \nx = f()\n");
    assert_eq!(
        blank_ipython("files = !ls\nx = 1\n"),
        "           \nx = 1\n"
    );
    assert_eq!(blank_ipython("torch.expand?\n"), "             \n");
    assert_eq!(blank_ipython("x = y  # why?\n"), "x = y  # why?\n");
    // Under an `if`, the line stays a statement so the block still parses.
    let cell = "if IN_COLAB:\n    %pip install x\n\tfoo?\nelse:\n    pass\n";
    let blanked = blank_ipython(cell);
    assert_eq!(
        blanked,
        "if IN_COLAB:\n    0             \n\t0   \nelse:\n    pass\n"
    );
    assert_eq!(blanked.len(), cell.len());
    assert_eq!(restore_ipython(cell, &blanked), cell);
    // `%` continuing an expression is Python, kept; the magic in the same cell is blanked.
    let cell = "%time f()\nmsg = (\"a %s\"\n       % name)\n";
    let blanked = blank_ipython(cell);
    assert_eq!(blanked, "         \nmsg = (\"a %s\"\n       % name)\n");
    assert_eq!(restore_ipython(cell, &blanked), cell);
}
