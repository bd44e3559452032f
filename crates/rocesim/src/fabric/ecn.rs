//! The congestion point at a switch egress: RED/WRED marking on queue depth (at enqueue or
//! dequeue), or Liu et al.'s RCM detection (1a root/victim, 1b), and the congestion
//! statistics of each marking queue (Liu et al. 2015 §IV.6).

use rand::RngExt;

use super::params::{Detection, EcnParams, MarkOn, VICTIM_WINDOW};
use super::pfc::EgressPause;
use super::port::QEntry;
use crate::engine::rng::SimRng;
use crate::engine::Ctx;
use crate::ids::{PortId, QueueId};
use crate::monitor::Monitor;
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
pub fn red_decide(e: &EcnParams, q: u64, rng: &mut SimRng) -> bool {
    let p = red_probability(e, q);
    p > 0.0 && (p >= 1.0 || rng.random::<f64>() < p)
}

/// A switch's ECN marking: how congestion is detected, and the switch's random stream for
/// RED. Which queues mark is each port's [`super::port::Port::ecn_queues`].
#[derive(Debug)]
pub struct EcnMarker {
    /// How congestion is detected.
    pub detection: Detection,
    /// Marking parameters, if configured.
    pub params: Option<EcnParams>,
    /// The switch's random stream (RED marking).
    pub rng: SimRng,
}

impl EcnMarker {
    /// Does queue `q` of a port whose marking queues are `ecn_queues` (its
    /// [`super::port::Port::ecn_queues`]) mark? (A bit test on the hot path; 0 = none, and
    /// the marking code is skipped.)
    #[inline]
    pub fn marks(&self, ecn_queues: u8, q: QueueId) -> Option<EcnParams> {
        if ecn_queues & q.bit() == 0 {
            return None;
        }
        self.params
    }

    /// A packet of `size` bytes joined egress queue `q` of port `out`; the queue now holds
    /// `depth` bytes, this packet included.
    #[allow(clippy::too_many_arguments)]
    pub fn on_enqueue(
        &mut self,
        out: PortId,
        q: QueueId,
        e: &EcnParams,
        pkt_id: u32,
        size: u64,
        depth: u64,
        ctx: &mut Ctx,
    ) {
        let cp = Monitor::cp_index(out, q);
        cp_update(ctx, cp, depth >= e.kmin.0);
        if self.detection != Detection::Wred || e.mark_on != MarkOn::Enqueue {
            return;
        }
        if red_decide(e, depth - size, &mut self.rng) {
            mark(out, q, pkt_id, ctx);
        }
    }

    /// Entry `en` left egress queue `q` of port `out` (whose pause state is `pause`); `depth`
    /// bytes remain. `pg_bytes` reads the occupancy of the entry's ingress PG (RCM-1b).
    #[allow(clippy::too_many_arguments)]
    pub fn on_dequeue(
        &mut self,
        out: PortId,
        q: QueueId,
        e: &EcnParams,
        en: &QEntry,
        depth: u64,
        pause: &EgressPause,
        pg_bytes: impl FnOnce() -> u64,
        ctx: &mut Ctx,
    ) {
        let cp = Monitor::cp_index(out, q);
        cp_update(ctx, cp, depth >= e.kmin.0);
        if self.detection == Detection::Wred && e.mark_on == MarkOn::Enqueue {
            return;
        }
        let before = depth + en.bytes() as u64;
        let mark_it = match self.detection {
            Detection::Wred => {
                if e.mark_on != MarkOn::Dequeue {
                    return;
                }
                red_decide(e, depth, &mut self.rng)
            }
            Detection::RcmRoot | Detection::RcmRootVictim => {
                if before < e.kmin.0 {
                    return;
                }
                let victim = pause.is_paused(en.tc().0)
                    || ctx.now.saturating_sub(pause.until[en.tc().idx()]) < VICTIM_WINDOW;
                !victim || self.detection == Detection::RcmRootVictim
            }
            Detection::Rcm1b => {
                let oversubscribed = depth >= en.bytes() as u64;
                let point = &mut ctx.monitor.cps[cp];
                if !oversubscribed {
                    point.rcm1b_state = false;
                } else if pg_bytes() >= e.kmin.0 {
                    point.rcm1b_state = true;
                }
                point.rcm1b_state
            }
        };
        if mark_it {
            mark(out, q, en.pkt(), ctx);
        }
    }
}

/// Track a congestion point's state; the record is touched only when it changes.
#[inline]
fn cp_update(ctx: &mut Ctx, cp: usize, congested: bool) {
    let m = &mut ctx.monitor;
    if m.cp_state[cp] != congested {
        m.cp_state[cp] = congested;
        m.cps[cp].update(congested, ctx.now);
    }
}

/// Set CE on packet `pkt_id` (if ECN-capable) and count it at queue `q` of port `out`.
fn mark(out: PortId, q: QueueId, pkt_id: u32, ctx: &mut Ctx) {
    let pkt = ctx.packets.get_mut(pkt_id);
    if pkt.ecn == ecn::NOT_ECT {
        return;
    }
    pkt.ecn = ecn::CE;
    let flow = pkt.flow;
    let m = &mut ctx.monitor;
    m.port_queue[out.idx()][q].ecn_marked += 1;
    m.totals.ecn_marked += 1;
    let cp_id = Monitor::cp_index(out, q) as u32;
    let cp = &mut m.cps[cp_id as usize];
    cp.marked += 1;
    let last = &mut m.flow_cps[flow];
    if !last.contains(&cp_id) {
        last.rotate_right(1);
        last[0] = cp_id;
        let conn = ctx.conns.get(crate::ids::FlowId(flow));
        cp.add_pair(conn.src, conn.dst);
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
