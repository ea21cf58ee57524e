"""The errata (verify.reporters.errata, ``verify errata``): content, LaTeX well-formed at the parser level (always),
pdflatex (where installed), the quotes against the papers' text (where ``shared/papers`` is at hand)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from verify.report import aggregate, run_suite, write_json
from verify.reporters.errata import PAPER_TEXT, errata_latex, errata_markdown, typos

PAPERS_DIR = Path(__file__).resolve().parents[2] / "shared" / "papers"


SUITE = (Path(__file__).parent / "data" / "synthetic_suite.txt").read_text()  # the suite of test_report.py
#: a counterexample with exact numbers, nested, to be printed digit for digit
EXTRA = '''

@pytest.mark.claim("N-thm5.2")
def test_thm52_refuted(verdict):
    verdict.refuted(counterexample={"lam_W": 0.1, "lam_H": 0.30000000000000004, "sigma_min": {"measured": 0.9876543210987654,
                    "claimed": "1 - sqrt(3)/100"}}, severity="missing-hypothesis", corrected="holds for beta > sqrt(lH/lW)",
                    justification={"hypothesis": "beta > sqrt(lH/lW)", "repair": "test_thm52_corrected"})

@pytest.mark.claim("N-thm5.2", corrected=True)
def test_thm52_corrected(verdict):
    verdict.verified(evidence={"max_err": 1e-15})
'''

FORMULAS = {"N-thm5.2": ("extreme singular values (test)", r"\sigma_{\min} = 1 - \frac{\sqrt{\lambda_H/\lambda_W}}{\beta} \\" + "\n" + r"x^{2}")}


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    root = tmp_path_factory.mktemp("errata_suite")
    (root / "test_synthetic_errata.py").write_text(SUITE + EXTRA)
    code, checks = run_suite(fast=True, suite=root, progress=False)
    assert code == 0
    return aggregate(checks)


def _environments_balanced(tex: str) -> None:
    """Parse with pylatexenc (strict): unbalanced braces, a \\begin without its \\end or an unclosed $ raise; then
    every environment node must have a name from the known list (a typo in a name would be a pdflatex error)."""
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexWalker

    nodes, _, _ = LatexWalker(tex, tolerant_parsing=False).get_latex_nodes()

    def walk(ns):
        for n in ns or []:
            if isinstance(n, LatexEnvironmentNode):
                assert n.environmentname in {"document", "quote", "longtable", "gather*", "itemize"}, n.environmentname
            for attr in ("nodelist",):
                walk(getattr(n, attr, None))
            for arg in (getattr(n, "nodeargd", None) and n.nodeargd.argnlist) or []:
                walk(getattr(arg, "nodelist", None) if arg is not None else None)

    walk(nodes)


def test_refuted_claims_ordered_by_severity(doc):
    tex = errata_latex(doc, formulas=FORMULAS)
    n_part = tex[tex.index("Paper N:"):tex.index(r"\section{Typos}")]
    order = [m for m in re.findall(r"\\subsection\{\\texttt\{([^}]*)\}", n_part)]
    assert order == ["N-thmC.2", "N-thm5.2", "N-cor4.2"]  # error, missing hypothesis, degenerate
    assert "S-eq10" in tex[tex.index("Paper S:"):tex.index("Paper N:")]


def test_exact_numbers_quote_formula_and_checks(doc):
    tex = errata_latex(doc, formulas=FORMULAS)
    sect = tex[tex.index(r"\texttt{N-thm5.2}"):]
    sect = sect[:sect.index(r"\subsection")]
    assert "0.30000000000000004" in sect and "0.9876543210987654" in sect  # repr: every digit recorded
    assert r"sigma\_min /\allowbreak{} measured" in sect
    assert r"\sigma_{max}(\mathbf{F}_{k,\tilde{k}})=2\beta^{-1}\lambda_{H}(1-\sqrt{\lambda_{H}\lambda_{W}})" in sect
    assert r"holds for beta \textgreater{} sqrt(lH/lW)" in sect
    assert r"\begin{gather*}" in sect and r"\frac{\sqrt{\lambda_H/\lambda_W}}{\beta}" in sect
    assert r"test\_synthetic\_errata.py::\allowbreak{}test\_thm52\_corrected" in sect
    md = errata_markdown(doc, formulas=FORMULAS)
    assert "`0.30000000000000004`" in md and "`test_synthetic_errata.py::test_thm52_corrected`" in md
    assert md.index("`N-thmC.2`") < md.index("`N-thm5.2`") < md.index("`N-cor4.2`")


def test_paper_filter(doc):
    tex = errata_latex(doc, paper="S", formulas=FORMULAS)
    assert "Paper S:" in tex and "Paper N:" not in tex and "N-thmC.2" not in tex
    assert "dn(k-1)" not in tex  # the typos are all paper N's


def test_typos_numbers_are_computed():
    t = {x["where"]: x for x in typos()}
    cols = t["Sec. 5, definition of the blocks of (6)"]["why"]
    assert "columns $3..4$ of $6$" in cols and "range is $9..24$" in cols  # labels(K=3, n=2), d = 4
    size = t["App. D, proof of Theorem 5.2"]["why"]
    assert r"$8\times24$ against $2\times6$" in size


def test_latex_parses(doc):
    tex = errata_latex(doc, formulas=FORMULAS)
    _environments_balanced(tex)
    _environments_balanced(errata_latex(doc))  # with the registry's own formulas


@pytest.mark.parametrize("breakage", ["drop_end", "drop_brace", "stray_dollar"])
def test_latex_check_can_fail(doc, breakage):
    from pylatexenc.latexwalker import LatexWalkerError

    tex = errata_latex(doc, formulas=FORMULAS)
    broken = {"drop_end": tex.replace(r"\end{longtable}", "", 1),
              "drop_brace": tex.replace(r"\subsection{\texttt{N-thmC.2}", r"\subsection{\texttt{N-thmC.2", 1),
              "stray_dollar": tex.replace(r"\end{itemize}", r"$x \end{itemize}", 1)}[breakage]
    assert broken != tex
    with pytest.raises((LatexWalkerError, AssertionError)):
        _environments_balanced(broken)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (Debian: texlive-latex-base)")
def test_pdflatex_compiles(doc, tmp_path):
    (tmp_path / "errata.tex").write_text(errata_latex(doc), encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "errata.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "errata.pdf").stat().st_size > 1000


def _normalise(text: str) -> str:
    return " ".join(text.replace(r"\color[rgb]{0,0,0}", "").split())


@pytest.mark.skipif(not PAPERS_DIR.is_dir(), reason=f"the papers' text is not at {PAPERS_DIR}")
def test_quotes_are_verbatim_from_the_papers():
    texts = {"S": _normalise((PAPERS_DIR / "superposition_sparsity_loss.txt").read_text(encoding="utf-8")),
             "N": _normalise((PAPERS_DIR / "perturbation_neural_collapse.txt").read_text(encoding="utf-8"))}
    for cid, (_where, parts) in PAPER_TEXT.items():
        for _kind, s in parts:
            assert _normalise(s).rstrip(",.") in texts[cid[0]], (cid, s)
    for t in typos():
        assert _normalise(t["quote"]) in texts[t["paper"]], t["quote"]
    assert "Figure 1: The effect of $\\lambda_{H}$ on the spectrum of $\\mathbf{F}_{k,k}$" in texts["N"]


def test_cli_from_json_and_from_a_run(doc, tmp_path, monkeypatch, capsys):
    from verify.cli import main

    write_json(doc, tmp_path / "r.json")
    assert main(["errata", "--from-json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "e.md")]) == 0
    assert "4 refuted claim(s)" in capsys.readouterr().out and "## Typos" in (tmp_path / "e.md").read_text()
    assert main(["errata", "--from-json", str(tmp_path / "r.json"), "--paper", "N", "--latex", str(tmp_path / "e.tex")]) == 0
    assert "3 refuted claim(s)" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text(json.dumps({"checks": []}))
    for argv, msg in [(["--from-json", str(tmp_path / "missing.json"), "--latex", "x.tex"], "'--from-json' must be"),
                      (["--from-json", str(tmp_path / "bad.json"), "--latex", "x.tex"], "'--from-json' must be a report"),
                      (["--from-json", str(tmp_path / "r.json"), "--latex", "a.tex", "--markdown", "b.md"], "not allowed"),
                      (["--from-json", str(tmp_path / "r.json")], "required"),
                      (["--from-json", str(tmp_path / "r.json"), "--latex", str(tmp_path / "no" / "e.tex")], "existing folder")]:
        assert main(["errata", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, err
    (tmp_path / "proofs_checks").mkdir()
    (tmp_path / "proofs_checks" / "test_synthetic_errata.py").write_text(SUITE + EXTRA)
    monkeypatch.chdir(tmp_path)
    assert main(["errata", "--fast", "--no-progress", "--latex", "run.tex"]) == 0
    assert r"\texttt{N-thm5.2}" in (tmp_path / "run.tex").read_text()


def test_docstring_examples():
    import doctest

    import verify.reporters.errata as mod

    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
