"""Tests of verify/symbolic/perturbation.py."""

from __future__ import annotations

import pytest
import sympy

from verify import VerifyInputError
from verify.symbolic import perturbation as S


def test_commutation_matrix_transposes_vec():
    A = sympy.Matrix(3, 2, sympy.symbols("a:6"))
    assert S.commutation_matrix(3, 2) * S.svec(A) == S.svec(A.T)
    Kmn = S.commutation_matrix(3, 2)
    assert Kmn.T * Kmn == sympy.eye(6)


def test_kron_and_svec():
    A, B = sympy.Matrix([[1, 2]]), sympy.Matrix([[0], [1]])
    assert S.kron(A, B) == sympy.Matrix([[0, 0], [1, 2]])
    assert list(S.svec(sympy.Matrix([[1, 2], [3, 4]]))) == [1, 3, 2, 4]


def test_to_pq_roundtrip():
    e = sympy.sqrt(S.lam_H / S.lam_W) + S.beta
    assert S.to_pq(e) == S.p / S.q + S.beta
    assert sympy.simplify(S.to_lams(S.to_pq(e)) - e) == 0


def test_cayley_frame_is_orthonormal_and_rational():
    R = S.cayley_frame(4, 2, seed=3)
    assert R.T * R == sympy.eye(2)
    assert all(x.is_rational for x in R)


def test_rational_collapsed_point_is_stationary():
    pt = S.rational_collapsed_point(sympy.Rational(1, 2), sympy.Rational(3, 2), S.cayley_frame(3, 2, seed=1), 2)
    W, H, lw, lh = pt["W"], pt["H"], pt["lam_W"], pt["lam_H"]
    Y = S.kron(sympy.eye(2), sympy.ones(1, 2))
    Kn = 4
    gW = (W * H - Y) * H.T / Kn + lw * W / 2
    gH = W.T * (W * H - Y) / Kn + lh * H / Kn
    assert gW == sympy.zeros(2, 3) and gH == sympy.zeros(3, 4)
    assert pt["c"] ** 2 == lw * lh


def test_rational_collapsed_point_rejects_c_outside_0_1():
    with pytest.raises(VerifyInputError, match="a\\*b"):
        S.rational_collapsed_point(2, 1, sympy.eye(3)[:, :2], 2)


def test_collapsed_F_requires_d_greater_than_K():
    with pytest.raises(VerifyInputError, match="'d'"):
        S.collapsed_F(2, 2, 2)
    with pytest.raises(VerifyInputError, match="'d'"):
        S.paper_Fkk_spectrum(2, 3, 2)
    with pytest.raises(VerifyInputError, match="'R'"):
        S.Z_blocks_paper(3, 2, 2, sympy.eye(3), 1, 1, sympy.Rational(1, 2))


STRICT = "Argument 'd' must be an integer > K = {K} (Thm 5.2 assumes d > K), not {d}."
LOOSE = "Argument 'd' must be an integer >= K = {K} (Thm 5.1 assumes d >= K), not {d}."


@pytest.mark.parametrize("call, message, sizes", [
    (lambda d, K: S.collapsed_F(d, K, 2), STRICT, [(2, 2), (2, 3), (1, 5)]),
    (lambda d, K: S.paper_Fkk_spectrum(d, K, 2), STRICT, [(3, 3), (2, 3)]),
    (lambda d, K: S.Z_blocks_paper(d, K, 2, sympy.eye(max(d, 1))[:, :K] if K <= d else sympy.zeros(d, K), 1, 1,
                                   sympy.Rational(1, 2)), LOOSE, [(2, 3), (1, 2)]),
    (lambda d, K: S.radial_loss_curvature(d, K, 2), LOOSE, [(2, 3), (3, 7)]),
], ids=["collapsed_F", "paper_Fkk_spectrum", "Z_blocks_paper", "radial_loss_curvature"])
def test_the_size_relation_is_refused_whole_by_each_theorem(call, message, sizes):
    """Thm 5.2's functions refuse d <= K, Thm 5.1's d < K (d = K allowed), each with the whole message naming the
    theorem; the boundary d = K on both sides."""
    for d, K in sizes:
        with pytest.raises(VerifyInputError) as exc:
            call(d, K)
        assert str(exc.value) == message.format(d=d, K=K)
    if message is LOOSE:
        call(2, 2)           # d = K: Thm 5.1 allows it


def test_spectrum_sizes_and_paper_multiset():
    spec = S.Fkk_spectrum(3, 2, 2)
    assert sum(spec.values()) == 6
    assert S.spectra_equal(spec, S.paper_Fkk_spectrum(3, 2, 2))
    assert not S.spectra_equal(spec, {sympy.Integer(1): 6})


def test_offdiag_block_is_nilpotent_rank_one():
    out = S.Fkk_tilde_singular_values(3, 2, 2)
    assert list(out["eigenvalues"].values()) == [6]  # all eigenvalues 0
    assert sum(m for e, m in out["squared_singular_values"].items() if e != 0) == 1


def test_latex_formulas_registered():
    from verify import latex

    reg = latex._REGISTRY  # only this module's formulas (importing S registered them)
    for name in ("N-D-sigmas", "N-D-eig", "N-thm5.2", "N-D.1-full-F", "N-thmC.2-sharp"):
        assert name in reg
        assert "lambda" in reg[name].latex()


def test_radial_loss_is_the_closed_form():
    """L(s) on the collapsed ray = lam_W/(2(s^2 + lam_W)) + lam_H s^2/2 (the UFM loss (7) minimised over W)."""
    rad = S.radial_loss_curvature()
    s = rad["s"]
    assert sympy.cancel(rad["L"] - (S.lam_W / (2 * (s ** 2 + S.lam_W)) + S.lam_H * s ** 2 / 2)) == 0
    assert sympy.cancel(rad["kappa"] - sympy.diff(rad["L"], s, 2)) == 0


def test_thmC2_sharp_values_at_a_rational_point():
    """At lam_W = 1/4, lam_H = 1/10: Kn Lip = max(39/10, 11/10) = 39/10; region [1/12, 1); map constant at beta = 2 rho."""
    t = S.thmC2_sharp()
    at = {S.lam_W: sympy.Rational(1, 4), S.lam_H: sympy.Rational(1, 10)}
    assert t["lip_Kn"].subs(at) == sympy.Rational(39, 10)
    assert t["rho"].subs(at) == sympy.Rational(39, 10)
    assert t["map_constant"].subs({**at, S.beta: sympy.Rational(39, 5)}) == 2
    assert t["region_c"] == sympy.Interval.Ropen(sympy.Rational(1, 12), 1)


def test_exact_loss_hessian_validates_and_is_symmetric():
    H = sympy.Matrix([[1, 0, 0, 0], [0, 0, 1, 2], [0, 1, 0, 0]]) / 2
    M = S.exact_loss_hessian(H, sympy.Rational(1, 3), sympy.Rational(1, 5), 2, 2)
    assert M == M.T and M.shape == (12, 12)
    with pytest.raises(VerifyInputError, match="'H'"):
        S.exact_loss_hessian(sympy.zeros(3, 3), 1, 1, 2, 2)
