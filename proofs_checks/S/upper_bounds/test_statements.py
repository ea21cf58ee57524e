"""Paper S, the upper bounds (sec. 3, Thms 3.1-3.2, Lemmas A.1-A.3): the statements, checked.

Section 3 (Theorems 3.1, 3.2, Thm 2.2(2)) and Lemmas A.1-A.3: the upper bounds and the steps of their proofs, with
the counterexample to Thm 3.2 as stated and its corrected statement.
"""

from __future__ import annotations

from fractions import Fraction
import functools
import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy

from verify.engine import adversarial_max, exact_zero, precision_ladder, random_rational_matrix
from verify.numeric import upper_bounds as ub
from verify.numeric.distributions import get_distribution
from verify.numeric.superposition_loss import exact_loss, maximise_loss
from verify.objectives import get_objective
from verify.statements import constants, current, holds, hypotheses_hold, sides
from verify.symbolic import upper_bounds as sub

from proofs_checks._refusals import raises_exactly as _raises


MUS = ("gaussian", "uniform", "laplace", "rademacher")


# float64 slack for inequalities between quantities of size O(1) computed by different routes
# (pinv of a Sigma with condition number up to ~1e6, sums of ~1e3 terms): 1e-9 relative.
REL = 1e-9


def _frac_matrix(rng, rows, cols, den=4, span=4):
    return np.array([[Fraction(int(rng.integers(-span, span + 1)), den) for _ in range(cols)] for _ in range(rows)],
                    dtype=object)


def _sup_candidates(d, n, p, m, mu, seed, restarts=2):
    """Structured candidates (each optimally scaled, eq. 19) and the L-BFGS maximiser started from them."""
    vals, starts = {}, []
    for name, W in ub.structured_candidates(d, n, seed=seed).items():
        Ws, v = ub.optimally_scaled(W, p, m, mu)
        vals[name] = v
        starts.append(Ws if v > 0 else W)  # a candidate with no positive scale starts unscaled
    res = maximise_loss(d, n, p, m, mu, restarts=len(starts) + restarts, seed=seed, x0=starts)
    names = list(vals) + [f"random-start-{k}" for k in range(restarts)]
    vals[f"maximiser(from {names[res.best_restart]})"] = res.value
    best = max(vals, key=vals.get)
    return vals, best, res.W


# --------------------------------------------------------------------------- Lemma A.3
@pytest.mark.claim("S-lemA.3")
def test_lemA3_gradient_and_completed_square_exact(verdict):
    """Proof of Lemma A.3: gradient 2M - 2C Sigma (sympy.diff) and f(M Sigma^+ + Delta) = tr(M Sigma^+ M^T) -
    tr(Delta Sigma Delta^T) with symbolic Delta, for Sigma, M moments of finite rational distributions
    (Sigma singular when y has dependent components)."""
    assert all(e == 0 for e in sub.lemA3_gradient_residual(2, 3))
    rng = np.random.default_rng(11)
    ranks = []
    for trial in range(6):
        q, r, N = 2, 4, 3 + trial % 3  # N support points: rank Sigma <= N < r for the first ones
        X = random_rational_matrix(rng, q, N)
        Y = random_rational_matrix(rng, r - 1, N)
        Y = Y.col_join(Y[0, :] + Y[1, :])  # a dependent component: Sigma always singular
        w = [sympy.Rational(int(rng.integers(1, 5))) for _ in range(N)]
        w = [t / sum(w) for t in w]
        Wt = sympy.diag(*w)
        Sigma, M = Y * Wt * Y.T, X * Wt * Y.T
        ranks.append(Sigma.rank())
        assert M * (sympy.eye(r) - Sigma.pinv() * Sigma) == sympy.zeros(q, r)  # rows of M in row space of Sigma
        Delta = sympy.Matrix(q, r, lambda i, j: sympy.Symbol(f"D{i}{j}"))
        assert exact_zero(sub.lemA3_gap(M, Sigma, Delta))
    verdict.verified(method="sym: sympy diff + exact rationals (completed square, symbolic Delta)",
                     evidence={"distributions": 6, "q": 2, "r": 4, "ranks_of_Sigma": ranks, "seed": 11})


@pytest.mark.claim("S-lemA.3")
def test_lemA3_numeric_optimisation_over_C(verdict):
    """sup_C by scipy L-BFGS (no formula) equals tr(M Sigma^+ M^T), including singular Sigma; also the paper's use:
    Sigma, M of y = monomials of Wx."""
    rng = np.random.default_rng(5)
    errs = []
    for trial in range(8):
        N = 4 + trial
        X, Y = rng.standard_normal((3, N)), rng.standard_normal((5, N))
        if trial % 2:
            Y[4] = Y[0] - 2 * Y[1]  # singular Sigma
        Sigma, M = Y @ Y.T / N, X @ Y.T / N
        opt, _ = ub.lemA3_maximise(M, Sigma, seed=trial)
        errs.append(abs(opt - ub.lemA3_value(M, Sigma)) / max(1.0, abs(opt)))
    W = rng.standard_normal((2, 5))
    tb = ub.tensor_bound(W, 0.2, m=3)
    opt, _ = ub.lemA3_maximise(tb.M, tb.Sigma, seed=0)
    errs.append(abs(opt - tb.value) / tb.value)
    # L-BFGS on a quadratic converges to ~1e-10 relative for these condition numbers
    assert max(errs) < 1e-7
    verdict.verified(method="num: scipy L-BFGS over C vs closed form", evidence={
        "cases": len(errs), "singular_cases": 4, "max_rel_err": max(errs), "seed": 5})


def _lemA3_env(xs, ys, C):
    """The point of S-lemA.3's statement object (x in R, y in R^2 uniform on two points, C in R^{1x2})."""
    env = {"x_1": xs[0], "x_2": xs[1], "c_1": C[0], "c_2": C[1]}
    env.update({f"y_{i + 1}{k + 1}": ys[k][i] for k in range(2) for i in range(2)})
    return env


@pytest.mark.claim("S-lemA.3")
def test_lemA3_statement_at_the_maximiser_and_around_it(verdict):
    r"""Lemma A.3 as its statement object reads it (constants and exponent from the object): at seeded rational
    two-point laws of (x, y), x in R, y in R^2 (a third of them with y_2 parallel to y_1, so Sigma is singular),
    the bound holds at the maximiser :math:`C^*` found here by solving the normal equations
    :math:`\Sigma C^T = M^T` (sympy, any solution; no pseudoinverse) and at :math:`C^*` moved along each axis; the
    right side :math:`\operatorname{tr}(M\Sigma^+M^T)` is the package's (``lemA3_value``), exact."""
    rng = np.random.default_rng(31)
    rows = []
    for trial in range(9):
        xs = [sympy.Rational(int(rng.integers(-8, 9)), int(rng.integers(1, 5))) for _ in range(2)]
        y1 = [sympy.Rational(int(rng.integers(-6, 7)), int(rng.integers(1, 4))) for _ in range(2)]
        y2 = [sympy.Rational(int(rng.integers(-6, 7)), int(rng.integers(1, 4))) for _ in range(2)]
        if trial % 3 == 2:
            y2 = [sympy.Rational(-1, 3) * v for v in y1]               # Sigma of rank 1
        Y = sympy.Matrix([y1, y2]).T                                     # columns y_1, y_2
        Sigma, M = Y * Y.T / 2, sympy.Matrix([xs]) * Y.T / 2
        sol, params = Sigma.gauss_jordan_solve(M.T)                      # Sigma C^T = M^T
        Cstar = list(sol.subs({t: 0 for t in params}))
        T = ub.lemA3_value(M, Sigma)
        for k, dC in enumerate(([0, 0], [sympy.Rational(1, 7), 0], [0, sympy.Rational(-2, 5)], [1, 1])):
            C = [Cstar[0] + dC[0], Cstar[1] + dC[1]]
            assert holds("S-lemA.3", _lemA3_env(xs, [y1, y2], C), T=T) is True, (trial, k)
        rows.append({"rank_Sigma": Sigma.rank(), "T": str(T)})
    verdict.verified(method="exact: the statement object at the normal-equation maximiser and 3 moves of it",
                     evidence={"laws": rows, "seed": 31})


def _ill_conditioned_instances(eps_list=(Fraction(1, 10), Fraction(1, 30))):
    """The paper's own Sigma = E[y y^T], y = monomials (and (Wx)^{(x)3}) of W_eps x with W_eps = T_eps W_0,
    T_eps = [[1, 0], [1, eps]]: nearly parallel rows make Sigma ill-conditioned (condition ~1e7 .. 4e10), while
    M(W) depends only on the span of the monomials, so M(W_eps) = M(W_0) exactly. Yields (mu, p, eps, exact M(W_0),
    float TensorBound of W_eps)."""
    W0 = np.array([[Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(0), Fraction(1, 4)],
                   [Fraction(0), Fraction(1), Fraction(-1, 2), Fraction(1), Fraction(1, 3)]], dtype=object)
    for mu, p in (("gaussian", Fraction(1, 2)), ("uniform", Fraction(1, 10)), ("laplace", Fraction(1, 3))):
        exact = ub.tensor_bound(W0, p, m=3, mu=mu, exact=True).value
        for eps in eps_list:
            We = np.array([[Fraction(1), Fraction(0)], [Fraction(1), eps]], dtype=object).dot(W0)
            yield mu, p, eps, exact, We, ub.tensor_bound(We.astype(float), float(p), m=3, mu=mu)


@pytest.mark.claim("S-lemA.3")
def test_lemA3_pinv_on_ill_conditioned_paper_sigma(verdict):
    """tr(M Sigma^+ M^T) on the Sigma that the proof of Thm 3.1 produces, made ill-conditioned by nearly parallel rows
    of W (smallest nonzero eigenvalue 1e-7 .. 4e-11 of the largest), in the monomial basis (invertible) and in the
    paper's tensor basis y = (Wx)^{(x)3} in R^8 (exactly singular: rank 4 of 8): float pinv (tensor_bound,
    lemA3_value) against the exact rational value, which is M(W_0) by span invariance (checked exactly once).
    A cutoff that drops the genuine small eigenvalues (>= 1e-8 relative) is off by ~27%; one that keeps the
    round-off zeros changes the rank."""
    rows = []
    for mu, p, eps, exact, We, tb in _ill_conditioned_instances():
        if eps == Fraction(1, 10):
            assert ub.tensor_bound(We, p, m=3, mu=mu, exact=True).value == exact  # M(T W) = M(W), exact
        ev = np.linalg.eigvalsh(np.array(tb.Sigma, dtype=float))
        kappa = float(ev.max() / ev.min())
        S, M = tb.tensor_basis(2, 3)
        evt = np.linalg.eigvalsh(S)
        # float64 pinv of a matrix of condition kappa: relative error <= ~kappa * eps_machine; 100x margin
        tol = 100 * kappa * np.finfo(float).eps
        errs = {"monomial": abs(tb.value / float(exact) - 1), "tensor": abs(ub.lemA3_value(M, S) / float(exact) - 1)}
        assert tb.rank == 4 == math.comb(2 + 3 - 1, 3) and max(errs.values()) < tol
        assert np.sum(evt > 1e-14 * evt.max()) == 4  # the tensor basis has 4 round-off zeros (<= 1e-16 relative)
        rows.append({"mu": mu, "p": str(p), "eps": str(eps), "condition": kappa,
                     "smallest_nonzero_eig_rel": float(sorted(evt)[4] / evt.max()), "exact": float(exact),
                     "rel_err": errs, "tol": tol})
    verdict.verified(method="num: float pinv vs exact rationals on ill-conditioned / singular Sigma of the proof",
                     evidence={"cases": rows, "W_0": "fixed rational 2x5", "T_eps": "[[1,0],[1,eps]]"})


# --------------------------------------------------------------------------- eq. (11), eq. (12)
@pytest.mark.claim("S-eq11")
def test_eq11_eigen_decomposition(verdict):
    """Eq. (11) in the paper's basis y = (Wx)^{(x)m} in R^{d^m}: sum_i |M u_i|^2 / lambda_i = tr(M Sigma^+ M^T)
    (= the monomial-basis value: M(W) depends only on the span), and each psi_i = <y,u_i>/sqrt(lambda_i) has mean 0
    and unit variance."""
    rng = np.random.default_rng(3)
    worst_sum, worst_var, ranks = 0.0, 0.0, []
    for d, n, m, mu in [(2, 5, 3, "gaussian"), (2, 6, 3, "laplace"), (3, 6, 3, "uniform"), (2, 4, 5, "rademacher")]:
        W = rng.standard_normal((d, n))
        tb = ub.tensor_bound(W, 0.3, m=m, mu=mu)
        S, M = tb.tensor_basis(d, m)
        terms = ub.eq11_terms(S, M)
        ranks.append([d ** m, terms["rank"], tb.rank])
        assert terms["rank"] == tb.rank <= d ** m
        worst_sum = max(worst_sum, abs(terms["sum"] - tb.value) / tb.value)
        worst_var = max(worst_var, float(np.max(np.abs(terms["variances"] - 1))))
        assert np.all(tb.mean_y == 0)  # odd m, symmetric mu: E<y,u> = 0 exactly (odd cumulants vanish)
    # eigen-decomposition of a d^m x d^m PSD matrix, condition <= 1e6 here: 1e-8 relative is round-off
    assert worst_sum < 1e-8 and worst_var < 1e-8
    # ill-conditioned Sigma of nearly parallel rows (condition up to 4e10): the rank of the tensor basis is still
    # binom(d+m-1, m) = 4 and the sum of the terms is the exact M(W); tolerance kappa * eps_machine * 100
    ill = []
    for mu, p, eps, exact, We, tb in _ill_conditioned_instances():
        S, M = tb.tensor_basis(2, 3)
        terms = ub.eq11_terms(S, M)
        ev = np.linalg.eigvalsh(np.array(tb.Sigma, dtype=float))
        tol = 100 * float(ev.max() / ev.min()) * np.finfo(float).eps
        err = abs(terms["sum"] / float(exact) - 1)
        assert terms["rank"] == 4 and err < tol and float(np.max(np.abs(terms["variances"] - 1))) < tol
        ill.append({"mu": mu, "eps": str(eps), "rel_err": err, "tol": tol})
    verdict.verified(method="num: float64 eigendecomposition of E[yy^T], y in R^{d^m}", evidence={
        "cases": 4, "[d^m, rank tensor basis, rank monomial basis]": ranks, "max_rel_err_sum": worst_sum,
        "max_abs_err_variance": worst_var, "seed": 3, "ill_conditioned": ill})


@pytest.mark.claim("S-eq11")
def test_eq11_spectral_sum_exact_on_2x2(verdict):
    r"""Eq. (11) as its statement object reads it: :math:`\sum_i \|Mu_i\|^2/\lambda_i =
    \operatorname{tr}(M\Sigma^+M^T)` decided exactly (radicals) at seeded rational :math:`\Sigma \succ 0`
    (2 x 2, distinct eigenvalues, off unit scale) and :math:`M`; the object's left side (an Arb ball or a radical)
    must also agree with the package's float eigendecomposition route (``eq11_terms``) to 1e-12."""
    rng = np.random.default_rng(111)
    rows = []
    while len(rows) < 6:
        a_, c_ = (sympy.Rational(int(rng.integers(1, 30)), int(rng.integers(1, 7))) for _ in range(2))
        b_ = sympy.Rational(int(rng.integers(-10, 11)), int(rng.integers(1, 7)))
        if a_ * c_ - b_ ** 2 <= 0 or (a_ == c_ and b_ == 0):
            continue
        m_ = [sympy.Rational(int(rng.integers(-9, 10)), int(rng.integers(1, 4))) for _ in range(2)]
        env = {"a": a_, "b": b_, "c": c_, "m_1": m_[0], "m_2": m_[1]}
        assert holds("S-eq11", env) is True, env
        S = np.array([[float(a_), float(b_)], [float(b_), float(c_)]])
        pkg = ub.eq11_terms(S, np.array([[float(m_[0]), float(m_[1])]]))
        lhs = float(sympy.sympify(sides("S-eq11", env)[0]))
        # float64 eigendecomposition of a 2 x 2 of condition < 1e4: 1e-12 relative
        assert abs(pkg["sum"] - lhs) <= 1e-12 * max(1.0, abs(lhs)) and np.allclose(pkg["variances"], 1, atol=1e-12)
        rows.append({k: str(v) for k, v in env.items()} | {"sum": lhs})
    verdict.verified(method="exact: radicals of the 2 x 2 eigenpairs (statement object) + float eigh agrees",
                     evidence={"cases": rows, "seed": 111})


@pytest.mark.claim("S-eq12")
def test_eq12_exact_sup_over_polynomials(verdict):
    """Eq. (12)-(13): sup over all degree-m homogeneous psi (E psi^2 = 1) of |E[x psi]|^2 is lambda_max(M G^+ M^T);
    p mu_2 I - M G^+ M^T is PSD, checked exactly over the rationals."""
    ratios = {}
    for mu in MUS:
        for n, m, p in [(1, 3, Fraction(1, 10)), (2, 3, Fraction(1, 2)), (3, 3, Fraction(1, 10)), (4, 3, Fraction(1)),
                        (2, 5, Fraction(1, 3)), (3, 1, Fraction(1, 7))]:
            Q = ub.eq12_projection_matrix(n, m, p, mu)
            k = constants("S-eq12")  # the bound C p mu_2's constant and exponents, from its statement object
            pmu2 = k["C"] * sympy.Rational(p.numerator, p.denominator) ** k["e_p"] * \
                sympy.sympify(get_distribution(mu).moment(2)) ** k["e_mu"]
            assert (pmu2 * sympy.eye(n) - Q).is_positive_semidefinite
            ratios[f"{mu},n={n},m={m},p={p}"] = float(max(np.linalg.eigvalsh(np.array(Q, dtype=float)))) / float(pmu2)
            if m == 1 or mu == "rademacher":
                # psi = x_j / sqrt(E x_j^2) is admissible (for Rademacher x_i^3 = x_i): by Cauchy-Schwarz the sup is
                # the sparse coordinate's second moment E x_j^2 = p E xi^2, attained, so Q = E x_j^2 I exactly (the
                # check's own value, not the statement's bound: a weaker true bound passes, a lowered one fails the
                # PSD test above)
                second = sympy.Rational(p.numerator, p.denominator) * sympy.sympify(get_distribution(mu).moment(2))
                assert Q == second * sympy.eye(n)
    # the statement object itself (one coordinate, xi ~ N(0, s), psi odd of degree <= 5) at the check's maximisers:
    # for n = 1 the degree-m psi is x^m, so the sup Q of the check's own route is the statement's left side at
    # c_m = 1 exactly; m = 1 attains the bound (a lowered constant, a moved exponent of p or mu_2 or a strict
    # relation fails there), m = 3, 5 are slack (a reversed relation fails), s and p off 1 (exponents move the value)
    at_statement = []
    for s_, p_ in ((sympy.Rational(3), sympy.Rational(1, 2)), (sympy.Rational(1, 10), sympy.Rational(1, 10)),
                   (sympy.Rational(5, 2), sympy.Rational(1))):
        for m in (1, 3, 5):
            Q = ub.eq12_projection_matrix(1, m, Fraction(int(p_.p), int(p_.q)), f"gaussian({s_})")
            env = {"p": p_, "s": s_, **{f"c_{j}": int(j == m) for j in (1, 3, 5)}}
            assert sympy.sympify(sides("S-eq12", env)[0]) == Q[0, 0], (env, Q)
            assert holds("S-eq12", env) is True, (env, Q)
            at_statement.append({"s": str(s_), "p": str(p_), "m": m, "sup": str(Q[0, 0])})
    worst = max(ratios, key=ratios.get)
    verdict.verified(method="hp: exact rational PSD test of p mu_2 I - M G^+ M^T", evidence={
        "cases": len(ratios), "max_ratio_sup_over_p_mu2": ratios[worst], "attained_at": worst,
        "note": "Q = E x_j^2 I exactly for m = 1 and for Rademacher (x^3 = x): the bound is tight (asserted)",
        "statement_at_the_maximisers": at_statement})


# --------------------------------------------------------------------------- Theorem 3.1
def _mu2_from_density(mu):
    """mu_2 = int x^2 dmu by mpmath quadrature of the density (or the atoms), dps 30: a route independent of the
    moment table that thm31_constant reads."""
    dist = get_distribution(mu)
    with mpmath.workdps(30):
        if dist.atoms() is not None:
            return mpmath.fsum(x * x * w for x, w in dist.atoms())
        return mpmath.quad(lambda t: t * t * dist.density(t), dist.support())


@pytest.mark.claim("S-thm3.1")
def test_thm31_chain_exact(verdict):
    """The proof's chain Ltilde(W) <= M(W) <= rank(Sigma) p mu_2 <= mu_2 p d^m, all exact rationals, random W, with
    C_2 = mu_2 checked against the density (mpmath quadrature). Two-sided: for m = 1 the middle step is an equality,
    M(W) = rank(W) p mu_2 exactly (eq. 11-13 are tight for linear psi), so a wrong C_2 either way fails."""
    rng = np.random.default_rng(7)
    cases = []
    F = Fraction
    for trial, (d, n, m, mu, p) in enumerate([(2, 4, 3, "gaussian", F(1, 10)), (2, 5, 3, "uniform", F(1, 3)),
                                              (2, 3, 3, "laplace", F(1, 2)), (3, 4, 1, "rademacher", F(1, 5)),
                                              (2, 4, 3, "rademacher", F(1)), (2, 5, 1, "laplace", F(1, 7)),
                                              (2, 3, 1, "uniform", F(1, 2))]):
        W = _frac_matrix(rng, d, n)
        tb = ub.tensor_bound(W, p, m=m, mu=mu, exact=True)
        Lt = ub.general_loss(W, ub.coordinate_cumulants(mu, p, 2 * m), m)
        mu2 = ub.to_fraction(ub.thm31_constant(mu))
        # the table's mu_2 against the density's (quadrature at dps 30: ~25 digits)
        with mpmath.workdps(30):
            assert abs(mpmath.mpf(mu2.numerator) / mu2.denominator - _mu2_from_density(mu)) < mpmath.mpf(10) ** -20
        # Thm 3.1's bound C_2 p^e_p d^e_d, C_2 = mu_2 of the law: from the statement object
        k = constants("S-thm3.1", m=m, s=sympy.Rational(mu2.numerator, mu2.denominator))
        bound = Fraction(str(k["C_2"])) * p ** int(k["e_p"]) * d ** int(k["e_d"])
        assert Lt <= tb.value <= tb.rank * p * mu2 <= bound
        assert tb.rank <= math.comb(d + m - 1, m)
        # the statement object's verdict at the check's W (its relation too: a reversed one fails where the chain
        # leaves slack, m = 3 and random W)
        env = {"m": m, "d": d, "n": n, "p": sympy.Rational(p.numerator, p.denominator),
               "s": sympy.Rational(mu2.numerator, mu2.denominator)}
        assert holds("S-thm3.1", env, Ltilde=sympy.Rational(Lt.numerator, Lt.denominator)) is True, (env, Lt)
        if m == 1:
            assert tb.value == tb.rank * p * mu2 and tb.rank == np.linalg.matrix_rank(np.array(W, dtype=float))
            # the supremum is attained (linear case): a rank-d coordinate projection's exact loss is the package's
            # bound at m = 1 (tight: the check's own value, never the statement's), and the statement holds there,
            # so a lowered constant, a moved exponent or a strict relation fails at this point
            P = np.array([[Fraction(int(i == j)) for j in range(n)] for i in range(d)], dtype=object)
            L_proj = ub.general_loss(P, ub.coordinate_cumulants(mu, p, 2 * m), m)
            assert L_proj == ub.thm31_bound(d, p, m, mu) == ub.tensor_bound(P, p, m=m, mu=mu, exact=True).value
            assert holds("S-thm3.1", env, Ltilde=sympy.Rational(L_proj.numerator, L_proj.denominator)) is True, env
        cases.append({"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "Ltilde": float(Lt), "M(W)": float(tb.value),
                      "rank": tb.rank, "rank_p_mu2": float(tb.rank * p * mu2)})
    verdict.verified(method="sym: exact rationals along the proof's chain; hp: mu_2 by quadrature of the density",
                     evidence={"cases": cases, "seed": 7, "m=1": "M(W) = rank p mu_2 exactly (asserted)"})


def _sup_vs_bound(cases, bound_of, extra=None):
    """Best of candidates + maximiser per case against ``bound_of(d, mu, p, m)``; ``extra(W, value, case)`` adds
    asserted intermediate quantities to a row. Returns the rows and the worst ratio with its case."""
    rows, worst = [], (0.0, None)
    for seed, (d, n, m, mu, p) in enumerate(cases):
        vals, best, W = _sup_candidates(d, n, p, m, mu, seed)
        bound = float(bound_of(d, mu, p, m))
        ratio = vals[best] / bound
        assert ratio <= 1 + REL
        rows.append({"d": d, "n": n, "m": m, "mu": str(mu), "p": p, "best": best, "sup_found": vals[best],
                     "bound": bound, "ratio": ratio, **(extra(W, vals[best], d, m, mu, p) if extra else {})})
        if ratio > worst[0]:
            worst = (ratio, f"d={d},n={n},m={m},{mu},p={p}")
    return {"worst_ratio": worst[0], "worst_case": worst[1], "cases": rows}


def _thm31_intermediate(W, value, d, m, mu, p):
    tb = ub.tensor_bound(W, p, m=m, mu=mu)
    assert value <= tb.value * (1 + REL) and tb.value <= tb.rank * p * float(ub.thm31_constant(mu)) * (1 + REL)
    return {"M(W)": tb.value, "rank_Sigma": tb.rank}


def _thm31_check(cases):
    for d, n, m, mu, p in cases:
        # Thm 2.2's regime n > d^m: there E|x|^2 = p n mu_2 > C_2 p d^m, so the bound is not the trivial one
        assert n > d ** m
    ev = _sup_vs_bound(cases, lambda d, mu, p, m: ub.thm31_bound(d, p, m, mu), _thm31_intermediate)
    for row in ev["cases"]:
        if row["m"] == 1:  # linear: sup = p mu_2 d (S-linear), attained by a projection: the bound is tight
            assert row["ratio"] == pytest.approx(1.0, rel=1e-9)  # L-BFGS on a quadratic in A: ~1e-12
    return {"C_2": "mu_2", "bound": "C_2 p d^m", **ev, "regime": "n > d^m (asserted): E|x|^2 > C_2 p d^m",
            "note": "m = 1 attains ratio 1 (projection, linear case; asserted); for m = 3 rank Sigma <= binom(d+2,3) "
                    "< d^3"}


@pytest.mark.claim("S-thm3.1")
def test_thm31_sup_over_W(verdict):
    """sup_W Ltilde <= C_2 p d^m with C_2 = mu_2 (explicit constant of the proof): maximiser (L-BFGS from structured
    candidates + random starts) and the candidates themselves; every maximiser also satisfies
    Ltilde <= M(W) <= rank(Sigma) p mu_2."""
    assert sub.thm31_constant() == sub.mu2
    ev = _thm31_check([(2, 9, 3, "gaussian", 1e-3), (2, 9, 3, "uniform", 0.05), (2, 10, 3, "rademacher", 0.3),
                       (2, 5, 1, "uniform", 0.2)])
    verdict.verified(method="num: L-BFGS maximiser + structured candidates vs C_2 p d^m", evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("S-thm3.1")
def test_thm31_sup_over_W_more(verdict):
    """As :func:`test_thm31_sup_over_W` for Laplace, p = 1, d = 3 (n = 28 > 27) and m = 5 (n = 33 > 32)."""
    ev = _thm31_check([(2, 9, 3, "gaussian", 0.05), (2, 12, 3, "laplace", 0.01), (2, 9, 3, "gaussian", 1.0),
                       (3, 28, 3, "gaussian", 1e-3), (3, 28, 3, "uniform", 1e-3), (2, 33, 5, "gaussian", 1e-3),
                       (3, 7, 1, "laplace", 0.3)])
    verdict.verified(method="num: L-BFGS maximiser + structured candidates vs C_2 p d^m", evidence=ev)


# --------------------------------------------------------------------------- footnotes 3 and 4
@pytest.mark.claim("S-fn3")
def test_fn3_per_sample_restriction(verdict):
    """Footnote 3 (ii): for x supported on S, LHS = RHS - |phi(W_{S^c}^T W_S x_S)|^2 exactly (rationals), so LHS <= RHS;
    an adversarial search over (W, x) for LHS - RHS > 0 finds nothing."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        d, n, m = 2, 5, int(rng.choice([1, 3, 5]))
        W = _frac_matrix(rng, d, n)
        x = np.array([Fraction(int(rng.integers(-3, 4)), 2) if rng.random() < 0.5 else Fraction(0) for _ in range(n)],
                     dtype=object)
        S = [i for i in range(n) if x[i] != 0]
        out = (W.T @ (W @ x)) ** m
        outS = (W[:, S].T @ (W[:, S] @ x[S])) ** m
        off = np.delete(out, S)
        assert (x @ out - out @ out) - (x[S] @ outS - outS @ outS) == -(off @ off)
        # the package's float version at the same point returns the same three numbers
        lhs, rhs, third = ub.footnote3_sides(W.astype(float), x.astype(float), m)
        ex = (x @ out - out @ out, x[S] @ outS - outS @ outS, off @ off)
        scale = 1 + float(abs(ex[0]) + abs(ex[1]) + ex[2])
        # float64 sums of O(n) products of magnitude <= scale: 1e-12 relative
        assert max(abs(lhs - float(ex[0])), abs(rhs - float(ex[1])), abs(third - float(ex[2]))) < 1e-12 * scale
    # (LHS - RHS) / (1 + |RHS|) at d, n, m = 2, 4, 3, x supported on S = {0, 1}: verify.objectives
    obj = get_objective("S-fn3")
    res = adversarial_max(obj.ratio, obj.sampler, n_starts=6, seed=4)
    # the search drives |phi(W_{S^c}^T W_S x_S)|^2 -> 0, where LHS - RHS is float round-off of O(1) sums
    assert res.best <= 1e-13
    verdict.verified(method="sym: exact identity at rational points + num: adversarial Nelder-Mead", evidence={
        "exact_points": 20, **res.evidence("max_normalised_violation"), "seed": 4})


@pytest.mark.claim("S-fn3")
def test_fn3_statement_at_the_adversarial_points(verdict):
    r"""Footnote 3 (ii) as its statement object reads it (d = 2, n = 3, x on S = {1, 2}), decided exactly at the
    points that stress it most: the seeded adversarial search's maximiser of the normalised gap (the third column
    driven orthogonal to :math:`W_Sx_S`, where both sides meet) rounded to rationals, and seeded random rational
    points, for m = 1 and 3."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(33)
    names = [f"w_{i}{j}" for i in (1, 2) for j in (1, 2, 3)] + ["x_1", "x_2"]

    def env_of(z, mm):
        return {"m": mm, **{k: sympy.Rational(Fraction(float(v)).limit_denominator(1000)) for k, v in zip(names, z)}}

    def gap(z, mm):  # (LHS - RHS) / (1 + |RHS|) in float64 from the package's route
        W = np.array(z[:6]).reshape(2, 3)
        lhs, rhs, _ = ub.footnote3_sides(W, np.array([z[6], z[7], 0.0]), mm)
        return (lhs - rhs) / (1 + abs(rhs))

    rows = []
    for mm in (1, 3):
        for start in range(3):
            z0 = rng.uniform(-1.5, 1.5, 8)
            res = minimize(lambda z: -gap(z, mm), z0, method="Nelder-Mead", options={"maxfev": 2000, "xatol": 1e-10})
            for z in (res.x, z0):
                assert holds("S-fn3", env_of(z, mm)) is True, (mm, z)
            rows.append({"m": mm, "max_gap_float": float(-res.fun)})
    # where the search is driven, exactly: the third column orthogonal to W_S x_S (w_3 = the quarter turn of
    # W_S x_S), so both sides are equal; seeded rational W_S, x_S
    attained = 0
    for mm in (1, 3):
        for _ in range(6):
            WS = [[Fraction(int(rng.integers(-6, 7)), int(rng.integers(1, 4))) for _ in range(2)] for _ in range(2)]
            xs = [Fraction(int(rng.integers(-6, 7)), int(rng.integers(1, 4))) for _ in range(2)]
            z = [WS[i][0] * xs[0] + WS[i][1] * xs[1] for i in range(2)]
            env = {"m": mm, "w_11": WS[0][0], "w_12": WS[0][1], "w_13": -z[1], "w_21": WS[1][0], "w_22": WS[1][1],
                   "w_23": z[0], "x_1": xs[0], "x_2": xs[1]}
            assert holds("S-fn3", {k: sympy.nsimplify(v) for k, v in env.items()}) is True, env
            attained += 1
    verdict.verified(method="exact: the statement object at rounded adversarial maximisers, random points and "
                            "points of equality (third column orthogonal to W_S x_S)",
                     evidence={"rows": rows, "equality_points": attained, "seed": 33})


def _fn3_marginal_check(points):
    """Footnote 3 (i) on V(y, z) = (y^2 + z^2)/2 + log cosh(y + 2z): Hessian I + sech^2(y+2z) (1,2)^T(1,2), eigenvalues
    1 and 1 + 5 sech^2, so (K^{-1}, K) with K = 6; the marginal potential's curvature must lie in [1/6, 6]."""
    y, z = sympy.symbols("y z", real=True)
    V = (y ** 2 + z ** 2) / 2 + sympy.log(sympy.cosh(y + 2 * z))
    u = y + 2 * z
    assert exact_zero((sympy.hessian(V, (y, z)) - sympy.eye(2) - sympy.Matrix([[1, 2], [2, 4]]) / sympy.cosh(u) ** 2)
                      .applyfunc(lambda e: e.rewrite(sympy.exp)))
    K = 6
    ev = {}
    for y0 in points:
        lad = precision_ladder(lambda: ub.marginal_curvature(V, y, z, y0))
        assert lad.agrees(10)  # quadrature + numerical second derivative: >= 10 digits at dps 15
        c = lad.values[-1]
        assert 1 / mpmath.mpf(K) <= c <= K
        ev[f"y0={y0}"] = {"curvature": mpmath.nstr(c, 15), "ladder_disc": lad.discrepancy}
    return {"K": K, "points": ev}


@pytest.mark.claim("S-fn3")
def test_fn3_marginal_gaussian_closed_form(verdict):
    """Footnote 3 (i) against a closed form: for V = a y^2/2 + b z^2/2 + c y z the marginal potential's curvature is
    the Schur complement a - c^2/b (mpmath quadrature + diff at dps 15 must equal it), and it lies in the Hessian's
    eigenvalue range [lambda_min, lambda_max] (the same K), at several (a, b, c) incl. strong coupling."""
    y, z = sympy.symbols("y z", real=True)
    rows = []
    for a, b, c in ((1, 1, sympy.Rational(1, 2)), (2, sympy.Rational(1, 2), sympy.Rational(-9, 10)),
                    (sympy.Rational(1, 3), 3, sympy.Rational(99, 100))):
        V = a * y ** 2 / 2 + b * z ** 2 / 2 + c * y * z
        lam = sorted(float(e) for e in sympy.Matrix([[a, c], [c, b]]).eigenvals())
        closed = float(a - c ** 2 / b)
        with mpmath.workdps(15):
            curv = float(ub.marginal_curvature(V, y, z, "0.3"))
        # quadrature + second numerical derivative at dps 15: ~8 digits
        assert curv == pytest.approx(closed, rel=1e-7)
        assert lam[0] * (1 - 1e-7) <= curv <= lam[1] * (1 + 1e-7)
        rows.append({"a": str(a), "b": str(b), "c": str(c), "curvature": curv, "schur": closed, "eigs": lam})
    verdict.verified(method="hp: mpmath quad + diff vs the Schur complement", evidence={"cases": rows})


@pytest.mark.claim("S-fn3")
def test_fn3_marginal_keeps_constants(verdict):
    """Footnote 3 (i): the marginal of a (K^{-1}, K)-strongly log-concave measure has the same constants (a 2-D
    non-product example, marginal curvature by mpmath, ladder 15/30/50)."""
    verdict.verified(method="hp: mpmath quad + diff, ladder 15/30/50", evidence=_fn3_marginal_check(["0.7"]))


@pytest.mark.slow
@pytest.mark.claim("S-fn3")
def test_fn3_marginal_keeps_constants_more(verdict):
    """As :func:`test_fn3_marginal_keeps_constants` at four more points."""
    verdict.verified(method="hp: mpmath quad + diff, ladder 15/30/50",
                     evidence=_fn3_marginal_check(["-2", "-0.5", "0", "3"]))


@pytest.mark.claim("S-fn4")
def test_fn4_svd_factorisation(verdict):
    """Footnote 4: W = W'P with P the first d rows of V (SVD), P P^T = I_d, P^T P a rank-d orthogonal projection, and
    W^T W x depends on x only through P x; full-rank, rank-deficient and square W."""
    rng = np.random.default_rng(8)
    errs = []
    for d, n, rank in [(2, 7, 2), (3, 9, 1), (3, 3, 3), (4, 20, 2)]:
        W = rng.standard_normal((d, rank)) @ rng.standard_normal((rank, n))
        Wp, P = ub.footnote4_factor(W)
        Pi = P.T @ P
        errs.append(max(np.linalg.norm(W - Wp @ P) / np.linalg.norm(W), np.linalg.norm(P @ P.T - np.eye(d)),
                        np.linalg.norm(Pi @ Pi - Pi), np.linalg.norm(W.T @ W - Pi @ W.T @ W @ Pi) / np.linalg.norm(W) ** 2))
        assert np.linalg.matrix_rank(Pi) == d
    # backward-stable SVD: errors are a few n * eps
    assert max(errs) < 100 * 20 * np.finfo(float).eps
    verdict.verified(method="num: numpy SVD, float64", evidence={"cases": 4, "max_err": max(errs), "seed": 8})


# --------------------------------------------------------------------------- eq. (15)-(16)
@pytest.mark.claim("S-eq16")
def test_eq16_gaussian_dense(verdict):
    """Without sparsity and Gaussian xi: E[x|Px] = P^T P x, so E|E[x|Px]|^2 = s^2 d; the maximiser stays below."""
    rows = []
    for seed, (d, n, m, s2) in enumerate([(1, 4, 3, 1), (2, 6, 3, 1), (2, 5, 1, 1), (2, 6, 3, Fraction(1, 2))]):
        mu = "gaussian" if s2 == 1 else f"gaussian({s2})"
        vals, best, Wbest = _sup_candidates(d, n, 1.0, m, mu, seed)
        # E|E[x|Px]|^2 from the statement object (p = 1, N(0, s)): E|P x|^e by the chi law, C and e read there
        bound = float(sympy.sympify(sides("S-eq16", {"m": m, "d": d, "n": n, "p": 1, "s": sympy.nsimplify(s2)},
                                          Ltilde=0)[1]))
        assert vals[best] <= bound * (1 + REL)
        if m == 1:  # linear: Ltilde(projection) = E|P x|^2 = tr(P Cov(x) P^T) = s^2 tr(P P^T), attained
            _, P = ub.footnote4_factor(Wbest)
            energy = float(s2) * float(np.trace(P @ P.T))
            assert vals[best] == pytest.approx(energy, rel=1e-9)  # L-BFGS on a quadratic: ~1e-12
        rows.append({"d": d, "n": n, "m": m, "s2": str(s2), "best": best, "sup_found": vals[best], "bound": bound})
    # the bound attained, exactly: m = 1, W a coordinate projection (n = 3 > d), variances off 1 on both sides
    for d, s2 in ((1, Fraction(3)), (2, Fraction(1, 10)), (2, Fraction(5, 2))):
        W = np.eye(d, 3)
        kap = ub.coordinate_cumulants(f"gaussian({s2})", Fraction(1), 2)
        exact = ub.general_loss(np.array([[Fraction(v) for v in row] for row in W], dtype=object), kap, 1)
        env = {"m": 1, "d": d, "n": 3, "p": 1, "s": sympy.nsimplify(s2)}
        assert holds("S-eq16", env, Ltilde=exact) is True, (d, s2, exact)
        rows.append({"d": d, "n": 3, "m": 1, "s2": str(s2), "exact_projection_loss": str(exact)})
    verdict.verified(method="num: maximiser vs exact E|E[x|Px]|^2 = s^2 d; exact loss of projections",
                     evidence={"cases": rows})


def _eq16_sparse_check(configs, n_random):
    rng = np.random.default_rng(9)
    rows = []
    for p, m in configs:
        res = maximise_loss(1, 3, p, m, "gaussian", restarts=3, seed=9)
        w = np.where(np.abs(res.W[0]) < 1e-6 * np.abs(res.W[0]).max(), 0.0, res.W[0])
        # the maximiser is a coordinate direction up to ~1e-8 noise; the noise would be a width-1e-8 spike in the
        # mixture (and changes E|E[x|Px]|^2 discontinuously), so it is zeroed
        for v in [w] + [rng.standard_normal(3) for _ in range(n_random)]:
            v = v / np.linalg.norm(v)
            _, Lt = ub.optimally_scaled(v[None, :], p, m, "gaussian")
            lad = precision_ladder(lambda: ub.conditional_energy_1d(v, p))
            assert lad.agrees(10)  # quadrature of a smooth integrand: 10 digits at dps 15
            energy = float(lad.values[-1])
            assert Lt <= energy * (1 + REL)
            rows.append({"p": p, "m": m, "v": v, "sup_t_Ltilde": Lt, "E|E[x|Px]|^2": energy,
                         "ladder_disc": lad.discrepancy})
    return {"cases": rows, "seed": 9}


@pytest.mark.claim("S-eq16")
def test_eq16_sparse_rank_one_ladder(verdict):
    """With sparsity (d = 1, n = 3): E|E[x|<v,x>]|^2 by mpmath quadrature over the Gaussian mixture (ladder 15/30/50)
    bounds sup_t Ltilde(t v^T) for the maximiser's direction and a random direction."""
    verdict.verified(method="hp: mpmath quadrature, dps 15/30/50", evidence=_eq16_sparse_check([(0.5, 3)], 1))


@pytest.mark.claim("S-eq16")
def test_eq16_conditional_energy_closed_forms(verdict):
    """The quadrature E|E[x|<v,x>]|^2 against closed forms (two-sided): v = e_1 gives E[x|x_1] = x_1 e_1, energy
    p sigma^2 for any p (the mixture's components must carry the Bernoulli weights); p = 1 gives E[x|<v,x>] =
    v <v,x>, energy sigma^2 for any unit v."""
    rng = np.random.default_rng(10)
    errs = []
    with mpmath.workdps(15):
        for p, s2 in ((0.3, 1), (0.05, 0.5)):
            errs.append(abs(ub.conditional_energy_1d(np.array([1.0, 0.0, 0.0]), p, s2) - p * s2) / (p * s2))
        for s2 in (3,):
            v = rng.standard_normal(3)
            errs.append(abs(ub.conditional_energy_1d(v / np.linalg.norm(v), 1.0, s2) - s2) / s2)
    # quadrature at dps 15 of a smooth integrand (one Gaussian component): ~1e-13
    assert max(errs) < 1e-10
    verdict.verified(method="hp: mpmath quadrature vs closed forms", evidence={"cases": len(errs),
                     "max_rel_err": float(max(errs)), "seed": 10})


@pytest.mark.slow
@pytest.mark.claim("S-eq16")
def test_eq16_sparse_rank_one_ladder_more(verdict):
    """As :func:`test_eq16_sparse_rank_one_ladder` for p = 0.1 (m = 3) and p = 0.3 (m = 1), two random directions."""
    verdict.verified(method="hp: mpmath quadrature, dps 15/30/50",
                     evidence=_eq16_sparse_check([(0.1, 3), (0.3, 1)], 2))


# --------------------------------------------------------------------------- Lemmas A.1, A.2
_X, _S = sympy.symbols("x s", real=True)


# (V(x, s), f(x), s0): Gibbs families with different tails and s-dependence
LEMA1_FAMILIES = {
    "log-tail": (_X ** 2 / 2 + _S * sympy.log(1 + _X ** 2), sympy.exp(_X / 2), "0.4"),
    "quartic": (_X ** 2 / 2 + _S * _X ** 4 / 4, _X ** 2, "0.3"),
    "tilted-logcosh": ((_X - _S) ** 2 / 2 + sympy.log(sympy.cosh(_X)), _X ** 3 + sympy.sin(_X), "0.7"),
}


def _lemA1_check(names):
    ev = {}
    for name in names:
        V, f, s0 = LEMA1_FAMILIES[name]
        lad = precision_ladder(lambda: list(ub.lemA1_sides(V, f, _X, _S, mpmath.mpf(s0))))
        with mpmath.workdps(50):
            lhs, rhs = lad.values[-1]
            diff = abs(lhs - rhs) / max(1, abs(lhs))
        # quadrature + numerical differentiation at dps 50 are good to ~45 digits; the ladder to >= 10 digits
        assert diff < mpmath.mpf(10) ** -35 and lad.agrees(10)
        ev[name] = {"lhs": mpmath.nstr(lhs, 15), "rel_diff_dps50": mpmath.nstr(diff, 3),
                    "ladder_disc": lad.discrepancy}
    return ev


@pytest.mark.claim("S-lemA.1")
def test_lemA1_ladder(verdict):
    """d/ds E_{mu_s} f (mpmath.diff of quadratures) = -Cov(f, dV/ds) (dV/ds by sympy), dps 15, 30, 50."""
    verdict.verified(method="hp: mpmath quad + diff, ladder 15/30/50", evidence=_lemA1_check(["log-tail"]))


# exponential-family and Gaussian-location instances with closed forms (sympy, exact): (V, f, s0)
LEMA1_CLOSED = [((_X - _S) ** 2 / 2, _X ** 3, sympy.Rational(7, 10)),
                (_X ** 2 / 2 - _S * _X, _X ** 4, sympy.Rational(-1, 3)),
                ((_X - 2 * _S) ** 2 / 3, _X ** 2 + _X, sympy.Rational(1, 2))]


@pytest.mark.claim("S-lemA.1")
def test_lemA1_closed_forms(verdict):
    """Lemma A.1 against an independent closed form: for Gaussian families the derivative d/ds E_{mu_s} f is computed
    exactly by sympy (Gaussian moments of the mean/variance read off V, then diff), and both of lemA1_sides' outputs
    (mpmath, dps 15) must equal it, at three (V, f, s) instances (location and exponential tilts, odd and even f)."""
    ev = {}
    Zs = sympy.Symbol("Z", real=True)
    for k, (V, f, s0) in enumerate(LEMA1_CLOSED):
        # V is quadratic in x: mu_s = N(mean, var) with mean = argmin V, var = 1/V''; E f by x = mean + sqrt(var) Z
        # and E Z^j = (j-1)!! (j even), 0 (j odd)
        mean = sympy.solve(sympy.diff(V, _X), _X)[0]
        var = 1 / sympy.diff(V, _X, 2)
        poly = sympy.Poly(sympy.expand(f.subs(_X, mean + sympy.sqrt(var) * Zs)), Zs)
        Ef = sum(c * (sympy.factorial2(j - 1) if j % 2 == 0 else 0) for (j,), c in poly.terms())
        exact = sympy.diff(Ef, _S).subs(_S, s0)
        # Cov(f, dV/ds) exactly, by the same Gaussian moments (E[f g] - E f E g), at s0
        def gauss_mean(h):
            ph = sympy.Poly(sympy.expand(h.subs(_X, mean + sympy.sqrt(var) * Zs)), Zs)
            return sum(c * (sympy.factorial2(j - 1) if j % 2 == 0 else 0) for (j,), c in ph.terms())

        g = sympy.diff(V, _S)
        cov = sympy.simplify((gauss_mean(f * g) - gauss_mean(f) * gauss_mean(g)).subs(_S, s0))
        # the lemma's identity d/ds E f = C Cov(f, dV/ds), its constant and relation read from the statement object
        assert holds("S-lemA.1", {"fam": 0, "k": 1, "s": 1, "v": 1}, dEf=exact, Cov=cov) is True, (k, exact, cov)
        with mpmath.workdps(15):
            lhs, rhs = ub.lemA1_sides(V, f, _X, _S, mpmath.mpf(sympy.Rational(s0).p) / sympy.Rational(s0).q)
        # quadrature at dps 15 and a numerical derivative: ~10 digits
        assert abs(lhs - float(exact)) < 1e-9 * max(1, abs(float(exact)))
        assert abs(rhs - float(exact)) < 1e-9 * max(1, abs(float(exact)))
        ev[f"case{k}"] = {"V": str(V), "f": str(f), "s0": str(s0), "exact": str(exact), "lhs": float(lhs),
                          "rhs": float(rhs)}
    verdict.verified(method="sym: exact d/ds E f by sympy; hp: lemA1_sides at dps 15", evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("S-lemA.1")
def test_lemA1_ladder_more_families(verdict):
    """As :func:`test_lemA1_ladder` for a quartic and a tilted log-cosh family (about 20 s)."""
    verdict.verified(method="hp: mpmath quad + diff, ladder 15/30/50",
                     evidence=_lemA1_check(["quartic", "tilted-logcosh"]))


def _lema2_tight_sup():
    r"""The supremum of the ratio :math:`\|A_{12}A_{22}^{-1}A_{21}\|/\|A\|` over the tight family
    :math:`A = vv^T + \delta I`, :math:`v = (1, t)`: :math:`A_{12}A_{22}^{-1}A_{21} = t^2/(t^2 + \delta)` and
    :math:`\|A\| = 1 + t^2 + \delta` (the eigenvalues of :math:`vv^T + \delta I` are :math:`|v|^2 + \delta`,
    :math:`\delta`), so the ratio tends to its limit as :math:`\delta \to 0`, then :math:`t \to 0`: derived
    here by sympy, the reference the searches' reach is compared with (never the statement's constant)."""
    t, delta = sympy.symbols("t delta", positive=True)
    ratio = t ** 2 / ((t ** 2 + delta) * (1 + t ** 2 + delta))
    return sympy.limit(sympy.limit(ratio, delta, 0), t, 0)


def _lema2_statement_points(rng) -> list:
    r"""2 x 2 :math:`A = [[a, b], [b, c]]` the check chooses itself (exact rationals): the tight family
    :math:`sc\,(vv^T + \delta I)`, :math:`v = (1, t)`, at scales sc = 1/100, 1, 100 (the ratio near its supremum:
    a lowered constant or a moved exponent of :math:`\|A\|` fails there), the slack A with b = 0 (left side 0), seeded
    random rational A > 0, and indefinite A (det A < 0, a, c > 0: outside the lemma; at (1, 10, 1) and (4, 7/2, 1/5)
    the ratio exceeds 1)."""
    R = sympy.Rational
    pts = []
    for sc in (R(1, 100), R(1), R(100)):
        for t, delta in ((R(1, 10), R(1, 10 ** 4)), (R(1, 100), R(1, 10 ** 8)), (R(1, 2), R(1, 10))):
            pts.append({"a": sc * (1 + delta), "b": sc * t, "c": sc * (t * t + delta)})
        pts.append({"a": 3 * sc, "b": R(0), "c": sc / 7})
    while len(pts) < 24:
        B = random_rational_matrix(rng, 2, 2)
        A = B * B.T + sympy.eye(2) / 9
        pts.append({"a": A[0, 0], "b": A[0, 1], "c": A[1, 1]})
    pts += [{"a": R(1), "b": R(10), "c": R(1)}, {"a": R(1, 3), "b": R(-2), "c": R(5, 2)},
            {"a": R(4), "b": R(7, 2), "c": R(1, 5)}]
    return pts


def _lema2_check_statement(rng) -> dict:
    r"""Lemma A.2 as its statement object (:func:`verify.statements.current`) reads it, at
    :func:`_lema2_statement_points`: wherever the statement's hypotheses admit A (an indefinite A too, when a variant
    drops det A > 0), the statement holds exactly, and its left side equals the check's own exact
    :math:`A_{12}A_{22}^{-1}A_{21}` (sympy). The ratio to :math:`\|A\|` by an independent route (mpmath eigsy, dps
    30) reaches within 1e-3 of the family's supremum :func:`_lema2_tight_sup`: the points are tight enough that a
    lowered constant fails there, and a reversed relation fails at b = 0."""
    st = current("S-lemA.2")
    rows, best = [], 0.0
    for env in _lema2_statement_points(rng):
        A = sympy.Matrix([[env["a"], env["b"]], [env["b"], env["c"]]])
        schur = A[0, 1] * A[1, 1] ** -1 * A[1, 0]
        with mpmath.workdps(30):
            lam = max(mpmath.eigsy(mpmath.matrix(A.tolist()), eigvals_only=True))
            ratio = float(mpmath.mpf(schur.p) / schur.q / lam)
        admitted = hypotheses_hold(st, env)
        if A.is_positive_definite:
            best = max(best, ratio)
        if admitted:
            assert holds("S-lemA.2", env) is True, (env, ratio)
            assert sympy.sympify(sides("S-lemA.2", env)[0]) == schur, env
        rows.append({**{k: str(v) for k, v in env.items()}, "ratio": ratio, "admitted": admitted})
    assert best > float(_lema2_tight_sup()) - 1e-3, best
    return {"points": rows, "max_ratio_pd": best}


@pytest.mark.claim("S-lemA.2")
def test_lemA2_random_adversarial_exact(verdict):
    """|A12 A22^{-1} A21|_op <= |A|_op: random PD matrices, an adversarial search for the ratio, and exact rational
    spot checks of the proof step A12 A22^{-1} A21 <= A11 (Schur complement PSD)."""
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(300):
        N = int(rng.integers(2, 8))
        B = rng.standard_normal((N, N))
        A = B @ B.T + 10.0 ** rng.uniform(-6, 0) * np.eye(N)
        worst = max(worst, ub.schur_ratio(A, int(rng.integers(1, N))))
    # schur_ratio of A = B B^T + 1e-9 I (B 4x4, leading block 2): verify.objectives
    obj = get_objective("S-lemA.2")
    res = adversarial_max(obj.ratio, obj.sampler, n_starts=6, seed=2)
    for _ in range(10):
        B = random_rational_matrix(rng, 4, 4)
        A = B * B.T + sympy.eye(4) / 7
        A11, A12, A22 = A[:2, :2], A[:2, 2:], A[2:, 2:]
        assert (A11 - A12 * A22.inv() * A12.T).is_positive_definite
    # op norms in float64: 1e-12 relative; the lemma's constant from its statement object
    C = float(constants("S-lemA.2")["C"])
    assert worst <= C + 1e-12 and res.best <= C + 1e-12
    # the value against an independent route: exact rational X = A12 A22^{-1} A21 (sympy), op norms by mpmath eigsy
    # at dps 30, for A with unequal eigenvalues (a wrong norm - Frobenius, max entry - changes the value)
    exact_errs = []
    for _ in range(6):
        B = random_rational_matrix(rng, 4, 4)
        A = B * B.T + sympy.eye(4) / 5
        X = A[:2, 2:] * A[2:, 2:].inv() * A[2:, :2]
        with mpmath.workdps(30):
            lx = max(mpmath.eigsy(mpmath.matrix(X.tolist()), eigvals_only=True))
            la = max(mpmath.eigsy(mpmath.matrix(A.tolist()), eigvals_only=True))
            ref = float(lx / la)
        exact_errs.append(abs(ub.schur_ratio(np.array(A.tolist(), dtype=float), 2) - ref))
    assert max(exact_errs) < 1e-12  # float64 solve + op norm of a well-conditioned 4x4: round-off
    # tightness: A = [[I, t D], [t D, t^2 D^2 + delta I]] (D = diag(1, 1/2)) has A12 A22^{-1} A21 = t^2 D^2/(t^2 D^2 +
    # delta), so the ratio -> 1 as delta/t^2 -> 0 and t -> 0; closed form max_i t^2 D_i^2/(t^2 D_i^2 + delta) /
    # lambda_max(A)
    tight = []
    for t, delta in ((1e-2, 1e-8), (1e-3, 1e-12), (0.3, 1e-3)):
        D = np.diag([1.0, 0.5])
        A = np.block([[np.eye(2), t * D], [t * D, t * t * D @ D + delta * np.eye(2)]])
        closed = max(t * t * D[i, i] ** 2 / (t * t * D[i, i] ** 2 + delta) for i in range(2))
        closed /= np.linalg.eigvalsh(A)[-1]
        r = ub.schur_ratio(A, 2)
        assert r == pytest.approx(closed, rel=1e-9)  # condition of A22 up to 1e6: round-off 1e-10
        tight.append(r)
    # the family's supremum (derived, not the statement's constant) is approached: the bound cannot be lowered
    assert max(tight) > _lema2_tight_sup() - 1e-5
    two_by_two = _lema2_check_statement(rng)
    verdict.verified(method="num: random + adversarial; sym: exact Schur complement; hp: mpmath eigsy values",
                     evidence={"random_matrices": 300, "max_ratio_random": worst,
                               **res.evidence("max_ratio_adversarial"), "exact_spot_checks": 10, "seed": 2,
                               "value_vs_mpmath_max_abs_err": max(exact_errs), "tight_family_ratios": tight,
                               "statement_2x2": two_by_two,
                               "note": "ratio approaches 1 (tight, asserted) but never exceeds it"})


# --------------------------------------------------------------------------- Theorem 2.2(2) and Theorem 3.2
def _noncentral_gaussian_moments(c, kmax):
    """Raw moments of N(c, 1): sum_j binom(k, 2j) c^(k-2j) (2j-1)!!."""
    return [sum(math.comb(k, 2 * j) * c ** (k - 2 * j) * math.prod(range(1, 2 * j, 2)) for j in range(k // 2 + 1))
            for k in range(kmax + 1)]


@pytest.mark.claim("S-thm3.2")
def test_thm32_fails_for_noncentred_nu(verdict):
    """Theorem 3.2 as stated (any (K^{-1},K)-strongly log-concave nu, Remark 2.3) assumes no centring, but the proof
    uses E m(y) = E z = 0 'by symmetry of nu' (and E y_i^2 <= K, which is Var y_i <= K only for centred y).
    nu = N(c 1, I_n) has Hessian I (so K = 1, or any K > 1): with d = 1, W = t 1^T and Bernoulli(1/2) masks,
    sup_t Ltilde = a^2/b grows linearly in n, beyond C_3 d for any constant.

    Severity: the failure is exactly the dropped mean. E|E[x|Px]|^2 = |E x|^2 + tr Cov(E[x|Px]) and the centred
    chain bounds the second term, so every failing value obeys sup <= E_b |E x_S|^2 + C_3 d = c^2 p n + C_3 d
    (asserted), and the same instances with c = 0 (same Hessian, same masks) stay below C_3 d (asserted)."""
    c, p = Fraction(1), Fraction(1, 2)
    K = 2  # any K >= 1 is allowed for this nu (Hessian I); Thm 2.2 asks K > 1; C_3(K = 2) = 10
    C3 = ub.thm32_chain(Fraction(1, K), Fraction(K))["total"]  # the proof's constant, from its steps
    assert C3 == ub.thm32_constant(K)
    vals, centred = {}, {}
    for m in (1, 3):
        kap = ub.coordinate_cumulants(None, p, 2 * m, moments=_noncentral_gaussian_moments(c, 2 * m))
        kap0 = ub.coordinate_cumulants(None, p, 2 * m, moments=_noncentral_gaussian_moments(0, 2 * m))
        for n in (4, 12, 48):
            W = np.array([[Fraction(1)] * n], dtype=object)
            a, b = ub.loss_parts(W, kap, m)
            vals[(m, n)] = a * a / b
            a0, b0 = ub.loss_parts(W, kap0, m)
            centred[(m, n)] = a0 * a0 / b0 if a0 > 0 else Fraction(0)
    assert vals[(1, 48)] > C3 * 1 and vals[(3, 48)] > C3 * 1
    assert vals[(1, 48)] / vals[(1, 12)] > 3 and vals[(3, 48)] / vals[(3, 12)] > 3  # linear growth in n
    # only the mean term grows: exact rationals, no tolerance
    assert all(v <= c * c * p * n + C3 * 1 for (m, n), v in vals.items())
    assert all(v <= C3 * 1 for v in centred.values())
    verdict.refuted(
        counterexample={"nu": "N(c*1, I_n), c = 1 (Hessian of V = I, strongly log-concave for every K >= 1)",
                        "mask": "b_i iid Bernoulli(1/2)", "d": 1, "W": "t * (1,...,1), t optimal (eq. 19)",
                        "m": [1, 3], "K": K, "C_3 = K + K^3": C3,
                        "sup_t_Ltilde": {f"m={m},n={n}": str(v) for (m, n), v in vals.items()},
                        "sup_t_Ltilde_float": {f"m={m},n={n}": float(v) for (m, n), v in vals.items()}},
        severity="missing-hypothesis",
        justification={
            "hypothesis": "nu centred, E_nu xi = 0: the proof's last step uses E m(y) = E z = 0 'by symmetry of nu', "
                          "and E y_i^2 <= K is Poincare's Var y_i <= K only when E y_i = 0",
            "repair": "test_thm32_corrected_general_nu and test_thm32_chain_steps_gaussian: with E_nu xi = 0, "
                      "sup_W Ltilde <= (K + K^3) d holds for correlated, asymmetric and non-Gaussian nu and "
                      "non-Bernoulli masks, every step of the chain checked with its own constant; here the same "
                      "instances with c = 0 stay <= C_3 d, and the failing values obey c^2 p n + C_3 d (only the "
                      "mean term |E x|^2 grows)"},
        corrected="Theorem 3.2 holds with C_3 = K + K^3 when nu is centred (E_nu xi = 0, e.g. symmetric as in "
                  "Thm 2.2(2)): sup_W Ltilde <= (K + K^3) d; for any nu, sup_W Ltilde <= E_b|E x_S|^2 + (K + K^3) d",
        method="sym: exact rationals (cumulants of the non-centred coordinates)",
        evidence={"step": "E m(y) = E z = 0 'by symmetry of nu' (end of proof) is not in the hypotheses",
                  "centred_same_instances": {f"m={m},n={n}": float(v) for (m, n), v in centred.items()},
                  "mean_term_bound": "c^2 p n + C_3 d (asserted for every failing value)"})


def _density_curvature_K(mu, points=("-3", "-1", "0", "0.5", "2")):
    """K = max(sup v'', 1/inf v'') with v = -log density, v'' by mpmath.diff at a few points: an independent route
    to the table's strong-log-concavity constant (for Gaussians v'' is constant, so a few points suffice)."""
    dens = get_distribution(mu).density
    with mpmath.workdps(30):
        curv = [mpmath.diff(lambda t: -mpmath.log(dens(t)), mpmath.mpf(x0), 2) for x0 in points]
    return max(max(curv), 1 / min(curv))


@functools.lru_cache(maxsize=None)
def _logcosh(a="1/5"):
    """Non-Gaussian symmetric strongly log-concave mu (v = x^2/2 + a log cosh x, v'' in [1, 1 + a]), moments by
    quadrature."""
    return ub.logcosh_gaussian(sympy.Rational(a), 6)


# (d, n, m, mu, p): d = 2, m = 3, n > d^m = 8 (Thm 2.2's regime); p and n chosen so that neither E|x|^2 = p n mu_2
# nor Thm 3.1's mu_2 p d^m is below C_3 d (the claim is not implied by a trivial bound)
THM22_2_CASES = [(2, 9, 3, "gaussian", 0.7), (2, 9, 3, "gaussian(6/5)", 0.7), (2, 9, 3, "gaussian(5/6)", 1.0),
                 (2, 9, 3, "logcosh", 1.0)]


THM22_2_SLOW = [(2, 12, 3, "gaussian", 1.0), (2, 10, 3, "gaussian(6/5)", 0.8), (2, 10, 3, "logcosh", 1.0),
                (3, 28, 3, "gaussian", 1.0)]


def _thm22_2_check(cases):
    rows = []
    for seed, (d, n, m, mu, p) in enumerate(cases):
        if mu == "logcosh":
            mu, K = _logcosh()
            K = float(K)
            # independent route: v'' of v = x^2/2 + (1/5) log cosh x by mpmath.diff, max at 0, inf at |x| -> oo
            with mpmath.workdps(30):
                v = lambda t: t * t / 2 + mpmath.log(mpmath.cosh(t)) / 5  # noqa: E731
                curv = [mpmath.diff(v, mpmath.mpf(x0), 2) for x0 in (0, "0.5", 2, 40)]
            assert abs(K - float(max(max(curv), 1 / min(curv)))) < 1e-12  # v''(40) = 1 + sech^2(40)/5 ~ 1 + 1e-34
        else:
            K = float(ub.strong_log_concavity_K(mu)[0])
            # the table's K against v'' of the density (mpmath.diff at dps 30: ~20 digits)
            assert abs(K - float(_density_curvature_K(mu))) < 1e-12
        mu2 = float(get_distribution(mu).moment(2))
        C3 = float(ub.thm32_chain(1 / K, K, 1)["total"])
        assert C3 == pytest.approx(float(ub.thm32_constant(K)), rel=1e-15)  # paper's constant = the chain's
        assert float(ub.thm32_bound(d, K)) == pytest.approx(C3 * d, rel=1e-15)
        # hypotheses and regime
        assert n > d ** m
        trivial = {"E|x|^2": p * n * mu2, "thm3.1": mu2 * p * d ** m}
        assert min(trivial.values()) > C3 * d
        vals, best, W = _sup_candidates(d, n, p, m, mu, seed)
        # Ltilde <= C_3 d as the statement object reads it (its exponents; Gaussian: s = mu_2, so v'' = 1/s)
        env = {"m": m, "d": d, "n": n, "p": sympy.nsimplify(p), "s": sympy.nsimplify(mu2), "K": sympy.nsimplify(K)}
        bound = float(sympy.sympify(sides("S-thm2.2-2", env, Ltilde=0)[1]))
        ratio = vals[best] / bound
        assert ratio <= 1 + REL
        assert holds("S-thm2.2-2", env, Ltilde=Fraction(vals[best])) is True
        row = {"d": d, "n": n, "m": m, "mu": str(mu), "p": p, "K": K, "C_3": C3, "sup_found": vals[best],
               "best": best, "ratio_to_C3d": ratio, **{f"trivial_{k}": v for k, v in trivial.items()}}
        if str(mu).startswith("gaussian") and n <= 12:  # the energy sums over all 2^n masks
            # eq. (16) after conditioning on the support, at the maximiser: E_b E|E[x_S|W_S x_S]|^2, which for
            # Sigma = s^2 I is s^2 E_b rank(W_S) (independent closed form); both <= the chain's (K + K^3) d
            # the maximiser has exact degeneracies (zero or parallel columns) only up to L-BFGS noise ~1e-8: singular
            # values of W_S below 1e-5 of the largest (eigenvalues of W_S W_S^T below 1e-10) count as zero in both
            # routes; Ltilde <= E|E[x_S|W_S x_S]|^2 holds at every W, so also at the degenerate limit
            # (entries below 1e-6 of the largest are noise around zero columns: zeroed first)
            Wc = np.where(np.abs(W) < 1e-6 * np.abs(W).max(), 0.0, W)
            pats = ub.sparsity_patterns("bernoulli", n, p=p)
            energy = ub.gaussian_pattern_energy(Wc, mu2 * np.eye(n), pats, rcond=1e-10)
            ranks = 0.0
            for b, pr in zip(*pats):
                sv = np.linalg.svd(Wc[:, np.flatnonzero(b)], compute_uv=False)
                ranks += pr * int(np.sum(sv > 1e-5 * sv[0])) if sv.size and sv[0] > 0 else 0.0
            Lc = exact_loss(Wc, p, m=m, mu=mu)
            assert Lc == pytest.approx(vals[best], rel=1e-6)  # zeroing O(1e-8) entries moves Ltilde by O(1e-8)
            assert energy == pytest.approx(mu2 * ranks, rel=1e-6)  # pinv of the noise-level part: O(1e-8/1e-5)^2
            assert Lc <= energy * (1 + REL) and energy <= bound * (1 + REL)
            row["E_b E|E[x_S|P x_S]|^2"] = energy
        rows.append(row)
    worst = max(rows, key=lambda r: r["ratio_to_C3d"])
    return {"C_3": "K + K^3 (= the proof's chain at alpha = 1/K, beta = K)", "regime": "n > d^m; p n mu_2 > C_3 d "
            "and mu_2 p d^m > C_3 d", "cases": rows, "max_ratio": worst["ratio_to_C3d"],
            "note": "Gaussian: sup <= E|E[x|Px]|^2 <= mu_2 d, so the bound is loose by 1 + K^2 at best; N(0, 1) is "
                    "(1/K, K)-strongly log-concave for every K > 1 (Thm 2.2 asks K > 1): its K = 1 gives the limit "
                    "C_3 = 2, the strongest form of the claim"}


@pytest.mark.claim("S-thm2.2-2")
def test_thm22_2_iid_slc_bound(verdict):
    """Thm 2.2(2): symmetric i.i.d. (1/K, K)-strongly log-concave mu (Gaussian N(0, s^2), K = max(s^2, 1/s^2);
    v = x^2/2 + (1/5) log cosh x, K = 6/5), Bernoulli(p) masks, d = 2, m = 3, n = 9 > d^m: the maximiser (L-BFGS
    from structured candidates) stays below C_3 d with C_3 = K + K^3 taken from the proof's chain; for Gaussians the
    maximiser also sits below eq. (16)'s conditional energy E_b s^2 rank(W_S)."""
    closest = _thm22_2_closest_points()  # first: a wrong statement fails here, before the maximisations
    outside = {mu: ub.strong_log_concavity_K(mu)[1] for mu in ("uniform", "laplace", "rademacher")}
    assert all(ub.strong_log_concavity_K(mu)[0] is None for mu in outside)
    verdict.verified(method="num: L-BFGS maximiser + structured candidates vs (K + K^3) d, n > d^m; the statement "
                            "object where it is closest to tight (m = 1, p = 1, projections, s at both ends of "
                            "[1/K, K])",
                     evidence={**_thm22_2_check(THM22_2_CASES), "outside_hypothesis": outside, "closest": closest})


def _thm22_2_closest_points() -> list:
    r"""The statement object of Thm 2.2(2) where it is closest to tight: m = 1, p = 1, a coordinate projection
    W = [I_d 0] (n = 4) and N(0, s) at both ends of the hypothesis v'' = 1/s in [1/K, K] (s = K and s = 1/K), K from
    6/5 to 3: Ltilde = s d exactly (the Gaussian energy E|E[x|Px]|^2 = s rank P, attained), by the cumulant route
    (not the statement's row polynomial). At s = K the bound is (1 + K^2) times Ltilde and the points span d = 1..3
    and K = 6/5..3, so a bound with a wrong dependence on K or d (one that is smaller there) fails; the maximisers
    of the check's main regime (m = 3) sit far below the bound and would not show it. s = 3K is outside the
    hypothesis: evaluated only when the current statement drops it (there Ltilde = 3K d exceeds (K + K^3) d at
    K = 6/5)."""
    rows = []
    for K in (Fraction(6, 5), Fraction(2), Fraction(3)):
        for s in (K, 1 / K, 3 * K):
            for d in (1, 2, 3):
                if hypotheses_hold(current("S-thm2.2-2"), {"m": 1, "d": d, "n": 4, "p": 1, "s": s, "K": K}) is not True:
                    continue
                W = np.array([[Fraction(int(i == j)) for j in range(4)] for i in range(d)], dtype=object)
                lt = ub.general_loss(W, ub.coordinate_cumulants(f"gaussian({s})", 1, 2), 1)
                assert lt == s * d  # the projection's closed form: s per kept coordinate
                env = {"m": 1, "d": d, "n": 4, "p": 1, "s": s, "K": K, "W": sympy.Matrix(W.tolist())}
                assert holds("S-thm2.2-2", env, Ltilde=lt) is True, env
                rows.append({"K": str(K), "s": str(s), "d": d, "Ltilde": str(lt)})
    return rows


@pytest.mark.slow
@pytest.mark.claim("S-thm2.2-2")
def test_thm22_2_iid_slc_bound_more(verdict):
    """As :func:`test_thm22_2_iid_slc_bound` for n = 10, 12 and d = 3 (n = 28 > 27)."""
    verdict.verified(method="num: L-BFGS maximiser + structured candidates vs (K + K^3) d, n > d^m",
                     evidence=_thm22_2_check(THM22_2_SLOW))


# ---- the corrected Theorem 3.2: centred nu, in its whole generality
def _spectrum_cov(rng, n, K, top=None):
    """Sigma = Q diag(lam) Q^T with lam in [1/K, K], both ends attained (so the Hessian Sigma^{-1} has alpha = 1/K,
    beta = K exactly), Q Haar-random: a correlated, non-product Gaussian nu."""
    lam = np.concatenate([[K, 1 / K], rng.uniform(1 / K, K, n - 2)]) if top is None else np.asarray(top, float)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return Q @ np.diag(lam) @ Q.T, lam


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_thm32_chain_steps_gaussian(verdict):
    """The proof of Thm 3.2 step by step, each step against its own constant (thm32_chain(alpha, beta)), for centred
    correlated Gaussian nu = N(0, Sigma) with Hessian Sigma^{-1} in [alpha, beta] (closed forms):
    Poincare E y_i^2 <= 1/alpha and Var(<u,z>|y) <= 1/alpha; Brascamp-Lieb + Lemma A.2
    |Lzy^T Lzz^{-1} Lzy| <= beta; Lipschitz^2 <= beta/alpha; E|m|^2 <= Lip^2 E|y|^2; total = E|E[x|Px]|^2.
    Two-sided: the Poincare step is attained (P along the top eigenvector), and at K = 10 the Lipschitz step reaches
    (K - 1/K)^2/4 > K (closed form of the 2x2 maximum), so no chain with Lip^2 <= K (C_3 = K + K^2) is valid.
    The paper's C_3 = K + K^3 is the chain's total at alpha = 1/K, beta = K (sympy identity)."""
    Ks = sympy.Symbol("K", positive=True)
    chain = ub.thm32_chain(1 / Ks, Ks)
    assert sympy.expand(chain["total"] - ub.thm32_constant(Ks)) == 0
    assert sympy.expand(chain["total"] - sub.thm32_constant().subs(sub.K, Ks)) == 0
    rng = np.random.default_rng(12)
    worst = {k: 0.0 for k in ("max_var_y", "var_z", "schur", "lipschitz_sq", "Ey2", "Em2", "energy")}
    poincare_tight, n_inst = 0.0, 0
    for K in (1.5, 3.0, 10.0):
        for d, n in ((1, 3), (2, 5), (1, 5)):
            for trial in range(6):
                Sigma, lam = _spectrum_cov(rng, n, K)
                if trial == 0:  # P along the top eigenvectors of Sigma (variance 1/alpha): Poincare attained
                    ev, U = np.linalg.eigh(Sigma)
                    P = U[:, ::-1][:, :d].T
                else:
                    P = np.linalg.qr(rng.standard_normal((n, d)))[0].T
                c = ub.gaussian_conditional_chain(Sigma, P)
                ch = ub.thm32_chain(c["alpha"], c["beta"], d)
                # Hessian range of the constructed nu: [1/K, K] up to eigen-solver round-off
                assert c["alpha"] == pytest.approx(1 / K, rel=1e-10) and c["beta"] == pytest.approx(K, rel=1e-10)
                assert c["energy"] == pytest.approx(c["energy_direct"], rel=1e-10)  # two closed forms, cond <= 100
                ratios = {"max_var_y": c["max_var_y"] / ch["poincare"], "var_z": c["var_z"] / ch["poincare"],
                          "schur": c["schur"] / ch["brascamp_lieb"],
                          "lipschitz_sq": c["lipschitz_sq"] / ch["lipschitz_sq"],
                          "Ey2": c["Ey2"] / ch["Ey2"], "Em2": c["Em2"] / ch["Em2"], "energy": c["energy"] / ch["total"]}
                assert c["Em2"] <= c["lipschitz_sq"] * c["Ey2"] * (1 + REL)  # E|m|^2 <= Lip^2 E|y|^2
                assert max(ratios.values()) <= 1 + REL
                assert ch["total"] <= float(ub.thm32_constant(max(c["beta"], 1 / c["alpha"]))) * d * (1 + REL)
                worst = {k: max(worst[k], ratios[k]) for k in worst}
                if trial == 0:
                    poincare_tight = max(poincare_tight, ratios["max_var_y"])
                n_inst += 1
    assert poincare_tight == pytest.approx(1.0, rel=1e-12)  # Var y_1 = lambda_max(Sigma) = 1/alpha exactly
    # the Lipschitz step at K = 10, n = 2, d = 1: Hessian R diag(K, 1/K) R^T over a grid of rotations
    K = 10.0
    lips, em = [], []
    for th in np.linspace(0, np.pi, 721):
        R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        c = ub.gaussian_conditional_chain(np.linalg.inv(R @ np.diag([K, 1 / K]) @ R.T), np.array([[1.0, 0.0]]))
        lips.append(c["lipschitz_sq"])
        em.append(c["Em2"] / c["Ey2"])
    lip_max = max(lips)
    # grid spacing pi/720 around a smooth maximum: relative error <= 1e-4
    assert lip_max == pytest.approx((K - 1 / K) ** 2 / 4, rel=1e-4)
    assert max(em) == pytest.approx(lip_max, rel=1e-12)  # d = 1: E|m|^2 / E|y|^2 = J^2 exactly
    ch = ub.thm32_chain(1 / K, K)
    assert max(K, 1 / K) < lip_max <= ch["lipschitz_sq"]
    verdict.verified(method="num: closed forms of every step for correlated Gaussian nu; sym: C_3 = chain total",
                     evidence={"instances": n_inst, "K": [1.5, 3.0, 10.0], "max_step_ratio": worst,
                               "poincare_step_attained": poincare_tight,
                               "lipschitz_sq_max_K10": lip_max, "chain_lipschitz_sq_K10": ch["lipschitz_sq"],
                               "closed_form_(K-1/K)^2/4": (K - 1 / K) ** 2 / 4, "seed": 12,
                               "note": "Lipschitz step within a factor ~4 of K^2 at K = 10: the K^3 exponent is "
                                       "needed by the proof's chain"})


@functools.lru_cache(maxsize=None)
def _skew_xi():
    """Asymmetric 1-D strongly log-concave law, centred: v = x^2/2.5 + (1/12) softplus(x)^2 (v'' from 0.8 up to
    about 0.97, skewed), moved to mean 0; central moments by mpmath quadrature."""
    x = sympy.Symbol("x", real=True)
    return ub.centred_slc_1d(x ** 2 / sympy.Rational(5, 2) + sympy.log(1 + sympy.exp(x)) ** 2 / 12, x, 6)


def _slc_linear_image(rng, n, g_lo, g_hi):
    """G = Q1 diag(g) Q2 with singular values in [g_lo, g_hi], both attained: nu = law(G xi) is correlated and not a
    product (for non-Gaussian xi)."""
    g = np.concatenate([[g_lo, g_hi], rng.uniform(g_lo, g_hi, n - 2)])
    Q1 = np.linalg.qr(rng.standard_normal((n, n)))[0]
    Q2 = np.linalg.qr(rng.standard_normal((n, n)))[0]
    return Q1 @ np.diag(g) @ Q2


GAUSS_KAP = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def _general_nu_case(name, rng):
    """(G, cumulants, alpha, beta, patterns, d, m, gaussian?) for each corrected-Thm 3.2 instance."""
    if name.startswith("gauss"):
        K = 1.3
        Sigma, _ = _spectrum_cov(rng, 8, K, top=[K, K, K, K, K, 1.2, 1.1, 1 / K])
        G = np.linalg.cholesky(Sigma)
        ev = np.linalg.eigvalsh(np.linalg.inv(Sigma))
        kap, alpha, beta = GAUSS_KAP, ev[0], ev[-1]
    else:
        xi = _skew_xi()
        G = _slc_linear_image(rng, 8, 0.88, 1.01)
        s = np.linalg.svd(G, compute_uv=False)
        # Hessian of V(x) = sum v((G^{-1} x)_j) is G^{-T} diag(v'') G^{-1}
        kap, alpha, beta = xi["cumulants"], xi["alpha"] / s[0] ** 2, xi["beta"] / s[-1] ** 2
    kind = name.split(":")[1]
    pats = {"fixed": lambda: ub.sparsity_patterns("fixed", 8, k=5),
            "blocks": lambda: ub.sparsity_patterns("blocks", 8, p=0.8, blocks=4),
            "pairs": lambda: ub.sparsity_patterns("one-of-pairs", 8),
            "dense": lambda: ub.sparsity_patterns("fixed", 8, k=8),
            "bernoulli": lambda: ub.sparsity_patterns("bernoulli", 8, p=0.7)}[kind]()
    parts = name.split(":")
    m = int(parts[2]) if len(parts) > 2 else 3
    d = int(parts[3][1:]) if len(parts) > 3 else 1
    return G, kap, float(alpha), float(beta), pats, m, d


def _general_nu_check(names, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for name in names:
        G, kap, alpha, beta, pats, m, d = _general_nu_case(name, rng)
        K = max(beta, 1 / alpha)
        total = ub.thm32_chain(alpha, beta, d)["total"]
        bound = float(ub.thm32_constant(K)) * d
        assert total <= bound * (1 + REL)
        # regime: the trivial bound E|x|^2 = kappa_2 E_b |D_b G|_F^2 exceeds the claimed one
        Ex2 = kap[2] * float(sum(pr * np.sum((b[:, None] * G) ** 2) for b, pr in zip(*pats)))
        assert Ex2 > bound
        cov = kap[2] * G @ G.T
        top = np.linalg.eigh(cov)[1][:, ::-1][:, :d].T
        # starts: the top principal directions, the coordinate directions of largest variance, one random start
        starts = [top, np.eye(8)[np.argsort(np.diag(cov))[::-1][:d]]]
        sup, W = ub.nu_sup_loss(d, G, kap, pats, m, restarts=1, seed=seed, x0=starts)
        a_full, b_full = ub.nu_loss_parts(W, G, kap, pats, m)
        assert 2 * a_full - b_full == pytest.approx(sup, rel=1e-12)  # W is returned optimally scaled (eq. 19)
        # the loss at the maximiser by an independent route, set-partition moments (linear_form_moment), on two of
        # the masks (the route is slow; the masks share the code path)
        A = W.T @ W
        idx = [0, len(pats[1]) // 2]
        a_b = ub.nu_loss_parts(W, G, kap, (pats[0][idx], pats[1][idx]), m)
        Lt = 0.0
        for b, pr in zip(pats[0][idx], pats[1][idx]):
            DG = b[:, None] * G
            for i in range(8):
                Lt += pr * (2 * ub.linear_form_moment(np.array([DG[i]] + [(A @ DG)[i]] * m), kap)
                            - ub.linear_form_moment(np.array([(A @ DG)[i]] * (2 * m)), kap))
        # two float routes (cumulant power sums vs set partitions) of O(1) sums: 1e-10 relative
        assert Lt == pytest.approx(2 * a_b[0] - a_b[1], rel=1e-10, abs=1e-12)
        assert sup <= total * (1 + REL)
        row = {"nu": name, "d": d, "m": m, "alpha": alpha, "beta": beta, "K": K, "chain_total": total, "C_3d": bound,
               "E|x|^2": Ex2, "sup_found": sup, "ratio_to_C3d": sup / bound, "kappa_3": kap[3]}
        if name.startswith("gauss"):
            Sigma = G @ G.T
            energy = ub.gaussian_pattern_energy(W, Sigma, pats)
            per_pattern = 0.0
            for b, pr in zip(*pats):
                S = np.flatnonzero(b)
                if S.size == 0:  # x = 0: contributes 0 to both sides
                    continue
                ev = np.linalg.eigvalsh(np.linalg.inv(Sigma[np.ix_(S, S)]))
                # footnote 3 (i): the marginal's Hessian stays in [alpha, beta] (round-off 1e-10 relative)
                assert ev[0] >= alpha * (1 - 1e-10) and ev[-1] <= beta * (1 + 1e-10)
                per_pattern += pr * ub.thm32_chain(ev[0], ev[-1], min(d, S.size))["total"]
            assert sup <= energy * (1 + REL) and energy <= per_pattern * (1 + REL) and per_pattern <= total * (1 + REL)
            row.update({"E_b E|E[x_S|P x_S]|^2": energy, "E_b chain(alpha_S, beta_S)": per_pattern})
            if m == 1 and name.split(":")[1] == "dense":
                # linear, dense: sup_W Ltilde = sum of the top d eigenvalues of Sigma (projection onto them)
                closed = float(np.sum(np.linalg.eigvalsh(Sigma)[-d:]))
                assert sup == pytest.approx(closed, rel=1e-9)  # L-BFGS gtol 1e-11 on a smooth objective
                row["closed_form_sup"] = closed
        rows.append(row)
    worst = max(rows, key=lambda r: r["ratio_to_C3d"])
    return {"cases": rows, "max_ratio": worst["ratio_to_C3d"], "attained_at": worst["nu"], "seed": seed,
            "regime": "E|x|^2 > (K + K^3) d in every case (asserted)"}


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_thm32_corrected_general_nu(verdict):
    """Corrected Thm 3.2 in its generality (Remark 2.3): centred nu that is correlated and not a product
    (Gaussian N(0, Sigma); law of G xi with xi i.i.d. from an asymmetric, centred, non-Gaussian strongly log-concave
    law), masks that are not Bernoulli (a uniformly random support of fixed size, blocks switched together, exactly
    one of each pair): sup_W Ltilde (L-BFGS, exact gradient, from the top eigenvector, the largest-variance
    coordinate and a random direction) <= thm32_chain(alpha, beta) <= (K + K^3) d, in the regime E|x|^2 > C_3 d; for Gaussian nu also the proof's
    intermediate bounds (eq. 16 per support, footnote 3 (i)); the linear dense case attains lambda_max(Sigma)."""
    ev = _general_nu_check(["gauss:fixed", "gauss:dense:1", "skew:pairs", "skew:blocks"], seed=31)
    verdict.verified(method="num: L-BFGS maximiser vs the proof's chain, centred non-product nu, non-Bernoulli masks",
                     evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("S-thm3.2", corrected=True)
def test_thm32_corrected_general_nu_more(verdict):
    """As :func:`test_thm32_corrected_general_nu` for more (nu, mask, m) combinations and d = 2."""
    ev = _general_nu_check(["gauss:blocks", "gauss:pairs", "gauss:bernoulli", "gauss:fixed:1", "skew:fixed",
                            "skew:dense", "skew:bernoulli", "skew:fixed:1", "gauss:dense:3:d2", "skew:dense:3:d2",
                            "gauss:dense:1:d2"], seed=32)
    verdict.verified(method="num: L-BFGS maximiser vs the proof's chain, centred non-product nu, non-Bernoulli masks",
                     evidence=ev)


# tightness of the corrected constant as a function of K (how far from sharp it is): K d is attained, (K + K^3) d
# is the bound
THM32_TIGHT_K = [Fraction(11, 10), Fraction(13, 10), Fraction(2), Fraction(4), Fraction(10)]


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_thm32_corrected_tightness_in_K(verdict):
    r"""How close the corrected constant is, for every K: nu = N(0, K I_n) is centred and (1/K, K)-strongly
    log-concave (Hessian I/K); with the dense mask (every coordinate on) and m = 1, S-linear gives
    sup_W Ltilde = the sum of the top d eigenvalues of Cov x = K I, i.e. K d, attained by a projection. So the best
    constant C*(K) of the corrected statement satisfies K <= C*(K) <= K + K^3 and the attained fraction of the bound
    is 1/(1 + K^2) exactly (0.37 at K = 1.3, the K of the general-nu search, 0.01 at K = 10). A Gaussian cannot do
    better at any m (sup <= E|E[x|Px]|^2 <= mu_2 d, eq. 16), so closing the gap needs a non-Gaussian nu or a proof
    with a smaller Lipschitz step. Checked at d = 1, 2 (n = 4 > d), the maximiser found by L-BFGS from a random
    start against the closed form, the ratio exactly (rationals) and in float."""
    rows = []
    for K in THM32_TIGHT_K:
        C3 = ub.thm32_constant(K)
        assert C3 == ub.thm32_chain(1 / K, K)["total"]  # the constant is the proof's chain at alpha = 1/K, beta = K
        exact_fraction = K / C3
        assert exact_fraction == 1 / (1 + K ** 2)  # exact rationals
        for d in ((1, 2) if K == Fraction(13, 10) else (2,)):  # d = 2 everywhere (d carries the bound), d = 1 once
            n = 4
            G = np.sqrt(float(K)) * np.eye(n)  # x = G xi, xi ~ N(0, I): Cov x = K I, Hessian of V = I / K
            sup, W = ub.nu_sup_loss(d, G, GAUSS_KAP, ub.sparsity_patterns("fixed", n, k=n), 1, restarts=1,
                                    seed=int(10 * K) + d)
            # L-BFGS at gtol 1e-11 on a smooth, scale-free objective: the optimum K d to ~1e-9 relative
            assert sup == pytest.approx(float(K) * d, rel=1e-9)
            assert sup <= float(C3) * d  # the corrected bound, with room 1 + K^2
            assert sup / (float(C3) * d) == pytest.approx(float(exact_fraction), rel=1e-9)  # as sup above
            rows.append({"K": str(K), "d": d, "sup_attained": sup, "K_d": float(K) * d, "C_3_d": float(C3) * d,
                         "attained_fraction": sup / (float(C3) * d), "1/(1+K^2)": float(exact_fraction)})
    exact = [1 / (1 + K ** 2) for K in THM32_TIGHT_K]
    assert all(a > b for a, b in zip(exact, exact[1:]))  # the gap 1 + K^2 widens with K (exact rationals)
    verdict.verified(method="num: closed-form maximiser (linear, dense, N(0, K I)) vs L-BFGS, exact ratio 1/(1+K^2)",
                     evidence={"tightness": rows, "best_constant_range": "K <= C*(K) <= K + K^3 (centred nu)",
                               "note": "the general-nu search's worst ratio at K = 1.3 (0.37) is this lower end"})


# --------------------------------------------------------------------------- S: defaults and inputs a bug hides in
@pytest.mark.claim("S-thm3.1")
def test_thm31_constant_defaults_to_the_standard_gaussian(verdict):
    r"""Theorem 3.1's constant is :math:`C_2 = \mu_2 = E\xi^2`; called without a law, ``thm31_constant`` uses the
    standard Gaussian (the default of ``thm31_bound`` too), so it is :math:`E Z^2 = 1` for :math:`Z \sim N(0, 1)`
    (sympy.stats), not an error; a non-unit variance 5/3 gives 5/3; and ``thm31_bound(d, p)`` at d = 3, p = 1/7,
    m = 3 is :math:`C_2 p d^m` in exact rationals."""
    import sympy.stats as st

    from verify.numeric import upper_bounds as ub

    z = st.Normal("z", 0, 1)
    assert sympy.Rational(ub.thm31_constant()) == st.E(z ** 2)
    v = sympy.Rational(5, 3)
    assert sympy.Rational(ub.thm31_constant("gaussian(5/3)")) == st.E(st.Normal("y", 0, sympy.sqrt(v)) ** 2) == v
    d, p, m = 3, Fraction(1, 7), 3
    # the package's default bound is its chain's last step at the default law: rank(Sigma) <= dim y = d^m
    # (y = (Wx)^{(x)m}, the proof after eq. 11) times p E Z^2; the check's own value, not the statement's constant
    # (a weaker true statement must not fail here: the statement's verdict is test_thm31_chain_exact's)
    dim_y = len(list(itertools.product(range(d), repeat=m)))
    assert Fraction(str(ub.thm31_bound(d, p))) == dim_y * p * Fraction(str(st.E(z ** 2)))
    verdict.verified(method="thm31_constant() == E Z^2 (sympy.stats); thm31_bound = C_2 p d^m exactly",
                     evidence={"C_2": 1, "C_2(variance 5/3)": "5/3", "bound(d=3,p=1/7,m=3)": "27/7"})


@pytest.mark.claim("S-lemA.3")
def test_lemA3_maximiser_is_reproducible_from_its_seed(verdict):
    r"""``lemA3_maximise(M, Sigma, seed)`` starts L-BFGS at a seeded random C, so its result is reproducible: the
    same seed gives the same maximiser bit for bit. With a singular :math:`\Sigma` (rank 2 of 3, rows of M in its
    range) the maximisers form an affine set :math:`C^* + \{D: D\Sigma = 0\}` and the start's null-space part is
    kept, so two seeds give different C, both with :math:`C\Sigma = M` (stationarity) and the value
    :math:`\operatorname{tr}(M\Sigma^+M^T)` of Lemma A.3 (sympy's exact pinv of the rational inputs)."""
    from verify.numeric import upper_bounds as ub

    B = sympy.Matrix([[2, -1], [1, 3], [3, 2]]) / 3                     # Sigma = B B^T: rank 2, non-unit scale
    Sig = B * B.T
    M = sympy.Matrix([[1, -2], [sympy.Rational(5, 2), 1]]) * B.T          # rows in the range of Sigma
    exact = float((M * Sig.pinv() * M.T).trace())
    Mf, Sf = np.array(M.tolist(), dtype=float), np.array(Sig.tolist(), dtype=float)
    v5, C5 = ub.lemA3_maximise(Mf, Sf, seed=5)
    v5b, C5b = ub.lemA3_maximise(Mf, Sf, seed=5)
    v6, C6 = ub.lemA3_maximise(Mf, Sf, seed=6)
    assert v5 == v5b and np.array_equal(C5, C5b)
    assert np.abs(C5 - C6).max() > 1e-3                              # the seeds' null-space parts differ
    for v, C in ((v5, C5), (v6, C6)):
        # L-BFGS on a concave quadratic with gtol 1e-13: converged to ~1e-10 (condition number of Sigma's range ~10)
        assert v == pytest.approx(exact, rel=1e-9) and np.abs(C @ Sf - Mf).max() < 1e-6
    verdict.verified(method="lemA3_maximise: same seed -> same C; two seeds -> two maximisers with tr(M Sigma^+ M^T)",
                     evidence={"value": exact, "seeds": [5, 6]})


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_coordinate_cumulants_of_given_moments_match_the_series_of_the_log_mgf(verdict):
    r"""``coordinate_cumulants(mu, p, kmax, moments=...)`` refuses a moment list shorter than kmax + 1 with the
    message naming moments and the count it needs (kmax + 1 = 5); with the raw moments of :math:`N(0, 3/2)`
    (non-unit variance) and p = 2/5, the cumulants of :math:`x = \xi b`, :math:`b \sim` Bernoulli(p), are
    :math:`k!\,[t^k]\log(1 + p(e^{3t^2/4} - 1))` (sympy series of the log moment generating function), k <= 6."""
    from verify.numeric import upper_bounds as ub

    _raises(lambda: ub.coordinate_cumulants(None, Fraction(1, 2), 4, moments=[1, 0, 1]),
            "Argument 'moments' must hold at least 5 entries, not 3.")
    v, p = sympy.Rational(3, 2), sympy.Rational(2, 5)
    raw = [sympy.factorial2(k - 1) * v ** (k // 2) if k % 2 == 0 else 0 for k in range(7)]
    raw[0] = 1
    t = sympy.Symbol("t")
    series = sympy.series(sympy.log(1 + p * (sympy.exp(v * t ** 2 / 2) - 1)), t, 0, 7).removeO()
    want = [sympy.factorial(k) * series.coeff(t, k) for k in range(7)]
    got = ub.coordinate_cumulants(None, Fraction(2, 5), 6, moments=[Fraction(str(m)) for m in raw])
    assert [sympy.Rational(g.numerator, g.denominator) for g in got[1:]] == want[1:]
    verdict.verified(method="coordinate_cumulants' refusal names moments and kmax + 1; cumulants == log-mgf series",
                     evidence={"kappa": [str(w) for w in want]})


# --------------------------------------------------------------------------- S: Thm 3.2, a skewed law
def _two_point_law():
    r"""A centred skewed law: :math:`\xi = 2` w.p. 1/3, :math:`-1` w.p. 2/3. Raw moments exact; cumulants from
    the series of the cumulant generating function :math:`\log E e^{t\xi}` (sympy), not from a recursion."""
    t = sympy.Symbol("t")
    vals, probs = (2, -1), (sympy.Rational(1, 3), sympy.Rational(2, 3))
    mom = [sum(q * sympy.Integer(v) ** k for v, q in zip(vals, probs)) for k in range(7)]
    mgf = sum(mom[k] * t ** k / sympy.factorial(k) for k in range(7))      # E e^{t xi} to order 6
    cgf = sympy.series(sympy.log(mgf), t, 0, 7).removeO()
    kap = [sympy.factorial(k) * cgf.coeff(t, k) for k in range(7)]
    return mom, kap


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_nonproduct_loss_gradient_of_a_skewed_law_equals_sympy_moments(verdict):
    r"""The maximiser of :math:`a^2/b` for :math:`x = b\odot(G\xi)` (corrected Thm 3.2 in its generality) follows the
    gradient of :math:`a = \sum_p\pi_p\sum_i E[u_iv_i^3]` and :math:`b = \sum_p\pi_p\sum_i E[v_i^6]`
    (:math:`u = D_bG\xi`, :math:`v = Au`). With a skewed law (:math:`\kappa_3 = 2 \ne 0`, so the
    :math:`10\,(\kappa_3 s_3)^2` term of b matters) the values and every directional derivative
    :math:`E[3uv^2v']`, :math:`E[6v^5v']` (:math:`v' = (D^TW + W^TD)u`) are expanded here as polynomials in
    :math:`\xi` with the law's raw moments (sympy, exact), independent of the cumulant-partition formulas; d = 2,
    n = 2, non-unit rational W and G, three sparsity patterns."""
    from verify.numeric import upper_bounds as ub

    mom, kap = _two_point_law()
    assert mom[1] == 0 and kap[3] == 2 and kap[2] == mom[2] == 2
    xs = sympy.symbols("xi0 xi1")

    def expect(P):
        """E of a polynomial in the i.i.d. xi0, xi1: each monomial's expectation is the product of raw moments."""
        return sum(c * mom[e0] * mom[e1] for (e0, e1), c in P.terms())

    R = sympy.Rational
    W0 = sympy.Matrix([[R(3, 4), R(-1, 2)], [R(1, 3), R(5, 4)]])
    G = sympy.Matrix([[R(6, 5), R(1, 4)], [R(-1, 2), R(4, 5)]])
    pats, probs = [(1, 1), (1, 0), (0, 1)], [R(1, 2), R(1, 4), R(1, 4)]
    A0 = W0.T * W0
    lin = lambda row: sympy.Poly(sum(c * x for c, x in zip(row, xs)), *xs, domain="QQ")   # noqa: E731

    def parts_and_directional(D):
        dA = D.T * W0 + W0.T * D
        a = b = da = db = 0
        for bpat, pr in zip(pats, probs):
            DG = sympy.diag(*bpat) * G                     # u = D_b G xi
            for i in range(2):
                u, v, dv = lin(DG[i, :]), lin((A0 * DG)[i, :]), lin((dA * DG)[i, :])
                v2 = v ** 2
                a += pr * expect(u * v2 * v)
                b += pr * expect(v2 ** 3)
                da += pr * expect(3 * u * v2 * dv)
                db += pr * expect(6 * v2 ** 2 * v * dv)
        return a, b, da, db

    Wf = np.array(W0.tolist(), dtype=float)
    Gf = np.array(G.tolist(), dtype=float)
    a_f, b_f, ga, gb = ub._nu_parts_and_grad(Wf, Gf, [float(k) for k in kap],
                                             (np.array(pats), [float(q) for q in probs]), 3)
    rows = []
    for k in range(2):
        for l in range(2):
            D = sympy.zeros(2, 2)
            D[k, l] = 1
            a, b, da, db = parts_and_directional(D)
            # float64 sums of O(100) products of O(1) rationals: 1e-12 relative
            assert a_f == pytest.approx(float(a), rel=1e-12) and b_f == pytest.approx(float(b), rel=1e-12)
            assert ga[k, l] == pytest.approx(float(da), rel=1e-12, abs=1e-12 * abs(float(a)))
            assert gb[k, l] == pytest.approx(float(db), rel=1e-12, abs=1e-12 * abs(float(b)))
            rows.append({"entry": [k, l], "da": str(da), "db": str(db)})
    verdict.verified(method="sym: gradient of (a, b) for a skewed law vs raw-moment expansion (sympy, exact)",
                     evidence={"kappa": [str(k) for k in kap], "a": str(a), "b": str(b), "directions": rows})
