//! Periodic samplers: per-flow throughput and switch egress queue depths. They run on their
//! own timer event and cost nothing when their interval is off.

use super::Sim;
use crate::engine::Event;
use crate::units::Time;

impl Sim {
    pub(crate) fn on_sample(&mut self) {
        let now = self.now();
        if now >= self.next_tput_sample {
            self.sample_throughput(now);
            let i = self.scenario.output.throughput_interval.expect("scheduled");
            self.next_tput_sample = now + i;
        }
        if now >= self.next_queue_sample {
            self.sample_queues(now);
            let i = self
                .scenario
                .output
                .queue_sample_interval
                .expect("scheduled");
            self.next_queue_sample = now + i;
        }
        let next = self.next_tput_sample.min(self.next_queue_sample);
        if next <= self.end {
            self.q.schedule(next, Event::Sample);
        }
    }

    fn sample_throughput(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last_sample);
        if dt == Time::ZERO {
            return;
        }
        let last = self.last_sample;
        for (i, f) in self.flows.iter_mut().enumerate() {
            let active = f.start < now && f.sq.done_at.is_none_or(|d| d > last);
            if active {
                let bytes = f.c.delivered.saturating_sub(f.c.delivered_at_sample);
                let gbps = bytes as f64 * 8.0 / (dt.ps() as f64 * 1e-12) * 1e-9;
                self.throughput.push((now, i as u32, gbps));
                let (rate, window) = (f.sq.cc.rate(), f.sq.cc.window());
                if rate.is_some() || window.is_some() {
                    let gbps = rate.map_or(f64::NAN, |r| r.gbps_f64());
                    self.rate_samples
                        .push((now, i as u32, gbps, window.unwrap_or(0)));
                }
            }
            f.c.delivered_at_sample = f.c.delivered;
        }
        self.last_sample = now;
    }

    fn sample_queues(&mut self, now: Time) {
        for sw in &self.switches {
            for &p in &sw.ports {
                let port = &self.ports[p as usize];
                let mut m = port.nonempty;
                while m != 0 {
                    let q = m.trailing_zeros() as u8;
                    m &= m - 1;
                    let bytes = sw.mmu.queue_bytes(port.local as usize, q);
                    self.queue_samples.push((now, p, q, bytes));
                }
            }
        }
    }

    /// A last throughput sample at the end of the run, so the series covers it.
    pub(crate) fn sample_final(&mut self) {
        let now = self.now();
        if self.scenario.output.throughput_interval.is_some() && now > self.last_sample {
            self.sample_throughput(now);
        }
    }
}
