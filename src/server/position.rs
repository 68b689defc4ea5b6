//! LSP positions count UTF-16 code units within a line; the linter works in byte offsets. This
//! index converts between the two for one text (lines end at `\n`, `\r\n` or `\r`, as in LSP).

use lsp_types::{Position, Range};

use crate::source::{TextRange, TextSize};

pub struct LineIndex16<'a> {
    text: &'a str,
    /// Byte offset where each line starts.
    starts: Vec<usize>,
}

impl<'a> LineIndex16<'a> {
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Self { text, starts }
    }

    #[cfg(test)]
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `line` (0-based) without its terminator; past the end: an empty range at
    /// the end of the text.
    pub fn line_bounds(&self, line: usize) -> (usize, usize) {
        let Some(&start) = self.starts.get(line) else {
            return (self.text.len(), self.text.len());
        };
        let mut end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end)
    }

    /// The LSP position of a byte offset (clamped to the text, moved back to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let (start, end) = self.line_bounds(line);
        let offset = offset.min(end.max(start));
        let character: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of an LSP position. A character past the line's end means the line's end;
    /// a line past the last one means the end of the text; a position inside a surrogate pair
    /// moves to the start of that character.
    pub fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return self.text.len();
        }
        let (start, end) = self.line_bounds(line);
        let mut units = 0usize;
        for (i, c) in self.text[start..end].char_indices() {
            let next = units + c.len_utf16();
            if next > position.character as usize {
                return start + i;
            }
            units = next;
        }
        end
    }

    pub fn range(&self, range: TextRange) -> Range {
        Range::new(
            self.position(usize::from(range.start())),
            self.position(usize::from(range.end())),
        )
    }

    pub fn text_range(&self, range: Range) -> TextRange {
        let start = self.offset(range.start);
        let end = self.offset(range.end).max(start);
        TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32))
    }

    /// The position just past the last character of the text.
    pub fn end(&self) -> Position {
        self.position(self.text.len())
    }

    /// The LSP position of a 1-based row and 1-based column counted in characters (the
    /// linter's [`crate::source::Position`]).
    pub fn at_row_column(&self, row: usize, column: usize) -> Position {
        let line = row.saturating_sub(1);
        let (start, end) = self.line_bounds(line);
        let byte = self.text[start..end]
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(end, |(i, _)| start + i);
        self.position(byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_round_trip() {
        let text = "import torch\n\nx = 1\n";
        let index = LineIndex16::new(text);
        assert_eq!(index.position(0), Position::new(0, 0));
        assert_eq!(index.position(14), Position::new(2, 0));
        assert_eq!(index.position(18), Position::new(2, 4));
        assert_eq!(index.position(text.len()), Position::new(3, 0));
        for offset in 0..=text.len() {
            assert_eq!(index.offset(index.position(offset)), offset, "{offset}");
        }
    }

    #[test]
    fn utf16_units() {
        // é is 2 bytes and 1 unit; 😀 is 4 bytes and 2 units; 中 is 3 bytes and 1 unit.
        let text = "s = 'é😀中'  # x\ny = 2\r\nz = 3\rw";
        let index = LineIndex16::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position::new(0, 14));
        assert_eq!(index.offset(Position::new(0, 14)), x);
        let after_emoji = text.find('中').unwrap();
        assert_eq!(index.position(after_emoji), Position::new(0, 8));
        // Inside the surrogate pair: the start of the emoji.
        let emoji = text.find('😀').unwrap();
        assert_eq!(index.offset(Position::new(0, 7)), emoji);
        assert_eq!(index.position(text.find('y').unwrap()), Position::new(1, 0));
        assert_eq!(index.position(text.find('z').unwrap()), Position::new(2, 0));
        assert_eq!(index.position(text.find('w').unwrap()), Position::new(3, 0));
        // Past the end of a line: its end, before `\r\n`.
        assert_eq!(
            index.offset(Position::new(1, 99)),
            text.find("\r\n").unwrap()
        );
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        assert_eq!(index.line_count(), 4);
        // Every char boundary round-trips.
        for (offset, _) in text.char_indices() {
            let p = index.position(offset);
            if text[offset..].starts_with('\n') && text[..offset].ends_with('\r') {
                continue;
            }
            assert_eq!(index.offset(p), offset, "{offset}");
        }
        assert_eq!(index.at_row_column(1, 10), Position::new(0, 10));
        assert_eq!(index.at_row_column(1, 11), Position::new(0, 11));
    }

    #[test]
    fn byte_ranges() {
        let text = "a = 'ü' + b\n";
        let index = LineIndex16::new(text);
        let b = text.find('b').unwrap() as u32;
        let range = TextRange::new(TextSize::new(b), TextSize::new(b + 1));
        assert_eq!(
            index.range(range),
            Range::new(Position::new(0, 10), Position::new(0, 11))
        );
        assert_eq!(index.text_range(index.range(range)), range);
    }
}
