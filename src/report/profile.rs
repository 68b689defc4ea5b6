//! Renderers of `oomlint profile`: text and JSON here, the self-contained HTML page in
//! `profile_html`. They print the data `crate::profile::build` computed; they read no files.

use std::io::{self, Write};

use crate::evidence::report::{HotAllocation, PeakShape};
use crate::fmt::{Bytes, ShapeStyle, first_tensor_arg};
use crate::profile::{PredictedSite, ProfileEntry, ProfileOutput, site_label};

pub use super::profile_html::write_html;

fn secs(ns: i64) -> String {
    format!("{:.3} s", ns as f64 / 1e9)
}

fn value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `input [2,24,2048,2048] long int, strides [0,0,2048,1]` for the first tensor input.
pub(super) fn input_text(h: &HotAllocation) -> String {
    first_tensor_arg(
        &h.input_shapes,
        &h.input_dtypes,
        &h.input_strides,
        ShapeStyle::Compact,
    )
    .map(|arg| format!("input {arg}"))
    .unwrap_or_default()
}

pub(super) fn hot_site(h: &HotAllocation) -> String {
    match &h.site {
        Some(f) if f.function.is_empty() => format!("{}:{}", f.file, f.line),
        Some(f) => format!("{}:{} ({})", f.file, f.line, f.function),
        None => "no Python frame".to_string(),
    }
}

pub(super) fn entry_title(e: &ProfileEntry) -> String {
    let label = e
        .label
        .as_ref()
        .map(|l| format!(" [{}={}]", l.name, value(l.value)))
        .unwrap_or_default();
    format!(
        "{} ({}){label}",
        e.report.path.display(),
        crate::crossref::kind_name(e.report.kind)
    )
}

pub fn write_text(out: &mut dyn Write, o: &ProfileOutput) -> io::Result<()> {
    for e in &o.profiles {
        let r = &e.report;
        writeln!(out, "== {}", entry_title(e))?;
        match &r.peak {
            Some(p) => {
                let at = e
                    .series_start_ns
                    .map(|t0| format!(" at +{}", secs(p.allocated_time_ns.saturating_sub(t0))))
                    .unwrap_or_default();
                let shape = match p.shape {
                    PeakShape::Spike => "a spike (memory returns near the start level)",
                    PeakShape::Growth => "growth (most of it is still held at the end)",
                    PeakShape::Flat => "flat",
                };
                writeln!(
                    out,
                    "1. Peak: {} allocated {:#}{at}; {shape}; start {:#}, end {:#}",
                    p.component,
                    Bytes(p.allocated_bytes),
                    Bytes(p.start_bytes),
                    Bytes(p.end_bytes)
                )?;
                match p.reserved_bytes {
                    Some(rv) => writeln!(out, "   peak reserved {:#}", Bytes(rv))?,
                    None => writeln!(out, "   reserved memory: not recorded")?,
                }
            }
            None => writeln!(out, "1. Peak: no memory series in this evidence")?,
        }
        if let Some(s) = &r.static_memory {
            let before = if s.first_op_time_ns.is_none() && s.step_start_ns.is_some() {
                "the step starts (no operators recorded: at the first allocation freed again)"
            } else {
                "the first operator"
            };
            writeln!(
                out,
                "2. Static: {:#} held before {before}, to the end (weights, inputs, caches); dynamic peak {:#}",
                Bytes(s.static_bytes),
                Bytes(s.dynamic_peak_bytes)
            )?;
            for h in &s.allocations {
                writeln!(
                    out,
                    "   held {:#} x{} = {:#}  {}  at {}",
                    Bytes(h.bytes),
                    h.count,
                    Bytes(h.total_bytes),
                    h.op.as_deref().unwrap_or("allocation"),
                    hot_site(h),
                )?;
            }
        }
        match &r.gap {
            Some(g) => {
                write!(
                    out,
                    "3. Gap: reserved - allocated at the peak = {:#}",
                    Bytes(g.reserved_minus_allocated_bytes)
                )?;
                if let (Some(app), Some(d)) = (g.app_bytes, g.app_minus_pta_bytes) {
                    write!(
                        out,
                        "; APP (whole process) {:#}, APP - PTA reserved = {:#} ({})",
                        Bytes(app),
                        Bytes(d),
                        Bytes(d).mib()
                    )?;
                }
                writeln!(out)?;
            }
            None => writeln!(out, "3. Gap: no reserved memory recorded")?,
        }
        if let Some(c) = r.component_memory_bytes {
            writeln!(
                out,
                "   CANN module memory (runtime components outside PyTorch): {} ({})",
                Bytes(c).mib(),
                Bytes(c)
            )?;
        }
        writeln!(
            out,
            "4. Hot allocations (dynamic, ranked by bytes live at the peak; bytes x calls):"
        )?;
        if r.hot.is_empty() {
            writeln!(out, "   none recorded")?;
        }
        for (i, h) in r.hot.iter().enumerate() {
            let mut life = h
                .max_lifetime_ns
                .map(|l| format!(", lives {}", secs(l)))
                .unwrap_or_default();
            if h.live_at_peak_bytes > 0 {
                life.push_str(&format!(
                    ", {:#} live at the peak",
                    Bytes(h.live_at_peak_bytes)
                ));
            }
            let input = input_text(h);
            writeln!(
                out,
                "   #{} {:#} x{} = {:#}  {}  at {}{}{}{}",
                i + 1,
                Bytes(h.bytes),
                h.count,
                Bytes(h.total_bytes),
                h.op.as_deref().unwrap_or("allocation"),
                hot_site(h),
                if input.is_empty() {
                    String::new()
                } else {
                    format!("  {input}")
                },
                life,
                if h.materialized_broadcast {
                    "  [materialized broadcast]"
                } else {
                    ""
                }
            )?;
        }
        if !r.fix_effects.is_empty() {
            writeln!(
                out,
                "5. What the fix buys (the reordered code converts the small tensor):"
            )?;
            for fe in &r.fix_effects {
                writeln!(
                    out,
                    "   fixing {}:{} lowers the peak from {:.1} to {:.1} (-{:.1}%)",
                    fe.file,
                    fe.line,
                    Bytes(fe.peak_bytes),
                    Bytes(fe.peak_after_fix_bytes),
                    fe.saved_percent()
                )?;
            }
        }
        if e.sources.iter().any(Option::is_some) {
            writeln!(out, "6. Source:")?;
            for (i, s) in e.sources.iter().enumerate() {
                let Some(s) = s else { continue };
                writeln!(out, "   #{} {}:{}  {}", i + 1, s.file, s.line, s.text)?;
                if s.findings.is_empty() {
                    writeln!(out, "      no static finding at this line")?;
                }
                for f in &s.findings {
                    writeln!(out, "      {} {}: {}", f.code, f.name, f.message)?;
                    if let Some(h) = &f.help {
                        writeln!(out, "      help: {h}")?;
                    }
                }
            }
        }
        for oom in &r.ooms {
            let at = oom
                .frame
                .as_ref()
                .map(|f| format!(" at {}:{}", f.file, f.line))
                .unwrap_or_default();
            let req = oom
                .requested_bytes
                .map(|x| format!(": tried to allocate {:#}", Bytes(x)))
                .unwrap_or_default();
            writeln!(out, "   OOM{at}{req}")?;
        }
        writeln!(out)?;
    }
    if let Some(s) = &o.scaling {
        writeln!(
            out,
            "== Scaling by {} ({})",
            s.dimension,
            if s.inferred { "inferred" } else { "labelled" }
        )?;
        if let Some(x) = &s.explanation {
            writeln!(out, "   inferred {x}")?;
        }
        for (v, p) in &s.peaks {
            writeln!(
                out,
                "   {}={}: peak {:#}",
                s.dimension,
                value(*v),
                Bytes(*p)
            )?;
        }
        writeln!(
            out,
            "   peak = {:#} per {} + {:#}",
            Bytes::rounded(s.peak_bytes_per_unit),
            s.dimension,
            Bytes::rounded(s.peak_intercept)
        )?;
        if let Some(af) = &s.after_fix {
            writeln!(
                out,
                "   after fixing {}:{}: peak = {:#} per {} + {:#}",
                af.file,
                af.line,
                Bytes::rounded(af.peak_after_fix_bytes_per_unit),
                s.dimension,
                Bytes::rounded(af.peak_after_fix_intercept)
            )?;
        }
        for site in s.sites.iter().take(5) {
            writeln!(
                out,
                "   {} at {}: {:#} per {}",
                site.op.as_deref().unwrap_or("allocation"),
                site_label(&site.file, site.line),
                Bytes::rounded(site.bytes_per_unit),
                s.dimension
            )?;
        }
        if let Some(p) = &s.prediction {
            writeln!(out, "== Prediction at {}={}", p.name, value(p.value))?;
            write!(out, "   peak {:#}", Bytes::rounded(p.peak_bytes))?;
            if let (Some(c), Some(x)) = (p.capacity_bytes, p.exceeds_capacity) {
                if x {
                    write!(
                        out,
                        "; EXCEEDS the capacity {:#} by {:#}",
                        Bytes(c),
                        Bytes::rounded(p.peak_bytes - c as f64)
                    )?;
                } else {
                    write!(out, "; fits in the capacity {:#}", Bytes(c))?;
                }
            }
            writeln!(out)?;
            if let Some(af) = &s.after_fix
                && let Some(after) = af.predicted_peak_after_fix_bytes
            {
                write!(
                    out,
                    "   after fixing {}:{}: peak {:#}",
                    af.file,
                    af.line,
                    Bytes::rounded(after)
                )?;
                match (p.capacity_bytes, af.fits_after_fix) {
                    (Some(c), Some(true)) => write!(out, "; fits in the capacity {:#}", Bytes(c))?,
                    (Some(c), Some(false)) => write!(
                        out,
                        "; still EXCEEDS the capacity {:#} by {:#}",
                        Bytes(c),
                        Bytes::rounded(after - c as f64)
                    )?,
                    _ => {}
                }
                writeln!(out)?;
            }
            if let Some(site) = &p.first_exceeding {
                write_site(out, "first site exceeding the capacity", site)?;
            }
            if let Some(site) = &p.largest_live {
                write_site(out, "largest allocation held at that moment", site)?;
            }
            if let Some(site) = &p.largest_site {
                write_site(out, "largest allocation", site)?;
            }
        }
    }
    for n in &o.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

fn write_site(out: &mut dyn Write, what: &str, site: &PredictedSite) -> io::Result<()> {
    let total = site
        .predicted_total_bytes
        .map(|t| format!(", total after it {:#}", Bytes::rounded(t)))
        .unwrap_or_default();
    writeln!(
        out,
        "   {what}: {} at {} allocates {:#}{total}",
        site.op.as_deref().unwrap_or("allocation"),
        site_label(&site.file, site.line),
        Bytes::rounded(site.predicted_bytes)
    )?;
    if let Some(src) = &site.source {
        writeln!(out, "      {}:{}  {}", src.file, src.line, src.text)?;
        for f in &src.findings {
            writeln!(out, "      {} {}: {}", f.code, f.name, f.message)?;
            if let Some(h) = &f.help {
                writeln!(out, "      fix: {h}")?;
            }
        }
    }
    Ok(())
}

pub fn write_json(out: &mut dyn Write, o: &ProfileOutput) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, o).map_err(io::Error::other)?;
    writeln!(out)
}
