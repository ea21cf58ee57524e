"""Paper S, Theorem 4.2, eqs. (19)-(22), Remark 4.3: the lower bound built on Lemma 4.1's frame.

a, b of eq. (19) are exact rationals (frame structure + the derived row polynomial); the loss itself is
cross-checked with the project's exact-loss API (float64 and the mpmath precision ladder).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from verify.engine import precision_ladder
from verify.numeric import frames as F
from verify.numeric import lower_bound as L
from verify.numeric.distributions import get_distribution
from verify.numeric.superposition_loss import exact_loss, exact_loss_from_A
from verify.symbolic import lower_bound as LS

MUS = ("gaussian", "rademacher", "uniform", "laplace")
R_DEFAULT = (3, 4, 5, 6)        # d = 8 .. 64 with m = 3 (N up to 2^18), exact, well under a second each


def _M_block(r: int, m: int, k: int) -> np.ndarray:
    V = F.build_frame(r, m, n_columns=k).dense()
    return V.T @ V   # entries S/2^r: dyadic rationals, exact in float64


def _p_grid(r: int, m: int = 3) -> list:
    """p = 2^(-m j) (p^(1/m) rational, paper's k a power of two) through the crossover p = d^-m, plus p = 10^-j."""
    return [Fraction(1, 2 ** (m * j)) for j in range(0, r + 3)] + [Fraction(1, 10 ** j) for j in (1, 3, 5)]


# --------------------------------------------------------------------------- eq. (19)-(20)
@pytest.mark.claim("S-eq19")
def test_eq19_homogeneity_and_optimal_t_symbolic(verdict):
    for m in (1, 3, 5):
        assert LS.homogeneity_defect(m) == (0, 0), m        # cross is degree m, square degree 2m in A
    res = LS.optimised_t(3)
    assert sympy.simplify(res["u_star"] - LS.a_sym / LS.b_sym) == 0
    assert sympy.expand(res["sup"] - LS.a_sym ** 2 / LS.b_sym) == 0
    assert res["second_derivative"] == -2 * LS.b_sym      # concave in u = t^m: the stationary point is the sup
    verdict.verified(method="sympy: row terms homogeneous of degree m and 2m (m = 1, 3, 5); argmax in u = t^m",
                     evidence={"u_star": str(res["u_star"]), "sup": str(res["sup"])})


@pytest.mark.claim("S-eq19")
def test_eq19_against_exact_loss_api(verdict):
    # Ltilde(t M^(k)) from the project's exact loss (mpmath ladder) == 2 t^m a - t^{2m} b with exact a, b
    ev = []
    for r, k, p, mu in [(3, 64, Fraction(1, 8), "gaussian"), (3, 40, Fraction(1, 100), "laplace"),
                        (2, 16, Fraction(1, 2), "rademacher")]:
        M = _M_block(r, 3, k)
        a, b = L.numerator_denominator(L.frame_block_stats(r, 3, k), p, mu)
        for t in (Fraction(1, 3), Fraction(1, 1), (a / b)):       # a/b = t*^m is t itself only if m = 1; a rational t
            A = [[Fraction(int(round(M[i, j] * 2 ** r)), 2 ** r) * t for j in range(k)] for i in range(k)]
            lad = precision_ladder(lambda: exact_loss_from_A(A, p, m=3, mu=mu, dps=mpmath.mp.dps), dps=(15, 30))
            want = 2 * t ** 3 * a - t ** 6 * b
            assert lad.agrees()
            with mpmath.workdps(30):
                rel = abs(lad.values[-1] - mpmath.mpf(want.numerator) / want.denominator) / abs(mpmath.mpf(want.numerator) / want.denominator)
            assert rel < 1e-25  # 30-digit evaluation of an exact rational: agreement to round-off
            ev.append({"d": 2 ** r, "k": k, "p": str(p), "mu": mu, "t": str(t), "rel_err_dps30": float(rel)})
        # realisable: W = sqrt(t) V[:, :k] has W^T W = t M^(k) and rank <= d; at t*^m = a/b the loss is a^2/b
        V = F.build_frame(r, 3, n_columns=k).dense()
        t_star = (a / b) ** (1 / 3)
        val = exact_loss(math.sqrt(t_star) * V, float(p), m=3, mu=mu)
        sup = float(a * a / b)
        assert abs(val - sup) <= 1e-9 * abs(sup)   # float64 loss of a k-column W: round-off ~ 1e-12 relative
    verdict.verified(method="exact_loss_from_A at dps 15/30 vs exact rationals; exact_loss(W) at t* equals a^2/b",
                     evidence={"points": ev})


# --------------------------------------------------------------------------- eq. (21)
def _moment(dist, e: int, p: Fraction) -> Fraction:
    return Fraction(1) if e == 0 else (Fraction(0) if e % 2 else p * L.as_fraction(dist.moment(e)))


def _multinomial_terms(Mrow: list, i: int, m: int, p: Fraction, dist) -> list:
    """Every term binom(m, alpha) prod_j M_ij^alpha_j E[x_i^(alpha_i+1) prod_{j!=i} x_j^alpha_j] of the paper's expansion."""
    k = len(Mrow)
    out = []
    for alpha in itertools.product(range(m + 1), repeat=k):
        if sum(alpha) != m:
            continue
        coef = Fraction(math.factorial(m), math.prod(math.factorial(x) for x in alpha))
        term = coef * math.prod((Mrow[j] ** alpha[j] for j in range(k)), start=Fraction(1))
        term *= _moment(dist, alpha[i] + 1, p) * math.prod((_moment(dist, alpha[j], p) for j in range(k) if j != i),
                                                           start=Fraction(1))
        out.append(term)
    return out


@pytest.mark.claim("S-eq21")
def test_eq21_every_multinomial_term_nonnegative(verdict):
    rng = np.random.default_rng(21)
    checked = 0
    cases = []
    for m, k in [(3, 5), (5, 4)]:
        for source in ("frame", "random"):
            if source == "frame":   # first k columns of a GF frame (r = 3 for m = 3, r = 2 for m = 5)
                r = 3 if m == 3 else 2
                M = [[Fraction(int(round(v * 2 ** r)), 2 ** r) for v in row] for row in _M_block(r, 3, k)]
            else:   # any symmetric M with unit diagonal: the step only uses M_ii = 1 > 0 and symmetry of mu
                X = rng.integers(-9, 10, size=(k, k))
                M = [[Fraction(1) if i == j else Fraction(int(X[min(i, j), max(i, j)]), 7) for j in range(k)]
                     for i in range(k)]
            for mu in ("gaussian", "laplace"):
                dist, p = get_distribution(mu), Fraction(1, 3)
                total = Fraction(0)
                for i in range(k):
                    terms = _multinomial_terms(M[i], i, m, p, dist)
                    assert min(terms) >= 0
                    total += sum(terms)
                    checked += len(terms)
                # the sum of the terms is the derived cross term (project's row polynomial), not a re-typed one
                T = {e: sum((M[0][j] ** e for j in range(1, k)), Fraction(0)) for e in range(2, 2 * m + 1, 2)}
                row0 = sum(_multinomial_terms(M[0], 0, m, p, dist))
                assert row0 == L.row_terms(m, p, mu, T)[0]
                lower = p * L.as_fraction(dist.moment(m + 1)) * k
                assert total >= lower
                cases.append({"m": m, "k": k, "M": source, "mu": mu, "numerator": float(total), "p_mu_k": float(lower)})
    verdict.verified(method="exact enumeration of the multinomial expansion (Fractions)",
                     evidence={"terms_checked": checked, "cases": cases, "seed": 21})


@pytest.mark.claim("S-eq21")
def test_eq21_numerator_lower_bound_on_frames(verdict):
    worst = math.inf
    n = 0
    for r in R_DEFAULT:
        d = 2 ** r
        for k in sorted({d, 3 * d // 2 + 1, d ** 2, d ** 3 // 3, d ** 3}):
            st = L.frame_block_stats(r, 3, k)
            for p in _p_grid(r)[::2]:
                for mu in MUS:
                    a, _ = L.numerator_denominator(st, p, mu)
                    lower = p * L.as_fraction(get_distribution(mu).moment(4)) * k
                    assert a >= lower
                    worst = min(worst, float(a / lower))
                    n += 1
    verdict.verified(method="exact a for M^(k) of the frame, d = 8..64, m = 3, several k, p, mu",
                     evidence={"points": n, "min_a_over_p_mu4_k": worst})


# --------------------------------------------------------------------------- eq. (22)
def _eq22_table(rs) -> dict:
    """Per mu and d: worst b / max(pk, p^m k (1+k/d)^m) (with its k, p), worst Rosenthal ratio of step (a),
    worst row sum of M_ij^2 over (1 + k/d)."""
    out = {}
    for r in rs:
        d = 2 ** r
        for k in sorted({d, 4 * d + 3, d ** 2, d ** 3 // 5, d ** 3}):
            st = L.frame_block_stats(r, 3, k)
            t2 = float((1 + st.max_T(2)) / (1 + Fraction(k, d)))
            for mu in MUS:
                dist = get_distribution(mu)
                m2, m6 = (L.as_fraction(dist.moment(e)) for e in (2, 6))
                cell = out.setdefault(mu, {}).setdefault(d, {"max_b_over_bound": 0.0, "max_rosenthal_ratio": 0.0,
                                                              "max_rowsum_M2_over_1_plus_k_over_d": 0.0})
                cell["max_rowsum_M2_over_1_plus_k_over_d"] = max(cell["max_rowsum_M2_over_1_plus_k_over_d"], t2)
                for p in _p_grid(r):
                    b = Fraction(0)
                    for mult, T in st.rows:
                        _, sq = L.row_terms(3, p, mu, T)
                        b += mult * sq
                        rosenthal = max(p * m6 * (1 + T[6]), (p * m2 * (1 + T[2])) ** 3)   # step (a)'s right side
                        cell["max_rosenthal_ratio"] = max(cell["max_rosenthal_ratio"], float(sq / rosenthal))
                    ratio = float(b / L.eq22_bound(d, 3, p, k))
                    if ratio > cell["max_b_over_bound"]:
                        cell.update(max_b_over_bound=ratio, at_k=k, at_p=str(p))
    return out


def _geometric_limit(values: list, shrink: float = 0.7) -> float | None:
    """Sequence over d = 8, 16, ...: if successive changes shrink at least geometrically by ``shrink``, return
    the bound value_last + change_last * shrink / (1 - shrink) on its limit; else None."""
    steps = [y - x for x, y in zip(values, values[1:])]
    if any(abs(s2) > shrink * abs(s1) for s1, s2 in zip(steps, steps[1:]) if s1):
        return None
    return values[-1] + (steps[-1] * shrink / (1 - shrink) if steps else 0.0)


@pytest.mark.claim("S-eq22")
def test_eq22_denominator_bound(verdict):
    tab = _eq22_table(R_DEFAULT)
    constants = {}
    for mu, row in tab.items():
        totals = [row[d]["max_b_over_bound"] for d in sorted(row)]
        # "<~": one constant for all k <= d^m, p, d. Over d the worst ratio grows, but by geometrically
        # shrinking steps (each <= 0.7 of the previous): the sequence is bounded, by this limit estimate
        lim = _geometric_limit(totals)
        assert lim is not None, (mu, totals)
        constants[mu] = lim
        # Rosenthal (step (a)) for 2m = 6 has a finite constant; the ratios stay far below 1e3 (observed < 30)
        assert max(row[d]["max_rosenthal_ratio"] for d in row) < 1e3
        # third line: sum_j M_ij^2 <= C (1 + k/d) with C <= (2m-2)^2 = 16 from the Weil bound
        assert max(row[d]["max_rowsum_M2_over_1_plus_k_over_d"] for d in row) <= 16
    verdict.verified(method="exact b of M^(k) (frame, m = 3) against max(pk, p^m k (1+k/d)^m), four mu, several k, p",
                     evidence={"per_mu_d": {mu: {str(d): v for d, v in row.items()} for mu, row in tab.items()},
                               "constant_limit_estimate": constants})


# --------------------------------------------------------------------------- Theorem 4.2
def _thm42_table(rs, mus=MUS, m: int = 3) -> dict:
    out = {}
    for mu in mus:
        for r in rs:
            pts = [L.lower_bound_point(r, m, p, mu) for p in _p_grid(r, m)]
            worst = min(pts, key=lambda x: x["ratio"])
            out.setdefault(mu, {})[2 ** r] = {"min_ratio": worst["ratio"], "at_p": worst["p"], "k": worst["k"]}
    return out


@pytest.mark.claim("S-thm4.2")
def test_thm42_lower_bound_constant(verdict):
    tab = _thm42_table(R_DEFAULT)
    for mu, row in tab.items():
        mins = [row[d]["min_ratio"] for d in sorted(row)]
        assert min(mins) > 0
        # "for all d, p" with one constant: the worst ratio per d decreases, by steps that shrink
        # geometrically (each <= 0.7 of the previous), so the infimum over d is >= the extrapolated limit
        lim = _geometric_limit(mins)
        assert lim is not None and lim > 0, (mu, mins)
        row["extrapolated_inf"] = lim
    # the exact evaluation agrees with the project's exact loss of the realising W (d = 8 and 16, float64)
    for r, p in [(3, Fraction(1, 64)), (4, Fraction(1, 8 ** 4))]:
        pt = L.lower_bound_point(r, 3, p, "gaussian")
        t_star = float(pt["t_star_pow_m"]) ** (1 / 3)
        V = F.build_frame(r, 3, n_columns=pt["k"]).dense()
        val = exact_loss(math.sqrt(t_star) * V, float(p), m=3, mu="gaussian")
        assert abs(val - float(pt["sup"])) <= 1e-9 * float(pt["sup"])   # float64 round-off of a sum of k rows
    # m = 1: the frame is the orthonormal Walsh basis, the bound is exact with constant mu_2
    m1 = _thm42_table((2, 4, 6), mus=("gaussian", "uniform"), m=1)
    for mu, row in m1.items():
        assert all(v["min_ratio"] == pytest.approx(float(get_distribution(mu).moment(2)), rel=1e-15)  # float of exact
                   for v in row.values())
    verdict.verified(method="exact a^2/b at the paper's k, p = 2^(-mj) (through the crossover p = d^-m) and 10^-j, "
                            "d = 8..64, m = 3, four mu; constant = min ratio to min(p d^m, d p^(1/m))",
                     evidence={"m=3": {mu: {str(d): v for d, v in row.items()} for mu, row in tab.items()},
                               "m=1": {mu: {str(d): v for d, v in row.items()} for mu, row in m1.items()},
                               "n": "any n >= k (zero columns beyond k do not change the loss); Thm 2.2 takes n > d^m"})


@pytest.mark.slow
@pytest.mark.claim("S-thm4.2")
def test_thm42_lower_bound_constant_large_d(verdict):
    tab = _thm42_table((3, 4, 5, 6, 7, 8), mus=("gaussian",))
    mins = [v["min_ratio"] for d, v in sorted(tab["gaussian"].items())]
    lim = _geometric_limit(mins)
    assert lim is not None and lim > 0, mins
    # m = 5 only reaches d = 32 (N = 2^25), below Lemma 4.1's Weil range d >= 128: reported, trend checked
    tab5 = _thm42_table((2, 3, 4, 5), mus=("gaussian",), m=5)
    mins5 = [v["min_ratio"] for d, v in sorted(tab5["gaussian"].items())]
    lim5 = _geometric_limit(mins5)
    assert min(mins5) > 0 and lim5 is not None and lim5 > 0, mins5
    verdict.verified(method="as the default check, m = 3 up to d = 256 (N = 2^24); m = 5 up to d = 32",
                     evidence={"table_m3": {str(d): v for d, v in tab["gaussian"].items()},
                               "table_m5": {str(d): v for d, v in tab5["gaussian"].items()}, "m5_limit_estimate": lim5})


# --------------------------------------------------------------------------- Remark 4.3
@pytest.mark.claim("S-rem4.3-attained")
def test_rem43_frame_reaches_order_d_m(verdict):
    rows = []
    for m, rs in [(1, range(1, 12)), (3, range(1, 8)), (5, range(1, 5))]:
        for r in rs:
            res = L.F_attained(r, m)
            assert res["F"] <= res["N"]                       # Remark 4.3's rank bound F(B) <= d^m
            rows.append({"m": m, "d": res["d"], "F_over_d_m": float(res["F_over_d_m"]), "T_2m": float(res["T_2m"])})
    for m in (3, 5):
        sub = [x["F_over_d_m"] for x in rows if x["m"] == m]
        # order d^m: Weil's |M_ij| <= (2m-2)/sqrt(d) holds for every d (it is below 1 only from
        # weil_threshold_d on), so T_2m <= d^m (2m-2)^(2m) / d^m and F/d^m = 1/(1 + T_2m) >= 1/(1 + (2m-2)^(2m))
        assert sub and min(sub) > 1 / (1 + (2 * m - 2) ** (2 * m))
    # first order in p of the exact loss at A = c s* M (c = (mu_{m+1}/mu_{2m})^(1/m)) is p mu_{m+1}^2/mu_{2m} F
    r, m, mu = 3, 3, "gaussian"
    res = L.F_attained(r, m)
    dist = get_distribution(mu)
    m4, m6 = (float(dist.moment(e)) for e in (4, 6))
    scale = (m4 / m6) ** (1 / 3) * float(res["s_pow_m"]) ** (1 / 3)
    V = F.build_frame(r, m).dense()
    target = m4 ** 2 / m6 * float(res["F"])
    errs = []
    for p in (1e-4, 1e-5, 1e-6):
        errs.append(abs(exact_loss(math.sqrt(scale) * V, p, m=m, mu=mu) / p - target) / target)
    # the gap is the O(p) remainder: it shrinks ~10x per decade of p
    assert errs[1] < 0.2 * errs[0] and errs[2] < 0.2 * errs[1]
    verdict.verified(method="exact F(s* M) = N^2/sum M_ij^(2m) from the certificate sums; loss/p -> mu^2/mu_2m F",
                     evidence={"rows": rows, "first_order_rel_gap_p=1e-4,1e-5,1e-6": errs})
