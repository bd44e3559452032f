"""Scenarios from files and dicts, overrides, and errors exactly as the command line gives them."""

import tomllib

import pytest

import rocesim
from conftest import REPO, SCENARIOS


def test_bad_override_raises_the_cli_message(cli):
    sc = rocesim.Scenario.from_toml("scenarios/incast.toml")
    with pytest.raises(rocesim.ScenarioError) as e:
        sc.set("nic.cc", "bogus")
    proc = cli("run", "scenarios/incast.toml", "--set", "nic.cc=bogus", "-q")
    assert proc.returncode == 2
    assert str(e.value) == proc.stderr.rstrip("\n")
    assert len(e.value.errors) == 1 and "nic.cc" in e.value.errors[0]
    # The bad value was not kept: the scenario still runs with its own.
    assert sc.overrides == []


def test_every_finding_is_carried(cli, tmp_path):
    text = (SCENARIOS / "incast.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[sim]", "[sim]\nbogus_key = 1\n", 1)
                   + "\n[nic.dcqcn]\nrpg_gd = 99\n")
    with pytest.raises(rocesim.ScenarioError) as e:
        rocesim.Scenario.from_toml(bad)
    assert len(e.value.errors) >= 2
    assert any("bogus_key" in x for x in e.value.errors)
    assert any("rpg_gd" in x for x in e.value.errors)
    proc = cli("run", bad, "-q")
    assert proc.returncode == 2
    assert str(e.value) == proc.stderr.rstrip("\n")


def test_set_takes_values_as_the_command_line_does():
    sc = rocesim.Scenario.from_toml(SCENARIOS / "incast.toml")
    sc.set("nic.cc", "dcqcn").set("sim.duration", "200us").set("nic.mtu", 2048)
    sc.set("switch.ecn", {"kmin": "10KB", "kmax": "100KB", "pmax": 0.2})
    assert sc.overrides[:3] == ["nic.cc=dcqcn", "sim.duration=200us", "nic.mtu=2048"]
    r = sc.run(progress=False)
    assert r.summary["sim_time_ns"] == 200_000
    with pytest.raises(rocesim.ScenarioError, match="sim.duration"):
        sc.copy().set("sim.duration", -3)


def test_from_dict_equals_from_toml():
    path = SCENARIOS / "incast.toml"
    d = tomllib.loads(path.read_text())
    a = rocesim.Scenario.from_toml(path).set("sim.duration", "300us").run(progress=False)
    b = (rocesim.Scenario.from_dict(d, name="incast", base_dir=SCENARIOS)
         .set("sim.duration", "300us").run(progress=False))
    assert a.flows.equals(b.flows)
    assert a.ports.equals(b.ports)
    assert a.summary["scenario"] == b.summary["scenario"] == "incast"


def test_from_dict_rejects_what_toml_cannot_hold():
    with pytest.raises(rocesim.ScenarioError, match="not a scenario value"):
        rocesim.Scenario.from_dict({"sim": {"duration": object()}})


def test_build_errors_are_scenario_errors(cli):
    # Headroom larger than the buffer passes the key checks but cannot be built.
    sc = rocesim.Scenario.from_toml("scenarios/incast.toml")
    sc.set("switch.buffer_size", "10KB")
    with pytest.raises(rocesim.ScenarioError) as e:
        sc.run(progress=False)
    proc = cli("run", "scenarios/incast.toml", "--set", "switch.buffer_size=10KB", "-q")
    assert proc.returncode == 2
    assert str(e.value) == proc.stderr.rstrip("\n")
