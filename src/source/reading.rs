//! Reading a source file into text, with clear errors for what cannot be linted.

use std::io::Read;
use std::path::Path;

/// The default `--max-file-size`: large enough for generated code.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 50 * 1024 * 1024;

/// A file's text, ready to parse. A leading byte-order mark is kept: ruff's parser and line index
/// both skip it, and keeping it means offsets are offsets into the file as it is on disk.
pub struct SourceText {
    pub text: String,
}

/// Why a file could not be read as Python source.
#[derive(Debug)]
pub enum ReadError {
    /// The bytes are not UTF-8; `row`/`column` locate the first bad byte (column in bytes).
    NotUtf8 {
        offset: usize,
        row: usize,
        column: usize,
    },
    /// The file is bigger than `--max-file-size` (`limit` bytes).
    TooLarge { limit: u64 },
    /// An I/O error (missing, vanished, permission denied, a directory, ...).
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotUtf8 {
                offset,
                row,
                column,
            } => write!(
                f,
                "file is not valid UTF-8: invalid byte at line {row}, column {column} (byte offset {offset})"
            ),
            ReadError::TooLarge { limit } => write!(
                f,
                "file is larger than --max-file-size ({limit} bytes); skipped"
            ),
            ReadError::Io(error) => write!(f, "cannot read file: {error}"),
        }
    }
}

/// Reads `path` as UTF-8 source text; a file bigger than `limit` bytes is not read.
pub fn read_source(path: &Path, limit: u64) -> Result<SourceText, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let len = file.metadata().map_err(ReadError::Io)?.len();
    if len > limit {
        return Err(ReadError::TooLarge { limit });
    }
    // Read at most one byte past the limit: a file that grew since `metadata` is still caught.
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    decode(bytes)
}

/// Decodes raw bytes (from a file or stdin) as UTF-8 source text.
pub fn decode(bytes: Vec<u8>) -> Result<SourceText, ReadError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceText { text }),
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            let bytes = error.as_bytes();
            let before = &bytes[..offset];
            let row = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            Err(ReadError::NotUtf8 {
                offset,
                row,
                column: offset - line_start + 1,
            })
        }
    }
}
