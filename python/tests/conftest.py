"""Shared fixtures: the repository, the `rocesim` command-line binary to compare against."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"


def cli_binary() -> Path | None:
    """The rocesim binary: $ROCESIM_BIN, else target/{release,debug}/rocesim of this repo."""
    env = os.environ.get("ROCESIM_BIN")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "rocesim"
        if p.exists():
            return p
    found = shutil.which("rocesim")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI: cli(*args) -> CompletedProcess (text, not checked)."""
    exe = cli_binary()
    if exe is None or not exe.exists():
        pytest.skip("no rocesim binary: build it (cargo build) or set ROCESIM_BIN")

    def run(*args):
        return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                              cwd=REPO)

    return run


@pytest.fixture(scope="session", autouse=True)
def in_repo():
    """Tests run from the repository root (scenario paths as the README gives them)."""
    old = os.getcwd()
    os.chdir(REPO)
    yield
    os.chdir(old)
