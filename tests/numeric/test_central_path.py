"""Tests of verify.numeric.central_path: the flow (4), its traces, the mpmath path, input checks."""

import mpmath
import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import central_path as flow
from verify.numeric import ufm


def test_rhs_is_scaled_negative_gradient():
    H = np.random.default_rng(0).standard_normal((3, 6))
    assert np.allclose(flow.flow_rhs(H, 0.5, 0.1, 2), -6 * ufm.grad_central_path_loss(H, 0.5, 0.1, 2), rtol=1e-15)


def test_loss_decreases_along_flow():
    H0 = np.random.default_rng(1).standard_normal((4, 6))
    sol = flow.solve_flow(H0, 0.3, 0.05, 3, 3.0)
    vals = [ufm.central_path_loss(sol.sol(t).reshape(sol.shape), 0.3, 0.05, 3) for t in np.linspace(0, 3, 30)]
    assert np.all(np.diff(vals) < 0)


def test_float_and_mp_paths_agree():
    H0 = np.random.default_rng(2).standard_normal((2, 4))
    Hm = flow.solve_flow_mp(H0, 0.5, 0.1, 2, [0.5], dps=20)[0]
    Hf = flow.solve_flow(H0, 0.5, 0.1, 2, 0.5).sol(0.5).reshape(2, 4)
    assert np.abs(Hm.astype(float) - Hf).max() < 1e-9  # solve_ivp rtol 1e-10


def test_trace_derivatives_match_the_flow():
    H0 = np.random.default_rng(3).standard_normal((3, 6)) + 1.0
    lw, lh, t, h = 0.4, 0.2, 0.7, 1e-4
    sol = flow.solve_flow(H0, lw, lh, 2, 1.0, rtol=1e-12, atol=1e-14)
    tr = flow.flow_traces(sol, [t - h, t + h], lh, 2)
    der = flow.trace_derivatives(sol.sol(t).reshape(sol.shape), lw, lh, 2)
    scale = np.exp(2 * lh * t)
    # central difference: O(h^2) ~ 1e-8 relative
    assert (tr["T_W"][1] - tr["T_W"][0]) / (2 * h) == pytest.approx(scale * der["dT_W"], rel=1e-6)
    assert (tr["T_B"][1] - tr["T_B"][0]) / (2 * h) == pytest.approx(scale * der["dT_B"], rel=1e-6)
    assert der["dT_B"] >= der["dT_B_lower"] > 0


@pytest.mark.parametrize("kw, word", [({"t_end": 0.0}, "'t_end'"), ({"lam_W": -1.0}, "'lam_W'"),
                                      ({"lam_H": -0.5}, "'lam_H'"), ({"K": 4}, "'H0'")])
def test_bad_input(kw, word):
    args = {"H0": np.ones((2, 6)), "lam_W": 0.5, "lam_H": 0.1, "K": 2, "t_end": 1.0, **kw}
    with pytest.raises(VerifyInputError, match=word):
        flow.solve_flow(**args)


def test_flow_traces_rejects_negative_lam_H():
    sol = flow.solve_flow(np.ones((2, 4)) + np.arange(8).reshape(2, 4), 0.5, 0.1, 2, 0.1)
    with pytest.raises(VerifyInputError, match="'lam_H'"):
        flow.flow_traces(sol, [0.0], -1.0, 2)


def test_mp_path_rejects_low_precision():
    with pytest.raises(VerifyInputError, match="'dps'"):
        flow.solve_flow_mp(np.ones((2, 4)), 0.5, 0.1, 2, [0.1], dps=5)
    assert mpmath.mp.dps == 15


def test_flow_from_exact_and_integer_H0_is_the_flow_from_its_floats():
    """H0 given as integers, as Fractions (of Python or numpy integers) or as sympy rationals is integrated from the
    same floats as its float64 copy: the same trajectory, bit for bit."""
    import sympy
    from fractions import Fraction

    H = np.array([[1, 2, -1, 0], [3, -2, 1, 1]])
    want = flow.solve_flow(H.astype(float) / 3, 0.5, 0.3, 2, 0.1)
    for H0 in (np.array([[Fraction(int(v), 3) for v in row] for row in H], dtype=object),
               np.array([[Fraction(v, 3) for v in row] for row in H], dtype=object),
               np.array([[sympy.Rational(int(v), 3) for v in row] for row in H], dtype=object)):
        got = flow.solve_flow(H0, 0.5, 0.3, 2, 0.1)
        assert got.y.dtype == np.float64 and np.array_equal(got.y, want.y) and np.array_equal(got.t, want.t)
    got = flow.solve_flow(H, 0.5, 0.3, 2, 0.1)
    assert np.array_equal(got.y, flow.solve_flow(H.astype(float), 0.5, 0.3, 2, 0.1).y)
