"""Measures the parallel speed-up of the Python local sweep (issue: Python sweeps).

Runs sweeps/bench-8.toml (eight S1 runs) through ``rocesim.sweep(..., backend="local")`` with
``jobs=1`` and with one run per core, alternating, ``--repeat`` times each, and prints the medians
and their ratio (ideal on N cores: 1/N). Run it on an otherwise idle machine:

    python scripts/bench_python_sweep.py [--repeat 3] [--sweep sweeps/bench-8.toml]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
import tomllib
from pathlib import Path

import rocesim


def grid_of(sweep_file: Path) -> tuple[Path, dict]:
    """The base scenario and grid of a sweep file."""
    doc = tomllib.loads(sweep_file.read_text())
    return (sweep_file.parent / doc["base"]).resolve(), doc["grid"]


def timed(base: Path, grid: dict, jobs: int) -> float:
    """Wall seconds of one sweep with ``jobs`` runs at a time, into a fresh directory."""
    out = Path(tempfile.mkdtemp(prefix="rocesim-bench-"))
    try:
        t0 = time.perf_counter()
        table = rocesim.sweep(str(base), grid, out=out, jobs=jobs, progress=False)
        dt = time.perf_counter() - t0
        bad = [s for s in table.column("status").to_pylist() if s != "ok"]
        if bad:
            raise SystemExit(f"runs failed: {bad}")
        return dt
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweep", default="sweeps/bench-8.toml")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    base, grid = grid_of(Path(args.sweep))
    serial, parallel = [], []
    for _ in range(args.repeat):
        serial.append(timed(base, grid, 1))
        parallel.append(timed(base, grid, args.jobs))
    s, p = statistics.median(serial), statistics.median(parallel)
    print(f"python sweep {args.sweep}")
    print(f"  one run at a time (jobs=1):   {s:6.2f} s   {[round(x, 2) for x in serial]}")
    print(f"  {args.jobs} at a time (jobs={args.jobs}):      {p:6.2f} s   {[round(x, 2) for x in parallel]}")
    print(f"  ratio: {p / s:.3f} (ideal {1 / args.jobs:.3f}); medians of {args.repeat}")


if __name__ == "__main__":
    main()
