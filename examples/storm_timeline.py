"""The PFC storm timeline: a NIC that stops draining its receive buffer pauses the switch,
and the pause spreads (scenarios/pfc-storm.toml). Draws the pause timeline per switch port,
queue depths and per-flow throughput into one PNG.

    python examples/storm_timeline.py [PNG] [DURATION]
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import rocesim  # noqa: E402
from rocesim import plot  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
png = sys.argv[1] if len(sys.argv) > 1 else "pfc-storm.png"
duration = sys.argv[2] if len(sys.argv) > 2 else None

sc = rocesim.Scenario.from_toml(REPO / "scenarios/pfc-storm.toml")
if duration:
    sc.set("sim.duration", duration)
result = sc.run()
print(f"{result.pause_intervals.num_rows} pause intervals, "
      f"{result.summary['pfc']['pause_tx']} pause frames sent")

fig, axes = plt.subplots(3, 1, figsize=(10, 11))
plot.pause_timeline(result, ax=axes[0])
plot.queue_depth(result, ax=axes[1])
plot.throughput(result, ax=axes[2])
fig.tight_layout()
fig.savefig(png, dpi=80)
print("wrote", png)
