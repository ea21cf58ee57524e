r"""The hypothesis-necessity table: does each stated hypothesis of a verified theorem matter?

For a theorem or lemma with stated hypotheses :math:`H_1, \dots, H_k`, row :math:`i` drops :math:`H_i` (keeping the
others) and searches the weakened statement for a counterexample with :func:`verify.search.run_search`, i.e.
``verify search`` on a registered objective of :mod:`verify.objectives` (block "weakened statements"), with that
objective's seed and maxiter and ``verify search``'s budget rule (a number of seeded starts, stopping at the first
violation). The row then says

* ``needed`` - with the counterexample found (start, point, value over the threshold), or
* ``not needed at the budget tried`` - with the size of the search (starts, maxiter, best value): the weakened
  statement survived a search of that size; for some rows it is in fact a theorem (the note says why).

:data:`NOT_SEARCHABLE` lists, per hypothesis, the few without a search: dropping them leaves the statement undefined
(a constant defined by the hypothesis, a quantity that no longer exists), with the reason; two of them are settled
by a one-line argument instead (stated in the reason). Discrete hypotheses (odd degrees, field sizes, "d large
enough") are searched like the others: the objective reads coordinates of x as digits. The table covers every
theorem and lemma of the catalogue except the refuted ones (:data:`REFUTED_THEOREMS`).

>>> [r.objective for r in ROWS if r.claim == "S-lemA.2"]
['S-lemA.2:drop-pd-indefinite', 'S-lemA.2:drop-pd-semidefinite']
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import VerifyInputError, verify_int
from .statement_texts import NECESSITY

__all__ = ["Row", "ROWS", "NOT_SEARCHABLE", "REFUTED_THEOREMS", "DEFAULT_BUDGET", "FAST_BUDGET", "run_row",
           "row_named", "typeset"]

#: ``verify search``'s default number of seeded starts (``--budget``)
DEFAULT_BUDGET = 32
#: the default test tier's budget (the slow tier runs :data:`DEFAULT_BUDGET`)
FAST_BUDGET = 3


@dataclass(frozen=True)
class Row:
    """One row: ``claim``, the ``hypothesis`` dropped (as the paper states it), the ``objective`` of the weakened
    statement (``""`` for a row of :data:`NOT_SEARCHABLE`, whose ``note`` is the reason), the ``expect``-ed outcome
    (the check asserts it, so a search that loses its power fails), a ``note``."""

    claim: str
    hypothesis: str
    objective: str
    note: str = ""

    @property
    def expect(self) -> str:
        from .objectives import get_objective

        if not self.objective:
            return "not searchable"
        return "needed" if get_objective(self.objective).expect == "fails" else "not needed at the budget tried"

    @property
    def hypothesis_tex(self) -> str:
        """The hypothesis typeset (:data:`verify.statement_texts.NECESSITY`)."""
        return NECESSITY[(self.claim, self.hypothesis)][0]

    @property
    def note_tex(self) -> str:
        """The note typeset (empty where the note is)."""
        return NECESSITY[(self.claim, self.hypothesis)][1]


ROWS: tuple[Row, ...] = (
    Row("S-thm3.1", "mu symmetric, mean zero (weakened to mu = N(s, 1), any mean s)", "S-thm3.1:drop-mu-symmetric",
        note="the supports stay i.i.d. Bernoulli(p); a non-zero mean adds p^2 s^2 11^T to E xx^T, so sup Ltilde grows "
             "like n (as Thm 3.2's refutation)"),
    Row("S-thm3.1", "b_i i.i.d. Bernoulli(p) (weakened to exchangeable masks: a mixture of two i.i.d. Bernoulli laws "
        "with mean p)", "S-thm3.1:drop-iid-masks",
        note="a theorem for this family: Ltilde is linear in the law of x and the bound C_2 p d^m linear in p"),
    Row("S-thm3.1", "d > d_0 and n > d^m (weakened to d = 2, n = 4 < d^m = 8)", "S-thm3.1:drop-n-gt-d^m",
        note="the proof's chain Ltilde <= M(W) <= r p mu_2 with r <= d^m does not use n > d^m"),
    Row("S-thm2.2-2", "mu symmetric, mean zero (weakened to mu = N(s, 1), still (1/K, K)-strongly log-concave)",
        "S-thm2.2-2:drop-mu-symmetric", note="Thm 3.2's refutation (non-centred nu) is the same failure"),
    Row("S-thm2.2-2", "b_i i.i.d. Bernoulli(p) (weakened to a mixture of two i.i.d. Bernoulli laws with mean p)",
        "S-thm2.2-2:drop-iid-masks",
        note="a theorem for this family: Ltilde is linear in the law of x and the bound C_3 d does not depend on p"),
    Row("S-thm2.2-2", "d > d_0 and n > d^m (weakened to d = 2, n = 4 < d^m = 8)", "S-thm2.2-2:drop-n-gt-d^m"),
    Row("S-lemA.2", "A positive definite (weakened to: A symmetric, A22 invertible)", "S-lemA.2:drop-pd-indefinite"),
    Row("S-lemA.2", "A positive definite (weakened to: A positive semidefinite, singular, A22 invertible)",
        "S-lemA.2:drop-pd-semidefinite",
        note="a theorem: A >= 0 with A22 > 0 still has Schur complement A11 - A12 A22^-1 A21 >= 0, the proof's step"),
    Row("S-lem4.1", "d sufficiently large (weakened to every d = 2^r, r = 1..3, for the proof's construction)",
        "S-lem4.1:drop-d-large",
        note="the lemma is existential; the row searches its witness, Lemma A.4's construction (m = 2), so a "
             "counterexample shows d large needed for the proof's construction only. The lemma needs it by the "
             "Levenstein bound: N = d^m > d(d+1)/2 unit vectors have |M_ij|^2 >= (3N - d^2 - 2d)/((d+2)(N-d)), "
             "about 3/d, so C_m >= about sqrt(3) and C_m d^(-1/2) < 1 only for d > C_m^2 (not searched here)"),
    Row("S-lemA.4-weil", "deg P odd (weakened to P = c0 + c1 x + c2 x^2 of degree 2)", "S-lemA.4-weil:drop-odd-degree",
        note="the counterexamples are of Weil's excluded form Q^2 - Q + c (e.g. x^2 + x): the sum is +-2^r"),
    Row("S-lemA.4-pow2", "columns from the odd powers x^(2j+1), so every difference P has odd degree (weakened to "
        "the powers x^(j+1))", "S-lemA.4-pow2:drop-odd-exponents",
        note="tr(c x^2) = tr(c^(2^(r-1)) x): an even power folds onto x, and two columns coincide"),
    Row("S-lemA.4-general", "d sufficiently large (weakened to every d = 2..15, m = 2)",
        "S-lemA.4-general:drop-d-large"),
    Row("N-thm2.2", "d >= K (weakened to d = 1 < K = 2)", "N-thm2.2:drop-d-ge-K",
        note="rank Hbar <= d < K, so Hbar^T Hbar = rho I_K is impossible for rho > 0: the solver's minimiser is at "
             "distance >= rho"),
    Row("N-cor3.1", "lam_H lam_W < 1 (weakened to lam_H lam_W > 1, so H* = 0)", "N-cor3.1:drop-c-below-1",
        note="a theorem: f(W, H; H*) = (1)(W, H) + beta/(2Kn) |H - H*|^2 >= min (1) = f(W*, H*; H*), for any d, K, c"),
    Row("N-cor3.1", "d >= K (weakened to d = 1 < K = 2, H* the UFM solver's minimiser of (1))", "N-cor3.1:drop-d-ge-K",
        note="a theorem by the same inequality; uniqueness: equality forces H = H*, then W = W*(H*) (strictly convex in W)"),
    Row("N-lemC.3", "B positive semidefinite", "N-lemC.3:drop-B-psd"),
    Row("N-lemC.3", "B < A (A - B positive definite)", "N-lemC.3:drop-B-below-A"),
    Row("N-lemC.3", "A positive definite", "N-lemC.3:drop-A-pd",
        note="implied by the other two: B >= 0 and A - B > 0 give A > 0, so the search cannot break it"),
    Row("N-lemC.4", "lam_W > 0 (weakened to lam_W < 0 with SigmaT~ + lam_W/K I > 0)", "N-lemC.4:drop-lam_W-pos",
        note="then SigmaT~ > SigmaT~ + lam_W/K I, so (13) exceeds 1 at every point"),
    Row("N-lemB.1", "lam_H >= 0 (weakened to lam_H in (-3/lam_W, 0), the constant stays positive)",
        "N-lemB.1:drop-lam_H-nonneg"),
    Row("N-lemB.1", "lam_W > 0 (weakened to lam_W < 0 with HH^T + n lam_W I > 0, where L is finite; constant with |lam_W|)",
        "N-lemB.1:drop-lam_W-pos",
        note="W*(H) blows up as HH^T + n lam_W I nears singularity while |H| stays bounded: no constant M exists"),
    Row("N-thm4.1-W", "lam_H >= 0 (weakened to lam_H < 0)", "N-thm4.1-W:drop-lam_H-nonneg",
        note="a theorem: the 2 lam_H Tr Sigma_W terms of the product rule and of the flow cancel exactly, so "
             "e^{-2 lH t} d/dt(e^{2 lH t} T_W) = -(2/K) Tr(Sigma_W C SigmaB~ C) for every real lam_H"),
    Row("N-thm4.1-W", "lam_W > 0 (weakened to lam_W < 0 where HH^T + n lam_W I is invertible)",
        "N-thm4.1-W:drop-lam_W-pos",
        note="a theorem where defined: C = (SigmaT~ + lam_W/K I)^{-1} is symmetric, so C SigmaB~ C = C^T SigmaB~ C >= 0 "
             "and Tr(Sigma_W C SigmaB~ C) >= 0 whatever the sign of lam_W"),
)

#: hypotheses the table does not search, because without them the statement is undefined (or, for a few, settled
#: by a one-line argument given instead), with the reason; shown in the table as "not searchable"
NOT_SEARCHABLE: tuple[Row, ...] = (
    Row("S-thm3.1", "m odd", "", note="for even m and symmetric mu, E<x, phi(Ax)> has odd total degree and vanishes, so "
        "Ltilde = -E|phi(Ax)|^2 <= 0 < C_2 p d^m: not needed (proved here; the package's exact loss is for odd m only)"),
    Row("S-thm2.2-2", "mu (1/K, K)-strongly log-concave", "",
        note="the bound's constant C_3 = K + K^3 is defined by K: without the hypothesis there is no C_3 to exceed"),
    Row("S-lemA.1", "V smooth with sufficient decay (Z(s) finite)", "",
        note="without it Z(s), mu_s and the derivative are undefined"),
    Row("S-lemA.1", "f smooth and integrable", "", note="without it E_{mu_s} f and Cov(f, dV/ds) are undefined"),
    Row("S-lemA.3", "x, y with all finite moments", "", note="without second moments Sigma and M are undefined"),
    Row("S-lemA.4-trace", "the field has characteristic 2 (GF(2^r))", "",
        note="chi(0) = 1, chi(1) = -1 is a character of GF(2) only: psi = chi o tr is undefined over GF(p^r), p odd"),
    Row("S-lemA.4-pow2", "d = 2^r", "", note="the construction indexes rows by GF(d), which has characteristic 2 only for "
        "d = 2^r; any other d is Lemma A.4's general case (S-lemA.4-general)"),
    Row("S-lemA.4-general", "2m coefficients (instead of m)", "",
        note="with m coefficients there are 2^(rm) < d^m columns when 2^r < d: the first d^m columns do not exist"),
    Row("S-thm4.2", "the usual assumptions (d > d_0, n > d^m)", "",
        note="an order statement with an unspecified constant C_1 (sup Ltilde >~ min(p d^m, d p^(1/m))): a finite "
             "search has no threshold to exceed (at n = 1, sup Ltilde = p mu_{m+1}^2/mu_{2m} exactly, so the ratio "
             "falls like 1/min(d^m, d p^(1/m-1)): needed asymptotically, by that closed form)"),
    Row("N-thm2.2", "lam_W, lam_H > 0", "", note="rho = (1-c) sqrt(lam_W/lam_H) is undefined at lam_H = 0, and at "
        "lam_W = 0 the infimum of (1) is not attained (scale W up, H down): no global minimiser"),
    Row("N-lemA.1", "SigmaT~ + lam_W/K I invertible (lam_W > 0)", "",
        note="C_B, C~_B, C_W are defined by its inverse: without it the derivatives' right-hand sides are undefined"),
    Row("N-thm4.1-W", "Sigma_W(H_0) != 0", "",
        note="degenerate: with Sigma_W(H_0) = 0 the flow keeps H collapsed, T_W = 0 for all t and the bullet reads 0 = 0"),
)

#: theorems and lemmas of the catalogue without rows: their checks refute them (the table is for verified ones)
REFUTED_THEOREMS: dict[str, str] = {
    "S-thm3.2": "refuted (missing hypothesis: a centred nu)",
    "N-thm4.1-nc1": "refuted (degenerate)", "N-thm4.1-B": "refuted (degenerate)", "N-cor4.2": "refuted (degenerate)",
    "N-thmC.1": "refuted (missing hypothesis)", "N-thm5.1": "refuted (missing hypothesis)",
    "N-thmC.2": "refuted (error)", "N-thm5.2": "refuted (missing hypothesis)",
}


def typeset(claim: str, hypothesis: str, note: str) -> dict:
    """The typeset forms of a necessity record's texts (``hypothesis_tex``, ``note_tex``) where they are this
    registry's: a row of :data:`ROWS` or :data:`NOT_SEARCHABLE` with that claim and hypothesis, its note only where
    the record's note is the row's (a record of other code keeps its plain words)."""
    for r in ROWS + NOT_SEARCHABLE:
        if (r.claim, r.hypothesis) == (claim, hypothesis):
            out = {"hypothesis_tex": r.hypothesis_tex}
            if r.note and r.note == note:
                out["note_tex"] = r.note_tex
            return out
    return {}


def row_named(objective: str) -> Row:
    """The row whose weakened objective is ``objective``."""
    for r in ROWS:
        if r.objective == objective:
            return r
    raise VerifyInputError(f"Argument 'objective' must be one of {', '.join(r.objective for r in ROWS)}, "
                           f"not {objective!r}.")


def run_row(row: Row, budget: int = DEFAULT_BUDGET, client=None) -> dict:
    """Search the weakened statement of ``row`` (seed and maxiter of its objective, ``budget`` starts, stop at the
    first violation); return ``{"outcome", "hypothesis", "objective", "search", "counterexample"?, "note"?}``. A
    counterexample is re-evaluated by :func:`verify.objectives.replay_point` (float64, or exact where the
    objective has a replay)."""
    from .objectives import get_objective, replay_point
    from .search import run_search

    budget = verify_int(budget, "budget", minimum=1)
    if not row.objective:
        raise VerifyInputError(f"Argument 'row' must have a weakened objective; {row.claim}: '{row.hypothesis}' is "
                               f"not searchable ({row.note}).")
    obj = get_objective(row.objective)
    out = run_search(row.objective, budget=budget, client=client, progress=False)
    search = {"objective": row.objective, "starts_run": out.n_done, "budget": budget, "seed": out.seed,
              "maxiter": out.maxiter, "method": out.method, "threshold": obj.threshold, "tol": obj.tol,
              "best": out.best if out.best_start is not None else None, "description": obj.description}
    res = {"hypothesis": row.hypothesis, "objective": row.objective, "search": search}
    if row.note:
        res["note"] = row.note
    if out.counterexample is not None:
        ce = out.counterexample
        rep = replay_point(row.objective, ce["x"])
        found = {"start": ce["start"], "value": ce["value"], "x": ce["x"], "replay": rep["value"],
                 "replay_method": rep["method"]}
        if "/" in rep["value"] and len(rep["value"]) > 40:  # an exact rational too long to read: 30 digits beside it
            import mpmath

            p, q = rep["value"].split("/")
            with mpmath.workdps(40):
                found.update(replay=mpmath.nstr(mpmath.mpf(int(p)) / int(q), 30), replay_exact=rep["value"])
        res.update(outcome="needed", counterexample=found)
    else:
        res["outcome"] = "not needed at the budget tried"
    return res
