//! A tiny SVG chart helper: line and scatter charts with linear or log axes, ticks, grid,
//! axis labels and a legend. Output is inline `<svg>` text (no external resources, no namespace
//! URL, which inline SVG in HTML does not need). Coordinates are printed with one decimal so the
//! text is deterministic.

use std::fmt::Write as _;

pub(crate) use super::axis::{byte_unit, px, time_unit, Axis};
use super::fmt::esc;

/// Readable, distinguishable series colours (Tableau 10 followed by six darker tones).
pub(crate) const PALETTE: [&str; 16] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f3b73", "#8c2d04", "#006d2c", "#54278f", "#636363", "#b15928",
];

/// Colour for the summary series ("other flows").
pub(crate) const OTHER_COLOR: &str = "#9e9e9e";

/// Most series a chart draws with their own legend entry.
pub(crate) const MAX_SERIES: usize = 16;

/// Chart width and height in pixels.
pub(crate) const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 380.0;
const LEFT: f64 = 74.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 52.0;

/// Axis scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// Linear; starts at 0 when every value is non-negative.
    Linear,
    /// Base-10 logarithmic; non-positive values are not drawn.
    Log,
}

/// How series are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Polylines.
    Line,
    /// Dots.
    Scatter,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// Legend text.
    pub name: String,
    /// CSS colour.
    pub color: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// A reference drawn over a chart's data.
#[derive(Clone, Debug)]
pub(crate) enum Mark {
    /// A dashed horizontal line at this y value (a percentile), labelled at its right end.
    HLine {
        /// The y value, in the chart's units.
        y: f64,
        /// Label (e.g. "p99 3.2").
        label: String,
    },
    /// A shaded band over the x range [from, to] (the warm-up window), labelled at its top.
    XBand {
        /// Start, in the chart's x units.
        from: f64,
        /// End, in the chart's x units.
        to: f64,
        /// Label.
        label: String,
    },
}

/// A chart to render.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    /// Title above the plot.
    pub title: String,
    /// X axis label (with unit).
    pub x_label: String,
    /// Y axis label (with unit).
    pub y_label: String,
    /// X scale.
    pub x_scale: Scale,
    /// Y scale.
    pub y_scale: Scale,
    /// Lines or dots.
    pub kind: Kind,
    /// Series (at most [`MAX_SERIES`] get a legend entry; callers summarise the rest).
    pub series: Vec<Series>,
    /// Extra line under the legend (e.g. "+ 12 more flows, summed").
    pub note: Option<String>,
    /// Percentile lines and shaded ranges drawn with the data.
    pub marks: Vec<Mark>,
}

/// Keeps at most about `max_points` points, preserving each bucket's minimum and maximum (in
/// their original order) so peaks stay visible.
pub(crate) fn decimate(points: &[(f64, f64)], max_points: usize) -> Vec<(f64, f64)> {
    if points.len() <= max_points || max_points < 4 {
        return points.to_vec();
    }
    let buckets = max_points / 2;
    let size = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(max_points + 2);
    for chunk in points.chunks(size) {
        let (mut imin, mut imax) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[imin].1 {
                imin = i;
            }
            if p.1 > chunk[imax].1 {
                imax = i;
            }
        }
        let (a, b) = (imin.min(imax), imin.max(imax));
        out.push(chunk[a]);
        if b != a {
            out.push(chunk[b]);
        }
    }
    out
}

/// Draws the x axis of a plot area (grid, ticks, labels, axis label). Shared with the timeline.
pub(crate) fn x_axis(
    svg: &mut String,
    axis: &Axis,
    left: f64,
    width: f64,
    top: f64,
    height: f64,
    label: &str,
) {
    let bottom = top + height;
    for (v, text) in &axis.ticks {
        let Some(f) = axis.frac(*v) else { continue };
        let x = left + f * width;
        let _ = write!(
            svg,
            r##"<line x1="{x}" y1="{t}" x2="{x}" y2="{b}" stroke="#e5e5e5"/><line x1="{x}" y1="{b}" x2="{x}" y2="{b5}" stroke="#333"/><text x="{x}" y="{ty}" text-anchor="middle" class="tick">{text}</text>"##,
            x = px(x),
            t = px(top),
            b = px(bottom),
            b5 = px(bottom + 5.0),
            ty = px(bottom + 18.0),
            text = esc(text),
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#333"/><text x="{cx}" y="{ly}" text-anchor="middle" class="axis">{label}</text>"##,
        l = px(left),
        r = px(left + width),
        b = px(bottom),
        cx = px(left + width / 2.0),
        ly = px(bottom + 38.0),
        label = esc(label),
    );
}

/// Renders a chart as an inline `<svg>` element.
pub(crate) fn render(chart: &Chart) -> String {
    let pw = WIDTH - LEFT - RIGHT;
    let ph = HEIGHT - TOP - BOTTOM;
    let xa = Axis::fit(
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
        chart.x_scale,
    );
    let ya = Axis::fit(
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1)),
        chart.y_scale,
    );
    let mut body = String::new();
    y_axis(&mut body, &ya, pw, ph, &chart.y_label);
    x_axis(&mut body, &xa, LEFT, pw, TOP, ph, &chart.x_label);
    bands(&mut body, chart, &xa, pw, ph);
    let mut drawn = 0;
    for s in &chart.series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter_map(|&(x, y)| Some((LEFT + xa.frac(x)? * pw, TOP + ph - ya.frac(y)? * ph)))
            .collect();
        drawn += pts.len();
        match chart.kind {
            Kind::Line => line_path(&mut body, s, &pts),
            Kind::Scatter => scatter(&mut body, s, &pts),
        }
    }
    hlines(&mut body, chart, &ya, pw, ph);
    legend(&mut body, chart, LEFT + pw + 16.0);
    // data-points: how many points were drawn, so a reader (or a test) can tell an empty plot.
    format!(
        r#"<svg class="chart" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" data-series="{ns}" data-points="{drawn}"><title>{t}</title><text x="{lx}" y="20" class="title">{t}</text>{body}</svg>"#,
        w = WIDTH,
        h = HEIGHT,
        lx = LEFT,
        ns = chart.series.len(),
        t = esc(&chart.title),
    )
}

/// The chart's shaded x ranges, clipped to the plot area, under the data.
fn bands(svg: &mut String, chart: &Chart, xa: &Axis, pw: f64, ph: f64) {
    for m in &chart.marks {
        let Mark::XBand { from, to, label } = m else {
            continue;
        };
        let (Some(a), Some(b)) = (xa.frac(*from), xa.frac(*to)) else {
            continue;
        };
        let (a, b) = (a.clamp(0.0, 1.0), b.clamp(0.0, 1.0));
        if b <= a {
            continue;
        }
        let _ = write!(
            svg,
            r##"<rect class="band" x="{x}" y="{y}" width="{w}" height="{h}" fill="#000" fill-opacity="0.06"/><text x="{tx}" y="{ty}" class="note">{l}</text>"##,
            x = px(LEFT + a * pw),
            y = px(TOP),
            w = px((b - a) * pw),
            h = px(ph),
            tx = px(LEFT + a * pw + 4.0),
            ty = px(TOP + 12.0),
            l = esc(label),
        );
    }
}

/// The chart's horizontal reference lines (inside the y range), over the data.
fn hlines(svg: &mut String, chart: &Chart, ya: &Axis, pw: f64, ph: f64) {
    let lines = chart.marks.iter().filter_map(|m| match m {
        Mark::HLine { y, label } => Some((y, label)),
        Mark::XBand { .. } => None,
    });
    // Labels alternate below and above their line, so two close lines (p50, p99) stay legible.
    for (i, (y, label)) in lines.enumerate() {
        let Some(f) = ya.frac(*y).filter(|f| (0.0..=1.0).contains(f)) else {
            continue;
        };
        let y = TOP + ph - f * ph;
        let _ = write!(
            svg,
            r##"<line class="mark" x1="{l}" y1="{y}" x2="{r}" y2="{y}" stroke="#c0392b" stroke-dasharray="5 4"/><text x="{tx}" y="{ty}" text-anchor="end" class="note">{t}</text>"##,
            l = px(LEFT),
            r = px(LEFT + pw),
            y = px(y),
            tx = px(LEFT + pw - 4.0),
            ty = px(if i % 2 == 0 { y + 12.0 } else { y - 4.0 }),
            t = esc(label),
        );
    }
}

/// The y axis of a plot area `pw` × `ph` px: grid lines, ticks and labels, the axis line and
/// its rotated `label`.
fn y_axis(svg: &mut String, ya: &Axis, pw: f64, ph: f64, label: &str) {
    for (v, text) in &ya.ticks {
        let Some(f) = ya.frac(*v) else { continue };
        let y = TOP + ph - f * ph;
        let _ = write!(
            svg,
            r##"<line x1="{l}" y1="{y}" x2="{r}" y2="{y}" stroke="#e5e5e5"/><line x1="{l5}" y1="{y}" x2="{l}" y2="{y}" stroke="#333"/><text x="{tx}" y="{ty}" text-anchor="end" class="tick">{text}</text>"##,
            l = px(LEFT),
            l5 = px(LEFT - 5.0),
            r = px(LEFT + pw),
            y = px(y),
            tx = px(LEFT - 8.0),
            ty = px(y + 4.0),
            text = esc(text),
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#333"/><text transform="translate(16 {cy}) rotate(-90)" text-anchor="middle" class="axis">{label}</text>"##,
        l = px(LEFT),
        t = px(TOP),
        b = px(TOP + ph),
        cy = px(TOP + ph / 2.0),
        label = esc(label),
    );
}

/// Series `s` as a polyline through `pts` (px); a dot for a single point (a polyline of one
/// point draws nothing); nothing when there are no points.
fn line_path(svg: &mut String, s: &Series, pts: &[(f64, f64)]) {
    if pts.is_empty() {
        return;
    }
    if let [(x, y)] = pts {
        let _ = write!(
            svg,
            r#"<circle cx="{}" cy="{}" r="2.5" fill="{c}"><title>{n}</title></circle>"#,
            px(*x),
            px(*y),
            c = esc(&s.color),
            n = esc(&s.name),
        );
        return;
    }
    let mut d = String::new();
    for (i, (x, y)) in pts.iter().enumerate() {
        let _ = write!(
            d,
            "{}{} {}",
            if i == 0 { "M" } else { " L" },
            px(*x),
            px(*y)
        );
    }
    let _ = write!(
        svg,
        r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="1.6" stroke-linejoin="round"><title>{n}</title></path>"#,
        c = esc(&s.color),
        n = esc(&s.name),
    );
}

/// Series `s` as a group of dots at `pts` (px).
fn scatter(svg: &mut String, s: &Series, pts: &[(f64, f64)]) {
    let _ = write!(
        svg,
        r#"<g fill="{c}" fill-opacity="0.7"><title>{n}</title>"#,
        c = esc(&s.color),
        n = esc(&s.name),
    );
    for (x, y) in pts {
        let _ = write!(svg, r#"<circle cx="{}" cy="{}" r="3"/>"#, px(*x), px(*y));
    }
    svg.push_str("</g>");
}

/// The legend at x = `lx` px: a swatch and name per series (at most [`MAX_SERIES`]), then the
/// chart's note.
fn legend(svg: &mut String, chart: &Chart, lx: f64) {
    let mut ly = TOP + 4.0;
    for s in chart.series.iter().take(MAX_SERIES) {
        let _ = write!(
            svg,
            r#"<rect x="{x}" y="{y}" width="12" height="12" fill="{c}"/><text x="{tx}" y="{ty}" class="legend">{n}</text>"#,
            x = px(lx),
            y = px(ly),
            c = esc(&s.color),
            tx = px(lx + 18.0),
            ty = px(ly + 10.0),
            n = esc(&truncate(&s.name, 28)),
        );
        ly += 17.0;
    }
    if let Some(note) = &chart.note {
        let _ = write!(
            svg,
            r#"<text x="{x}" y="{y}" class="legend note">{n}</text>"#,
            x = px(lx),
            y = px(ly + 10.0),
            n = esc(note),
        );
    }
}

/// Shortens `s` to at most `max` characters, ending with "…" when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimate_keeps_peak() {
        let pts: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, (i % 97) as f64)).collect();
        let d = decimate(&pts, 200);
        assert!(d.len() <= 202);
        assert!(d.iter().any(|p| p.1 == 96.0));
    }

    #[test]
    fn render_has_legend_and_no_urls() {
        let chart = Chart {
            title: "t<1>".into(),
            x_label: "time (µs)".into(),
            y_label: "Gb/s".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            kind: Kind::Line,
            series: vec![Series {
                name: "f0".into(),
                color: PALETTE[0].into(),
                points: vec![(0.0, 1.0), (1.0, 2.0)],
            }],
            note: None,
            marks: vec![
                Mark::HLine {
                    y: 1.5,
                    label: "p50 1.5".into(),
                },
                Mark::XBand {
                    from: 0.0,
                    to: 0.5,
                    label: "warm-up".into(),
                },
            ],
        };
        let s = render(&chart);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert!(s.contains(r#"data-points="2""#));
        // The axis spans 0..2 over 380 - 34 - 52 = 294 px: y = 1.5 sits at 34 + 294/4.
        assert!(s.contains(r#"y1="107.5""#) && s.contains(">p50 1.5</text>"));
        // The band covers half the unit x range (the axis is 0..1): half of 960 - 74 - 230.
        assert!(s.contains(r#"width="328""#) && s.contains(">warm-up</text>"));
        assert!(s.contains("t&lt;1&gt;") && s.contains(">f0</text>"));
        assert!(!s.contains("http"));
    }

    #[test]
    fn a_single_sample_is_drawn_as_a_dot() {
        let chart = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            kind: Kind::Line,
            series: vec![Series {
                name: "only".into(),
                color: PALETTE[0].into(),
                points: vec![(1.0, 1.0)],
            }],
            note: None,
            marks: Vec::new(),
        };
        let s = render(&chart);
        assert!(s.contains("<circle") && !s.contains("<path"), "{s}");
    }
}
