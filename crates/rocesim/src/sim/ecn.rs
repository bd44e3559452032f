//! The congestion point at a switch egress: RED/WRED marking on queue depth, or Liu et al.'s
//! RCM detection (1a root/victim, 1b), and the congestion statistics of each marking queue.

use rand::RngExt;

use super::Sim;
use crate::fabric::params::{Detection, EcnParams, MarkOn, VICTIM_WINDOW};
use crate::fabric::port::QEntry;
use crate::packet::ecn;

/// RED marking probability at depth `q` (bytes): 0 below Kmin, Pmax·(q − Kmin)/(Kmax − Kmin)
/// between, 1 at or above Kmax.
pub fn red_probability(e: &EcnParams, q: u64) -> f64 {
    if q < e.kmin.0 {
        0.0
    } else if q >= e.kmax.0 {
        1.0
    } else {
        e.pmax * (q - e.kmin.0) as f64 / (e.kmax.0 - e.kmin.0) as f64
    }
}

/// The RED decision for one packet at depth `q`: mark with [`red_probability`], drawing from
/// `rng` only when the probability is strictly between 0 and 1.
#[inline]
pub fn red_decide(e: &EcnParams, q: u64, rng: &mut crate::engine::rng::SimRng) -> bool {
    let p = red_probability(e, q);
    p > 0.0 && (p >= 1.0 || rng.random::<f64>() < p)
}

impl Sim {
    /// Does switch `s` mark queue `q`? (Cheap test on the hot path.)
    #[inline]
    pub(crate) fn marks(&self, s: u32, q: u8) -> Option<EcnParams> {
        let sw = &self.switches[s as usize];
        if sw.ecn_queues & (1 << q) == 0 {
            return None;
        }
        sw.ecn
    }

    /// A packet joined egress queue `q` of switch `s`'s port `out` (depth now `depth` bytes,
    /// this packet's `size` included).
    /// Track a congestion point's state; the record is touched only when it changes.
    #[inline]
    fn cp_update(&mut self, cp: usize, congested: bool) {
        if self.cp_state[cp] != congested {
            self.cp_state[cp] = congested;
            let now = self.now();
            self.cps[cp].update(congested, now);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ecn_on_enqueue(
        &mut self,
        s: u32,
        out: u32,
        q: u8,
        e: &EcnParams,
        pkt_id: u32,
        size: u64,
        depth: u64,
    ) {
        let cp = out as usize * 8 + q as usize;
        self.cp_update(cp, depth >= e.kmin.0);
        let sw = &mut self.switches[s as usize];
        if sw.detection != Detection::Wred || e.mark_on != MarkOn::Enqueue {
            return;
        }
        if red_decide(e, depth - size, &mut sw.rng) {
            self.mark(out, q, pkt_id);
        }
    }

    /// Entry `en` left egress queue `q` of switch `s`'s port `out`; `depth` bytes remain.
    pub(crate) fn ecn_on_dequeue(
        &mut self,
        s: u32,
        out: u32,
        q: u8,
        e: &EcnParams,
        en: &QEntry,
        depth: u64,
    ) {
        let cp = out as usize * 8 + q as usize;
        self.cp_update(cp, depth >= e.kmin.0);
        let now = self.now();
        let sw = &mut self.switches[s as usize];
        if sw.detection == Detection::Wred && e.mark_on == MarkOn::Enqueue {
            return;
        }
        let before = depth + en.bytes as u64;
        let mark = match sw.detection {
            Detection::Wred => {
                if e.mark_on != MarkOn::Dequeue {
                    return;
                }
                red_decide(e, depth, &mut sw.rng)
            }
            Detection::RcmRoot | Detection::RcmRootVictim => {
                if before < e.kmin.0 {
                    return;
                }
                let pause = &self.ports[out as usize].pause;
                let victim = pause.is_paused(en.tc)
                    || now.saturating_sub(pause.until[en.tc as usize]) < VICTIM_WINDOW;
                !victim || sw.detection == Detection::RcmRootVictim
            }
            Detection::Rcm1b => {
                let oversubscribed = depth >= en.bytes as u64;
                let cp = &mut self.cps[cp];
                if !oversubscribed {
                    cp.rcm1b_state = false;
                } else if sw.mmu.pg_bytes(en.in_local as usize, en.tc) >= e.kmin.0 {
                    cp.rcm1b_state = true;
                }
                cp.rcm1b_state
            }
        };
        if mark {
            self.mark(out, q, en.pkt);
        }
    }

    fn mark(&mut self, out: u32, q: u8, pkt_id: u32) {
        let pkt = self.arena.get_mut(pkt_id);
        if pkt.ecn == ecn::NOT_ECT {
            return;
        }
        pkt.ecn = ecn::CE;
        let flow = pkt.flow;
        self.counters[out as usize * 8 + q as usize].ecn_marked += 1;
        self.totals.ecn_marked += 1;
        let cp_id = out * 8 + q as u32;
        let cp = &mut self.cps[cp_id as usize];
        cp.marked += 1;
        let f = &mut self.flows[flow as usize];
        if !f.last_cps.contains(&cp_id) {
            f.last_cps.rotate_right(1);
            f.last_cps[0] = cp_id;
            cp.flows.push(flow);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    #[test]
    fn marked_fraction_follows_the_red_curve() {
        // VALIDATION.md §3.2: at a held depth q the marked fraction is 0 below Kmin,
        // Pmax·(q − Kmin)/(Kmax − Kmin) between, 1 at or above Kmax, within the binomial 99 %
        // interval over 10^5 packets. Kmin 5 KB, Kmax 200 KB, Pmax 0.2 (a large Pmax gives the
        // check power).
        let e = EcnParams {
            queues: 8,
            kmin: Bytes(5_000),
            kmax: Bytes(200_000),
            pmax: 0.2,
            mark_on: MarkOn::Enqueue,
        };
        let mut rng = crate::engine::rng::stream(1, crate::engine::rng::StreamKind::Switch, 0);
        let n = 100_000u32;
        for (q, expect) in [
            (0u64, 0.0),
            (4_999, 0.0),
            (24_500, 0.02),
            (102_500, 0.1),
            (180_500, 0.18),
            (200_000, 1.0),
            (500_000, 1.0),
        ] {
            let marked = (0..n).filter(|_| red_decide(&e, q, &mut rng)).count() as f64;
            let frac = marked / n as f64;
            let sd = (expect * (1.0 - expect) / n as f64).sqrt();
            assert!(
                (frac - expect).abs() <= 2.576 * sd + 1e-12,
                "q {q}: {frac} vs {expect}"
            );
        }
    }

    #[test]
    fn red_curve_is_piecewise_linear() {
        let e = EcnParams {
            queues: 8,
            kmin: Bytes(5_000),
            kmax: Bytes(200_000),
            pmax: 0.01,
            mark_on: MarkOn::Enqueue,
        };
        assert_eq!(red_probability(&e, 4_999), 0.0);
        assert_eq!(red_probability(&e, 5_000), 0.0);
        assert!((red_probability(&e, 102_500) - 0.005).abs() < 1e-12);
        assert_eq!(red_probability(&e, 200_000), 1.0);
    }
}
