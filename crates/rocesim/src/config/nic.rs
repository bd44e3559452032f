//! `[nic]`: defaults for every host NIC and `[nic.host.<name>]` partial overrides.

use std::collections::{BTreeMap, HashMap};

use toml::{Table, Value};

use super::check::{at, fmt_bytes, Ctx};
use super::suggest;
use super::switch::Origins;
use crate::fabric::params::SwitchParams;
use crate::nic::params::{CcKind, NicParams, TransportKind};
use crate::topology::Topology;

const P: &str = "nic";

/// Keys of `[nic]` and of `[nic.host.<name>]`.
pub const KEYS: &[&str] = &[
    "mtu",
    "transport",
    "cc",
    "dscp",
    "cnp_dscp",
    "ack_every",
    "rto",
    "ttl",
    "dscp_to_tc",
    "pfc_enable",
    "pfc_quanta",
    "pfc_response",
    "rx",
    "pfc_prevention_tout",
    "rcm",
    "dcqcn",
    "hpcc",
    "timely",
    "dctcp",
    "min_time_between_cnps",
    "base_rtt",
    "cache",
];

/// Apply one `[nic]`-shaped table onto `p`; `top` allows the `host` sub-table.
pub fn apply(
    ctx: &mut Ctx,
    t: &Table,
    prefix: &str,
    p: &mut NicParams,
    o: &mut Origins,
    top: bool,
) {
    if top {
        let mut keys = KEYS.to_vec();
        keys.push("host");
        ctx.keys(t, prefix, &keys);
    } else {
        ctx.keys(t, prefix, KEYS);
    }
    for (key, v) in t {
        let k = at(prefix, key);
        let ok = match key.as_str() {
            "mtu" => ctx
                .uint(v, &k, 64, 9000)
                .map(|x| p.mtu = x as u32)
                .is_some(),
            "transport" => ctx
                .supported(v, &k, &["gb0", "gbn"], &["irn", "srnic"])
                .map(|x| {
                    p.transport = if x == "gb0" {
                        TransportKind::Gb0
                    } else {
                        TransportKind::Gbn
                    }
                })
                .is_some(),
            "cc" => ctx
                .supported(
                    v,
                    &k,
                    &["none", "rcm", "dcqcn", "hpcc", "timely", "dctcp"],
                    &[],
                )
                .map(|x| {
                    p.cc = match x {
                        "rcm" => CcKind::Rcm,
                        "dcqcn" => CcKind::Dcqcn,
                        "hpcc" => CcKind::Hpcc,
                        "timely" => CcKind::Timely,
                        "dctcp" => CcKind::Dctcp,
                        _ => CcKind::None,
                    }
                })
                .is_some(),
            "hpcc" => super::cc_hpcc_timely_dctcp::parse_hpcc(ctx, v, &k, &p.cc_params.hpcc)
                .map(|x| p.cc_params.hpcc = x)
                .is_some(),
            "timely" => super::cc_hpcc_timely_dctcp::parse_timely(ctx, v, &k, &p.cc_params.timely)
                .map(|x| p.cc_params.timely = x)
                .is_some(),
            "dctcp" => super::cc_hpcc_timely_dctcp::parse_dctcp(ctx, v, &k, &p.cc_params.dctcp)
                .map(|x| p.cc_params.dctcp = x)
                .is_some(),
            "min_time_between_cnps" => ctx
                .time(v, &k)
                .map(|x| p.min_time_between_cnps = x)
                .is_some(),
            "base_rtt" => match v {
                Value::String(s) if s == "auto" => {
                    p.base_rtt = None;
                    true
                }
                _ => ctx.time(v, &k).map(|x| p.base_rtt = Some(x)).is_some(),
            },
            "dscp" => ctx.dscp(v, &k).map(|x| p.dscp = x).is_some(),
            "cnp_dscp" => ctx.dscp(v, &k).map(|x| p.cnp_dscp = x).is_some(),
            "ack_every" => ctx
                .uint(v, &k, 1, u32::MAX as u64)
                .map(|x| p.ack_every = x as u32)
                .is_some(),
            "rto" => ctx.time(v, &k).map(|x| p.rto = x).is_some(),
            "pfc_response" => match v {
                Value::String(s) if s == "auto" => {
                    p.pfc_response = None;
                    true
                }
                _ => ctx.time(v, &k).map(|x| p.pfc_response = Some(x)).is_some(),
            },
            "ttl" => ctx.uint(v, &k, 1, 255).map(|x| p.ttl = x as u8).is_some(),
            "dscp_to_tc" => {
                let Some(t) = ctx.table(v, &k) else { continue };
                let mut map = [0u8; 64];
                let mut ok = true;
                for (d, tv) in t {
                    let full = at(&k, d);
                    match d.trim().parse::<u8>() {
                        Ok(i) if i <= 63 => match ctx.tc(tv, &full) {
                            Some(tc) => map[i as usize] = tc,
                            None => ok = false,
                        },
                        _ => {
                            ctx.err(full, format!("`{d}` is not a DSCP in 0..=63"));
                            ok = false;
                        }
                    }
                }
                if ok {
                    p.dscp_to_tc = map;
                }
                ok
            }
            "pfc_enable" => ctx.tc_mask(v, &k).map(|x| p.pfc_enable = x).is_some(),
            "pfc_quanta" => ctx
                .uint(v, &k, 0, 65535)
                .map(|x| p.pfc_quanta = x as u16)
                .is_some(),
            "pfc_prevention_tout" => ctx
                .time_or_off(v, &k)
                .map(|x| p.pfc_prevention_tout = x)
                .is_some(),
            "rx" => {
                let Some(rt) = ctx.table(v, &k) else { continue };
                ctx.keys(rt, &k, &["rate", "buffer", "xoff", "xon"]);
                let rx = &mut p.rx;
                for (sub, sv) in rt {
                    let sk = at(&k, sub);
                    let ok = match sub.as_str() {
                        "rate" => match sv {
                            Value::String(s) if s == "line" => {
                                rx.rate = None;
                                true
                            }
                            _ => ctx.rate(sv, &sk).map(|r| rx.rate = Some(r)).is_some(),
                        },
                        "buffer" => ctx.size(sv, &sk).map(|x| rx.buffer = x).is_some(),
                        "xoff" => ctx.size(sv, &sk).map(|x| rx.xoff = x).is_some(),
                        "xon" => ctx.size(sv, &sk).map(|x| rx.xon = x).is_some(),
                        _ => false,
                    };
                    if ok {
                        o.set(&format!("rx.{sub}"), prefix);
                    }
                }
                true
            }
            // Parameters of later features: checked to be tables, otherwise ignored for now.
            "dcqcn" => super::cc_dcqcn_rcm::parse_dcqcn(ctx, v, &k, &p.cc_params.dcqcn)
                .map(|x| {
                    // The notification point paces CNPs by the profile's interval.
                    p.min_time_between_cnps = x.min_time_between_cnps;
                    p.cc_params.dcqcn = x;
                })
                .is_some(),
            "rcm" => super::cc_dcqcn_rcm::parse_rcm(ctx, v, &k, &p.cc_params.rcm)
                .map(|x| p.cc_params.rcm = x)
                .is_some(),
            "cache" => ctx.table(v, &k).is_some(),
            _ => false,
        };
        if ok {
            o.set(key, prefix);
        }
    }
}

/// Cross-key rules of one resolved NIC.
pub fn validate(ctx: &mut Ctx, p: &NicParams, o: &Origins) {
    let rx = &p.rx;
    if rx.xon > rx.xoff {
        ctx.err(
            o.key2("rx.xon", "rx.xoff", P),
            format!(
                "XON ({}) is above XOFF ({})",
                fmt_bytes(rx.xon),
                fmt_bytes(rx.xoff)
            ),
        );
    }
    if rx.xoff > rx.buffer {
        ctx.err(
            o.key2("rx.xoff", "rx.buffer", P),
            format!(
                "XOFF ({}) is above the RX buffer ({})",
                fmt_bytes(rx.xoff),
                fmt_bytes(rx.buffer)
            ),
        );
    }
}

/// The resolved `[nic]` section.
#[derive(Debug)]
pub struct Nics {
    /// One per host, when the topology is known and there were no errors.
    pub per_host: Option<Vec<NicParams>>,
    /// The largest MTU any NIC configuration uses.
    pub max_mtu: u32,
}

/// Check `[nic]` and resolve one [`NicParams`] per host of `topo`. The NIC's `dscp_to_tc` and
/// `pfc_enable` default to those of `[switch]` (`sw`).
pub fn parse(ctx: &mut Ctx, root: &Table, sw: &SwitchParams, topo: Option<&Topology>) -> Nics {
    let before = ctx.count();
    let mut base = NicParams {
        dscp_to_tc: sw.dscp_to_tc,
        pfc_enable: sw.pfc_enable,
        ..NicParams::default()
    };
    let mut origins = Origins::default();
    let mut hosts: BTreeMap<String, &Table> = BTreeMap::new();
    if let Some(v) = root.get(P) {
        if let Some(t) = ctx.table(v, P) {
            apply(ctx, t, P, &mut base, &mut origins, true);
            if let Some(hv) = t.get("host") {
                let hk = at(P, "host");
                if let Some(ht) = ctx.table(hv, &hk) {
                    for (name, v) in ht {
                        if let Some(st) = ctx.table(v, &at(&hk, name)) {
                            hosts.insert(name.clone(), st);
                        }
                    }
                }
            }
        }
    }
    validate(ctx, &base, &origins);
    let mut max_mtu = base.mtu;
    let mut layered: HashMap<&str, NicParams> = HashMap::new();
    for (name, t) in &hosts {
        let key = at(&at(P, "host"), name);
        let (mut p, mut o) = (base.clone(), origins.clone());
        apply(ctx, t, &key, &mut p, &mut o, false);
        validate(ctx, &p, &o);
        max_mtu = max_mtu.max(p.mtu);
        if let Some(topo) = topo {
            if !topo.hosts.iter().any(|h| &h.name == name) {
                if topo.switches.iter().any(|s| &s.name == name) {
                    ctx.err(
                        key,
                        format!("`{name}` is a switch, not a host (use [switch.name.{name}])"),
                    );
                } else {
                    let hint = suggest::hint(name, topo.hosts.iter().map(|h| h.name.as_str()));
                    ctx.err(key, format!("unknown host `{name}`{hint}"));
                }
            }
        }
        layered.insert(name.as_str(), p);
    }
    let per_host = topo.and_then(|topo| {
        let v: Vec<NicParams> = topo
            .hosts
            .iter()
            .map(|h| layered.get(h.name.as_str()).unwrap_or(&base).clone())
            .collect();
        (ctx.count() == before).then_some(v)
    });
    Nics { per_host, max_mtu }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Bytes, Rate, Time};

    fn run(s: &str) -> (NicParams, Ctx, u32) {
        let root: Table = s.parse().unwrap();
        let mut ctx = Ctx::new("n.toml");
        let sw = SwitchParams {
            pfc_enable: 0b10000,
            ..SwitchParams::default()
        };
        let topo = Topology {
            hosts: vec![crate::topology::HostSpec {
                name: "A".into(),
                pod: None,
            }],
            ..Topology::default()
        };
        let n = parse(&mut ctx, &root, &sw, Some(&topo));
        let p = n.per_host.map(|mut v| v.remove(0)).unwrap_or_default();
        (p, ctx, n.max_mtu)
    }

    #[test]
    fn reads_keys_and_defaults_from_switch() {
        let (p, ctx, _) = run(r#"
            [nic]
            mtu = 2048
            transport = "gb0"
            cc = "none"
            dscp = 24
            ack_every = 4
            rto = "2ms"
            rx = { rate = "20Gbps", buffer = "512KB", xoff = "256KB", xon = "200KB" }
            pfc_prevention_tout = "off"
            dcqcn = { profile = "paper" }
            [nic.host.A]
            ttl = 3
            "#);
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        assert_eq!(
            (p.mtu, p.transport, p.dscp, p.ack_every),
            (2048, TransportKind::Gb0, 24, 4)
        );
        assert_eq!(p.rto, Time::from_ms(2));
        assert_eq!(p.ttl, 3);
        assert_eq!(p.rx.rate, Some(Rate::gbps(20)));
        assert_eq!(p.rx.buffer, Bytes(512_000));
        assert_eq!(p.pfc_prevention_tout, None);
        assert_eq!(p.pfc_enable, 0b10000, "defaults to [switch] pfc_enable");
    }

    #[test]
    fn errors_name_their_keys() {
        let (_, ctx, max_mtu) = run(
            "[nic]\nmtu = 10000\ntransport = \"irn\"\ncc = \"dcqnc\"\ndscp = 64\nack_every = 0\n\
             rx = { xon = \"300KB\" }\n[nic.host.B]\nmtu = 4096\n[nic.host.A]\nrx = { buffer = \"100KB\" }\n",
        );
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "nic.mtu",
            "nic.transport",
            "nic.cc",
            "nic.dscp",
            "nic.ack_every",
            "nic.rx.xon",
            "nic.host.A.rx.buffer",
            "nic.host.B",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
        assert_eq!(max_mtu, 4096);
        let cc = ctx.errors.iter().find(|e| e.key == "nic.cc").unwrap();
        assert!(
            cc.message.contains("did you mean `dcqcn`"),
            "{}",
            cc.message
        );
    }
}
