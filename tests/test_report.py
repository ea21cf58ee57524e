"""The plugin and the report, on a small synthetic suite written by the test."""

import html
import json
import textwrap
from pathlib import Path

import pytest

from verify import docs_pages
from verify.report import (aggregate, format_markdown, format_summary, format_table, run_suite, variants_summary,
                           write_json)
from verify.reporters.html import render_html
from verify.statement_data import get_statement
from verify.statements import run_variant, variants

@pytest.fixture(scope="module")
def suite(synthetic_suite):
    """The synthetic suite (tests/conftest.py), shared with the HTML, errata and CLI tests."""
    return synthetic_suite("synthetic")


def _by_id(doc):
    return {c["id"]: c for c in doc["claims"]}


def test_fast_tier_verdicts(suite):
    code, checks = run_suite(fast=True, suite=suite, progress=False)
    assert code == 0
    doc = aggregate(checks)
    rows = _by_id(doc)
    assert len(rows) == 71
    assert rows["S-eq9"]["verdict"] == "verified" and rows["S-eq9"]["evidence"] == {"points": 3, "max_err": 0.0}
    assert rows["S-eq10"]["verdict"] == "refuted"
    assert rows["S-eq10"]["evidence"]["counterexample"] == {"d": 2}
    assert rows["S-eq10"]["evidence"]["corrected"] == "the fixed statement"
    assert any(c["corrected"] for c in rows["S-eq10"]["checks"])
    assert rows["S-linear"]["verdict"] == "verified"
    assert rows["S-tensor"]["verdict"] == "not-checked" and "needs something absent" in rows["S-tensor"]["evidence"]["reason"]
    assert rows["N-etf"]["verdict"] == "inconclusive"
    assert rows["S-eq6"]["verdict"] == "not-checked"  # slow: deselected in the fast tier
    assert rows["S-eq10"]["severity"] == "missing-hypothesis"
    assert rows["S-eq10"]["justification"] == {"hypothesis": "d >= 3", "repair": "test_corrected"}
    assert rows["S-fig3"]["verdict"] == "supported" and rows["S-fig3"]["scale"] == "reduced: d = 4, 6"
    assert rows["N-table1-wd"]["verdict"] == "contradicted"
    assert rows["N-thmC.2"]["severity"] == "error" and rows["N-cor4.2"]["severity"] == "degenerate"
    assert doc["summary"]["S"]["verified"] == 2 and doc["summary"]["total"]["not-checked"] == 71 - 8
    assert doc["severity"] == {"error": 1, "missing-hypothesis": 1, "degenerate": 1}
    assert doc["headline"].startswith("2 verified, 1 supported, 3 refuted (1 error, 1 missing hypothesis, "
                                      "1 degenerate case), 1 contradicted, 1 inconclusive, 63 not-checked")
    table = format_table(doc)   # short tags in the terminal; the scale's text in the other reports
    assert "supported [reduced]" in table and "refuted (error)" in table and "contradicted [reduced]" in table


def test_failing_check_makes_claim_inconclusive_and_suite_red(suite):
    code, checks = run_suite(fast=False, suite=suite, progress=False)
    assert code == 1
    row = _by_id(aggregate(checks))["S-eq6"]
    assert row["verdict"] == "inconclusive" and "a check failed" in row["evidence"]["reason"]


def test_paper_filter(suite):
    _, checks = run_suite(fast=True, paper="N", suite=suite, progress=False)
    doc = aggregate(checks, paper="N")
    assert {c["paper"] for c in doc["claims"]} == {"N"} and list(doc["summary"]) == ["N", "total"]
    assert _by_id(doc)["N-etf"]["verdict"] == "inconclusive"


def test_outputs_are_deterministic(suite, tmp_path):
    docs = []
    for i in range(2):
        _, checks = run_suite(fast=True, suite=suite, progress=False)
        write_json(aggregate(checks), tmp_path / f"r{i}.json")
        docs.append((tmp_path / f"r{i}.json").read_bytes())
    assert docs[0] == docs[1]
    doc = json.loads(docs[0])
    assert set(doc) == {"claims", "beyond", "summary", "severity", "headline"}
    assert {"id", "paper", "verdict", "method", "evidence", "checks"} <= set(doc["claims"][0])
    assert "S-eq9" in format_table(doc) and "| `S-eq9` |" in format_markdown(doc)


def test_bad_paper():
    with pytest.raises(ValueError, match="'paper' must be one of 'S', 'N'"):
        run_suite(paper="X", progress=False)


BAD_USES = {
    "no severity": 'verdict.refuted(counterexample={"x": 1})',
    "unknown severity": 'verdict.refuted(counterexample={"x": 1}, severity="minor", justification={"quantity": "q"})',
    "missing justification": 'verdict.refuted(counterexample={"x": 1}, severity="missing-hypothesis", '
                             'justification={"hypothesis": "h"})',
    "error ratio <= 1": 'verdict.refuted(counterexample={"x": 1}, severity="error", '
                        'justification={"instance": "i", "ratio": 1.0})',
    "verified experiment": 'verdict.verified(claim="S-fig3")',
    "supported proof": 'verdict.supported(scale="paper", claim="S-eq9")',
    "experiment without scale": 'verdict.inconclusive(reason="r", claim="S-fig3")',
    "bad scale": 'verdict.supported(scale="small", claim="S-fig3")',
    "variant without its outcome": 'verdict.variant({"variant": "C x 2", "kind": "constant", "class": "false", '
                                   '"check": "refuted"}, claim="S-eq9")',
    "variant of no class": 'verdict.variant({"variant": "C x 2", "kind": "constant", "class": "maybe", '
                           '"check": "refuted", "outcome": "caught", "counterexample": {}}, claim="S-eq9")',
    "caught variant without counterexample": 'verdict.variant({"variant": "C x 2", "kind": "constant", '
                                             '"class": "false", "check": "refuted", "outcome": "caught"}, '
                                             'claim="S-eq9")',
}


@pytest.mark.parametrize("what", sorted(BAD_USES))
def test_plugin_refuses_ungraded_or_misworded_verdicts(tmp_path, what):
    (tmp_path / "test_bad.py").write_text(textwrap.dedent(f"""
        import pytest

        @pytest.mark.claim("S-eq9", "S-fig3")
        def test_bad(verdict):
            {BAD_USES[what]}
        """))
    code, checks = run_suite(fast=True, suite=tmp_path, progress=False)
    assert code == 1 and checks[0]["outcome"] == "failed"


def test_verify_claim_selects_by_marker(suite):
    code, checks = run_suite(fast=True, suite=suite, progress=False, extra_args=["--verify-claim", "S-eq10"])
    assert code == 0 and sorted(c["nodeid"].rsplit("::", 1)[1] for c in checks) == ["test_corrected", "test_two_claims"]


def test_pytest_ends_with_verdict_summary(suite):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pytest", str(suite), "-q", "-p", "no:cacheprovider",
                           "--import-mode=importlib", "-m", "not slow", "-p", "no:randomly"],
                          capture_output=True, text=True, cwd=suite)
    assert proc.returncode == 0, proc.stdout[-2000:]
    tail = proc.stdout[proc.stdout.index("verify: claim verdicts"):]
    flat = " ".join(tail.split())   # the summary wraps at the terminal's width
    assert "3 refuted (1 error, 1 missing hypothesis, 1 degenerate case)" in flat
    assert "N-thmC.2" in tail and "refuted (error)" in tail and "contradicted [reduced]" in tail
    assert max(len(line) for line in tail.splitlines()) <= 80   # pytest's width without a terminal
    lines = tail.splitlines()   # the summary names the claims of each verdict
    for line in ("refuted (error): N-thmC.2", "refuted (missing-hypothesis): S-eq10", "inconclusive: N-etf",
                 "verified: S-eq9, S-linear", "contradicted (reduced scale): N-table1-wd", "not-checked: S-tensor"):
        assert line in lines, tail


def test_compare_catches_a_changed_verdict(suite, tmp_path, monkeypatch, capsys, synthetic_suite):
    from verify.cli import main
    from verify.report import compare

    _, checks = run_suite(fast=True, suite=suite, progress=False)
    doc = aggregate(checks)
    assert compare(doc, json.loads(json.dumps(doc))) == []
    old = json.loads(json.dumps(doc))
    row = next(r for r in old["claims"] if r["id"] == "S-eq10")
    row["severity"] = "error"
    row2 = next(r for r in old["claims"] if r["id"] == "S-eq9")
    row2["verdict"] = "refuted"
    assert [(c["id"], c["field"]) for c in compare(old, doc)] == [("S-eq9", "verdict"), ("S-eq10", "severity")]
    synthetic_suite("synthetic", folder=tmp_path / "proofs_checks")
    (tmp_path / "old.json").write_text(json.dumps(old))
    write_json(doc, tmp_path / "same.json")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--fast", "--no-progress", "--compare", "old.json"]) == 1
    out = capsys.readouterr().out
    assert "compare: 2 change(s)" in out and "S-eq9" in out and "refuted -> verified" in out
    assert main(["report", "--fast", "--no-progress", "--compare", "old.json", "--allow-changes"]) == 0
    assert main(["report", "--fast", "--no-progress", "--compare", "same.json"]) == 0
    assert "no verdict, severity or scale changed" in capsys.readouterr().out
    assert main(["report", "--fast", "--no-progress", "--compare", "missing.json"]) == 2


def test_compare_says_where_check_power_differs(tmp_path, capsys):
    """A mutant that no longer applies (an 'error'), a new survivor or a different count is said beside the verdict
    changes, where both reports measured power, and changes no exit code; a report without --power, or an empty list
    against an absent one, compares no power."""
    from verify.cli import main
    from verify.reporters.compare import compare, format_changes

    def doc(power_eq9=None, power_fig1=None):
        rows = [{"id": "N-fig1", "paper": "N", "verdict": "verified", "evidence": {}},
                {"id": "S-eq9", "paper": "S", "verdict": "verified", "evidence": {}}]
        for row, power in zip(rows, (power_fig1, power_eq9)):
            if power is not None:
                row["power"] = power
        return {"claims": rows, "beyond": []}

    full = {"killed": 3, "total": 3, "survivors": []}
    base = doc(full, {"killed": 2, "total": 2, "survivors": []})
    assert compare(base, doc(dict(full, errors=[]), {"killed": 2, "total": 2})).power == []
    assert compare(base, doc()).power == [] and compare(doc(), base).power == []   # one side without --power
    for part, value in (("errors", ["S-eq9:abc"]), ("survivors", ["S-eq9:abc"]), ("killed", 2), ("total", 4)):
        one = compare(base, doc(dict(full, **{part: value}), {"killed": 2, "total": 2}))   # each part alone
        assert [p["id"] for p in one.power] == ["S-eq9"], part
    moved = doc({"killed": 2, "total": 3, "survivors": [], "errors": ["S-eq9:abc"]},
                {"killed": 1, "total": 2, "survivors": ["N-fig1:def"]})
    ch = compare(base, moved)
    assert ch == [] and ch.environment == []
    assert ch.power == [{"id": "S-eq9", "old": "killed 3/3", "new": "killed 2/3; errors: S-eq9:abc"},
                        {"id": "N-fig1", "old": "killed 2/2", "new": "killed 1/2; surviving: N-fig1:def"}]
    assert format_changes(ch).splitlines() == [
        "compare: no verdict, severity or scale changed",
        "compare: check power differs on 2 claim(s) (mutants; not a verdict change)",
        "  S-eq9                  killed 3/3 -> killed 2/3; errors: S-eq9:abc",
        "  N-fig1                 killed 2/2 -> killed 1/2; surviving: N-fig1:def"]
    many = compare(base, doc(dict(full, errors=[f"S-eq9:{i:08x}" for i in range(12)]), {"killed": 2, "total": 2}))
    text = format_changes(many)
    assert max(map(len, text.splitlines())) <= 100 and all(f"S-eq9:{i:08x}" in text for i in range(12))
    (tmp_path / "old.json").write_text(json.dumps(base))
    (tmp_path / "new.json").write_text(json.dumps(moved))
    assert main(["report", "--from-json", str(tmp_path / "new.json"), "--compare", str(tmp_path / "old.json"),
                 "--no-progress"]) == 0
    assert "S-eq9                  killed 3/3 -> killed 2/3; errors: S-eq9:abc" in capsys.readouterr().out


LF_SUITE = '''
import pytest

@pytest.mark.claim("S-eq9")
def test_passes(verdict):
    verdict.verified(method="a", evidence={"x": 1})

@pytest.mark.claim("S-eq10")
def test_fails():
    assert False
'''


def test_pytest_lf_reruns_only_the_failed_check(tmp_path):
    import subprocess
    import sys

    (tmp_path / "test_lf.py").write_text(LF_SUITE)
    base = [sys.executable, "-m", "pytest", str(tmp_path), "-q", "--import-mode=importlib", "-p", "no:randomly",
            "-o", "cache_dir=" + str(tmp_path / "pytest-cache")]
    first = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 1 and "1 failed, 1 passed" in first.stdout, first.stdout[-2000:]
    again = subprocess.run(base + ["--lf"], capture_output=True, text=True, cwd=tmp_path)
    last = again.stdout.strip().splitlines()[-1]
    assert again.returncode == 1 and last.startswith("1 failed in") and "passed" not in last, again.stdout[-2000:]
    # and the project's own configuration (pyproject addopts) no longer blocks the cache provider
    root = Path(__file__).resolve().parents[1]
    lf = subprocess.run([sys.executable, "-m", "pytest", "--lf", "--sw", "--co", "-q", "-p", "no:randomly",
                         "tests/test_claims.py", "-o", "cache_dir=" + str(tmp_path / "pytest-cache")],
                        capture_output=True, text=True, cwd=root)
    assert lf.returncode == 0, lf.stderr[-1000:]


def _once_suite(mark: str, name: str, when: str, once: str) -> str:
    """Two checks (S-eq9, then S-eq10); the second one does ``once`` (indented code) the first time it runs where
    ``when`` holds, leaving the file ``mark`` beside the suite to say it did, and then passes."""
    return f'''
import os, signal, time
from pathlib import Path
import pytest

MARK = Path(__file__).with_name("{mark}")

@pytest.mark.claim("S-eq9")
def test_a(verdict):
    verdict.verified(method="a", evidence={{"x": 1}})

@pytest.mark.claim("S-eq10")
def test_{name}(verdict):
    if {when} and not MARK.exists():
        MARK.write_text("x")
{once}
    verdict.verified(method="b", evidence={{"y": 2}})
'''


KILLER_SUITE = _once_suite("killed-once", "kills_its_worker_once", 'os.environ.get("VERIFY_TEST_KILL")',
                           "        os.kill(os.getppid(), signal.SIGKILL)   # the Dask worker running this task dies\n"
                           "        os._exit(1)")


def test_a_dask_worker_killed_mid_run_loses_no_claim(tmp_path, monkeypatch):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "test_kill.py").write_text(KILLER_SUITE)
    monkeypatch.setenv("VERIFY_TEST_KILL", "1")
    stats: dict = {}
    code, checks = run_suite(fast=True, suite=tmp_path / "s", progress=False, scheduler="local", workers=2,
                             cache_dir=tmp_path / "cache", stats=stats)
    assert (tmp_path / "s" / "killed-once").exists()   # a worker did die during the run
    assert code == 0 and [c["outcome"] for c in checks] == ["passed", "passed"]
    _, serial = run_suite(fast=True, suite=tmp_path / "s", progress=False)
    assert json.dumps(checks, sort_keys=True) == json.dumps(serial, sort_keys=True)
    assert stats["rerun"] == ["S-eq10", "S-eq9"]
    _, again = run_suite(fast=True, suite=tmp_path / "s", progress=False, cache_dir=tmp_path / "cache", stats=stats)
    assert stats["reused"] == ["S-eq10", "S-eq9"] and again == checks


INTERRUPTED_SUITE = _once_suite("slept-once", "b_interrupted", "True", "        time.sleep(300)     # Ctrl-C arrives here")


def test_an_interrupted_report_resumes_from_the_cache(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "proofs_checks").mkdir()
    (tmp_path / "proofs_checks" / "test_int.py").write_text(INTERRUPTED_SUITE)
    cmd = [sys.executable, "-m", "verify", "report", "--fast", "--no-progress", "--cache-dir", str(tmp_path / "cache"),
           "--json", str(tmp_path / "r.json")]
    # a terminal's process has SIGINT at its default; a process started by a pytest-xdist worker inherits the
    # worker's disposition, which CI showed can be "ignore" by the time this test runs (then Ctrl-C does nothing,
    # and Python installs no KeyboardInterrupt handler): give the child what a user's shell gives it
    proc = subprocess.Popen(cmd, cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.monotonic()

    def ready() -> bool:  # the first claim is in the cache and the second check is sleeping
        return bool(list((tmp_path / "cache").glob("check/*.json"))) and \
            (tmp_path / "proofs_checks" / "slept-once").exists()

    # generous: on CI's loaded 2 cores the start (imports, collection, coverage) has taken over 4 minutes; Ctrl-C
    # must arrive while the second check sleeps (300 s), never earlier, or the test would test another moment
    while time.monotonic() - t0 < 280 and not ready() and proc.poll() is None:
        time.sleep(0.1)
    if not ready():
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"the first claim did not reach the cache in {time.monotonic() - t0:.0f} s: "
                    f"{proc.communicate()[1][-1000:]}")
    os.killpg(proc.pid, signal.SIGINT)   # Ctrl-C: the whole process group, as a terminal sends it
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:    # say where it hung instead of a bare timeout
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"no exit within 120 s of Ctrl-C: {proc.communicate()[1][-2000:]}")
    assert proc.returncode in (2, 130) and "Traceback" not in err, err[-1000:]
    assert not (tmp_path / "r.json").exists()
    again = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-1000:]
    assert "1 claims reused from the cache, 1 run (S-eq10)" in again.stderr
    rows = {r["id"]: r["verdict"] for r in json.loads((tmp_path / "r.json").read_text())["claims"]}
    assert rows["S-eq9"] == rows["S-eq10"] == "verified"


def test_bad_cache_and_scheduler_options_fail_before_any_work(tmp_path, capsys, monkeypatch):
    from verify.cli import main

    monkeypatch.chdir(tmp_path)

    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("not a cache")
    assert main(["report", "--fast", "--cache-dir", str(tmp_path / "home")]) == 2
    assert "Argument '--cache-dir' must be a verify cache folder" in capsys.readouterr().err
    assert main(["report", "--fast", "--scheduler", "tcp://host:99999"]) == 2
    assert "Argument '--scheduler'" in capsys.readouterr().err and not (tmp_path / ".verify-cache").exists()
    assert main(["mutants", "--claim", "S-eq10", "--cache-dir", str(tmp_path / "no" / "such")]) == 2
    assert "'--cache-dir' must be a folder in an existing folder" in capsys.readouterr().err


def test_mutants_json_path_is_checked_before_any_work(tmp_path, monkeypatch, capsys):
    """'verify mutants --json' with a bad output path: one line naming '--json', exit 2, before any mutant is
    collected or run (both replaced by functions that fail the test)."""

    import verify.mutants as M
    from verify.cli import main

    monkeypatch.setattr(M, "collect", lambda *a, **k: pytest.fail("mutants collected before the path was checked"))
    monkeypatch.setattr(M, "run_all", lambda *a, **k: pytest.fail("mutants ran before the path was checked"))
    (tmp_path / "folder").mkdir()
    for path, msg in [(tmp_path / "missing" / "m.json", "'--json' must be a file in an existing folder"),
                      (tmp_path / "folder", "'--json' must be a file, not the folder")]:
        assert main(["mutants", "--claim", "S-eq10", "--json", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("verify: error:") and msg in err, err


@pytest.mark.parametrize("killed,total", [(3, 3), (2, 4), (4, 2)])
def test_every_reporter_shows_the_mutant_count_as_a_count(suite, killed, total):
    # a count such as 3/3 once read as the number 1 in the Markdown report ("[killed 1]")
    from verify.reporters.html import render_html
    _, checks = run_suite(fast=True, suite=suite, progress=False)
    doc = aggregate(checks)
    doc["claims"][0]["power"] = {"killed": killed, "total": total, "survivors": []}
    assert f"[killed {killed}/{total}]" in format_markdown(doc)
    assert f"{killed}/{total}" in format_table(doc, width=100)
    assert f"killed {killed} of {total}" in render_html(doc)


VARIANT_SUITE = '''
import pytest

from verify.statement_data import get_statement
from verify.statements import run_variant, variants


@pytest.mark.claim("N-D-sigmas")
def test_statement(verdict):
    verdict.verified(method="sym: the statement itself", evidence={"points": 1})


@pytest.mark.claim("N-D-sigmas")
@pytest.mark.parametrize("first", [2, 5])
def test_variants(verdict, first):
    st = get_statement("N-D-sigmas")
    for v in variants(st)[:first]:   # the tiers overlap: the first two variants are recorded twice
        verdict.variant(run_variant(st, v))
'''


def test_variant_records_sit_beside_the_verdict_once_each_and_are_counted(tmp_path):
    """Variant records never set a verdict; a variant recorded by both tiers is listed once; the counts, the headline
    and every reporter agree with the variants computed directly."""
    (tmp_path / "test_v.py").write_text(VARIANT_SUITE)
    code, checks = run_suite(fast=True, suite=tmp_path, progress=False)
    assert code == 0
    doc = aggregate(checks)
    row = _by_id(doc)["N-D-sigmas"]
    assert row["verdict"] == "verified" and row["method"] == "sym: the statement itself"
    st = get_statement("N-D-sigmas")
    direct = [run_variant(st, v) for v in variants(st)[:5]]
    assert [v["variant"] for v in row["variants"]] == [v["variant"] for v in direct]
    assert [v["outcome"] for v in row["variants"]] == [v["outcome"] for v in direct]
    assert all(v["search"] == d["check"] for v, d in zip(row["variants"], direct))
    n_false = sum(d["class"] == "false" for d in direct)
    caught = sum(d["outcome"] == "caught" for d in direct)
    n_true = sum(d["class"] == "true" for d in direct)
    s = doc["variants"]
    assert (s["claims"], s["variants"], s["false"], s["caught"], s["true"]) == (1, 5, n_false, caught, n_true)
    assert f"recall {caught}/{n_false} false variants caught" in doc["headline"]
    assert f"false alarms 0/{n_true} true controls" in doc["headline"]
    table = format_table(doc)
    assert max(len(line) for line in table.splitlines()) <= 100
    assert "recall" in " ".join(format_summary(doc).split())
    md = format_markdown(doc)
    assert "## Statement variants" in md and f"| `N-D-sigmas` | {caught}/{n_false} | 0/{n_true} | 0 |" in md
    page = render_html(doc, figures=[], formulas=[])
    assert page.count(f"<td>{caught}/{n_false}</td>") == 1 and "statement variants" in page
    slim = docs_pages.slim_report(doc)
    assert docs_pages.slim_report(slim) == slim   # idempotent with the variants
    section = "\n".join(docs_pages.claim_section(_by_id(slim)["N-D-sigmas"]))
    assert f"**Statement variants.** {caught} of {n_false} false variants refuted" in section
    assert f"| {caught}/{n_false} | 0/{n_true} |" in docs_pages.index_page(doc)


def test_a_variant_s_counterexample_reads_apart_on_every_route():
    """A refuted variant's two sides, exact rationals equal to their first 5 digits (S-exact-loss's C_a x 1/2, as
    recorded), read apart and the right way round in the Markdown and HTML reports and on the docs page (the
    Markdown cell showed "≈-1.017e+11 = ≈-1.017e+11 fails"); two equal sides read equal; the point's long
    float is shortened the same way everywhere."""
    lhs, rhs = "-360314386830890647815825/3543369523456", "-360322163423167903248225/3543369523456"
    variants = [{"variant": "C_a x 1/2", "kind": "constant", "class": "false", "outcome": "caught",
                 "search": "refuted", "counterexample": {"point": {"W": [["-1/2", "3/2"]], "s": 0.123456789},
                                                         "lhs": lhs, "relation": "=", "rhs": rhs,
                                                         "certified": "exact rationals"}},
                {"variant": "relation <", "kind": "relation", "class": "false", "outcome": "caught",
                 "search": "refuted", "counterexample": {"point": {"s": "1/10"}, "lhs": "29/200", "relation": "<",
                                                         "rhs": "29/200", "certified": "exact rationals"}}]
    row = {"id": "S-exact-loss", "paper": "S", "where": "eq. (5)", "kind": "sym", "statement": "L = ...",
           "verdict": "verified", "method": "sym", "evidence": {}, "variants": variants}
    doc = {"claims": [row], "beyond": [], "summary": {}, "severity": {}, "headline": "",
           "variants": variants_summary([row])}
    apart = "refuted at W = [-1/2, 3/2], s = 0.1235: \u2248-1.01687e+11 = \u2248-1.01689e+11 fails (exact rationals)"
    equal = "refuted at s = 1/10: 29/200 < 29/200 fails (exact rationals)"
    md = format_markdown(doc)
    assert f"| {apart} |" in md and f"| {equal} |" in md
    page = render_html(doc, figures=[], formulas=[])
    assert f"<td>{html.escape(apart)}</td>" in page and f"<td>{html.escape(equal)}</td>" in page
    section = "\n".join(docs_pages.claim_section(docs_pages.slim_report(doc)["claims"][0]))
    assert f"| {docs_pages.text_md(apart)} |" in section and f"| {docs_pages.text_md(equal)} |" in section


def test_a_missed_variant_is_named_in_the_terminal_summary():
    row = {"id": "S-eq9", "paper": "S", "verdict": "verified",
           "variants": [{"variant": "C x 2", "class": "false", "outcome": "missed", "search": "verified"}]}
    s = variants_summary([row])
    assert (s["false"], s["caught"], s["missed"]) == (1, 0, ["S-eq9: C x 2"])
    doc = {"claims": [row], "summary": {}, "headline": "h", "variants": s}
    assert "  false variants missed: S-eq9: C x 2" in format_summary(doc).splitlines()


def test_a_claims_headline_comes_from_its_statement_checks_first():
    # a refusal test in test_outputs.py sorts before test_statements.py by name; its method must not be the headline
    from verify.claims import get_claim
    from verify.report import _claim_row

    def chk(path, method):
        return {"nodeid": f"proofs_checks/S/loss/{path}::test_x", "outcome": "passed", "corrected": False,
                "records": [{"claims": ["S-eq9"], "verdict": "verified", "method": method, "evidence": {}}]}

    checks = [chk("test_outputs.py", "refusal"), chk("test_certified.py", "margin"),
              chk("test_statements.py", "the statement"), chk("test_routes.py", "a route")]
    row = _claim_row(get_claim("S-eq9"), checks)
    assert row["method"] == "the statement"
    assert [e["check"].split("/")[-1].split(".")[0] for e in row["checks"]] == \
        ["test_statements", "test_routes", "test_outputs", "test_certified"]


@pytest.mark.parametrize("n,count", [(1, "(1 claim)"), (2, "(2 claims)"), (3, "(3 claims)")])
def test_the_headline_counts_its_claims_in_words(n, count):
    from verify.report import headline

    rows = [{"id": f"S-x{i}", "paper": "S", "verdict": "verified", "kind": "sym"} for i in range(n)]
    text = headline(rows)
    assert text.startswith(f"{n} verified {count}"), text
