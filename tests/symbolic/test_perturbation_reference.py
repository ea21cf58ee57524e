r"""Exact linear-algebra helpers of paper N's symbolic layer (:mod:`verify.symbolic.perturbation`) against index
formulas written here: :math:`\mathrm{vec}` (column stacking, :math:`\mathrm{vec}(A)_{jm + i} = A_{ij}`), the
Kronecker product (:math:`(A\otimes B)_{(ip+k),(jq+l)} = A_{ij}B_{kl}`), the commutation matrix (a permutation with
:math:`K\,\mathrm{vec}(A) = \mathrm{vec}(A^\top)`), exact orthonormal frames, and the exact collapsed point
(stationarity of objective (1) checked with the partial gradients written here, in rationals).
"""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.symbolic import perturbation as SP

REF = settings.get_profile("reference")


@REF
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_vec_kron_and_commutation(m, n, p, q, data):
    ent = st.fractions(-5, 5, max_denominator=9).map(lambda f: sympy.Rational(f.numerator, f.denominator))
    A = sympy.Matrix(m, n, lambda i, j: data.draw(ent))
    B = sympy.Matrix(p, q, lambda i, j: data.draw(ent))
    v = SP.svec(A)
    assert v.shape == (m * n, 1) and all(v[j * m + i] == A[i, j] for i in range(m) for j in range(n))
    Kr = SP.kron(A, B)
    assert Kr.shape == (m * p, n * q)
    assert all(Kr[i * p + k, j * q + l] == A[i, j] * B[k, l]
               for i in range(m) for j in range(n) for k in range(p) for l in range(q))
    C = SP.commutation_matrix(m, n)
    assert C * v == SP.svec(A.T)
    assert C.T * C == sympy.eye(m * n) and all(x in (0, 1) for x in C)  # a permutation matrix


@REF
@given(st.integers(1, 5), st.data(), st.integers(0, 50))
def test_cayley_frame_is_exactly_orthonormal(d, data, seed):
    K = data.draw(st.integers(1, d))
    R = SP.cayley_frame(d, K, seed)
    assert R.shape == (d, K) and all(x.is_Rational for x in R)
    assert R.T * R == sympy.eye(K)


@REF
@given(st.fractions(sympy.Rational(1, 10), 3, max_denominator=20), st.fractions(sympy.Rational(1, 10), 3,
       max_denominator=20), st.integers(2, 3), st.integers(1, 3), st.integers(0, 20))
def test_rational_collapsed_point_is_stationary(a, b, K, n, seed):
    a, b = sympy.Rational(a.numerator, a.denominator), sympy.Rational(b.numerator, b.denominator)
    if not 0 < a * b < 1:
        return
    R = SP.cayley_frame(K + 1, K, seed)
    pt = SP.rational_collapsed_point(a, b, R, n)
    W, H, lw, lh = pt["W"], pt["H"], pt["lam_W"], pt["lam_H"]
    assert lw == a * (1 - a * b) / b and lh == b * (1 - a * b) / a and pt["c"] == 1 - a * b
    Y = sympy.Matrix(K, K * n, lambda k, j: 1 if j // n == k else 0)
    gW = (W * H - Y) * H.T / (K * n) + lw * W / K          # partial gradients of objective (1)
    gH = W.T * (W * H - Y) / (K * n) + lh * H / (K * n)
    assert gW == sympy.zeros(*W.shape) and gH == sympy.zeros(*H.shape)
