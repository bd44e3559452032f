"""scripts/vs_htsim.py: the flow list htsim is fed and a sitting's summary (expected values
worked out by hand from the inputs below)."""
import importlib.util
import pathlib

import pytest

_spec = importlib.util.spec_from_file_location(
    "vs_htsim", pathlib.Path(__file__).resolve().parents[1] / "vs_htsim.py"
)
vs_htsim = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vs_htsim)


def test_flows_become_a_connection_matrix_in_start_order_with_picoseconds():
    rows = [
        {"src": "h13", "dst": "h79", "start_ns": "2934", "size_bytes": "12160"},
        {"src": "h0", "dst": "h127", "start_ns": "15", "size_bytes": "1000"},
    ]
    assert vs_htsim.flows_to_cm(rows, 128) == (
        "Nodes 128\n"
        "Connections 2\n"
        "0->127 start 15000 size 1000\n"
        "13->79 start 2934000 size 12160\n"
    )


@pytest.mark.parametrize("src,dst", [("h128", "h1"), ("h3", "h3"), ("h1", "h200")])
def test_a_flow_outside_the_fabric_or_to_itself_is_refused(src, dst):
    rows = [{"src": src, "dst": dst, "start_ns": "0", "size_bytes": "1"}]
    with pytest.raises(ValueError):
        vs_htsim.flows_to_cm(rows, 128)


def test_the_ratio_is_taken_pair_by_pair_then_its_median():
    # Ratios 0.1, 0.2, 0.05: median 0.1, although the medians of the columns (2 and 20)
    # would give 0.1 too only by chance; min and max are the pairs' own.
    pairs = [
        {"rocesim": 1.0, "htsim": 10.0},
        {"rocesim": 4.0, "htsim": 20.0},
        {"rocesim": 2.0, "htsim": 40.0},
    ]
    s = vs_htsim.summarize(pairs)
    assert s["pairs"] == 3
    assert s["ratio"] == {"median": 0.1, "min": 0.05, "max": 0.2}
    assert s["rocesim_s"] == {"median": 2.0, "min": 1.0, "max": 4.0}
    assert s["htsim_s"] == {"median": 20.0, "min": 10.0, "max": 40.0}


def test_htsim_is_run_as_the_sittings_ran_it():
    args = vs_htsim.htsim_args(128, "f.cm", 5000, "log.dat")
    assert args == [
        "-nodes", "128", "-tm", "f.cm", "-strat", "ecmp_host", "-paths", "1",
        "-queue_type", "lossless_input", "-linkspeed", "100000", "-mtu", "1000",
        "-end", "5000", "-q", "1000", "-o", "log.dat",
    ]
    # Every benchmark names a scenario that exists, and htsim's `-end` is its duration.
    root = pathlib.Path(__file__).resolve().parents[2]
    for scenario, _, _, end_us in vs_htsim.BENCHES.values():
        text = (root / scenario).read_text()
        assert f'duration = "{end_us // 1000}ms"' in text, scenario
