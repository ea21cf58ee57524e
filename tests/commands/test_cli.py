"""The CLI contract: bad input is one line on stderr and exit code 2, never a traceback."""

import os
import subprocess
import sys

import pytest

from verify.cli import main


def _run(*args):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "args",
    [
        ["latex", "no-such-formula"],
        ["latex", "S-loss", "-p", "m"],
        ["report", "--paper", "X"],
        ["report", "--workers", "0"],
        ["reproduce", "no-such-target", "-o", "x"],
        ["no-such-command"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    proc = _run(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error:"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_latex_list_and_out(tmp_path, capsys):
    assert main(["latex", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed
    out = tmp_path / "all.tex"
    assert main(["latex", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("\\documentclass") and text.rstrip().endswith("\\end{document}")


def test_version():
    proc = _run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("verify ")


# --------------------------------------------------------------------------- paths checked before any work
SUITE = (__import__("pathlib").Path(__file__).parents[1] / "data" / "synthetic_suite.txt").read_text()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A saved report of the synthetic suite (the JSON that --from-json and --compare read)."""
    from verify.report import aggregate, run_suite, write_json

    root = tmp_path_factory.mktemp("cli_suite")
    (root / "test_synthetic_cli.py").write_text(SUITE)
    code, checks = run_suite(fast=True, suite=root, progress=False)
    assert code == 0
    path = root / "r.json"
    write_json(aggregate(checks), path)
    return path


def _no_run(monkeypatch):
    import verify.report as R

    monkeypatch.setattr(R, "run_suite", lambda *a, **k: pytest.fail("the suite ran before the paths were checked"))


@pytest.mark.parametrize("argv, msg", [
    (["report", "--json", "{missing}/r.json"], "'--json' must be a file in an existing folder"),
    (["report", "--markdown", "{missing}/r.md"], "'--markdown' must be a file in an existing folder"),
    (["report", "--html", "{tmp}"], "'--html' must be a file, not the folder"),
    (["report", "--errata-latex", "{missing}/e.tex"], "'--errata-latex' must be a file in an existing folder"),
    (["report", "--compare", "{missing}.json"], "'--compare' must be a readable file"),
    (["report", "--compare", "{notreport}"], "'--compare' must be a report written by 'verify report --json'"),
    (["report", "--json", "{tmp}/a.json", "--markdown", "{tmp}/a.json"], "'--markdown' must name another file"),
    (["report", "--from-json", "{saved}", "--power"], "'--power' runs the mutants"),
    (["report", "--from-json", "{saved}", "--fast"], "not allowed with --from-json"),
    (["report", "--sensitivity", "--fast"], "'--sensitivity' needs the slow tier's runs: not with '--fast'"),
    (["report", "--from-json", "{saved}", "--sensitivity"], "'--sensitivity' needs the slow tier's runs"),
    (["latex", "--out", "{missing}/f.tex"], "'--out' must be a file in an existing folder"),
    (["search", "N-lemB.1", "--out", "{missing}/s.json"], "'--out' must be a file in an existing folder"),
    (["search", "N-lemB.1", "--out", "{tmp}/none.json", "--resume"], "'--out' must be a readable file"),
])
def test_bad_paths_fail_at_once(argv, msg, tmp_path, saved, monkeypatch, capsys):
    """Every output path and input file is checked before any work: exit 2, one line naming the option, and nothing
    runs (the suite, a derivation and a cluster are replaced by functions that fail the test)."""
    import verify.distributed as D

    _no_run(monkeypatch)
    monkeypatch.setattr(D, "get_client", lambda *a, **k: pytest.fail("a cluster started before the path was checked"))
    (tmp_path / "notreport.json").write_text('{"claims": [{"id": "S-eq9"}]}')
    fill = {"missing": str(tmp_path / "missing"), "tmp": str(tmp_path), "saved": str(saved),
            "notreport": str(tmp_path / "notreport.json")}
    argv = [a.format(**fill) for a in argv]
    assert main(argv) == 2   # the path check came first: the suite, a derivation or a cluster would have failed the test
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err, err


@pytest.mark.parametrize("flag, expected", [([], None), (["--sensitivity"], "1")])
def test_report_sensitivity_reaches_the_checks_through_the_environment(flag, expected, monkeypatch, tmp_path):
    """--sensitivity sets VERIFY_WD_SENSITIVITY=1 for the suite's processes (they read it, and the cache fingerprints
    it); without the flag the suite sees no such variable."""
    import verify.report as R

    monkeypatch.setenv("VERIFY_WD_SENSITIVITY", "0")  # recorded, so the flag's setting is undone after the test
    monkeypatch.delenv("VERIFY_WD_SENSITIVITY")
    seen = []

    def fake_suite(*a, **k):
        seen.append(os.environ.get("VERIFY_WD_SENSITIVITY"))
        return 0, []

    monkeypatch.setattr(R, "run_suite", fake_suite)
    main(["report", "--no-progress", "--no-cache", "--claim", "S-eq9"] + flag)
    assert seen == [expected]


def test_report_from_json_renders_everything(saved, tmp_path, monkeypatch, capsys):
    """--from-json renders the table, JSON, Markdown, HTML and errata from the saved document without running the
    suite (run_suite would fail the test); the Markdown cells stay short; --compare against itself is no change."""
    import json

    from verify.reporters import mathtex

    _no_run(monkeypatch)
    real = mathtex.formula_items  # two formulas, not all 22 (~15 s of mathtext): the wiring is tested here
    monkeypatch.setattr(mathtex, "formula_items", lambda names=None: real(["S-eq9", "N-thm5.2"]))
    out = {k: tmp_path / f"out.{k}" for k in ("json", "md", "html", "tex", "emd")}
    assert main(["report", "--from-json", str(saved), "--no-progress", "--json", str(out["json"]), "--markdown",
                 str(out["md"]), "--html", str(out["html"]), "--errata-latex", str(out["tex"]), "--errata-markdown",
                 str(out["emd"]), "--compare", str(saved)]) == 0
    text = capsys.readouterr().out
    assert "S-eq10" in text and "compare: no verdict, severity or scale changed" in text
    assert json.loads(out["json"].read_text())["claims"] == json.loads(saved.read_text())["claims"]
    assert out["html"].read_text().startswith("<!DOCTYPE html>") and "carries no data for this picture" in \
        out["html"].read_text()
    for p in ("S", "N"):   # one document per paper, beside the named file
        assert r"\begin{document}" in (tmp_path / f"out-{p}.tex").read_text()
        assert "# Errata" in (tmp_path / f"out-{p}.emd").read_text()
    assert not out["tex"].exists() and not out["emd"].exists()
    cells = [c for line in out["md"].read_text().splitlines() if line.startswith("|")
             for c in line.replace("\\|", "").split("|")]
    assert cells and max(map(len, cells)) <= 400
    assert main(["report", "--from-json", str(saved), "--paper", "S", "--no-progress", "--json", str(out["json"])]) == 0
    assert {r["paper"] for r in json.loads(out["json"].read_text())["claims"]} == {"S"}


def test_outputs_are_written_independently(saved, tmp_path, monkeypatch, capsys):
    """One output that fails to write (here the Markdown renderer raises OSError, as a full disk would) is reported
    on stderr with its option; the others are still written and the exit code is 2."""
    import verify.report as R

    def broken(doc):
        raise OSError("No space left on device")

    monkeypatch.setattr(R, "format_markdown", broken)
    assert main(["report", "--from-json", str(saved), "--no-progress", "--json", str(tmp_path / "a.json"),
                 "--markdown", str(tmp_path / "a.md"), "--errata-latex", str(tmp_path / "a.tex")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--markdown" in err and "No space left on device" in err
    assert (tmp_path / "a.json").exists() and (tmp_path / "a-S.tex").exists() and not (tmp_path / "a.md").exists()


@pytest.mark.skipif(__import__("os").geteuid() == 0, reason="root may write into any folder")
def test_unwritable_folder(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    assert main(["latex", "--out", str(ro / "f.tex")]) == 2
    assert "writable folder" in capsys.readouterr().err


# --------------------------------------------------------------------------- verify reproduce: what it prints
def _fake_target(summary: dict):
    """A reproduce target that writes its figure and its JSON, as the real ones do, in milliseconds."""
    import json

    def fn(out, quick=False, device="auto", seed=0):
        (out / "fake.png").write_bytes(b"\x89PNG")
        (out / "fake.json").write_text(json.dumps(summary))
        return summary
    return fn


#: an experiment's summary: a decision, its scale, long floats, a nested per-setting record
EXPERIMENT = {"claim": "S-fig3", "seed": 3, "slope_mean": 0.123456789, "n_seeds": 8,
              "per_d": {"4": {"sparse_slopes": [0.1] * 8}},
              "decision": {"verdict": "supported", "reason": "p_for = 0.0039 < alpha = 0.05: the slopes fall",
                           "rule": "one-sided sign test"},
              "scale": "reduced: d in (4, 6) for (10, 15)"}


def test_reproduce_prints_a_short_summary(tmp_path, monkeypatch, capsys):
    """The verdict with its scale, the deciding numbers (4 digits, nested results named), the files written and
    where the full results are: four lines, not the JSON; a file already in the folder that the run did not
    rewrite is not listed. A monkeypatched target: the real ones take seconds to minutes."""
    import json

    import verify.numeric.perturbation_figures as PF

    monkeypatch.setattr(PF, "reproduce_fig1", _fake_target(EXPERIMENT))
    (tmp_path / "old.txt").write_text("from an earlier run")
    assert main(["reproduce", "nc-fig1", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert len(lines) == 4, out
    assert lines[0] == "nc-fig1: supported (reduced scale: d in (4, 6) for (10, 15))"
    assert lines[1].startswith("deciding numbers: p_for = 0.0039 < alpha = 0.05")
    assert "slope_mean = 0.1235" in lines[1] and "0.123456789" not in out and "details: per_d" in lines[1]
    assert "sign test" not in out and "sparse_slopes" not in out  # the rest of the record stays in the file
    assert lines[2] == f"wrote: {tmp_path / 'fake.json'}, {tmp_path / 'fake.png'}" and "old.txt" not in out
    assert lines[3].startswith(f"full results: {tmp_path / 'fake.json'}")
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


def test_reproduce_json_is_the_whole_summary_and_numeric_targets_say_so(tmp_path, monkeypatch, capsys):
    import json

    import verify.numeric.perturbation_figures as PF

    monkeypatch.setattr(PF, "reproduce_fig1", _fake_target(EXPERIMENT))
    assert main(["reproduce", "nc-fig1", "-o", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == EXPERIMENT  # machine output: every field, every digit
    numeric = {"max_abs_err_numeric_vs_closed_form": 2.220446049250313e-15, "config": {"K": 4}}
    monkeypatch.setattr(PF, "reproduce_fig1", _fake_target(numeric))
    assert main(["reproduce", "nc-fig1", "-o", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("nc-fig1: a numeric figure (no decision rule")
    assert lines[1] == "deciding numbers: max_abs_err_numeric_vs_closed_form = 2.22e-15; details: config"


def test_reproduce_summary_example():
    import doctest

    import verify.commands.reproduce as mod

    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0


def test_reproduce_bad_output_folder_fails_before_the_run(tmp_path, monkeypatch, capsys):
    """``-o`` naming a file, or a folder that cannot be made, is one line and exit 2 before the target runs."""
    import verify.numeric.perturbation_figures as PF

    monkeypatch.setattr(PF, "reproduce_fig1", lambda *a, **k: pytest.fail("the target ran before -o was checked"))
    (tmp_path / "f").write_text("x")
    assert main(["reproduce", "nc-fig1", "-o", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Argument '-o' must be a folder (made if absent), not the file" in err[0]
    assert main(["reproduce", "nc-fig1", "-o", str(tmp_path / "f" / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Argument '-o' must be a folder that can be made" in err[0]


# --------------------------------------------------------------------------- a selection refused before collection
@pytest.mark.parametrize("argv, msg", [
    (["report", "-k", "((("], "Argument '-k' must be a pytest -k expression"),
    (["report", "--claim", "S-nope"], "Argument '--claim' must be a registered claim ID"),
    (["report", "--claim", "S-thm3.2", "--claim", "N-nope"], "not 'N-nope'"),
    (["report", "--paper", "S", "--claim", "N-thm5.2"], "must name a claim of paper S"),
])
def test_a_bad_selection_is_refused_before_anything_runs(argv, msg, tmp_path, monkeypatch, capsys):
    import verify.report as R

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VERIFY_CACHE_DIR", raising=False)
    monkeypatch.setattr(R, "run_suite", lambda *a, **k: pytest.fail("the suite ran before the selection was checked"))
    monkeypatch.setattr(R, "run_options", lambda *a, **k: pytest.fail("the cache was opened before the selection "
                                                                       "was checked"))
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0], err
    assert not list(tmp_path.iterdir())   # no cache folder, nothing left behind


def test_pytest_refuses_an_unknown_claim_at_configure_time(tmp_path):
    """The suite here writes a file when it is imported: refused before collection, it is never imported."""
    (tmp_path / "test_marker_suite.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('collected').write_text('yes')\n"
        "def test_x():\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path),
                           "--verify-claim", "S-nope"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "Argument '--verify-claim' must be a registered claim ID" in proc.stderr + proc.stdout
    assert not (tmp_path / "collected").exists()


def test_claim_selects_rows_from_a_saved_report(saved, capsys):
    assert main(["report", "--from-json", str(saved), "--claim", "S-eq9"]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n")[0]
    assert "S-eq9" in table and not any(line.startswith(("S-", "N-")) and not line.startswith("S-eq9")
                                        for line in table.splitlines())


#: the committed report of both tiers (its rows carry their statement variants; the necessity table is kept whole)
COMMITTED = __import__("pathlib").Path(__file__).resolve().parents[2] / "docs" / "_data" / "verdicts.json"


@pytest.mark.parametrize("select,kept_papers", [(["--claim", "S-thm2.2-2", "--claim", "N-thm5.1"], {"S", "N"}),
                                                (["--paper", "N"], {"N"})])
def test_a_selection_shows_nothing_of_the_claims_it_leaves_out(tmp_path, select, kept_papers):
    """A report cut to some claims (``--claim``, ``--paper``) recomputes its whole-report parts from the rows kept:
    the statement variants' summary counts their variants only, the necessity table holds their lines only, the
    derived formulas are theirs or shared derivations of their papers; no other claim's ID is left in the Markdown."""
    import json
    import re

    doc = json.loads(COMMITTED.read_text(encoding="utf-8"))
    names = ["S-eq10", "S-thm2.2-2", "S-loss", "N-L", "N-thm5.2", "N-thm5.1"]
    doc["formulas"] = [{"name": n, "description": f"formula {n}", "params": {}, "tex": [r"x^{2}"]} for n in names]
    src = tmp_path / "whole.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    out, md = tmp_path / "cut.json", tmp_path / "cut.md"
    assert main(["report", "--from-json", str(src), *select, "--no-progress", "--json", str(out),
                 "--markdown", str(md)]) == 0
    cut = json.loads(out.read_text(encoding="utf-8"))
    kept = {r["id"] for r in cut["claims"] + cut["beyond"]}
    if "--claim" in select:
        assert kept == {"S-thm2.2-2", "N-thm5.1"}
    else:
        assert kept and {r["paper"] for r in cut["claims"]} == {"N"}
    # the variants: what the kept rows hold, not the 58 claims' totals
    held = [v for r in cut["claims"] for v in r.get("variants", [])]
    assert held and cut["variants"]["variants"] == len(held) < doc["variants"]["variants"]
    assert cut["variants"]["false"] == sum(v["class"] == "false" for v in held)
    assert cut["variants"]["claims"] == len({r["id"] for r in cut["claims"] if r.get("variants")})
    # the necessity table: the kept claims' lines, each as in the whole report
    assert cut["necessity"] == [n for n in doc["necessity"] if n["claim"] in kept]
    assert cut["necessity"] and len(cut["necessity"]) < len(doc["necessity"])
    expect = {"S-thm2.2-2", "N-thm5.1", "S-loss", "N-L"} if "--claim" in select else {"N-L", "N-thm5.2", "N-thm5.1"}
    assert {f["name"] for f in cut["formulas"]} == expect
    text = md.read_text(encoding="utf-8")
    assert f"Statement variants of {cut['variants']['claims']} claim" in text
    others = {r["id"] for r in doc["claims"] + doc["beyond"]} - kept
    assert not {m for m in re.findall(r"`([SNX]-[^`]+)`", text) if m in others}


@pytest.mark.parametrize("select,kept", [(["--paper", "N"], {"N-L", "N-thm5.1"}),
                                         (["--claim", "S-eq10"], {"S-eq10", "S-loss"})])
def test_a_run_of_some_claims_carries_their_formulas_only(tmp_path, monkeypatch, select, kept):
    """The run path cuts the derived formulas as the saved-report path does (a ``--paper`` run too, whose rows the
    aggregation already cut): the suite and the pictures are stood in for, the formulas' names are the registry's
    kinds (a claim kept, a shared derivation of its paper, another paper's and another claim's)."""
    import json

    import verify.figure_data as FD
    import verify.report as R
    from verify.reporters import mathtex

    monkeypatch.setattr(R, "run_suite", lambda *a, **k: (0, []))
    monkeypatch.setattr(FD, "figure_data", lambda doc, progress=True: {})
    names = ["S-eq10", "S-loss", "N-L", "N-thm5.1", "S-eq9"]
    monkeypatch.setattr(mathtex, "formula_tex", lambda *a, **k: [
        {"name": n, "description": n, "params": {}, "tex": ["x"]} for n in names])
    out = tmp_path / "r.json"
    assert main(["report", *select, "--no-progress", "--no-cache", "--json", str(out)]) in (0, 1)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert {f["name"] for f in doc["formulas"]} == kept
