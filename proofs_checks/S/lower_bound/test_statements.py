"""Paper S, the lower bound (Thm 4.2, eqs. 19-22): the statements, checked.

Theorem 4.2, eqs. (19)-(22) and Remark 4.3: the lower bound built on Lemma 4.1's frame. a and b of eq. (19) are
exact rationals (the frame's structure and the derived row polynomial); the loss itself is cross-checked with the
project's exact-loss API (float64 and the mpmath precision ladder). Moments are taken by quadrature of the density,
so the check and the code under test share no input.

Beyond the paper, X-S-thm4.2-better-frames reruns Thm 4.2's exact bound with the frames past Lemma A.4 (Kerdock and
Delsarte-Goethals sub-frames, certified exactly in ``proofs_checks/S/frames``). It is not a claim of paper S: it is
reported in the separate "beyond the paper" table (IDs ``X-S-...`` in ``verify.claims.BEYOND``). Its a and b come
from exact row power sums of the sub-frames, as the paper's do.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy

from verify.engine import precision_ladder
from verify.numeric import frames as F, lower_bound as L
from verify.numeric.distributions import get_distribution, moment_by_quadrature
from verify.numeric.superposition_loss import exact_loss, exact_loss_from_A, quadrature_moment
from verify.statement_data import get_statement
from verify.statements import constants, holds, sides
from verify.symbolic import lower_bound as LS


MUS = ("gaussian", "rademacher", "uniform", "laplace")


R_DEFAULT = (3, 4, 5, 6)        # d = 8 .. 64 with m = 3 (N up to 2^18), exact, well under a second each


ROUTES = ("gram", "power_sums")  # both routes of exact_loss: row blocks of A, and O(n) power sums (auto at k >= 512)


@lru_cache(maxsize=None)
def _qm(mu: str, k: int, dps: int = 30):
    """mu_k by mpmath quadrature of the density (or the atoms) of mu: independent of the moment table that
    verify.numeric.lower_bound evaluates (so the check and the code under test share no input)."""
    return moment_by_quadrature(mu, k, dps=dps)


def _mpf(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


@lru_cache(maxsize=None)
def _dense_stats(r: int, m: int, k: int) -> L.FrameBlockStats:
    """Row statistics of M^(k) computed plainly from the dense frame (integer S = d M = V_s^T V_s, one row at a
    time): a route that shares nothing with frame_block_stats' character sums and XOR convolutions."""
    d = 2 ** r
    V = F.build_frame(r, m, n_columns=k).dense()
    S_int = np.rint(V.T @ V * d).astype(np.int64)   # dyadic entries S/d, exact in float64
    assert np.all(np.diag(S_int) == d)              # M_ii = 1 (Lemma 4.1)
    np.fill_diagonal(S_int, 0)
    rows = [(1, {e: Fraction(int(np.sum(S_int[i].astype(object) ** e)), d ** e) for e in range(2, 2 * m + 1, 2)})
            for i in range(k)]
    return L.FrameBlockStats(r=r, m=m, k=k, rows=rows)


def _ab_by_quadrature(r: int, m: int, k: int, p: float, mu: str) -> tuple:
    """a and b of eq. (19) without the row polynomial: Ltilde(t M^(k)) by the tensor Gauss rule (each x_j a discrete
    law matching its moments to order 2m+1; no cumulants) at u = t^m = 1 and 1/2, then solved from
    Ltilde = 2ua - u^2 b."""
    V = F.build_frame(r, m, n_columns=k).dense()
    vals = [quadrature_moment(u ** (1 / (2 * m)) * V, p, m, mu) for u in (1.0, 0.5)]
    b = (vals[0] - 2 * vals[1]) / (-1 + 0.5)          # L(1) - 2 L(1/2) = -b + b/2
    a = (vals[0] + b) / 2
    return a, b


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
    k = constants("S-eq19", m=3)  # eq. (20)'s constant and exponents, from its statement object
    assert sympy.expand(res["sup"] - k["C"] * LS.a_sym ** k["e_a"] * LS.b_sym ** k["e_b"]) == 0
    assert res["second_derivative"] == -2 * LS.b_sym      # concave in u = t^m: the stationary point is the sup
    # the statement object itself at rational a, b (below and above 1, a < b and a > b), m = 1, 3, 5: its left side
    # (its own supremum over t) equals the supremum derived here by the package (the stationary point in u = t^m),
    # and its relation holds; an edited relation, a term dropped from the supremum's body or any edit of the right
    # side is false at these points
    R, at_points = sympy.Rational, []
    for m, a, b in [(1, R(1, 2), R(3)), (3, R(2), R(1, 5)), (5, R(7), R(7, 3)), (3, R(3, 4), R(5, 2))]:
        want = LS.optimised_t(m)["sup"].xreplace({LS.a_sym: a, LS.b_sym: b})
        lhs, _ = sides("S-eq19", {"m": m, "a": a, "b": b})
        assert want > 0 and sympy.simplify(lhs - want) == 0
        assert holds("S-eq19", {"m": m, "a": a, "b": b})
        at_points.append({"m": m, "a": str(a), "b": str(b), "sup": str(want)})
    verdict.verified(method="sympy: row terms homogeneous of degree m and 2m (m = 1, 3, 5); argmax in u = t^m; the "
                            "statement object at rational a, b",
                     evidence={"u_star": str(res["u_star"]), "sup": str(res["sup"]), "statement_at": at_points})


@pytest.mark.claim("S-eq19")
def test_eq19_against_exact_loss_api(verdict):
    """eq. (19): Ltilde(t M^(k)) from the exact-loss API (mpmath ladder) == 2 t^m a - t^{2m} b with the exact a, b;
    a, b also by a route without the row polynomial (tensor Gauss rule) and from plainly computed row statistics;
    eq. (20) two-sided: at t*^m = a/b the realised W reaches a^2/b (both exact_loss routes), and no t exceeds it."""
    ev, indep = [], []
    # eqs. (19)-(20)'s constants and exponents, from the statement object, exact
    c = {x: Fraction(str(v)) for x, v in constants("S-eq19", m=3).items()}
    for r, k, p, mu in [(3, 64, Fraction(1, 8), "gaussian"), (3, 40, Fraction(1, 100), "laplace"),
                        (2, 16, Fraction(1, 2), "rademacher")]:
        M = _M_block(r, 3, k)
        a, b = L.numerator_denominator(L.frame_block_stats(r, 3, k), p, mu)
        assert (a, b) == L.numerator_denominator(_dense_stats(r, 3, k), p, mu)   # exact, two routes to the T's
        for t in (Fraction(1, 3), Fraction(1, 1), (a / b)):       # a/b = t*^m is t itself only if m = 1; a rational t
            A = [[Fraction(int(round(M[i, j] * 2 ** r)), 2 ** r) * t for j in range(k)] for i in range(k)]
            lad = precision_ladder(lambda: exact_loss_from_A(A, p, m=3, mu=mu, dps=mpmath.mp.dps), dps=(15, 30))
            want = c["C_a"] * t ** c["e_1"] * a - t ** c["e_2"] * b
            assert lad.agrees()
            with mpmath.workdps(30):
                rel = abs(lad.values[-1] - _mpf(want)) / abs(_mpf(want))
            assert rel < 1e-25  # 30-digit evaluation of an exact rational: agreement to round-off
            ev.append({"d": 2 ** r, "k": k, "p": str(p), "mu": mu, "t": str(t), "rel_err_dps30": float(rel)})
        # realisable: W = sqrt(t) V[:, :k] has W^T W = t M^(k) and rank <= d; at t*^m = a/b the loss is a^2/b
        V = F.build_frame(r, 3, n_columns=k).dense()
        t_star = float(a / b) ** (1 / 3)
        sup = float(c["C"] * a ** c["e_a"] * b ** c["e_b"])
        for route in ROUTES:
            val = exact_loss(math.sqrt(t_star) * V, float(p), m=3, mu=mu, route=route)
            assert abs(val - sup) <= 1e-9 * abs(sup)   # float64 loss of a k-column W: round-off ~ 1e-12 relative
            for f in (0.8, 1.25):                     # upper side of eq. (20): another scale does worse
                assert exact_loss(math.sqrt(t_star * f) * V, float(p), m=3, mu=mu, route=route) < sup
    for r, m, k, p, mu in [(2, 3, 5, 0.3, "gaussian"), (3, 3, 6, 0.05, "laplace"), (2, 5, 4, 0.5, "uniform")]:
        a_q, b_q = _ab_by_quadrature(r, m, k, p, mu)
        a, b = L.numerator_denominator(L.frame_block_stats(r, m, k), Fraction(str(p)), mu)
        # tensor Gauss rule: float64 sums of <= 7^6 signed terms; 1e-10 relative is ~1e5 ulps
        err = max(abs(a_q - float(a)) / float(a), abs(b_q - float(b)) / float(b))
        assert err < 1e-10
        indep.append({"d": 2 ** r, "m": m, "k": k, "p": p, "mu": mu, "a": float(a), "b": float(b), "rel_err": err})
    verdict.verified(method="exact_loss_from_A at dps 15/30 vs exact rationals; a, b by tensor Gauss quadrature and "
                            "from plainly computed row statistics; exact_loss(W) at t* = a^2/b (both routes), "
                            "smaller at other t",
                     evidence={"points": ev, "independent_a_b": indep})


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
                c = constants("S-eq21", m=m)  # eq. (21)'s bound, from its statement object
                lower = L.as_fraction(c["C"] * sympy.Rational(p) ** c["e_p"] * dist.moment(m + 1) ** c["e_mu"]
                                      * k ** c["e_k"])
                assert total >= lower
                cases.append({"m": m, "k": k, "M": source, "mu": mu, "numerator": float(total), "p_mu_k": float(lower)})
    # the statement object itself (k = 3, N(0, s) off the unit scale) with its left side by this check's multinomial
    # expansion: at M = I (only alpha_i = m survives: attained), at m = 1 (attained for every M) and at M with
    # non-zero off-diagonal entries, m = 3 (slack: the terms alpha_j = 2 add p^2 mu_2^2 M_ij^2); so a larger bound,
    # a strict or a reversed relation is false at these points
    statement_at = []
    for m, p, s, off in [(3, Fraction(1, 2), Fraction(3), (0, 0, 0)), (3, Fraction(1, 3), Fraction(1, 4), (0, 0, 0)),
                         (1, Fraction(1, 5), Fraction(2), (Fraction(1, 2), -1, Fraction(2, 3))),
                         (3, Fraction(1, 2), Fraction(2), (Fraction(1, 2), 0, Fraction(-3, 4)))]:
        dist = get_distribution(f"gaussian({s})")
        M = [[1, off[0], off[1]], [off[0], 1, off[2]], [off[1], off[2], 1]]
        M = [[Fraction(x) for x in row] for row in M]
        total = sum(sum(_multinomial_terms(M[i], i, m, p, dist)) for i in range(3))
        env = {"m": m, "k": 3, "p": p, "s": s, "M_12": off[0], "M_13": off[1], "M_23": off[2]}
        assert holds("S-eq21", env, a=total)
        statement_at.append({"m": m, "p": str(p), "s": str(s), "M_off": [str(x) for x in off], "a": str(total)})
    verdict.verified(method="exact enumeration of the multinomial expansion (Fractions); the statement object at "
                            "k = 3 (attained and slack points)",
                     evidence={"terms_checked": checked, "cases": cases, "statement_at": statement_at, "seed": 21})


@pytest.mark.claim("S-eq21")
def test_eq21_numerator_lower_bound_on_frames(verdict):
    """eq. (21) on the frames of Thm 4.2, d = 8..64, several k, p, mu: a >= p mu_{m+1} k with mu_{m+1} by quadrature
    of the density; the frame statistics behind a agree exactly with a plain dense computation (small d); and the
    bound is tight as p -> 0 (two-sided: a / (p mu_{m+1} k) - 1 = O(p), the dropped terms being of order p^2)."""
    worst, n, tight = math.inf, 0, []
    c = constants("S-eq21", m=3)  # eq. (21)'s constant and exponents, from its statement object
    # the sharpness below is the paper's bound's (a variant weaker than the paper's is true, and not sharp)
    paper = {f.name: f.value for f in get_statement("S-eq21").fields}

    def bound(p, mu, k, c=c):
        return _mpf(L.as_fraction(c["C"] * sympy.Rational(p) ** c["e_p"])) * _qm(mu, 4) ** int(c["e_mu"]) \
            * mpmath.mpf(k) ** int(c["e_k"])

    for r in R_DEFAULT:
        d = 2 ** r
        for k in sorted({d, 3 * d // 2 + 1, d ** 2, d ** 3 // 3, d ** 3}):
            st = L.frame_block_stats(r, 3, k)
            if k <= 96:   # the row statistics themselves, by a second route (exact a and b)
                assert L.numerator_denominator(st, Fraction(1, 3), "gaussian") == \
                    L.numerator_denominator(_dense_stats(r, 3, k), Fraction(1, 3), "gaussian")
            for p in _p_grid(r)[::2]:
                for mu in MUS:
                    a, _ = L.numerator_denominator(st, p, mu)
                    with mpmath.workdps(30):
                        ratio = _mpf(a) / bound(p, mu, k)
                    # quadrature at 30 digits against an exact rational: 1e-25 covers its error
                    assert ratio >= 1 - mpmath.mpf(10) ** -25
                    worst = min(worst, float(ratio))
                    n += 1
            for mu in ("gaussian",) if r in (3, 6) else ():   # upper side: the gap shrinks 10x per decade of p
                gaps = []
                for p in (Fraction(1, 10 ** 4), Fraction(1, 10 ** 5), Fraction(1, 10 ** 6)):
                    a, _ = L.numerator_denominator(st, p, mu)
                    with mpmath.workdps(30):
                        gaps.append(float(_mpf(a) / bound(p, mu, k, paper) - 1))
                # gap 0: the first k = d columns are orthonormal (Walsh), no cross terms and (21) is an equality
                assert all(g == 0 for g in gaps) or (0 < gaps[1] < gaps[0] / 5 and 0 < gaps[2] < gaps[1] / 5)
                assert 0 <= gaps[2] < 1e-2
                tight.append({"d": d, "k": k, "mu": mu, "gap_p=1e-4,1e-5,1e-6": gaps})
    verdict.verified(method="exact a for M^(k) of the frame, d = 8..64, m = 3, several k, p, mu; mu_4 by quadrature; "
                            "a / (p mu_4 k) -> 1 at rate O(p)",
                     evidence={"points": n, "min_a_over_p_mu4_k": worst, "tightness": tight[::4]})


# --------------------------------------------------------------------------- eq. (22)
def _eq22_table(rs) -> dict:
    """Per mu and d: worst b / max(pk, p^m k (1+k/d)^m) from above and from below (with its k, p), worst Rosenthal
    ratio of step (a), worst row sum of M_ij^2 over (1 + k/d); moments by quadrature of the density. Every b is
    also checked against the exact Jensen lower bound max(p mu_2m k, p^m mu_2^m sum_i (1 + T_2,i)^m)."""
    out = {}
    for r in rs:
        d = 2 ** r
        for k in sorted({d, 4 * d + 3, d ** 2, d ** 3 // 5, d ** 3}):
            st = L.frame_block_stats(r, 3, k)
            t2 = float((1 + st.max_T(2)) / (1 + Fraction(k, d)))
            for mu in MUS:
                m2, m6 = (float(_qm(mu, e)) for e in (2, 6))
                cell = out.setdefault(mu, {}).setdefault(d, {"max_b_over_bound": 0.0, "min_b_over_bound": math.inf,
                                                              "max_rosenthal_ratio": 0.0,
                                                              "max_rowsum_M2_over_1_plus_k_over_d": 0.0})
                cell["max_rowsum_M2_over_1_plus_k_over_d"] = max(cell["max_rowsum_M2_over_1_plus_k_over_d"], t2)
                for p in _p_grid(r):
                    b, jensen2 = Fraction(0), 0.0
                    for mult, T in st.rows:
                        _, sq = L.row_terms(3, p, mu, T)
                        b += mult * sq
                        jensen2 += mult * (float(p) * m2 * float(1 + T[2])) ** 3
                        rosenthal = max(float(p) * m6 * float(1 + T[6]), (float(p) * m2 * float(1 + T[2])) ** 3)
                        cell["max_rosenthal_ratio"] = max(cell["max_rosenthal_ratio"], float(sq) / rosenthal)
                    # E y^6 >= E (M_ii x_i)^6 (conditional Jensen: the rest is centred and independent) and
                    # E y^6 >= (E y^2)^3; 1e-12: float64 rounding of the right sides
                    assert float(b) >= max(float(p) * m6 * k, jensen2) * (1 - 1e-12)
                    ratio = float(b / L.eq22_bound(d, 3, p, k))
                    if ratio > cell["max_b_over_bound"]:
                        cell.update(max_b_over_bound=ratio, at_k=k, at_p=str(p))
                    cell["min_b_over_bound"] = min(cell["min_b_over_bound"], ratio)
    return out


def _geometric_limit(values: list, shrink: float = 0.7) -> float | None:
    """Sequence over d = 8, 16, ...: if successive changes shrink at least geometrically by ``shrink``, return
    the bound value_last + change_last * shrink / (1 - shrink) on its limit; else None."""
    steps = [y - x for x, y in zip(values, values[1:])]
    if any(abs(s2) > shrink * abs(s1) for s1, s2 in zip(steps, steps[1:]) if s1):
        return None
    return values[-1] + (steps[-1] * shrink / (1 - shrink) if steps else 0.0)


def _eq22_statement_points() -> dict:
    """The statement object of eq. (22) (explicit constants) at this check's points of its domain: d = 32, 64, m = 3 at
    the check's k and p (N(0, 1)), and m = 1 (the first d columns: M^(k) = I, b = p mu_2 k, where the bound is
    attained) at k = 1, 7, d, N(0, s) for s = 1, 3/2; b by the row expectations of this check's route."""
    n, worst = 0, 0.0
    for r in (5, 6):
        d = 2 ** r
        for m, ks, ss in ((3, (d, 4 * d + 3, d ** 2, d ** 3 // 5, d ** 3), (Fraction(1),)),
                          (1, (1, 7, d), (Fraction(1), Fraction(3, 2)))):
            for k in ks:
                st = L.frame_block_stats(r, m, k)
                for s in ss:
                    for p in _p_grid(r):
                        b = sum((mult * L.row_terms(m, p, f"gaussian({s})", T)[1] for mult, T in st.rows), Fraction(0))
                        if m == 1:
                            assert b == p * s * k  # an orthonormal block: b = p mu_2 k
                        env = {"m": m, "d": d, "k": k, "p": p, "s": s}
                        assert holds("S-eq22", env, b=b), env
                        lhs, rhs = sides("S-eq22", env, b=b)
                        worst = max(worst, float(lhs / rhs)) if m == 3 else worst
                        n += 1
    return {"points": n, "max_b_over_bound_m3": worst}


@pytest.mark.claim("S-eq22")
def test_eq22_denominator_bound(verdict):
    """eq. (22) two-sided on the frames, d = 8..64 (through Lemma 4.1's Weil threshold d = 32 of m = 3), five k from d to
    d^m, p through the crossover: b / max(pk, p^m k (1+k/d)^m) stays below one constant (the claim) and above one
    positive constant (the bound has the order of b, so a bound that is too large is seen), and b is checked
    against a route without the row polynomial (tensor Gauss rule) at small blocks. The statement object (eq. 22 with
    Rosenthal's explicit constant and Lemma A.4's coherence) is evaluated at this check's points of d = 32, 64, and its
    constants bound the Rosenthal ratio of every row (four mu) and the row sums of M_ij^2."""
    statement_at = _eq22_statement_points()  # first: a wrong statement fails here, before the table is built
    tab = _eq22_table(R_DEFAULT)
    c22 = constants("S-eq22", m=3)  # eq. (22)'s explicit constants (Rosenthal's R_6, the coherence C_m)
    limits, floors = {}, {}
    for mu, row in tab.items():
        totals = [row[d]["max_b_over_bound"] for d in sorted(row)]
        # "<~": one constant for all k <= d^m, p, d. Over d the worst ratio grows, but by geometrically
        # shrinking steps (each <= 0.7 of the previous): the sequence is bounded, by this limit estimate
        lim = _geometric_limit(totals)
        assert lim is not None, (mu, totals)
        limits[mu] = lim
        # the lower side: the smallest ratio per d changes by geometrically shrinking steps to a positive limit
        lows = [row[d]["min_b_over_bound"] for d in sorted(row)]
        low_lim = _geometric_limit(lows)
        assert low_lim is not None and low_lim > 0 and min(lows) > 0, (mu, lows)
        floors[mu] = low_lim
        # Rosenthal (step (a)) for 2m = 6 with the statement object's explicit constant R_6 (every row, every mu:
        # the constant holds for any symmetric law; observed < 24); 1e-12: float64 rounding of the ratio
        assert max(row[d]["max_rosenthal_ratio"] for d in row) <= float(c22["C_R"]) * (1 + 1e-12)
        # third line: sum_j M_ij^2 <= C_m^2 (1 + k/d), C_m of the Weil bound (the statement object's)
        assert max(row[d]["max_rowsum_M2_over_1_plus_k_over_d"] for d in row) <= c22["C_m"] ** 2
    indep = []
    for r, k, p, mu in [(2, 6, 0.2, "gaussian"), (3, 5, 0.01, "laplace")]:
        _, b_q = _ab_by_quadrature(r, 3, k, p, mu)
        _, b = L.numerator_denominator(L.frame_block_stats(r, 3, k), Fraction(str(p)), mu)
        assert abs(b_q - float(b)) < 1e-10 * float(b)   # tensor Gauss rule in float64: ~1e5 ulps
        indep.append({"d": 2 ** r, "k": k, "p": p, "mu": mu, "b": float(b), "b_quadrature": b_q})
    verdict.verified(method="exact b of M^(k) (frame, m = 3) against max(pk, p^m k (1+k/d)^m), four mu, several k, p; "
                            "bounded above and below; Jensen lower bound per point; b by tensor quadrature; the "
                            "statement object (Rosenthal's R_2m, Lemma A.4's C_m) at d = 32, 64, m = 1 and 3",
                     evidence={"per_mu_d": {mu: {str(d): v for d, v in row.items()} for mu, row in tab.items()},
                               "constant_limit_estimate": limits, "floor_limit_estimate": floors,
                               "independent_b": indep, "statement_at": statement_at,
                               "regime": f"d = 8..64; Weil threshold of m = 3: d >= {F.weil_threshold_d(3)}"})


# --------------------------------------------------------------------------- Theorem 4.2
def _thm42_table(rs, mus=MUS, m: int = 3) -> dict:
    """Per mu and d: the smallest ratio (a^2/b) / min(p d^m, d p^(1/m)) on each branch of the min (p <= d^-m:
    k = d^m; p > d^-m: interior k) over the non-trivial points, the largest ratio over all points, and the largest
    gain of the target over the trivial unsuperposed value p d mu_{m+1}^2/mu_{2m} (eq. 10; moments by quadrature)."""
    out = {}
    for mu in mus:
        with mpmath.workdps(30):
            c_unsup = float(_qm(mu, m + 1) ** 2 / _qm(mu, 2 * m))
        for r in rs:
            d = 2 ** r
            cell = {"min_ratio_small_p": math.inf, "min_ratio_large_p": math.inf, "max_ratio": 0.0, "max_gain": 0.0}
            for p in _p_grid(r, m):
                pt = L.lower_bound_point(r, m, p, mu)
                gain = pt["target"] / (float(p) * d * c_unsup)
                cell["max_gain"] = max(cell["max_gain"], gain)
                cell["max_ratio"] = max(cell["max_ratio"], pt["ratio"])
                if gain < 10 and m > 1:   # eq. (10)'s unsuperposed W already give >= target/10: trivial here
                    continue
                branch = "min_ratio_small_p" if p * d ** m <= 1 else "min_ratio_large_p"
                if pt["ratio"] < cell[branch]:
                    cell[branch] = pt["ratio"]
                    cell[branch.replace("min_ratio", "at")] = {"p": pt["p"], "k": pt["k"]}
            out.setdefault(mu, {})[d] = cell
    return out


def _paper_k_independent(d: int, m: int, j: int) -> int:
    """Theorem 4.2's k at p = 2^(-mj), in exact integers: d^m if p <= d^-m, else d p^(1/m) / p = d 2^((m-1) j)."""
    return d ** m if 2 ** (m * j) >= d ** m else d * 2 ** ((m - 1) * j)


@pytest.mark.claim("S-thm4.2")
def test_thm42_lower_bound_constant(verdict):
    """Thm 4.2 at the paper's k, exact a^2/b: on BOTH branches of min(p d^m, d p^(1/m)) and only at points where the
    target exceeds the trivial unsuperposed value (eq. 10) at least 10x, the ratio to the target stays above one
    positive constant over d = 8..64 (across Lemma 4.1's Weil threshold d = 32); it also stays below one constant (the
    construction has exactly the target's order, so a target that is too small is seen). n = d^m + 1 > d^m. The
    statement object (an explicit constant) is evaluated at every point of d = 32, 64, p = 2^(-3j)."""
    # first (a wrong statement fails here, before the tables): the statement object (an explicit constant on
    # d = 32, 64, p = 2^(-3j)) at every such point, a^2/b at the paper's k computed independently (exact integers),
    # N(0, s), s = 1, 2
    statement_at = []
    for r in (5, 6):
        d = 2 ** r
        for j in range(0, r + 3):
            p, k = Fraction(1, 2 ** (3 * j)), _paper_k_independent(d, 3, j)
            for s in (Fraction(1), Fraction(2)):
                a, b = L.numerator_denominator(L.frame_block_stats(r, 3, k), p, f"gaussian({s})")
                env = {"m": 3, "d": d, "j": j, "s": s}
                assert holds("S-thm4.2", env, sup_L=a * a / b), env
                lhs, rhs = sides("S-thm4.2", env, sup_L=a * a / b)
                statement_at.append({"d": d, "p": str(p), "k": k, "s": str(s), "ratio_to_bound": float(lhs / rhs)})
    tab = _thm42_table(R_DEFAULT)
    for r in R_DEFAULT:   # the paper's k, independently (exact integers at p = 2^(-mj))
        for j in range(0, r + 3):
            assert L.paper_k(2 ** r, 3, Fraction(1, 2 ** (3 * j))) == _paper_k_independent(2 ** r, 3, j)
    for mu, row in tab.items():
        ds = sorted(row)
        assert row[ds[-1]]["max_gain"] > 1000   # deep in the non-trivial regime at the largest d
        # both branches of the min hold non-trivial points at every d, with a positive ratio
        assert all(0 < row[d][b] < math.inf for d in ds for b in ("min_ratio_small_p", "min_ratio_large_p"))
        mins = [min(row[d]["min_ratio_small_p"], row[d]["min_ratio_large_p"]) for d in ds]
        # "for all d, p" with one constant: the worst ratio per d (over both branches; the large-p branch's
        # infimum is its limit at the crossover p = d^-m) decreases, by steps that shrink geometrically
        # (each <= 0.7 of the previous), so the infimum over d is >= the extrapolated limit
        lim = _geometric_limit(mins)
        assert lim is not None and lim > 0, (mu, mins)
        row["extrapolated_inf"] = lim
        tops = [row[d]["max_ratio"] for d in ds]
        top = _geometric_limit(tops)
        assert top is not None and top <= 2 * max(tops), (mu, tops)   # bounded above too
    # the exact evaluation agrees with the project's exact loss of the realising W, by both routes, in
    # n = k + 1 > d^m dimensions (a zero column: rank <= d, n > d^m as Thm 2.2 assumes when k = d^m)
    for r, p in [(3, Fraction(1, 64)), (3, Fraction(1, 8 ** 4))]:
        pt = L.lower_bound_point(r, 3, p, "gaussian")
        t_star = float(pt["t_star_pow_m"]) ** (1 / 3)
        V = F.build_frame(r, 3, n_columns=pt["k"]).dense()
        W = np.hstack([math.sqrt(t_star) * V, np.zeros((V.shape[0], 1))])
        for route in ROUTES:
            val = exact_loss(W, float(p), m=3, mu="gaussian", route=route)
            assert abs(val - float(pt["sup"])) <= 1e-9 * float(pt["sup"])   # float64 round-off of a sum of k rows
    # m = 1: the frame is the orthonormal Walsh basis, the bound is exact with constant mu_2 (by quadrature)
    m1 = _thm42_table((2, 4, 6), mus=("gaussian", "uniform"), m=1)
    for mu, row in m1.items():
        for v in row.values():   # float of an exact rational vs 30-digit quadrature
            assert v["min_ratio_small_p"] == pytest.approx(float(_qm(mu, 2)), rel=1e-14)
            assert v["max_ratio"] == pytest.approx(float(_qm(mu, 2)), rel=1e-14)
    verdict.verified(method="exact a^2/b at the paper's k (checked independently), p = 2^(-mj) and 10^-j through the "
                            "crossover p = d^-m, d = 8..64, m = 3, four mu; on both branches of the min, only where "
                            "the target beats the unsuperposed value 10x; ratio bounded below and above; the "
                            "statement object (explicit constant) at d = 32, 64, p = 2^(-3j), N(0, 1) and N(0, 2)",
                     evidence={"m=3": {mu: {str(d): v for d, v in row.items()} for mu, row in tab.items()},
                               "m=1": {mu: {str(d): v for d, v in row.items()} for mu, row in m1.items()},
                               "statement_at": statement_at,
                               "regime": "non-trivial points: target >= 10 p d mu_{m+1}^2/mu_{2m}; d = 8..64, Weil "
                                         f"threshold of m = 3: d >= {F.weil_threshold_d(3)}; n = k + 1 (zero columns), "
                                         "> d^m at k = d^m"})


@pytest.mark.slow
@pytest.mark.claim("S-thm4.2")
def test_thm42_lower_bound_constant_large_d(verdict):
    tab = _thm42_table((3, 4, 5, 6, 7, 8), mus=("gaussian",))
    mins = [min(v["min_ratio_small_p"], v["min_ratio_large_p"]) for d, v in sorted(tab["gaussian"].items())]
    lim = _geometric_limit(mins)
    assert lim is not None and lim > 0, mins
    # m = 5 only reaches d = 32 (N = 2^25), below Lemma 4.1's Weil range d >= 128: reported, trend checked
    tab5 = _thm42_table((2, 3, 4, 5), mus=("gaussian",), m=5)
    mins5 = [min(v["min_ratio_small_p"], v["min_ratio_large_p"]) for d, v in sorted(tab5["gaussian"].items())]
    lim5 = _geometric_limit(mins5)
    assert min(mins5) > 0 and lim5 is not None and lim5 > 0, mins5
    verdict.verified(method="as the default check, m = 3 up to d = 256 (N = 2^24); m = 5 up to d = 32",
                     evidence={"table_m3": {str(d): v for d, v in tab["gaussian"].items()},
                               "table_m5": {str(d): v for d, v in tab5["gaussian"].items()}, "m5_limit_estimate": lim5})


# --------------------------------------------------------------------------- Remark 4.3
@pytest.mark.claim("S-rem4.3-attained")
def test_rem43_frame_reaches_order_d_m(verdict):
    """Remark 4.3: F(s* M) of Lemma 4.1's frame with the optimal scale is of order d^m from BOTH sides: it stays below
    the rank bound C(d+m-1, m) <= d^m (upper) and F/d^m decreases to a positive limit by geometrically shrinking
    steps (lower); the exact F agrees with a plain dense computation; loss/p -> mu_{m+1}^2/mu_{2m} F (both routes)."""
    rows = []
    for m, rs in [(1, range(1, 12)), (3, range(1, 8)), (5, range(1, 5))]:
        for r in rs:
            res = L.F_attained(r, m)
            d = res["d"]
            assert res["F"] <= math.comb(d + m - 1, m) <= res["N"]   # Remark 4.3's rank bound, symmetric tensors
            rows.append({"m": m, "d": d, "F_over_d_m": float(res["F_over_d_m"]), "T_2m": float(res["T_2m"]),
                         "rank_bound_over_d_m": math.comb(d + m - 1, m) / d ** m})
    for m, r in [(1, 3), (3, 1), (3, 2), (3, 3), (5, 1), (5, 2)]:   # an independent route to F, exactly
        V = F.build_frame(r, m).dense()
        S_int = np.rint(V.T @ V * 2 ** r).astype(np.int64)   # d M: dyadic, exact in float64
        d = 2 ** r
        # max over s of 2 s^m sum M_ii^m - s^2m sum M_ij^2m = (sum M_ii^m)^2 / sum M_ij^2m; integers: |S| <= d,
        # so every sum is < N^2 d^2m <= 2^50 here (exact in int64)
        dense_F = Fraction(int(np.sum(np.diag(S_int) ** m)), d ** m) ** 2 / \
            Fraction(int(np.sum(S_int ** (2 * m))), d ** (2 * m))
        assert dense_F == L.F_attained(r, m)["F"]
        assert holds("S-rem4.3-attained", {"m": m, "r": r}, F_star=dense_F)   # the statement object, F by this route
        Bt = (S_int.astype(float) / d) ** m
        assert np.linalg.matrix_rank(Bt) <= math.comb(d + m - 1, m)
    limits = {}
    for x in rows:
        # Weil's |M_ij| <= C_m/sqrt(d) alone gives F >= C d^m/(1 + C_m^(2m)) at every d: the statement object itself
        # (its constants, exponents and relation); m = 1 (C_m = 0) is the equality F = d, so a strict or reversed
        # relation, or a larger bound, is false there
        r_x = int(math.log2(x["d"]))
        assert holds("S-rem4.3-attained", {"m": x["m"], "r": r_x}, F_star=L.F_attained(r_x, x["m"])["F"]), x
    # order d^m from below for m = 3 (d = 2..128, across its Weil threshold 32): F/d^m falls by geometrically
    # shrinking steps to a positive limit. m = 5 reaches d = 16 here, far below its threshold 128 (slow tier: d = 32)
    sub = [x["F_over_d_m"] for x in rows if x["m"] == 3]
    lim = _geometric_limit(sub)
    assert lim is not None and lim > 0, sub
    limits[3] = lim
    assert all(x["F_over_d_m"] == 1 for x in rows if x["m"] == 1)   # m = 1: an orthonormal basis, F = d exactly
    # first order in p of the exact loss at A = c s* M (c = (mu_{m+1}/mu_{2m})^(1/m), moments by quadrature)
    r, m, mu = 3, 3, "gaussian"
    res = L.F_attained(r, m)
    m4, m6 = (float(_qm(mu, e)) for e in (4, 6))
    scale = (m4 / m6) ** (1 / 3) * float(res["s_pow_m"]) ** (1 / 3)
    V = F.build_frame(r, m).dense()
    target = m4 ** 2 / m6 * float(res["F"])
    errs = {}
    for route in ROUTES:
        e = [abs(exact_loss(math.sqrt(scale) * V, p, m=m, mu=mu, route=route) / p - target) / target
             for p in (1e-4, 1e-5, 1e-6)]
        # the gap is the O(p) remainder: it shrinks ~10x per decade of p
        assert e[1] < 0.2 * e[0] and e[2] < 0.2 * e[1]
        errs[route] = e
    verdict.verified(method="exact F(s* M) = N^2/sum M_ij^(2m) from the certificate sums and from the dense frame; "
                            "two-sided order d^m; loss/p -> mu^2/mu_2m F (both routes, moments by quadrature)",
                     evidence={"rows": rows, "F_over_d_m_limit_estimate": limits,
                               "first_order_rel_gap_p=1e-4,1e-5,1e-6": errs})


@pytest.mark.slow
@pytest.mark.claim("S-rem4.3-attained")
def test_rem43_frame_order_d_m_m5_large_d(verdict):
    """m = 5 up to d = 32 (N = 2^25): F/d^m between a positive extrapolated limit and the rank bound C(d+4, 5)/d^5.
    d = 32 is still below the Weil threshold 128 of m = 5: the trend is reported and checked, not the regime."""
    rows = []
    for r in range(1, 6):
        res = L.F_attained(r, 5)
        d = res["d"]
        assert res["F"] <= math.comb(d + 4, 5)
        rows.append({"d": d, "F_over_d_m": float(res["F_over_d_m"]), "rank_bound_over_d_m": math.comb(d + 4, 5) / d ** 5})
    lim = _geometric_limit([x["F_over_d_m"] for x in rows])
    assert lim is not None and lim > 0, rows
    verdict.verified(method="exact F(s* M) of the m = 5 frame, d = 2..32, geometric extrapolation of F/d^m",
                     evidence={"rows": rows, "F_over_d_m_limit_estimate": lim,
                               "regime": f"d <= 32 < weil_threshold_d(5) = {F.weil_threshold_d(5)}"})


# --------------------------------------------------------------------------- Thm 4.2 with better frames
def _thm42_compare(r: int, mu: str) -> dict:
    from fractions import Fraction

    from verify.numeric.frames import theorem42 as FL

    ps = [Fraction(1, 2 ** j) for j in range(0, 3 * r + 5, 2)]  # through the crossover p = d^-3 and beyond
    return FL.compare_frames(r, ps, m=3, mu=mu)


def _searched_beyond_dg1(res: dict, name: str) -> bool:
    """Whether the search over DG(r, delta) sub-frames reached one that is not a DG(r, 1) sub-frame: that needs more
    than the first m' = r - 1 bits of c (l > m'), i.e. more columns than the whole DG(r, 1) frame has."""
    return res["sizes"][name] > res["sizes"]["dg1"]


def _thm42_assert(res: dict) -> dict:
    """Separate the two sources of gain over the paper's bound, comparing like with like (every frame at its own best
    power-of-two k, the paper's frame with the paper's k added to its candidates):

    * ``gain_from_k``: the paper's frame at its best k against the paper's frame at the paper's k;
    * ``gain_from_frame``: the lower-coherence DG(r, 1) sub-frames at their best k against the paper's frame at its
      best k;

    both as ratios of the worst constant over p, and per p exactly (Fractions). "More columns at the paper's coherence
    give no gain" (DG(r, delta >= 2) against DG(r, 1)) is asserted only where the search reached sub-frames beyond
    DG(r, 1); elsewhere it would hold automatically and is recorded as not tested."""
    pts = res["points"]
    names = [n for n in res["sizes"] if n != "paper"]
    for p in pts:
        assert p["paper_best"]["sup"] >= p["paper_sup"]  # the paper's k is among the candidates: exact
        assert p["dg1"]["sup"] >= p["paper_best"]["sup"]  # measured: the frame never loses at equal k rules (exact)
    no_gain = {}
    for name in names:
        if name.startswith("dg") and name != "dg1":
            if _searched_beyond_dg1(res, name):
                assert all(p[name]["sup"] == p["dg1"]["sup"] for p in pts)  # exact equality at every p
                no_gain[name] = {"tested": True, "columns_searched": res["sizes"][name]}
            else:
                no_gain[name] = {"tested": False, "why": "the searched sub-frames (l <= r - 1 bits of c) are DG(r, 1) "
                                 "sub-frames, so equality holds by construction"}
    worst = {"paper": min(p["paper_ratio"] for p in pts), "paper_best_k": min(p["paper_best"]["ratio"] for p in pts)}
    worst.update({n: min(p[n]["ratio"] for p in pts) for n in names})
    gain_k, gain_frame = worst["paper_best_k"] / worst["paper"], worst["dg1"] / worst["paper_best_k"]
    assert gain_k > 1 and gain_frame > 1  # both sources raise the worst constant (measured; ratios >= 1 per p above)
    return {"d": res["d"], "mu": res["mu"], "sizes": res["sizes"], "worst_ratio_over_p": worst,
            "gain_from_k": gain_k, "gain_from_frame": gain_frame, "gain_total": gain_k * gain_frame,
            "more_columns_no_gain": no_gain,
            "table": [{"p": p["p"], "paper": p["paper_ratio"], "paper_best_k": [p["paper_best"]["ratio"], p["paper_best"]["k"]],
                       **{n: [p[n]["ratio"], p[n]["k"]] for n in names}} for p in pts]}


def _dg_beyond_dg1(r: int, ps: list, mu: str, res: dict) -> dict:
    """DG(r, 2) sub-frames one bit of c beyond DG(r, 1) (l = r: 2^(3r - 1) columns), past the default search cap, so
    "more columns give no gain" is tested at this d too: the best of them never beats DG(r, 1) at any p (exact)."""
    import sys

    from verify.numeric.frames import theorem42 as FL

    mod = sys.modules[FL.code_block_stats.__module__]  # where the cap is read, wherever the frames code lives
    mp = r - 1
    saved = mod.MAX_FORMS
    mod.MAX_FORMS = 2 ** (2 * mp + mp + 1)
    try:
        st = FL.code_block_stats("dg", r, 3, s=mp, l=mp + 1, delta=2)
    finally:
        mod.MAX_FORMS = saved
    rows = []
    for p, pt in zip(ps, res["points"]):
        best = FL.best_point([st], p, mu, res["d"], 3)
        assert best["sup"] <= pt["dg1"]["sup"]  # no gain from the extra columns (exact Fractions)
        rows.append({"p": pt["p"], "ratio": best["ratio"], "dg1_ratio": pt["dg1"]["ratio"]})
    return {"k": st.k, "rows": rows}


@pytest.mark.claim("X-S-thm4.2-better-frames")
def test_thm42_with_better_frames(verdict):
    out = []
    for r in (4, 6):
        res = _thm42_compare(r, "gaussian")
        if r == 6:  # DG(6, 2) is searched in full (all 2^21 columns): "no gain" is tested beyond DG(6, 1)
            assert res["sizes"]["dg2"] == 2 ** 21 > res["sizes"]["dg1"]
        out.append(_thm42_assert(res))
    verdict.verified(method="num: exact a, b (eqs. 19-20) from exact row power sums of Kerdock/DG sub-frames "
                            "(GF(2) ranks); every frame at its own best power-of-two k, the paper's frame also at the "
                            "paper's k",
                     evidence={"BEYOND_THE_PAPER": True, "cases": out,
                               "tested_where": "more columns: d = 64 (DG(6, 2) in full); d = 16 has no DG(r, 2)"})


@pytest.mark.slow
@pytest.mark.claim("X-S-thm4.2-better-frames")
def test_thm42_with_better_frames_larger(verdict):
    from fractions import Fraction

    out = [_thm42_assert(_thm42_compare(6, "laplace"))]
    res = _thm42_compare(8, "gaussian")
    case = _thm42_assert(res)
    case["dg2_beyond_dg1"] = _dg_beyond_dg1(8, [Fraction(1, 2 ** j) for j in range(0, 3 * 8 + 5, 2)], "gaussian", res)
    out.append(case)
    verdict.verified(method="num: as above, d = 64 (Laplace) and d = 256 (DG(8, 2) sub-frames one bit of c beyond "
                            "DG(8, 1), 2^23 columns, past the default search cap)",
                     evidence={"BEYOND_THE_PAPER": True, "cases": out})


@pytest.mark.claim("S-thm4.2")
def test_paper_k_takes_the_whole_frame_at_p_equal_to_d_to_the_minus_m(verdict):
    r"""Thm 4.2's sub-frame size (footnote 6): :math:`k = d^m` when :math:`p \le d^{-m}`, else the integer nearest
    :math:`d\,p^{1/m}/p`, clipped to :math:`[d, d^m]`. At the boundary :math:`p = d^{-m}` the first case holds
    exactly, also where :math:`d^m` (here :math:`5^{61} \approx 4\cdot 10^{42}`) is past what 40-digit arithmetic
    rounds to the right integer; off the boundary (p = 1/q) k is sympy's exact nearest integer to
    :math:`d\,q^{1-1/m}` (floor of it plus 1/2, evaluated exactly), clipped."""
    from verify.numeric import lower_bound as LB

    for d, m in ((5, 61), (4, 3), (3, 5)):
        assert LB.paper_k(d, m, Fraction(1, d ** m)) == d ** m
    rows = []
    for d, m, q in ((4, 3, 63), (6, 5, 1000), (3, 3, 10)):
        near = int(sympy.floor(d * sympy.Integer(q) ** (1 - sympy.Rational(1, m)) + sympy.Rational(1, 2)))
        want = min(max(near, d), d ** m)
        assert LB.paper_k(d, m, Fraction(1, q)) == want
        rows.append({"d": d, "m": m, "p": f"1/{q}", "k": want})
    verdict.verified(method="paper_k: d^m at p = d^-m (exact), else sympy's nearest integer, clipped",
                     evidence={"cases": rows})


@pytest.mark.claim("X-S-thm4.2-better-frames")
def test_compare_frames_default_power_is_three(verdict):
    r"""``compare_frames`` documents m = 3 (the paper's Thm 4.2 figure) as its default: without m it reports m = 3
    and the same points as with m = 3 given; the paper's point is :func:`lower_bound_point` at m = 3 (d = 4)."""
    from verify.numeric import lower_bound as LB
    from verify.numeric.frames.theorem42 import compare_frames

    ps = [Fraction(1, 8)]
    got = compare_frames(2, ps, constructions=[])
    assert got["m"] == 3 and got == compare_frames(2, ps, m=3, constructions=[])
    assert got["points"][0]["paper_sup"] == LB.lower_bound_point(2, 3, ps[0])["sup"]
    verdict.verified(method="compare_frames without m == with m = 3",
                     evidence={"d": 4, "p": "1/8", "paper_sup": str(got["points"][0]["paper_sup"])})
