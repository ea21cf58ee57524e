"""Registry of derived formulas and their LaTeX export.

Symbolic modules register the formulas they derive::

    from verify.latex import formula

    @formula("S-eq9", "Ltilde for diagonal A (eq. 9)", m=3)
    def eq9(m=3):
        return sympy.Eq(lhs, rhs)

The function returns a sympy expression, an ``Eq``, or a list of them; keyword parameters (with
defaults) can be set from the CLI: ``verify latex S-eq9 -p m=5``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

import sympy
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter

from ._validate import VerifyInputError

#: modules whose import registers formulas (one per paper topic)
FORMULA_MODULES = (
    "verify.symbolic.superposition_loss",
    "verify.symbolic.upper_bounds",
    "verify.symbolic.frames",
    "verify.symbolic.lower_bound",
    "verify.symbolic.central_path",
    "verify.symbolic.perturbation",
)


@dataclass
class Formula:
    name: str
    description: str
    func: Callable[..., Any]
    params: dict = field(default_factory=dict)

    def expr(self, **params) -> Any:
        unknown = set(params) - set(self.params)
        if unknown:
            allowed = ", ".join(sorted(self.params)) or "none"
            raise VerifyInputError(
                f"Argument 'params' of formula {self.name!r} must use the parameters {allowed}, not {sorted(unknown)}."
            )
        return self.func(**{**self.params, **params})

    def latex(self, **params) -> str:
        """LaTeX of the formula in readable form (:func:`readable`), each item checked equal to the derivation."""
        value = self.expr(**params)
        items = value if isinstance(value, (list, tuple)) else [value]
        return " \\\\\n".join(item if isinstance(item, str) else to_latex(readable(item)) for item in items)

    def raw_latex(self, **params) -> str:
        """LaTeX of the derivation exactly as sympy returns it."""
        value = self.expr(**params)
        items = value if isinstance(value, (list, tuple)) else [value]
        return " \\\\\n".join(item if isinstance(item, str) else sympy.latex(item) for item in items)


# --------------------------------------------------------------------------- readable forms
def _scalar(e: Any) -> bool:
    return (isinstance(e, sympy.Expr) and not isinstance(e, sympy.MatrixBase) and e.is_commutative
            and not e.atoms(sympy.MatrixSymbol, AppliedUndef, sympy.Sum, sympy.Integral)
            and all(isinstance(x, sympy.Symbol) for x in e.free_symbols))


def _half_power_symbols(e: sympy.Expr) -> list:
    return sorted({p.base for p in e.atoms(sympy.Pow)
                   if isinstance(p.base, sympy.Symbol) and p.exp.is_Rational and p.exp.q == 2}, key=str)


def factor_sqrt(e: sympy.Expr) -> sympy.Expr:
    r"""``factor`` that sees through square roots: each symbol :math:`\lambda` under a square root becomes
    :math:`t^2` (``t`` positive) while factoring, so :math:`4\lambda_H^2 - 8\lambda_H^{5/2}\sqrt{\lambda_W} + \dots`
    factors as :math:`4\lambda_H^2(1 - \sqrt{\lambda_H\lambda_W})^2`."""
    halves = [x for x in _half_power_symbols(e) if x.is_positive]
    if not halves:
        return sympy.factor(e)
    t = {x: sympy.Dummy(x.name, positive=True) for x in halves}
    f = sympy.factor(sympy.expand(e.xreplace({x: t[x] ** 2 for x in halves})))
    return f.xreplace({t[x]: sympy.sqrt(x) for x in halves})


def _negated(a: sympy.Add) -> sympy.Add:
    return sympy.Add(*[-t for t in a.args], evaluate=False)


def _even_powers_positive(e: sympy.Expr) -> sympy.Expr:
    """``(x - 1)**2`` -> ``(1 - x)**2`` and ``c (x - 1)`` -> ``-c (1 - x)``: the papers write the positive
    constant first."""
    neg = lambda a: isinstance(a, sympy.Add) and bool(a.as_coeff_Add()[0] < 0)
    e = e.replace(lambda x: x.is_Pow and x.exp.is_even and neg(x.base),
                  lambda x: sympy.Pow(_negated(x.base), x.exp, evaluate=False))
    return e.replace(lambda x: x.is_Mul and sum(1 for f in x.args if neg(f)) == 1,
                     lambda x: sympy.Mul(-1, *[_negated(f) if neg(f) else f for f in x.args]))


def _candidates(e: sympy.Expr) -> list:
    out = [e, sympy.factor(e), factor_sqrt(e), sympy.expand(e), sympy.powsimp(sympy.expand(e), force=True)]
    for x in sorted(e.free_symbols, key=str):
        if x.name == "p" and e.is_polynomial(x):  # paper S: a polynomial in the density p, by powers of p
            out.append(sympy.collect(sympy.expand(e), x, func=factor_sqrt))
        if x.name == "beta" and e.is_rational_function(x):  # paper N: 1 - (...)/beta, as the paper writes
            try:
                out.append(sympy.Add(*[factor_sqrt(a) for a in sympy.Add.make_args(sympy.apart(e, x))]))
            except (sympy.PolynomialError, NotImplementedError):
                pass
    return [_even_powers_positive(c) for c in out]


#: term order of the printed LaTeX: constants and low powers first, as in "1 - sqrt(lH lW)" and "p(...) + p^2(...)"
ORDER = "rev-lex"


class _Printer(LatexPrinter):
    """sympy's LaTeX printer, with the terms of a sum that carry a plus sign printed before those with a minus
    (``1 - x`` rather than ``- x + 1``), as the papers write them."""

    def _print_Add(self, expr, order=None):
        terms = list(expr.as_ordered_terms(order=order or self.order))
        terms.sort(key=lambda t: bool(t.could_extract_minus_sign()))  # stable: keeps rev-lex within each sign
        return super()._print_Add(sympy.Add(*terms, evaluate=False), order="none")


def to_latex(e: Any) -> str:
    """LaTeX in the papers' style (see :class:`_Printer`)."""
    return _Printer({"order": ORDER}).doprint(e)


def _score(e: sympy.Expr) -> tuple:
    text = to_latex(e)
    # a leading minus, in front or inside a bracket or numerator, reads like a sign slip
    minus = text.startswith("-") + text.count(r"\left(- ") + text.count("{- ")
    # then fewer terms over one long fraction bar ("1 - 4 lH (1 - c)/beta" over "(beta - 4 lH + ...)/beta")
    return (sympy.count_ops(e) + 3 * minus, len(sympy.Add.make_args(sympy.fraction(e)[0])), len(text))


def same_value(a: sympy.Expr, b: sympy.Expr, points: int = 3, seed: int = 0) -> bool:
    r"""Exact comparison of two scalar expressions at random points: every symbol :math:`s` takes the value
    :math:`q^2` for a random positive rational :math:`q`, so square roots stay rational and the test is exact."""
    import random

    rng = random.Random(seed)
    syms = sorted(a.free_symbols | b.free_symbols, key=str)
    for _ in range(points):
        vals = {x: sympy.Rational(rng.randint(1, 60), rng.randint(1, 60)) ** 2 for x in syms}
        va, vb = a.xreplace(vals), b.xreplace(vals)
        if va.has(sympy.zoo, sympy.nan) or vb.has(sympy.zoo, sympy.nan):
            continue
        if sympy.nsimplify(sympy.expand(va - vb)) != 0:
            return False
    return True


def readable(item: Any) -> Any:
    """The form of a derived formula a reader recognises: of the candidates (as derived, factored through
    square roots, expanded, collected in p, split in 1/beta) the one with the fewest operations, then with the
    fewest leading minus signs. Every candidate must equal the derivation exactly at random points; a candidate
    that does not (a sympy rewrite bug) is never shown. Matrices and non-commutative expressions are kept."""
    if isinstance(item, sympy.Equality):
        return sympy.Eq(item.lhs, readable(item.rhs), evaluate=False)
    if not _scalar(item) or sympy.count_ops(item) > 400:  # factoring the biggest polynomials costs seconds
        return item
    best = item
    for cand in sorted(_candidates(item), key=_score):
        if cand == item or same_value(cand, item):
            best = cand
            break
    return best


_REGISTRY: dict[str, Formula] = {}
_loaded = False


def formula(name: str, description: str, **params) -> Callable:
    """Decorator registering a derived formula under ``name`` with default ``params``."""

    def deco(func):
        _REGISTRY[name] = Formula(name, description, func, dict(params))
        return func

    return deco


def _load() -> None:
    global _loaded
    if not _loaded:
        for mod in FORMULA_MODULES:
            importlib.import_module(mod)
        _loaded = True


def formulas() -> dict[str, Formula]:
    """All registered formulas, by name (sorted)."""
    _load()
    return dict(sorted(_REGISTRY.items()))


def get_formula(name: str) -> Formula:
    table = formulas()
    if name not in table:
        raise VerifyInputError(
            f"Argument 'name' must be a registered formula (see `verify latex --list`), not {name!r}."
        )
    return table[name]


def parse_params(pairs: list[str] | None) -> dict:
    """``["m=5", "lam=1/2"]`` -> ``{"m": 5, "lam": Rational(1, 2)}`` (exact numbers)."""
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise VerifyInputError(f"Argument 'param' must look like key=value, not {pair!r}.")
        try:
            num = sympy.Rational(value)
        except (TypeError, ValueError, sympy.SympifyError):
            raise VerifyInputError(f"Argument {key!r} must be a rational number, not {value!r}.") from None
        out[key] = int(num) if num.is_Integer else num
    return out


def _tex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
                 ("^", r"\^{}"), ("$", r"\$"), ("~", r"\~{}"), ("{", r"\{"), ("}", r"\}")):
        text = text.replace(a, b) if a != "\\" else text.replace(a, "\x00")
    return text.replace("\x00", r"\textbackslash{}")


def standalone_document() -> str:
    """A complete LaTeX document holding every registered formula (each in a ``dmath``-free ``align*``)."""
    parts = [
        r"\documentclass[10pt]{article}",
        r"\usepackage[margin=1.5cm,landscape]{geometry}",
        r"\usepackage{amsmath,amssymb}",
        r"\allowdisplaybreaks",
        r"\begin{document}",
        r"\section*{Formulas derived by \texttt{verify}}",
    ]
    for f in formulas().values():
        parts.append(r"\subsection*{\texttt{" + _tex_escape(f.name) + "}: " + _tex_escape(f.description) + "}")
        if f.params:
            parts.append("Parameters: " + _tex_escape(", ".join(f"{k} = {v}" for k, v in f.params.items())) + ".")
        parts.append(r"\begin{align*}")
        parts.append(r"&" + f.latex().replace(" \\\\\n", r" \\ &"))
        parts.append(r"\end{align*}")
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"
