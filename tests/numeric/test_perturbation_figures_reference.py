r"""Figure 1 and App. D.1 (:mod:`verify.numeric.perturbation_figures`) against references written here.

References: App. D's closed form (19)-(21) typed here (eigenvalues with multiplicities, evaluated in floats); the
dense spectra by numpy ``eigvalsh`` / ``svd`` of the numeric :math:`\mathbf F`; every summary number recomputed
from the curves the function wrote; Theorem 5.2's :math:`\sigma_{\max}(\mathbf F_{k,\tilde k})` and rank 1 for the
off-diagonal block; the stretched comparison by sorting and repeating in plain Python.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import perturbation as P
from verify.numeric import perturbation_figures as PF

REF = settings.get_profile("reference")
REF_FEW = settings(REF, max_examples=min(REF.max_examples, 3))

PNG = b"\x89PNG\r\n\x1a\n"


def drawn(call):
    """``(result, figures)``: the call's result and the matplotlib figures it closed (what the PNG shows)."""
    import matplotlib.pyplot as plt

    figs, close = [], plt.close
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plt, "close", lambda fig=None: (figs.append(fig), close(fig))[1])
        out = call()
    return out, figs


def closed_form_21(d, K, n, b, lw, lh) -> list:
    """App. D (19)-(21): sorted descending, absolute values (singular values of the symmetric block)."""
    c, r = math.sqrt(lh * lw), math.sqrt(lh / lw)
    lam_in, lam_out = 1 - r / b, 1 - lh / b
    items = [(lam_in, K * (n - 1)), (lam_out, (d - K) * (n - 1)), (lam_in + (2 * c - 1) ** 2 * r / b, 1),
             (lam_in + (c ** 2 + (1 - c) ** 2) * r / b, K - 1), (lam_out + lh / b, d - K)]
    return sorted((abs(e) for e, m in items for _ in range(m)), reverse=True)


@REF_FEW
@given(st.booleans(), st.integers(0, 3))
def test_reproduce_fig1_against_the_closed_form_and_its_own_curves(tmp_path_factory, quick, seed):
    out = tmp_path_factory.mktemp("fig1")
    summ, figs = drawn(lambda: PF.reproduce_fig1(out, quick=quick, device="cpu", seed=seed))
    cfg = PF.FIG1_CONFIG
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    lam_Hs = [0.05, 0.3, 0.7] if quick else cfg["lam_H"]
    doc = json.loads((out / "fig1_Fkk_spectrum.json").read_text())
    assert doc["summary"] == summ and (out / "fig1_Fkk_spectrum.png").read_bytes()[:8] == PNG
    assert summ["config"]["lam_H"] == lam_Hs and summ["seed"] == seed and set(doc["curves"]) == {str(x) for x in lam_Hs}
    errs = []
    for lh in lam_Hs:
        c = doc["curves"][str(lh)]
        want = closed_form_21(d, K, n, b, lw, lh)
        np.testing.assert_allclose(c["closed_form"], want, rtol=1e-14, atol=1e-15)
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed + 1)
        blk = P.F_first_order(W, H, b, lw, lh, K, n)[:d * n, :d * n]
        dense = sorted(np.abs(np.linalg.eigvalsh(blk)), reverse=True)
        np.testing.assert_allclose(c["numeric_dense"], dense, rtol=0, atol=1e-13)
        np.testing.assert_allclose(c["numeric_reduced"], want, rtol=0, atol=1e-11)
        errs += [np.max(np.abs(np.array(c["numeric_dense"]) - want)), np.max(np.abs(np.array(c["numeric_reduced"]) - want))]
    assert math.isclose(summ["max_abs_err_numeric_vs_closed_form"], max(errs), rel_tol=1e-6, abs_tol=1e-300)
    assert summ["max_abs_err_numeric_vs_closed_form"] < 1e-11
    # the PNG's content: per lambda_H a closed-form line and the dense dots, labelled, on labelled axes
    # every text a reader sees compared whole with what the figure must say (the paper's Figure 1 setting from the
    # config, the equation the closed form comes from, which marks are numeric)
    (ax,) = figs[0].axes
    assert ax.get_xlabel() == "index (sorted)"
    assert ax.get_ylabel() == "singular value of $F_{k,k}$"
    assert ax.get_title() == (f"$\\beta$={b:g}, K={K}, d={d}, n={n}, $\\lambda_W=\\sqrt{{2}}$ (dots: numeric)")
    assert math.isclose(lw, math.sqrt(2), rel_tol=0, abs_tol=0)   # the title's sqrt(2) is the config's lambda_W
    lines = ax.get_lines()
    assert len(lines) == 2 * len(lam_Hs)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [f"closed form (21), $\\lambda_H$={lh}" for lh in lam_Hs]
    for i, lh in enumerate(lam_Hs):
        c = doc["curves"][str(lh)]
        np.testing.assert_array_equal(lines[2 * i].get_ydata(), c["closed_form"])
        np.testing.assert_array_equal(lines[2 * i + 1].get_ydata(), c["numeric_dense"])
        np.testing.assert_array_equal(lines[2 * i].get_xdata(), np.arange(len(c["closed_form"])))
        np.testing.assert_array_equal(lines[2 * i + 1].get_xdata(), np.arange(len(c["numeric_dense"])))
        assert lines[2 * i].get_label() == f"closed form (21), $\\lambda_H$={lh}"
        assert lines[2 * i].get_linestyle() == "-" and lines[2 * i].get_marker() in ("None", "", None)
        assert lines[2 * i + 1].get_marker() == "o" and lines[2 * i + 1].get_linestyle() == "None"
        assert lines[2 * i + 1].get_label().startswith("_")          # the dots are not in the legend
        assert lines[2 * i + 1].get_color() == lines[2 * i].get_color()   # a curve's dots in its colour
    assert len({ln.get_color() for ln in lines[::2]}) == len(lam_Hs)
    arr = np.array([closed_form_21(d, K, n, b, lw, lh) for lh in lam_Hs])
    steps = [arr[i + 1][j] - arr[i][j] for i in range(len(lam_Hs) - 1) for j in range(arr.shape[1])]
    assert summ["fraction_decreasing_between_successive_lam_H"] == sum(s < -1e-14 for s in steps) / len(steps)
    assert summ["fraction_equal_to_one"] == sum(abs(v - 1) <= 1e-13 for v in arr[0]) / arr.shape[1]
    assert summ["expected_fraction_equal_to_one"] == (1 - K / d) / n
    assert summ["distinct_values_per_curve"] == [len({round(v, 12) for v in row}) for row in arr]
    with pytest.raises(VerifyInputError, match="'device'"):
        PF.reproduce_fig1(out, quick=True, device="tpu")
    with pytest.raises(VerifyInputError, match="'seed'"):
        PF.reproduce_fig1(out, quick=True, seed=-1)


@REF_FEW
@given(st.booleans(), st.integers(0, 3))
def test_reproduce_full_F_against_dense_spectra_and_thm52(tmp_path_factory, quick, seed):
    out = tmp_path_factory.mktemp("fullF")
    summ, figs = drawn(lambda: PF.reproduce_full_F(out, quick=quick, device="cpu", seed=seed))
    axes = figs[0].axes
    assert len(axes) == len([0.05, 0.5] if quick else [0.05, 0.2, 0.5, 0.7])
    # the y label and the legend on the first panel only, whole
    assert [a.get_ylabel() for a in axes] == ["eigenvalue"] + [""] * (len(axes) - 1)
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == ["whole F", "$F_{k,k}$"]
    assert all(a.get_legend() is None for a in axes[1:])
    cfg = PF.FIG1_CONFIG
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    lam_Hs = [0.05, 0.5] if quick else [0.05, 0.2, 0.5, 0.7]
    assert json.loads((out / "fullF_spectrum.json").read_text()) == summ
    assert (out / "fullF_spectrum.png").read_bytes()[:8] == PNG
    assert summ["config"]["lam_H"] == lam_Hs and set(summ["per_lam_H"]) == {str(x) for x in lam_Hs}
    for lh in lam_Hs:
        row = summ["per_lam_H"][str(lh)]
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed + 1)
        F = P.F_first_order(W, H, b, lw, lh, K, n)
        full = np.linalg.eigvalsh(F)
        blk = np.linalg.eigvalsh(F[:d * n, :d * n])
        off = np.linalg.svd(F[:d * n, d * n:2 * d * n], compute_uv=False)
        assert math.isclose(row["full_F_min_eig"], full.min(), rel_tol=1e-12)
        # the panel: the whole spectrum and the block's, descending, against the normalised index
        ax = axes[lam_Hs.index(lh)]
        (lf, lb) = ax.get_lines()
        np.testing.assert_allclose(lf.get_ydata(), full[::-1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(lb.get_ydata(), blk[::-1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(lf.get_xdata(), np.linspace(0, 1, full.size), rtol=0, atol=0)
        assert ax.get_title() == f"$\\lambda_H$={lh}" and ax.get_xlabel() == "normalised index"
        assert (lf.get_label(), lb.get_label()) == ("whole F", "$F_{k,k}$")
        assert (lf.get_linestyle(), lb.get_linestyle()) == ("-", "--")
        np.testing.assert_allclose(lb.get_xdata(), np.linspace(0, 1, blk.size), rtol=0, atol=0)
        # Theorem 5.2: F_{k,k~} has rank 1 and sigma_max = 2 lH (1 - sqrt(lH lW)) / beta
        assert row["offdiag_rank"] == 1
        assert math.isclose(row["offdiag_sigma_max"], 2 * lh * (1 - math.sqrt(lh * lw)) / b, rel_tol=1e-9)
        assert row["structured_vs_dense_full"] < 1e-11
        ref = PF.stretch_comparison(full, blk, K)
        for k in ("fraction_positions_differing", "max_abs_difference", "range_full", "range_block"):
            assert row[k] == pytest.approx(ref[k], rel=1e-9, abs=1e-13), k


@REF
@given(st.integers(1, 4), st.lists(st.integers(-3, 3), min_size=1, max_size=6), st.data())
def test_stretch_comparison_against_sorting_by_hand(K, blockspec, data):
    scale = data.draw(st.sampled_from([1.0, 1e-3, 7.5]))
    block = [v * scale for v in blockspec]
    stretched = sorted([v for v in block for _ in range(K)], reverse=True)
    # perturb positions by amounts on both sides of the 1e-12 cut
    eps = [data.draw(st.sampled_from([0.0, 5e-13, 2e-12, 0.25])) for _ in stretched]
    full = [v + e for v, e in zip(stretched, eps)]
    perm = data.draw(st.permutations(range(len(full))))
    got = PF.stretch_comparison(np.array([full[i] for i in perm]), np.array(block), K)
    fs = sorted(full, reverse=True)
    diffs = [abs(a - b) for a, b in zip(fs, stretched)]
    assert got["fraction_positions_differing"] == sum(x > 1e-12 for x in diffs) / len(diffs)
    assert got["max_abs_difference"] == max(diffs)
    assert got["range_full"] == [min(full), max(full)] and got["range_block"] == [min(block), max(block)]
