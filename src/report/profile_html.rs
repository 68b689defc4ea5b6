//! `oomlint profile --format html`: one self-contained page (inline SVG and CSS, no script, no
//! external asset) with, per profile, the memory timeline (time axis with ticks and units, bytes
//! at round binary steps, the peak marked, hot allocations as numbered bands keyed in a legend,
//! the curve after the top fix drawn over the measured one) and the hot table; with several
//! profiles, a chart of peak against the dimension with the fit, the prediction, the capacity
//! and the after-fix line.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::profile::{PlotPoint, ProfileEntry, ProfileOutput, Scaling};

use crate::fmt::{Bytes, html_escape as esc};

use super::profile::{entry_title, hot_site, input_text, write_text};

/// Colours of the hot bands by rank; the legend repeats them.
const BAND_COLOURS: [&str; 10] = [
    "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f",
    "#393b79", "#e7969c",
];
const ALLOCATED: &str = "#1f77b4";
const RESERVED: &str = "#7f7f7f";
const AFTER_FIX: &str = "#2ca02c";
const CAPACITY: &str = "#d62728";

/// The drawing area of a chart in SVG units (the page scales it to the window's width).
struct Area {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Area {
    const CHART: Area = Area {
        width: 960.0,
        height: 380.0,
        left: 84.0,
        right: 24.0,
        top: 24.0,
        bottom: 56.0,
    };

    fn plot_width(&self) -> f64 {
        self.width - self.left - self.right
    }

    fn plot_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }
}

/// A step of 1, 2, 2.5 or 5 times a power of ten that cuts `range` into about `ticks` parts.
fn nice_step(range: f64, ticks: f64) -> f64 {
    if range <= 0.0 || !range.is_finite() {
        return 1.0;
    }
    let raw = range / ticks;
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 2.5 {
        2.5
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// A number without trailing zeros: `2.5`, `100`.
fn trim_number(v: f64) -> String {
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() || text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// Tick values in bytes at round steps of one binary unit, and their labels (`100 MiB`).
fn byte_ticks(max: f64) -> (f64, Vec<(f64, String)>) {
    const UNITS: [(&str, f64); 5] = [
        ("B", 1.0),
        ("KiB", 1024.0),
        ("MiB", 1048576.0),
        ("GiB", 1073741824.0),
        ("TiB", 1099511627776.0),
    ];
    let max = max.max(1.0);
    let (name, size) = UNITS
        .iter()
        .rev()
        .find(|(_, size)| max / size >= 1.0)
        .copied()
        .unwrap_or(UNITS[0]);
    let step = nice_step(max / size, 5.0);
    let mut ticks = Vec::new();
    let mut v = 0.0;
    while v <= max / size + step * 0.999 {
        ticks.push((v * size, format!("{} {name}", trim_number(v))));
        v += step;
        if ticks.len() > 20 {
            break;
        }
    }
    let top = ticks.last().map_or(max, |t| t.0.max(max));
    (top, ticks)
}

/// Tick values in nanoseconds in one time unit, the unit's name.
fn time_ticks(max_ns: f64) -> (f64, &'static str, Vec<(f64, String)>) {
    let (unit, size) = if max_ns >= 1e9 {
        ("s", 1e9)
    } else if max_ns >= 1e6 {
        ("ms", 1e6)
    } else if max_ns >= 1e3 {
        ("µs", 1e3)
    } else {
        ("ns", 1.0)
    };
    let max = (max_ns / size).max(1e-9);
    let step = nice_step(max, 8.0);
    let mut ticks = Vec::new();
    let mut v = 0.0;
    while v <= max + step * 0.999 {
        ticks.push((v * size, trim_number(v)));
        v += step;
        if ticks.len() > 20 {
            break;
        }
    }
    let top = ticks.last().map_or(max_ns, |t| t.0.max(max_ns));
    (top, unit, ticks)
}

/// `313.1 MiB`, for labels on the chart.
fn short(n: f64) -> String {
    format!("{:.1}", Bytes::rounded(n))
}

fn seconds(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else {
        format!("{:.1} ms", ns / 1e6)
    }
}

/// A step line through the levels (a level holds until the next sample).
fn step_line(
    points: &[PlotPoint],
    pick: fn(&PlotPoint) -> Option<u64>,
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
) -> String {
    let mut out = String::new();
    let mut last: Option<u64> = None;
    for p in points {
        if let Some(v) = pick(p) {
            if let Some(l) = last {
                let _ = write!(out, "{:.1},{:.1} ", x(p.t_ns as f64), y(l as f64));
            }
            let _ = write!(out, "{:.1},{:.1} ", x(p.t_ns as f64), y(v as f64));
            last = Some(v);
        }
    }
    out.trim_end().to_string()
}

/// One axis: its ticks (value, label), its title and where a value lands on the page.
struct Axis<'a> {
    ticks: &'a [(f64, String)],
    title: &'a str,
    at: &'a dyn Fn(f64) -> f64,
}

/// Axes, grid and tick labels of a chart.
fn axes(s: &mut String, a: &Area, xa: Axis, ya: Axis) {
    let (x_ticks, y_ticks, x, y, x_title, y_title) =
        (xa.ticks, ya.ticks, xa.at, ya.at, xa.title, ya.title);
    let _ = write!(
        s,
        r##"<rect x="{}" y="{}" width="{:.1}" height="{:.1}" fill="#fcfcfc" stroke="#bbb"/>"##,
        a.left,
        a.top,
        a.plot_width(),
        a.plot_height()
    );
    for (v, label) in y_ticks {
        let yy = y(*v);
        let _ = write!(
            s,
            r##"<line x1="{}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" font-size="11" text-anchor="end" fill="#444">{}</text>"##,
            a.left,
            a.width - a.right,
            a.left - 6.0,
            yy + 4.0,
            esc(label)
        );
    }
    for (v, label) in x_ticks {
        let xx = x(*v);
        let base = a.height - a.bottom;
        let _ = write!(
            s,
            r##"<line x1="{xx:.1}" y1="{base:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#888"/><text x="{xx:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#444">{}</text>"##,
            base + 5.0,
            base + 18.0,
            esc(label)
        );
    }
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle" fill="#222">{}</text>"##,
        a.left + a.plot_width() / 2.0,
        a.height - 12.0,
        esc(x_title)
    );
    let _ = write!(
        s,
        r##"<text transform="translate(16 {:.1}) rotate(-90)" font-size="12" text-anchor="middle" fill="#222">{}</text>"##,
        a.top + a.plot_height() / 2.0,
        esc(y_title)
    );
}

/// One legend entry (HTML, under the chart).
fn legend_item(out: &mut String, colour: &str, dashed: bool, text: &str) {
    let style = if dashed { "dashed" } else { "solid" };
    let _ = write!(
        out,
        r#"<li><span class="sw" style="border-top:3px {style} {colour}"></span>{}</li>"#,
        esc(text)
    );
}

/// The timeline of one profile and its legend.
fn timeline(e: &ProfileEntry) -> String {
    let a = Area::CHART;
    let series_max = |pts: &[PlotPoint]| {
        pts.iter()
            .flat_map(|p| [p.allocated, p.reserved])
            .flatten()
            .max()
            .unwrap_or(0)
    };
    let t_max = e
        .plot
        .iter()
        .map(|p| p.t_ns)
        .chain(e.markers.iter().filter_map(|m| m.end_ns))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let y_data = series_max(&e.plot).max(
        e.markers
            .iter()
            .map(|m| m.level_after.unwrap_or(m.bytes))
            .max()
            .unwrap_or(0),
    );
    let (y_top, y_ticks) = byte_ticks(y_data as f64);
    let (x_top, unit, x_ticks) = time_ticks(t_max);
    let x = |t: f64| a.left + (t.max(0.0) / x_top) * a.plot_width();
    let y = |v: f64| a.height - a.bottom - (v / y_top) * a.plot_height();
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" class="chart" role="img" aria-label="memory over time">"#,
        a.width, a.height
    );
    let x_title = format!("time since the first sample ({unit})");
    axes(
        &mut s,
        &a,
        Axis {
            ticks: &x_ticks,
            title: &x_title,
            at: &x,
        },
        Axis {
            ticks: &y_ticks,
            title: "memory",
            at: &y,
        },
    );
    let mut legend = String::new();

    // Hot allocations: a band from allocation to free, at the level it was allocated on.
    for m in &e.markers {
        let colour = BAND_COLOURS[m.hot % BAND_COLOURS.len()];
        let x0 = x(m.start_ns as f64);
        let x1 = x(m.end_ns.unwrap_or(t_max as i64) as f64).max(x0 + 2.0);
        let level = m.level_after.unwrap_or(m.bytes);
        let y0 = y(level as f64);
        let y1 = y(level.saturating_sub(m.bytes) as f64);
        let _ = write!(
            s,
            r#"<rect class="hot" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="{colour}" fill-opacity="0.28" stroke="{colour}"><title>{}</title></rect>"#,
            x1 - x0,
            (y1 - y0).max(1.0),
            esc(&m.title)
        );
        if x1 - x0 >= 16.0 && y1 - y0 >= 12.0 {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="{colour}">#{}</text>"#,
                x0 + 3.0,
                y0 + 12.0,
                m.hot + 1
            );
        }
    }
    for (i, h) in e.report.hot.iter().enumerate() {
        if !e.markers.iter().any(|m| m.hot == i) {
            continue;
        }
        legend_item(
            &mut legend,
            BAND_COLOURS[i % BAND_COLOURS.len()],
            false,
            &format!(
                "#{} {} at {}: {} x{}",
                i + 1,
                h.op.as_deref().unwrap_or("allocation"),
                hot_site(h),
                short(h.bytes as f64),
                h.count
            ),
        );
    }

    let has_reserved = e.plot.iter().any(|p| p.reserved.is_some_and(|r| r > 0));
    let allocated = step_line(&e.plot, |p| p.allocated, &x, &y);
    if !allocated.is_empty() {
        let _ = write!(
            s,
            r#"<polyline class="allocated" points="{allocated}" fill="none" stroke="{ALLOCATED}" stroke-width="1.8"><title>allocated</title></polyline>"#
        );
        legend_item(&mut legend, ALLOCATED, false, "allocated (measured)");
    }
    if has_reserved {
        let reserved = step_line(&e.plot, |p| p.reserved, &x, &y);
        let _ = write!(
            s,
            r#"<polyline class="reserved" points="{reserved}" fill="none" stroke="{RESERVED}" stroke-width="1.2"><title>reserved</title></polyline>"#
        );
        legend_item(&mut legend, RESERVED, false, "reserved");
    }
    if let Some(fe) = e.report.fix_effects.first()
        && !e.plot_after_fix.is_empty()
    {
        let after = step_line(&e.plot_after_fix, |p| p.allocated, &x, &y);
        let _ = write!(
            s,
            r#"<polyline class="after-fix" points="{after}" fill="none" stroke="{AFTER_FIX}" stroke-width="1.8" stroke-dasharray="6 4"><title>after the fix</title></polyline>"#
        );
        legend_item(
            &mut legend,
            AFTER_FIX,
            true,
            &format!(
                "after fixing {}:{} (peak {}, -{:.1}%)",
                fe.file,
                fe.line,
                short(fe.peak_after_fix_bytes as f64),
                fe.saved_percent()
            ),
        );
    }
    // The peak: a marker with its value and time.
    if let Some(p) = e
        .plot
        .iter()
        .filter(|p| p.allocated.is_some())
        .max_by_key(|p| (p.allocated, std::cmp::Reverse(p.t_ns)))
        && let Some(v) = p.allocated
    {
        let (px, py) = (x(p.t_ns as f64), y(v as f64));
        let label = format!("peak {} at {}", short(v as f64), seconds(p.t_ns as f64));
        let anchor = if px > a.left + a.plot_width() * 0.7 {
            "end"
        } else {
            "start"
        };
        let dx = if anchor == "end" { -8.0 } else { 8.0 };
        let _ = write!(
            s,
            r##"<circle class="peak" cx="{px:.1}" cy="{py:.1}" r="4.5" fill="#fff" stroke="#000" stroke-width="1.5"/><text x="{:.1}" y="{:.1}" font-size="12" font-weight="bold" text-anchor="{anchor}" fill="#000">{}</text>"##,
            px + dx,
            (py - 6.0).max(a.top + 12.0),
            esc(&label)
        );
    }
    s.push_str("</svg>");
    format!("{s}\n<ul class=\"legend\">{legend}</ul>")
}

/// Peak against the dimension: measured points, the fit up to the predicted value, the
/// capacity, and the same after the top fix.
fn scaling_chart(sc: &Scaling) -> Option<String> {
    let a = Area::CHART;
    let target = sc.prediction.as_ref().map(|p| p.value);
    let capacity = sc.prediction.as_ref().and_then(|p| p.capacity_bytes);
    let xs: Vec<f64> = sc.peaks.iter().map(|p| p.0).chain(target).collect();
    let x_min = xs.iter().copied().fold(f64::INFINITY, f64::min).min(0.0);
    let x_max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !x_max.is_finite() || x_max <= x_min {
        return None;
    }
    let fit = |x: f64| sc.peak_bytes_per_unit * x + sc.peak_intercept;
    let mut y_data: f64 = sc.peaks.iter().map(|p| p.1 as f64).fold(0.0, f64::max);
    y_data = y_data.max(fit(x_max));
    if let Some(c) = capacity {
        y_data = y_data.max(c as f64);
    }
    let (y_top, y_ticks) = byte_ticks(y_data * 1.05);
    let step = nice_step(x_max - x_min, 6.0).max(1.0);
    let mut x_ticks = Vec::new();
    let mut v = x_min;
    while v <= x_max + step * 0.001 {
        x_ticks.push((v, trim_number(v)));
        v += step;
    }
    let x_top = x_ticks.last().map_or(x_max, |t| t.0.max(x_max));
    let x = |v: f64| a.left + ((v - x_min) / (x_top - x_min)) * a.plot_width();
    let y = |v: f64| a.height - a.bottom - (v.max(0.0) / y_top) * a.plot_height();
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" class="chart" role="img" aria-label="peak against {}">"#,
        a.width,
        a.height,
        esc(&sc.dimension)
    );
    axes(
        &mut s,
        &a,
        Axis {
            ticks: &x_ticks,
            title: &sc.dimension,
            at: &x,
        },
        Axis {
            ticks: &y_ticks,
            title: "peak allocated",
            at: &y,
        },
    );
    let mut legend = String::new();
    let line_to = x_max;
    let first = sc.peaks.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let _ = write!(
        s,
        r#"<line class="fit" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{ALLOCATED}" stroke-width="1.5"/>"#,
        x(first),
        y(fit(first)),
        x(line_to),
        y(fit(line_to))
    );
    for (v, peak) in &sc.peaks {
        let _ = write!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4.5" fill="{ALLOCATED}"><title>{}={}: {}</title></circle>"#,
            x(*v),
            y(*peak as f64),
            esc(&sc.dimension),
            trim_number(*v),
            esc(&format!("{:#}", Bytes(*peak)))
        );
    }
    legend_item(
        &mut legend,
        ALLOCATED,
        false,
        "peak: measured (dots) and fitted",
    );
    if let Some(af) = &sc.after_fix {
        let fit_after = |v: f64| af.peak_after_fix_bytes_per_unit * v + af.peak_after_fix_intercept;
        let _ = write!(
            s,
            r#"<line class="fit-after-fix" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{AFTER_FIX}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
            x(first),
            y(fit_after(first)),
            x(line_to),
            y(fit_after(line_to))
        );
        for (v, peak) in &af.peaks_after_fix {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{AFTER_FIX}"/>"#,
                x(*v),
                y(*peak as f64)
            );
        }
        legend_item(
            &mut legend,
            AFTER_FIX,
            true,
            &format!("peak after fixing {}:{}", af.file, af.line),
        );
        if let (Some(t), Some(p)) = (target, af.predicted_peak_after_fix_bytes) {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="none" stroke="{AFTER_FIX}" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end" fill="{AFTER_FIX}">after fix {}</text>"#,
                x(t),
                y(p),
                x(t) - 10.0,
                y(p) - 10.0,
                esc(&short(p))
            );
        }
    }
    if let Some(p) = &sc.prediction {
        let _ = write!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="none" stroke="{ALLOCATED}" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end" fill="{ALLOCATED}">predicted {} at {}={}</text>"#,
            x(p.value),
            y(p.peak_bytes),
            x(p.value) - 8.0,
            y(p.peak_bytes) - 8.0,
            esc(&short(p.peak_bytes)),
            esc(&p.name),
            trim_number(p.value)
        );
    }
    if let Some(c) = capacity {
        let _ = write!(
            s,
            r#"<line class="capacity" x1="{}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{CAPACITY}" stroke-width="1.5" stroke-dasharray="3 3"/><text x="{:.1}" y="{:.1}" font-size="12" fill="{CAPACITY}">capacity {}</text>"#,
            a.left,
            y(c as f64),
            a.width - a.right,
            y(c as f64),
            a.left + 6.0,
            y(c as f64) - 5.0,
            esc(&short(c as f64))
        );
        legend_item(&mut legend, CAPACITY, true, "capacity");
    }
    s.push_str("</svg>");
    Some(format!("{s}\n<ul class=\"legend\">{legend}</ul>"))
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px}\
.chart{width:100%;height:auto;display:block}\
.legend{list-style:none;padding:0;margin:.3em 0 1em;font-size:13px;display:flex;flex-wrap:wrap;gap:.3em 1.4em}\
.scroll{overflow-x:auto}.sw{display:inline-block;width:22px;margin-right:6px;vertical-align:middle}\
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}\
code{background:#f3f3f3;padding:0 3px}.mb{color:#d62728;font-weight:bold}pre{background:#f6f6f6;padding:8px;overflow:auto}";

pub fn write_html(out: &mut dyn Write, o: &ProfileOutput) -> io::Result<()> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>oomlint profile</title><style>{STYLE}</style></head><body>\n<h1>oomlint profile</h1>\n"
    );
    for e in &o.profiles {
        let r = &e.report;
        let _ = writeln!(h, "<section><h2>{}</h2>", esc(&entry_title(e)));
        if let Some(p) = &r.peak {
            let _ = writeln!(
                h,
                "<p><b>Peak</b> {}: allocated {}{}</p>",
                esc(&p.component),
                esc(&format!("{:#}", Bytes(p.allocated_bytes))),
                p.reserved_bytes
                    .map(|v| format!(", reserved {}", esc(&format!("{:#}", Bytes(v)))))
                    .unwrap_or_default()
            );
        }
        if let Some(st) = &r.static_memory {
            let _ = writeln!(
                h,
                "<p><b>Static</b> {} held from before the step to the end (weights, inputs, caches); dynamic peak {}</p>",
                esc(&format!("{:#}", Bytes(st.static_bytes))),
                esc(&format!("{:#}", Bytes(st.dynamic_peak_bytes)))
            );
        }
        if let Some(g) = &r.gap {
            let _ = writeln!(
                h,
                "<p><b>Gap</b> reserved − allocated at the peak {}{}</p>",
                esc(&format!("{:#}", Bytes(g.reserved_minus_allocated_bytes))),
                g.app_minus_pta_bytes
                    .map(|d| format!("; APP − PTA {}", esc(&format!("{:#}", Bytes(d)))))
                    .unwrap_or_default()
            );
        }
        if let Some(c) = r.component_memory_bytes {
            let _ = writeln!(
                h,
                "<p><b>CANN module memory</b> {}</p>",
                esc(&Bytes(c).mib())
            );
        }
        for fe in &r.fix_effects {
            let _ = writeln!(
                h,
                "<p><b>What the fix buys</b>: fixing {}:{} lowers the peak from {} to {} (−{:.1}%)</p>",
                esc(&fe.file),
                fe.line,
                esc(&short(fe.peak_bytes as f64)),
                esc(&short(fe.peak_after_fix_bytes as f64)),
                fe.saved_percent()
            );
        }
        if !e.plot.is_empty() {
            h.push_str(&timeline(e));
        }
        h.push_str("\n<div class=\"scroll\"><table><tr><th>#</th><th>bytes × calls</th><th>live at the peak</th><th>op</th><th>input</th><th>line</th><th>static finding</th></tr>\n");
        for (i, hot) in r.hot.iter().enumerate() {
            let src = e.sources.get(i).and_then(Option::as_ref);
            let line = match src {
                Some(s) => format!("{}:{} <code>{}</code>", esc(&s.file), s.line, esc(&s.text)),
                None => esc(&hot_site(hot)),
            };
            let finding = src
                .map(|s| {
                    s.findings
                        .iter()
                        .map(|f| {
                            format!(
                                "{} {}{}",
                                esc(f.code),
                                esc(&f.message),
                                f.help
                                    .as_ref()
                                    .map(|x| format!("<br>fix: {}", esc(x)))
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("<br>")
                })
                .unwrap_or_default();
            let colour = BAND_COLOURS[i % BAND_COLOURS.len()];
            let _ = writeln!(
                h,
                "<tr><td><span style=\"color:{colour}\">■</span> {}</td><td>{} × {}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{line}</td><td>{finding}</td></tr>",
                i + 1,
                esc(&format!("{:#}", Bytes(hot.bytes))),
                hot.count,
                esc(&short(hot.live_at_peak_bytes as f64)),
                esc(hot.op.as_deref().unwrap_or("allocation")),
                if hot.materialized_broadcast {
                    " <span class=\"mb\">materialized broadcast</span>"
                } else {
                    ""
                },
                esc(&input_text(hot))
            );
        }
        h.push_str("</table></div></section>\n");
    }
    if o.scaling.is_some() || !o.notes.is_empty() {
        h.push_str("<section><h2>Scaling and prediction</h2>\n");
        if let Some(chart) = o.scaling.as_ref().and_then(scaling_chart) {
            h.push_str(&chart);
        }
        let mut text = Vec::new();
        let scaling_only = ProfileOutput {
            profiles: Vec::new(),
            scaling: o.scaling.clone(),
            notes: o.notes.clone(),
        };
        write_text(&mut text, &scaling_only)?;
        let _ = writeln!(
            h,
            "<pre>{}</pre></section>",
            esc(&String::from_utf8_lossy(&text))
        );
    }
    h.push_str("</body></html>\n");
    out.write_all(h.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_steps() {
        assert_eq!(nice_step(10.0, 5.0), 2.0);
        assert_eq!(nice_step(313.0, 5.0), 100.0);
        assert_eq!(nice_step(1.7, 8.0), 0.25);
        let (_, ticks) = byte_ticks(328_335_360.0);
        let labels: Vec<&str> = ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(
            labels,
            ["0 MiB", "100 MiB", "200 MiB", "300 MiB", "400 MiB"]
        );
        let (_, unit, ticks) = time_ticks(1.728e9);
        assert_eq!(unit, "s");
        assert_eq!(ticks[1].1, "0.25");
        assert_eq!(trim_number(2.50), "2.5");
        assert_eq!(short(131_203_072.0), "125.1 MiB");
    }
}
