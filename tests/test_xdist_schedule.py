"""verify/xdist_schedule.py: shared-fixture units, longest first, one at a time (pytest -n N)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from verify import xdist_schedule as xs

# a fixture shared by the first and the last check, with singles between: the two ends of the collection, which
# pytest-xdist's own ``--dist load`` sends to two workers that would both compute it
SUITE = textwrap.dedent('''
    import os, pytest

    def _log(line):
        with open(os.environ["XS_LOG"], "a") as fh:
            fh.write(line + " " + os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")

    @pytest.fixture(scope="module")
    def trained():
        _log("fixture")
        return 1

    def test_first(trained):
        _log("first")

    @pytest.mark.parametrize("i", range(12))
    def test_single(i):
        _log(f"single{i}")

    def test_last(trained):
        _log("last")
''')


def _run(tmp_path, *extra):
    (tmp_path / "test_suite.py").write_text(SUITE)
    log = tmp_path / "log.txt"
    log.unlink(missing_ok=True)
    env = {**os.environ, "XS_LOG": str(log)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:randomly", *extra,
                           "test_suite.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line.split() for line in log.read_text().splitlines()]


def test_checks_sharing_a_module_fixture_run_on_one_worker_and_compute_it_once(tmp_path):
    rows = _run(tmp_path)
    where = {name: worker for name, worker in rows}
    assert [name for name, _ in rows].count("fixture") == 1
    assert where["first"] == where["last"] == where["fixture"]
    assert sorted(name for name, _ in rows if name.startswith("single")) == sorted(f"single{i}" for i in range(12))
    assert len(rows) == 15                              # every check once, nothing lost or repeated
    assert {w for _, w in rows} == {"gw0", "gw1"}       # both workers took checks


def test_durations_are_recorded_in_pytests_cache_and_order_the_next_run(tmp_path):
    _run(tmp_path)
    saved = json.loads((tmp_path / ".pytest_cache" / "v" / "verify" / "durations").read_text())
    assert set(saved) == {"test_suite.py::test_first", "test_suite.py::test_last",
                          *(f"test_suite.py::test_single[{i}]" for i in range(12))}
    assert all(isinstance(v, float) and v >= 0 for v in saved.values())


def test_unit_order_is_longest_first_with_untimed_groups_ahead():
    units = {"a": ["a"], "b": ["b"], "g": ["g1", "g2"], "c": ["c"], "u": ["u"]}
    durations = {"a": 1.0, "b": 5.0, "c": 3.0, "g1": 0.5, "g2": 4.0}
    assert xs.unit_order(units, durations, grouped={"g"}) == ["b", "g", "c", "a", "u"]   # g: 4.5 s in all
    # nothing recorded: the shared-fixture group first, then collection order
    assert xs.unit_order(units, {}, grouped={"g"}) == ["g", "a", "b", "c", "u"]
    # ties keep collection order
    assert xs.unit_order({"x": ["x"], "y": ["y"]}, {"x": 2.0, "y": 2.0}, grouped=set()) == ["x", "y"]


def test_an_untimed_check_counts_as_the_mean_of_its_modules_timed_checks():
    durations = {"m.py::a": 1.0, "m.py::b": 3.0, "k.py::c": 1.5}
    units = {"m.py::a": ["m.py::a"], "z.py::other": ["z.py::other"], "m.py::new[2]": ["m.py::new[2]"],
             "m.py::b": ["m.py::b"], "k.py::c": ["k.py::c"]}
    # new[2]: the mean of m.py's 1 s and 3 s, 2 s; other: nothing timed in z.py, last
    assert xs.unit_order(units, durations, grouped=set()) == ["m.py::b", "m.py::new[2]", "k.py::c", "m.py::a",
                                                                "z.py::other"]
    # an untimed shared-fixture group still goes first, whatever its module's mean
    units["g"] = ["m.py::g1", "m.py::g2"]
    assert xs.unit_order(units, durations, grouped={"g"})[0] == "g"


def test_a_foreign_or_corrupt_durations_entry_only_loses_the_order():
    assert xs.valid_durations(["not", "a", "mapping"]) == {}
    assert xs.valid_durations({"a": 1, "b": -1, "c": float("nan"), "d": True, 5: 1.0, "e": "2"}) == {"a": 1.0}


def test_groups_follow_the_fixture_definitions_and_leave_session_fixtures_out():
    class Def:
        def __init__(self, scope, baseid="m.py"):
            self.scope, self.baseid = scope, baseid

    class Item:
        def __init__(self, nodeid, **defs):
            self.nodeid = nodeid
            self._fixtureinfo = type("I", (), {"name2fixturedefs": {k: (v,) for k, v in defs.items()}})()

    items = [Item("t1", m=Def("module")), Item("t2", s=Def("session")), Item("t3", s=Def("session"), k=Def("class")),
             Item("t4", k=Def("class"), m=Def("module")), Item("t5", f=Def("function")),
             Item("t6", m=Def("module", baseid="other.py"))]
    groups = xs.shared_fixture_groups(items)
    # t1 and t4 share m (module); t3 and t4 share k (class): one group, named by its first check, t1
    assert groups == {"t1": "t1", "t3": "t1", "t4": "t1"}


def test_the_shipped_hint_round_trips_and_a_corrupt_or_foreign_one_is_ignored_with_a_warning(tmp_path):
    import pytest

    hint = tmp_path / "d.json"
    assert xs.write_hint({"a::t": 2.04, "b::t": 0.0, "bad": -1}, hint) == 2
    assert xs.load_hint(hint) == {"a::t": 2.0, "b::t": 0.0}
    assert xs.load_hint(tmp_path / "absent.json") == {}
    for text in ("{not json", json.dumps({"format": "other", "version": 1, "durations": {}}),
                 json.dumps({"format": "verify-check-durations", "version": 2, "durations": {}}),
                 json.dumps({"format": "verify-check-durations", "version": 1, "durations": {"a": -3}}), "[1]"):
        hint.write_text(text)
        with pytest.warns(xs.DurationsWarning, match="ignored the check-durations hint"):
            assert xs.load_hint(hint) == {}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", xs.DurationsWarning)       # the shipped hint is a valid one
        shipped = xs.load_hint()
    assert shipped and all(k.startswith(("proofs_checks/", "tests/")) for k in shipped)


def test_the_hint_is_written_from_pytests_cache_over_its_own_entries(tmp_path, capsys):
    cache = tmp_path / "c" / "v" / "verify"
    cache.mkdir(parents=True)
    (cache / "durations").write_text(json.dumps({"x::t": 3.0}))
    out = tmp_path / "hint.json"
    xs.write_hint({"x::t": 1.0, "y::t": 5.0}, out)
    assert xs.main(["--cache", str(tmp_path / "c"), "--out", str(out)]) == 0
    assert xs.load_hint(out) == {"x::t": 3.0, "y::t": 5.0}
    assert xs.main(["--cache", str(tmp_path / "none"), "--out", str(out)]) == 2
    assert "argument --cache" in capsys.readouterr().err
    assert xs.load_hint(out) == {"x::t": 3.0, "y::t": 5.0}       # untouched by the refused call
    for bad in (tmp_path, tmp_path / "no" / "hint.json"):            # a folder; a file in a missing folder
        assert xs.main(["--cache", str(tmp_path / "c"), "--out", str(bad)]) == 2
        assert "argument --out" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_a_run_without_pytests_cache_records_its_durations_in_its_file_over_earlier_entries(tmp_path):
    # verify report runs pytest with -p no:cacheprovider: its durations file is its only record of them
    rec = tmp_path / "check-durations.json"
    xs.write_hint({"test_suite.py::gone": 7.0, "test_suite.py::test_first": 999.0}, rec)
    _run(tmp_path, "-p", "no:cacheprovider", f"--verify-durations={rec}")
    got = xs.load_hint(rec)
    assert not (tmp_path / ".pytest_cache").exists()
    assert set(got) == {"test_suite.py::gone", "test_suite.py::test_first", "test_suite.py::test_last",
                        *(f"test_suite.py::test_single[{i}]" for i in range(12))}
    assert got["test_suite.py::gone"] == 7.0                     # a check not run keeps its entry
    assert got["test_suite.py::test_first"] < 999.0              # a check run is timed again


def test_the_scheduler_orders_by_pytests_cache_over_the_durations_file_over_the_hint(tmp_path):
    rec = tmp_path / "d.json"
    xs.write_hint({"a::t": 3.0, "b::t": 4.0}, rec)

    class Cache:
        def get(self, key, default):
            return {"b::t": 5.0} if key == xs.DURATIONS_KEY else default

    class Config:
        def __init__(self, path, cache):
            self.path, self.cache = path, cache

        def getoption(self, name):
            assert name == "--verify-durations"
            return self.path

    known = xs.known_durations(Config(str(rec), Cache()))
    assert known["a::t"] == 3.0 and known["b::t"] == 5.0
    shipped = xs.load_hint()
    assert {k: v for k, v in known.items() if k not in ("a::t", "b::t")} == \
        {k: v for k, v in shipped.items() if k not in ("a::t", "b::t")}
    assert xs.known_durations(Config(None, None)) == shipped
    assert xs.durations_file(object()) is None                  # no verify options registered: no file


def test_the_report_records_durations_in_its_cache_folder(tmp_path, monkeypatch):
    from verify import report

    seen = []
    monkeypatch.setattr(report, "_pytest_quiet", lambda args, plugins: seen.append(args) or 0)
    rec = tmp_path / xs.REPORT_DURATIONS
    report._run_xdist(["a.py::t"], ["a.py"], 2, False, lambda r: None, rec)
    assert f"--verify-durations={rec}" in seen[-1]
    report._run_xdist(["a.py::t"], ["a.py"], 2, False, lambda r: None)
    assert not any(a.startswith("--verify-durations") for a in seen[-1])


def test_the_hint_is_written_from_a_reports_record_over_its_own_entries(tmp_path, capsys):
    folder = tmp_path / ".verify-cache"
    folder.mkdir()
    xs.write_hint({"x::t": 3.0}, folder / xs.REPORT_DURATIONS)
    out = tmp_path / "hint.json"
    xs.write_hint({"x::t": 1.0, "y::t": 5.0}, out)
    assert xs.main(["--report", str(folder), "--out", str(out)]) == 0
    assert xs.load_hint(out) == {"x::t": 3.0, "y::t": 5.0}
    assert xs.main(["--report", str(tmp_path / "none"), "--out", str(out)]) == 2
    assert "argument --report" in capsys.readouterr().err
    (folder / xs.REPORT_DURATIONS).write_text("{not json")
    assert xs.main(["--report", str(folder), "--out", str(out)]) == 2
    assert "is not a durations record" in capsys.readouterr().err
    assert xs.load_hint(out) == {"x::t": 3.0, "y::t": 5.0}       # untouched by the refused calls


def test_the_simulated_schedule_is_longest_first_to_the_first_free_worker():
    units = {"a": ["a"], "b": ["b"], "g": ["g1", "g2"], "c": ["c"], "u": ["u"]}
    durations = {"a": 1.0, "b": 5.0, "c": 3.0, "g1": 0.5, "g2": 4.0}
    sim = xs.simulate(units, durations, 2, grouped={"g"})
    # order b 5, g 4.5, c 3, a 1, u 0: b -> w0 [0, 5]; g -> w1 [0, 4.5]; c -> w1 [4.5, 7.5]; a -> w0 [5, 6]; u -> w0
    assert sim["workers"] == [[(0.0, 5.0, "b"), (5.0, 6.0, "a"), (6.0, 6.0, "u")], [(0.0, 4.5, "g"), (4.5, 7.5, "c")]]
    assert sim["makespan"] == 7.5 and sim["idle"] == 2 * 7.5 - 13.5 and sim["bound"] == 13.5 / 2
    one = xs.simulate(units, durations, 1)
    assert one["makespan"] == 13.5 and one["idle"] == 0.0
    # one unit longer than the others together: the bound is that unit
    assert xs.simulate({"x": ["x"], "y": ["y"]}, {"x": 10.0, "y": 1.0}, 3)["bound"] == 10.0
    text = xs.format_simulation(sim)
    assert text.splitlines()[0] == "simulated makespan 8 s on 2 workers (least possible 7 s; idle 2 worker-seconds)"
    assert text.splitlines()[1].startswith("worker 1 (critical path): 2 units, ends at 8 s; longest: g 4 s at 0 s; c 3")
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="'workers'"):
            xs.simulate(units, durations, bad)


def test_simulate_from_a_reports_record_prints_and_writes_nothing(tmp_path, capsys):
    folder = tmp_path / ".verify-cache"
    folder.mkdir()
    xs.write_hint({"proofs_checks/a.py::t": 30.0, "proofs_checks/b.py::t": 20.0, "proofs_checks/c.py::t": 20.0,
                   "tests/x.py::t": 99.0}, folder / xs.REPORT_DURATIONS)
    out = tmp_path / "hint.json"
    xs.write_hint({}, out)
    assert xs.main(["--report", str(folder), "--out", str(out), "--simulate", "-n", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("simulated makespan 40 s on 2 workers (least possible 35 s")   # tests/ left out
    assert xs.load_hint(out) == {}
    assert xs.main(["--report", str(folder), "--simulate", "-n", "0"]) == 2
    assert "argument -n" in capsys.readouterr().err


def test_the_simulation_costs_an_untimed_check_as_the_order_estimates_it():
    sim = xs.simulate({"m.py::a": ["m.py::a"], "m.py::new": ["m.py::new"], "z.py::t": ["z.py::t"]},
                      {"m.py::a": 4.0}, 1)
    assert sim["makespan"] == 8.0 and [u[2] for u in sim["workers"][0]] == ["m.py::a", "m.py::new", "z.py::t"]
