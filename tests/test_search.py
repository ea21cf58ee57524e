"""verify.search and `verify search`: seeded starts as Dask tasks, checkpoints, resume, early stop, replay.

The cluster tests start a real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (as a
user would by hand), connect by address, and compare with the serial run of the same seeds.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from verify import VerifyInputError
from verify.certified import objective_points
from verify.cli import main
from verify.distributed import get_client
from verify.engine import adversarial_max
from verify.objectives import get_objective
from verify.search import load_state, run_search

PY = sys.executable


# --------------------------------------------------------------------------- a hand-started cluster
class Cluster:
    """``python -m dask scheduler --port 0`` + ``n`` workers (1 thread, no nanny, so a kill is a death)."""

    def __init__(self, tmp_path, n_workers=2):
        self.procs, self.workers = [], []
        sched_file = tmp_path / "scheduler.json"
        env = {**os.environ, "DASK_DISTRIBUTED__LOGGING__DISTRIBUTED": "error"}
        self.procs.append(subprocess.Popen(
            [PY, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(sched_file)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        deadline = time.monotonic() + 60
        while not sched_file.exists():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                self.close()
                raise RuntimeError("dask scheduler did not start")
            time.sleep(0.05)
        while True:  # the file may be written in two steps
            try:
                self.address = json.loads(sched_file.read_text())["address"]
                break
            except (json.JSONDecodeError, KeyError):
                time.sleep(0.05)
        self.env = env
        for _ in range(n_workers):
            self.add_worker()

    def add_worker(self):
        # --preload: workers import the objectives at start-up, not on their first task
        w = subprocess.Popen([PY, "-m", "dask", "worker", self.address, "--nthreads", "1", "--no-nanny",
                              "--no-dashboard", "--host", "127.0.0.1", "--preload", "verify.objectives"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        self.procs.append(w)
        self.workers.append(w)

    def close(self):
        for p in self.procs:  # test processes with nothing to save: no graceful shutdown to wait for
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        yield c
    finally:
        c.close()


@contextlib.contextmanager
def _connect(cluster, n=2):
    with get_client(cluster.address) as client:
        client.wait_for_workers(n, timeout=60)
        yield client


def _serial(name, budget, seed=None):
    obj = get_objective(name)
    return adversarial_max(obj.ratio, obj.sampler, n_starts=budget, seed=obj.seed if seed is None else seed,
                           maxiter=obj.maxiter)


# --------------------------------------------------------------------------- serial path
def test_serial_search_equals_adversarial_max():
    ref = _serial("S-fn3", 5, seed=4)
    res = run_search("S-fn3", 5, seed=4, client=None, progress=False)
    assert res.best == ref.best and res.n_done == 5 and res.complete
    assert res.best_start == max(range(5), key=lambda i: (ref.values[i], -i))


def test_checkpoint_is_deterministic_and_resume_loses_nothing(tmp_path):
    fresh, part = tmp_path / "fresh.json", tmp_path / "part.json"
    run_search("S-lemA.2", 6, client=None, out=fresh, progress=False)

    def interrupt(state, index):  # Ctrl-C after the third start
        if state.n_done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_search("S-lemA.2", 6, client=None, out=part, progress=False, on_result=interrupt)
    assert load_state(part)["n_done"] == 3  # written on the way out
    redone = []
    res = run_search("S-lemA.2", 6, client=None, out=part, resume=True, progress=False,
                     on_result=lambda s, i: redone.append(i))
    assert redone == [3, 4, 5] and res.complete
    assert part.read_bytes() == fresh.read_bytes()  # same seed -> same bytes, however it got there
    # a larger budget continues the same stream of starts
    res = run_search("S-lemA.2", 8, client=None, out=part, resume=True, progress=False)
    assert res.best == _serial("S-lemA.2", 8).best


def test_resume_refuses_a_different_search(tmp_path):
    out = tmp_path / "a.json"
    run_search("S-fn3", 2, client=None, out=out, progress=False)
    with pytest.raises(VerifyInputError, match="Argument 'resume' must continue the same search: .* seed"):
        run_search("S-fn3", 2, seed=99, client=None, out=out, resume=True, progress=False)
    with pytest.raises(VerifyInputError, match="'budget'"):
        run_search("S-fn3", 0, client=None, progress=False)


def test_early_stop_and_exact_replay_of_thmC2(tmp_path, capsys):
    out = tmp_path / "c2.json"
    res = run_search("N-thmC.2", 16, client=None, out=out, progress=False)
    c = res.counterexample
    assert c is not None and c["value"] > 1 and res.n_done <= 16
    assert main(["search", "--replay", str(out), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["violates"] and float(rep["value"]) > 1
    assert abs(float(rep["value"]) - c["value"]) < 1e-9 * c["value"]  # float64 vs mpmath central difference
    # a claim that holds: no early stop, the whole budget runs
    res = run_search("N-thmC.2:corrected-grad", 3, client=None, progress=False)
    assert res.counterexample is None and res.complete and res.best <= 1
    # and both ways: the search reached at least what its own seeded starts attain (a search that stopped
    # early, or lost its best point, would still pass the line above)
    obj = get_objective("N-thmC.2:corrected-grad")
    starts = [obj.ratio(x) for x in objective_points("N-thmC.2:corrected-grad", 3)]
    assert res.best >= max(starts) > 0


def test_thmC2_counterexample_on_a_local_cluster():
    with get_client(n_workers=1) as client:
        res = run_search("N-thmC.2", 8, client=client, progress=False)
    assert res.counterexample is not None and res.counterexample["value"] > 1


# --------------------------------------------------------------------------- a real scheduler and 2 workers
def test_cluster_search_equals_serial_and_cli_finds_thmC2(cluster, tmp_path):
    ref = _serial("N-lemC.3", 8)
    with _connect(cluster) as client:
        res = run_search("N-lemC.3", 8, client=client, progress=False)
        assert len(client.scheduler_info()["workers"]) == 2
    assert res.best == ref.best and res.complete
    out = tmp_path / "c2.json"
    proc = subprocess.run([PY, "-m", "verify", "search", "N-thmC.2", "--budget", "16", "--scheduler", cluster.address,
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "COUNTEREXAMPLE" in proc.stdout and "-> confirmed" in proc.stdout
    assert load_state(out)["counterexample"]["value"] > 1


def test_killing_a_worker_mid_search_loses_no_task(cluster):
    budget = 16
    ref = _serial("S-lemA.2", budget)
    killed = {}

    def kill_one(state, index):  # SIGKILL a worker as soon as the first start comes back
        if not killed:
            killed["at"] = state.n_done
            victim = cluster.workers.pop(0)
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=10)

    try:
        with _connect(cluster) as client:
            res = run_search("S-lemA.2", budget, client=client, progress=False, on_result=kill_one)
            survivors = len(client.scheduler_info()["workers"])
    finally:
        cluster.add_worker()  # leave the module's cluster with two workers
    assert killed["at"] < budget and survivors == 1
    assert res.done == set(range(budget)) and res.best == ref.best


# --------------------------------------------------------------------------- CLI contract
@pytest.mark.parametrize("args", [["N-thmC.2", "--scheduler", "tcp://127.0.0.1:{port}"],
                                  ["N-thmC.2", "--scheduler", "no such host"],
                                  ["S-nope"], [], ["S-fn3", "--budget", "0"], ["S-fn3", "--resume"]])
def test_bad_input_is_one_line_and_exit_2(args):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [a.format(port=port) for a in args]
    proc = subprocess.run([PY, "-m", "verify", "search", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error:") and "Traceback" not in proc.stderr
    if "--scheduler" in args:
        assert "'scheduler'" in lines[0]


def test_list(capsys):
    assert main(["search", "--list"]) == 0
    out = capsys.readouterr().out
    assert "N-thmC.2" in out and "(paper: false)" in out and "S-thm3.1" in out
