#!/usr/bin/env python3
"""Speed-up expected from partitioning a fat-tree run over N cores (issue 17, "on paper").

Reads the ports.csv of a finished fat-tree run (hosts h*, switches edge*, agg*, core*, as
rocesim's `fat_tree` names them) and, for N partitions, assigns each pod's hosts, edge and
aggregation switches to one partition (pods split by edge switch when N exceeds the pods) and
the core switches round-robin. From the frames every port sent it prints the frames that cross
a partition boundary and the busiest partition's share of the work, then the modelled time

    T_N = T_1 * busiest / total  +  windows * sync  +  cross / N * handoff

with conservative synchronisation in windows of one lookahead (the smallest link delay
crossing a cut), a barrier cost per window and a hand-off cost per crossing frame. The costs
are assumptions, given as options; only the frame counts are measured.

usage: scripts/partition-estimate.py PORTS_CSV K T1_SECONDS SIM_SECONDS LOOKAHEAD_SECONDS
       [--sync 2e-6,5e-6] [--handoff 1e-7]
"""
import argparse
import collections
import csv


def owner(name, k, n):
    """The partition of node `name` of a k-ary fat-tree split into n parts."""
    half = k // 2
    if name.startswith("core"):
        return int(name[4:]) % n
    if name.startswith("h"):
        edge = int(name[1:]) // half
    elif name.startswith("edge"):
        edge = int(name[4:])
    elif name.startswith("agg"):
        edge = int(name[3:])  # aggregation switch i sits with edge switch i of its pod
    else:
        raise ValueError(f"not a fat-tree node: {name}")
    pod, within = divmod(edge, half)
    if n <= k:
        return pod * n // k
    per = n // k
    return pod * per + within * per // half


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ports_csv")
    ap.add_argument("k", type=int)
    ap.add_argument("t1", type=float, help="single-core wall time of the run, s")
    ap.add_argument("sim", type=float, help="simulated time of the run, s")
    ap.add_argument("lookahead", type=float, help="smallest link delay across a cut, s")
    ap.add_argument("--sync", default="2e-6,5e-6", help="barrier cost per window at 16, 64 cores")
    ap.add_argument("--handoff", type=float, default=1e-7, help="cost per crossing frame, s")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.ports_csv)))
    total = sum(int(r["tx_packets"]) for r in rows)
    windows = a.sim / a.lookahead
    sync16, sync64 = (float(x) for x in a.sync.split(","))
    print(f"k = {a.k}: {total} frames sent, {windows:.0f} windows of {a.lookahead * 1e6:g} us")
    for n in [2, 4, 8, 16, 64]:
        work = collections.Counter()
        cross = 0
        for r in rows:
            mine, peer = owner(r["node"], a.k, n), owner(r["peer"], a.k, n)
            frames = int(r["tx_packets"])
            work[mine] += frames
            cross += frames if mine != peer else 0
        busiest = max(work.values())
        sync = sync16 if n <= 16 else sync64
        t = a.t1 * busiest / total + windows * sync + cross / n * a.handoff
        print(
            f"  N = {n:2d}: crossing {cross} frames ({100 * cross / total:.1f} %), busiest "
            f"{busiest / (total / n):.2f} x the mean, T_N {t:.3f} s, speed-up {a.t1 / t:.1f}"
        )


if __name__ == "__main__":
    main()
