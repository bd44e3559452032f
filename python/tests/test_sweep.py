"""Sweeps: the Python sweep is the library's (same table as `rocesim sweep`), and the Dask and
Ray backends give the table of the local one; failed runs are rows; resume skips done runs."""

import os

import pyarrow as pa
import pytest

import rocesim
from conftest import REPO

BASE = REPO / "scenarios/incast.toml"
GRID = {"switch.ecn.kmin": ["5KB", "40KB"], "nic.cc": ["dcqcn", "none"]}
SETS = ["sim.duration=300us", "sim.warmup=0us"]


def base():
    sc = rocesim.Scenario.from_toml(BASE)
    return sc.update(dict(s.split("=", 1) for s in SETS))


def without_wall(t: pa.Table) -> pa.Table:
    return t.drop_columns(["wall_s"])


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    return rocesim.sweep(base(), GRID, out=out, progress=False), out


def test_local_table_layout(local):
    t, out = local
    assert t.num_rows == 4
    assert t.column_names[:6] == ["run", "sim.duration", "sim.warmup", "switch.ecn.kmin",
                                  "nic.cc", "status"]
    assert t["status"].to_pylist() == ["ok"] * 4
    assert t["nic.cc"].to_pylist() == ["dcqcn", "none", "dcqcn", "none"]
    for i in range(4):
        assert (out / f"run-{i}" / "summary.json").exists()
    assert (out / "sweep.json").exists()


def test_same_as_the_cli_sweep(local, cli, tmp_path):
    t, out = local
    sweep_file = tmp_path / "incast-grid.toml"
    sweep_file.write_text(
        f'base = "{BASE}"\n[grid]\n"sim.duration" = ["300us"]\n"sim.warmup" = ["0us"]\n'
        '"switch.ecn.kmin" = ["5KB", "40KB"]\n"nic.cc" = ["dcqcn", "none"]\n')
    proc = cli("sweep", sweep_file, "--out", tmp_path / "cli", "-q")
    assert proc.returncode == 0, proc.stderr
    theirs = rocesim._sweep.read_table(tmp_path / "cli")
    assert without_wall(t).equals(without_wall(theirs))
    for i in range(4):
        for f in ("flows.csv", "ports.csv", "pfc.csv"):
            assert (out / f"run-{i}" / f).read_bytes() == (tmp_path / f"cli/run-{i}" / f).read_bytes()


def test_dask_equals_local(local, tmp_path):
    pytest.importorskip("dask.distributed")
    t, _ = local
    d = rocesim.sweep(base(), GRID, backend="dask", jobs=2, out=tmp_path, progress=False)
    assert without_wall(d).equals(without_wall(t))


def test_ray_equals_local(local, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (pip install ray)")
    t, _ = local
    r = rocesim.sweep(base(), GRID, backend="ray", jobs=2, out=tmp_path, progress=False)
    assert without_wall(r).equals(without_wall(t))


def test_failed_run_is_a_row(tmp_path):
    t = rocesim.sweep(base(), {"nic.mtu": [1024, -5]}, out=tmp_path, progress=False)
    status = t["status"].to_pylist()
    assert status[0] == "ok"
    assert status[1].startswith("error: ") and "nic.mtu" in status[1]
    assert t["events"][1].as_py() is None


def test_bad_key_raises_before_running(tmp_path):
    with pytest.raises(rocesim.ScenarioError, match="not a scenario key"):
        rocesim.sweep(base(), {"nic.bogus": [1, 2]}, out=tmp_path, progress=False)
    assert not (tmp_path / "run-0").exists()


def test_resume_skips_complete_runs(local, tmp_path):
    t, _ = local
    first = rocesim.sweep(base(), GRID, out=tmp_path, progress=False)
    stamps = [os.stat(tmp_path / f"run-{i}/summary.json").st_mtime_ns for i in range(4)]
    os.remove(tmp_path / "run-2/summary.json")
    again = rocesim.sweep(base(), GRID, out=tmp_path, resume=True, progress=False)
    assert again["status"].to_pylist() == ["ok"] * 4
    for i in (0, 1, 3):
        assert os.stat(tmp_path / f"run-{i}/summary.json").st_mtime_ns == stamps[i]
    assert (tmp_path / "run-2/summary.json").exists()
    # Resumed rows come back from summary.json (6 significant digits).
    for col in ("events", "pause_tx", "flows_completed"):
        assert again[col].equals(first[col])
    for a, b in zip(again["total_goodput_gbps"].to_pylist(),
                    first["total_goodput_gbps"].to_pylist()):
        assert a > 0 and a == pytest.approx(b, rel=1e-5)


def test_ctrl_c_stops_a_local_sweep_and_writes_the_table(tmp_path):
    from rocesim import _native

    sc = rocesim.Scenario.from_toml(REPO / "scenarios/parking-lot-dcqcn.toml")
    plan = _native.SweepPlan("long", str(sc.path), [("sim.seed", [1, 2, 3, 4])], None, None,
                             ["sim.duration=2s"])
    calls = []

    def progress(done, total, _):
        calls.append(done)
        raise KeyboardInterrupt  # what Ctrl-C raises in the polling thread

    with pytest.raises(KeyboardInterrupt):
        plan.run_local(str(tmp_path), 1, False, progress)
    t = rocesim._sweep.read_table(tmp_path)
    assert t.num_rows == 4
    assert set(t["status"].to_pylist()) <= {"incomplete", "not run"}
    assert t["status"][3].as_py() == "not run"
    assert calls == [0]
