"""Paper N, the UFM, the central path and the flow (secs. 2-4, Apps. A-B): the outputs a user reads.

The formula ``verify latex N-Wstar`` exports is compared with the same expression built from fresh sympy symbols
named as in the paper. The functions behind the claims refuse input outside their hypotheses or shapes (a negative
lam_H for the flow, a column count that is not a multiple of K, a class size that is not a positive integer, zero
solver starts, a reference H0 of another shape or arithmetic, a float among exact entries): each refusal is asserted
by its message, which names the parameter and the range, and the edge of each range is accepted and checked against
the closed form there.
"""

from __future__ import annotations

from fractions import Fraction
import math

import numpy as np
import pytest
import sympy

from proofs_checks._refusals import raises_exactly as _raises


SEED = 1860


# --------------------------------------------------------------------------- validation messages (outputs read)
@pytest.mark.claim("N-thm4.1-nc1", "N-thm4.1-B")
def test_gradient_flow_refuses_a_negative_lam_H(verdict):
    r"""Theorem 4.1's flow (4) assumes :math:`\lambda_H \ge 0`: ``solve_flow`` refuses a negative and a non-finite
    lam_H with a message naming lam_H and the range; the closed end :math:`\lambda_H = 0` is accepted, and the
    dense solution starts at :math:`H_0`."""
    from verify.numeric import central_path as flow

    H0 = np.random.default_rng(SEED).standard_normal((3, 4))           # d = 3, K = 2, n = 2
    for bad in (-0.25, math.inf):
        _raises(lambda: flow.solve_flow(H0, 0.5, bad, 2, 1.0),
                f"Argument 'lam_H' must be a finite real number >= 0, not {bad!r}.")
    sol = flow.solve_flow(H0, 0.5, 0, 2, 0.25)
    assert sol.success and sol.shape == H0.shape
    assert np.array_equal(sol.sol(0.0).reshape(H0.shape), H0)         # the dense output's first node is H0 itself
    verdict.verified(method="solve_flow's refusal names lam_H and [0, inf); lam_H = 0 accepted",
                     evidence={"refused_lam_H": ["-0.25", "inf"]})


@pytest.mark.claim("N-Wstar")
def test_exported_wstar_uses_the_papers_matrix_names(verdict):
    r"""``verify latex N-Wstar`` prints :math:`W^*(H) = YH^\top(HH^\top + n\lambda_W I)^{-1}` (App. A): its LaTeX
    is that of the same expression built from fresh sympy symbols named as in the paper (H, Y, d, K, n,
    :math:`\lambda_W`), so the exported matrix names are the paper's (H, not h)."""
    from sympy import Identity, Inverse, MatrixSymbol

    from verify.latex import get_formula

    d, K, n = (sympy.Symbol(s, integer=True, positive=True) for s in ("d", "K", "n"))
    lw = sympy.Symbol("lambda_W", positive=True)
    H, Y = MatrixSymbol("H", d, K * n), MatrixSymbol("Y", K, K * n)
    paper = Y * H.T * Inverse(H * H.T + n * lw * Identity(d))
    first = get_formula("N-Wstar").expr()[0]
    assert sympy.latex(first.rhs) == sympy.latex(paper)
    verdict.verified(method="exported N-Wstar LaTeX == the paper's W*(H) built from the paper's names",
                     evidence={"latex": sympy.latex(paper)})


@pytest.mark.claim("N-metrics")
def test_nc_metrics_refuses_columns_that_are_not_k_classes(verdict):
    r"""``nc_metrics(H, K)`` reads the paper's :math:`d \times Kn` matrix class by class, so it refuses a column
    count that is not a positive multiple of K (7 columns for K = 3, and 0 columns) naming H, K and the shape. At
    d = 4, K = 3, n = 2 (entries scaled by 2.5) its NC1 is :math:`\frac1K\operatorname{Tr}(\Sigma_W\Sigma_B^+)`,
    computed here from the class means with numpy's pinv."""
    from verify.numeric.nc_metrics import nc_metrics

    for cols in (7, 0):
        _raises(lambda: nc_metrics(np.ones((4, cols)), K=3),
                f"Argument 'H' must have K*n columns (K=3, n >= 1), not shape (4, {cols}).")
    d, K, n = 4, 3, 2
    H = 2.5 * np.random.default_rng(SEED + 4).standard_normal((d, K * n))
    means = H.reshape(d, K, n).mean(axis=2)                           # class k = columns k n .. k n + n - 1
    centred_w = H - np.repeat(means, n, axis=1)
    sw = centred_w @ centred_w.T / (K * n)
    cb = means - means.mean(axis=1, keepdims=True)
    sb = cb @ cb.T / K
    want = np.trace(sw @ np.linalg.pinv(sb)) / K
    # two float64 routes (eigen-projection vs pinv) of a rank-2 4 x 4 problem: rounding only, 1e-9 relative
    assert nc_metrics(H, K=K).nc1 == pytest.approx(want, rel=1e-9)
    verdict.verified(method="nc_metrics' refusal names H and K; NC1 == Tr(Sigma_W Sigma_B^+)/K by pinv",
                     evidence={"nc1": float(want)})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_point_refuses_a_class_size_that_is_not_a_positive_integer(verdict):
    r"""``collapsed_point(d, K, n, lam_W, lam_H)`` (Thm 2.2's collapsed minimiser) refuses n = 0 and n = 2.5 with the
    message naming n and the whole range (an integer >= 1). At d = 4, K = 3, n = 2, :math:`\lambda_W = 0.3`,
    :math:`\lambda_H = 1.2` (so :math:`c = \sqrt{\lambda_W\lambda_H} = 0.6`) the point fits
    :math:`WH = (1 - c)\,Y` with :math:`Y = I_K \otimes 1_n^\top`."""
    from verify.numeric import perturbation as P

    for bad in (0, 2.5):
        _raises(lambda: P.collapsed_point(4, 3, bad, 0.3, 1.2), f"Argument 'n' must be an integer >= 1, not {bad}.")
    W, H = P.collapsed_point(4, 3, 2, 0.3, 1.2, seed=SEED)
    Y = np.kron(np.eye(3), np.ones((1, 2)))
    # float64 products of O(1) entries: rounding only, 1e-12
    assert np.abs(W @ H - (1 - math.sqrt(0.3 * 1.2)) * Y).max() < 1e-12
    verdict.verified(method="collapsed_point's refusal names n and >= 1; W H = (1 - c) Y",
                     evidence={"refused_n": [0, 2.5], "c": math.sqrt(0.36)})


SEED_2 = 1907


# --------------------------------------------------------------------------- paper N
@pytest.mark.claim("N-thm4.1-dT")
def test_flow_traces_refuses_a_negative_lam_H_and_weights_by_exp_2_lam_H_t(verdict):
    r"""``flow_traces`` refuses :math:`\lambda_H < 0` by name (before reading the solution); at the edge
    :math:`\lambda_H = 0` the weighted traces equal the plain ones, and at :math:`\lambda_H = 0.3` they are
    :math:`e^{2\lambda_H t}` times them (Thm 4.1's :math:`T_W, T_B`)."""
    from verify.numeric import central_path as flow

    _raises(lambda: flow.flow_traces(None, [0.0], -0.5, 2), "Argument 'lam_H' must be a finite real number >= 0, "
                                                              "not -0.5.")
    H0 = np.random.default_rng(SEED_2).standard_normal((3, 2 * 3))
    ts = np.linspace(0, 2.0, 5)
    for lh in (0.0, 0.3):
        sol = flow.solve_flow(H0, 0.2, lh, 2, 2.0)
        tr = flow.flow_traces(sol, ts, lh, 2)
        assert np.allclose(tr["T_W"], np.exp(2 * lh * ts) * tr["tr_W"], rtol=1e-14, atol=0)   # float rounding
        assert np.allclose(tr["T_B"], np.exp(2 * lh * ts) * tr["tr_B"], rtol=1e-14, atol=0)
    verdict.verified(method="flow_traces refuses lam_H < 0; T = e^{2 lam_H t} tr at lam_H = 0 and 0.3",
                     evidence={"lam_H": [0.0, 0.3]})


@pytest.mark.claim("N-thm2.2")
def test_solve_ufm_refuses_zero_starts(verdict):
    r"""``solve_ufm`` needs at least one start (``starts >= 1``) and refuses 0 by name; with one start it returns
    one value, the best."""
    from verify.numeric import ufm

    for bad in (0, -1):
        _raises(lambda: ufm.solve_ufm(2, 2, 2, 0.1, 0.2, starts=bad), f"Argument 'starts' must be an integer >= 1, "
                                                                        f"not {bad}.")
    res = ufm.solve_ufm(2, 2, 2, 0.1, 0.2, starts=1, seed=SEED_2)
    assert len(res["values"]) == 1 and res["value"] == res["values"][0]
    verdict.verified(method="solve_ufm refuses starts < 1 by name; one start gives one value",
                     evidence={"value": res["value"]})


@pytest.mark.claim("N-eq8")
def test_perturbed_problem_refuses_H0_of_another_shape_or_arithmetic(verdict):
    r"""The objective of (2) and the residual of (8) compare H with the reference ``H0``: one of another shape is
    refused naming H0 and the shape it must have, and so is a float H0 beside an exact rational H (the exact route
    would otherwise mix float rounding into a rational residual); an exact H0 of the right shape gives the exact
    residual, which vanishes at H = H0 only where the gradient does (here it does not: the value is the gradient
    term, compared with the float route)."""
    from verify.numeric import ufm

    rng = np.random.default_rng(SEED_2)
    H = rng.standard_normal((3, 4))
    msg = "Argument 'H0' must have the shape of H, (3, 4), not (3, 2)."
    _raises(lambda: ufm.perturbed_objective(H, H[:, :2], 2.0, 0.1, 0.2, 2), msg)
    _raises(lambda: ufm.stationarity_residual(H, H[:, :2], 2.0, 0.1, 0.2, 2), msg)
    Hq = np.array([[Fraction(int(v), 4) for v in row] for row in rng.integers(-5, 6, size=(3, 4))], dtype=object)
    exact_msg = "Argument 'H0' must have exact rational entries when H has them (no floats)."
    for fn in (ufm.perturbed_objective, ufm.stationarity_residual):
        _raises(lambda: fn(Hq, Hq.astype(float), Fraction(2), Fraction(1, 10), Fraction(1, 5), 2), exact_msg)
    res = ufm.stationarity_residual(Hq, Hq, Fraction(2), Fraction(1, 10), Fraction(1, 5), 2)
    res_f = ufm.stationarity_residual(Hq.astype(float), Hq.astype(float), 2.0, 0.1, 0.2, 2)
    assert np.allclose(np.array(res, dtype=float), res_f, rtol=1e-12, atol=1e-15)   # float rounding of one solve
    verdict.verified(method="perturbed_objective / stationarity_residual refuse an H0 of another shape or a float "
                            "H0 beside an exact H by name; exact residual == float residual",
                     evidence={"H": [3, 4], "H0": [3, 2]})


@pytest.mark.claim("N-thm2.2")
def test_collapse_rho_refuses_a_nonpositive_lam_W(verdict):
    r""":math:`\rho = (1-c)\sqrt{\lambda_W/\lambda_H}` needs :math:`\lambda_W > 0`: ``collapse_rho`` refuses 0 and a
    negative value naming lam_W and the range; at exact rational inputs it is the exact closed form."""
    from verify.numeric import ufm

    for bad in (0, -1.5):
        _raises(lambda: ufm.collapse_rho(bad, 0.5), f"Argument 'lam_W' must be a finite real number > 0, not {bad}.")
    lw, lh = sympy.Rational(1, 8), sympy.Rational(1, 2)            # c = 1/4, sqrt(lw/lh) = 1/2: rho = 3/8
    assert ufm.collapse_rho(lw, lh) == sympy.Rational(3, 8)
    verdict.verified(method="collapse_rho's refusal names lam_W; exact rho", evidence={"rho": "3/8"})


# --------------------------------------------------------------------------- N: exact arithmetic, optimiser
@pytest.mark.claim("N-L-closed")
def test_exact_central_path_loss_refuses_float_and_bool_entries(verdict):
    r"""The closed form of :math:`\mathcal L(H)` in exact rationals (python-flint) takes Fractions, ints and sympy
    rationals; a float entry (even an exactly representable one, 1/4) or a bool among them is refused, naming H,
    rather than silently converted; the all-rational H gives the exact value of the definition (objective (1) at
    :math:`W^*(H)`, the direct route)."""
    from verify.numeric import ufm

    Fr = Fraction
    H = np.array([[Fr(1, 2), Fr(1, 3), Fr(1, 4), Fr(2)], [Fr(1), Fr(-1, 5), Fr(3, 7), Fr(1, 9)]], dtype=object)
    lw, lh = Fr(1, 2), Fr(1, 3)
    closed = ufm.central_path_loss(H, lw, lh, 2)
    assert closed == ufm.central_path_loss_direct(H, lw, lh, 2)
    for bad, shown in ((0.25, "0.25"), (True, "True"), (np.float64(0.25), repr(np.float64(0.25)))):
        Hb = H.copy()
        Hb[0, 2] = bad
        _raises(lambda: ufm.central_path_loss(Hb, lw, lh, 2),
                f"Argument 'H' must have exact rational entries here, not {shown}.")
    verdict.verified(method="exact: closed form == direct route in fmpq; float/bool entries refused",
                     evidence={"L": str(closed)})
