"""The theorem suite is filed by paper part and kind of check (``docs/architecture.md``, "Layout").

``proofs_checks/<part>/`` holds the checks of the claims of one part of a paper (:data:`verify.claims.PARTS`), in
one file per kind of check (``test_<kind>.py``, :data:`verify.claims.CHECK_KINDS`), with the part's curated
mutants (``mutants.py``) and private helpers (``_*.py``; helpers shared by the parts of a paper sit in its folder,
``proofs_checks/N/_routes.py``, and those of every part at the top, ``proofs_checks/_refusals.py``). A file anywhere else, a file named after anything but a
kind (a round of work, a measure), a check filed in another part than its claim's, or a mutant filed in another
part than its claim's fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from verify.claims import CHECK_KINDS, PARTS, get_claim

SUITE = Path(__file__).resolve().parents[1] / "proofs_checks"
KIND_FILES = {f"test_{k}.py" for k in CHECK_KINDS}


def _files():
    return sorted(p.relative_to(SUITE) for p in SUITE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix != ".pyc")


def _part_of(rel: Path) -> str:
    return "/".join(rel.parts[:-1])


def _claims(decorators) -> list[str]:
    """The claim IDs of a ``@pytest.mark.claim(...)`` among ``decorators`` (string arguments, in order)."""
    out = []
    for d in decorators:
        for n in ast.walk(d):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "claim":
                out += [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return out


def test_every_file_of_the_suite_is_in_a_part_folder_and_named_by_its_kind():
    folders = set(PARTS) | {p.split("/")[0] for p in PARTS}
    bad = []
    for rel in _files():
        name, part = rel.name, _part_of(rel)
        if rel.suffix != ".py":
            bad.append(f"{rel}: not a Python module")
        elif part == "":
            if not (name == "__init__.py" or name.startswith("_")):
                bad.append(f"{rel}: a check module outside a part folder")
        elif part not in folders:
            bad.append(f"{rel}: {part}/ is not a part of verify.claims.PARTS")
        elif part not in PARTS:   # a paper's folder (S/, N/): its parts, and helpers they share
            if not (name == "__init__.py" or name.startswith("_")):
                bad.append(f"{rel}: a paper's folder holds only its parts and their shared helpers")
        elif not (name in KIND_FILES or name in ("__init__.py", "mutants.py") or name.startswith("_")):
            bad.append(f"{rel}: not named by a kind of check ({', '.join(sorted(KIND_FILES))})")
    for part in PARTS:
        for folder in (part, part.split("/")[0]):
            if not (SUITE / folder / "__init__.py").is_file():
                bad.append(f"{folder}/__init__.py missing (pyproject packages proofs_checks*)")
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_layout_test_fails_on_a_file_named_after_a_round(tmp_path, monkeypatch):
    """The check above has power: a round-named file at the top or a measure-named file in a part fails it."""
    for rel in ("test_sample_gaps.py", "S/loss/test_coverage_S.py", "S/loss/extra/test_statements.py",
                "N/test_routes_N.py"):
        fake = tmp_path / "proofs_checks"
        for part in PARTS:
            (fake / part).mkdir(parents=True, exist_ok=True)
            (fake / part / "__init__.py").write_text("")
            (fake / part.split("/")[0] / "__init__.py").write_text("")
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text("")
        monkeypatch.setitem(globals(), "SUITE", fake)
        with pytest.raises(AssertionError, match=rel.split("/")[-1]):
            test_every_file_of_the_suite_is_in_a_part_folder_and_named_by_its_kind()
        (fake / rel).unlink()


def test_every_check_lives_in_the_part_of_its_claim():
    """A check marked with claims lives in the part of its first claim; a parametrised check whose parameters carry
    the claims (the necessity rows, the objectives' replays) selects its part's own by naming the folder."""
    bad, checks = [], 0
    for rel in _files():
        if not rel.name.startswith("test_"):
            continue
        part = _part_of(rel)
        tree = ast.parse((SUITE / rel).read_text(encoding="utf-8"))
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            checks += 1
            ids = _claims(node.decorator_list)
            if ids:
                if get_claim(ids[0]).part != part:
                    bad.append(f"{rel}::{node.name}: {ids[0]} belongs to {get_claim(ids[0]).part}")
                continue
            named = [a.value for d in node.decorator_list for n in ast.walk(d)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                     and n.func.id in ("necessity_rows", "_replayed", "statement_claims")
                     for a in n.args if isinstance(a, ast.Constant)]
            if named != [part]:
                bad.append(f"{rel}::{node.name}: no claim marker and no selection by its part ({named})")
    assert checks >= 300 and not bad, "\n".join(bad)


def test_every_curated_mutant_sits_in_its_claims_part():
    from verify.mutants import collect

    bad = []
    for path in sorted(SUITE.rglob("mutants.py")):
        part = _part_of(path.relative_to(SUITE))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Mutant" and n.args \
                    and isinstance(n.args[0], ast.Constant) and get_claim(n.args[0].value).part != part:
                bad.append(f"{path.relative_to(SUITE)}: a mutant of {n.args[0].value}")
    assert not bad, bad
    assert {get_claim(m.claim).part for m in collect(SUITE)} <= set(PARTS)


def test_a_part_runs_on_its_own():
    """``pytest proofs_checks/S/frames`` collects that part's checks only (a part is a folder, not a marker)."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "proofs_checks/S/lower_bound"], cwd=SUITE.parent, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    assert ids and all(i.startswith("proofs_checks/S/lower_bound/test_") for i in ids), ids[:5]


def _test_only_modules() -> set:
    """The modules of pyproject's ``test`` extra that are not dependencies of the package itself (read from the
    file: a module added to the extra is covered at once)."""
    import re

    text = (SUITE.parent / "pyproject.toml").read_text(encoding="utf-8")
    names = lambda block: {re.split(r"[<>=!~\[ ;]", s.strip())[0].lower()  # noqa: E731
                           for s in re.findall(r'"([^"]+)"', block)}
    core = names(re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1))
    test = names(re.search(r"^test = \[(.*?)\]", text, re.M).group(1))
    return {n.replace("-", "_") for n in test - core}


def _loads_of(tree) -> tuple[set, list]:
    """The top-level modules a file imports and the string constants it builds paths from."""
    mods, strings = set(), []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mods |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            mods.add(n.module.split(".")[0])
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            strings.append(n.value)
    return mods, strings


def test_the_checks_need_only_the_packages_own_dependencies():
    """The main job installs the package without the ``test`` extra and runs every check: a check that imports
    hypothesis (or another test-only module), or loads a file of tests/ (whose imports include them), fails there
    with ModuleNotFoundError and leaves its claim inconclusive (it did: the Kasami reference was read from
    tests/numeric/test_frame_quadratic.py). Every file of the suite, helpers included, is scanned."""
    test_only = _test_only_modules()
    assert {"hypothesis", "selenium", "mutmut"} <= test_only and "pytest" not in test_only
    bad = []
    for rel in _files():
        if rel.suffix != ".py":
            continue
        mods, strings = _loads_of(ast.parse((SUITE / rel).read_text(encoding="utf-8")))
        bad += [f"{rel}: imports {m}" for m in sorted(mods & test_only)]
        bad += [f"{rel}: names {s!r}" for s in strings if s in ("tests", "tests/") or s.startswith("tests/")]
        bad += [f"{rel}: imports from tests/ ({m})" for m in sorted(mods) if m.startswith("test_")]
    assert not bad, "\n".join(bad)


def test_the_dependency_scan_sees_each_way_a_check_can_reach_the_test_extra(tmp_path):
    """The scan above fails on a check that imports hypothesis, one that imports a module of tests/, and one that
    builds a path into tests/."""
    for src, what in [("from hypothesis import given\n", "hypothesis"), ("import test_api_parameters\n", "test_"),
                      ("p = ROOT / 'tests' / 'x.py'\n", "tests")]:
        mods, strings = _loads_of(ast.parse(src))
        hit = (mods & _test_only_modules()) or {m for m in mods if m.startswith("test_")} or \
            [s for s in strings if s in ("tests", "tests/") or s.startswith("tests/")]
        assert hit, what
