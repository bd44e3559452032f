"""Quick start: load a scenario, change a setting, run it in process, look at the results.

    python examples/quick_start.py [OUT_DIR]
"""

import sys
from pathlib import Path

import rocesim

REPO = Path(__file__).resolve().parent.parent

sc = rocesim.Scenario.from_toml(REPO / "scenarios/incast.toml")
sc.set("nic.cc", "dcqcn").set("sim.duration", "2ms")
result = sc.run()

print(result)  # the table `rocesim run` prints
print("p99 FCT slowdown:", result.summary["fct_slowdown"]["p99"])
print("pause frames sent:", result.summary["pfc"]["pause_tx"])

flows = result.flows.to_pandas()  # every table is a pyarrow Table; pandas and polars too
print(flows[["flow_id", "src", "dst", "size_bytes", "fct_ns", "slowdown"]])

busiest = result.to_polars("ports").sort("tx_bytes", descending=True).head(3)
print(busiest)

if len(sys.argv) > 1:
    written = result.write(sys.argv[1])  # the files `rocesim run --out DIR` writes
    print(f"{len(written)} files in {sys.argv[1]}")
