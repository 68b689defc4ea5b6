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

/// Read a log file.
pub fn read_path(path: &Path) -> Result<Evidence, EvidenceError> {
    let data =
        std::fs::read(path).map_err(|e| EvidenceError::plain(path, format!("cannot read: {e}")))?;
    let text = String::from_utf8_lossy(&data);
    read_str(&text, path)
}

/// Parse log text; an error when it holds no OOM message.
pub fn read_str(text: &str, path: &Path) -> Result<Evidence, EvidenceError> {
    let ooms = parse(text);
    if ooms.is_empty() {
        return Err(EvidenceError::plain(
            path,
            "no out-of-memory message found (looked for \"CUDA/NPU out of memory\", \"DefaultCPUAllocator\", \"Tried to allocate\")",
        ));
    }
    let mut ev = Evidence::new(EvidenceKind::OomLog, path);
    ev.ooms = ooms;
    Ok(ev)
}

/// All OOM events in a log, with the traceback printed before each.
pub fn parse(text: &str) -> Vec<OomEvent> {
    let p = patterns();
    let lines: Vec<(usize, &str)> = {
        let mut off = 0;
        text.split_inclusive('\n')
            .map(|l| {
                let o = off;
                off += l.len();
                (o, l.trim_end_matches(['\n', '\r']))
            })
            .collect()
    };
    let mut frames: Vec<(Frame, Option<String>)> = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (offset, line) = lines[i];
        if line.contains("Traceback (most recent call last)") {
            frames.clear();
        } else if let Some(c) = p.frame.captures(line) {
            let file = c.get(1).map_or("", |m| m.as_str()).to_string();
            let line_no = c.get(2).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
            let function = c.get(3).map_or("", |m| m.as_str()).to_string();
            let source = lines.get(i + 1).map(|(_, l)| *l).filter(|l| {
                !l.trim().is_empty()
                    && !p.frame.is_match(l)
                    && !p.caret.is_match(l)
                    && l.starts_with(char::is_whitespace)
            });
            frames.push((
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
            let mut j = i + 1;
            while j < lines.len() && j <= i + 4 {
                let l = lines[j].1;
                if l.trim().is_empty()
                    || l.contains("Traceback")
                    || p.frame.is_match(l)
                    || p.oom.is_match(l)
                {
                    break;
                }
                msg.push(' ');
                msg.push_str(l.trim());
                j += 1;
            }
            let kind_text = m.as_str().to_ascii_lowercase();
            let kind = if kind_text.contains("cuda") {
                DeviceKind::Cuda
            } else if kind_text.contains("npu") {
                DeviceKind::Npu
            } else if kind_text.contains("xpu") {
                DeviceKind::Other("xpu".into())
            } else if kind_text.contains("mps") {
                DeviceKind::Other("mps".into())
            } else {
                DeviceKind::Cpu
            };
            let mut o = OomEvent::new(kind, line.trim().to_string());
            o.offset = Some(offset as u64);
            let mut approx = false;
            o.requested_bytes = p
                .requested_exact
                .captures(&msg)
                .and_then(|c| c.iter().skip(1).flatten().next()?.as_str().parse().ok())
                .or_else(|| size(&p.requested, &msg, &mut approx));
            o.capacity_bytes = size(&p.capacity, &msg, &mut approx);
            o.free_bytes = size(&p.free, &msg, &mut approx);
            o.allocated_bytes = size(&p.allocated, &msg, &mut approx);
            o.reserved_bytes = size(&p.reserved, &msg, &mut approx)
                .or_else(|| Some(o.allocated_bytes? + size(&p.unallocated, &msg, &mut approx)?));
            o.process_in_use_bytes = size(&p.in_use, &msg, &mut approx);
            o.sizes_approximate = approx;
            o.device_index = p
                .device
                .captures(&msg)
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
            out.push(o);
            frames.clear();
            i = j;
            continue;
        }
        i += 1;
    }
    out
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
