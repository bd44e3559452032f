//! Watching a run from Python while the GIL is released: now and then the run takes the GIL
//! back, lets Python handle pending signals (Ctrl-C raises `KeyboardInterrupt` there) and calls
//! the progress callback. An exception stops the run at its next check; it is kept and
//! returned once the partial results are in.

use std::time::Duration;

use pyo3::prelude::*;
use rocesim::sim::Progress;

/// The state of one watched run.
pub struct Watch {
    callback: Option<Py<PyAny>>,
    interval: Duration,
    next: Duration,
    error: Option<PyErr>,
}

impl Watch {
    /// Calls `callback(now_ns, end_ns, events)` every `interval_s` seconds of wall time.
    pub fn new(callback: Option<Py<PyAny>>, interval_s: f64) -> Watch {
        let interval = Duration::from_secs_f64(interval_s.clamp(0.01, 60.0));
        Watch {
            callback,
            interval,
            next: Duration::ZERO,
            error: None,
        }
    }

    /// The `keep_going` of [`rocesim::run::run_sim`]: false once Python raised.
    pub fn keep_going(&mut self, p: Progress, elapsed: Duration) -> bool {
        if self.error.is_some() {
            return false;
        }
        if elapsed < self.next {
            return true;
        }
        self.next = elapsed + self.interval;
        let res = Python::attach(|py| {
            py.check_signals()?;
            if let Some(cb) = &self.callback {
                cb.call1(py, (p.now.ns(), p.end.ns(), p.events))?;
            }
            Ok::<(), PyErr>(())
        });
        if let Err(e) = res {
            self.error = Some(e);
            return false;
        }
        true
    }

    /// Checks for Ctrl-C once (for waits outside a run, e.g. a sweep); false once Python raised.
    pub fn poll(&mut self, done: u64, total: u64) -> bool {
        if self.error.is_some() {
            return false;
        }
        let res = Python::attach(|py| {
            py.check_signals()?;
            if let Some(cb) = &self.callback {
                cb.call1(py, (done, total, 0u64))?;
            }
            Ok::<(), PyErr>(())
        });
        if let Err(e) = res {
            self.error = Some(e);
            return false;
        }
        true
    }

    /// The polling interval.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// The exception that stopped the run, if one did.
    pub fn into_error(self) -> Option<PyErr> {
        self.error
    }
}
