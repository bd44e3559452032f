"""Tables cross from the simulator to Python without copying: a flows table of 10^6 rows
arrives in well under 50 ms and allocates nothing in pyarrow's memory pool."""

import time

import pyarrow as pa

import rocesim

# Two hosts, an incast of 10^6 one-packet rounds that start after the 10 us run ends: the
# flows are listed (none starts), so the flows table has 10^6 rows. (Poisson arrivals stop at
# sim.duration, so they cannot list flows that never start.)
MANY_FLOWS = {
    "sim": {"duration": "10us"},
    "topology": {"kind": "star", "hosts": 2,
                 "link": {"rate": "100Gbps", "delay": "1us"}},
    "workload": [{"kind": "incast", "senders": ["h1"], "receiver": "h0", "size": "1KB",
                  "at": "20us", "repeat": "1us", "count": 1_000_000}],
}


def test_million_row_flows_table_is_handed_over_without_copy():
    result = rocesim.Scenario.from_dict(MANY_FLOWS, name="many").run(progress=False)
    before = pa.total_allocated_bytes()
    t0 = time.perf_counter()
    flows = result.flows
    elapsed = time.perf_counter() - t0
    assert flows.num_rows >= 1_000_000
    assert flows.nbytes > 100_000_000  # 22 columns: a copy would show
    assert elapsed < 0.050, f"{elapsed * 1e3:.1f} ms"
    assert pa.total_allocated_bytes() - before < 1_000_000
    # The same object next time, and the columns read as expected.
    assert result.flows is flows
    assert flows["flow_id"][0].as_py() == 0
    print(f"\nflows table: {flows.num_rows} rows, {flows.nbytes / 1e6:.0f} MB, "
          f"handed over in {elapsed * 1e3:.2f} ms")
