#!/usr/bin/env python3
"""Instructions a packet-hop, and where they go (issue 17's measure: callgrind's count of the
whole run divided by summary.json's `packet_hops`).

Reads a callgrind output file written with `--dump-instr=yes` and charges each instruction to
the innermost line of rocesim's own source it was compiled from (following inlining with
`addr2line -i`): a `Vec` push inlined into the MMU counts as the MMU's. Lines are grouped by
file (`--by file`), by component (`--by component`: the event queue, the run loop, each fabric
file, the NIC, the monitor, ...) or kept (`--by line`). Instructions with no rocesim frame at
all (libc, the allocator, standard-library functions not inlined) are one group.

    scripts/hop_cost.py CALLGRIND_OUT BINARY HOPS [--by component|file|line] [--top N]

`scripts/hop-cost.sh` runs a scenario under callgrind and calls this. Needs `addr2line`
(binutils) on the PATH; the binary must carry line tables (the release profile keeps
`debug = 1`).
"""
import argparse
import collections
import os
import subprocess
import sys

# Where rocesim's own sources are, in the paths of the line tables.
OWN_ROOTS = ("crates/rocesim/src/", "crates/rocesim-cli/src/")
# Components made of several files: the first prefix that matches names the group.
GROUPS = (
    ("engine/delay_rings.rs", "event queue"),
    ("engine/queue", "event queue"),
    ("engine/wheel_", "event queue"),
    ("engine/far_events.rs", "event queue"),
    ("engine/event.rs", "event queue"),
    ("engine/ctx.rs", "event queue"),
    ("engine/arena.rs", "packet arena"),
    ("sim/", "run loop"),
    ("nic/", "nic"),
    ("monitor/", "monitor"),
    ("topology/", "topology"),
)
OUTSIDE = "outside rocesim (libc, allocator, std not inlined)"


def parse_callgrind(lines):
    """Self cost (the first event, Ir) per (object, address) of a callgrind file written with
    `--dump-instr=yes`, and the file's total. Positions are `instr line` (or `instr`), with
    callgrind's relative (`+N`, `-N`) and repeated (`*`) forms; the line after `calls=` is a
    call's inclusive cost and is not self cost."""
    cost = collections.Counter()
    names = {}
    obj = None
    addr = 0
    npos = 1
    after_call = False
    total = None
    for raw in lines:
        line = raw.rstrip("\n")
        if not line or line[0] == "#":
            continue
        if line.startswith("positions:"):
            npos = len(line.split()) - 1
            continue
        if line.startswith("summary:") or line.startswith("totals:"):
            total = int(line.split()[1])
            continue
        if line.startswith("ob="):
            obj = _compressed_name(line[3:], names, "ob")
            continue
        if line.startswith("cob="):
            # A call's object: its name may be given here first.
            _compressed_name(line[4:], names, "ob")
            continue
        if line.startswith("calls="):
            after_call = True
            continue
        if line[0] not in "0123456789+-*":
            continue
        fields = line.split()
        addr = _position(fields[0], addr)
        if after_call:
            after_call = False
            continue
        if len(fields) > npos:
            cost[(obj, addr)] += int(fields[npos])
    if total is None:
        total = sum(cost.values())
    named = collections.Counter()
    for (obj, addr), c in cost.items():
        named[(names.get(obj, obj), addr)] += c
    return named, total


def _compressed_name(spec, names, kind):
    """The key of a name given as `(id) name` (its first use) or `(id)` (later uses, which
    may come before the first named one): `(kind, id)`, its name recorded in `names` when
    given. A plain name is its own key."""
    spec = spec.strip()
    if spec.startswith("("):
        end = spec.index(")")
        key = (kind, spec[1:end])
        rest = spec[end + 1 :].strip()
        if rest:
            names[key] = rest
        return key
    return spec


def _position(field, prev):
    """An address field: absolute (hex or decimal), relative to `prev`, or `*` (the same)."""
    if field == "*":
        return prev
    if field[0] in "+-":
        step = int(field[1:], 16) if field[1:].startswith("0x") else int(field[1:])
        return prev + step if field[0] == "+" else prev - step
    return int(field, 16) if field.startswith("0x") else int(field)


def own_frame(frames):
    """The innermost frame of rocesim's own source in an inlining chain (innermost first), as
    `path:line` relative to its crate's `src/`, or None."""
    for frame in frames:
        for root in OWN_ROOTS:
            i = frame.find(root)
            if i >= 0:
                prefix = "cli/" if "rocesim-cli" in root else ""
                return prefix + frame[i + len(root) :].split(" (")[0]
    return None


def component(own):
    """The group of a `path:line` (or `path`) for `--by component`."""
    path = own.split(":")[0]
    for prefix, name in GROUPS:
        if path.startswith(prefix):
            return name
    return path[:-3] if path.endswith(".rs") else path


def symbolize(binary, addrs):
    """Inlining chains (innermost first, as `file:line`) of `addrs` in `binary`."""
    addrs = list(addrs)
    if not addrs:
        return {}
    text = "\n".join(hex(a) for a in addrs) + "\n"
    out = subprocess.run(
        ["addr2line", "-a", "-i", "-e", binary],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return parse_addr2line(out)


def parse_addr2line(out):
    """`addr2line -a -i` output: each address line (`0x...`) then its frames."""
    chains = {}
    cur = None
    for line in out.splitlines():
        if line.startswith("0x"):
            cur = int(line, 16)
            chains[cur] = []
        elif cur is not None:
            chains[cur].append(line)
    return chains


def find_object(objects, binary):
    """The object among callgrind's `objects` that is `binary`: the same file, else the one
    of the same base name (the run may have named it by another path)."""
    named = [o for o in objects if isinstance(o, str)]
    real = os.path.realpath(binary)
    same = [o for o in named if os.path.realpath(o) == real]
    if same:
        return same[0]
    base = os.path.basename(binary)
    return next((o for o in named if os.path.basename(o) == base), None)


def breakdown(cost, binary_obj, chains, by):
    """Cost per group: each address of `binary_obj` goes to its own frame's group, anything
    else (other objects, no own frame) to OUTSIDE."""
    groups = collections.Counter()
    for (obj, addr), c in cost.items():
        own = own_frame(chains.get(addr, [])) if obj == binary_obj else None
        if own is None:
            key = OUTSIDE
        elif by == "line":
            key = own
        elif by == "file":
            key = own.split(":")[0]
        else:
            key = component(own)
        groups[key] += c
    return groups


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("callgrind_out")
    ap.add_argument("binary")
    ap.add_argument("hops", type=int, help="packet_hops of the run (summary.json)")
    ap.add_argument("--by", choices=["component", "file", "line"], default="component")
    ap.add_argument("--top", type=int, default=25, help="groups to print (default 25)")
    args = ap.parse_args(argv)
    if args.hops <= 0:
        sys.exit("hop_cost.py: HOPS must be positive (a run that forwarded no frame)")
    with open(args.callgrind_out) as f:
        cost, total = parse_callgrind(f)
    binary_obj = find_object({obj for obj, _ in cost}, args.binary)
    if binary_obj is None:
        sys.exit(
            f"hop_cost.py: {args.binary} is not among the objects of {args.callgrind_out}"
            " (was the run made with that binary?)"
        )
    addrs = sorted({a for (o, a) in cost if o == binary_obj})
    chains = symbolize(args.binary, addrs)
    groups = breakdown(cost, binary_obj, chains, args.by)
    print(f"{total:,} instructions / {args.hops:,} packet-hops = {total / args.hops:.1f} a hop")
    print(f"{'a hop':>8} {'share':>6}  {args.by}")
    for key, c in groups.most_common(args.top):
        print(f"{c / args.hops:8.1f} {100 * c / total:5.1f}%  {key}")
    rest = sum(c for _, c in groups.most_common()[args.top :])
    if rest:
        print(f"{rest / args.hops:8.1f} {100 * rest / total:5.1f}%  (the rest)")


if __name__ == "__main__":
    main()
