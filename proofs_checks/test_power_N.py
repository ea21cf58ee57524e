r"""Paper N: outputs a user reads, asserted (check power, class 4 of issue 18).

The figure functions return a summary and write a PNG; a check that only asserts the PNG is non-empty and the
summary's own error fields passes when the figure draws the wrong data or the summary misreports it. Here the
figure is kept open (``_plt().close`` intercepted) and the data of every line drawn is compared with an
independent route (the Kronecker-reduced and structured spectra for the dense ones drawn, the closed form (21)),
and every summary field is recomputed from the drawn data. A non-default seed (another orthonormal frame) is used:
the spectra do not depend on it, a seed mix-up in the figure does.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify.numeric import perturbation as P
from verify.numeric import perturbation_figures as PF

SEED = 3
# eigenvalues of size 1 of 400 x 400 symmetric matrices, float64: round-off ~1e-14; 1e-12 leaves a margin of 100
EIG = 1e-12


class _KeepFigures:
    """pyplot, except that ``close(fig)`` keeps the figure for the check to read."""

    def __init__(self, plt):
        self._plt, self.figures = plt, []

    def __getattr__(self, name):
        return getattr(self._plt, name)

    def close(self, fig):
        self.figures.append(fig)


@pytest.fixture
def kept(monkeypatch):
    keeper = _KeepFigures(PF._plt())
    monkeypatch.setattr(PF, "_plt", lambda: keeper)
    yield keeper
    for fig in keeper.figures:
        keeper._plt.close(fig)


@pytest.mark.claim("N-fig1")
def test_fig1_drawn_lines_are_the_dense_spectra_and_closed_form(verdict, tmp_path, kept):
    r"""Figure 1 as drawn: per :math:`\lambda_H` one solid line (the closed form (21), labelled with its
    :math:`\lambda_H`) and dots of the same colour (the dense :math:`\mathbf F_{k,k}` spectrum); the dots equal the
    closed form and the Kronecker-reduced spectrum computed here; the JSON's curves are the drawn data; the summary's
    error, share of ones, distinct levels and fraction decreasing are recomputed from the drawn data."""
    out = PF.reproduce_fig1(tmp_path, quick=True, seed=SEED)
    cfg = out["config"]
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    curves = json.loads((tmp_path / "fig1_Fkk_spectrum.json").read_text())["curves"]
    (fig,) = kept.figures
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2 * len(cfg["lam_H"])
    worst, drawn_closed = 0.0, []
    for i, lh in enumerate(cfg["lam_H"]):
        line, dots = lines[2 * i], lines[2 * i + 1]
        assert line.get_linestyle() == "-" and dots.get_marker() == "o" and dots.get_color() == line.get_color()
        assert f"={lh}" in line.get_label()
        closed, dense = np.asarray(line.get_ydata()), np.asarray(dots.get_ydata())
        assert closed.size == dense.size == d * n and np.all(np.diff(closed) <= 0)     # sorted, descending
        assert closed.tolist() == curves[str(lh)]["closed_form"] and dense.tolist() == curves[str(lh)]["numeric_dense"]
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=SEED + 1)
        reduced = np.sort(np.abs(P.collapsed_block_spectrum(W, H, 0, b, lw, lh, K, n)))[::-1]
        formula = np.sort(np.abs(P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh)))[::-1]
        worst = max(worst, float(np.abs(dense - formula).max()), float(np.abs(reduced - dense).max()))
        assert np.array_equal(closed, formula)
        drawn_closed.append(closed)
    assert worst < EIG and out["max_abs_err_numeric_vs_closed_form"] < EIG
    arr = np.array(drawn_closed)
    assert out["fraction_decreasing_between_successive_lam_H"] == float(np.mean(np.diff(arr, axis=0) < -1e-14))
    assert out["fraction_equal_to_one"] == pytest.approx((1 - K / d) / n, abs=1e-15)   # share of exact ones
    assert out["distinct_values_per_curve"] == [len(np.unique(np.round(c, 12))) for c in arr] == [5] * len(arr)
    verdict.verified(method="num: Figure 1's drawn lines vs dense, Kronecker-reduced and closed-form spectra; summary "
                            "recomputed from the drawn data", evidence={"lam_H": cfg["lam_H"], "max_abs_err": worst,
                                                                        "seed": SEED})


@pytest.mark.claim("N-D.1-full-F")
def test_full_F_figure_draws_the_structured_spectra_and_reports_them(verdict, tmp_path, kept):
    r"""App. D.1's figure as drawn: one panel per :math:`\lambda_H`, the whole :math:`\mathbf F` spectrum and the
    :math:`\mathbf F_{k,k}` spectrum on normalised indices; both equal the structured spectra computed here
    (:func:`~verify.numeric.perturbation.collapsed_full_spectrum`, the Kronecker-reduced block), and the summary's
    fraction of differing positions, ranges and least eigenvalue equal those of the drawn data."""
    out = PF.reproduce_full_F(tmp_path, quick=True, seed=SEED)
    cfg = out["config"]
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    (fig,) = kept.figures
    assert len(fig.axes) == len(cfg["lam_H"])
    rows = {}
    for ax, lh in zip(fig.axes, cfg["lam_H"]):
        assert f"={lh}" in ax.get_title()
        whole, blk = ax.get_lines()[:2]
        full, bs = np.asarray(whole.get_ydata()), np.asarray(blk.get_ydata())
        assert np.array_equal(whole.get_xdata(), np.linspace(0, 1, d * n * K))
        assert np.array_equal(blk.get_xdata(), np.linspace(0, 1, d * n))
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=SEED + 1)
        want_full = np.sort(P.collapsed_full_spectrum(W, H, b, lw, lh, K, n))[::-1]
        want_blk = np.sort(P.collapsed_block_spectrum(W, H, 0, b, lw, lh, K, n))[::-1]
        err = max(float(np.abs(full - want_full).max()), float(np.abs(bs - want_blk).max()))
        assert err < EIG, (lh, err)
        row = out["per_lam_H"][str(lh)]
        stretched = np.sort(np.repeat(bs, K))[::-1]
        assert row["fraction_positions_differing"] == float(np.mean(np.abs(full - stretched) > 1e-12))
        assert 0 < row["fraction_positions_differing"] < 0.05        # the predicted split (D.1): few, not none
        assert row["range_full"] == [float(full.min()), float(full.max())] and row["full_F_min_eig"] == full.min()
        assert row["range_block"] == [float(bs.min()), float(bs.max())]
        assert row["max_abs_difference"] == float(np.abs(full - stretched).max()) > EIG
        rows[str(lh)] = {"max_abs_err_drawn_vs_structured": err, **row}
    verdict.verified(method="num: App. D.1 figure's drawn spectra vs structured spectra; summary recomputed from the "
                            "drawn data", evidence={"rows": rows, "seed": SEED})
