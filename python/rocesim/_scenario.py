"""Scenarios: loaded from a TOML file or a dict, changed with `set`, checked exactly as the
command line checks them, run in process."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Mapping

from . import _native
from ._result import Result


class ScenarioError(ValueError):
    """A scenario that cannot be run. ``str(e)`` is what ``rocesim run`` prints; ``e.errors``
    lists every finding, each ``file: key: message``."""

    def __init__(self, message: str, errors: list[str]):
        super().__init__(message)
        self.errors = list(errors)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run part way; ``e.result`` holds its partial results
    (``result.summary["incomplete"]`` is true), as ``rocesim run`` writes them."""

    def __init__(self, result: Result):
        super().__init__("interrupted: partial results in .result")
        self.result = result


def _raise_scenario_error(e: Exception) -> None:
    message, errors = e.args
    raise ScenarioError(message, errors) from None


class Scenario:
    """A scenario: its TOML text, where it came from and the overrides set on it.

    Errors are those of ``rocesim run`` with the same words, raised as :class:`ScenarioError`
    carrying every finding. ``set`` checks the scenario again and refuses a bad value."""

    def __init__(self, text: str, file_name: str, base_dir: str, path: Path | None = None,
                 overrides: list[str] | None = None):
        self._text = text
        self._file = file_name
        self._base_dir = base_dir
        self._path = path
        self._overrides = list(overrides or [])
        self._check()

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> "Scenario":
        """The scenario file at ``path`` (its name is the file stem; relative paths inside it,
        e.g. CDF files, are relative to its directory)."""
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as e:
            raise ScenarioError(f"error: {p}: cannot read the scenario file: {e}",
                                [f"{p}: cannot read the scenario file: {e}"]) from None
        return cls(text, str(p), str(p.parent), path=p)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], name: str = "scenario",
                  base_dir: str | os.PathLike = ".") -> "Scenario":
        """A scenario from a dict shaped like the TOML file (``{"sim": {...}, "topology":
        {...}, "flow": [{...}]}``); ``name`` names it, relative paths are from ``base_dir``."""
        try:
            text = _native.dict_to_toml(dict(d))
        except TypeError as e:
            raise ScenarioError(f"error: {name}: {e}", [f"{name}: {e}"]) from None
        return cls(text, name, str(base_dir))

    def _check(self, build: bool = False) -> None:
        try:
            _native.check(self._text, self._file, self._base_dir, self._overrides, build)
        except _native.NativeScenarioError as e:
            _raise_scenario_error(e)

    def set(self, key: str, value: Any) -> "Scenario":
        """Overrides ``key`` (dotted, as ``--set`` takes it: ``"nic.cc"``, ``"flow[0].size"``)
        and returns the scenario. A ``str`` is read as the command line reads it (``"20ms"``,
        ``"dcqcn"``); numbers, booleans, lists and dicts are TOML values. Raises
        :class:`ScenarioError` (and keeps the scenario unchanged) when the result is invalid."""
        return self.update({key: value})

    def update(self, settings: Mapping[str, Any]) -> "Scenario":
        """Sets every ``key: value`` of ``settings`` (as :meth:`set` does) and checks the
        scenario once, as ``--set`` options are checked together: use it for keys that depend
        on each other (``sim.duration`` and ``sim.warmup``, ``kmin`` and ``kmax``)."""
        new = [_native.override_text(k, v) for k, v in settings.items()]
        before = self._overrides
        self._overrides = before + new
        try:
            self._check()
        except ScenarioError:
            self._overrides = before
            raise
        return self

    def copy(self) -> "Scenario":
        """An independent copy (``set`` on it leaves this one unchanged)."""
        c = Scenario.__new__(Scenario)
        c.__dict__.update(self.__dict__)
        c._overrides = list(self._overrides)
        return c

    @property
    def name(self) -> str:
        """The scenario name (file stem, or the name given to ``from_dict``)."""
        return Path(self._file).stem

    @property
    def path(self) -> Path | None:
        """The scenario file, when loaded from one."""
        return self._path

    @property
    def overrides(self) -> list[str]:
        """The overrides set so far, as ``key=value`` texts for ``--set``."""
        return list(self._overrides)

    def to_toml(self) -> str:
        """The scenario's TOML text with every override applied."""
        return _native.apply_overrides(self._text, self._overrides)

    def validate(self) -> None:
        """Checks the scenario fully, building the simulator as ``rocesim lint`` does (catches
        e.g. headroom that does not fit in a buffer)."""
        self._check(build=True)

    def run(self, progress: bool | None = None) -> Result:
        """Runs the scenario in this process with the GIL released and returns its
        :class:`Result`. ``progress``: a tqdm bar once a run takes more than a second (default:
        when tqdm is installed). Ctrl-C stops the run cleanly and raises :class:`Interrupted`
        with the partial results."""
        bar = _Progress(progress)
        try:
            native, err = _native.run(self._text, self._file, self._base_dir,
                                      self._overrides, bar.update)
        except _native.NativeScenarioError as e:
            _raise_scenario_error(e)
        finally:
            bar.close()
        result = Result(native)
        if err is not None:
            if isinstance(err, KeyboardInterrupt):
                raise Interrupted(result) from None
            raise err
        return result

    def __repr__(self) -> str:
        sets = "".join(f".set({o.split('=', 1)[0]!r}, {o.split('=', 1)[1]!r})"
                       for o in self._overrides)
        return f"Scenario({self._file!r}){sets}"


class _Progress:
    """A tqdm bar over simulated time, shown once a run has taken a second."""

    SHOW_AFTER = 1.0

    def __init__(self, enabled: bool | None):
        self.bar = None
        self.started = time.monotonic()
        self.enabled = enabled is not False
        if self.enabled:
            try:
                import tqdm  # noqa: F401
            except ImportError:
                if enabled:
                    raise
                self.enabled = False

    def update(self, now_ns: int, end_ns: int, events: int) -> None:
        if not self.enabled or time.monotonic() - self.started < self.SHOW_AFTER:
            return
        if self.bar is None:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=end_ns / 1e6, unit="ms", desc="simulated",
                            bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} ms "
                                       "[{elapsed}<{remaining}{postfix}]")
        self.bar.n = min(now_ns, end_ns) / 1e6
        self.bar.set_postfix_str(f"{events / 1e6:.1f} M events", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
