#!/usr/bin/env python3
"""Ideal (max-min fair) throughput of Guo et al.'s two-podset experiment under ECMP hashing.

The experiment of scenarios/two-podsets.toml: two podsets of 24 ToRs; ToR i of one podset is
paired with ToR i of the other; 8 servers per ToR open 8 connections each to their peer server,
in both directions (3072 connections). A ToR has one 40G uplink to each of its podset's 4
leaves; leaf j of both podsets connects to the same 16 spines (plane j), so a path is a choice
of leaf (4) and spine (16). Every link is 40 Gb/s.

This computes the max-min fair allocation (progressive filling) for connections whose path is
drawn uniformly at random per connection (5-tuple hashing with a random UDP source port per
QP), or per server pair (hashing on addresses only), and prints the aggregate as a fraction of
the 5.12 Tb/s between the podsets and the spines. No congestion control reaches more than this.

    python3 scripts/two_podsets_maxmin.py
"""
import random
from collections import defaultdict

TORS, SERVERS, CONNS, LEAVES, SPINES_PER_LEAF, RATE = 24, 8, 8, 4, 16, 40.0


def max_min(paths, capacity):
    """Progressive filling: raise every unfrozen flow's rate until a link saturates."""
    rate = [0.0] * len(paths)
    users = defaultdict(set)
    for f, path in enumerate(paths):
        for link in path:
            users[link].add(f)
    left = {link: capacity for link in users}
    active = set(range(len(paths)))
    while active:
        step = min(left[l] / len(u) for l, u in users.items() if u)
        for f in active:
            rate[f] += step
        for l, u in users.items():
            left[l] -= step * len(u)
        frozen = set()
        for l, u in users.items():
            if u and left[l] <= 1e-9:
                frozen |= u
        active -= frozen
        for u in users.values():
            u -= frozen
    return rate


def experiment(per_pair, seed):
    rnd = random.Random(seed)
    paths = []
    for podset in (0, 1):
        for tor in range(TORS):
            for server in range(SERVERS):
                pair_path = (rnd.randrange(LEAVES), rnd.randrange(SPINES_PER_LEAF))
                for _ in range(CONNS):
                    leaf, spine = pair_path if per_pair else (
                        rnd.randrange(LEAVES), rnd.randrange(SPINES_PER_LEAF))
                    peer = 1 - podset
                    paths.append([
                        ("nic-tx", podset, tor, server),
                        ("tor-up", podset, tor, leaf),
                        ("leaf-up", podset, leaf, spine),
                        ("spine-down", peer, leaf, spine),
                        ("leaf-down", peer, tor, leaf),
                        ("nic-rx", peer, tor, server),
                    ])
    bisection = 2 * LEAVES * SPINES_PER_LEAF * RATE
    return sum(max_min(paths, RATE)) / bisection


if __name__ == "__main__":
    for per_pair, name in ((False, "per connection (random UDP source port)"),
                           (True, "per server pair (addresses only)")):
        u = [experiment(per_pair, s) for s in range(3)]
        print(f"hash {name}: max-min utilisation {', '.join(f'{x:.3f}' for x in u)}")
