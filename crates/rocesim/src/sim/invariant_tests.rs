//! Invariants over generated traffic (proptest): random flows on a two-switch fabric with a
//! random shared buffer and dynamic threshold, run to completion.
//!
//! - bytes are conserved per flow: sent = delivered + discarded + dropped + still in flight;
//! - with headroom at least the automatic value, no lossless packet is ever dropped, and every
//!   flow completes (PFC holds back what the buffer cannot take);
//! - no egress queue ever holds more than the switch's buffer.

use proptest::prelude::*;

use super::testkit::*;
use super::Sim;
use crate::fabric::params::Headroom;
use crate::topology::{LinkSpec, NodeRef, Topology};
use crate::units::{Bytes, Rate, Time};

/// Hosts 0..n/2 on switch 0, the rest on switch 1, one trunk between the switches: every
/// cross flow shares the trunk, and a receiver with several senders is an incast.
fn dumbbell(n: u32) -> Topology {
    let (rate, delay) = (Rate::gbps(100), Time::from_us(1));
    let link = |a, b| LinkSpec { a, b, rate, delay };
    let mut links: Vec<LinkSpec> = (0..n)
        .map(|h| link(NodeRef::Host(h), NodeRef::Switch(u32::from(h >= n / 2))))
        .collect();
    links.push(link(NodeRef::Switch(0), NodeRef::Switch(1)));
    Topology {
        hosts: hosts(n),
        switches: switches(2),
        links,
    }
}

/// A flow: (src, dst, size in KB, start in us).
type Gen = (u32, u32, u64, u64);

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn lossless_conserves_bytes_and_never_drops_with_auto_headroom(
        flows in prop::collection::vec((0u32..8, 0u32..8, 1u64..400, 0u64..50), 1..24),
        buffer_kb in 400u64..4000,
        dynamic_th in -4i8..=1,
        headroom_x in 1.0f64..2.0,
    ) {
        let mut sc = scenario(dumbbell(8), Time::from_ms(20));
        for s in &mut sc.switches {
            s.buffer_size = Bytes(buffer_kb * 1000);
            s.lossless.dynamic_th = dynamic_th;
            s.lossless.headroom = Headroom::AutoScaled(headroom_x);
        }
        for &(src, dst, kb, us) in flows.iter().filter(|f: &&Gen| f.0 != f.1) {
            sc.flows.push(flow(src, dst, Some(kb * 1000), Time::from_us(us)));
        }
        prop_assume!(!sc.flows.is_empty());
        let buffer = buffer_kb * 1000;
        let Ok(sim) = Sim::new(sc) else {
            // Headroom that does not fit the buffer is refused at build time.
            return Ok(());
        };
        let r = crate::run::run_sim(sim, |_, _| true);
        prop_assert_eq!(r.drops_lossless, 0);
        for f in &r.flows {
            prop_assert_eq!(
                f.tx_bytes,
                f.bytes_delivered + f.discarded_bytes + f.dropped_bytes + f.inflight_bytes,
                "flow {}", f.flow_id
            );
            prop_assert!(f.end_ns.is_some(), "flow {} did not complete", f.flow_id);
            prop_assert_eq!(f.bytes_delivered, f.size_bytes.unwrap());
        }
        for q in &r.port_queues {
            prop_assert!(q.max_queue_bytes <= buffer, "{} port {}: {}", q.node, q.port, q.max_queue_bytes);
        }
    }
}
