//! The final records of flows the run no longer holds. Once a flow is over (complete, nothing
//! of it left in the network, its QPs released) and every flow before it too, the run stops
//! holding it ([`crate::engine::FlowWindow`]) and hands its record here. The records go, in
//! flow-id order, to an anonymous temporary file in chunks (kept in memory where no file can
//! be made or written) and are read back once, when the results are assembled. A run of
//! millions of flows one after another thus holds the flows alive, not every flow it had.

use crate::engine::ChunkFile;
use crate::monitor::{FlowCounters, FlowRecord};
use crate::units::Time;

/// A released flow's final record and the payload it had delivered when the statistics
/// window opened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spilled {
    pub rec: FlowRecord,
    pub before_window: u64,
}

/// Encoded size of a [`Spilled`]: thirteen little-endian 64-bit words.
const BYTES: usize = 13 * 8;
/// Records gathered before a chunk is written (about 100 KiB).
const CHUNK: usize = 1024;

/// Released flows `0 .. count()`, in id order.
#[derive(Debug)]
pub(crate) struct Spill {
    file: ChunkFile,
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            file: ChunkFile::new(CHUNK * BYTES, CHUNK as u32),
        }
    }
}

impl Spill {
    /// Number of flows handed on.
    pub fn count(&self) -> u32 {
        self.file.records() as u32
    }

    /// Hand on the next flow's final record.
    pub fn push(&mut self, s: Spilled) {
        self.file.push(|out| encode(&s, out));
    }

    /// Every record handed on, in id order, read back a chunk at a time. A chunk the file
    /// cannot give back (the disk failed under the run) reads as records of flows that never
    /// completed.
    pub fn records(&self) -> impl Iterator<Item = Spilled> + '_ {
        self.file.chunks().flat_map(|(bytes, n)| {
            let read: Vec<Spilled> = match bytes {
                Some(b) => b.chunks_exact(BYTES).map(decode).collect(),
                None => vec![unread(); n as usize],
            };
            read
        })
    }
}

/// What a record that cannot be read back reads as: a flow that never completed.
fn unread() -> Spilled {
    Spilled {
        rec: FlowRecord::default(),
        before_window: 0,
    }
}

fn encode(s: &Spilled, out: &mut Vec<u8>) {
    let (r, c) = (&s.rec, &s.rec.c);
    let words = [
        c.tx_bytes,
        c.retx_packets as u64,
        c.delivered,
        c.discarded,
        c.dropped,
        c.cnp_rx as u64,
        c.ecn_marked as u64,
        c.fast_retransmits as u64,
        c.timeouts as u64,
        r.start.ps(),
        r.done.ps(),
        r.delivered_at.ps(),
        s.before_window,
    ];
    words
        .iter()
        .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
}

fn decode(b: &[u8]) -> Spilled {
    let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    Spilled {
        rec: FlowRecord {
            c: FlowCounters {
                tx_bytes: w(0),
                retx_packets: w(1) as u32,
                delivered: w(2),
                discarded: w(3),
                dropped: w(4),
                cnp_rx: w(5) as u32,
                ecn_marked: w(6) as u32,
                fast_retransmits: w(7) as u32,
                timeouts: w(8) as u32,
            },
            start: Time::from_ps(w(9)),
            done: Time::from_ps(w(10)),
            delivered_at: Time::from_ps(w(11)),
        },
        before_window: w(12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spilled(i: u64) -> Spilled {
        let mut rec = FlowRecord::default();
        rec.c.tx_bytes = i * 3;
        rec.c.retx_packets = i as u32;
        rec.c.delivered = i * 5;
        rec.c.timeouts = 7;
        rec.start = Time::from_ps(i);
        rec.delivered_at = Time::from_ps(i + 11);
        Spilled {
            rec,
            before_window: i / 2,
        }
    }

    /// Records come back equal and in order across chunks written to the file and the
    /// gathered tail (`done` stays `NEVER`).
    #[test]
    fn records_come_back_in_order() {
        let mut s = Spill::default();
        let n = 2 * CHUNK as u64 + 17;
        (0..n).for_each(|i| s.push(spilled(i)));
        assert_eq!(s.count() as u64, n);
        let back: Vec<Spilled> = s.records().collect();
        assert_eq!(back.len() as u64, n);
        assert!(back.iter().zip(0..).all(|(b, i)| *b == spilled(i)));
        assert_eq!(back[5].rec.done, Time::NEVER);
    }
}
