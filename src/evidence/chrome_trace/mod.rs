//! torch.profiler Chrome trace reader (`export_chrome_trace`, `.json` or `.json.gz`).
//!
//! The file is streamed in chunks: a small structural scanner finds each element of the
//! `traceEvents` array in the buffer, and that element alone is deserialized from the slice,
//! borrowing its strings (`[memory]` events, `cpu_op` spans, `python_function` frames; anything
//! else is read without allocating). What the join needs is kept in compact records: names and
//! argument lists are interned, so a 1 GB trace costs tens of bytes per event, never the text.
//!
//! The parts: `json_stream` (the streaming scanner, shared), `event` (the borrowed serde model),
//! `records` (the compact records), `attribute` (the join of allocations to ops and stacks,
//! docs/formats.md section 1).
//!
//! Very large traces: past [`EXACT_ALLOCATIONS`] allocations, identical ones (same size, device,
//! op chain, op arguments and stack) are given as one [`Allocation`](super::Allocation) with
//! `count`, keeping the instance that lived longest; past [`SERIES_POINTS`] events a memory
//! series keeps per time bucket its extremes (and every point the report reads: first, last,
//! peaks, the level at the first operator), so the report's figures are those of the whole
//! series.

mod attribute;
mod event;
mod records;

use super::json_stream::{Fail, Input, read_top};
use super::{Evidence, EvidenceError, Location};
use records::Collected;
use std::io::{BufReader, Read};
use std::path::Path;

pub use super::EXACT_ALLOCATIONS;
pub use super::series::SERIES_POINTS;
pub use event::TraceMeta;

/// Records (ops, Python frames, memory events) kept from one trace: at about 40 bytes each, this
/// caps the reader's memory near 300 MB whatever the file's size (a real trace has about one such
/// event per 400 bytes, so this is a 2 GB trace); later events are counted in a note.
pub const MAX_RECORDS: usize = 6_000_000;
/// Distinct (device type, device id) pairs kept; a real trace has a handful.
pub const MAX_DEVICES: usize = 256;

/// Read a trace file (`.json` or gzip, detected by magic bytes).
pub fn read_path(path: &Path) -> Result<Evidence, EvidenceError> {
    let file = std::fs::File::open(path)
        .map_err(|e| EvidenceError::plain(path, format!("cannot open: {e}")))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let gz = {
        use std::io::BufRead;
        let head = reader
            .fill_buf()
            .map_err(|e| EvidenceError::plain(path, format!("cannot read: {e}")))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    if gz {
        read_from(flate2::read::MultiGzDecoder::new(reader), path, true)
    } else {
        read_from(reader, path, false)
    }
}

/// Read a trace from any reader; `path` is only used in errors and the result.
pub fn read_from<R: Read>(reader: R, path: &Path, gz: bool) -> Result<Evidence, EvidenceError> {
    let collected = collect(reader, path, gz)?;
    Ok(attribute::build(collected, path))
}

fn collect<R: Read>(reader: R, path: &Path, gz: bool) -> Result<Collected, EvidenceError> {
    let mut inp = Input::new(reader);
    let mut c = Collected::new();
    let res = read_top(&mut inp, &mut c);
    let where_ = if gz {
        " (offset in the decompressed stream)"
    } else {
        ""
    };
    let at = |offset: u64, msg: String| {
        EvidenceError::new(
            path,
            Location::Byte {
                offset,
                line: None,
                column: None,
            },
            msg,
        )
    };
    match res {
        Ok(true) => Ok(c),
        Ok(false) => Err(EvidenceError::at_byte(
            path,
            0,
            "not a Chrome trace: no traceEvents array",
        )),
        Err(Fail::Io(e)) => {
            let what = if gz {
                "corrupt gzip stream"
            } else {
                "read error"
            };
            Err(at(inp.offset(inp.end), format!("{what}{where_}: {e}")))
        }
        Err(Fail::Eof) => Err(at(
            inp.offset(inp.end),
            format!("truncated JSON{where_}: EOF while parsing the trace"),
        )),
        Err(Fail::Syntax(offset, msg)) => {
            Err(at(offset, format!("invalid trace JSON{where_}: {msg}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_array_and_strings() {
        let text = r#"[{"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":1,"ts":"10.000","dur":5.0,
            "args":{"Input Dims":"2,3;\r\n;\r\n","Call stack":"/m.py(35): f;\r\n/m.py(46): g"}},
            {"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":"12.5","args":{"Bytes":8,"Addr":1,"Total Allocated":8}},
            7, {"ph":"M"}]"#;
        let ev = read_from(text.as_bytes(), Path::new("t.json"), false).expect("parses");
        assert_eq!(ev.allocations.len(), 1);
        let a = &ev.allocations[0];
        assert_eq!(a.op.as_deref(), Some("aten::to"));
        assert_eq!(a.input_shapes, vec![vec![2, 3], vec![]]);
        assert_eq!(a.stack[0].file, "/m.py");
        assert_eq!(a.alloc_time_ns, Some(12_500));
    }

    #[test]
    fn truncated_reports_offset() {
        let text = br#"{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::to","ts":1"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("truncated");
        let s = err.to_string();
        assert!(s.starts_with("t.json: byte "), "{s}");
        assert!(s.contains("truncated JSON"), "{s}");
        assert!(
            matches!(err.location, Location::Byte { offset, .. } if offset == text.len() as u64)
        );
    }

    #[test]
    fn escaped_strings_and_odd_events() {
        let text = r#"{"baseTimeNanoseconds": 1000, "traceEvents": [
            {"ph":"X","cat":"cpu_op","name":"aten::\u0074o","pid":1,"tid":1,"ts":10,"dur":5,
             "args":{"Input Dims":[[2,3],[],[1.5]],"Input type":["float",null,3]}},
            {"ph":"X","cat":"python_function","name":"m.py(3): f","pid":1,"tid":1,"ts":9,"dur":7,
             "args":{"Python id":1}},
            {"ph":"X","cat":"cpu_op","name":"bad","pid":1.5,"tid":1,"ts":10,"dur":5},
            {"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":12,"args":{"Bytes":8,"Total Allocated":8}}
        ], "with_stack": 1}"#;
        let ev = read_from(text.as_bytes(), Path::new("t.json"), false).expect("parses");
        let a = &ev.allocations[0];
        assert_eq!(a.op.as_deref(), Some("aten::to"));
        assert_eq!(a.input_shapes, vec![vec![2, 3], vec![], vec![]]);
        assert_eq!(a.input_dtypes, vec!["float", "", "3"]);
        assert_eq!(a.stack[0].function, "f");
        assert_eq!(a.alloc_time_ns, Some(13_000));
        assert_eq!(ev.first_op_time_ns, Some(11_000));
    }

    #[test]
    fn small_chunks_and_errors() {
        let text = br#"{"traceEvents": [{"ph":"M"}, 1 2]}"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("invalid trace JSON"), "{err}");
        let text = br#"{"traceEvents": []} x"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("trailing"), "{err}");
        let err = read_from(&b"\"x\""[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("not a Chrome trace"), "{err}");
    }
}
