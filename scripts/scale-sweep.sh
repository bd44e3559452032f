#!/usr/bin/env bash
# The scale sweep: fat-trees k = 8, 16, 32 (128, 1024, 8192 hosts), 100G 1 us links, WebSearch
# Poisson at 30 % load, PFC + HPCC as in benches/s4.toml, for a simulated duration (default 2 ms).
# Prints one row per k: hosts, flows, events, packet hops, wall time, events/s, ns per hop and
# peak memory, so that the growth of cost with the work can be read off.
#
# usage: scripts/scale-sweep.sh [ROCESIM_BINARY] [DURATION] [K...]
#   e.g. scripts/scale-sweep.sh target/release/rocesim 2ms 8 16 32
# Runs one after another on an otherwise idle machine; wall times are only comparable within a
# sitting. The k = 32 run needs several GB of memory and minutes of wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/rocesim}
dur=${2:-2ms}
shift $(( $# > 2 ? 2 : $# ))
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(8 16 32)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-4s %6s %7s %12s %12s %9s %11s %8s %9s\n' \
  k hosts flows events hops wall_s events/s ns/hop peak_MB
for k in "${ks[@]}"; do
  out="$tmp/k$k"
  "$bin" run benches/s4.toml --quiet --out "$out" \
    --set "topology.k=$k" --set "sim.duration=\"$dur\"" --set "workload[0].until=\"$dur\"" \
    >/dev/null
  python3 - "$out/summary.json" "$k" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
k = int(sys.argv[2])
hops = s["packet_hops"]
print(f'{k:<4} {k**3 // 4:>6} {s["flows"]["count"]:>7} {s["events"]:>12} {hops:>12} '
      f'{s["wall_s"]:>9.2f} {s["events_per_s"]:>11.3g} {s["wall_s"] * 1e9 / max(hops, 1):>8.0f} '
      f'{s["peak_memory_kb"] / 1024:>9.0f}')
PY
done
