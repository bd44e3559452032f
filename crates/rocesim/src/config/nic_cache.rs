//! `nic.profile` and `nic.cache`: the NIC's on-chip resources. A profile sets a coherent set
//! (caches, RX buffer); `cache = "off"` is the ideal NIC; a `cache` table sets the caches it
//! names on top of the profile's.

use toml::Value;

use super::check::Ctx;
use super::declare::{KeyDoc, Leaf, SubTable, Table, TypeDoc, V};
use super::leaf::{choice, Int, PosTime, Size};
use crate::nic::cache::MAX_ENTRIES;
use crate::nic::params::{CacheParams, NicParams, NicProfile};
use crate::table;
use crate::units::Bytes;

choice!(/// A coherent set of NIC resources.
    ProfileV -> NicProfile { "ideal" => NicProfile::Ideal, "commodity" => NicProfile::Commodity,
        "srnic" => NicProfile::Srnic });

/// Entries of one cache: 1 to 2^24.
type Entries = Int<1, { MAX_ENTRIES as i64 }>;

table! {
    /// `cache`: LRU caches of the NIC's on-chip memory. Each miss fetches the entry from host
    /// memory (`miss_latency`) and stalls the pipeline that needed it: the sender's for QPC
    /// and WQE (every data packet it transmits), the receiver's for QPC (every data packet
    /// it receives) and MTT (every page a received payload touches). A cache not named (and
    /// not set by `nic.profile`) never misses.
    pub struct Cache {
        /// QP contexts, one entry per QP (looked up by a requester QP per packet sent and
        /// by a responder QP per packet received). Default: the profile's (commodity 1024,
        /// srnic 10,000), else none.
        qpc_entries: Entries,
        /// Memory-translation entries, one per page of registered memory. Default: the
        /// profile's (commodity 2048, srnic 150,000), else none.
        mtt_entries: Entries,
        /// Work-queue elements, one per QP's current message. Default: the profile's
        /// (commodity 4096; srnic has none), else none.
        wqe_entries: Entries,
        /// Page size of registered memory, a power of two (`"4KiB"`, `"2MiB"`).
        /// Default: `"4KiB"`.
        page_size: Size,
        /// Cost of one miss: a PCIe round trip to host memory. Default: `"1us"`.
        miss_latency: PosTime,
    }
}

/// `"off"` or a `cache` table.
pub enum CacheSetting {
    /// No caches: the ideal NIC.
    Off,
    /// The caches of this table (over the profile's).
    On(Box<Cache>),
}

/// The `cache` value: `"off"` or a table.
pub struct CacheV;
impl SubTable for CacheV {
    const TABLE: Option<fn() -> &'static [KeyDoc]> = Some(|| Cache::KEYS);
}
impl Leaf for CacheV {
    type Out = CacheSetting;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<CacheSetting> {
        match v {
            Value::String(s) if s == "off" => Some(CacheSetting::Off),
            Value::Table(_) => Cache::read(c, v, k).map(|t| CacheSetting::On(Box::new(t))),
            _ => {
                c.expected(k, "\"off\" or a table of caches", v);
                None
            }
        }
    }
    fn doc() -> TypeDoc {
        let t = <Cache as Leaf>::doc();
        TypeDoc {
            name: "`\"off\"` \\| table".into(),
            schema: serde_json::json!({ "anyOf": [ { "const": "off" }, t.schema ] }),
        }
    }
}

/// What profile `p` sets: its caches and its RX buffer.
pub fn apply_profile(n: &mut NicParams, p: NicProfile) {
    n.profile = p;
    match p {
        NicProfile::Ideal => n.cache = None,
        NicProfile::Commodity => {
            n.cache = Some(CacheParams::COMMODITY);
            // Commodity RNICs recover loss with go-back-N (Wang et al. 2023 §2).
            n.transport = crate::nic::params::TransportKind::Gbn;
        }
        NicProfile::Srnic => {
            n.cache = Some(CacheParams::SRNIC);
            // Selective repeat with bitmaps in host memory.
            n.transport = crate::nic::params::TransportKind::Srnic;
            // The seed's 0.6 MB receiving buffer; pause thresholds kept below it.
            n.rx.buffer = Bytes(600_000);
        }
    }
}

fn entries(ctx: &mut Ctx, f: &V<Entries>, to: &mut Option<u32>) {
    if let Some(x) = ctx.get(f) {
        *to = Some(x as u32);
    }
}

/// Apply a `cache` value onto `n` (after its profile).
pub fn apply_cache(ctx: &mut Ctx, f: &V<CacheV>, n: &mut NicParams) {
    let Some(setting) = ctx.get(f) else { return };
    let t = match setting {
        CacheSetting::Off => {
            n.cache = None;
            return;
        }
        CacheSetting::On(t) => t,
    };
    let c = n.cache.get_or_insert(CacheParams::NONE);
    entries(ctx, &t.qpc_entries, &mut c.qpc_entries);
    entries(ctx, &t.mtt_entries, &mut c.mtt_entries);
    entries(ctx, &t.wqe_entries, &mut c.wqe_entries);
    if let Some(x) = ctx.get(&t.miss_latency) {
        c.miss_latency = x;
    }
    if let Some(b) = ctx.get(&t.page_size) {
        if b.0 == 0 || !b.0.is_power_of_two() {
            let msg = format!("page size {} is not a power of two", b.written());
            ctx.err(&t.page_size.key, msg);
        } else {
            c.page_size = b.0;
        }
    }
}
