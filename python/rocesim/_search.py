"""Searching scenario settings with Optuna: each trial sets the sampled values on a copy of
the base scenario, runs it in process and scores its result with the user's objective."""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Mapping

from ._result import Result
from ._scenario import Scenario, ScenarioError


def _suggest(trial, key: str, spec: Any):
    """The value of ``key`` for ``trial``: ``(low, high)`` floats → a float (``(low, high,
    "log")`` on a log scale), ``(low, high)`` ints → an int, a list → one of its items, an
    optuna distribution → as given."""
    import optuna

    if isinstance(spec, optuna.distributions.BaseDistribution):
        return trial._suggest(key, spec)
    if isinstance(spec, list):
        return trial.suggest_categorical(key, spec)
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        low, high = spec[0], spec[1]
        log = len(spec) == 3 and spec[2] == "log"
        if isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool):
            return trial.suggest_int(key, low, high, log=log)
        return trial.suggest_float(key, float(low), float(high), log=log)
    raise TypeError(f"search space {key!r}: {spec!r} is not a (low, high) range, a list of "
                    "choices or an optuna distribution")


def search(base: str | os.PathLike | Scenario, space: Mapping[str, Any],
           objective: Callable[[Result], float], n_trials: int = 20, *,
           direction: str = "minimize", seed: int | None = 0, study=None,
           transform: Callable[[dict], dict] | None = None, enqueue_base: bool = False,
           progress: bool = False):
    """Searches ``space`` (scenario key → ``(low, high)``, ``(low, high, "log")``, a list of
    choices or an optuna distribution) for settings of ``base`` that minimise (``direction``)
    ``objective(result)``, with ``n_trials`` runs, and returns the Optuna study
    (``study.best_params``, ``study.best_value``, ``study.trials_dataframe()``).

    ``transform(params) -> {key: value}`` maps the sampled values to the settings actually set
    (e.g. to derive ``kmax`` from ``kmin``). A trial whose settings are invalid or whose
    objective is not a finite number is pruned. ``enqueue_base=True`` makes the first trial the
    base scenario's own values (only for keys the space lists as choices or ranges containing
    them, as Optuna requires). The sampler is TPE seeded with ``seed`` (reproducible)."""
    import optuna

    sc = base if isinstance(base, Scenario) else Scenario.from_toml(base)
    if study is None:
        sampler = optuna.samplers.TPESampler(seed=seed)
        study = optuna.create_study(direction=direction, sampler=sampler)

    def run_trial(trial) -> float:
        params = {k: _suggest(trial, k, spec) for k, spec in space.items()}
        settings = transform(params) if transform else params
        s = sc.copy()
        try:
            s.update(settings)
        except ScenarioError as e:
            trial.set_user_attr("error", str(e))
            raise optuna.TrialPruned(str(e)) from None
        value = objective(s.run(progress=False))
        if value is None or not math.isfinite(value):
            raise optuna.TrialPruned("objective is not a finite number")
        return float(value)

    if not progress:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    study.optimize(run_trial, n_trials=n_trials, show_progress_bar=progress)
    return study
