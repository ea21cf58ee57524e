"""BEYOND THE PAPER (issue 12): frames past Lemma A.4, certified exactly. These are not claims of paper S;
they are reported in the separate "beyond the paper" table (IDs ``X-S-...`` in ``verify.claims.BEYOND``).

* X-S-quadratic-certificate - for m <= 3 the character-sum histogram of the Lemma A.4 frame follows from GF(2)
  radical dimensions; cross-checked against the WHT certificate and against Kasami's weight distributions
  (the reference derivation lives in tests/numeric/test_frame_quadratic.py and is reused here).
* X-S-kerdock-frames / X-S-dg-frames - Kerdock and Delsarte-Goethals frames, coherence exactly 1/sqrt(d) and
  2^delta/sqrt(d), checked by two certificate routes (WHT and ranks) and by the dense Gram where it fits.

All coherences are exact integers max |S| over 2^r; no tolerance enters except the float Levenstein ratio.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest

from verify.numeric import frame_codes as C
from verify.numeric import frames as F
from verify.numeric import quadratic_certificate as Q


def _kasami():
    spec = importlib.util.spec_from_file_location(
        "_kasami_ref", Path(__file__).resolve().parents[1] / "tests" / "numeric" / "test_frame_quadratic.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod._kasami_reference


@pytest.mark.claim("X-S-quadratic-certificate")
def test_quadratic_certificate_r12_and_cross_checks(verdict):
    wht_agree = []
    for r in range(1, 7):
        for m in (1, 2, 3):
            assert Q.quadratic_certificate(r, m).histogram == F.certify(r, m).histogram
            wht_agree.append([r, m])
    ref = _kasami()
    kasami = [(r, t) for r in range(3, 9) for t in (2, 3) if t == 2 or r >= 5]
    for r, t in kasami:
        assert Q.quadratic_certificate(r, t).signed_histogram == ref(r, t)
    t0 = time.perf_counter()
    big = Q.quadratic_certificate(12, 3)
    assert time.perf_counter() - t0 < 60  # issue 12's target, 2 shared cores
    assert sum(big.histogram.values()) == 2 ** 36 - 1
    assert sum(v * v * c for v, c in big.histogram.items()) == 2 ** 36 * 2 ** 12 - 2 ** 24  # Parseval
    assert big.max_abs_sum ** 2 <= (2 * 3 - 2) ** 2 * 2 ** 12  # Weil: |S| <= (2m-2) sqrt(2^r), squared
    verdict.verified(method="num: exact GF(2) ranks (symmetry-reduced) vs WHT certificate and Kasami moments",
                     evidence={"wht_agree_r_m": wht_agree, "kasami_r_t": [list(x) for x in kasami],
                               "r12_m3": big.evidence()})


@pytest.mark.slow
@pytest.mark.claim("X-S-quadratic-certificate")
def test_quadratic_certificate_r16(verdict):
    t0 = time.perf_counter()
    big = Q.quadratic_certificate(16, 3)
    assert time.perf_counter() - t0 < 600
    assert sum(big.histogram.values()) == 2 ** 48 - 1
    assert sum(v * v * c for v, c in big.histogram.items()) == 2 ** 48 * 2 ** 16 - 2 ** 32
    assert Q.quadratic_certificate(8, 3).histogram == F.certify(8, 3).histogram
    verdict.verified(method="num: exact GF(2) ranks, Parseval identity", evidence={"r16_m3": big.evidence()})


@pytest.mark.claim("X-S-kerdock-frames")
def test_kerdock_frames(verdict):
    rows = []
    for r in (2, 4, 6, 8, 10, 12):
        a = C.code_certificate("kerdock", r, include_identity=True)
        if r <= 10:
            assert C.code_certificate("kerdock", r, method="wht").histogram == C.code_certificate("kerdock", r).histogram
        if r <= 6:  # the unreduced scan, independent of the orbit reduction both routes above use
            assert C.code_certificate("kerdock", r, symmetry=False).histogram == C.code_certificate("kerdock", r).histogram
        assert a.max_abs_sum == 2 ** (r // 2)  # coherence exactly 1/sqrt(d)
        assert a.n_columns == 2 ** (2 * r - 1) + 2 ** r
        if a.levenstein_bound is not None:
            assert a.ratio_to_levenstein == pytest.approx(1, abs=1e-12)  # float sqrt of equal rationals
        rows.append({"r": r, "n": a.n_columns, "coherence": a.coherence_exact, "ratio_to_welch": a.ratio_to_welch,
                     "ratio_to_levenstein": a.ratio_to_levenstein})
    for r in (4, 6):
        fr = C.build_code_frame("kerdock", r)
        V = np.hstack([fr.signs.astype(np.int64), 2 ** (r // 2) * np.eye(2 ** r, dtype=np.int64)])
        assert F.gram_coherence(V, exact_int=True) == 2 ** (r // 2)  # dense Gram, identity scaled alike
    verdict.verified(method="num: exact WHT and rank certificates, dense Gram at d = 16, 64", evidence={"rows": rows})


def _dg_rows(cases, wht: bool) -> list:
    rows = []
    for r, delta in cases:
        a = C.code_certificate("dg", r, delta)
        if wht:
            assert C.code_certificate("dg", r, delta, method="wht").histogram == a.histogram
            # the unreduced scan (every form, no scaling/Frobenius orbits): both routes above share the reduction
            assert C.code_certificate("dg", r, delta, symmetry=False).histogram == a.histogram
        assert a.max_abs_sum == 2 ** (r // 2 + delta)
        assert a.n_columns * 2 ** (delta + 1) == 2 ** (r * (delta + 2))
        paper = Q.quadratic_certificate(r, delta + 1)
        rows.append({"r": r, "delta": delta, "n": a.n_columns, "coherence": a.coherence_exact,
                     "paper_m": delta + 1, "paper_n": paper.n_columns, "paper_coherence": paper.coherence_exact})
    return rows


@pytest.mark.claim("X-S-dg-frames")
def test_dg_frames(verdict):
    rows = _dg_rows([(4, 1), (6, 1), (6, 2), (8, 1)], wht=True)
    fr = C.build_code_frame("dg", 4, 1)
    assert F.gram_coherence(fr.signs, exact_int=True) == 8
    verdict.verified(method="num: exact WHT and rank certificates, dense Gram at d = 16", evidence={"rows": rows})


@pytest.mark.slow
@pytest.mark.claim("X-S-dg-frames")
def test_dg_frames_larger(verdict):
    rows = _dg_rows([(8, 2), (10, 1), (12, 1)], wht=False)
    verdict.verified(method="num: exact rank certificates", evidence={"rows": rows})


# --------------------------------------------------------------------------- Thm 4.2 with better frames
def _thm42_compare(r: int, mu: str) -> dict:
    from fractions import Fraction

    from verify.numeric import frame_lower_bound as FL

    ps = [Fraction(1, 2 ** j) for j in range(0, 3 * r + 5, 2)]  # through the crossover p = d^-3 and beyond
    return FL.compare_frames(r, ps, m=3, mu=mu)


def _searched_beyond_dg1(res: dict, name: str) -> bool:
    """Whether the search over DG(r, delta) sub-frames reached one that is not a DG(r, 1) sub-frame: that needs more
    than the first m' = r - 1 bits of c (l > m'), i.e. more columns than the whole DG(r, 1) frame has."""
    return res["sizes"][name] > res["sizes"]["dg1"]


def _thm42_assert(res: dict) -> dict:
    """Separate the two sources of gain over the paper's bound, comparing like with like (every frame at its own best
    power-of-two k, the paper's frame with the paper's k added to its candidates):

    * ``gain_from_k``: the paper's frame at its best k against the paper's frame at the paper's k;
    * ``gain_from_frame``: the lower-coherence DG(r, 1) sub-frames at their best k against the paper's frame at its
      best k;

    both as ratios of the worst constant over p, and per p exactly (Fractions). "More columns at the paper's coherence
    give no gain" (DG(r, delta >= 2) against DG(r, 1)) is asserted only where the search reached sub-frames beyond
    DG(r, 1); elsewhere it would hold automatically and is recorded as not tested."""
    pts = res["points"]
    names = [n for n in res["sizes"] if n != "paper"]
    for p in pts:
        assert p["paper_best"]["sup"] >= p["paper_sup"]  # the paper's k is among the candidates: exact
        assert p["dg1"]["sup"] >= p["paper_best"]["sup"]  # measured: the frame never loses at equal k rules (exact)
    no_gain = {}
    for name in names:
        if name.startswith("dg") and name != "dg1":
            if _searched_beyond_dg1(res, name):
                assert all(p[name]["sup"] == p["dg1"]["sup"] for p in pts)  # exact equality at every p
                no_gain[name] = {"tested": True, "columns_searched": res["sizes"][name]}
            else:
                no_gain[name] = {"tested": False, "why": "the searched sub-frames (l <= r - 1 bits of c) are DG(r, 1) "
                                 "sub-frames, so equality holds by construction"}
    worst = {"paper": min(p["paper_ratio"] for p in pts), "paper_best_k": min(p["paper_best"]["ratio"] for p in pts)}
    worst.update({n: min(p[n]["ratio"] for p in pts) for n in names})
    gain_k, gain_frame = worst["paper_best_k"] / worst["paper"], worst["dg1"] / worst["paper_best_k"]
    assert gain_k > 1 and gain_frame > 1  # both sources raise the worst constant (measured; ratios >= 1 per p above)
    return {"d": res["d"], "mu": res["mu"], "sizes": res["sizes"], "worst_ratio_over_p": worst,
            "gain_from_k": gain_k, "gain_from_frame": gain_frame, "gain_total": gain_k * gain_frame,
            "more_columns_no_gain": no_gain,
            "table": [{"p": p["p"], "paper": p["paper_ratio"], "paper_best_k": [p["paper_best"]["ratio"], p["paper_best"]["k"]],
                       **{n: [p[n]["ratio"], p[n]["k"]] for n in names}} for p in pts]}


def _dg_beyond_dg1(r: int, ps: list, mu: str, res: dict) -> dict:
    """DG(r, 2) sub-frames one bit of c beyond DG(r, 1) (l = r: 2^(3r - 1) columns), past the default search cap, so
    "more columns give no gain" is tested at this d too: the best of them never beats DG(r, 1) at any p (exact)."""
    import sys

    from verify.numeric import frame_lower_bound as FL

    mod = sys.modules[FL.code_block_stats.__module__]  # where the cap is read, wherever the frames code lives
    mp = r - 1
    saved = mod.MAX_FORMS
    mod.MAX_FORMS = 2 ** (2 * mp + mp + 1)
    try:
        st = FL.code_block_stats("dg", r, 3, s=mp, l=mp + 1, delta=2)
    finally:
        mod.MAX_FORMS = saved
    rows = []
    for p, pt in zip(ps, res["points"]):
        best = FL.best_point([st], p, mu, res["d"], 3)
        assert best["sup"] <= pt["dg1"]["sup"]  # no gain from the extra columns (exact Fractions)
        rows.append({"p": pt["p"], "ratio": best["ratio"], "dg1_ratio": pt["dg1"]["ratio"]})
    return {"k": st.k, "rows": rows}


@pytest.mark.claim("X-S-thm4.2-better-frames")
def test_thm42_with_better_frames(verdict):
    out = []
    for r in (4, 6):
        res = _thm42_compare(r, "gaussian")
        if r == 6:  # DG(6, 2) is searched in full (all 2^21 columns): "no gain" is tested beyond DG(6, 1)
            assert res["sizes"]["dg2"] == 2 ** 21 > res["sizes"]["dg1"]
        out.append(_thm42_assert(res))
    verdict.verified(method="num: exact a, b (eqs. 19-20) from exact row power sums of Kerdock/DG sub-frames "
                            "(GF(2) ranks); every frame at its own best power-of-two k, the paper's frame also at the "
                            "paper's k",
                     evidence={"BEYOND_THE_PAPER": True, "cases": out,
                               "tested_where": "more columns: d = 64 (DG(6, 2) in full); d = 16 has no DG(r, 2)"})


@pytest.mark.slow
@pytest.mark.claim("X-S-thm4.2-better-frames")
def test_thm42_with_better_frames_larger(verdict):
    from fractions import Fraction

    out = [_thm42_assert(_thm42_compare(6, "laplace"))]
    res = _thm42_compare(8, "gaussian")
    case = _thm42_assert(res)
    case["dg2_beyond_dg1"] = _dg_beyond_dg1(8, [Fraction(1, 2 ** j) for j in range(0, 3 * 8 + 5, 2)], "gaussian", res)
    out.append(case)
    verdict.verified(method="num: as above, d = 64 (Laplace) and d = 256 (DG(8, 2) sub-frames one bit of c beyond "
                            "DG(8, 1), 2^23 columns, past the default search cap)",
                     evidence={"BEYOND_THE_PAPER": True, "cases": out})
