"""scripts/hop_cost.py: the callgrind reader and the charge of each instruction to rocesim's
own source (expected values worked out by hand from the inputs below)."""
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "hop_cost", pathlib.Path(__file__).resolve().parents[1] / "hop_cost.py"
)
hop_cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hop_cost)

# Two objects, names compressed (the binary's first named on a `cob=` line), positions in
# every form callgrind writes: absolute hex, +N, -N, `*`, and a call whose next line is the
# callee's inclusive cost (not self cost).
CALLGRIND = """\
# callgrind format
version: 1
positions: instr line
events: Ir
summary: 1000

ob=(1) /usr/lib/libc.so.6
fl=(1) memcpy.S
fn=(1) memcpy
0x100 10 5
+4 * 7

ob=(2)
fl=(2) main.rs
fn=(2) main
cob=(2) /build/target/release/rocesim
cfn=(3) helper
calls=1 0x2000 3
0x1000 1 900
+8 +1 40
-4 * 11
+4 -1 2
"""


def test_callgrind_positions_objects_and_calls():
    cost, total = hop_cost.parse_callgrind(CALLGRIND.splitlines(True))
    assert total == 1000
    libc, rocesim = "/usr/lib/libc.so.6", "/build/target/release/rocesim"
    # The call line's 900 is the callee's inclusive cost, not charged; its address (0x1000)
    # is where the relative positions after it start: +8 is 0x1008, -4 0x1004, +4 0x1008.
    assert dict(cost) == {
        (libc, 0x100): 5,
        (libc, 0x104): 7,
        (rocesim, 0x1004): 11,
        (rocesim, 0x1008): 40 + 2,
    }


def test_innermost_own_frame_wins_over_std_and_callers():
    chain = [
        "/rustc/abc/library/alloc/src/vec/mod.rs:2400",
        "/work/x/crates/rocesim/src/fabric/mmu.rs:131 (discriminator 2)",
        "/work/x/crates/rocesim/src/fabric/switch.rs:243",
        "/work/x/crates/rocesim/src/sim/mod.rs:421",
    ]
    assert hop_cost.own_frame(chain) == "fabric/mmu.rs:131"
    assert hop_cost.own_frame(["/rustc/abc/library/core/src/cmp.rs:10"]) is None
    assert hop_cost.own_frame(["/b/crates/rocesim-cli/src/main.rs:7"]) == "cli/main.rs:7"


def test_components_group_the_event_queue_and_keep_fabric_files_apart():
    assert hop_cost.component("engine/delay_rings.rs:188") == "event queue"
    assert hop_cost.component("engine/wheel_slot.rs:5") == "event queue"
    assert hop_cost.component("engine/arena.rs:68") == "packet arena"
    assert hop_cost.component("nic/rx_pipeline.rs:9") == "nic"
    assert hop_cost.component("fabric/mmu.rs:131") == "fabric/mmu"
    assert hop_cost.component("ids.rs:43") == "ids"


def test_breakdown_charges_other_objects_and_unknown_lines_outside():
    b = "/build/rocesim"
    cost = {(b, 1): 30, (b, 2): 20, (b, 3): 5, ("/usr/lib/libc.so.6", 1): 7}
    chains = {
        1: ["/w/crates/rocesim/src/engine/queue.rs:10"],
        2: ["/rustc/x/vec.rs:1", "/w/crates/rocesim/src/engine/delay_rings.rs:20"],
        3: ["??:0"],
    }
    by_component = hop_cost.breakdown(cost, b, chains, "component")
    assert dict(by_component) == {"event queue": 50, hop_cost.OUTSIDE: 12}
    by_file = hop_cost.breakdown(cost, b, chains, "file")
    assert by_file["engine/queue.rs"] == 30 and by_file["engine/delay_rings.rs"] == 20


def test_addr2line_output_is_split_per_address():
    out = "0x0000000000001000\n/a/x.rs:1\n/a/y.rs:2\n0x0000000000001004\n??:0\n"
    assert hop_cost.parse_addr2line(out) == {
        0x1000: ["/a/x.rs:1", "/a/y.rs:2"],
        0x1004: ["??:0"],
    }


def test_the_binary_is_found_by_path_or_by_name(tmp_path):
    exe = tmp_path / "rocesim"
    exe.write_text("")
    objects = {"/usr/lib/libc.so.6", str(exe), ("ob", "9")}
    assert hop_cost.find_object(objects, str(exe)) == str(exe)
    # Run from another copy: the same base name.
    assert hop_cost.find_object({"/elsewhere/rocesim", "/usr/lib/libc.so.6"}, str(exe)) == (
        "/elsewhere/rocesim"
    )
    assert hop_cost.find_object({"/usr/lib/libc.so.6"}, str(exe)) is None
