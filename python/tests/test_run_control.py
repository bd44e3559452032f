"""Long runs: the GIL is released, progress is reported, Ctrl-C stops them cleanly."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import rocesim
from conftest import REPO

LONG = ["sim.duration=2s"]


def long_scenario():
    sc = rocesim.Scenario.from_toml(REPO / "scenarios/parking-lot-dcqcn.toml")
    return sc.update(dict(s.split("=", 1) for s in LONG))


def test_ctrl_c_stops_a_run_with_partial_results():
    script = textwrap.dedent(f"""
        import sys, rocesim
        sc = rocesim.Scenario.from_toml({str(REPO / 'scenarios/parking-lot-dcqcn.toml')!r})
        sc.set("sim.duration", "2s")
        print("started", flush=True)
        try:
            sc.run(progress=False)
        except rocesim.Interrupted as e:
            s = e.result.summary
            print("interrupted", s["incomplete"], s["stopped_by"], s["sim_time_ns"], flush=True)
            sys.exit(0)
        print("finished", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0
    word, incomplete, by, t = out.split()
    assert (word, incomplete, by) == ("interrupted", "True", "interrupt")
    assert 0 < int(t) < 2_000_000_000


def test_gil_released_and_progress_reported():
    sc = long_scenario()
    ticks = []
    t = threading.Thread(target=lambda: [ticks.append(time.monotonic()) or time.sleep(0.01)
                                         for _ in range(100)])
    calls = []
    from rocesim import _native

    def progress(now, end, events):
        calls.append((now, end))
        if len(calls) >= 3:
            raise KeyboardInterrupt

    t.start()
    start = time.monotonic()
    native, err = _native.run(sc._text, sc._file, sc._base_dir, sc.overrides, progress, 0.1)
    end = time.monotonic()
    t.join()
    assert isinstance(err, KeyboardInterrupt)
    assert native.incomplete
    # Another Python thread kept running while the simulator did (a 10 ms tick, over a run of
    # at least 0.2 s): with the GIL held it would tick only in the progress callbacks.
    during = [x for x in ticks if start < x < end]
    assert end - start >= 0.2
    assert len(during) >= 10, (len(during), end - start)
    assert calls[0][1] == 2_000_000_000 and calls[-1][0] > calls[0][0]
