r"""Theorem 3.1's projection (eq. 12-13), Theorem 3.2's chain and the conditional energies of
:mod:`verify.numeric.upper_bounds` against references written here.

References:

* eq. (12)'s :math:`Q = MG^+M^T` in the redundant basis of all :math:`n^m` ordered products (any spanning set gives
  the same projection), solved by sympy's Gauss-Jordan with free parameters set to 0 (not the package's pivot
  extraction); moments of :math:`x = \xi\odot b` typed from the laws' tables;
* Theorem 3.2's chain and the Gaussian conditional chain: closed forms (Schur complements of the covariance,
  complement-free: :math:`\mathrm{Cov}(x\mid Px) = \Sigma - \Sigma P^T(P\Sigma P^T)^{-1}P\Sigma`), exact in sympy,
  eigenvalues by mpmath at 30 digits; rational orthonormal rows from a Cayley transform;
* the pattern energy through the least-squares map :math:`B` with :math:`B(W\Sigma W^T) = \Sigma W^T` (an exact
  solution of the normal equations, so rank-deficient :math:`W` are handled without a pseudo-inverse);
* sparsity patterns by enumerating :math:`\{0,1\}^n` and each law's probability from its definition;
* the 1-D conditional energy by scipy quadrature of a numpy mixture, and its two sides
  :math:`p\sigma^2 \le E\|E[x\mid s]\|^2 \le np\sigma^2`;
* Lemma A.1 and the centred strongly log-concave laws on Gaussians (closed forms) and a softplus tilt (scipy);
* the non-product loss parts :math:`(a, b)` by expanding :math:`E[u_iv_i^m]`, :math:`E[v_i^{2m}]` as polynomials in
  :math:`\xi` and replacing monomials by the law's moments (two-point laws, asymmetric ones included, and
  Gaussians), every pattern enumerated; the sup over directions against a fine grid of angles.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from verify import VerifyInputError
from verify.numeric import upper_bounds as UB

REF = settings.get_profile("reference")
#: the same profile with fewer examples for the references that integrate (mpmath / scipy quadrature per example)
REF_FEW = settings(REF, max_examples=min(REF.max_examples, 5))


def law_moment(mu: str, param: Fraction, e: int) -> Fraction:
    r""":math:`E\xi^e` from the tables: Gaussian (variance s), uniform on [-h, h], Laplace (scale b), Rademacher."""
    if e % 2:
        return Fraction(0)
    if mu == "gaussian":
        return param ** (e // 2) * math.prod(range(e - 1, 0, -2))
    if mu == "uniform":
        return param ** e / (e + 1)
    if mu == "laplace":
        return param ** e * math.factorial(e)
    return Fraction(1)


def law_name(mu: str, param: Fraction) -> str:
    return mu if mu == "rademacher" else f"{mu}({param})"


def expect_poly(expr, xs, moment) -> Fraction:
    """E of a polynomial in independent coordinates, ``moment(e)`` the e-th moment of each coordinate."""
    poly = sympy.Poly(sympy.expand(expr), *xs)
    total = Fraction(0)
    for mon, c in poly.terms():
        term = Fraction(int(c.p), int(c.q))
        for e in mon:
            if e:
                term *= moment(e)
        total += term
    return total


def rat(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def solve_any(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    """One exact solution X of A X = B (free parameters set to 0)."""
    sol, params = A.gauss_jordan_solve(B)
    return sol.subs({t: 0 for t in params})


@REF
@given(st.integers(1, 3), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "uniform", "laplace", "rademacher"]),
       st.sampled_from([Fraction(1), Fraction(1, 4), Fraction(9, 4)]), st.fractions(Fraction(1, 20), 1, max_denominator=20))
def test_eq12_projection_matrix_against_the_product_basis(n, m, mu, param, p):
    if m == 3 and n == 3:
        n = 2   # 27 ordered products: the reference's Gauss-Jordan grows as the cube
    xs = sympy.symbols(f"x0:{n}")
    mom = lambda e: p * law_moment(mu, param, e)  # noqa: E731   E x^e = p mu_e (e >= 1)
    ys = [sympy.Mul(*[xs[i] for i in tup]) for tup in itertools.product(range(n), repeat=m)]
    G = sympy.Matrix(len(ys), len(ys), lambda a, b: rat(expect_poly(ys[a] * ys[b], xs, mom)))
    M = sympy.Matrix(n, len(ys), lambda j, a: rat(expect_poly(xs[j] * ys[a], xs, mom)))
    want = M * solve_any(G, M.T)
    got = UB.eq12_projection_matrix(n, m, p, law_name(mu, param))
    assert got.shape == (n, n) and (got - want).is_zero_matrix
    # eq. (13), both sides: 0 <= Q <= p mu_2 I; at m = 1 the span holds x itself, so Q = p mu_2 I
    pmu2 = rat(p * law_moment(mu, param, 2))
    assert got.is_positive_semidefinite and (pmu2 * sympy.eye(n) - got).is_positive_semidefinite
    if m == 1:
        assert got == pmu2 * sympy.eye(n)
    elif mu == "rademacher":
        assert got == pmu2 * sympy.eye(n)      # xi^3 = xi and b^3 = b: x_j^3 = x_j lies in the span
    else:
        # with a density, mu_4^2 < mu_2 mu_6 (Cauchy-Schwarz, strict): the cubes miss x_j, a strict gap
        assert not (pmu2 * sympy.eye(n) - got).is_zero_matrix
    for bad, name in (((0, m, p), "n"), ((n, 2, p), "m"), ((n, m, 0), "p"), ((n, m, Fraction(3, 2)), "p")):
        with pytest.raises(VerifyInputError, match=f"'{name}'"):
            UB.eq12_projection_matrix(*bad, mu=law_name(mu, param))


@REF
@given(st.sampled_from(["gaussian", "uniform", "laplace", "rademacher"]),
       st.fractions(Fraction(1, 16), 16, max_denominator=16))
def test_strong_log_concavity_K_by_the_second_derivative_of_the_potential(mu, param):
    x = sympy.Symbol("x", real=True)
    K, why = UB.strong_log_concavity_K(law_name(mu, param))
    if mu == "gaussian":
        v2 = sympy.diff(x ** 2 / (2 * rat(param)), x, 2)           # v = x^2 / (2 s): v'' = 1/s, constant
        want = max(v2, 1 / v2)
        assert sympy.nsimplify(K) == want and K >= 1
        assert mu in why.lower()
    else:
        # uniform and Laplace have v'' = 0 somewhere (not strongly convex), Rademacher has no density
        assert K is None and why and mu.split("(")[0] in why.lower()


@REF
@given(st.one_of(st.fractions(Fraction(1, 50), 50, max_denominator=50),
                 st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)),
       st.fractions(Fraction(1, 50), 50, max_denominator=50), st.integers(1, 12))
def test_thm32_chain_closed_forms(alpha, beta, d):
    r"""Each step's constant: Poincare :math:`1/\alpha`, Brascamp-Lieb :math:`\beta`, Lipschitz :math:`\beta/\alpha`,
    :math:`E\|y\|^2 = d/\alpha`, :math:`E\|m\|^2 = d\beta/\alpha^2`; at :math:`\alpha = 1/K, \beta = K` the total is
    Theorem 3.2's :math:`(K + K^3)d`."""
    c = UB.thm32_chain(alpha, beta, d)
    want = {"poincare": 1 / alpha, "brascamp_lieb": beta, "lipschitz_sq": beta / alpha, "Ey2": d / alpha,
            "Em2": d * beta / alpha ** 2, "total": d / alpha + d * beta / alpha ** 2}
    assert set(c) == set(want)
    for k, v in want.items():
        if isinstance(alpha, float):
            assert math.isclose(float(c[k]), float(v), rel_tol=1e-12), k
        else:
            assert c[k] == v, k
    K = beta if beta >= 1 else 1 / beta
    chain = UB.thm32_chain(1 / K, K, d)
    assert chain["total"] == (K + K ** 3) * d == UB.thm32_bound(d, K)
    Ks = sympy.Symbol("K", positive=True)
    assert sympy.simplify(UB.thm32_chain(1 / Ks, Ks, d)["total"] - (Ks + Ks ** 3) * d) == 0


def pattern_prob(kind: str, b: tuple, p: Fraction, k: int, blocks: int) -> Fraction:
    """The probability of pattern ``b`` under each law, from its definition."""
    n = len(b)
    if kind == "bernoulli":
        return p ** sum(b) * (1 - p) ** (n - sum(b))
    if kind == "fixed":
        return Fraction(1, math.comb(n, k)) if sum(b) == k else Fraction(0)
    if kind == "blocks":
        size = n // blocks
        parts = [b[j * size:(j + 1) * size] for j in range(blocks)]
        if any(len(set(t)) > 1 for t in parts):
            return Fraction(0)
        on = sum(t[0] for t in parts)
        return p ** on * (1 - p) ** (blocks - on)
    pairs = [b[2 * j:2 * j + 2] for j in range(n // 2)]
    return Fraction(1, 2 ** (n // 2)) if all(sum(t) == 1 for t in pairs) else Fraction(0)


@REF
@given(st.sampled_from(["bernoulli", "fixed", "blocks", "one-of-pairs"]), st.integers(1, 8),
       st.fractions(Fraction(1, 10), 1, max_denominator=10), st.data())
def test_sparsity_patterns_against_enumeration(kind, n, p, data):
    k = data.draw(st.integers(0, n))
    blocks = data.draw(st.sampled_from([b for b in range(1, n + 1) if n % b == 0]))
    if kind == "one-of-pairs" and n % 2:
        with pytest.raises(VerifyInputError, match="'n'"):
            UB.sparsity_patterns(kind, n)
        n += 1
    pats, probs = UB.sparsity_patterns(kind, n, p=p, k=k, blocks=blocks)
    want = {b: pattern_prob(kind, b, p, k, blocks) for b in itertools.product((0, 1), repeat=n)}
    want = {b: w for b, w in want.items() if w > 0}
    got = {tuple(int(t) for t in row): float(w) for row, w in zip(pats, probs)}
    assert len(got) == len(pats) == len(want) and set(got) == set(want)
    for b, w in want.items():
        assert math.isclose(got[b], float(w), rel_tol=1e-12), b
    assert math.isclose(float(np.sum(probs)), 1.0, rel_tol=1e-12) and np.all(probs > 0)
    if kind == "blocks" and blocks < n and n % (blocks + 1) and blocks + 1 <= n:
        with pytest.raises(VerifyInputError, match="'blocks'"):
            UB.sparsity_patterns(kind, n, p=p, blocks=blocks + 1)
    with pytest.raises(VerifyInputError, match="'kind'"):
        UB.sparsity_patterns("poisson", n, p=p)
    with pytest.raises(VerifyInputError, match="'n'"):
        UB.sparsity_patterns("bernoulli", 21, p=p)     # 2^21 patterns: above the enumeration's cap


def cayley_rows(n: int, d: int, entries: list) -> sympy.Matrix:
    """d orthonormal rational rows: the first rows of the Cayley transform of a rational skew matrix."""
    S = sympy.zeros(n, n)
    it = iter(entries)
    for i in range(n):
        for j in range(i + 1, n):
            S[i, j] = next(it)
            S[j, i] = -S[i, j]
    Q = (sympy.eye(n) - S) * (sympy.eye(n) + S).inv()
    return Q[:d, :]


def eig_extremes(A: sympy.Matrix) -> tuple:
    with mpmath.workdps(30):
        ev = mpmath.eigsy(mpmath.matrix([[mpmath.mpf(x.p) / x.q for x in A.row(i)] for i in range(A.rows)]))[0]
        vals = sorted(float(ev[i]) for i in range(A.rows))
    return vals[0], vals[-1]


@REF
@given(st.integers(1, 4), st.data(), st.sampled_from([Fraction(1), Fraction(1, 1000), Fraction(1000)]))
def test_gaussian_conditional_chain_against_schur_complements(n, data, scale):
    d = data.draw(st.integers(1, n))
    P = cayley_rows(n, d, [sympy.Rational(data.draw(st.integers(-3, 3)), 2) for _ in range(n * (n - 1) // 2)])
    A = sympy.Matrix(n, n, lambda i, j: data.draw(st.integers(-2, 2)))
    delta = data.draw(st.sampled_from([sympy.Rational(1, 10 ** 6), sympy.Rational(1, 2), 2]))   # near-singular too
    Sigma = rat(scale) * (A * A.T + delta * sympy.eye(n))
    Syy = P * Sigma * P.T
    Syy_inv = Syy.inv()
    C = Sigma - Sigma * P.T * Syy_inv * P * Sigma           # Cov(x | Px): eigenvalues = those of Cov(z | y), and 0
    proj_perp = sympy.eye(n) - P.T * P
    Em2 = (proj_perp * Sigma * P.T * Syy_inv * P * Sigma).trace()
    JtJ = Syy_inv * P * Sigma * proj_perp * Sigma * P.T * Syy_inv
    Lyy = P * Sigma.inv() * P.T                               # the yy block of the precision of (y, z)
    lo, hi = eig_extremes(Sigma)
    want = {"alpha": 1 / hi, "beta": 1 / lo, "Ey2": float(Syy.trace()), "max_var_y": float(max(Syy.diagonal())),
            "Em2": float(Em2), "energy": float(Syy.trace() + Em2), "energy_direct": float(Syy.trace() + Em2)}
    if d < n:
        want.update(var_z=eig_extremes(C)[1], lipschitz_sq=eig_extremes(JtJ)[1],
                    schur=max(abs(v) for v in eig_extremes(Lyy - Syy_inv)))
    else:
        want.update(var_z=0.0, lipschitz_sq=0.0, schur=0.0)
    got = UB.gaussian_conditional_chain(np.array(Sigma.tolist(), dtype=float), np.array(P.tolist(), dtype=float))
    assert set(got) == set(want)
    # scale-relative tolerance: the float route inverts a covariance whose condition number reaches ~1e7 here
    size = {"alpha": 1 / hi, "beta": 1 / lo, "var_z": hi, "schur": 1 / lo, "lipschitz_sq": max(1.0, hi / lo)}
    for k, v in want.items():
        ref = size.get(k, float(scale) * max(1.0, float(Sigma.trace())))
        assert abs(got[k] - v) <= 1e-7 * ref + 1e-6 * abs(v), (k, got[k], v)
    # the chain's hypotheses: Poincare for each y coordinate, Brascamp-Lieb for the Schur term
    assert got["max_var_y"] <= (1 + 1e-9) / got["alpha"] and got["schur"] <= got["beta"] * (1 + 1e-9)
    with pytest.raises(VerifyInputError, match="'P'"):
        UB.gaussian_conditional_chain(np.array(Sigma.tolist(), dtype=float), 2 * np.array(P.tolist(), dtype=float))


def pattern_energy_reference(W: sympy.Matrix, Sigma: sympy.Matrix, patterns: list) -> Fraction:
    r""":math:`\sum_b\pi_b\operatorname{tr}(B W_S\Sigma_S W_S^T B^T)` with :math:`B` an exact solution of
    :math:`B(W_S\Sigma_SW_S^T) = \Sigma_SW_S^T` (the least-squares map of :math:`x_S` on :math:`W_Sx_S`)."""
    tot = sympy.Integer(0)
    for b, pr in patterns:
        S = [i for i, t in enumerate(b) if t]
        if not S:
            continue
        WS, SS = W.extract(list(range(W.rows)), S), Sigma.extract(S, S)
        Gm = WS * SS * WS.T
        B = solve_any(Gm, WS * SS).T                    # Gm symmetric: Gm B^T = W_S Sigma_S
        tot += rat(pr) * (B * Gm * B.T).trace()
    return tot


@REF
@given(st.integers(1, 3), st.integers(1, 4), st.fractions(Fraction(1, 5), 1, max_denominator=5),
       st.sampled_from(["independent", "duplicate", "near"]), st.data())
def test_gaussian_pattern_energy_against_exact_least_squares(d, n, p, rows, data):
    W = sympy.Matrix(d, n, lambda i, j: data.draw(st.integers(-3, 3)))
    A = sympy.Matrix(n, n, lambda i, j: data.draw(st.integers(-2, 2)))
    Sigma = A * A.T + sympy.Rational(1, 3) * sympy.eye(n)
    pats = [(b, p ** sum(b) * (1 - p) ** (n - sum(b))) for b in itertools.product((0, 1), repeat=n)]
    patterns = (np.array([b for b, _ in pats], dtype=int), np.array([float(w) for _, w in pats]))
    Sf = np.array(Sigma.tolist(), dtype=float)
    if rows == "independent" or d == 1:
        want = pattern_energy_reference(W, Sigma, pats)
        got = UB.gaussian_pattern_energy(np.array(W.tolist(), dtype=float), Sf, patterns)
        assert math.isclose(got, float(want), rel_tol=1e-9, abs_tol=1e-12)
        # the two sides of eq. (16): 0 <= E|E[x_S | W_S x_S]|^2 <= E|x_S|^2
        assert 0 <= got <= float(sum(rat(w) * sum(Sigma[i, i] for i in range(n) if b[i]) for b, w in pats)) * (1 + 1e-12)
        return
    # a second row along the first: exactly dependent (rank d - 1), or off it by 1e-4 (a rank cut decides)
    if n == 1:
        return
    r = np.arange(1, n + 1, dtype=float)
    W0 = np.array(W.tolist(), dtype=float)[0]
    if np.linalg.matrix_rank(np.vstack([W0, r])) < 2:
        W[0, :] = sympy.Matrix([[3] + [0] * (n - 1)])
    eps = sympy.Integer(0) if rows == "duplicate" else sympy.Rational(1, 10 ** 4)
    W[-1, :] = sympy.Matrix([[2 * W[0, j] + eps * (j + 1) for j in range(n)]])
    Wf = np.array(W.tolist(), dtype=float)
    reduced = float(pattern_energy_reference(W[:-1, :], Sigma, pats))
    if rows == "duplicate":
        for rc in (None, 1e-6):
            assert math.isclose(UB.gaussian_pattern_energy(Wf, Sf, patterns, rcond=rc), reduced, rel_tol=1e-9)
        return
    # the near row's eigenvalue of W_S Sigma_S W_S^T is ~1e-8..1e-10 of the largest: cut at rcond = 1e-6 (the
    # reduced energy up to O(eps)), kept at 1e-14 (the energy of the full rank)
    full = float(pattern_energy_reference(W, Sigma, pats))
    cut = UB.gaussian_pattern_energy(Wf, Sf, patterns, rcond=1e-6)
    kept = UB.gaussian_pattern_energy(Wf, Sf, patterns, rcond=1e-14)
    assert math.isclose(cut, reduced, rel_tol=1e-2) and math.isclose(kept, full, rel_tol=1e-5)
    if full > reduced * 1.1:
        assert not math.isclose(cut, full, rel_tol=1e-2)


def conditional_energy_scipy(v: np.ndarray, p: float, s2: float) -> float:
    comps = []
    for b in itertools.product((0, 1), repeat=len(v)):
        vb = v * np.array(b)
        nb = float(vb @ vb)
        if nb > 0:
            comps.append((p ** sum(b) * (1 - p) ** (len(v) - sum(b)), nb, vb))

    def f(s):
        dens = np.array([w * math.exp(-s * s / (2 * s2 * nb)) / math.sqrt(2 * math.pi * s2 * nb) for w, nb, _ in comps])
        if dens.sum() == 0:
            return 0.0
        num = sum(dk * vb * s / nb for dk, (_, nb, vb) in zip(dens, comps))
        return float(num @ num) / float(dens.sum())

    brk = sorted({math.sqrt(s2 * nb) for _, nb, _ in comps})
    edges = [-40 * brk[-1]] + [-t for t in reversed(brk)] + [0.0] + brk + [40 * brk[-1]]
    return sum(quad(f, a, b, epsabs=0, epsrel=1e-11, limit=200)[0] for a, b in zip(edges[:-1], edges[1:]))


@REF_FEW
@given(st.integers(1, 2), st.floats(0.05, 1.0), st.sampled_from([1.0, 0.01, 25.0]), st.data())
def test_conditional_energy_1d_against_scipy_and_its_two_sides(n, p, s2, data):
    # widths of the mixture's components down to 1e-3 of the largest (sharp ratios; far below, at ~1e-160, both
    # quadratures lose the narrow component)
    v = np.array([data.draw(st.sampled_from([0.0, 1e-3, -1e-3, 0.1, -0.5, 1.0, 0.75])) for _ in range(n)])
    if not v.any():
        v[0] = 1.0
    v = v / np.linalg.norm(v)
    got = float(UB.conditional_energy_1d(v, p, s2))
    assert math.isclose(got, conditional_energy_scipy(v, p, s2), rel_tol=1e-7)
    # <v, E[x|s]> = s gives the lower side p s2 (= E s^2); the projection gives the upper side E|x|^2 = n p s2
    assert p * s2 * (1 - 1e-9) <= got <= n * p * s2 * (1 + 1e-9)
    if n == 1 or p == 1.0:
        assert math.isclose(got, p * s2, rel_tol=1e-9)
    with pytest.raises(VerifyInputError, match="'v'"):
        UB.conditional_energy_1d(2 * v, p, s2)
    with pytest.raises(VerifyInputError, match="'sigma2'"):
        UB.conditional_energy_1d(v, p, -s2)


@REF_FEW
@given(st.fractions(Fraction(-2), 2, max_denominator=4).filter(bool), st.fractions(Fraction(1, 4), 4, max_denominator=4),
       st.fractions(Fraction(-1), 1, max_denominator=4), st.integers(1, 3))
def test_lemA1_sides_on_gaussian_families(a, c, s0, k):
    r""":math:`\mu_s = N(as, c)`, :math:`f = x^k`: :math:`\frac{d}{ds}E f` in closed form (moments of a Gaussian:
    :math:`x, x^2 = \mu^2 + c, x^3 = \mu^3 + 3\mu c` with :math:`\mu = as`); both sides must equal it."""
    x, s = sympy.symbols("x s", real=True)
    V = (x - rat(a) * s) ** 2 / (2 * rat(c))
    mu = a * s0
    want = float(a * {1: 1, 2: 2 * mu, 3: 3 * mu ** 2 + 3 * c}[k])
    with mpmath.workdps(25):
        lhs, rhs = UB.lemA1_sides(V, x ** k, x, s, float(s0))   # quarters: exact floats
    assert math.isclose(float(lhs), want, rel_tol=1e-8, abs_tol=1e-10)
    assert math.isclose(float(rhs), want, rel_tol=1e-10, abs_tol=1e-12)


@REF_FEW
@given(st.sampled_from(["gaussian", "softplus"]), st.fractions(Fraction(1, 4), 4, max_denominator=4),
       st.fractions(Fraction(-2), 2, max_denominator=4), st.integers(4, 6))
def test_centred_slc_1d_against_closed_forms_and_scipy(kind, scale, shift, kmax):
    x = sympy.Symbol("x", real=True)
    if kind == "gaussian":
        v = (x - rat(shift)) ** 2 / (2 * rat(scale))
        mean, alpha, beta = float(shift), 1 / float(scale), 1 / float(scale)
        central = [1.0, 0.0] + [float(scale) ** (j // 2) * math.prod(range(j - 1, 0, -2)) if j % 2 == 0 else 0.0
                                for j in range(2, kmax + 1)]
    else:
        # v = x^2/2 + a softplus(x - t): v'' = 1 + a sigma(1 - sigma) in [1, 1 + a/4]; asymmetric
        a, t = float(scale), float(shift)
        v = x ** 2 / 2 + rat(scale) * sympy.log(1 + sympy.exp(x - rat(shift)))
        dens = lambda u: math.exp(-(u * u / 2 + a * np.logaddexp(0, u - t)))  # noqa: E731
        Z = quad(dens, -40, 40, epsabs=0, epsrel=1e-13, points=[t])[0]
        mean = quad(lambda u: u * dens(u), -40, 40, epsabs=0, epsrel=1e-13, points=[t])[0] / Z
        central = [1.0, 0.0] + [quad(lambda u: (u - mean) ** j * dens(u), -40, 40, epsabs=1e-15, epsrel=1e-12,
                                     points=[t])[0] / Z for j in range(2, kmax + 1)]
        alpha, beta = 1.0, 1 + a / 4
    got = UB.centred_slc_1d(v, x, kmax=kmax)
    assert set(got) == {"mean", "central", "cumulants", "alpha", "beta"}
    assert math.isclose(got["mean"], mean, rel_tol=1e-9, abs_tol=1e-11)
    assert len(got["central"]) == kmax + 1
    np.testing.assert_allclose(got["central"], central, rtol=1e-8, atol=1e-11)
    c = central
    kap = [0.0, 0.0, c[2], c[3], c[4] - 3 * c[2] ** 2, c[5] - 10 * c[3] * c[2] if kmax >= 5 else None,
           c[6] - 15 * c[4] * c[2] - 10 * c[3] ** 2 + 30 * c[2] ** 3 if kmax >= 6 else None][:kmax + 1]
    np.testing.assert_allclose(got["cumulants"][:kmax + 1], kap, rtol=1e-7, atol=1e-10)
    assert math.isclose(got["alpha"], alpha, rel_tol=1e-9) and math.isclose(got["beta"], beta, rel_tol=1e-9)


def two_point_law(pi: Fraction) -> tuple:
    r"""The centred law :math:`P(\xi = 1) = \pi`, :math:`P(\xi = -\pi/(1-\pi)) = 1-\pi` (asymmetric unless
    :math:`\pi = 1/2`): its moments, and its cumulants :math:`\kappa_0..\kappa_6` from the series of
    :math:`\log E e^{t\xi}`."""
    u, w = Fraction(1), -pi / (1 - pi)
    moment = lambda e: pi * u ** e + (1 - pi) * w ** e  # noqa: E731
    t = sympy.Symbol("t")
    K = sympy.series(sympy.log(rat(pi) * sympy.exp(rat(u) * t) + rat(1 - pi) * sympy.exp(rat(w) * t)), t, 0, 7).removeO()
    kap = [Fraction(0)] + [Fraction(str(sympy.factorial(j) * K.coeff(t, j))) for j in range(1, 7)]
    return moment, kap


def gaussian_law(s2: Fraction) -> tuple:
    return (lambda e: law_moment("gaussian", s2, e)), [Fraction(0), Fraction(0), s2] + [Fraction(0)] * 4


def nu_parts_reference(W: sympy.Matrix, G: sympy.Matrix, moment, pats: list, m: int) -> tuple:
    r""":math:`a = \sum_b\pi_b\sum_iE[x_i(Ax)_i^m]`, :math:`b = \sum_b\pi_b\sum_iE[(Ax)_i^{2m}]` with
    :math:`x = D_bG\xi`, :math:`A = W^TW`, by expanding the polynomials in :math:`\xi`."""
    n = G.rows
    xi = sympy.symbols(f"xi0:{n}")
    A = W.T * W
    a = b = Fraction(0)
    for pat, pr in pats:
        x = sympy.diag(*pat) * G * sympy.Matrix(xi)
        v = A * x
        a += pr * sum(expect_poly(x[i] * v[i] ** m, xi, moment) for i in range(n))
        b += pr * sum(expect_poly(v[i] ** (2 * m), xi, moment) for i in range(n))
    return a, b


@settings(REF, max_examples=min(REF.max_examples, 12))
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 3]),
       st.sampled_from(["rademacher", "two-point-1/3", "two-point-1/4", "gaussian(1/2)", "gaussian(3)"]),
       st.sampled_from([Fraction(1), Fraction(1, 8), Fraction(5)]), st.data())
def test_nu_loss_parts_against_polynomial_expectations(d, n, m, law, scale, data):
    if law.startswith("gaussian"):
        moment, kap = gaussian_law(Fraction(law[9:-1]))
    else:
        moment, kap = two_point_law(Fraction(1, 2) if law == "rademacher" else Fraction(law[10:]))
    W = rat(scale) * sympy.Matrix(d, n, lambda i, j: sympy.Rational(data.draw(st.integers(-3, 3)), 2))
    G = sympy.Matrix(n, n, lambda i, j: data.draw(st.integers(-2, 2)))
    q = data.draw(st.fractions(Fraction(1, 4), 1, max_denominator=4))
    pats = [(b, q ** sum(b) * (1 - q) ** (n - sum(b))) for b in itertools.product((0, 1), repeat=n)]
    pats = [(b, w) for b, w in pats if w]
    patterns = (np.array([b for b, _ in pats], dtype=int), np.array([float(w) for _, w in pats]))
    a, b = nu_parts_reference(W, G, moment, pats, m)
    ga, gb = UB.nu_loss_parts(np.array(W.tolist(), dtype=float), np.array(G.tolist(), dtype=float),
                              [float(k) for k in kap], patterns, m)
    size_a = float(nu_parts_reference(W.applyfunc(abs), G.applyfunc(abs), lambda e: abs(moment(e)) + 1, pats, m)[0])
    assert abs(ga - float(a)) <= 1e-12 * size_a + 1e-300 and math.isclose(gb, float(b), rel_tol=1e-11, abs_tol=1e-300)
    with pytest.raises(VerifyInputError, match="'m'"):
        UB.nu_loss_parts(np.array(W.tolist(), dtype=float), np.array(G.tolist(), dtype=float),
                         [float(k) for k in kap], patterns, 5)


@REF_FEW
@given(st.sampled_from(["two-point-1/3", "gaussian(1)"]), st.sampled_from([1, 3]), st.integers(0, 2 ** 16))
def test_nu_sup_loss_against_a_grid_of_directions(law, m, seed):
    r"""d = 1, n = 2: the sup of :math:`a^2/b` over directions :math:`(\cos\theta, \sin\theta)` on a grid of 4001
    angles (the reference polynomials evaluated there) bounds the optimiser's value from below, and the value is
    within the grid's resolution above it; the returned W is optimally scaled (:math:`a = b` there)."""
    moment, kap = gaussian_law(Fraction(1)) if law == "gaussian(1)" else two_point_law(Fraction(1, 3))
    rng = np.random.default_rng(seed)
    G = sympy.Matrix(2, 2, [int(t) for t in rng.integers(-2, 3, size=4)])
    if G.det() == 0:
        G = G + sympy.eye(2)
    pats = [(b, Fraction(1, 2) ** 2) for b in itertools.product((0, 1), repeat=2)]
    patterns = (np.array([b for b, _ in pats], dtype=int), np.array([float(w) for _, w in pats]))
    w1, w2 = sympy.symbols("w1 w2")
    a, b = nu_parts_reference_symbolic(sympy.Matrix([[w1, w2]]), G, moment, pats, m)
    fa, fb = sympy.lambdify((w1, w2), a, "numpy"), sympy.lambdify((w1, w2), b, "numpy")
    th = np.linspace(0, np.pi, 4001)
    A_, B_ = fa(np.cos(th), np.sin(th)), fb(np.cos(th), np.sin(th))
    ratio = np.where((A_ > 0) & (B_ > 0), A_ ** 2 / np.where(B_ > 0, B_, 1), 0.0)
    grid = float(ratio.max())
    val, Wb = UB.nu_sup_loss(1, np.array(G.tolist(), dtype=float), [float(k) for k in kap], patterns, m,
                             restarts=3, seed=seed)
    assert Wb.shape == (1, 2)
    assert grid * (1 - 1e-9) <= val <= grid * (1 + 1e-4) + 1e-12
    if val > 0:
        av, bv = float(a.subs({w1: Wb[0, 0], w2: Wb[0, 1]})), float(b.subs({w1: Wb[0, 0], w2: Wb[0, 1]}))
        assert math.isclose(av, bv, rel_tol=1e-6) and math.isclose(val, av * av / bv, rel_tol=1e-6)


def nu_parts_reference_symbolic(W: sympy.Matrix, G: sympy.Matrix, moment, pats: list, m: int) -> tuple:
    """:func:`nu_parts_reference` with symbolic W: polynomials in W's entries."""
    n = G.rows
    xi = sympy.symbols(f"xi0:{n}")
    A = W.T * W
    a = b = sympy.Integer(0)

    def E(expr):
        poly = sympy.Poly(sympy.expand(expr), *xi)
        return sum((c * sympy.Mul(*[rat(moment(e)) for e in mon if e]) for mon, c in poly.terms()), sympy.Integer(0))

    for pat, pr in pats:
        x = sympy.diag(*pat) * G * sympy.Matrix(xi)
        v = A * x
        a += rat(pr) * sum(E(x[i] * v[i] ** m) for i in range(n))
        b += rat(pr) * sum(E(v[i] ** (2 * m)) for i in range(n))
    return sympy.expand(a), sympy.expand(b)
