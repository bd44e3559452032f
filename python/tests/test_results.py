"""Python and the command line give identical results for the same scenario and seed: every
file `Result.write` writes equals the CLI's, every Arrow table holds its CSV file's values, and
every Parquet file the CLI writes (read with pyarrow) holds them too."""

import json
import math

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import rocesim
from rocesim._result import TABLES

# Scenarios that between them fill every table (pfc, pause intervals, deadlocks, rates, ...),
# each cut short so that the whole comparison takes seconds.
CASES = [
    ("parking-lot-dcqcn.toml", ["sim.duration=3ms", "sim.warmup=1ms"]),
    ("deadlock-ring.toml", []),
    ("pfc-storm.toml", ["sim.duration=8ms", "sim.warmup=0us"]),
    ("pingmesh-latency.toml", ["sim.duration=1ms", "sim.warmup=0us"]),
    ("linkedin-storage.toml", ["sim.duration=2ms", "sim.warmup=0us"]),
    ("slow-receiver.toml", ["sim.duration=1ms", "sim.warmup=0us"]),
    ("isolation-victim.toml", ["sim.duration=200us", "sim.warmup=0us"]),
]

# Tables written only when their feature is on (probes, TCP flows, NIC caches, isolation,
# switch counters over time).
OPTIONAL = {"pingmesh", "tcp_flows", "nics", "isolation", "counters"}

# summary.json keys that measure the host computer, not the simulation.
HOST_KEYS = {"wall_s", "events_per_s", "peak_memory_kb"}


def python_run(name, sets):
    sc = rocesim.Scenario.from_toml(f"scenarios/{name}")
    sc.update(dict(s.split("=", 1) for s in sets))
    return sc.run(progress=False)


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def both(request, cli, tmp_path_factory):
    name, sets = request.param
    out = tmp_path_factory.mktemp("cli")
    args = ["run", f"scenarios/{name}", "--out", out, "-q", "--set", "output.format=both"]
    for s in sets:
        args += ["--set", s]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    return python_run(name, sets), out


def strip_host(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in HOST_KEYS}


def test_every_file_identical(both, tmp_path):
    result, cli_out = both
    written = result.write(tmp_path, format="both")
    names = sorted(str(p.relative_to(tmp_path)) for p in written)
    cli_names = sorted(str(p.relative_to(cli_out)) for p in cli_out.rglob("*") if p.is_file())
    assert names == cli_names
    for n in names:
        mine, theirs = (tmp_path / n).read_bytes(), (cli_out / n).read_bytes()
        if n == "summary.json":
            assert strip_host(json.loads(mine)) == strip_host(json.loads(theirs))
        elif n == "report.html":
            continue  # shows the wall time; its data are the CSV files compared here
        else:
            assert mine == theirs, n


def test_summary_dict_is_summary_json(both):
    result, cli_out = both
    theirs = json.loads((cli_out / "summary.json").read_text())
    assert strip_host(result.summary) == strip_host(theirs)


def same_cell(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=0, abs_tol=5.1e-7)  # CSV floats have 6 decimals
    return a == b


def test_every_table_holds_its_csv_file(both):
    result, cli_out = both
    for name, file in TABLES.items():
        t = result.table(name)
        if not (cli_out / file).exists():  # written only when its feature is on
            assert name in OPTIONAL and t.num_rows == 0
            continue
        assert_holds_csv(t, cli_out / file, name)


def read_csv_like(t, path):
    types = {f.name: (pa.string() if pa.types.is_string(f.type) else
                      pa.float64() if pa.types.is_floating(f.type) else pa.int64())
             for f in t.schema}
    return pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))


def assert_holds_csv(t, path, name):
    """Table ``t`` has the columns of CSV file ``path`` and, cell by cell, its values."""
    csv = read_csv_like(t, path)
    cols = t.column_names
    if name == "ports" and csv.column_names == cols + ["cfq"]:
        csv = csv.select(cols)  # isolation's `cfq` column is in ports.csv only
    assert cols == csv.column_names, name
    assert t.num_rows == csv.num_rows, name
    for col in cols:
        mine, theirs = t[col].to_pylist(), csv[col].to_pylist()
        bad = [i for i, (a, b) in enumerate(zip(mine, theirs)) if not same_cell(a, b)]
        assert not bad, f"{name}.{col} row {bad[0]}: {mine[bad[0]]} != {theirs[bad[0]]}"


def test_every_parquet_file_holds_its_csv_file(both):
    """The CLI's Parquet files, read with pyarrow, hold the CSV values, the Arrow tables'
    exact values and types, and each column's unit and meaning in the field metadata."""
    result, cli_out = both
    for name, file in TABLES.items():
        pq_path = cli_out / file.replace(".csv", ".parquet")
        assert pq_path.exists() == (cli_out / file).exists(), pq_path
        if not pq_path.exists():
            continue
        t = pq.read_table(pq_path)
        assert_holds_csv(t, cli_out / file, name)
        assert t.equals(result.table(name)), name
        for f in t.schema:
            assert f.metadata and f.metadata.get(b"description"), f"{name}.{f.name}"
            if f.name.endswith("_ns"):
                assert f.metadata[b"unit"] == b"ns", f"{name}.{f.name}"


def test_tables_are_not_empty_where_the_scenario_fills_them(both):
    result, _ = both
    assert result.flows.num_rows > 0 and result.ports.num_rows > 0
    name = result.summary["scenario"]
    if name == "deadlock-ring":
        assert result.deadlocks.num_rows > 0
    if name == "pingmesh-latency":
        assert result.pingmesh.num_rows > 0
    if name == "pfc-storm":
        assert result.pfc.num_rows > 0 and result.pause_intervals.num_rows > 0


def test_pandas_and_polars(both):
    result, _ = both
    df = result.to_pandas("flows")
    assert list(df.columns) == result.flows.column_names and len(df) == result.flows.num_rows
    pl_df = result.to_polars("ports")
    assert pl_df.columns == result.ports.column_names
    assert set(result.to_pandas()) == set(TABLES)
    meta = result.flows.schema.field("fct_ns").metadata
    assert meta[b"unit"] == b"ns" and meta[b"description"].startswith(b"flow completion time")
