r"""Train-mode BatchNorm + ReLU of :class:`verify.empirical.neural_collapse.BatchedMLP`, fused (numba, CPU).

For ``M`` models' pre-activations :math:`z \in \mathbb R^{M\times B\times W}` (model, batch, unit), per model
:math:`m` and unit :math:`w` over the batch:

.. math:: \mu = \tfrac1B\textstyle\sum_b z_b,\quad \sigma^2 = \tfrac1B\sum_b (z_b-\mu)^2,\quad
          r = (\sigma^2+\varepsilon)^{-1/2},\quad y_b = \max\bigl(0,\ \gamma r (z_b-\mu) + \beta\bigr).

With :math:`g'_b = g_b\,[y_b > 0]` (the upstream gradient through the ReLU) the backward pass is

.. math:: \partial_\beta = \textstyle\sum_b g'_b,\qquad \partial_\gamma = r\sum_b g'_b (z_b-\mu),\qquad
          \partial_{z_b} = \gamma r\Bigl(g'_b - \tfrac1B\sum_c g'_c - (z_b-\mu)\,\tfrac{r^2}{B}\sum_c g'_c(z_c-\mu)\Bigr).

Why a kernel: written as torch operations the layer is about a dozen elementwise passes forward and backward,
each a trip over the whole (M, B, W) tensor (3.8 MB for a Table 1 run's 115 models, more than this machine's
2 MB L2). The kernel walks one model at a time, whose (B, W) slice (32 KB at B = 128, W = 64 in float32) stays
in L1 across its passes: measured on the 2-core Intel machine (one thread, load 0.3), forward + backward for
M = 115, B = 128, W = 64 took 1.45 ms against 17 ms for the torch operations. The sums are in float64.

Routes: ``"numba"`` (CPU tensors, float32 or float64) and ``"torch"`` (the same formulas as torch operations under
autograd, for a GPU or without numba); ``tests/empirical/test_bn_kernels.py`` checks each against
``torch.nn.BatchNorm1d`` + ``ReLU`` and against each other, values and gradients.
"""

from __future__ import annotations

import numpy as np

# numba comes with galois (a core dependency); without it, the same fallback as the exact loss's kernels (njit a
# no-op, AVAILABLE False), and the torch route serves
from ..numeric._tensor_kernels import AVAILABLE, njit

ROUTES = ("auto", "numba", "torch")


@njit(cache=True)
def _forward(z, gamma, beta, eps, out, mean, var, rstd):  # pragma: no cover - compiled (coverage cannot trace)
    M, B, W = z.shape
    s = np.empty(W)
    q = np.empty(W)
    for m in range(M):
        s[:] = 0.0
        for b in range(B):
            for w in range(W):
                s[w] += z[m, b, w]
        for w in range(W):
            s[w] /= B
        # two passes (mean, then squared deviations) on the slice while it is in L1: no cancellation
        q[:] = 0.0
        for b in range(B):
            for w in range(W):
                d = z[m, b, w] - s[w]
                q[w] += d * d
        for w in range(W):
            v = q[w] / B
            mean[m, w] = s[w]
            var[m, w] = v
            rstd[m, w] = 1.0 / np.sqrt(v + eps)
        for b in range(B):
            for w in range(W):
                y = (z[m, b, w] - s[w]) * rstd[m, w] * gamma[m, w] + beta[m, w]
                out[m, b, w] = y if y > 0 else 0.0


@njit(cache=True)
def _backward(g, z, out, mean, rstd, gamma, dz, dgamma, dbeta):  # pragma: no cover - compiled
    M, B, W = z.shape
    sg = np.empty(W)
    sgx = np.empty(W)
    for m in range(M):
        sg[:] = 0.0
        sgx[:] = 0.0
        for b in range(B):
            for w in range(W):
                if out[m, b, w] > 0:
                    gv = g[m, b, w]
                    sg[w] += gv
                    sgx[w] += gv * (z[m, b, w] - mean[m, w])
        for w in range(W):
            r = rstd[m, w]
            dgamma[m, w] = sgx[w] * r
            dbeta[m, w] = sg[w]
            sg[w] = sg[w] / B
            sgx[w] = sgx[w] * r * r / B
        for b in range(B):
            for w in range(W):
                gp = g[m, b, w] if out[m, b, w] > 0 else 0.0
                dz[m, b, w] = gamma[m, w] * rstd[m, w] * (gp - sg[w] - (z[m, b, w] - mean[m, w]) * sgx[w])


def _function():
    import torch

    class BatchNormReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z, gamma, beta, eps):
            z, gamma, beta = z.contiguous(), gamma.detach().contiguous(), beta.detach().contiguous()
            M, _, W = z.shape
            out = torch.empty_like(z)
            mean, var, rstd = (torch.empty(M, W, dtype=z.dtype) for _ in range(3))
            _forward(z.detach().numpy(), gamma.numpy(), beta.numpy(), float(eps), out.numpy(), mean.numpy(),
                     var.numpy(), rstd.numpy())
            ctx.save_for_backward(z, out, mean, rstd, gamma)
            ctx.mark_non_differentiable(mean, var)
            return out, mean, var

        @staticmethod
        def backward(ctx, g, _gmean, _gvar):
            z, out, mean, rstd, gamma = ctx.saved_tensors
            g = g.contiguous()
            dz, dgamma, dbeta = torch.empty_like(z), torch.empty_like(gamma), torch.empty_like(gamma)
            _backward(g.numpy(), z.detach().numpy(), out.numpy(), mean.numpy(), rstd.numpy(), gamma.numpy(),
                      dz.numpy(), dgamma.numpy(), dbeta.numpy())
            return dz, dgamma, dbeta, None

    return BatchNormReLU


_FN = None


def resolve_route(z, route: str = "auto") -> str:
    """``"numba"`` for a CPU float32/float64 tensor where numba is installed (``"auto"``), else ``"torch"``."""
    from .._validate import VerifyInputError, verify_choice

    verify_choice(route, "bn", ROUTES)
    ok = AVAILABLE and z.device.type == "cpu" and str(z.dtype) in ("torch.float32", "torch.float64")
    if route == "numba" and not ok:
        raise VerifyInputError("Argument 'bn' can be 'numba' only for CPU float32/float64 tensors with numba "
                               f"installed, not for {z.dtype} on {z.device}.")
    return "numba" if route == "numba" or (route == "auto" and ok) else "torch"


def batchnorm_relu(z, gamma, beta, eps: float = 1e-5, route: str = "auto"):
    """Train-mode BN (batch statistics, biased variance) then ReLU over dim 1 of ``z`` (M, B, W), with per-model
    ``gamma``, ``beta`` (M, W). Returns ``(out, mean, var)``; ``mean`` and ``var`` (M, W) carry no gradient (the
    running statistics' update)."""
    global _FN
    if resolve_route(z, route) == "torch":
        import torch

        mean, var = z.mean(1), z.var(1, unbiased=False)
        zn = (z - mean.unsqueeze(1)) / torch.sqrt(var.unsqueeze(1) + eps)
        return torch.relu(zn * gamma.unsqueeze(1) + beta.unsqueeze(1)), mean.detach(), var.detach()
    if _FN is None:
        _FN = _function()
    return _FN.apply(z, gamma, beta, eps)
