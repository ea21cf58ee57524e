r"""Figure 1 of paper N (spectrum of :math:`\mathbf F_{k,k}`) and the App. D.1 comparison (whole :math:`\mathbf F`).

Both build the first-order :math:`\mathbf F` of eq. (5) at a collapsed minimiser of (1) with a seeded random
frame :math:`\mathbf R`, compute spectra numerically (dense ``eigh`` of the block and the Kronecker-reduced
:func:`~verify.numeric.perturbation.collapsed_block_spectrum`), overlay the closed forms (21) of App. D,
and write a PNG and a JSON of the numbers.

>>> import tempfile, pathlib
>>> out = reproduce_fig1(pathlib.Path(tempfile.mkdtemp()), quick=True)
>>> out["max_abs_err_numeric_vs_closed_form"] < 1e-12
True
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .._io import atomic_write, atomic_write_text
from .._validate import verify_choice, verify_int
from . import perturbation as P

__all__ = ["FIG1_CONFIG", "reproduce_fig1", "reproduce_full_F", "stretch_comparison"]

#: Figure 1's setting (beta, K, d, n, lambda_W); the paper does not list its lambda_H values, so we take
#: a grid inside the hypothesis lambda_H * lambda_W < 1 (lambda_H < 1/sqrt 2).
FIG1_CONFIG = {"beta": 100.0, "K": 4, "d": 10, "n": 10, "lam_W": float(np.sqrt(2.0)),
               "lam_H": [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7]}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _setup(out_dir, seed, device):
    verify_choice(device, "device", ("auto", "cpu", "cuda"))  # numpy only: the device does not matter
    verify_int(seed, "seed", minimum=0)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return out


def reproduce_fig1(out_dir, quick: bool = False, device: str = "auto", seed: int = 0) -> dict:
    """Figure 1: sorted eigenvalues (= singular values here) of :math:`\\mathbf F_{k,k}` for
    :math:`\\beta=100, K=4, d=10, n=10, \\lambda_W=\\sqrt2` and several :math:`\\lambda_H`; numeric (dense block of the dense
    :math:`\\mathbf F`, and the Kronecker-reduced one) overlaid on the closed form (21).

    Writes ``fig1_Fkk_spectrum.png`` and ``fig1_Fkk_spectrum.json``; returns a summary dict. ``quick`` uses
    three :math:`\\lambda_H` values."""
    out = _setup(out_dir, seed, device)
    cfg = dict(FIG1_CONFIG)
    lam_Hs = [0.05, 0.3, 0.7] if quick else cfg["lam_H"]
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    curves, errs = {}, []
    for lh in lam_Hs:
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed + 1)
        dense = np.sort(np.abs(np.linalg.eigvalsh(P.block(P.F_first_order(W, H, b, lw, lh, K, n), 0, 0, d, n))))[::-1]
        reduced = np.sort(np.abs(P.collapsed_block_spectrum(W, H, 0, b, lw, lh, K, n)))[::-1]
        closed = np.sort(np.abs(P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh)))[::-1]
        errs += [np.max(np.abs(dense - closed)), np.max(np.abs(reduced - closed))]
        curves[str(lh)] = {"numeric_dense": dense.tolist(), "numeric_reduced": reduced.tolist(),
                           "closed_form": closed.tolist()}
    # "almost all singular values decrease as lambda_H increases": per sorted position, between successive lambda_H
    arr = np.array([curves[str(lh)]["closed_form"] for lh in lam_Hs])
    steps = np.diff(arr, axis=0)
    dec = float(np.mean(steps < -1e-14))  # 1e-14: round-off of values of size 1
    ones = float(np.mean(np.isclose(arr[0], 1.0, rtol=0, atol=1e-13)))  # eigenvalue exactly 1 up to round-off
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for lh in lam_Hs:
        c = curves[str(lh)]
        line, = ax.plot(c["closed_form"], "-", lw=1.2, label=f"closed form (21), $\\lambda_H$={lh}")
        ax.plot(c["numeric_dense"], "o", ms=2.5, color=line.get_color())
    ax.set_xlabel("index (sorted)")
    ax.set_ylabel("singular value of $F_{k,k}$")
    ax.set_title(f"$\\beta$={b:g}, K={K}, d={d}, n={n}, $\\lambda_W=\\sqrt{{2}}$ (dots: numeric)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    with atomic_write(out / "fig1_Fkk_spectrum.png", "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)
    summary = {"config": {**cfg, "lam_H": lam_Hs}, "seed": seed,
               "max_abs_err_numeric_vs_closed_form": float(max(errs)),
               "fraction_decreasing_between_successive_lam_H": dec, "fraction_equal_to_one": ones,
               "expected_fraction_equal_to_one": (1 - K / d) / n,
               "distinct_values_per_curve": [int(len(np.unique(np.round(arr[i], 12)))) for i in range(len(lam_Hs))],
               "png": "fig1_Fkk_spectrum.png"}
    atomic_write_text(out / "fig1_Fkk_spectrum.json", json.dumps({"summary": summary, "curves": curves}, indent=1))
    return summary


def stretch_comparison(full: np.ndarray, blockspec: np.ndarray, K: int) -> dict:
    """Compare the sorted whole-:math:`\\mathbf F` spectrum with the block spectrum 'stretched' by ``K`` (each value
    repeated ``K`` times): fraction of positions that differ, the largest difference, and the ranges."""
    full = np.sort(np.asarray(full))[::-1]
    stretched = np.sort(np.repeat(np.asarray(blockspec), K))[::-1]
    diff = np.abs(full - stretched)
    return {"fraction_positions_differing": float(np.mean(diff > 1e-12)),  # 1e-12: round-off of O(1) eigenvalues
            "max_abs_difference": float(diff.max()),
            "range_full": [float(full.min()), float(full.max())],
            "range_block": [float(np.min(blockspec)), float(np.max(blockspec))]}


def reproduce_full_F(out_dir, quick: bool = False, device: str = "auto", seed: int = 0) -> dict:
    """App. D.1: the spectrum of the whole :math:`\\mathbf F` (5) against that of its diagonal blocks, for the
    Figure 1 setting. Writes ``fullF_spectrum.png`` / ``.json``; returns a summary."""
    out = _setup(out_dir, seed, device)
    cfg = FIG1_CONFIG
    lam_Hs = [0.05, 0.5] if quick else [0.05, 0.2, 0.5, 0.7]
    b, K, d, n, lw = cfg["beta"], cfg["K"], cfg["d"], cfg["n"], cfg["lam_W"]
    plt = _plt()
    fig, axes = plt.subplots(1, len(lam_Hs), figsize=(3.4 * len(lam_Hs), 3.4), squeeze=False)
    rows = {}
    for ax, lh in zip(axes[0], lam_Hs):
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed + 1)
        F = P.F_first_order(W, H, b, lw, lh, K, n)
        full = np.sort(np.linalg.eigvalsh(F))[::-1]
        blk = np.sort(np.linalg.eigvalsh(P.block(F, 0, 0, d, n)))[::-1]
        off = np.linalg.svd(P.block(F, 0, 1, d, n), compute_uv=False)
        rows[str(lh)] = {**stretch_comparison(full, blk, K),
                         "structured_vs_dense_full": float(np.max(np.abs(
                             full - P.collapsed_full_spectrum(W, H, b, lw, lh, K, n)))),
                         "full_F_min_eig": float(full.min()),
                         "offdiag_rank": int(np.sum(off > 1e-12 * max(1.0, off[0]))),  # round-off threshold
                         "offdiag_sigma_max": float(off[0])}
        ax.plot(np.linspace(0, 1, full.size), full, "-", label="whole F")
        ax.plot(np.linspace(0, 1, blk.size), blk, "--", label="$F_{k,k}$")
        ax.set_title(f"$\\lambda_H$={lh}", fontsize=9)
        ax.set_xlabel("normalised index")
    axes[0][0].set_ylabel("eigenvalue")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    with atomic_write(out / "fullF_spectrum.png", "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)
    summary = {"config": {**cfg, "lam_H": lam_Hs}, "seed": seed, "per_lam_H": rows, "png": "fullF_spectrum.png"}
    atomic_write_text(out / "fullF_spectrum.json", json.dumps(summary, indent=1))
    return summary
