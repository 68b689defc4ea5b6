//! Jupyter notebooks (`.ipynb`, nbformat 4) as Python: the code cells, in order, become one
//! module (so dataflow runs from cell to cell), IPython syntax (magics, shell escapes, `?` help)
//! is blanked to spaces of the same length so it neither breaks parsing nor moves offsets (an
//! indented line keeps a `0` so the block it is in still has a body), and
//! positions map back to `cell N:row:column`. Writing back replaces only the `source` values of
//! the cells that changed and keeps every other byte of the file as it was (outputs, metadata,
//! ids, key order, indentation, the final newline).
//!
//! The JSON is read by a small scanner that keeps byte ranges (serde does not give them); it
//! validates the syntax and decodes strings, and nothing else.
//!
//! The linter reads a file through this module when its name ends in `.ipynb`
//! ([`is_notebook`]); the emitters print [`CellMap`] positions.

use std::fmt;
use std::path::Path;

use super::{TextRange, TextSize};

/// Why a file is not a notebook oomlint can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookError {
    /// Byte offset in the file, when the JSON itself is broken.
    pub offset: Option<usize>,
    pub message: String,
}

impl fmt::Display for NotebookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "byte {o}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for NotebookError {}

fn error(offset: Option<usize>, message: impl Into<String>) -> NotebookError {
    NotebookError {
        offset,
        message: message.into(),
    }
}

/// A JSON value with the byte range it was read from.
#[derive(Debug, Clone)]
enum Json {
    Object(Vec<(String, Spanned)>),
    Array(Vec<Spanned>),
    String(String),
    Other,
}

#[derive(Debug, Clone)]
struct Spanned {
    value: Json,
    start: usize,
    end: usize,
}

/// Nesting deeper than this is refused (a notebook is a few levels deep; outputs a few more).
const MAX_DEPTH: usize = 128;

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn skip_ws(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn fail<T>(&self, message: &str) -> Result<T, NotebookError> {
        Err(error(Some(self.pos), format!("not valid JSON: {message}")))
    }

    fn value(&mut self, depth: usize) -> Result<Spanned, NotebookError> {
        if depth > MAX_DEPTH {
            return self.fail("nested too deeply");
        }
        self.skip_ws();
        let start = self.pos;
        let value = match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Json::String(self.string()?),
            Some(b't') => self.literal("true")?,
            Some(b'f') => self.literal("false")?,
            Some(b'n') => self.literal("null")?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return self.fail("unexpected character"),
            None => return self.fail("unexpected end of input"),
        };
        Ok(Spanned {
            value,
            start,
            end: self.pos,
        })
    }

    fn literal(&mut self, word: &str) -> Result<Json, NotebookError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(Json::Other)
        } else {
            self.fail("unexpected word")
        }
    }

    fn number(&mut self) -> Result<Json, NotebookError> {
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
        {
            self.pos += 1;
        }
        if self.text[start..self.pos].parse::<f64>().is_err() {
            return self.fail("bad number");
        }
        Ok(Json::Other)
    }

    fn string(&mut self) -> Result<String, NotebookError> {
        self.pos += 1; // the opening quote
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while self
                .bytes
                .get(self.pos)
                .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
            {
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = match self.bytes.get(self.pos) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let c = self.unicode_escape()?;
                            out.push(c);
                            continue;
                        }
                        _ => return self.fail("bad escape in a string"),
                    };
                    out.push(escaped);
                    self.pos += 1;
                }
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unterminated string"),
            }
        }
    }

    /// After `\u`: four hex digits, and a second escape for a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, NotebookError> {
        let hex = |s: &mut Self| -> Result<u32, NotebookError> {
            let digits = s
                .text
                .get(s.pos..s.pos + 4)
                .and_then(|d| u32::from_str_radix(d, 16).ok());
            match digits {
                Some(v) => {
                    s.pos += 4;
                    Ok(v)
                }
                None => s.fail("bad \\u escape"),
            }
        };
        let first = hex(self)?;
        if (0xD800..0xDC00).contains(&first) && self.text[self.pos..].starts_with("\\u") {
            self.pos += 2;
            let second = hex(self)?;
            let code = 0x10000 + ((first - 0xD800) << 10) + (second.wrapping_sub(0xDC00) & 0x3FF);
            return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
        Ok(char::from_u32(first).unwrap_or('\u{FFFD}'))
    }

    fn array(&mut self, depth: usize) -> Result<Json, NotebookError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return self.fail("expected `,` or `]`"),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, NotebookError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return self.fail("expected a key");
            }
            let key = self.string()?;
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return self.fail("expected `:`");
            }
            self.pos += 1;
            members.push((key, self.value(depth + 1)?));
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return self.fail("expected `,` or `}`"),
            }
        }
    }
}

fn member<'j>(members: &'j [(String, Spanned)], key: &str) -> Option<&'j Spanned> {
    members.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// How a cell's `source` is written in the file: one string, or a list of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceForm {
    String,
    Lines,
}

/// One code cell.
#[derive(Debug, Clone)]
pub struct CodeCell {
    /// 1-based position among all cells, as Jupyter shows it (and ruff prints it).
    pub number: usize,
    /// The cell's source as written (with its magics).
    pub text: String,
    /// Where the cell's text sits in [`Notebook::source`].
    pub range: TextRange,
    /// Byte range of the `source` value in the file.
    json_range: (usize, usize),
    form: SourceForm,
    /// (offset in `text`, offset in the file) at the start of each string literal and after
    /// each escape: between two checkpoints the bytes of the text and of the file match.
    checkpoints: Vec<(usize, usize)>,
}

/// A notebook read as one Python module.
#[derive(Debug, Clone)]
pub struct Notebook {
    raw: String,
    pub cells: Vec<CodeCell>,
    /// The code cells joined in order, IPython syntax blanked: what the linter parses.
    pub source: String,
}

impl Notebook {
    /// Reads a notebook from its file text.
    pub fn parse(raw: &str) -> Result<Notebook, NotebookError> {
        let mut scanner = Scanner {
            bytes: raw.as_bytes(),
            text: raw,
            pos: 0,
        };
        // A UTF-8 byte-order mark is allowed before the JSON.
        if raw.starts_with('\u{feff}') {
            scanner.pos = 3;
        }
        let root = scanner.value(0)?;
        scanner.skip_ws();
        if scanner.pos != raw.len() {
            return scanner.fail("text after the notebook");
        }
        let Json::Object(top) = &root.value else {
            return Err(error(None, "not a notebook: the JSON is not an object"));
        };
        if let Some(lang) = language(top)
            && lang != "python"
        {
            return Err(error(
                None,
                format!("a {lang} notebook, not Python (metadata.kernelspec.language)"),
            ));
        }
        let Some(Spanned {
            value: Json::Array(cells),
            ..
        }) = member(top, "cells")
        else {
            return Err(error(None, "not a notebook: no `cells` list"));
        };
        let mut out = Notebook {
            raw: raw.to_string(),
            cells: Vec::new(),
            source: String::new(),
        };
        for (i, cell) in cells.iter().enumerate() {
            let Json::Object(fields) = &cell.value else {
                return Err(error(Some(cell.start), "a cell that is not an object"));
            };
            let is_code = matches!(
                member(fields, "cell_type").map(|v| &v.value),
                Some(Json::String(t)) if t == "code"
            );
            if !is_code {
                continue;
            }
            let Some(source) = member(fields, "source") else {
                return Err(error(Some(cell.start), "a code cell without `source`"));
            };
            let mut checkpoints = Vec::new();
            let (text, form) = match &source.value {
                Json::String(s) => {
                    literal_checkpoints(raw, source.start, 0, &mut checkpoints);
                    (s.clone(), SourceForm::String)
                }
                Json::Array(lines) => {
                    let mut text = String::new();
                    for line in lines {
                        match &line.value {
                            Json::String(s) => {
                                literal_checkpoints(raw, line.start, text.len(), &mut checkpoints);
                                text.push_str(s);
                            }
                            _ => {
                                return Err(error(
                                    Some(line.start),
                                    "a `source` line that is not a string",
                                ));
                            }
                        }
                    }
                    (text, SourceForm::Lines)
                }
                _ => {
                    return Err(error(
                        Some(source.start),
                        "`source` is neither a string nor a list of strings",
                    ));
                }
            };
            let start = out.source.len();
            out.source.push_str(&blank_ipython(&text));
            let end = out.source.len();
            // Cells are separate statements: each ends its last line.
            out.source.push('\n');
            out.cells.push(CodeCell {
                number: i + 1,
                text,
                range: TextRange::new(text_size(start), text_size(end)),
                json_range: (source.start, source.end),
                form,
                checkpoints,
            });
        }
        Ok(out)
    }

    /// The file text with the module replaced by `fixed` (the same cells, edited within
    /// themselves): only the `source` values of changed cells are rewritten, in the form they had;
    /// IPython lines the linter saw blanked come back as they were.
    pub fn write_back(&self, fixed_cells: &[String]) -> Result<String, NotebookError> {
        if fixed_cells.len() != self.cells.len() {
            return Err(error(None, "the fix changed the number of cells"));
        }
        let mut out = String::with_capacity(self.raw.len());
        let mut copied = 0;
        for (cell, fixed) in self.cells.iter().zip(fixed_cells) {
            let restored = restore_ipython(&cell.text, fixed);
            if restored == cell.text {
                continue;
            }
            let (start, end) = cell.json_range;
            out.push_str(&self.raw[copied..start]);
            out.push_str(&encode_source(&restored, cell.form, &self.raw[start..end]));
            copied = end;
        }
        out.push_str(&self.raw[copied..]);
        Ok(out)
    }

    /// The module text of each cell (for applying edits cell by cell).
    pub fn cell_sources(&self) -> Vec<&str> {
        self.cells
            .iter()
            .map(|c| &self.source[c.range.start().to_usize()..c.range.end().to_usize()])
            .collect()
    }

    /// Where the code cells sit in [`Notebook::source`].
    pub fn layout(&self) -> CellMap {
        CellMap {
            cells: self
                .cells
                .iter()
                .map(|c| CellSpan {
                    number: c.number,
                    range: c.range,
                })
                .collect(),
        }
    }

    /// The byte offset in the file of `offset` of [`Notebook::source`] (inside a cell's
    /// `source` string; `None` between cells). CI formats point at the file's own lines.
    pub fn file_offset(&self, offset: TextSize) -> Option<usize> {
        let cell = self
            .cells
            .iter()
            .find(|c| c.range.start() <= offset && offset <= c.range.end())?;
        let within = (offset - cell.range.start()).to_usize();
        let i = cell
            .checkpoints
            .partition_point(|&(text, _)| text <= within)
            .checked_sub(1)?;
        let (text, file) = cell.checkpoints[i];
        Some(file + (within - text))
    }
}

/// Is `path` a Jupyter notebook (by its extension, as ruff decides)?
pub fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}

/// One code cell's place in the module text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSpan {
    /// 1-based cell number among all cells.
    pub number: usize,
    pub range: TextRange,
}

/// Where the code cells of a notebook sit in the module the linter parses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellMap {
    pub cells: Vec<CellSpan>,
}

impl CellMap {
    /// The module of `cells` (number, module text of the cell), joined as [`Notebook::parse`]
    /// joins them: each cell ends its last line.
    pub fn join<S: AsRef<str>>(cells: &[(usize, S)]) -> (String, CellMap) {
        let mut module = String::new();
        let mut map = CellMap::default();
        for (number, text) in cells {
            let start = module.len();
            module.push_str(text.as_ref());
            map.cells.push(CellSpan {
                number: *number,
                range: TextRange::new(text_size(start), text_size(module.len())),
            });
            module.push('\n');
        }
        (module, map)
    }

    /// The cell holding `offset` (a cell's end counts: a range may end there).
    pub fn cell_at(&self, offset: TextSize) -> Option<&CellSpan> {
        self.cells
            .iter()
            .find(|c| c.range.start() <= offset && offset <= c.range.end())
    }

    /// The cell that holds the whole `range`, if one does (a fix that spans cells is refused).
    pub fn cell_of(&self, range: TextRange) -> Option<&CellSpan> {
        self.cells
            .iter()
            .find(|c| c.range.start() <= range.start() && range.end() <= c.range.end())
    }

    /// The text of cell `number` in `module`.
    pub fn text<'m>(&self, module: &'m str, number: usize) -> Option<&'m str> {
        let span = self.cells.iter().find(|c| c.number == number)?;
        module.get(span.range.start().to_usize()..span.range.end().to_usize())
    }
}

/// `module` with the bytes of `ranges` blanked to spaces (line breaks kept): a cell that does not
/// parse is left out of the module parse without moving any offset.
pub fn blank_ranges(module: &str, ranges: &[TextRange]) -> String {
    let mut out = String::with_capacity(module.len());
    let mut copied = 0;
    for range in ranges {
        let (start, end) = (range.start().to_usize(), range.end().to_usize());
        if start < copied || end > module.len() {
            continue;
        }
        out.push_str(&module[copied..start]);
        out.push_str(&blank(&module[start..end]));
        copied = end;
    }
    out.push_str(&module[copied..]);
    out
}

/// Records the checkpoints of the JSON string literal whose opening quote is at `start`, its
/// text starting at `text_base` of the cell's text.
fn literal_checkpoints(raw: &str, start: usize, text_base: usize, out: &mut Vec<(usize, usize)>) {
    let bytes = raw.as_bytes();
    let mut file = start + 1;
    let mut text = text_base;
    out.push((text, file));
    while let Some(&b) = bytes.get(file) {
        match b {
            b'"' => break,
            b'\\' => {
                let mut scanner = Scanner {
                    bytes,
                    text: raw,
                    pos: file + 1,
                };
                let decoded_len = match bytes.get(file + 1) {
                    Some(b'u') => {
                        scanner.pos += 1;
                        match scanner.unicode_escape() {
                            Ok(c) => c.len_utf8(),
                            Err(_) => break,
                        }
                    }
                    Some(_) => {
                        scanner.pos += 1;
                        1
                    }
                    None => break,
                };
                file = scanner.pos;
                text += decoded_len;
                out.push((text, file));
            }
            _ => {
                file += 1;
                text += 1;
            }
        }
    }
}

fn text_size(n: usize) -> TextSize {
    TextSize::try_from(n).unwrap_or(TextSize::new(u32::MAX))
}

fn language(top: &[(String, Spanned)]) -> Option<String> {
    let Json::Object(meta) = &member(top, "metadata")?.value else {
        return None;
    };
    let from = |outer: &str, inner: &str| -> Option<String> {
        let Json::Object(o) = &member(meta, outer)?.value else {
            return None;
        };
        match &member(o, inner)?.value {
            Json::String(s) => Some(s.to_ascii_lowercase()),
            _ => None,
        }
    };
    from("kernelspec", "language").or_else(|| from("language_info", "name"))
}

/// Whether a line of a cell is IPython syntax rather than Python.
fn is_ipython_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('%')
        || t.starts_with('!')
        || (t.starts_with('?') && !t.starts_with("?="))
        || (t.ends_with('?') && !t.starts_with('#') && !t.contains('#'))
        || assigns_shell(t)
}

/// `files = !ls` and `x = %time f()`.
fn assigns_shell(t: &str) -> bool {
    let Some((target, value)) = t.split_once('=') else {
        return false;
    };
    let value = value.trim_start();
    !target.contains(['(', '[', '"', '\'']) && (value.starts_with('!') || value.starts_with('%'))
}

/// Cell magics whose body is Python (`%%time` runs the cell): only their first line is blanked.
const PYTHON_CELL_MAGICS: &[&str] = &["time", "timeit", "capture", "prun", "debug"];

/// The cell with IPython syntax replaced by spaces (newlines kept), so byte offsets still match.
fn blank_ipython(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim_start();
    if let Some(magic) = first.strip_prefix("%%") {
        let name = magic.split_whitespace().next().unwrap_or("");
        if !PYTHON_CELL_MAGICS.contains(&name) {
            // `%%bash`, `%%writefile`: the whole cell is not Python.
            return blank(text);
        }
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut blanked: Vec<Option<String>> = lines
        .iter()
        .map(|line| is_ipython_line(line.trim_end_matches(['\n', '\r'])).then(|| blank_line(line)))
        .collect();
    let join = |blanked: &[Option<String>]| -> String {
        lines
            .iter()
            .zip(blanked)
            .map(|(line, b)| b.as_deref().unwrap_or(line))
            .collect()
    };
    let parses = |text: &str| super::parse_module(text, false).syntax_errors.is_empty();
    let out = join(&blanked);
    if blanked.iter().all(Option::is_none) || parses(&out) {
        return out;
    }
    // A line that only looks like IPython (`    % name)` continuing an expression, `!=` at the
    // start of a continued condition) is Python when keeping it is what makes the cell parse.
    for i in 0..blanked.len() {
        if blanked[i].is_none() {
            continue;
        }
        let taken = blanked[i].take();
        if !parses(&join(&blanked)) {
            blanked[i] = taken;
        }
    }
    join(&blanked)
}

/// An IPython line blanked; an indented one (`    %pip install x` under `if IN_COLAB:`) keeps
/// a statement, `0`, where its text began, so the block it is the body of stays a block.
fn blank_line(line: &str) -> String {
    let body = line.trim_start_matches([' ', '\t']);
    let indent = &line[..line.len() - body.len()];
    let mut out = blank(line);
    if !indent.is_empty() && !body.trim().is_empty() {
        out.replace_range(indent.len()..indent.len() + 1, "0");
        out.replace_range(..indent.len(), indent);
    }
    out
}

/// Spaces of the same byte length, line breaks kept.
fn blank(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b == b'\n' || b == b'\r' {
                b as char
            } else {
                ' '
            }
        })
        .collect()
}

/// The fixed cell with its blanked IPython lines put back: a line that is all spaces in the fixed
/// text where the original had IPython syntax gets the original back.
fn restore_ipython(original: &str, fixed: &str) -> String {
    let blanked = blank_ipython(original);
    if blanked == fixed {
        return original.to_string();
    }
    let magic_lines: Vec<(&str, &str)> = blanked
        .split_inclusive('\n')
        .zip(original.split_inclusive('\n'))
        .filter(|(b, o)| b != o)
        .collect();
    let mut out = String::with_capacity(fixed.len());
    let mut pending = magic_lines.iter();
    let mut next = pending.next();
    for line in fixed.split_inclusive('\n') {
        match next {
            Some((b, o)) if line == *b => {
                out.push_str(o);
                next = pending.next();
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// Writes `text` as a `source` value in the form and indentation the file used.
fn encode_source(text: &str, form: SourceForm, original: &str) -> String {
    match form {
        SourceForm::String => json_string(text),
        SourceForm::Lines => {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            if lines.is_empty() {
                return "[]".to_string();
            }
            // The indentation of the original's items (nbformat writes one item per line).
            let indent = original
                .find('\n')
                .map(|p| {
                    let rest = &original[p + 1..];
                    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
                })
                .unwrap_or("");
            let closing = original
                .rfind('\n')
                .map(|p| &original[p + 1..original.len() - 1])
                .unwrap_or("");
            let newline = if original.contains("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            if !original.contains('\n') {
                let items: Vec<String> = lines.iter().map(|l| json_string(l)).collect();
                return format!("[{}]", items.join(", "));
            }
            let mut out = String::from("[");
            for (i, line) in lines.iter().enumerate() {
                out.push_str(newline);
                out.push_str(indent);
                out.push_str(&json_string(line));
                if i + 1 < lines.len() {
                    out.push(',');
                }
            }
            out.push_str(newline);
            out.push_str(closing);
            out.push(']');
            out
        }
    }
}

/// A JSON string as Jupyter writes it: non-ASCII kept, quotes, backslashes and control
/// characters escaped.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
