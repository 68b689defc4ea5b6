//! Ascend torch_npu profiler folder reader (`*_ascend_pt/ASCEND_PROFILER_OUTPUT/`).
//!
//! Files read (columns looked up by header name, cells trimmed of the trailing TAB torch_npu
//! writes after time values, multi-line quoted cells handled by the `csv` crate):
//! - `operator_memory.csv`: one allocation per row, joined by time to the enclosing `cpu_op` of
//!   `trace_view.json` (op chain, input shapes and types, `Call stack`);
//! - `memory_record.csv`: APP / PTA / GE / PTA+GE / WORKSPACE series;
//! - `npu_module_mem.csv`: CANN module memory (latest sample per component);
//! - `kernel_details.csv`: device kernels with shapes and dtypes;
//! - `trace_view.json`: a bare event array with string `ts` (streamed by the Chrome reader's seed).
//!
//! The `Call stack` of torch_npu is taken as innermost first with executing lines
//! ([`LineKind::Exact`]); this was not verified on hardware (docs/formats.md section 6).

use super::spans::{containing, nest_parents};
use super::{
    Allocation, AllocationSet, ComponentMemory, Device, Evidence, EvidenceError, EvidenceKind,
    Kernel, LineKind, MemoryPoint, MemorySeries, parse_call_stack, parse_name_list,
    parse_shape_list, parse_us_decimal_to_ns,
};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `ASCEND_PROFILER_OUTPUT` folder for `path` (the `*_ascend_pt` folder or the output folder itself).
pub fn output_dir(path: &Path) -> Option<PathBuf> {
    let inner = path.join("ASCEND_PROFILER_OUTPUT");
    if inner.is_dir() {
        return Some(inner);
    }
    let has = |f: &str| path.join(f).is_file();
    (has("operator_memory.csv") || has("memory_record.csv") || has("npu_module_mem.csv"))
        .then(|| path.to_path_buf())
}

/// A CSV table with columns looked up by name.
pub struct Table {
    path: PathBuf,
    header: Vec<String>,
    rows: Vec<(u64, csv::StringRecord)>,
}

impl Table {
    /// Read a whole CSV file (these files are small: one row per allocation or sample).
    pub fn read(path: &Path) -> Result<Table, EvidenceError> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_path(path)
            .map_err(|e| csv_err(path, &e))?;
        let mut rows = Vec::new();
        let mut header = None;
        for rec in rdr.records() {
            let rec = rec.map_err(|e| csv_err(path, &e))?;
            let row = rec.position().map_or(0, |p| p.record() + 1);
            if header.is_none() {
                header = Some(
                    rec.iter()
                        .map(|c| c.trim().trim_start_matches('\u{feff}').to_string())
                        .collect::<Vec<_>>(),
                );
            } else {
                rows.push((row, rec));
            }
        }
        let Some(header) = header else {
            return Err(EvidenceError::at_row(path, 1, "empty CSV: no header row"));
        };
        Ok(Table {
            path: path.to_path_buf(),
            header,
            rows,
        })
    }

    /// Index of a column, or an error naming it (row 1 = header).
    pub fn col(&self, name: &str) -> Result<usize, EvidenceError> {
        self.opt_col(name).ok_or_else(|| {
            EvidenceError::at_row(
                &self.path,
                1,
                format!(
                    "missing column {name:?} (header has {})",
                    self.header.join(", ")
                ),
            )
        })
    }

    pub fn opt_col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Rows with their 1-based row number (the header is row 1).
    pub fn rows(&self) -> impl Iterator<Item = (u64, &csv::StringRecord)> {
        self.rows.iter().map(|(n, r)| (*n, r))
    }
}

fn csv_err(path: &Path, e: &csv::Error) -> EvidenceError {
    let row = e.position().map(|p| p.record() + 1);
    match row {
        Some(r) => EvidenceError::at_row(path, r, format!("bad CSV: {e}")),
        None => EvidenceError::plain(path, format!("bad CSV: {e}")),
    }
}

fn cell(rec: &csv::StringRecord, i: usize) -> &str {
    rec.get(i).map_or("", |c| c.trim())
}

fn opt_cell(rec: &csv::StringRecord, i: Option<usize>) -> &str {
    i.map_or("", |i| cell(rec, i))
}

/// A float cell (MB, KB), empty = None; garbage = error with the row.
fn num(
    t: &Table,
    row: u64,
    rec: &csv::StringRecord,
    i: usize,
    name: &str,
) -> Result<Option<f64>, EvidenceError> {
    let c = cell(rec, i);
    if c.is_empty() {
        return Ok(None);
    }
    c.parse::<f64>().map(Some).map_err(|_| {
        EvidenceError::at_row(
            &t.path,
            row,
            format!("column {name:?}: not a number: {c:?}"),
        )
    })
}

fn time(
    t: &Table,
    row: u64,
    rec: &csv::StringRecord,
    i: usize,
    name: &str,
) -> Result<Option<i64>, EvidenceError> {
    let c = cell(rec, i);
    if c.is_empty() {
        return Ok(None);
    }
    parse_us_decimal_to_ns(c).map(Some).ok_or_else(|| {
        EvidenceError::at_row(&t.path, row, format!("column {name:?}: not a time: {c:?}"))
    })
}

const MIB: f64 = 1024.0 * 1024.0;

fn mb_to_bytes(v: f64) -> u64 {
    (v * MIB).round().max(0.0) as u64
}

/// A `cpu_op` from `trace_view.json`.
#[derive(Debug, Clone)]
struct CpuOp {
    tid: i64,
    start_ns: i64,
    end_ns: i64,
    name: String,
    shapes: Vec<Vec<i64>>,
    dtypes: Vec<String>,
    call_stack: Option<String>,
}

/// Read the folder.
pub fn read_dir(path: &Path) -> Result<Evidence, EvidenceError> {
    let Some(dir) = output_dir(path) else {
        return Err(EvidenceError::plain(
            path,
            "not an Ascend profiler folder (no ASCEND_PROFILER_OUTPUT)",
        ));
    };
    let mut ev = Evidence::new(EvidenceKind::AscendFolder, path);
    let ops = read_trace_view(&dir.join("trace_view.json"), &mut ev)?;
    ev.first_op_time_ns = ops.iter().map(|o| o.start_ns).min();

    let f = dir.join("operator_memory.csv");
    if f.is_file() {
        read_operator_memory(&f, &OpIndex::new(&ops), &mut ev)?;
    } else {
        ev.notes
            .push("no operator_memory.csv: no per-operator allocations".into());
    }
    let f = dir.join("memory_record.csv");
    if f.is_file() {
        read_memory_record(&f, &mut ev)?;
    } else {
        ev.notes
            .push("no memory_record.csv: no memory series".into());
    }
    let f = dir.join("npu_module_mem.csv");
    if f.is_file() {
        read_module_mem(&f, &mut ev)?;
    }
    let f = dir.join("kernel_details.csv");
    if f.is_file() {
        read_kernels(&f, &mut ev)?;
    }
    Ok(ev)
}

#[derive(Deserialize)]
struct TvEvent {
    ph: Option<String>,
    cat: Option<String>,
    name: Option<String>,
    tid: Option<serde_json::Value>,
    ts: Option<serde_json::Value>,
    dur: Option<serde_json::Value>,
    args: Option<HashMap<String, serde_json::Value>>,
}

fn json_ns(v: Option<&serde_json::Value>) -> Option<i64> {
    match v? {
        serde_json::Value::String(s) => parse_us_decimal_to_ns(s),
        serde_json::Value::Number(n) => n.as_f64().map(|f| (f * 1000.0).round() as i64),
        _ => None,
    }
}

fn read_trace_view(path: &Path, ev: &mut Evidence) -> Result<Vec<CpuOp>, EvidenceError> {
    if !path.is_file() {
        ev.notes
            .push("no trace_view.json: allocations carry no shapes or stacks".into());
        return Ok(Vec::new());
    }
    let file = std::fs::File::open(path)
        .map_err(|e| EvidenceError::plain(path, format!("cannot open: {e}")))?;
    let mut ops = Vec::new();
    let count = std::rc::Rc::new(std::cell::Cell::new(0u64));
    // Not `json_stream::read_top`: its errors (no line/column) and skipping would differ.
    let reader = super::json_stream::Counting::new(std::io::BufReader::new(file), count.clone());
    let mut de = serde_json::Deserializer::from_reader(reader);
    // trace_view.json is an array; deserialize element by element through a seq visitor.
    let res =
        serde::Deserializer::deserialize_seq(&mut de, TvVisitor(&mut ops)).and_then(|()| de.end());
    if let Err(e) = res {
        return Err(EvidenceError::new(
            path,
            super::Location::Byte {
                offset: count.get(),
                line: Some(e.line()),
                column: Some(e.column()),
            },
            format!("invalid trace_view.json: {e}"),
        ));
    }
    Ok(ops)
}

struct TvVisitor<'a>(&'a mut Vec<CpuOp>);

impl<'de> serde::de::Visitor<'de> for TvVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            let Ok(e) = TvEvent::deserialize(v) else {
                continue;
            };
            if e.ph.as_deref() != Some("X") || e.cat.as_deref() != Some("cpu_op") {
                continue;
            }
            let (Some(start), Some(name)) = (json_ns(e.ts.as_ref()), e.name) else {
                continue;
            };
            let dur = json_ns(e.dur.as_ref()).unwrap_or(0);
            let args = e.args.unwrap_or_default();
            let text = |k: &str| args.get(k).and_then(|v| v.as_str()).map(str::to_string);
            self.0.push(CpuOp {
                tid: e
                    .tid
                    .as_ref()
                    .and_then(serde_json::Value::as_i64)
                    .unwrap_or(0),
                start_ns: start,
                end_ns: start.saturating_add(dur),
                name,
                shapes: text("Input Dims")
                    .map(|s| parse_shape_list(&s))
                    .unwrap_or_default(),
                dtypes: text("Input type")
                    .map(|s| parse_name_list(&s))
                    .unwrap_or_default(),
                call_stack: text("Call stack"),
            });
        }
        Ok(())
    }
}

fn read_operator_memory(
    path: &Path,
    ops: &OpIndex,
    ev: &mut Evidence,
) -> Result<(), EvidenceError> {
    let t = Table::read(path)?;
    let c_name = t.col("Name")?;
    let c_size = t.col("Size(KB)")?;
    let c_alloc = t.col("Allocation Time(us)")?;
    let c_release = t.opt_col("Release Time(us)");
    let c_active_release = t.opt_col("Active Release Time(us)");
    let c_total = t.opt_col("Allocation Total Allocated(MB)");
    let c_dev = t.opt_col("Device Type");
    let mut allocs: AllocationSet<String> = AllocationSet::default();
    for (row, rec) in t.rows() {
        let name = cell(rec, c_name).to_string();
        let Some(kb) = num(&t, row, rec, c_size, "Size(KB)")? else {
            return Err(EvidenceError::at_row(path, row, "empty Size(KB)"));
        };
        let device = Device::parse(opt_cell(rec, c_dev));
        let mut a = Allocation::new((kb * 1024.0).round().max(0.0) as u64, device);
        a.alloc_time_ns = time(&t, row, rec, c_alloc, "Allocation Time(us)")?;
        a.free_time_ns = match c_release {
            Some(i) => time(&t, row, rec, i, "Release Time(us)")?,
            None => None,
        };
        if a.free_time_ns.is_none()
            && let Some(i) = c_active_release
        {
            a.free_time_ns = time(&t, row, rec, i, "Active Release Time(us)")?;
        }
        if let Some(i) = c_total {
            a.total_allocated_after =
                num(&t, row, rec, i, "Allocation Total Allocated(MB)")?.map(mb_to_bytes);
        }
        a.op = Some(name.clone());
        a.op_chain = vec![name.clone()];
        if !name.starts_with("cann::")
            && let Some(at) = a.alloc_time_ns
        {
            join_op(&mut a, &name, at, ops);
        }
        allocs.push(a, |a| {
            format!(
                "{}|{:?}|{:?}|{:?}|{:?}|{:?}",
                a.bytes, a.device, a.op_chain, a.input_shapes, a.input_dtypes, a.stack
            )
        });
    }
    ev.notes.extend(allocs.note());
    ev.allocations.append(&mut allocs.list);
    Ok(())
}

/// The `cpu_op`s of each thread, sorted and nested, so that the ops around a moment are found by
/// climbing a chain instead of scanning every op (profiles hold hundreds of thousands of ops and
/// as many allocations).
struct OpIndex<'a> {
    threads: Vec<ThreadOps<'a>>,
}

/// One thread's (file index, op) sorted by start, longest first on ties; and their parents.
type ThreadOps<'a> = (Vec<(usize, &'a CpuOp)>, Vec<u32>);

impl<'a> OpIndex<'a> {
    fn new(ops: &'a [CpuOp]) -> Self {
        let mut by_tid: HashMap<i64, Vec<(usize, &CpuOp)>> = HashMap::new();
        for (i, o) in ops.iter().enumerate() {
            by_tid.entry(o.tid).or_default().push((i, o));
        }
        let mut tids: Vec<i64> = by_tid.keys().copied().collect();
        tids.sort_unstable();
        let threads = tids
            .into_iter()
            .filter_map(|t| by_tid.remove(&t))
            .map(|mut v| {
                v.sort_by(|(ia, a), (ib, b)| {
                    a.start_ns
                        .cmp(&b.start_ns)
                        .then(b.end_ns.cmp(&a.end_ns))
                        .then(ia.cmp(ib))
                });
                let parents = nest_parents(&v, span_of);
                (v, parents)
            })
            .collect();
        OpIndex { threads }
    }

    /// The ops whose span contains `at`, in file order.
    fn containing(&self, at: i64) -> Vec<&'a CpuOp> {
        let mut found: Vec<(usize, &CpuOp)> = Vec::new();
        let mut idx = Vec::new();
        for (ops, parents) in &self.threads {
            containing(ops, parents, at, span_of, false, &mut idx);
            found.extend(idx.iter().map(|&i| ops[i]));
        }
        found.sort_by_key(|(i, _)| *i);
        found.into_iter().map(|(_, o)| o).collect()
    }
}

fn span_of(entry: &(usize, &CpuOp)) -> (i64, i64) {
    (entry.1.start_ns, entry.1.end_ns)
}

/// Attach the outermost enclosing `cpu_op` (on the thread of the op named in the row).
fn join_op(a: &mut Allocation, name: &str, at: i64, ops: &OpIndex) {
    let containing = ops.containing(at);
    // Prefer the thread of an enclosing op with the row's name.
    let tid = containing
        .iter()
        .find(|o| o.name == name)
        .or(containing.first())
        .map(|o| o.tid);
    let Some(tid) = tid else { return };
    let mut chain: Vec<&CpuOp> = containing.into_iter().filter(|o| o.tid == tid).collect();
    chain.sort_by(|x, y| x.start_ns.cmp(&y.start_ns).then(y.end_ns.cmp(&x.end_ns)));
    let Some(outer) = chain.first() else { return };
    a.op = Some(outer.name.clone());
    a.op_chain = chain.iter().map(|o| o.name.clone()).collect();
    a.input_shapes = outer.shapes.clone();
    a.input_dtypes = outer.dtypes.clone();
    if let Some(cs) = chain.iter().find_map(|o| o.call_stack.as_deref()) {
        a.stack = parse_call_stack(cs, LineKind::Exact);
    }
}

fn read_memory_record(path: &Path, ev: &mut Evidence) -> Result<(), EvidenceError> {
    let t = Table::read(path)?;
    let c_comp = t.col("Component")?;
    let c_ts = t.col("Timestamp(us)")?;
    let c_alloc = t.col("Total Allocated(MB)")?;
    let c_res = t.col("Total Reserved(MB)")?;
    let c_active = t.opt_col("Total Active(MB)");
    let c_dev = t.opt_col("Device Type");
    for (row, rec) in t.rows() {
        let comp = cell(rec, c_comp).to_string();
        let device = Device::parse(opt_cell(rec, c_dev));
        let Some(ts) = time(&t, row, rec, c_ts, "Timestamp(us)")? else {
            continue;
        };
        let alloc = num(&t, row, rec, c_alloc, "Total Allocated(MB)")?;
        // APP copies the raw allocated(KB) cell without converting units.
        let allocated = alloc.map(|v| {
            if comp == "APP" {
                (v * 1024.0).round().max(0.0) as u64
            } else {
                mb_to_bytes(v)
            }
        });
        let reserved = num(&t, row, rec, c_res, "Total Reserved(MB)")?.map(mb_to_bytes);
        let active = match c_active {
            Some(i) => num(&t, row, rec, i, "Total Active(MB)")?.map(mb_to_bytes),
            None => None,
        };
        let point = MemoryPoint {
            time_ns: ts,
            allocated,
            reserved,
            active,
        };
        match ev
            .series
            .iter_mut()
            .find(|s| s.component == comp && s.device == device)
        {
            Some(s) => s.points.push(point),
            None => ev.series.push(MemorySeries {
                component: comp,
                device,
                points: vec![point],
            }),
        }
    }
    for s in &mut ev.series {
        s.points.sort_by_key(|p| p.time_ns);
    }
    Ok(())
}

fn read_module_mem(path: &Path, ev: &mut Evidence) -> Result<(), EvidenceError> {
    let t = Table::read(path)?;
    let c_comp = t.col("Component")?;
    let c_ts = t.opt_col("Timestamp(us)");
    let c_res = t.col("Total Reserved(MB)")?;
    let c_dev = t.opt_col("Device");
    let mut latest: Vec<ComponentMemory> = Vec::new();
    for (row, rec) in t.rows() {
        let component = cell(rec, c_comp).to_string();
        let device = Device::parse(opt_cell(rec, c_dev));
        let ts = match c_ts {
            Some(i) => time(&t, row, rec, i, "Timestamp(us)")?,
            None => None,
        };
        let mb = num(&t, row, rec, c_res, "Total Reserved(MB)")?.unwrap_or(0.0);
        let item = ComponentMemory {
            component,
            device,
            bytes: mb_to_bytes(mb),
            time_ns: ts,
        };
        match latest
            .iter_mut()
            .find(|m| m.component == item.component && m.device == item.device)
        {
            Some(m) if m.time_ns <= item.time_ns => *m = item,
            Some(_) => {}
            None => latest.push(item),
        }
    }
    ev.component_memory = latest;
    Ok(())
}

fn read_kernels(path: &Path, ev: &mut Evidence) -> Result<(), EvidenceError> {
    let t = Table::read(path)?;
    let c_name = t.col("Name")?;
    let c_type = t.opt_col("Type");
    let c_start = t.opt_col("Start Time(us)");
    let c_dur = t.opt_col("Duration(us)");
    let c_in = t.opt_col("Input Shapes");
    let c_in_t = t.opt_col("Input Data Types");
    let c_out = t.opt_col("Output Shapes");
    let c_out_t = t.opt_col("Output Data Types");
    for (row, rec) in t.rows() {
        let start_ns = match c_start {
            Some(i) => time(&t, row, rec, i, "Start Time(us)")?,
            None => None,
        };
        let duration_ns = match c_dur {
            Some(i) => time(&t, row, rec, i, "Duration(us)")?,
            None => None,
        };
        ev.kernels.push(Kernel {
            name: cell(rec, c_name).to_string(),
            kind: opt_cell(rec, c_type).to_string(),
            start_ns,
            duration_ns,
            input_shapes: parse_shape_list(opt_cell(rec, c_in)),
            input_dtypes: parse_name_list(opt_cell(rec, c_in_t)),
            output_shapes: parse_shape_list(opt_cell(rec, c_out)),
            output_dtypes: parse_name_list(opt_cell(rec, c_out_t)),
        });
    }
    Ok(())
}
