"""verify/empirical/shared_runs.py: units of training shared by the checks of one session, computed once."""

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from verify._validate import VerifyInputError
from verify.empirical.shared_runs import RunStore, session_folder


def _slow_unit(log, name, value):
    """A unit that takes a while and logs each computation (one line per call, appended atomically)."""
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(name + "\n")
    time.sleep(0.4)
    return {"name": name, "value": value, "pair": (value, value + 0.1)}


def _worker(folder, log, order):
    store = RunStore(folder)
    reqs = [(n, {"n": n}, lambda n=n: _slow_unit(log, n, 0.5 + len(n) / 3)) for n in order]
    return store.get_all(reqs)


def test_two_processes_compute_each_unit_once_and_read_the_same_values(tmp_path):
    """Two workers asking for the same three units (in different orders) split the work: each unit is computed
    exactly once (without the lock both would compute the first), and both get the same values, as plain JSON."""
    log = tmp_path / "log.txt"
    with ProcessPoolExecutor(2) as pool:
        a = pool.submit(_worker, str(tmp_path), str(log), ["u1", "u22", "u333"])
        b = pool.submit(_worker, str(tmp_path), str(log), ["u1", "u333", "u22"])
        ra, rb = a.result(timeout=120), b.result(timeout=120)
    computed = log.read_text(encoding="utf-8").split()
    assert sorted(computed) == ["u1", "u22", "u333"]
    assert {r["name"]: r for r in ra} == {r["name"]: r for r in rb}
    assert [r["name"] for r in ra] == ["u1", "u22", "u333"] and ra[0]["pair"] == [ra[0]["value"], ra[0]["value"] + 0.1]


def test_a_unit_is_read_back_not_recomputed_and_keys_separate_units(tmp_path):
    store = RunStore(tmp_path)
    calls = []
    first = store.get("wd-x", {"seed": 0}, lambda: calls.append(0) or {"v": 1.0 / 3})
    again = store.get("wd-x", {"seed": 0}, lambda: calls.append(1) or {"v": 2.0})
    other = store.get("wd-x", {"seed": 1}, lambda: calls.append(2) or {"v": 2.0})
    assert calls == [0, 2] and first == again == {"v": 1.0 / 3} and other == {"v": 2.0}
    assert store.has("wd-x", {"seed": 0}) and not store.has("wd-x", {"seed": 5})
    assert json.loads(store.path("wd-x", {"seed": 0}).read_text()) == {"v": 1.0 / 3}


def test_store_refuses_a_missing_folder(tmp_path):
    with pytest.raises(VerifyInputError, match="'folder'"):
        RunStore(tmp_path / "absent")


def test_session_folder_is_shared_by_xdist_workers_only(tmp_path, monkeypatch):
    class Factory:
        def __init__(self, base):
            self.base = base

        def getbasetemp(self):
            return self.base

    worker_base = tmp_path / "pytest-3" / "popen-gw1"
    worker_base.mkdir(parents=True)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert session_folder(Factory(worker_base)) == tmp_path / "pytest-3" / "verify-shared-runs"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    # without xdist the parent holds other sessions' folders: the session's own base folder is used
    assert session_folder(Factory(tmp_path / "pytest-3")) == tmp_path / "pytest-3" / "verify-shared-runs"
    assert os.path.isdir(tmp_path / "pytest-3" / "verify-shared-runs")


def test_a_parametrized_full_check_makes_the_quick_one_descriptive():
    """The quick preset's check is descriptive when the full check runs in the same session, also when the full check
    is parametrized (one item per unit of training: ``test_wd_full[mnist5k-mse]``), and not when its data are missing
    or it is not selected."""
    from types import SimpleNamespace

    from verify.empirical import describe_or_none

    module = object()
    items = [SimpleNamespace(name="test_wd_full[mnist5k-mse]", originalname="test_wd_full", module=module),
             SimpleNamespace(name="test_quick", originalname="test_quick", module=module)]
    request = SimpleNamespace(session=SimpleNamespace(items=items), node=SimpleNamespace(module=module))
    assert "test_wd_full decides this claim" in describe_or_none(request, "test_wd_full")
    assert describe_or_none(request, "test_wd_full", full_can_run=False) is None
    assert describe_or_none(request, "test_depth_full") is None
