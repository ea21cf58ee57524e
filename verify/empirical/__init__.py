r"""Torch backend (optional extra ``verify[torch]``) for the empirical claims of papers S and N.

* :mod:`verify.empirical.superposition` - paper S Figure 3 (trained :math:`\tilde L` against p);
* :mod:`verify.empirical.neural_collapse` - paper N Fig. 2, Fig. 3 / Table 1, Fig. 6, App. E.2;
* :mod:`verify.empirical.data` - digits (bundled with scikit-learn), MNIST / CIFAR-10 from a folder.

torch is imported only inside the functions that need it, so ``import verify.empirical`` works
without it. This module holds the shared plumbing: device choice, thread limit, seeding, progress
bars, and the statistical verdict rule used by every empirical claim.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Sequence

import numpy as np

from .._validate import verify_choice

__all__ = ["resolve_device", "limit_threads", "progress", "seed_everything", "effect_summary", "flush_denormals"]


def resolve_device(device: str = "auto"):
    """``"cpu"``, ``"cuda"`` or ``"auto"`` (cuda when a GPU is visible, else cpu) -> ``torch.device``."""
    import torch

    verify_choice(device, "device", ("cpu", "cuda", "auto"))
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("Argument 'device' must be 'cpu' or 'auto' on a machine without CUDA, not 'cuda'.")
    return torch.device(device)


def limit_threads() -> int:
    """Cap torch's intra-op threads at the cores this process may use (no oversubscription on small boxes)."""
    import torch

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    # pytest-xdist workers share the cores: each takes its share, not all of them
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    n = max(1, min(torch.get_num_threads(), cores // max(1, workers)))
    torch.set_num_threads(n)
    return n


@contextlib.contextmanager
def flush_denormals(device):
    """On a CPU, treat float denormals as zero for the duration (restored after).

    Training drives some quantities (collapsed columns' :math:`A_{ij}^{2m}`, gradients and momentum of
    dead ReLU units) into the denormal range, where CPU arithmetic is ~100x slower: measured 10.6 s
    instead of 535 s for the quick WD preset. Values below ~1e-38 (float32) become 0.
    """
    import torch

    on = device.type == "cpu" and torch.set_flush_denormal(True)
    try:
        yield
    finally:
        if on:
            torch.set_flush_denormal(False)


def seed_everything(seed: int) -> None:
    """Seed torch (CPU and CUDA) and numpy's legacy global state; the code itself uses explicit generators."""
    import torch

    torch.manual_seed(seed)
    np.random.seed(seed % 2**32)


def progress(iterable: Any = None, **kwargs):
    """tqdm, shown only on an interactive terminal (logs and pytest stay clean)."""
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", not sys.stderr.isatty())
    kwargs.setdefault("leave", False)
    return tqdm(iterable, **kwargs)


def effect_summary(effects: Sequence[float], positive_means: str) -> dict:
    r"""The statistical verdict rule of the empirical claims.

    ``effects`` holds one signed effect per seed, oriented so that a positive value supports the
    claim. With mean :math:`\bar e` and sample SD :math:`s` over seeds the verdict is

    * ``"supports"`` if every seed is positive and :math:`\bar e > s` (the spread does not cover it),
    * ``"contradicts"`` if every seed is negative and :math:`-\bar e > s`,
    * ``"inconclusive"`` otherwise (seeds disagree in sign or the spread covers the effect).

    >>> effect_summary([0.5, 0.6, 0.7], "x")["verdict"]
    'supports'
    >>> effect_summary([0.5, -0.1, 0.7], "x")["verdict"]
    'inconclusive'
    """
    e = np.asarray(effects, dtype=float)
    mean = float(e.mean())
    sd = float(e.std(ddof=1)) if e.size > 1 else float("inf")  # one seed has no spread: never decisive
    if np.all(e > 0) and mean > sd:
        verdict = "supports"
    elif np.all(e < 0) and -mean > sd:
        verdict = "contradicts"
    else:
        verdict = "inconclusive"
    return {"effects": [float(v) for v in e], "mean": mean, "sd": sd, "n_seeds": int(e.size),
            "verdict": verdict, "positive_means": positive_means}
