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
import re
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
        """LaTeX of the formula in readable form (:func:`readable`), each item checked equal to the derivation; the
        lines of a spectrum in descending order (:func:`sort_spectrum`)."""
        return " \\\\\n".join(item if isinstance(item, str) else to_latex(item) for item in self.items(**params))

    def items(self, **params) -> list:
        """The display lines of :meth:`latex` as objects: readable sympy expressions (or LaTeX strings where the
        module gives one), spectra sorted."""
        value = self.expr(**params)
        items = value if isinstance(value, (list, tuple)) else [value]
        items = sort_spectrum([item if isinstance(item, str) else readable(item) for item in items])
        notation = PAPER_NOTATION.get(self.name)
        return notation(items)[0] if notation else items

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


def _negative(term: Any) -> bool:
    """Whether a term of a sum prints with a leading minus: scalars by sympy's rule, and a matrix product whose scalar
    coefficient is negative (``(-2 lambda_H) Sigma_B``, which sympy's printer writes after a plus: ``+ - 2 ...``)."""
    if isinstance(term, sympy.MatMul):
        return bool(term.as_coeff_matrices()[0].could_extract_minus_sign())
    return bool(term.could_extract_minus_sign())


def _negated_term(term: Any) -> Any:
    if isinstance(term, sympy.MatMul):
        coeff, mats = term.as_coeff_matrices()
        return sympy.MatMul(-coeff, *mats) if -coeff != 1 else sympy.MatMul(*mats)
    return -term


def merge_roots(e: sympy.Mul) -> sympy.Expr | None:
    r"""A product with two or more square roots of positive symbols, with those roots merged under one
    (:math:`\sqrt{\lambda_H}\sqrt{\lambda_W} \to \sqrt{\lambda_H\lambda_W}`,
    :math:`\sqrt{\lambda_H}/\sqrt{\lambda_W} \to \sqrt{\lambda_H/\lambda_W}`), unevaluated, as the papers write it;
    ``None`` when there is nothing to merge. Only positive symbols: :math:`\sqrt{a}\sqrt{b} = \sqrt{ab}` needs
    :math:`a, b \ge 0`. ``merge_roots(e).doit() == e`` (checked in the tests).

    >>> a, b = sympy.symbols("a b", positive=True)
    >>> to_latex(sympy.sqrt(a) * sympy.sqrt(b))
    '\\sqrt{a b}'
    >>> x, y = sympy.symbols("x y")
    >>> merge_roots(sympy.sqrt(x) * sympy.sqrt(y)) is None
    True
    """
    roots = [f for f in e.args if f.is_Pow and f.exp in (sympy.S.Half, -sympy.S.Half)
             and f.base.is_Symbol and f.base.is_positive]
    if len(roots) < 2:
        return None
    up = [f.base for f in roots if f.exp > 0]
    down = [f.base for f in roots if f.exp < 0]
    rest = [f for f in e.args if f not in roots]
    if up:
        inner = sympy.Mul(*up, evaluate=False) if len(up) > 1 else up[0]
        if down:
            inner = sympy.Mul(inner, sympy.Pow(sympy.Mul(*down, evaluate=False) if len(down) > 1 else down[0], -1,
                                                evaluate=False), evaluate=False)
        root = sympy.Pow(inner, sympy.S.Half, evaluate=False)
    else:
        root = sympy.Pow(sympy.Mul(*down, evaluate=False), -sympy.S.Half, evaluate=False)
    return sympy.Mul(*rest, root, evaluate=False)


class _Printer(LatexPrinter):
    """sympy's LaTeX printer, with the terms of a sum that carry a plus sign printed before those with a minus
    (``1 - x`` rather than ``- x + 1``), a negative matrix term after a minus (not ``+ - 2 \\lambda_H \\Sigma_B``),
    and square roots of positive symbols merged (:func:`merge_roots`), as the papers write them."""

    def _print_Add(self, expr, order=None):
        terms = list(expr.as_ordered_terms(order=order or self.order))
        terms.sort(key=_negative)  # stable: keeps rev-lex within each sign
        tex = ""
        for i, term in enumerate(terms):
            neg = _negative(term)
            if neg:
                term = _negated_term(term)
            tex += ("- " if neg else "") if i == 0 else (" - " if neg else " + ")
            term_tex = self._print(term)
            if self._needs_add_brackets(term):
                term_tex = r"\left(%s\right)" % term_tex
            tex += term_tex
        return tex

    def _print_Mul(self, expr):
        merged = merge_roots(expr)
        if merged is None:
            return super()._print_Mul(expr)
        return super()._print_Mul(merged) if isinstance(merged, sympy.Mul) else self._print(merged)


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


_MULT = re.compile(r"_\{\\times \d+\}")
#: the point at which spectrum lines are compared for their order: the papers' regime (beta large, lambda_H lambda_W
#: < 1); it only orders the lines, no value is shown or checked there
_ORDER_POINT = {"beta": sympy.Integer(100)}
_ORDER_DEFAULT = sympy.Rational(1, 4)


def sort_spectrum(items: list) -> list:
    r"""Lines of a spectrum (``Eq`` whose left sides differ only in a multiplicity subscript ``_{\times k}``, such as
    :math:`\lambda_{\times 2}(F_{kk})`) in descending order of their value in the papers' regime (every symbol 1/4,
    :math:`\beta = 100`), as the papers list eigenvalues; runs of other lines keep their order.

    >>> b = sympy.Symbol("beta", positive=True)
    >>> lines = [sympy.Eq(sympy.Symbol(r"\lambda_{\times 1}"), 1 - 2 / b), sympy.Eq(sympy.Symbol(r"\lambda_{\times 3}"), 1)]
    >>> [str(x.rhs) for x in sort_spectrum(lines)]
    ['1', '1 - 2/beta']
    """
    def stem(item):
        if not isinstance(item, sympy.Equality) or not _scalar(item.rhs):
            return None
        text = sympy.latex(item.lhs)
        return _MULT.sub("", text) if _MULT.search(text) else None

    def value(item):
        point = {x: _ORDER_POINT.get(x.name, _ORDER_DEFAULT) for x in item.rhs.free_symbols}
        v = item.rhs.xreplace(point)
        return float(v) if v.is_real else float("-inf")

    out, i = [], 0
    while i < len(items):
        j = i + 1
        key = stem(items[i])
        while key is not None and j < len(items) and stem(items[j]) == key:
            j += 1
        run = items[i:j]
        out += sorted(run, key=value, reverse=True) if j - i > 1 else run  # sorted() is stable on ties
        i = j
    return out


# --------------------------------------------------------------------------- the papers' notation
def _contract(e: Any, rules: dict) -> Any:
    """``e`` with every adjacent pair ``(A, B)`` of matrix factors of a product that is a key of ``rules`` replaced by
    its value (bottom-up), e.g. ``Sigma_B (Sigma_T + lambda_W/K I)^{-1}`` by ``C_B`` inside a longer product."""
    if isinstance(e, sympy.MatMul):
        args = [_contract(a, rules) for a in e.args]
        scalars = [a for a in args if not getattr(a, "is_Matrix", False)]
        mats = [a for a in args if getattr(a, "is_Matrix", False)]
        out: list = []
        for m in mats:
            if out and (out[-1], m) in rules:
                out[-1] = rules[(out[-1], m)]
            else:
                out.append(m)
        return sympy.MatMul(*scalars, *out) if len(out) + len(scalars) > 1 else (out or scalars)[0]
    if isinstance(e, (sympy.MatAdd, sympy.Equality, sympy.Transpose, sympy.Inverse, sympy.Add, sympy.Mul)):
        return e.func(*[_contract(a, rules) for a in e.args])
    return e


def lemma_a1_notation(items: list) -> tuple[list, dict]:
    r"""Lemma A.1 in the paper's notation: :math:`\mathbf{C}_B := \Sigma_B(\tilde\Sigma_T + \frac{\lambda_W}{K}I)^{-1}`,
    :math:`\tilde{\mathbf{C}}_B` and :math:`\mathbf{C}_W` likewise, contracted out of the derived flow derivatives
    (their transposes too), and the three definitions appended. Returns ``(items, definitions)`` with
    ``definitions = {C: its product}``; substituting the products back gives the derivation again (checked in the
    tests with explicit rational matrices)."""
    mats = {m.name: m for item in items if not isinstance(item, str) for m in item.atoms(sympy.MatrixSymbol)}
    inv = [x for item in items if not isinstance(item, str) for x in item.atoms(sympy.Inverse)]
    plain = [x for x in inv if not x.atoms(sympy.Transpose)]
    if not plain or not all(k in mats for k in (r"\Sigma_{B}", r"\tilde{\Sigma}_{B}", r"\Sigma_{W}")):
        return items, {}
    X = plain[0]
    XT = next((x for x in inv if x.arg == sympy.Transpose(X.arg).doit()), None)  # (Sigma_T^T + lambda_W/K I)^{-1}
    n = mats[r"\Sigma_{B}"].shape[0]
    defs, rules = {}, {}
    for name, tex in ((r"\Sigma_{B}", r"\mathbf{C}_{B}"), (r"\tilde{\Sigma}_{B}", r"\tilde{\mathbf{C}}_{B}"),
                      (r"\Sigma_{W}", r"\mathbf{C}_{W}")):
        C, S = sympy.MatrixSymbol(tex, n, n), mats[name]
        defs[C] = sympy.MatMul(S, X)
        rules[(S, X)] = C
        if XT is not None:
            rules[(XT, sympy.Transpose(S))] = sympy.Transpose(C)
    out = [item if isinstance(item, str) else _contract(item, rules) for item in items]
    return out + [sympy.Eq(C, prod, evaluate=False) for C, prod in defs.items()], defs


#: formulas printed in a paper's own notation (name -> items -> (items, definitions))
PAPER_NOTATION = {"N-lemA.1": lemma_a1_notation}


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


def _encoder():
    from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

    # < > | print as other glyphs in LaTeX's default OT1 text encoding (the character itself prints as an inverted
    # exclamation mark, a question mark and a dash): their text symbols instead
    text_symbols = {ord("<"): r"\textless", ord(">"): r"\textgreater", ord("|"): r"\textbar"}
    return UnicodeToLatexEncoder(conversion_rules=[UnicodeToLatexConversionRule(RULE_DICT, text_symbols), "defaults"],
                                 non_ascii_only=False, replacement_latex_protection="braces-all",
                                 unknown_char_policy="replace", unknown_char_warning=False)


_ENCODER = None


def tex_escape(text: Any) -> str:
    r"""Plain text for a LaTeX document, by pylatexenc's encoder: every special (``\ { } $ & # % _ ^ ~``) and every
    non-ASCII character becomes its LaTeX macro (``^`` is ``{\textasciicircum}``, never the accent ``\^{}``), ``< > |``
    their text symbols; a character LaTeX has no macro for becomes ``?`` (bold). Math goes through sympy's printer
    (:func:`to_latex`), never through here.

    >>> tex_escape("K^3 <= NC1~(H0) | 50%")
    'K{\\textasciicircum}3 {\\textless}= NC1{\\textasciitilde}(H0) {\\textbar} 50{\\%}'
    """
    global _ENCODER
    if _ENCODER is None:
        _ENCODER = _encoder()
    return _ENCODER.unicode_to_latex(str(text))


_tex_escape = tex_escape  # the name the reporters imported before


def standalone_document(progress: bool = False) -> str:
    """A complete LaTeX document holding every registered formula (each in an ``align*``); the names and descriptions
    escaped by :func:`tex_escape`, the formulas by sympy's printer. ``progress``: a tqdm bar over the formulas."""
    from tqdm.auto import tqdm

    parts = [
        r"\documentclass[10pt]{article}",
        r"\usepackage[margin=1.5cm,landscape]{geometry}",
        r"\usepackage{amsmath,amssymb}",
        r"\allowdisplaybreaks",
        r"\begin{document}",
        r"\section*{Formulas derived by \texttt{verify}}",
    ]
    for f in tqdm(list(formulas().values()), desc="formulas", disable=not progress, leave=False):
        parts.append(r"\subsection*{\texttt{" + tex_escape(f.name) + "}: " + tex_escape(f.description) + "}")
        if f.params:
            parts.append("Parameters: " + ", ".join(f"${sympy.latex(sympy.Symbol(k))} = {sympy.latex(v)}$"
                                                    for k, v in f.params.items()) + ".")
        parts.append(r"\begin{align*}")
        parts.append(r"&" + f.latex().replace(" \\\\\n", r" \\ &"))
        parts.append(r"\end{align*}")
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"
