#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): format and lint checks, the Rust tests, then
# the Python package: built from python/ into a virtualenv (pip install ./python, as a user
# installs it) and tested with pytest against the binary the Rust tests built, with the tests
# of the scripts' own Python (scripts/tests).
#
#   scripts/test-all.sh            everything
#   scripts/test-all.sh --rust     the Rust part only
#   scripts/test-all.sh --python   the Python part only
#
# The virtualenv is target/python-venv (ROCESIM_VENV overrides); the extension is compiled in
# target/python. Ray is installed when a wheel exists for this Python; its test is skipped
# (with the reason) otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
part="${1:-all}"

rust() {
  if cargo fmt --version >/dev/null 2>&1; then
    cargo fmt --all -- --check
    cargo fmt --manifest-path python/Cargo.toml -- --check
  else
    echo "warning: rustfmt is not installed; format check skipped" >&2
  fi
  # --all-features: the library's Arrow tables (feature `arrow`, off in the CLI) are linted
  # and tested here too.
  if cargo clippy --version >/dev/null 2>&1; then
    cargo clippy --workspace --all-targets --all-features -- -D warnings
  else
    echo "warning: clippy is not installed; lint skipped" >&2
  fi
  cargo test --workspace --all-features
}

python() {
  local venv="${ROCESIM_VENV:-target/python-venv}"
  local py="$venv/bin/python"
  if [ ! -x "$py" ]; then
    python3 -m venv "$venv"
  fi
  "$py" -m pip install -q --upgrade pip
  "$py" -m pip install -q pytest pyarrow pandas polars matplotlib tqdm "dask[distributed]" optuna
  "$py" -m pip install -q ray || echo "warning: ray could not be installed; its test is skipped" >&2
  CARGO_TARGET_DIR="$PWD/target/python" "$py" -m pip install -q --force-reinstall --no-deps ./python
  if cargo clippy --version >/dev/null 2>&1; then
    CARGO_TARGET_DIR="$PWD/target/python" PYO3_PYTHON="$PWD/$py" \
      cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings
  fi
  local bin="${ROCESIM_BIN:-$PWD/target/debug/rocesim}"
  if [ ! -x "$bin" ]; then
    cargo build -q -p rocesim-cli
  fi
  ROCESIM_BIN="$bin" MPLBACKEND=Agg "$venv/bin/pytest" -q python/tests scripts/tests
}

case "$part" in
  all) rust; python ;;
  --rust) rust ;;
  --python) python ;;
  *) echo "usage: $0 [--rust | --python]" >&2; exit 2 ;;
esac
