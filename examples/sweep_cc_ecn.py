"""A sweep: congestion control × ECN threshold on the incast scenario, on all local cores
(or `--backend dask` / `--backend ray` for a cluster), one table row per run.

    python examples/sweep_cc_ecn.py [OUT_DIR] [--backend local|dask|ray]
"""

import argparse
from pathlib import Path

import rocesim

REPO = Path(__file__).resolve().parent.parent

ap = argparse.ArgumentParser()
ap.add_argument("out", nargs="?", default="results/sweeps/cc-ecn")
ap.add_argument("--backend", default="local")
ap.add_argument("--address", help="Dask scheduler or Ray cluster address")
args = ap.parse_args()

base = rocesim.Scenario.from_toml(REPO / "scenarios/incast.toml").set("sim.duration", "2ms")
grid = {
    "nic.cc": ["dcqcn", "none"],
    "switch.ecn.kmin": ["5KB", "50KB"],
}
table = rocesim.sweep(base, grid, backend=args.backend, out=args.out, address=args.address)
df = table.to_pandas()
print(df[["run", "nic.cc", "switch.ecn.kmin", "status", "total_goodput_gbps", "pause_tx",
          "ecn_marked", "fct_slowdown_p99"]].to_string(index=False))
