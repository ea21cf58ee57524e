r"""Layer 4 of :mod:`verify.numeric.frames` (certificates, GF(2)-rank route). Exact coherence certificates of quadratic frames by GF(2) rank computations (no Walsh-Hadamard scan).

For :math:`m \le 3` every column of the Lemma A.4 frame is a character of a *quadratic* form:
:math:`f(x) = \operatorname{tr}(a_0 x + a_1 x^3 + a_2 x^5)` has exponents :math:`1, 2+1, 4+1`, so
:math:`Q(x) = \operatorname{tr}(a_1x^3 + a_2x^5)` has degree 2 as a Boolean function of the bits of x.
Let :math:`B(x, y) = Q(x+y) + Q(x) + Q(y)` be its alternating form and :math:`w` the dimension of its
radical :math:`W = \{y : B(\cdot, y) = 0\}` (``r - w`` is even: alternating forms have even rank).
Then, for every linear shift :math:`\ell(x) = \operatorname{tr}(a_0x)`,

.. math:: S = \sum_x (-1)^{Q(x) + \ell(x)} \in \{0, \pm 2^{(r+w)/2}\},

nonzero iff :math:`Q + \ell` vanishes on W (Q is additive on W), which happens for exactly
:math:`2^{r-w}` of the :math:`2^r` shifts (a coset of :math:`W^\perp`). Parseval
(:math:`\sum_\ell S^2 = 2^{2r}`) confirms the count, and :math:`\sum_\ell S = 2^r` splits the nonzero
ones into :math:`(2^{r-w} \pm 2^{(r-w)/2})/2` of sign :math:`\pm`.
So the full histogram of the :math:`2^{rm}` character sums follows from the radical dimensions of the
:math:`2^{r(m-1)}` quadratic parts. Symmetry: :math:`x \mapsto \lambda x` maps
:math:`(a_1, a_2) \mapsto (\lambda^3 a_1, \lambda^5 a_2)` and keeps w, so only
:math:`\gcd(5, 2^r-1)` representatives of :math:`a_2 \ne 0` (with every :math:`a_1`) and
:math:`\gcd(3, 2^r-1)` representatives of :math:`a_1 \ne 0 = a_2` need a rank: about
:math:`8 \cdot 2^r` ranks instead of :math:`2^{2r}`.

>>> cert = quadratic_certificate(5, 3)
>>> cert.max_abs_sum, cert.histogram == certify(5, 3).histogram
(16, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..._validate import VerifyInputError, verify_array, verify_int, verify_int_array
from .bounds import levenstein_bound, welch_bound
from .cert_wht import CertificateRecord, certify
from .field import MAX_R, field_of, parity_table, trace_form

__all__ = [
    "gf2_rank", "alternating_rows", "evaluation_points", "lemma_radical_dims", "radical_dim_counts",
    "QuadraticCertificate", "quadratic_certificate", "sums_from_radicals",
]

#: forms ranked per vectorised batch: (batch, r(r+1)/2) uint8 evaluations + (batch, r) uint64 rows stay
#: around 10 MiB at r = 16
BATCH = 2 ** 16


def gf2_rank(rows: np.ndarray) -> np.ndarray:
    r"""Ranks over GF(2) of a batch of matrices given as bit-mask rows, shape ``(B, n_rows)`` (uint64;
    bit j of ``rows[b, i]`` is entry (i, j)). Gaussian elimination vectorised over the batch: one pass per
    column, :math:`O(B \cdot n^2)` word operations.

    >>> gf2_rank(np.array([[0b01, 0b10], [0b11, 0b11]], dtype=np.uint64)).tolist()
    [2, 1]
    """
    rows = verify_array(rows, "rows", ndim=2, dtype=None)
    if rows.dtype.kind not in "biuf":   # complex, text or objects: not bit masks
        raise VerifyInputError(f"Argument 'rows' must hold non-negative integer bit masks, not dtype {rows.dtype}.")
    if rows.dtype != np.uint64:
        if rows.size and (rows.min() < 0):
            raise VerifyInputError("Argument 'rows' must hold non-negative bit masks, not negative values.")
        rows = rows.astype(np.uint64)
    rows = rows.copy()
    B, n = rows.shape
    rank = np.zeros(B, dtype=np.int64)
    if B == 0 or n == 0:
        return rank
    idx = np.arange(B)
    free = np.ones((B, n), dtype=bool)  # rows not yet used as a pivot
    one = np.uint64(1)
    for col in range(64):
        bit = ((rows >> np.uint64(col)) & one).astype(bool)
        cand = bit & free
        has = cand.any(axis=1)
        if not bit.any():
            if not np.any(rows >> np.uint64(col)):
                break  # no higher bits anywhere
            continue
        piv = cand.argmax(axis=1)
        prow = np.where(has, rows[idx, piv], np.uint64(0))
        free[idx, piv] &= ~has
        rank += has
        bit[idx, piv] = False  # the pivot row keeps its bit
        rows ^= np.where(bit, prow[:, None], np.uint64(0))
    return rank


def evaluation_points(r: int) -> tuple[np.ndarray, list]:
    r"""Points :math:`e_i` (``i < r``) then :math:`e_i + e_j` (``i < j``), and the list of pairs: the
    values of a quadratic form Q there fix its alternating form :math:`B(e_i, e_j) = Q(e_i+e_j) + Q(e_i) + Q(e_j)`."""
    r = verify_int(r, "r", minimum=1, maximum=63)
    pairs = [(i, j) for i in range(r) for j in range(i + 1, r)]
    pts = np.array([1 << i for i in range(r)] + [(1 << i) | (1 << j) for i, j in pairs], dtype=np.int64)
    return pts, pairs


def alternating_rows(q: np.ndarray, r: int) -> np.ndarray:
    r"""Bit-mask rows of the alternating forms of a batch of quadratic forms (Q(0) = 0), from their values
    ``q`` (shape ``(B, r + r(r-1)/2)``, 0/1) at :func:`evaluation_points`: an integer (or bool) array; floats,
    complex, text and values other than 0 / 1 are refused."""
    pts, _ = evaluation_points(r)
    q = verify_int_array(q, "q", ndim=2, minimum=0, maximum=1, allow_bool=True)
    if q.shape[1] != pts.size:
        raise VerifyInputError(f"Argument 'q' must have shape (B, {pts.size}), not {q.shape}.")
    return _alternating_rows(q, r)


def _alternating_rows(q: np.ndarray, r: int) -> np.ndarray:
    """:func:`alternating_rows` unchecked (0/1 values of shape ``(B, r + r(r-1)/2)``): the rank loops call it."""
    q = np.asarray(q, dtype=np.uint64)
    pairs = [(i, j) for i in range(r) for j in range(i + 1, r)]
    rows = np.zeros((q.shape[0], r), dtype=np.uint64)
    for k, (i, j) in enumerate(pairs):
        b = q[:, r + k] ^ q[:, i] ^ q[:, j]
        rows[:, i] |= b << np.uint64(j)
        rows[:, j] |= b << np.uint64(i)
    return rows


def lemma_radical_dims(r: int, a1: np.ndarray, a2: np.ndarray, irreducible_poly: int | None = None) -> np.ndarray:
    r"""Radical dimension w of :math:`Q(x) = \operatorname{tr}(a_1x^3 + a_2x^5)` for each pair (vectorised)."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    a1 = verify_int_array(a1, "a1", minimum=0, maximum=2 ** r - 1)
    a2 = verify_int_array(a2, "a2", minimum=0, maximum=2 ** r - 1)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        raise VerifyInputError(f"Arguments 'a1' and 'a2' must broadcast against each other, not shapes {a1.shape} "
                               f"and {a2.shape}.") from None
    return _lemma_radical_dims(r, a1, a2, irreducible_poly)


def _lemma_radical_dims(r: int, a1: np.ndarray, a2: np.ndarray, irreducible_poly: int | None = None) -> np.ndarray:
    """:func:`lemma_radical_dims` unchecked (elements of GF(2^r) as integer arrays): the counting slices call it."""
    a1, a2 = np.broadcast_arrays(np.asarray(a1, dtype=np.int64), np.asarray(a2, dtype=np.int64))
    GF = field_of(r, irreducible_poly)
    pts, _ = evaluation_points(r)
    p3 = np.asarray(GF(pts) ** 3, dtype=np.int64)
    p5 = np.asarray(GF(pts) ** 5, dtype=np.int64)
    beta, par = trace_form(r, irreducible_poly), parity_table(r)
    out = np.empty(a1.shape, dtype=np.int64)
    fa1, fa2, fo = a1.reshape(-1), a2.reshape(-1), out.reshape(-1)
    for s in range(0, fa1.size, BATCH):
        b1, b2 = beta[fa1[s:s + BATCH]], beta[fa2[s:s + BATCH]]
        # tr(c y) = <beta(c), y> (frames.trace_form): one AND and a parity lookup per point and term
        q = par[b1[:, None] & p3[None, :]] ^ par[b2[:, None] & p5[None, :]]
        fo[s:s + BATCH] = r - gf2_rank(_alternating_rows(q, r))
    return out


def _slice_counts(task: tuple) -> dict:
    """One independent piece of :func:`radical_dim_counts` (module level: Dask workers import it):
    ``(r, a1_values, a2_values, poly)`` -> unweighted ``{w: count}`` over the pairs a1 x a2 given."""
    r, a1, a2, poly = task
    ws = _lemma_radical_dims(r, np.asarray(a1, dtype=np.int64)[:, None], np.asarray(a2, dtype=np.int64)[None, :], poly)
    vals, cnt = np.unique(ws, return_counts=True)
    return {int(w): int(c) for w, c in zip(vals, cnt)}


def radical_dim_counts(r: int, m: int, symmetry: bool = True, irreducible_poly: int | None = None,
                       progress: bool = False, client=None) -> dict:
    r"""``{w: number of quadratic parts (a_1, .., a_{m-1}) with radical dimension w}`` over all
    :math:`2^{r(m-1)}` parts, exact (``m <= 3``). ``symmetry``: rank only orbit representatives of
    :math:`x \mapsto \lambda x` (see the module docstring) and weight them by the orbit sizes.
    ``client``: a :class:`dask.distributed.Client` (:func:`verify.distributed.get_client`); the independent
    slices (one per :math:`a_2` representative) then run as Dask tasks, combined in order."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    m = verify_int(m, "m", minimum=1, maximum=3)
    d = 2 ** r
    counts: dict[int, int] = {r: 1}  # a_1 = a_2 = 0: Q = 0, radical everything
    if m == 1:
        return counts
    GF = field_of(r, irreducible_poly)
    alpha = int(GF.primitive_element)
    tasks, weights = [], []
    # a_2 = 0, a_1 != 0: orbits of a_1 under cubes (index gcd(3, d-1) subgroup cosets alpha^k <cubes>)
    if symmetry:
        g3 = math.gcd(3, d - 1)
        tasks.append((r, np.asarray(GF(alpha) ** np.arange(g3), dtype=np.int64).tolist(), [0], irreducible_poly))
        weights.append((d - 1) // g3)
    else:
        tasks.append((r, list(range(1, d)), [0], irreducible_poly))
        weights.append(1)
    if m == 3:
        if symmetry:
            g5 = math.gcd(5, d - 1)
            a2_reps, weight = np.asarray(GF(alpha) ** np.arange(g5), dtype=np.int64).tolist(), (d - 1) // g5
        else:
            a2_reps, weight = list(range(1, d)), 1
        step = max(1, BATCH // d)  # a2 values per task: about BATCH pairs each
        for s in range(0, len(a2_reps), step):
            tasks.append((r, list(range(d)), a2_reps[s:s + step], irreducible_poly))
            weights.append(weight)
    if client is not None:
        from ...distributed import map_ordered

        results = map_ordered(client, _slice_counts, tasks, desc=f"ranks r={r}", progress=progress)
    else:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency, kept optional here
            tqdm = None
        it = tasks if not (progress and tqdm) else tqdm(tasks, desc=f"ranks r={r}", leave=False)
        results = [_slice_counts(t) for t in it]
    for res, weight in zip(results, weights):
        for w, c in res.items():
            counts[w] = counts.get(w, 0) + c * weight
    return dict(sorted(counts.items()))


def sums_from_radicals(r: int, counts: dict, exclude_zero_code: bool = True) -> tuple[dict, dict]:
    r"""``(histogram, signed)`` of all character sums over the codes, from ``{w: count}``:
    ``histogram[|S|]`` and ``signed[S]`` (both over the nonzero codes when ``exclude_zero_code``).
    Each quadratic part of radical w has :math:`2^{r-w}` nonzero shifts, :math:`(2^{r-w} \pm 2^{(r-w)/2})/2`
    of them with :math:`S = \pm 2^{(r+w)/2}`, and :math:`2^r - 2^{r-w}` zero sums."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    d = 2 ** r
    hist: dict[int, int] = {}
    signed: dict[int, int] = {}
    for w, c in counts.items():
        if (r - w) % 2:
            raise VerifyInputError(f"Argument 'counts' must have r - w even (alternating forms), not w = {w}.")
        nz, half = 2 ** (r - w), 2 ** ((r - w) // 2)
        v = 2 ** ((r + w) // 2)
        hist[v] = hist.get(v, 0) + c * nz
        hist[0] = hist.get(0, 0) + c * (d - nz)
        signed[v] = signed.get(v, 0) + c * (nz + half) // 2
        if nz > half:
            signed[-v] = signed.get(-v, 0) + c * (nz - half) // 2
        signed[0] = signed.get(0, 0) + c * (d - nz)
    if exclude_zero_code:  # code 0 (the diagonal): S = 2^r, from the part w = r
        for h in (hist, signed):
            h[d] -= 1
    clean = lambda h: {k: h[k] for k in sorted(h) if h[k]}  # noqa: E731
    return clean(hist), clean(signed)


@dataclass
class QuadraticCertificate(CertificateRecord):
    """Exact histogram of the character sums of the Lemma A.4 frame (m <= 3) from radical dimensions."""

    r: int
    m: int
    d: int
    n_columns: int
    max_abs_sum: int
    coherence: float
    coherence_exact: str
    welch_bound: float
    levenstein_bound: float | None
    ratio_to_welch: float | None
    ratio_to_levenstein: float | None
    radical_dims: dict = field(default_factory=dict)   # w -> number of quadratic parts
    histogram: dict = field(default_factory=dict)      # |S| -> count over the nonzero codes
    signed_histogram: dict = field(default_factory=dict)  # S -> count over the nonzero codes
    ranks_computed: int = 0
    symmetry: bool = True
    seconds: float = 0.0


def quadratic_certificate(r: int, m: int = 3, symmetry: bool = True, irreducible_poly: int | None = None,
                          progress: bool = False, client=None) -> QuadraticCertificate:
    r"""Exact coherence and full character-sum histogram of the :math:`2^{rm}`-column Lemma A.4 frame,
    ``m <= 3``, by GF(2) ranks (about :math:`8 \cdot 2^r` of them with ``symmetry``).
    The histogram has the same meaning as :attr:`verify.numeric.frames.Certificate.histogram`."""
    t0 = time.perf_counter()
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    m = verify_int(m, "m", minimum=1, maximum=3)
    counts = radical_dim_counts(r, m, symmetry, irreducible_poly, progress, client)
    hist, signed = sums_from_radicals(r, counts)
    d = 2 ** r
    max_abs = max((k for k in hist if k), default=0)
    n = 2 ** (r * m)
    coh = Fraction(max_abs, d)
    welch, lev = welch_bound(d, n), levenstein_bound(d, n)
    if symmetry:
        g3, g5 = math.gcd(3, d - 1), math.gcd(5, d - 1)
        ranks = (g3 if m >= 2 else 0) + (g5 * d if m == 3 else 0)
    else:
        ranks = 2 ** (r * (m - 1)) - 1
    return QuadraticCertificate(
        r=r, m=m, d=d, n_columns=n, max_abs_sum=max_abs, coherence=float(coh), coherence_exact=str(coh),
        welch_bound=welch, levenstein_bound=lev, ratio_to_welch=float(coh) / welch if welch else None,
        ratio_to_levenstein=float(coh) / lev if lev else None, radical_dims={int(k): v for k, v in counts.items()},
        histogram=hist, signed_histogram=signed, ranks_computed=ranks, symmetry=symmetry,
        seconds=time.perf_counter() - t0)

