import shutil
import subprocess

import pytest
import sympy

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


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_standalone_document_compiles(tmp_path):
    (tmp_path / "f.tex").write_text(standalone_document())
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "f.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_readable_forms_equal_the_derivation():
    """Every exported formula, in its readable form, equals the raw derivation at random real points (30 digits;
    an independent route from the exact square-rational comparison that chose the form)."""
    import random

    import mpmath

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
    text = get_formula("N-thm5.2").latex()
    assert r"\frac{4 \lambda_{H}^{2} \left(1 - \sqrt{\lambda_{H}} \sqrt{\lambda_{W}}\right)^{2}}{\beta^{2}}" in text
    assert r"1 - \frac{\sqrt{\lambda_{H}}}{\beta \sqrt{\lambda_{W}}}" in text
    assert get_formula("N-D-sigmas").latex().splitlines()[-1].endswith(r"= 1 - \sqrt{\lambda_{H}} \sqrt{\lambda_{W}}")
