#!/usr/bin/env bash
# fuzz.sh: run the generated-scenario test (crates/rocesim/tests/fuzz.rs) with more cases than
# CI does. Each case is a shipped scenario with random `--set` changes, parsed, checked and run
# for 20 us of simulated time; a panic, a hang past the 2 s wall limit or an error without a key
# fails it, and proptest prints the smallest failing case.
#
# Usage: scripts/fuzz.sh [CASES]     (default 100000; CI runs 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROCESIM_FUZZ_CASES="${1:-100000}" cargo test --release -p rocesim --test fuzz -- --nocapture
