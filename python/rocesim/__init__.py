"""rocesim from Python: run RoCEv2 datacenter network scenarios in process, get every result
table as Arrow (zero copy), plot them, sweep them on all cores or a cluster, search settings.

    import rocesim
    sc = rocesim.Scenario.from_toml("scenarios/incast.toml").set("nic.cc", "dcqcn")
    res = sc.run()
    res.summary["fct_slowdown"]["p99"]
    res.flows.to_pandas()

See docs/python.md and examples/.
"""

from ._native import __version__
from ._result import Result
from ._scenario import Interrupted, Scenario, ScenarioError
from ._search import search
from ._sweep import sweep

__all__ = [
    "Interrupted",
    "Result",
    "Scenario",
    "ScenarioError",
    "__version__",
    "search",
    "sweep",
]
