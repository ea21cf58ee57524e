"""Tests of verify/numeric/perturbation.py and verify/numeric/perturbation_figures.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import perturbation as P
from verify.numeric.perturbation_figures import reproduce_full_F, stretch_comparison

D, K, N, LW, LH, B = 4, 2, 3, 0.7, 0.9, 40.0


@pytest.fixture(scope="module")
def collapsed():
    return P.collapsed_point(D, K, N, LW, LH, seed=3)


@pytest.fixture(scope="module")
def generic():
    rng = np.random.default_rng(0)
    return rng.standard_normal((K, D)), rng.standard_normal((D, K * N))


def test_vec_roundtrip_and_labels():
    X = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(P.unvec(P.vec(X), 3, 4), X)
    assert P.vec(X)[1] == X[1, 0]  # column stacking
    assert np.array_equal(P.labels(2, 2), [[1, 1, 0, 0], [0, 0, 1, 1]])


def test_E_matrix_columns_follow_definition(generic):
    W, H = generic
    E = P.E_matrix(W, H, K, N)
    R = W @ H - P.labels(K, N)
    for i in range(D):
        for k in range(K):
            e = np.zeros((D, K))
            e[i, k] = 1
            assert np.array_equal(E[:, i * K + k], P.vec(e @ R))


def test_hessian_blocks_against_finite_differences(generic):
    W, H = generic
    H0 = np.zeros_like(H)
    Bk = P.hessian_blocks(W, H, B, LW, LH, K, N)
    h = 1e-6
    j = 5
    e = np.zeros(D * K * N)
    e[j] = h
    gp = P.gradients(W, H + P.unvec(e, D, K * N), H0, B, LW, LH, K, N)
    gm = P.gradients(W, H - P.unvec(e, D, K * N), H0, B, LW, LH, K, N)
    # central differences of a cubic polynomial: error ~ h^2 + eps/h ~ 1e-10
    assert np.allclose((gp[0] - gm[0]) / (2 * h), Bk["HH"][:, j], atol=1e-8)
    assert np.allclose((gp[1] - gm[1]) / (2 * h), Bk["HW"][:, j], atol=1e-8)


def test_gradients_vanish_at_collapsed_minimiser(collapsed):
    W, H = collapsed
    gH, gW = P.gradients(W, H, H, B, LW, LH, K, N)
    assert np.max(np.abs(gH)) < 1e-14 and np.max(np.abs(gW)) < 1e-14  # float round-off


def test_operator_matches_dense(generic):
    W, H = generic
    F = P.F_first_order(W, H, B, LW, LH, K, N)
    op = P.F1_operator(W, H, B, LW, LH, K, N)
    v = np.random.default_rng(1).standard_normal(F.shape[0])
    assert np.allclose(op @ v, F @ v, atol=1e-13)
    assert np.allclose(F, F.T, atol=1e-14)


def test_exact_operator_matches_dense(generic):
    W, H = generic
    F = P.F_exact(W, H, B, LW, LH, K, N)
    v = np.random.default_rng(4).standard_normal(F.shape[0])
    assert np.allclose(P.F_exact_operator(W, H, B, LW, LH, K, N) @ v, F @ v, atol=1e-10)  # CG rtol 1e-12


def test_exact_and_first_order_F_agree_to_order_beta_minus_2(generic):
    W, H = generic
    e1 = np.linalg.norm(P.F_exact(W, H, 1e3, LW, LH, K, N) - P.F_first_order(W, H, 1e3, LW, LH, K, N), 2)
    e2 = np.linalg.norm(P.F_exact(W, H, 2e3, LW, LH, K, N) - P.F_first_order(W, H, 2e3, LW, LH, K, N), 2)
    assert 3.5 < e1 / e2 < 4.5  # halving 1/beta quarters the error


def test_structured_spectra_match_dense(collapsed):
    W, H = collapsed
    F = P.F_first_order(W, H, B, LW, LH, K, N)
    dense = np.sort(np.linalg.eigvalsh(P.block(F, 1, 1, D, N)))[::-1]
    assert np.allclose(P.collapsed_block_spectrum(W, H, 1, B, LW, LH, K, N), dense, atol=1e-13)
    sv = np.linalg.svd(P.block(F, 0, 1, D, N), compute_uv=False)
    assert np.allclose(P.collapsed_offdiag_singular_values(W, H, 0, 1, B, LW, K, N), sv, atol=1e-13)
    full = np.sort(np.linalg.eigvalsh(F))[::-1]
    assert np.allclose(P.collapsed_full_spectrum(W, H, B, LW, LH, K, N), full, atol=1e-13)
    assert np.allclose(P.closed_form_Fkk_spectrum(D, K, N, B, LW, LH), dense, atol=1e-13)


def test_structured_spectrum_refuses_noncollapsed_class(generic):
    W, H = generic
    with pytest.raises(VerifyInputError, match="collapsed"):
        P.collapsed_block_spectrum(W, H, 0, B, LW, LH, K, N)


def test_grad_L_derivative_paper_matches_central_difference():
    from verify.numeric.ufm import grad_central_path_loss

    rng = np.random.default_rng(2)
    H, dH = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    h = 1e-6
    fd = (grad_central_path_loss(H + h * dH, LW, LH, 2) - grad_central_path_loss(H - h * dH, LW, LH, 2)) / (2 * h)
    assert np.allclose(P.grad_L_derivative_paper(H, dH, LW, LH, 2, 2), fd, atol=1e-8)  # FD error ~1e-10


def test_lemma_c4_norms_keys_and_bounds(generic):
    _, H = generic
    out = P.lemma_c4_norms(H, LW, K, N)
    assert set(out) == {"13", "14", "15", "16"}
    assert all(v <= b + 1e-12 for v, b in out.values())


def test_fitted_order():
    xs = np.array([1e-1, 1e-2, 1e-3])
    assert P.fitted_order(xs, 3 * xs ** 2) == pytest.approx(2.0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(lam_W=2.0, lam_H=0.6), "lam_W\\*lam_H"),
    (dict(lam_W=0.0, lam_H=0.6), "lam_W"),
    (dict(lam_W=0.5, lam_H=-1.0), "lam_H"),
])
def test_collapsed_point_rejects_bad_hyperparameters(kwargs, match):
    with pytest.raises(VerifyInputError, match=match):
        P.collapsed_point(4, 2, 2, **kwargs)


def test_bad_shapes_and_parameters(generic):
    W, H = generic
    with pytest.raises(VerifyInputError, match="'beta'"):
        P.F_first_order(W, H, 0.0, LW, LH, K, N)
    with pytest.raises(VerifyInputError, match="'W'"):
        P.F_exact(W.T, H, B, LW, LH, K, N)
    with pytest.raises(VerifyInputError, match="'H'"):
        P.Z_star(W, H[:, :-1], LW, K, N)
    with pytest.raises(VerifyInputError, match="d >= K"):
        P.E_matrix(np.zeros((3, 2)), np.zeros((2, 6)), 3, 2)
    with pytest.raises(VerifyInputError, match="'d'"):
        P.closed_form_Fkk_spectrum(2, 2, 3, B, LW, LH)
    with pytest.raises(VerifyInputError, match="'kt'"):
        P.collapsed_offdiag_singular_values(W, H, 0, 0, B, LW, K, N)
    with pytest.raises(VerifyInputError, match="'k'"):
        P.collapsed_offdiag_singular_values(W, H, K, 0, B, LW, K, N)
    with pytest.raises(VerifyInputError, match="'v'"):
        P.unvec(np.ones(5), 2, 3)
    with pytest.raises(VerifyInputError, match="'errs'"):
        P.fitted_order([1.0, 2.0], [1.0])
    with pytest.raises(VerifyInputError, match="positive"):
        P.fitted_order([1.0, 2.0], [1.0, 0.0])


def test_reproduce_full_F_writes_files(tmp_path):
    out = reproduce_full_F(tmp_path, quick=True)
    assert (tmp_path / "fullF_spectrum.png").exists()
    data = json.loads((tmp_path / "fullF_spectrum.json").read_text())
    assert data["per_lam_H"].keys() == out["per_lam_H"].keys()
    assert all(r["offdiag_rank"] == 1 for r in out["per_lam_H"].values())


@pytest.mark.parametrize("which", ["fullF", "fig1"])
def test_each_seeded_figure_writes_the_same_bytes_for_the_same_seed(tmp_path, which):
    """Same seed, same file, byte for byte: the figures' data are drawn from the seed alone (the spectra of F are
    rotation-invariant, so a point drawn from fresh entropy agrees to rounding only, and the file's digits move)."""
    from verify.numeric.perturbation_figures import reproduce_fig1

    run = reproduce_full_F if which == "fullF" else reproduce_fig1
    name = "fullF_spectrum.json" if which == "fullF" else "fig1_Fkk_spectrum.json"
    texts = []
    for i in range(2):
        out = tmp_path / str(i)
        out.mkdir()
        run(out, quick=True, device="cpu", seed=3)
        texts.append((out / name).read_bytes())
    assert texts[0] == texts[1]


def test_stretch_comparison_identity():
    blk = np.array([1.0, 0.9, 0.8])
    out = stretch_comparison(np.repeat(blk, 3), blk, 3)
    assert out["fraction_positions_differing"] == 0 and out["max_abs_difference"] == 0


def test_block_summary_matches_closed_forms_and_exact_F(collapsed):
    """block_summary on F (5) reproduces Thm 5.2's values in range; on the exact F at beta = r it shows full rank
    while F (5) loses K(n-1) ranks (issue 9 item 5)."""
    W, H = collapsed
    s = P.block_summary(P.F_first_order(W, H, B, LW, LH, K, N), D, K, N)
    r, c = np.sqrt(LH / LW), np.sqrt(LH * LW)
    assert s["rank_Fkk"] == D * N and s["rank_Fkkt"] == 1
    assert s["sigma_max_Fkk"] == pytest.approx(1, abs=1e-12) and s["sigma_min_Fkk"] == pytest.approx(1 - r / B, abs=1e-12)
    assert s["sigma_max_Fkkt"] == pytest.approx(2 * LH * (1 - c) / B, rel=1e-10)
    W2, H2 = P.collapsed_point(3, 2, 2, 1e-4, 1.0)
    first = P.block_summary(P.F_first_order(W2, H2, 100.0, 1e-4, 1.0, 2, 2), 3, 2, 2)
    exact = P.block_summary(P.F_exact(W2, H2, 100.0, 1e-4, 1.0, 2, 2), 3, 2, 2)
    assert first["rank_Fkk"] == 4 and exact["rank_Fkk"] == 6 and exact["sigma_min_Fkk"] == pytest.approx(0.5)


def test_block_summary_validates(collapsed):
    W, H = collapsed
    F = P.F_first_order(W, H, B, LW, LH, K, N)
    with pytest.raises(VerifyInputError, match="'kt'"):
        P.block_summary(F, D, K, N, k=1, kt=1)
    with pytest.raises(VerifyInputError, match="'F'"):
        P.block_summary(F[:-1], D, K, N)
    with pytest.raises(VerifyInputError, match="'K'"):
        P.block_summary(F, D * K, 1, N)


def test_loss_hessian_matches_finite_differences_of_grad_L(generic):
    """M(H) = Kn Hess L(H) against central differences of the gradient (7) of verify.numeric.ufm (independent)."""
    from verify.numeric.ufm import grad_central_path_loss

    _, H = generic
    rng = np.random.default_rng(5)
    D = rng.standard_normal(H.shape)
    h = 1e-6  # central difference of a smooth gradient: truncation h^2 ~ 1e-12, rounding eps/h ~ 1e-10
    fd = (grad_central_path_loss(H + h * D, LW, LH, K) - grad_central_path_loss(H - h * D, LW, LH, K)) / (2 * h)
    M = P.loss_hessian(H, LW, LH, K, N)
    assert np.max(np.abs(P.unvec(M @ P.vec(D), D.shape[0], K * N) - K * N * fd)) < 1e-7
    assert np.array_equal(M, M.T)


def test_loss_hessian_gives_exact_F(generic):
    """F (Thm C.1) = (I + M/beta)^{-1} at (W*(H), H), and F (5) = I - M/beta."""
    from verify.numeric.ufm import optimal_W

    _, H = generic
    W = optimal_W(H, LW, K)
    M = P.loss_hessian(H, LW, LH, K, N)
    I = np.eye(M.shape[0])
    assert np.max(np.abs(P.F_exact(W, H, B, LW, LH, K, N) - np.linalg.inv(I + M / B))) < 1e-12  # float64, cond ~ 1
    assert np.max(np.abs(P.F_first_order(W, H, B, LW, LH, K, N) - (I - M / B))) < 1e-12


@pytest.mark.parametrize("lw,lh", [(0.1, 0.1), (2.0, 0.3), (0.5, 2.0)])
def test_sharp_constants_extreme_eigenvalues_attained(lw, lh):
    """kappa_min is the smallest eigenvalue of M at H = 0 and kappa_max the largest at sqrt(lam_W) R kron 1^T;
    both sides of the ratio are used (the ratio is 1 at each attaining point, up to round-off)."""
    c = P.thmC2_sharp_constants(lw, lh, K, N)
    R = np.kron(np.eye(D)[:, :K], np.ones((1, N)))
    e0 = np.linalg.eigvalsh(P.loss_hessian(np.zeros((D, K * N)), lw, lh, K, N))
    e1 = np.linalg.eigvalsh(P.loss_hessian(np.sqrt(lw) * R, lw, lh, K, N))
    assert abs(e0[0] - c["kappa_min"]) < 1e-10 and abs(e1[-1] - c["kappa_max"]) < 1e-10  # float64, O(1/lam_W) sizes
    assert abs(max(P.hessian_extremes_ratio(np.zeros((D, K * N)), lw, lh, K, N),
                   P.hessian_extremes_ratio(np.sqrt(lw) * R, lw, lh, K, N)) - 1) < 1e-10
    assert c["lip"] == max(-c["kappa_min"], c["kappa_max"]) / (K * N) and c["rho"] == -c["kappa_min"]
    assert c["paper_lip"] == 11 * lh / (K * N) and c["loose_lip"] >= c["lip"]


def test_sharp_constants_validate():
    with pytest.raises(VerifyInputError, match="lam_W"):
        P.thmC2_sharp_constants(0.0, 0.1, 2, 2)
    with pytest.raises(VerifyInputError, match="'K'"):
        P.thmC2_sharp_constants(0.1, 0.1, 0, 2)
    with pytest.raises(VerifyInputError, match="lam_H"):
        P.loss_hessian(np.zeros((3, 4)), 0.1, -1.0, 2, 2)


def _collapse_call(which, W, H, tol):
    if tol is None:   # the default tolerance, observed at its own threshold (1e-12: the signatures' default)
        return (P.collapsed_block_spectrum(W, H, 1, B, LW, LH, K, N) if which == "block" else
                P.collapsed_offdiag_singular_values(W, H, 0, 1, B, LW, K, N) if which == "offdiag" else
                P.collapsed_full_spectrum(W, H, B, LW, LH, K, N))
    if which == "block":
        return P.collapsed_block_spectrum(W, H, 1, B, LW, LH, K, N, tol=tol)
    if which == "offdiag":
        return P.collapsed_offdiag_singular_values(W, H, 0, 1, B, LW, K, N, tol=tol)
    return P.collapsed_full_spectrum(W, H, B, LW, LH, K, N, tol=tol)


@pytest.mark.parametrize("which", ["block", "offdiag", "full"])
@pytest.mark.parametrize("scale", [1e-3, 1e3])
@pytest.mark.parametrize("tol", [None, 1e-12, 1e-6])
@pytest.mark.parametrize("factor", [0.75, 1.25])
def test_collapse_check_threshold_is_tol_times_max_of_one_and_the_class_scale(which, scale, tol, factor):
    """A class counts as collapsed when its columns differ by at most ``tol * max(1, max |H^(k)|)``: the spread is put
    just below (0.75x) and just above (1.25x) that threshold in class 1 (column 2 of 3), at class scales 1e-3
    (where the 1 of the max decides) and 1e3 (where the scale decides); above it every collapsed reduction refuses H
    with the message naming H and the class, below it each returns its full spectrum. ``tol`` None: the default,
    not passed, at its own threshold."""
    rng = np.random.default_rng(11)
    W = rng.standard_normal((K, D))
    H = scale * np.kron(rng.standard_normal((D, K)), np.ones((1, N)))
    Hk = H[:, N:2 * N]
    spread = factor * (1e-12 if tol is None else tol) * max(1.0, float(np.max(np.abs(Hk))))
    H[1, N + 2] += spread
    assert np.max(np.abs(H[:, N:2 * N] - H[:, N:N + 1])) == pytest.approx(spread, rel=1e-3)
    if factor > 1:
        with pytest.raises(VerifyInputError, match=r"^Argument 'H' must have class 1 collapsed \(equal columns\)"):
            _collapse_call(which, W, H, tol)
    else:
        out = _collapse_call(which, W, H, tol)
        assert out.shape == ((D * N,) if which != "full" else (D * K * N,)) and np.all(np.isfinite(out))


@pytest.mark.parametrize("xs,errs,shown", [
    ([1.0, 0.0, 2.0], [1.0, 2.0, 3.0], "3 values with minima 0.0, 1.0"),
    ([1.0, -1.0, 2.0], [1.0, 2.0, 3.0], "3 values with minima -1.0, 1.0"),
    ([10.0, 20.0, 30.0], [1.0, 0.0, 3.0], "3 values with minima 10.0, 0.0"),
    ([10.0, 20.0], [5.0, -2.0], "2 values with minima 10.0, -2.0"),
    ([4.0], [1.0], "1 values with minima 4.0, 1.0"),
    ([], [], "0 values with no minima"),
])
def test_fitted_order_refuses_what_has_no_log_log_fit_whole(xs, errs, shown):
    """A non-positive x or error (each side alone), or fewer than two points, has no log-log slope: refused whole,
    the minima shown as they are; the other side: positive values fit (slope of 3 x^2 is 2)."""
    with pytest.raises(VerifyInputError) as err:
        P.fitted_order(xs, errs)
    assert str(err.value) == ("Arguments 'xs' and 'errs' must hold >= 2 positive values each (log-log fit), not "
                              + shown + ".")
    assert P.fitted_order([1e-3, 2e-3], [3e-6, 12e-6]) == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("case", ["random", "zero", "zero-block", "rank-one"])
@pytest.mark.parametrize("rtol", [0.0, 1e-10, 0.3])
def test_block_summary_ranks_against_matrix_rank_at_the_cut(case, rtol):
    """The numerical ranks count singular values strictly above rtol x ||F||_2, on both sides of the cut: a zero F
    (every singular value on the cut, 0 = 0: rank 0), a zero diagonal block, a rank-one diagonal block, a random F
    at non-unit scale; against numpy's SVD of the block sliced here (block (k, kt) is rows k dn.., columns kt dn..)."""
    d, K, n = 3, 2, 2
    dn, N = d * n, d * K * n
    rng = np.random.default_rng(len(case))
    F = np.zeros((N, N)) if case == "zero" else 7.5 * rng.standard_normal((N, N))
    if case == "zero-block":
        F[:dn, :dn] = 0.0
    if case == "rank-one":
        F *= 0.01
        F[:dn, :dn] = 3.0 * np.outer(rng.standard_normal(dn), rng.standard_normal(dn))
    s = P.block_summary(F, d, K, n, 0, 1, rtol=rtol)
    cut = rtol * np.linalg.norm(F, 2)
    for key, B in (("Fkk", F[:dn, :dn]), ("Fkkt", F[:dn, dn:2 * dn])):
        sv = np.linalg.svd(B, compute_uv=False)
        assert s[f"rank_{key}"] == int(np.sum(sv > cut))
        assert s[f"sigma_max_{key}"] == pytest.approx(sv[0], rel=1e-12, abs=0)
    assert s["sigma_min_Fkk"] == pytest.approx(np.linalg.svd(F[:dn, :dn], compute_uv=False)[-1], rel=1e-9, abs=1e-12)
    if case == "zero":
        assert (s["rank_Fkk"], s["rank_Fkkt"], s["sigma_max_Fkk"]) == (0, 0, 0.0)
    if case == "zero-block":
        assert s["rank_Fkk"] == 0 and (s["rank_Fkkt"] == dn or rtol == 0.3)
    if case == "rank-one" and rtol == 1e-10:
        assert s["rank_Fkk"] == 1        # the block's round-off singular values are below the cut
