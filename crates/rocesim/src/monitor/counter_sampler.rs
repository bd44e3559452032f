//! Switch counters over time: at every `output.counters_interval` the sampler copies, for
//! each switch (port, priority), the counters a SONiC switch exports to COUNTERS_DB (PFC
//! frames and pause time per priority, queue packets, bytes, occupancy and watermark, ingress
//! priority-group occupancy and drops). It reads the flat counter arrays the run keeps anyway
//! ([`Monitor`], the MMU), so the packet path is unchanged and costs nothing when off.

use super::recorder::Monitor;
use crate::fabric::switch::Switch;
use crate::ids::{PortId, Priority, QueueId};
use crate::units::Time;

/// One sample of one switch (port, priority). Cumulative counters count from the start of
/// the run, as COUNTERS_DB does; occupancies are the value at the sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterSnapshot {
    /// When the sample was taken.
    pub time: Time,
    /// The switch port.
    pub port: PortId,
    /// Priority (traffic class and ingress priority group).
    pub prio: Priority,
    /// The egress queue the priority maps to (`tc_to_queue`).
    pub queue: QueueId,
    /// PFC frames (quanta > 0) received on the port for this priority
    /// (`SAI_PORT_STAT_PFC_<p>_RX_PKTS`).
    pub pfc_rx: u64,
    /// PFC frames (quanta > 0) sent out of the port for this priority
    /// (`SAI_PORT_STAT_PFC_<p>_TX_PKTS`).
    pub pfc_tx: u64,
    /// Time the port's egress priority was held paused, ps, the pause in progress included
    /// (`SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US`).
    pub paused_ps: u64,
    /// Frames the port transmitted at this priority (`SAI_QUEUE_STAT_PACKETS`).
    pub packets: u64,
    /// Wire bytes the port transmitted at this priority (`SAI_QUEUE_STAT_BYTES`).
    pub bytes: u64,
    /// Bytes in the egress queue now (`SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES`).
    pub queue_bytes: u64,
    /// Peak bytes of the egress queue since the start (`SAI_QUEUE_STAT_WATERMARK_BYTES`).
    pub queue_watermark: u64,
    /// Bytes the ingress priority group holds now
    /// (`SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES`).
    pub pg_bytes: u64,
    /// Headroom bytes the ingress priority group holds now
    /// (`SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_CURR_OCCUPANCY_BYTES`).
    pub pg_headroom: u64,
    /// Packets dropped at admission on this ingress port and priority group
    /// (`SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS`).
    pub pg_dropped: u64,
}

/// The counter sampler and its samples.
#[derive(Debug, Default)]
pub struct CounterSampler {
    /// Sampling interval (`None`: off).
    pub interval: Option<Time>,
    /// Next sample (`NEVER`: off).
    pub next: Time,
    /// When the last sample was taken (`NEVER`: none yet).
    last: Option<Time>,
    /// The samples, in time order, then switch, port and priority order.
    pub rows: Vec<CounterSnapshot>,
    /// Priorities of each port (by port id) seen active at some sample: reported at every
    /// sample after, so each series is continuous.
    seen: Vec<u8>,
}

impl CounterSampler {
    /// A sampler with this interval (`None`: off).
    pub fn new(interval: Option<Time>) -> Self {
        CounterSampler {
            interval,
            next: interval.unwrap_or(Time::NEVER),
            ..Default::default()
        }
    }

    /// Take the sample due at `now`, if one is.
    pub fn sample_due(&mut self, now: Time, switches: &[Switch], m: &Monitor) {
        if self.is_due(now) {
            self.sample(now, switches, m);
            self.next = now + self.interval.expect("scheduled");
        }
    }

    /// Whether a sample is due at `now` (it reads the transmit counters: the world settles
    /// the ports' accounts first).
    #[inline]
    pub fn is_due(&self, now: Time) -> bool {
        now >= self.next
    }

    /// A last sample at the end of the run (when sampling is on and none was taken at `now`).
    pub fn sample_final(&mut self, now: Time, switches: &[Switch], m: &Monitor) {
        if self.interval.is_some() && self.last != Some(now) {
            self.sample(now, switches, m);
        }
    }

    /// Sample every switch (port, priority) that has carried, queued, dropped or paused
    /// traffic so far.
    pub fn sample(&mut self, now: Time, switches: &[Switch], m: &Monitor) {
        self.last = Some(now);
        for sw in switches {
            for port in &sw.ports {
                let i = port.id.idx();
                if self.seen.len() <= i {
                    self.seen.resize(i + 1, 0);
                }
                for p in 0..8u8 {
                    let prio = Priority(p);
                    let queue = sw.tc_to_queue[prio.idx()];
                    let local = port.local as usize;
                    let c = &m.port_prio[i][prio];
                    let tx = m.tx_of(port.id, prio);
                    let mut paused_ps = c.paused_ps;
                    if port.pause.is_paused(p) {
                        paused_ps += now.saturating_sub(port.pause.since[prio.idx()]).ps();
                    }
                    let row = CounterSnapshot {
                        time: now,
                        port: port.id,
                        prio,
                        queue,
                        pfc_rx: c.pause_rx,
                        pfc_tx: c.pause_tx,
                        paused_ps,
                        packets: tx.packets,
                        bytes: tx.bytes,
                        queue_bytes: sw.mmu.queue_bytes(local, queue),
                        queue_watermark: sw.mmu.queue_max(local, queue),
                        pg_bytes: sw.mmu.pg_bytes(local, prio),
                        pg_headroom: sw.mmu.pg_headroom(local, prio),
                        pg_dropped: c.drops,
                    };
                    let active = CounterSnapshot {
                        time: Time::ZERO,
                        port: PortId(0),
                        prio: Priority(0),
                        queue: QueueId(0),
                        ..row
                    } != CounterSnapshot::default();
                    if active {
                        self.seen[i] |= 1 << p;
                    }
                    if self.seen[i] & (1 << p) != 0 {
                        self.rows.push(row);
                    }
                }
            }
        }
    }
}
