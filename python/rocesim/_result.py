"""The results of a run: summary.json as a dict and every result table as a pyarrow Table,
handed over from the simulator without copying."""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path

import pyarrow as pa

#: The tables, by name, with the result file each mirrors (see docs/results.md).
TABLES = {
    "flows": "flows.csv",
    "tcp_flows": "tcp_flows.csv",
    "ports": "ports.csv",
    "port_queues": "port_queues.csv",
    "links": "links.csv",
    "pfc": "pfc.csv",
    "pause_intervals": "pause_intervals.csv",
    "throughput": "timeseries/throughput.csv",
    "queues": "timeseries/queues.csv",
    "rates": "timeseries/rates.csv",
    "deadlocks": "deadlocks.csv",
    "pingmesh": "pingmesh.csv",
    "nics": "nics.csv",
    "isolation": "isolation.csv",
    "counters": "timeseries/counters.csv",
}


class Result:
    """A finished (or interrupted) run.

    ``summary`` is summary.json as a dict; ``flows``, ``ports``, ``port_queues``, ``links``,
    ``pfc``, ``pause_intervals``, ``throughput``, ``queues``, ``rates``, ``deadlocks`` and
    ``pingmesh`` (empty, and no file written, without probes) are
    pyarrow Tables with the columns of the CSV file of the same name (floats at full precision,
    empty cells as nulls, units in the field metadata). ``write(dir)`` writes the same files as
    ``rocesim run --out dir``."""

    def __init__(self, native):
        self._native = native
        self._tables: dict[str, pa.Table] = {}

    @cached_property
    def summary(self) -> dict:
        """summary.json as a dict."""
        return json.loads(self._native.summary_json())

    @property
    def incomplete(self) -> bool:
        """True when the run stopped before its end (Ctrl-C or ``sim.wall_limit``)."""
        return self._native.incomplete

    def table(self, name: str) -> pa.Table:
        """Result table ``name`` (one of :data:`TABLES`) as a pyarrow Table (zero copy)."""
        t = self._tables.get(name)
        if t is None:
            native = self._native.table(name)
            if native is None:
                raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
            # The stream's batches are the simulator's buffers (no copy); pa.table() would do
            # the same but imports pandas on first use (about a second).
            t = pa.RecordBatchReader.from_stream(native).read_all()
            self._tables[name] = t
        return t

    @property
    def tables(self) -> dict[str, pa.Table]:
        """Every table by name."""
        return {n: self.table(n) for n in TABLES}

    flows = property(lambda self: self.table("flows"), doc="flows.csv: one row per flow.")
    ports = property(lambda self: self.table("ports"),
                     doc="ports.csv: one row per (node, port, priority).")
    port_queues = property(lambda self: self.table("port_queues"),
                           doc="port_queues.csv: per (switch, port, queue) that held a packet.")
    links = property(lambda self: self.table("links"),
                     doc="links.csv: per (node, port) rate and utilisation.")
    pfc = property(lambda self: self.table("pfc"), doc="pfc.csv: every pause/resume frame.")
    pause_intervals = property(lambda self: self.table("pause_intervals"),
                               doc="pause_intervals.csv: every interval a priority was paused.")
    throughput = property(lambda self: self.table("throughput"),
                          doc="timeseries/throughput.csv: per-flow throughput over time.")
    queues = property(lambda self: self.table("queues"),
                      doc="timeseries/queues.csv: egress queue depth over time.")
    rates = property(lambda self: self.table("rates"),
                     doc="timeseries/rates.csv: congestion-control rate and window over time.")
    deadlocks = property(lambda self: self.table("deadlocks"),
                         doc="deadlocks.csv: one row per member of each PFC deadlock cycle.")
    pingmesh = property(lambda self: self.table("pingmesh"),
                        doc="pingmesh.csv: every RDMA Pingmesh probe with its RTT or error.")
    counters = property(lambda self: self.table("counters"),
                        doc="timeseries/counters.csv: switch counters (SONiC names) over time.")

    def to_pandas(self, name: str | None = None):
        """Table ``name`` as a pandas DataFrame, or with no name every table in a dict."""
        if name is not None:
            return self.table(name).to_pandas()
        return {n: t.to_pandas() for n, t in self.tables.items()}

    def to_polars(self, name: str | None = None):
        """Table ``name`` as a polars DataFrame (zero copy where polars allows), or with no
        name every table in a dict."""
        import polars as pl

        if name is not None:
            return pl.from_arrow(self.table(name))
        return {n: pl.from_arrow(t) for n, t in self.tables.items()}

    def write(
        self,
        dir: str | os.PathLike,
        report: bool | None = None,
        format: str | None = None,
    ) -> list[Path]:
        """Writes the result files into ``dir`` as ``rocesim run --out dir`` does (report.html
        when ``output.report`` is on, or as ``report`` says), the tables as CSV, Parquet or both
        (``format="csv" | "parquet" | "both"``; default: the scenario's ``output.format``);
        returns the paths written."""
        return [Path(p) for p in self._native.write(str(dir), report, format)]

    def __repr__(self) -> str:
        return self._native.terminal_table()
