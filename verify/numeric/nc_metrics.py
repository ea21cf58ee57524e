r"""Neural-collapse metrics of paper N (§4 eq. (3), §6, App. E.2) for any features matrix.

For features :math:`h_{k,i}\in\mathbb R^d` of :math:`K` classes, with class means :math:`\bar h_k`,
global mean :math:`\bar h_G = \frac1K\sum_k \bar h_k` and :math:`\bar{\bar H} = \bar H - \bar h_G 1_K^\top`:

.. math::

    \Sigma_W = \frac1N\sum_{k,i}(h_{k,i}-\bar h_k)(h_{k,i}-\bar h_k)^\top,\qquad
    \Sigma_B = \frac1K\sum_k(\bar h_k-\bar h_G)(\bar h_k-\bar h_G)^\top,

    NC_1 = \tfrac1K\operatorname{Tr}(\Sigma_W\Sigma_B^\dagger),\quad
    \widetilde{NC}_1 = \operatorname{Tr}\Sigma_W/\operatorname{Tr}\Sigma_B,\quad
    NC_1^{(k)} = \tfrac1K\operatorname{Tr}(\Sigma_k\Sigma_B^\dagger),

    NC_2 = \Big\|\frac{\bar{\bar H}^\top\bar{\bar H}}{\|\bar{\bar H}^\top\bar{\bar H}\|_F}
          - \frac{I_K-\frac1K 1 1^\top}{\sqrt{K-1}}\Big\|_F,\quad
    NC_3 = \Big\|\frac{W\bar{\bar H}}{\|W\bar{\bar H}\|_F} - \frac{I_K-\frac1K 1 1^\top}{\sqrt{K-1}}\Big\|_F,

with :math:`\Sigma_k = \frac1{n_k}\sum_i (h_{k,i}-\bar h_k)(h_{k,i}-\bar h_k)^\top` and
:math:`N=\sum_k n_k` (balanced classes, :math:`n_k=n`, give the paper's definitions and
:math:`NC_1 = \frac1K\sum_k NC_1^{(k)}`).

Two entry points:

* :func:`nc_metrics` for a features matrix in the paper's layout :math:`H\in\mathbb R^{d\times Kn}`
  (class by class), or features ``(N, d)`` with ``labels``;
* :class:`NCAccumulator` for features arriving in batches (float64 streaming sums, O(d^2 + Kd)
  memory, plus O(K d^2) when per-class metrics are wanted).

Both accept numpy arrays and torch tensors (torch is imported only when a tensor is given).

Numerics. Sums are taken of features shifted by the first sample of their class (the "shifted
data" algorithm), so an exactly collapsed class contributes an exact zero to :math:`\Sigma_W` and
cancellation stays small. :math:`\Sigma_B^\dagger` is applied in the class-mean subspace: with the
thin SVD :math:`\bar{\bar H} = U S V^\top` (rank :math:`r`),
:math:`\operatorname{Tr}(\Sigma_W\Sigma_B^\dagger) = K\sum_{i\le r} u_i^\top\Sigma_W u_i / s_i^2`,
and :math:`\Sigma_W` is first projected onto the PSD cone (float round-off can leave it a hair
indefinite), so NC1 is never negative and ``d < K`` works.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> H = rng.standard_normal((5, 3 * 4))           # d=5, K=3, n=4, class by class
>>> m = nc_metrics(H, K=3)
>>> bool(abs(m.nc1 - np.mean(m.nc1_per_class)) < 1e-12)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.linalg.blas import dsyrk as syrk

from .._validate import VerifyInputError, verify_array, verify_int

__all__ = ["NCMetrics", "NCAccumulator", "nc_metrics", "to_numpy", "etf_target"]


def to_numpy(x: Any, name: str, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A float64 numpy copy of ``x`` (numpy array, list or torch tensor), validated finite.

    Torch is only touched when ``x`` is a tensor (checked by its type's module, so no import is
    needed to recognise it).
    """
    if type(x).__module__.split(".")[0] == "torch":
        x = x.detach().to("cpu").double().numpy()
    return verify_array(x, name, ndim=ndim, shape=shape)


def etf_target(K: int) -> np.ndarray:
    r"""The simplex ETF Gram matrix normalised to unit Frobenius norm, :math:`(I_K-\frac1K11^\top)/\sqrt{K-1}`."""
    K = verify_int(K, "K", minimum=2)
    return (np.eye(K) - np.full((K, K), 1.0 / K)) / np.sqrt(K - 1)


@dataclass
class NCMetrics:
    """The NC metrics of one features set (see the module docstring for the formulas)."""

    nc1: float
    nc1_tilde: float
    nc2: float
    nc1_per_class: np.ndarray
    nc3: float | None = None
    class_counts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sigma_w: np.ndarray | None = None
    sigma_b: np.ndarray | None = None
    means: np.ndarray | None = None  # d x K class means

    def as_dict(self) -> dict:
        out = {"NC1": self.nc1, "NC1_tilde": self.nc1_tilde, "NC2": self.nc2,
               "NC1_per_class": [float(v) for v in self.nc1_per_class]}
        if self.nc3 is not None:
            out["NC3"] = self.nc3
        return out


class NCAccumulator:
    r"""Streaming NC statistics for features arriving in batches.

    ``update(features, labels)`` takes a batch ``(B, d)`` (float32 is fine; sums are float64) with
    integer labels in ``[0, K)``; ``result(W=None)`` returns :class:`NCMetrics`. Memory is
    :math:`O(d^2 + Kd)`, plus :math:`O(Kd^2)` with ``per_class=True`` (needed for
    :math:`NC_1^{(k)}`).

    >>> import numpy as np
    >>> acc = NCAccumulator(d=4, K=2)
    >>> x = np.random.default_rng(1).standard_normal((10, 4))
    >>> acc.update(x[:6], [0, 1, 0, 1, 0, 1]); acc.update(x[6:], [0, 1, 0, 1])
    >>> acc.result().nc1 >= 0
    True
    """

    def __init__(self, d: int, K: int, per_class: bool = True):
        self.d = verify_int(d, "d", minimum=1)
        self.K = verify_int(K, "K", minimum=2)
        self.per_class = bool(per_class)
        self.count = np.zeros(self.K, dtype=np.int64)
        self.shift = np.zeros((self.K, self.d))
        self.s1 = np.zeros((self.K, self.d))        # sums of (h - shift_k) per class
        self.s2 = np.zeros((self.d, self.d))        # sum over all samples of (h - shift_y)(h - shift_y)^T
        self.s2_class = np.zeros((self.K, self.d, self.d)) if self.per_class else None

    def update(self, features: Any, labels: Any) -> None:
        """Add a batch ``features`` of shape ``(B, d)`` with ``labels`` of shape ``(B,)``."""
        x = to_numpy(features, "features", ndim=2, shape=(None, self.d))
        if type(labels).__module__.split(".")[0] == "torch":
            labels = labels.detach().to("cpu").numpy()
        y = np.asarray(labels)
        if y.shape != (x.shape[0],) or (y.size and (y.dtype.kind not in "iu" or y.min() < 0 or y.max() >= self.K)):
            raise VerifyInputError(
                f"Argument 'labels' must be {x.shape[0]} integers in [0, {self.K}), not shape {y.shape}.")
        # a class seen for the first time takes its first sample as its shift
        for k in np.unique(y):
            if self.count[k] == 0:
                self.shift[k] = x[np.argmax(y == k)]
        xs = x - self.shift[y]
        onehot = np.zeros((self.K, y.size))
        onehot[y, np.arange(y.size)] = 1.0
        self.s1 += onehot @ xs
        self.count += np.bincount(y, minlength=self.K)
        # symmetric rank-B updates with BLAS syrk (half the flops of a GEMM; upper triangle only,
        # symmetrised in result()); xs.T is a Fortran-ordered view, so no copy is made
        if self.per_class:
            for k in np.unique(y):
                upd = syrk(1.0, np.asfortranarray(xs[y == k].T))
                self.s2_class[k] += upd
                self.s2 += upd
        else:
            self.s2 += syrk(1.0, xs.T)

    def result(self, W: Any = None) -> NCMetrics:
        r"""The metrics of everything added so far; ``W`` (``K x d``) adds :math:`NC_3`."""
        if np.any(self.count == 0):
            missing = np.flatnonzero(self.count == 0).tolist()
            raise VerifyInputError(f"Argument 'labels' must cover every class in [0, {self.K}); missing {missing}.")
        N = int(self.count.sum())
        cnt = self.count.astype(float)[:, None]
        mean_shifted = self.s1 / cnt
        means = (self.shift + mean_shifted).T                        # d x K
        scatter_w = _sym(self.s2) - (self.s1 / cnt).T @ self.s1      # sum_k (S2_k - s1 s1^T / n_k)
        sigma_w = _psd(scatter_w / N)
        centred = means - means.mean(axis=1, keepdims=True)          # Hbar - hG 1^T
        sigma_b = centred @ centred.T / self.K
        proj = _class_mean_basis(centred)                             # columns u_i / s_i
        K = self.K
        nc1 = float(np.sum(proj * (sigma_w @ proj)))                 # (1/K) Tr(Sigma_W Sigma_B^+)
        tr_b = float(np.trace(sigma_b))
        nc1_tilde = float(np.trace(sigma_w)) / tr_b if tr_b > 0 else float("inf")
        if self.per_class:
            per = np.empty(K)
            for k in range(K):
                sk = _psd((_sym(self.s2_class[k]) - np.outer(self.s1[k], self.s1[k]) / cnt[k, 0]) / cnt[k, 0])
                per[k] = float(np.sum(proj * (sk @ proj)))            # (1/K) Tr(Sigma_k Sigma_B^+)
        else:
            per = np.full(K, np.nan)
        nc2 = _etf_distance(centred.T @ centred)
        nc3 = None
        if W is not None:
            Wn = to_numpy(W, "W", ndim=2, shape=(K, self.d))
            nc3 = _etf_distance(Wn @ centred)
        return NCMetrics(nc1=nc1, nc1_tilde=nc1_tilde, nc2=nc2, nc1_per_class=per, nc3=nc3,
                         class_counts=self.count.copy(), sigma_w=sigma_w, sigma_b=sigma_b, means=means)


def _sym(U: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose upper triangle syrk accumulated in ``U``."""
    return np.triu(U) + np.triu(U, 1).T


def _psd(S: np.ndarray) -> np.ndarray:
    """Nearest PSD matrix (clip negative eigenvalues): removes round-off indefiniteness only."""
    S = (S + S.T) / 2
    if not np.any(S):
        return S
    w, V = np.linalg.eigh(S)
    if w.min() >= 0:
        return S
    return (V * np.clip(w, 0, None)) @ V.T


def _class_mean_basis(centred: np.ndarray) -> np.ndarray:
    r"""Columns :math:`p_i = u_i/s_i` of the class-mean SVD, so that, as
    :math:`\Sigma_B^\dagger = K\sum_i u_iu_i^\top/s_i^2`,
    :math:`\sum_i p_i^\top S p_i = \frac1K\operatorname{Tr}(S\Sigma_B^\dagger)`.

    Singular values below ``max(d, K) * eps * s_max`` are rank-deficiency (numpy's ``pinv`` rule).
    """
    U, s, _ = np.linalg.svd(centred, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        return np.zeros((centred.shape[0], 0))
    keep = s > max(centred.shape) * np.finfo(float).eps * s[0]
    return U[:, keep] / s[keep]


def _etf_distance(G: np.ndarray) -> float:
    """Frobenius distance of ``G / ||G||_F`` to the unit-norm simplex ETF Gram matrix."""
    norm = np.linalg.norm(G)
    if norm == 0:
        return float("nan")  # no class-mean structure at all: the normalisation is undefined
    return float(np.linalg.norm(G / norm - etf_target(G.shape[0])))


def nc_metrics(H: Any, K: int | None = None, labels: Any = None, W: Any = None,
               per_class: bool = True) -> NCMetrics:
    r"""NC1, :math:`\widetilde{NC}_1`, NC2, per-class NC1 and (with ``W``) NC3 of a features set.

    ``H`` is either the paper's ``d x Kn`` matrix ordered class by class (give ``K``), or ``N x d``
    features with ``labels`` (then ``K`` defaults to ``max(labels) + 1``).

    >>> import numpy as np
    >>> R = np.linalg.qr(np.random.default_rng(0).standard_normal((6, 3)))[0]
    >>> H = np.kron(R, np.ones((1, 4)))                # collapsed, orthogonal means: exact NC1 = 0
    >>> m = nc_metrics(H, K=3); (m.nc1, m.nc1_tilde)
    (0.0, 0.0)
    """
    if labels is None:
        if K is None:
            raise VerifyInputError("Argument 'K' must be given (an integer >= 2) when 'labels' is not.")
        K = verify_int(K, "K", minimum=2)
        Hn = to_numpy(H, "H", ndim=2)
        if Hn.shape[1] % K or Hn.shape[1] == 0:
            raise VerifyInputError(f"Argument 'H' must have K*n columns (K={K}, n >= 1), not shape {Hn.shape}.")
        n = Hn.shape[1] // K
        feats, y = Hn.T, np.repeat(np.arange(K), n)
    else:
        feats = to_numpy(H, "H", ndim=2)
        if type(labels).__module__.split(".")[0] == "torch":
            labels = labels.detach().to("cpu").numpy()
        y = np.asarray(labels)
        if K is None:
            K = int(y.max()) + 1 if y.size else 0
        K = verify_int(K, "K", minimum=2)
    acc = NCAccumulator(feats.shape[1], K, per_class=per_class)
    acc.update(feats, y)
    return acc.result(W=W)
