//! Records kept out of memory: appended in order, in chunks, to an anonymous temporary file
//! (deleted by the system when the handle closes), and read back a chunk at a time, as many
//! times as needed. Where no file can be made or written (no temporary directory, a full
//! disk), the chunks stay in memory and everything still works, with the memory it costs.
//! The run's released flows ([`crate::sim`]'s spill) and the flow rows of a long run's results
//! ([`crate::monitor::FlowTable`]) live here, so neither grows with the number of flows a run
//! had.

/// Where a chunk's bytes are.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// In the file at this byte offset.
    File(u64),
    /// In [`ChunkFile::kept`] at this byte offset.
    Kept(usize),
}

/// One closed chunk: where it is, its length in bytes and how many records it holds.
#[derive(Clone, Copy, Debug)]
struct Chunk {
    place: Place,
    bytes: usize,
    records: u32,
}

/// An append-only sequence of encoded records, in chunks of about `chunk_bytes` bytes or
/// `chunk_records` records, whichever comes first.
#[derive(Debug)]
pub struct ChunkFile {
    /// The file and the bytes written to it, once one was made.
    file: Option<(std::fs::File, u64)>,
    /// No file could be made or written: chunks go to `kept`.
    no_file: bool,
    /// Chunks that could not be written.
    kept: Vec<u8>,
    /// Closed chunks, in order.
    chunks: Vec<Chunk>,
    /// The chunk being gathered, and its records.
    pending: Vec<u8>,
    pending_records: u32,
    /// Bytes gathered before a chunk is closed.
    chunk_bytes: usize,
    /// Records gathered before a chunk is closed.
    chunk_records: u32,
    records: u64,
}

impl ChunkFile {
    /// An empty sequence whose chunks close once they reach `chunk_bytes` bytes or
    /// `chunk_records` records.
    pub fn new(chunk_bytes: usize, chunk_records: u32) -> ChunkFile {
        ChunkFile {
            file: None,
            no_file: false,
            kept: Vec::new(),
            chunks: Vec::new(),
            pending: Vec::new(),
            pending_records: 0,
            chunk_bytes: chunk_bytes.max(1),
            chunk_records: chunk_records.max(1),
            records: 0,
        }
    }

    /// Records appended.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Appends one record: `encode` writes its bytes to the end of the chunk being gathered.
    /// A record never spans two chunks.
    pub fn push(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        encode(&mut self.pending);
        self.pending_records += 1;
        self.records += 1;
        if self.pending.len() >= self.chunk_bytes || self.pending_records >= self.chunk_records {
            self.close_chunk();
        }
    }

    /// Writes the gathered chunk to the file (made on first use), or keeps it in memory.
    fn close_chunk(&mut self) {
        if !self.no_file && self.file.is_none() {
            self.file = tempfile::tempfile().ok().map(|f| (f, 0));
        }
        let place = match &mut self.file {
            Some((f, len)) if !self.no_file && write_at(f, &self.pending, *len) => {
                let at = *len;
                *len += self.pending.len() as u64;
                Place::File(at)
            }
            _ => {
                self.no_file = true;
                self.kept.extend_from_slice(&self.pending);
                Place::Kept(self.kept.len() - self.pending.len())
            }
        };
        self.chunks.push(Chunk {
            place,
            bytes: self.pending.len(),
            records: self.pending_records,
        });
        self.pending.clear();
        self.pending_records = 0;
    }

    /// Every chunk in order, the one still gathering last, each as its bytes and its number
    /// of records. A chunk the file cannot give back (the disk failed under the run) comes as
    /// `None` with its record count, for the caller to stand in for.
    pub fn chunks(&self) -> impl Iterator<Item = (Option<Vec<u8>>, u32)> + '_ {
        let closed = self.chunks.iter().map(|c| {
            let bytes = match c.place {
                Place::Kept(at) => Some(self.kept[at..at + c.bytes].to_vec()),
                Place::File(at) => {
                    let mut buf = vec![0u8; c.bytes];
                    let ok = (self.file.as_ref()).is_some_and(|(f, _)| read_at(f, &mut buf, at));
                    ok.then_some(buf)
                }
            };
            (bytes, c.records)
        });
        let open =
            (self.pending_records > 0).then(|| (Some(self.pending.clone()), self.pending_records));
        closed.chain(open)
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

    fn fill(f: &mut ChunkFile, n: u32) {
        // Records of varying length: i as 4 bytes, then i % 5 bytes of i.
        for i in 0..n {
            f.push(|out| {
                out.extend_from_slice(&i.to_le_bytes());
                out.extend(std::iter::repeat_n(i as u8, (i % 5) as usize));
            });
        }
    }

    fn read_back(f: &ChunkFile) -> Vec<u32> {
        let mut ids = Vec::new();
        for (bytes, n) in f.chunks() {
            let b = bytes.expect("chunk readable");
            let mut at = 0;
            for _ in 0..n {
                let i = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
                assert!(b[at + 4..at + 4 + (i % 5) as usize]
                    .iter()
                    .all(|&x| x == i as u8));
                at += 4 + (i % 5) as usize;
                ids.push(i);
            }
            assert_eq!(at, b.len(), "a chunk holds whole records");
        }
        ids
    }

    /// Variable-length records come back whole, in order, across closed chunks and the
    /// gathering one, and can be read twice.
    #[test]
    fn records_come_back_in_order_twice() {
        let mut f = ChunkFile::new(100, u32::MAX);
        fill(&mut f, 1000);
        assert_eq!(f.records(), 1000);
        assert!(f.chunks().count() > 10);
        assert!(f
            .chunks()
            .all(|(b, _)| b.is_some_and(|b| b.len() < 100 + 9)));
        let want: Vec<u32> = (0..1000).collect();
        assert_eq!(read_back(&f), want);
        assert_eq!(read_back(&f), want);
    }

    /// Where no file can be written, the chunks are kept in memory and read back the same.
    #[test]
    fn without_a_file_chunks_stay_in_memory() {
        let mut f = ChunkFile::new(usize::MAX, 7);
        f.no_file = true;
        fill(&mut f, 300);
        assert!(f.file.is_none() && !f.kept.is_empty());
        assert!(f.chunks().all(|(_, n)| n <= 7));
        assert_eq!(read_back(&f), (0..300).collect::<Vec<u32>>());
    }
}
