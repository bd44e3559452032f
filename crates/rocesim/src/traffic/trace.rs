//! Trace files: flows listed in a CSV file with the header `start_ns,src,dst,size_bytes` or
//! `start_ns,src,dst,size_bytes,dscp`.

use super::{FlowKind, FlowSpec};
use crate::units::Time;

/// At most this many errors are listed per trace file.
pub const MAX_TRACE_ERRORS: usize = 20;

/// The flows of the trace `text` (named `file` in errors). `host` resolves a host name (an
/// error says why not; `None` skips the check); `dscp` is the default DSCP of a sender.
/// Errors name the file and line, at most [`MAX_TRACE_ERRORS`] of them plus a count.
pub fn parse(
    text: &str,
    file: &str,
    host: &dyn Fn(&str) -> Option<Result<u32, String>>,
    dscp: &dyn Fn(u32) -> u8,
) -> Result<Vec<FlowSpec>, Vec<String>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((n, header)) = lines.next() else {
        return Err(vec![format!(
            "{file} is empty (expected the header start_ns,src,dst,size_bytes[,dscp])"
        )]);
    };
    let cols: Vec<&str> = header
        .split(',')
        .map(|c| c.trim().trim_start_matches('\u{feff}'))
        .collect();
    let with_dscp = match cols.as_slice() {
        ["start_ns", "src", "dst", "size_bytes"] => false,
        ["start_ns", "src", "dst", "size_bytes", "dscp"] => true,
        _ => {
            let found: String = header.chars().take(80).collect();
            return Err(vec![format!(
                "{file} line {}: expected the header `start_ns,src,dst,size_bytes` or \
                 `start_ns,src,dst,size_bytes,dscp`, found `{found}`",
                n + 1
            )]);
        }
    };
    let mut errors = Vec::new();
    let mut flows = Vec::new();
    for (n, line) in lines {
        match row(line, with_dscp, host, dscp) {
            Ok(Some(f)) => flows.push(f),
            Ok(None) => {}
            Err(es) => errors.extend(
                es.into_iter()
                    .map(|e| format!("{file} line {}: {e}", n + 1)),
            ),
        }
    }
    if errors.is_empty() {
        return Ok(flows);
    }
    let total = errors.len();
    errors.truncate(MAX_TRACE_ERRORS);
    if total > MAX_TRACE_ERRORS {
        errors.push(format!(
            "{file}: {} more errors not shown",
            total - MAX_TRACE_ERRORS
        ));
    }
    Err(errors)
}

/// One data line: a flow, `None` when hosts are not checked, or what is wrong with it.
fn row(
    line: &str,
    with_dscp: bool,
    host: &dyn Fn(&str) -> Option<Result<u32, String>>,
    dscp: &dyn Fn(u32) -> u8,
) -> Result<Option<FlowSpec>, Vec<String>> {
    let ncols = if with_dscp { 5 } else { 4 };
    let cols: Vec<&str> = line.split(',').map(str::trim).collect();
    if cols.len() != ncols {
        return Err(vec![format!(
            "expected {ncols} columns, found {}",
            cols.len()
        )]);
    }
    let mut errs = Vec::new();
    let start = cols[0]
        .parse::<u64>()
        .ok()
        .and_then(|ns| ns.checked_mul(1000));
    if start.is_none() {
        errs.push(format!(
            "start_ns `{}` is not a time in nanoseconds",
            cols[0]
        ));
    }
    let mut end = |name: &str, col: &str| match host(name) {
        Some(Err(e)) => {
            errs.push(format!("{col}: {e}"));
            None
        }
        r => r.and_then(Result::ok),
    };
    let (src, dst) = (end(cols[1], "src"), end(cols[2], "dst"));
    if cols[1] == cols[2] {
        errs.push(format!("a flow cannot go from `{}` to itself", cols[1]));
    }
    let size = cols[3].parse::<u64>().ok().filter(|s| *s > 0);
    if size.is_none() {
        errs.push(format!(
            "size_bytes `{}` is not a positive integer",
            cols[3]
        ));
    }
    let given = if with_dscp {
        cols[4].parse::<u8>().ok().filter(|d| *d <= 63)
    } else {
        None
    };
    if with_dscp && given.is_none() {
        errs.push(format!("dscp `{}` is not in 0..=63", cols[4]));
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let (Some(src), Some(dst)) = (src, dst) else {
        return Ok(None);
    };
    Ok(Some(FlowSpec::new(
        src,
        dst,
        size,
        Time(start.unwrap_or(0)),
        given.unwrap_or_else(|| dscp(src)),
        FlowKind::RdmaWrite,
    )))
}
