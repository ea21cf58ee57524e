"""The errata (verify.reporters.errata, ``verify errata``): content, short counterexamples, corrected statements
typeset from sympy objects (and equal to the registry's derivations), LaTeX well-formed at the parser level and
compiled by pdflatex, escaping (a hypothesis property), the quotes against the papers' text."""

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from external_tools import pdflatex
from verify.check_ids import check_nodeid
from verify.claims import PAPERS
from verify.latex import get_formula, tex_escape
from verify.report import write_json
from verify.reporters.errata import PAPER_TEXT, corrected_latex, corrected_parts, errata_latex, errata_markdown, typos

PAPERS_DIR = Path(__file__).resolve().parents[2] / "shared" / "papers"
PROOFS = Path(__file__).resolve().parents[1] / "proofs_checks"

#: checks added to the synthetic suite (tests/conftest.py): a counterexample with long floats, nested, and a matrix, as the real Theorem 5.2 check records them
EXTRA = '''

@pytest.mark.claim("N-thm5.2")
def test_thm52_refuted(verdict):
    verdict.refuted(counterexample={"lam_W": 0.1, "lam_H": 0.30000000000000004, "sigma_min": {"measured": 0.9876543210987654,
                    "claimed": "1 - sqrt(3)/100"}, "F": [[0.123456789, 1.0, 2.0], [3.0, 4.0, 5.0]],
                    "rows": {f"beta={b}": {"holds": b > 2, "gap": 1 / b} for b in range(1, 30)}},
                    severity="missing-hypothesis", corrected="holds for beta > sqrt(lH/lW)",
                    justification={"hypothesis": "beta > sqrt(lH/lW) (the proof's large-beta regime)",
                                   "repair": "test_thm52_corrected"})

@pytest.mark.claim("N-thm5.2", corrected=True)
def test_thm52_corrected(verdict):
    verdict.verified(evidence={"max_err": 1e-15})
'''

FORMULAS = {"N-thm5.2": ("extreme singular values (test)", r"\sigma_{\min} = 1 - \frac{\sqrt{\lambda_H/\lambda_W}}{\beta} \\" + "\n" + r"x^{2}")}


@pytest.fixture(scope="module")
def doc(synthetic_report):
    return synthetic_report("synthetic_errata", EXTRA)


def _environments_balanced(tex: str) -> None:
    """Parse with pylatexenc (strict): unbalanced braces, a \\begin without its \\end or an unclosed $ raise; then
    every environment node must have a name from the known list (a typo in a name would be a pdflatex error)."""
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexWalker

    nodes, _, _ = LatexWalker(tex, tolerant_parsing=False).get_latex_nodes()

    def walk(ns):
        for n in ns or []:
            if isinstance(n, LatexEnvironmentNode):
                assert n.environmentname in {"document", "quote", "longtable", "itemize", "center", "tabular", "equation", "gathered", "pmatrix"}, n.environmentname
            for attr in ("nodelist",):
                walk(getattr(n, attr, None))
            for arg in (getattr(n, "nodeargd", None) and n.nodeargd.argnlist) or []:
                walk(getattr(arg, "nodelist", None) if arg is not None else None)

    walk(nodes)


def _section(tex: str, cid: str) -> str:
    """The section of the refutation of ``cid`` (its heading names the paper's location)."""
    from verify.erratum_texts import PAPER_TEXT

    where = PAPER_TEXT[cid][0] if cid in PAPER_TEXT else next(r["where"] for r in _SYN_ROWS if r["id"] == cid)
    sect = tex[tex.index(r"\section{" + tex_escape(where)):]
    return sect[:min(i for i in (sect.find(r"\section", 10), len(sect)) if i > 0)]


_SYN_ROWS: list = []


def test_refuted_claims_ordered_by_severity(doc):
    _SYN_ROWS[:] = doc["claims"]
    tex = errata_latex(doc, paper="N", formulas=FORMULAS)
    heads = re.findall(r"\\section\{([^}]*): (error|missing hypothesis|degenerate case)\}", tex)
    assert [h[1] for h in heads] == ["error", "missing hypothesis", "degenerate case"]
    where = next(r["where"] for r in doc["claims"] if r["id"] == "S-eq10")
    assert r"\section{" + tex_escape(where) in errata_latex(doc, paper="S", formulas=FORMULAS)


def test_synthetic_record_without_a_reader_shows_its_numbers(doc):
    """A record the claim's reader does not recognise (the synthetic suite's) is shown as a table of its numbers:
    floats to 4 significant digits, a matrix typeset, a long sweep in the appendix; no record text, no node id."""
    _SYN_ROWS[:] = doc["claims"]
    tex = errata_latex(doc, paper="N", formulas=FORMULAS)
    sect = _section(tex, "N-thm5.2")
    assert "0.9877" in sect and "0.9876543210987654" not in sect and "0.30000000000000004" not in sect
    assert r"\begin{pmatrix}0.1235 & 1 & 2 \\ 3 & 4 & 5\end{pmatrix}" in sect  # F, typeset
    assert "Appendix~\\ref{" in sect and r"\appendix" in tex  # the 29-row sweep
    assert "::test_" not in tex and "JSON" not in tex
    assert "1 check of the corrected statement" in sect or "One check of the corrected statement passes." in sect
    md = errata_markdown(doc, paper="N", formulas=FORMULAS)
    assert "::test_" not in md and "JSON" not in md and "## Appendix" in md


def test_paper_filter_and_empty_typos(doc):
    tex = errata_latex(doc, paper="S", formulas=FORMULAS)
    assert PAPERS["S"] in tex and PAPERS["N"] not in tex and "Theorem C.2" not in tex
    assert "dn(k-1)" not in tex  # the typos are all paper N's
    assert "\\section*{Typos}\n\nNone found." in tex and r"\begin{itemize}" not in tex  # no empty list
    assert "## Typos\n\nNone found." in errata_markdown(doc, paper="S", formulas=FORMULAS)
    both = errata_latex(doc, formulas=FORMULAS)
    assert both.count("Dear authors,") == 2 and both.count(r"\clearpage") == 1  # a letter per paper


def test_typos_numbers_are_computed():
    t = {x["where"]: x for x in typos()}
    cols = t["Sec. 5, definition of the blocks of (6)"]["why"]
    assert "columns $3$ to $4$ of $6$" in cols and "range is $9$ to $24$" in cols  # labels(K=3, n=2), d = 4
    size = t["App. D, proof of Theorem 5.2"]["why"]
    assert r"$8\times24$ against $2\times6$" in size


# --------------------------------------------------------------------------- the real refutations
#: the checks that refute the papers' claims (their records are what the errata read)
REFUTING = [check_nodeid(name) for name in (
    "test_thm32_fails_for_noncentred_nu", "test_thmC1_as_stated_singular_schur_complement", "test_thm51_as_stated",
    "test_thmC2_both_statements_refuted", "test_thm52_as_stated", "test_thm41_counterexample_equal_class_means",
    "test_cor42_counterexample_equal_class_means")]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """The report document of the checks that refute the papers' claims, run here (about 15 s)."""
    import sys

    from verify.report import aggregate

    out = tmp_path_factory.mktemp("real") / "checks.json"
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:randomly",
                           *REFUTING, "--verify-json", str(out)], cwd=root, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stdout[-3000:]
    return aggregate(json.loads(out.read_text())["checks"])


def _text_outside_math(tex: str) -> str:
    for pat in (r"\\begin\{(equation|gathered|pmatrix)\}.*?\\end\{\1\}", r"\\\[.*?\\\]", r"\$\$.*?\$\$", r"\$[^$]*\$"):
        tex = re.sub(pat, " ", tex, flags=re.S)
    return tex


#: ASCII pseudo-mathematics, the record's words, node ids and cuts: none may reach a letter to the authors
PSEUDO = [r"<=", r">=", r"\bkron\b", r"lam_", r"Ltilde", r"\bsqrt\(", r"NC1~", r"\.\.\.", "…", r"::test_", r"\bJSON\b",
          r"\bHess\b", r"!=", r"\btest_\w+", r"compute=", r"\{\\textless\}", r"\{\\textgreater\}", r"\{\\_\}"]


@pytest.mark.parametrize("paper", ["S", "N"])
def test_real_errata_read_as_mathematics(real, paper):
    """The letters to the authors of the real refutations: no ASCII pseudo-mathematics anywhere, no subscript or
    superscript outside math, no node id, no "JSON", nothing cut; every refuted claim of the paper has a section
    whose counterexample was read (not the fallback table) and states an inequality with numbers."""
    from verify.erratum_texts import PAPER_TEXT, counterexample

    rows = [r for r in real["claims"] if r["paper"] == paper and r["verdict"] == "refuted"]
    assert rows
    for tex in (errata_latex(real, paper=paper), errata_markdown(real, paper=paper)):
        for pat in PSEUDO:
            assert not re.search(pat, tex), (pat, re.search(pat, tex) and tex[re.search(pat, tex).start() - 80:][:160])
        text = _text_outside_math(tex)
        for pat in (r"_\{", r"\^\{", r"\\frac", r"\\lambda", r"\\mathbf"):
            assert not re.search(pat, text), (pat, text[re.search(pat, text).start() - 80:][:160])
    tex = errata_latex(real, paper=paper)
    for r in rows:
        assert counterexample(r["id"], r["evidence"]["counterexample"]) is not None, r["id"]  # the reader fits the record
        sect = _section(tex, r["id"])
        cx = sect[sect.index(r"\textbf{Counterexample.}"):sect.index(r"\textbf{Why it fails.}")]
        maths = re.findall(r"\$([^$]*)\$|\\\[(.*?)\\\]", cx, flags=re.S)
        ineq = [a + b for a, b in maths if re.search(r"\d", a + b) and re.search(r"[<>]|\\neq|\\not>|\\geq|\\leq", a + b)]
        assert ineq, (r["id"], cx[:400])
        assert PAPER_TEXT[r["id"]][1][0][1][:30] in sect  # the paper's own words


def test_real_errata_content(real):
    """The numbers a reader needs, from the records: S-thm3.2's 51/4 > 10 = C_3 d at K = 2, d = 1, m = 1, n = 48
    and its table in numeric order; N-thm4.1-nc1's H_0 typeset; the formula the three degenerate cases share printed
    once and referenced twice; each letter with its own counts."""
    s = errata_latex(real, paper="S")
    assert r"\tfrac{51}{4} = 12.75 > 10 = C_{3}\,d" in s and "$K = 2$, $d = 1$, $m = 1$, $n = 48$" in s
    table = s[s.index(r"\toprule"):s.index(r"\bottomrule")]
    assert [int(n) for n in re.findall(r"^\$\d+\$ & \$(\d+)\$", table, flags=re.M)] == [4, 12, 48, 4, 12, 48]
    assert "Of the 32 claims we list, 1 refuted and 31 not checked." in s  # paper S's counts only
    n = errata_latex(real, paper="N")
    assert r"\mathbf{H}_{0} = \begin{pmatrix}1 & 0.3 & 0.3 & 1 \\" in n
    assert n.count(r"\frac{dT_W}{dt}") == 1 and n.count("applies here too") == 2
    assert "Of the 39 claims we list, 7 refuted and 32 not checked." in n and "Theorem 3.2" not in n
    assert r"2.475 > 0.275 = \frac{11\lambda_{H}}{Kn}" in n  # Theorem C.2: measured against the stated constant


def test_reader_rejects_a_changed_record(real):
    """A record whose numbers no longer make a counterexample is not dressed up as one: the reader returns None and
    the letter shows the record's numbers instead (the S-thm3.2 values halved fall below C_3 d)."""
    from verify.erratum_texts import counterexample

    row = next(r for r in real["claims"] if r["id"] == "S-thm3.2")
    cx = dict(row["evidence"]["counterexample"])
    assert counterexample("S-thm3.2", cx) is not None
    cx["sup_t_Ltilde"] = {k: "1/2" for k in cx["sup_t_Ltilde"]}
    assert counterexample("S-thm3.2", cx) is None


@pytest.mark.parametrize("paper", ["S", "N"])
def test_real_errata_compile(real, tmp_path, paper):
    proc = pdflatex(errata_latex(real, paper=paper), tmp_path, f"errata{paper}")
    assert proc.returncode == 0, proc.stdout[-3000:]


# --------------------------------------------------------------------------- corrected statements
def test_corrected_fingerprints_are_the_checks_statements():
    """A typeset corrected statement is used only when the recorded text starts with its fingerprint; each
    fingerprint is in the source of the claim's check, so the typeset form and the check say the same thing."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(PROOFS.rglob("test_*.py")))
    for cid, (fp, parts) in corrected_parts().items():
        assert f'corrected="{fp}' in source, (cid, fp)
        tex, typeset = corrected_latex({"id": cid, "evidence": {"corrected": fp + " and the rest"}})
        assert typeset and "$" in tex
        for ascii_math in (">=", "<=", "sqrt(", "lam_", "lH", "!=", "^{-1}-Lipschitz"):
            assert ascii_math not in tex, (cid, ascii_math)
    tex, typeset = corrected_latex({"id": "N-thm5.2", "evidence": {"corrected": "another statement, x_1 ^ 2"}})
    assert not typeset and tex == r"another statement, x{\_}1 {\textasciicircum} 2"


def _by_name(expr, names):
    return expr.xreplace({s: names[s.name] for s in expr.free_symbols if s.name in names})


def test_corrected_relations_equal_the_registry():
    """The typeset corrections against the registry's derivations (sympy, exact): Theorem 5.2's sigma_min is the
    smallest |eigenvalue| of the derived spectrum of F_kk and sigma_max = 1 at random rational points of the
    corrected regime (lambda_H lambda_W < 1, beta > sqrt(lambda_H/lambda_W)), the off-diagonal sigma_max squared is
    the derived sigma^2; Theorem 3.2's bound is d C_3 of the registry."""
    from verify.reporters.errata import _NAMES

    parts = corrected_parts()
    by_tex = {_NAMES[p[1].lhs]: p[1].rhs for _fp, ps in parts.values() for p in ps
              if isinstance(p, tuple) and isinstance(p[1], sympy.Equality) and p[1].lhs in _NAMES}
    smin, smax_off = by_tex[r"\sigma_{\min}(\mathbf{F}_{k,k})"], by_tex[r"\sigma_{\max}(\mathbf{F}_{k,\tilde{k}})"]
    spectrum = [e.rhs for e in get_formula("N-thm5.2").expr() if "lambda_" in sympy.latex(e.lhs)]
    sigma2 = [e.rhs for e in get_formula("N-thm5.2").expr() if "sigma^2" in str(e.lhs) and e.rhs != 0]
    assert len(spectrum) >= 4 and len(sigma2) == 1
    rng = random.Random(5)
    for _ in range(12):
        lh, lw = (sympy.Rational(rng.randint(1, 40), rng.randint(1, 40)) ** 2 for _ in range(2))
        if lh * lw >= 1:
            continue
        r = sympy.sqrt(lh / lw)
        beta = r * (1 + sympy.Rational(rng.randint(1, 50), 10))  # beta > r, down to 1.1 r
        vals = {"lambda_H": lh, "lambda_W": lw, "beta": beta}
        eig = [abs(_by_name(e, vals)) for e in spectrum]
        assert sympy.nsimplify(min(eig) - _by_name(smin, vals)) == 0 and max(eig) == 1
        assert sympy.expand(_by_name(smax_off, vals) ** 2 - _by_name(sigma2[0], vals)) == 0
    c3 = [p[1] for p in parts["S-thm3.2"][1] if isinstance(p, tuple)][0].rhs
    registry = get_formula("S-thm3.2-C3").expr()[1].rhs
    names = {s.name: s for s in registry.free_symbols}
    assert sympy.expand(_by_name(c3, names) - registry) == 0


def test_corrected_perturbation_theorems_agree_with_the_sharp_thm_c2():
    """The corrected Theorems C.1 and 5.1 (missing hypotheses) are typeset, and their regimes are the sharp constant
    of the corrected Theorem C.2: C.1's threshold is its first branch, 5.1's bound its maximum; at a collapsed H0 the
    error of (5), x^2/(1 + x) with x = sqrt(lambda_H/lambda_W)/beta, is at most the general bound |M|^2/(beta(beta -
    |M|)) with |M| = sqrt(lambda_H/lambda_W), on both sides of x = 1/2 (exact rationals: lambda_W = lambda_H r^2)."""
    from verify.reporters.errata import _NAMES

    parts = corrected_parts()
    rels = {cid: [p[1] if isinstance(p, tuple) else p for p in ps if not isinstance(p, str)]
            for cid, (_fp, ps) in parts.items()}
    named = lambda cid, tex, kind=sympy.Eq: [r for r in rels[cid] if isinstance(r, kind) and _NAMES.get(r.lhs) == tex]
    (c2,) = [r.rhs for r in rels["N-thmC.2"] if isinstance(r, sympy.Eq) and isinstance(r.rhs, sympy.Max)]
    c1_beta = [r.rhs for r in rels["N-thmC.1"] if isinstance(r, sympy.Gt) and r.lhs.name == "beta"]
    assert c1_beta and all(sympy.simplify(b - c2.args[0]) == 0 or sympy.simplify(b - c2.args[1]) == 0 for b in c1_beta)
    assert min(c2.args, key=lambda a: a.subs({s: 1 for s in a.free_symbols}))  # two branches
    assert {sympy.srepr(r.rhs) for r in rels["N-thm5.1"] if isinstance(r, sympy.Gt) and isinstance(r.rhs, sympy.Max)} \
        == {sympy.srepr(c2)}
    (m_op,) = named("N-thm5.1", r"\|\mathbf{M}\|_{\mathrm{op}}")
    (bound,) = [r.rhs for r in rels["N-thm5.1"] if isinstance(r, sympy.Le)]
    (collapsed,) = [r.rhs for r in named("N-thm5.1", r"\|\mathbf{E}\|_{\mathrm{op}}") if not r.rhs.atoms(sympy.Function)]
    (x_def,) = [r for r in rels["N-thm5.1"] if isinstance(r, sympy.Eq) and getattr(r.lhs, "name", "") == "x"]
    syms = {s.name: s for s in bound.free_symbols | m_op.rhs.free_symbols}
    rng = random.Random(3)
    for x in [sympy.Rational(k, 20) for k in (1, 5, 10, 15, 19)]:  # 0 < x < 1: beta > |M|
        lh, r = sympy.Rational(rng.randint(1, 30), 7), sympy.Rational(rng.randint(1, 30), 11)
        vals = {syms["lambda_H"]: lh, syms["lambda_W"]: lh * r**2, syms["beta"]: 1 / (r * x)}
        m = m_op.rhs.subs(vals)
        assert m == 1 / r and x_def.rhs.subs(vals) == x
        value = collapsed.subs(x_def.lhs, x)
        assert 0 < value <= bound.subs(m_op.lhs, m).subs(vals)
    for cid in ("N-thmC.1", "N-thm5.1"):
        tex, typeset = corrected_latex({"id": cid, "evidence": {"corrected": parts[cid][0] + " (as recorded)"}})
        assert typeset and r"O\left(\|\delta\mathbf{H}_{0}\|^{2}\right)" in tex and "Hess" not in tex


def test_corrected_statement_typeset_in_the_errata(doc):
    row = next(r for r in doc["claims"] if r["id"] == "N-thmC.2")
    fp = corrected_parts()["N-thmC.2"][0]
    row = {**row, "evidence": {**row["evidence"], "corrected": fp + ", and so on"}}
    tex = errata_latex({**doc, "claims": [row]}, formulas={})
    sect = _section(tex, "N-thmC.2")
    assert r"\frac{\frac{10}{\lambda_{W}} + \lambda_{H}}{K n}" in sect and "10/lam_W" not in sect
    md = errata_markdown({**doc, "claims": [row]}, formulas={})
    assert re.search(r"\$\$ ?K n \\operatorname\{Lip\}\(\\nabla\\mathcal\{L\}\) = \\max\\left\(", md)


# --------------------------------------------------------------------------- LaTeX well-formed, compiled
def test_latex_parses(doc):
    _environments_balanced(errata_latex(doc, formulas=FORMULAS))
    _environments_balanced(errata_latex(doc))  # with the registry's own formulas


@pytest.mark.parametrize("breakage", ["drop_end", "drop_brace", "stray_dollar"])
def test_latex_check_can_fail(doc, breakage):
    from pylatexenc.latexwalker import LatexWalkerError

    tex = errata_latex(doc, formulas=FORMULAS)
    broken = {"drop_end": tex.replace(r"\end{quote}", "", 1),
              "drop_brace": tex.replace(r"\section{Theorem C.2 and its proof: error}", r"\section{Theorem C.2 and its proof: error", 1),
              "stray_dollar": tex.replace(r"\end{itemize}", r"$x \end{itemize}", 1)}[breakage]
    assert broken != tex
    with pytest.raises((LatexWalkerError, AssertionError)):
        _environments_balanced(broken)


@pytest.mark.parametrize("paper", [None, "S", "N"])
def test_pdflatex_compiles(doc, tmp_path, paper):
    """Both papers' errata and each alone (paper S has no typos: the empty-list case that stopped pdflatex)."""
    proc = pdflatex(errata_latex(doc, paper=paper), tmp_path, "errata")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "errata.pdf").stat().st_size > 1000


def test_pdflatex_compiles_the_typeset_corrections(doc, tmp_path):
    rows = []
    for cid, (fp, _parts) in corrected_parts().items():
        rows.append({"id": cid, "paper": cid[0], "where": "w", "kind": "sym", "statement": "s", "verdict": "refuted",
                     "severity": "error", "evidence": {"corrected": fp}, "checks": []})
    proc = pdflatex(errata_latex({**doc, "claims": rows}, formulas={}), tmp_path, "corrected")
    assert proc.returncode == 0, proc.stdout[-3000:]


#: characters of the evidence strings the checks record (ASCII) and the non-ASCII ones the package writes
_ALPHABET = st.sampled_from([chr(c) for c in range(32, 127)] + list("λμσβ≤≥≠√×·→∞−–—éü…±∑∈"))
_STRINGS = st.lists(st.text(_ALPHABET, min_size=0, max_size=40), min_size=1, max_size=25)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(_STRINGS)
def test_escaping_survives_any_evidence_string(strings):
    """Every escaped string parses as balanced text (no stray $, {, }, \\), and holds no accent artefacts; so does
    the string as a field name (:func:`~verify.reporters._common.label_latex`)."""
    from pylatexenc.latexwalker import LatexWalker

    from verify.reporters._common import label_latex

    for s in strings:
        tex = tex_escape(s)
        LatexWalker(tex, tolerant_parsing=False).get_latex_nodes()
        assert r"\^{}" not in tex and r"\~{}" not in tex and "$" not in tex.replace(r"{\$}", "")
        label = label_latex(s)  # the string as a field name: text escaped, symbols in balanced $...$
        LatexWalker(label, tolerant_parsing=False).get_latex_nodes()
        assert label.replace(r"{\$}", "").count("$") % 2 == 0 and r"\^{}" not in label


@settings(max_examples=4, deadline=None, derandomize=True)
@given(_STRINGS)
def test_escaped_evidence_strings_compile(strings):
    """pdflatex compiles any evidence string of the alphabet, escaped, in a counterexample table (as a value, a field
    name and a group's name) and in text (one compile per example: 4 examples of up to 25 strings)."""
    row = {"id": "N-thm5.2", "paper": "N", "where": " ".join(strings[:2]), "kind": "sym", "statement": "s",
           "verdict": "refuted", "severity": "error", "checks": [],
           "justification": {"instance": {"x": strings[0]}, "ratio": 2.0},
           # the strings as values, as field names and as a nested record's name and fields
           "evidence": {"counterexample": {**{f"k{i}": s for i, s in enumerate(strings[:6])},
                                           **{s: i for i, s in enumerate(strings[6:11])},
                                           strings[-1] + " ": {s: s for s in strings[:4]}},
                        "corrected": " ".join(strings)}}
    doc = {"claims": [row], "beyond": [], "summary": {}, "severity": {}, "headline": strings[-1]}
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        proc = pdflatex(errata_latex(doc, formulas={}), Path(tmp), "prop")
    assert proc.returncode == 0, (strings, proc.stdout[-2000:])


# --------------------------------------------------------------------------- the papers' text
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


# --------------------------------------------------------------------------- the command
def test_cli_from_json_and_from_a_run(doc, tmp_path, monkeypatch, capsys, synthetic_suite):
    from verify.cli import main

    write_json(doc, tmp_path / "r.json")
    assert main(["errata", "--from-json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "e.md")]) == 0
    out = capsys.readouterr().out   # one letter per paper, each with its own counts
    assert "1 refuted claim(s) of paper S" in out and "3 refuted claim(s) of paper N" in out
    s_text, n_text = (tmp_path / "e-S.md").read_text(), (tmp_path / "e-N.md").read_text()
    assert "## Typos" in s_text and "## Typos" in n_text and not (tmp_path / "e.md").exists()
    from verify.docs_pages import TITLES
    assert TITLES["S"] in s_text and TITLES["N"] not in s_text and TITLES["N"] in n_text and TITLES["S"] not in n_text
    assert main(["errata", "--from-json", str(tmp_path / "r.json"), "--paper", "N", "--latex", str(tmp_path / "e.tex")]) == 0
    assert "3 refuted claim(s) of paper N" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text(json.dumps({"checks": []}))
    (tmp_path / "rows.json").write_text(json.dumps({"claims": [{"id": "S-eq9"}]}))
    for argv, msg in [(["--from-json", str(tmp_path / "missing.json"), "--latex", "x.tex"], "'--from-json' must be"),
                      (["--from-json", str(tmp_path / "bad.json"), "--latex", "x.tex"], "'--from-json' must be a report"),
                      (["--from-json", str(tmp_path / "rows.json"), "--latex", "x.tex"], "'--from-json' must be a report"),
                      (["--from-json", str(tmp_path / "r.json"), "--latex", "a.tex", "--markdown", "b.md"], "not allowed"),
                      (["--from-json", str(tmp_path / "r.json")], "required"),
                      (["--latex", "x.tex"], "one of the arguments --from-json --run is required"),
                      (["--from-json", str(tmp_path / "r.json"), "--run", "--latex", "x.tex"], "not allowed"),
                      (["--from-json", str(tmp_path / "r.json"), "--fast", "--latex", "x.tex"], "only apply with --run"),
                      (["--from-json", str(tmp_path / "r.json"), "--latex", str(tmp_path)], "not the folder"),
                      (["--from-json", str(tmp_path / "r.json"), "--latex", str(tmp_path / "no" / "e.tex")], "existing folder")]:
        assert main(["errata", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, err
    synthetic_suite("synthetic_errata", EXTRA, tmp_path / "proofs_checks")
    monkeypatch.chdir(tmp_path)
    assert main(["errata", "--run", "--fast", "--no-progress", "--latex", "run.tex"]) == 0
    assert "errata: running the theorem suite (default tier)" in capsys.readouterr().err
    assert r"\section{Theorem 5.2: missing hypothesis}" in (tmp_path / "run-N.tex").read_text()


def test_cli_bad_output_fails_before_any_run(tmp_path, monkeypatch, capsys):
    """A bad output path fails before the suite runs (run_suite is replaced by a function that fails the test)."""
    import verify.report as R
    from verify.cli import main

    monkeypatch.setattr(R, "run_suite", lambda *a, **k: pytest.fail("the suite ran before the path was checked"))
    assert main(["errata", "--run", "--latex", str(tmp_path / "missing" / "e.tex")]) == 2
    assert "'--latex' must be a file in an existing folder" in capsys.readouterr().err

