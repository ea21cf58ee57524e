"""verify.route_map: the route data, threshold injection, per-claim coverage; and the mutation sampler."""

import fnmatch
import json
import sys
import types
from pathlib import Path

import pytest

from verify import route_map
from verify.claims import claim_ids

ROOT = Path(__file__).resolve().parents[1]


def test_route_map_names_real_claims_checks_and_functions():
    known = set(claim_ids())
    for cid, entry in route_map.ROUTE_MAP.items():
        assert cid == entry.claim and cid in known and entry.routes
        for r in entry.routes:
            path, qual = r.function.split(":", 1)
            assert (ROOT / path).is_file(), r.function            # the function's file exists
            check_file, check = r.crossed_by.split("::")
            assert check in (ROOT / check_file).read_text(), r.crossed_by   # and the check that crosses it
            assert qual.split(".")[-1] in (ROOT / path).read_text()


def test_inject_patches_every_copy_and_refuses_unknown_names(monkeypatch):
    pkg = types.ModuleType("fakepkg")
    a, b = types.ModuleType("fakepkg.a"), types.ModuleType("fakepkg.b")
    a.LIMIT, b.LIMIT, b.OTHER = 10, 10, 1
    for m in (pkg, a, b):
        monkeypatch.setitem(sys.modules, m.__name__, m)
    with monkeypatch.context() as mp:
        assert route_map.inject(mp, "LIMIT", 2, package="fakepkg") == 2
        assert a.LIMIT == b.LIMIT == 2
    assert a.LIMIT == b.LIMIT == 10                                 # restored after the context
    with pytest.raises(ValueError, match="Argument 'name' must be a threshold"):
        route_map.inject(monkeypatch, "NOPE", 1, package="fakepkg")
    with pytest.raises(ValueError, match="Argument 'module' or 'package'"):
        route_map.inject(monkeypatch, "LIMIT", 1)


class _FakeMap:
    """Two functions behind a claim: 6 branches, 3 taken; the missing ones lead to a validation raise (an
    exception), to a plain ValueError (a gap: only VerifyInputError is an input error) and, after a form feed
    (which ``str.splitlines`` would count as a line break), to a VerifyInputError again."""

    def __init__(self, tmp):
        self.file = tmp / "verify" / "numeric" / "f.py"
        self.file.parent.mkdir(parents=True)
        self.file.write_text("def f(x):\n    if x < 0:\n        raise VerifyInputError('x')\n"
                             "    if x > 9:\n        raise ValueError('big')\n    return x\n\x0c\n"
                             "def g(y):\n    if y:\n        raise VerifyInputError('y')\n    return y\n")

    def executed_functions(self, nodeid):
        return {("verify/numeric/f.py", "f"), ("verify/numeric/f.py", "g"), ("verify/_validate.py", "verify_int")}

    def branch_coverage(self, nodeids, functions=None):
        # only the mathematics is behind a claim
        assert functions == {("verify/numeric/f.py", "f"), ("verify/numeric/f.py", "g")}
        return {"covered": 3, "total": 6, "missing": ["verify/numeric/f.py:2->3", "verify/numeric/f.py:4->5",
                                                      "verify/numeric/f.py:9->10"], "functions": 2}

    def _abs(self, rel):
        return self.file.parents[2] / rel

    def _query(self, nodeids, what):
        return {}


def test_claim_coverage_counts_listed_exceptions_apart(tmp_path):
    out = route_map.claim_coverage(_FakeMap(tmp_path), {"S-eq6": {"proofs_checks/t.py::test_a"}})
    fig = out["S-eq6"]
    assert (fig["covered"], fig["total"], fig["percent"]) == (3, 6, 50.0)
    assert fig["exceptions"] == 2 and fig["percent_net"] == 75.0 and fig["n_gaps"] == 1
    assert fig["gaps"] == ["verify/numeric/f.py:4->5"] and fig["exceptions_by_kind"] == {"validation": 2}
    assert [(e["branch"], e["function"], e["kind"]) for e in fig["excepted"]] == [
        ("verify/numeric/f.py:2->3", "f", "validation"), ("verify/numeric/f.py:9->10", "g", "validation")]
    assert all(e["reason"].startswith("validation") for e in fig["excepted"])


def test_exception_rows_match_only_their_claims_files_and_lines():
    lema2 = next(e for e in route_map.EXCEPTIONS if e.claims == "S-lemA.2")
    args = ("verify/numeric/ufm.py", "_inv", 'if kind == "float":', "return np.linalg.inv(M)")
    assert lema2.matches("S-lemA.2", *args) and not lema2.matches("N-eq7", *args)   # a reason for one claim only
    assert route_map._exception("N-eq7", *args) is None                               # elsewhere a route: a gap
    assert lema2.matches("S-lemA.2", "verify/numeric/ufm.py", "_to_fmpq", "if isinstance(x, Fraction):", "x")
    assert not lema2.matches("S-lemA.2", "verify/numeric/ufm.py", "_pieces", 'if kind == "float":', "x")
    guard = route_map._exception("S-eq6", "verify/numeric/ufm.py", "_kind", "if A.dtype != object:", 'return "float"')
    assert guard is not None and guard.kind == "guard"
    assert route_map._exception("S-eq6", "verify/numeric/ufm.py", "_kind", "if A.dtype != object:", "x = 1") is None


def test_every_exception_row_names_existing_files_and_functions():
    """A renamed file or function must not leave a row that silently matches nothing (or something else)."""
    from verify.coverage_map import SourceIndex

    files = {p.relative_to(ROOT).as_posix(): p for p in (ROOT / "verify").rglob("*.py")}
    for e in route_map.EXCEPTIONS:
        assert e.kind in ("validation", "guard", "type") and e.reason, e
        hits = [r for r in files if any(fnmatch.fnmatchcase(r, pat) for pat in e.file.split("|"))]
        assert hits, e.file
        if e.function != "*":
            names = set().union(*(SourceIndex(files[r].read_text()).function_digests for r in hits))
            for pat in e.function.split("|"):
                assert any(fnmatch.fnmatchcase(n, pat) for n in names), (e.file, pat)


def test_main_refuses_bad_paths_before_running(tmp_path, capsys):
    assert route_map.main(["--out", str(tmp_path / "no" / "c.json")]) == 2
    assert "Argument '--out'" in capsys.readouterr().err
    assert route_map.main(["--out", str(tmp_path / "c.json"), "--reuse"]) == 2
    assert "Argument '--reuse'" in capsys.readouterr().err
    assert route_map.main(["--out", str(tmp_path / "c.json"), "--snapshot", str(tmp_path)]) == 2   # exists
    assert "Argument '--snapshot' must be a new folder" in capsys.readouterr().err
    assert route_map.main(["--out", str(tmp_path / "c.json"), "--snapshot", str(tmp_path / "a" / "b")]) == 2
    assert "Argument '--snapshot'" in capsys.readouterr().err and not (tmp_path / "a").exists()


def test_fresh_caches_empties_lru_caches_when_the_claim_changes(monkeypatch):
    import functools

    mod = types.ModuleType("verify.numeric._fake_cached")
    calls = []

    @functools.lru_cache(maxsize=None)
    def table(k):
        calls.append(k)
        return k * k

    class Holder:
        cached = staticmethod(functools.lru_cache(maxsize=None)(lambda k: k + 1))

    mod.table, mod.Holder = table, Holder
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    assert table in route_map._lru_caches() and Holder.cached in route_map._lru_caches()

    class Item:
        def __init__(self, *ids):
            self.marker = types.SimpleNamespace(args=ids)

        def get_closest_marker(self, name):
            assert name == "claim"
            return self.marker

    plugin = route_map.FreshCaches()
    plugin.pytest_runtest_setup(Item("S-eq6"))
    table(3), Holder.cached(1)
    plugin.pytest_runtest_setup(Item("S-eq6"))          # same claim: the cache is kept
    table(3)
    assert calls == [3] and Holder.cached.cache_info().currsize == 1
    plugin.pytest_runtest_setup(Item("S-eq9"))          # another claim: recomputed, counted for it
    table(3)
    assert calls == [3, 3] and Holder.cached.cache_info().currsize == 0


def test_coverage_run_leaves_out_checks_of_experiments_only():
    def item(*ids):
        return types.SimpleNamespace(get_closest_marker=lambda name: types.SimpleNamespace(args=ids) if ids else None)

    keep, emp, mixed, bare = item("S-eq6"), item("S-fig3"), item("S-fig3", "S-exact-loss"), item()
    items, dropped = [keep, emp, mixed, bare], []
    config = types.SimpleNamespace(hook=types.SimpleNamespace(pytest_deselected=lambda items: dropped.extend(items)))
    route_map.FreshCaches().pytest_collection_modifyitems(config, items)
    assert items == [keep, mixed, bare] and dropped == [emp]


def test_option_reads_both_spellings_and_merge_refuses_foreign_files(tmp_path, capsys):
    assert route_map._option(["-q", "--verify-paper=S"], "--verify-paper") == "S"
    assert route_map._option(["--verify-paper", "N", "-q"], "--verify-paper") == "N"
    assert route_map._option(["-q"], "--verify-paper") is None
    (tmp_path / "bad.json").write_text(json.dumps({"power": {}}))
    assert route_map.main(["--out", str(tmp_path / "c.json"), "--merge", str(tmp_path / "bad.json")]) == 2
    assert "Argument '--merge' must be a file written by 'python -m verify.route_map'" in capsys.readouterr().err


@pytest.fixture
def bench(benchmark_script):
    return benchmark_script("mutation_score")


def test_mutation_sample_is_stratified_proportional_and_seeded(bench):
    pop = {"a.py": [f"a_{i}" for i in range(600)], "b.py": [f"b_{i}" for i in range(300)],
           "c.py": [f"c_{i}" for i in range(100)]}
    s1, s2, s3 = (bench.stratified_sample(pop, 50, 7), bench.stratified_sample(pop, 50, 7),
                  bench.stratified_sample(pop, 50, 8))
    assert s1 == s2 and s1 != s3 and len(set(s1)) == 50
    counts = {m: sum(n.startswith(m[0] + "_") for n in s1) for m in pop}
    assert counts == {"a.py": 30, "b.py": 15, "c.py": 5}            # proportional: self-weighting
    with pytest.raises(ValueError, match="Argument '--sample'"):
        bench.stratified_sample(pop, 1001, 0)


def test_mutation_report_counts_no_tests_as_survivors_and_gives_intervals(bench):
    pop = {"verify/numeric/x.py": ["x1", "x2", "x3", "x4"]}
    progress = {"commit": "0" * 40, "seed": 1, "sample": 4,
                "first": {"x1": "killed", "x2": "timeout", "x3": "no tests", "x4": "survived"}}
    text = bench.report(progress, ["x1", "x2", "x3", "x4"], pop, {"x4": {"class": "gap", "reason": "r"}}, True)
    assert "| `verify/numeric/x.py` | 4 | 4 | 4 | 2 | 2 (1) | 50.0% |" in text
    assert "UNTRIAGED" in text and "| `x4` | survived | gap | r |" in text
    assert "**4 of the 4 sampled mutants judged**" in text
    part = bench.report({**progress, "first": {"x1": "killed"}}, ["x1", "x2", "x3", "x4"], pop, {}, False)
    assert "PARTIAL" in part and "**1 of the 4 sampled mutants judged**" in part
    json.dumps(progress)  # the progress file is JSON data


def test_report_carries_the_coverage_figure_into_json_and_html():
    from verify.report import aggregate
    from verify.reporters.html import render_html

    fig = {"covered": 19, "total": 20, "percent": 95.0, "exceptions": 1, "percent_net": 100.0, "functions": 3,
           "gaps": [], "n_gaps": 0, "excepted": []}
    doc = aggregate([], coverage={"S-eq6": fig})
    row = next(r for r in doc["claims"] if r["id"] == "S-eq6")
    assert row["coverage"] == fig and json.loads(json.dumps(doc))["claims"][0]["coverage"] == fig
    assert all("coverage" not in r for r in doc["claims"] if r["id"] != "S-eq6")
    page = render_html(doc, figures=[], formulas=[])
    assert "branch coverage</b> 95.0% (19 of 20 branches of 3 functions)" in page


def test_cli_report_merges_a_coverage_file_and_refuses_a_foreign_one(tmp_path, capsys):
    from verify.cli import main
    from verify.report import aggregate
    from verify.reporters.json import write_json

    write_json(aggregate([]), tmp_path / "rep.json")
    fig = {"covered": 1, "total": 2, "percent": 50.0, "exceptions": 0, "percent_net": 50.0, "functions": 1,
           "gaps": ["verify/numeric/x.py:1->2"], "n_gaps": 1, "excepted": []}
    (tmp_path / "cov.json").write_text(json.dumps({"coverage": {"S-eq6": fig}}))
    assert main(["report", "--from-json", str(tmp_path / "rep.json"), "--coverage", str(tmp_path / "cov.json"),
                 "--json", str(tmp_path / "out.json")]) == 0
    out = json.loads((tmp_path / "out.json").read_text())
    assert next(r for r in out["claims"] if r["id"] == "S-eq6")["coverage"] == fig
    (tmp_path / "bad.json").write_text(json.dumps({"power": {}}))
    assert main(["report", "--from-json", str(tmp_path / "rep.json"), "--coverage", str(tmp_path / "bad.json")]) == 2
    assert "Argument '--coverage' must be a file written by 'python -m verify.route_map'" in capsys.readouterr().err


def test_docstring_examples():
    import doctest

    result = doctest.testmod(route_map, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_exception_claim_patterns_leave_out_negated_claims():
    row = next(e for e in route_map.EXCEPTIONS if e.function.startswith("_const|"))
    args = ("verify/numeric/power_sums.py", "_einsum", "if _is_torch(X):", "import torch")
    assert row.matches("S-thm3.1", *args) and row.matches("X-S-dg-frames", *args)
    assert not row.matches("S-exact-loss", *args) and not row.matches("N-metrics", *args)   # their torch routes run
    assert not row.matches("S-thm3.1", "verify/numeric/power_sums.py", "_einsum", "if _is_torch(X):", "return np.einsum")


def _src_line(rel, startswith):
    """The stripped text of the one line of ``rel`` that starts with ``startswith`` (the rows match real lines)."""
    lines = [ln.strip() for ln in (ROOT / rel).read_text().split("\n") if ln.strip().startswith(startswith)]
    assert len(lines) == 1, (rel, startswith, lines)
    return lines[0]


def test_perturbation_rows_match_the_real_lines_and_nothing_next_to_them():
    sp, npert = "verify/symbolic/perturbation.py", "verify/numeric/perturbation.py"
    dims = (sp, "_dims", _src_line(sp, "if d < K or (strict"), _src_line(sp, "rel, why = "))
    assert route_map._exception("N-D-eig", *dims).kind == "validation"
    zero = (sp, "_zero", _src_line(sp, "if isinstance(expr, sympy.MatrixBase)"), _src_line(sp, "return all(_zero"))
    assert route_map._exception("N-D-sigmas", *zero).kind == "guard"
    # the scalar branch of _zero, the skip of a zero multiplicity (n = 1: a route) stay gaps
    assert route_map._exception("N-D-sigmas", sp, "_zero", zero[2], _src_line(sp, "return sympy.cancel(")) is None
    assert route_map._exception("N-D-eig", sp, "paper_Fkk_spectrum", "if m == 0:", "continue") is None
    args = (npert, "check_problem", _src_line(npert, "if value is not _ABSENT:"), _src_line(npert, "for value, name in"))
    assert route_map._exception("N-lemC.4", *args).kind == "type"
    # the d >= K validation of check_problem is matched by the validation row, not by the caller-constant one
    assert route_map._exception("N-lemC.4", npert, "check_problem", "if d < K:", "raise VerifyInputError(").kind == \
        "validation"
    assert route_map._exception("N-lemC.4", npert, "orthonormal_frame", "if seed is None:", "return np.eye") is None


def test_superposition_loss_rows_match_the_real_lines_for_their_claims_only():
    sl = "verify/symbolic/superposition_loss.py"
    k0 = (sl, "x_moment", _src_line(sl, "if k == 0:"), "return sympy.Integer(1)")
    assert route_map._exception("S-thm3.1", *k0).kind == "guard"
    assert route_map._exception("S-thm3.1", sl, "x_moment", k0[2], "return p * mu(k) if k % 2 == 0 else") is None
    full = (sl, "row_polynomial", _src_line(sl, 'if stats == "full":'), _src_line(sl, "f = f.subs({T(k): S(k)"))
    assert route_map._exception("S-eq10", *full).kind == "type"
    for claim in ("S-exact-loss", "S-rem4.3-first-order", "S-linear", "N-eq7"):   # a route of theirs, or not theirs
        assert route_map._exception(claim, *full) is None, claim


def test_start_block_row_leaves_out_the_objective_that_passes_more_blocks():
    ob = "verify/objectives.py"
    args = (ob, "normal_then_uniform", _src_line(ob, "for lo2, hi2, m2 in more:"),
            _src_line(ob, "parts.append(rng.uniform(lo2"))
    assert route_map._exception("N-lemB.1", *args).kind == "type"
    assert route_map._exception("N-thmC.2", *args) is None                   # its map objective passes them
    assert "more=((" in (ROOT / ob).read_text()                               # and that call still exists


def test_figure1_row_covers_its_fixed_configuration_only():
    from verify.numeric.perturbation_figures import FIG1_CONFIG

    assert (FIG1_CONFIG["d"], FIG1_CONFIG["K"], FIG1_CONFIG["n"]) == (10, 4, 10)   # the reason's premise
    np_, uf, sp = "verify/numeric/perturbation.py", "verify/numeric/ufm.py", "verify/symbolic/perturbation.py"
    rows = [(np_, "orthonormal_frame", _src_line(np_, "if seed is None:"), "return np.eye(d)[:, :K]"),
            (uf, "collapse_rho", _src_line(uf, "if isinstance(lam_W, (sympy.Basic, Fraction))"), "lw, lh = 1, 2"),
            (sp, "paper_Fkk_spectrum", _src_line(sp, "if m == 0:"), "continue")]
    for args in rows:
        assert route_map._exception("N-fig1", *args).kind == "type", args[1]
        assert route_map._exception("N-D-eig", *args) is None, args[1]            # a route of the general claims


class _WithLoopMap(_FakeMap):
    """A loop inside a ``with`` block: the tracer records its exit 3 -> 5 as 3 -> 2 (the with line's __exit__) and
    2 -> 5; coverage.py's static arcs list 3 -> 5."""

    def __init__(self, tmp, arcs):
        self.file = tmp / "verify" / "numeric" / "f.py"
        self.file.parent.mkdir(parents=True)
        self.file.write_text("def f(n):\n    with ctx():\n        for r in range(n):\n            pass\n"
                             "    return n\n")
        self.recorded = arcs

    def executed_functions(self, nodeid):
        return {("verify/numeric/f.py", "f")}

    def branch_coverage(self, nodeids, functions=None):
        return {"covered": 1, "total": 2, "missing": ["verify/numeric/f.py:3->5"], "functions": 1}

    def _query(self, nodeids, what):
        assert what == "arcs"
        return {"verify/numeric/f.py": set(self.recorded)}


def test_loop_exit_through_a_with_line_counts_as_taken_only_when_both_arcs_ran(tmp_path):
    ids = {"S-eq6": {"proofs_checks/t.py::test_a"}}
    taken = route_map.claim_coverage(_WithLoopMap(tmp_path / "a", {(3, 4), (4, 3), (3, 2), (2, 5)}), ids)["S-eq6"]
    assert (taken["covered"], taken["total"], taken["n_gaps"]) == (2, 2, 0)
    # the loop never ended (no 2 -> 5): still a gap
    open_ = route_map.claim_coverage(_WithLoopMap(tmp_path / "b", {(3, 4), (4, 3), (3, 2)}), ids)["S-eq6"]
    assert (open_["covered"], open_["gaps"]) == (1, ["verify/numeric/f.py:3->5"])


def test_lower_bound_frame_rows_cover_the_caller_constants_of_frame_block_stats_only():
    fd, cw = "verify/numeric/frames/field.py", "verify/numeric/frames/cert_wht.py"
    rows = [(fd, "field_of", _src_line(fd, "if irreducible_poly is None:"), _src_line(fd, "ok = _is_int(irred")),
            (fd, "_wht_rows", _src_line(fd, 'if method == "butterfly":'), _src_line(fd, "return _fwht((1 - 2 *")),
            (cw, "_check_codes", _src_line(cw, "if n_codes is None:"), "return total")]
    for args in rows:
        for claim in ("S-eq19", "S-eq22", "S-thm4.2", "S-rem4.3-bound"):
            assert route_map._exception(claim, *args).kind == "type", (claim, args[1])
        for claim in ("S-lemA.4-pow2", "S-lemA.4-trace", "S-lem4.1"):      # their routes: gaps there
            assert route_map._exception(claim, *args) is None, (claim, args[1])
