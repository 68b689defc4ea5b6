//! Out-of-memory log reader: CUDA (current and <= 2.0 wording), NPU (including
//! `NPUWorkspaceAllocator` and the `ERRxxxxx` suffix line) and CPU `DefaultCPUAllocator` messages.
//!
//! For each OOM message it takes the sizes the message states, the device kind, and the Python
//! traceback printed before it: its last *user* frame (not site-packages, not torch) and the
//! source text printed under that frame.

use super::{
    DeviceKind, Evidence, EvidenceError, EvidenceKind, Frame, LineKind, OomEvent, is_library_file,
};
use regex::Regex;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::OnceLock;

const SIZE: &str = r"([0-9]+(?:\.[0-9]+)?)\s*(bytes|B|KiB|MiB|GiB|TiB|PiB|EiB|KB|MB|GB|TB)";

struct Patterns {
    frame: Regex,
    oom: Regex,
    requested: Regex,
    requested_exact: Regex,
    capacity: Regex,
    free: Regex,
    allocated: Regex,
    unallocated: Regex,
    reserved: Regex,
    in_use: Regex,
    device: Regex,
    caret: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(&s.replace("SIZE", SIZE)).unwrap_or_else(|e| panic!("bad built-in regex {s}: {e}"));
        Patterns {
            frame: re(r#"^\s*File "(.+)", line (\d+), in (.+?)\s*$"#),
            oom: re(
                r"(?i)(CUDA out of memory|NPU out of memory|XPU out of memory|MPS backend out of memory|DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|host out of memory)",
            ),
            requested: re(r"(?i)tried to allocate\s*SIZE|Requested size:\s*SIZE"),
            requested_exact: re(r"(?i)you tried to allocate (\d+) bytes|allocate size:\s*(\d+)\s*(?:bytes|B)?\s*$"),
            capacity: re(r"(?i)total capac(?:i)?ty of SIZE|SIZE total capac(?:i)?ty"),
            free: re(r"(?i)of which SIZE is free|SIZE free"),
            allocated: re(r"(?i)SIZE is allocated by PyTorch|SIZE already allocated"),
            unallocated: re(r"(?i)SIZE is reserved by PyTorch but unallocated"),
            reserved: re(r"(?i)SIZE reserved in total by PyTorch"),
            in_use: re(r"(?i)this process has SIZE memory in use"),
            device: re(r"\b(GPU|NPU|XPU) (\d+)\b"),
            caret: re(r"^\s*[\^~]+\s*$"),
        }
    })
}

/// Bytes from a number and unit; `exact` is false for rounded units.
fn to_bytes(num: &str, unit: &str) -> Option<(u64, bool)> {
    let v: f64 = num.parse().ok()?;
    let (mult, exact): (f64, bool) = match unit {
        "bytes" | "B" => (1.0, true),
        "KiB" | "KB" => (1024.0, false),
        "MiB" | "MB" => (1024.0 * 1024.0, false),
        "GiB" | "GB" => (1024.0 * 1024.0 * 1024.0, false),
        "TiB" | "TB" => (1024f64.powi(4), false),
        "PiB" => (1024f64.powi(5), false),
        "EiB" => (1024f64.powi(6), false),
        _ => return None,
    };
    Some(((v * mult).round() as u64, exact))
}

/// The first size a pattern captures (searching both alternatives).
fn size(re: &Regex, text: &str, approx: &mut bool) -> Option<u64> {
    let caps = re.captures(text)?;
    let mut i = 1;
    while i + 1 < caps.len() {
        if let (Some(n), Some(u)) = (caps.get(i), caps.get(i + 1)) {
            let (b, exact) = to_bytes(n.as_str(), u.as_str())?;
            if !exact {
                *approx = true;
            }
            return Some(b);
        }
        i += 2;
    }
    None
}

/// Longest line kept; the rest of a longer line is skipped unread (log lines are short; a file
/// without newlines is not a log, and must not be held whole).
const MAX_LINE: usize = 64 * 1024;
/// Frames kept of the traceback being read: the innermost ones, where the user frame is.
const MAX_FRAMES: usize = 1024;
/// OOM messages kept from one log; later ones are counted in a note.
pub const MAX_OOMS: usize = 1000;
/// Lines looked at after an OOM message for its wrapped continuation.
const CONTINUATION: usize = 4;

/// Read a log file, streaming: memory stays a few lines and one traceback whatever its size.
pub fn read_path(path: &Path) -> Result<Evidence, EvidenceError> {
    let file = std::fs::File::open(path)
        .map_err(|e| EvidenceError::plain(path, format!("cannot open: {e}")))?;
    let parsed = parse_reader(BufReader::with_capacity(1 << 16, file))
        .map_err(|(offset, e)| EvidenceError::at_byte(path, offset, format!("cannot read: {e}")))?;
    into_evidence(parsed, path)
}

/// Parse log text; an error when it holds no OOM message.
pub fn read_str(text: &str, path: &Path) -> Result<Evidence, EvidenceError> {
    let parsed = parse_reader(text.as_bytes())
        .map_err(|(offset, e)| EvidenceError::at_byte(path, offset, format!("cannot read: {e}")))?;
    into_evidence(parsed, path)
}

/// What a log without any OOM message is told (`evidence::load` recognises it by this text).
pub const NO_OOM_MESSAGE: &str = "no out-of-memory message found (looked for \"CUDA/NPU out of memory\", \"DefaultCPUAllocator\", \"Tried to allocate\")";

fn into_evidence(parsed: Parsed, path: &Path) -> Result<Evidence, EvidenceError> {
    if parsed.ooms.is_empty() {
        return Err(EvidenceError::plain(path, NO_OOM_MESSAGE));
    }
    let mut ev = Evidence::new(EvidenceKind::OomLog, path);
    ev.ooms = parsed.ooms;
    if parsed.dropped > 0 {
        ev.notes.push(format!(
            "{} more out-of-memory messages after the first {MAX_OOMS} left out",
            parsed.dropped
        ));
    }
    Ok(ev)
}

/// All OOM events in a log, with the traceback printed before each.
pub fn parse(text: &str) -> Vec<OomEvent> {
    parse_reader(text.as_bytes()).map_or_else(|_| Vec::new(), |p| p.ooms)
}

/// What a log holds: its first [`MAX_OOMS`] messages and how many more there were.
struct Parsed {
    ooms: Vec<OomEvent>,
    dropped: u64,
}

/// One line of the log: where it starts, and its text (lossy UTF-8, at most [`MAX_LINE`] bytes,
/// without the line ending).
struct Line {
    offset: u64,
    text: String,
}

/// Reads lines of at most [`MAX_LINE`] bytes, skipping the rest of longer ones.
struct LineReader<R> {
    inner: R,
    offset: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    fn next_line(&mut self) -> Result<Option<Line>, (u64, std::io::Error)> {
        let start = self.offset;
        self.buf.clear();
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err((self.offset, e)),
            };
            if available.is_empty() {
                if self.offset == start {
                    return Ok(None);
                }
                break;
            }
            let (take, ends) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            let room = MAX_LINE.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&available[..take.min(room)]);
            self.inner.consume(take);
            self.offset += take as u64;
            if ends {
                break;
            }
        }
        let text = String::from_utf8_lossy(&self.buf);
        Ok(Some(Line {
            offset: start,
            text: text.trim_end_matches(['\n', '\r']).to_string(),
        }))
    }
}

/// The streaming parse: a window of the current line and [`CONTINUATION`] lines after it.
fn parse_reader<R: BufRead>(reader: R) -> Result<Parsed, (u64, std::io::Error)> {
    let p = patterns();
    let mut lines = LineReader {
        inner: reader,
        offset: 0,
        buf: Vec::new(),
    };
    let mut window: VecDeque<Line> = VecDeque::with_capacity(CONTINUATION + 1);
    let mut frames: VecDeque<(Frame, Option<String>)> = VecDeque::new();
    let mut parsed = Parsed {
        ooms: Vec::new(),
        dropped: 0,
    };
    loop {
        while window.len() <= CONTINUATION {
            match lines.next_line()? {
                Some(l) => window.push_back(l),
                None => break,
            }
        }
        let Some(current) = window.pop_front() else {
            break;
        };
        let line = current.text.as_str();
        if line.contains("Traceback (most recent call last)") {
            frames.clear();
        } else if line.contains("File \"")
            && let Some(c) = p.frame.captures(line)
        {
            let file = c.get(1).map_or("", |m| m.as_str()).to_string();
            let line_no = c.get(2).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
            let function = c.get(3).map_or("", |m| m.as_str()).to_string();
            let source = window.front().map(|l| l.text.as_str()).filter(|l| {
                !l.trim().is_empty()
                    && !p.frame.is_match(l)
                    && !p.caret.is_match(l)
                    && l.starts_with(char::is_whitespace)
            });
            if frames.len() == MAX_FRAMES {
                frames.pop_front();
            }
            frames.push_back((
                Frame {
                    file,
                    line: line_no,
                    function,
                    line_kind: LineKind::Exact,
                    callee: None,
                },
                source.map(|s| s.trim().to_string()),
            ));
        } else if let Some(m) = p.oom.find(line) {
            // The message, plus wrapped continuation lines (bounded).
            let mut msg = line.to_string();
            let mut used = 0;
            for next in window.iter() {
                let l = next.text.as_str();
                if l.trim().is_empty()
                    || l.contains("Traceback")
                    || p.frame.is_match(l)
                    || p.oom.is_match(l)
                {
                    break;
                }
                msg.push(' ');
                msg.push_str(l.trim());
                used += 1;
            }
            window.drain(..used);
            if parsed.ooms.len() == MAX_OOMS {
                parsed.dropped += 1;
            } else {
                let kind = device_kind(m.as_str());
                parsed
                    .ooms
                    .push(oom_event(kind, line, &msg, current.offset, &frames));
            }
            frames.clear();
        }
    }
    Ok(parsed)
}

fn device_kind(matched: &str) -> DeviceKind {
    let kind_text = matched.to_ascii_lowercase();
    if kind_text.contains("cuda") {
        DeviceKind::Cuda
    } else if kind_text.contains("npu") {
        DeviceKind::Npu
    } else if kind_text.contains("xpu") {
        DeviceKind::Other("xpu".into())
    } else if kind_text.contains("mps") {
        DeviceKind::Other("mps".into())
    } else {
        DeviceKind::Cpu
    }
}

/// One event from its message line, the message with its continuation, and the traceback.
fn oom_event(
    kind: DeviceKind,
    line: &str,
    msg: &str,
    offset: u64,
    frames: &VecDeque<(Frame, Option<String>)>,
) -> OomEvent {
    let p = patterns();
    let mut o = OomEvent::new(kind, line.trim().to_string());
    o.offset = Some(offset);
    let mut approx = false;
    o.requested_bytes = p
        .requested_exact
        .captures(msg)
        .and_then(|c| c.iter().skip(1).flatten().next()?.as_str().parse().ok())
        .or_else(|| size(&p.requested, msg, &mut approx));
    o.capacity_bytes = size(&p.capacity, msg, &mut approx);
    o.free_bytes = size(&p.free, msg, &mut approx);
    o.allocated_bytes = size(&p.allocated, msg, &mut approx);
    o.reserved_bytes = size(&p.reserved, msg, &mut approx).or_else(|| {
        // Sizes come from text: two huge ones must not overflow the sum.
        Some(
            o.allocated_bytes?
                .saturating_add(size(&p.unallocated, msg, &mut approx)?),
        )
    });
    o.process_in_use_bytes = size(&p.in_use, msg, &mut approx);
    o.sizes_approximate = approx;
    o.device_index = p
        .device
        .captures(msg)
        .and_then(|c| c.get(2)?.as_str().parse().ok());
    o.allocator = [
        "NPUWorkspaceAllocator",
        "DefaultCPUAllocator",
        "CUDACachingAllocator",
    ]
    .iter()
    .find(|a| msg.contains(*a))
    .map(|a| a.to_string());
    o.stack = frames.iter().rev().map(|(f, _)| f.clone()).collect();
    if let Some((f, src)) = frames.iter().rev().find(|(f, _)| !is_library_file(&f.file)) {
        o.frame = Some(f.clone());
        o.source_line = src.clone();
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_cuda_and_workspace_wording() {
        let old = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 15.78 GiB total capacity; 14.50 GiB already allocated; 3.19 MiB free; 14.70 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb";
        let o = &parse(old)[0];
        assert_eq!(o.device_kind, DeviceKind::Cuda);
        assert_eq!(o.device_index, Some(1));
        assert_eq!(o.requested_bytes, Some(20 * 1024 * 1024));
        assert_eq!(
            o.capacity_bytes,
            Some((15.78f64 * 1073741824.0).round() as u64)
        );
        assert_eq!(
            o.reserved_bytes,
            Some((14.70f64 * 1073741824.0).round() as u64)
        );
        assert!(o.sizes_approximate);
        let ws = "RuntimeError: NPU out of memory. NPUWorkspaceAllocator tried to allocate 2.00 GiB(NPU 0; 60.97 GiB total capacity; 1.00 GiB free).";
        let o = &parse(ws)[0];
        assert_eq!(o.device_kind, DeviceKind::Npu);
        assert_eq!(o.allocator.as_deref(), Some("NPUWorkspaceAllocator"));
        assert_eq!(o.requested_bytes, Some(2 * 1073741824));
        assert_eq!(o.free_bytes, Some(1073741824));
        let cpu = "RuntimeError: DefaultCPUAllocator: not enough memory: you tried to allocate 1024 bytes.";
        let o = &parse(cpu)[0];
        assert_eq!(
            (
                o.device_kind.clone(),
                o.requested_bytes,
                o.sizes_approximate
            ),
            (DeviceKind::Cpu, Some(1024), false)
        );
    }
}
