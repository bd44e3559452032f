//! The progress bar on stderr: simulated time, events/s and ETA, for runs longer than ~2 s.
//! Off when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use rocesim::sim::Progress;

/// Shows progress once a run has taken more than this long.
const SHOW_AFTER: Duration = Duration::from_secs(2);

/// A lazily shown progress bar.
pub struct Bar {
    enabled: bool,
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar that may show itself later (never when `quiet` or stderr is not a terminal).
    pub fn new(quiet: bool) -> Self {
        Bar {
            enabled: !quiet && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    /// Report progress `p` after `elapsed` wall time.
    pub fn update(&mut self, p: Progress, elapsed: Duration) {
        if !self.enabled || elapsed < SHOW_AFTER {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(p.end.ns().max(1));
            b.set_style(
                ProgressStyle::with_template("{bar:30} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        bar.set_position(p.now.ns().min(p.end.ns()));
        let secs = elapsed.as_secs_f64().max(1e-9);
        let rate = p.events as f64 / secs;
        // ETA from simulated-time progress so far (simulated ns per wall second).
        let done = p.now.ns().min(p.end.ns()) as f64;
        let eta = if done > 0.0 {
            (p.end.ns() as f64 - done) / (done / secs)
        } else {
            f64::NAN
        };
        bar.set_message(format!(
            "sim {:.3} ms / {:.3} ms, {:.2} M events/s, ETA {:.0} s",
            p.now.ns() as f64 * 1e-6,
            p.end.ns() as f64 * 1e-6,
            rate * 1e-6,
            eta
        ));
    }

    /// Remove the bar.
    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
