r"""Paper N: the three arithmetics of the central-path closed forms, each a route of the claims that use them.

:mod:`verify.numeric.ufm` writes each closed form once and evaluates it in the arithmetic the entries of ``H``
select: float64 arrays, object arrays of exact rationals (``flint.fmpq``, ``Fraction``, sympy ``Rational`` or
integers, converted entry by entry) and object arrays of ``mpmath.mpf``. A user reaches every one of them with
the claim's own inputs, so each claim's quantity is computed here by all of them at one rational point: the
exact route with mixed entry types equals the exact route with Fractions exactly, mpmath at 30 digits equals it
to 25 digits, float64 to 1e-12; then the claim's statement is asserted on the exact value, both sides where it is
a bound. Points have d > K, non-unit scales and non-zero class means, so a dropped scale or a wrong exponent shows.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy

from verify.numeric import ufm

SEED = 1803


def _point(rng, d, K, n, scale):
    """A rational H (d x Kn, entries k/8 times ``scale``, class means apart) as an object array of Fractions."""
    means = rng.integers(-12, 13, (d, K))
    raw = np.repeat(means, n, axis=1) + rng.integers(-6, 7, (d, K * n))
    H = np.array([[Fraction(int(v), 8) * scale for v in row] for row in raw], dtype=object)
    H[0, 1] = Fraction(int(raw[0, 1]) or 3)          # one integral entry: the exact route's int branch
    return H


def _mixed(Hq, types=(Fraction, sympy.Rational, flint.fmpq, int)):
    """The same exact matrix with every entry type the exact route accepts: int (every integral entry but the
    first), Fraction, sympy Rational, flint fmpq, cycled over the others (the first entry a Fraction: the route is
    chosen by it). The points here have an integral entry, so every type occurs (``types``: those required)."""
    out = np.empty(Hq.shape, dtype=object)
    for i, v in enumerate(Hq.flat):
        kind = i % 4
        if v.denominator == 1 and i > 0:
            out.flat[i] = int(v)
        elif kind == 2:
            out.flat[i] = sympy.Rational(v.numerator, v.denominator)
        elif kind == 3:
            out.flat[i] = flint.fmpq(v.numerator, v.denominator)
        else:
            out.flat[i] = v
    assert {type(x) for x in out.flat} >= set(types)   # every branch is taken
    return out


def _frac(v):
    """An exact or mpmath number as a Fraction (exactly: fmpq via its string, mpf via its binary value)."""
    if isinstance(v, mpmath.mpf):
        return Fraction(*mpmath.libmp.to_rational(v._mpf_))
    return Fraction(str(v))


def _as_fractions(x):
    return np.vectorize(_frac, otypes=[object])(np.asarray(x, dtype=object))


def ladder(f, Hq, lw, lh, K):
    r"""``f(H, lam_W, lam_H, K)`` by every arithmetic of :mod:`~verify.numeric.ufm` at the rational point ``Hq``;
    returns the exact value (Fractions). Asserts: exact (Fraction entries) == exact (mixed entry types, scalars
    as fmpq and sympy) exactly; mpmath at dps 30 (entries converted from the mixed types, scalars Fraction and
    sympy) within 1e-25 relative; float64 within 1e-12 relative (closed forms through one d x d inverse of
    condition < 1e3 at these points)."""
    exact = _as_fractions(f(Hq, lw, lh, K))
    mixed = _as_fractions(f(_mixed(Hq), flint.fmpq(lw.numerator, lw.denominator), sympy.Rational(lh), K))
    assert np.array_equal(exact, mixed)
    size = max(abs(v) for v in np.ravel(exact)) or Fraction(1)
    with mpmath.workdps(30):
        mp = f(ufm.as_mp(_mixed(Hq)), lw, sympy.Rational(lh), K)
        assert isinstance(np.ravel(np.asarray(mp, dtype=object))[0], mpmath.mpf)      # the mpmath route ran
        err = max(abs(a - b) for a, b in zip(np.ravel(_as_fractions(mp)), np.ravel(exact)))
        assert err <= Fraction(1, 10 ** 25) * size, float(err / size)
    fl = np.asarray(f(np.array(Hq, dtype=float), float(lw), float(lh), K), dtype=float)
    assert np.abs(fl - np.asarray(exact, dtype=float)).max() <= 1e-12 * float(size)
    return exact


def _grad_eq7_literal(H, lw, lh, K):
    r"""(7) as printed: :math:`\frac1{K^2n}(C(H-\bar H\otimes1_n^\top) - C(\Sigma_W+\frac{\lambda_W}KI)CH +
    \lambda_HKH)`, :math:`C = (\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1}`, from the covariances (not the code's
    class-mean form)."""
    H, K, n, kind = ufm._prepare(H, K)
    lw, lh = ufm._scalar(lw, kind), ufm._scalar(lh, kind)
    c = ufm.covariances(H, K)
    eye = ufm._eye(H.shape[0], kind)
    C = ufm._inv(c["Sigma_T_tilde"] + eye * (lw / K), kind)
    Hc = H - np.repeat(c["Hbar"], n, axis=1)
    return (C @ Hc - C @ (c["Sigma_W"] + eye * (lw / K)) @ C @ H + H * (lh * K)) / (K * K * n)


CASES = [(3, 2, 2, Fraction(7, 5), Fraction(3, 10), Fraction(3, 2)), (4, 3, 1, Fraction(2, 9), Fraction(0), Fraction(5, 4))]


@pytest.mark.claim("N-L-closed")
def test_loss_closed_form_equals_definition_in_every_arithmetic(verdict):
    r"""App. A's closed form of :math:`\mathcal L(H)` equals objective (1) at :math:`(W^*(H), H)` (the definition,
    :func:`~verify.numeric.ufm.central_path_loss_direct`) exactly, each computed by the exact (mixed entry types),
    mpmath and float64 routes; d = 3, 4 > K, :math:`\lambda_H = 0` in one case."""
    rng = np.random.default_rng(SEED)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        closed = ladder(ufm.central_path_loss, Hq, lw, lh, K)
        definition = ladder(ufm.central_path_loss_direct, Hq, lw, lh, K)
        assert closed == definition and closed > 0
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "L": str(closed)})
    verdict.verified(method="exact (fmpq from int/Fraction/sympy/fmpq) == mpmath dps 30 == float64; closed form == "
                            "definition exactly", evidence={"cases": rows, "seed": SEED})


@pytest.mark.claim("N-eq7")
def test_gradient_code_equals_printed_eq7_in_every_arithmetic(verdict):
    r"""The code's gradient (the class-mean form, Cholesky in float64, an inverse otherwise) equals (7) as printed,
    written out from the covariances here, exactly, by every arithmetic; and it is the derivative of
    :math:`\mathcal L`: the exact difference quotient of the closed form along a rational direction V (step
    :math:`h = 2^{-20}`) is within :math:`O(h)` of :math:`\langle\nabla\mathcal L, V\rangle`."""
    rng = np.random.default_rng(SEED + 1)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        assert np.array_equal(g, ladder(_grad_eq7_literal, Hq, lw, lh, K))
        V = _point(rng, d, K, n, Fraction(1))
        h = Fraction(1, 2 ** 20)
        q = (_frac(ufm.central_path_loss(Hq + V * h, lw, lh, K)) - _frac(ufm.central_path_loss(Hq, lw, lh, K))) / h
        dd = sum(a * b for a, b in zip(g.flat, V.flat))
        # forward difference of a smooth rational function: error h * |second derivative| ~ 1e-6 |dd| at most here
        assert abs(q - dd) <= Fraction(1, 10 ** 4) * max(1, abs(dd)), (float(q), float(dd))
        rows.append({"d": d, "K": K, "n": n, "directional": float(dd), "difference_quotient": float(q)})
    verdict.verified(method="exact/mpmath/float64 gradient == printed (7) exactly; exact difference quotient",
                     evidence={"cases": rows, "seed": SEED + 1})


@pytest.mark.claim("N-lemB.1")
def test_lemma_b1_bound_in_every_arithmetic_and_tight(verdict):
    r""":math:`\|\nabla\mathcal L(H)\|_F^2 \le ((3/\lambda_W+\lambda_H)/(Kn))^2\|H\|_F^2` compared exactly (squares:
    no root) at the exact gradient, itself equal across the three arithmetics; two-sided: at
    :math:`\lambda_W = 10^6, \lambda_H = 1` (where :math:`\nabla\mathcal L \to \lambda_H H/(Kn)`) the squared ratio
    exceeds :math:`1 - 10^{-4}`, so a weakened gradient (a lost factor K) fails."""
    rng = np.random.default_rng(SEED + 2)
    rows = []
    for d, K, n, lw, lh, s in [*CASES, (3, 2, 2, Fraction(10 ** 6), Fraction(1), Fraction(3, 2))]:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        lhs = sum(v * v for v in g.flat)
        rhs = ((3 / lw + lh) / (K * n)) ** 2 * sum(v * v for v in Hq.flat)
        ratio_sq = lhs / rhs
        assert 0 < ratio_sq <= 1
        if lw == 10 ** 6:
            assert ratio_sq > 1 - Fraction(1, 10 ** 4)
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "ratio_sq": float(ratio_sq)})
    verdict.verified(method="exact: squared bound at the exact gradient (equal across exact/mpmath/float64); tight "
                            "at large lam_W", evidence={"cases": rows, "seed": SEED + 2})


def _collapsed(a, b, d, K, n, seed):
    """An exact collapsed minimiser (:func:`verify.symbolic.perturbation.rational_collapsed_point`: a rational Cayley
    frame R, :math:`\\sigma_{\\bar H} = a`, :math:`\\sigma_W = b`) as Fractions, with its lam_W, lam_H and c."""
    from verify.symbolic import perturbation as S

    # a zero row appended to a Cayley frame of Q^{(d-1) x K}: still orthonormal columns, and H* gets integral (zero)
    # entries, so the exact route's int branch runs too
    R = S.cayley_frame(d - 1, K, seed=seed).col_join(sympy.zeros(1, K))
    pt = S.rational_collapsed_point(sympy.Rational(a), sympy.Rational(b), R, n)
    to_q = lambda M: np.array([[Fraction(int(v.p), int(v.q)) for v in row] for row in M.tolist()], dtype=object)  # noqa: E731
    return to_q(pt["H"]), to_q(pt["W"]), *(Fraction(int(pt[k].p), int(pt[k].q)) for k in ("lam_W", "lam_H", "c"))


# (a, b, d, K, n, Cayley seed): d > K, a, b away from 1 (non-unit scales of H* and W*)
COLLAPSED = [(Fraction(2, 3), Fraction(3, 5), 4, 2, 3, 1), (Fraction(5, 4), Fraction(1, 3), 4, 3, 2, 2)]


@pytest.mark.claim("N-D-residual")
def test_residual_minus_cY_with_W_from_optimal_W_in_every_arithmetic(verdict):
    r""":math:`W^*H^* - Y = -cY` at exact collapsed minimisers, with :math:`W^* = YH^{*\top}(H^*H^{*\top} +
    n\lambda_WI)^{-1}` computed by :func:`~verify.numeric.ufm.optimal_W` (an independent route to the collapsed
    :math:`W^*`, equal to it exactly) in every arithmetic."""
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        Wopt = ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K)
        assert np.array_equal(Wopt, W)
        Y = np.kron(np.eye(K, dtype=int), np.ones((1, n), dtype=int)).astype(object)
        assert np.array_equal(Wopt @ H - Y, -c * Y) and 0 < c < 1
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "c": str(c)})
    verdict.verified(method="exact: optimal_W (exact/mpmath/float64 routes) at rational collapsed minimisers; "
                            "W*H* - Y = -cY exactly", evidence={"cases": rows})


@pytest.mark.claim("N-minimisers-R")
def test_collapsed_point_is_stationary_with_value_c_minus_half_c2_in_every_arithmetic(verdict):
    r"""At exact collapsed minimisers built from a rational partial orthonormal R: the gradient (7) of
    :math:`\mathcal L` vanishes exactly and :math:`\mathcal L(H^*)` equals objective (1) at :math:`(W^*, H^*)`,
    :math:`c - c^2/2`, exactly - each by every arithmetic; and a perturbed point has a larger loss (a minimum,
    not only a stationary point, along a rational direction)."""
    rng = np.random.default_rng(SEED + 3)
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        g = ladder(ufm.grad_central_path_loss, H, lw, lh, K)
        assert all(v == 0 for v in g.flat)
        L = ladder(ufm.central_path_loss, H, lw, lh, K)
        # W as fmpq: ufm_objective converts H's entries but not W's (Fraction W with exact H raises TypeError)
        f = _frac(ufm.ufm_objective(ufm.as_exact(W), H, lw, lh, K))
        assert L == f == c - c * c / 2
        V = _point(rng, d, K, n, Fraction(1, 16))
        assert _frac(ufm.central_path_loss(H + V, lw, lh, K)) > L
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "value": str(L)})
    verdict.verified(method="exact: zero gradient, value c - c^2/2 (exact/mpmath/float64 routes), larger nearby",
                     evidence={"cases": rows, "seed": SEED + 3})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_minimiser_form_exact_in_every_arithmetic(verdict):
    r"""Thm 2.2's form of the minimiser at exact collapsed points: :math:`W^*(H^*)` by
    :func:`~verify.numeric.ufm.optimal_W` (every arithmetic) equals :math:`\sqrt{\lambda_H/\lambda_W}\bar H^{*\top}`
    exactly, :math:`\bar H^{*\top}\bar H^* = \rho I` with :math:`\rho` = :func:`~verify.numeric.ufm.collapse_rho` on
    exact rational input (its sympy route) and by float input; and for :math:`c = \sqrt{\lambda_W\lambda_H} > 1`
    both routes give :math:`\rho = 0` (the zero minimiser)."""
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        Wopt = ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K)
        Hbar = _as_fractions(ufm.class_means(H, K))
        assert np.array_equal(Wopt, (b / a) * Hbar.T)              # sqrt(lH/lW) = b/a exactly here
        rho = ufm.collapse_rho(lw, lh)                            # exact: sympy
        assert sympy.Rational(rho) == sympy.Rational(a.numerator ** 2, a.denominator ** 2) and rho != 0
        assert np.array_equal(Hbar.T @ Hbar, np.eye(K, dtype=int) * Fraction(int(sympy.numer(rho)), int(sympy.denom(rho))))
        assert abs(ufm.collapse_rho(float(lw), float(lh)) - float(rho)) <= 1e-15 * float(rho)   # two float roundings
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "rho": str(rho)})
    big = (Fraction(3), Fraction(1, 2))                            # c = sqrt(3/2) > 1
    assert ufm.collapse_rho(*big) == 0 and ufm.collapse_rho(*map(float, big)) == 0.0
    verdict.verified(method="exact: optimal_W (exact/mpmath/float64) == sqrt(lH/lW) Hbar^T; Hbar^T Hbar = rho I with "
                            "collapse_rho exact and float; rho = 0 for c > 1", evidence={"cases": rows})


# --------------------------------------------------------------------------- the perturbed model (2) by every route
def _like(A, H):
    """``A`` (Fractions) in the arithmetic of ``H``: mpmath entries for an mpmath ``H``, float64 for a float one,
    as is (exact) otherwise - the H0 a user of that arithmetic passes."""
    first = np.ravel(H)[0]
    if isinstance(first, mpmath.mpf):
        return ufm.as_mp(A)
    return np.array(A, dtype=float) if isinstance(first, float) else A


def _stationary_pair(Hq, beta, lw, lh, K):
    r"""(8) solved backwards: :math:`H_0 = H + \frac{Kn}\beta\nabla\mathcal L(H)` exactly (Fractions), so that ``Hq`` is
    a stationary point of (2) for that :math:`H_0`; the solver routes below confirm it is the minimiser."""
    n = Hq.shape[1] // K
    return Hq + _as_fractions(ufm.grad_central_path_loss(Hq, lw, lh, K)) * Fraction(K * n) / beta


def _solver_routes(H0q, beta, lw, lh, K, monkeypatch, mp=True):
    r"""The minimiser of (2) for the exact :math:`H_0` by every route of :func:`~verify.numeric.ufm.solve_perturbed`:
    ``H0`` with mixed exact entry types (hybr polish), float ``H0`` with 3 seeded starts, no polish, a polish that
    walks away (``root`` replaced by one returning a point of larger residual: the guard must keep the L-BFGS
    point), and (``mp``) the mpmath Newton refinement (``dps = 30``, mpmath ``H0``; its finite-difference Jacobian
    costs (dKn)^2 residuals, so the checks that already run it elsewhere leave it out). Returns name -> float64
    array (the mpmath one also as ``"mpmath30_mp"``)."""
    H0f = np.array(H0q, dtype=float)
    out = {"exact_H0": ufm.solve_perturbed(_mixed(H0q, types=(Fraction, sympy.Rational, flint.fmpq)), beta, lw, lh, K),
           "starts3": ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K, starts=3, seed=SEED),
           "no_polish": ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K, polish=False)}
    calls = []
    with monkeypatch.context() as patch:   # not ``mp``: that is the argument that asks for the mpmath route
        root = ufm.root

        def walk_away(f, x, **kw):                                      # a polish that makes the residual worse
            sol = root(f, x, **kw)
            calls.append(1)
            sol.x = sol.x + 1e-3
            return sol
        patch.setattr(ufm, "root", walk_away)
        out["polish_rejected"] = ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K)
    assert calls == [1]                                                 # the polish ran and was refused
    if not mp:
        return out
    with mpmath.workdps(30):
        Hm = ufm.solve_perturbed(ufm.as_mp(H0q), beta, lw, lh, K, dps=30)
    assert isinstance(Hm[0, 0], mpmath.mpf)
    out["mpmath30_mp"], out["mpmath30"] = Hm, np.array(Hm, dtype=float)
    return out


def _assert_routes_find(Hq, H0q, beta, lw, lh, K, routes, scale):
    """Every solver route returned ``Hq``: float routes to 1e-9 of |H - H0| (hybr / Newton to tol 1e-15 on O(1)
    residuals; 1e-7 unpolished: L-BFGS stops on line-search precision, ~5e-9 measured). The mpmath route refines
    the problem as given (the exact H0, beta and lambdas, not their float64 roundings): its residual (8) there, at
    30 digits, is below 1e-25 of |H - H0| (Newton at 30 digits, a few lost in the finite-difference Jacobian), and
    it is within 1e-22 of ``Hq`` (that residual times the O(1) condition of the map H0 -> H at these beta, with
    three digits to spare; a refinement of the float64-rounded H0 would be 1e-16 away)."""
    Hf = np.array(Hq, dtype=float)
    for name, H in routes.items():
        if name == "mpmath30_mp":
            with mpmath.workdps(30):   # the exact H0, beta, lam_W, lam_H that solve_perturbed(dps=30) refines
                r = ufm.stationarity_residual(H, ufm.as_mp(H0q), *map(ufm._to_mpf, (beta, lw, lh)), K)
                assert max(abs(v) for v in r.flat) <= mpmath.mpf(10) ** -25 * scale, name
            err = max(abs(_frac(a) - b) for a, b in zip(H.flat, Hq.flat))
            assert err <= Fraction(1, 10 ** 22) * Fraction(scale), (name, float(err))
        else:
            tol = (1e-7 if name in ("no_polish", "polish_rejected") else 1e-9) * scale
            assert np.abs(H - Hf).max() <= tol, (name, float(np.abs(H - Hf).max()), scale)


@pytest.mark.claim("N-eq8")
@pytest.mark.claim("N-B-distance")
def test_exact_stationary_pair_is_the_minimiser_by_every_route_eq8_and_distance_bound(verdict, monkeypatch):
    r"""At rational :math:`H` and :math:`H_0 = H + \frac{Kn}\beta\nabla\mathcal L(H)` (exact), for
    :math:`\beta = q\,nKM`, :math:`nKM = 3/\lambda_W + \lambda_H`, q = 3 and 30: (8)'s residual
    (:func:`~verify.numeric.ufm.stationarity_residual`, every arithmetic and entry type) is exactly zero, the first
    derivatives (11) of the joint objective (App. C, another module) vanish at :math:`(W^*(H), H)` with :math:`W^*`
    from :func:`~verify.numeric.ufm.optimal_W` (every arithmetic), and every solver route from :math:`H_0` returns
    :math:`H` - so :math:`H = H_{1/\beta}` and (8) holds. App. B's bound
    :math:`\|H_{1/\beta}-H_0\|_F \le (\beta/(nKM)-1)^{-1}\|H_0\|_F` is compared exactly (squares), ratio in (0, 1],
    and below the trivial bound :math:`(Kn/\beta + \|H_0\|^2)^{1/2}` (comparison with H = 0; the regime where it
    says something)."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED + 4)
    # dyadic lam_W, lam_H and beta: solve_perturbed reads them as floats (its mpmath Newton too), exactly here
    d, K, n, lw, lh = 3, 2, 2, Fraction(3, 4), Fraction(1, 4)
    Hq = _point(rng, d, K, n, Fraction(3, 2))
    nKM = 3 / lw + lh
    rows = []
    for q in (Fraction(3), Fraction(30)):
        beta = q * nKM
        H0q = _stationary_pair(Hq, beta, lw, lh, K)
        res = ladder(lambda H, lw_, lh_, K_: ufm.stationarity_residual(H, _like(H0q, H), beta, lw_, lh_, K_),
                     Hq, lw, lh, K)
        assert all(v == 0 for v in res.flat)
        W = ladder(lambda H, lw_, lh_, K_: ufm.optimal_W(H, lw_, K_), Hq, lw, lh, K)
        gH, gW = P.gradients(np.array(W, dtype=float), np.array(Hq, dtype=float), np.array(H0q, dtype=float),
                             float(beta), float(lw), float(lh), K, n)
        D = Hq - H0q
        size = float(np.sqrt(float(sum(v * v for v in D.flat))))
        # the joint gradient scaled to H's units (x Kn / beta); float64 products of O(10) entries: 1e-12 of |H - H0|
        joint = max(float(np.abs(gH).max()), float(np.abs(gW).max())) * K * n / float(beta)
        assert joint <= 1e-12 * max(1.0, size) * 10, joint
        routes = _solver_routes(H0q, beta, lw, lh, K, monkeypatch, mp=q == 3)   # mpmath once (~0.5 s)
        _assert_routes_find(Hq, H0q, beta, lw, lh, K, routes, size)
        dist2, h02 = sum(v * v for v in D.flat), sum(v * v for v in H0q.flat)
        ratio_sq = dist2 * (beta / nKM - 1) ** 2 / h02
        assert 0 < ratio_sq <= 1
        bound_sq = h02 / (beta / nKM - 1) ** 2
        assert bound_sq < Fraction(K * n) / beta + h02                    # below the trivial bound (q > 2)
        rows.append({"q": str(q), "beta": str(beta), "ratio": float(ratio_sq) ** 0.5, "joint_grad": joint})
    verdict.verified(method="exact stationary pair: (8) residual 0 in exact (int/Fraction/sympy/fmpq) / mpmath / "
                            "float64; joint first derivatives (11) vanish; every solve_perturbed route (exact H0, 3 "
                            "starts, no polish, refused polish, mpmath 30) returns H; App. B bound exact",
                     evidence={"cases": rows, "d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh),
                               "seed": SEED + 4})


@pytest.mark.claim("N-cor3.1")
def test_cor31_collapsed_H0_is_the_unique_minimiser_in_every_arithmetic_and_solver_route(verdict, monkeypatch):
    r"""Cor. 3.1 at exact collapsed minimisers :math:`(W^*, H^*)` of (1) (d > K, c < 1), :math:`H_0 = H^*`,
    :math:`\beta` = 1/2, 10 and 4: :math:`\rho` = collapse_rho (exact sympy route) is :math:`\sigma_{\bar H}^2`,
    (8)'s residual at :math:`H^*` is exactly zero and :math:`W^*(H^*)` (optimal_W) equals :math:`W^*` exactly, by
    every arithmetic and entry type; every solver route from :math:`H_0 = H^*` returns :math:`H^*` (the mpmath
    one in the smallest case); and the reduced objective of (2) (every arithmetic) is exactly larger at
    :math:`H^* \pm V` for a rational V of two sizes (the minimiser is strict, not only stationary)."""
    rng = np.random.default_rng(SEED + 5)
    rows = []
    # a third, small case (d = 3, K = 2, n = 1: 6 unknowns) runs the mpmath route too (its Jacobian costs (dKn)^2)
    cases = [*zip(COLLAPSED, (Fraction(1, 2), Fraction(10)), (False, False)),
             ((Fraction(3, 4), Fraction(2, 3), 3, 2, 1, 3), Fraction(4), True)]
    for (a, b, d, K, n, seed), beta, mp in cases:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        assert sympy.Rational(ufm.collapse_rho(lw, lh)) == sympy.Rational(a.numerator ** 2, a.denominator ** 2)
        res = ladder(lambda H_, lw_, lh_, K_: ufm.stationarity_residual(H_, _like(H, H_), beta, lw_, lh_, K_),
                     H, lw, lh, K)
        assert all(v == 0 for v in res.flat) and 0 < c < 1
        assert np.array_equal(ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K), W)
        scale = float(np.sqrt(float(sum(v * v for v in H.flat))))
        _assert_routes_find(H, H, beta, lw, lh, K, _solver_routes(H, beta, lw, lh, K, monkeypatch, mp=mp), scale)

        def obj(H_, lw_, lh_, K_):
            return ufm.perturbed_objective(H_, _like(H, H_), beta, lw_, lh_, K_)
        f0 = ladder(obj, H, lw, lh, K)
        V = _point(rng, d, K, n, Fraction(1, 64))
        gaps = [_frac(obj(H + s * V, lw, lh, K)) - f0[()] for s in (1, -1, Fraction(1, 8))]   # exact route
        assert all(g > 0 for g in gaps)
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "beta": str(beta), "min_gap": float(min(gaps))})
    verdict.verified(method="exact collapsed H0 = H*: (8) residual 0 and W*(H*) = W* in exact / mpmath / float64; "
                            "every solve_perturbed route returns H*; objective of (2) larger at H* +- V exactly",
                     evidence={"cases": rows, "seed": SEED + 5})


@pytest.mark.claim("N-B-limit")
def test_B_limit_by_every_arithmetic_and_solver_route(verdict, monkeypatch):
    r""":math:`\beta(H_{1/\beta} - H_0) \to -Kn\nabla\mathcal L(H_0)`: at a rational :math:`H_0` (d = 3, K = 2, n = 2,
    scale 5/4) the limit :math:`-Kn\nabla\mathcal L(H_0)` by every arithmetic, the minimisers by
    :func:`~verify.numeric.ufm.solve_perturbed` at :math:`\beta = 2^6, 2^9, 2^{12}` (default route), and every
    float64 solver route at :math:`\beta = 2^9` (the mpmath one is B-limit's own check's); the error
    :math:`e(\beta)` falls at order -1 (fitted slope in (-1.2, -0.8)) and is below 1% of the limit at the largest beta - the limit, not only some O(1) bound."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED + 6)
    d, K, n, lw, lh = 3, 2, 2, Fraction(1, 2), Fraction(1, 8)
    H0q = _point(rng, d, K, n, Fraction(5, 4))
    limit = -K * n * np.array(ladder(ufm.grad_central_path_loss, H0q, lw, lh, K), dtype=float)
    H0f = np.array(H0q, dtype=float)
    betas, errs = [2.0 ** 6, 2.0 ** 9, 2.0 ** 12], []
    for beta in betas:
        H = ufm.solve_perturbed(H0f, beta, float(lw), float(lh), K)
        errs.append(float(np.linalg.norm(beta * (H - H0f) - limit)))
    order = P.fitted_order(betas, errs)
    # order -1 (the next term of the expansion in 1/beta); +-0.2 for the curvature of the log-log fit
    assert -1.2 < order < -0.8 and errs[-1] < 1e-2 * np.linalg.norm(limit), (order, errs)
    # the mpmath route is run by B-limit's own check (test_N_central_path); the float routes here
    for name, H in _solver_routes(H0q, Fraction(2 ** 9), lw, lh, K, monkeypatch, mp=False).items():
        e = float(np.linalg.norm(2.0 ** 9 * (H - H0f) - limit))
        # 1e-6 of the limit: the unpolished routes' 1e-7 relative accuracy of H - H0, times beta |H - H0| / |limit|
        assert abs(e - errs[1]) <= 1e-6 * np.linalg.norm(limit), (name, e, errs[1])
    verdict.verified(method="limit -Kn grad L(H0) by exact / mpmath / float64; solve_perturbed at three beta (every "
                            "route at the middle one); error order fitted",
                     evidence={"beta": betas, "error": errs, "fitted_order": order,
                               "limit_norm": float(np.linalg.norm(limit)), "seed": SEED + 6})


@pytest.mark.claim("N-thm4.1-W")
@pytest.mark.claim("N-thm4.1-dT")
def test_trace_derivatives_equal_the_definition_along_the_flow_in_every_arithmetic(verdict):
    r"""The closed forms of App. A (:func:`~verify.numeric.central_path.trace_derivatives`, every arithmetic) equal
    the derivatives of the definitions along the flow (4), :math:`V = -Kn\nabla\mathcal L(H)`, exactly:
    :math:`e^{-2\lambda_Ht}\dot T_W = 2\lambda_H\operatorname{Tr}\Sigma_W
    + \frac2{Kn}\langle H - \bar H\otimes1_n^\top, V\rangle`,
    :math:`e^{-2\lambda_Ht}\dot T_B = 2\lambda_H\operatorname{Tr}\Sigma_B
    + \frac2K\langle \bar H - \bar h_G1^\top, \bar V - \bar v_G1^\top\rangle`.
    Thm 4.1 (second bullet) on both sides: :math:`\dot T_W < 0` at points with :math:`\Sigma_W \ne 0` and
    :math:`\dot T_W = 0` exactly at n = 1 (:math:`\Sigma_W = 0`), where also :math:`\dot T_B` equals its lower bound."""
    from verify.numeric.central_path import trace_derivatives

    def td(H, lw, lh, K):
        t = trace_derivatives(H, lw, lh, K)
        return np.array([t["dT_W"], t["dT_B"], t["dT_B_lower"]], dtype=object)

    rng = np.random.default_rng(SEED + 7)
    rows = []
    for d, K, n, lw, lh, s in [*CASES, (3, 2, 1, Fraction(3, 7), Fraction(2, 5), Fraction(5, 3))]:
        Hq = _point(rng, d, K, n, s)
        dTW, dTB, low = ladder(td, Hq, lw, lh, K)
        V = -K * n * _as_fractions(ufm.grad_central_path_loss(Hq, lw, lh, K))
        mean = lambda X: np.array([[sum(X[i, k * n:(k + 1) * n], Fraction(0)) / n for k in range(K)]  # noqa: E731
                                   for i in range(d)], dtype=object)
        M, Mv = mean(Hq), mean(V)
        Hc = Hq - np.repeat(M, n, axis=1)
        Mc, Mvc = M - M.sum(axis=1)[:, None] / K, Mv - Mv.sum(axis=1)[:, None] / K
        trW, trB = sum(v * v for v in Hc.flat) / (K * n), sum(v * v for v in Mc.flat) / K
        assert dTW == 2 * lh * trW + Fraction(2, K * n) * sum(a * b for a, b in zip(Hc.flat, V.flat))
        assert dTB == 2 * lh * trB + Fraction(2, K) * sum(a * b for a, b in zip(Mc.flat, Mvc.flat))
        assert dTB >= low > 0
        if n == 1:
            assert dTW == 0 and trW == 0 and dTB == low                # the equality side
        else:
            assert dTW < 0
        rows.append({"d": d, "K": K, "n": n, "dT_W": float(dTW), "dT_B": float(dTB), "dT_B_lower": float(low)})
    verdict.verified(method="closed forms (exact / mpmath / float64) == derivative of the definitions along -Kn grad "
                            "L exactly; dT_W < 0, = 0 at n = 1", evidence={"cases": rows, "seed": SEED + 7})


@pytest.mark.claim("N-metrics")
def test_nc1_tilde_in_every_arithmetic_equals_the_scatter_definition(verdict):
    r""":math:`\widetilde{NC}_1 = \operatorname{Tr}\Sigma_W/\operatorname{Tr}\Sigma_B` (eq. 3) and
    :math:`\tilde\Sigma_T = \Sigma_W + \tilde\Sigma_B` by :func:`~verify.numeric.ufm.nc1_tilde` /
    :func:`~verify.numeric.ufm.covariances` in every arithmetic, against the scatter sums written out here
    (Fractions); at equal class means (:math:`\Sigma_B = 0`) every arithmetic returns ``inf``."""
    rng = np.random.default_rng(SEED + 8)
    rows = []
    for d, K, n, _, _, s in CASES:
        Hq = _point(rng, d, K, n, s)
        nc1 = ladder(lambda H, lw, lh, K_: ufm.nc1_tilde(H, K_), Hq, Fraction(1), Fraction(1), K)[()]
        cov = {k: ladder(lambda H, lw, lh, K_: ufm.covariances(H, K_)[k], Hq, Fraction(1), Fraction(1), K)
               for k in ("Sigma_W", "Sigma_B_tilde", "Sigma_T_tilde")}
        assert np.array_equal(cov["Sigma_T_tilde"], cov["Sigma_W"] + cov["Sigma_B_tilde"])
        cols = [[Hq[:, k * n + i] for i in range(n)] for k in range(K)]
        mu = [sum(c, np.zeros(d, dtype=object) + Fraction(0)) / n for c in cols]
        mg = sum(mu, np.zeros(d, dtype=object) + Fraction(0)) / K
        within = sum(sum(v * v for v in h - mu[k]) for k in range(K) for h in cols[k]) / (K * n)
        between = sum(sum(v * v for v in m - mg) for m in mu) / K
        assert nc1 == within / between and (nc1 > 0 if n > 1 else nc1 == 0)   # n = 1: no within-class spread
        rows.append({"d": d, "K": K, "n": n, "nc1_tilde": str(nc1)})
    X = _point(rng, 3, 1, 2, Fraction(1))
    Heq = np.hstack([X, X])                                             # two classes with the same features
    for H in (Heq, _mixed(Heq, types=(Fraction,)), ufm.as_mp(Heq), np.array(Heq, dtype=float)):
        assert ufm.nc1_tilde(H, 2) == float("inf")
    verdict.verified(method="nc1_tilde / covariances by exact / mpmath / float64 == scatter sums; inf at equal means",
                     evidence={"cases": rows, "seed": SEED + 8})


@pytest.mark.claim("N-C-derivs")
def test_first_derivatives_11_against_objective_1_in_every_arithmetic(verdict):
    r"""The first derivatives (11) (:func:`verify.numeric.perturbation.gradients`, float64, at :math:`H_0 = H` where
    the :math:`\beta` term vanishes) against the objective (1) itself, :func:`~verify.numeric.ufm.ufm_objective`
    evaluated by every arithmetic and entry type: the exact central difference quotient along a rational
    direction :math:`(\Delta W, \Delta H)` (step :math:`2^{-20}`) equals :math:`\langle\nabla_W f,\Delta W\rangle +
    \langle\nabla_H f,\Delta H\rangle` to 1e-10 relative, at rational non-collapsed points with non-unit scales."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED + 9)
    rows = []
    # lam_H > 0: App. C's derivatives (and gradients' validation) assume it
    for d, K, n, lw, lh, s in [CASES[0], (4, 3, 1, Fraction(2, 9), Fraction(1, 7), Fraction(5, 4))]:
        Hq = _point(rng, d, K, n, s)
        Wq = _point(rng, K, 1, d, Fraction(1, 3))                        # K x d, rational
        f = ladder(lambda H, lw_, lh_, K_: ufm.ufm_objective(_like(Wq, H), H, lw_, lh_, K_), Hq, lw, lh, K)[()]
        dH, dW = _point(rng, d, K, n, Fraction(1)), _point(rng, K, 1, d, Fraction(1))
        h = Fraction(1, 2 ** 20)
        fp, fm = (_frac(ufm.ufm_objective(Wq + t * dW, Hq + t * dH, lw, lh, K)) for t in (h, -h))
        quotient = (fp - fm) / (2 * h)          # objective (1) is a quartic: error h^2 x third derivative
        gH, gW = P.gradients(np.array(Wq, dtype=float), np.array(Hq, dtype=float), np.array(Hq, dtype=float),
                             1.0, float(lw), float(lh), K, n)
        directional = float(gH @ P.vec(np.array(dH, dtype=float)) + gW @ P.vec(np.array(dW, dtype=float)))
        # 1e-10: float64 products of O(10) entries against an exact quotient with O(h^2) = 1e-12 error
        assert abs(float(quotient) - directional) <= 1e-10 * max(1.0, abs(directional)), (float(quotient), directional)
        assert f > 0
        rows.append({"d": d, "K": K, "n": n, "objective": float(f), "directional": directional})
    verdict.verified(method="objective (1) by exact / mpmath / float64; exact central difference == first "
                            "derivatives (11)", evidence={"cases": rows, "seed": SEED + 9})


@pytest.mark.claim("N-C2-derivative")
def test_C2_derivative_expression_against_mpmath_difference_of_the_gradient(verdict):
    r"""The proof's ten-term expression of :math:`\frac d{dt}\nabla\mathcal L(H + t\Delta H)|_0`
    (:func:`~verify.numeric.perturbation.grad_L_derivative_paper`, float64) against the central difference of the
    gradient (7) computed in mpmath at 40 digits (step :math:`10^{-12}`: error :math:`10^{-24}`), at a rational
    point whose gradient is checked in every arithmetic, and at the collapsed minimiser of
    :func:`~verify.numeric.perturbation.collapsed_point` with the default frame (``seed=None``, the identity's first
    columns; rational lams, equal to the float lams' point) and with a seeded one; relative error below 1e-9
    (float64 inverses of condition < 1e3)."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED + 10)
    d, K, n, lw, lh = 4, 2, 2, Fraction(3, 4), Fraction(1, 5)
    Hq = _point(rng, d, K, n, Fraction(1, 2))
    ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
    default = P.collapsed_point(d, K, n, lw, lh)[1]      # Fraction lams: collapse_rho's exact (sympy) route
    assert np.abs(default - P.collapsed_point(d, K, n, float(lw), float(lh))[1]).max() <= 1e-15   # two roundings
    points = {"rational": np.array(Hq, dtype=float), "collapsed_default_frame": default,
              "collapsed_seeded_frame": P.collapsed_point(d, K, n, float(lw), float(lh), seed=3)[1]}
    assert np.array_equal(points["collapsed_default_frame"][2:], np.zeros((2, K * n)))   # R = [I_K; 0]
    rows = {}
    for name, H in points.items():
        dH = np.array(_point(rng, d, K, n, Fraction(1)), dtype=float)
        paper = P.grad_L_derivative_paper(H, dH, float(lw), float(lh), K, n)
        with mpmath.workdps(40):
            h = mpmath.mpf(10) ** -12
            g = [ufm.grad_central_path_loss(ufm.as_mp(H) + ufm.as_mp(dH) * t, ufm.as_mp([lw])[0], ufm.as_mp([lh])[0], K)
                 for t in (h, -h)]
            diff = np.array((g[0] - g[1]) / (2 * h), dtype=float)
        rel = float(np.abs(paper - diff).max() / np.abs(diff).max())
        assert rel < 1e-9, (name, rel)
        rows[name] = rel
    verdict.verified(method="ten-term expression (float64) == mpmath 40-digit central difference of (7)",
                     evidence={"relative_error": rows, "d": d, "K": K, "n": n, "seed": SEED + 10})


@pytest.mark.claim("N-lemC.4")
def test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances(verdict):
    r"""Lemma C.4's four operator norms (:func:`~verify.numeric.perturbation.lemma_c4_norms`, float64) against
    mpmath eigenvalues (30 digits) of the whitened matrices :math:`L^{-1}XL^{-\top}` (:math:`A = LL^\top`) built
    from :math:`\tilde\Sigma_T, \Sigma_W` of :func:`~verify.numeric.ufm.covariances` in every arithmetic; each at
    most its bound (1, 1, :math:`\sqrt{Kn}`, :math:`\sqrt{Kn}`), and (13) within 1e-4 of 1 at
    :math:`\lambda_W = 10^{-6}` (the bound is sharp: a weakened norm or bound fails one side)."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED + 11)
    rows = []
    for d, K, n, lw, s in [(3, 2, 2, Fraction(3, 5), Fraction(3, 2)), (4, 3, 2, Fraction(1, 10 ** 6), Fraction(1))]:
        Hq = _point(rng, d, K, n, s)
        cov = {k: ladder(lambda H, lw_, lh_, K_: ufm.covariances(H, K_)[k], Hq, lw, Fraction(0), K)
               for k in ("Sigma_T_tilde", "Sigma_W", "Hbar")}
        P_H = Hq - np.repeat(cov["Hbar"], n, axis=1)
        norms = P.lemma_c4_norms(np.array(Hq, dtype=float), float(lw), K, n)
        with mpmath.workdps(30):
            A = mpmath.matrix((cov["Sigma_T_tilde"] + np.eye(d, dtype=int) * (lw / K)).tolist())
            Li = mpmath.inverse(mpmath.cholesky(A))
            top = lambda X: max(mpmath.eigsy(Li * mpmath.matrix(X.tolist()) * Li.T, eigvals_only=True))  # noqa: E731
            want = {"13": top(cov["Sigma_T_tilde"]), "14": top(cov["Sigma_W"]),
                    "15": mpmath.sqrt(top(Hq @ Hq.T)), "16": mpmath.sqrt(top(P_H @ P_H.T))}
        for k, (value, bound) in norms.items():
            # float64 eigen-solvers on whitened d x d matrices of condition < 1e7 (lam_W = 1e-6): 1e-8 relative
            assert abs(value - float(want[k])) <= 1e-8 * float(want[k]), (k, value, float(want[k]))
            assert float(want[k]) <= bound * (1 + 1e-15)   # want exact to 30 digits; bound 1 or sqrt(Kn) in float
        if lw < Fraction(1, 1000):
            assert float(want["13"]) > 1 - 1e-4
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), **{k: float(v) for k, v in want.items()}})
    verdict.verified(method="lemma_c4_norms (float64) == mpmath eigenvalues of whitened exact covariances (exact / "
                            "mpmath / float64 routes); each <= its bound, (13) -> 1 as lam_W -> 0",
                     evidence={"cases": rows, "seed": SEED + 11})
