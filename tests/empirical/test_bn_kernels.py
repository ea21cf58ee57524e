"""verify/empirical/_bn_kernels.py: the fused train-mode BatchNorm + ReLU, each route against torch.nn and the other."""

import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]")

from verify._validate import VerifyInputError  # noqa: E402
from verify.empirical import _bn_kernels as bk  # noqa: E402
from verify.empirical import neural_collapse as nc  # noqa: E402

needs_numba = pytest.mark.skipif(not bk.AVAILABLE, reason="numba is not installed")


def _inputs(dtype, M=3, B=9, W=5, seed=4):
    # non-unit scales: mean 2.5, spread 3, gamma in [0.5, 2.5], beta around -1 (so the ReLU cuts part of each unit)
    g = torch.Generator().manual_seed(seed)
    z = (torch.randn(M, B, W, generator=g, dtype=torch.float64) * 3 + 2.5).to(dtype)
    gamma = (torch.rand(M, W, generator=g, dtype=torch.float64) * 2 + 0.5).to(dtype)
    beta = (torch.randn(M, W, generator=g, dtype=torch.float64) - 1).to(dtype)
    up = torch.randn(M, B, W, generator=g, dtype=torch.float64).to(dtype)
    return z, gamma, beta, up


def _nn_reference(z, gamma, beta, up):
    """Model by model through torch.nn.BatchNorm1d (train mode) + ReLU, values, batch statistics and gradients."""
    outs, grads, stats = [], [], []
    for m in range(z.shape[0]):
        bn = torch.nn.BatchNorm1d(z.shape[2], eps=1e-5, momentum=1.0).to(z.dtype).train()
        bn.weight.data, bn.bias.data = gamma[m].clone(), beta[m].clone()
        x = z[m].clone().requires_grad_(True)
        out = torch.relu(bn(x))
        dz, dg, db = torch.autograd.grad(out, (x, bn.weight, bn.bias), up[m])
        outs.append(out.detach())
        grads.append((dz, dg, db))
        stats.append((x.detach().mean(0), bn.running_var))   # momentum 1: running var = the unbiased batch var
    return outs, grads, stats


@needs_numba
@pytest.mark.parametrize("route", ["numba", "torch"])
def test_each_route_is_batchnorm1d_then_relu(route):
    z, gamma, beta, up = _inputs(torch.float64)
    z, gamma, beta = (t.clone().requires_grad_(True) for t in (z, gamma, beta))
    out, mean, var = bk.batchnorm_relu(z, gamma, beta, 1e-5, route=route)
    dz, dg, db = torch.autograd.grad(out, (z, gamma, beta), up)
    outs, grads, stats = _nn_reference(z.detach(), gamma.detach(), beta.detach(), up)
    B = z.shape[1]
    assert 0 < int((out == 0).sum()) < out.numel()          # the ReLU is active on some entries, not all
    for m in range(z.shape[0]):
        # float64: both sides round differently (other summation orders), at about 1e-15 relative
        assert torch.allclose(out[m], outs[m], rtol=1e-12, atol=1e-12)
        for a, b in zip((dz[m], dg[m], db[m]), grads[m]):
            assert torch.allclose(a, b, rtol=1e-10, atol=1e-12)
        assert torch.allclose(mean[m], stats[m][0], rtol=1e-12)
        assert torch.allclose(var[m] * B / (B - 1), stats[m][1], rtol=1e-12)   # biased var, as BN normalises
    assert not (mean.requires_grad or var.requires_grad)


@needs_numba
def test_numba_route_passes_gradcheck():
    z, gamma, beta, _ = _inputs(torch.float64, M=2, B=6, W=3, seed=8)
    args = tuple(t.clone().requires_grad_(True) for t in (z, gamma, beta))
    assert torch.autograd.gradcheck(lambda a, b, c: bk.batchnorm_relu(a, b, c, 1e-5, route="numba")[0], args)


@needs_numba
def test_float32_routes_agree_and_numba_sums_in_float64():
    # float32 at the size of a Table 1 layer: the routes differ by float32 rounding only (rtol 1e-4: a few ulps
    # of 1/sigma amplified by the normalisation); with a constant offset of 1e4 on a spread of 3 the kernel's
    # float64 two-pass sums still give the float64 answer up to the rounding of the float32 input
    z, gamma, beta, up = _inputs(torch.float32, M=4, B=128, W=64, seed=2)
    outs = []
    for route in ("numba", "torch"):
        args = [t.clone().requires_grad_(True) for t in (z, gamma, beta)]
        out = bk.batchnorm_relu(*args, 1e-5, route=route)[0]
        outs.append((out.detach(), *torch.autograd.grad(out, args, up)))
    for a, b in zip(*outs):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-4)
    shifted = z.double() + 1e4
    ref = bk.batchnorm_relu(shifted, gamma.double(), beta.double(), 1e-5, route="torch")[0]
    got = bk.batchnorm_relu(shifted.float(), gamma, beta, 1e-5, route="numba")[0]
    assert torch.allclose(got.double(), ref, atol=2e-3)     # float32 input rounding at 1e4 (~5e-4 / sigma 3)


def test_routes_are_validated():
    z, gamma, beta, _ = _inputs(torch.float64)
    with pytest.raises(VerifyInputError, match="'bn'"):
        bk.batchnorm_relu(z, gamma, beta, route="fast")
    with pytest.raises(VerifyInputError, match="'bn'.*float16"):
        bk.batchnorm_relu(z.half(), gamma.half(), beta.half(), route="numba")
    with pytest.raises(VerifyInputError, match="'bn'"):
        nc.BatchedMLP(2, 3, [4], 2, seeds=[0, 1], bn="fast")


@needs_numba
def test_batched_mlp_trains_the_same_on_both_routes():
    # the whole training loop on each route (SGD, per-model WD, running statistics): float32 rounding apart, the
    # same networks (atol 1e-4 after 12 steps of a 2-layer net; a wrong gradient moves them by ~1e-1)
    g = torch.Generator().manual_seed(6)
    X, y = torch.randn(48, 7, generator=g) * 2 + 1, torch.arange(48) % 3
    nets = []
    for route in ("numba", "torch"):
        net = nc.BatchedMLP(4, 7, [6, 5], 3, seeds=[0, 1, 2, 3], bn=route)
        wd = torch.tensor([0.0, 1e-2, 5e-2, 1e-1])
        nc.train_batched(net, X, y, [(p, wd) for p in net.feature_params() + net.last_params()], epochs=3,
                         batch=12, lr=0.05)
        nets.append(net)
    a, b = (n.feature_params() + n.last_params() + [L[k] for L in n.hidden for k in ("rm", "rv")] for n in nets)
    moved = nc.BatchedMLP(4, 7, [6, 5], 3, seeds=[0, 1, 2, 3]).W
    assert (nets[0].W - moved).abs().max() > 1e-2                 # training moved the weights
    assert all(torch.allclose(p, q, atol=1e-4) for p, q in zip(a, b))
