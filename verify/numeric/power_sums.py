r"""Paper S: the exact loss in time linear in n, from symmetric power-sum tensors (no :math:`A = W^TW`).

The row polynomial of :mod:`verify.numeric.superposition_loss` needs, per feature :math:`w_i` (column i of the
d x n matrix W), only :math:`A_{ii} = \|w_i\|^2` and the row power sums

.. math:: P_{2k,i} = \sum_{j=1}^n (w_i\cdot w_j)^{2k} = \langle w_i^{\otimes 2k}, S_{2k}\rangle,
          \qquad S_{2k} = \sum_j w_j^{\otimes 2k},\qquad T_{2k,i} = P_{2k,i} - A_{ii}^{2k},

for :math:`k \le m`. In the monomial basis of symmetric tensors (exponents :math:`|\alpha| = 2k`, dimension
:math:`\binom{d+2k-1}{2k}`), :math:`S_\alpha = \sum_j w_j^\alpha` and
:math:`\langle x^{\otimes 2k}, S\rangle = \sum_\alpha \binom{2k}{\alpha} x^\alpha S_\alpha` (multinomial weights).

Evaluation. :math:`(x\cdot y)^{k} = \sum_{|\beta|=k}\binom{k}{\beta}x^\beta y^\beta`, so with the degree-k
monomial features :math:`\Phi_k(x) = (x^\beta)_\beta` and :math:`\psi_k = \binom{k}{\beta}\Phi_k`,

.. math:: P_{2k}(x) = \psi_k(x)^T H_k\, \psi_k(x),\qquad H_k = \sum_j \Phi_k(w_j)\Phi_k(w_j)^T,
          \quad (H_k)_{\beta\gamma} = S_{\beta+\gamma}:

:math:`H_k` is :math:`S_{2k}` laid out as a moment (Hankel) matrix. Both passes over the rows are BLAS-3
(``syrk`` for :math:`H_k`, ``gemm`` for :math:`\psi_k H_k`): :math:`O(n\,\binom{d+k-1}{k}^2)` time, which on
BLAS hardware beats the elementwise :math:`O(n \binom{d+2k-1}{2k})` contraction although it has more FLOPs
(measured in ``benchmarks/bench_exact_loss.py``), and :math:`O(\text{chunk}\cdot\binom{d+m-1}{m} + \binom{d+m-1}{m}^2)`
memory. The gradient uses :math:`\nabla_x P_{2k}(x) = 2k\sum_j w_j (x\cdot w_j)^{2k-1}` and
:math:`\partial_{x_a}\psi_k(x)^TZ = k\sum_{|\gamma|=k-1}\psi_{k-1}(x)_\gamma Z_{\gamma+e_a}`.

Cancellation: :math:`\psi^T H\psi` has signed terms; its round-off is
:math:`\approx \epsilon\sum_j(|w_i|\cdot|w_j|)^{2k}` (with :math:`|w|` taken entrywise), and :math:`T = P - A_{ii}^{2k}`
loses digits when the diagonal term dominates. :func:`choose_route` therefore takes this route only where it is
cheaper, i.e. at large n, where the off-diagonal sum dominates.

Direct route (:class:`TensorPowerSums`, ``route="tensor"``): :math:`S_{2k}` is accumulated and contracted in the
monomial basis itself (numba kernels in :mod:`verify.numeric._tensor_kernels`, a numpy fallback checked equal): each
degree-2k monomial is one product of a low and a high monomial of the feature (the split contraction), and only
the monomials up to degree H = m are built, each once: :math:`O(n\binom{d+2m-1}{2m})` flops, 24k per feature at
d = 10, m = 3 against the moment matrices' 155k, 1.41x the fewest any method of that family (every row contracted
at every degree) needs (:func:`tensor_flops`: a family count, not a bound on the problem). The collapsed route
(:func:`collapsed_sums`) contracts rows to degree 2m - 2 only and takes the top degree as one whole-matrix sum:
13.6k per feature at d = 10, m = 3, below that count.

Every function is generic over numpy float arrays, numpy ``object`` arrays (``Fraction`` / ``mpmath.mpf``: exact or
high-precision) and torch tensors with leading batch dimensions.

>>> import numpy as np
>>> W = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 1.0]])
>>> diag, (T2, T4) = row_power_sums(W, 2)
>>> diag.tolist(), T2.tolist()        # A = [[1,0,1],[0,4,2],[1,2,2]]
([1.0, 4.0, 2.0], [1.0, 4.0, 5.0])
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from .._validate import (
    VerifyInputError,
    _as_real,
    _fail,
    verify_array,
    verify_choice,
    verify_int,
)

__all__ = ["monomial_count", "monomial_exponents", "multinomial_weights", "monomials", "power_sum_tensor",
           "contract", "RowPowerSums", "row_power_sums", "TensorPowerSums", "tensor_flops", "collapsed_sums",
           "CollapsedSums", "collapsed_grad", "collapsed_flops", "route_costs",
           "choose_route", "ROUTES", "KERNELS"]

ROUTES = ("auto", "gram", "power_sums", "tensor", "collapsed")
KERNELS = ("auto", "numba", "numpy")

#: entries of one chunk of monomial features (~8 MB of float64): large enough that BLAS runs near its peak
#: (measured: 1024 x 220 syrk at ~95% of the large-gemm rate), small enough to stay in the last-level cache
_CHUNK_ENTRIES = 1 << 20

#: most entries of psi_k H_k kept from the value pass for the gradient pass (256 MB of float64): saves one of the
#: gradient's four n x D_k x D_k products
_KEEP_ENTRIES = 1 << 25

#: cost of one elementwise numpy operation on a cache-resident block, in units of one BLAS FLOP, and the fixed
#: per-call overhead of the power-sum route (python loops over monomial blocks, thread control; ~3 ms): fitted on
#: the 2-core development machine (quiet: gram route 1.7 ns per entry of A at d = 10-15, power sums 4 us per row at
#: d = 10 and 18 us at d = 15, gemm ~100 GFLOP/s). Only the crossover of choose_route depends on them.
_ELEMENTWISE_FLOPS = 20.0
_PS_OVERHEAD_FLOPS = 3e8

#: BLAS FLOPs per flop of the compiled tensor kernels and their fixed cost (numba dispatch, tables, ~0.5 ms): fitted
#: on the 2-core machine at load ~10 with the earlier kernels (four features per sweep: 1/3-1/4 of the gemm rate).
#: The SIMD kernels of eight features per sweep measured 2.8 at d = 10, m = 3, n = 10^6 (loss, idle Xeon: 0.97 s at
#: gemm 71 GFLOP/s for 24,410 flops per feature), and with the tiled accumulation 1.5 (idle EPYC: 0.67 s at gemm
#: 53 GFLOP/s for 24,170); 3.5 is kept, so auto still takes the tensor route only where it wins by a margin (a
#: lower value moves the crossover with the gram route lower in n, about 20% at 2.8). Only the crossover of
#: choose_route depends on them.
_TENSOR_FLOP_COST = 3.5
_TENSOR_OVERHEAD_FLOPS = 1e7

#: fixed cost of the collapsed route (numba dispatch of two kernels, tables; ~0.5 ms as the tensor route's): its own
#: constant, so the tensor route's can be moved without moving it
_COLLAPSED_OVERHEAD_FLOPS = 1e7

#: the most coefficients (Sigma) for which the tensor route accumulates S with ``accumulate_tiled`` (register tiles,
#: features in the lanes: S in eight lanes, 64 bytes a coefficient, is read and written once per chunk) rather than
#: ``accumulate`` (eight coefficients in the lanes). Measured on the 2-core EPYC (idle, best of 5): tiled 0.064 s
#: against 0.112 s at d = 10, m = 3 (Sigma = 5,775, n = 2 x 10^5), 0.107 s against 0.119 s at d = 15, m = 3
#: (41,940, n = 5 x 10^4); 0.18-0.25 s (4-16 blocks a chunk) against 0.155 s at d = 10, m = 5 (122,463,
#: n = 2 x 10^4: S8 is 7.8 MB)
_TILED_MAX = 1 << 16


# --------------------------------------------------------------------------- monomial basis
def monomial_count(d: int, k: int) -> int:
    r""":math:`\binom{d+k-1}{k}`, the dimension of symmetric k-tensors over :math:`\mathbb R^d`.

    >>> monomial_count(10, 6)
    5005
    """
    return math.comb(verify_int(d, "d", minimum=1) + verify_int(k, "k", minimum=0) - 1, k)


@lru_cache(maxsize=None)
def _table(d: int, k: int) -> tuple:
    """``(exponents (D, d), starts (d,))``; degree k is built as blocks a = 0..d-1 of ``x_a`` times the
    degree-(k-1) monomials whose smallest variable is >= a, which start at ``starts_{k-1}[a]``."""
    if k == 0:
        return np.zeros((1, d), dtype=np.int64), np.zeros(d, dtype=np.int64)
    prev, pstarts = _table(d, k - 1)
    blocks, starts, pos = [], [], 0
    for a in range(d):
        tail = prev[pstarts[a]:].copy()
        tail[:, a] += 1
        blocks.append(tail)
        starts.append(pos)
        pos += len(tail)
    return np.concatenate(blocks), np.array(starts, dtype=np.int64)


def monomial_exponents(d: int, k: int) -> np.ndarray:
    r"""Exponent vectors :math:`\alpha` (:math:`|\alpha| = k`), one row per monomial, in the column order of
    :func:`monomials`.

    >>> monomial_exponents(2, 2).tolist()
    [[2, 0], [1, 1], [0, 2]]
    """
    d = verify_int(d, "d", minimum=1)
    k = verify_int(k, "k", minimum=0)
    return _table(d, k)[0].copy()


@lru_cache(maxsize=None)
def _weights(d: int, k: int) -> np.ndarray:
    fk = math.factorial(k)
    return np.array([fk // math.prod(math.factorial(int(e)) for e in row) for row in _table(d, k)[0]],
                    dtype=object)


def multinomial_weights(d: int, k: int) -> np.ndarray:
    r"""Multinomial coefficients :math:`\binom{k}{\alpha} = k!/\prod_a \alpha_a!` (exact Python ints, object array),
    so that :math:`(x\cdot y)^k = \sum_\alpha \binom{k}{\alpha} x^\alpha y^\alpha`.

    >>> multinomial_weights(2, 2).tolist()
    [1, 2, 1]
    """
    d = verify_int(d, "d", minimum=1)
    k = verify_int(k, "k", minimum=0)
    return _weights(d, k).copy()


@lru_cache(maxsize=None)
def _raise_index(d: int, k: int) -> np.ndarray:
    """(d, D_{k-1}) int array: position of gamma + e_a among the degree-k monomials."""
    lookup = {tuple(e): i for i, e in enumerate(_table(d, k)[0])}
    low = _table(d, k - 1)[0]
    out = np.empty((d, len(low)), dtype=np.int64)
    for a in range(d):
        for g, e in enumerate(low):
            e = e.copy()
            e[a] += 1
            out[a, g] = lookup[tuple(e)]
    return out


@lru_cache(maxsize=None)
def _hankel_index(d: int, k: int) -> tuple:
    """For each degree-2k monomial alpha, one pair (beta, gamma) of degree-k positions with beta + gamma = alpha."""
    lookup = {tuple(e): i for i, e in enumerate(_table(d, 2 * k)[0])}
    half = _table(d, k)[0]
    rows = np.full(len(lookup), -1, dtype=np.int64)
    cols = np.full(len(lookup), -1, dtype=np.int64)
    for b in range(len(half)):
        for c in range(len(half)):
            a = lookup[tuple(half[b] + half[c])]
            if rows[a] < 0:
                rows[a], cols[a] = b, c
    return rows, cols


# --------------------------------------------------------------------------- array-namespace helpers
def _is_torch(X) -> bool:
    return type(X).__module__.startswith("torch")


def _empty(X, shape):
    return X.new_empty(shape) if _is_torch(X) else np.empty(shape, dtype=X.dtype)


def _const(X, values):
    """``values`` (ints) as an array of X's dtype and device (exact ints for object arrays)."""
    if _is_torch(X):
        import torch
        return torch.as_tensor(np.asarray(values, dtype=float), dtype=X.dtype, device=X.device)
    return np.asarray(values, dtype=object if X.dtype == object else X.dtype)


def _einsum(X):
    if _is_torch(X):
        import torch
        return torch.einsum
    return np.einsum


def _take_last(Z, idx):
    """Z[..., idx] for an int array idx of any shape."""
    if _is_torch(Z):
        import torch
        return Z[..., torch.as_tensor(idx, device=Z.device)]
    return Z[..., idx]


def monomials(X, k: int) -> list:
    r"""Monomial features :math:`[\Phi_0(X), \dots, \Phi_k(X)]` of the rows of ``X`` (shape ``(..., n, d)``):
    :math:`\Phi_j` has shape ``(..., n, C(d+j-1, j))``, columns in the order of :func:`monomial_exponents`.
    One multiplication per monomial (degree j from degree j-1).

    >>> [f.tolist() for f in monomials(np.array([[2.0, 3.0]]), 2)]
    [[[1.0]], [[2.0, 3.0]], [[4.0, 6.0, 9.0]]]
    """
    X = _check_real(X, "X")
    if X.ndim < 2:
        raise VerifyInputError(f"Argument 'X' must have shape (..., n, d), not {tuple(X.shape)}.")
    return _monomials(X, verify_int(k, "k", minimum=0))


def _check_real(X, name):
    """A torch tensor as it is; else a numpy array of real entries: a float array finite (:func:`verify_array`), an
    object array (exact entries) without text, complex or None entries."""
    if _is_torch(X):
        return X
    X = np.asarray(X)
    if X.dtype != object:
        return verify_array(X, name)   # complex or text refused, never cast to float
    for v in X.reshape(-1):
        if v is None or isinstance(v, (str, bytes, complex)):
            raise _fail(name, "an array of real numbers", v)
    return X


def _monomials(X, k: int) -> list:
    """:func:`monomials` without its validation: the routes call it on rows they have already checked (chunk by
    chunk, so the check would run once per chunk)."""
    d = X.shape[-1]
    out = [_empty(X, X.shape[:-1] + (1,))]
    out[0][...] = 1
    for j in range(1, k + 1):
        prev, pstarts = out[-1], _table(d, j - 1)[1]
        cur = _empty(X, X.shape[:-1] + (monomial_count(d, j),))
        pos = 0
        for a in range(d):
            tail = prev[..., int(pstarts[a]):]
            cur[..., pos:pos + tail.shape[-1]] = X[..., a:a + 1] * tail
            pos += tail.shape[-1]
        out.append(cur)
    return out


def _one_blas_thread(X):
    """One BLAS thread for numpy arrays (a no-op for torch or without threadpoolctl). Measured on the shared 2-core
    machine at load ~10: n = 10^5, d = 10, m = 3 took 1.6-3.4 s with one thread and 12-27 s with two (OpenBLAS
    threads spin-wait for each other); with one thread the result also cannot depend on the thread count."""
    import contextlib

    if _is_torch(X):
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _chunks(n: int, width: int, chunk: int | None):
    step = max(1, (_CHUNK_ENTRIES // max(width, 1)) if chunk is None else chunk)
    for s in range(0, n, step):
        yield s, min(n, s + step)


def _rows(W):
    """Feature rows X = W^T (..., n, d) of W (..., d, n); a view."""
    return W.swapaxes(-1, -2)


# --------------------------------------------------------------------------- the power-sum tensor
def power_sum_tensor(W: Any, k: int) -> np.ndarray:
    r""":math:`S_{2k} = \sum_j w_j^{\otimes 2k}` in the monomial basis: :math:`S_\alpha = \sum_j w_j^\alpha` for
    :math:`|\alpha| = 2k` (order of ``monomial_exponents(d, 2k)``), read off the moment matrix :math:`H_k`.

    >>> power_sum_tensor(np.array([[1.0, 2.0], [1.0, 0.0]]), 1).tolist()   # x^2, xy, y^2 summed over 2 columns
    [5.0, 1.0, 1.0]
    """
    W = _check_W(W)
    k = verify_int(k, "k", minimum=0)
    rps = RowPowerSums(W, max(k, 1), degrees=(k,), _skip_stats=True)
    rows, cols = _hankel_index(W.shape[0], k)
    return rps.H[k][rows, cols]


def contract(S: Any, X: Any, k: int) -> np.ndarray:
    r"""Direct monomial contraction :math:`\langle x^{\otimes k}, S\rangle = \sum_{|\alpha|=k}\binom{k}{\alpha}x^\alpha S_\alpha`
    for each row x of ``X`` (n, d): the :math:`O(n\binom{d+k-1}{k})` elementwise route (a reference for the moment-matrix
    route of :class:`RowPowerSums`).

    >>> W = np.array([[1.0, 2.0], [1.0, 0.0]])
    >>> contract(power_sum_tensor(W, 1), W.T, 2).tolist()   # sum_j (w_i . w_j)^2: A = [[2, 2], [2, 4]]
    [8.0, 20.0]
    """
    X = _check_real(X, "X")
    if X.ndim != 2:
        raise VerifyInputError(f"Argument 'X' must be a 2-D array (n, d), not shape {tuple(X.shape)}.")
    k = verify_int(k, "k", minimum=0)
    S = _check_real(S, "S")
    if S.shape != (monomial_count(X.shape[1], k),):
        raise VerifyInputError(f"Argument 'S' must have shape ({monomial_count(X.shape[1], k)},), not {S.shape}.")
    return _monomials(X, k)[k] @ (S * _const(X, _weights(X.shape[1], k)))


# --------------------------------------------------------------------------- row power sums and gradient
def _check_W(W):
    if _is_torch(W):
        if W.dim() < 2:
            raise VerifyInputError(f"Argument 'W' must have shape (..., d, n), not {tuple(W.shape)}.")
        return W
    W = np.asarray(W)
    if W.ndim != 2 or W.shape[0] < 1:
        raise VerifyInputError(f"Argument 'W' must be a 2-D array (d, n) with d >= 1, not shape {W.shape}.")
    return _check_real(W, "W")   # complex or text refused, never cast to float


def _keeps_products(rows: int, d: int, degrees: tuple) -> bool:
    r"""Whether the value pass of :class:`RowPowerSums` keeps :math:`\psi_k H_k` for the gradient: ``rows`` times
    :math:`\sum_k D_k` entries, at most ``_KEEP_ENTRIES``."""
    return rows * sum(monomial_count(d, k) for k in degrees) <= _KEEP_ENTRIES


class RowPowerSums:
    r"""Moment matrices :math:`H_k` (:math:`k = 1..m`) of the columns of ``W`` (shape ``(..., d, n)``), the diagonal
    :math:`A_{ii}` and the off-diagonal row power sums :math:`T_{2k,i}`; :meth:`grad` assembles
    :math:`\nabla_W\tilde L` from the per-row derivatives of the row polynomial.

    Attributes: ``H`` (dict k -> ``(..., D_k, D_k)``), ``diag`` ``(..., n)``, ``T`` (list of m arrays ``(..., n)``).
    ``for_grad=True`` keeps :math:`\psi_k H_k` (when it fits ``_KEEP_ENTRIES``) for :meth:`grad`, saving one product.

    >>> rps = RowPowerSums(np.array([[1.0, 1.0]]), 1)
    >>> rps.diag.tolist(), rps.T[0].tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """

    def __init__(self, W: Any, m: int, chunk: int | None = None, degrees: tuple | None = None,
                 for_grad: bool = False, _skip_stats: bool = False):
        W = _check_W(W)
        with _one_blas_thread(W):
            self._build(W, m, chunk, degrees, for_grad, _skip_stats)

    def _build(self, W, m, chunk, degrees, for_grad, _skip_stats):
        self.W = W
        self.m = verify_int(m, "m", minimum=1)
        self.chunk = chunk = None if chunk is None else verify_int(chunk, "chunk", minimum=1)
        self.degrees = (tuple(range(1, self.m + 1)) if degrees is None
                        else tuple(verify_int(k, "degrees", minimum=0) for k in degrees))
        X = _rows(self.W)
        self.d, self.n = X.shape[-1], X.shape[-2]
        top = max(self.degrees)
        self._w = {k: _const(X, _weights(self.d, k)) for k in range(top + 1)}
        self.H = {}
        for s, e in _chunks(self.n, monomial_count(self.d, top), chunk):
            phis = _monomials(X[..., s:e, :], top)
            for k in self.degrees:
                blockH = phis[k].swapaxes(-1, -2) @ phis[k]          # numpy: one syrk per chunk
                self.H[k] = blockH if k not in self.H else self.H[k] + blockH
        if _skip_stats:
            return
        self.diag = (X * X).sum(-1)
        keep = for_grad and _keeps_products(self.n, self.d, self.degrees)
        self._Y = {k: _empty(X, X.shape[:-1] + (monomial_count(self.d, k),)) for k in self.degrees} if keep else None
        P = self._forms(X, [self.H[k] for k in self.degrees])
        self.T = [P[i] - self.diag ** (2 * k) for i, k in enumerate(self.degrees)]

    def _forms(self, X, Hs):
        r""":math:`\psi_k(x_i)^T H \psi_k(x_i)` for every row and every degree (one H per degree)."""
        es = _einsum(X)
        top = max(self.degrees)
        out = [_empty(X, X.shape[:-1]) for _ in self.degrees]
        for s, e in _chunks(self.n, monomial_count(self.d, top), self.chunk):
            phis = _monomials(X[..., s:e, :], top)
            for i, k in enumerate(self.degrees):
                psi = phis[k] * self._w[k]
                Y = psi @ Hs[i]
                if self._Y is not None:
                    self._Y[k][..., s:e, :] = Y
                out[i][..., s:e] = es("...ib,...ib->...i", Y, psi)
        return out

    def grad(self, d_a, d_T):
        r""":math:`\nabla_W \tilde L` (shape of ``W``) from :math:`\partial f/\partial A_{ii}` (``d_a``, ``(..., n)``) and
        :math:`\partial f/\partial T_{2k,i}` (``d_T``, one ``(..., n)`` array per degree):

        .. math:: \nabla_{w_c} = 2\,\partial_{A}f(c)\,w_c + \sum_k \Bigl[c_k(c)\,V_k(w_c) + U_k(w_c)
                  - 2c_k(c)\,\|w_c\|^{2(2k-1)}w_c\Bigr],\quad c_k = 2k\,\partial_{T_{2k}}f,

        :math:`V_k(x) = \sum_j w_j(x\cdot w_j)^{2k-1}`, :math:`U_k(x) = \sum_j c_k(j) w_j (w_j\cdot x)^{2k-1}`.
        """
        with _one_blas_thread(self.W):
            return self._grad(d_a, d_T)

    def _grad(self, d_a, d_T):
        X = _rows(self.W)
        es = _einsum(X)
        top = max(self.degrees)
        c = {k: (2 * k) * d_T[i] for i, k in enumerate(self.degrees)}
        Hc = {}
        for s, e in _chunks(self.n, monomial_count(self.d, top), self.chunk):
            phis = _monomials(X[..., s:e, :], top)
            for k in self.degrees:
                blockH = phis[k].swapaxes(-1, -2) @ (phis[k] * c[k][..., s:e, None])
                Hc[k] = blockH if k not in Hc else Hc[k] + blockH
        norm2 = self.diag
        G = _empty(X, X.shape)
        for s, e in _chunks(self.n, monomial_count(self.d, top), self.chunk):
            Xc = X[..., s:e, :]
            phis = _monomials(Xc, top)
            acc = (2 * d_a[..., s:e, None]) * Xc
            for k in self.degrees:
                psi = phis[k] * self._w[k]
                ck = c[k][..., s:e, None]
                Y = psi @ self.H[k] if self._Y is None else self._Y[k][..., s:e, :]
                Z = ck * Y + psi @ Hc[k]
                # (1/2k) grad_x psi^T Z-form: sum_gamma psi_{k-1}(x)_gamma Z_{gamma + e_a}
                Zr = _take_last(Z, _raise_index(self.d, k))                   # (..., c, d, D_{k-1})
                acc = acc + es("...iag,...ig->...ia", Zr, phis[k - 1] * self._w[k - 1])
                acc = acc - (2 * ck) * norm2[..., s:e, None] ** (2 * k - 1) * Xc
            G[..., s:e, :] = acc
        return G.swapaxes(-1, -2)


def row_power_sums(W: Any, m: int, chunk: int | None = None) -> tuple:
    r"""``(diag, [T_2, ..., T_2m])`` of ``W`` (d, n) by the moment-matrix route, never forming :math:`W^TW`:
    the same output as :func:`verify.numeric.superposition_loss.power_sums` of ``W.T @ W``.

    >>> W = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    >>> diag, (T2,) = row_power_sums(W, 1)
    >>> diag.tolist(), T2.tolist()       # A = [[1,2,0],[2,5,1],[0,1,1]]
    ([1.0, 5.0, 1.0], [4.0, 5.0, 1.0])
    """
    rps = RowPowerSums(W, m, chunk=chunk)
    return rps.diag, rps.T


# --------------------------------------------------------------------------- direct symmetric-tensor route
@lru_cache(maxsize=None)
def _tensor_tables(d: int, m: int, H: int | None = None, pad: int | None = None) -> tuple:
    """Layout of :mod:`verify.numeric._tensor_kernels` (the split contraction): ``(blocks, rows, pos, weights, segs)``.
    ``blocks`` build the monomials of degrees 1..H (:func:`_kernel_top` by default), ``rows`` are the block rows of
    the even degrees (see the kernels' module), ``pos[j]`` is the standard position of block-layout coefficient j,
    where the standard layout is the degrees 2, 4, ..., 2m one after another, each in the order of :func:`monomial_exponents`;
    ``weights`` are the multinomial coefficients in the standard layout and ``segs[k-1] = (start, stop)`` the slice
    of degree 2k in it. Rows are padded to a multiple of ``pad`` (default ``_tensor_kernels.PAD``: accumulate's
    eight coefficients per vector; ``CONTRACT_PAD`` for contract and contract_grad, whose loops only unroll)."""
    from ._tensor_kernels import PAD as default_pad

    PAD = default_pad if pad is None else pad
    H = _kernel_top(d, m) if H is None else H
    off = np.cumsum([0] + [monomial_count(d, k) for k in range(H + 1)])         # start of degree k in M
    blocks = []
    for k in range(1, H + 1):
        starts, pstarts = _table(d, k)[1], _table(d, k - 1)[1]
        for a in range(d):
            blocks.append((off[k] + starts[a], off[k - 1] + pstarts[a], monomial_count(d, k - 1) - pstarts[a], a))
    segs = np.cumsum([0] + [monomial_count(d, 2 * k) for k in range(1, m + 1)])
    rows, pos = [], []
    for k in range(1, m + 1):
        hi = min(H, 2 * k - 1)
        lo = 2 * k - hi                                  # rho: the lo smallest variables, gamma: the hi largest
        low, (high, starts) = _table(d, lo)[0], _table(d, hi)
        lookup = {tuple(e): i for i, e in enumerate(_table(d, 2 * k)[0])}
        top = [int(np.flatnonzero(e)[-1]) for e in low]                       # largest variable of each rho
        for s in range(d):
            t0 = int(starts[s])                                               # gammas with smallest variable >= s
            L = len(high) - t0
            for r in (i for i in range(len(low)) if top[i] == s):
                rows.append((off[lo] + r, off[hi] + t0, -(-L // PAD) * PAD, len(pos), k - 1))
                pos.extend(segs[k - 1] + lookup[tuple(low[r] + high[g])] for g in range(t0, len(high)))
                pos.extend([-1] * (rows[-1][2] - L))           # padding: a multiple of PAD (no scalar remainder)
    weights = np.concatenate([np.array(_weights(d, 2 * k), dtype=float) for k in range(1, m + 1)])
    as_int = lambda rows, w: np.array(rows, dtype=np.int64).reshape(-1, w)  # noqa: E731
    return (as_int(blocks, 4), as_int(rows, 5), np.array(pos, dtype=np.int64), weights,
            tuple((int(segs[k]), int(segs[k + 1])) for k in range(m)))


def _kernel_top(d: int, m: int) -> int:
    """Top degree H of the kernels (``accumulate``, ``contract``, ``contract_grad``): the smallest, H = m (any H in
    m..2m-1 is a valid layout). With eight features per sweep the monomials of all eight are the working set, so
    fewer of them (286 at d = 10, m = 3: 18 KB for the eight, 36 KB with the gradient's adjoints, within the 48 KB
    L1 data cache; 64 KB at H = 4) matter more than longer rows, and the rows of a block share their tail in larger
    groups (up to 55 rows at d = 10, m = 3). Measured on the 2-core Xeon (d = 10, idle, best of 3): contract
    0.063 s at H = 3 against 0.083 s at H = 4 (m = 3, n = 2 x 10^5), 0.121 s at H = 5 against 0.150 s at H = 6
    (m = 5, n = 2 x 10^4); accumulate 0.122 s against 0.148 s (m = 3). ``d`` does not enter."""
    return m


@lru_cache(maxsize=None)
def _tensor_groups(d: int, m: int, H: int | None = None, sizes: tuple = (8, 4, 2, 1), pad: int | None = None) -> tuple:
    """The block rows of :func:`_tensor_tables` grouped for the SIMD kernels: consecutive rows of one block (the
    same tail ``t0``, ``L`` and degree ``l``) in groups of the sizes given, largest first; returns one array per
    size 1, 2, 4, 8 (empty where ``sizes`` lacks it), rows ``(t0, L, l, r_1..r_R, co_1..co_R)``. Every block row is
    in exactly one group."""
    rows = [tuple(int(v) for v in r) for r in _tensor_tables(d, m, H, pad)[1]]
    out = {1: [], 2: [], 4: [], 8: []}
    q = 0
    while q < len(rows):
        key = (rows[q][1], rows[q][2], rows[q][4])
        e = q
        while e < len(rows) and (rows[e][1], rows[e][2], rows[e][4]) == key:
            e += 1
        run = rows[q:e]
        while run:
            R = next(size for size in sizes if size <= len(run))
            out[R].append(key + tuple(r[0] for r in run[:R]) + tuple(r[3] for r in run[:R]))
            run = run[R:]
        q = e
    return tuple(np.array(out[R], dtype=np.int64).reshape(-1, 3 + 2 * R) for R in (1, 2, 4, 8))


def _target_name(target: str | None) -> str:
    """``target`` (a key of ``_tensor_kernels.TARGETS``), default the host's (AVX-512's shapes without numba: the
    tables are then only inspected)."""
    from . import _tensor_kernels as TK

    if target is None:
        return TK.host_target().name if TK.AVAILABLE else "avx512"
    return verify_choice(target, "target", tuple(TK.TARGETS))


def _accumulate_tiles(d: int, m: int, H: int | None = None, target: str | None = None) -> tuple:
    """:func:`_accumulate_tiles_for` the target (default the host's)."""
    return _accumulate_tiles_for(d, m, H, _target_name(target))


@lru_cache(maxsize=None)
def _accumulate_tiles_for(d: int, m: int, H: int | None, target: str) -> tuple:
    r"""The tiles of :func:`verify.numeric._tensor_kernels.accumulate_tiled`: ``(tiles, lo)``. The block rows of
    :func:`_tensor_tables` (accumulate's layout) that share a tail (same first monomial and length, across degrees:
    at d = 10, m = 3 the rows of degrees 4 and 6 with the same s) are cut into tiles of G in ``TILE_G`` rows x T in
    ``TILE_T`` consecutive tail entries (the ``tile_g`` and ``tile_t`` of ``target``'s shapes), the tail segments outer (a segment's vectors stay in L1 while its rows
    pass), largest sizes first and exactly: every (row, tail entry) pair of every block row is in exactly one tile,
    and no tile reaches into a row's padding. ``tiles`` rows: ``(shape, t, r_1..r_4, p_1..p_4, d_1..d_4)`` with
    shape the index of (lanes, G, T) in ``_tensor_kernels.SHAPES``; t the tile's first tail monomial; r_g the row's monomial
    :math:`x^\rho` and p_g the row of its weighted copy (after the nM + PAD monomial rows); d_g the coefficient of
    (row g, first entry); unused columns 0. ``lo`` rows ``(r, l)``: the weighted copies, :math:`c_l(j)\,x_j^r`."""
    from ._tensor_kernels import PAD, SHAPES, TARGETS

    tgt = TARGETS[target]
    TILE_G, TILE_T = tgt.tile_g, tgt.tile_t
    blocks, rows, pos = _tensor_tables(d, m, H)[:3]
    base = int(blocks[-1, 0] + blocks[-1, 2]) + PAD
    groups, lo = {}, {}
    for r, t0, padded, co, l in rows.tolist():
        length = int(np.count_nonzero(pos[co:co + padded] >= 0))
        p = lo.setdefault((r, l), len(lo))
        groups.setdefault((t0, length), []).append((r, base + p, co))

    def cuts(total, sizes):
        k = 0
        while k < total:
            size = next(v for v in sizes if v <= total - k)
            yield k, size
            k += size

    out = []
    for (t0, length), members in groups.items():
        for ts, T in cuts(length, TILE_T):
            for gs, G in cuts(len(members), TILE_G):
                part, fill = members[gs:gs + G], [0] * (4 - G)
                out.append([SHAPES.index((tgt.lanes, G, T)), t0 + ts] + [v[0] for v in part] + fill
                           + [v[1] for v in part] + fill + [v[2] + ts for v in part] + fill)
    return np.array(out, dtype=np.int64).reshape(-1, 14), np.array(list(lo), dtype=np.int64).reshape(-1, 2)


class _KernelLayout(NamedTuple):
    blocks: np.ndarray      # the monomial tree (both layouts share it)
    nM: int                 # monomials stored, M[0] = 1 included
    pos: np.ndarray         # accumulate's block layout -> standard positions (rows padded to PAD)
    pos_c: np.ndarray       # contract's and contract_grad's (rows padded to CONTRACT_PAD)
    weights: np.ndarray     # multinomial coefficients, standard layout
    segs: tuple             # slice of each degree in the standard layout
    acc_groups: tuple       # accumulate's groups of 1, 2 and 4 rows
    groups: tuple           # contract's and contract_grad's groups of 1, 2, 4, 8 rows
    tiles: tuple            # accumulate_tiled's (tiles, lo), or None where accumulate runs (see _TILED_MAX)


def _kernel_layout(d: int, m: int, target: str | None = None) -> _KernelLayout:
    """Everything the numba kernels of :class:`TensorPowerSums` take for (d, m), at :func:`_kernel_top`, with the
    tile shapes and accumulate's row groups of ``target`` (default the host's: ``_tensor_kernels.host_target``)."""
    return _kernel_layout_for(d, m, _target_name(target))


@lru_cache(maxsize=None)
def _kernel_layout_for(d: int, m: int, target: str) -> _KernelLayout:
    from ._tensor_kernels import ACC_ROWS, CONTRACT_PAD

    H = _kernel_top(d, m)
    blocks, _, pos, wts, segs = _tensor_tables(d, m, H)
    tiled = len(wts) <= _TILED_MAX
    return _KernelLayout(blocks, int(blocks[-1, 0] + blocks[-1, 2]), pos, _tensor_tables(d, m, H, CONTRACT_PAD)[2],
                         wts, segs, _tensor_groups(d, m, H, ACC_ROWS[target])[:3],
                         _tensor_groups(d, m, H, pad=CONTRACT_PAD), _accumulate_tiles(d, m, H, target) if tiled else None)


def _accumulate_blocked(W: np.ndarray, cw: np.ndarray, weighted: bool, m: int, group: int,
                        build_only: bool = False, target: str | None = None) -> np.ndarray:
    """S (or S^c with weights ``cw``) of the C-contiguous float64 W (d, n) in accumulate's block layout, by the
    numba kernel :class:`TensorPowerSums` runs for (d, m): ``accumulate_tiled`` where :func:`_kernel_layout` carries
    tiles, else ``accumulate``. ``build_only`` runs it with no tiles or rows (the monomial build alone: what
    ``benchmarks/bench_exact_loss.py --kernels`` takes off to rate the FMAs). ``target``: whose tile shapes and row
    groups (default the host's; every target's run on any host, the same floats: tests/numeric/test_kernel_shapes.py)."""
    from . import _tensor_kernels as TK

    lay = _kernel_layout(W.shape[0], m, target)
    if lay.tiles is not None:
        tiles, lo = lay.tiles
        return TK.accumulate_tiled(W, cw, weighted, lay.blocks, tiles[:0] if build_only else tiles, lo, lay.nM, m,
                                   len(lay.pos), group)
    groups = tuple(g[:0] for g in lay.acc_groups) if build_only else lay.acc_groups
    return TK.accumulate(W, cw, weighted, lay.blocks, *groups, lay.nM, m, len(lay.pos), group)


def _layout_counts(d: int, m: int) -> tuple:
    r"""``(Sigma, build, rows)`` of the kernels' layout for (d, m): the coefficients of :math:`S_2, \dots, S_{2m}`,
    the monomials built per feature (degrees 1..H, no 1) and the block rows, at H = :func:`_kernel_top`."""
    H = _kernel_top(d, m)
    return (sum(monomial_count(d, 2 * k) for k in range(1, m + 1)),
            sum(monomial_count(d, j) for j in range(1, H + 1)),
            sum(monomial_count(d, 2 * k - min(H, 2 * k - 1)) for k in range(1, m + 1)))


def _accumulate_flops(d: int, m: int) -> int:
    r"""Flops per feature of the unweighted accumulation of :math:`S_2..S_{2m}` (:func:`_accumulate_blocked`): the
    build, one FMA per coefficient, and where S is too large for the tiled kernel one multiplication per block row
    (the tiled kernel multiplies the rows' :math:`x^\rho` by nothing, the other by 1, its weight)."""
    sigma, build, rows = _layout_counts(d, m)
    return build + (0 if sigma <= _TILED_MAX else rows) + 2 * sigma


def collapsed_flops(d: int, m: int, grad: bool = False) -> int:
    r"""Flops per feature of the collapsed route (:func:`collapsed_sums`): the unweighted accumulation of
    :math:`S_2, \dots, S_{2m}` (layout m), the contraction of degrees :math:`2..2m-2` only (layout m - 1: build,
    one multiplication per block row, one FMA per coefficient) and the diagonal; the whole-matrix sum
    :math:`\langle S_{2m}, S_{2m}\rangle` is :math:`2D_{2m}` flops once, not per feature (left out). ``grad``: plus
    the weighted accumulation of degrees :math:`2..2m-2` only (the top degree's weight is the constant
    :math:`c_m`, so :math:`S^c_{2m} = c_mS_{2m}` needs no pass) and ``contract_grad`` as in :func:`tensor_flops`.

    >>> collapsed_flops(10, 3), tensor_flops(10, 3)["ours"]
    (13590, 24170)
    """
    d = verify_int(d, "d", minimum=1)
    m = verify_int(m, "m", minimum=1)
    contract = weighted = 0
    if m > 1:
        sigma, build, rows = _layout_counts(d, m - 1)
        contract = build + 2 * rows + 2 * sigma
        weighted = build + rows + 2 * sigma
    value = _accumulate_flops(d, m) + contract + 2 * d
    if not grad:
        return value
    sigma, build, rows = _layout_counts(d, m)
    return value + weighted + (build + 6 * sigma + rows + 4 * build) + 2 * d * m     # weighted S^c, contract_grad


def tensor_flops(d: int, m: int, grad: bool = False) -> dict:
    r"""Floating-point operations per feature of the direct route (``"ours"``) and the fewest any method of the
    symmetric-tensor family needs (``"bound"``: the key keeps its old name, the number is a *family count*).
    It bounds that family of methods only (every :math:`P_{2k,i}` contracted per row), not the problem: the
    collapsed route (:func:`collapsed_flops`, 13,590 at d = 10, m = 3) is below it, and the only lower bound
    proved for every method is reading W once. With :math:`D_j = \binom{d+j-1}{j}` and :math:`\Sigma = \sum_{k\le m} D_{2k}`:

    * bound, loss: :math:`3\Sigma - m` -- accumulating :math:`S_{2k} = \sum_j w_j^{\otimes 2k}` needs, per column, the
      :math:`\Sigma` coordinates of its symmetric powers (linearly independent forms of degree >= 2, so at least
      :math:`\Sigma` multiplications: every value a straight-line program computes lies in the span of 1, the inputs
      and its products) and :math:`\Sigma` additions into S; evaluating :math:`\langle w_i^{\otimes 2k}, S_{2k}\rangle`
      with S as given coefficients needs :math:`\Sigma` multiplications (Winograd's column-rank theorem: the
      monomials are linearly independent modulo constants); a method that preprocesses S (shared by all rows)
      still needs :math:`\Sigma - m` additions (Belaga: the m forms have :math:`\Sigma` algebraically independent
      coefficients), so :math:`\Sigma - m` is counted. Further additions are not counted.
    * bound, gradient (:math:`7\Sigma - m - dm`): the loss's, plus :math:`2\Sigma` for :math:`\sum_j c_k(j) w_j^{\otimes 2k}` (the span argument
      with :math:`c_k(j)` as one more input, and the additions) and :math:`2\Sigma` multiplications for
      :math:`c_k(i)\nabla\langle x^{\otimes 2k}, S\rangle + \nabla\langle x^{\otimes 2k}, S^c\rangle` (column rank
      :math:`2\Sigma`; with preprocessing, Belaga on the :math:`2\Sigma` coefficients of the d outputs of m degrees:
      :math:`2\Sigma - dm` additions, the number counted).
    * ours (the split contraction of :mod:`verify.numeric._tensor_kernels`): per pass the monomials of degrees 1..H
      (:func:`_kernel_top`; one multiplication each) and per block row one multiplication (the weighted
      accumulate, and the unweighted one where S has more than ``_TILED_MAX`` coefficients) or one FMA
      (contract) for its :math:`x^\rho`; one FMA per even-degree monomial (two flops) per pass; the gradient's
      weighted accumulate (build, rows, FMAs), then three FMAs per even-degree monomial, one addition per block row
      and two FMAs per built monomial (reverse mode). Not counted: the padding of the rows, and the additions that
      join the SIMD kernels' split accumulators (at most 3 per block row and feature in contract and contract_grad).

    >>> f = tensor_flops(10, 3); f["bound"], f["ours"]
    (17322, 24170)
    """
    d = verify_int(d, "d", minimum=1)
    m = verify_int(m, "m", minimum=1)
    sigma, build, rows = _layout_counts(d, m)
    acc = _accumulate_flops(d, m)
    value = acc + (build + 2 * rows + 2 * sigma) + 2 * d                          # accumulate, contract, diag
    if not grad:
        return {"bound": 3 * sigma - m, "ours": value}
    weighted = build + rows + 2 * sigma
    backward = build + 6 * sigma + rows + 4 * build
    return {"bound": 7 * sigma - m - d * m, "ours": value + weighted + backward + 8 * d * m}


def _blocked(C, pos):
    """Coefficients C (standard layout) in the kernels' block layout, zero in the padding (``pos`` = -1)."""
    return np.append(C, 0.0)[pos]


def _use_numba(W, kernel: str) -> bool:
    from . import _tensor_kernels as TK

    numeric = not _is_torch(W) and W.dtype != object
    if kernel == "numba":
        if not TK.AVAILABLE:
            raise VerifyInputError("Argument 'kernel' must be 'numpy' or 'auto' without numba installed, not 'numba'.")
        if not numeric:
            raise VerifyInputError("Argument 'kernel' must be 'numpy' or 'auto' for object or torch arrays, "
                                   "not 'numba'.")
    return kernel != "numpy" and TK.AVAILABLE and numeric


class TensorPowerSums:
    r"""Direct symmetric-tensor route: :math:`S_{2k} = \sum_j w_j^{\otimes 2k}` in the monomial basis, then
    :math:`P_{2k}(w_i) = \sum_{|\alpha|=2k}\binom{2k}{\alpha} S_\alpha w_i^\alpha` -- each monomial of each feature
    built once, no moment matrix (:math:`O(n\binom{d+2m-1}{2m})` instead of :math:`O(n\binom{d+m-1}{m}^2)`).
    Attributes and :meth:`grad` as :class:`RowPowerSums`; the gradient contracts
    :math:`c_k(i)S_{2k} + S^c_{2k}` (:math:`S^c_{2k} = \sum_j c_k(j)w_j^{\otimes 2k}`) with
    :math:`\nabla_x x^{\otimes 2k}`.

    ``kernel``: ``"numba"`` (compiled, float64; :mod:`verify.numeric._tensor_kernels`), ``"numpy"`` (chunked
    monomial features; also exact for ``Fraction`` / ``mpmath`` object arrays, and torch tensors) or
    ``"auto"`` (numba when installed and W is a float array). ``chunk``: rows per chunk of the numpy kernel, or
    features per partial sum of S in the numba kernel (default ``_tensor_kernels.GROUP``).
    W must be 2-D (d, n).

    >>> t = TensorPowerSums(np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 1.0]]), 2)
    >>> t.T[0].tolist(), t.T[1].tolist()      # A = [[1,0,1],[0,4,2],[1,2,2]]
    ([1.0, 4.0, 5.0], [1.0, 16.0, 17.0])
    """

    def __init__(self, W: Any, m: int, chunk: int | None = None, kernel: str = "auto"):
        self.W = _check_W(W)
        if self.W.ndim != 2:
            raise VerifyInputError(f"Argument 'W' must be a 2-D array (d, n), not shape {tuple(self.W.shape)}.")
        self.m = verify_int(m, "m", minimum=1)
        self.chunk = None if chunk is None else verify_int(chunk, "chunk", minimum=1)
        self.kernel = "numba" if _use_numba(self.W, verify_choice(kernel, "kernel", KERNELS)) else "numpy"
        X = _rows(self.W)
        self.d, self.n = X.shape[-1], X.shape[-2]
        self.diag = (X * X).sum(-1)
        if self.kernel == "numba":
            from . import _tensor_kernels as TK

            self._Wc = np.ascontiguousarray(self.W, dtype=float)
            lay = _kernel_layout(self.d, self.m)
            self._group = TK.GROUP if self.chunk is None else self.chunk
            self.S = self._accumulate(np.empty((self.m, 1)), False)     # standard layout (degrees 2, 4, ..., 2m)
            P = list(TK.contract(self._Wc, _blocked(lay.weights * self.S, lay.pos_c), lay.blocks, *lay.groups,
                                 lay.nM, self.m))
        else:
            # each S_2k starts as the empty sum, zero (so n = 0 gives zero, as the numba kernel does)
            self.S = [_const(X, [0] * monomial_count(self.d, 2 * k)) for k in range(1, self.m + 1)]
            for s, e in _chunks(self.n, monomial_count(self.d, 2 * self.m), self.chunk):
                phis = _monomials(X[..., s:e, :], 2 * self.m)
                for k in range(1, self.m + 1):
                    self.S[k - 1] = self.S[k - 1] + phis[2 * k].sum(-2)
            P = [_empty(X, X.shape[:-1]) for _ in range(self.m)]
            for s, e in _chunks(self.n, monomial_count(self.d, 2 * self.m), self.chunk):
                phis = _monomials(X[..., s:e, :], 2 * self.m)
                for k in range(1, self.m + 1):
                    P[k - 1][..., s:e] = phis[2 * k] @ (self.S[k - 1] * _const(X, _weights(self.d, 2 * k)))
        self.T = [P[k - 1] - self.diag ** (2 * k) for k in range(1, self.m + 1)]

    def _accumulate(self, cw, weighted):
        """The numba accumulation (:func:`_accumulate_blocked`; weights ``cw`` if ``weighted``), standard layout."""
        lay = _kernel_layout(self.d, self.m)
        S = np.empty(len(lay.weights) + 1)             # the last slot takes the padding entries (pos = -1) of the rows
        S[lay.pos] = _accumulate_blocked(self._Wc, cw, weighted, self.m, self._group)
        return S[:-1]

    def grad(self, d_a, d_T):
        r""":math:`\nabla_W\tilde L` from :math:`\partial f/\partial A_{ii}` and :math:`\partial f/\partial T_{2k,i}`, as
        :meth:`RowPowerSums.grad`."""
        X = _rows(self.W)
        c = [(2 * k) * d_T[k - 1] for k in range(1, self.m + 1)]
        if self.kernel == "numba":
            from . import _tensor_kernels as TK

            lay = _kernel_layout(self.d, self.m)
            cw = np.ascontiguousarray(np.stack([np.broadcast_to(np.asarray(ck, dtype=float), (self.n,)) for ck in c]))
            Sc = self._accumulate(cw, True)
            scale = np.zeros_like(lay.weights)
            for k, (s, e) in enumerate(lay.segs, start=1):
                scale[s:e] = lay.weights[s:e] / (2 * k)          # (1/2k) grad P_2k = V_k
            G = TK.contract_grad(self._Wc, _blocked(scale * self.S, lay.pos_c), _blocked(scale * Sc, lay.pos_c), cw,
                                 lay.blocks, *lay.groups, lay.nM, self.m)
            corr = 2 * np.asarray(d_a, dtype=float)
            for k in range(1, self.m + 1):
                corr = corr - 2 * cw[k - 1] * self.diag ** (2 * k - 1)
            for a in range(self.d):               # row by row: no n x d temporary at the peak
                G[a] += corr * self._Wc[a]
            return G
        Sc = [_const(X, [0] * monomial_count(self.d, 2 * k)) for k in range(1, self.m + 1)]   # empty sums
        for s, e in _chunks(self.n, monomial_count(self.d, 2 * self.m), self.chunk):
            phis = _monomials(X[..., s:e, :], 2 * self.m)
            for k in range(1, self.m + 1):
                Sc[k - 1] = Sc[k - 1] + (phis[2 * k].swapaxes(-1, -2) @ c[k - 1][..., s:e, None])[..., 0]
        Z = [(_take_last(self.S[k - 1], _raise_index(self.d, 2 * k)),
              _take_last(Sc[k - 1], _raise_index(self.d, 2 * k)))
             for k in range(1, self.m + 1)]                                   # (d, D_{2k-1}): S_{gamma + e_a}
        G = _empty(X, X.shape)
        for s, e in _chunks(self.n, monomial_count(self.d, 2 * self.m), self.chunk):
            Xc = X[..., s:e, :]
            phis = _monomials(Xc, 2 * self.m - 1)
            acc = 2 * d_a[..., s:e, None] * Xc
            for k in range(1, self.m + 1):
                psi = phis[2 * k - 1] * _const(X, _weights(self.d, 2 * k - 1))
                ck = c[k - 1][..., s:e, None]
                # V_k(x)_a = sum_gamma binom(2k-1, gamma) x^gamma S_{gamma + e_a}; U_k the same with S^c
                acc = acc + ck * (psi @ Z[k - 1][0].swapaxes(-1, -2)) + psi @ Z[k - 1][1].swapaxes(-1, -2)
                acc = acc - (2 * ck) * self.diag[..., s:e, None] ** (2 * k - 1) * Xc
            G[..., s:e, :] = acc
        return G.swapaxes(-1, -2)


# --------------------------------------------------------------------------- collapsed route
class CollapsedSums(NamedTuple):
    r"""What the collapsed route needs of W (d, n): ``diag`` :math:`A_{ii}`, ``P`` the full row power sums
    :math:`P_{2k,i} = \sum_j A_{ij}^{2k}` for :math:`k = 1..m-1` (diagonal included), ``top``
    :math:`\sum_{i,j} A_{ij}^{2m}`, and ``S`` the power-sum tensors :math:`S_2, \dots, S_{2m}` (standard layout)."""

    diag: Any
    P: list
    top: Any
    S: Any


def collapsed_sums(W: Any, m: int, kernel: str = "auto") -> CollapsedSums:
    r"""The statistics of the collapsed exact loss
    (:func:`verify.symbolic.superposition_loss.collapsed_row_polynomial`): the row power sums up to degree
    :math:`2m - 2` only, and the top degree as one whole-matrix sum

    .. math:: \sum_{i,j} A_{ij}^{2m} = \sum_i \langle w_i^{\otimes 2m}, S_{2m}\rangle
              = \sum_{|\alpha| = 2m}\binom{2m}{\alpha} S_\alpha^2,

    a sum of non-negative terms (no cancellation). Per feature: the accumulation of :math:`S_2..S_{2m}` and the
    contraction of degrees :math:`2..2m-2` (:func:`collapsed_flops`), against :class:`TensorPowerSums`' contraction
    of every degree; the contraction of the largest degree, the costliest, is gone. ``kernel`` as in
    :class:`TensorPowerSums` (``"numpy"`` is exact for ``Fraction`` object arrays).

    >>> c = collapsed_sums(np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 1.0]]), 3)   # A = [[1,0,1],[0,4,2],[1,2,2]]
    >>> c.P[0].tolist(), c.P[1].tolist(), float(c.top)     # sum_j A_ij^2, sum_j A_ij^4, sum_ij A_ij^6
    ([2.0, 20.0, 9.0], [2.0, 272.0, 33.0], 4291.0)
    """
    W = _check_W(W)
    if W.ndim != 2:
        raise VerifyInputError(f"Argument 'W' must be a 2-D array (d, n), not shape {tuple(W.shape)}.")
    m = verify_int(m, "m", minimum=1)
    use_numba = _use_numba(W, verify_choice(kernel, "kernel", KERNELS))
    X = _rows(W)
    d, n = X.shape[-1], X.shape[-2]
    diag = (X * X).sum(-1)
    lay = _kernel_layout(d, m) if use_numba else None
    if use_numba:
        from . import _tensor_kernels as TK

        Wc = np.ascontiguousarray(W, dtype=float)
        S = np.empty(len(lay.weights) + 1)            # the last slot takes the rows' padding entries (pos = -1)
        S[lay.pos] = _accumulate_blocked(Wc, np.empty((m, 1)), False, m, TK.GROUP)
        S = S[:-1]
        P = []
        if m > 1:
            low = _kernel_layout(d, m - 1)            # its standard layout is the first m - 1 degrees of S's
            end = low.segs[-1][1]
            P = list(TK.contract(Wc, _blocked(low.weights * S[:end], low.pos_c), low.blocks, *low.groups, low.nM,
                                 m - 1))
        s, e = lay.segs[-1]
        top = float(np.dot(lay.weights[s:e] * S[s:e], S[s:e]))
        return CollapsedSums(diag, P, top, S)
    Ss = [_const(X, [0] * monomial_count(d, 2 * k)) for k in range(1, m + 1)]      # empty sums: zero
    for s, e in _chunks(n, monomial_count(d, 2 * m), None):
        phis = _monomials(X[..., s:e, :], 2 * m)
        for k in range(1, m + 1):
            Ss[k - 1] = Ss[k - 1] + phis[2 * k].sum(-2)
    P = [_empty(X, X.shape[:-1]) for _ in range(m - 1)]
    if m > 1:
        for s, e in _chunks(n, monomial_count(d, 2 * m - 2), None):
            phis = _monomials(X[..., s:e, :], 2 * m - 2)
            for k in range(1, m):
                P[k - 1][..., s:e] = phis[2 * k] @ (Ss[k - 1] * _const(X, _weights(d, 2 * k)))
    top = (Ss[m - 1] * _const(X, _weights(d, 2 * m)) * Ss[m - 1]).sum()
    return CollapsedSums(diag, P, top, Ss)


def collapsed_grad(W: np.ndarray, m: int, cs: CollapsedSums, d_a, d_P, c_top: float) -> np.ndarray:
    r""":math:`\nabla_W` of :math:`\sum_i g(A_{ii}, P_{2,i}, \dots, P_{2m-2,i}) + c\sum_{ij}A_{ij}^{2m}` (numba kernels,
    float64) from ``d_a`` :math:`=\partial g/\partial A_{ii}`, ``d_P[k-1]`` :math:`=\partial g/\partial P_{2k,i}`
    (k < m) and ``c_top`` :math:`= c`. With the full sums (diagonal included) no diagonal correction enters:

    .. math:: \nabla_{w_i} = 2\,\partial_A g(i)\,w_i + \sum_{k<m} 2k\sum_j \bigl(\partial_{P_{2k}}g(i)
              + \partial_{P_{2k}}g(j)\bigr) A_{ij}^{2k-1}w_j + 4mc\sum_j A_{ij}^{2m-1}w_j ,

    i.e. ``contract_grad`` with weights :math:`c_k = 2k\,\partial_{P_{2k}}g` (k < m) and the constant
    :math:`c_m = 2mc`, whose weighted tensor :math:`S^c_{2m} = 2mc\,S_{2m}` needs no pass: only degrees
    :math:`2..2m-2` are accumulated with weights."""
    from . import _tensor_kernels as TK

    W = verify_array(W, "W", ndim=2, dtype=np.float64)
    m = verify_int(m, "m", minimum=1)
    if not isinstance(cs, CollapsedSums):
        raise VerifyInputError(f"Argument 'cs' must be the CollapsedSums of W (collapsed_sums(W, m)), not {type(cs).__name__}.")
    d, n = W.shape
    Wc = np.ascontiguousarray(W, dtype=float)
    lay = _kernel_layout(d, m)
    if not (isinstance(cs.S, np.ndarray) and cs.S.shape == (len(lay.weights),) and len(cs.P) == m - 1
            and np.shape(cs.diag) == (n,)):   # another W's, m's or the numpy kernel's sums: no numpy broadcast error
        raise VerifyInputError(f"Argument 'cs' must be collapsed_sums(W, {m}) of this W of shape {(d, n)} (the numba "
                               "kernel's), not the sums of another W, m or kernel.")
    d_a = _check_per_feature(d_a, "d_a", n)
    if isinstance(d_P, (str, bytes)) or not hasattr(d_P, "__len__"):
        raise _fail("d_P", f"a list of m - 1 = {m - 1} derivatives", d_P)
    if len(d_P) != m - 1:
        raise VerifyInputError(f"Argument 'd_P' must hold m - 1 = {m - 1} derivatives, not {len(d_P)}.")
    d_P = [_check_per_feature(v, "d_P", n) for v in d_P]
    c_top = _as_real(c_top, "c_top", "a finite real number")
    cw = np.empty((m, n))
    for k in range(1, m):
        cw[k - 1] = (2 * k) * np.broadcast_to(np.asarray(d_P[k - 1], dtype=float), (n,))
    cw[m - 1] = 2 * m * c_top
    Sc = np.empty(len(lay.weights))
    if m > 1:
        low = _kernel_layout(d, m - 1)
        buf = np.empty(len(low.weights) + 1)
        buf[low.pos] = _accumulate_blocked(Wc, np.ascontiguousarray(cw[:m - 1]), True, m - 1, TK.GROUP)
        Sc[:low.segs[-1][1]] = buf[:-1]
    s, e = lay.segs[-1]
    Sc[s:e] = (2 * m * c_top) * cs.S[s:e]
    scale = np.zeros_like(lay.weights)
    for k, (a, b) in enumerate(lay.segs, start=1):
        scale[a:b] = lay.weights[a:b] / (2 * k)                  # (1/2k) grad <x^(2k), S> = sum_j w_j (x.w_j)^(2k-1)
    G = TK.contract_grad(Wc, _blocked(scale * cs.S, lay.pos_c), _blocked(scale * Sc, lay.pos_c), cw, lay.blocks,
                         *lay.groups, lay.nM, m)
    two_da = 2 * np.broadcast_to(np.asarray(d_a, dtype=float), (n,))
    for a in range(d):                       # row by row: no n x d temporary at the peak
        G[a] += two_da * Wc[a]
    return G


def _check_per_feature(v, name, n):
    """One derivative per feature: a finite real scalar (the same for all) or an array of shape (n,)."""
    v = verify_array(v, name)
    if v.shape not in ((), (n,)):
        raise VerifyInputError(f"Argument {name!r} must be a scalar or of shape ({n},), not shape {v.shape}.")
    return v


# --------------------------------------------------------------------------- route choice
def route_costs(d: int, n: int, m: int, grad: bool = False) -> dict:
    r"""Model cost (in BLAS-FLOP units) of the three routes for ``W`` of shape (d, n):

    * ``gram``: :math:`2n^2d` (A) plus :math:`(2m+2)n^2` elementwise operations (:math:`\times 3` with the gradient:
      Horner for G and two more products with W);
    * ``power_sums``: :math:`3n\sum_{k\le m}\binom{d+k-1}{k}^2` (syrk plus gemm; :math:`\times 3` with the gradient)
      plus ~10 elementwise operations per monomial feature and a fixed overhead;
    * ``tensor``: :func:`tensor_flops` per feature at the compiled kernel's rate (:data:`_TENSOR_FLOP_COST` BLAS FLOPs
      per flop), or, without numba, ~3 elementwise operations per monomial up to degree 2m and pass.
    * ``collapsed``: :func:`collapsed_flops` per feature at the same rate (the same kernels), or, for the loss
      without numba, ~3 elementwise operations per monomial of its two passes (degrees up to 2m and 2m - 2), plus
      :data:`_COLLAPSED_OVERHEAD_FLOPS` (no gradient without numba).

    >>> c = route_costs(10, 10**6, 3); c["collapsed"] < c["tensor"] < c["power_sums"] < c["gram"]
    True
    """
    from . import _tensor_kernels as TK

    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=0)
    m = verify_int(m, "m", minimum=1)
    e = _ELEMENTWISE_FLOPS
    dims = [monomial_count(d, k) for k in range(1, m + 1)]
    gram = 2.0 * n * n * d + e * (2 * m + 2) * n * n
    ps = 3.0 * n * sum(D * D for D in dims) + e * 10 * n * sum(dims) + _PS_OVERHEAD_FLOPS
    if grad:
        gram, ps = 3 * gram, 3 * ps
    if TK.AVAILABLE:
        tensor = _TENSOR_FLOP_COST * n * tensor_flops(d, m, grad)["ours"] + _TENSOR_OVERHEAD_FLOPS
        collapsed = _TENSOR_FLOP_COST * (n * collapsed_flops(d, m, grad) + 2 * monomial_count(d, 2 * m))
    else:
        tensor = e * 3 * n * sum(monomial_count(d, k) for k in range(1, 2 * m + 1)) * (4 if grad else 2)
        collapsed = e * 3 * n * (sum(monomial_count(d, k) for k in range(1, 2 * m + 1))
                                 + sum(monomial_count(d, k) for k in range(1, 2 * m - 1)))
    out = {"gram": gram, "power_sums": ps, "tensor": tensor}
    if not grad or TK.AVAILABLE:                   # the collapsed gradient runs the numba kernels only
        out["collapsed"] = collapsed + _COLLAPSED_OVERHEAD_FLOPS
    return out


def choose_route(route: str, d: int, n: int, m: int, grad: bool = False, tensor: bool = False) -> str:
    """Resolve ``route`` ("auto", "gram", "power_sums", "tensor", "collapsed") to a concrete route; "auto" takes the
    cheapest by :func:`route_costs` among gram, power_sums and (``tensor=True``: callers with numpy float64 input)
    tensor and collapsed (the gradient's only with numba). ``"collapsed"`` asked for a gradient without numba raises.

    >>> choose_route("auto", 10, 100, 3), choose_route("auto", 10, 10**6, 3), choose_route("gram", 10, 10**6, 3)
    ('gram', 'power_sums', 'gram')
    >>> choose_route("auto", 10, 10**6, 3, tensor=True), choose_route("auto", 10, 10**6, 3, grad=True, tensor=True)
    ('collapsed', 'collapsed')
    """
    from . import _tensor_kernels as TK

    route = verify_choice(route, "route", ROUTES)
    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=0)
    m = verify_int(m, "m", minimum=1)
    if route == "collapsed" and grad and not TK.AVAILABLE:
        raise VerifyInputError("Argument 'route' must be one of 'auto', 'gram', 'gram_rows', 'power_sums', 'tensor' "
                               "for the gradient without numba installed, not 'collapsed' (its gradient runs the "
                               "numba kernels).")
    if route != "auto":
        return route
    costs = route_costs(d, n, m, grad)
    if not tensor:
        costs.pop("tensor")
        costs.pop("collapsed", None)
    return min(costs, key=costs.get)
