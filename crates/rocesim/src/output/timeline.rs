//! The pause timeline: one row per (node, port, priority) that saw a pause, with bars for the
//! time it was pausing its peer (tx, upper half) and being paused (rx, lower half).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::monitor::{PfcDir, RunResults};

use super::fmt::esc;
use super::svg::{px, time_unit, truncate, x_axis, Axis, Scale, WIDTH};

/// Most rows drawn.
pub(crate) const MAX_ROWS: usize = 60;

const TX_COLOR: &str = "#e15759";
const RX_COLOR: &str = "#4e79a7";

/// Pause intervals of one (node, port, prio).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PauseRow {
    /// Node name.
    pub node: String,
    /// Port index.
    pub port: u32,
    /// Priority.
    pub prio: u8,
    /// Intervals [start, end) in ns during which this node was pausing its peer.
    pub tx: Vec<(u64, u64)>,
    /// Intervals during which this node was paused by its peer.
    pub rx: Vec<(u64, u64)>,
}

impl PauseRow {
    fn first_pause(&self) -> u64 {
        let a = self.tx.first().map_or(u64::MAX, |i| i.0);
        let b = self.rx.first().map_or(u64::MAX, |i| i.0);
        a.min(b)
    }
}

/// Turns the pause log into rows: an interval opens at a frame with quanta > 0 (refreshes while
/// open extend it) and closes at the next frame with quanta 0 in the same direction, or at `end_ns`.
/// Rows are ordered by their first pause (then node, port, prio); all rows are returned.
pub(crate) fn pause_rows(results: &RunResults, end_ns: u64) -> Vec<PauseRow> {
    let mut log: Vec<_> = results.pfc_log.iter().collect();
    log.sort_by_key(|r| r.time_ns); // stable: equal times keep log order
    type Key<'a> = (&'a str, u32, u8);
    let mut rows: BTreeMap<Key, (PauseRow, Option<u64>, Option<u64>)> = BTreeMap::new();
    for r in log {
        let entry = rows
            .entry((r.node.as_str(), r.port, r.prio))
            .or_insert_with(|| {
                (
                    PauseRow {
                        node: r.node.clone(),
                        port: r.port,
                        prio: r.prio,
                        ..PauseRow::default()
                    },
                    None,
                    None,
                )
            });
        let (row, open_tx, open_rx) = entry;
        let (open, list) = match r.direction {
            PfcDir::Tx => (open_tx, &mut row.tx),
            PfcDir::Rx => (open_rx, &mut row.rx),
        };
        if r.quanta > 0 {
            open.get_or_insert(r.time_ns);
        } else if let Some(start) = open.take() {
            list.push((start, r.time_ns));
        }
    }
    let mut out: Vec<PauseRow> = rows
        .into_values()
        .filter_map(|(mut row, open_tx, open_rx)| {
            if let Some(s) = open_tx {
                row.tx.push((s, end_ns.max(s)));
            }
            if let Some(s) = open_rx {
                row.rx.push((s, end_ns.max(s)));
            }
            (!row.tx.is_empty() || !row.rx.is_empty()).then_some(row)
        })
        .collect();
    out.sort_by(|a, b| {
        (a.first_pause(), &a.node, a.port, a.prio).cmp(&(b.first_pause(), &b.node, b.port, b.prio))
    });
    out
}

/// Joins intervals separated by less than `gap` ns (under half a pixel on the chart), so a row
/// has a bounded number of bars however many pauses it logged.
fn merge_close(list: &[(u64, u64)], gap: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(s, e) in list {
        match out.last_mut() {
            Some(last) if s <= last.1.saturating_add(gap) => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Renders the timeline (at most [`MAX_ROWS`] rows, earliest-paused first) as inline SVG, or
/// `None` when nothing was paused.
pub(crate) fn render_timeline(results: &RunResults) -> Option<String> {
    let last_log = results.pfc_log.iter().map(|r| r.time_ns).max().unwrap_or(0);
    let end_ns = results.sim_time_ns.max(last_log);
    let rows = pause_rows(results, end_ns);
    if rows.is_empty() {
        return None;
    }
    let shown = rows.len().min(MAX_ROWS);
    let (div, unit) = time_unit(end_ns as f64);
    let axis = Axis::fit([0.0, end_ns as f64 / div].into_iter(), Scale::Linear);
    let left = 170.0;
    let right = 30.0;
    let top = 44.0;
    let row_h = 14.0;
    let width = WIDTH - left - right;
    let height = shown as f64 * row_h;
    let total_h = top + height + 56.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg class="chart" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img"><title>Pause timeline</title><text x="{left}" y="20" class="title">Pause timeline ({shown} of {n} (node, port, prio) rows, earliest paused first)</text><rect x="{left}" y="28" width="12" height="8" fill="{tx}"/><text x="{l2}" y="36" class="legend">tx: this port sends pause (its ingress is congested)</text><rect x="{l3}" y="28" width="12" height="8" fill="{rx}"/><text x="{l4}" y="36" class="legend">rx: this port is paused (cannot send)</text>"##,
        w = WIDTH,
        h = px(total_h),
        left = px(left),
        l2 = px(left + 18.0),
        l3 = px(left + 340.0),
        l4 = px(left + 358.0),
        n = rows.len(),
        tx = TX_COLOR,
        rx = RX_COLOR,
    );
    let xpos = |ns: u64| left + axis.frac(ns as f64 / div).unwrap_or(0.0) * width;
    for (i, row) in rows.iter().take(shown).enumerate() {
        let y = top + i as f64 * row_h;
        if i % 2 == 1 {
            let _ = write!(
                svg,
                r##"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#f6f6f6"/>"##,
                x = px(left),
                y = px(y),
                w = px(width),
                h = px(row_h),
            );
        }
        let label = format!("{}:{} p{}", row.node, row.port, row.prio);
        let _ = write!(
            svg,
            r#"<text x="{x}" y="{y}" text-anchor="end" class="tick">{t}</text>"#,
            x = px(left - 6.0),
            y = px(y + row_h - 3.0),
            t = esc(&truncate(&label, 26)),
        );
        for (list, color, dy) in [(&row.tx, TX_COLOR, 1.0), (&row.rx, RX_COLOR, row_h / 2.0)] {
            for (s, e) in merge_close(list, end_ns / 2000) {
                let x0 = xpos(s);
                let w = (xpos(e) - x0).max(1.0);
                let _ = write!(
                    svg,
                    r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{c}"><title>{t}</title></rect>"#,
                    x = px(x0),
                    y = px(y + dy),
                    w = px(w),
                    h = px(row_h / 2.0 - 1.0),
                    c = color,
                    t = esc(&format!("{label}: {s}–{e} ns")),
                );
            }
        }
    }
    x_axis(
        &mut svg,
        &axis,
        left,
        width,
        top,
        height,
        &format!("time ({unit})"),
    );
    svg.push_str("</svg>");
    Some(with_counts(&svg, shown))
}

/// `svg` with `data-series` (rows) and `data-points` (bars drawn: the rects with a title) on
/// its root element, so a reader (or a test) can tell an empty plot.
fn with_counts(svg: &str, rows: usize) -> String {
    let bars = svg.matches("</title></rect>").count();
    let counts = format!(r#"role="img" data-series="{rows}" data-points="{bars}">"#);
    svg.replacen(r#"role="img">"#, &counts, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::PfcRecord;

    fn rec(t: u64, node: &str, dir: PfcDir, q: u16) -> PfcRecord {
        PfcRecord {
            time_ns: t,
            node: node.into(),
            port: 1,
            prio: 3,
            direction: dir,
            quanta: q,
        }
    }

    #[test]
    fn intervals_close_on_resume_or_end() {
        let r = RunResults {
            sim_time_ns: 1000,
            pfc_log: vec![
                rec(300, "S2", PfcDir::Tx, 65535),
                rec(100, "S1", PfcDir::Tx, 65535),
                rec(200, "S1", PfcDir::Tx, 65535), // refresh
                rec(400, "S1", PfcDir::Tx, 0),
                rec(500, "S1", PfcDir::Rx, 10),
            ],
            ..RunResults::default()
        };
        let rows = pause_rows(&r, 1000);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].node, "S1");
        assert_eq!(rows[0].tx, vec![(100, 400)]);
        assert_eq!(rows[0].rx, vec![(500, 1000)]);
        assert_eq!(rows[1].tx, vec![(300, 1000)]);
        assert!(render_timeline(&r).unwrap().contains("S1:1 p3"));
        assert_eq!(
            merge_close(&[(0, 10), (12, 20), (40, 50)], 5),
            vec![(0, 20), (40, 50)]
        );
    }
}
