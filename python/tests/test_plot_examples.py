"""The plots draw data from a Result, and every example runs (small settings)."""

import os
import subprocess
import sys

import pytest

import rocesim
from conftest import REPO

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


@pytest.fixture(scope="module")
def storm():
    sc = rocesim.Scenario.from_toml(REPO / "scenarios/pfc-storm.toml").set("sim.duration", "8ms")
    return sc.run(progress=False)


def test_plots_have_data(storm):
    from rocesim import plot

    fig = plot.throughput(storm)
    assert fig.axes[0].lines and all(len(l.get_xdata()) > 0 for l in fig.axes[0].lines)
    fig = plot.queue_depth(storm)
    assert fig.axes[0].lines
    fig = plot.pause_timeline(storm)
    lanes = storm.pause_intervals.to_pandas().groupby(["node", "port", "prio"]).ngroups
    assert lanes > 0 and len(fig.axes[0].collections) == lanes
    r = rocesim.Scenario.from_toml(REPO / "scenarios/dcqcn-ecn-search.toml").run(progress=False)
    fig = plot.fct_slowdown(r)
    done = sum(1 for x in r.flows["slowdown"].to_pylist() if x is not None)
    assert len(fig.axes[0].collections[0].get_offsets()) == done
    assert len(fig.axes[0].lines) == 2  # p50 and p99 per size bucket


EXAMPLES = [
    ("quick_start.py", ["{tmp}/quick"]),
    ("sweep_cc_ecn.py", ["{tmp}/sweep"]),
    ("search_dcqcn_ecn.py", ["3"]),
    ("storm_timeline.py", ["{tmp}/storm.png", "8ms"]),
]


@pytest.mark.parametrize("name,args", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(name, args, tmp_path):
    args = [a.format(tmp=tmp_path) for a in args]
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, str(REPO / "examples" / name), *args],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
