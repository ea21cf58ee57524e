r"""The one decision rule of every experimental (``emp``) claim, fixed here before any run (torch-free).

An experiment compares settings over ``s`` seeds. Each **comparison** of a claim is a vector of
per-seed *signed* effects :math:`e_1,\dots,e_s`, oriented so that :math:`e_j > 0` is the direction
the paper claims (a paired contrast: the settings of one seed share the initialisation and the data
order; a control enters as a difference of contrasts, never as a separate test). The rule:

1. **Test.** Per comparison, two exact one-sided sign-flip permutation tests of
   :math:`H_0`: the :math:`e_j` are symmetric about 0. With :math:`T(e) = \sum_j e_j` and
   :math:`\varepsilon \in \{\pm1\}^s` all :math:`2^s` sign patterns,

   .. math:: p_{\text{for}} = 2^{-s}\,\#\{\varepsilon: T(\varepsilon e) \ge T(e)\},\qquad
             p_{\text{against}} = 2^{-s}\,\#\{\varepsilon: T(\varepsilon e) \le T(e)\}.

   The smallest attainable p-value is :math:`2^{-s}`.
2. **Multiplicity.** Holm-Bonferroni over the :math:`k` primary comparisons of the claim, separately
   for the :math:`p_{\text{for}}` family and the :math:`p_{\text{against}}` family, each at
   family-wise :math:`\alpha = 0.05` (:data:`ALPHA`). A comparison is *significant for* (*against*)
   when its Holm-adjusted :math:`p_{\text{for}}` (:math:`p_{\text{against}}`) is :math:`\le\alpha`.
3. **Claim level.** ``contradicted`` when some primary comparison is significant against;
   ``supported`` when every primary comparison is significant for; ``inconclusive`` otherwise.
   (Both at once is impossible: :math:`p_{\text{for}} + p_{\text{against}} \ge 1`.) Under any null
   with symmetric per-seed effects, each of "false supported" and "false contradicted" has
   probability :math:`\le\alpha`, whatever the dependence between comparisons (Holm controls the
   family-wise error under arbitrary dependence); ``tests/test_decision.py`` simulates it.
4. **Seeds.** Holm's first step needs :math:`2^{-s} \le \alpha/k`, so a claim with ``k`` primary
   comparisons can only be decided with :math:`s \ge` :func:`min_seeds` ``(k)``
   (:math:`k = 1, 2, 4, 8 \Rightarrow s \ge 5, 6, 7, 8`); fewer seeds can only give ``inconclusive``.
5. **Evidence.** Per comparison: the per-seed effects, their mean, both p-values, both Holm-adjusted
   p-values, and the two-sided 95% Student-t confidence interval of the mean effect (descriptive,
   unadjusted; the decision uses only the permutation p-values). *Descriptive* comparisons (other
   settings, the raw arms of a contrast) get the same numbers but never enter the decision.

Why a sign-flip test: it is exact for any symmetric distribution of per-seed effects (no normality
with 5-10 seeds), and with a paired design the symmetry holds under "the setting does not matter".
It is the one-sample case of :func:`scipy.stats.permutation_test` (``permutation_type="samples"``),
which gives the same p-values (tested) but takes ~100x longer on the null simulation's 10^5
comparisons, so the enumeration here is a matrix product with the :math:`2^s\times s` sign matrix.

>>> r = decide({"a": [0.3, 0.5, 0.2, 0.4, 0.6, 0.1]}, claimed="a > 0")
>>> r["verdict"], r["comparisons"]["a"]["p_for"], r["comparisons"]["a"]["outcome"]
('supported', 0.015625, 'for')
>>> decide({"a": [0.3, 0.5, 0.2, 0.4, 0.6, 0.1], "b": [0.1, -0.2, 0.3, -0.1, 0.2, 0.0]}, claimed="x")["verdict"]
'inconclusive'
>>> min_seeds(8)
8
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np

from ._validate import VerifyInputError, verify_int

__all__ = ["ALPHA", "MAX_SEEDS", "RULE", "sign_flip_pvalues", "holm", "min_seeds", "t_interval", "decide",
           "decide_batch", "VERDICTS"]

#: family-wise error rate of one claim (per direction), fixed before any run
ALPHA = 0.05
#: exact enumeration holds 2^s sign patterns: 2^20 = 10^6 columns is the most that stays cheap
MAX_SEEDS = 20
#: claim-level verdicts, indexed by the codes of :func:`decide_batch`
VERDICTS = ("inconclusive", "supported", "contradicted")
#: one line for the evidence of every verdict
RULE = (f"per comparison an exact one-sided sign-flip permutation test on the per-seed signed effects (sum "
        f"statistic), Holm-Bonferroni over the claim's primary comparisons at family-wise alpha = {ALPHA} per "
        "direction; supported = every primary comparison significant in the claimed direction, contradicted = "
        "one significant in the opposite direction, otherwise inconclusive (verify.decision)")


@lru_cache(maxsize=None)
def _signs(s: int) -> np.ndarray:
    """All 2^s sign patterns as a (s, 2^s) float matrix (row j: the sign of seed j)."""
    codes = np.arange(2**s, dtype=np.int64)
    bits = (codes[None, :] >> np.arange(s, dtype=np.int64)[:, None]) & 1
    return (1 - 2 * bits).astype(float)


def sign_flip_pvalues(effects, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact one-sided sign-flip p-values :math:`(p_{\text{for}}, p_{\text{against}})` over the last axis.

    ``effects``: shape ``(..., s)``; returns two arrays of shape ``(...)``. ``chunk`` bounds the
    number of (row, pattern) pairs held at once (memory only; the result does not depend on it).

    >>> pf, pa = sign_flip_pvalues([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> float(pf), float(pa)
    (0.03125, 1.0)
    """
    e = np.asarray(effects, dtype=float)
    if e.ndim < 1 or e.shape[-1] < 1:
        raise VerifyInputError("Argument 'effects' must have at least one seed on its last axis.")
    if not np.all(np.isfinite(e)):
        raise VerifyInputError("Argument 'effects' must be finite.")
    s = e.shape[-1]
    if s > MAX_SEEDS:
        raise VerifyInputError(f"Argument 'effects' must have at most {MAX_SEEDS} seeds (exact enumeration), not {s}.")
    lead = e.shape[:-1]
    flat = e.reshape(-1, s)
    S = _signs(s)
    # Sums that are equal in exact arithmetic (ties, e.g. equal |e_j|) differ by round-off of at most
    # ~s ulps of max|e|; 64 s eps max|e| counts them as ties (as scipy's permutation_test does) and is far
    # below any real difference between two sign patterns' sums of measured effects.
    tol = 64 * s * np.finfo(float).eps * np.abs(flat).max(axis=1, initial=0.0)
    obs = flat.sum(axis=1)
    p_for = np.empty(flat.shape[0])
    p_against = np.empty(flat.shape[0])
    rows = max(1, chunk // S.shape[1])
    for a in range(0, flat.shape[0], rows):
        T = flat[a:a + rows] @ S
        o, t = obs[a:a + rows, None], tol[a:a + rows, None]
        p_for[a:a + rows] = (T >= o - t).mean(axis=1)
        p_against[a:a + rows] = (T <= o + t).mean(axis=1)
    return p_for.reshape(lead), p_against.reshape(lead)


def holm(pvalues) -> np.ndarray:
    r"""Holm-Bonferroni adjusted p-values over the last axis (each row one family):
    :math:`\tilde p_{(i)} = \max_{j\le i}\min\{1, (k-j+1)\,p_{(j)}\}` for the sorted :math:`p_{(1)}\le\dots\le p_{(k)}`.
    Reject :math:`H_i` at family-wise :math:`\alpha` iff :math:`\tilde p_i\le\alpha`.

    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim < 1 or p.shape[-1] < 1:
        raise VerifyInputError("Argument 'pvalues' must hold at least one p-value on its last axis.")
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise VerifyInputError("Argument 'pvalues' must lie in [0, 1].")
    k = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    adj = np.minimum(1.0, np.maximum.accumulate(ps * (k - np.arange(k)), axis=-1))
    out = np.empty_like(adj)
    np.put_along_axis(out, order, adj, axis=-1)
    return out


def min_seeds(n_comparisons: int, alpha: float = ALPHA) -> int:
    r"""Fewest seeds with which ``n_comparisons`` primary comparisons can be decided at all:
    the smallest ``s`` with :math:`2^{-s}\le\alpha/k` (Holm's first step).

    >>> [min_seeds(k) for k in (1, 2, 3, 4, 8)]
    [5, 6, 6, 7, 8]
    """
    k = verify_int(n_comparisons, "n_comparisons", minimum=1)
    return max(1, math.ceil(math.log2(k / alpha) - 1e-12))  # the epsilon keeps exact powers of 2 exact


def t_interval(effects: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Two-sided Student-t confidence interval of the mean effect (``(-inf, inf)`` with one seed)."""
    from scipy import stats

    e = np.asarray(effects, dtype=float)
    if e.size < 2:
        return (-math.inf, math.inf)
    half = float(stats.t.ppf(0.5 + level / 2, e.size - 1) * e.std(ddof=1) / math.sqrt(e.size))
    return (float(e.mean()) - half, float(e.mean()) + half)


def decide_batch(effects, alpha: float = ALPHA) -> dict:
    r"""The rule on many experiments at once: ``effects`` of shape ``(N, k, s)`` (N experiments, k primary
    comparisons, s seeds). Returns the per-comparison p-values, Holm-adjusted p-values (``(N, k)`` each)
    and ``code`` ``(N,)``: 0 inconclusive, 1 supported, 2 contradicted (:data:`VERDICTS`)."""
    e = np.asarray(effects, dtype=float)
    if e.ndim != 3:
        raise VerifyInputError("Argument 'effects' must have shape (experiments, comparisons, seeds).")
    p_for, p_against = sign_flip_pvalues(e)
    h_for, h_against = holm(p_for), holm(p_against)
    sig_for, sig_against = h_for <= alpha, h_against <= alpha
    code = np.where(sig_against.any(axis=1), 2, np.where(sig_for.all(axis=1), 1, 0))
    return {"p_for": p_for, "p_against": p_against, "p_for_holm": h_for, "p_against_holm": h_against,
            "code": code}


def _describe(e: np.ndarray, pf: float, pa: float) -> dict:
    lo, hi = t_interval(e)
    return {"effects": [float(v) for v in e], "mean": float(e.mean()),
            "sd": float(e.std(ddof=1)) if e.size > 1 else None, "p_for": float(pf), "p_against": float(pa),
            "ci95_t": [lo, hi]}


def decide(primary: Mapping[str, Sequence[float]], claimed: str, descriptive: Mapping[str, Sequence[float]] | None = None,
           alpha: float = ALPHA) -> dict:
    r"""Apply the rule to one claim. ``primary``: comparison name -> per-seed signed effects (positive =
    the paper's direction; every comparison the same seeds, in the same order). ``claimed``: what a
    positive effect means, in words. ``descriptive``: further comparisons reported with the same
    statistics, outside the decision.

    Returns ``{"verdict", "reason", "rule", "alpha", "n_seeds", "n_primary", "min_seeds", "claimed",
    "comparisons": {name: {effects, mean, sd, p_for, p_against, p_for_holm, p_against_holm, ci95_t,
    outcome}}, "descriptive": {...}}``; ``outcome`` is ``"for"``, ``"against"`` or ``"n.s."``.
    """
    if not primary:
        raise VerifyInputError("Argument 'primary' must hold at least one comparison.")
    names = list(primary)
    rows = [np.asarray(primary[n], dtype=float).reshape(-1) for n in names]
    s = rows[0].size
    if any(r.size != s for r in rows):
        raise VerifyInputError("Argument 'primary' must give every comparison the same number of seeds.")
    res = decide_batch(np.stack(rows)[None], alpha)
    comps = {}
    for i, n in enumerate(names):
        c = _describe(rows[i], res["p_for"][0, i], res["p_against"][0, i])
        c["p_for_holm"], c["p_against_holm"] = float(res["p_for_holm"][0, i]), float(res["p_against_holm"][0, i])
        c["outcome"] = "against" if c["p_against_holm"] <= alpha else "for" if c["p_for_holm"] <= alpha else "n.s."
        comps[n] = c
    verdict = VERDICTS[int(res["code"][0])]
    k, need = len(names), min_seeds(len(names), alpha)
    if verdict == "contradicted":
        reason = f"significant against the claimed direction: {sorted(n for n, c in comps.items() if c['outcome'] == 'against')}"
    elif verdict == "supported":
        reason = f"all {k} primary comparisons significant in the claimed direction"
    elif s < need:
        reason = (f"underpowered by design: {s} seeds cannot reach Holm's first threshold alpha/{k} "
                  f"(smallest p-value 2^-{s}); {need} seeds needed")
    else:
        reason = f"not significant (Holm, alpha = {alpha}): {sorted(n for n, c in comps.items() if c['outcome'] != 'for')}"
    desc = {}
    for n, v in (descriptive or {}).items():
        e = np.asarray(v, dtype=float).reshape(-1)
        pf, pa = sign_flip_pvalues(e)
        desc[n] = _describe(e, pf, pa)
    return {"verdict": verdict, "reason": reason, "rule": RULE, "alpha": alpha, "n_seeds": s, "n_primary": k,
            "min_seeds": need, "claimed": claimed, "comparisons": comps, "descriptive": desc,
            "ci": "two-sided 95% Student-t interval of the mean effect, unadjusted (descriptive)"}
