#!/usr/bin/env python3
"""Time rocesim and htsim side by side on one of BENCHMARKS.md's scenarios, in one sitting:
the two commands alternate (rocesim, htsim, rocesim, ...) and the ratio of their wall times is
taken pair by pair, so that both see the same moments of a shared machine. This is how
docs/performance.md's sittings read (issue 17's targets: S1 without congestion control and S1
with HPCC at most 0.10 of htsim's time, S4 at most 0.07).

    python3 scripts/vs_htsim.py --htsim PATH/TO/csg-htsim/sim/datacenter --bench s1-none
    python3 scripts/vs_htsim.py --htsim ... --bench s4 --pairs 3 --warmup 0 --json s4.json

htsim is not part of rocesim: build it from its public source (Broadcom/csg-htsim; the
sittings used commit 841d9e7 with the two local fixes docs/performance.md describes, without
which every flow starts at time zero) and point `--htsim` at the directory holding
`htsim_roce` and `htsim_hpcc`. Both simulators get the same flows: rocesim's warm-up run
writes the scenario's `flows.csv`, which is converted to htsim's connection matrix
(`src->dst start <ps> size <bytes>`).

Each run is a whole process (setup, run, output), timed by its wall clock, with its CPU time
and peak memory from the kernel's accounting of the finished process. htsim's runs are not
all alike (its sources seed `rand()` from the clock) and some end with SIGABRT: every run is
counted as it ran, and the report says how many ended on a signal and how many flows htsim
finished in each.
"""
import argparse
import csv
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The benchmarks: rocesim's scenario, htsim's binary and the arguments of the sittings
# (ECMP per host, one path, lossless input queues at 100 Gb/s, 1,000-byte MTU, 1,000-packet
# queues so that none overflows, `-end` the scenario's duration in microseconds).
BENCHES = {
    "s1-none": ("benches/s1-none.toml", "htsim_roce", 128, 5000),
    "s1": ("benches/s1.toml", "htsim_hpcc", 128, 5000),
    "s4": ("benches/s4.toml", "htsim_hpcc", 1024, 1000),
}


def htsim_args(nodes, cm, end_us, log):
    """htsim's command-line arguments for a fat-tree of `nodes` hosts fed the connection
    matrix `cm`, run for `end_us` microseconds, logging to `log`."""
    return [
        "-nodes", str(nodes), "-tm", str(cm), "-strat", "ecmp_host", "-paths", "1",
        "-queue_type", "lossless_input", "-linkspeed", "100000", "-mtu", "1000",
        "-end", str(end_us), "-q", "1000", "-o", str(log),
    ]


def flows_to_cm(rows, nodes):
    """htsim's connection matrix for rocesim's flow rows (dicts with `src`, `dst` as `hN`,
    `start_ns`, `size_bytes`), in start order: a `Nodes` and a `Connections` line, then one
    `src->dst start <picoseconds> size <bytes>` line a flow. Raises ValueError on a host
    outside `0..nodes` or a flow to itself."""
    flows = []
    for r in rows:
        src, dst = int(r["src"].lstrip("h")), int(r["dst"].lstrip("h"))
        start_ps, size = int(r["start_ns"]) * 1000, int(r["size_bytes"])
        if not (0 <= src < nodes and 0 <= dst < nodes) or src == dst:
            raise ValueError(f"flow {src}->{dst} is not between two of {nodes} hosts")
        flows.append((start_ps, src, dst, size))
    flows.sort()
    lines = [f"Nodes {nodes}", f"Connections {len(flows)}"]
    lines += [f"{s}->{d} start {t} size {n}" for t, s, d, n in flows]
    return "\n".join(lines) + "\n"


def summarize(pairs):
    """Medians and ranges of a sitting's pairs (each a dict with `rocesim` and `htsim`, the
    runs' wall seconds): every pair's ratio rocesim ÷ htsim, then the median of each column."""
    ratios = [p["rocesim"] / p["htsim"] for p in pairs]

    def span(xs):
        return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}

    return {
        "pairs": len(pairs),
        "rocesim_s": span([p["rocesim"] for p in pairs]),
        "htsim_s": span([p["htsim"] for p in pairs]),
        "ratio": span(ratios),
    }


def timed(cmd, cwd, stdout):
    """Run `cmd` in `cwd`, its output to the file `stdout`: wall seconds, CPU seconds, peak
    memory (MiB) and the exit status (negative: the signal that ended it)."""
    start = time.perf_counter()
    with open(stdout, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        "status": code,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--htsim", required=True, type=pathlib.Path,
                    help="directory holding htsim_roce and htsim_hpcc (csg-htsim's sim/datacenter)")
    ap.add_argument("--bench", choices=sorted(BENCHES), default="s1-none")
    ap.add_argument("--rocesim", type=pathlib.Path, default=ROOT / "target/release/rocesim",
                    help="the rocesim binary (default: target/release/rocesim)")
    ap.add_argument("--pairs", type=int, default=5, help="pairs counted (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="pairs run first and not counted (default 1)")
    ap.add_argument("--json", type=pathlib.Path, help="also write every run and the summary here")
    args = ap.parse_args(argv)

    scenario, htsim_bin, nodes, end_us = BENCHES[args.bench]
    htsim = (args.htsim / htsim_bin).resolve()
    for exe in (args.rocesim, htsim):
        if not os.access(exe, os.X_OK):
            ap.error(f"{exe}: not an executable file")
    if args.pairs < 1 or args.warmup < 0:
        ap.error("--pairs must be at least 1 and --warmup at least 0")

    with tempfile.TemporaryDirectory(prefix="vs-htsim-") as tmp:
        tmp = pathlib.Path(tmp)
        rocesim_cmd = [str(args.rocesim), "run", str(ROOT / scenario), "--out", str(tmp / "rocesim"), "-q"]
        # The first rocesim run writes the flows htsim is fed; it is not timed.
        first = timed(rocesim_cmd, ROOT, tmp / "rocesim.log")
        if first["status"] != 0:
            sys.exit(f"rocesim ended with status {first['status']}: see {scenario}")
        with open(tmp / "rocesim" / "flows.csv", newline="") as f:
            cm = flows_to_cm(csv.DictReader(f), nodes)
        (tmp / "flows.cm").write_text(cm)
        htsim_cmd = [str(htsim)] + htsim_args(nodes, tmp / "flows.cm", end_us, tmp / "htsim.dat")

        runs, pairs = [], []
        for k in range(args.warmup + args.pairs):
            counted = k >= args.warmup
            r = timed(rocesim_cmd, ROOT, tmp / "rocesim.log")
            h = timed(htsim_cmd, tmp, tmp / "htsim.log")
            log = (tmp / "htsim.log").read_text(errors="replace")
            h["flows_finished"] = sum(1 for line in log.splitlines() if " finished at " in line)
            if r["status"] != 0:
                sys.exit(f"rocesim ended with status {r['status']} in pair {k + 1}")
            runs.append({"pair": k + 1, "counted": counted, "rocesim": r, "htsim": h})
            if counted:
                pairs.append({"rocesim": r["wall_s"], "htsim": h["wall_s"]})
            note = "" if h["status"] == 0 else f"  (htsim status {h['status']})"
            print(f"pair {k + 1}{'' if counted else ' (warm-up)'}: rocesim {r['wall_s']:.2f} s, "
                  f"htsim {h['wall_s']:.2f} s, ratio {r['wall_s'] / h['wall_s']:.3f}{note}", flush=True)

    s = summarize(pairs)
    signalled = sum(1 for x in runs if x["counted"] and x["htsim"]["status"] != 0)
    print(f"\n{args.bench}: {s['pairs']} pair(s), medians (min-max)")
    for key, label in (("rocesim_s", "rocesim s"), ("htsim_s", "htsim s"), ("ratio", "rocesim / htsim")):
        v = s[key]
        print(f"  {label:16} {v['median']:.3f} ({v['min']:.3f}-{v['max']:.3f})")
    print(f"  htsim runs that did not exit 0: {signalled} of {s['pairs']} (kept, as they ran)")
    if args.json:
        args.json.write_text(json.dumps({"bench": args.bench, "summary": s, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
