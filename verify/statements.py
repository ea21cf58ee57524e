r"""Statements as data: a claim's statement as one object, its variants, and the check that evaluates it.

A :class:`Statement` is :math:`\forall x \in D:\ H_1(x) \wedge \dots \wedge H_k(x) \Rightarrow \mathrm{lhs}(x)
\ \mathcal R\ \mathrm{rhs}(x)` with

* ``params`` - the named parameters :math:`x` and their domains (:class:`Param`: integers, rational intervals,
  rational matrices whose shape is given by integer parameters);
* ``lhs``, ``rhs`` - sympy expressions in the parameters, the named :class:`Field` symbols (every constant and
  exponent of the paper's statement, typed once, here), quantities computed by the package (:class:`Computed`,
  e.g. :math:`\tilde L(W)` from the derived exact loss) and suprema over one variable (:class:`Sup`, decided by
  exact calculus: the real roots of the derivative, isolated and enclosed in Arb balls);
* ``relation`` - one of ``=, <=, <, >=, >``;
* ``hypotheses`` - predicates on the parameters (:class:`Hypothesis`, sympy relationals decided exactly).

:func:`variants` derives the edits the issue "Wrong statements are caught" lists: every constant scaled
(:math:`\times 1/2, 9/10, 11/10, 2`), every exponent moved by one, the relation reversed or made strict (or, for an
equality, made an inequality), each term of the first sum of each side dropped, each hypothesis dropped.
:func:`classify` says, by exact reasoning and never by running :func:`check`, whether a variant is ``false``
(violated, exactly, at an instance the statement's data establishes from the paper: its attained or approached
case, a slack point, an instance outside a dropped hypothesis), ``true`` (implied by the statement: a weaker
relation, a larger bound where the ratio of the bounds is a monomial :math:`\ge 1` on the whole domain, a
hypothesis implied by the others) or ``unknown``.

:func:`check` is the statement's own check: a seeded search over the statement's domain (a grid of simple
rationals, random rationals, then Nelder-Mead on the float violation score from the best points, rounded back to
rationals), which decides the relation exactly at every point it keeps (rationals, or Arb balls that do not
overlap) and returns ``refuted`` with the certified counterexample it found itself, or ``verified`` with the size
of the search. It is never handed the classifier's instances.

>>> from verify.statement_data import get_statement
>>> s = get_statement("N-lemC.3")
>>> s.relation, [f.name for f in s.fields]
('<=', ['C'])
"""

from __future__ import annotations

import math
import os
import random
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable

import sympy
from flint import arb, ctx

from ._validate import VerifyInputError

__all__ = ["Param", "Field", "Hypothesis", "Computed", "Sup", "Witness", "Statement", "Variant", "CheckResult",
           "variants", "classify", "check", "evaluate", "to_arb", "SCALES", "RELATIONS", "OUTCOMES", "run_variant",
           "sample_variants", "run_claim", "summarise", "current", "holds"]

#: the factors every named constant is scaled by
SCALES = (sympy.Rational(1, 2), sympy.Rational(9, 10), sympy.Rational(11, 10), sympy.Integer(2))
RELATIONS = ("=", "<=", "<", ">=", ">")
_PREC = 200  # bits of the Arb balls
_ROUNDS = 8  # Nelder-Mead restarts per start


# --------------------------------------------------------------------------- the data
@dataclass(frozen=True)
class Param:
    """A named parameter. ``kind``: ``"int"`` (``values``), ``"rat"`` (the interval ``lo``..``hi``, ``None`` for
    unbounded, ``lo_open``/``hi_open``) or ``"matrix"`` (rational entries in ``lo``..``hi``, shape read from the
    integer parameters named in ``shape``, or expressions in them such as ``"K*n"``)."""

    name: str
    kind: str
    values: tuple = ()
    lo: Any = None
    hi: Any = None
    lo_open: bool = True
    hi_open: bool = True
    shape: tuple = ()

    @property
    def symbol(self) -> sympy.Symbol:
        return sympy.Symbol(self.name)

    def contains(self, v) -> bool:
        if self.kind != "rat":
            return True
        if self.lo is not None and (v < self.lo or (self.lo_open and v == self.lo)):
            return False
        if self.hi is not None and (v > self.hi or (self.hi_open and v == self.hi)):
            return False
        return True

    def bounds(self) -> tuple:
        """(lo, hi) as sympy numbers, ``None`` for unbounded (integers: the extreme values)."""
        if self.kind == "int":
            return sympy.Integer(min(self.values)), sympy.Integer(max(self.values))
        return (None if self.lo is None else sympy.nsimplify(self.lo),
                None if self.hi is None else sympy.nsimplify(self.hi))


@dataclass(frozen=True)
class Field:
    """A constant or exponent of the statement, typed once: ``symbol`` stands for it in ``lhs``/``rhs``, ``value``
    is the paper's (a number or an expression in the parameters)."""

    name: str
    kind: str  # "constant" | "exponent"
    value: Any
    note: str = ""

    @property
    def symbol(self) -> sympy.Symbol:
        return sympy.Symbol(self.name)


@dataclass(frozen=True)
class Hypothesis:
    """A hypothesis as a predicate on the parameters (a sympy relational or a conjunction of them). ``implied_by``
    (a reason) when the other hypotheses imply it, ``not_needed`` (a reason) when the statement is proved without
    it; ``outside``: parameter values that violate only this hypothesis, at which the statement fails (from the
    paper's argument or the necessity table), so the variant that drops it is false."""

    name: str
    predicate: Any
    implied_by: str = ""
    not_needed: str = ""
    outside: tuple = ()  # of dicts


@dataclass(frozen=True)
class Computed:
    """A quantity the package computes exactly (``exact(env)``: a sympy number) and in float64
    (``approx(env)``), standing in the expressions as ``Symbol(name)``; ``latex`` names it in the LaTeX."""

    name: str
    exact: Callable
    approx: Callable
    latex: str = ""
    #: True when the quantity is built from the statement's fields (a matrix formula with a constant inside an
    #: inverse): ``exact``/``approx`` then also find the fields' current values in ``env``, by field name
    reads_fields: bool = False

    @property
    def symbol(self) -> sympy.Symbol:
        return sympy.Symbol(self.name)


_FIELD_CACHE: dict = {}


def _computed_env(st, c, env: dict) -> dict:
    """``env`` for the computed quantity ``c`` of ``st``: with the fields' values (in the parameters of ``env``) added
    when ``c.reads_fields``, so a variant's edited constant reaches the quantity."""
    if not c.reads_fields:
        return env
    hit = _FIELD_CACHE.get(id(st))
    if hit is None or hit[0] is not st:  # the fields split once per statement: the searches call this per point
        vals = {f.name: sympy.sympify(f.value) for f in st.fields}
        hit = (st, {k: v for k, v in vals.items() if not v.free_symbols},
               {k: v for k, v in vals.items() if v.free_symbols})
        if len(_FIELD_CACHE) > 256:
            _FIELD_CACHE.clear()
        _FIELD_CACHE[id(st)] = hit
    _, const, free = hit
    out = {**env, **const}
    if free:
        psub = {p.symbol: sympy.sympify(env[p.name]) for p in st.params if p.kind != "matrix" and p.name in env}
        out.update({k: v.xreplace(psub) for k, v in free.items()})
    return out


@dataclass(frozen=True)
class Sup:
    r""":math:`\sup_{t > 0} g(t)` (``lower=">0"``) or over :math:`t \ge 0` for a polynomial ``expr`` in ``var``;
    ``expr`` may hold fields and parameters. Standing in the expressions as ``Symbol(name)``."""

    name: str
    var: sympy.Symbol
    expr: Any
    latex: str = ""

    @property
    def symbol(self) -> sympy.Symbol:
        return sympy.Symbol(self.name)


@dataclass(frozen=True)
class Witness:
    """Instances the classifier uses (never the check): ``points`` (parameter dicts) and what they are
    (``"attained"``, ``"approached"``, ``"slack"``, ``"identity"``: any point of an identity)."""

    kind: str
    points: tuple
    note: str = ""


@dataclass(frozen=True)
class Statement:
    claim: str
    where: str
    params: tuple
    lhs: Any
    relation: str
    rhs: Any
    fields: tuple = ()
    hypotheses: tuple = ()
    computed: tuple = ()
    sups: tuple = ()
    witnesses: tuple = ()
    #: why the strict relation also holds (then the strict variant is a true control); "" if not known
    strict_holds: str = ""
    #: what the check searches: seeded random points and Nelder-Mead starts
    budget: int = 60
    starts: int = 4
    seed: int = 0
    #: "" for the paper's statement, else the edit that made this variant
    edit: str = ""

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise VerifyInputError(f"Argument 'name' must be a field of {self.claim} "
                               f"({', '.join(f.name for f in self.fields)}), not {name!r}.")

    def substituted(self) -> tuple:
        """(lhs, rhs) with the fields replaced by their values (the statement as the paper reads)."""
        sub = {f.symbol: sympy.sympify(f.value) for f in self.fields}
        return sympy.sympify(self.lhs).xreplace(sub), sympy.sympify(self.rhs).xreplace(sub)

    def latex(self) -> str:
        """The statement's LaTeX, derived from the object: the relation with its fields' values, the suprema and
        computed quantities named, the hypotheses after a colon."""
        # fields held unevaluated, so a constant shows as typed (9/10 C, not distributed over a sum)
        sub = {f.symbol: sympy.UnevaluatedExpr(sympy.sympify(f.value)) if sympy.sympify(f.value).is_Number
               and sympy.sympify(f.value) != 1 else sympy.sympify(f.value) for f in self.fields}
        try:
            lhs, rhs = sympy.sympify(self.lhs).xreplace(sub), sympy.sympify(self.rhs).xreplace(sub)
        except ValueError:  # a Max/Min refuses held (not comparable) arguments: show the constants evaluated
            lhs, rhs = self.substituted()
        names = {c.symbol: sympy.Symbol(c.latex or c.name) for c in self.computed}
        for s in self.sups:
            body = sympy.latex(sympy.sympify(s.expr).xreplace(sub))
            names[s.symbol] = sympy.Symbol(rf"\sup_{{{sympy.latex(s.var)} > 0}} \left({body}\right)")
        lhs, rhs = lhs.xreplace(names), rhs.xreplace(names)
        rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}[self.relation]
        text = f"{sympy.latex(lhs)} {rel} {sympy.latex(rhs)}"
        hyps = [sympy.latex(h.predicate) for h in self.hypotheses]
        return text + (r" \quad \text{for } " + ",\\ ".join(hyps) if hyps else "")


@dataclass(frozen=True)
class Variant:
    kind: str          # "constant" | "exponent" | "relation" | "term" | "hypothesis"
    name: str          # e.g. "C x 9/10"
    statement: Statement


# --------------------------------------------------------------------------- variants
def _first_sum(expr):
    """The first Add met walking down products and the bases of powers (the side's sum of terms), or None."""
    if isinstance(expr, sympy.Add):
        return expr
    if isinstance(expr, (sympy.Mul, sympy.Pow)):
        if isinstance(expr, sympy.Pow) and not (expr.args[1].is_number and expr.args[1] > 0):
            return None  # a sum in a denominator or under a symbolic power is a normalisation, not a term
        for a in (expr.args if isinstance(expr, sympy.Mul) else expr.args[:1]):
            s = _first_sum(a)
            if s is not None:
                return s
    return None


def variants(st: Statement) -> list:
    """Every variant of ``st`` (see the module docstring), in a fixed order."""
    out = []
    for f in st.fields:
        if f.kind == "constant":
            for k in SCALES:
                nf = replace(f, value=sympy.sympify(f.value) * k)
                out.append(Variant("constant", f"{f.name} x {k}", _with_field(st, nf, f"{f.name} x {k}")))
        else:
            for dv in (-1, 1):
                nf = replace(f, value=sympy.sympify(f.value) + dv)
                out.append(Variant("exponent", f"{f.name} {dv:+d}", _with_field(st, nf, f"{f.name} {dv:+d}")))
    rel_edits = {"<=": (">=", "<"), "<": (">=", "<="), ">=": ("<=", ">"), ">": ("<=", ">="),
                 "=": ("<", ">", "<=", ">=")}[st.relation]
    for r in rel_edits:
        out.append(Variant("relation", f"relation {r}", replace(st, relation=r, edit=f"relation {st.relation} -> {r}")))
    for side in ("lhs", "rhs"):
        s = _first_sum(sympy.sympify(getattr(st, side)))
        if s is not None:
            for i, term in enumerate(s.args):
                new = sympy.sympify(getattr(st, side)).xreplace({s: s - term})
                out.append(Variant("term", f"{side}: drop {term}", replace(st, **{side: new},
                                                                        edit=f"{side}: term {term} dropped")))
    for sp in st.sups:
        s = _first_sum(sympy.sympify(sp.expr))
        if s is not None:
            for term in s.args:
                nsp = replace(sp, expr=sympy.sympify(sp.expr).xreplace({s: s - term}))
                sups = tuple(nsp if x is sp else x for x in st.sups)
                out.append(Variant("term", f"sup: drop {term}", replace(st, sups=sups, edit=f"sup: term {term} dropped")))
    for h in st.hypotheses:
        hyps = tuple(x for x in st.hypotheses if x is not h)
        out.append(Variant("hypothesis", f"drop {h.name}", replace(st, hypotheses=hyps, edit=f"hypothesis {h.name} dropped")))
    return out


def _with_field(st, nf, edit):
    return replace(st, fields=tuple(nf if f.name == nf.name else f for f in st.fields), edit=edit)


# --------------------------------------------------------------------------- exact evaluation
def to_arb(x) -> arb:
    """A certified Arb ball for a sympy number built from rationals with +, *, rational powers, log, Abs, Max, Min."""
    if isinstance(x, arb):
        return x
    x = sympy.sympify(x)
    if x.is_Rational:
        return arb(int(x.p)) / int(x.q)
    if x is sympy.pi:
        return arb.pi()
    if isinstance(x, sympy.log) and len(x.args) == 1:  # natural logarithm of a positive enclosure
        return to_arb(x.args[0]).log()
    if isinstance(x, sympy.Add):
        r = arb(0)
        for a in x.args:
            r += to_arb(a)
        return r
    if isinstance(x, sympy.Mul):
        r = arb(1)
        for a in x.args:
            r *= to_arb(a)
        return r
    if isinstance(x, sympy.Pow):
        b, e = to_arb(x.args[0]), x.args[1]
        if e.is_Integer:
            return b ** int(e)
        if e.is_Rational:
            return (b.log() * (arb(int(e.p)) / int(e.q))).exp() if e.q != 2 else b.sqrt() ** int(e.p)
    if isinstance(x, sympy.Abs):
        return abs(to_arb(x.args[0]))
    if isinstance(x, (sympy.Max, sympy.Min)):
        vals = [to_arb(a) for a in x.args]
        r = vals[0]
        for v in vals[1:]:
            r = r.max(v) if isinstance(x, sympy.Max) else r.min(v)
        return r
    raise ArithmeticError(f"cannot enclose {x}")


def _sup_value(sp: Sup, sub: dict):
    """The exact supremum of the polynomial over t > 0 (a sympy number, ``oo``, or an Arb ball when it is attained
    at an irrational critical point that sympy gives only as a root object)."""
    t = sp.var
    g = sympy.expand(sympy.sympify(sp.expr).xreplace(sub))
    poly = sympy.Poly(g, t)
    if poly.degree() <= 0:
        return g
    if poly.LC() > 0:
        return sympy.oo
    cands = [g.subs(t, 0)]  # the limit t -> 0+
    dpoly = poly.diff(t)
    for r in dpoly.real_roots() if dpoly.degree() > 0 else []:
        if isinstance(r, sympy.CRootOf):
            q = sympy.Poly(r.poly.as_expr(), r.poly.gens[0]).as_expr().subs(r.poly.gens[0], t)
            rem = sympy.Poly(sympy.rem(poly.as_expr(), q, t), t)
            if rem.degree() <= 0 and r.eval_rational(dx=sympy.Rational(1, 10 ** 20), dy=1) > 0:
                cands.append(rem.as_expr())  # g(r) reduced modulo r's minimal polynomial: exact
                continue
            # irrational value: a certified ball around sympy's rational approximation of the root
            dx = sympy.Rational(1, 10 ** 45)
            approx = r.eval_rational(dx=dx, dy=dx)
            if approx + dx <= 0:
                continue
            ball = arb(int(approx.p)) / int(approx.q) + arb(0, float(sympy.Rational(1, 10 ** 44)))
            cands.append(_poly_at_ball(poly, ball))
        elif r > 0:
            cands.append(sympy.simplify(g.subs(t, r)))
    best = None
    for c in cands:
        if best is None:
            best = c
            continue
        a, b = to_arb(best), to_arb(c)
        if b > a:
            best = c
        elif not (a > b) and not isinstance(best, arb) and not isinstance(c, arb) and sympy.simplify(c - best) > 0:
            best = c
    return best


def _poly_at_ball(poly, ball):
    r = arb(0)
    for (k,), c in poly.terms():
        r += to_arb(c) * ball ** int(k)
    return r


def _env_sub(st: Statement, env: dict) -> dict:
    sub = {f.symbol: sympy.sympify(f.value) for f in st.fields}
    psub = {}
    for p in st.params:
        if p.kind != "matrix":
            psub[p.symbol] = sympy.sympify(env[p.name])
    sub = {k: sympy.sympify(v).xreplace(psub) for k, v in sub.items()}
    sub.update(psub)
    return sub


def evaluate(st: Statement, env: dict, given: dict | None = None) -> dict:
    """lhs and rhs at the exact point ``env`` (sympy numbers or Arb balls) and whether the relation holds there:
    ``holds`` is True / False when decided exactly or by disjoint balls, None when not decided. ``given``: values of
    computed quantities (by name) that the caller computed by its own route."""
    old = ctx.prec
    ctx.prec = _PREC  # Arb works at 200 bits here; the caller's precision is restored
    try:
        return _evaluate(st, env, given)
    finally:
        ctx.prec = old


def _evaluate(st: Statement, env: dict, given: dict | None = None) -> dict:
    sub = _env_sub(st, env)
    for c in st.computed:
        sub[c.symbol] = sympy.sympify(given[c.name]) if given and c.name in given else c.exact(
            _computed_env(st, c, env))
    for sp in st.sups:
        sub[sp.symbol] = _sup_value(sp, sub)
    vals = []
    for side in (st.lhs, st.rhs):
        e = sympy.sympify(side)
        arbs = {k: v for k, v in sub.items() if isinstance(v, arb)}
        if arbs:  # a side holding a ball: evaluate it in Arb
            e = e.xreplace({k: v for k, v in sub.items() if not isinstance(v, arb)})
            vals.append(_arb_eval(e, arbs))
        else:
            vals.append(sympy.sympify(e.xreplace(sub)))
    lhs, rhs = vals
    return {"lhs": lhs, "rhs": rhs, "holds": _decide(lhs, st.relation, rhs)}


def _arb_eval(e, arbs):
    if e in arbs:
        return arbs[e]
    if not e.free_symbols:
        return to_arb(e)
    args = [_arb_eval(a, arbs) for a in e.args]
    if isinstance(e, sympy.Add):
        return sum(args[1:], args[0])
    if isinstance(e, sympy.Mul):
        r = args[0]
        for a in args[1:]:
            r *= a
        return r
    if isinstance(e, sympy.Pow) and e.args[1].is_Integer:
        return args[0] ** int(e.args[1])
    raise ArithmeticError(f"cannot enclose {e}")


def _is_zero(x) -> bool | None:
    x = sympy.sympify(x)
    if x.is_Rational:
        return x == 0
    x = sympy.expand(sympy.radsimp(x))
    if x == 0:
        return True
    try:
        z = sympy.Symbol("z")
        return sympy.minimal_polynomial(x, z) == z
    except Exception:  # noqa: BLE001 - not an algebraic number sympy can decide
        return None


def _decide(lhs, rel, rhs) -> bool | None:
    """The relation decided exactly (rationals, algebraic zero test) or by Arb balls that do not overlap."""
    if any(x is sympy.zoo or x is sympy.nan for x in (lhs, rhs)):
        return None  # undefined at this point (a zero denominator): outside the statement's domain
    if lhs is sympy.oo or rhs is sympy.oo or lhs is sympy.zoo or rhs is sympy.zoo:
        if lhs == rhs:
            return rel in ("=", "<=", ">=")
        lt = rhs is sympy.oo or lhs is -sympy.oo
        return {"=": False, "<=": lt, "<": lt, ">=": not lt, ">": not lt}[rel]
    exact = not isinstance(lhs, arb) and not isinstance(rhs, arb)
    if exact and sympy.sympify(lhs).is_Rational and sympy.sympify(rhs).is_Rational:
        a, b = sympy.sympify(lhs), sympy.sympify(rhs)
        return bool({"=": a == b, "<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[rel])
    a, b = to_arb(lhs), to_arb(rhs)
    if a < b:
        return rel in ("<=", "<")
    if a > b:
        return rel in (">=", ">")
    if exact:  # overlapping balls: decide equality exactly
        z = _is_zero(sympy.sympify(lhs) - sympy.sympify(rhs))
        if z is True:
            return rel in ("=", "<=", ">=")
    return None


def hypotheses_hold(st: Statement, env: dict) -> bool | None:
    """Whether every hypothesis holds at ``env`` (None: not decided)."""
    old = ctx.prec
    ctx.prec = _PREC
    try:
        return _hypotheses_hold(st, env)
    finally:
        ctx.prec = old


def _hypotheses_hold(st: Statement, env: dict) -> bool | None:
    sub = _env_sub(st, env)
    for h in st.hypotheses:
        v = sympy.sympify(h.predicate).xreplace(sub)
        if v not in (sympy.true, sympy.false):
            v = _decide_rel(v)
        if v is None:
            return None
        if not bool(v):
            return False
    return True


def _decide_rel(v):
    if isinstance(v, sympy.And):
        vals = [_decide_rel(a) for a in v.args]
        return None if None in vals else all(vals)
    if isinstance(v, sympy.core.relational.Relational):
        op = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "="}[v.rel_op]
        return _decide(v.lhs, op, v.rhs)
    return None


def _show(x) -> str:
    if isinstance(x, arb):
        return x.str(30, radius=True)
    x = sympy.sympify(x)
    if x.is_Rational or not x.is_finite:
        return str(x)
    old = ctx.prec
    ctx.prec = _PREC
    try:
        return f"{x} = {to_arb(x).str(30, radius=True)}"
    finally:
        ctx.prec = old


def _show_env(st, env) -> dict:
    out = {}
    for p in st.params:
        v = env[p.name]
        out[p.name] = [[str(e) for e in row] for row in v.tolist()] if p.kind == "matrix" else str(v)
    return out


# --------------------------------------------------------------------------- classification (exact, check-free)
def classify(original: Statement, v: Variant) -> dict:
    """``{"class": "false" | "true" | "unknown", "reason", "instance"?}`` for variant ``v`` of ``original``."""
    st = v.statement
    # 1. an instance from the data at which the variant fails, exactly
    pts = []
    for w in original.witnesses:
        pts += [(w.kind, p) for p in w.points]
    if v.kind == "hypothesis":
        dropped = [h for h in original.hypotheses if h not in st.hypotheses][0]
        pts += [("outside " + dropped.name, p) for p in dropped.outside]
    for kind, env in pts:
        if hypotheses_hold(st, env) is not True:
            continue
        r = evaluate(st, env)
        if r["holds"] is False:
            return {"class": "false", "reason": f"fails at the {kind} instance of the data",
                    "instance": _show_env(st, env), "lhs": _show(r["lhs"]), "rhs": _show(r["rhs"])}
    # 2. implied by the statement
    rel = original.relation
    if v.kind == "relation":
        weaker = {("<", "<="), ("=", "<="), ("=", ">="), (">", ">=")}
        if (rel, st.relation) in weaker:
            return {"class": "true", "reason": f"'{st.relation}' is implied by '{rel}'"}
        if (rel, st.relation) in {("<=", "<"), (">=", ">")} and original.strict_holds:
            return {"class": "true", "reason": "the strict relation holds: " + original.strict_holds}
    if v.kind == "hypothesis":
        dropped = [h for h in original.hypotheses if h not in st.hypotheses][0]
        if dropped.implied_by:
            return {"class": "true", "reason": "implied by the other hypotheses: " + dropped.implied_by}
        if dropped.not_needed:
            return {"class": "true", "reason": "the statement holds without it: " + dropped.not_needed}
    # the left side as the paper reads it (fields put in): a field of the left side edited is not a change of bound
    same_lhs = st.substituted()[0] == original.substituted()[0] and [
        sympy.sympify(x.expr).xreplace({f.symbol: sympy.sympify(f.value) for f in st.fields}) for x in st.sups] == [
        sympy.sympify(x.expr).xreplace({f.symbol: sympy.sympify(f.value) for f in original.fields})
        for x in original.sups]
    if v.kind in ("constant", "exponent", "term") and rel in ("<=", "<", ">=", ">") and same_lhs:
        ok = _ratio_bounds(original, st, upper=rel in ("<=", "<"))
        if ok:
            return {"class": "true", "reason": ok}
    if v.kind in ("constant", "exponent", "term") and rel in ("<=", "<", ">=", ">") and not st.sups \
            and st.relation == rel:
        ok = _gap_moves_safely(original, st, upper=rel in ("<=", "<"))
        if ok:
            return {"class": "true", "reason": ok}
    return {"class": "unknown", "reason": "no instance of the data refutes it and no implication is known"}


def _gap_moves_safely(orig: Statement, st: Statement, upper: bool) -> str:
    r"""The variant is implied when the gap :math:`D = (\mathrm{lhs}_v - \mathrm{rhs}_v) - (\mathrm{lhs} -
    \mathrm{rhs})` is a negative number times a product of non-negative factors (for an upper bound; mirrored for a
    lower bound), the non-negativity read off the expression by :func:`_nonneg` (e.g. an edit that only raises the
    coefficient of a sum of even powers subtracted on the left). Returns the reason, or "" when not shown."""
    l0, r0 = orig.substituted()
    l1, r1 = st.substituted()
    gap = sympy.sympify(l1 - r1 - (l0 - r0))
    if gap == 0:
        return ""
    params = {p.symbol: p for p in orig.params}
    for form in (sympy.factor_terms, sympy.factor):  # common factors pulled out; then a full factorisation
        coeff, rest = form(gap).as_coeff_Mul()
        if (coeff < 0) == upper and coeff != 0 and _nonneg(rest, params):
            return (f"the variant moves lhs - rhs by {gap}, a {'non-positive' if upper else 'non-negative'} number "
                    "times non-negative factors")
    return ""


def _nonneg(e, params) -> bool:
    """True when ``e`` is non-negative at every point of the domain, shown from its form: non-negative numbers and
    parameters (lower end >= 0), a parameter minus at most its lower end, even powers (an even integer times integer
    parameters), powers of non-negative bases, sums and products of non-negative terms."""
    e = sympy.sympify(e)
    if e.is_number:
        return bool(e >= 0)
    if isinstance(e, sympy.Symbol):
        p = params.get(e)
        return p is not None and p.bounds()[0] is not None and p.bounds()[0] >= 0
    if isinstance(e, sympy.Pow):
        b, k = e.args
        c, rest = sympy.sympify(k).as_coeff_Mul()
        even = c.is_Integer and c % 2 == 0 and all(
            s in params and params[s].kind == "int" for s in sympy.sympify(rest).free_symbols)
        return even or _nonneg(b, params)
    if isinstance(e, sympy.Add):
        c, rest = e.as_coeff_Add()
        if isinstance(rest, sympy.Symbol) and c.is_number and rest in params:  # x - c with x >= c on the domain
            lo = params[rest].bounds()[0]
            return lo is not None and lo + c >= 0
        return all(_nonneg(a, params) for a in e.args)
    if isinstance(e, sympy.Mul):
        return all(_nonneg(a, params) for a in e.args)
    return False


def _ratio_bounds(orig: Statement, st: Statement, upper: bool) -> str:
    r"""For an upper bound (``upper``) whose right side is positive on the domain: the variant is implied when
    rhs_variant / rhs is a monomial :math:`c \prod x_i^{k_i}` that is :math:`\ge 1` at the worst corner of the
    domain (:math:`x_i` at its lower end for :math:`k_i > 0`, upper end for :math:`k_i < 0`); mirrored for lower
    bounds. Returns the reason, or "" when not shown."""
    _, r0 = orig.substituted()
    _, r1 = st.substituted()
    params = {p.symbol: p for p in orig.params}
    if any(sympy.sympify(x).has(sympy.Max, sympy.Min) for x in (r0, r1)):
        # a bound holding a max or a min: only the ratio sympy forms by itself is read (a constant of the whole
        # bound scaled); simplify cannot make a monomial of a ratio of different maxima, and is slow on them
        mx = {x: sympy.Dummy() for e in (r0, r1) for x in sympy.sympify(e).atoms(sympy.Max, sympy.Min)}
        ratio = sympy.simplify(sympy.sympify(r1).xreplace(mx) / sympy.sympify(r0).xreplace(mx))
        if ratio.is_number and ratio > 0 and ((upper and ratio >= 1) or (not upper and ratio <= 1)):
            return f"the bound changes by the factor {ratio}, which is {'>=' if upper else '<='} 1 on the whole domain"
        return ""
    diff = sympy.factor(sympy.simplify(r1 - r0))
    if all(params[x].bounds()[0] is not None and params[x].bounds()[0] >= 0 for x in diff.free_symbols
           if x in params) and diff.free_symbols <= set(params) and _monomial_sign(diff) == (1 if upper else -1):
        return f"the bound changes by {diff}, a product of non-negative factors, {'>=' if upper else '<='} 0"
    if sympy.sympify(r0).is_zero:  # a bound 0 (the fields sit in the left side): no ratio to read
        return ""
    ratio = sympy.powsimp(sympy.simplify(r1 / r0), force=True)
    coeff, rest = ratio.as_coeff_Mul()
    factors = sympy.Mul.make_args(rest) if rest != 1 else ()
    worst = sympy.sympify(coeff)
    for fct in factors:
        base, ex = fct.as_base_exp()
        if base.is_number and base > 0 and ex.free_symbols and len(ex.free_symbols) == 1:
            (x,) = ex.free_symbols  # b^(k x): monotone in x
            k = sympy.simplify(ex / x)
            if x not in params or not k.is_number:
                return ""
            lo, hi = params[x].bounds()
            increasing = (sympy.log(base) * k) > 0
            end = lo if (increasing == upper) else hi
            if end is None:
                return ""
            worst *= base ** (k * end)
            continue
        if base not in params or not ex.is_number:
            return ""
        lo, hi = params[base].bounds()
        if lo is None or lo < 0:
            return ""
        want_small = (ex > 0) == upper
        end = lo if want_small else hi
        if end is None:
            return ""
        worst *= end ** ex
    if (upper and worst >= 1) or (not upper and worst <= 1):
        return f"the bound changes by the factor {ratio}, which is {'>=' if upper else '<='} 1 on the whole domain"
    return ""


def _monomial_sign(expr) -> int:
    """+1 / -1 when ``expr`` is a number times non-negative factors (parameters with a lower end >= 0, positive
    numbers to powers), 0 when not shown."""
    coeff, rest = sympy.sympify(expr).as_coeff_Mul()
    if coeff == 0:
        return 0
    for fct in sympy.Mul.make_args(rest):
        base, ex = fct.as_base_exp()
        if not (base.is_Symbol or (base.is_number and base > 0)):
            return 0
    return 1 if coeff > 0 else -1


# --------------------------------------------------------------------------- the check
@dataclass
class CheckResult:
    verdict: str  # "verified" | "refuted"
    counterexample: dict | None
    evidence: dict


_SIMPLE = [sympy.Rational(n, d) for n, d in ((1, 100), (1, 10), (1, 3), (1, 2), (2, 3), (1, 1), (3, 2), (2, 1),
                                              (10, 1), (100, 1))]


def _sample_rat(p: Param, rng: random.Random):
    lo = -3 if p.lo is None else float(p.lo)
    hi = 3 if p.hi is None else float(p.hi)
    if p.lo is not None and p.lo >= 0 and (p.hi is None or p.hi > 10):  # positive: log-uniform
        x = math.exp(rng.uniform(math.log(max(lo, 1e-3)), math.log(min(hi, 1e3) if p.hi is not None else 1e3)))
    else:
        x = rng.uniform(lo, hi)
    return sympy.Rational(Fraction(x).limit_denominator(rng.choice((1, 2, 4, 10, 100, 1000))))


def _sample(st: Statement, rng: random.Random, simple: bool):
    env = {}
    for p in st.params:
        if p.kind == "int":
            env[p.name] = sympy.Integer(rng.choice(p.values))
        elif p.kind == "rat":
            if simple:  # simple values, half of them 0 where 0 is allowed (sparse points: coordinate cases)
                choices = [v for v in _SIMPLE + [-v for v in _SIMPLE] if p.contains(v)]
                zero = p.contains(sympy.Integer(0)) and rng.random() < 0.5
                env[p.name] = sympy.Integer(0) if zero else (rng.choice(choices) if choices else _sample_rat(p, rng))
            else:
                env[p.name] = _sample_rat(p, rng)
    for p in st.params:
        if p.kind == "matrix":
            rows, cols = (int(env[s]) if s in env else int(sympy.sympify(s).xreplace(
                {sympy.Symbol(k): v for k, v in env.items() if not isinstance(v, sympy.MatrixBase)})) for s in p.shape)
            if simple:
                ent = [rng.choice((0, 0, 1, -1)) for _ in range(rows * cols)]
            else:
                ent = [Fraction(rng.uniform(float(p.lo), float(p.hi))).limit_denominator(rng.choice((2, 10, 100)))
                       for _ in range(rows * cols)]
            env[p.name] = sympy.Matrix(rows, cols, [sympy.Rational(e) for e in ent])
    for p in st.params:
        if p.kind == "rat" and not p.contains(env[p.name]):
            return None
    return env


_FLOAT_CACHE: dict = {}


def _float_parts(st: Statement):
    """Float64 functions of the non-matrix parameters (then the computed quantities and suprema, in order): the two
    sides and each hypothesis (cached per statement object)."""
    hit = _FLOAT_CACHE.get(id(st))
    if hit is not None and hit[0] is st:
        return hit[1]
    lhs, rhs = st.substituted()
    sub = {f.symbol: sympy.sympify(f.value) for f in st.fields}
    psyms = [p.symbol for p in st.params if p.kind != "matrix"]
    syms = psyms + [c.symbol for c in st.computed] + [sp.symbol for sp in st.sups]
    sides = sympy.lambdify(syms, [lhs, rhs], modules="math")
    hyps = [sympy.lambdify(psyms, sympy.sympify(h.predicate).xreplace(sub), modules="math") for h in st.hypotheses]
    if len(_FLOAT_CACHE) > 256:
        _FLOAT_CACHE.clear()
    _FLOAT_CACHE[id(st)] = (st, (sides, hyps))
    return sides, hyps


def _pvals(st, env):
    return [float(env[p.name]) for p in st.params if p.kind != "matrix"]


def _float_hyps(st: Statement, env: dict) -> bool:
    _, hyps = _float_parts(st)
    try:
        return all(bool(h(*_pvals(st, env))) for h in hyps)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return False


def _score(st: Statement, env: dict) -> float:
    """Float violation score: > 0 where the relation fails (scale-free: the gap over |lhs| + |rhs|)."""
    sides, _ = _float_parts(st)
    try:
        extra = [c.approx(_computed_env(st, c, env)) for c in st.computed]
        if st.sups:  # the supremum is decided exactly: at the point's exact binary value
            sub = _env_sub(st, {k: sympy.Rational(Fraction(v)) if isinstance(v, float) else v for k, v in env.items()})
            for sp in st.sups:
                v = _sup_value(sp, sub)
                extra.append(float(v.mid()) if isinstance(v, arb) else float(v))
        fa, fb = (float(x) for x in sides(*_pvals(st, env), *extra))
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return -math.inf
    if math.isnan(fa) or math.isnan(fb):
        return -math.inf
    if not (math.isfinite(fa) and math.isfinite(fb)):
        return 1.0 if fa == math.inf and st.relation in ("<=", "<", "=") else -math.inf
    den = abs(fa) + abs(fb) + 1e-300
    if st.relation in ("<=", "<"):
        return (fa - fb) / den
    if st.relation in (">=", ">"):
        return (fb - fa) / den
    return abs(fa - fb) / den


def check(st: Statement, budget: int | None = None, starts: int | None = None) -> CheckResult:
    """Search the statement's domain for a point where its relation fails, deciding every point exactly."""
    import numpy as np
    from scipy.optimize import minimize

    budget = st.budget if budget is None else budget
    starts = st.starts if starts is None else starts
    rng = random.Random(st.seed)
    tested = undecided = 0
    scored = []

    def test(env, how):
        nonlocal tested, undecided
        if env is None or hypotheses_hold(st, env) is not True:
            return None
        if not all(p.contains(env[p.name]) for p in st.params if p.kind == "rat"):
            return None  # a Nelder-Mead point rounded onto an open end of the domain: not a point of the statement
        try:
            r = evaluate(st, env)
        except (ArithmeticError, ZeroDivisionError):
            return None
        tested += 1
        if r["holds"] is None:
            undecided += 1
        if r["holds"] is False:
            return {"point": _show_env(st, env), "lhs": _show(r["lhs"]), "rhs": _show(r["rhs"]),
                    "relation": st.relation, "found_by": how,
                    "certified": "exact rationals" if not any(isinstance(x, arb) or not sympy.sympify(x).is_Rational
                                                                for x in (r["lhs"], r["rhs"])) else "Arb balls"}
        return r

    drawn = i = 0
    while i < budget and drawn < 40 * budget:  # draw until ``budget`` points pass the hypotheses (float pre-filter)
        drawn += 1
        env = _sample(st, rng, simple=drawn % 2 == 0)
        if env is None or not _float_hyps(st, env):
            continue
        i += 1
        r = test(env, "simple values" if drawn % 2 == 0 else "random values")
        if isinstance(r, dict) and "point" in r:
            return CheckResult("refuted", r, {"tested": tested, "seed": st.seed})
        if r is not None:
            scored.append((_score(st, env), i, env))
    # Nelder-Mead on the float score from the best points, over the continuous parameters; rounded back
    scored.sort(key=lambda t: (-t[0], t[1]))
    cont = [p for p in st.params if p.kind in ("rat", "matrix")]
    for s0, _, env0 in scored[:starts]:
        x0, layout = [], []
        for p in cont:
            v = env0[p.name]
            vals = list(v) if p.kind == "matrix" else [v]
            layout.append((p, len(vals)))
            x0 += [float(e) for e in vals]

        def unpack(x, den=None):
            env, k = dict(env0), 0
            for p, n in layout:
                vals = [sympy.Rational(Fraction(float(e)).limit_denominator(den)) if den else sympy.Rational(Fraction(float(e)))
                        for e in x[k:k + n]]
                env[p.name] = sympy.Matrix(env0[p.name].shape[0], env0[p.name].shape[1], vals) if p.kind == "matrix" \
                    else vals[0]
                k += n
            return env

        def unpack_float(x):
            env, k = dict(env0), 0
            for p, n in layout:
                env[p.name] = np.array(x[k:k + n], dtype=float).reshape(env0[p.name].shape) if p.kind == "matrix" \
                    else float(x[k])
                k += n
            return env

        def f(x):
            env = unpack_float(x)
            if any(p.kind == "rat" and not p.contains(env[p.name]) for p in cont) or not _float_hyps(st, env):
                return 10.0
            return -_score(st, env)

        x, last = np.array(x0), math.inf
        for rnd in range(_ROUNDS):  # Nelder-Mead stalls on the hypotheses' walls: restart from its end, fresh simplex
            simplex = np.vstack([x] + [x + np.eye(len(x))[k] * (0.25 * abs(x[k]) + 0.05) for k in range(len(x))])
            res = minimize(f, x, method="Nelder-Mead", options={"maxfev": 80 * max(1, len(x)), "xatol": 1e-12,
                                                                "fatol": 1e-14, "initial_simplex": simplex})
            moved = rnd == 0 or res.fun < last - 1e-12
            x, last = res.x, res.fun
            for den in (1, 2, 10, 100, 10 ** 3, 10 ** 4, 10 ** 6):
                env = unpack(x, den)
                if _score(st, env) < -1e-6:  # clearly no violation in float64: not worth an exact decision
                    continue
                r = test(env, f"Nelder-Mead from the start of score {s0:.3g} (round {rnd + 1}), "
                                         f"rounded to 1/{den}")
                if isinstance(r, dict) and "point" in r:
                    return CheckResult("refuted", r, {"tested": tested, "seed": st.seed})
            if not moved or -res.fun < -0.9:  # stalled, or far from a violation: next start
                break
    best = scored[0][0] if scored else None
    return CheckResult("verified", None, {"tested": tested, "drawn": drawn, "undecided": undecided, "seed": st.seed,
                                          "budget": budget, "starts": starts,
                                          "best_score": None if best is None else float(f"{best:.6g}")})


# --------------------------------------------------------------------------- the run behind ``verify variants``
#: what a variant's check outcome is, by its class and the check's verdict
OUTCOMES = {("false", "refuted"): "caught", ("false", "verified"): "missed",
            ("true", "verified"): "control held", ("true", "refuted"): "false alarm"}


def run_variant(st: Statement, v: Variant) -> dict:
    """One variant of ``st``: its class (:func:`classify`), the statement's own search on it (:func:`check`) and
    the outcome (:data:`OUTCOMES`; ``"unknown: <verdict>"`` for an unknown class): ``{"variant", "kind", "class",
    "reason", "check", "evidence", "outcome"}`` with ``classified_at`` (the data's instance that makes a false
    variant false) and ``counterexample`` (the one the search found) when there are."""
    cls = classify(st, v)
    res = check(v.statement)
    row = {"variant": v.name, "kind": v.kind, "class": cls["class"], "reason": cls["reason"],
           "check": res.verdict, "evidence": res.evidence}
    if "instance" in cls:
        row["classified_at"] = {k: cls[k] for k in ("instance", "lhs", "rhs")}
    if res.counterexample is not None:
        row["counterexample"] = res.counterexample
    row["outcome"] = OUTCOMES.get((cls["class"], res.verdict), "unknown: " + res.verdict)
    return row


def sample_variants(st: Statement, n_false: int = 2, n_true: int = 1, seed: int | None = None) -> list:
    """A seeded, fixed sample of ``st``'s variants, in :func:`variants` order: ``n_false`` false ones and ``n_true``
    true controls (classified exactly, without a check; fewer when the statement has fewer), drawn with
    ``random.Random(seed)`` (default: the statement's own ``seed``), so the default tier runs the same variants
    on every run and machine."""
    for name, val in (("n_false", n_false), ("n_true", n_true)):
        if isinstance(val, bool) or not isinstance(val, int) or val < 0:
            raise VerifyInputError(f"Argument '{name}' must be an integer >= 0, not {val!r}.")
    rng = random.Random(st.seed if seed is None else seed)
    vs = variants(st)
    by_class: dict = {}
    for i, v in enumerate(vs):
        by_class.setdefault(classify(st, v)["class"], []).append(i)
    keep = set()
    for cls, k in (("false", n_false), ("true", n_true)):
        pool = by_class.get(cls, [])
        keep.update(rng.sample(pool, min(k, len(pool))))
    return [vs[i] for i in sorted(keep)]


def _identity(st: Statement) -> str:
    """The statement object in full, the same text in every process: its ``repr`` without the memory addresses of
    the functions it holds (named by their qualified names). Two statements may print the same LaTeX (a variant
    scaling a constant of a zero side), never the same identity."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(st))


def _original_check(st: Statement) -> dict:
    """The statement's own search on the statement itself, as :func:`run_claim` reports it."""
    res = check(st)
    return {"check": res.verdict, "evidence": res.evidence,
            **({"counterexample": res.counterexample} if res.counterexample else {})}


def run_claim(st: Statement, progress: Callable | None = None, only: list | None = None, store=None) -> dict:
    """Check the statement and each of its variants (``only``: these :class:`Variant` objects, e.g. a
    :func:`sample_variants`) with :func:`run_variant`. ``store`` (a :class:`verify.session_store.SessionStore`):
    the check of the statement and of each variant is taken from it, computed there once per pytest session (the
    default tier's sample is part of the slow tier's every variant: a session of both tiers searches each once),
    and every value is its JSON reading, the same for the check that computed it.

    A ``false`` variant is *caught* when the check ends ``refuted`` (with its own certified counterexample); a
    ``true`` control is a *false alarm* when it ends ``refuted``; ``unknown`` variants are reported, not counted.
    Returns ``{"claim", "statement" (LaTeX), "original" (the check of the paper's statement), "variants": [...],
    "false", "caught", "recall", "true", "false_alarms", "unknown"}``."""
    chosen = variants(st) if only is None else only
    if store is None:
        original = _original_check(st)
        rows = []
        for v in chosen:
            rows.append(run_variant(st, v))
            if progress is not None:
                progress(st.claim, rows[-1])
    else:
        statement = _identity(st)
        got = store.get_all([(f"statement-{st.claim}", {"claim": st.claim, "statement": statement, "variant": None},
                              lambda: _original_check(st))]
                            + [(f"variant-{st.claim}", {"claim": st.claim, "statement": statement, "variant": v.name,
                                                         "kind": v.kind, "variant_statement": _identity(v.statement)},
                                lambda v=v: run_variant(st, v)) for v in chosen])
        original, rows = got[0], got[1:]
        for row in rows if progress is not None else ():
            progress(st.claim, row)
    n_false = sum(r["class"] == "false" for r in rows)
    caught = sum(r["outcome"] == "caught" for r in rows)
    n_true = sum(r["class"] == "true" for r in rows)
    alarms = sum(r["outcome"] == "false alarm" for r in rows)
    return {"claim": st.claim, "where": st.where, "statement": st.latex(),
            "fields": [{"name": f.name, "kind": f.kind, "value": str(f.value)} for f in st.fields],
            "original": original, "variants": rows, "false": n_false, "caught": caught,
            "recall": None if not n_false else round(caught / n_false, 4), "true": n_true, "false_alarms": alarms,
            "unknown": sum(r["class"] == "unknown" for r in rows)}


def summarise(results: list) -> dict:
    """Overall recall (false variants caught) and false alarms (true controls refuted) over ``run_claim`` results."""
    n_false = sum(r["false"] for r in results)
    caught = sum(r["caught"] for r in results)
    return {"claims": len(results), "variants": sum(len(r["variants"]) for r in results), "false": n_false,
            "caught": caught, "recall": None if not n_false else round(caught / n_false, 4),
            "true": sum(r["true"] for r in results), "false_alarms": sum(r["false_alarms"] for r in results),
            "unknown": sum(r["unknown"] for r in results),
            "originals_verified": sum(r["original"]["check"] == "verified" for r in results)}


# --------------------------------------------------------------------------- the statement a check reads
#: names the variant the checks read instead of the paper's statement: ``CLAIM::variant name`` (e.g.
#: ``S-lemA.4-weil::C x 9/10``); unset or naming another claim: the paper's statement
VARIANT_ENV = "VERIFY_STATEMENT_VARIANT"


def current(claim: str) -> Statement:
    """The statement object a check of ``claim`` evaluates: the paper's, or the variant named by
    ``$VERIFY_STATEMENT_VARIANT`` (how ``verify variants`` injects a variant into a claim's own checks), or the hand
    edit named ``edit:<name>`` there (:mod:`verify.statement_data.hand_edits`, ``verify variants --edits``)."""
    from .statement_data import get_statement

    st = get_statement(claim)
    spec = os.environ.get(VARIANT_ENV, "")
    target, _, name = spec.partition("::")
    if target != claim:
        return st
    if name.startswith("edit:"):  # a hand-written wrong statement (verify.statement_data.hand_edits)
        from .statement_data.hand_edits import get_edit

        return get_edit(claim, name[len("edit:"):]).statement
    for v in variants(st):
        if v.name == name:
            return v.statement
    raise VerifyInputError(f"Environment variable {VARIANT_ENV} must name a variant of {claim} "
                           f"({', '.join(v.name for v in variants(st))}), not {name!r}.")


def constants(claim: str, **params) -> dict:
    """The constants and exponents of ``claim``'s current statement (:func:`current`) by field name, as sympy numbers,
    or expressions in the statement's parameters with ``params`` put in: what a check reads instead of typing them.

    >>> constants("S-lemA.4-pow2")
    {'C': 2, 'D': 2, 'e': 1/2}
    >>> constants("S-eq9", m=3)
    {'C_a': 2, 'e_1': 3, 'e_2': 6}
    """
    names = {p.name for p in current(claim).params}
    bad = sorted(set(params) - names)
    if bad:
        raise VerifyInputError(f"Argument '{bad[0]}' must be a parameter of {claim} ({', '.join(sorted(names))}).")
    sub = {sympy.Symbol(k): sympy.sympify(v) for k, v in params.items()}
    return {f.name: sympy.sympify(f.value).xreplace(sub) for f in current(claim).fields}


def sides(claim: str, env: dict, **given) -> tuple:
    """``(lhs, rhs)`` of the current statement of ``claim`` (:func:`current`) at the parameters ``env``, exactly
    (sympy numbers, or Arb balls), with the computed quantities ``given`` by the check's own route: the bound a check
    compares with, built from the statement object's constants (never typed by the check)."""
    st = current(claim)
    full = {p.name: sympy.Integer(0) for p in st.params if p.kind != "matrix"}
    full.update({k: sympy.sympify(v) for k, v in env.items()})
    r = evaluate(st, full, given)
    return r["lhs"], r["rhs"]


def holds(claim: str, env: dict, **given) -> bool | None:
    """Whether the current statement of ``claim`` (:func:`current`) holds at the parameters ``env``, with the
    computed quantities ``given`` by the check's own route (e.g. ``holds("S-lemA.4-weil", {"r": 3, "n": 3},
    S_P=-4)``): decided exactly; None when not decided. The check never re-types the statement's constants."""
    st = current(claim)
    full = {p.name: sympy.Integer(0) for p in st.params if p.kind != "matrix"}
    full.update({k: sympy.sympify(v) for k, v in env.items()})
    return evaluate(st, full, given)["holds"]
