"""The mutation harness: collection, stale edits, equivalent mutants, and one real run in a copy."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verify.mutants import Mutant, collect, power_by_claim, run_all, run_mutant

ROOT = Path(__file__).resolve().parents[1]


def test_collect_finds_the_curated_mutants_and_filters_by_claim():
    every = collect(ROOT / "proofs_checks")
    assert len(every) >= 1 and all(isinstance(m, Mutant) for m in every)
    only = collect(ROOT / "proofs_checks", claims=["S-eq10"])
    assert only and {m.claim for m in only} == {"S-eq10"}
    with pytest.raises(ValueError, match="'claim_id' must be a registered claim ID"):
        collect(ROOT / "proofs_checks", claims=["S-nope"])


def test_every_curated_mutant_applies_to_the_tree():
    """A curated mutant whose text no longer occurs exactly once would only ever report 'error': it tests nothing.
    Every one must still apply, so an edit of the code that moves a mutated line updates the mutant with it."""
    stale = []
    for m in collect(ROOT / "proofs_checks"):
        if m.equivalent is None and (ROOT / m.path).read_text().count(m.old) != 1:
            stale.append(f"{m.name} ({m.path}): {m.why}")
    assert not stale, stale


def test_stale_and_equivalent_mutants_are_not_run():
    stale = Mutant("S-eq9", "verify/claims.py", "text that is nowhere", "x", "stale")
    assert run_mutant(stale, ROOT, "verified").outcome == "error"
    same = Mutant("S-eq9", "verify/claims.py", "x", "y", "nothing", equivalent="documented as equivalent")
    assert run_mutant(same, ROOT, "verified").outcome == "equivalent"
    power = power_by_claim([run_mutant(stale, ROOT, "verified"), run_mutant(same, ROOT, "verified")])
    assert power["S-eq9"] == {"killed": 0, "total": 1, "survivors": [], "equivalent": 1, "errors": [stale.name]}


def test_a_breaking_edit_is_killed_and_the_tree_is_untouched():
    path = ROOT / "verify/numeric/upper_bounds.py"
    before = path.read_bytes()
    text = path.read_text()
    # a wrong sign in Lemma A.2's operator-norm helper would be subtle; an exception at import is certain
    m = Mutant("S-lemA.2", "verify/numeric/upper_bounds.py", text.splitlines()[0], "raise RuntimeError('mutant')",
               "the module cannot be imported")
    [res] = run_all([m], root=ROOT, progress=False)
    assert res.outcome == "killed", res.detail
    assert path.read_bytes() == before


TINY_CHECKS = '''
import pytest
from verify._validate import verify_odd_m


@pytest.mark.claim("S-eq9")
def test_odd_m(verdict):
    assert verify_odd_m(3) == 3
    with pytest.raises(ValueError):
        verify_odd_m(4)
    verdict.verified(method="tiny", evidence={"m": 3})
'''


def _tiny_project(tmp_path: Path, checks: str = TINY_CHECKS) -> None:
    """The package and one check module: a project whose mutant runs take seconds."""
    import shutil

    shutil.copytree(ROOT / "verify", tmp_path / "verify", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "proofs_checks").mkdir()
    (tmp_path / "proofs_checks" / "test_tiny.py").write_text(checks)
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")


def test_a_mutant_reruns_only_when_its_claim_or_its_file_moved(tmp_path):
    """One claim process runs the baseline and the mutants; the cache then reuses them until the mutated file
    (or the claim's fingerprint) changes. A tiny project (the package and one check), so that it runs in seconds."""
    _tiny_project(tmp_path)
    m = Mutant("S-eq9", "verify/_validate.py", "m < 1 or m % 2 == 0", "m < 1 or m % 2 == 1", "even m accepted")
    same = Mutant("S-eq9", "verify/claims.py", "x", "y", "nothing", equivalent="documented as equivalent")
    cache = tmp_path / "cache"
    stats: dict = {}
    cold = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert [r.outcome for r in cold] == ["killed", "equivalent"], cold[0].detail
    assert stats["run"] == 1 and stats["claims_run"] == 1
    warm = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert stats == {"reused": 1, "run": 0, "claims_run": 0, "equivalent": 1, "claim_seconds": {},
                     "baselines_from_report": 0, "killers": {}, "kill_order": {"used": 0, "stale": 0, "missed": 0}}
    assert [r.as_dict() for r in warm] == [r.as_dict() for r in cold]
    # the mutated file moved (in a function the check does not execute): the claim's fingerprint stays, the
    # mutant runs again
    target = tmp_path / "verify/_validate.py"
    old = "def verify_less(value: Any, bound: Any, name: str, allowed: str) -> Any:\n"
    target.write_text(target.read_text().replace(old, old + "    _edited = True\n"))
    again = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert stats["run"] == 1 and again[0].outcome == "killed"


MEMO_MODULE = """from functools import lru_cache


def helper(x):
    return x + 1


@lru_cache(maxsize=None)
def table(x):
    return helper(x) * 2


def other(x):
    return x - 1


def unused(x):
    return x * 3
"""

MEMO_CHECKS = '''
import time

import pytest
from verify._tiny_memo import other, table


@pytest.mark.claim("S-eq9")
def test_a_fills_the_cache(verdict):
    table(1)   # fills the cache; asserts nothing about it
    verdict.verified(method="tiny", evidence={})


@pytest.mark.claim("S-eq9")
def test_b_reads_the_cache(verdict):
    time.sleep(0.05)       # the slowest check, so that "fastest first" runs it after test_a
    assert table(1) == 4   # a cache hit in the baseline: helper() runs in test_a's context only
    verdict.verified(method="tiny", evidence={})


@pytest.mark.claim("S-eq9")
def test_c_other(verdict):
    assert other(5) == 4
    verdict.verified(method="tiny", evidence={})
'''


def test_a_mutant_runs_only_the_checks_that_execute_it(tmp_path):
    """Per-check coverage chooses the checks: an edit of other() runs test_c alone; an edit of helper(), which
    test_b reaches only through test_a's cached value, runs test_b too (and only test_b can kill it); an edit
    that no check executes survives, said so, and is never counted killed."""
    from verify.mutants import mutated_functions

    _tiny_project(tmp_path, MEMO_CHECKS)
    (tmp_path / "verify" / "_tiny_memo.py").write_text(MEMO_MODULE)
    path = "verify/_tiny_memo.py"
    assert mutated_functions(MEMO_MODULE, "return x + 1") == ["helper"]
    assert mutated_functions(MEMO_MODULE, "@lru_cache(maxsize=None)") is None    # a decorator: module level
    assert mutated_functions(MEMO_MODULE, "    return x - 1\n\n\ndef unused") is None   # spans a def line
    ms = [Mutant("S-eq9", path, "return x + 1", "return x + 2", "helper off by one"),
          Mutant("S-eq9", path, "return x - 1", "return x - 2", "other off by one"),
          Mutant("S-eq9", path, "return x * 3", "return x * 4", "never executed")]
    helper, other, unused = run_all(ms, root=tmp_path, progress=False)
    assert helper.outcome == "killed" and helper.detail.startswith("[2 of 3 checks execute the edit]"), helper.detail
    assert "test_b_reads_the_cache" in helper.detail
    assert other.outcome == "killed" and other.detail.startswith("[1 of 3 checks execute the edit]"), other.detail
    assert unused.outcome == "survived" and "no check executes the edit" in unused.detail, unused.detail


def test_the_kill_order_hint_is_validated_and_written_whole(tmp_path):
    """A hint file that is corrupt, foreign, of another version or with one malformed entry is ignored whole, with a
    warning (never partly trusted); a missing one is no hint; the writer keeps the valid entries of mutants it did
    not run and refuses a malformed one, naming the argument."""
    from verify.mutants import KillOrderWarning, load_kill_order, write_kill_order

    path = tmp_path / "kill_order.json"
    assert load_kill_order(path) == {} and load_kill_order(None) == {}     # absent: no hint, no warning
    good = {"S-eq9:0123abcd": "proofs_checks/test_tiny.py::test_odd_m"}
    assert write_kill_order(good, path) == 1 and load_kill_order(path) == good
    assert write_kill_order({"S-eq10:89abcdef": "proofs_checks/test_x.py::test_y[2-3]"}, path) == 2   # merged
    assert set(load_kill_order(path)) == {"S-eq9:0123abcd", "S-eq10:89abcdef"}
    doc = json.loads(path.read_text())
    for bad in ("{not json", json.dumps({**doc, "format": "another-tool"}), json.dumps({**doc, "version": 2}),
                json.dumps({**doc, "killers": {**doc["killers"], "S-eq9:xyz": "proofs_checks/t.py::t"}}),
                json.dumps({**doc, "killers": {"S-eq9:0123abcd": "/etc/passwd"}}), json.dumps([doc])):
        path.write_text(bad)
        with pytest.warns(KillOrderWarning, match="ignored the kill-order hint"):
            assert load_kill_order(path) == {}
    with pytest.raises(ValueError, match="'killers'"):
        write_kill_order({"S-eq9:0123abcd": "not a node id"}, path)


def test_the_kill_order_hint_changes_the_order_of_the_checks_not_the_outcomes(tmp_path):
    """With the hint, a mutant's killing check runs first and alone (-x); a survivor still runs every check that
    executes its edit; a hint naming a check outside the mutant's selection is stale: ignored with a warning. The
    outcomes and details are those of the run without the hint (fastest first). (Two same-size edits of one file
    in turn, as here, would also expose a stale bytecode of the first in the second: the server drops it.)"""
    from verify.mutants import ClaimServer, KillOrderWarning, run_claim

    _tiny_project(tmp_path, MEMO_CHECKS)
    (tmp_path / "verify" / "_tiny_memo.py").write_text(MEMO_MODULE)
    path = "verify/_tiny_memo.py"
    a, b, c = (f"proofs_checks/test_tiny.py::test_{n}" for n in ("a_fills_the_cache", "b_reads_the_cache", "c_other"))
    ms = [Mutant("S-eq9", path, "return x + 1", "return x + 2", "helper off by one"),        # killed by test_b only
          Mutant("S-eq9", path, "return helper(x) * 2", "return helper(x) * 2 + 0", "adds nothing"),   # survives
          Mutant("S-eq9", path, "return x - 1", "return x - 2", "other off by one")]         # killed by test_c
    hint = {ms[0].name: b, ms[1].name: b, ms[2].name: a}   # the last is stale: test_a does not execute other()
    with ClaimServer() as server:   # one server, one baseline: the runs with and without the hint share them
        base = run_claim("S-eq9", [], tmp_path, server=server)["baseline"]
        kw = dict(with_baseline=False, base_checks=base["checks"], base_verdict=base["verdict"], server=server)
        plain = run_claim("S-eq9", ms, tmp_path, **kw)
        with pytest.warns(KillOrderWarning, match="S-eq9: ignored 1 stale kill-order hints"):
            again = run_claim("S-eq9", ms, tmp_path, first=hint, **kw)
    outcomes = [r.outcome for r in plain["results"]]
    assert outcomes == [r.outcome for r in again["results"]] == ["killed", "survived", "killed"]
    assert again["hints"] == {"used": 2, "stale": 1, "missed": 1}   # the survivor's hinted check kills nothing
    assert plain["hints"] == {"used": 0, "stale": 0, "missed": 0}
    assert again["killers"] == plain["killers"] == {ms[0].name: b, ms[2].name: c}   # what write_kill_order gets

    def first_lines(got):   # the log tail ends with pytest's own timing line
        return [r.detail.split("\n")[0] for r in got["results"]]

    assert first_lines(plain) == first_lines(again)
    assert power_by_claim(plain["results"]) == power_by_claim(again["results"])   # what the report shows
    assert plain["run_checks"]["m0"] == [a, b]              # fastest first: test_a passes, then test_b kills
    assert again["run_checks"]["m0"] == [b]                 # the hinted killer first, and the run stops there
    assert sorted(again["run_checks"]["m1"]) == sorted(plain["run_checks"]["m1"]) == [a, b]   # every check
    assert again["run_checks"]["m2"] == plain["run_checks"]["m2"] == [c]


def test_power_after_a_report_takes_the_baseline_from_its_cache(tmp_path, monkeypatch):
    """``verify report --power``: the report's cached checks (results and dependencies) are the mutants'
    baseline, so the claim's checks do not run a second time; the outcome is that of a run with a baseline."""
    import subprocess
    import sys

    _tiny_project(tmp_path)
    cache = tmp_path / "cache"
    runner = ("import sys; from pathlib import Path; from verify.report import run_suite; "
              "code, _ = run_suite(progress=False, workers=1, cache_dir=Path(sys.argv[1])); sys.exit(code)")
    # PYTHONSAFEPATH: the report imports the installed package, as this process did, not the copy in its cwd
    proc = subprocess.run([sys.executable, "-c", runner, str(cache)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONSAFEPATH": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    monkeypatch.chdir(tmp_path)   # the report's suite is the working directory's proofs_checks
    m = Mutant("S-eq9", "verify/_validate.py", "m < 1 or m % 2 == 0", "m < 1 or m % 2 == 1", "even m accepted")
    stats: dict = {}
    [res] = run_all([m], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert stats["baselines_from_report"] == 1 and stats["claims_run"] == 1 and stats["run"] == 1
    assert res.outcome == "killed" and res.detail.startswith("[1 of 1 checks execute the edit]"), res.detail


LEARN_CHECKS = '''
import sys

import pytest
from verify._validate import verify_odd_m


@pytest.mark.claim("S-eq9")
def test_odd_m(verdict):
    inherited = "tabnanny" in sys.modules   # True when the claim server imported it before the fork
    import tabnanny  # noqa: F401  (a library module nothing else imports: the server learns it)
    assert verify_odd_m(3) == 3
    with pytest.raises(ValueError):
        verify_odd_m(4)
    verdict.verified(method="tiny", evidence={"inherited": inherited})
'''


def test_one_claim_server_serves_claims_in_turn_and_learns_their_libraries(tmp_path):
    """A :class:`ClaimServer` serves one claim after another (run_all keeps one per job): the library modules a
    child imported are imported by the server before the next fork, the package itself never is, and a claim's
    outcomes do not depend on what the server ran before. A dead server is reported, not waited for."""
    from verify.mutants import ClaimServer, run_claim

    _tiny_project(tmp_path, LEARN_CHECKS)
    ms = [Mutant("S-eq9", "verify/_validate.py", "m < 1 or m % 2 == 0", "m < 1 or m % 2 == 1", "even m accepted")]

    def inherited(got):
        [check] = got["baseline"]["checks"]
        return check["records"][0]["evidence"]["inherited"]

    with ClaimServer() as server:
        first = run_claim("S-eq9", [], tmp_path, server=server)          # the baseline alone
        second = run_claim("S-eq9", ms, tmp_path, server=server)         # the baseline again, then the mutant
        pid = server._proc.pid
        assert server._proc.poll() is None   # still serving
    # the first baseline imported the module itself; the server imported it before the second claim's forks
    assert inherited(first) is False and inherited(second) is True
    assert first["baseline"]["verdict"] == second["baseline"]["verdict"] == "verified"
    [res] = second["results"]   # judged as by a server of its own (the same mutant as in the run_all tests above)
    assert (res.outcome, res.detail.splitlines()[0]) == (
        "killed", "[1 of 1 checks execute the edit] a check failed: proofs_checks/test_tiny.py::test_odd_m"), res.detail
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)   # ended with the context
    broken = ClaimServer()
    broken._proc.kill()
    broken._proc.wait()
    with pytest.raises(RuntimeError, match="the claim server failed"):
        run_claim("S-eq9", ms, tmp_path, server=broken)
    broken.close()


def test_the_claim_server_serves_the_specs_named_on_its_command_line(tmp_path):
    """The former interface, which ``benchmarks/mutation_judge.py`` uses: ``python -c _SERVER spec.json`` serves
    that spec and exits, without reading stdin (a line there names no file: reading it would fail)."""
    import json
    import subprocess
    import sys

    from verify.mutants import _SERVER

    spec = {"dest": str(tmp_path), "tmp": str(tmp_path), "runs": [], "files": [], "args": [], "timeout": 5.0,
            "base_checks": None, "preload": [], "result": str(tmp_path / "out.json")}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    proc = subprocess.run([sys.executable, "-c", _SERVER, str(tmp_path / "spec.json")], input="/nonexistent\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [f"DONE {tmp_path / 'spec.json'}"]
    assert json.loads((tmp_path / "out.json").read_text()) == []


#: nine edits of verify_odd_m for the tiny project's one check: killed (the check sees them) and survived (it does
#: not: m = 3 and m = 4 are all it tries)
SPLIT_EDITS = [("m < 1 or m % 2 == 0", "m < 1 or m % 2 == 1", "killed"), ("m < 1 or m % 2 == 0", "m < 1", "killed"),
               ("m < 1 or m % 2 == 0", "m < 5 or m % 2 == 0", "killed"),
               ("m < 1 or m % 2 == 0", "m < 3 or m % 2 == 0", "survived"),
               ("m < 1 or m % 2 == 0", "m < 0 or m % 2 == 0", "survived"),
               ("m < 1 or m % 2 == 0", "m < 1 or m % 4 == 0", "survived"),
               ("    return int(m)\n\n\ndef _as_real", "    return int(m) + 2\n\n\ndef _as_real", "killed"),
               ("    return int(m)\n\n\ndef _as_real", "    return 3\n\n\ndef _as_real", "survived"),
               ("not _is_int(m) or m < 1", "m < 1", "survived")]


def _untimed(res) -> dict:
    """A result without the seconds and the warning count of pytest's summary line (a library warns once per
    process: the first run of a claim server counts more), the parts two runs may differ in."""
    import re

    return {**res.as_dict(), "detail": re.sub(r"(, \d+ warnings?)? in [0-9.]+s\b", " in (time)", res.detail)}


def test_a_claim_with_more_mutants_than_a_jobs_share_is_split_and_its_outcomes_do_not_move(tmp_path, monkeypatch):
    """With two jobs a claim of nine mutants is not one task on one job while the other idles: its baseline runs
    first, alone, then its mutants in two interleaved chunks that both take that baseline; every outcome is the one
    a single job gives. With the baseline known (from the cache), the chunks need no first phase."""
    import verify.mutants as M

    _tiny_project(tmp_path)
    muts = [Mutant("S-eq9", "verify/_validate.py", old, new, f"edit {i}") for i, (old, new, _) in enumerate(SPLIT_EDITS)]
    one = run_all(muts, root=tmp_path, jobs=1, progress=False)
    assert [r.outcome for r in one] == [e[2] for e in SPLIT_EDITS], [r.detail for r in one]
    specs = []
    real = M.run_claim_task
    # each task reports 2.5 s, so the claim's profile must add its three tasks (baseline, two chunks) up
    monkeypatch.setattr(M, "run_claim_task", lambda spec, server=None: specs.append(spec)
                        or {**real(spec, server=server), "seconds": 2.5})
    stats: dict = {}
    two = run_all(muts, root=tmp_path, jobs=2, progress=False, stats=stats, cache_dir=tmp_path / "cache")
    assert [_untimed(r) for r in two] == [_untimed(r) for r in one]
    assert [(s["with_baseline"], [m["why"] for m in s["mutants"]]) for s in specs] == [
        (True, []), (False, [f"edit {i}" for i in range(0, 9, 2)]), (False, [f"edit {i}" for i in range(1, 9, 2)])]
    assert specs[1]["base_verdict"] == specs[2]["base_verdict"] == "verified" and specs[1]["base_checks"]
    assert stats["run"] == 9 and stats["claims_run"] == 1 and stats["claim_seconds"] == {"S-eq9": 7.5}
    # the baseline now in the cache, two more mutants: the eleven cached and new ones, no baseline task first
    specs.clear()
    extra = [Mutant("S-eq9", "verify/_validate.py", "m < 1 or m % 2 == 0", f"m < {k} or m % 2 == 0", f"edit {k}")
             for k in (7, 9)]
    more = run_all(muts[:5] + extra + muts[5:] + [Mutant("S-eq9", "verify/_validate.py", "m % 2 == 0", "m % 2 == 2",
                                                          "edit 11")], root=tmp_path, jobs=2, progress=False,
                   stats=stats, cache_dir=tmp_path / "cache")
    assert stats["reused"] == 9 and stats["run"] == 3 and len(specs) == 1 and specs[0]["with_baseline"] is False
    assert [r.outcome for r in more] == [e[2] for e in SPLIT_EDITS[:5]] + ["killed", "killed"] + \
        [e[2] for e in SPLIT_EDITS[5:]] + ["killed"]


def test_a_split_claim_on_dask_gives_the_outcomes_of_one_job(tmp_path):
    """The same split as Dask tasks (``scheduler="local"``): the baseline phase and the chunks' phase are tasks of
    their own keys (one key for both once handed the baseline's result back as a chunk's), every outcome the one a
    single job gives."""
    _tiny_project(tmp_path)
    muts = [Mutant("S-eq9", "verify/_validate.py", old, new, f"edit {i}") for i, (old, new, _) in enumerate(SPLIT_EDITS)]
    stats: dict = {}
    got = run_all(muts, root=tmp_path, jobs=2, progress=False, scheduler="local", stats=stats)
    assert [r.outcome for r in got] == [e[2] for e in SPLIT_EDITS], [r.detail for r in got]
    assert [r.why for r in got] == [m.why for m in muts] and stats["run"] == 9 and stats["claims_run"] == 1
