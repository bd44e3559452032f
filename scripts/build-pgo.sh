#!/usr/bin/env bash
# build-pgo.sh: build the rocesim CLI with profile-guided optimization (PGO), the fastest
# binary this repository makes. Optional: `cargo build --release` gives the same results,
# about 5 % more slowly (docs/performance.md, "Profile-guided build").
#
# Usage: scripts/build-pgo.sh [--native] [-h]
#   --native  also build for this machine's CPU (`-Ctarget-cpu=native`): a little faster
#             again, but the binary may not run on an older CPU. Results stay identical.
#
# Steps: build an instrumented binary (target/pgo-gen), run it on a training set (the
# benchmarks, shortened, and a few scenarios that exercise congestion control, PFC storms and
# lossy RDMA), merge the profiles, build again with them (target/pgo), then check that the PGO
# binary gives byte-identical results to the plain release binary on two small scenarios.
# The result is target/pgo/release/rocesim (with or without --native: the last build wins).
# Takes about 7 minutes on 2 cores, 8 with --native.
#
# Needs llvm-profdata of the LLVM that rustc uses (`rustc -vV` names it): from
# `rustup component add llvm-tools`, or the distribution's llvm-N package (Debian/Ubuntu:
# `apt install llvm-N`), or the path in $LLVM_PROFDATA. Run from the repository root.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
fi
extra=""
if [[ ${1:-} == --native ]]; then
    extra=" -Ctarget-cpu=native"
    shift
fi
if [[ $# -gt 0 ]]; then
    echo "build-pgo.sh: unexpected argument \`$1\` (see -h)" >&2
    exit 2
fi

major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
find_profdata() {
    if [[ -n ${LLVM_PROFDATA:-} ]]; then
        echo "$LLVM_PROFDATA"
        return
    fi
    local sysroot
    sysroot=$(rustc --print sysroot)
    for p in "$sysroot"/lib/rustlib/*/bin/llvm-profdata "/usr/lib/llvm-$major/bin/llvm-profdata" \
        "$(command -v "llvm-profdata-$major" || true)"; do
        if [[ -n $p && -x $p ]]; then
            echo "$p"
            return
        fi
    done
}
profdata=$(find_profdata)
if [[ -z $profdata ]]; then
    echo "build-pgo.sh: no llvm-profdata for LLVM $major (rustc's): install it with" >&2
    echo "  rustup component add llvm-tools   or   apt install llvm-$major" >&2
    echo "or name it in \$LLVM_PROFDATA" >&2
    exit 2
fi
have=$("$profdata" --version | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p')
if [[ $have != "$major" ]]; then
    echo "build-pgo.sh: $profdata is LLVM $have, rustc uses LLVM $major: its profiles would not load" >&2
    exit 2
fi

root=$(pwd)
data="$root/target/pgo-data"
rm -rf "$data"
echo "== instrumented build (target/pgo-gen)" >&2
# Profile names uncompressed: an llvm-profdata built without zlib reads them too.
RUSTFLAGS="-Cprofile-generate=$data -Cllvm-args=-enable-name-compression=false$extra" cargo build --release -q --target-dir target/pgo-gen -p rocesim-cli
gen=target/pgo-gen/release/rocesim
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT
echo "== training runs" >&2
run() {
    "$gen" run "$@" --set output.dir="$train/out" >/dev/null 2>"$train/err" || {
        cat "$train/err" >&2
        exit 1
    }
}
for b in s1-none s1 s1-dcqcn; do run "benches/$b.toml" --set sim.duration=2ms; done
run benches/s4.toml --set sim.duration=300us
run benches/s2.toml
run benches/s3.toml
for s in incast pfc-storm-switch-watchdog irn-vs-roce slow-receiver parking-lot-dcqcn; do
    run "scenarios/$s.toml"
done
"$profdata" merge -o "$data/merged.profdata" "$data"/*.profraw
echo "== optimized build (target/pgo)" >&2
RUSTFLAGS="-Cprofile-use=$data/merged.profdata$extra" cargo build --release -q --target-dir target/pgo -p rocesim-cli
echo "== results against the plain release build" >&2
cargo build --release -q -p rocesim-cli
scripts/compare-results.sh --only 'benches/s2.toml|scenarios/incast.toml' \
    target/release/rocesim target/pgo/release/rocesim target/pgo-compare >&2
echo "target/pgo/release/rocesim"
