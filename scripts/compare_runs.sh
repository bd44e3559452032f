#!/bin/bash
# Compare two rocesim binaries on a few shipped scenarios: every result file must be identical
# (summary.json and report.html without their timing lines). Used to check that a change of the
# config layer leaves the runs unchanged.
#   OLD=/path/to/old/rocesim NEW=target/release/rocesim scripts/compare_runs.sh
set -u
cd "$(dirname "$0")/.."
OLD=${OLD:?set OLD to the old binary}
NEW=${NEW:-target/release/rocesim}
OUT=$(mktemp -d)
same=0
differ=0
timing='"wall_s"\|"events_per_s"\|"peak_memory_kb"\|wall\|events/s\|peak'
run() { # name, file, --set options...
  local name=$1 file=$2
  shift 2
  "$OLD" run "$file" --out "$OUT/$name/old" --quiet "$@" >/dev/null 2>&1
  "$NEW" run "$file" --out "$OUT/$name/new" --quiet "$@" >/dev/null 2>&1
  for f in $(cd "$OUT/$name/old" && find . -type f | sort); do
    if diff <(grep -v "$timing" "$OUT/$name/old/$f") <(grep -v "$timing" "$OUT/$name/new/$f") >/dev/null; then
      same=$((same + 1))
    else
      echo "differs: $name $f"
      differ=$((differ + 1))
    fi
  done
}
run parking-lot scenarios/parking-lot.toml --set sim.duration=3ms --set sim.warmup=1ms
run parking-lot-dcqcn scenarios/parking-lot-dcqcn.toml --set sim.duration=2ms --set sim.warmup=0us
run pfc-storm scenarios/pfc-storm-nic-watchdog.toml --set sim.duration=7ms --set fault.0.until=6ms
run poisson scenarios/workload-poisson.toml --set sim.duration=300us --set workload.0.until=300us
run incast scenarios/workload-incast.toml --set sim.duration=500us
run storage scenarios/workload-storage-read.toml --set sim.duration=500us
run link-failure scenarios/link-failure.toml
run two-podsets scenarios/two-podsets.toml --set sim.duration=200us --set sim.warmup=0us
run hpcc scenarios/hpcc-vs-dcqcn-incast.toml --set sim.duration=500us
run fat-tree scenarios/topo-fat-tree.toml --set switch.role.core.lossless.headroom=1.5 \
  --set nic.cc=dcqcn --set nic.dcqcn.dce_tcp_g=1020
echo "identical files: $same, differing: $differ"
rm -rf "$OUT"
[ "$differ" -eq 0 ] && [ "$same" -gt 0 ]
