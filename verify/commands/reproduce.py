"""``verify reproduce TARGET -o DIR``: regenerate a figure of a paper (PNG + JSON)."""

from __future__ import annotations

import argparse
import importlib
import json
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
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto")
    p.add_argument("--seed", type=int, default=0)
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
    if getattr(args, "progress", None) is not None:
        from .. import empirical

        empirical.SHOW_PROGRESS = bool(args.progress)
    if getattr(args, "paper_size", False):
        if args.target != "s-fig3" or args.quick:
            raise VerifyInputError("Argument '--paper-size' applies to the target s-fig3 without --quick only.")
        from ..empirical.superposition import FIG3_PRESETS

        kwargs["preset"] = dict(FIG3_PRESETS["paper"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = fn(out, quick=args.quick, device=args.device, seed=args.seed, **kwargs)
    print(json.dumps(summary, indent=1, sort_keys=True, default=str))
    return 0
