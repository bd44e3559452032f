//! The checked, typed scenario: what the config layer hands to the simulator builder.
//! Nothing here is text to be interpreted; every value has its unit type.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::traffic::stream::FlowStream;

use crate::fabric::params::SwitchParams;
use crate::faults::FaultSpec;
use crate::nic::params::NicParams;
use crate::topology::Topology;
use crate::traffic::FlowSpec;
use crate::units::Time;

/// `[sim]`: run control.
#[derive(Clone, Debug, PartialEq)]
pub struct SimParams {
    /// Simulated time to run.
    pub duration: Time,
    /// Master seed; every component derives an independent RNG stream from it.
    pub seed: u64,
    /// Start of the statistics window (goodput, counters in the summary).
    pub warmup: Time,
    /// End the run as soon as every finite flow has completed (default true).
    pub stop_when_done: bool,
    /// Report a PFC deadlock once its wait-for cycle has persisted this long (zero: the
    /// detector is off).
    pub deadlock_detection: Time,
    /// End the run when a deadlock is reported.
    pub stop_on_deadlock: bool,
    /// Stop the run after this much wall-clock time (`None`: no limit).
    pub wall_limit: Option<std::time::Duration>,
    /// The most memory the run may be estimated to need before it starts
    /// ([`super::memory`]).
    pub max_memory: crate::units::Bytes,
    /// Threads the fabric is split across (`sim.threads`; 1: one thread, no partitioning).
    pub threads: u16,
    /// When switches look up the next switch's egress port ahead (`sim.route_ahead`).
    pub route_ahead: RouteAheadMode,
}

/// When a switch looks up the egress port a frame will take at the next switch
/// (`sim.route_ahead`, `fabric::route_ahead`). The same switch turns on the run loop's other
/// hints for fabrics that outgrow the cache: each arrival's INT record and, at a host, its
/// queue pair start loading when its wheel slot starts draining. A matter of speed only:
/// results are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteAheadMode {
    /// When the switches' port state outgrows a core's cache, and no fault can change
    /// routes.
    Auto,
    /// Whenever no fault can change routes.
    On,
    /// Never: each switch routes a frame when it arrives.
    Off,
}

/// Format of the result tables (`output.format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated values (`flows.csv`, ...).
    Csv,
    /// Apache Parquet (`flows.parquet`, ...), with units and meanings in the schema metadata.
    Parquet,
    /// Both: every table as CSV and as Parquet.
    Both,
}

impl TableFormat {
    /// True when the tables are written as CSV.
    pub fn csv(self) -> bool {
        matches!(self, TableFormat::Csv | TableFormat::Both)
    }

    /// True when the tables are written as Parquet.
    pub fn parquet(self) -> bool {
        matches!(self, TableFormat::Parquet | TableFormat::Both)
    }
}

/// `[output]`: what to write and where.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputParams {
    /// Result directory.
    pub dir: PathBuf,
    /// Per-flow throughput sampling interval; `None` = no throughput time series.
    pub throughput_interval: Option<Time>,
    /// Queue-depth sampling interval; `None` = no queue time series.
    pub queue_sample_interval: Option<Time>,
    /// Switch counter sampling interval; `None` = no counter time series.
    pub counters_interval: Option<Time>,
    /// Table format.
    pub format: TableFormat,
    /// Write report.html.
    pub report: bool,
    /// Keep at most this many pause-log rows (pfc.csv); later ones are counted, not kept.
    pub max_pfc_log: usize,
}

/// A complete, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Scenario name (the file stem).
    pub name: String,
    /// Run control.
    pub sim: SimParams,
    /// The built topology.
    pub topology: Topology,
    /// Parameters per switch, indexed like `topology.switches`.
    pub switches: Vec<SwitchParams>,
    /// Parameters per host NIC, indexed like `topology.hosts`.
    pub nics: Vec<NicParams>,
    /// The listed flows (explicit and generated), ids `0 .. flows.len()`, in any start order.
    pub flows: Vec<FlowSpec>,
    /// Workloads whose flows are made as the run reaches them (`traffic::stream`), ids after
    /// the listed flows and each other's. Walk every flow with [`Scenario::each_flow`].
    pub streams: Vec<FlowStream>,
    /// Faults.
    pub faults: Vec<FaultSpec>,
    /// Output settings.
    pub output: OutputParams,
    /// Parameters of the TCP flows.
    pub tcp: crate::nic::tcp::TcpParams,
}

impl Scenario {
    /// How many flows it defines, listed and streamed.
    pub fn flow_count(&self) -> usize {
        self.flows.len() + self.streams.iter().map(|s| s.count as usize).sum::<usize>()
    }

    /// Make every stream's flows listed ones (same ids and specs), for what needs the whole
    /// list at once: QP expansion renumbers flows.
    pub fn list_streams(&mut self) {
        for s in std::mem::take(&mut self.streams) {
            self.flows.extend(s.iter().map(|(_, f)| f));
        }
    }

    /// Every flow in id order: the listed ones borrowed, the streamed ones made anew (a walk
    /// costs their generation, not their memory).
    pub fn each_flow(&self) -> impl Iterator<Item = Cow<'_, FlowSpec>> + '_ {
        let listed = self.flows.iter().map(Cow::Borrowed);
        let streamed = (self.streams.iter()).flat_map(|s| s.iter().map(|(_, f)| Cow::Owned(f)));
        listed.chain(streamed)
    }
}
