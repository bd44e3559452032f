//! `rocesim headroom`: the lossless PG headroom of one port from the 802.1Qbb / 802.3 delay
//! budget, term by term (the same code as `headroom = "auto"`).

use std::process::ExitCode;

use rocesim::config::leaf::parse_metres;
use rocesim::fabric::headroom::{response_delay, HeadroomBudget, NS_PER_METRE};
use rocesim::fabric::params::pause_response_quanta;
use rocesim::packet::{FrameOverhead, RETH};
use rocesim::units::{Rate, Time};

/// The command's inputs, as typed on the command line.
pub struct Args {
    /// Port speed, e.g. `100G`.
    pub speed: String,
    /// Cable length, e.g. `40m`.
    pub cable: String,
    /// Payload MTU of the RoCE frames.
    pub mtu: u32,
    /// Peer response time (default: the 802.3 maximum for the speed).
    pub nic_response: Option<String>,
    /// Bytes of headers per data frame on the wire (`nic.frame_overhead`).
    pub overhead: u32,
}

/// Every argument checked; all problems listed at once.
fn parse(a: &Args) -> Result<(Rate, f64, Option<Time>), Vec<String>> {
    let mut errs = Vec::new();
    let rate = Rate::parse(&a.speed).map_err(|e| errs.push(format!("--speed: {e}")));
    let cable = parse_metres(&a.cable).map_err(|e| errs.push(format!("--cable: {e}")));
    if let Ok(m) = cable {
        if !(0.0..=1e7).contains(&m) {
            errs.push(format!("--cable: {m} m is out of range"));
        }
    }
    let resp = a.nic_response.as_deref().map(Time::parse).transpose();
    let resp = resp.map_err(|e| errs.push(format!("--nic-response: {e}")));
    if !(64..=65_536).contains(&a.mtu) {
        errs.push(format!("--mtu: {} is outside 64..=65536", a.mtu));
    }
    match (rate, cable, resp) {
        (Ok(r), Ok(c), Ok(t)) if errs.is_empty() => Ok((r, c, t)),
        _ => Err(errs),
    }
}

/// Print the budget; exit code 2 on bad arguments.
pub fn headroom(a: &Args) -> ExitCode {
    let (rate, cable, resp) = match parse(a) {
        Ok(x) => x,
        Err(errs) => {
            errs.iter().for_each(|e| eprintln!("error: {e}"));
            return ExitCode::from(2);
        }
    };
    let frame = FrameOverhead(a.overhead).data(a.mtu, true);
    let response = response_delay(resp, rate);
    let b = HeadroomBudget::new(rate, Time::ZERO, cable, frame, response);
    let why = match resp {
        Some(_) => "as given by --nic-response".to_string(),
        None => format!(
            "the 802.3 Annex 31B maximum, {} quanta",
            pause_response_quanta(rate)
        ),
    };
    println!(
        "lossless PG headroom: {rate} port, {cable} m of cable, MTU {} (largest frame {frame} B on \
         the wire: MTU + {} B headers + {RETH} B RETH)",
        a.mtu, a.overhead
    );
    println!(
        "  propagation {:>9}     one way ({cable} m at {NS_PER_METRE} ns/m)",
        b.propagation.to_string()
    );
    let row = |name: &str, v: u64, what: String| println!("  {name:<11} {v:>9} B   {what}");
    row(
        "in flight",
        b.in_flight,
        format!("2 × {rate} × {}", b.propagation),
    );
    row(
        "frames",
        b.frames,
        format!("2 × {frame} B: the frame the pause waits behind, the peer's frame in progress"),
    );
    let us = response.ps() as f64 / 1e6;
    row(
        "response",
        b.response,
        format!("{rate} × {us:.3} us ({why})"),
    );
    row("pause frame", b.pfc_frame, "the PFC frame itself".into());
    row(
        "crossing",
        b.crossing,
        format!("{frame} B: the frame that crossed XOFF, charged whole to the headroom"),
    );
    row(
        "xoff",
        b.xoff(),
        "headroom: the sum above (SONiC `xoff`)".into(),
    );
    row("xon", b.xon(), "2 × largest frame (SONiC `xon`)".into());
    row("size", b.size(), "xoff + xon (SONiC `size`)".into());
    ExitCode::SUCCESS
}
