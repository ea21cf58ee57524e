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
