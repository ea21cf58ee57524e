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
        value = self.expr(**params)
        items = value if isinstance(value, (list, tuple)) else [value]
        return " \\\\\n".join(item if isinstance(item, str) else sympy.latex(item) for item in items)


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
