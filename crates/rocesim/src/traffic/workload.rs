//! Workload expansion: a checked `[[workload]]` (its values typed, its hosts resolved) into
//! flows. What can only be judged with the topology and the other values (too few hosts,
//! too many flows, a generator that cannot serve the selected hosts) is an error naming the
//! key that caused it.

use super::cdf::{Cdf, Sampling};
use super::generators;
use super::FlowSpec;
use crate::topology::{NodeRef, Topology};
use crate::units::{Rate, Time};

/// Upper bound on the flows one workload may generate (a guard against a mistyped period or
/// load that would exhaust memory).
pub const MAX_GENERATED_FLOWS: u64 = 10_000_000;

/// A problem with a workload: the key (of the `[[workload]]` table) and what is wrong.
pub type WlError = (&'static str, String);

/// A generated workload, checked and typed (host ids index `Topology::hosts`; sizes are
/// bytes, `None` = long-lived).
#[derive(Clone, Debug)]
pub enum Workload {
    /// Poisson arrivals on every host of `hosts`.
    Poisson {
        /// Flow-size distribution.
        cdf: Cdf,
        /// Offered load, a fraction of each host's link rate.
        load: f64,
        /// Senders and receivers.
        hosts: Vec<u32>,
        /// Arrivals are generated in [0, until).
        until: Time,
        /// The BENCHMARKS.md SplitMix64 generator instead of one stream per host.
        hpcc: bool,
        /// Master seed.
        seed: u64,
    },
    /// `senders` → `receiver`, once or in rounds.
    Incast {
        /// The senders (the receiver is left out).
        senders: Vec<u32>,
        /// The receiver.
        receiver: u32,
        /// Bytes per sender per round.
        size: Option<u64>,
        /// Start of the first round.
        at: Time,
        /// Period between rounds.
        repeat: Option<Time>,
        /// Number of rounds.
        count: Option<u64>,
        /// With `repeat` and no `count`: rounds start before this (default: the run's end).
        until: Option<Time>,
    },
    /// A random derangement over `hosts` (with a `seed`), or every ordered pair (without).
    Pairs {
        /// The hosts.
        hosts: Vec<u32>,
        /// Bytes per flow.
        size: Option<u64>,
        /// When the flows start.
        at: Time,
        /// Seed of the derangement; `None` for all-to-all.
        seed: Option<u64>,
    },
    /// Guo et al.'s ToR-to-ToR pattern.
    TorToTor {
        /// Pods, servers, connections, size and start.
        params: generators::TorToTor,
        /// Master seed (source ports).
        seed: u64,
    },
    /// LinkedIn's closed-loop storage read test.
    StorageRead {
        /// The reader.
        client: u32,
        /// The storage targets (the client is left out).
        targets: Vec<u32>,
        /// Bytes per I/O.
        io_size: u64,
        /// I/Os outstanding per target.
        queue_depth: u32,
        /// I/Os per target.
        count: u32,
        /// When the first I/Os start.
        at: Time,
    },
    /// RDMA Pingmesh probes.
    Pingmesh {
        /// The probing servers.
        hosts: Vec<u32>,
        /// Time between two probes of one server to one level.
        interval: Time,
        /// Probe payload, bytes.
        size: u64,
        /// The levels probed.
        levels: Vec<generators::PingLevel>,
        /// A probe not acknowledged within this time is an error.
        timeout: Time,
        /// Probing starts at this time.
        at: Time,
        /// Probes start before this time.
        until: Time,
        /// Master seed (phases and peers).
        seed: u64,
    },
}

/// What expansion needs from the scenario around the workload.
pub struct Env<'a> {
    /// The built topology.
    pub topo: &'a Topology,
    /// The workload's index in `[[workload]]` (its random stream).
    pub index: u64,
    /// The DSCP of a flow from a sender.
    pub dscp: &'a dyn Fn(u32) -> u8,
    /// `sim.duration`, when valid.
    pub duration: Option<Time>,
}

fn too_many(n: f64, key: &'static str) -> Result<(), WlError> {
    if n > MAX_GENERATED_FLOWS as f64 {
        let msg = format!(
            "this workload would generate about {n:.0} flows (at most {MAX_GENERATED_FLOWS})"
        );
        return Err((key, msg));
    }
    Ok(())
}

/// The line rate of each host's (first) link, indexed by host: one pass over the links, so a
/// fabric of a million hosts does not scan its links once per host.
fn host_rates(topo: &Topology) -> Vec<Option<Rate>> {
    let mut rates = vec![None; topo.hosts.len()];
    for l in &topo.links {
        for end in [l.a, l.b] {
            if let NodeRef::Host(h) = end {
                let r = &mut rates[h as usize];
                r.get_or_insert(l.rate);
            }
        }
    }
    rates
}

/// A Poisson workload's flows: its generic generator's arrival process (flows made on
/// demand), or the HPCC generator's sorted list.
enum PoissonFlows {
    Arrivals(generators::PoissonArrivals),
    Listed(Vec<FlowSpec>),
}

/// The arrival process of `w` when it is a Poisson workload with the generic generator (its
/// flows can be made on demand, `traffic::stream`); `None` for every other workload.
pub fn poisson_arrivals(
    w: &Workload,
    e: &Env<'_>,
) -> Option<Result<generators::PoissonArrivals, WlError>> {
    let Workload::Poisson {
        cdf,
        load,
        hosts,
        until,
        hpcc: false,
        seed,
    } = w
    else {
        return None;
    };
    match poisson(e, (cdf, *load, hosts, *until, false, *seed)) {
        Ok(PoissonFlows::Arrivals(a)) => Some(Ok(a)),
        Ok(PoissonFlows::Listed(_)) => None,
        Err(x) => Some(Err(x)),
    }
}

fn poisson(
    e: &Env<'_>,
    (cdf, load, hosts, until, hpcc, seed): (&Cdf, f64, &[u32], Time, bool, u64),
) -> Result<PoissonFlows, WlError> {
    let line = host_rates(e.topo);
    let rates: Vec<f64> = hosts
        .iter()
        .map(|&h| line[h as usize].map_or(0.0, |r| r.bps() as f64))
        .collect();
    if let Some(i) = rates.iter().position(|&r| r <= 0.0) {
        return Err((
            "hosts",
            format!(
                "host `{}` has no link",
                e.topo.hosts[hosts[i] as usize].name
            ),
        ));
    }
    if hosts.len() < 2 {
        return Err((
            "hosts",
            "Poisson traffic needs at least two hosts (each sends to the others)".into(),
        ));
    }
    let bits = rates
        .iter()
        .map(|r| until.secs_f64() * r * load)
        .sum::<f64>();
    too_many(bits / (cdf.mean() * 8.0).max(1.0), "until")?;
    if !hpcc {
        let p = generators::Poisson {
            hosts,
            rates_bps: &rates,
            load,
            until,
            cdf,
        };
        return Ok(PoissonFlows::Arrivals(generators::PoissonArrivals::new(
            &p, seed, e.index,
        )));
    }
    if cdf.sampling != Sampling::Interpolated {
        return Err((
            "generator",
            "the hpcc generator samples sizes by interpolation; this `cdf` uses step \
                 sampling (set sampling = \"interpolated\" or generator = \"rocesim\")"
                .into(),
        ));
    }
    if rates.iter().any(|&r| r != rates[0]) {
        return Err((
            "hosts",
            "the hpcc generator takes one link rate and the selected hosts have different \
                 ones; split them into one workload per rate or use generator = \"rocesim\""
                .into(),
        ));
    }
    let n = hosts.len() as u32;
    let arrivals = super::poisson::hpcc_poisson(n, load, rates[0], until.ns(), seed, cdf);
    Ok(PoissonFlows::Listed(
        arrivals
            .into_iter()
            .map(|a| {
                let src = hosts[a.src as usize];
                FlowSpec::new(
                    src,
                    hosts[a.dst as usize],
                    Some(a.size),
                    Time::from_ns(a.start_ns),
                    (e.dscp)(src),
                    super::FlowKind::RdmaWrite,
                )
            })
            .collect(),
    ))
}

/// The number of incast rounds.
fn rounds(
    e: &Env<'_>,
    at: Time,
    repeat: Option<Time>,
    count: Option<u64>,
    until: Option<Time>,
) -> Result<u64, WlError> {
    match (repeat, count) {
        (None, Some(n)) if n > 1 => Err((
            "count",
            "more than one round needs `repeat` (the period)".into(),
        )),
        (_, Some(_)) if until.is_some() => {
            Err(("until", "give either `count` or `until`, not both".into()))
        }
        (_, Some(n)) => Ok(n),
        (Some(r), None) => {
            // Without a valid `sim.duration` there is nothing to count to (already reported).
            let end = until.or(e.duration).ok_or(("at", String::new()))?;
            if at >= end {
                return Err((
                    "at",
                    format!("the first round starts at or after the end ({end})"),
                ));
            }
            Ok((end.ps() - at.ps()).div_ceil(r.ps()))
        }
        (None, None) if until.is_some() => {
            Err(("until", "`until` needs `repeat` (the period)".into()))
        }
        (None, None) => Ok(1),
    }
}

/// The flows of `w`.
pub fn expand(w: &Workload, e: &Env<'_>) -> Result<Vec<FlowSpec>, WlError> {
    match w {
        Workload::Poisson {
            cdf,
            load,
            hosts,
            until,
            hpcc,
            seed,
        } => match poisson(e, (cdf, *load, hosts, *until, *hpcc, *seed))? {
            PoissonFlows::Arrivals(a) => Ok(a
                .map(|a| generators::flow(a.src, a.dst, Some(a.size), a.start, (e.dscp)(a.src)))
                .collect()),
            PoissonFlows::Listed(f) => Ok(f),
        },
        Workload::Incast { .. } => incast(w, e),
        Workload::Pairs {
            hosts,
            size,
            at,
            seed,
        } => {
            let kind = if seed.is_some() {
                "permutation"
            } else {
                "all_to_all"
            };
            if hosts.len() < 2 {
                return Err(("hosts", format!("`{kind}` needs at least two hosts")));
            }
            if let Some(seed) = seed {
                return Ok(generators::permutation(
                    hosts, *size, *at, *seed, e.index, e.dscp,
                ));
            }
            let n = hosts.len() as f64;
            too_many(n * (n - 1.0), "hosts")?;
            Ok(generators::all_to_all(hosts, *size, *at, e.dscp))
        }
        Workload::TorToTor { params, seed } => {
            generators::tor_to_tor(e.topo, params, *seed, e.index, e.dscp)
                .map_err(|g| (g.key, g.message))
        }
        Workload::StorageRead { .. } => storage_read(w, e),
        Workload::Pingmesh { .. } => pingmesh(w, e),
    }
}

fn pingmesh(w: &Workload, e: &Env<'_>) -> Result<Vec<FlowSpec>, WlError> {
    let Workload::Pingmesh {
        hosts,
        interval,
        size,
        levels,
        timeout,
        at,
        until,
        seed,
    } = w
    else {
        return Ok(Vec::new());
    };
    if at >= until {
        return Err((
            "at",
            format!("probing starts at or after it ends ({until})"),
        ));
    }
    let p = generators::Pingmesh {
        hosts,
        interval: *interval,
        size: *size,
        levels,
        at: *at,
        until: *until,
        timeout: *timeout,
    };
    too_many(generators::probe_count(&p), "interval")?;
    let flows = generators::pingmesh(e.topo, &p, *seed, e.index, e.dscp);
    if flows.is_empty() {
        let names: Vec<&str> = levels.iter().map(|l| l.name()).collect();
        let msg = format!(
            "no two of the selected hosts are at the requested level(s) ({}): no probe to send",
            names.join(", ")
        );
        return Err(("levels", msg));
    }
    Ok(flows)
}

fn incast(w: &Workload, e: &Env<'_>) -> Result<Vec<FlowSpec>, WlError> {
    let Workload::Incast {
        senders,
        receiver,
        size,
        at,
        repeat,
        count,
        until,
    } = w
    else {
        return Ok(Vec::new());
    };
    let rounds = rounds(e, *at, *repeat, *count, *until)?;
    let n = senders.iter().filter(|&s| s != receiver).count();
    if n == 0 {
        return Err(("senders", "no sender other than the receiver".into()));
    }
    too_many(rounds as f64 * n as f64, "repeat")?;
    let repeat = repeat.unwrap_or(Time::ZERO);
    let (receiver, size, at) = (*receiver, *size, *at);
    let p = generators::Incast {
        senders,
        receiver,
        size,
        at,
        repeat,
        rounds,
    };
    Ok(generators::incast(&p, e.dscp))
}

fn storage_read(w: &Workload, e: &Env<'_>) -> Result<Vec<FlowSpec>, WlError> {
    let Workload::StorageRead {
        client,
        targets,
        io_size,
        queue_depth,
        count,
        at,
    } = w
    else {
        return Ok(Vec::new());
    };
    let n = targets.iter().filter(|&t| t != client).count();
    if n == 0 {
        return Err(("targets", "no target other than the client".into()));
    }
    too_many(n as f64 * f64::from(*count), "count")?;
    let (client, io_size, queue_depth, count, at) = (*client, *io_size, *queue_depth, *count, *at);
    let p = generators::StorageRead {
        client,
        targets,
        io_size,
        queue_depth,
        count,
        at,
    };
    Ok(generators::storage_read(&p, e.dscp))
}
