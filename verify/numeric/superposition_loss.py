r"""Paper S: numeric evaluation of the exact population loss :math:`\tilde L(W)`, its gradient, a Monte Carlo
estimator and a maximiser.

The formula is the sympy-derived row polynomial of :mod:`verify.symbolic.superposition_loss`,

.. math:: \tilde L(W) = \sum_{i=1}^n f_m\bigl(p, \mu_2, \dots, \mu_{2m}, A_{ii}, T_{2,i}, \dots, T_{2m,i}\bigr),
          \qquad A = W^T W,\quad T_{k,i} = \sum_{j \ne i} A_{ij}^k,

lambdified once per m (numpy for float64, mpmath for ``dps``). Cost: :math:`O(n^2 d)` for A plus
:math:`O(n^2 m)` for the power sums; memory :math:`O(n^2)`.

>>> import numpy as np
>>> W = np.eye(2, 3)                    # two orthonormal features, one dropped
>>> round(exact_loss(W, p=0.1, m=3), 12) # = p * 2 * (2 mu_4 - mu_6) = 0.1 * 2 * (6 - 15)
-1.8
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy

from .._validate import (VerifyInputError, _as_real, _fail, verify_array, verify_choice, verify_int, verify_nonnegative,
                         verify_odd_m, verify_positive, verify_probability)
from ..symbolic import superposition_loss as sym
from . import power_sums as _ps
from .distributions import Distribution, get_distribution

__all__ = ["exact_loss", "exact_loss_from_A", "exact_loss_grad", "monte_carlo_loss", "loss_to_accuracy", "LossEstimate",
           "rb_loss_samples", "maximise_loss",
           "MaximiseResult", "power_sums", "quadrature_moment", "single_blas_thread", "first_order_objective"]


# --------------------------------------------------------------------------- compiled formulas
@lru_cache(maxsize=None)
def _row_function(m: int, backend: str):
    args = sym.row_symbols(m)
    return sympy.lambdify(args, sym.row_polynomial(m, expand=False), modules=backend, cse=True)


@lru_cache(maxsize=None)
def _collapsed_function(m: int, backend: str):
    r"""``(g_m, c_m)`` of :func:`verify.symbolic.superposition_loss.collapsed_row_polynomial`, lambdified (c_m in
    :math:`(p, \mu_2, \dots, \mu_{2m})`)."""
    g, c = sym.collapsed_row_polynomial(m)
    args = sym.collapsed_row_symbols(m)
    return (sympy.lambdify(args, g, modules=backend, cse=True),
            sympy.lambdify(args[:m + 1], c, modules=backend))


@lru_cache(maxsize=None)
def _collapsed_grad_function(m: int):
    r""":math:`(\partial g_m/\partial A_{ii}, \partial g_m/\partial S_2, \dots, \partial g_m/\partial S_{2m-2})`
    lambdified (numpy)."""
    g, _ = sym.collapsed_row_polynomial(m)
    args = sym.collapsed_row_symbols(m)
    return sympy.lambdify(args, [sympy.diff(g, v) for v in args[m + 1:]], modules="numpy", cse=True)


@lru_cache(maxsize=None)
def _row_grad_function(m: int):
    args = sym.row_symbols(m)
    return sympy.lambdify(args, list(sym.row_gradient(m)), modules="numpy", cse=True)


def _moments_float(dist: Distribution, m: int) -> list:
    return [float(dist.moment(k)) for k in range(2, 2 * m + 1, 2)]


def _check_common(p, m, mu):
    m = verify_odd_m(m)
    p = verify_probability(p)
    return p, m, get_distribution(mu)


def _check_W(W) -> np.ndarray:
    return verify_array(W, "W", ndim=2)


#: entries of one row block of A (~512 KB of float64): the power sums of a block stay in cache
_BLOCK_ENTRIES = 1 << 16


def _blocks(W: np.ndarray | None = None, A: np.ndarray | None = None):
    """Yield ``(start, stop, off)``: rows start..stop-1 of A = W^T W (or of the given A) with the diagonal zeroed."""
    n = W.shape[1] if A is None else A.shape[0]
    step = max(1, _BLOCK_ENTRIES // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        off = W[:, start:stop].T @ W if A is None else np.array(A[start:stop], dtype=float)
        rows = np.arange(stop - start)
        off[rows, rows + start] = 0.0
        yield start, stop, off


def _stats(m: int, W: np.ndarray | None = None, A: np.ndarray | None = None) -> tuple:
    diag = np.einsum("ij,ij->j", W, W) if A is None else np.diag(A).astype(float)
    sums = [np.empty_like(diag) for _ in range(m)]
    for start, stop, off in _blocks(W, A):
        sq = off * off
        sums[0][start:stop] = sq.sum(axis=1)
        pw = sq
        for l in range(1, m):
            pw = pw * sq if l == 1 else np.multiply(pw, sq, out=pw)
            sums[l][start:stop] = pw.sum(axis=1)
    return diag, sums


#: entries of one strip of the upper triangle of A (512 KB of float64, as _BLOCK_ENTRIES): strips get taller as
#: they get narrower, so every strip and its powers stay in the per-core cache
_STRIP_ENTRIES = 1 << 16


def _upper_strips(n: int, entries: int | None = None):
    """Yield ``(s, e)``: the strip of rows s..e-1 and columns s..n-1 of the upper triangle of an n x n matrix."""
    entries = _STRIP_ENTRIES if entries is None else entries
    s = 0
    while s < n:
        e = min(n, s + max(1, entries // (n - s)))
        yield s, e
        s = e


def _stats_symmetric(m: int, W: np.ndarray) -> tuple:
    r"""``_stats`` of route "gram" from the upper triangle of the symmetric :math:`A = W^TW` only: the strip
    :math:`A_{I,J}` (rows :math:`I = s..e-1`, columns :math:`J = s..n-1`) adds its row sums of :math:`A_{ij}^{2l}` to
    the rows I and, since :math:`A_{ji} = A_{ij}`, the column sums of its part right of the diagonal block to the
    rows :math:`j \ge e`. Half the products (:math:`n^2d` FLOPs) and half the powers of the row-block route."""
    n = W.shape[1]
    WT = np.ascontiguousarray(W.T)             # the gemm's left operand with contiguous rows (n d copied once)
    diag = np.einsum("ij,ij->j", W, W)
    sums = np.zeros((m, n))
    for s, e in _upper_strips(n):
        A = WT[s:e] @ W[:, s:]
        r = np.arange(e - s)
        A[r, r] = 0.0                          # the diagonal A_ii is not a T term
        sq = np.multiply(A, A, out=A)
        pw = sq.copy() if m > 1 else sq
        for l in range(m):
            if l:
                np.multiply(pw, sq, out=pw)
            sums[l, s:e] += pw.sum(axis=1)
            sums[l, e:] += pw[:, e - s:].sum(axis=0)
    return diag, list(sums)


def _grad_symmetric(W: np.ndarray, m: int, d_a: np.ndarray, d_T: list) -> np.ndarray:
    r""":math:`\nabla_W\tilde L = WH` with the symmetric :math:`H = G + G^T` from the upper triangle of A only:

    .. math:: H_{ij} = A_{ij}\sum_{l=1}^m 2l\,\bigl(\partial_{T_{2l}} f_m(i) + \partial_{T_{2l}} f_m(j)\bigr)
              A_{ij}^{2l-2}\ (i \ne j),\qquad H_{ii} = 2\,\partial_{A_{ii}} f_m(i);

    a strip :math:`H_{I,J}` adds :math:`W_I H_{I,J}` to the columns J and :math:`W_J H_{I,J}^T` to the columns I
    (its part right of the diagonal block). :math:`3n^2d` FLOPs against :math:`8n^2d` for the row blocks (which
    form A twice and multiply by W on both sides)."""
    n = W.shape[1]
    WT = np.ascontiguousarray(W.T)
    c = [(2 * l) * d_T[l - 1] for l in range(1, m + 1)]
    grad = np.zeros_like(W)
    for s, e in _upper_strips(n):
        A = WT[s:e] @ W[:, s:]
        r = np.arange(e - s)
        sq = A * A
        # Horner in A_ij^2 with the coefficients c_l(i) + c_l(j), in place
        H = c[m - 1][s:e, None] + c[m - 1][None, s:]
        for l in range(m - 2, -1, -1):
            H *= sq
            H += c[l][s:e, None]
            H += c[l][None, s:]
        H *= A
        H[r, r] = 2.0 * d_a[s:e]
        grad[:, s:] += W[:, s:e] @ H                    # W_I H_IJ
        grad[:, s:e] += W[:, e:] @ H[:, e - s:].T       # W_J H_IJ^T
    return grad


def power_sums(A: np.ndarray, m: int) -> tuple:
    r"""Diagonal :math:`A_{ii}` and off-diagonal even power sums :math:`T_{2l,i} = \sum_{j\ne i} A_{ij}^{2l}`,
    :math:`l = 1..m`, for any integer :math:`m \ge 1`, odd or even (float64, O(n^2 m) time, processed in cache-sized
    row blocks).

    >>> diag, (t2,) = power_sums(np.array([[1.0, 2.0], [2.0, 3.0]]), 1)
    >>> diag.tolist(), t2.tolist()
    ([1.0, 3.0], [4.0, 4.0])
    """
    A = verify_array(A, "A", ndim=2)
    return _stats(verify_int(m, "m", minimum=1), A=A)   # any m >= 1, odd or even


# --------------------------------------------------------------------------- exact loss
def exact_loss_from_A(A: Any, p: Any, m: int = 3, mu: Any = "gaussian", dps: int | None = None):
    r""":math:`\tilde L` as a function of the symmetric matrix :math:`A = W^T W` (n x n).

    ``dps=None``: float64. ``dps`` set: an ``mpmath.mpf`` computed at that precision (entries of ``A``
    may then be floats, ``Fraction``/sympy rationals or strings; they are converted exactly to mpf at
    the working precision).

    >>> float(exact_loss_from_A(np.eye(2), 0.5, m=1, mu="rademacher"))   # p mu_2 tr(2I - I) = 0.5 * 2
    1.0
    """
    p, m, dist = _check_common(p, m, mu)
    if dps is None:
        A = verify_array(A, "A", ndim=2)
        _check_square(A)
        return _float_loss(p, m, dist, A=A)
    dps = verify_int(dps, "dps", minimum=5)
    with mpmath.workdps(dps):
        Am = _to_mp_matrix(A, "A")   # refuses complex or text entries, before any float conversion
    _check_square(verify_array(np.asarray(A, dtype=object).astype(float), "A", ndim=2))
    with mpmath.workdps(dps):
        return _mp_loss(Am, p, m, dist)


def _float_loss(p, m: int, dist: Distribution, W=None, A=None, route: str = "gram") -> float:
    # route "power_sums": O(n C(d+m-1,m)^2) from the moment matrices of W, no A (verify.numeric.power_sums);
    # "tensor": O(n C(d+2m-1,2m)), the symmetric tensors contracted directly (power_sums.TensorPowerSums);
    # "collapsed": the tensors, rows contracted to degree 2m - 2 only (_collapsed_loss);
    # "gram" from W: the upper triangle of A (_stats_symmetric); "gram_rows" or A given: full row blocks (_stats)
    if route == "collapsed" and A is None:
        return _collapsed_loss(p, m, dist, W)
    if route == "gram" and A is None:
        diag, sums = _stats_symmetric(m, W)
    elif route == "tensor" and A is None:
        tps = _ps.TensorPowerSums(W, m)
        diag, sums = tps.diag, tps.T
    else:
        route = "gram" if route == "gram_rows" else route
        diag, sums = _stats(m, W=W, A=A) if route == "gram" else _ps.row_power_sums(W, m)
    f, moms, total = _row_function(m, "numpy"), _moments_float(dist, m), 0.0
    for s, e in _row_chunks(len(diag)):
        vals = f(float(p), *moms, diag[s:e], *(t[s:e] for t in sums))
        total += float(np.sum(np.broadcast_to(vals, (e - s,))))
    return total


def _collapsed_loss(p, m: int, dist: Distribution, W, backend: str = "numpy", kernel: str = "auto"):
    r"""Route "collapsed": :math:`\tilde L = \sum_i g_m(A_{ii}, P_{2,i}, \dots, P_{2m-2,i}) + c_m\sum_{ij}A_{ij}^{2m}`
    (:func:`verify.symbolic.superposition_loss.collapsed_row_polynomial`) from
    :func:`verify.numeric.power_sums.collapsed_sums`. ``backend="mpmath"``: W an object array of mpf, summed by
    ``mpmath.fsum``."""
    cs = _ps.collapsed_sums(W, m, kernel=kernel)
    g, c = _collapsed_function(m, backend)
    if backend == "mpmath":
        moms = [_to_mp(dist.moment(k)) for k in range(2, 2 * m + 1, 2)]
        pm = _to_mp(p)
        rows = mpmath.fsum(g(pm, *moms, cs.diag[i], *(P[i] for P in cs.P)) for i in range(len(cs.diag)))
        return rows + c(pm, *moms) * cs.top
    moms, total = _moments_float(dist, m), 0.0
    for s, e in _row_chunks(len(cs.diag)):
        vals = g(float(p), *moms, cs.diag[s:e], *(P[s:e] for P in cs.P))
        total += float(np.sum(np.broadcast_to(vals, (e - s,))))
    return total + float(c(float(p), *moms)) * float(cs.top)


def _collapsed_loss_grad(p, m: int, dist: Distribution, W) -> np.ndarray:
    """Route "collapsed" of the gradient: :func:`verify.numeric.power_sums.collapsed_grad` at the derivatives of
    :math:`g_m`, row chunk by row chunk."""
    cs = _ps.collapsed_sums(W, m, kernel="numba")
    f = _collapsed_grad_function(m)
    _, c = _collapsed_function(m, "numpy")
    moms, n = _moments_float(dist, m), W.shape[1]
    d_a, d_P = np.empty(n), [np.empty(n) for _ in range(m - 1)]
    for s, e in _row_chunks(n):
        out = f(float(p), *moms, cs.diag[s:e], *(P[s:e] for P in cs.P))
        for dst, g in zip([d_a] + d_P, out):
            dst[s:e] = g                      # broadcasts the constants of the derivative
    return _ps.collapsed_grad(W, m, cs, d_a, d_P, float(c(float(p), *moms)))


#: rows per evaluation of the lambdified row polynomial / gradient: its common subexpressions are arrays of this
#: length (dozens for m = 3), so at n = 10^6 unchunked they alone would take ~0.4 GB
_ROW_CHUNK = 1 << 16


def _row_chunks(n: int):
    for s in range(0, max(n, 1), _ROW_CHUNK):
        yield s, min(n, s + _ROW_CHUNK)


def _check_square(A):
    if A.shape[0] != A.shape[1]:
        raise VerifyInputError(f"Argument 'A' must be a square matrix, not shape {A.shape}.")
    scale = max(1.0, float(np.max(np.abs(A)))) if A.size else 1.0
    # symmetry to 1e-10 relative: an A = W^T W computed in float64 is symmetric to round-off only
    if A.size and float(np.max(np.abs(A - A.T))) > 1e-10 * scale:
        raise VerifyInputError("Argument 'A' must be symmetric (A = W^T W).")


def _to_mp(v):
    if isinstance(v, sympy.Basic):
        if v.is_Rational:
            return mpmath.mpf(int(v.p)) / int(v.q)
        return mpmath.mpf(sympy.N(v, mpmath.mp.dps + 5))
    if hasattr(v, "numerator") and hasattr(v, "denominator") and not isinstance(v, (float, np.floating)):
        return mpmath.mpf(int(v.numerator)) / int(v.denominator)
    return mpmath.mpf(v)


def _to_mp_matrix(X, name):
    arr = np.asarray(X, dtype=object)
    if arr.ndim != 2:
        raise VerifyInputError(f"Argument {name!r} must be a 2-D array, not an array of shape {arr.shape}.")
    out = mpmath.matrix(arr.shape[0], arr.shape[1])
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            try:
                v = _to_mp(arr[i, j])
            except (TypeError, ValueError):   # complex, text, None: not a real number
                raise VerifyInputError(f"Argument {name!r} must hold real numbers (floats, rationals or numeric "
                                       f"strings), not {arr[i, j]!r}.") from None
            if not mpmath.isfinite(v):
                raise VerifyInputError(f"Argument {name!r} must be finite (no NaN or inf entries).")
            out[i, j] = v
    return out


def _mp_loss(A: mpmath.matrix, p, m: int, dist: Distribution):
    n = A.rows
    if A.cols != n:
        raise VerifyInputError(f"Argument 'A' must be a square matrix, not shape {(A.rows, A.cols)}.")
    f = _row_function(m, "mpmath")
    moms = [_to_mp(dist.moment(k)) for k in range(2, 2 * m + 1, 2)]
    pm = _to_mp(p)
    total = mpmath.mpf(0)
    for i in range(n):
        sums = [mpmath.fsum(A[i, j] ** k for j in range(n) if j != i) for k in range(2, 2 * m + 1, 2)]
        total += f(pm, *moms, A[i, i], *sums)
    return total


def exact_loss(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", dps: int | None = None, route: str = "auto"):
    r"""Paper S's :math:`\tilde L(W) = 2\mathbb E\langle x, (W^TWx)^{\odot m}\rangle - \mathbb E\|(W^TWx)^{\odot m}\|^2`
    for ``W`` of shape (d, n), exactly (no sampling), from the derived polynomial.

    :param p: Bernoulli rate in (0, 1].
    :param m: odd power of :math:`\phi(t) = t^m`.
    :param mu: distribution name, :class:`~verify.numeric.distributions.Distribution` or moment list.
    :param dps: ``None`` -> float64; an integer -> ``mpmath.mpf`` at that many digits.
    :param route: ``"gram"`` (strips of the upper triangle of the symmetric :math:`A = W^TW`, :math:`O(n^2 d)`),
        ``"gram_rows"`` (full row blocks of A: the same sums, twice the work; the reference for the strips),
        ``"power_sums"`` (moment matrices of :mod:`verify.numeric.power_sums`, linear in n, never forms A),
        ``"tensor"`` (the symmetric tensors :math:`\sum_j w_j^{\otimes 2k}` contracted directly, each monomial built
        once; compiled with numba when installed, else numpy; linear in n), ``"collapsed"`` (the same tensors, each
        row contracted to degree 2m - 2 only and the degree-2m terms summed at once as
        :math:`\langle S_{2m}, S_{2m}\rangle`: :func:`verify.symbolic.superposition_loss.collapsed_row_polynomial`,
        :func:`verify.numeric.power_sums.collapsed_sums`; linear in n, fewer flops than tensor) or ``"auto"``
        (the cheapest by :func:`verify.numeric.power_sums.route_costs`; with ``dps`` set, auto means gram).

    >>> exact_loss(np.eye(1), 1.0, m=1, mu="gaussian")   # p mu_2 (2 - 1)
    1.0
    """
    p, m, dist = _check_common(p, m, mu)
    if dps is None:
        W = _check_W(W)
        route = route if route == "gram_rows" else _ps.choose_route(route, W.shape[0], W.shape[1], m, tensor=True)
        return _float_loss(p, m, dist, W=W, route=route)  # A = W^T W is built blockwise, symmetric by construction
    dps = verify_int(dps, "dps", minimum=5)
    # auto means gram here: the mpmath route is for small n, where forming A is cheaper (choose_route validates)
    route = _ps.choose_route("gram" if route in ("auto", "gram_rows") else route, 1, 1, m)
    with mpmath.workdps(dps):
        Wm = _to_mp_matrix(W, "W")
        if route == "collapsed":                # the numpy kernel over mpf objects
            return _collapsed_loss(p, m, dist, np.array(Wm.tolist(), dtype=object), "mpmath", "numpy")
        if route in ("power_sums", "tensor"):
            return _mp_loss_power_sums(Wm, p, m, dist, route)
        return _mp_loss(Wm.T * Wm, p, m, dist)


def _mp_loss_power_sums(Wm: mpmath.matrix, p, m: int, dist: Distribution, route: str = "power_sums"):
    Wo = np.array(Wm.tolist(), dtype=object)
    if route == "tensor":                      # the numpy kernel of the tensor route, over mpf objects
        tps = _ps.TensorPowerSums(Wo, m)
        diag, sums = tps.diag, tps.T
    else:
        diag, sums = _ps.row_power_sums(Wo, m)
    f = _row_function(m, "mpmath")
    moms = [_to_mp(dist.moment(k)) for k in range(2, 2 * m + 1, 2)]
    pm = _to_mp(p)
    return mpmath.fsum(f(pm, *moms, diag[i], *(s[i] for s in sums)) for i in range(len(diag)))


def exact_loss_grad(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", route: str = "auto") -> np.ndarray:
    r"""Exact gradient :math:`\nabla_W \tilde L = W(G + G^T)` (see :func:`verify.symbolic.superposition_loss.grad_expression`):

    .. math:: G_{ij} = \delta_{ij}\,\partial_{A_{ii}} f_m(i) + (1-\delta_{ij})\sum_{l=1}^m 2l\,A_{ij}^{2l-1}\,\partial_{T_{2l}} f_m(i).

    float64, shape (d, n), :math:`O(n^2 (d + m))` time; ``route`` as in :func:`exact_loss` (``"gram"``:
    :math:`\nabla_W\tilde L = WH`, :math:`H = G + G^T` symmetric, from the upper triangle of A;
    ``"gram_rows"``: :math:`WG + WG^T` from full row blocks; ``"power_sums"``:
    :meth:`verify.numeric.power_sums.RowPowerSums.grad`; ``"tensor"``:
    :meth:`verify.numeric.power_sums.TensorPowerSums.grad`; ``"collapsed"``:
    :func:`verify.numeric.power_sums.collapsed_grad`, numba only; all three linear in n).
    """
    p, m, dist = _check_common(p, m, mu)
    W = _check_W(W)
    n = W.shape[1]
    route = route if route == "gram_rows" else _ps.choose_route(route, W.shape[0], n, m, grad=True, tensor=True)
    if route == "collapsed":
        return _collapsed_loss_grad(p, m, dist, W)
    if route == "tensor":
        rps = _ps.TensorPowerSums(W, m)
    else:
        rps = _ps.RowPowerSums(W, m, for_grad=True) if route == "power_sums" else None
    if rps is not None:
        diag, sums = rps.diag, rps.T
    else:
        diag, sums = _stats(m, W=W) if route == "gram_rows" else _stats_symmetric(m, W)
    f, moms = _row_grad_function(m), _moments_float(dist, m)
    d_a, d_T = np.empty(n), [np.empty(n) for _ in range(m)]
    for s, e in _row_chunks(n):
        out = f(float(p), *moms, diag[s:e], *(t[s:e] for t in sums))
        for dst, g in zip([d_a] + d_T, out):
            dst[s:e] = g                      # broadcasts the constants of the derivative (e.g. m = 1)
    if rps is not None:
        return rps.grad(d_a, d_T)
    if route == "gram":
        return _grad_symmetric(W, m, d_a, d_T)
    grad = np.zeros_like(W)
    for start, stop, off in _blocks(W):
        rows = slice(start, stop)
        sq = off * off
        # G_ij = sum_l 2l dT_2l(i) A_ij^(2l-1) = A_ij * sum_l 2l dT_2l(i) (A_ij^2)^(l-1): Horner in A_ij^2
        G = np.broadcast_to((2 * m) * d_T[m - 1][rows, None], off.shape).copy()
        for l in range(m - 1, 0, -1):
            G *= sq
            G += (2 * l) * d_T[l - 1][rows, None]
        G *= off
        idx = np.arange(stop - start)
        G[idx, idx + start] = d_a[rows]
        grad += W[:, rows] @ G          # (W G)[:, j] = sum_i W[:, i] G_ij over the block's rows i
        grad[:, rows] += W @ G.T        # (W G^T)[:, i] = sum_j W[:, j] G_ij for the block's rows i
    return grad


# --------------------------------------------------------------------------- Monte Carlo
def monte_carlo_loss(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", samples: int = 100_000, seed: int = 0,
                     chunk: int | None = None) -> tuple:
    r"""Monte Carlo estimate of :math:`\tilde L(W)` and its standard error from ``samples`` i.i.d. draws of
    :math:`x = \xi \odot b` (per-sample value :math:`2\langle x, \phi(Ax)\rangle - \|\phi(Ax)\|^2`,
    computed as :math:`W^T(Wx)` so one sample costs :math:`O(nd)`; :math:`\xi` is drawn only where
    :math:`b = 1`). Samples are processed in chunks of ``chunk`` rows (default: about 4M entries).

    Returns ``(estimate, stderr)``; same ``seed`` gives the same numbers.
    """
    p, m, dist = _check_common(p, m, mu)
    W = _check_W(W)
    samples = verify_int(samples, "samples", minimum=2)
    seed = verify_int(seed, "seed", minimum=0)
    n = W.shape[1]
    chunk = max(1, (1 << 22) // max(n, 1)) if chunk is None else verify_int(chunk, "chunk", minimum=1)
    rng = np.random.default_rng(seed)
    # the variance by Chan et al.'s pairwise update of (count, mean, sum of squared deviations) over the chunks:
    # the one-pass E[v^2] - E[v]^2 cancels catastrophically when the variance is small against the mean squared
    # (a standard error of ~1e-9 for a law of variance zero)
    # (the estimate stays the plain sum over N, as before; the running mean serves only the update)
    total, run_mean, m2, done = 0.0, 0.0, 0.0, 0
    while done < samples:
        k = min(chunk, samples - done)
        x = np.zeros((k, n))
        support = rng.random((k, n)) < float(p)
        x[support] = dist.sample(rng, int(support.sum()))
        phi = (x @ W.T) @ W
        phi **= m
        vals = 2.0 * np.einsum("ij,ij->i", x, phi) - np.einsum("ij,ij->i", phi, phi)
        total += vals.sum()
        mean_b = vals.mean()
        delta = mean_b - run_mean
        run_mean += delta * k / (done + k)
        m2 += float(((vals - mean_b) ** 2).sum()) + delta * delta * done * k / (done + k)
        done += k
    mean = total / samples
    var = m2 / (samples - 1)
    return float(mean), float(np.sqrt(var / samples))


#: outputs drawn per sample off the support by the Rao-Blackwellised sampler (about 1000 stratified outputs
#: make a sample's cost independent of n)
_RB_OUTPUTS = 1024

#: cost of one Rao-Blackwellised sample in BLAS FLOPs: per entry of its two blocks of A (|b| x |b| and K x |b|;
#: the product, m powers, sums: memory-bound passes) and fixed (Python, a dozen numpy calls). Measured on the
#: 2-core Xeon at load ~4: 41 ms CPU per sample at d = 10, m = 3, |b| = 1000, K = 1024, against a 3000 x 3000 gemm
#: at 73 GFLOP/s in the same process (1.5e3 FLOPs per entry). The pilot's sample count.
_RB_ENTRY_FLOPS = 1.5e3
_RB_SAMPLE_OVERHEAD_FLOPS = 2e7
_RB_PILOT = 16
#: model cost of the sampler's once-per-W preparation (C = WW^T, CW, three einsums: memory-bound passes over W) per
#: entry of W, in BLAS FLOPs: measured 85 ms CPU at d = 10, n = 10^6 on the 2-core EPYC (gemm ~53 GFLOP/s)
_RB_PREPARE_ENTRY_FLOPS = 400.0

#: the costs that choose loss_to_accuracy's route, in CPU seconds of this process (``time.process_time``): the exact
#: route's whole run, the sampler's once-per-W preparation and one of its samples (its ``costs`` argument's keys)
_COST_KEYS = ("exact", "rb_cv_prepare", "rb_cv_sample")
#: the static model above and route_costs (BLAS-FLOP units, fitted on one machine) decides alone only where it puts one
#: route this many times below the other: a host moves the ratio of the two routes' costs (measured 2.2x between
#: the AVX2 and the native build of the 2-core EPYC, and 3x between the EPYC and the Xeon the model was fitted on);
#: nearer, the costs are measured on the host
_MODEL_SLACK = 8.0
#: the sampler is taken (and goes on sampling) only where its predicted time times this margin is below the exact
#: route's: the costs come from probes of milliseconds (spread 10-30% on a loaded host), the sample count from the
#: spread of a few samples, and the exact route's value has no sampling error, so a near tie goes to it
_ROUTE_MARGIN = 1.25
#: the exact route's timed slice: the fewest columns of W whose model cost is this share of W's (1.5%; measured on the
#: 2-core EPYC at n = 10^6, m = 3: the slice's time scaled up is the route's within 20% at 1/16 to 1/128)
_EXACT_SLICE_SHARE = 1 / 64
#: columns of the exact route's warm-up call (it compiles or loads the kernels) and of its timed fixed-cost call
_EXACT_TINY = 256
#: the pilot's first samples, timed one by one where they decide (the least time is kept: the first sample of a
#: process pays page faults, measured 33 ms against 18 ms)
_RB_PROBES = 2


def _clock() -> float:
    """CPU seconds of this process: the costs that choose loss_to_accuracy's route (tests replace it)."""
    return time.process_time()


def _rb_sample(W, prep, p, m, dist_moms, f, rng, K):
    r"""One Rao-Blackwellised sample: the support :math:`b` drawn, :math:`\xi` integrated out exactly, the outputs
    off the support subsampled. Returns ``(y, h)``: :math:`y` unbiased for :math:`\tilde L` and the control
    variates :math:`h` (mean zero)."""
    (C, trC), C_fro, diag2, r, R = prep
    d, n = W.shape
    # the support without an n-long draw: its size, then its members (Floyd's sampling: O(|b|), not O(n))
    B = np.sort(rng.choice(n, size=int(rng.binomial(n, p)), replace=False))
    Wb = W[:, B]
    Mb = Wb @ Wb.T
    # outputs in the support, exactly: x_i = xi_i, so the row term is f_m at p = 1 over the support's columns
    Abb = Wb.T @ Wb
    a = np.diag(Abb).copy()
    sq = Abb * Abb
    q1_in = sq.sum(axis=1)                                 # w_i^T M_b w_i for i in b
    np.fill_diagonal(sq, 0.0)
    T, pw = [sq.sum(axis=1)], sq
    for _ in range(1, m):
        pw = pw * sq
        T.append(pw.sum(axis=1))
    y_in = float(np.sum(np.broadcast_to(f(1.0, *dist_moms, a, *T), a.shape))) if len(B) else 0.0
    # outputs off the support: x_i = 0, so the row term is f_m at p = 1, A_ii = 0, T_k = sum_{j in b} A_ij^k
    # (-E[(w_i . y)^{2m} | b]); K outputs drawn uniformly with replacement, those in b count zero
    I = rng.integers(0, n, K)
    at = np.minimum(np.searchsorted(B, I), max(len(B) - 1, 0))
    I = I[B[at] != I] if len(B) else I
    AIb = W[:, I].T @ Wb
    sq = AIb * AIb
    Q, pw = [sq.sum(axis=1)], sq
    for _ in range(1, m):
        pw = pw * sq
        Q.append(pw.sum(axis=1))
    zero = np.zeros(len(I))
    y_off = (n / K) * float(np.sum(np.broadcast_to(f(1.0, *dist_moms, zero, *Q), zero.shape))) if len(I) else 0.0
    # control variates of known mean: tr M_b, ||M_b||_F^2 (over b); the subsample's sum of w_i^T M_b w_i against
    # its exact total off the support, tr(M_b C) - sum_{i in b} w_i^T M_b w_i (mean zero given b); and the powers
    # r_i^k of r_i = w_i^T C w_i (M_b's mean is pC, so r_i^k follows E[y_i^2k | b]): the subsample's sum against
    # the total off the support, and the support's sum against its mean p sum_i r_i^k
    tr = float(np.trace(Mb))
    fro = float(np.sum(Mb * Mb))
    q1_off_total = float(np.sum(Mb * C)) - float(q1_in.sum())
    # ordered by their measured worth (forward selection at d = 4-10, m = 3 and 5: ||M_b||_F^2 takes 70-75% of
    # the spread, the subsample's r^m the next half of the rest), since a small N fits only the first few
    rI, rB = r[I], r[B]
    in_b = [float(np.sum(rB ** k)) for k in range(1, m + 1)]
    h = [fro - (p * diag2 + p * p * (C_fro - diag2))]
    h += [(n / K) * float(np.sum(rI ** k)) - (R[k - 1] - in_b[k - 1]) for k in range(m, 0, -1)]
    h += [tr - p * trC, (n / K) * float(Q[0].sum()) - q1_off_total]
    h += [in_b[k - 1] - p * R[k - 1] for k in range(1, m + 1)]
    return y_in + y_off, h


def rb_loss_samples(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", samples: int = 64, seed: int = 0,
                    outputs: int | None = None) -> tuple:
    r"""``samples`` i.i.d. Rao-Blackwellised samples of :math:`\tilde L`: arrays ``(y, h)`` of shapes (N,) and (N, 3 + 2m).

    Given the support :math:`b`, :math:`x_j = \xi_j` on b and 0 elsewhere, and :math:`y_i = \sum_{j\in b}A_{ij}\xi_j`
    is a sum of independent scaled variables with cumulants :math:`\kappa_k(\xi)\sum_{j\in b}A_{ij}^k` -- for
    every law of the package, not only the Gaussian. So :math:`\mathbb E[v\mid b]` is the row polynomial
    :math:`f_m` at :math:`p = 1` (:func:`verify.symbolic.superposition_loss.row_polynomial`): with
    :math:`(A_{ii}, T_{k,i}) = (A_{ii}, \sum_{j\in b\setminus i}A_{ij}^k)` for :math:`i \in b` (all of them, exactly) and
    :math:`(0, \sum_{j\in b}A_{ij}^k)` for :math:`i\notin b` (``outputs`` drawn uniformly, those in b counting zero,
    times :math:`n/K`). Cost per sample :math:`O(|b|^2 d + K|b|d)`, independent of n. ``h``: control variates of
    mean zero, :math:`\operatorname{tr}M_b - p\operatorname{tr}C`, :math:`\|M_b\|_F^2 - \mathbb E\|M_b\|_F^2`
    (:math:`M_b = \sum_{j\in b}w_jw_j^T`, :math:`C = WW^T`) and the subsample's :math:`\sum_i w_i^TM_bw_i` less its
    exact total off the support, and with :math:`r_i = w_i^TCw_i` for k = 1..m the subsample's :math:`\sum r_i^k` less
    its total off the support and the support's less its mean. Seeded: the same ``seed`` gives the same arrays.
    """
    p, m, dist = _check_common(p, m, mu)
    W = _check_W(W)
    samples = verify_int(samples, "samples", minimum=1)
    seed = verify_int(seed, "seed", minimum=0)
    K = min(_RB_OUTPUTS, W.shape[1]) if outputs is None else verify_int(outputs, "outputs", minimum=1)
    return _rb_run(W, float(p), m, dist, samples, np.random.default_rng(seed), K)


def _rb_prepare(W, m):
    r"""Once per W: :math:`C = WW^T`, its trace, :math:`\|C\|_F^2`, :math:`\sum_i A_{ii}^2`, :math:`r_i = w_i^TCw_i` and
    :math:`\sum_i r_i^k` (k = 1..m): O(n d^2), memory-bound passes over W (its callers limit BLAS to one thread:
    measured 66 ms CPU against 100 ms with two at d = 10, n = 10^6 on the loaded 2-core EPYC)."""
    C = W @ W.T
    diag = np.einsum("ij,ij->j", W, W)
    r = np.einsum("ij,ij->j", W, C @ W)
    return (C, float(diag.sum())), float(np.sum(C * C)), float(np.sum(diag * diag)), r, \
        [float(np.sum(r ** k)) for k in range(1, m + 1)]


def _rb_run(W, p, m, dist, samples, rng, K, prep=None):
    with single_blas_thread():          # many small products: spinning BLAS threads cost 4x (measured, loaded)
        prep = _rb_prepare(W, m) if prep is None else prep
        return _rb_draw(W, prep, p, m, dist, samples, rng, K)


def _rb_draw(W, prep, p, m, dist, samples, rng, K):
    """``samples`` samples from ``rng`` on the preparation ``prep`` (the caller limits BLAS to one thread): runs of
    k and then l samples from one generator are the draws of one run of k + l."""
    f, moms = _row_function(m, "numpy"), [float(dist.moment(k)) for k in range(2, 2 * m + 1, 2)]
    ys, hs = np.empty(samples), np.empty((samples, 3 + 2 * m))
    for s in range(samples):
        ys[s], hs[s] = _rb_sample(W, prep, p, m, moms, f, rng, K)
    return ys, hs


def _cv_estimate(ys, hs):
    r"""Control-variate estimate ``(value, standard error, dof)``, cross-fitted: the samples split in two folds
    (even and odd draws), each fold's y corrected by the coefficients fitted on the other fold
    (:math:`z_i = y_i - \hat\beta_{-f}^T h_i`, the first q = (N/2 - 2) // 5 of the mean-zero h), so every
    :math:`z_i` has mean :math:`\tilde L` exactly and the error comes from their own spread, out of sample
    (N - 1 degrees of freedom). Measured at d = 4, n = 60, p = 0.1 (six features in a support: skewed samples),
    200 seeds: coefficients fitted in sample held the loss in 185 of 200 95% intervals at N = 200 with 9
    controls, 163 at N = 40."""
    N = len(ys)
    q = min(hs.shape[1], max(0, (N // 2 - 2) // 5))
    if q == 0:
        return float(ys.mean()), float(ys.std(ddof=1) / np.sqrt(N)) if N > 1 else float("inf"), max(1, N - 1)
    folds = [np.arange(0, N, 2), np.arange(1, N, 2)]
    z = np.empty(N)
    for f in (0, 1):
        fit, use = folds[1 - f], folds[f]
        H = hs[fit, :q]
        scale = np.where(np.ptp(H, axis=0) > 0, np.std(H, axis=0), 1.0)   # unit spread: the h differ in size
        X = np.column_stack([np.ones(len(fit)), H / scale])
        coef, *_ = np.linalg.lstsq(X, ys[fit], rcond=None)
        z[use] = ys[use] - (hs[use, :q] / scale) @ coef[1:]
    return float(z.mean()), float(z.std(ddof=1) / np.sqrt(N)), N - 1


@dataclass
class LossEstimate:
    r"""Result of :func:`loss_to_accuracy`: ``value`` and ``error``, the half-width of the interval
    ``value +- error`` that holds :math:`\tilde L` with probability about ``confidence`` (Monte Carlo; Student t on
    the control-variate residuals), or, for the exact routes, a float64 round-off allowance (:math:`10^{-12}|`value
    :math:`|`; the routes agree to :math:`10^{-13}` in the tests); ``method`` (``"exact:<route>"`` or
    ``"rb_cv"``), ``samples`` drawn (pilot included); ``predicted``: the host costs that chose the route, in CPU
    seconds (keys among ``"exact"``, ``"rb_cv_prepare"``, ``"rb_cv_sample"``: measured, or given as ``costs``; only
    those a decision needed); ``model``: the static model's costs of the same (BLAS-FLOP units); ``reason``: how the
    route was chosen (each decision, in order)."""

    value: float
    error: float
    method: str
    samples: int
    confidence: float
    predicted: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)
    reason: str = ""


def loss_to_accuracy(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", rtol: Any = 1e-2, seed: int = 0,
                     confidence: Any = 0.95, method: str = "auto", samples: int | None = None,
                     costs: dict | None = None) -> LossEstimate:
    r""":math:`\tilde L(W)` to relative accuracy ``rtol`` (the interval's half-width over :math:`|\tilde L|`) by the
    route predicted fastest on this host: the exact route (:func:`exact_loss` on the route
    :func:`verify.numeric.power_sums.choose_route` takes) or the Rao-Blackwellised control-variate sampler
    (:func:`rb_loss_samples`: per sample :math:`O(|b|^2d + Kd|b|)` after an :math:`O(nd^2)` preparation, its spread
    measured by a pilot of ``_RB_PILOT`` samples and the sample count :math:`N = (t\,\sigma/(\mathrm{rtol}\,|\hat
    L|))^2` predicted from it). ``method``: ``"auto"``, or ``"exact"`` / ``"rb_cv"`` (forced: nothing is timed to
    choose); ``samples`` fixes N for the sampler.

    How ``"auto"`` chooses. The sampler needs its preparation and at least :math:`N_0` samples (the pilot, or
    ``samples``); it is taken where their cost, times a margin ``_ROUTE_MARGIN`` = 1.25 (a near tie goes to the exact
    value), is below the exact route's, and after each round of samples it goes on only where the samples its spread
    still asks for, times the margin, cost less than the exact route (else the exact route is run: what the sampler
    spent is lost, at most :math:`1/1.25` of the exact route's time). Each decision takes its costs

    * from ``costs`` (CPU seconds, keys ``"exact"``, ``"rb_cv_prepare"``, ``"rb_cv_sample"``) where they hold every
      cost it needs: nothing timed decides, so the route, and with it the value, is fixed by the arguments;
    * else from the static model (:func:`verify.numeric.power_sums.route_costs` and the sampler's per-entry costs,
      fitted on one machine, BLAS-FLOP units) where it puts one route more than ``_MODEL_SLACK`` = 8 times below the
      other (a host moves the ratio of the two by 2-3x);
    * else from this host, in CPU seconds (``time.process_time``: other processes' load moves it little): the exact
      route's by a slice of W's columns of 1/64 of its model cost, scaled by the model's operation count past a
      timed call on 256 columns (its fixed cost; about 3% of the route in all); the sampler's by its own work, which
      it needs anyway: W's preparation and the pilot's first ``_RB_PROBES`` = 2 samples, timed, after which the rest
      of the pilot is drawn only where it is predicted cheaper than the exact route (the spent part not counted).
      Later decisions use the samples' mean time.

    The result says what chose: ``predicted`` (the seconds the last decision used; passed back as ``costs`` it
    repeats that choice without timing), ``model`` and ``reason``. For a fixed route the value is deterministic: the
    exact route's is :func:`exact_loss`'s, the sampler's that of ``method="rb_cv"`` with the same ``seed`` (the same
    draws; the sample count follows the seeded spread only). Where timing chose the route, another run may take the
    other one: ``method`` or ``costs`` fixes it.

    >>> W = np.random.default_rng(0).normal(size=(4, 30))
    >>> est = loss_to_accuracy(W, 0.1, 3, rtol=1e-3)     # small n: the exact route is cheaper by the model alone
    >>> est.method, est.value == exact_loss(W, 0.1, 3), est.reason.startswith("auto, by the static model")
    ('exact:gram', True, True)
    >>> loss_to_accuracy(W, 0.1, 3, rtol=0.5, costs={"exact": 1.0, "rb_cv_prepare": 0.0, "rb_cv_sample": 1e-3}).method
    'rb_cv'
    """
    from scipy.stats import t as student_t

    p, m, dist = _check_common(p, m, mu)
    W = _check_W(W)
    rtol = _check_rtol(rtol)
    conf = _check_confidence(confidence)
    method = _check_method(method)
    given = _check_costs(costs)
    seed = verify_int(seed, "seed", minimum=0)
    fixed = None if samples is None else verify_int(samples, "samples", minimum=4)
    d, n = W.shape
    route = _ps.choose_route("auto", d, n, m, tensor=True)
    K = min(_RB_OUTPUTS, n)
    pn = float(p) * n
    model = {"exact": _ps.route_costs(d, n, m)[route],
             "rb_cv_prepare": _RB_PREPARE_ENTRY_FLOPS * d * n,
             "rb_cv_sample": _RB_ENTRY_FLOPS * (m + 3) / 6 * (pn * pn + K * pn) + _RB_SAMPLE_OVERHEAD_FLOPS}
    known, reasons, exact_value = dict(given), [], []

    def measure_exact():            # its value kept where the measurement ran the whole route (a small W)
        known["exact"], value = _exact_seconds(W, p, m, dist, route)
        exact_value.extend([] if value is None else [value])

    def exact_result(drawn: int) -> LossEstimate:
        value = exact_value[0] if exact_value else exact_loss(W, p, m, dist, route=route)
        return LossEstimate(value, 1e-12 * abs(value), f"exact:{route}", drawn, conf, _used(known), model,
                            "; ".join(reasons))

    def by_costs(sampler_s: float, keys: tuple, when: str, what: str) -> bool:
        go = _prefer_sampler(sampler_s, known["exact"])
        src = "given" if all(k in given for k in keys) else \
            "measured on this host" if not any(k in given for k in keys) else "given and measured"
        reasons.append(f"auto, by costs {src} ({when}): the sampler's {what} {sampler_s:.3g} s x margin "
                       f"{_ROUTE_MARGIN:g} {'<' if go else '>='} exact:{route} {known['exact']:.3g} s")
        return go

    def by_model(sampler_model: float, when: str, what: str) -> str | None:
        verdict = _model_verdict(sampler_model, model["exact"])
        reasons.append(f"auto, {'by' if verdict else 'not by'} the static model ({when}): the sampler's {what} "
                       f"{sampler_model:.3g} against exact:{route} {model['exact']:.3g} BLAS-FLOP units, "
                       + (f"{verdict} by more than {_MODEL_SLACK:g}x" if verdict else
                          f"within {_MODEL_SLACK:g}x either way: timed"))
        return verdict

    if method == "exact":
        reasons.append("method='exact'")
        return exact_result(0)
    z = float(student_t.ppf(0.5 + conf / 2, 30))
    # before any pilot: a spread below 1e-3 of the loss per sample is not expected, so N >= (z 1e-3 / rtol)^2
    first = _RB_PILOT if fixed is None else fixed
    floor = first if fixed is not None else max(_RB_PILOT, int(np.ceil((z * 1e-3 / rtol) ** 2)))
    timed = False               # the sampler's own first samples decide, against the exact route's measured cost
    if method == "rb_cv":
        reasons.append("method='rb_cv'")
    else:
        what = f"preparation and {floor} samples"
        if all(k in given for k in _COST_KEYS):
            go = by_costs(given["rb_cv_prepare"] + floor * given["rb_cv_sample"], _COST_KEYS, "before sampling", what)
        else:
            verdict = by_model(model["rb_cv_prepare"] + floor * model["rb_cv_sample"], "before sampling", what)
            go, timed = verdict != "exact", verdict is None
        if not go:
            return exact_result(0)
        if timed and "exact" not in known:
            measure_exact()
    one_thread = _blas_limiter()
    rng = np.random.default_rng(seed)
    with one_thread():
        t_prep, prep = _timed(lambda: _rb_prepare(W, m))
    if "rb_cv_prepare" not in given:
        known["rb_cv_prepare"] = t_prep

    def draw(count: int) -> tuple:
        """``count`` more seeded samples (the same draws as one run of all of them) and their CPU seconds."""
        with one_thread():
            return _timed(lambda: _rb_draw(W, prep, float(p), m, dist, count, rng, K))

    # the pilot: its first _RB_PROBES samples one by one (the least time kept: a process's first sample pays page
    # faults), then, where they decide, the rest only if it is predicted cheaper than the exact route (what is
    # spent is spent)
    probes = [draw(1) for _ in range(min(_RB_PROBES, first))]
    if "rb_cv_sample" not in given:
        known["rb_cv_sample"] = min(t for t, _ in probes)
    if timed and not by_costs((floor - len(probes)) * known["rb_cv_sample"], ("rb_cv_sample", "exact"),
                              f"after the preparation and {len(probes)} samples",
                              f"{floor - len(probes)} further samples"):
        return exact_result(len(probes))
    t_rest, rest = draw(first - len(probes))
    if "rb_cv_sample" not in given:     # the pilot's own samples, the first one left out (its page faults)
        known["rb_cv_sample"] = (sum(t for t, _ in probes[1:]) + t_rest) / (first - 1)
    ys = np.concatenate([y for _, (y, _) in probes] + [rest[0]])
    hs = np.concatenate([h for _, (_, h) in probes] + [rest[1]])
    value, se, dof = _cv_estimate(ys, hs)
    # N = (t sigma / (rtol |L|))^2 from the spread so far (the pilot of 16 fits the first control variate,
    # ||M_b||_F^2), the exact route taken once the samples still to draw are predicted to cost more; at most 4x
    # the samples so far per round (the further control variates fitted as N grows cut the spread again)
    for _ in range(12 if fixed is None else 0):
        half = float(student_t.ppf(0.5 + conf / 2, dof)) * se
        if half <= rtol * abs(value):
            break
        need = int(np.ceil(len(ys) * (half / (rtol * max(abs(value), 1e-300))) ** 2 * 1.1))
        if method == "auto":
            more, when = need - len(ys), f"after {len(ys)} samples, {need} asked"
            what = f"{more} further samples"
            go = None
            if "exact" not in known:
                verdict = by_model(more * model["rb_cv_sample"], when, what)
                go = None if verdict is None else verdict == "rb_cv"
                if go is None:
                    measure_exact()
            if go is None:
                go = by_costs(more * known["rb_cv_sample"], ("rb_cv_sample", "exact"), when, what)
            if not go:
                return exact_result(len(ys))
        need = min(need, 4 * len(ys))
        t_more, (y2, h2) = draw(need - len(ys))
        if "rb_cv_sample" not in given:
            known["rb_cv_sample"] = (known["rb_cv_sample"] * len(ys) + t_more) / need
        ys, hs = np.concatenate([ys, y2]), np.concatenate([hs, h2])
        value, se, dof = _cv_estimate(ys, hs)
    half = float(student_t.ppf(0.5 + conf / 2, dof)) * se
    return LossEstimate(value, half, "rb_cv", len(ys), conf, _used(known), model, "; ".join(reasons))


def _blas_limiter():
    """A factory of contexts that limit BLAS to one thread, as :func:`single_blas_thread`, with threadpoolctl's scan of
    the loaded libraries done once (3 ms a context otherwise: measured, three or more contexts a call)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # optional: without it the sampler is only slower
        import contextlib
        return contextlib.nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=1, user_api="blas")


def _used(known: dict) -> dict:
    return {k: float(known[k]) for k in _COST_KEYS if k in known}


def _timed(fn) -> tuple:
    """``(CPU seconds, result)`` of ``fn()``."""
    t0 = _clock()
    out = fn()
    return _clock() - t0, out


def _prefer_sampler(sampler_s: float, exact_s: float) -> bool:
    """The sampler, predicted to take ``sampler_s``, is taken over the exact route (``exact_s``): only where it wins by
    the margin ``_ROUTE_MARGIN`` (a near tie goes to the exact value)."""
    return sampler_s * _ROUTE_MARGIN < exact_s


def _model_verdict(sampler_model: float, exact_model: float) -> str | None:
    """``"rb_cv"`` or ``"exact"`` where the static model puts that route more than ``_MODEL_SLACK`` times below the
    other (a host's calibration cannot turn that round), else None (measure)."""
    if sampler_model * _MODEL_SLACK < exact_model:
        return "rb_cv"
    if exact_model * _MODEL_SLACK < sampler_model:
        return "exact"
    return None


def _slice_columns(d: int, n: int, m: int, route: str, share: float = _EXACT_SLICE_SHARE) -> int:
    """The fewest columns k <= n whose model cost (route_costs) is at least ``share`` of n columns' (bisection: the
    costs grow with k)."""
    def cost(k):
        return _ps.route_costs(d, k, m)[route]

    target, lo, hi = share * cost(n), 1, n
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if cost(mid) < target else (lo, mid)
    return lo


def _extrapolate(t0: float, t1: float, c0: float, c1: float, c: float) -> float:
    """Seconds at model cost ``c`` from ``t0`` seconds at ``c0`` and ``t1`` at ``c1`` (c0 < c1 <= c): the fixed
    time t0 plus the slope between the two; the slope at least half of t1 / c1 (a slice barely above the fixed
    call's time, or a noisy one, must not predict a free route)."""
    if c1 <= c0:                                    # no second size: proportional to the model
        return t1 * c / c1
    return t0 + max((t1 - t0) / (c1 - c0), 0.5 * t1 / c1) * (c - c0)


def _exact_seconds(W, p, m, dist, route) -> tuple:
    """``(seconds, value)``: predicted CPU seconds of ``exact_loss(W, route=route)`` from a warm-up call on
    ``_EXACT_TINY`` columns (it compiles or loads the kernels), the same call timed (the route's fixed cost), a slice
    of 1/64 of the model cost timed (each the least of two: the first call on a size pays its page faults), and
    :func:`_extrapolate` by the model's operation counts, value None; where the slice would be half of W or more,
    W's own time and its value."""
    d, n = W.shape
    n0 = min(_EXACT_TINY, n)
    n1 = max(_slice_columns(d, n, m, route), 2 * n0)
    exact_loss(W[:, :n0], p, m, dist, route=route)
    if n1 >= n // 2:
        return _timed(lambda: exact_loss(W, p, m, dist, route=route))
    t0, t1 = (min(_timed(lambda k=k: exact_loss(W[:, :k], p, m, dist, route=route))[0] for _ in range(2))
              for k in (n0, n1))

    def cost(k):
        return _ps.route_costs(d, k, m)[route]

    return _extrapolate(t0, t1, cost(n0), cost(n1), cost(n)), None


def _check_rtol(rtol):
    v = _as_real(rtol, "rtol", "a real number in (0, 1)")
    if not 0 < v < 1:
        raise VerifyInputError(f"Argument 'rtol' must be a real number in (0, 1), not {rtol!r}.")
    return v


def _check_confidence(conf):
    v = _as_real(conf, "confidence", "a real number in (0, 1)")
    if not 0 < v < 1:
        raise VerifyInputError(f"Argument 'confidence' must be a real number in (0, 1), not {conf!r}.")
    return v


def _check_method(method):
    return verify_choice(method, "method", ("auto", "exact", "rb_cv"))


def _check_costs(costs) -> dict:
    """``costs`` of :func:`loss_to_accuracy`: None, or a dict of CPU seconds (finite reals >= 0) keyed by some of
    ``_COST_KEYS``."""
    if costs is None:
        return {}
    ok = isinstance(costs, dict) and all(isinstance(k, str) and k in _COST_KEYS for k in costs) and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v)) and float(v) >= 0
        for v in costs.values())
    if not ok:
        raise _fail("costs", "None or a dict of CPU seconds (finite real numbers >= 0) keyed by some of "
                    + ", ".join(map(repr, _COST_KEYS)), costs)
    return {k: float(v) for k, v in costs.items()}


def quadrature_moment(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", power: int = 1, max_points: int = 2_000_000):
    r""":math:`\mathbb E[v^{k}]` for the per-sample value :math:`v = 2\langle x, \phi(Ax)\rangle - \|\phi(Ax)\|^2`, by a
    tensor Gauss rule: each :math:`x_j = \xi_j b_j` is replaced by the discrete law with an atom
    :math:`1-p` at 0 and the :math:`N = km+1`-node Gauss rule of :math:`\mu` (weights times p), which matches
    every moment of :math:`x_j` up to :math:`2N-1 \ge 2km` (the largest power of one coordinate in :math:`v^k`).
    Exact up to float64 round-off; cost :math:`(N+1)^n` points, so for small n only.

    ``power=1`` is an independent route to :math:`\tilde L` (no cumulants); ``power=2`` gives the variance of
    the Monte Carlo summand, ``E[v^2] - Ltilde^2``.

    >>> round(quadrature_moment(np.eye(1), 0.5, m=1, mu="rademacher"), 12)   # p (2 mu_2 - mu_2)
    0.5
    """
    from .distributions import MomentSequence

    p, m, dist = _check_common(p, m, mu)
    W = _check_W(W)
    power = verify_int(power, "power", minimum=1)
    max_points = verify_int(max_points, "max_points", minimum=1)
    n_nodes = power * m + 1
    rule = MomentSequence(dist.moments(2 * n_nodes)[1:]).quadrature()
    nodes = np.concatenate([[0.0], rule[0]])
    weights = np.concatenate([[1.0 - float(p)], float(p) * rule[1]])
    n = W.shape[1]
    if len(nodes) ** n > max_points:
        raise VerifyInputError(f"Argument 'W' must have few columns for the tensor rule ({len(nodes)}^n <= {max_points} "
                               f"points), not n = {n}.")
    grid = np.stack(np.meshgrid(*([np.arange(len(nodes))] * n), indexing="ij"), -1).reshape(-1, n)
    x, w = nodes[grid], np.prod(weights[grid], axis=1)
    phi = ((x @ W.T) @ W) ** m
    v = 2.0 * np.einsum("ij,ij->i", x, phi) - np.einsum("ij,ij->i", phi, phi)
    return float(np.dot(w, v ** power))


# --------------------------------------------------------------------------- maximiser
def single_blas_thread():
    """Context manager limiting BLAS to one thread (a no-op without threadpoolctl).

    L-BFGS-B makes many tiny BLAS calls; on a loaded machine OpenBLAS threads spin and slow them ~30x.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: without it the maximiser is only slower
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


@dataclass
class MaximiseResult:
    r"""Result of :func:`maximise_loss`: the best ``W`` (d x n), its ``value`` :math:`\tilde L(W)`, the value reached
    by each restart, the ``seed``, and the restart index that won."""

    W: np.ndarray
    value: float
    restart_values: list = field(default_factory=list)
    seed: int = 0
    best_restart: int = 0

    def __getitem__(self, key):
        return getattr(self, key)

    def keys(self):
        return ("W", "value", "restart_values", "seed", "best_restart")


def maximise_loss(d: int, n: int, p: Any, m: int = 3, mu: Any = "gaussian", restarts: int = 5, seed: int = 0,
                  init_scale: float | None = None, x0: list | None = None, maxiter: int = 2000,
                  gtol: float = 1e-10, ftol: float = 1e-15) -> MaximiseResult:
    r"""Maximise :math:`\tilde L` over :math:`W \in \mathbb R^{d \times n}` with scipy's L-BFGS-B and the exact gradient.

    Restart ``r`` starts from ``x0[r]`` when given (structured candidates), else from a Gaussian W scaled
    so that :math:`A_{ii} \approx` ``init_scale`` (default :math:`(\mu_{m+1}/\mu_{2m})^{1/m}`, the optimal
    diagonal scale of eq. 10), drawn from ``numpy.random.default_rng(seed)``.

    >>> res = maximise_loss(2, 2, 0.5, m=1, mu="rademacher", restarts=2)
    >>> round(res.value, 8)          # p mu_2 d: a rank-2 projection is optimal (linear case)
    1.0
    """
    from scipy.optimize import minimize

    p, m, dist = _check_common(p, m, mu)
    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=1)
    restarts = verify_int(restarts, "restarts", minimum=1)
    seed = verify_int(seed, "seed", minimum=0)
    maxiter = verify_int(maxiter, "maxiter", minimum=1)
    gtol = verify_nonnegative(gtol, "gtol")
    ftol = verify_nonnegative(ftol, "ftol")
    if init_scale is None:
        init_scale = float((dist.moment(m + 1) / dist.moment(2 * m)) ** sympy.Rational(1, m))
    else:
        init_scale = float(verify_positive(init_scale, "init_scale"))
    rng = np.random.default_rng(seed)
    starts = [verify_array(w, "x0", ndim=2) for w in (x0 or [])]
    for w in starts:
        if w.shape != (d, n):
            raise VerifyInputError(f"Argument 'x0' must hold arrays of shape {(d, n)}, not {w.shape}.")

    def neg(flat):
        W = flat.reshape(d, n)
        return -exact_loss(W, p, m, dist), -exact_loss_grad(W, p, m, dist).ravel()

    best, values = None, []
    with single_blas_thread():
        for r in range(restarts):
            W0 = starts[r] if r < len(starts) else rng.normal(size=(d, n)) * np.sqrt(init_scale / d)
            res = minimize(neg, W0.ravel(), jac=True, method="L-BFGS-B",
                           options={"maxiter": maxiter, "gtol": gtol, "ftol": ftol})
            values.append(-float(res.fun))
            if best is None or values[-1] > best[0]:
                best = (values[-1], res.x.reshape(d, n).copy(), r)
    return MaximiseResult(W=best[1], value=best[0], restart_values=values, seed=seed, best_restart=best[2])


# --------------------------------------------------------------------------- Remark 4.3
def first_order_objective(V: Any, m: int = 3) -> tuple:
    r"""Remark 4.3's :math:`\mu`-free first-order objective at :math:`B = V^TV` (V of shape d x n) and its gradient:

    .. math:: \mathcal F(B) = 2\sum_i B_{ii}^m - \sum_{i,j} B_{ij}^{2m} = \operatorname{tr}(2\tilde B - \tilde B^2),
              \quad \tilde B = B^{\odot m}, \qquad
              \nabla_V \mathcal F = V(G + G^T),\ G = 2m\,\mathrm{diag}(B_{ii}^{m-1}) - 2m\,B^{\odot(2m-1)}.

    Since :math:`\tilde B` is PSD of rank :math:`\le \binom{d+m-1}{m} \le d^m`, :math:`\mathcal F \le d^m`.
    float64, :math:`O(n^2 d)`.

    >>> F, G = first_order_objective(np.eye(2, 3), 3)   # two orthonormal columns: B~ a rank-2 projection
    >>> float(F), G.shape
    (2.0, (2, 3))
    """
    m = verify_odd_m(m)
    V = verify_array(V, "V", ndim=2)
    B = V.T @ V
    diag = np.diag(B)
    F = 2.0 * np.sum(diag ** m) - np.sum(B ** (2 * m))
    G = -2.0 * m * B ** (2 * m - 1)
    G[np.diag_indices_from(G)] += 2.0 * m * diag ** (m - 1)
    return float(F), V @ (G + G.T)
