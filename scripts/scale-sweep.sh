#!/usr/bin/env bash
# The scale sweep: fat-trees k = 8, 16, 32 (128, 1024, 8192 hosts), 100G 1 us links, WebSearch
# Poisson at 30 % load, PFC + HPCC as in benches/s4.toml, for a simulated duration (default 2 ms).
# Prints one row per k, so that the growth of cost with the work can be read off:
#   hosts, flows, events, packet hops      exact (same seed, same binary: same numbers)
#   run_s                                  wall time of the run loop (summary.json `wall_s`)
#   proc_s, cpu_s                          wall and user+system CPU time of the whole process
#                                          (setup, run, writing results)
#   events/s, ns/hop                       events and packet hops per run_s
#   run_MB                                 peak resident memory when the run ends, before the
#                                          result tables are built (summary.json `peak_memory_kb`)
#   proc_MB                                peak resident memory of the whole process (ru_maxrss),
#                                          which includes building the result tables
#
# usage: [THREADS=N] scripts/scale-sweep.sh [ROCESIM_BINARY] [DURATION] [K...]
#   e.g. scripts/scale-sweep.sh target/release/rocesim 2ms 8 16 32
#   THREADS=2 runs each fabric split across 2 threads (sim.threads; same results, so the
#   exact columns match a THREADS=1 sweep; cpu_s then adds up both threads)
# Runs one after another; on a shared machine wall times are noisy (compare cpu_s, and only runs
# made in one sitting), event counts and peak memory are not. At 2 ms the k = 32 run needs about
# 350 MB and 15-20 minutes on a 2-vCPU VM (docs/performance.md); 500us takes about 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/rocesim}
dur=${2:-2ms}
shift $(( $# > 2 ? 2 : $# ))
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(8 16 32)
[ -x "$bin" ] || { echo "scale-sweep: $bin is not an executable (build with cargo build --release)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-4s %6s %7s %12s %12s %8s %8s %8s %10s %7s %7s %8s\n' \
  k hosts flows events hops run_s proc_s cpu_s events/s ns/hop run_MB proc_MB
for k in "${ks[@]}"; do
  out="$tmp/k$k"
  python3 - "$out" "$k" "$bin" "$dur" "${THREADS:-1}" <<'PY'
import json, os, subprocess, sys, time
out, k, binary, dur, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
cmd = [binary, "run", "benches/s4.toml", "--quiet", "--out", out,
       "--set", f"topology.k={k}", "--set", f'sim.duration="{dur}"',
       "--set", f'workload[0].until="{dur}"', "--set", f"sim.threads={threads}"]
t0 = time.monotonic()
child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(child.pid, 0)
proc_s = time.monotonic() - t0
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f"scale-sweep: k={k}: {' '.join(cmd)} failed ({os.waitstatus_to_exitcode(status)})")
s = json.load(open(os.path.join(out, "summary.json")))
hops = s["packet_hops"]
print(f'{k:<4} {k**3 // 4:>6} {s["flows"]["count"]:>7} {s["events"]:>12} {hops:>12} '
      f'{s["wall_s"]:>8.2f} {proc_s:>8.2f} {ru.ru_utime + ru.ru_stime:>8.2f} '
      f'{s["events_per_s"]:>10.3g} {s["wall_s"] * 1e9 / max(hops, 1):>7.0f} '
      f'{s["peak_memory_kb"] / 1024:>7.1f} {ru.ru_maxrss / 1024:>8.1f}', flush=True)
PY
  rm -rf "$out"
done
