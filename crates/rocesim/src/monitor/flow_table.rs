//! The run's flow rows ([`FlowResult`], one per flow, in id order) as the results carry them.
//! A run of a few thousand flows holds its rows in memory. A long run of millions of flows
//! would hold hundreds of bytes per flow after its end, so its rows are stored: encoded in
//! chunks to an anonymous temporary file ([`ChunkFile`]) as they are made, and decoded a
//! chunk at a time each time a result file reads them. Either way [`FlowTable::iter`] gives
//! the same rows, so every result file is the same whichever way the rows were kept.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::results::FlowResult;
use crate::engine::ChunkFile;

/// Rows in one stored chunk.
pub const STORED_CHUNK_ROWS: usize = 8192;

/// More rows than this and [`FlowTable::collect_rows`] stores them instead of holding them.
pub const HELD_ROWS: usize = 16_384;

/// Flow rows in id order, held in memory or stored in a temporary file.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    /// Rows stored out of memory (these come first).
    stored: Option<Arc<StoredRows>>,
    /// Rows held in memory, after the stored ones.
    held: Vec<FlowResult>,
}

/// Encoded rows and the host names they refer to by index.
#[derive(Debug)]
struct StoredRows {
    file: ChunkFile,
    /// Host names, in order of first use.
    names: Vec<Arc<str>>,
}

impl FlowTable {
    /// A table holding `rows` in memory.
    pub fn held(rows: Vec<FlowResult>) -> FlowTable {
        FlowTable {
            stored: None,
            held: rows,
        }
    }

    /// A table of `rows`: held in memory when there are at most `held_max` of them (a run's
    /// results use [`HELD_ROWS`]); otherwise stored `chunk_rows` rows at a time as they come,
    /// so no more than one chunk is in memory while they are made.
    pub fn collect_rows(
        rows: impl IntoIterator<Item = FlowResult>,
        count: usize,
        held_max: usize,
        chunk_rows: usize,
    ) -> FlowTable {
        if count <= held_max {
            let mut held = Vec::with_capacity(count);
            held.extend(rows);
            return FlowTable::held(held);
        }
        let mut store = StoredRows {
            file: ChunkFile::new(usize::MAX, chunk_rows as u32),
            names: Vec::new(),
        };
        let mut index: HashMap<Arc<str>, u32> = HashMap::new();
        for row in rows {
            let src = intern(&mut index, &mut store.names, &row.src);
            let dst = intern(&mut index, &mut store.names, &row.dst);
            store.file.push(|out| encode(&row, src, dst, out));
        }
        FlowTable {
            stored: Some(Arc::new(store)),
            held: Vec::new(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.stored
            .as_ref()
            .map_or(0, |s| s.file.records() as usize)
            + self.held.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the rows are stored out of memory (a long run's).
    pub fn is_stored(&self) -> bool {
        self.stored.is_some()
    }

    /// The rows in memory: every row unless the table is stored.
    pub fn held_rows(&self) -> &[FlowResult] {
        &self.held
    }

    /// Appends a row (held in memory).
    pub fn push(&mut self, row: FlowResult) {
        self.held.push(row);
    }

    /// Every row in id order: stored rows decoded a chunk at a time, then the held ones.
    pub fn iter(&self) -> impl Iterator<Item = Cow<'_, FlowResult>> + '_ {
        let stored = self.stored.iter().flat_map(|s| StoredIter {
            chunks: Box::new(s.file.chunks()),
            names: &s.names,
            chunk: None,
            at: 0,
            left: 0,
        });
        stored.chain(self.held.iter().map(Cow::Borrowed))
    }
}

impl std::ops::Index<usize> for FlowTable {
    type Output = FlowResult;
    /// Row `i` of a held table (tests and small runs). Panics on a stored table, whose rows
    /// are only read through [`FlowTable::iter`].
    fn index(&self, i: usize) -> &FlowResult {
        assert!(
            self.stored.is_none(),
            "stored flow rows are read with FlowTable::iter"
        );
        &self.held[i]
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    fn index_mut(&mut self, i: usize) -> &mut FlowResult {
        assert!(
            self.stored.is_none(),
            "stored flow rows are read with FlowTable::iter"
        );
        &mut self.held[i]
    }
}

impl FromIterator<FlowResult> for FlowTable {
    fn from_iter<I: IntoIterator<Item = FlowResult>>(rows: I) -> FlowTable {
        FlowTable::held(rows.into_iter().collect())
    }
}

impl From<Vec<FlowResult>> for FlowTable {
    fn from(rows: Vec<FlowResult>) -> FlowTable {
        FlowTable::held(rows)
    }
}

impl<'a> IntoIterator for &'a FlowTable {
    type Item = Cow<'a, FlowResult>;
    type IntoIter = Box<dyn Iterator<Item = Cow<'a, FlowResult>> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl PartialEq for FlowTable {
    fn eq(&self, other: &FlowTable) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl Serialize for FlowTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// The index of host name `name` in `names`, added on first use.
fn intern(index: &mut HashMap<Arc<str>, u32>, names: &mut Vec<Arc<str>>, name: &Arc<str>) -> u32 {
    *index.entry(name.clone()).or_insert_with(|| {
        names.push(name.clone());
        (names.len() - 1) as u32
    })
}

/// Flag bits of an encoded row: which optional fields are present, and whether the name is
/// the flow id (most are; such names are not stored).
const SIZE: u16 = 1;
const END: u16 = 1 << 1;
const ACKED: u16 = 1 << 2;
const DELIVERED: u16 = 1 << 3;
const FCT: u16 = 1 << 4;
const IDEAL: u16 = 1 << 5;
const SLOWDOWN: u16 = 1 << 6;
const NAME_IS_ID: u16 = 1 << 7;

/// Appends `row` (its hosts given as indices into the table's names) to `out`: flow id, flags,
/// hosts, the name unless it is the id, the present optional fields, then the counters, all
/// little-endian.
fn encode(row: &FlowResult, src: u32, dst: u32, out: &mut Vec<u8>) {
    let f = row;
    let opts = [
        (SIZE, f.size_bytes),
        (END, f.end_ns),
        (ACKED, f.acked_ns),
        (DELIVERED, f.delivered_ns),
        (FCT, f.fct_ns),
        (IDEAL, f.ideal_fct_ns),
        (SLOWDOWN, f.slowdown.map(f64::to_bits)),
    ];
    let name_is_id = f.name == f.flow_id.to_string();
    let mut flags = opts
        .iter()
        .filter(|o| o.1.is_some())
        .fold(0, |a, o| a | o.0);
    if name_is_id {
        flags |= NAME_IS_ID;
    }
    out.extend_from_slice(&f.flow_id.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&src.to_le_bytes());
    out.extend_from_slice(&dst.to_le_bytes());
    if !name_is_id {
        out.extend_from_slice(&(f.name.len() as u32).to_le_bytes());
        out.extend_from_slice(f.name.as_bytes());
    }
    let words = opts.iter().filter_map(|o| o.1).chain([
        f.start_ns,
        f.bytes_delivered,
        f.goodput_gbps.to_bits(),
        f.goodput_active_gbps.to_bits(),
        f.retx_packets,
        f.cnp_rx,
        f.ecn_marked,
        f.tx_bytes,
        f.discarded_bytes,
        f.dropped_bytes,
        f.inflight_bytes,
    ]);
    words.for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
}

/// Reads little-endian fields off the front of a byte slice.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("N bytes")
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn opt(&mut self, flags: u16, bit: u16) -> Option<u64> {
        (flags & bit != 0).then(|| self.u64())
    }
}

/// Stored rows decoded one at a time, a chunk's bytes read at a time.
struct StoredIter<'a> {
    chunks: Box<dyn Iterator<Item = (Option<Vec<u8>>, u32)> + 'a>,
    names: &'a [Arc<str>],
    /// The chunk being read (`None` when it could not be read back).
    chunk: Option<Vec<u8>>,
    /// Where the next row starts in it, and how many rows are left.
    at: usize,
    left: u32,
}

impl<'a> Iterator for StoredIter<'a> {
    type Item = Cow<'a, FlowResult>;

    /// The next row; a row of a chunk the file could not give back (the disk failed) reads as
    /// a default row.
    fn next(&mut self) -> Option<Cow<'a, FlowResult>> {
        while self.left == 0 {
            let (bytes, n) = self.chunks.next()?;
            (self.chunk, self.at, self.left) = (bytes, 0, n);
        }
        self.left -= 1;
        let Some(bytes) = &self.chunk else {
            return Some(Cow::Owned(FlowResult::default()));
        };
        let mut c = Cursor(&bytes[self.at..]);
        let row = decode(&mut c, self.names);
        self.at = bytes.len() - c.0.len();
        Some(Cow::Owned(row))
    }
}

fn decode(c: &mut Cursor<'_>, names: &[Arc<str>]) -> FlowResult {
    let flow_id = c.u32();
    let flags = c.u16();
    let src = names[c.u32() as usize].clone();
    let dst = names[c.u32() as usize].clone();
    let name = if flags & NAME_IS_ID != 0 {
        flow_id.to_string()
    } else {
        let len = c.u32() as usize;
        let (s, rest) = c.0.split_at(len);
        c.0 = rest;
        String::from_utf8_lossy(s).into_owned()
    };
    FlowResult {
        flow_id,
        name,
        src,
        dst,
        size_bytes: c.opt(flags, SIZE),
        end_ns: c.opt(flags, END),
        acked_ns: c.opt(flags, ACKED),
        delivered_ns: c.opt(flags, DELIVERED),
        fct_ns: c.opt(flags, FCT),
        ideal_fct_ns: c.opt(flags, IDEAL),
        slowdown: c.opt(flags, SLOWDOWN).map(f64::from_bits),
        start_ns: c.u64(),
        bytes_delivered: c.u64(),
        goodput_gbps: f64::from_bits(c.u64()),
        goodput_active_gbps: f64::from_bits(c.u64()),
        retx_packets: c.u64(),
        cnp_rx: c.u64(),
        ecn_marked: c.u64(),
        tx_bytes: c.u64(),
        discarded_bytes: c.u64(),
        dropped_bytes: c.u64(),
        inflight_bytes: c.u64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every shape: named and id-named, each optional field present and absent,
    /// non-finite and negative-zero floats, hosts repeated.
    fn rows(n: u32) -> Vec<FlowResult> {
        let hosts: Vec<Arc<str>> = ["h0", "h1", "h2"].iter().map(|&h| Arc::from(h)).collect();
        (0..n)
            .map(|i| {
                let k = u64::from(i);
                let some = |bit: u32| (i >> bit) & 1 == 1;
                FlowResult {
                    flow_id: i,
                    name: if i % 3 == 0 {
                        format!("flow-{i}")
                    } else {
                        i.to_string()
                    },
                    src: hosts[(i % 3) as usize].clone(),
                    dst: hosts[((i + 1) % 3) as usize].clone(),
                    size_bytes: some(0).then_some(k * 1000),
                    start_ns: k * 7,
                    end_ns: some(1).then_some(k * 11),
                    acked_ns: some(2).then_some(k * 13),
                    delivered_ns: some(3).then_some(k * 17),
                    fct_ns: some(4).then_some(k * 19),
                    ideal_fct_ns: some(5).then_some(k * 23),
                    slowdown: some(6).then_some(if i % 5 == 0 {
                        f64::INFINITY
                    } else {
                        k as f64 / 3.0
                    }),
                    bytes_delivered: k * 29,
                    goodput_gbps: if i % 4 == 0 { -0.0 } else { k as f64 * 0.1 },
                    goodput_active_gbps: k as f64 * 0.5,
                    retx_packets: k,
                    cnp_rx: k + 1,
                    ecn_marked: k + 2,
                    tx_bytes: k + 3,
                    discarded_bytes: k + 4,
                    dropped_bytes: k + 5,
                    inflight_bytes: u64::MAX - k,
                }
            })
            .collect()
    }

    /// A stored table gives back every row equal to the one stored, in order, across chunks,
    /// and as often as it is read; a table at or under the limit holds its rows.
    #[test]
    fn stored_rows_read_back_equal() {
        let want = rows(1000);
        let t = FlowTable::collect_rows(want.clone(), want.len(), 10, 64);
        assert!(t.is_stored());
        assert_eq!(t.len(), 1000);
        for _ in 0..2 {
            let back: Vec<FlowResult> = t.iter().map(Cow::into_owned).collect();
            assert_eq!(back.len(), want.len());
            for (b, w) in back.iter().zip(&want) {
                assert_eq!(b.name, w.name);
                assert_eq!(b.goodput_gbps.to_bits(), w.goodput_gbps.to_bits());
                assert_eq!(b, w);
            }
        }
        let held = FlowTable::collect_rows(want.clone(), want.len(), 1000, 64);
        assert!(!held.is_stored());
        assert_eq!(held, t);
        assert_eq!(held[17], want[17]);
    }
}
