"""Paper N, the UFM, the central path and the flow (secs. 2-4, Apps. A-B): every route to a claim's quantity, agreeing.

The claimed quantities have second implementations, each checked here against a route that shares none of its
code. The NC metrics are computed by a streaming accumulator that accepts numpy arrays and torch tensors, in any
batch order. The closed forms of the central path (:mod:`verify.numeric.ufm`, :mod:`verify.numeric.central_path`)
are written once and evaluated in the arithmetic the entries of ``H`` select: float64 arrays, object arrays of exact
rationals (``flint.fmpq``, ``Fraction``, sympy ``Rational`` or integers, converted entry by entry) and object arrays
of ``mpmath.mpf``. A user reaches every one of them with the claim's own inputs, so each claim's quantity is computed
here by all of them at one rational point: the exact route with mixed entry types equals the exact route with
Fractions exactly, mpmath at 30 digits equals it to 25 digits, float64 to 1e-12; then the claim's statement is
asserted on the exact value, both sides where it is a bound.

The inputs a user or the search passes and the other checks leave unrun are run too (:mod:`verify.route_map`
measures, per claim, the branch coverage of the package functions its checks execute): the default frame and
rational hyper-parameters of the collapsed point at n = 1, the solver routes of (2) at an exact collapsed minimiser,
the starts of the hypothesis-dropped searches where their ratio is undefined - each against an independent route
(dense eigenvalues, the exact minimiser, numpy's condition number).

The streaming and torch routes run at d > 1, K > 2 and non-unit scales; the points of the three arithmetics have
d > K, non-unit scales and non-zero class means; so a dropped scale or a wrong exponent shows.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy

from verify.numeric import ufm

from proofs_checks.N._routes import _as_fractions, _collapsed, _Draws, _frac, _like, _mixed, _point, ladder


SEED = 1802


def _metrics_by_definition(H: np.ndarray, K: int, W: np.ndarray) -> dict:
    r"""The paper's definitions transcribed directly (dense pinv, no shifted sums, no class-mean basis):
    :math:`NC_1 = \operatorname{Tr}(\Sigma_W\Sigma_B^\dagger)/K`, :math:`\widetilde{NC}_1 = \operatorname{Tr}\Sigma_W /
    \operatorname{Tr}\Sigma_B`."""
    d, N = H.shape
    n = N // K
    means = H.reshape(d, K, n).mean(axis=2)
    Hc = H - np.repeat(means, n, axis=1)
    Mc = means - means.mean(axis=1, keepdims=True)
    SW, SB = Hc @ Hc.T / N, Mc @ Mc.T / K
    return {"nc1": float(np.trace(SW @ np.linalg.pinv(SB)) / K), "nc1_tilde": float(np.trace(SW) / np.trace(SB))}


@pytest.mark.claim("N-metrics")
def test_nc_metrics_torch_and_streaming_equal_numpy(verdict):
    r"""The NC metrics of one features set by four routes - numpy in the paper's layout, torch float64 tensors,
    features ``(N, d)`` with shuffled labels in 7 uneven batches of :class:`NCAccumulator`, and torch batches -
    equal each other and the paper's definitions transcribed directly (d = 5, K = 3, n = 8, scale 3.7)."""
    torch = pytest.importorskip("torch")
    from verify.numeric.nc_metrics import NCAccumulator, nc_metrics

    rng = np.random.default_rng(SEED)
    d, K, n = 5, 3, 8
    means = 3.7 * rng.standard_normal((d, K))
    H = np.repeat(means, n, axis=1) + 0.9 * rng.standard_normal((d, K * n))
    W = rng.standard_normal((K, d))
    ref = nc_metrics(H, K=K, W=W)
    want = _metrics_by_definition(H, K, W)
    # dense pinv vs the class-mean basis: float64 round-off of K x K systems with condition < 1e3
    assert abs(ref.nc1 - want["nc1"]) <= 1e-12 * want["nc1"] and abs(ref.nc1_tilde - want["nc1_tilde"]) <= 1e-12 * want["nc1_tilde"]
    routes = {"torch": nc_metrics(torch.as_tensor(H), K=K, W=torch.as_tensor(W))}
    perm = rng.permutation(K * n)
    feats, labels = H.T[perm], np.repeat(np.arange(K), n)[perm]
    cuts = [0, 1, 4, 5, 11, 12, 20, K * n]   # 7 uneven batches, one of a single sample
    acc, acc_t = NCAccumulator(d, K), NCAccumulator(d, K)
    for a, b in zip(cuts, cuts[1:]):
        acc.update(feats[a:b], labels[a:b])
        acc_t.update(torch.as_tensor(feats[a:b]), torch.as_tensor(labels[a:b]))
    routes["streamed"], routes["streamed_torch"] = acc.result(W=W), acc_t.result(W=torch.as_tensor(W))
    routes["labels_torch"] = nc_metrics(torch.as_tensor(feats), labels=torch.as_tensor(labels), W=W)
    pooled = NCAccumulator(d, K, per_class=False)                 # the pooled-syrk path (no per-class sums)
    pooled.update(feats, labels)
    pooled = pooled.result(W=W)
    for key in ("nc1", "nc1_tilde", "nc2", "nc3"):
        assert abs(getattr(pooled, key) - getattr(ref, key)) <= 1e-12 * max(1.0, abs(getattr(ref, key))), key
    rows = {}
    for name, got in routes.items():
        # the same sums in another order: 1e-12 relative (round-off of O(100) float64 terms)
        for key in ("nc1", "nc1_tilde", "nc2", "nc3"):
            a, b = getattr(got, key), getattr(ref, key)
            assert abs(a - b) <= 1e-12 * max(1.0, abs(b)), (name, key, a, b)
        assert np.allclose(got.nc1_per_class, ref.nc1_per_class, rtol=1e-12, atol=0)
        assert list(got.class_counts) == [n] * K
        rows[name] = got.as_dict()
    verdict.verified(method="num: NC metrics numpy / torch / streamed (shuffled, 7 batches) / streamed torch == "
                            "the definitions (dense pinv)", evidence={"reference": ref.as_dict(), "definition": want,
                                                                     "routes": rows, "seed": SEED})


@pytest.mark.claim("N-thm4.1-dT")
def test_trace_derivatives_exact_route_equals_float_route(verdict):
    r"""The closed forms :math:`e^{-2\lambda_Ht}\dot T_W`, :math:`\dot T_B` and its lower bound on three number
    types at one rational point (d = 3, K = 3, n = 2, :math:`\lambda_W = 7/5`, :math:`\lambda_H = 3/10`): exact
    rationals (python-flint) equal mpmath at dps 30 to 25 digits and float64 to 1e-12, and the exact values
    satisfy the proof's inequality :math:`\dot T_B \ge` its lower bound exactly."""
    from verify.numeric.central_path import trace_derivatives

    rng = np.random.default_rng(SEED + 1)
    d, K, n = 3, 3, 2
    Hq = np.array([[Fraction(int(v), 8) for v in row] for row in rng.integers(-20, 21, (d, K * n))], dtype=object)
    lw, lh = Fraction(7, 5), Fraction(3, 10)
    exact = trace_derivatives(Hq, lw, lh, K)
    ex = {k: Fraction(str(v)) for k, v in exact.items()}   # python-flint fmpq -> Fraction, exactly
    with mpmath.workdps(30):
        Hm = np.array([[mpmath.mpf(v.numerator) / v.denominator for v in row] for row in Hq], dtype=object)
        mp = trace_derivatives(Hm, mpmath.mpf(7) / 5, mpmath.mpf(3) / 10, K)
        for k in ex:
            q = Fraction(*mpmath.libmp.to_rational(mp[k]._mpf_))
            assert abs(q - ex[k]) <= Fraction(1, 10 ** 25) * max(1, abs(ex[k])), k   # 30 digits, ~5 lost
    fl = trace_derivatives(np.array(Hq, dtype=float), float(lw), float(lh), K)
    for k in ex:
        assert abs(fl[k] - float(ex[k])) <= 1e-12 * max(1.0, abs(float(ex[k]))), k    # a 3 x 3 inverse in float64
    assert ex["dT_W"] <= 0 and ex["dT_B"] >= ex["dT_B_lower"] > 0
    verdict.verified(method="exact (flint) == mpmath dps 30 == float64 closed forms; sign and lower bound exact",
                     evidence={k: str(v) for k, v in ex.items()} | {"seed": SEED + 1})


@pytest.mark.claim("N-eq8")
def test_perturbed_minimiser_every_solver_route_is_a_joint_stationary_point(verdict, monkeypatch):
    r"""Every route of :func:`verify.numeric.ufm.solve_perturbed` returns the minimiser of (2): the hybr root polish
    (up to ``_HYBR_MAX_UNKNOWNS``), the Newton-Krylov polish past it (threshold injected down to 4 unknowns), several
    seeded starts, no polish, and the mpmath Newton refinement (``dps = 30``). Independent route: the first
    derivatives (11) of the *joint* objective :math:`f(\mathbf W, \mathbf H; \mathbf H_0)` (App. C,
    :func:`verify.numeric.perturbation.gradients`, another module, no reduced gradient (7)) vanish at
    :math:`(W^*(H), H)`, and (8) holds. d = 3, K = 3, n = 2, :math:`H_0` of scale 1.7, two
    :math:`(\lambda_W, \lambda_H, \beta)` (App. C's derivatives need :math:`\lambda_H > 0`)."""
    from verify.numeric import perturbation as P
    from verify.numeric import ufm
    from verify.route_map import inject

    rng = np.random.default_rng(SEED + 3)
    d, K, n = 3, 3, 2
    rows = []
    for lw, lh, beta in ((0.6, 0.25, 9.0), (0.3, 0.05, 40.0)):
        H0 = 1.7 * rng.standard_normal((d, K * n)) + np.repeat(rng.standard_normal((d, K)), n, axis=1)
        sols = {"hybr": ufm.solve_perturbed(H0, beta, lw, lh, K),
                "starts3": ufm.solve_perturbed(H0, beta, lw, lh, K, starts=3, seed=5),
                "no_polish": ufm.solve_perturbed(H0, beta, lw, lh, K, polish=False)}
        methods = []
        with monkeypatch.context() as mp:
            inject(mp, "_HYBR_MAX_UNKNOWNS", 4, module=ufm)
            root = ufm.root
            mp.setattr(ufm, "root", lambda *a, **k: methods.append(k["method"]) or root(*a, **k))
            sols["krylov"] = ufm.solve_perturbed(H0, beta, lw, lh, K)
        assert methods == ["krylov"]                                   # the threshold was crossed
        Hm = ufm.solve_perturbed(H0, beta, lw, lh, K, dps=30)
        sols["mpmath30"] = np.array([[float(v) for v in r] for r in Hm])
        ref = sols["hybr"]
        scale = np.linalg.norm(ref - H0)
        row = {"lam_W": lw, "lam_H": lh, "beta": beta}
        for name, H in sols.items():
            W = ufm.optimal_W(H, lw, K)
            gH, gW = P.gradients(W, H, H0, beta, lw, lh, K, n)
            joint = max(float(np.abs(gH).max()), float(np.abs(gW).max())) * K * n / beta
            eq8 = float(np.abs(ufm.stationarity_residual(H, H0, beta, lw, lh, K)).max())
            # polished / mpmath routes: joint stationarity and agreement with hybr to 1e-9 of |H - H0| (Newton to
            # tol 1e-15 on O(1) residuals); unpolished L-BFGS stops on line-search precision (~5e-9 of |H - H0|
            # measured at beta = 40): 1e-7 there, still far below a wrong derivative (an O(1) relative error)
            tol = (1e-7 if name == "no_polish" else 1e-9) * scale
            assert joint <= tol and eq8 <= tol, (name, lw, lh, joint, eq8)
            assert np.abs(H - ref).max() <= tol, (name, lw, lh)
            row[name] = {"max_joint_gradient_scaled": joint, "max_eq8_residual": eq8}
        rows.append(row)
    verdict.verified(method="num: solve_perturbed hybr / Newton-Krylov (threshold injected) / 3 starts / no polish / "
                            "mpmath 30 digits vs the joint objective's first derivatives (11)",
                     evidence={"cases": rows, "d": d, "K": K, "n": n, "seed": SEED + 3})


@pytest.mark.claim("N-metrics")
def test_nc_metrics_label_options_without_W_and_at_equal_class_means(verdict):
    r"""The options and the edge a user reaches: features ``(N, d)`` with numpy labels and ``K`` given (one class
    empty in the labels but present by K is refused), no ``W`` (no NC3 reported, the other keys unchanged), and
    features whose class means coincide exactly (:math:`\Sigma_B = 0`): by the definitions with the pseudo-inverse,
    :math:`NC_1 = \operatorname{Tr}(\Sigma_W\cdot 0)/K = 0` and every per-class value 0,
    :math:`\widetilde{NC}_1 = \operatorname{Tr}\Sigma_W/0 = \infty` (the convention of eq. 3, as
    :func:`verify.numeric.ufm.nc1_tilde`), :math:`NC_2` undefined (nan: no class-mean structure to normalise)."""
    from verify._validate import VerifyInputError
    from verify.numeric import ufm
    from verify.numeric.nc_metrics import nc_metrics

    rng = np.random.default_rng(SEED + 8)
    d, K, n = 4, 3, 5
    H = np.repeat(2.3 * rng.standard_normal((d, K)), n, axis=1) + 0.6 * rng.standard_normal((d, K * n))
    ref = nc_metrics(H, K=K)
    want = _metrics_by_definition(H, K, np.eye(K, d))
    perm = rng.permutation(K * n)
    got = nc_metrics(H.T[perm], labels=np.repeat(np.arange(K), n)[perm], K=K)
    for key in ("nc1", "nc1_tilde", "nc2"):
        assert abs(getattr(got, key) - getattr(ref, key)) <= 1e-12 * abs(getattr(ref, key)), key   # sums reordered
    assert abs(ref.nc1 - want["nc1"]) <= 1e-12 * want["nc1"] and ref.nc3 is None
    assert set(ref.as_dict()) == {"NC1", "NC1_tilde", "NC2", "NC1_per_class"}
    with pytest.raises(VerifyInputError, match="Argument 'labels' must cover every class"):
        nc_metrics(H.T, labels=np.repeat(np.arange(K), n), K=K + 1)
    V = 1.7 * rng.standard_normal((d, n))
    same = nc_metrics(np.concatenate([V] * K, axis=1), K=K)        # identical classes: means equal exactly
    assert same.nc1 == 0.0 and all(v == 0.0 for v in same.nc1_per_class)
    assert same.nc1_tilde == float("inf") == ufm.nc1_tilde(np.concatenate([V] * K, axis=1), K)
    assert np.isnan(same.nc2)
    verdict.verified(method="num: labels + K option == layout route; no-W report; Sigma_B = 0 edge vs definitions",
                     evidence={"reference": ref.as_dict(), "labels_route": got.as_dict(), "seed": SEED + 8})


SEED_2 = 1803



def _grad_eq7_literal(H, lw, lh, K):
    r"""(7) as printed: :math:`\frac1{K^2n}(C(H-\bar H\otimes1_n^\top) - C(\Sigma_W+\frac{\lambda_W}KI)CH +
    \lambda_HKH)`, :math:`C = (\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1}`, from the covariances (not the code's
    class-mean form)."""
    H, K, n, kind = ufm._prepare(H, K)
    lw, lh = ufm._scalar(lw, kind), ufm._scalar(lh, kind)
    c = ufm.covariances(H, K)
    eye = ufm._eye(H.shape[0], kind)
    C = ufm._inv(c["Sigma_T_tilde"] + eye * (lw / K), kind)
    Hc = H - np.repeat(c["Hbar"], n, axis=1)
    return (C @ Hc - C @ (c["Sigma_W"] + eye * (lw / K)) @ C @ H + H * (lh * K)) / (K * K * n)


CASES = [(3, 2, 2, Fraction(7, 5), Fraction(3, 10), Fraction(3, 2)), (4, 3, 1, Fraction(2, 9), Fraction(0), Fraction(5, 4))]


@pytest.mark.claim("N-L-closed")
def test_loss_closed_form_equals_definition_in_every_arithmetic(verdict):
    r"""App. A's closed form of :math:`\mathcal L(H)` equals objective (1) at :math:`(W^*(H), H)` (the definition,
    :func:`~verify.numeric.ufm.central_path_loss_direct`) exactly, each computed by the exact (mixed entry types),
    mpmath and float64 routes; d = 3, 4 > K, :math:`\lambda_H = 0` in one case."""
    rng = np.random.default_rng(SEED_2)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        closed = ladder(ufm.central_path_loss, Hq, lw, lh, K)
        definition = ladder(ufm.central_path_loss_direct, Hq, lw, lh, K)
        assert closed == definition and closed > 0
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "L": str(closed)})
    verdict.verified(method="exact (fmpq from int/Fraction/sympy/fmpq) == mpmath dps 30 == float64; closed form == "
                            "definition exactly", evidence={"cases": rows, "seed": SEED_2})


@pytest.mark.claim("N-eq7")
def test_gradient_code_equals_printed_eq7_in_every_arithmetic(verdict):
    r"""The code's gradient (the class-mean form, Cholesky in float64, an inverse otherwise) equals (7) as printed,
    written out from the covariances here, exactly, by every arithmetic; and it is the derivative of
    :math:`\mathcal L`: the exact difference quotient of the closed form along a rational direction V (step
    :math:`h = 2^{-20}`) is within :math:`O(h)` of :math:`\langle\nabla\mathcal L, V\rangle`."""
    rng = np.random.default_rng(SEED_2 + 1)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        assert np.array_equal(g, ladder(_grad_eq7_literal, Hq, lw, lh, K))
        V = _point(rng, d, K, n, Fraction(1))
        h = Fraction(1, 2 ** 20)
        q = (_frac(ufm.central_path_loss(Hq + V * h, lw, lh, K)) - _frac(ufm.central_path_loss(Hq, lw, lh, K))) / h
        dd = sum(a * b for a, b in zip(g.flat, V.flat))
        # forward difference of a smooth rational function: error h * |second derivative| ~ 1e-6 |dd| at most here
        assert abs(q - dd) <= Fraction(1, 10 ** 4) * max(1, abs(dd)), (float(q), float(dd))
        rows.append({"d": d, "K": K, "n": n, "directional": float(dd), "difference_quotient": float(q)})
    verdict.verified(method="exact/mpmath/float64 gradient == printed (7) exactly; exact difference quotient",
                     evidence={"cases": rows, "seed": SEED_2 + 1})


@pytest.mark.claim("N-lemB.1")
def test_lemma_b1_bound_in_every_arithmetic_and_tight(verdict):
    r""":math:`\|\nabla\mathcal L(H)\|_F^2 \le ((3/\lambda_W+\lambda_H)/(Kn))^2\|H\|_F^2` compared exactly (squares:
    no root) at the exact gradient, itself equal across the three arithmetics; two-sided: at
    :math:`\lambda_W = 10^6, \lambda_H = 1` (where :math:`\nabla\mathcal L \to \lambda_H H/(Kn)`) the squared ratio
    exceeds :math:`1 - 10^{-4}`, so a weakened gradient (a lost factor K) fails."""
    rng = np.random.default_rng(SEED_2 + 2)
    rows = []
    for d, K, n, lw, lh, s in [*CASES, (3, 2, 2, Fraction(10 ** 6), Fraction(1), Fraction(3, 2))]:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        lhs = sum(v * v for v in g.flat)
        rhs = ((3 / lw + lh) / (K * n)) ** 2 * sum(v * v for v in Hq.flat)
        ratio_sq = lhs / rhs
        assert 0 < ratio_sq <= 1
        if lw == 10 ** 6:
            assert ratio_sq > 1 - Fraction(1, 10 ** 4)
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "ratio_sq": float(ratio_sq)})
    verdict.verified(method="exact: squared bound at the exact gradient (equal across exact/mpmath/float64); tight "
                            "at large lam_W", evidence={"cases": rows, "seed": SEED_2 + 2})



# (a, b, d, K, n, Cayley seed): d > K, a, b away from 1 (non-unit scales of H* and W*)
COLLAPSED = [(Fraction(2, 3), Fraction(3, 5), 4, 2, 3, 1), (Fraction(5, 4), Fraction(1, 3), 4, 3, 2, 2)]


@pytest.mark.claim("N-minimisers-R")
def test_collapsed_point_is_stationary_with_value_c_minus_half_c2_in_every_arithmetic(verdict):
    r"""At exact collapsed minimisers built from a rational partial orthonormal R: the gradient (7) of
    :math:`\mathcal L` vanishes exactly and :math:`\mathcal L(H^*)` equals objective (1) at :math:`(W^*, H^*)`,
    :math:`c - c^2/2`, exactly - each by every arithmetic; and a perturbed point has a larger loss (a minimum,
    not only a stationary point, along a rational direction)."""
    rng = np.random.default_rng(SEED_2 + 3)
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        g = ladder(ufm.grad_central_path_loss, H, lw, lh, K)
        assert all(v == 0 for v in g.flat)
        L = ladder(ufm.central_path_loss, H, lw, lh, K)
        # W as fmpq: ufm_objective converts H's entries but not W's (Fraction W with exact H raises TypeError)
        f = _frac(ufm.ufm_objective(ufm.as_exact(W), H, lw, lh, K))
        assert L == f == c - c * c / 2
        V = _point(rng, d, K, n, Fraction(1, 16))
        assert _frac(ufm.central_path_loss(H + V, lw, lh, K)) > L
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "value": str(L)})
    verdict.verified(method="exact: zero gradient, value c - c^2/2 (exact/mpmath/float64 routes), larger nearby",
                     evidence={"cases": rows, "seed": SEED_2 + 3})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_minimiser_form_exact_in_every_arithmetic(verdict):
    r"""Thm 2.2's form of the minimiser at exact collapsed points: :math:`W^*(H^*)` by
    :func:`~verify.numeric.ufm.optimal_W` (every arithmetic) equals :math:`\sqrt{\lambda_H/\lambda_W}\bar H^{*\top}`
    exactly, :math:`\bar H^{*\top}\bar H^* = \rho I` with :math:`\rho` = :func:`~verify.numeric.ufm.collapse_rho` on
    exact rational input (its sympy route) and by float input; and for :math:`c = \sqrt{\lambda_W\lambda_H} > 1`
    both routes give :math:`\rho = 0` (the zero minimiser)."""
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        Wopt = ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K)
        Hbar = _as_fractions(ufm.class_means(H, K))
        assert np.array_equal(Wopt, (b / a) * Hbar.T)              # sqrt(lH/lW) = b/a exactly here
        rho = ufm.collapse_rho(lw, lh)                            # exact: sympy
        assert sympy.Rational(rho) == sympy.Rational(a.numerator ** 2, a.denominator ** 2) and rho != 0
        assert np.array_equal(Hbar.T @ Hbar, np.eye(K, dtype=int) * Fraction(int(sympy.numer(rho)), int(sympy.denom(rho))))
        assert abs(ufm.collapse_rho(float(lw), float(lh)) - float(rho)) <= 1e-15 * float(rho)   # two float roundings
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "rho": str(rho)})
    big = (Fraction(3), Fraction(1, 2))                            # c = sqrt(3/2) > 1
    assert ufm.collapse_rho(*big) == 0 and ufm.collapse_rho(*map(float, big)) == 0.0
    verdict.verified(method="exact: optimal_W (exact/mpmath/float64) == sqrt(lH/lW) Hbar^T; Hbar^T Hbar = rho I with "
                            "collapse_rho exact and float; rho = 0 for c > 1", evidence={"cases": rows})



def _stationary_pair(Hq, beta, lw, lh, K):
    r"""(8) solved backwards: :math:`H_0 = H + \frac{Kn}\beta\nabla\mathcal L(H)` exactly (Fractions), so that ``Hq`` is
    a stationary point of (2) for that :math:`H_0`; the solver routes below confirm it is the minimiser."""
    n = Hq.shape[1] // K
    return Hq + _as_fractions(ufm.grad_central_path_loss(Hq, lw, lh, K)) * Fraction(K * n) / beta


def _solver_routes(H0q, beta, lw, lh, K, monkeypatch, mp=True):
    r"""The minimiser of (2) for the exact :math:`H_0` by every route of :func:`~verify.numeric.ufm.solve_perturbed`:
    ``H0`` with mixed exact entry types (hybr polish), float ``H0`` with 3 seeded starts, no polish, a polish that
    walks away (``root`` replaced by one returning a point of larger residual: the guard must keep the L-BFGS
    point), and (``mp``) the mpmath Newton refinement (``dps = 30``, mpmath ``H0``; its finite-difference Jacobian
    costs (dKn)^2 residuals, so the checks that already run it elsewhere leave it out). Returns name -> float64
    array (the mpmath one also as ``"mpmath30_mp"``)."""
    H0f = np.array(H0q, dtype=float)
    out = {"exact_H0": ufm.solve_perturbed(_mixed(H0q, types=(Fraction, sympy.Rational, flint.fmpq)), beta, lw, lh, K),
           "starts3": ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K, starts=3, seed=SEED_2),
           "no_polish": ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K, polish=False)}
    calls = []
    with monkeypatch.context() as patch:   # not ``mp``: that is the argument that asks for the mpmath route
        root = ufm.root

        def walk_away(f, x, **kw):                                      # a polish that makes the residual worse
            sol = root(f, x, **kw)
            calls.append(1)
            sol.x = sol.x + 1e-3
            return sol
        patch.setattr(ufm, "root", walk_away)
        out["polish_rejected"] = ufm.solve_perturbed(H0f, float(beta), float(lw), float(lh), K)
    assert calls == [1]                                                 # the polish ran and was refused
    if not mp:
        return out
    with mpmath.workdps(30):
        Hm = ufm.solve_perturbed(ufm.as_mp(H0q), beta, lw, lh, K, dps=30)
    assert isinstance(Hm[0, 0], mpmath.mpf)
    out["mpmath30_mp"], out["mpmath30"] = Hm, np.array(Hm, dtype=float)
    return out


def _assert_routes_find(Hq, H0q, beta, lw, lh, K, routes, scale):
    """Every solver route returned ``Hq``: float routes to 1e-9 of |H - H0| (hybr / Newton to tol 1e-15 on O(1)
    residuals; 1e-7 unpolished: L-BFGS stops on line-search precision, ~5e-9 measured). The mpmath route refines
    the problem as given (the exact H0, beta and lambdas, not their float64 roundings): its residual (8) there, at
    30 digits, is below 1e-25 of |H - H0| (Newton at 30 digits, a few lost in the finite-difference Jacobian), and
    it is within 1e-22 of ``Hq`` (that residual times the O(1) condition of the map H0 -> H at these beta, with
    three digits to spare; a refinement of the float64-rounded H0 would be 1e-16 away)."""
    Hf = np.array(Hq, dtype=float)
    for name, H in routes.items():
        if name == "mpmath30_mp":
            with mpmath.workdps(30):   # the exact H0, beta, lam_W, lam_H that solve_perturbed(dps=30) refines
                r = ufm.stationarity_residual(H, ufm.as_mp(H0q), *map(ufm._to_mpf, (beta, lw, lh)), K)
                assert max(abs(v) for v in r.flat) <= mpmath.mpf(10) ** -25 * scale, name
            err = max(abs(_frac(a) - b) for a, b in zip(H.flat, Hq.flat))
            assert err <= Fraction(1, 10 ** 22) * Fraction(scale), (name, float(err))
        else:
            tol = (1e-7 if name in ("no_polish", "polish_rejected") else 1e-9) * scale
            assert np.abs(H - Hf).max() <= tol, (name, float(np.abs(H - Hf).max()), scale)


@pytest.mark.claim("N-eq8")
@pytest.mark.claim("N-B-distance")
def test_exact_stationary_pair_is_the_minimiser_by_every_route_eq8_and_distance_bound(verdict, monkeypatch):
    r"""At rational :math:`H` and :math:`H_0 = H + \frac{Kn}\beta\nabla\mathcal L(H)` (exact), for
    :math:`\beta = q\,nKM`, :math:`nKM = 3/\lambda_W + \lambda_H`, q = 3 and 30: (8)'s residual
    (:func:`~verify.numeric.ufm.stationarity_residual`, every arithmetic and entry type) is exactly zero, the first
    derivatives (11) of the joint objective (App. C, another module) vanish at :math:`(W^*(H), H)` with :math:`W^*`
    from :func:`~verify.numeric.ufm.optimal_W` (every arithmetic), and every solver route from :math:`H_0` returns
    :math:`H` - so :math:`H = H_{1/\beta}` and (8) holds. App. B's bound
    :math:`\|H_{1/\beta}-H_0\|_F \le (\beta/(nKM)-1)^{-1}\|H_0\|_F` is compared exactly (squares), ratio in (0, 1],
    and below the trivial bound :math:`(Kn/\beta + \|H_0\|^2)^{1/2}` (comparison with H = 0; the regime where it
    says something)."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED_2 + 4)
    # dyadic lam_W, lam_H and beta: solve_perturbed reads them as floats (its mpmath Newton too), exactly here
    d, K, n, lw, lh = 3, 2, 2, Fraction(3, 4), Fraction(1, 4)
    Hq = _point(rng, d, K, n, Fraction(3, 2))
    nKM = 3 / lw + lh
    rows = []
    for q in (Fraction(3), Fraction(30)):
        beta = q * nKM
        H0q = _stationary_pair(Hq, beta, lw, lh, K)
        res = ladder(lambda H, lw_, lh_, K_: ufm.stationarity_residual(H, _like(H0q, H), beta, lw_, lh_, K_),
                     Hq, lw, lh, K)
        assert all(v == 0 for v in res.flat)
        W = ladder(lambda H, lw_, lh_, K_: ufm.optimal_W(H, lw_, K_), Hq, lw, lh, K)
        gH, gW = P.gradients(np.array(W, dtype=float), np.array(Hq, dtype=float), np.array(H0q, dtype=float),
                             float(beta), float(lw), float(lh), K, n)
        D = Hq - H0q
        size = float(np.sqrt(float(sum(v * v for v in D.flat))))
        # the joint gradient scaled to H's units (x Kn / beta); float64 products of O(10) entries: 1e-12 of |H - H0|
        joint = max(float(np.abs(gH).max()), float(np.abs(gW).max())) * K * n / float(beta)
        assert joint <= 1e-12 * max(1.0, size) * 10, joint
        routes = _solver_routes(H0q, beta, lw, lh, K, monkeypatch, mp=q == 3)   # mpmath once (~0.5 s)
        _assert_routes_find(Hq, H0q, beta, lw, lh, K, routes, size)
        dist2, h02 = sum(v * v for v in D.flat), sum(v * v for v in H0q.flat)
        ratio_sq = dist2 * (beta / nKM - 1) ** 2 / h02
        assert 0 < ratio_sq <= 1
        bound_sq = h02 / (beta / nKM - 1) ** 2
        assert bound_sq < Fraction(K * n) / beta + h02                    # below the trivial bound (q > 2)
        rows.append({"q": str(q), "beta": str(beta), "ratio": float(ratio_sq) ** 0.5, "joint_grad": joint})
    verdict.verified(method="exact stationary pair: (8) residual 0 in exact (int/Fraction/sympy/fmpq) / mpmath / "
                            "float64; joint first derivatives (11) vanish; every solve_perturbed route (exact H0, 3 "
                            "starts, no polish, refused polish, mpmath 30) returns H; App. B bound exact",
                     evidence={"cases": rows, "d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh),
                               "seed": SEED_2 + 4})


@pytest.mark.claim("N-cor3.1")
def test_cor31_collapsed_H0_is_the_unique_minimiser_in_every_arithmetic_and_solver_route(verdict, monkeypatch):
    r"""Cor. 3.1 at exact collapsed minimisers :math:`(W^*, H^*)` of (1) (d > K, c < 1), :math:`H_0 = H^*`,
    :math:`\beta` = 1/2, 10 and 4: :math:`\rho` = collapse_rho (exact sympy route) is :math:`\sigma_{\bar H}^2`,
    (8)'s residual at :math:`H^*` is exactly zero and :math:`W^*(H^*)` (optimal_W) equals :math:`W^*` exactly, by
    every arithmetic and entry type; every solver route from :math:`H_0 = H^*` returns :math:`H^*` (the mpmath
    one in the smallest case); and the reduced objective of (2) (every arithmetic) is exactly larger at
    :math:`H^* \pm V` for a rational V of two sizes (the minimiser is strict, not only stationary)."""
    rng = np.random.default_rng(SEED_2 + 5)
    rows = []
    # a third, small case (d = 3, K = 2, n = 1: 6 unknowns) runs the mpmath route too (its Jacobian costs (dKn)^2)
    cases = [*zip(COLLAPSED, (Fraction(1, 2), Fraction(10)), (False, False)),
             ((Fraction(3, 4), Fraction(2, 3), 3, 2, 1, 3), Fraction(4), True)]
    for (a, b, d, K, n, seed), beta, mp in cases:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        assert sympy.Rational(ufm.collapse_rho(lw, lh)) == sympy.Rational(a.numerator ** 2, a.denominator ** 2)
        res = ladder(lambda H_, lw_, lh_, K_: ufm.stationarity_residual(H_, _like(H, H_), beta, lw_, lh_, K_),
                     H, lw, lh, K)
        assert all(v == 0 for v in res.flat) and 0 < c < 1
        assert np.array_equal(ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K), W)
        scale = float(np.sqrt(float(sum(v * v for v in H.flat))))
        _assert_routes_find(H, H, beta, lw, lh, K, _solver_routes(H, beta, lw, lh, K, monkeypatch, mp=mp), scale)

        def obj(H_, lw_, lh_, K_):
            return ufm.perturbed_objective(H_, _like(H, H_), beta, lw_, lh_, K_)
        f0 = ladder(obj, H, lw, lh, K)
        V = _point(rng, d, K, n, Fraction(1, 64))
        gaps = [_frac(obj(H + s * V, lw, lh, K)) - f0[()] for s in (1, -1, Fraction(1, 8))]   # exact route
        assert all(g > 0 for g in gaps)
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "beta": str(beta), "min_gap": float(min(gaps))})
    verdict.verified(method="exact collapsed H0 = H*: (8) residual 0 and W*(H*) = W* in exact / mpmath / float64; "
                            "every solve_perturbed route returns H*; objective of (2) larger at H* +- V exactly",
                     evidence={"cases": rows, "seed": SEED_2 + 5})


@pytest.mark.claim("N-B-limit")
def test_B_limit_by_every_arithmetic_and_solver_route(verdict, monkeypatch):
    r""":math:`\beta(H_{1/\beta} - H_0) \to -Kn\nabla\mathcal L(H_0)`: at a rational :math:`H_0` (d = 3, K = 2, n = 2,
    scale 5/4) the limit :math:`-Kn\nabla\mathcal L(H_0)` by every arithmetic, the minimisers by
    :func:`~verify.numeric.ufm.solve_perturbed` at :math:`\beta = 2^6, 2^9, 2^{12}` (default route), and every
    float64 solver route at :math:`\beta = 2^9` (the mpmath one is B-limit's own check's); the error
    :math:`e(\beta)` falls at order -1 (fitted slope in (-1.2, -0.8)) and is below 1% of the limit at the largest beta - the limit, not only some O(1) bound."""
    from verify.numeric import perturbation as P

    rng = np.random.default_rng(SEED_2 + 6)
    d, K, n, lw, lh = 3, 2, 2, Fraction(1, 2), Fraction(1, 8)
    H0q = _point(rng, d, K, n, Fraction(5, 4))
    limit = -K * n * np.array(ladder(ufm.grad_central_path_loss, H0q, lw, lh, K), dtype=float)
    H0f = np.array(H0q, dtype=float)
    betas, errs = [2.0 ** 6, 2.0 ** 9, 2.0 ** 12], []
    for beta in betas:
        H = ufm.solve_perturbed(H0f, beta, float(lw), float(lh), K)
        errs.append(float(np.linalg.norm(beta * (H - H0f) - limit)))
    order = P.fitted_order(betas, errs)
    # order -1 (the next term of the expansion in 1/beta); +-0.2 for the curvature of the log-log fit
    assert -1.2 < order < -0.8 and errs[-1] < 1e-2 * np.linalg.norm(limit), (order, errs)
    # the mpmath route is run by B-limit's own check (test_appB_limit_and_order); the float routes here
    for name, H in _solver_routes(H0q, Fraction(2 ** 9), lw, lh, K, monkeypatch, mp=False).items():
        e = float(np.linalg.norm(2.0 ** 9 * (H - H0f) - limit))
        # 1e-6 of the limit: the unpolished routes' 1e-7 relative accuracy of H - H0, times beta |H - H0| / |limit|
        assert abs(e - errs[1]) <= 1e-6 * np.linalg.norm(limit), (name, e, errs[1])
    verdict.verified(method="limit -Kn grad L(H0) by exact / mpmath / float64; solve_perturbed at three beta (every "
                            "route at the middle one); error order fitted",
                     evidence={"beta": betas, "error": errs, "fitted_order": order,
                               "limit_norm": float(np.linalg.norm(limit)), "seed": SEED_2 + 6})


@pytest.mark.claim("N-thm4.1-W")
@pytest.mark.claim("N-thm4.1-dT")
def test_trace_derivatives_equal_the_definition_along_the_flow_in_every_arithmetic(verdict):
    r"""The closed forms of App. A (:func:`~verify.numeric.central_path.trace_derivatives`, every arithmetic) equal
    the derivatives of the definitions along the flow (4), :math:`V = -Kn\nabla\mathcal L(H)`, exactly:
    :math:`e^{-2\lambda_Ht}\dot T_W = 2\lambda_H\operatorname{Tr}\Sigma_W
    + \frac2{Kn}\langle H - \bar H\otimes1_n^\top, V\rangle`,
    :math:`e^{-2\lambda_Ht}\dot T_B = 2\lambda_H\operatorname{Tr}\Sigma_B
    + \frac2K\langle \bar H - \bar h_G1^\top, \bar V - \bar v_G1^\top\rangle`.
    Thm 4.1 (second bullet) on both sides: :math:`\dot T_W < 0` at points with :math:`\Sigma_W \ne 0` and
    :math:`\dot T_W = 0` exactly at n = 1 (:math:`\Sigma_W = 0`), where also :math:`\dot T_B` equals its lower bound."""
    from verify.numeric.central_path import trace_derivatives

    def td(H, lw, lh, K):
        t = trace_derivatives(H, lw, lh, K)
        return np.array([t["dT_W"], t["dT_B"], t["dT_B_lower"]], dtype=object)

    rng = np.random.default_rng(SEED_2 + 7)
    rows = []
    for d, K, n, lw, lh, s in [*CASES, (3, 2, 1, Fraction(3, 7), Fraction(2, 5), Fraction(5, 3))]:
        Hq = _point(rng, d, K, n, s)
        dTW, dTB, low = ladder(td, Hq, lw, lh, K)
        V = -K * n * _as_fractions(ufm.grad_central_path_loss(Hq, lw, lh, K))
        mean = lambda X: np.array([[sum(X[i, k * n:(k + 1) * n], Fraction(0)) / n for k in range(K)]  # noqa: E731
                                   for i in range(d)], dtype=object)
        M, Mv = mean(Hq), mean(V)
        Hc = Hq - np.repeat(M, n, axis=1)
        Mc, Mvc = M - M.sum(axis=1)[:, None] / K, Mv - Mv.sum(axis=1)[:, None] / K
        trW, trB = sum(v * v for v in Hc.flat) / (K * n), sum(v * v for v in Mc.flat) / K
        assert dTW == 2 * lh * trW + Fraction(2, K * n) * sum(a * b for a, b in zip(Hc.flat, V.flat))
        assert dTB == 2 * lh * trB + Fraction(2, K) * sum(a * b for a, b in zip(Mc.flat, Mvc.flat))
        assert dTB >= low > 0
        if n == 1:
            assert dTW == 0 and trW == 0 and dTB == low                # the equality side
        else:
            assert dTW < 0
        rows.append({"d": d, "K": K, "n": n, "dT_W": float(dTW), "dT_B": float(dTB), "dT_B_lower": float(low)})
    verdict.verified(method="closed forms (exact / mpmath / float64) == derivative of the definitions along -Kn grad "
                            "L exactly; dT_W < 0, = 0 at n = 1", evidence={"cases": rows, "seed": SEED_2 + 7})


@pytest.mark.claim("N-metrics")
def test_nc1_tilde_in_every_arithmetic_equals_the_scatter_definition(verdict):
    r""":math:`\widetilde{NC}_1 = \operatorname{Tr}\Sigma_W/\operatorname{Tr}\Sigma_B` (eq. 3) and
    :math:`\tilde\Sigma_T = \Sigma_W + \tilde\Sigma_B` by :func:`~verify.numeric.ufm.nc1_tilde` /
    :func:`~verify.numeric.ufm.covariances` in every arithmetic, against the scatter sums written out here
    (Fractions); at equal class means (:math:`\Sigma_B = 0`) every arithmetic returns ``inf``."""
    rng = np.random.default_rng(SEED_2 + 8)
    rows = []
    for d, K, n, _, _, s in CASES:
        Hq = _point(rng, d, K, n, s)
        nc1 = ladder(lambda H, lw, lh, K_: ufm.nc1_tilde(H, K_), Hq, Fraction(1), Fraction(1), K)[()]
        cov = {k: ladder(lambda H, lw, lh, K_: ufm.covariances(H, K_)[k], Hq, Fraction(1), Fraction(1), K)
               for k in ("Sigma_W", "Sigma_B_tilde", "Sigma_T_tilde")}
        assert np.array_equal(cov["Sigma_T_tilde"], cov["Sigma_W"] + cov["Sigma_B_tilde"])
        cols = [[Hq[:, k * n + i] for i in range(n)] for k in range(K)]
        mu = [sum(c, np.zeros(d, dtype=object) + Fraction(0)) / n for c in cols]
        mg = sum(mu, np.zeros(d, dtype=object) + Fraction(0)) / K
        within = sum(sum(v * v for v in h - mu[k]) for k in range(K) for h in cols[k]) / (K * n)
        between = sum(sum(v * v for v in m - mg) for m in mu) / K
        assert nc1 == within / between and (nc1 > 0 if n > 1 else nc1 == 0)   # n = 1: no within-class spread
        rows.append({"d": d, "K": K, "n": n, "nc1_tilde": str(nc1)})
    X = _point(rng, 3, 1, 2, Fraction(1))
    Heq = np.hstack([X, X])                                             # two classes with the same features
    for H in (Heq, _mixed(Heq, types=(Fraction,)), ufm.as_mp(Heq), np.array(Heq, dtype=float)):
        assert ufm.nc1_tilde(H, 2) == float("inf")
    verdict.verified(method="nc1_tilde / covariances by exact / mpmath / float64 == scatter sums; inf at equal means",
                     evidence={"cases": rows, "seed": SEED_2 + 8})


SEED_3 = 1819



@pytest.mark.claim("N-thm4.1-W")
def test_tw_without_positive_lamW_undefined_where_W_star_is_and_start_redrawn(verdict):
    r"""The search objective of Thm 4.1 without :math:`\lambda_W > 0` (:math:`\lambda_W = -e^a`): where
    :math:`HH^\top + n\lambda_WI` is singular (H with :math:`HH^\top = 2I`, a = 0, n = 2: numpy's condition number
    is infinite) :math:`W^*(H)` does not exist and the ratio is nan; ``finite_normal`` redraws such a start and
    returns the next draw, where the ratio is finite and in [-1, 1] (a derivative over the sum of its two terms'
    magnitudes)."""
    from verify import objectives as O

    H = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    bad = np.concatenate([H.ravel(), [0.0, 0.3]])
    assert np.linalg.cond(H @ H.T - 2 * np.eye(2)) > 1e8                 # the independent singularity test
    assert np.isnan(O.tw_negative_lamW_violation(bad))
    good = np.random.default_rng(SEED_3).standard_normal(10)
    x = O.finite_normal(_Draws(bad, good), O.tw_negative_lamW_violation, 10)
    v = O.tw_negative_lamW_violation(x)
    assert np.array_equal(x, good) and np.isfinite(v) and -1 <= v <= 1
    verdict.verified(method="num: ratio nan at a singular HH^T + n lam_W I (cond = inf); the start redrawn",
                     evidence={"ratio_at_redrawn_start": float(v), "seed": SEED_3})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_minimiser_is_found_by_every_solver_route_of_2(verdict, monkeypatch):
    r"""Thm 2.2's collapsed minimiser :math:`H^*` (exact, d = 3, K = 2, n = 1, rational Cayley frame) is the point
    every route of ``solve_perturbed`` returns from :math:`H_0 = H^*` (beta = 4): exact-typed H0, 3 seeded starts,
    no polish, a refused polish (the tolerances of the arithmetic routes above), mpmath Newton at 30 digits
    (within 1e-12) - each returns :math:`H^*`, whose class means satisfy :math:`\bar H^\top\bar H = \rho I` with
    :math:`\rho` = collapse_rho exactly."""
    import mpmath

    from verify.numeric import ufm

    a, b = Fraction(3, 4), Fraction(2, 3)
    H, W, lw, lh, c = _collapsed(a, b, 3, 2, 1, 3)
    assert 0 < c < 1
    Hbar = ufm.class_means(np.array(H, dtype=float), 2)
    assert np.abs(Hbar.T @ Hbar - float(a * a) * np.eye(2)).max() <= 1e-15     # rho = a^2 (float rounding)
    scale = float(np.sqrt(float(sum(v * v for v in H.flat))))
    # mp=True: the mpmath Newton route at 30 digits too (6 unknowns); checked here against the exact H* itself
    routes = _solver_routes(H, Fraction(4), lw, lh, 2, monkeypatch, mp=True)
    Hm = routes.pop("mpmath30_mp")
    _assert_routes_find(H, H, Fraction(4), lw, lh, 2, routes, scale)
    # within 1e-12 of H*: H0's float64 image is within 1e-16 of H*, times the O(1) condition of H0 -> H at beta = 4
    assert max(abs(Fraction(*mpmath.libmp.to_rational(v._mpf_)) - q) for v, q in zip(Hm.flat, H.flat)) \
        <= Fraction(1, 10 ** 12) * Fraction(scale)
    verdict.verified(method="num: every solve_perturbed route from H0 = H* returns the exact collapsed H*",
                     evidence={"routes": sorted(routes), "a": str(a), "b": str(b)})
