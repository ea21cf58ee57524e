"""The collapsed exact loss of paper S (route "collapsed"): the row polynomial in the full row power sums
P_2k,i = sum_j A_ij^2k is affine in P_2m with the row-free coefficient -kappa_2m(x), so the degree-2m terms are
one whole-matrix sum <S_2m, S_2m> and each row is contracted to degree 2m - 2 only.

Checked: the sympy derivation against an independent one (enumerating the sparsity patterns) and against the
formula issue 42 states for m = 3; the statistics exactly in rationals; the loss against every other route to
1e-13 relative at sizes crossing every chunk and tile threshold and for every law; the route choice."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import verify.numeric._tensor_kernels as TK
import verify.numeric.power_sums as PS
import verify.numeric.superposition_loss as SL
import verify.symbolic.superposition_loss as sym
from verify import VerifyInputError
from verify.numeric import upper_bounds as ub
from verify.numeric.distributions import MomentSequence, get_distribution

LAWS = ["gaussian", "rademacher", "uniform", "laplace", MomentSequence([0, 2, 0, 10, 0, 70, 0, 560, 0, 5000])]
ROUTES = ("gram", "gram_rows", "power_sums", "tensor")


def _fraction_W(rng, d, n, den=7):
    return np.array([[Fraction(int(v), den) for v in row] for row in rng.integers(-6, 7, size=(d, n))], dtype=object)


# --------------------------------------------------------------------------- the derivation
@pytest.mark.parametrize("m", [1, 3, 5])
def test_collapsed_polynomial_equals_enumeration_of_supports(m):
    """g_m summed over rows plus c_m sum_ij A_ij^2m equals brute_force_loss (every sparsity pattern b of n = 3
    features, the polynomial in xi expanded, its monomials replaced by moments): symbolic in p and the mu_k, at
    a rational A with distinct entries of both signs. An error in the collapse (a wrong c_m, a lost term of g_m,
    S_2m taken as T_2m) changes the polynomial."""
    A = sympy.Matrix([[sympy.Rational(3, 2), sympy.Rational(-1, 3), sympy.Rational(1, 5)],
                      [sympy.Rational(-1, 3), sympy.Rational(2, 1), sympy.Rational(1, 2)],
                      [sympy.Rational(1, 5), sympy.Rational(1, 2), sympy.Rational(5, 7)]])
    g, c = sym.collapsed_row_polynomial(m)
    rows = sympy.Integer(0)
    for i in range(3):
        sub = {sym.a: A[i, i], **{sym.S(k): sum(A[i, j] ** k for j in range(3)) for k in range(2, 2 * m - 1, 2)}}
        rows += g.xreplace(sub)
    top = sum(A[i, j] ** (2 * m) for i in range(3) for j in range(3))
    assert sympy.expand(rows + c * top - sym.brute_force_loss(A, m)) == 0


def test_collapsed_polynomial_m3_is_the_cumulant_formula_of_issue_42():
    r"""Issue 42's m = 3 statement, written with the cumulants of x (sympy's Bell polynomials): row term
    :math:`2p\mu_4A_{ii}^3 + 6p^2\mu_2^2A_{ii}(P_1 - A_{ii}^2) - 15\kappa_4\kappa_2P_1P_2 - 15\kappa_2^3P_1^3`,
    whole-matrix term :math:`-\kappa_6\sum_{ij}A_{ij}^6`."""
    g, c = sym.collapsed_row_polynomial(3)
    k2, k4, k6 = (sym.x_cumulant(k) for k in (2, 4, 6))
    a, P1, P2, p, mu = sym.a, sym.S(2), sym.S(4), sym.p, sym.mu
    claimed = (2 * p * mu(4) * a ** 3 + 6 * p ** 2 * mu(2) ** 2 * a * (P1 - a ** 2) - 15 * k4 * k2 * P1 * P2
               - 15 * k2 ** 3 * P1 ** 3)
    assert sympy.expand(g - claimed) == 0 and sympy.expand(c + k6) == 0
    assert k2 == p * mu(2) and sympy.expand(k4 - (p * mu(4) - 3 * p ** 2 * mu(2) ** 2)) == 0


@pytest.mark.parametrize("m", [1, 3, 5, 7])
def test_collapsed_polynomial_shape(m):
    """g_m has no P_2m (the top degree went into c_m) and uses every lower degree; c_m = -kappa_2m(x)."""
    g, c = sym.collapsed_row_polynomial(m)
    assert sym.S(2 * m) not in g.free_symbols
    assert {sym.S(k) for k in range(2, 2 * m - 1, 2)} <= g.free_symbols
    assert sympy.expand(c + sym.x_cumulant(2 * m)) == 0
    assert set(sym.collapsed_row_symbols(m)) >= g.free_symbols


# --------------------------------------------------------------------------- the statistics, exactly
@pytest.mark.parametrize("m", [1, 3, 5])
def test_collapsed_sums_exact_rationals(m, monkeypatch):
    """numpy kernel over Fractions, in several monomial chunks: diag, P_2k (k < m, diagonal included) and
    sum_ij A_ij^2m equal the sums over the explicit A = W^T W exactly."""
    monkeypatch.setattr(PS, "_CHUNK_ENTRIES", 2 * PS.monomial_count(3, 2 * m))     # chunks of two rows
    rng = np.random.default_rng(200 + m)
    W = _fraction_W(rng, 3, 7)
    A = W.T @ W
    cs = PS.collapsed_sums(W, m, kernel="numpy")
    assert list(cs.diag) == [A[i, i] for i in range(7)] and len(cs.P) == m - 1
    for k, Pk in enumerate(cs.P, start=1):
        assert list(Pk) == [sum(A[i, j] ** (2 * k) for j in range(7)) for i in range(7)]
    assert cs.top == sum(A[i, j] ** (2 * m) for i in range(7) for j in range(7))


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("mu", ["gaussian", "laplace"])
def test_collapsed_loss_exact_rationals(m, mu):
    """The collapsed loss over exact rationals (statistics from the numpy kernel over Fractions, the polynomial
    evaluated in sympy rationals) equals the cumulant formula of verify.numeric.upper_bounds (another exact route,
    no row polynomial) exactly; dps = 40 through the route equals it to 35 digits."""
    rng = np.random.default_rng(300 + m)
    W = _fraction_W(rng, 3, 6)
    p = Fraction(1, 7)
    dist = get_distribution(mu)
    exact = ub.general_loss(W, ub.coordinate_cumulants(mu, p, 2 * m), m)
    cs = PS.collapsed_sums(W, m, kernel="numpy")
    g, c = sym.collapsed_row_polynomial(m)
    law = {sym.p: sympy.Rational(1, 7), **{sym.mu(k): dist.moment(k) for k in range(2, 2 * m + 1, 2)}}
    total = sympy.Rational(c.xreplace(law)) * sympy.Rational(cs.top)
    for i in range(6):
        row = {sym.a: sympy.Rational(cs.diag[i]), **{sym.S(2 * k): sympy.Rational(P[i])
                                                     for k, P in enumerate(cs.P, start=1)}}
        total += g.xreplace({**law, **row})
    assert Fraction(int(total.p), int(total.q)) == exact
    v = SL.exact_loss(W, p, m, mu, dps=40, route="collapsed")
    q = Fraction(*mpmath.libmp.to_rational(v._mpf_))
    assert abs(q - exact) <= Fraction(1, 10 ** 35) * abs(exact)


# --------------------------------------------------------------------------- against every route, every size class
# (d, n, m): n = 1; n not a multiple of the 8 lanes; n past one tiled chunk (TILE_BLOCKS x 8 = 256 features) and
# past one partial-sum group (GROUP = 4096); d = 1; S past _TILED_MAX (d = 10, m = 5: the row kernel accumulates)
SIZES = [(3, 1, 3), (1, 9, 3), (4, 7, 1), (5, 257, 3), (3, 4100, 3), (10, 37, 5), (6, 300, 5), (15, 40, 3)]


def _term_scale(W, p, m, mu):
    r"""The size of what the collapsed route sums: :math:`\sum_i |g_m(i)| + |c_m|\sum_{ij}A_{ij}^{2m}` (float64).
    A loss that cancels far below it (m = 1 at tr A ~ ||A||_F^2 / 2) is known by no route to 1e-13 of itself;
    the routes are compared to 1e-13 of the larger of the two."""
    dist = get_distribution(mu)
    cs = PS.collapsed_sums(W, m)
    g, c = SL._collapsed_function(m, "numpy")
    moms = SL._moments_float(dist, m)
    rows = np.broadcast_to(g(p, *moms, cs.diag, *cs.P), cs.diag.shape)
    return float(np.abs(rows).sum() + abs(c(p, *moms)) * cs.top)


@pytest.mark.parametrize("d,n,m", SIZES)
def test_collapsed_agrees_with_every_route(d, n, m):
    """At scale 0.4 (the off-diagonal sums comparable to the diagonal: both halves of the formula matter) and
    p = 0.05: the collapsed loss equals gram, gram_rows, power_sums and tensor to 1e-13 relative (of the loss, or of
    the terms summed where the loss cancels below them), every law."""
    rng = np.random.default_rng(d * 1000 + n + m)
    W = 0.4 * rng.normal(size=(d, n))
    for mu in LAWS:
        ref = SL.exact_loss(W, 0.05, m, mu, route="gram_rows")
        got = SL.exact_loss(W, 0.05, m, mu, route="collapsed")
        scale = max(abs(ref), _term_scale(W, 0.05, m, mu))
        assert scale <= 1e4 * abs(ref)            # the loss is not lost in cancellation (m = 1, n = 7: 1.8e3)
        for route in ROUTES:
            other = SL.exact_loss(W, 0.05, m, mu, route=route)
            assert abs(got - other) <= 1e-13 * scale, (mu, route, got, other)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_collapsed_every_threshold_crossed(m, monkeypatch):
    """Every chunk threshold a few rows (row chunks of the polynomial, the numba partial-sum groups, the numpy
    monomial chunks): numba and numpy kernels equal the gram route to 1e-13 relative, and each other."""
    monkeypatch.setattr(SL, "_ROW_CHUNK", 4)
    monkeypatch.setattr(TK, "GROUP", 3)
    monkeypatch.setattr(PS, "_CHUNK_ENTRIES", 3 * PS.monomial_count(4, 2 * m))
    rng = np.random.default_rng(400 + m)
    W = 0.5 * rng.normal(size=(4, 29))
    dist = get_distribution("uniform")
    ref = SL.exact_loss(W, 0.2, m, dist, route="gram")
    a = SL._collapsed_loss(0.2, m, dist, W, kernel="numba")
    b = SL._collapsed_loss(0.2, m, dist, W, kernel="numpy")
    assert abs(a - ref) <= 1e-13 * abs(ref) and abs(b - ref) <= 1e-13 * abs(ref) and abs(a - b) <= 1e-13 * abs(ref)


def test_collapsed_large_n_against_tensor():
    """n = 2 x 10^5 (several row chunks of the polynomial, many groups), d = 10: the linear-in-n routes agree."""
    W = np.random.default_rng(500).normal(size=(10, 200_000)) / np.sqrt(10)
    a = SL.exact_loss(W, 1e-3, 3, route="collapsed")
    b = SL.exact_loss(W, 1e-3, 3, route="tensor")
    c = SL.exact_loss(W, 1e-3, 3, route="power_sums")
    assert abs(a - b) <= 1e-13 * abs(b) and abs(a - c) <= 1e-13 * abs(b)


# --------------------------------------------------------------------------- the route choice
def test_route_choice():
    """auto takes collapsed for the loss and the gradient where it is cheapest (large n), gram at small n; never
    for the torch caller (tensor=False)."""
    assert PS.choose_route("auto", 10, 10 ** 6, 3, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 10 ** 5, 5, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 50, 3, tensor=True) == "gram"
    assert PS.choose_route("auto", 10, 10 ** 6, 3, grad=True, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 10 ** 6, 3, tensor=False) == "power_sums"
    assert PS.choose_route("auto", 10, 10 ** 6, 3, grad=True, tensor=False) == "power_sums"
    for grad in (False, True):
        costs = PS.route_costs(10, 10 ** 6, 3, grad=grad)
        assert costs["collapsed"] < costs["tensor"]
        assert PS.collapsed_flops(10, 3, grad) < PS.tensor_flops(10, 3, grad)["ours"]


def test_route_choice_without_numba(monkeypatch):
    """Without numba the collapsed route's cost is its numpy line: still below the tensor route's (one pass of
    degree 2m - 2 instead of 2m), and collapsed_sums falls back to the numpy kernel."""
    monkeypatch.setattr(TK, "AVAILABLE", False)
    costs = PS.route_costs(10, 10 ** 6, 3)
    assert costs["collapsed"] < costs["tensor"]
    W = np.random.default_rng(600).normal(size=(3, 11))
    ref = SL.exact_loss(W, 0.3, 3, route="gram")
    assert abs(SL.exact_loss(W, 0.3, 3, route="collapsed") - ref) <= 1e-13 * abs(ref)
    with pytest.raises(VerifyInputError, match="'kernel'"):
        PS.collapsed_sums(W, 3, kernel="numba")
    assert "collapsed" not in PS.route_costs(10, 10 ** 6, 3, grad=True)      # its gradient is numba only
    assert PS.choose_route("auto", 10, 10 ** 6, 3, grad=True, tensor=True) != "collapsed"
    with pytest.raises(VerifyInputError, match="'route'"):
        SL.exact_loss_grad(W, 0.3, 3, route="collapsed")


def test_every_law_is_symmetric_so_the_collapse_applies():
    """The collapse needs odd cumulants zero; the package admits symmetric laws only (an odd moment is refused
    before any route is chosen), so no law reaches the dispatcher that the collapsed route would get wrong."""
    with pytest.raises(VerifyInputError, match="symmetric"):
        SL.exact_loss(np.eye(2), 0.1, 3, [0, 1, 0.5, 3, 0, 15], route="auto")


def test_collapsed_flops_below_the_family_count():
    """The collapsed route's operation count is below the "fewest-flop" count of the tensor family
    (tensor_flops' "bound"): that count bounds a family of methods, not the problem."""
    for d, m in ((10, 3), (10, 5), (15, 3)):
        assert PS.collapsed_flops(d, m) < PS.tensor_flops(d, m)["bound"] < PS.tensor_flops(d, m)["ours"]


# --------------------------------------------------------------------------- the gradient
@pytest.mark.parametrize("d,n,m", SIZES)
def test_collapsed_gradient_agrees_with_every_route(d, n, m):
    """The collapsed gradient (weighted accumulation to degree 2m - 2 only, S^c_2m = 2m c S_2m) equals the
    gram_rows, gram, power_sums and tensor gradients to 1e-12 of the largest entry, two laws."""
    if n > 1000 and m > 1:
        n = 1000                     # the gram routes' gradient at n = 4100: minutes; the kernels' groups are
    rng = np.random.default_rng(d * 7000 + n + m)   # crossed by the threshold test below
    W = 0.4 * rng.normal(size=(d, n))
    for mu in ("gaussian", "laplace"):
        ref = SL.exact_loss_grad(W, 0.05, m, mu, route="gram_rows")
        got = SL.exact_loss_grad(W, 0.05, m, mu, route="collapsed")
        for route in ("gram", "power_sums", "tensor"):
            other = SL.exact_loss_grad(W, 0.05, m, mu, route=route)
            assert np.abs(got - other).max() <= 1e-12 * np.abs(ref).max(), (mu, route)
        assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max(), mu


@pytest.mark.parametrize("m", [1, 3, 5])
def test_collapsed_gradient_exact_and_thresholds(m, monkeypatch):
    """Against the exact rational gradient of verify.symbolic (W with dyadic entries, the chain rule through
    A = W^T W in sympy), with the kernels' partial-sum groups and the row chunks of the derivatives a few rows."""
    monkeypatch.setattr(SL, "_ROW_CHUNK", 3)
    monkeypatch.setattr(TK, "GROUP", 3)
    rng = np.random.default_rng(700 + m)
    W = rng.integers(-4, 5, size=(3, 11)) / 8.0
    p, mu = sympy.Rational(1, 4), get_distribution("uniform")
    exact = sym.grad_expression(sympy.Matrix(W.tolist()).applyfunc(sympy.nsimplify), m)
    law = {sym.p: p, **{sym.mu(k): mu.moment(k) for k in range(2, 2 * m + 1, 2)}}
    ref = np.array(exact.xreplace(law).evalf(30).tolist(), dtype=float)
    got = SL.exact_loss_grad(W, 0.25, m, mu, route="collapsed")
    assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max()


@pytest.mark.skipif(not TK.AVAILABLE, reason="the collapsed gradient runs the numba kernels")
def test_collapsed_gradient_refusals_whole():
    """Each refusal of ``collapsed_grad`` whole: the parameter, what it must be and what was passed (the type of a
    wrong object, the shape and degree that do not match), never a numpy broadcast error."""
    rng = np.random.default_rng(9)
    W, m = rng.normal(size=(3, 7)) * 0.4, 3
    cs = PS.collapsed_sums(W, m, kernel="numba")
    d_a, d_P = rng.normal(size=7), [rng.normal(size=7) for _ in range(m - 1)]
    for wrong in (None, [1.0, 2.0], PS.TensorPowerSums(W, m, kernel="numpy"), cs.S):
        with pytest.raises(VerifyInputError) as info:
            PS.collapsed_grad(W, m, wrong, d_a, d_P, 0.5)
        assert str(info.value) == ("Argument 'cs' must be the CollapsedSums of W (collapsed_sums(W, m)), not "
                                   f"{type(wrong).__name__}.")
    for other in (PS.collapsed_sums(W[:, :5], m, kernel="numba"), PS.collapsed_sums(W, m - 2, kernel="numba")):
        with pytest.raises(VerifyInputError) as info:
            PS.collapsed_grad(W, m, other, d_a, d_P, 0.5)
        assert str(info.value) == (f"Argument 'cs' must be collapsed_sums(W, {m}) of this W of shape (3, 7) (the "
                                   "numba kernel's), not the sums of another W, m or kernel.")
    with pytest.raises(VerifyInputError) as info:
        PS.collapsed_grad(W, m, cs, d_a, d_P[:1], 0.5)
    assert str(info.value) == "Argument 'd_P' must hold m - 1 = 2 derivatives, not 1."
    for wrong in ("x", 3, b"x", None):     # not a list at all: the count it must have, and what was passed
        with pytest.raises(VerifyInputError) as info:
            PS.collapsed_grad(W, m, cs, d_a, wrong, 0.5)
        assert str(info.value) == f"Argument 'd_P' must be a list of m - 1 = 2 derivatives, not {wrong!r}."
