"""matplotlib figures of a :class:`rocesim.Result`: per-flow throughput, queue depth, the pause
timeline per switch and FCT slowdown by flow size. Each function takes a Result, draws on
``ax`` (a new figure when omitted) and returns the figure."""

from __future__ import annotations

from typing import Iterable

import pyarrow.compute as pc

from ._result import Result


def _axes(ax, title: str, xlabel: str, ylabel: str):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 4))
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax.figure, ax


def throughput(result: Result, flows: Iterable[int] | None = None, ax=None, max_flows: int = 20):
    """Delivered throughput of each flow over time (timeseries/throughput.csv), Gb/s against
    ms; ``flows`` picks flow ids (default: the ``max_flows`` flows with the most bytes)."""
    fig, ax = _axes(ax, "Per-flow throughput", "time (ms)", "Gb/s")
    t = result.throughput.to_pandas()
    if flows is None:
        top = result.flows.to_pandas().nlargest(max_flows, "bytes_delivered")
        flows = top["flow_id"].tolist()
    names = dict(zip(result.flows["flow_id"].to_pylist(), result.flows["name"].to_pylist()))
    for f in flows:
        s = t[t["flow_id"] == f]
        ax.plot(s["time_ns"] / 1e6, s["gbps"], label=names.get(f, str(f)), lw=1)
    if len(ax.lines) <= 12 and ax.lines:
        ax.legend(fontsize="small")
    return fig


def queue_depth(result: Result, ax=None, max_queues: int = 12):
    """Egress queue depth over time (timeseries/queues.csv), KB against ms, for the
    ``max_queues`` queues that were deepest; each labelled node→peer and queue."""
    fig, ax = _axes(ax, "Queue depth", "time (ms)", "KB")
    q = result.queues.to_pandas()
    if q.empty:
        return fig
    ports = result.ports.to_pandas()
    peer = dict(zip(zip(ports["node"], ports["port"]), ports["peer"]))
    keys = (q.groupby(["node", "port", "queue"])["bytes"].max()
            .sort_values(ascending=False).head(max_queues).index)
    for node, port, queue in keys:
        s = q[(q["node"] == node) & (q["port"] == port) & (q["queue"] == queue)]
        label = f"{node}→{peer.get((node, port), port)} q{queue}"
        ax.step(s["time_ns"] / 1e6, s["bytes"] / 1e3, where="post", label=label, lw=1)
    ax.legend(fontsize="small")
    return fig


def pause_timeline(result: Result, ax=None):
    """Every interval an egress priority was paused (pause_intervals.csv), one lane per
    (node, port, priority), lanes grouped by node: where and when PFC stopped traffic."""
    fig, ax = _axes(ax, "PFC pause timeline", "time (ms)", "")
    p = result.pause_intervals.to_pandas()
    if p.empty:
        ax.text(0.5, 0.5, "no pause", ha="center", va="center", transform=ax.transAxes)
        return fig
    ports = result.ports.to_pandas()
    peer = dict(zip(zip(ports["node"], ports["port"]), ports["peer"]))
    lanes = sorted(p.groupby(["node", "port", "prio"]).groups.keys())
    nodes = sorted({n for n, _, _ in lanes})
    colours = {n: f"C{i % 10}" for i, n in enumerate(nodes)}
    for y, (node, port, prio) in enumerate(lanes):
        s = p[(p["node"] == node) & (p["port"] == port) & (p["prio"] == prio)]
        bars = list(zip(s["start_ns"] / 1e6, s["duration_ns"] / 1e6))
        ax.broken_barh(bars, (y - 0.4, 0.8), color=colours[node])
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"{n}→{peer.get((n, pt), pt)} p{pr}" for n, pt, pr in lanes],
                       fontsize="small")
    ax.set_ylim(-1, len(lanes))
    end = result.summary["sim_time_ns"] / 1e6
    ax.set_xlim(0, end)
    return fig


def fct_slowdown(result: Result, ax=None):
    """FCT slowdown of every completed flow against its size (log-log), with the median and
    99th percentile per size bucket of summary.json."""
    fig, ax = _axes(ax, "FCT slowdown by flow size", "flow size (bytes)", "slowdown")
    f = result.flows.filter(pc.is_valid(result.flows["slowdown"])).to_pandas()
    if f.empty:
        ax.text(0.5, 0.5, "no completed flow", ha="center", va="center",
                transform=ax.transAxes)
        return fig
    ax.scatter(f["size_bytes"], f["slowdown"], s=4, alpha=0.3, color="grey", label="flows")
    # Buckets of summary.json's fct_slowdown_by_size, drawn at their geometric middle.
    edges = {"<10KB": (1e3, 1e4), "10KB-100KB": (1e4, 1e5), "100KB-1MB": (1e5, 1e6),
             "1MB-10MB": (1e6, 1e7), ">=10MB": (1e7, 1e8)}
    xs, p50, p99 = [], [], []
    for label, b in (result.summary.get("fct_slowdown_by_size") or {}).items():
        if b.get("p50") is None or label not in edges:
            continue
        lo, hi = edges[label]
        xs.append((lo * hi) ** 0.5)
        p50.append(b["p50"])
        p99.append(b["p99"])
    if xs:
        ax.plot(xs, p50, "o-", label="p50 per size bucket")
        ax.plot(xs, p99, "s-", label="p99 per size bucket")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend(fontsize="small")
    return fig


__all__ = ["throughput", "queue_depth", "pause_timeline", "fct_slowdown"]
