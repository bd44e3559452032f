#!/usr/bin/env bash
# hop-cost.sh: instructions a packet-hop of a scenario's run, counted by callgrind (issue 17's
# measure: the whole run's instructions divided by summary.json's packet_hops), and with --by
# where they go.
#
# Usage: scripts/hop-cost.sh [OPTIONS] SCENARIO [BIN]
#
#   SCENARIO   a scenario file, e.g. benches/s1-none.toml
#   BIN        the rocesim executable (default target/release/rocesim, built if missing)
#
# Options:
#   --set KEY=VALUE   passed to the run (repeatable), e.g. --set sim.duration=400us for a
#                     shorter window (a whole S1-none run takes about 2 minutes under callgrind,
#                     its first 400 us a few seconds)
#   --by GROUP        also charge each instruction to the innermost line of rocesim's source it
#                     comes from, grouped by component, file or line (scripts/hop_cost.py)
#   --top N           groups to print with --by (default 25)
#   --keep DIR        write the callgrind file and the run's results in DIR (default: a
#                     temporary directory, removed at the end)
#   -h, --help        this text
#
# Prints the count, the hops and their ratio, e.g.
#   14,077,899,807 instructions / 20,113,637 packet-hops = 699.9 a hop   (S1-none, 677f08d)
# Needs valgrind, and with --by python3 and addr2line. Instruction counts repeat from run to
# run (unlike wall time on a shared machine), so two binaries compare on one scenario.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

sets=()
by=''
top=25
keep=''
while [ $# -gt 0 ]; do
    case "$1" in
        --set) sets+=(--set "$2"); shift 2 ;;
        --by) by="$2"; shift 2 ;;
        --top) top="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "hop-cost.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    usage >&2
    exit 2
fi
scenario="$1"
here="$(cd "$(dirname "$0")" && pwd)"
bin="${2:-$here/../target/release/rocesim}"
case "$by" in
    ''|component|file|line) ;;
    *) echo "hop-cost.sh: --by takes component, file or line, not '$by'" >&2; exit 2 ;;
esac
if [ ! -f "$scenario" ]; then
    echo "hop-cost.sh: no scenario file $scenario" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null; then
    echo "hop-cost.sh: valgrind is not installed (apt install valgrind)" >&2
    exit 2
fi
if [ -n "$by" ] && ! command -v addr2line >/dev/null; then
    echo "hop-cost.sh: --by needs addr2line (apt install binutils)" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then
    (cd "$here/.." && cargo build --release -q -p rocesim-cli)
fi

if [ -n "$keep" ]; then
    dir="$keep"
    mkdir -p "$dir"
else
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi
out="$dir/callgrind.out"
dump=()
if [ -n "$by" ]; then
    dump=(--dump-instr=yes)
fi
valgrind --tool=callgrind "${dump[@]}" --callgrind-out-file="$out" \
    "$bin" run "$scenario" "${sets[@]}" --out "$dir/results" -q 2> "$dir/valgrind.log" || {
    echo "hop-cost.sh: the run failed; valgrind's log:" >&2
    cat "$dir/valgrind.log" >&2
    exit 1
}
hops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["packet_hops"])' \
    "$dir/results/summary.json")
if [ -n "$by" ]; then
    python3 "$here/hop_cost.py" "$out" "$bin" "$hops" --by "$by" --top "$top"
else
    total=$(sed -n 's/^summary: //p' "$out")
    python3 -c 'import sys; t, h = int(sys.argv[1]), int(sys.argv[2]); print(f"{t:,} instructions / {h:,} packet-hops = {t / h:.1f} a hop" if h else f"{t:,} instructions, no packet-hop")' "$total" "$hops"
fi
