#!/usr/bin/env bash
# Memory per flow: peak_memory_kb of 10^5 one-packet flows sent one after another, minus that
# of 10^3, divided by the 99,000 extra flows (the house issue asks for at most 200 bytes).
# usage: scripts/flow-memory.sh [ROCESIM_BINARY]
set -euo pipefail
bin=${1:-target/release/rocesim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/mem.toml" <<'TOML'
[sim]
duration = "101ms"
[topology]
kind = "star"
hosts = 2
link = { rate = "100Gbps", delay = "1us" }
[[workload]]
kind = "trace"
file = "trace.csv"
[output]
report = false
throughput_interval = "off"
queue_sample_interval = "off"
TOML
peak() {
  python3 -c "
import sys
n = int(sys.argv[1])
with open('$tmp/trace.csv', 'w') as f:
    f.write('start_ns,src,dst,size_bytes\n')
    for i in range(n):
        f.write(f'{i * 1000},h0,h1,1000\n')
" "$1"
  "$bin" run "$tmp/mem.toml" --out "$tmp/out$1" --quiet
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['peak_memory_kb'])" "$tmp/out$1/summary.json"
}
small=$(peak 1000)
large=$(peak 100000)
python3 -c "print(f'peak {$small} KB (10^3 flows), {$large} KB (10^5 flows): {($large - $small) * 1024 / 99000:.1f} B per extra flow')"
