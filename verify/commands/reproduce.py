"""``verify reproduce TARGET -o DIR``: regenerate a figure of a paper (PNG + JSON)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
from pathlib import Path

from .._validate import VerifyInputError

#: target -> (module, function, description); each function is
#: ``fn(out_dir: Path, quick: bool = False, device: str = "auto", seed: int = 0) -> dict``
TARGETS = {
    "s-fig3": ("verify.empirical.superposition", "reproduce_fig3", "paper S Figure 3: trained Ltilde against p (torch)"),
    "nc-fig1": ("verify.numeric.perturbation_figures", "reproduce_fig1", "paper N Figure 1: spectrum of F_kk"),
    "nc-fullF": ("verify.numeric.perturbation_figures", "reproduce_full_F", "paper N App. D.1: spectrum of the whole F"),
    "nc-layerwise": ("verify.empirical.neural_collapse", "reproduce_layerwise", "paper N Fig. 2: layer-wise MLP (torch)"),
    "nc-wd": ("verify.empirical.neural_collapse", "reproduce_wd", "paper N Fig. 3 / Table 1: weight decay (torch)"),
    "nc-interference": ("verify.empirical.neural_collapse", "reproduce_interference",
                        "paper N Fig. 6: degraded classes (torch)"),
}


def register(sub) -> None:
    p = sub.add_parser("reproduce", help="regenerate a figure of a paper (PNG + JSON)")
    p.add_argument("target", choices=sorted(TARGETS), metavar="TARGET",
                   help="one of: " + ", ".join(f"{k} ({v[2]})" for k, v in TARGETS.items()))
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--quick", action="store_true", help="the small preset (minutes on a CPU)")
    p.add_argument("--paper-size", action="store_true",
                   help="s-fig3 only: the paper's d = 10, 15 and n = 6000 (the default full preset is reduced; "
                        "~10 min per seed on 2 CPU cores, meant for a GPU)")
    p.add_argument("--dataset", choices=("digits", "mnist5k", "fashion-mnist"), default=None,
                   help="nc-* targets only: the data set (default: the preset's; quick: sklearn digits, full: "
                        "Fashion-MNIST for the CIFAR-10 experiments, real MNIST (verify[data]) for Fig. 6)")
    p.add_argument("--arch", choices=("small-resnet", "resnet18"), default=None,
                   help="nc-interference only: a residual CNN instead of the MLP, with its preset (small-resnet: the "
                        "full preset's data and budget, ~45 min on 2 CPU cores; resnet18: the paper's run, MNIST 3K "
                        "per class from --root, 100 epochs, meant for --device cuda)")
    p.add_argument("--root", metavar="DIR", default=None,
                   help="nc-* targets: the folder holding MNIST's idx files (the resnet18 preset's data)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true",
                   help="print the whole summary as JSON on stdout (machine output) instead of the short summary")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="tqdm progress bars (default: on an interactive terminal only)")
    p.set_defaults(func=run)


def run(args) -> int:
    module, func, _ = TARGETS[args.target]
    try:
        fn = getattr(importlib.import_module(module), func)
    except ImportError as exc:
        if "torch" in str(exc):
            raise ValueError(f"target {args.target!r} needs the torch extra: pip install 'verify[torch]'") from None
        raise
    kwargs = {}
    if getattr(args, "dataset", None) is not None:
        if not args.target.startswith("nc-") or args.target in ("nc-fig1", "nc-fullF"):
            raise VerifyInputError("Argument '--dataset' applies to the targets nc-layerwise, nc-wd and "
                                   f"nc-interference only, not {args.target!r}.")
        from ..empirical.data import data_available

        ok, how = data_available(args.dataset)
        if not ok:
            raise VerifyInputError(f"Argument '--dataset' names {args.dataset!r}, which is not installed: {how}.")
        kwargs["dataset"] = args.dataset
    if getattr(args, "arch", None) is not None:
        if args.target != "nc-interference" or args.quick:
            raise VerifyInputError("Argument '--arch' applies to the target nc-interference without --quick only.")
        from ..empirical.neural_collapse import INTERFERENCE_ARCH_PRESETS

        kwargs["preset"] = dict(INTERFERENCE_ARCH_PRESETS[args.arch])
    if getattr(args, "root", None) is not None:
        if not args.target.startswith("nc-") or args.target in ("nc-fig1", "nc-fullF"):
            raise VerifyInputError("Argument '--root' applies to the targets nc-layerwise, nc-wd and nc-interference "
                                   f"only, not {args.target!r}.")
        kwargs["root"] = args.root
    if getattr(args, "progress", None) is not None:
        from .. import empirical

        empirical.SHOW_PROGRESS = bool(args.progress)
    if getattr(args, "paper_size", False):
        if args.target != "s-fig3" or args.quick:
            raise VerifyInputError("Argument '--paper-size' applies to the target s-fig3 without --quick only.")
        from ..empirical.superposition import FIG3_PRESETS

        kwargs["preset"] = dict(FIG3_PRESETS["paper"])
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise VerifyInputError(f"Argument '-o' must be a folder (made if absent), not the file {args.out!r}.")
    try:   # made before the run, so a folder that cannot be made fails now, not after minutes of training
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VerifyInputError(f"Argument '-o' must be a folder that can be made, not {args.out!r} "
                               f"({exc.strerror}).") from None
    if not os.access(out, os.W_OK):
        raise VerifyInputError(f"Argument '-o' must be a writable folder, not {args.out!r}.")
    before = _files(out)
    summary = fn(out, quick=args.quick, device=args.device, seed=args.seed, **kwargs)
    if getattr(args, "json", False):
        print(json.dumps(summary, indent=1, sort_keys=True, default=str))
    else:
        print(summary_text(args.target, summary, [f for f, m in _files(out).items() if before.get(f) != m]))
    return 0


def _files(folder: Path) -> dict:
    """``{path: modification time}`` of the files under ``folder`` (what a run wrote is what changed)."""
    return {f: f.stat().st_mtime_ns for f in sorted(folder.rglob("*")) if f.is_file()}


def summary_text(target: str, summary: dict, written: list) -> str:
    """What ``verify reproduce`` prints: the verdict of the decision rule (:mod:`verify.decision`, the experiments)
    with its scale and reason, or that a numeric figure has none; the deciding numbers on one line
    (:func:`verify.reporters._common.evidence_line`: floats to 4 digits, nested results named); the files the run
    wrote, the JSON among them holding the whole summary (``--json`` prints it instead).

    >>> print(summary_text("nc-fig1", {"max_err": 2.220446049250313e-15, "curves": {"a": [1, 2]}}, []))
    nc-fig1: a numeric figure (no decision rule; the claim's verdict is in 'verify report')
    deciding numbers: max_err = 2.22e-15; details: curves
    wrote: nothing
    >>> print(summary_text("nc-wd", {"scale": "reduced: digits", "decision": {
    ...     "N-table1-wd": {"verdict": "contradicted", "comparisons": {"a": {"outcome": "for"},
    ...                                                                "b/x2": {"outcome": "against"}}},
    ...     "N-E2-depth": {"verdict": "inconclusive", "reason": "d: underpowered (median/SD = 0.1 < MDE 1.2 SD)",
    ...                    "comparisons": {"d": {"outcome": "n.s."}}}}}, []))
    N-table1-wd: contradicted (reduced scale: digits) - for: a; against: b/x2
    N-E2-depth: inconclusive (reduced scale: digits) - inconclusive: underpowered: d
    wrote: nothing
    """
    from ..reporters._common import decided_by, evidence_line, experiment_summary, mechanism_summary, verdict_label

    decision = summary.get("decision") if isinstance(summary.get("decision"), dict) else {}
    scale = summary.get("scale") if isinstance(summary.get("scale"), str) else None
    evidence = {k: v for k, v in summary.items() if k not in ("decision", "scale", "scaled_down", "png", "mechanism")}
    # one decision, or one per claim the run decides (nc-wd decides Table 1 and its depth claim): each one shown
    per_claim = {} if "verdict" in decision else \
        {k: d for k, d in decision.items() if isinstance(d, dict) and "verdict" in d}
    lines = []
    if "verdict" in decision:
        lines.append(f"{target}: {verdict_label({'verdict': str(decision.get('verdict')), 'scale': scale})}")
        how = decided_by(decision)
        if how:
            lines[-1] += f" - decided on the {how}"
        mech = mechanism_summary(summary.get("mechanism"))   # the paper's explanation, decided beside the verdict
        if mech:
            lines[-1] += f" - {mech}"
    for name, dec in per_claim.items():
        row = {"id": name, "verdict": str(dec.get("verdict")), "scale": scale or "reduced: see the JSON summary",
               "evidence": {"decision": dec, "reason": dec.get("reason")}}
        lines.append(f"{name}: {verdict_label({'verdict': row['verdict'], 'scale': scale})}"
                     + (f" - {experiment_summary(row)}" if experiment_summary(row) else ""))
    if not lines:
        lines.append(f"{target}: a numeric figure (no decision rule; the claim's verdict is in 'verify report')")
    # the reason of a single decision leads the numbers (the head line states the verdict, with its scale)
    numbers = evidence_line({"reason": decision.get("reason"), "evidence": evidence})
    if numbers:
        lines.append("deciding numbers: " + numbers)
    jsons = [str(f) for f in written if str(f).endswith(".json")]
    lines.append("wrote: " + (", ".join(str(f) for f in written) or "nothing"))
    if jsons:
        lines.append(f"full results: {', '.join(jsons)} (--json prints the whole summary on stdout instead)")
    return "\n".join(lines)
