"""The settings search: within 20 Optuna trials, DCQCN and ECN settings beat the defaults on
the example's objective (p99 slowdown of short flows, no PFC storm)."""

import importlib.util
import math

import pytest

import rocesim
from conftest import REPO

pytest.importorskip("optuna")


def load_example():
    path = REPO / "examples/search_dcqcn_ecn.py"
    spec = importlib.util.spec_from_file_location("search_dcqcn_ecn", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_search_beats_the_defaults_within_20_trials():
    ex = load_example()
    default, study = ex.main(20)
    assert len(study.trials) == 20
    # The defaults storm (PFC pauses the incast port for about half of the run) ...
    assert default > 1000
    # ... the best settings found do not, and their short flows finish faster.
    assert study.best_value < 1000 and study.best_value < default - 1000
    best = rocesim.Scenario.from_toml(ex.SCENARIO).update(ex.settings(study.best_params))
    r = best.run(progress=False)
    assert ex.max_paused_fraction(r) <= ex.STORM
    assert math.isclose(ex.objective(r), study.best_value)  # deterministic


def test_invalid_trial_is_pruned_not_fatal():
    import optuna

    sc = rocesim.Scenario.from_toml(REPO / "scenarios/incast.toml").set("sim.duration", "100us")
    study = rocesim.search(sc, {"nic.mtu": [1024, -1]}, lambda r: r.summary["events"],
                           n_trials=10, seed=0)
    states = {(t.params["nic.mtu"], t.state) for t in study.trials}
    assert states == {(-1, optuna.trial.TrialState.PRUNED),
                      (1024, optuna.trial.TrialState.COMPLETE)}
    pruned = next(t for t in study.trials if t.params["nic.mtu"] == -1)
    assert "nic.mtu" in pruned.user_attrs["error"]
    assert study.best_params["nic.mtu"] == 1024


def test_metrics_from_arithmetic():
    from rocesim.metrics import max_paused_fraction, slowdown_percentile

    r = rocesim.Scenario.from_toml(REPO / "scenarios/incast.toml").run(progress=False)
    # 8 equal 2 MB flows: the nearest-rank p99 of 8 values is the largest.
    s = sorted(r.flows["slowdown"].to_pylist())
    assert slowdown_percentile(r, 0.99) == s[-1]
    assert slowdown_percentile(r, 0.5) == s[3]  # ceil(0.5 · 8) = 4th
    assert math.isnan(slowdown_percentile(r, 0.99, max_size=1000))
    p = r.pause_intervals.to_pandas()
    worst = p.groupby(["node", "port", "prio"])["duration_ns"].sum().max()
    assert max_paused_fraction(r) == worst / r.summary["sim_time_ns"]
