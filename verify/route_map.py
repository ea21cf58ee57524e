r"""The route map: per claim, the code paths that can produce the claimed quantity, and how a check crosses each.

A verified claim is only as strong as the routes its checks run. Many numeric functions switch on size
(row blocks, strips, chunks, tabulated versus untabulated paths), on the number type (float64, exact
rationals, mpmath), on the operator (dense or matrix-free), on the array library (numpy or torch) or on an
option. :data:`ROUTE_MAP` lists, for the claims whose quantity has more than one route, each route with the
switch that selects it, the default-tier check that crosses it (thresholds injected small with
:func:`inject`, so the scaling code runs at small cost) and the independent route it is compared with.

:func:`claim_coverage` measures it: per claim, the branch coverage (coverage.py, one context per check, see
:mod:`verify.coverage_map`) of the package functions behind the claim - every function of
``verify/numeric`` and ``verify/symbolic`` that the claim's own checks execute, plus the route functions
listed here - by that claim's own checks. Missing branches are listed; those that only lead to an input
error (a ``raise`` of a validation message) are counted apart as exceptions, with that reason.

    python -m verify.route_map --out coverage.json        # runs proofs_checks (default tier) under coverage
    verify report --fast --coverage coverage.json --json report.json

>>> sorted(ROUTE_MAP)
['N-metrics', 'N-thm4.1-dT', 'S-exact-loss', 'S-lemA.4-pow2']
>>> all(r.crossed_by.startswith("proofs_checks/") for c in ROUTE_MAP.values() for r in c.routes)
True
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["Route", "ClaimRoutes", "ROUTE_MAP", "inject", "claim_coverage", "main", "BEHIND"]

#: the package folders whose functions are "behind" a claim (the mathematics, not the plumbing)
BEHIND = ("verify/numeric/", "verify/symbolic/")


@dataclass(frozen=True)
class Route:
    """One code path to a claimed quantity.

    :param name: what the route is.
    :param function: ``file:qualname`` of the function that holds the switch.
    :param switch: what selects the route (a keyword, a module constant and its default, an input type).
    :param crossed_by: the default-tier check that runs it past its threshold.
    :param independent: the route the check compares it with.
    """

    name: str
    function: str
    switch: str
    crossed_by: str
    independent: str


@dataclass(frozen=True)
class ClaimRoutes:
    claim: str
    routes: tuple

    @property
    def functions(self) -> set:
        """``{(file, qualname)}`` of the route functions (counted behind the claim even if no check ran them)."""
        return {tuple(r.function.split(":", 1)) for r in self.routes}


_RS = "proofs_checks/test_routes_S.py::"
_RN = "proofs_checks/test_routes_N.py::"
_SL = "verify/numeric/superposition_loss.py"
_PS = "verify/numeric/power_sums.py"

ROUTE_MAP: dict[str, ClaimRoutes] = {c.claim: c for c in (
    ClaimRoutes("S-exact-loss", (
        Route("gram: strips of the upper triangle of A", f"{_SL}:_stats_symmetric",
              "route='gram' (auto at small n); _STRIP_ENTRIES = 2^16 entries per strip",
              _RS + "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("gram_rows: full row blocks of A", f"{_SL}:_stats", "route='gram_rows'; _BLOCK_ENTRIES = 2^16",
              _RS + "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("power sums: moment matrices, chunked", f"{_PS}:RowPowerSums._build",
              "route='power_sums' (auto at large n); _CHUNK_ENTRIES = 2^20 entries per chunk",
              _RS + "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("power-sum gradient without the kept psi_k H_k", f"{_PS}:RowPowerSums._grad",
              "_KEEP_ENTRIES = 2^25 (above it the products are recomputed)",
              _RS + "test_gradient_routes_chunked_and_without_kept_products_agree",
              "gram strips, gram rows, exact central difference"),
        Route("gram gradient on strips", f"{_SL}:_grad_symmetric", "route='gram' in exact_loss_grad",
              _RS + "test_gradient_routes_chunked_and_without_kept_products_agree", "gram rows, power sums"),
        Route("mpmath, Gram matrix", f"{_SL}:_mp_loss", "dps=..., route='gram'",
              _RS + "test_mpmath_routes_both_equal_exact_rationals", "exact rationals"),
        Route("mpmath, power sums", f"{_SL}:_mp_loss_power_sums", "dps=..., route='power_sums'",
              _RS + "test_mpmath_routes_both_equal_exact_rationals", "exact rationals"),
        Route("power sums on torch tensors", f"{_PS}:_einsum", "type(W) is a torch.Tensor (the Fig. 3 training)",
              _RS + "test_power_sums_on_torch_tensors_equal_numpy", "numpy route and the dense definition"),
    )),
    ClaimRoutes("S-lemA.4-pow2", (
        Route("streamed WHT chunks", "verify/numeric/frames/cert_wht.py:_sum_chunks", "CHUNK_ELEMENTS = 2^20",
              _RS + "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("untabulated trace (r > 12)", "verify/numeric/frames/field.py:sign_bits", "TABLE_MAX_R = 12",
              _RS + "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("butterfly WHT", "verify/numeric/frames/field.py:wht_rows", "method='butterfly' (default 'blas')",
              _RS + "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("Dask tasks", "verify/numeric/frames/cert_wht.py:certify", "client=...",
              _RS + "test_distributed_certificate_equals_local", "local certificate"),
        Route("matrix-free operator, chunked", "verify/numeric/frames/operator.py:ImplicitFrame.matvec",
              "chunk_elements = CHUNK_ELEMENTS; dtype float64/float32",
              _RS + "test_implicit_operator_chunked_equals_dense_frame", "dense galois V"),
        Route("chunked Gram coherence", "verify/numeric/frames/cert_wht.py:gram_coherence", "chunk = 2048",
              _RS + "test_implicit_operator_chunked_equals_dense_frame", "certificate"),
    )),
    ClaimRoutes("N-metrics", (
        Route("torch tensors", "verify/numeric/nc_metrics.py:nc1", "type(x) is a torch.Tensor",
              _RN + "test_nc_metrics_torch_and_streaming_equal_numpy", "numpy float64 definitions"),
    )),
    ClaimRoutes("N-thm4.1-dT", (
        Route("exact rationals / mpmath (object arrays)", "verify/numeric/ufm.py:_pieces", "object-dtype H",
              _RN + "test_trace_derivatives_exact_route_equals_float_route", "float64 route at the same point"),
    )),
)}


def inject(monkeypatch, name: str, value, module: ModuleType | None = None, package: str | None = None) -> int:
    """Set the threshold ``name`` to ``value`` for one test (``monkeypatch``: pytest's fixture or its context).

    ``module``: that module only. ``package``: every loaded module under it that defines ``name`` (a constant
    imported by name into several modules, ``from .field import CHUNK_ELEMENTS``, has one copy per module).
    Returns the number of modules patched; none is an error (a renamed threshold must not pass silently)."""
    if (module is None) == (package is None):
        raise ValueError("Argument 'module' or 'package' must be given (one of them).")
    mods = [module] if module is not None else [
        m for k, m in list(sys.modules.items())
        if m is not None and (k == package or k.startswith(package + ".")) and name in vars(m)]
    mods = [m for m in mods if name in vars(m)]
    if not mods:
        raise ValueError(f"Argument 'name' must be a threshold defined in {module or package}, not {name!r}.")
    for m in mods:
        monkeypatch.setattr(m, name, value)
    return len(mods)


def _reason(path: Path, dst: int, cache: dict) -> str | None:
    """Why a missing branch is an exception (its destination raises a validation error), or None (a gap)."""
    if dst < 0:
        return None
    lines = cache.setdefault(path, path.read_text(encoding="utf-8").splitlines() if path.exists() else [])
    text = lines[dst - 1].strip() if dst - 1 < len(lines) else ""
    if text.startswith("raise"):
        return "validation message (raises on bad input)" if ("Error" in text or "raise" == text) else "guard (raises)"
    return None


def claim_coverage(cmap, nodeids_by_claim: dict, limit: int = 40) -> dict:
    """Per claim: the branch coverage of the functions behind it by its own checks.

    ``cmap``: a :class:`verify.coverage_map.CoverageMap`; ``nodeids_by_claim``: claim -> the nodeids of its
    checks. Returns claim -> ``{"covered", "total", "percent", "exceptions", "percent_net", "functions",
    "gaps": [first ``limit`` missing branches], "excepted": [first ``limit``, with the reason]}``;
    ``percent_net`` leaves the exceptions out of the total."""
    out = {}
    cache: dict = {}
    for claim in sorted(nodeids_by_claim):
        nodeids = sorted(nodeids_by_claim[claim])
        funcs = set()
        for n in nodeids:
            funcs |= {f for f in cmap.executed_functions(n) if f[0].startswith(BEHIND)}
        if claim in ROUTE_MAP:
            funcs |= ROUTE_MAP[claim].functions
        bc = cmap.branch_coverage(nodeids, functions=funcs)
        gaps, excepted = [], []
        for item in bc["missing"]:
            rel, arc = item.rsplit(":", 1)
            dst = int(arc.split("->")[1])
            why = _reason(cmap._abs(rel), dst, cache)
            (excepted if why else gaps).append({"branch": item, "reason": why} if why else item)
        total, covered = bc["total"], bc["covered"]
        net_total = total - len(excepted)
        out[claim] = {"covered": covered, "total": total,
                      "percent": round(100.0 * covered / total, 1) if total else 100.0,
                      "exceptions": len(excepted),
                      "percent_net": round(100.0 * covered / net_total, 1) if net_total else 100.0,
                      "functions": bc["functions"], "gaps": gaps[:limit], "n_gaps": len(gaps),
                      "excepted": excepted[:limit]}
    return out


def _nodeids_by_claim(checks_json: Path) -> dict:
    rows = json.loads(Path(checks_json).read_text())["checks"]
    out: dict = {}
    for row in rows:
        for cid in row["ids"]:
            out.setdefault(cid, set()).add(row["nodeid"])
    return out


def main(argv=None) -> int:
    """``python -m verify.route_map --out coverage.json``: run the default tier of proofs_checks under coverage
    and write the per-claim coverage figures (``verify report --coverage FILE`` shows them)."""
    from ._io import atomic_write_text, check_output_path
    from .coverage_map import CoverageMap, collect

    ap = argparse.ArgumentParser(prog="python -m verify.route_map", description=main.__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the JSON file of per-claim coverage figures")
    ap.add_argument("--data", default=None, help="coverage data file (default: beside --out)")
    ap.add_argument("--reuse", action="store_true", help="read an existing --data file instead of running")
    ap.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (default 0)")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (e.g. a check file)")
    args = ap.parse_args(argv)
    try:
        out = check_output_path(args.out, "--out")
        data = Path(args.data) if args.data else out.with_suffix(".coverage")
        check_output_path(data, "--data")
        if args.workers < 0:
            raise ValueError(f"Argument '-n' must be an integer >= 0, not {args.workers}.")
        checks = data.with_name(data.stem + ".checks.json")   # not data.*: collect() treats those as its parts
        if args.reuse and not (data.is_file() and checks.is_file()):
            raise ValueError(f"Argument '--reuse' needs {str(data)!r} and {str(checks)!r} from an earlier run.")
    except ValueError as exc:
        print(f"route_map: {exc}", file=sys.stderr)
        return 2
    if not args.reuse:
        suite = Path(__file__).resolve().parents[1] / "proofs_checks"
        code = collect([*(args.pytest_args or [str(suite)]), "-m", "not slow", "-q", "-p", "no:randomly",
                        "-p", "no:cacheprovider", f"--verify-json={checks}", "-n", str(args.workers)], data)
        if code not in (0, 1):
            print(f"route_map: pytest exited with {code}", file=sys.stderr)
            return 2
    by_claim = _nodeids_by_claim(checks)
    # a run restricted with --verify-claim measures those claims only (the others ran a part of their checks)
    wanted = {a.split("=", 1)[1] for a in args.pytest_args if a.startswith("--verify-claim=")}
    wanted |= {b for a, b in zip(args.pytest_args, args.pytest_args[1:]) if a == "--verify-claim"}
    if wanted:
        by_claim = {c: v for c, v in by_claim.items() if c in wanted}
    figures = claim_coverage(CoverageMap.load(data), by_claim)
    atomic_write_text(out, json.dumps({"coverage": figures}, indent=1, sort_keys=True) + "\n")
    for claim, f in figures.items():
        print(f"{claim:24s} {f['covered']:5d}/{f['total']:<5d} {f['percent']:5.1f}%  net {f['percent_net']:5.1f}%  "
              f"gaps {f['n_gaps']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
