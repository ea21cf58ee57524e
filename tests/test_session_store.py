"""verify/session_store.py: results shared by the checks of one session, each computed once."""

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from verify._validate import VerifyInputError
from verify.session_store import SessionStore, session_folder


def _slow_unit(log, name, value):
    """A result that takes a while and logs each computation (one line per call, appended atomically)."""
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(name + "\n")
    time.sleep(0.4)
    return {"name": name, "value": value, "pair": (value, value + 0.1)}


def _worker(folder, log, order):
    store = SessionStore(folder)
    reqs = [(n, {"n": n}, lambda n=n: _slow_unit(log, n, 0.5 + len(n) / 3)) for n in order]
    return store.get_all(reqs)


def test_two_processes_compute_each_result_once_and_read_the_same_values(tmp_path):
    """Two workers asking for the same three results (in different orders) split the work: each is computed
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


def test_a_result_is_read_back_not_recomputed_and_keys_separate_results(tmp_path):
    store = SessionStore(tmp_path)
    calls = []
    first = store.get("wd-x", {"seed": 0}, lambda: calls.append(0) or {"v": 1.0 / 3})
    again = store.get("wd-x", {"seed": 0}, lambda: calls.append(1) or {"v": 2.0})
    other = store.get("wd-x", {"seed": 1}, lambda: calls.append(2) or {"v": 2.0})
    assert calls == [0, 2] and first == again == {"v": 1.0 / 3} and other == {"v": 2.0}
    assert store.has("wd-x", {"seed": 0}) and not store.has("wd-x", {"seed": 5})
    assert json.loads(store.path("wd-x", {"seed": 0}).read_text()) == {"key": {"seed": 0}, "value": {"v": 1.0 / 3}}
    # get_all: the results in the order asked, each read back (the second and third from their files)
    assert store.get_all([("wd-x", {"seed": 1}, lambda: calls.append(3)), ("wd-x", {"seed": 0}, lambda: calls.append(4)),
                          ("wd-y", {"seed": 0}, lambda: calls.append(5) or [1, 2])]) == [{"v": 2.0}, {"v": 1.0 / 3},
                                                                                         [1, 2]]
    assert calls == [0, 2, 5]


@pytest.mark.parametrize("spoil", ["{\"key\": {\"seed\": 0}, \"val", "[1, 2]", "{\"key\": {\"seed\": 9}, \"value\": 7}",
                                   "{\"key\": {\"seed\": 0}, \"value\": 7, \"extra\": 1}", ""])
@pytest.mark.parametrize("how", ["get", "get_all"])
def test_a_corrupt_or_foreign_file_is_computed_again_never_trusted(tmp_path, spoil, how):
    """A file cut short, of another shape or holding another request's key (a foreign file under this name) is not
    read as the result: the result is computed again and the file rewritten whole."""
    store = SessionStore(tmp_path)
    path = store.path("wd-x", {"seed": 0})
    path.write_text(spoil, encoding="utf-8")
    assert not store.has("wd-x", {"seed": 0})
    compute = lambda: {"v": 0.5}
    got = store.get("wd-x", {"seed": 0}, compute) if how == "get" else store.get_all([("wd-x", {"seed": 0}, compute)])[0]
    assert got == {"v": 0.5}
    assert json.loads(path.read_text(encoding="utf-8")) == {"key": {"seed": 0}, "value": {"v": 0.5}}


def test_a_result_that_is_not_json_leaves_no_file(tmp_path):
    """compute() returning what JSON cannot hold fails at once, and no half-written file is left to be read."""
    store = SessionStore(tmp_path)
    with pytest.raises(TypeError):
        store.get("bad", {"k": 1}, lambda: {"v": object()})
    assert not store.path("bad", {"k": 1}).exists() and not store.has("bad", {"k": 1})


def test_store_refuses_a_missing_folder(tmp_path):
    with pytest.raises(VerifyInputError, match="'folder'"):
        SessionStore(tmp_path / "absent")


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
    assert session_folder(Factory(worker_base), "statement-variants") == tmp_path / "pytest-3" / "statement-variants"
    # a session started inside a worker (a mutant's run) inherits the variable, not the worker's folder: its own
    nested = tmp_path / "pytest-7"
    nested.mkdir()
    assert session_folder(Factory(nested), "statement-searches") == nested / "statement-searches"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")   # another worker's variable: not this folder's worker
    assert session_folder(Factory(worker_base)) == worker_base / "verify-shared-runs"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    # without xdist the parent holds other sessions' folders: the session's own base folder is used
    assert session_folder(Factory(tmp_path / "pytest-3")) == tmp_path / "pytest-3" / "verify-shared-runs"
    assert os.path.isdir(tmp_path / "pytest-3" / "verify-shared-runs")
