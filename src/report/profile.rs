//! Renderers of `oomlint profile`: text, JSON and a self-contained HTML page (inline SVG, no
//! external assets). They print the data `crate::profile::build` computed; they read no files.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::evidence::report::{HotAllocation, PeakShape};
use crate::fmt::{Bytes, ShapeStyle, first_tensor_arg, html_escape};
use crate::profile::{PredictedSite, ProfileEntry, ProfileOutput, site_label};

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
fn input_text(h: &HotAllocation) -> String {
    first_tensor_arg(
        &h.input_shapes,
        &h.input_dtypes,
        &h.input_strides,
        ShapeStyle::Compact,
    )
    .map(|arg| format!("input {arg}"))
    .unwrap_or_default()
}

fn hot_site(h: &HotAllocation) -> String {
    match &h.site {
        Some(f) if f.function.is_empty() => format!("{}:{}", f.file, f.line),
        Some(f) => format!("{}:{} ({})", f.file, f.line, f.function),
        None => "no Python frame".to_string(),
    }
}

fn entry_title(e: &ProfileEntry) -> String {
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
            writeln!(
                out,
                "2. Static: {:#} held before the first operator (weights, inputs, caches); dynamic peak {:#}",
                Bytes(s.static_bytes),
                Bytes(s.dynamic_peak_bytes)
            )?;
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
        writeln!(out, "4. Hot allocations (bytes x calls):")?;
        if r.hot.is_empty() {
            writeln!(out, "   none recorded")?;
        }
        for (i, h) in r.hot.iter().enumerate() {
            let life = h
                .max_lifetime_ns
                .map(|l| format!(", lives {}", secs(l)))
                .unwrap_or_default();
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
        if e.sources.iter().any(Option::is_some) {
            writeln!(out, "5. Source:")?;
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

const W: f64 = 900.0;
const H: f64 = 320.0;
const ML: f64 = 80.0;
const MR: f64 = 20.0;
const MT: f64 = 20.0;
const MB: f64 = 40.0;

fn svg(e: &ProfileEntry) -> String {
    let mut s = String::new();
    let t_max = e
        .plot
        .iter()
        .map(|p| p.t_ns)
        .chain(e.markers.iter().filter_map(|m| m.end_ns))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let y_max = e
        .plot
        .iter()
        .flat_map(|p| [p.allocated, p.reserved])
        .flatten()
        .chain(e.markers.iter().map(|m| m.level_after.unwrap_or(m.bytes)))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let x = |t: i64| ML + (t.max(0) as f64 / t_max) * (W - ML - MR);
    let y = |v: u64| H - MB - (v as f64 / y_max) * (H - MT - MB);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="memory over time">"#
    );
    let _ = write!(
        s,
        r##"<rect x="{ML}" y="{MT}" width="{}" height="{}" fill="#fafafa" stroke="#ccc"/>"##,
        W - ML - MR,
        H - MT - MB
    );
    for i in 0..=4 {
        let v = (y_max * i as f64 / 4.0) as u64;
        let _ = write!(
            s,
            r##"<text x="{}" y="{:.1}" font-size="10" text-anchor="end" fill="#555">{}</text>"##,
            ML - 4.0,
            y(v) + 3.0,
            html_escape(&Bytes(v).to_string())
        );
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-size="10" text-anchor="end" fill="#555">{}</text>"##,
        W - MR,
        H - 10.0,
        html_escape(&secs(t_max as i64))
    );
    // Hot allocations: a band from allocation to free, at the level it was allocated on.
    for m in &e.markers {
        let x0 = x(m.start_ns);
        let x1 = x(m.end_ns.unwrap_or(t_max as i64)).max(x0 + 2.0);
        let top = m.level_after.unwrap_or(m.bytes);
        let y0 = y(top);
        let y1 = y(top.saturating_sub(m.bytes));
        let color = if m.hot == 0 { "#d62728" } else { "#ff7f0e" };
        let _ = write!(
            s,
            r#"<rect class="hot" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="{color}" fill-opacity="0.35" stroke="{color}"><title>{}</title></rect>"#,
            x1 - x0,
            (y1 - y0).max(1.0),
            html_escape(&m.title)
        );
    }
    for (name, color, pick) in [
        (
            "allocated",
            "#1f77b4",
            (|p: &crate::profile::PlotPoint| p.allocated)
                as fn(&crate::profile::PlotPoint) -> Option<u64>,
        ),
        ("reserved", "#7f7f7f", |p| p.reserved),
    ] {
        let mut pts = String::new();
        let mut last: Option<u64> = None;
        for p in &e.plot {
            if let Some(v) = pick(p) {
                // Steps: the level holds until the next event.
                if let Some(l) = last {
                    let _ = write!(pts, "{:.1},{:.1} ", x(p.t_ns), y(l));
                }
                let _ = write!(pts, "{:.1},{:.1} ", x(p.t_ns), y(v));
                last = Some(v);
            }
        }
        if !pts.is_empty() {
            let _ = write!(
                s,
                r#"<polyline class="{name}" points="{}" fill="none" stroke="{color}" stroke-width="1.5"><title>{name}</title></polyline>"#,
                pts.trim_end()
            );
        }
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-size="11" fill="#1f77b4">allocated</text><text x="{}" y="{}" font-size="11" fill="#7f7f7f">reserved</text><text x="{}" y="{}" font-size="11" fill="#d62728">hot allocations (hover for op, shapes, line)</text>"##,
        ML,
        H - 10.0,
        ML + 70.0,
        H - 10.0,
        ML + 140.0,
        H - 10.0
    );
    s.push_str("</svg>");
    s
}

pub fn write_html(out: &mut dyn Write, o: &ProfileOutput) -> io::Result<()> {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>oomlint profile</title><style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}code{background:#f3f3f3;padding:0 3px}.mb{color:#d62728;font-weight:bold}pre{background:#f6f6f6;padding:8px;overflow:auto}</style></head><body>\n<h1>oomlint profile</h1>\n");
    for e in &o.profiles {
        let r = &e.report;
        let _ = writeln!(h, "<section><h2>{}</h2>", html_escape(&entry_title(e)));
        if let Some(p) = &r.peak {
            let _ = writeln!(
                h,
                "<p><b>Peak</b> {}: allocated {}{}</p>",
                html_escape(&p.component),
                html_escape(&format!("{:#}", Bytes(p.allocated_bytes))),
                p.reserved_bytes
                    .map(|v| format!(", reserved {}", html_escape(&format!("{:#}", Bytes(v)))))
                    .unwrap_or_default()
            );
        }
        if let Some(st) = &r.static_memory {
            let _ = writeln!(
                h,
                "<p><b>Static</b> {} before the first operator; dynamic peak {}</p>",
                html_escape(&format!("{:#}", Bytes(st.static_bytes))),
                html_escape(&format!("{:#}", Bytes(st.dynamic_peak_bytes)))
            );
        }
        if let Some(g) = &r.gap {
            let _ = writeln!(
                h,
                "<p><b>Gap</b> reserved − allocated at the peak {}{}</p>",
                html_escape(&format!("{:#}", Bytes(g.reserved_minus_allocated_bytes))),
                g.app_minus_pta_bytes
                    .map(|d| format!("; APP − PTA {}", html_escape(&format!("{:#}", Bytes(d)))))
                    .unwrap_or_default()
            );
        }
        if let Some(c) = r.component_memory_bytes {
            let _ = writeln!(
                h,
                "<p><b>CANN module memory</b> {}</p>",
                html_escape(&Bytes(c).mib())
            );
        }
        h.push_str(&svg(e));
        h.push_str("\n<table><tr><th>#</th><th>bytes × calls</th><th>op</th><th>input</th><th>line</th><th>static finding</th></tr>\n");
        for (i, hot) in r.hot.iter().enumerate() {
            let src = e.sources.get(i).and_then(Option::as_ref);
            let line = match src {
                Some(s) => format!(
                    "{}:{} <code>{}</code>",
                    html_escape(&s.file),
                    s.line,
                    html_escape(&s.text)
                ),
                None => html_escape(&hot_site(hot)),
            };
            let finding = src
                .map(|s| {
                    s.findings
                        .iter()
                        .map(|f| {
                            format!(
                                "{} {}{}",
                                html_escape(f.code),
                                html_escape(&f.message),
                                f.help
                                    .as_ref()
                                    .map(|x| format!("<br>fix: {}", html_escape(x)))
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("<br>")
                })
                .unwrap_or_default();
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{} × {}</td><td>{}{}</td><td>{}</td><td>{line}</td><td>{finding}</td></tr>",
                i + 1,
                html_escape(&format!("{:#}", Bytes(hot.bytes))),
                hot.count,
                html_escape(hot.op.as_deref().unwrap_or("allocation")),
                if hot.materialized_broadcast {
                    " <span class=\"mb\">materialized broadcast</span>"
                } else {
                    ""
                },
                html_escape(&input_text(hot))
            );
        }
        h.push_str("</table></section>\n");
    }
    if o.scaling.is_some() || !o.notes.is_empty() {
        let mut text = Vec::new();
        let scaling_only = ProfileOutput {
            profiles: Vec::new(),
            scaling: o.scaling.clone(),
            notes: o.notes.clone(),
        };
        write_text(&mut text, &scaling_only)?;
        let _ = writeln!(
            h,
            "<section><h2>Scaling and prediction</h2><pre>{}</pre></section>",
            html_escape(&String::from_utf8_lossy(&text))
        );
    }
    h.push_str("</body></html>\n");
    out.write_all(h.as_bytes())
}
