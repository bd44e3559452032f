//! The final records of flows the run no longer holds. Once a flow is over (complete, nothing
//! of it left in the network, its QPs released) and every flow before it too, the run stops
//! holding it ([`crate::engine::FlowWindow`]) and hands its record here. The records go, in
//! flow-id order, to an anonymous temporary file in chunks (kept in memory where no file can
//! be made or written) and are read back once, when the results are assembled. A run of
//! millions of flows one after another thus holds the flows alive, not every flow it had.

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
#[derive(Debug, Default)]
pub(crate) struct Spill {
    /// The file and the bytes written to it, once one was made.
    file: Option<(std::fs::File, u64)>,
    /// No file could be made or written: chunks stay in `kept`.
    no_file: bool,
    /// Chunks that could not be written, in order after the file's.
    kept: Vec<u8>,
    /// The chunk being gathered.
    pending: Vec<u8>,
    count: u32,
}

impl Spill {
    /// Number of flows handed on.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Hand on the next flow's final record.
    pub fn push(&mut self, s: Spilled) {
        encode(&s, &mut self.pending);
        self.count += 1;
        if self.pending.len() >= CHUNK * BYTES {
            self.write_chunk();
        }
    }

    /// Write the gathered chunk to the file (made on first use), or keep it in memory.
    fn write_chunk(&mut self) {
        let chunk = std::mem::take(&mut self.pending);
        if !self.no_file && self.file.is_none() {
            self.file = tempfile::tempfile().ok().map(|f| (f, 0));
        }
        let written = match &mut self.file {
            Some((f, len)) if !self.no_file && write_at(f, &chunk, *len) => {
                *len += chunk.len() as u64;
                true
            }
            _ => false,
        };
        if !written {
            self.no_file = true;
            self.kept.extend_from_slice(&chunk);
        }
        self.pending = chunk;
        self.pending.clear();
    }

    /// Every record handed on, in id order, read back a chunk at a time. A chunk the file
    /// cannot give back (the disk failed under the run) reads as records of flows that never
    /// completed.
    pub fn records(&self) -> impl Iterator<Item = Spilled> + '_ {
        let in_file = self.file.as_ref().map_or(0, |(_, len)| *len);
        let chunks = in_file.div_ceil((CHUNK * BYTES) as u64);
        let from_file = (0..chunks).flat_map(move |k| {
            let at = k * (CHUNK * BYTES) as u64;
            let mut buf = vec![0u8; (in_file - at).min((CHUNK * BYTES) as u64) as usize];
            let ok = (self.file.as_ref()).is_some_and(|(f, _)| read_at(f, &mut buf, at));
            let n = buf.len() / BYTES;
            let lost = std::iter::repeat_n(unread(), if ok { 0 } else { n });
            let read: Vec<Spilled> = if ok {
                decode_all(&buf).collect()
            } else {
                Vec::new()
            };
            read.into_iter().chain(lost)
        });
        from_file
            .chain(decode_all(&self.kept))
            .chain(decode_all(&self.pending))
    }
}

/// What a record that cannot be read back reads as: a flow that never completed.
fn unread() -> Spilled {
    Spilled {
        rec: FlowRecord::default(),
        before_window: 0,
    }
}

/// The records in `bytes`, in order.
fn decode_all(bytes: &[u8]) -> impl Iterator<Item = Spilled> + '_ {
    bytes.chunks_exact(BYTES).map(decode)
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

#[cfg(unix)]
fn write_at(f: &std::fs::File, buf: &[u8], at: u64) -> bool {
    std::os::unix::fs::FileExt::write_all_at(f, buf, at).is_ok()
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> bool {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at).is_ok()
}

#[cfg(not(unix))]
fn write_at(_: &std::fs::File, _: &[u8], _: u64) -> bool {
    false
}

#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> bool {
    false
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
