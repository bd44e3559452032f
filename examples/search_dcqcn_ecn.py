"""Search DCQCN and ECN settings that minimise the p99 FCT slowdown of short flows (< 100 KB)
beside a repeated incast, without a PFC storm, with Optuna (scenarios/dcqcn-ecn-search.toml,
about half a second per trial). Prints the defaults' score, the best settings and theirs.

    python examples/search_dcqcn_ecn.py [N_TRIALS]
"""

import sys
from pathlib import Path

import rocesim
from rocesim.metrics import max_paused_fraction, slowdown_percentile

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios/dcqcn-ecn-search.toml"

# A pause storm here: some egress priority paused for more than 10 % of the run.
STORM = 0.10

SPACE = {
    "switch.ecn.kmin": (2_000, 50_000),         # bytes
    "kmax_over_kmin": (2.0, 40.0, "log"),      # kmax = kmin × this
    "switch.ecn.pmax": (0.01, 1.0, "log"),
    "nic.dcqcn.min_time_between_cnps": ["1us", "4us", "10us", "50us"],
    "nic.dcqcn.rpg_ai_rate": ["5Mbps", "20Mbps", "40Mbps", "100Mbps"],
}


def settings(params: dict) -> dict:
    """The sampled values as scenario keys (kmax derived from kmin so that kmax >= kmin)."""
    s = dict(params)
    ratio = s.pop("kmax_over_kmin")
    s["switch.ecn.kmax"] = int(s["switch.ecn.kmin"] * ratio)
    return s


def objective(result: rocesim.Result) -> float:
    """p99 slowdown of completed flows under 100 KB, plus 1000 when PFC stormed."""
    p99 = slowdown_percentile(result, 0.99, max_size=100_000)
    return p99 + (1000.0 if max_paused_fraction(result) > STORM else 0.0)


def main(n_trials: int = 20):
    base = rocesim.Scenario.from_toml(SCENARIO)
    default = base.run(progress=False)
    print(f"defaults: p99 slowdown {slowdown_percentile(default, 0.99, 100_000):.2f}, "
          f"paused {max_paused_fraction(default):.0%} of the run, objective {objective(default):.2f}")
    study = rocesim.search(base, SPACE, objective, n_trials=n_trials, transform=settings, seed=1)
    best = settings(study.best_params)
    print(f"best of {n_trials} trials: objective {study.best_value:.2f} with")
    for k, v in best.items():
        print(f"  {k} = {v!r}")
    return objective(default), study


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
