//! Profile evidence readers: one reader per source format, all producing one model.
//!
//! Each reader turns one input (a torch.profiler Chrome trace, a CUDA memory snapshot pickle, an
//! Ascend torch_npu profiler folder, or an OOM log) into an [`Evidence`]: allocations with their
//! operator, input shapes and Python stack, memory series, and OOM events. Readers know nothing
//! of Python source: file paths and lines are reported exactly as the evidence names them, and
//! matching them to the repository is the caller's job.
//!
//! [`load`] detects the kind from the content, not only from the name.

pub mod ascend;
pub mod chrome_trace;
mod json_stream;
pub mod oom_log;
pub mod pickle;
pub mod report;
pub mod series;
pub mod snapshot;
pub mod spans;
pub mod what_if;

use serde::Serialize;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How a frame's line number should be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// The line that was executing (a traceback line, a `CallFrom` call site).
    Exact,
    /// The function's `def` line (`co_firstlineno`): only the function is known.
    FunctionDef,
}

/// One Python frame of an allocation's stack (innermost first in [`Allocation::stack`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// File name as the evidence writes it: absolute, or relative to a `sys.path` entry.
    pub file: String,
    pub line: u32,
    pub function: String,
    pub line_kind: LineKind,
    /// With [`LineKind::FunctionDef`]: the name of the method this frame was calling when the
    /// allocation happened (`bool` for `<built-in method bool of Tensor object>`), so the caller
    /// can find that call inside the function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callee: Option<String>,
}

/// The kind of memory an allocation or series lives on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    Cpu,
    Cuda,
    Npu,
    /// Anything else, as the evidence names it (a c10 DeviceType number, a string).
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Device {
    pub kind: DeviceKind,
    /// Device index when known (`None` for the CPU or when unrecorded).
    pub index: Option<i64>,
}

impl Device {
    pub fn new(kind: DeviceKind, index: Option<i64>) -> Self {
        Device { kind, index }
    }

    /// From a c10 `DeviceType` number (0 CPU, 1 CUDA, 20 PrivateUse1 = NPU) and index.
    pub fn from_c10(code: i64, index: i64) -> Self {
        let kind = match code {
            0 => DeviceKind::Cpu,
            1 => DeviceKind::Cuda,
            20 => DeviceKind::Npu,
            other => DeviceKind::Other(format!("c10:{other}")),
        };
        Device {
            kind,
            index: (index >= 0).then_some(index),
        }
    }

    /// From a string such as `NPU:0`, `cuda:1`, `cpu`.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        let (name, index) = match text.split_once(':') {
            Some((n, i)) => (n, i.trim().parse::<i64>().ok()),
            None => (text, None),
        };
        let kind = match name.to_ascii_lowercase().as_str() {
            "cpu" => DeviceKind::Cpu,
            "cuda" | "gpu" => DeviceKind::Cuda,
            "npu" => DeviceKind::Npu,
            _ => DeviceKind::Other(name.to_string()),
        };
        Device { kind, index }
    }
}

/// Allocations kept one by one up to this count; beyond it identical ones are aggregated.
pub const EXACT_ALLOCATIONS: usize = 20_000;

/// Allocations as a reader collects them: past [`EXACT_ALLOCATIONS`], one with the same key as an
/// earlier one is merged into it (its `count` grows; the first instance's times stay), so memory
/// follows the distinct data, not the number of rows or references.
pub(crate) struct AllocationSet<K> {
    pub list: Vec<Allocation>,
    merged: std::collections::HashMap<K, usize>,
    merged_count: u64,
}

impl<K> Default for AllocationSet<K> {
    fn default() -> Self {
        AllocationSet {
            list: Vec::new(),
            merged: std::collections::HashMap::new(),
            merged_count: 0,
        }
    }
}

impl<K: std::hash::Hash + Eq> AllocationSet<K> {
    /// Add one; the index of its entry, and whether it stands alone (not merged). `key` is only
    /// computed past the limit.
    pub fn push(&mut self, a: Allocation, key: impl FnOnce(&Allocation) -> K) -> (usize, bool) {
        if self.list.len() < EXACT_ALLOCATIONS {
            self.list.push(a);
            return (self.list.len() - 1, true);
        }
        let k = key(&a);
        if let Some(&i) = self.merged.get(&k) {
            self.list[i].count += 1;
            self.merged_count += 1;
            return (i, false);
        }
        self.list.push(a);
        self.merged.insert(k, self.list.len() - 1);
        (self.list.len() - 1, true)
    }

    /// The note saying how many were merged, if any.
    pub fn note(&self) -> Option<String> {
        (self.merged_count > 0).then(|| {
            format!(
                "{} allocations past the first {EXACT_ALLOCATIONS} merged into identical entries",
                self.merged_count
            )
        })
    }
}

/// One allocation (or, with `count > 1`, several identical ones aggregated by the source).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Allocation {
    /// Bytes of the block (as the allocator counted it).
    pub bytes: u64,
    /// Bytes the caller asked for, when the source distinguishes it from `bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_bytes: Option<u64>,
    pub device: Device,
    /// Epoch nanoseconds (or the source's own clock), when known.
    pub alloc_time_ns: Option<i64>,
    pub free_time_ns: Option<i64>,
    /// The outermost enclosing operator (what user code called, e.g. `aten::to`).
    pub op: Option<String>,
    /// All enclosing operators, outermost first (`aten::to`, `aten::_to_copy`, `aten::empty_strided`).
    pub op_chain: Vec<String>,
    /// Input shapes of `op`, one per input; empty for non-tensor inputs.
    pub input_shapes: Vec<Vec<i64>>,
    /// Input strides of `op`, one per input, where recorded.
    pub input_strides: Vec<Vec<i64>>,
    /// Input dtypes of `op` (`long int`, `float`, `Scalar`, ...), where recorded.
    pub input_dtypes: Vec<String>,
    /// `Concrete Inputs` of `op` (scalar values, int lists), where recorded.
    pub concrete_inputs: Vec<String>,
    /// Python stack, innermost first.
    pub stack: Vec<Frame>,
    /// Number of identical allocations this entry stands for (1 unless aggregated).
    pub count: u64,
    /// Allocator total after this allocation, when the source records it.
    pub total_allocated_after: Option<u64>,
    /// Block address, when recorded.
    pub address: Option<u64>,
}

impl Allocation {
    pub fn new(bytes: u64, device: Device) -> Self {
        Allocation {
            bytes,
            requested_bytes: None,
            device,
            alloc_time_ns: None,
            free_time_ns: None,
            op: None,
            op_chain: Vec::new(),
            input_shapes: Vec::new(),
            input_strides: Vec::new(),
            input_dtypes: Vec::new(),
            concrete_inputs: Vec::new(),
            stack: Vec::new(),
            count: 1,
            total_allocated_after: None,
            address: None,
        }
    }

    /// How long the block lived, when both ends are known.
    pub fn lifetime_ns(&self) -> Option<i64> {
        // Times come from the input: a nonsense pair must not overflow.
        self.free_time_ns?.checked_sub(self.alloc_time_ns?)
    }
}

/// One sample of a memory series; values in bytes after the event at `time_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MemoryPoint {
    pub time_ns: i64,
    pub allocated: Option<u64>,
    pub reserved: Option<u64>,
    pub active: Option<u64>,
}

/// Allocated / reserved / active over time for one component on one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemorySeries {
    /// `allocator` for torch's own allocator, or the source's component (`APP`, `PTA`, `GE`,
    /// `PTA+GE`, `WORKSPACE` on Ascend).
    pub component: String,
    pub device: Device,
    /// Sorted by time.
    pub points: Vec<MemoryPoint>,
}

impl MemorySeries {
    /// The point with the largest allocated value (first one on ties).
    pub fn peak_allocated(&self) -> Option<MemoryPoint> {
        peak_by(&self.points, |p| p.allocated)
    }

    /// The point with the largest reserved value (first one on ties).
    pub fn peak_reserved(&self) -> Option<MemoryPoint> {
        peak_by(&self.points, |p| p.reserved)
    }
}

fn peak_by(points: &[MemoryPoint], f: impl Fn(&MemoryPoint) -> Option<u64>) -> Option<MemoryPoint> {
    let mut best: Option<(u64, MemoryPoint)> = None;
    for p in points {
        if let Some(v) = f(p)
            && best.is_none_or(|(b, _)| v > b)
        {
            best = Some((v, *p));
        }
    }
    best.map(|(_, p)| p)
}

/// An out-of-memory failure, from a log or a snapshot's `oom` trace entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OomEvent {
    pub device_kind: DeviceKind,
    pub device_index: Option<i64>,
    /// The allocator that failed, when the message names one (`DefaultCPUAllocator`,
    /// `NPUWorkspaceAllocator`).
    pub allocator: Option<String>,
    pub requested_bytes: Option<u64>,
    pub capacity_bytes: Option<u64>,
    /// Allocated by PyTorch.
    pub allocated_bytes: Option<u64>,
    /// Reserved by PyTorch (allocated + cached).
    pub reserved_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// Whole-process use, including non-PyTorch memory (CUDA messages).
    pub process_in_use_bytes: Option<u64>,
    /// True when the sizes were parsed from rounded text (`6.10 GiB`), false when exact.
    pub sizes_approximate: bool,
    /// The last user frame of the failing stack (not site-packages, not torch).
    pub frame: Option<Frame>,
    /// The source text printed under that frame in the traceback.
    pub source_line: Option<String>,
    /// The whole stack, innermost first.
    pub stack: Vec<Frame>,
    pub time_ns: Option<i64>,
    /// The message line as it appeared.
    pub message: String,
    /// Byte offset of the message line in the log, when from a log.
    pub offset: Option<u64>,
}

impl OomEvent {
    pub fn new(device_kind: DeviceKind, message: String) -> Self {
        OomEvent {
            device_kind,
            device_index: None,
            allocator: None,
            requested_bytes: None,
            capacity_bytes: None,
            allocated_bytes: None,
            reserved_bytes: None,
            free_bytes: None,
            process_in_use_bytes: None,
            sizes_approximate: false,
            frame: None,
            source_line: None,
            stack: Vec::new(),
            time_ns: None,
            message,
            offset: None,
        }
    }
}

/// A device kernel (Ascend `kernel_details.csv`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kernel {
    pub name: String,
    pub kind: String,
    pub start_ns: Option<i64>,
    pub duration_ns: Option<i64>,
    pub input_shapes: Vec<Vec<i64>>,
    pub input_dtypes: Vec<String>,
    pub output_shapes: Vec<Vec<i64>>,
    pub output_dtypes: Vec<String>,
}

/// Memory a runtime component holds outside the PyTorch allocator (Ascend CANN modules).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentMemory {
    pub component: String,
    pub device: Device,
    /// The latest sample, in bytes (negative "only frees seen" samples count as 0).
    pub bytes: u64,
    pub time_ns: Option<i64>,
}

/// What kind of input an [`Evidence`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    ChromeTrace,
    CudaSnapshot,
    AscendFolder,
    OomLog,
}

/// Everything one input gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub path: PathBuf,
    pub allocations: Vec<Allocation>,
    pub series: Vec<MemorySeries>,
    pub ooms: Vec<OomEvent>,
    pub kernels: Vec<Kernel>,
    pub component_memory: Vec<ComponentMemory>,
    /// Start of the first operator, on the allocation clock (for static vs dynamic memory).
    pub first_op_time_ns: Option<i64>,
    /// Things the reader noticed but could not use (missing optional files, odd rows).
    pub notes: Vec<String>,
}

impl Evidence {
    pub fn new(kind: EvidenceKind, path: &Path) -> Self {
        Evidence {
            kind,
            path: path.to_path_buf(),
            allocations: Vec::new(),
            series: Vec::new(),
            ooms: Vec::new(),
            kernels: Vec::new(),
            component_memory: Vec::new(),
            first_op_time_ns: None,
            notes: Vec::new(),
        }
    }

    /// The series of one component (`allocator`, `PTA`, `APP`, ...), first device.
    pub fn series_of(&self, component: &str) -> Option<&MemorySeries> {
        self.series.iter().find(|s| s.component == component)
    }
}

/// Where in the input an error was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    None,
    /// Byte offset (in the decompressed stream for `.gz`), with line:column when known.
    Byte {
        offset: u64,
        line: Option<usize>,
        column: Option<usize>,
    },
    /// CSV row, 1-based, the header being row 1.
    Row(u64),
    /// Line of a text file, 1-based.
    Line(usize),
}

/// A reader failure; renders as one line naming the path and the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceError {
    pub path: PathBuf,
    pub location: Location,
    pub message: String,
}

impl EvidenceError {
    pub fn new(path: &Path, location: Location, message: impl Into<String>) -> Self {
        // Keep the rendering on one line whatever the message holds.
        let message: String = message.into().replace(['\n', '\r'], " ");
        EvidenceError {
            path: path.to_path_buf(),
            location,
            message,
        }
    }

    pub fn at_byte(path: &Path, offset: u64, message: impl Into<String>) -> Self {
        Self::new(
            path,
            Location::Byte {
                offset,
                line: None,
                column: None,
            },
            message,
        )
    }

    pub fn at_row(path: &Path, row: u64, message: impl Into<String>) -> Self {
        Self::new(path, Location::Row(row), message)
    }

    pub fn plain(path: &Path, message: impl Into<String>) -> Self {
        Self::new(path, Location::None, message)
    }
}

impl fmt::Display for EvidenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.location {
            Location::None => write!(f, "{path}: {}", self.message),
            Location::Byte {
                offset,
                line: Some(l),
                column: Some(c),
            } => {
                write!(
                    f,
                    "{path}: byte {offset} (line {l}, column {c}): {}",
                    self.message
                )
            }
            Location::Byte { offset, .. } => write!(f, "{path}: byte {offset}: {}", self.message),
            Location::Row(r) => write!(f, "{path}: row {r}: {}", self.message),
            Location::Line(l) => write!(f, "{path}: line {l}: {}", self.message),
        }
    }
}

impl std::error::Error for EvidenceError {}

/// Read a file's first bytes (for content sniffing).
fn sniff(path: &Path, n: usize) -> Result<Vec<u8>, EvidenceError> {
    let file = std::fs::File::open(path)
        .map_err(|e| EvidenceError::plain(path, format!("cannot open: {e}")))?;
    let mut buf = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| EvidenceError::plain(path, format!("cannot read: {e}")))?;
    Ok(buf)
}

/// The kind of evidence at `path`, detected from the content (and, for folders, the layout).
pub fn detect(path: &Path) -> Result<EvidenceKind, EvidenceError> {
    if path.is_dir() {
        return if ascend::output_dir(path).is_some() {
            Ok(EvidenceKind::AscendFolder)
        } else {
            Err(EvidenceError::plain(
                path,
                "a folder that is not Ascend profiler output (no ASCEND_PROFILER_OUTPUT, operator_memory.csv or memory_record.csv)",
            ))
        };
    }
    let head = sniff(path, 4096)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        return Ok(EvidenceKind::ChromeTrace);
    }
    if head.first() == Some(&0x80) || head.first() == Some(&b'}') || head.first() == Some(&b']') {
        return Ok(EvidenceKind::CudaSnapshot);
    }
    // JSON starts `{"` / `{}` or, for a bare event array, `[{` / `[]`; a log line may start with
    // `[2026-11-29 ...]` or `{rank 0}`, which is not JSON.
    let mut significant = head
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    match (significant.next(), significant.next()) {
        (Some(b'{'), Some(b'"' | b'}') | None) | (Some(b'['), Some(b'{' | b']') | None) => {
            Ok(EvidenceKind::ChromeTrace)
        }
        _ => Ok(EvidenceKind::OomLog),
    }
}

/// What a file in none of the known formats is told: every format tried, in one sentence (a log
/// is the last resort, so what it lacked is said here, not as the log reader's own error).
pub const UNKNOWN_FORMAT: &str = "not a recognised evidence format (looked for: torch.profiler trace, CUDA snapshot, Ascend profiler folder, OOM log with an \"out of memory\" or \"Tried to allocate\" line)";

/// Load one piece of evidence, detecting its kind from the content. A file that is none of the
/// formats (the OOM log being the last resort) says so, and what was looked for.
pub fn load(path: &Path) -> Result<Evidence, EvidenceError> {
    match detect(path)? {
        EvidenceKind::ChromeTrace => chrome_trace::read_path(path),
        EvidenceKind::CudaSnapshot => snapshot::read_path(path),
        EvidenceKind::AscendFolder => ascend::read_dir(path),
        EvidenceKind::OomLog => oom_log::read_path(path).map_err(|e| {
            if e.location == Location::None && e.message == oom_log::NO_OOM_MESSAGE {
                EvidenceError::plain(path, UNKNOWN_FORMAT)
            } else {
                e
            }
        }),
    }
}

/// True when a frame's file is library code (torch, site-packages, the standard library) rather
/// than the user's: used to pick the "user" frame of a stack.
pub fn is_library_file(file: &str) -> bool {
    let f = file.replace('\\', "/");
    f.starts_with("torch/")
        || f.starts_with("torch_npu/")
        || f.contains("/site-packages/")
        || f.contains("/dist-packages/")
        || f.contains("/torch/")
        || f.contains("/torch_npu/")
        || f.contains("/lib/python")
        || f.starts_with('<')
        || f == "??"
}

/// Parse a `file(N): func` frame name (torch profiler and Ascend call stacks).
pub fn parse_frame_name(name: &str) -> Option<(String, u32, String)> {
    let (head, func) = name.split_once("): ")?;
    let open = head.rfind('(')?;
    let line = head[open + 1..].parse::<u32>().ok()?;
    let file = &head[..open];
    if file.is_empty() {
        return None;
    }
    Some((file.to_string(), line, func.trim().to_string()))
}

/// The method name in `<built-in method bool of Tensor object at 0x..>` (`bool`), or the
/// function name in `<built-in function cat>`.
pub fn builtin_callee(name: &str) -> Option<String> {
    let rest = name
        .strip_prefix("<built-in method ")
        .or_else(|| name.strip_prefix("<built-in function "))?;
    let callee: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!callee.is_empty()).then_some(callee)
}

/// Parse a `;`-separated call stack string (torch verbose `Call stack`, Ascend `Call stack`,
/// innermost first) into frames. Built-in and `nn.Module:` entries are not frames; a built-in
/// just inside a frame gives that frame's `callee`.
pub fn parse_call_stack(text: &str, line_kind: LineKind) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut pending_callee: Option<String> = None;
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some((file, line, function)) = parse_frame_name(part) {
            frames.push(Frame {
                file,
                line,
                function,
                line_kind,
                callee: pending_callee.take(),
            });
        } else {
            pending_callee = builtin_callee(part);
        }
    }
    frames
}

/// Parse a shape list written `2,24,9536,9536;\r\n;\r\n` (Ascend): inputs split by `;`, dims by
/// `,`; an empty input gives an empty shape. Unparsable dims make that input empty.
pub fn parse_shape_list(text: &str) -> Vec<Vec<i64>> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let mut parts: Vec<&str> = text.split(';').map(str::trim).collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| {
            if p.is_empty() {
                return Vec::new();
            }
            p.split(',')
                .map(|d| d.trim().parse::<i64>())
                .collect::<Result<Vec<_>, _>>()
                .unwrap_or_default()
        })
        .collect()
}

/// Split a `;`-joined list of names (`INT64;BOOL`, `long int;\r\nScalar;\r\n`).
pub fn parse_name_list(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let mut parts: Vec<String> = text.split(';').map(|p| p.trim().to_string()).collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// Parse a decimal microsecond string (`1766000000000111.000`, maybe with a trailing TAB) into
/// integer nanoseconds, exactly (no float rounding).
pub fn parse_us_decimal_to_ns(text: &str) -> Option<i64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        // Scientific notation or other float forms: fall back to f64.
        let v: f64 = text.trim().parse().ok()?;
        return v.is_finite().then(|| (v * 1000.0).round() as i64);
    }
    let int_v: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut frac3 = String::from(frac);
    frac3.truncate(3);
    while frac3.len() < 3 {
        frac3.push('0');
    }
    let frac_v: i64 = frac3.parse().ok()?;
    let ns = int_v.checked_mul(1000)?.checked_add(frac_v)?;
    Some(if neg { -ns } else { ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_name_and_call_stack() {
        assert_eq!(
            parse_frame_name("tiny_model.py(33): prepare_mask"),
            Some(("tiny_model.py".into(), 33, "prepare_mask".into()))
        );
        assert_eq!(parse_frame_name("nn.Module: BuggyAttention_0"), None);
        let frames = parse_call_stack(
            "<built-in method bool of Tensor object at 0x7f>;tiny_model.py(33): prepare_mask;nn.Module: A_0;tiny_model.py(38): forward;",
            LineKind::FunctionDef,
        );
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].callee.as_deref(), Some("bool"));
        assert_eq!(frames[1].line, 38);
    }

    #[test]
    fn shapes_and_times() {
        assert_eq!(
            parse_shape_list("2,24,9536,9536;\r\n;\r\n;\r\n;\r\n"),
            vec![vec![2, 24, 9536, 9536], vec![], vec![], vec![]]
        );
        assert_eq!(
            parse_shape_list("1,1,9536,9536;4"),
            vec![vec![1, 1, 9536, 9536], vec![4]]
        );
        assert_eq!(
            parse_us_decimal_to_ns("1766000000000111.000\t"),
            Some(1_766_000_000_000_111_000)
        );
        assert_eq!(
            parse_us_decimal_to_ns("1766000005000000.001\t"),
            Some(1_766_000_005_000_000_001)
        );
        assert_eq!(parse_us_decimal_to_ns(""), None);
    }

    #[test]
    fn library_files() {
        assert!(is_library_file("torch/nn/modules/module.py"));
        assert!(is_library_file(
            "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py"
        ));
        assert!(!is_library_file("tiny_model.py"));
        assert!(!is_library_file("/workspace/model/modeling_tiny.py"));
    }
}
