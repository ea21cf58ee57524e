"""Paper N, the perturbation matrix F (sec. 5, Apps. C-D): the outputs a user reads.

The figure functions return a summary and write a PNG; a check that only asserts the PNG is non-empty and the
summary's own error fields passes when the figure draws the wrong data or the summary misreports it. Here the
figure is kept open (``_plt().close`` intercepted) and the data of every line drawn is compared with an
independent route (the Kronecker-reduced and structured spectra for the dense ones drawn, the closed form (21)),
and every summary field is recomputed from the drawn data. A non-default seed (another orthonormal frame) is used:
the spectra do not depend on it, a seed mix-up in the figure does. ``verify reproduce`` writes its two named files
into the output folder and nothing elsewhere.

The functions behind the claims refuse sizes outside their hypotheses (zero samples or classes, d = K where Thm 5.2
needs d > K): each refusal is asserted by its message, which names the parameter, and the smallest valid size is
checked against the closed form there.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

from verify.numeric import perturbation as P, perturbation_figures as PF

from proofs_checks._refusals import raises_exactly as _raises


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


SEED_2 = 1820


# --------------------------------------------------------------------------- App. D.1 figure files
@pytest.mark.claim("N-D.1-full-F")
def test_full_F_figure_writes_its_two_named_files(verdict, tmp_path, monkeypatch):
    r"""``verify reproduce`` of App. D.1 writes ``fullF_spectrum.png`` and ``fullF_spectrum.json`` into the output
    folder (created) and nothing elsewhere (the working directory stays empty): the JSON is the returned summary,
    the PNG decodes at the figure's size (3.4 in per panel x 3.4 in at 120 dpi), and the summary's least eigenvalue
    and ranges are those of the structured spectrum of F. The Figure 1 setting is shrunk to d = 5, n = 2 (F of size
    40, not 400): the files do not depend on the size."""
    import matplotlib.image

    from verify.numeric import perturbation as P
    from verify.numeric import perturbation_figures as PF

    monkeypatch.setitem(PF.FIG1_CONFIG, "d", 5)
    monkeypatch.setitem(PF.FIG1_CONFIG, "n", 2)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)                                 # a file written to a relative path would land here
    out = tmp_path / "out" / "new"
    summary = PF.reproduce_full_F(out, quick=True, seed=SEED_2)
    assert sorted(p.name for p in out.iterdir()) == ["fullF_spectrum.json", "fullF_spectrum.png"]
    assert list(cwd.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["cwd", "out"]
    assert json.loads((out / "fullF_spectrum.json").read_text(encoding="utf-8")) == json.loads(json.dumps(summary))
    assert summary["png"] == "fullF_spectrum.png"
    lams = summary["config"]["lam_H"]
    img = matplotlib.image.imread(out / summary["png"])
    assert img.shape[:2] == (round(3.4 * 120), round(3.4 * len(lams) * 120))
    cfg = summary["config"]
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    assert (d, n) == (5, 2)
    for lh in lams:
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=SEED_2 + 1)
        full = np.sort(P.collapsed_full_spectrum(W, H, b, lw, lh, K, n))
        row = summary["per_lam_H"][str(lh)]
        # dense eigvalsh of F vs the structured spectrum: rounding of a 40 x 40 symmetric eigenproblem, 1e-12
        assert row["full_F_min_eig"] == pytest.approx(full[0], abs=1e-12)
        assert row["range_full"] == pytest.approx([full[0], full[-1]], abs=1e-12)
    verdict.verified(method="files written == returned summary; PNG decodes at the figure size; summary vs "
                            "structured spectrum", evidence={"lam_H": lams, "d": d, "n": n, "seed": SEED_2})


@pytest.mark.claim("N-D-residual")
def test_rational_collapsed_point_refuses_zero_samples_per_class(verdict):
    r"""The exact collapsed minimiser needs n >= 1 samples per class: ``rational_collapsed_point`` refuses n = 0 and
    n = -3 naming n; at n = 3 (a, b = 2/3, 3/5, d = 3, K = 2, R the first K columns of I) the point is collapsed:
    :math:`WH = ab\,(I_K \otimes 1_n^T)` exactly, and :math:`c = 1 - ab`,
    :math:`\lambda_W\lambda_H = (1-ab)^2` (the closed forms of its stationarity)."""
    from verify.symbolic import perturbation as S

    a, b, d, K, n = sympy.Rational(2, 3), sympy.Rational(3, 5), 3, 2, 3
    R = sympy.eye(d)[:, :K]
    for bad in (0, -3):
        _raises(lambda: S.rational_collapsed_point(a, b, R, bad), f"Argument 'n' must be an integer >= 1, not {bad}.")
    pt = S.rational_collapsed_point(a, b, R, n)
    blocks = sympy.Matrix(K, K * n, lambda i, j: 1 if j // n == i else 0)   # I_K (x) 1_n^T, built entrywise
    assert pt["W"] * pt["H"] == a * b * blocks
    assert pt["c"] == 1 - a * b and pt["lam_W"] * pt["lam_H"] == (1 - a * b) ** 2
    verdict.verified(method="rational_collapsed_point's refusal names n; exact W H at n = 3",
                     evidence={"a": "2/3", "b": "3/5", "n": n})


@pytest.mark.claim("N-D-eig")
def test_appendix_d_spectra_refuse_zero_classes_naming_k(verdict):
    r"""App. D's exact spectra validate their sizes: ``paper_Fkk_spectrum`` (Thm 5.2: d > K) refuses K = 0 naming K
    and d = K = 2 naming d and the theorem; ``Z_blocks_paper`` (Thm 5.1: d >= K) refuses K = 0 naming K."""
    from verify.symbolic import perturbation as SP

    _raises(lambda: SP.paper_Fkk_spectrum(3, 0, 2), "Argument 'K' must be an integer >= 1, not 0.")
    _raises(lambda: SP.paper_Fkk_spectrum(2, 2, 2),
            "Argument 'd' must be an integer > K = 2 (Thm 5.2 assumes d > K), not 2.")
    _raises(lambda: SP.Z_blocks_paper(3, 0, 2, sympy.eye(3), 1, 1, sympy.Rational(1, 2)),
            "Argument 'K' must be an integer >= 1, not 0.")
    verdict.verified(method="App. D spectra refuse K = 0 naming K, d = K naming Thm 5.2", evidence={"refused_K": 0})


@pytest.mark.claim("N-C-derivs")
def test_dense_derivatives_refuse_zero_classes_naming_k(verdict):
    r"""App. C's dense derivatives validate the problem through ``check_problem``: ``E_matrix`` and
    ``hessian_blocks`` refuse K = 0 naming K and the range; at K = 2, n = 2, d = 3 the matrix
    :math:`\mathbf E\in\mathbb R^{dnK\times Kd}` has the stated shape (12 x 6)."""
    from verify.numeric import perturbation as P

    W, H = np.ones((2, 3)), np.ones((3, 4))
    _raises(lambda: P.E_matrix(W, H, 0, 2), "Argument 'K' must be an integer >= 1, not 0.")
    _raises(lambda: P.hessian_blocks(W, H, 2.0, 0.5, 0.1, 0, 2), "Argument 'K' must be an integer >= 1, not 0.")
    assert P.E_matrix(W, H, 2, 2).shape == (3 * 2 * 2, 2 * 3)
    verdict.verified(method="E_matrix / hessian_blocks refuse K = 0 naming K", evidence={"refused_K": 0})


@pytest.mark.claim("N-C-derivs")
def test_derivative_residuals_refuse_zero_classes(verdict):
    r"""``derivative_residuals`` (App. C's derivatives against sympy.diff) refuses K < 1 naming K; at K = 1 (one
    class, the smallest valid size) every residual is zero."""
    from verify.symbolic import perturbation as SP

    _raises(lambda: SP.derivative_residuals(2, 0, 1), "Argument 'K' must be an integer >= 1, not 0.")
    res = SP.derivative_residuals(2, 1, 1)
    assert res and all(v == 0 for v in res.values()), res
    verdict.verified(method="derivative_residuals' refusal names K; residuals at K = 1", evidence=res)
