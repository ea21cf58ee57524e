"""Checks for the last eleven gaps of the unbiased mutation sample (issue 18), seventh sitting.

Each check was written for a sampled mutmut mutant that the default-tier checks executing its function let through
(``benchmarks/mutation_triage.json`` names the mutant and its check). Classes: outputs a user reads (the refusals'
messages, a certificate's ratio to the Welch bound, the float route's dtype, the route the exact branch of
``exact_loss`` runs, the operation count the roofline divides by), a second route never run by a claim check (the
Dask route of the GF(2) rank counts) and a documented law never asserted (the rational skew matrix behind every exact
Cayley frame). Each compares with an independent route: the Welch bound in exact rationals, the local rank counts,
the monomials enumerated with itertools and the block layout the kernels execute, the skew matrix recovered from the
frame by the inverse Cayley transform.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

from proofs_checks._refusals import raises_exactly as _raises


SEED = 1907


# --------------------------------------------------------------------------- paper S: frames
@pytest.mark.claim("S-lemA.4-pow2")
def test_frame_size_refusal_names_m_and_the_frame_is_built_for_every_valid_m(verdict):
    r"""Every frame constructor validates ``(r, m, n_columns)`` in one place (``_frame_size``): m < 1 is refused by
    name; at the edge m = 1 the frame is the d = 2^r columns of the characters (2^{rm} = d columns, all of them)."""
    from verify.numeric import frames as F

    for build in (F.build_frame, F.build_frame_reference):
        for bad in (0, -2):
            _raises(lambda: build(3, bad), f"Argument 'm' must be an integer >= 1, not {bad}.")
        _raises(lambda: build(3, 2, n_columns=2 ** 6 + 1),
                "Argument 'n_columns' must be an integer >= 1 and <= 64, not 65.")
    W, ref = F.build_frame(3, 1).as_array(), np.asarray(F.build_frame_reference(3, 1))
    assert W.shape == ref.shape == (8, 8) and np.allclose(W * math.sqrt(8), ref, rtol=0, atol=1e-15)  # unit columns
    verdict.verified(method="_frame_size's refusals name m and n_columns with their ranges; m = 1 gives 2^r columns",
                     evidence={"r": 3, "shape_m1": list(W.shape)})


@pytest.mark.claim("S-lemA.4-pow2")
def test_rank_certificate_ratio_to_welch_is_the_exact_coherence_over_the_welch_bound(verdict):
    r"""``quadratic_certificate`` reports ``ratio_to_welch`` (printed by ``verify frame certify``): it is
    :math:`\mu / \sqrt{(n-d)/(d(n-1))}` with :math:`\mu` = ``coherence_exact``, recomputed here in exact rationals
    (the square of the ratio is :math:`\mu^2 d(n-1)/(n-d)`), for r = 3..5 at m = 3 and r = 4 at m = 2."""
    from verify.numeric.frames import cert_rank

    rows = []
    for r, m in ((3, 3), (4, 3), (5, 3), (4, 2)):
        cert = cert_rank.quadratic_certificate(r, m)
        d, n = 2 ** r, 2 ** (r * m)
        mu = Fraction(cert.coherence_exact)
        ratio_sq = mu * mu * d * (n - 1) / (n - d)
        assert cert.ratio_to_welch is not None
        assert math.isclose(cert.ratio_to_welch ** 2, float(ratio_sq), rel_tol=1e-12)   # float rounding only
        assert cert.ratio_to_welch > 1                                                    # Welch is a lower bound
        rows.append({"r": r, "m": m, "ratio_to_welch": cert.ratio_to_welch})
    verdict.verified(method="ratio_to_welch == exact coherence / Welch bound (rationals, squared)",
                     evidence={"cases": rows})


@pytest.mark.claim("S-lemA.4-pow2")
def test_rank_counts_on_dask_equal_the_local_counts(verdict):
    r"""``radical_dim_counts(..., client=)`` (the route of ``verify frame certify --method quadratic --scheduler``)
    runs its slices as Dask tasks (a synchronous in-process client; BATCH injected small so m = 3 has several
    slices) and gives the local counts, whose total is all :math:`2^{r(m-1)}` quadratic parts."""
    pytest.importorskip("distributed")
    from dask.distributed import Client

    from verify.numeric.frames import cert_rank

    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cert_rank, "BATCH", 16)
            dist = {(r, m): cert_rank.radical_dim_counts(r, m, client=client) for r, m in ((4, 3), (5, 2))}
            local = {(r, m): cert_rank.radical_dim_counts(r, m) for r, m in ((4, 3), (5, 2))}
    for (r, m), counts in dist.items():
        assert counts == local[(r, m)] and sum(counts.values()) == 2 ** (r * (m - 1))
    verdict.verified(method="Dask rank counts == local rank counts; totals 2^{r(m-1)}",
                     evidence={f"r={r},m={m}": c for (r, m), c in dist.items()})


# --------------------------------------------------------------------------- paper S: the exact loss
@pytest.mark.claim("S-exact-loss")
def test_exact_loss_mpmath_branch_runs_the_route_it_is_given(verdict, monkeypatch):
    r"""With ``dps`` set, ``exact_loss`` computes in mpmath by the route it is given: ``"tensor"`` through the
    tensor statistics, ``"power_sums"`` through the row power sums, ``"gram"`` and ``"auto"`` through neither
    (auto means gram there). Recorded by wrapping the two statistics routines; all four values agree with the
    exact rational loss of the derived polynomial (d = 3, n = 4, non-unit entries, m = 3)."""
    from verify.numeric import power_sums as PS
    from verify.numeric import superposition_loss as L

    calls = []
    real_tps, real_rps = PS.TensorPowerSums, PS.row_power_sums

    def tps(*a, **k):
        calls.append("tensor")
        return real_tps(*a, **k)

    def rps(*a, **k):
        calls.append("power_sums")
        return real_rps(*a, **k)

    monkeypatch.setattr(PS, "TensorPowerSums", tps)
    monkeypatch.setattr(PS, "row_power_sums", rps)
    rng = np.random.default_rng(SEED)
    W = [[Fraction(int(v), 4) for v in row] for row in rng.integers(-6, 7, size=(3, 4))]
    ref = L.exact_loss_from_A(np.array(W, dtype=object).T @ np.array(W, dtype=object), Fraction(1, 5), m=3, dps=40)
    seen = {}
    for route in ("tensor", "power_sums", "gram", "auto"):
        calls.clear()
        value = L.exact_loss(W, Fraction(1, 5), m=3, dps=40, route=route)
        seen[route] = list(calls)
        assert abs(value - ref) <= abs(ref) * sympy.Rational(1, 10 ** 30)   # 40 digits, 10 of them headroom
    assert seen == {"tensor": ["tensor"], "power_sums": ["power_sums"], "gram": [], "auto": []}, seen
    verdict.verified(method="mpmath exact_loss: the route given is the route run; values == exact_loss_from_A",
                     evidence={"routes": seen, "loss": float(ref)})


@pytest.mark.claim("S-exact-loss")
def test_tensor_flops_counts_the_kernels_layout_and_the_enumerated_monomials(verdict):
    r"""``tensor_flops`` (the operation counts the roofline and the route cost model use) against independent counts:
    :math:`\Sigma = \sum_{k \le m} D_{2k}` by enumerating the exponent vectors with itertools, and our count from the
    block layout the loss kernels execute (``_tensor_tables`` at ``_kernel_top``: the built monomials are the blocks' lengths, the block rows
    its rows, the even-degree monomials its unpadded positions): per pass (accumulate, contract) one multiplication
    or FMA per built monomial, one or two per block row (none in the loss's accumulate where it runs in tiles: the
    layout then carries tiles, and its weighted copies, one per block row, are the gradient's pass), one FMA (two
    flops) per even-degree monomial, plus 2d for the diagonal. d from 2 to 6, m from 1 to 4, and d = 10, m = 5 (S
    past ``_TILED_MAX``: the row kernel), and the gradient's bound :math:`7\Sigma - m - dm` and count (the weighted
    accumulate, then per even-degree monomial three FMAs and per built monomial the build and two reverse FMAs).
    (Found by a focused mutmut sample: a wrong reverse-mode count in ``tensor_flops`` had passed.)"""
    from verify.numeric import power_sums as PS

    rows, kernels = [], set()
    for d, m in [*itertools.product((2, 3, 6), (1, 2, 3, 4)), (10, 5)]:
        sigma = sum(sum(1 for _ in itertools.combinations_with_replacement(range(d), 2 * k)) for k in range(1, m + 1))
        blocks, brows, pos, _, _ = PS._tensor_tables(d, m, PS._kernel_top(d, m))   # the loss kernels' layout
        build, nrows = int(blocks[:, 2].sum()), len(brows)
        assert blocks[:, 2].sum() + 1 == blocks[-1, 0] + blocks[-1, 2]            # the blocks tile M after M[0] = 1
        assert int((pos >= 0).sum()) == sigma                     # the kernels' layout holds every monomial once
        tiles = PS._kernel_layout(d, m).tiles                     # what TensorPowerSums._accumulate runs
        kernels.add(tiles is not None)
        if tiles is not None:
            assert len(tiles[1]) == nrows                         # one weighted copy of x^rho per block row
        ours = (build + (0 if tiles is not None else nrows) + 2 * sigma) + (build + 2 * nrows + 2 * sigma) + 2 * d
        f, g = PS.tensor_flops(d, m), PS.tensor_flops(d, m, grad=True)
        assert f == {"bound": 3 * sigma - m, "ours": ours}, (d, m, f)
        # the gradient adds the weighted accumulate (build, one multiplication per row, one FMA per monomial), the
        # backward pass (build again, three FMAs per even-degree monomial, one addition per block row, two FMAs per
        # built monomial in reverse mode) and 8dm for the diagonal correction
        weighted, backward = build + nrows + 2 * sigma, build + 6 * sigma + nrows + 4 * build
        assert g == {"bound": 7 * sigma - m - d * m, "ours": ours + weighted + backward + 8 * d * m}, (d, m, g)
        rows.append({"d": d, "m": m, "sigma": sigma, "tiled": tiles is not None, "bound": f["bound"], "ours": ours})
    assert kernels == {True, False}
    verdict.verified(method="tensor_flops == counts from itertools' monomials and the kernels' block layout",
                     evidence={"cases": rows})


@pytest.mark.claim("S-exact-loss")
def test_brute_force_loss_refuses_an_unknown_objective(verdict):
    r"""``brute_force_loss`` (the expectation over every support that the derived loss is checked against) takes
    ``objective`` in {"Ltilde", "L"} and refuses anything else by name; the two objectives add up to
    :math:`\mathbb E\|x\|^2 = n p \mu_2` for every A (:math:`\mathcal L = \mathbb E\|x\|^2 - \tilde L`): at a
    non-symmetric rational A with m = 3, and at the identity with m = 1, where L = 0."""
    from verify.symbolic import superposition_loss as SL

    _raises(lambda: SL.brute_force_loss(sympy.eye(2), 1, objective="loss"),
            "Argument 'objective' must be one of 'Ltilde', 'L', not 'loss'.")
    from verify.symbolic.superposition_loss import mu, p

    A = sympy.Matrix([[sympy.Rational(1, 2), sympy.Rational(-1, 3)], [sympy.Rational(2, 3), 2]])
    for M, m in ((A, 3), (sympy.eye(2), 1)):
        Lt, L = (SL.brute_force_loss(M, m, objective=o) for o in ("Ltilde", "L"))
        assert sympy.expand(Lt + L - 2 * p * mu(2)) == 0
    assert SL.brute_force_loss(sympy.eye(2), 1, objective="L") == 0
    verdict.verified(method="brute_force_loss refuses an unknown objective by name; both are 0 at A = I, m = 1",
                     evidence={"objectives": ["Ltilde", "L"]})


# --------------------------------------------------------------------------- paper N
@pytest.mark.claim("N-thm4.1-dT")
def test_flow_traces_refuses_a_negative_lam_H_and_weights_by_exp_2_lam_H_t(verdict):
    r"""``flow_traces`` refuses :math:`\lambda_H < 0` by name (before reading the solution); at the edge
    :math:`\lambda_H = 0` the weighted traces equal the plain ones, and at :math:`\lambda_H = 0.3` they are
    :math:`e^{2\lambda_H t}` times them (Thm 4.1's :math:`T_W, T_B`)."""
    from verify.numeric import central_path as flow

    _raises(lambda: flow.flow_traces(None, [0.0], -0.5, 2), "Argument 'lam_H' must be a finite real number >= 0, "
                                                              "not -0.5.")
    H0 = np.random.default_rng(SEED).standard_normal((3, 2 * 3))
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
    res = ufm.solve_ufm(2, 2, 2, 0.1, 0.2, starts=1, seed=SEED)
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

    rng = np.random.default_rng(SEED)
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


@pytest.mark.claim("N-minimisers-R")
def test_float_gradient_is_float64_and_equals_the_exact_gradient(verdict):
    r"""The float route of the gradient (7) returns a float64 array (the arithmetic a caller chose), equal to the
    exact rational route at the same dyadic point to float rounding (d = 3, K = 2, n = 2, non-unit lambdas)."""
    from verify.numeric import ufm

    rng = np.random.default_rng(SEED)
    Hq = rng.integers(-5, 6, size=(3, 4)) / 4                 # dyadic: exactly representable in both arithmetics
    g = ufm.grad_central_path_loss(Hq, 0.375, 1.25, 2)
    ge = ufm.grad_central_path_loss(np.array([[Fraction(v) for v in row] for row in Hq], dtype=object),
                                    Fraction(3, 8), Fraction(5, 4), 2)
    assert isinstance(g, np.ndarray) and g.dtype == np.float64 and g.shape == (3, 4)
    exact = np.array([[float(Fraction(int(v.p), int(v.q))) if hasattr(v, "q") else float(v) for v in row]
                      for row in ge])
    assert np.allclose(g, exact, rtol=1e-12, atol=1e-15)      # one Cholesky solve of a 3 x 3 system in float64
    verdict.verified(method="float gradient dtype float64; equal to the exact gradient",
                     evidence={"max_abs": float(np.abs(exact).max())})


@pytest.mark.claim("N-D-residual")
def test_cayley_frames_come_from_the_documented_rational_skew_law(verdict):
    r"""``cayley_frame`` draws :math:`S` skew with entries :math:`p/q`, :math:`|p| \le 4`, :math:`q \in \{1,2,3\}`.
    From a full frame (K = d) S is recovered exactly by the inverse Cayley transform
    :math:`S = (I - Q)(I + Q)^{-1}`; over the seeds 0..4 at d = 4 every entry lies in the law's support and
    denominators 2 and 3 both occur (30 draws; an integer-only law would show none)."""
    from verify.symbolic import perturbation as S

    support = {sympy.Rational(p, q) for p in range(-4, 5) for q in (1, 2, 3)}
    dens = set()
    for seed in range(5):
        Q = S.cayley_frame(4, 4, seed=seed)
        assert Q.T * Q == sympy.eye(4)
        Sk = (sympy.eye(4) - Q) * (sympy.eye(4) + Q).inv()
        assert Sk == -Sk.T
        for i, j in itertools.combinations(range(4), 2):
            assert Sk[i, j] in support, Sk[i, j]
            dens.add(int(sympy.fraction(Sk[i, j])[1]))
    assert {2, 3} <= dens, dens
    verdict.verified(method="inverse Cayley transform recovers S in the law's support; denominators 2 and 3 occur",
                     evidence={"denominators": sorted(dens)})
