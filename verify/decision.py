r"""The one decision rule of every experimental (``emp``) claim, fixed here before any run (torch-free).

An experiment compares settings over ``s`` seeds. Each **comparison** of a claim is a vector of
per-seed *signed* effects :math:`e_1,\dots,e_s`, oriented so that :math:`e_j > 0` is the direction
the paper claims (paired: the settings of one seed share its initialisation, its data subset and its
minibatch order; a control enters as a difference of contrasts, never as a separate test).

**Estimand.** Every claim's estimand is the **median** :math:`\theta` of the per-seed effect (the effect
in a typical seed; signed; a simple effect or a contrast, as the claims registry states,
:attr:`verify.claims.Claim.estimand`). Why not the mean: with 5-25 seeds no test of a mean keeps its
size over all skewed distributions (Bahadur & Savage, 1956); the sign-flip test this rule used before
assumed symmetric effects, and under mean-zero skewed effects its false-``contradicted`` rate reached
6-48% (``tests/test_decision.py`` reproduces that failure). For a median the sign test is exact.

1. **Test.** Per comparison, two exact one-sided **sign tests** (binomial): with :math:`n_+` seeds
   above 0 and :math:`n_-` below (a zero counts for neither direction),

   .. math:: p_{\text{for}} = P(B \ge n_+),\qquad p_{\text{against}} = P(B \ge n_-),\qquad
             B \sim \mathrm{Bin}(s, \tfrac12).

   Under :math:`H_0:\theta \le 0` (resp. :math:`\theta\ge0`) :math:`n_+` (resp. :math:`n_-`) is
   stochastically at most :math:`B` whatever the distribution (skewed, discrete, heavy-tailed), so each
   test has size :math:`\le\alpha`. The smallest attainable p-value is :math:`2^{-s}`.
2. **Claim level.** ``supported`` when *every* primary comparison has :math:`p_{\text{for}}\le\alpha`
   (intersection-union test: the claim is the intersection of the comparisons' alternatives, so requiring
   all of them at level :math:`\alpha` controls false ``supported`` at :math:`\alpha` without a
   multiplicity penalty); ``contradicted`` when some primary comparison is significant against after
   **Holm-Bonferroni** over the :math:`k` primary comparisons (family-wise :math:`\alpha`, any
   dependence); ``inconclusive`` otherwise. Both at once is impossible
   (:math:`p_{\text{for}} + p_{\text{against}} \ge 1`).
3. **Seeds from power.** The planning model: every comparison shifted by :math:`\delta` SD of its
   per-seed noise (normal), so :math:`q = P(e > 0) = \Phi(\delta)`; the sign test's power depends on
   :math:`q` only. :func:`power` is the exact probability of ``supported`` with :math:`k` independent
   comparisons (comparisons of one network are positively correlated, which only raises it);
   :func:`seeds_for_power` is the fewest seeds that give :data:`POWER` = 80% at the smallest effect of
   interest (:data:`EFFECT_OF_INTEREST` = 1 SD for the full presets; the default tier's quick presets
   are planned at :data:`QUICK_EFFECT` = 2 SD to fit its time budget, and say so).
4. **Evidence.** Per comparison: the per-seed effects, median, mean, SD, sample skewness, counts above
   and below 0, both p-values, the Holm-adjusted :math:`p_{\text{against}}`, the exact distribution-free
   95% interval of the median (order statistics), and the descriptive two-sided Student-t interval of
   the mean. Per claim: the estimand, the test, the seeds, the power at the effect of interest and the
   minimum detectable effect (:func:`mde`, 80% power); an ``inconclusive`` says per comparison why
   (:func:`why_not_significant`): "underpowered" only where the planned effect (the effect of interest, in SD of
   the per-seed effects) lies inside the 95% interval of the median, so the data leave it plausible; "small"
   where that interval lies inside plus-minus the planned effect (an equivalence statement with that bound);
   "not significant" where the observed median/SD reached the minimum detectable effect, or the interval excludes
   the planned effect but reaches as far against the claim.
   *Descriptive* comparisons get the same numbers but never enter the decision.
5. **Several data sets.** Where a claim is decided on several data sets (paper N's Table 1 and App. E.2 on real
   MNIST, the paper's own data, and on Fashion-MNIST, the stand-in for CIFAR-10), the rule above runs on each
   data set alone and :func:`combine_datasets` joins them: ``supported`` (``contradicted``) only when *every*
   deciding data set is ``supported`` (``contradicted``); otherwise ``inconclusive`` with the reason
   "data-dependent", naming each data set's outcome (or "inconclusive on every data set" when none decided).
   Requiring agreement is an intersection-union test again: each direction keeps its level :math:`\alpha`.
   The same join gives "budget-dependent" (two training budgets) and "regime-dependent" (all runs against the
   runs at zero training error only) with :func:`combine_outcomes`.

>>> r = decide({"a": [0.3, 0.5, 0.2, 0.4, 0.6, 0.1]}, claimed="a > 0")
>>> r["verdict"], r["comparisons"]["a"]["p_for"], r["comparisons"]["a"]["outcome"]
('supported', 0.015625, 'for')
>>> decide({"a": [0.3, 0.5, 0.2, 0.4, 0.6, 0.1], "b": [0.1, -0.2, 0.3, -0.1, 0.2, 0.0]}, claimed="x")["verdict"]
'inconclusive'
>>> [seeds_for_power(k) for k in (1, 2, 4, 8)]
[13, 16, 18, 23]
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np

from ._validate import VerifyInputError, verify_int, verify_nonnegative, verify_positive, verify_probability

__all__ = ["ALPHA", "POWER", "EFFECT_OF_INTEREST", "QUICK_EFFECT", "MAX_SEEDS", "RULE", "ESTIMAND", "TEST",
           "sign_test_pvalues", "sign_flip_pvalues", "holm", "min_seeds", "t_interval", "median_interval",
           "critical_count", "power", "seeds_for_power", "mde", "skewness", "decide", "decide_batch", "VERDICTS",
           "why_not_significant", "NOT_SIGNIFICANT_WORDS",
           "PATH_TOLERANCE_SD", "verdicts_within", "flip_distance", "margins", "path_spread", "combine_datasets",
           "combine_outcomes"]

#: family-wise error rate of one claim (per direction), fixed before any run
ALPHA = 0.05
#: the power the seeds are planned for
POWER = 0.8
#: smallest effect of interest, in SD of the per-seed effect (normal planning model): full presets
EFFECT_OF_INTEREST = 1.0
#: the default tier's quick presets are planned at this larger effect (their seeds fit the 10-minute CI budget)
QUICK_EFFECT = 2.0
#: largest number of seeds the planning functions search (and the sign-flip enumeration holds: 2^20 patterns)
MAX_SEEDS = 20
_MAX_PLAN = 200
#: claim-level verdicts, indexed by the codes of :func:`decide_batch`
VERDICTS = ("inconclusive", "supported", "contradicted")
#: the per-seed perturbation, in SD of each comparison's per-seed effects (across seeds), within which a verdict is
#: required not to move; a verdict that a perturbation within it could flip is marked fragile. Measured
#: (``verify reproduce nc-interference --quick``, 5 seeds, on an AVX-512 Xeon): torch's default kernels instead of the
#: pinned AVX2 ones moved the per-seed effects of the primary and the three descriptive comparisons by up to 1.13,
#: 1.17, 1.21 and 0.98 SD, and turned the sign of one seed's primary effect: training amplifies a rounding
#: difference into a change as large as a change of seed. The pinned path repeats bit for bit
#: (:mod:`verify.empirical.numerics`); this tolerance stands for what another path (a GPU, a CPU without AVX2,
#: another torch or MKL) may do to the same seeds
PATH_TOLERANCE_SD = 1.25
#: its reason, recorded with every decision
PATH_TOLERANCE_WHY = ("another numerical path (torch's default instead of its AVX2 kernels) moved the quick Fig. 6 "
                      "per-seed effects by up to 1.21 SD of their spread across seeds; a verdict that a "
                      "move of 1.25 SD of any seed's effect could change is fragile")
ESTIMAND = "median of the per-seed signed effect (positive = the paper's direction)"
TEST = "exact one-sided sign test (binomial, zeros count for neither side)"
#: one line for the evidence of every verdict
RULE = (f"per comparison an {TEST} of the median per-seed signed effect; supported = every primary comparison "
        f"significant for the claimed direction at alpha = {ALPHA} (intersection-union, no multiplicity penalty); "
        f"contradicted = one significant against it after Holm-Bonferroni over the primary comparisons "
        f"(family-wise alpha = {ALPHA}); otherwise inconclusive (verify.decision)")


def _counts(effects) -> tuple[np.ndarray, np.ndarray, int]:
    e = np.asarray(effects, dtype=float)
    if e.ndim < 1 or e.shape[-1] < 1:
        raise VerifyInputError("Argument 'effects' must have at least one seed on its last axis.")
    if not np.all(np.isfinite(e)):
        raise VerifyInputError("Argument 'effects' must be finite.")
    return (e > 0).sum(axis=-1), (e < 0).sum(axis=-1), e.shape[-1]


def sign_test_pvalues(effects) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact one-sided sign-test p-values :math:`(p_{\text{for}}, p_{\text{against}})` over the last axis:
    :math:`P(\mathrm{Bin}(s, 1/2) \ge n_+)` and :math:`P(\mathrm{Bin}(s, 1/2) \ge n_-)`.

    >>> pf, pa = sign_test_pvalues([1.0, 2.0, -3.0, 4.0, 5.0])
    >>> float(pf), float(pa)
    (0.1875, 0.96875)
    """
    pos, neg, s = _counts(effects)
    tail = _binomial_tail(s)
    return tail[pos], tail[neg]


@lru_cache(maxsize=None)
def _binomial_tail(s: int) -> np.ndarray:
    """``P(Bin(s, 1/2) >= c)`` for ``c = 0..s``, exactly: an integer sum of binomial coefficients over :math:`2^s` (exact
    in float64 while :math:`2^s < 2^{53}`; checked against ``scipy.stats.binomtest`` in the tests)."""
    if s > 52:
        raise VerifyInputError(f"Argument 'effects' must have at most 52 seeds for the exact sign test, not {s}.")
    counts = [math.comb(s, i) for i in range(s + 1)]
    return np.array([sum(counts[c:]) / 2**s for c in range(s + 1)])


@lru_cache(maxsize=None)
def _signs(s: int) -> np.ndarray:
    """All 2^s sign patterns as a (s, 2^s) float matrix (row j: the sign of seed j)."""
    codes = np.arange(2**s, dtype=np.int64)
    bits = (codes[None, :] >> np.arange(s, dtype=np.int64)[:, None]) & 1
    return (1 - 2 * bits).astype(float)


def sign_flip_pvalues(effects, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact one-sided sign-flip (sum statistic) p-values over the last axis. **Not the rule**: valid only for
    per-seed effects symmetric about 0 under the null; kept to show (``tests/test_decision.py``) how it fails
    under skewed nulls. Same p-values as :func:`scipy.stats.permutation_test` (``permutation_type="samples"``).

    >>> pf, pa = sign_flip_pvalues([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> float(pf), float(pa)
    (0.03125, 1.0)
    """
    _counts(effects)
    e = np.asarray(effects, dtype=float)
    s = e.shape[-1]
    if s > MAX_SEEDS:
        raise VerifyInputError(f"Argument 'effects' must have at most {MAX_SEEDS} seeds (exact enumeration), not {s}.")
    lead = e.shape[:-1]
    flat = e.reshape(-1, s)
    S = _signs(s)
    # sums equal in exact arithmetic differ by round-off of at most ~s ulps of max|e|: 64 s eps max|e| counts them
    # as ties (as scipy does), far below any real difference between two patterns' sums of measured effects
    tol = 64 * s * np.finfo(float).eps * np.abs(flat).max(axis=1, initial=0.0)
    obs = flat.sum(axis=1)
    p_for, p_against = np.empty(flat.shape[0]), np.empty(flat.shape[0])
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
    r"""Fewest seeds with which ``n_comparisons`` primary comparisons can be decided both ways at all: the
    smallest ``s`` with :math:`2^{-s}\le\alpha/k` (Holm's first step for ``contradicted``; ``supported`` needs
    :math:`2^{-s}\le\alpha`). Possible is not likely: :func:`seeds_for_power` plans the seeds.

    >>> [min_seeds(k) for k in (1, 2, 3, 4, 8)]
    [5, 6, 6, 7, 8]
    """
    k = verify_int(n_comparisons, "n_comparisons", minimum=1)
    return max(1, math.ceil(math.log2(k / alpha) - 1e-12))  # the epsilon keeps exact powers of 2 exact


def critical_count(n_seeds: int, alpha: float = ALPHA) -> int | None:
    r"""Smallest count :math:`c` with :math:`P(\mathrm{Bin}(s, 1/2) \ge c) \le \alpha` (the sign test rejects
    when :math:`n_+ \ge c`); ``None`` when even :math:`c = s` cannot reach :math:`\alpha`.

    >>> critical_count(8), critical_count(4)
    (7, None)
    """
    s = verify_int(n_seeds, "n_seeds", minimum=1)
    verify_probability(alpha, "alpha")
    return _critical(s, float(alpha))


@lru_cache(maxsize=None)
def _critical(s: int, alpha: float) -> int | None:
    from scipy import stats

    c = np.arange(s + 1)
    ok = c[stats.binom.sf(c - 1, s, 0.5) <= alpha]
    return int(ok[0]) if ok.size else None


def power(n_seeds: int, n_comparisons: int, effect_sd: float = EFFECT_OF_INTEREST, alpha: float = ALPHA) -> float:
    r"""Exact probability of ``supported`` when each of ``k`` independent comparisons has per-seed effects
    :math:`N(\delta\sigma, \sigma^2)`: :math:`P(\mathrm{Bin}(s, \Phi(\delta)) \ge c)^k`, ``c`` =
    :func:`critical_count`. Non-negatively correlated comparisons (one network) have at least this power.

    >>> round(power(13, 1), 3), round(power(12, 1), 3)
    (0.862, 0.706)
    """
    from scipy import stats

    k = verify_int(n_comparisons, "n_comparisons", minimum=1)
    if not math.isfinite(effect_sd):
        raise VerifyInputError(f"Argument 'effect_sd' must be finite, not {effect_sd}.")
    c = critical_count(n_seeds, alpha)
    if c is None:
        return 0.0
    return float(stats.binom.sf(c - 1, n_seeds, stats.norm.cdf(effect_sd)) ** k)


def seeds_for_power(n_comparisons: int, effect_sd: float = EFFECT_OF_INTEREST, target: float = POWER,
                    alpha: float = ALPHA) -> int:
    r"""Fewest seeds whose :func:`power` at ``effect_sd`` reaches ``target`` (the sign test's power is
    saw-toothed in ``s``; this is the first ``s`` that reaches it)."""
    k = verify_int(n_comparisons, "n_comparisons", minimum=1)
    verify_positive(effect_sd, "effect_sd")
    verify_probability(target, "target")
    found = _first_seeds(k, float(effect_sd), float(target), float(alpha))
    if found is not None:
        return found
    raise VerifyInputError(f"Argument 'effect_sd' must be large enough for {target:.0%} power with at most "
                           f"{_MAX_PLAN} seeds, not {effect_sd}.")


@lru_cache(maxsize=None)
def _first_seeds(k: int, effect_sd: float, target: float, alpha: float) -> int | None:
    return next((s for s in range(1, _MAX_PLAN + 1) if power(s, k, effect_sd, alpha) >= target), None)


def mde(n_seeds: int, n_comparisons: int, target: float = POWER, alpha: float = ALPHA) -> float:
    r"""Minimum detectable effect: the smallest shift :math:`\delta` (in SD of the per-seed effect, normal planning
    model) at which :func:`power` reaches ``target``; ``inf`` when ``n_seeds`` cannot reach :math:`\alpha`.

    >>> round(mde(13, 1), 3), power(13, 1, mde(13, 1)) >= 0.8 - 1e-12
    (0.907, True)
    """
    from scipy import stats

    k = verify_int(n_comparisons, "n_comparisons", minimum=1)
    c = critical_count(n_seeds, alpha)
    if c is None:
        return math.inf
    # P(Bin(s, q) >= c) is increasing in q: solve for the per-comparison power target^(1/k)
    per = target ** (1.0 / k)
    if c == 0:
        return -math.inf
    q = stats.beta.ppf(per, c, n_seeds - c + 1)  # P(Bin(s, q) >= c) = P(Beta(c, s - c + 1) <= q)
    return float(stats.norm.ppf(q))


def skewness(effects) -> float | None:
    """Adjusted Fisher-Pearson sample skewness (``scipy.stats.skew(bias=False)``); ``None`` below 3 seeds or for
    constant effects."""
    from scipy import stats

    e = np.asarray(effects, dtype=float)
    if e.size < 3 or float(np.ptp(e)) == 0.0:
        return None
    return float(stats.skew(e, bias=False))


def t_interval(effects: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Two-sided Student-t confidence interval of the mean effect (``(-inf, inf)`` with one seed); descriptive."""
    from scipy import special

    e = np.asarray(effects, dtype=float)
    if e.size < 2:
        return (-math.inf, math.inf)
    half = float(special.stdtrit(e.size - 1, 0.5 + level / 2) * e.std(ddof=1) / math.sqrt(e.size))  # t quantile
    return (float(e.mean()) - half, float(e.mean()) + half)


def median_interval(effects: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    r"""Exact distribution-free interval of the median from order statistics: :math:`[e_{(j)}, e_{(s+1-j)}]` with
    the largest ``j`` such that :math:`P(\mathrm{Bin}(s,1/2) \le j-1) \le (1-\text{level})/2` (coverage
    :math:`\ge` level for any continuous distribution); ``(-inf, inf)`` when ``s`` is too small for any.

    >>> median_interval(range(1, 11))
    (2.0, 9.0)
    """
    from scipy import special

    e = np.sort(np.asarray(effects, dtype=float))
    s = e.size
    j = np.arange(1, s // 2 + 1)
    ok = j[special.bdtr(j - 1, s, 0.5) <= (1 - level) / 2]  # binomial cdf P(B <= j - 1)
    if not ok.size:
        return (-math.inf, math.inf)
    j = int(ok[-1])
    return (float(e[j - 1]), float(e[s - j]))


def decide_batch(effects, alpha: float = ALPHA) -> dict:
    r"""The rule on many experiments at once: ``effects`` of shape ``(N, k, s)`` (N experiments, k primary
    comparisons, s seeds). Returns the per-comparison p-values, the Holm-adjusted :math:`p_{\text{against}}`
    (``(N, k)`` each) and ``code`` ``(N,)``: 0 inconclusive, 1 supported, 2 contradicted (:data:`VERDICTS`)."""
    e = np.asarray(effects, dtype=float)
    if e.ndim != 3:
        raise VerifyInputError("Argument 'effects' must have shape (experiments, comparisons, seeds).")
    p_for, p_against = sign_test_pvalues(e)
    h_against = holm(p_against)
    code = np.where((h_against <= alpha).any(axis=1), 2, np.where((p_for <= alpha).all(axis=1), 1, 0))
    return {"p_for": p_for, "p_against": p_against, "p_against_holm": h_against, "code": code}


def _describe(e: np.ndarray, pf: float, pa: float) -> dict:
    lo, hi = t_interval(e)
    mlo, mhi = median_interval(e)
    sd = float(e.std(ddof=1)) if e.size > 1 else None
    med = float(np.median(e))
    return {"effects": [float(v) for v in e], "median": med, "mean": float(e.mean()), "sd": sd,
            "skewness": skewness(e), "n_above_0": int((e > 0).sum()), "n_below_0": int((e < 0).sum()),
            "p_for": float(pf), "p_against": float(pa), "ci95_median": [mlo, mhi], "ci95_t": [lo, hi],
            "standardized_median": (med / sd) if sd else None}


def _scales(rows: np.ndarray) -> np.ndarray:
    """Per comparison (row) the unit of its perturbations: the SD of its per-seed effects, else its largest
    magnitude, else 1 (a single seed, or all seeds equal)."""
    out = np.empty(rows.shape[0])
    for i, r in enumerate(rows):
        sd = float(r.std(ddof=1)) if r.size > 1 else 0.0
        out[i] = sd if sd > 0 else (float(np.abs(r).max()) or 1.0)
    return out


def verdicts_within(rows, tolerance, alpha: float = ALPHA) -> list[str]:
    r"""Every verdict the rule can give when each per-seed effect :math:`e_{ij}` of the ``(k, s)`` primary
    comparisons ``rows`` moves by at most ``tolerance[i]`` (absolute, per comparison), in :data:`VERDICTS` order.

    The rule reads the effects only through their signs, so only seeds with :math:`|e_{ij}| \le \tau_i` matter: each
    can become positive, negative or zero. Three configurations give every attainable verdict: all such seeds
    positive (most :math:`n_+`, fewest :math:`n_-`: ``supported`` is attainable iff it gives it, since supported
    needs every :math:`n_+ \ge c` and no Holm rejection), all negative (``contradicted`` iff it gives it: Holm's
    rejections only grow as p-values fall) and all zero (``inconclusive`` iff it gives it: fewest :math:`n_+` and
    :math:`n_-`).

    >>> verdicts_within([[0.5, 0.4, 0.6, 0.3, 0.2, 0.01]], [0.05])
    ['inconclusive', 'supported']
    """
    e = np.asarray(rows, dtype=float)
    if e.ndim != 2:
        raise VerifyInputError("Argument 'rows' must have shape (comparisons, seeds).")
    tol = np.asarray(tolerance, dtype=float).reshape(-1)
    if tol.size != e.shape[0] or np.any(~np.isfinite(tol)) or np.any(tol < 0):
        raise VerifyInputError(f"Argument 'tolerance' must hold {e.shape[0]} finite values >= 0.")
    return _verdicts_if_unsure(e, np.abs(e) <= tol[:, None], alpha)


def _verdicts_if_unsure(e: np.ndarray, unsure: np.ndarray, alpha: float) -> list[str]:
    configs = np.stack([np.where(unsure, v, e) for v in (1.0, -1.0, 0.0)])
    codes = set(int(c) for c in decide_batch(configs, alpha)["code"])
    return [v for i, v in enumerate(VERDICTS) if i in codes]


def flip_distance(rows, alpha: float = ALPHA) -> float | None:
    r"""The smallest perturbation, in units of each comparison's per-seed SD (:func:`_scales`), that could change
    the verdict of the ``(k, s)`` primary comparisons ``rows``: :math:`\min |e_{ij}| / \sigma_i` over the seeds
    whose sign change first opens a second verdict (:func:`verdicts_within` is monotone in the tolerance). ``None``
    when no perturbation can (e.g. too few seeds for any verdict but ``inconclusive``).

    >>> flip_distance([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])  # 6 seeds, all needed: the smallest, 1, over SD 1.87
    0.5345224838248488
    """
    e = np.asarray(rows, dtype=float)
    if e.ndim != 2:
        raise VerifyInputError("Argument 'rows' must have shape (comparisons, seeds).")
    R = np.abs(e) / _scales(e)[:, None]          # compared in these units (no round trip through a tolerance)
    ratios = np.unique(R)
    lo, hi = 0, ratios.size - 1
    if len(_verdicts_if_unsure(e, R <= ratios[hi], alpha)) < 2:
        return None
    while lo < hi:  # the first candidate that opens a second verdict
        mid = (lo + hi) // 2
        if len(_verdicts_if_unsure(e, R <= ratios[mid], alpha)) > 1:
            hi = mid
        else:
            lo = mid + 1
    return float(ratios[lo])


def margins(comps: Mapping[str, dict], n_seeds: int, alpha: float = ALPHA) -> dict:
    """Per primary comparison, how far its deciding statistics lie from their thresholds: the seeds above 0
    against the sign test's critical count (``seeds_to_spare_for`` >= 0: significant with that many seeds to
    spare; < 0: that many short), and ``p_for`` and the Holm-adjusted ``p_against`` as multiples of alpha."""
    c = critical_count(n_seeds, alpha)
    return {n: {"critical_count": c, "n_above_0": d["n_above_0"], "n_below_0": d["n_below_0"],
                "seeds_to_spare_for": None if c is None else d["n_above_0"] - c,
                "p_for_over_alpha": d["p_for"] / alpha, "p_against_holm_over_alpha": d["p_against_holm"] / alpha}
            for n, d in comps.items()}


def path_spread(effects_a: Mapping[str, Sequence[float]], effects_b: Mapping[str, Sequence[float]]) -> dict:
    """The same seeds' per-seed effects from two numerical paths: per comparison the largest absolute difference
    (the tolerance to pass to :func:`decide`), the same in SD of the per-seed effects (of ``effects_a``), and how
    many seeds changed sign."""
    out = {}
    for n in effects_a:
        a, b = np.asarray(effects_a[n], dtype=float), np.asarray(effects_b[n], dtype=float)
        if a.shape != b.shape:
            raise VerifyInputError(f"Arguments 'effects_a' and 'effects_b' must hold the same seeds for {n!r}.")
        diff = float(np.abs(a - b).max())
        out[n] = {"max_abs_diff": diff, "max_diff_sd": diff / float(_scales(a[None])[0]),
                  "sign_changes": int((np.sign(a) != np.sign(b)).sum())}
    return out


#: the words :func:`why_not_significant` gives a comparison that missed significance
NOT_SIGNIFICANT_WORDS = ("underpowered", "small", "not significant")


def why_not_significant(comparison: Mapping, effect_of_interest: float, detectable: float, n_seeds: int) -> dict:
    r"""Why a primary comparison missed significance, judged against the effect its seeds were planned for.

    With :math:`\hat\sigma` the SD of its per-seed effects, the planned effect in the effects' units is
    :math:`\Delta = \delta\hat\sigma` (:math:`\delta` = ``effect_of_interest``, the planning model of :func:`power`),
    and :math:`[L, U]` is the exact distribution-free 95% interval of the median (:func:`median_interval`; each end a
    one-sided 97.5% bound). One of :data:`NOT_SIGNIFICANT_WORDS`:

    * ``"not significant"`` when the observed median/SD reaches ``detectable`` (the MDE at 80% power): the seeds
      could detect an effect of the observed size and still did not;
    * ``"underpowered"`` when the planned effect is **plausible given the data**, :math:`L \le \Delta \le U` (then,
      since :math:`L \le 0` for a comparison that is not significant, the interval is wider than :math:`\Delta`):
      more seeds could still find it;
    * ``"small"`` when the interval excludes it on both sides, :math:`-\Delta < L \le U < \Delta`: an equivalence
      statement, :math:`|\theta| < \Delta` at 95%, the median is smaller than the seeds were planned to detect;
    * ``"not significant"`` otherwise (:math:`U < \Delta` but :math:`L \le -\Delta`: no planned-size effect for the
      claim, and one against it is not excluded).

    >>> c = {"standardized_median": 0.04, "sd": 0.25, "median": 0.01, "ci95_median": [-0.16, 0.28]}
    >>> why_not_significant(c, 1.0, 0.91, 13)["word"], why_not_significant(c, 2.0, 0.91, 13)["word"]
    ('underpowered', 'small')
    """
    z, sd = comparison.get("standardized_median"), comparison.get("sd")
    lo, hi = (float(v) for v in comparison.get("ci95_median", (-math.inf, math.inf)))
    side = ("; observed against the claimed direction, not significant after Holm"
            if z is not None and z < 0 else "")
    head = (f"median/SD = {'n/a' if z is None else format(z, '.2f')} {'<' if z is None or z < detectable else '>='} "
            f"MDE {detectable:.2f} SD at 80% power with {n_seeds} seeds")
    out = {"planned_effect_sd": float(effect_of_interest), "ci95_median": [lo, hi]}
    if z is None or not sd:
        return dict(out, word="underpowered", planned_effect=None, planned_effect_plausible=True,
                    text=f"underpowered ({head}: the per-seed effects do not vary)")
    delta = float(effect_of_interest) * float(sd)
    out.update(planned_effect=delta, planned_effect_plausible=bool(lo <= delta <= hi))
    interval = f"[{lo:.3g}, {hi:.3g}]"
    if z >= detectable:
        return dict(out, word="not significant", text=f"not significant ({head}{side})")
    if not math.isfinite(hi - lo):
        return dict(out, word="underpowered",
                    text=f"underpowered ({head}; {n_seeds} seeds are too few for a distribution-free 95% interval of "
                         f"the median, so the data cannot exclude the planned effect {effect_of_interest:g} SD = "
                         f"{delta:.3g}{side})")
    if lo <= delta <= hi:
        return dict(out, word="underpowered",
                    text=f"underpowered ({head}; the planned effect {effect_of_interest:g} SD = {delta:.3g} lies "
                         f"inside the 95% interval of the median {interval} (width {hi - lo:.3g}): an effect of the "
                         f"planned size is plausible{side})")
    if -delta < lo:
        return dict(out, word="small", equivalence_bound=delta,
                    text=f"small ({head}; the 95% interval of the median {interval} lies inside +-{delta:.3g}, the "
                         f"planned effect {effect_of_interest:g} SD: |median| < {delta:.3g} at 95%{side})")
    return dict(out, word="not significant",
                text=f"not significant ({head}; the 95% interval of the median {interval} excludes the planned effect "
                     f"{effect_of_interest:g} SD = {delta:.3g} but reaches -{delta:.3g}{side})")


def decide(primary: Mapping[str, Sequence[float]], claimed: str, descriptive: Mapping[str, Sequence[float]] | None = None,
           alpha: float = ALPHA, effect_of_interest: float = EFFECT_OF_INTEREST, estimand: str = ESTIMAND,
           tolerance: float | Mapping[str, float] | None = None) -> dict:
    r"""Apply the rule to one claim. ``primary``: comparison name -> per-seed signed effects (positive =
    the paper's direction; every comparison the same seeds, in the same order). ``claimed``: what a
    positive effect means, in words. ``descriptive``: further comparisons reported with the same
    statistics, outside the decision. ``effect_of_interest``: the effect (SD units) the seeds were planned for;
    ``estimand``: the claim's estimand in words (the registry's).

    Returns ``{"verdict", "reason", "rule", "estimand", "test", "alpha", "n_seeds", "n_primary", "min_seeds",
    "power", "claimed", "comparisons": {name: {effects, median, mean, sd, skewness, n_above_0, n_below_0, p_for,
    p_against, p_against_holm, ci95_median, ci95_t, standardized_median, outcome}}, "descriptive": {...}}``;
    ``outcome`` is ``"for"``, ``"against"`` or ``"n.s."``; in an ``inconclusive`` verdict each comparison that is not
    ``"for"`` also has ``why_not_significant`` (:func:`why_not_significant`), whose text makes up the ``reason``;
    ``power`` holds the effect of interest, the power there, the seeds that would give 80% and the minimum detectable
    effect at 80% (:func:`mde`).

    Robustness (whether another numerical path could change the verdict): ``margins`` (:func:`margins`),
    ``flip_distance_sd`` (:func:`flip_distance`: the smallest per-seed perturbation, in SD, that could change the
    verdict), ``tolerance`` (per comparison, absolute, with its ``reason``), ``verdicts_within_tolerance``
    (:func:`verdicts_within`) and ``fragile`` (more than one of them). ``tolerance``: ``None`` =
    :data:`PATH_TOLERANCE_SD` SD of each comparison's per-seed effects; a float = that many SD; a mapping = absolute per
    comparison (e.g. the measured spread across numerical paths, :func:`path_spread`).
    """
    if not primary:
        raise VerifyInputError("Argument 'primary' must hold at least one comparison.")
    names = list(primary)
    rows = [np.asarray(primary[n], dtype=float).reshape(-1) for n in names]
    s = rows[0].size
    if any(r.size != s for r in rows):
        raise VerifyInputError("Argument 'primary' must give every comparison the same number of seeds.")
    res = decide_batch(np.stack(rows)[None], alpha)
    k = len(names)
    detectable = mde(s, k, POWER, alpha)
    comps = {}
    for i, n in enumerate(names):
        c = _describe(rows[i], res["p_for"][0, i], res["p_against"][0, i])
        c["p_against_holm"] = float(res["p_against_holm"][0, i])
        c["outcome"] = "against" if c["p_against_holm"] <= alpha else "for" if c["p_for"] <= alpha else "n.s."
        comps[n] = c
    verdict = VERDICTS[int(res["code"][0])]
    need = min_seeds(k, alpha)
    plan = {"effect_of_interest_sd": effect_of_interest, "power_at_effect_of_interest": power(s, k, effect_of_interest, alpha),
            "seeds_for_80pct_power": seeds_for_power(k, effect_of_interest, POWER, alpha),
            "mde_sd_80pct": detectable, "target_power": POWER,
            "model": "each primary comparison shifted by delta SD of normal per-seed noise, comparisons independent "
                     "(positive correlation only raises the power); sign-test power depends on P(e > 0) = Phi(delta)"}
    if verdict == "contradicted":
        reason = ("significant against the claimed direction: "
                  + ", ".join(sorted(n for n, c in comps.items() if c['outcome'] == 'against')))
    elif verdict == "supported":
        reason = f"all {k} primary comparisons significant in the claimed direction"
    elif critical_count(s, alpha) is None:
        reason = f"underpowered by design: {s} seeds cannot reach alpha = {alpha} (smallest p-value 2^-{s})"
    else:
        parts = []
        for n, c in comps.items():
            if c["outcome"] == "for":
                continue
            c["why_not_significant"] = why_not_significant(c, effect_of_interest, detectable, s)
            parts.append(f"{n}: {c['why_not_significant']['text']}")
        reason = "; ".join(parts)
    scale = _scales(np.stack(rows))
    if isinstance(tolerance, Mapping):
        if set(tolerance) != set(names):
            raise VerifyInputError(f"Argument 'tolerance' must give one value per primary comparison: {names}.")
        tol, why = np.array([float(tolerance[n]) for n in names]), "given per comparison (absolute)"
    else:
        t = PATH_TOLERANCE_SD if tolerance is None else verify_nonnegative(tolerance, "tolerance")
        tol = float(t) * scale
        why = PATH_TOLERANCE_WHY if tolerance is None else f"{float(t):g} SD of each comparison's per-seed effects"
    within = verdicts_within(np.stack(rows), tol, alpha)
    robust = {"margins": margins(comps, s, alpha), "flip_distance_sd": flip_distance(np.stack(rows), alpha),
              "tolerance": {"per_comparison": dict(zip(names, map(float, tol))), "reason": why},
              "verdicts_within_tolerance": within, "fragile": len(within) > 1}
    desc = {}
    for n, v in (descriptive or {}).items():
        e = np.asarray(v, dtype=float).reshape(-1)
        pf, pa = sign_test_pvalues(e)
        desc[n] = _describe(e, pf, pa)
    return {"verdict": verdict, "reason": reason, "rule": RULE, "estimand": estimand, "test": TEST, "alpha": alpha,
            "n_seeds": s, "n_primary": k, "min_seeds": need, "power": plan, "claimed": claimed,
            "comparisons": comps, "descriptive": desc, **robust,
            "ci": "ci95_median: exact order-statistic 95% interval of the median (distribution-free); ci95_t: "
                  "two-sided 95% Student-t interval of the mean, unadjusted (descriptive)"}


def combine_outcomes(outcomes: Mapping[str, str], dependence: str) -> tuple[str, str]:
    """Join the verdicts of one claim's several deciding runs (``name -> verdict``, in the order the summary names
    them): ``(verdict, reason)``. The verdict is the runs' common one when they all say ``supported`` or all
    ``contradicted``; otherwise ``inconclusive``, with the reason ``"<dependence>: <name>: <verdict>; ..."`` when
    they differ (``dependence``: ``"data-dependent"``, ``"budget-dependent"``, ...) or ``"inconclusive on every
    run: ..."`` when none decided.

    >>> combine_outcomes({"MNIST": "contradicted", "Fashion-MNIST": "contradicted"}, "data-dependent")[0]
    'contradicted'
    >>> combine_outcomes({"MNIST": "supported", "Fashion-MNIST": "contradicted"}, "data-dependent")
    ('inconclusive', 'data-dependent: MNIST: supported; Fashion-MNIST: contradicted')
    """
    if not outcomes:
        raise VerifyInputError("Argument 'outcomes' must name at least one run.")
    bad = {n: v for n, v in outcomes.items() if v not in VERDICTS}
    if bad:
        raise VerifyInputError(f"Argument 'outcomes' must hold verdicts in {VERDICTS}, not {bad}.")
    named = "; ".join(f"{n}: {v}" for n, v in outcomes.items())
    kinds = set(outcomes.values())
    if len(kinds) == 1 and kinds != {"inconclusive"}:
        return kinds.pop(), f"the same on every run ({named})"
    if kinds == {"inconclusive"}:
        return "inconclusive", f"inconclusive on every run: {named}"
    return "inconclusive", f"{dependence}: {named}"


def combine_datasets(decisions: Mapping[str, dict], names: Mapping[str, str] | None = None) -> dict:
    r"""One claim decided on several data sets (rule 5 of the module docstring): ``decisions`` maps a data set to its
    :func:`decide` result. Returns a decision of the same shape for the reporters: ``verdict`` and ``reason`` from
    :func:`combine_outcomes` (``"data-dependent"``), the comparisons of every data set prefixed ``"<data set>: "``,
    the fewest seeds and the least power of any data set, fragile when any data set's verdict is, and ``per_dataset``:
    per data set, in the order of ``decisions``, its name, verdict, reason, outcomes and medians."""
    if not decisions:
        raise VerifyInputError("Argument 'decisions' must hold at least one data set's decision.")
    names = dict(names or {})
    label = {d: names.get(d, d) for d in decisions}
    verdict, reason = combine_outcomes({label[d]: dec["verdict"] for d, dec in decisions.items()}, "data-dependent")
    first = next(iter(decisions.values()))
    comps = {f"{label[d]}: {n}": c for d, dec in decisions.items() for n, c in dec["comparisons"].items()}
    desc = {f"{label[d]}: {n}": c for d, dec in decisions.items() for n, c in (dec.get("descriptive") or {}).items()}
    power_of = min(decisions.values(), key=lambda dec: dec["power"]["power_at_effect_of_interest"])
    flips = [dec.get("flip_distance_sd") for dec in decisions.values() if dec.get("flip_distance_sd") is not None]
    # a list, not a mapping: the summary names the data sets in the order given (a JSON report sorts mapping keys)
    per = [{"dataset": d, "name": label[d], "verdict": dec["verdict"], "reason": dec["reason"],
            "n_seeds": dec["n_seeds"], "fragile": bool(dec.get("fragile")),
            "outcomes": {n: c["outcome"] for n, c in dec["comparisons"].items()},
            "medians": {n: c["median"] for n, c in dec["comparisons"].items()}} for d, dec in decisions.items()]
    return {"verdict": verdict, "reason": reason, "rule": RULE + "; over data sets: supported / contradicted only "
            "when every deciding data set gives it, otherwise inconclusive (data-dependent) (verify.decision)",
            "estimand": first.get("estimand"), "test": first.get("test"), "alpha": first.get("alpha"),
            "n_seeds": min(dec["n_seeds"] for dec in decisions.values()),
            "n_primary": sum(dec["n_primary"] for dec in decisions.values()),
            "min_seeds": max(dec["min_seeds"] for dec in decisions.values()), "power": power_of["power"],
            "claimed": first.get("claimed"), "comparisons": comps, "descriptive": desc,
            "flip_distance_sd": min(flips) if flips else None,
            "fragile": any(dec.get("fragile") for dec in decisions.values()),
            "tolerance": first.get("tolerance"), "per_dataset": per, "ci": first.get("ci")}
