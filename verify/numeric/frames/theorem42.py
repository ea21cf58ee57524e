r"""Top layer of :mod:`verify.numeric.frames` (not re-exported by the package face: it uses
:mod:`verify.numeric.lower_bound`, which itself imports the package). BEYOND THE PAPER: Theorem 4.2's lower bound rerun with Kerdock / Delsarte-Goethals frames.

Theorem 4.2 takes :math:`A = tM^{(k)}` with :math:`M = V^TV` for the paper's frame and gets
:math:`\sup_t \tilde L = a^2/b` (eqs. 19-20, :mod:`verify.numeric.lower_bound`). The same eqs. hold for
*any* frame: :math:`a, b` depend only on :math:`M_{ii} = 1` and each row's off-diagonal power sums
:math:`T_{e,i} = \sum_{j\ne i} M_{ij}^e` (:func:`verify.numeric.lower_bound.row_terms`). Here the k columns
are the sub-frame :math:`\{(u, \mathbf c, b) : u < 2^s, \mathbf c < 2^l\}` of a Kerdock / DG frame
(:mod:`.constructions`), :math:`k = 2^{s+l+r}`. For two columns the Gram entry is
:math:`S/d` with S the character sum of :math:`K_u + K_{u'} + T_{\mathbf c\oplus\mathbf c'}` shifted by
:math:`b \oplus b'`; a form of radical dimension w has :math:`2^{r-w}` shifts with
:math:`|S| = 2^{(r+w)/2}` and the rest 0, so exactly

.. math:: T_{e}(u) = \sum_{(u', \Delta\mathbf c) \ne (u, 0)} 2^{(r-w)(1 - e/2)},

the same for every column with that u (:math:`\Delta\mathbf c = \mathbf c \oplus \mathbf c'` runs over
:math:`[0, 2^l)` for every :math:`\mathbf c`). All arithmetic is exact (``Fraction``); the radical
dimensions come from GF(2) ranks (:mod:`.cert_rank`).

>>> st = code_block_stats("kerdock", 4, 3, s=3, l=0)     # the whole Kerdock frame, d = 16
>>> st.k, len(st.rows), st.rows[0][1][2]                 # 128 columns, one row pattern, T_2 = 7
(128, 1, Fraction(7, 1))
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from ..._validate import VerifyInputError, _fail, verify_int, verify_odd_m
from .. import lower_bound as LB
from .cert_rank import _alternating_rows, evaluation_points, gf2_rank
from .constructions import _form_bits, _tables, code_parameters

__all__ = ["code_block_stats", "code_subframe_sizes", "best_point", "compare_frames"]

#: at most this many GF(2) ranks per sub-frame (2^(2s+l) forms)
MAX_FORMS = 2 ** 21


def code_subframe_sizes(construction: str, r: int, delta: int | None = None) -> list:
    r"""Every ``(s, l, k)`` with :math:`k = 2^{s+l+r}`: ``s <= m'`` bits of u, then (only when s = m') ``l`` bits of
    :math:`\mathbf c`, within ``MAX_FORMS`` rank computations."""
    mp, delta, _ = code_parameters(construction, r, delta)
    out = [(s, 0) for s in range(mp + 1)] + [(mp, l) for l in range(1, delta * mp + 1)]
    return [(s, l, 2 ** (s + l + r)) for s, l in out if 2 ** (2 * s + l) <= MAX_FORMS]


def code_block_stats(construction: str, r: int, m: int, s: int, l: int, delta: int | None = None) -> LB.FrameBlockStats:
    r"""Exact row patterns of :math:`M^{(k)}` for the sub-frame ``u < 2^s``, ``c < 2^l`` (all shifts b) of a
    Kerdock / DG frame, as :class:`verify.numeric.lower_bound.FrameBlockStats` for activation exponent m."""
    mp, delta, _ = code_parameters(construction, r, delta)
    m = verify_odd_m(m)
    s = verify_int(s, "s", minimum=0, maximum=mp)
    l = verify_int(l, "l", minimum=0, maximum=delta * mp)
    if l and s != mp:
        raise VerifyInputError(f"Argument 's' must be {mp} (all u) when l > 0, not {s}.")
    if 2 ** (2 * s + l) > MAX_FORMS:
        raise VerifyInputError(f"Argument 'l' makes 2^{2 * s + l} forms, more than {MAX_FORMS}.")
    pts, _ = evaluation_points(r)
    K, T = _tables(mp, delta, pts, None)
    others = (np.arange(2 ** s, dtype=np.int64)[:, None] | (np.arange(2 ** l, dtype=np.int64)[None, :] << mp)).reshape(-1)
    patterns: dict = {}
    for u in range(2 ** s):
        ws = r - gf2_rank(_alternating_rows(_form_bits(K, T, mp, u, others), r))
        self_idx = u * 2 ** l  # (u' = u, dc = 0): the column's own quadratic part (orthogonal shifts)
        ws = np.delete(ws, self_idx)
        vals, cnt = np.unique(ws, return_counts=True)
        key = tuple(zip(vals.tolist(), cnt.tolist()))
        patterns[key] = patterns.get(key, 0) + 1
    rows = []
    for key, n_u in sorted(patterns.items()):
        Tdict = {e: sum((Fraction(c) * Fraction(2) ** ((r - w) * (2 - e) // 2) for w, c in key), Fraction(0))
                 for e in range(2, 2 * m + 1, 2)}
        rows.append((n_u * 2 ** (l + r), Tdict))
    return LB.FrameBlockStats(r=r, m=m, k=2 ** (s + l + r), rows=rows)


def _ratio(sup: Fraction, p: Fraction, d: int, m: int) -> float:
    with mpmath.workdps(40):  # 40 digits: the ratio is reported to float precision
        target = min(mpmath.mpf(p.numerator) / p.denominator * d ** m,
                     d * mpmath.root(mpmath.mpf(p.numerator) / p.denominator, m))
        return float((mpmath.mpf(sup.numerator) / sup.denominator) / target)


def best_point(stats_list: list, p, mu, d: int, m: int) -> dict:
    """Largest exact sup_t Ltilde = a^2/b over the given blocks, and its ratio to min(p d^m, d p^(1/m))."""
    pf = LB.as_fraction(p, "p")
    if not 0 < pf <= 1:
        raise VerifyInputError(f"Argument 'p' must be a probability in (0, 1], not {p!r}.")
    d = verify_int(d, "d", minimum=1)
    m = verify_odd_m(m)
    if not isinstance(stats_list, (list, tuple)) or not stats_list or not all(
            isinstance(st, LB.FrameBlockStats) for st in stats_list):
        raise _fail("stats_list", "a non-empty list of FrameBlockStats (from code_block_stats or "
                    "lower_bound.frame_block_stats)", stats_list)
    best = None
    for st in stats_list:
        a, b = LB.numerator_denominator(st, pf, mu)
        sup = a * a / b
        if best is None or sup > best[0]:
            best = (sup, st.k)
    return {"sup": best[0], "k": best[1], "ratio": _ratio(best[0], pf, d, m)}


def compare_frames(r: int, ps: list, m: int = 3, mu="gaussian", constructions: list | None = None) -> dict:
    r"""For each p: the paper's bound (Lemma A.4 frame, the paper's k), the paper's frame with its best k over
    powers of two and the paper's k, and each Kerdock / DG(r, delta) frame with its best sub-frame; every
    entry is the exact :math:`\sup_t\tilde L` and its ratio to :math:`\min(pd^m, dp^{1/m})`."""
    m = verify_odd_m(m)
    r = verify_int(r, "r", minimum=2)
    d = 2 ** r
    if constructions is None:
        constructions = [("kerdock", None)] + [("dg", dl) for dl in range(1, (r - 2) // 2 + 1)]
    code_stats = {}
    for cons, delta in constructions:
        name = cons if delta is None else f"dg{delta}"
        code_stats[name] = [code_block_stats(cons, r, m, s, l, delta)
                            for s, l, _ in code_subframe_sizes(cons, r, delta)]
    ks = sorted({2 ** j for j in range(r, r * m + 1)})
    paper_blocks = {k: LB.frame_block_stats(r, m, k) for k in ks}
    out = {"d": d, "m": m, "mu": mu, "points": []}
    for p in ps:
        pf = LB.as_fraction(p, "ps")
        kp = LB.paper_k(d, m, pf)
        paper = LB.lower_bound_point(r, m, pf, mu)
        best_paper = best_point(list(paper_blocks.values()) + [LB.frame_block_stats(r, m, kp)], pf, mu, d, m)
        row = {"p": str(pf), "paper_k": kp, "paper_ratio": paper["ratio"], "paper_sup": paper["sup"],
               "paper_best": best_paper}
        for name, sts in code_stats.items():
            row[name] = best_point(sts, pf, mu, d, m)
        out["points"].append(row)
    out["sizes"] = {name: max(st.k for st in sts) for name, sts in code_stats.items()}
    out["sizes"]["paper"] = d ** m
    return out
