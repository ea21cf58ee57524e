"""Paper S, the frames over GF(2^r) (Lemmas 4.1, A.4 and the frames beyond them): certified margins.

The numbers that decide each frame claim are recomputed exactly, so that a verdict does not rest on floating-point
rounding: the exact integer character sums of the frames (Walsh-Hadamard sums and the certificates built on them)
against the bounds of Lemma A.4, Lemma 4.1 and the Weil bound, whose square roots are enclosed in Arb balls. As in
every certified check, floats enter at their binary values and the points are those the checks evaluate; a verified
claim records a certified margin, a refuted one a certified interval for its ratio. The default tier certifies the
small fields, the slow tier larger r and general d up to 63.
"""

from __future__ import annotations

from flint import fmpq
import numpy as np
import pytest

from verify import certified as C
from verify.statements import sides, to_arb
from verify.symbolic import frames as SF


#: (r, m) of the Lemma A.4 frames certified in the default tier: fields GF(2^r), r <= 4 (galois compiles each field's
#: kernels once per process, ~0.5 s each, shared with the frames checks); the slow tier adds r = 5, 6 and d up to 63
FRAME_GRID = [(2, 2), (2, 3), (3, 2), (3, 3), (4, 2), (4, 3), (1, 4), (2, 4)]


GENERAL_DMAX = {1: 31, 2: 31, 3: 15}


def _frame_margins(grid, general_dmax):
    r"""Certified margins of Lemma A.4 / Lemma 4.1 at the exact integers of the frames' character sums
    (:func:`verify.numeric.frames.character_sums`, the Walsh-Hadamard route) and certificates, bounds in Arb balls:

    * Weil per degree: :math:`(\deg P - 1)\sqrt{2^r} - \max_{\deg P}|S(P)|` over the odd-term P of each degree;
    * d = 2^r: :math:`(2m-2)/\sqrt d - \max_{a \ne b}|M_{ab}|` (0 where Weil is attained);
    * Lemma 4.1 for d = 2^r past the Weil threshold: :math:`1 - \max|M_{ab}|` and :math:`1 - (2m-2)/\sqrt d` (the
      package's exact Weil bound, :func:`verify.symbolic.frames.weil_coherence_bound`);
    * general d (2m construction, first d^m columns): :math:`(4m-2)/\sqrt{2^r} - |M_{ab}|` (Weil, degree 4m-1) and
      :math:`(4m-2)\sqrt2/\sqrt d - |M_{ab}|` (the C_m d^{-1/2} of Lemma 4.1, as 2^{r+1} > d)."""
    from flint import arb

    from verify.numeric import frames as F

    weil, pow2, below, bound_below, general, general_cm, rows = [], [], [], [], [], [], []
    for r, m in grid:
        d = 2 ** r
        S = np.abs(F.character_sums(r, m))
        codes = np.arange(S.size, dtype=np.int64)
        top = np.zeros(S.size, dtype=np.int64)  # index J of the top non-zero coefficient: degree 2J + 1
        for j in range(1, m):
            top[(codes >> (r * j)) > 0] = j
        for J in range(m):
            mx = int(S[(top == J) & (codes > 0)].max())
            # the Weil bound of degree 2J + 1, from the statement object (its constants typed once)
            weil.append(to_arb(sides("S-lemA.4-weil", {"r": r, "n": 2 * J + 1}, S_P=0)[1]) - mx)
        cert = F.certify(r, m)
        assert cert.max_abs_sum == int(S[1:].max())  # the certificate's histogram route = the WHT sums (two routes)
        coh = arb(fmpq(cert.max_abs_sum, d))
        bound = to_arb(sides("S-lemA.4-pow2", {"r": r, "m": m}, mu_V=0)[1])  # (2m - 2)/sqrt(d), the statement's
        pow2.append(bound - coh)
        if d >= F.weil_threshold_d(m):
            below.append(1 - coh)
            # the package's threshold against the package's exact Weil bound (2m - 2)/sqrt(d) (symbolic route), not
            # the statement's: a weaker true variant of Lemma A.4 is no bound below 1, and must not fail here
            bound_below.append(1 - to_arb(SF.weil_coherence_bound(r, m)))
        rows.append({"r": r, "m": m, "max_abs_sum": cert.max_abs_sum, "coherence": cert.coherence_exact})
    for m, dmax in general_dmax.items():
        for d in range(2, dmax + 1):
            cert = F.certify_general(d, m)
            r = d.bit_length() - 1
            coh = arb(fmpq(cert.max_abs_sum, 2 ** r))
            # the bounds (4m - 2) / sqrt(2^r) and C_m / sqrt(d), from the statement objects, in balls
            general.append(to_arb(sides("S-lemA.4-general", {"d": d, "r": r, "m": m}, mu_V=0)[1]) - coh)
            general_cm.append(to_arb(sides("S-lem4.1", {"d": d, "m": m}, mu_V=0)[1]) - coh)
    return {"weil": weil, "pow2": pow2, "below": below, "bound_below": bound_below, "general": general,
            "general_cm": general_cm, "grid": rows, "general_d": {f"m={m}": [2, dm] for m, dm in general_dmax.items()}}


def _record_frame_margins(verdict, res):
    route = "exact integers (WHT character sums, certificates) + Arb balls for the square roots"
    verdict.certified("margin", C.margin_evidence(
        res["weil"], "Weil: |sum_x psi(P(x))| <= (deg P - 1) sqrt(2^r), per odd degree", route,
        "max |S| over every odd-term P of each degree (exact) against the bound in a ball", strict=False,
        grid=res["grid"]), claim="S-lemA.4-weil")
    verdict.certified("margin", C.margin_evidence(
        res["pow2"], "Lemma A.4 (d = 2^r): |(V^T V)_ab| <= (2m-2)/sqrt(d)", route,
        "the certificate's max |S| (exact) against the bound in a ball (margin 0 where Weil is attained)",
        strict=False, grid=res["grid"]), claim="S-lemA.4-pow2")
    verdict.certified("margin", C.margin_evidence(
        res["below"] + res["bound_below"], "Lemma 4.1: |M_ij| <= C_m d^{-1/2} < 1 for d = 2^r past the Weil "
        "threshold", route, "the coherence (exact) and C_m / sqrt(d), C_m = 2m - 2 (ball), both below 1",
        grid=res["grid"]), claim="S-lem4.1")
    verdict.certified("margin", C.margin_evidence(
        res["general"] + res["general_cm"], "Lemma A.4 (any d): |M_ab| <= (4m-2)/sqrt(2^r) and <= (4m-2) sqrt(2)/sqrt(d)",
        route, "the general-d certificates' max |S| (exact, every d in range) against both bounds in balls",
        strict=False, d_range=res["general_d"]), claim="S-lemA.4-general")


@pytest.mark.claim("S-lemA.4-pow2", "S-lem4.1", "S-lemA.4-weil", "S-lemA.4-general")
def test_frame_coherence_margins_certified(verdict):
    """Lemma A.4 / Lemma 4.1 / Weil: certified margins at the exact integers of the frames (default tier, r <= 4)."""
    _record_frame_margins(verdict, _frame_margins(FRAME_GRID, GENERAL_DMAX))


@pytest.mark.slow
@pytest.mark.claim("S-lemA.4-pow2", "S-lem4.1", "S-lemA.4-weil", "S-lemA.4-general")
def test_frame_coherence_margins_certified_larger(verdict):
    """The same margins on r <= 6 (r*m <= 18; Lemma 4.1 for m = 3 from d = 32) and general d up to 63 (31 for m = 3)."""
    grid = FRAME_GRID + [(5, 2), (5, 3), (6, 2), (6, 3), (4, 4)]
    _record_frame_margins(verdict, _frame_margins(grid, {1: 63, 2: 63, 3: 31}))
