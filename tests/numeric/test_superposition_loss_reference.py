r"""Paper S's exact loss (:mod:`verify.numeric.superposition_loss`) against a textbook reference written here.

The reference: :math:`\tilde L = \sum_i \bigl(2\,\mathbb E[x_i(a_i\cdot x)^m] - \mathbb E[(a_i\cdot x)^{2m}]\bigr)`,
:math:`a_i` the rows of :math:`A = W^\top W`, with :math:`x_j = b_j\xi_j` independent (:math:`b_j` Bernoulli(p),
:math:`\xi_j \sim \mu`). Cumulants add over independent summands, so
:math:`\kappa_k(\sum_{j\ne i}A_{ij}x_j) = \kappa_k(x)\sum_{j\ne i}A_{ij}^k`; moments follow by the cumulant
recursion, and the two expectations by the binomial theorem in :math:`x_i`. No code of the package is used: the
moments of :math:`\mu` are the textbook table, the off-diagonal sums plain numpy (or exact rationals).

Sizes cross the package's blocks at random positions (row blocks and strips of :math:`2^{16}` entries: ``n`` around
256, 257, ... 600), for every route, with ``d > 1``, non-unit scales and variances, exact (``dps``) and float paths.
"""

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import superposition_loss as SL

REF = settings.get_profile("reference")


def mu_moments(name: str, param: Fraction, K: int) -> list:
    r"""Textbook moments :math:`\mu_0..\mu_K` of the symmetric laws (odd ones 0)."""
    out = []
    for k in range(K + 1):
        if k % 2:
            out.append(Fraction(0))
        elif name == "gaussian":       # N(0, s2): (k-1)!! s2^(k/2)
            out.append(Fraction(math.prod(range(k - 1, 0, -2))) * param ** (k // 2))
        elif name == "uniform":        # on [-h, h]: h^k / (k + 1)
            out.append(param ** k / (k + 1))
        elif name == "laplace":        # scale b: k! b^k
            out.append(Fraction(math.factorial(k)) * param ** k)
        else:                          # rademacher
            out.append(Fraction(1))
    return out


def cumulants(mom: list) -> list:
    r"""Cumulants from raw moments: :math:`\kappa_k = m_k - \sum_{j=1}^{k-1}\binom{k-1}{j-1}\kappa_j m_{k-j}`."""
    kap = [0] * len(mom)
    for k in range(1, len(mom)):
        kap[k] = mom[k] - sum(math.comb(k - 1, j - 1) * kap[j] * mom[k - j] for j in range(1, k))
    return kap


def moments_from_cumulants(kap: list) -> list:
    mom = [1] + [0] * (len(kap) - 1)
    for k in range(1, len(kap)):
        mom[k] = sum(math.comb(k - 1, j - 1) * kap[j] * mom[k - j] for j in range(1, k + 1))
    return mom


def reference_loss(A, p, m: int, mu: tuple):
    """The loss from the rows of ``A`` (object array of Fractions for exact, float array for float)."""
    A = np.asarray(A)
    n = A.shape[0]
    exact = A.dtype == object
    mom_mu = mu_moments(*mu, 2 * m + 1)
    mx = [Fraction(1)] + [p * v for v in mom_mu[1:]]          # moments of x_j = b_j xi_j
    if not exact:
        mx = [float(v) for v in mx]
    kx = cumulants(mx)
    total = 0
    for i in range(n):
        row = [A[i, j] for j in range(n) if j != i]
        kap = [0] + [kx[k] * sum(a ** k for a in row) if kx[k] != 0 else 0 for k in range(1, 2 * m + 1)]
        ms = moments_from_cumulants(kap)                     # moments of sum_{j != i} A_ij x_j
        a = A[i, i]
        e1 = sum(math.comb(m, l) * a ** l * mx[l + 1] * ms[m - l] for l in range(m + 1))
        e2 = sum(math.comb(2 * m, l) * a ** l * mx[l] * ms[2 * m - l] for l in range(2 * m + 1))
        total += 2 * e1 - e2
    return total


def abs_scale(A, p, m, mu) -> float:
    """A magnitude for relative tolerances: the reference loss of |A| with the absolute moments (no cancellation)."""
    return float(abs(reference_loss(np.abs(np.asarray(A, dtype=float)), float(p), m, mu))) + \
        float(np.sum(np.abs(A)) ** (2 * m)) * 1e-300 + 1e-300


MUS = st.one_of(st.tuples(st.just("gaussian"), st.sampled_from([Fraction(1), Fraction(1, 4), Fraction(9, 2)])),
                st.tuples(st.just("uniform"), st.sampled_from([Fraction(1), Fraction(3, 2)])),
                st.tuples(st.just("laplace"), st.sampled_from([Fraction(1), Fraction(1, 3)])),
                st.tuples(st.just("rademacher"), st.just(Fraction(1))))
PS = st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(1, 100), Fraction(7, 8)])


def mu_arg(mu: tuple) -> str:
    name, param = mu
    return name if name == "rademacher" else f"{name}({param})"


@settings(REF, max_examples=max(4, REF.max_examples // 2))  # exact rational reference per example
@given(st.integers(1, 4), st.integers(1, 5), st.sampled_from([1, 3, 5]), PS, MUS,
       st.sampled_from(["auto", "gram", "gram_rows", "power_sums", "tensor"]), st.data())
def test_exact_loss_small_exact_against_reference(d, n, m, p, mu, route, data):
    """Small ``W`` with dyadic entries (exact in float64): every route and the mpmath path against the exact
    rational reference."""
    W = np.array([[data.draw(st.integers(-8, 8)) / 4 * data.draw(st.sampled_from([1, 3, 0.25]))
                   for _ in range(n)] for _ in range(d)], dtype=float)
    Aq = np.array([[sum(Fraction(W[k, i]) * Fraction(W[k, j]) for k in range(d)) for j in range(n)]
                   for i in range(n)], dtype=object)
    ref = reference_loss(Aq, p, m, mu)
    scale = abs_scale(Aq.astype(float), p, m, mu)
    got = SL.exact_loss(W, float(p), m, mu_arg(mu), route=route)
    assert abs(got - float(ref)) <= 1e-12 * scale
    got_mp = SL.exact_loss(W, p, m, mu_arg(mu), dps=40, route=route if route != "gram_rows" else "gram")
    sign, man, exp, _ = got_mp._mpf_  # the mpf's exact binary value
    got_q = (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    assert abs(got_q - ref) <= Fraction(1, 10 ** 30) * Fraction(scale)
    got_A = SL.exact_loss_from_A(Aq.astype(float), float(p), m, mu_arg(mu))
    assert abs(got_A - float(ref)) <= 1e-12 * scale


@settings(REF, max_examples=max(3, REF.max_examples // 5))  # n up to 600: O(n^2 m) reference per example
@given(st.sampled_from([255, 256, 257, 263, 300, 512, 513, 600]), st.integers(2, 5), st.sampled_from([1, 3]), PS,
       MUS, st.sampled_from(["gram", "gram_rows", "power_sums", "tensor", "auto"]),
       st.sampled_from([1.0, 1e-3, 40.0]), st.integers(0, 2 ** 32 - 1))
def test_exact_loss_across_block_boundaries(n, d, m, p, mu, route, scale, seed):
    r"""``n`` at, below and above the row-block and strip sizes (:math:`2^{16}/n` rows per block: one block at
    n <= 256, two or more above), float reference with numpy's off-diagonal sums."""
    rng = np.random.default_rng(seed)
    W = scale * rng.standard_normal((d, n)) / math.sqrt(n)
    A = W.T @ W
    ref = reference_loss(A, p, m, mu)
    got = SL.exact_loss(W, float(p), m, mu_arg(mu), route=route)
    assert abs(got - ref) <= 1e-9 * abs_scale(A, p, m, mu)


@settings(REF, max_examples=max(4, REF.max_examples // 2))  # exact rational reference per example
@given(st.integers(1, 3), st.integers(1, 4), st.sampled_from([1, 3]), PS, MUS,
       st.sampled_from(["auto", "gram", "power_sums", "tensor"]), st.data())
def test_exact_loss_grad_is_the_derivative_of_the_reference(d, n, m, p, mu, route, data):
    r""":math:`\langle\nabla\tilde L, D\rangle = \frac{d}{dt}\tilde L(W + tD)|_0`: the loss along the line is a
    polynomial of degree :math:`\le 4m` in t, so its exact values at :math:`4m + 1` points give the derivative."""
    ent = st.integers(-6, 6).map(lambda v: Fraction(v, 4))
    W = [[data.draw(ent) for _ in range(n)] for _ in range(d)]
    D = [[data.draw(ent) for _ in range(n)] for _ in range(d)]
    ts = list(range(-2 * m, 2 * m + 1))

    def loss_at(t):
        Wt = [[W[k][j] + t * D[k][j] for j in range(n)] for k in range(d)]
        A = np.array([[sum(Wt[k][i] * Wt[k][j] for k in range(d)) for j in range(n)] for i in range(n)], dtype=object)
        return reference_loss(A, p, m, mu)

    vals = [loss_at(t) for t in ts]
    # derivative at 0 of the Lagrange interpolant through (t, L(t))
    deriv = Fraction(0)
    for i, ti in enumerate(ts):
        others = [tj for tj in ts if tj != ti]
        denom = math.prod(ti - tj for tj in others)
        # d/dt prod_{j}(t - t_j) at 0 = sum_k prod_{j != k}(-t_j)
        num = sum(math.prod(-tj for tj in others if tj != tk) for tk in others)
        deriv += vals[i] * Fraction(num, denom)
    G = SL.exact_loss_grad(np.array(W, dtype=float), float(p), m, mu_arg(mu), route=route)
    got = sum(G[k, j] * float(D[k][j]) for k in range(d) for j in range(n))
    scale = sum(abs(G[k, j]) * abs(float(D[k][j])) for k in range(d) for j in range(n)) + 1.0
    assert abs(got - float(deriv)) <= 1e-10 * scale
    # the finite-difference direction the other way: a wrong sign or factor 2 in G breaks this too
    assert G.shape == (d, n)


@REF
@given(st.sampled_from([1, 2, 200, 256, 257, 300, 520]), st.sampled_from([1, 2, 3, 5]), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([1.0, 1e-2, 30.0]))
def test_power_sums_against_numpy(n, m, seed, scale):
    """Diagonal and off-diagonal even power sums for every l <= m (any m, odd or even), across the row blocks."""
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((n, n))
    A = (X + X.T) / 2
    diag, T = SL.power_sums(A, m)
    assert np.array_equal(diag, np.diag(A)) and len(T) == m
    off = A - np.diag(np.diag(A))
    for l, t in enumerate(T, start=1):
        ref = (off ** (2 * l)).sum(axis=1)
        np.testing.assert_allclose(t, ref, rtol=1e-12, atol=0)
