#!/usr/bin/env bash
# Soak benchmark (not in CI): 4 hosts on one 10G switch, Poisson arrivals of AliStorage-2019 flow
# sizes (mean 41 KB, short flows) at 10 % of each host's link, DCQCN, for 60 simulated seconds
# (about 730,000 flows). Memory over simulated time: the same scenario run for 1, 5, 15 and
# 30 s (SOAK_DURATIONS overrides) and then the full duration, each run's peak RSS printed
# twice: at the end of the simulation (VmHWM, from summary.json) and for the whole process,
# result files written (GNU time's maximum resident set size); during the last run the
# process's resident memory (VmRSS of /proc/PID/status) is printed every second of wall time.
#
# usage: scripts/soak.sh [ROCESIM_BINARY] [SIM_DURATION]   (defaults: target/release/rocesim 60s)
set -euo pipefail
bin=${1:-target/release/rocesim}
duration=${2:-60s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/soak.toml" <<'TOML'
[sim]
duration = "__DURATION__"
seed = 1
[topology]
kind = "star"
hosts = 4
link = { rate = "10Gbps", delay = "1us" }
[switch]
buffer_size = "4MB"
pfc_enable = [3]
lossless = { dynamic_th = -3, headroom = "auto" }
ecn = { queues = [3], kmin = "5KB", kmax = "200KB", pmax = 0.01 }
[nic]
mtu = 1000
cc = "dcqcn"
[[workload]]
kind = "poisson"
cdf = "alistorage"
load = 0.1
hosts = "all"
until = "__DURATION__"
[output]
report = false
throughput_interval = "off"
queue_sample_interval = "off"
TOML
# One run: sample its RSS every second of wall time (printed when $2 = trace), then print
# the simulated duration, flows, events, wall time and peak RSS (VmHWM) from summary.json.
run() {
  sed "s/__DURATION__/$1/g" "$tmp/soak.toml" > "$tmp/run.toml"
  /usr/bin/time -f '%M' -o "$tmp/maxrss" "$bin" run "$tmp/run.toml" --out "$tmp/out" --quiet &
  local tpid=$! pid="" t=0
  while kill -0 "$tpid" 2>/dev/null; do
    local rss=""
    [ -n "$pid" ] || pid=$(pgrep -P "$tpid" || true)
    [ -z "$pid" ] || rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [ "$2" = trace ] && [ -n "$rss" ]; then
      printf '  wall %4d s  RSS %7.1f MB\n' "$t" "$(echo "$rss / 1024" | bc -l)"
    fi
    sleep 1
    t=$((t + 1))
  done
  wait "$tpid"
  python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
process = int(open(sys.argv[3]).read().split()[-1])
print(f\"sim {sys.argv[2]:>4}: flows {s['flows']['count']:>8} ({s['flows']['completed']} completed), events {s['events']:>11}, wall {s['wall_s']:6.1f} s, peak RSS {s['peak_memory_kb'] / 1024:7.1f} MB run, {process / 1024:7.1f} MB with its results written\")
" "$tmp/out/summary.json" "$1" "$tmp/maxrss"
}
for d in ${SOAK_DURATIONS:-1s 5s 15s 30s}; do
  run "$d" quiet
done
run "$duration" trace
