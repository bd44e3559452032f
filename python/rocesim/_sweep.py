"""Sweeps: one base scenario run many times over a grid of settings, on all local cores or on a
Dask or Ray cluster. Every backend runs the library's sweep code and writes what ``rocesim
sweep`` writes: ``DIR/run-<i>/`` per run, ``DIR/sweep.csv`` and ``DIR/sweep.json``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import pyarrow as pa
import pyarrow.csv as pacsv

from . import _native
from ._scenario import Scenario, ScenarioError, _raise_scenario_error


def _run_one(base: str, overrides: list[str], run_dir: str, resume: bool) -> dict:
    """One run of a sweep on a worker: its row (a failed run is a row with its error)."""
    try:
        return _native.run_one(base, overrides, run_dir, resume)
    except Exception as e:  # the worker could not even start the run
        return {"status": f"error: {type(e).__name__}: {e}", "metrics": None}


def _plan(base, grid, name, seeds, repeat, out: Path | None):
    """The library's sweep plan for ``base`` (a scenario file or a :class:`Scenario`)."""
    fixed: list[str] = []
    if isinstance(base, Scenario):
        sc = base
        if sc.path is not None:
            path, fixed = sc.path, sc.overrides
        else:  # a scenario from a dict has no file: write it (with its overrides) into out
            if out is None:
                raise ValueError("a sweep of a scenario made with from_dict needs `out`")
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{sc.name}.toml"
            path.write_text(sc.to_toml())
        name = name or sc.name
    else:
        path = Path(base)
        name = name or path.stem
    try:
        return _native.SweepPlan(name, str(path), list(grid.items()), seeds, repeat, fixed)
    except _native.NativeScenarioError as e:
        _raise_scenario_error(e)


def sweep(base: str | os.PathLike | Scenario, grid: Mapping[str, Sequence[Any]],
          backend: str = "local", *, out: str | os.PathLike | None = None,
          jobs: int | None = None, resume: bool = False, seeds: Sequence[int] | None = None,
          repeat: int | None = None, address: str | None = None, client=None,
          name: str | None = None, progress: bool | None = None) -> pa.Table:
    """Runs ``base`` over the Cartesian product of ``grid`` (``{"nic.cc": ["dcqcn", "hpcc"],
    "switch.ecn.kmin": ["5KB", "40KB"]}``; the first key varies slowest) and returns the sweep
    table: one row per run with ``run``, the swept keys, ``status`` (``ok``, ``incomplete``,
    ``not run`` or ``error: ...``), ``dir`` and the headline metrics, as ``sweep.csv``.

    ``backend``: ``"local"`` runs ``jobs`` runs at a time (default: every core) on the
    library's worker threads, as ``rocesim sweep`` does; ``"dask"`` submits one task per run to
    the Dask scheduler at ``address`` (or ``client``; default: a local cluster with ``jobs``
    worker processes); ``"ray"`` to the Ray cluster at ``address`` (default: a local instance).
    Workers must share ``out`` with the caller (a shared filesystem on a real cluster).
    ``resume=True`` skips runs whose directory holds a complete summary.json. ``seeds`` and
    ``repeat`` multiply the runs as in a sweep file. ``out`` defaults to
    ``results/sweeps/<name>``."""
    out_dir = Path(out) if out is not None else None
    plan = _plan(base, grid, name, seeds, repeat, out_dir)
    if out_dir is None:
        out_dir = Path("results/sweeps") / (name or Path(plan.base).stem)
    bar = _Bar(progress, len(plan.overrides()))
    try:
        if backend == "local":
            plan.run_local(str(out_dir), jobs, resume, bar.update)
        elif backend in ("dask", "ray"):
            plan.check(jobs)
            out_dir.mkdir(parents=True, exist_ok=True)
            tasks = [(str(plan.base), o, str(out_dir / f"run-{i}"), resume)
                     for i, o in enumerate(plan.overrides())]
            run = _dask if backend == "dask" else _ray
            rows = run(tasks, address, client, jobs, bar)
            plan.write_table(str(out_dir), rows)
        else:
            raise ValueError(f"backend {backend!r}: use 'local', 'dask' or 'ray'")
    except _native.NativeScenarioError as e:
        _raise_scenario_error(e)
    finally:
        bar.close()
    return read_table(out_dir)


def read_table(dir: str | os.PathLike) -> pa.Table:
    """The table of the sweep in ``dir`` (its sweep.csv)."""
    opts = pacsv.ConvertOptions(strings_can_be_null=False,
                                column_types={"status": pa.string(), "dir": pa.string()})
    return pacsv.read_csv(Path(dir) / "sweep.csv", convert_options=opts)


def _dask(tasks, address, client, jobs, bar) -> list[dict]:
    from dask.distributed import Client, LocalCluster, as_completed

    own = None
    if client is None:
        if address is not None:
            client = own = Client(address)
        else:
            n = jobs or os.cpu_count() or 1
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = own = Client(cluster)
    try:
        futures = [client.submit(_run_one, *t, pure=False) for t in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        rows: list[dict | None] = [None] * len(tasks)
        for f in as_completed(futures):
            try:
                rows[index[f.key]] = f.result()
            except Exception as e:
                rows[index[f.key]] = {"status": f"error: worker: {e}", "metrics": None}
            bar.step()
        return rows  # type: ignore[return-value]
    finally:
        if own is not None:
            cluster = own.cluster
            own.close()
            if cluster is not None and address is None:
                cluster.close()


def _ray(tasks, address, client, jobs, bar) -> list[dict]:
    import ray

    started = False
    if not ray.is_initialized():
        kw = {"address": address} if address else {"num_cpus": jobs or os.cpu_count() or 1}
        ray.init(include_dashboard=False, log_to_driver=False, **kw)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(_run_one)
        refs = [remote.remote(*t) for t in tasks]
        index = {r: i for i, r in enumerate(refs)}
        rows: list[dict | None] = [None] * len(tasks)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for r in done:
                try:
                    rows[index[r]] = ray.get(r)
                except Exception as e:
                    rows[index[r]] = {"status": f"error: worker: {e}", "metrics": None}
                bar.step()
        return rows  # type: ignore[return-value]
    finally:
        if started:
            ray.shutdown()


class _Bar:
    """A tqdm bar over finished runs (when tqdm is installed and ``enabled`` is not False)."""

    def __init__(self, enabled: bool | None, total: int):
        self.bar = None
        if enabled is False:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            if enabled:
                raise
            return
        self.bar = tqdm(total=total, unit="run", desc="sweep")

    def update(self, done: int, total: int, _events: int = 0) -> None:
        if self.bar is not None and done != self.bar.n:
            self.bar.n = done
            self.bar.refresh()

    def step(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


__all__ = ["sweep", "read_table", "ScenarioError"]
