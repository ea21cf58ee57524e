"""verify/empirical/superposition.py: torch exact loss against the numpy float64 one, fused gradient
against autograd, the Monte Carlo objective, batching and determinism."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]")

from verify import VerifyInputError  # noqa: E402
from verify.empirical import superposition as S  # noqa: E402
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad  # noqa: E402


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("mu", ["gaussian", "rademacher", "uniform"])
def test_torch_loss_matches_numpy(m, mu):
    g = torch.Generator().manual_seed(m)
    W = torch.randn(3, 4, 23, generator=g, dtype=torch.float64) * 0.4
    ps = torch.tensor([1e-3, 0.3, 1.0], dtype=torch.float64)
    ref = np.array([exact_loss(W[b].numpy(), float(ps[b]), m, mu) for b in range(3)])
    scale = np.abs(ref).max()
    for fn in (S.exact_loss_torch, S.exact_loss_fused):
        got = fn(W, ps, m, mu).numpy()
        # same float64 polynomial, different summation order: round-off relative to the largest value
        assert np.max(np.abs(got - ref)) <= 1e-12 * scale


@pytest.mark.parametrize("m", [1, 3])
def test_fused_gradient_equals_autograd_and_numpy(m):
    g = torch.Generator().manual_seed(10 + m)
    W = torch.randn(2, 3, 17, generator=g, dtype=torch.float64) * 0.5
    ps = torch.tensor([0.01, 0.5], dtype=torch.float64)
    Wa = W.clone().requires_grad_(True)
    S.exact_loss_torch(Wa, ps, m).sum().backward()
    Wf = W.clone().requires_grad_(True)
    S.exact_loss_fused(Wf, ps, m, chunk_elems=40).sum().backward()  # several row chunks
    ref = exact_loss_grad(W[1].numpy(), 0.5, m)
    scale = Wa.grad.abs().max().item()
    assert (Wa.grad - Wf.grad).abs().max().item() <= 1e-12 * scale  # float64 round-off
    assert np.abs(Wf.grad[1].numpy() - ref).max() <= 1e-12 * scale


def test_float32_close_to_float64():
    W = torch.randn(10, 200, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 0.3
    v64 = S.exact_loss_fused(W, 1e-3).item()
    v32 = S.exact_loss_fused(W.float(), 1e-3).item()
    # float32 has ~7 digits; sums of 200 rows of 200 terms lose at most ~3 more
    assert abs(v32 - v64) <= 1e-4 * abs(v64)


def test_monte_carlo_objective_is_unbiased():
    dist_name, m, d, n, p = "gaussian", 3, 3, 8, 0.3
    W = torch.randn(1, d, n, generator=torch.Generator().manual_seed(4), dtype=torch.float64) * 0.5
    from verify.numeric.distributions import get_distribution

    pc = torch.tensor([[p]], dtype=torch.float64)
    x = S._sample_x((1, 200_000, n), pc, get_distribution(dist_name), torch.Generator().manual_seed(5),
                    np.random.default_rng(5))
    per = (lambda y: 2 * (x * y ** m).sum(-1) - (y ** m * y ** m).sum(-1))((x @ W.transpose(1, 2)) @ W)
    est, se = per.mean().item(), per.std().item() / np.sqrt(per.numel())
    exact = S.exact_loss_torch(W[0], p, m).item()
    assert abs(S.monte_carlo_objective(W, x, m).item() - est) < 1e-9 * abs(est)
    assert abs(est - exact) < 5 * se  # 5 standard errors: a false alarm has probability < 1e-6


def test_maximise_linear_case_and_determinism():
    # m = 1: sup Ltilde = p mu_2 d exactly (any rank-d projection), reached by Adam
    r1 = S.maximise_torch(2, 5, [0.1, 0.5], m=1, seeds=[0, 1], steps=400, lr=0.05, device="cpu", dtype="float64")
    assert r1.values.shape == (4,) and r1.ps == [0.1, 0.5, 0.1, 0.5] and r1.seeds == [0, 0, 1, 1]
    assert np.allclose(r1.values, np.array(r1.ps) * 2, rtol=1e-6)  # converged to 6 digits in 400 steps
    r2 = S.maximise_torch(2, 5, [0.1, 0.5], m=1, seeds=[0, 1], steps=400, lr=0.05, device="cpu", dtype="float64")
    assert np.array_equal(r1.values, r2.values)


def test_mc_training_improves_the_exact_loss():
    r0 = S.maximise_torch(3, 30, [0.05], steps=1, lr=1e-9, device="cpu")
    r = S.maximise_torch(3, 30, [0.05], steps=150, lr=0.01, objective="mc", batch=256, device="cpu", record_every=50)
    assert len(r.history) == 3 and r.values[0] > r0.values[0]


def test_sparse_slope_and_validation():
    lp = np.array([-4.5, -4.0, -3.5, -3.0, -2.0])
    assert S.sparse_slope(lp, 2 * lp + 1, 3) == pytest.approx(2.0)
    with pytest.raises(VerifyInputError):
        S.sparse_slope(lp[3:], lp[3:], 3)
    with pytest.raises(VerifyInputError, match="'p'"):
        S.exact_loss_torch(torch.zeros(2, 3), 1.5)
    with pytest.raises(VerifyInputError, match="'W'"):
        S.exact_loss_torch(np.zeros((2, 3)), 0.5)
    with pytest.raises(VerifyInputError, match="'objective'"):
        S.maximise_torch(2, 3, [0.1], objective="sgd")
    with pytest.raises(ValueError, match="device"):
        S.maximise_torch(2, 3, [0.1], device="tpu")


def test_reproduce_fig3_tiny(tmp_path):
    preset = {"ds": (2,), "n": 12, "log_p": (-4.0, -3.5, -3.0, -1.0), "n_seeds": 2, "steps": 50}
    out = S.reproduce_fig3(tmp_path, quick=True, device="cpu", preset=preset)
    assert (tmp_path / "s_fig3.png").exists() and (tmp_path / "s_fig3.json").exists()
    assert len(out["per_d"]["2"]["sparse_slopes"]) == 2
    # the decision states the registry's estimand and the power planning; the scale names the seeds and the budget
    from verify.claims import get_claim

    assert out["decision"]["estimand"] == get_claim("S-fig3").estimand
    assert out["decision"]["power"]["effect_of_interest_sd"] == 2.0 and "underpowered" in out["decision"]["reason"]
    assert "2 seeds (paper: optimiser and seeds not stated)" in out["scale"] and "50 Adam steps" in out["scale"]


def test_maximise_continuation_linear_case_and_determinism():
    # m = 1: sup Ltilde = p mu_2 d at every p; L-BFGS reaches it, continuing from one p to the next
    r1 = S.maximise_continuation(2, 5, [0.1, 0.3, 1.0], m=1, seed=1, device="cpu", dtype="float64")
    assert r1.values.shape == (3,) and r1.ps == [0.1, 0.3, 1.0] and r1.seeds == [1, 1, 1]
    assert np.allclose(r1.values, np.array(r1.ps) * 2, rtol=1e-8)  # a quadratic in A: L-BFGS converges to ~1e-10
    r2 = S.maximise_continuation(2, 5, [0.1, 0.3, 1.0], m=1, seed=1, device="cpu", dtype="float64")
    assert np.array_equal(r1.values, r2.values) and len(r1.history) == 3


def test_maximise_continuation_beats_its_start_m3():
    r0 = S.maximise_continuation(3, 30, [1e-3], seed=0, first_evals=1, device="cpu")
    r = S.maximise_continuation(3, 30, [1e-3, 1e-2], seed=0, first_evals=200, next_evals=50, device="cpu")
    assert r.values[0] > r0.values[0] > -np.inf and np.all(r.values > 0)
    with pytest.raises(VerifyInputError, match="first_evals"):
        S.maximise_continuation(2, 3, [0.1], first_evals=0)


# --------------------------------------------------------------------------- power-sum route (issue 14)
@pytest.mark.parametrize("m", [1, 3, 5])
def test_power_sum_route_matches_gram_route(m):
    """The linear-in-n torch route (moment matrices) against the fused gram route: value and gradient, batched."""
    g = torch.Generator().manual_seed(90 + m)
    W = torch.randn(3, 4, 40, generator=g, dtype=torch.float64) * 0.5
    pc = torch.tensor([[1e-3], [0.2], [1.0]], dtype=torch.float64)
    mom = S._moment_tensors("gaussian", m, pc)
    v_g, g_g = S._Fused.value_and_grad(W, pc, m, mom, 2**21, route="gram")
    v_p, g_p = S._Fused.value_and_grad(W, pc, m, mom, 2**21, route="power_sums")
    # float64 round-off of two summation orders (signed monomial sums, condition ~10 here)
    assert (v_g - v_p).abs().max().item() <= 1e-12 * v_g.abs().max().item()
    assert (g_g - g_p).abs().max().item() <= 1e-12 * g_g.abs().max().item()
    ref = exact_loss_grad(W[1].numpy(), 0.2, m, route="gram")
    assert np.abs(g_p[1].numpy() - ref).max() <= 1e-12 * np.abs(ref).max()


def test_power_sum_route_float32_accuracy():
    """float32 power-sum route: as accurate as the float32 gram route against the float64 value (the input rounding
    of W to float32, ~1e-7 relative, dominates both)."""
    W64 = torch.randn(1, 6, 300, generator=torch.Generator().manual_seed(7), dtype=torch.float64) * 0.5
    ref = exact_loss(W64[0].numpy(), 1e-3, 3)
    pc = torch.tensor([[1e-3]], dtype=torch.float32)
    mom = S._moment_tensors("gaussian", 3, pc)
    errs = {}
    for route in ("gram", "power_sums"):
        v, _ = S._Fused.value_and_grad(W64.float(), pc, 3, mom, 2**21, route=route)
        errs[route] = abs(v.item() - ref) / abs(ref)
    # float32 eps 6e-8 times sums of 300 terms: 1e-5 is ~100x the observed error of either route
    assert errs["power_sums"] <= 1e-5 and errs["gram"] <= 1e-5


def test_route_argument_checked():
    W = torch.randn(1, 2, 5, dtype=torch.float64)
    pc = torch.tensor([[0.1]], dtype=torch.float64)
    with pytest.raises(VerifyInputError, match="route"):
        S._Fused.value_and_grad(W, pc, 3, S._moment_tensors("gaussian", 3, pc), 2**21, route="fast")
