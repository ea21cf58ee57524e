r"""The hypothesis-necessity table: does each stated hypothesis of a verified theorem matter?

For a theorem or lemma with stated hypotheses :math:`H_1, \dots, H_k`, row :math:`i` drops :math:`H_i` (keeping the
others) and searches the weakened statement for a counterexample with :func:`verify.search.run_search`, i.e.
``verify search`` on a registered objective of :mod:`verify.objectives` (block "weakened statements"), with that
objective's seed and maxiter and ``verify search``'s budget rule (a number of seeded starts, stopping at the first
violation). The row then says

* ``needed`` - with the counterexample found (start, point, value over the threshold), or
* ``not needed at the budget tried`` - with the size of the search (starts, maxiter, best value): the weakened
  statement survived a search of that size; for some rows it is in fact a theorem (the note says why).

:data:`NOT_SEARCHED` lists the verified theorems and lemmas with stated hypotheses that have no row, and why
(discrete or distributional hypotheses the continuous search cannot drop, thresholds, asymptotic regimes).

>>> [r.objective for r in ROWS if r.claim == "S-lemA.2"]
['S-lemA.2:drop-pd-indefinite', 'S-lemA.2:drop-pd-semidefinite']
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import VerifyInputError, verify_int

__all__ = ["Row", "ROWS", "NOT_SEARCHED", "DEFAULT_BUDGET", "FAST_BUDGET", "run_row", "row_named"]

#: ``verify search``'s default number of seeded starts (``--budget``)
DEFAULT_BUDGET = 32
#: the default test tier's budget (the slow tier runs :data:`DEFAULT_BUDGET`)
FAST_BUDGET = 3


@dataclass(frozen=True)
class Row:
    """One row: ``claim``, the ``hypothesis`` dropped (as the paper states it), the ``objective`` of the weakened
    statement, the ``expect``-ed outcome (the check asserts it, so a search that loses its power fails), a ``note``."""

    claim: str
    hypothesis: str
    objective: str
    note: str = ""

    @property
    def expect(self) -> str:
        from .objectives import get_objective

        return "needed" if get_objective(self.objective).expect == "fails" else "not needed at the budget tried"


ROWS: tuple[Row, ...] = (
    Row("S-lemA.2", "A positive definite (weakened to: A symmetric, A22 invertible)", "S-lemA.2:drop-pd-indefinite"),
    Row("S-lemA.2", "A positive definite (weakened to: A positive semidefinite, singular, A22 invertible)",
        "S-lemA.2:drop-pd-semidefinite",
        note="a theorem: A >= 0 with A22 > 0 still has Schur complement A11 - A12 A22^-1 A21 >= 0, the proof's step"),
    Row("N-lemC.3", "B positive semidefinite", "N-lemC.3:drop-B-psd"),
    Row("N-lemC.3", "B < A (A - B positive definite)", "N-lemC.3:drop-B-below-A"),
    Row("N-lemC.3", "A positive definite", "N-lemC.3:drop-A-pd",
        note="implied by the other two: B >= 0 and A - B > 0 give A > 0, so the search cannot break it"),
    Row("N-lemB.1", "lam_H >= 0 (weakened to lam_H in (-3/lam_W, 0), the constant stays positive)",
        "N-lemB.1:drop-lam_H-nonneg"),
    Row("N-thm4.1-W", "lam_H >= 0 (weakened to lam_H < 0)", "N-thm4.1-W:drop-lam_H-nonneg",
        note="a theorem: the 2 lam_H Tr Sigma_W terms of the product rule and of the flow cancel exactly, so "
             "e^{-2 lH t} d/dt(e^{2 lH t} T_W) = -(2/K) Tr(Sigma_W C SigmaB~ C) for every real lam_H"),
)

#: verified theorems / lemmas with stated hypotheses that the table does not search, and why
NOT_SEARCHED: dict[str, str] = {
    "S-thm3.1": "hypotheses are discrete or distributional (m odd, mu symmetric, i.i.d. Bernoulli(p) supports): the "
                "continuous search over W cannot drop them",
    "S-thm2.2-2": "hypotheses are distributional ((1/K, K)-strong log-concavity, symmetry, independence); Thm 3.2's "
                  "refutation (non-centred nu) already shows that centring is needed",
    "S-lemA.1": "smoothness and integrability of the family mu_s: dropping them makes the quantities undefined",
    "S-lemA.3": "finite moments: dropping it makes Sigma and M undefined",
    "S-lemA.4-weil": "odd degree of P is discrete (not a continuous search); e.g. P = x^2 + x has tr P = 0 on GF(2^r)",
    "S-lem4.1": "'d large enough' is a threshold: the check itself lists the small d where coherence reaches 1",
    "S-lemA.4-pow2": "d = 2^r and m are discrete parameters",
    "S-lemA.4-general": "d and m are discrete parameters",
    "N-lemC.4": "'for any H' with lam_W > 0: dropping lam_W > 0 leaves (SigmaT~ + lam_W/K I)^{-1/2} undefined",
    "N-thmC.1": "first-order (asymptotic) statement; its hypothesis beta > 0 with a unique minimiser is structural",
    "N-thm5.1": "asymptotic in beta; no finite hypothesis to drop",
    "N-thm2.2": "c < 1 versus c > 1 is the theorem's own case split, both cases checked",
    "N-cor3.1": "the hypothesis H0 = H* is the statement's input, not a condition to drop",
}


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
        res.update(outcome="needed", counterexample={"start": ce["start"], "value": ce["value"], "x": ce["x"],
                                                     "replay": rep["value"], "replay_method": rep["method"]})
    else:
        res["outcome"] = "not needed at the budget tried"
    return res
