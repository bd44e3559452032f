//! Flows in the world: starting them in time order (or when the flow they are chained to
//! completes), opening both ends of their QP (the part connection setup plays), and noticing
//! when every finite flow is done.

use super::chains::Chains;
use super::qp_groups::region_of;
use super::Sim;
use crate::engine::Event;
use crate::fabric::ns3_hash::ns3_flow_key;
use crate::fabric::params::EcmpHash;
use crate::fabric::routing::flow_hash;
use crate::ids::{FlowId, QpId};
use crate::nic::cc::{CcContext, CcState};
use crate::nic::irn::RetxCause;
use crate::nic::memory::MemRef;
use crate::nic::qp::{RecvQp, Requester, Responder, SendQp};
use crate::nic::qp_state::QpState;
use crate::nic::tcp::{TcpReceiver, TcpSender};
use crate::packet::{FrameOverhead, ROCEV2_UDP_PORT};
use crate::traffic::stream::{FlowStream, StreamIter};
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;

/// Which flows start when.
#[derive(Debug, Default)]
pub(crate) struct FlowStarts {
    /// Listed flows that start at a time, in (start, id) order.
    pub order: Vec<u32>,
    /// Position of the next flow in `order`.
    pub next: usize,
    /// The scenario's streams, each with its next flow drawn.
    pub streams: Vec<StreamCursor>,
    /// Flows chained to others: started when those complete.
    pub dependents: Chains,
    /// Finite flows not yet complete.
    pub finite_left: usize,
    /// Some flow is long-lived.
    pub has_infinite: bool,
}

/// A stream's flows as the run reaches them: the next one drawn, the rest still to make.
#[derive(Debug)]
pub(crate) struct StreamCursor {
    /// The stream's next flow (id and spec), if any is left.
    pub head: Option<(u32, FlowSpec)>,
    rest: StreamIter,
}

impl StreamCursor {
    /// A cursor at the first flow of `s`.
    pub fn new(s: &FlowStream) -> StreamCursor {
        let mut rest = s.iter();
        StreamCursor {
            head: rest.next(),
            rest,
        }
    }

    /// Take the next flow and draw the one after it.
    fn take(&mut self) -> Option<(u32, FlowSpec)> {
        std::mem::replace(&mut self.head, self.rest.next())
    }
}

/// Where the next flow to start comes from.
pub(crate) enum NextStart {
    Listed(u32),
    Stream(usize),
}

impl FlowStarts {
    /// Every finite flow has completed and none is long-lived or still to start.
    pub fn all_done(&self) -> bool {
        self.finite_left == 0
            && !self.has_infinite
            && self.next >= self.order.len()
            && self.streams.iter().all(|s| s.head.is_none())
    }

    /// The next flow in (start, id) order over the listed flows and the streams, and its start.
    pub(crate) fn next_start(&self, listed: &[FlowSpec]) -> Option<(Time, NextStart)> {
        let mut best = (self.order.get(self.next))
            .map(|&f| ((listed[f as usize].start, f), NextStart::Listed(f)));
        for (k, s) in self.streams.iter().enumerate() {
            if let Some((f, spec)) = &s.head {
                let key = (spec.start, *f);
                if best.as_ref().is_none_or(|(b, _)| key < *b) {
                    best = Some((key, NextStart::Stream(k)));
                }
            }
        }
        best.map(|((t, _), n)| (t, n))
    }
}

impl Sim {
    /// Start every flow whose start time has come.
    pub(crate) fn on_flow_start(&mut self) {
        let now = self.now();
        while let Some((start, next)) = self.starts.next_start(&self.scenario.flows) {
            if start > now {
                self.ctx.events.schedule(start, Event::FlowStart);
                return;
            }
            match next {
                NextStart::Listed(f) => {
                    self.starts.next += 1;
                    self.activate_flow(f, None);
                }
                NextStart::Stream(k) => {
                    if let Some((f, spec)) = self.starts.streams[k].take() {
                        self.activate_flow(f, Some(&spec));
                    }
                }
            }
        }
    }

    /// Flow `f` starts now: open its QP at both ends; its sender's NIC begins serving it.
    /// `streamed` is its spec when a stream made it (else it is listed).
    pub(crate) fn activate_flow(&mut self, f: u32, streamed: Option<&FlowSpec>) {
        self.activate_flow_at(f, streamed, self.now());
    }

    /// [`Sim::activate_flow`] as of `now`: in a part of a split run that learns of a chained
    /// flow's start after it (`sim/threads.rs`), for the flow's records, which are the same
    /// in every part.
    pub(crate) fn activate_flow_at(&mut self, f: u32, streamed: Option<&FlowSpec>, now: Time) {
        self.ctx.monitor.admit(f, now);
        self.ctx.packets.by_flow.extend_to(f + 1, 0);
        let spec = streamed.unwrap_or_else(|| &self.scenario.flows[f as usize]);
        let (requester, responder) = self.open_qp(f, spec, now);
        let (src, dst) = (spec.src, spec.dst);
        let recv = self.nics[dst as usize].open_responder(responder);
        let send = self.nics[src as usize].open_requester(requester, now);
        if self.scenario.nics[src as usize].transport.is_selective() {
            let cap = self.bdp_fc_packets(src, dst);
            self.nics[src as usize].irn_open_tx(send, cap, now);
            self.nics[dst as usize].irn_open_rx(recv);
        }
        self.ctx
            .conns
            .connect(FlowId(f), [src, dst], QpId(send), QpId(recv));
        if self.part.as_ref().is_none_or(|p| p.has_host(src)) {
            self.nics[src as usize].try_send(&mut self.ctx);
        }
    }

    /// IRN's BDP-FC window of a QP from `src` to `dst`: ⌈BDP / MTU⌉ packets, where the BDP
    /// is `[nic.irn] bdp_cap` or the path's base RTT times its slowest link.
    pub(crate) fn bdp_fc_packets(&self, src: u32, dst: u32) -> u32 {
        let nic = &self.scenario.nics[src as usize];
        let bdp = nic.irn.bdp_cap.map_or_else(
            || {
                let rtt = self.base_rtt(src, dst, nic.mtu);
                let slowest = self.path(src, dst).map(|h| h.0).min();
                slowest.map_or(0, |r| r.bytes_in(rtt))
            },
            |b| b.0,
        );
        bdp.div_ceil(nic.mtu as u64).clamp(1, u32::MAX as u64) as u32
    }

    /// The ECMP key flow `spec`'s packets carry: rocesim's 5-tuple hash, or with ns-3's
    /// hash the flow's ends and ns-3 source port (`fabric::ns3_hash`).
    fn ecmp_key(&self, spec: &crate::traffic::FlowSpec) -> u32 {
        let ns3 = (self.scenario.switches.first()).is_some_and(|s| s.ecmp_hash == EcmpHash::Ns3);
        if ns3 {
            ns3_flow_key(spec.src, spec.dst, spec.sport)
        } else {
            flow_hash(spec.src, spec.dst, spec.sport, ROCEV2_UDP_PORT)
        }
    }

    /// Both ends of flow `f`'s QP, with its congestion control sized by its path (a TCP
    /// flow: its connection, segments of `tcp.mss` in TCP/IPv4 frames).
    fn open_qp(&self, f: u32, spec: &FlowSpec, now: Time) -> (Requester, Responder) {
        let snic = &self.scenario.nics[spec.src as usize];
        let tcp = match spec.kind {
            FlowKind::Tcp(cc) => Some(cc),
            _ => None,
        };
        let size = spec.size.unwrap_or(u64::MAX).max(1);
        let mtu = tcp.map_or(snic.mtu, |_| self.scenario.tcp.mss);
        let npkts = if size == u64::MAX {
            u32::MAX
        } else {
            size.div_ceil(mtu as u64).min(u32::MAX as u64 - 1) as u32
        };
        let base_rtt = snic
            .base_rtt
            .unwrap_or_else(|| self.base_rtt(spec.src, spec.dst, mtu));
        let cc_ctx = CcContext {
            line_rate: self.nics[spec.src as usize].port.rate,
            mtu,
            base_rtt,
            start: spec.start,
            frame_overhead: snic.frame_overhead.0,
        };
        let (cc, overhead, rto) = match tcp {
            Some(k) => {
                let t = TcpSender::new(k, &self.scenario.tcp, base_rtt);
                let rto = t.rtt.rto();
                (CcState::Tcp(Box::new(t)), FrameOverhead::TCP, rto)
            }
            None => (
                CcState::new(snic.cc, &snic.cc_params, &cc_ctx),
                snic.frame_overhead,
                snic.rto,
            ),
        };
        let gap = frame_gap(snic.frame_gap, tcp.is_some());
        let int_bytes = cc.wants_int().then_some(snic.cc_params.hpcc.int_header);
        let tc = snic.dscp_to_tc[(spec.dscp & 63) as usize];
        let hash = self.ecmp_key(spec);
        let requester = Requester {
            flow: f,
            dst: spec.dst,
            dscp: spec.dscp,
            ttl: snic.ttl,
            wants_int: int_bytes.is_some(),
            has_cc: !matches!(cc, CcState::None(_) | CcState::Tcp(_)),
            hash,
            rto,
            cc_timer_at: Time::NEVER,
            overhead,
            gap,
            int_bytes: int_bytes.unwrap_or(0),
            rank: 0,
            state: QpState::Drained,
            sq: SendQp {
                npkts,
                size,
                mtu,
                next_psn: 0,
                snd_una: 0,
                max_sent: 0,
                transport: snic.transport,
                tc,
                next_send: Time::ZERO,
                rate_limit: spec.rate_limit(),
                cc,
                last_progress: now,
                timer_pending: false,
                done: false,
                done_at: None,
                retx_cause: RetxCause::Timeout,
            },
        };
        let last = (size - (npkts as u64 - 1) * mtu as u64) as u32;
        let tcp_rx = tcp.map(|_| Box::new(TcpReceiver::new(mtu, last.min(mtu))));
        let responder = self.responder_of(f, spec, (npkts, tc, hash), tcp_rx);
        (requester, responder)
    }

    /// The responder side of flow `f` with spec `spec` (`npkts` packets, data TC `tc`, ECMP
    /// hash `hash`, a TCP connection's reassembly state if it is one).
    fn responder_of(
        &self,
        f: u32,
        spec: &FlowSpec,
        (npkts, tc, hash): (u32, u8, u32),
        tcp: Option<Box<TcpReceiver>>,
    ) -> Responder {
        let mem = spec.mem();
        let (snic, dnic) = (
            &self.scenario.nics[spec.src as usize],
            &self.scenario.nics[spec.dst as usize],
        );
        let mtu = snic.mtu;
        Responder {
            flow: f,
            src: spec.src,
            hash,
            ttl: snic.ttl,
            dscp: dnic.ack_dscp.unwrap_or(spec.dscp),
            tc: dnic
                .ack_dscp
                .map_or(tc, |d| dnic.dscp_to_tc[(d & 63) as usize]),
            transport: snic.transport,
            npkts,
            ack_every: dnic.ack_every,
            rq: RecvQp::default(),
            cnp_window_end: Time::ZERO,
            cnp_dscp: dnic.cnp_dscp,
            cnp_tc: dnic.dscp_to_tc[(dnic.cnp_dscp & 63) as usize],
            cnp_gap: dnic.min_time_between_cnps,
            overhead: dnic.frame_overhead,
            gap: frame_gap(dnic.frame_gap, tcp.is_some()),
            tcp,
            mem: MemRef {
                region_id: match mem.region_id {
                    u32::MAX => f,
                    id => id,
                },
                region: region_of(spec),
                random: mem.random,
                base: mem.base,
                mtu,
            },
        }
    }

    /// Flows completed during the last event: count them and start their dependents.
    pub(crate) fn on_completions(&mut self) {
        let now = self.now();
        let done = std::mem::take(&mut self.ctx.monitor.completed);
        for f in &done {
            self.starts.finite_left = self.starts.finite_left.saturating_sub(1);
            let chained: Vec<u32> = self.starts.dependents.of(f.0).collect();
            for d in chained {
                let gap = self.scenario.flows[d as usize].start;
                self.schedule_chained(d, now + gap);
            }
        }
        // A part of a partitioned run holds every flow to the end: whether a flow's packets
        // are all gone is known only across the parts.
        let whole = self.part.is_none();
        for f in done.iter().filter(|_| whole) {
            self.retire(f.0);
        }
        self.ctx.monitor.completed = done;
        self.ctx.monitor.completed.clear();
    }
}

impl Sim {
    /// Chained flow `d` starts at `at`. Every part of a split run starts it (its records
    /// are the same everywhere), so the part that saw its predecessor complete tells the
    /// others; only the part of its sender needs to start it on time (`threads::chained_too_soon`
    /// makes sure it can).
    fn schedule_chained(&mut self, d: u32, at: Time) {
        let ev = Event::StartChained(d);
        if self.part.is_some() {
            let frame = None;
            self.ctx
                .outbox
                .push(crate::engine::Remote { at, ev, frame });
        }
        self.ctx.events.schedule(at, ev);
    }
}

/// Unbuffered bytes of a QP's frames: the NIC's `frame_gap`, or preamble and gap for TCP frames
/// (whose header stack is fixed).
fn frame_gap(nic_gap: u8, tcp: bool) -> u8 {
    if tcp {
        crate::packet::WIRE_GAP as u8
    } else {
        nic_gap
    }
}
