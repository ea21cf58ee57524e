r"""The unconstrained features model (:mod:`verify.numeric.ufm`) against exact references written here.

References in exact rationals (``flint.fmpq_mat``), from the definitions only: class means and covariances by loops
over the classes, :math:`W^*(H)` by solving the normal equations :math:`W(HH^\top + n\lambda_WI) = YH^\top`,
:math:`\mathcal L(H)` as objective (1) at :math:`W^*`, its gradient by the envelope theorem
(:math:`\nabla\mathcal L(H) = \partial_Hf(W, H)|_{W = W^*(H)} = \frac1{Kn}W^{*\top}(W^*H - Y) + \frac{\lambda_H}{Kn}H`,
since :math:`\partial_Wf = 0` there), :math:`\rho` by mpmath at 50 digits. Inputs: d > 1 and d = 1, K and n from 1,
exact rationals with large denominators, floats and mpmath entries, rank-deficient H (repeated columns), regularisers
from :math:`10^{-6}` to :math:`10^2`.
"""

import mpmath
import numpy as np
from flint import fmpq, fmpq_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import ufm

REF = settings.get_profile("reference")


def q(x) -> fmpq:
    from fractions import Fraction

    f = Fraction(x)
    return fmpq(f.numerator, f.denominator)


def M(A) -> fmpq_mat:
    A = np.asarray(A, dtype=object)
    return fmpq_mat([[q(x) if not isinstance(x, fmpq) else x for x in row] for row in A])


def arr(Mx: fmpq_mat) -> np.ndarray:
    return np.array([[Mx[i, j] for j in range(Mx.ncols())] for i in range(Mx.nrows())], dtype=object)


def Y(K: int, n: int) -> fmpq_mat:
    return fmpq_mat([[1 if j // n == k else 0 for j in range(K * n)] for k in range(K)])


def ref_W(H: fmpq_mat, lw: fmpq, K: int) -> fmpq_mat:
    n = H.ncols() // K
    d = H.nrows()
    G = H * H.transpose() + fmpq_mat([[n * lw if i == j else 0 for j in range(d)] for i in range(d)])
    return Y(K, n) * H.transpose() * G.inv()


def sq(A: fmpq_mat) -> fmpq:
    return sum((A[i, j] ** 2 for i in range(A.nrows()) for j in range(A.ncols())), fmpq(0))


def ref_objective(W, H, lw, lh, K) -> fmpq:
    n = H.ncols() // K
    R = W * H - Y(K, n)
    return sq(R) / (2 * K * n) + lw * sq(W) / (2 * K) + lh * sq(H) / (2 * K * n)


def ref_grad(H, lw, lh, K) -> fmpq_mat:
    n = H.ncols() // K
    W = ref_W(H, lw, K)
    return (W.transpose() * (W * H - Y(K, n))) / (K * n) + H * (lh / (K * n))


@st.composite
def point(draw):
    d, K, n = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ent = st.one_of(st.fractions(-5, 5, max_denominator=10 ** 12), st.integers(-3, 3),
                    st.floats(-4, 4, allow_nan=False).map(lambda v: __import__("fractions").Fraction(v)))
    cols = [[draw(ent) for _ in range(d)] for _ in range(K * n)]
    if draw(st.booleans()) and K * n > 1:   # rank-deficient: a repeated column
        cols[-1] = list(cols[0])
    H = fmpq_mat([[q(cols[j][i]) for j in range(K * n)] for i in range(d)])
    lw = q(draw(st.sampled_from([1e-6, 0.25, 1, 3, 100]) | st.fractions(1, 50, max_denominator=1000)))
    lh = q(draw(st.sampled_from([0, 1e-6, 0.5, 2, 100]) | st.fractions(0, 50, max_denominator=1000)))
    return H, lw, lh, K, n


def flt(A: fmpq_mat) -> np.ndarray:
    return np.array([[int(A[i, j].p) / int(A[i, j].q) for j in range(A.ncols())] for i in range(A.nrows())])


@REF
@given(point())
def test_means_covariances_and_nc1_against_loops(pt):
    H, lw, lh, K, n = pt
    d = H.nrows()
    h = lambda k, i: fmpq_mat([[H[a, k * n + i]] for a in range(d)])  # noqa: E731
    mu = [sum((h(k, i) for i in range(n)), fmpq_mat(d, 1)) / n for k in range(K)]
    mg = sum(mu, fmpq_mat(d, 1)) / K
    SW = sum(((h(k, i) - mu[k]) * (h(k, i) - mu[k]).transpose() for k in range(K) for i in range(n)),
             fmpq_mat(d, d)) / (K * n)
    SB = sum(((m - mg) * (m - mg).transpose() for m in mu), fmpq_mat(d, d)) / K
    SBt = sum((m * m.transpose() for m in mu), fmpq_mat(d, d)) / K
    STt = H * H.transpose() / (K * n)
    He = arr(H)
    c = ufm.covariances(He, K)
    assert (M(c["Sigma_W"]), M(c["Sigma_B"]), M(c["Sigma_B_tilde"]), M(c["Sigma_T_tilde"])) == (SW, SB, SBt, STt)
    means = fmpq_mat([[mu[k][a, 0] for k in range(K)] for a in range(d)])
    assert M(ufm.class_means(He, K)) == means and M(c["Hbar"]) == means
    tb = sum((SB[a, a] for a in range(d)), fmpq(0))
    tw = sum((SW[a, a] for a in range(d)), fmpq(0))
    got = ufm.nc1_tilde(He, K)
    assert got == (tw / tb if tb != 0 else float("inf"))
    # float entries: the same numbers to round-off
    cf = ufm.covariances(flt(H), K)
    np.testing.assert_allclose(cf["Sigma_W"], flt(SW), rtol=1e-9, atol=1e-12 * (1 + np.abs(flt(STt)).max()))


@REF
@given(point())
def test_optimal_W_loss_and_gradient_against_normal_equations(pt):
    H, lw, lh, K, n = pt
    He = arr(H)
    W = ref_W(H, lw, K)
    assert M(ufm.optimal_W(He, lw, K)) == W
    L = ref_objective(W, H, lw, lh, K)
    assert ufm.central_path_loss(He, lw, lh, K) == L
    assert ufm.central_path_loss_direct(He, lw, lh, K) == L
    assert ufm.ufm_objective(arr(W), He, lw, lh, K) == L
    G = ref_grad(H, lw, lh, K)
    assert M(ufm.grad_central_path_loss(He, lw, lh, K)) == G
    # floats and mpmath: the same values to their precision
    Hf, lwf, lhf = flt(H), int(lw.p) / int(lw.q), int(lh.p) / int(lh.q)
    Gf = ufm.grad_central_path_loss(Hf, lwf, lhf, K)
    scale = 1 + np.abs(flt(G)).max() + np.abs(Hf).max() ** 3 / min(lwf, 1) ** 2
    assert np.abs(Gf - flt(G)).max() <= 1e-9 * scale
    with mpmath.workdps(40):
        Hm = np.array([[mpmath.mpf(int(H[i, j].p)) / int(H[i, j].q) for j in range(H.ncols())]
                       for i in range(H.nrows())], dtype=object)
        Lm = ufm.central_path_loss(Hm, mpmath.mpf(int(lw.p)) / int(lw.q), mpmath.mpf(int(lh.p)) / int(lh.q), K)
        assert abs(Lm - mpmath.mpf(int(L.p)) / int(L.q)) <= mpmath.mpf(10) ** -30 * (1 + abs(Lm))


@REF
@given(point(), st.sampled_from([fmpq(1, 10), fmpq(1), fmpq(7, 2), fmpq(10 ** 4)]), st.data())
def test_perturbed_objective_and_stationarity_residual(pt, beta, data):
    H, lw, lh, K, n = pt
    H0 = fmpq_mat([[q(data.draw(st.fractions(-2, 2, max_denominator=100))) for _ in range(H.ncols())]
                   for _ in range(H.nrows())])
    ref = ref_objective(ref_W(H, lw, K), H, lw, lh, K) + beta * sq(H - H0) / (2 * K * n)
    assert ufm.perturbed_objective(arr(H), arr(H0), beta, lw, lh, K) == ref
    res = H - H0 + ref_grad(H, lw, lh, K) * (fmpq(K * n) / beta)
    assert M(ufm.stationarity_residual(arr(H), arr(H0), beta, lw, lh, K)) == res


@REF
@given(st.sampled_from([1e-6, 0.01, 0.5, 1, 4]) | st.floats(1e-4, 10), st.sampled_from([1e-6, 0.01, 0.5, 1, 4])
       | st.floats(1e-4, 10))
def test_collapse_rho_against_mpmath(lw, lh):
    with mpmath.workdps(50):
        c = mpmath.sqrt(mpmath.mpf(lw) * mpmath.mpf(lh))
        ref = (1 - c) * mpmath.sqrt(mpmath.mpf(lw) / mpmath.mpf(lh)) if c < 1 else mpmath.mpf(0)
    got = float(ufm.collapse_rho(lw, lh))
    assert abs(got - float(ref)) <= 1e-13 * (1 + abs(float(ref)))


@REF
@given(st.integers(1, 4), st.integers(0, 3), st.integers(1, 3), st.sampled_from([0.01, 0.3, 0.9]),
       st.sampled_from([0.01, 0.5, 1.0, 3.0]), st.integers(0, 2 ** 32 - 1))
def test_collapsed_minimiser_is_stationary_and_beats_random_points(K, extra, n, lw, lh, seed):
    r"""The collapsed point is a stationary point of (1) (both partial gradients vanish, reference formulas) and
    no random perturbation lowers the objective (Thm 2.2: it is the global minimiser)."""
    d = K + extra
    rng = np.random.default_rng(seed)
    R, _ = np.linalg.qr(rng.standard_normal((d, K)))
    W, H = ufm.collapsed_minimiser(R, lw, lh, n)
    Yf = np.kron(np.eye(K), np.ones((1, n)))
    gW = (W @ H - Yf) @ H.T / (K * n) + lw * W / K
    gH = W.T @ (W @ H - Yf) / (K * n) + lh * H / (K * n)
    assert np.abs(gW).max() <= 1e-12 and np.abs(gH).max() <= 1e-12
    f0 = ufm.ufm_objective(W, H, lw, lh, K)
    for _ in range(5):
        t = 10.0 ** rng.uniform(-3, 0)
        f = ufm.ufm_objective(W + t * rng.standard_normal(W.shape), H + t * rng.standard_normal(H.shape), lw, lh, K)
        assert f >= f0 - 1e-12
