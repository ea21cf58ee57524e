import pytest
import sympy

from external_tools import pdflatex
from verify.latex import formula, formulas, get_formula, parse_params, standalone_document


def test_registry_and_params():
    x = sympy.Symbol("x")

    @formula("test-power", "x to the n", n=2)
    def _power(n=2):
        return sympy.Eq(sympy.Symbol("y"), x**n)

    f = get_formula("test-power")
    assert f.latex() == "y = x^{2}"
    assert f.latex(n=5) == "y = x^{5}"
    with pytest.raises(ValueError, match="must use the parameters n"):
        f.latex(m=1)


def test_unknown_formula():
    with pytest.raises(ValueError, match="'name' must be a registered formula"):
        get_formula("no-such-formula")


def test_parse_params():
    assert parse_params(["m=5", "lam=1/2"]) == {"m": 5, "lam": sympy.Rational(1, 2)}
    with pytest.raises(ValueError, match="key=value"):
        parse_params(["m"])
    with pytest.raises(ValueError, match="'m' must be a rational number"):
        parse_params(["m=abc"])


def test_every_registered_formula_renders():
    for f in formulas().values():
        assert f.latex().strip()


def test_standalone_document_compiles(tmp_path):
    """``verify latex --out``'s document compiles (CI installs texlive: VERIFY_REQUIRE_TOOLS makes a missing pdflatex
    a failure there), with no accent artefacts of the old escaping in the descriptions."""
    text = standalone_document()
    assert r"\^{}" not in text and r"\~{}" not in text
    proc = pdflatex(text, tmp_path, "f", timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_tex_escape_uses_text_symbols():
    from verify.latex import tex_escape

    assert tex_escape("K^3 NC1~(H0)") == r"K{\textasciicircum}3 NC1{\textasciitilde}(H0)"
    assert tex_escape("a < b > c | d") == r"a {\textless} b {\textgreater} c {\textbar} d"
    assert tex_escape(r"{x}_\%") == r"{\{}x{\}}{\_}{\textbackslash}{\%}"


def test_cli_progress_and_warning(monkeypatch, capsys):
    """A derivation past its default parameter warns on stderr; one that runs longer than SPINNER_AFTER shows its
    elapsed time (here the threshold is lowered and the derivation slowed)."""
    import time

    import verify.commands.latex as L
    from verify.cli import main

    assert main(["latex", "S-eq9", "-p", "m=5", "--no-progress"]) == 0  # a cheap derivation past its default
    captured = capsys.readouterr()
    assert "S-eq9 with m = 5 (default 3)" in captured.err and captured.err.count("\n") == 1
    assert captured.out.strip()
    monkeypatch.setattr(L, "SPINNER_AFTER", 0.05)
    with L.elapsed("deriving X"):
        time.sleep(1.3)
    assert "deriving X" in capsys.readouterr().err
    with L.elapsed("deriving Y", enabled=False):
        time.sleep(0.2)
    assert capsys.readouterr().err == ""


def test_readable_forms_equal_the_derivation():
    """Every exported formula, in its readable form, equals the raw derivation at random real points (30 digits;
    an independent route from the exact square-rational comparison that chose the form)."""
    import random


    from verify.latex import _scalar, readable

    rng = random.Random(7)
    checked = 0
    for f in formulas().values():
        value = f.expr()
        for item in value if isinstance(value, (list, tuple)) else [value]:
            raw = item.rhs if isinstance(item, sympy.Equality) else item
            if isinstance(item, str) or not _scalar(raw):
                continue
            nice = readable(item)
            nice = nice.rhs if isinstance(nice, sympy.Equality) else nice
            for _ in range(2):
                vals = {x: sympy.Float(rng.uniform(0.1, 3.0), 30) for x in raw.free_symbols | nice.free_symbols}
                a, b = sympy.N(raw.xreplace(vals), 30), sympy.N(nice.xreplace(vals), 30)
                assert abs(a - b) <= 1e-20 * max(1, abs(b)), (f.name, raw, nice)  # 30 digits, 10 for round-off
            checked += 1
    assert checked >= 30


def test_paper_forms_of_theorem_5_2():
    """Roots merged as the paper writes them: sqrt(lH lW) and sqrt(lH/lW), not sqrt(lH) sqrt(lW)."""
    text = get_formula("N-thm5.2").latex()
    assert r"\frac{4 \lambda_{H}^{2} \left(1 - \sqrt{\lambda_{H} \lambda_{W}}\right)^{2}}{\beta^{2}}" in text
    assert r"1 - \frac{\sqrt{\frac{\lambda_{H}}{\lambda_{W}}}}{\beta}" in text
    assert r"\sqrt{\lambda_{H}} \sqrt{\lambda_{W}}" not in text
    assert get_formula("N-D-sigmas").latex().splitlines()[-1].endswith(r"= 1 - \sqrt{\lambda_{H} \lambda_{W}}")


def _muls(e):
    return [m for m in sympy.preorder_traversal(e) if isinstance(m, sympy.Mul)]


def test_merged_roots_equal_the_product():
    """merge_roots only regroups: re-evaluated, the merged product is the original one, for every product with two
    or more roots in the registry's formulas; symbols that may be negative are never merged
    (sqrt(-1) sqrt(-1) = -1, sqrt(1) = 1)."""
    from verify.latex import merge_roots, to_latex

    merged = 0
    for f in formulas().values():
        for item in f.items():
            if isinstance(item, str):
                continue
            for m in _muls(item.rhs if isinstance(item, sympy.Equality) else item):
                if getattr(m, "is_commutative", False) is not True:
                    continue
                out = merge_roots(m)
                if out is not None:
                    assert out.doit() == m, (f.name, m)
                    merged += 1
    assert merged >= 5
    x, y = sympy.symbols("x y")
    assert merge_roots(sympy.sqrt(x) * sympy.sqrt(y)) is None
    assert to_latex(sympy.sqrt(x) * sympy.sqrt(y)) == r"\sqrt{x} \sqrt{y}"
    a, b, c = sympy.symbols("a b c", positive=True)
    assert to_latex(sympy.sqrt(a) / (sympy.sqrt(b) * sympy.sqrt(c))) == r"\sqrt{\frac{a}{b c}}"
    assert to_latex(1 / (sympy.sqrt(b) * sympy.sqrt(c))) == r"\frac{1}{\sqrt{b c}}"


def test_matrix_terms_signed_as_in_the_paper():
    """Lemma A.1: the decay term prints '- 2 lambda_H Sigma_B', never '+ - 2 ...'; a matrix sum keeps its terms."""
    from verify.latex import to_latex

    text = get_formula("N-lemA.1").latex()
    assert "+ -" not in text and "+ - " not in text
    assert text.count(r"- 2 \lambda_{H}") == 3
    A, B = sympy.MatrixSymbol("A", 2, 2), sympy.MatrixSymbol("B", 2, 2)
    lam = sympy.Symbol("lambda", positive=True)
    assert to_latex(A - 2 * lam * B) == r"A - 2 \lambda B"
    assert to_latex(-2 * lam * B + A) == r"A - 2 \lambda B"
    assert to_latex(-A - B) in ("- A - B", "- B - A")  # a leading minus, then a minus: never "+ -"


def test_spectra_sorted_descending():
    """The eigenvalue lines of Theorem 5.2 in descending order at the papers' regime (beta = 100, the rest 1/4),
    the same lines as derived (a permutation, nothing lost)."""
    from verify.latex import readable, sort_spectrum

    raw = get_formula("N-thm5.2").expr()
    shown = get_formula("N-thm5.2").items()
    assert sorted(map(str, shown)) == sorted(str(readable(x)) for x in raw)
    lam = [x for x in shown if "lambda_" in sympy.latex(x.lhs)]
    point = lambda e: float(e.xreplace({s: sympy.Integer(100) if s.name == "beta" else sympy.Rational(1, 4)
                                        for s in e.free_symbols}))
    values = [point(x.rhs) for x in lam]
    assert len(values) >= 4 and values == sorted(values, reverse=True) and values[0] == 1
    mixed = [sympy.Symbol("z"), *reversed(lam)]
    assert sort_spectrum(mixed)[0] == sympy.Symbol("z") and sort_spectrum(mixed)[1:] == lam  # other lines stay


def _explicit(e, size=2, seed=3):
    """A matrix expression evaluated with random rational matrices (by name) and rational scalars: exact."""
    import random

    rng = random.Random(seed)
    e = e.xreplace({s: sympy.Integer(size) for s in e.free_symbols if s.name == "d"})
    vals = {}
    for m in sorted(e.atoms(sympy.MatrixSymbol), key=lambda m: m.name):
        vals[m] = sympy.ImmutableMatrix(size, size, lambda i, j: sympy.Rational(rng.randint(-9, 9), rng.randint(1, 5)))
    for s in sorted(e.free_symbols - set(vals), key=str):
        vals[s] = sympy.Rational(rng.randint(1, 9), rng.randint(1, 5))
    return sympy.Matrix(e.xreplace(vals).doit())


def test_lemma_a1_in_the_papers_notation():
    """Lemma A.1 prints with C_B, C~_B, C_W as the paper defines them; putting the products back gives the derivation
    (explicit rational 2x2 matrices, exact), and the inverse appears only in the three definitions."""
    from verify.latex import lemma_a1_notation, readable

    f = get_formula("N-lemA.1")
    raw = [readable(x) for x in f.expr()]
    items, defs = lemma_a1_notation(raw)
    assert len(defs) == 3 and len(items) == len(raw) + 3
    text = f.latex()
    assert r"\mathbf{C}_{B} \left(\mathbb{I} - \tilde{\mathbf{C}}_{B}\right)" in text
    assert r"\left(\mathbb{I} - \tilde{\mathbf{C}}_{B}^{T}\right) \mathbf{C}_{B}^{T}" in text
    lines = text.split(" \\\\\n")
    assert all("^{-1}" not in line for line in lines[:3]) and all("^{-1}" in line for line in lines[3:])
    back = {C: prod for C, prod in defs.items()}
    back.update({sympy.Transpose(C): sympy.Transpose(prod) for C, prod in defs.items()})
    for orig, short in zip(raw, items):
        restored = short.rhs.xreplace(back)
        for seed in (1, 2):
            assert _explicit(restored - orig.rhs, seed=seed) == sympy.zeros(2, 2)
    # the check can fail: a wrong definition does not restore the derivation
    wrong = {C: sympy.MatMul(prod.args[0], prod.args[0]) for C, prod in defs.items()}
    restored = items[0].rhs.xreplace(wrong)
    assert _explicit(restored - raw[0].rhs, seed=1) != sympy.zeros(2, 2)
