"""Numbers computed from a :class:`rocesim.Result` that searches and sweeps often optimise."""

from __future__ import annotations

import pyarrow.compute as pc

from ._result import Result


def slowdown_percentile(result: Result, q: float = 0.99, max_size: int | None = None) -> float:
    """The ``q`` quantile (nearest rank, as summary.json) of the FCT slowdown of completed
    flows, only those smaller than ``max_size`` bytes when given; NaN when there are none."""
    f = result.flows
    mask = pc.is_valid(f["slowdown"])
    if max_size is not None:
        mask = pc.and_(mask, pc.less(f["size_bytes"], max_size))
    s = sorted(f.filter(mask)["slowdown"].to_pylist())
    if not s:
        return float("nan")
    rank = max(1, -(-int(q * len(s) * 1_000_000) // 1_000_000))  # ceil(q·n), at least 1
    return s[min(rank, len(s)) - 1]


def max_paused_fraction(result: Result) -> float:
    """The largest share of the run any one egress priority spent paused by PFC (from
    pause_intervals): 0 without pauses, near 1 for a port stuck in a pause storm."""
    p = result.pause_intervals
    end = result.summary["sim_time_ns"]
    if p.num_rows == 0 or end == 0:
        return 0.0
    sums = p.group_by(["node", "port", "prio"]).aggregate([("duration_ns", "sum")])
    return pc.max(sums["duration_ns_sum"]).as_py() / end


__all__ = ["slowdown_percentile", "max_paused_fraction"]
