r"""The data behind the report's pictures, computed when the report document is built (``doc["figure_data"]``).

The reporters (:mod:`verify.reporters.figures`, :mod:`verify.reporters.html`) only draw what a report document
holds: a run that writes the report computes here what the checks' evidence does not record, and the JSON carries
it, so ``verify report --from-json`` draws every picture the run drew, computing nothing.

``figure_data(doc)`` returns ``{key: data}`` for the pictures that need more than the evidence:

* ``fig1`` - the sorted spectrum of :math:`F_{k,k}` for several :math:`\lambda_H` (Figure 1 of paper N): the N-fig1
  evidence's curves, else :func:`verify.numeric.perturbation_figures.reproduce_fig1` (quick preset);
* ``fig3`` - :math:`\log_d\tilde L` against :math:`\log_d p` (Figure 3 of paper S): the S-fig3 evidence, else
  :func:`verify.empirical.superposition.reproduce_fig3` (quick preset; needs torch, else a note);
* ``orders`` - the error series behind Thm C.1 and Thm 5.1 (the checks' evidence, else a small recomputation);
* ``search`` - adversarial-search traces (:func:`verify.search.run_search`, serial, the objectives' seeds);
* ``frames`` - coherence of the Lemma A.4 frames and the Weil, Welch and Levenstein bounds
  (:func:`verify.numeric.frames.cert_wht.certify`, exact).

Each entry is JSON (lists, numbers, strings) and records where its data came from (``source``); a part that fails
is ``{"error": ...}`` and the others are still given. Every computation has a fixed seed.

>>> frames_data(ms=(2,), rs=(2, 3))["panels"]["2"]["r"]
[2, 3]
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .numeric import perturbation as P
from .numeric.frames.cert_wht import certify
from .numeric.perturbation_figures import reproduce_fig1
from .numeric.ufm import optimal_W, solve_perturbed
from .objectives import get_objective
from .search import run_search

#: the pictures whose data are computed here (the others, the precision ladder and the experiments' effects, are
#: drawn from the evidence alone)
COMPUTED = ("fig1", "fig3", "orders", "search", "frames")
#: the claims each computed picture illustrates (the search traces': their objectives' claims, :func:`claims_of`): a
#: report that holds none of them (``verify report --claim S-eq9``, a ``--paper`` report) neither computes nor draws
#: the picture, so a one-claim report does not train Figure 3 or certify frames it will not show
CLAIMS_OF = {"fig1": ("N-fig1",), "fig3": ("S-fig3",), "orders": ("N-thmC.1", "N-thm5.1"),
             "frames": ("S-lemA.4-pow2", "S-lemA.4-general", "S-lemA.4-weil")}
#: objectives whose search traces are drawn: cheap ones (well under a second per start), two that hold with a
#: tight bound and one the paper states wrongly (N-thmC.2, ratio > 1)
SEARCH_OBJECTIVES = ("N-lemB.1", "N-lemC.3", "N-thmC.2", "S-lemA.2")
#: starts per traced search (serial, in this process): enough for the curve to flatten on these objectives
SEARCH_BUDGET = 8
#: Nelder-Mead iterations per start in the traces (the checks use more; the trace only has to show the climb)
SEARCH_MAXITER = 200
#: the (m, r) of the frame picture: m = 3, r = 10 alone takes ~20 s, so m = 3 stops at r = 9
FRAME_RS = {2: tuple(range(2, 11)), 3: tuple(range(2, 10))}
#: (claim, x key, [(y key, label, key of the order the check fitted)], x label)
ORDER_SERIES = (
    ("N-thmC.1", "t", [("err_dH", "|dH - t F dH0|", "order_dH"), ("err_dW", "|dW - t G dH0|", "order_dW")], "t"),
    ("N-thm5.1", "beta", [("op_err", "|F_exact - F_(5)|_op", "order_op"),
                          ("fd_err", "|FD of minimisers - F_(5) dH0|", "order_fd")], "1/beta"),
)


# --------------------------------------------------------------------------- reading the evidence
def rows_by_id(doc: dict) -> dict:
    return {r["id"]: r for r in doc.get("claims", []) + doc.get("beyond", [])}


def _traced_claims() -> dict:
    """``{objective: claim}`` of the traced objectives (:data:`SEARCH_OBJECTIVES`), in their order."""
    return {name: get_objective(name).claim for name in SEARCH_OBJECTIVES}


def search_objectives(doc: dict) -> tuple:
    """The traced objectives (:data:`SEARCH_OBJECTIVES`) whose claim the report holds."""
    ids = rows_by_id(doc)
    return tuple(name for name, claim in _traced_claims().items() if claim in ids)


def claims_of(key: str) -> tuple:
    """The claims picture ``key`` illustrates (:data:`CLAIMS_OF`; the search traces': their objectives' claims)."""
    if key == "search":
        return tuple(dict.fromkeys(_traced_claims().values()))
    return CLAIMS_OF.get(key, ())


def shown(doc: dict, key: str) -> bool:
    """Whether the report ``doc`` shows computed picture ``key``: it holds a claim the picture illustrates."""
    ids = rows_by_id(doc)
    return any(c in ids for c in claims_of(key))


def records(row: dict | None) -> Iterator[tuple[str, dict]]:
    """``(check node id, record evidence)`` of every record of a claim, the row's own evidence first."""
    if not row:
        return
    if row.get("evidence"):
        yield "", row["evidence"]
    for chk in row.get("checks", []):
        for rec in chk.get("records", []) or []:
            if isinstance(rec.get("evidence"), dict) and rec["evidence"]:
                yield chk["check"], rec["evidence"]


def walk(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every ``(key path, value)`` inside nested dicts and lists."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, path + (str(k),))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, (dict, list)):
                yield from walk(v, path + (f"[{i}]",))


def numbers(v: Any) -> list[float] | None:
    if isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return [float(x) for x in v]
    return None


def check_label(nodeid: str) -> str:
    """A short name for a check: its parameters' id if it has one (``[lW0.8-lH0.6]``), else the function name."""
    name = nodeid.rsplit("::", 1)[-1] if nodeid else "row"
    return name[name.index("["):] if name.endswith("]") and "[" in name else name


def series(claim: str, check: str, x: list, y: list, label: str, xlabel: str, fitted=None) -> dict:
    """One error series: its points, the order the check fitted (``fitted``; the least-squares slope of the points
    in log-log coordinates where the evidence records none) and the integer order nearest to it, which the guide
    line draws (2 for a generic H0 in Thm C.1, 3 at H0 = 0 where the map is odd)."""
    if not isinstance(fitted, (int, float)) or isinstance(fitted, bool) or not math.isfinite(fitted):
        fitted = float(np.polyfit(np.log10(x), np.log10(np.maximum(y, 1e-300)), 1)[0])
    return {"claim": claim, "check": check, "x": list(x), "y": list(y), "label": label, "xlabel": xlabel,
            "fitted": float(fitted), "order": int(round(fitted))}


def order_points(doc: dict) -> list[dict]:
    """The error series the checks of Thm C.1 and Thm 5.1 recorded."""
    out = []
    for claim, xkey, ykeys, xlabel in ORDER_SERIES:
        for node, ev in records(rows_by_id(doc).get(claim)):
            xs = numbers(ev.get(xkey))
            if not xs or not node:
                continue
            if xkey == "beta":
                xs = [1 / x for x in xs]
            for ykey, label, okey in ykeys:
                ys = numbers(ev.get(ykey))
                if ys and len(ys) == len(xs):
                    out.append(series(claim, check_label(node), xs, ys, label, xlabel, ev.get(okey)))
    return out


def fig1_curves(doc: dict) -> tuple[dict, dict] | None:
    """``(curves, config)`` of the N-fig1 evidence, if it records them."""
    for _, ev in records(rows_by_id(doc).get("N-fig1")):
        if isinstance(ev.get("curves"), dict):
            return ev["curves"], ev.get("config", {})
    return None


def _all_numbers(v: Any) -> bool:
    """A number, or a non-empty (nested) list of numbers only: not the text a trimmed report holds in its place
    (``docs/_data/verdicts.json``: "18×7 values (in the full report)")."""
    if isinstance(v, list):
        return bool(v) and all(_all_numbers(x) for x in v)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def fig3_evidence(doc: dict) -> tuple[dict | None, str]:
    """The per-d curves of the S-fig3 evidence and the check that recorded them (only curves of numbers: a trimmed
    report's evidence is no data, so the picture says so instead of failing)."""
    for node, ev in records(rows_by_id(doc).get("S-fig3")):
        for _path, v in walk(ev):
            if isinstance(v, dict) and isinstance(v.get("per_d"), dict) and v["per_d"] and all(
                    isinstance(c, dict) and _all_numbers(c.get("log_d_p")) and _all_numbers(c.get("Ltilde"))
                    for c in v["per_d"].values()):
                return v, f"the S-fig3 evidence ({check_label(node)})"
    return None, ""


# --------------------------------------------------------------------------- computing what the evidence lacks
def fig1_data(doc: dict, seed: int = 0) -> dict:
    """The Figure 1 curves: the evidence's, else recomputed at the quick preset."""
    found = fig1_curves(doc)
    if found is not None:
        return {"curves": found[0], "config": found[1], "source": "the N-fig1 evidence"}
    with tempfile.TemporaryDirectory() as tmp:
        summary = reproduce_fig1(Path(tmp), quick=True, seed=seed)
        curves = json.loads((Path(tmp) / "fig1_Fkk_spectrum.json").read_text())["curves"]
    return {"curves": curves, "config": summary["config"],
            "source": f"recomputed when the report was built (quick preset, seed {seed}; the evidence holds no curves)"}


def fig3_data(doc: dict, seed: int = 0) -> dict:
    """The Figure 3 curves: the evidence's, else recomputed at the quick preset (torch), else a note."""
    data, source = fig3_evidence(doc)
    if data is not None:
        return {"data": data, "source": source}
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return {"note": "Not reproduced: torch is not installed (the 'torch' extra); the S-fig3 evidence holds no "
                        "per-d curves."}
    from .empirical.superposition import reproduce_fig3  # torch: imported only where it is needed and present

    with tempfile.TemporaryDirectory() as tmp:
        data = reproduce_fig3(Path(tmp), quick=True, device="cpu", seed=seed)
    return {"data": data, "source": f"recomputed when the report was built (quick preset, seed {seed}; the evidence "
                                    "holds no curves)"}


def recompute_orders(seed: int = 11) -> list[dict]:
    """Small-size recomputation of the two order fits with the package's functions (d = 3, K = 2, n = 2)."""
    rng = np.random.default_rng(seed)
    d, K, n, lw, lh = 3, 2, 2, 0.8, 0.6
    H0 = rng.standard_normal((d, K * n))
    dH0 = rng.standard_normal(H0.shape)
    dH0 /= np.linalg.norm(dH0)

    def minimiser(H0_, b):
        H = solve_perturbed(H0_, b, lw, lh, K)
        return optimal_W(H, lw, K), H

    b = 30.0
    W, H = minimiser(H0, b)
    F = P.F_exact(W, H, b, lw, lh, K, n)
    ts = [1e-1, 3e-2, 1e-2, 3e-3]
    eH = [float(np.linalg.norm(P.vec(minimiser(H0 + t * dH0, b)[1] - H) - t * F @ P.vec(dH0))) for t in ts]
    betas = [25.0, 50.0, 100.0, 200.0, 400.0]
    eF = []
    for bb in betas:
        W, H = minimiser(H0, bb)
        eF.append(float(np.linalg.norm(P.F_exact(W, H, bb, lw, lh, K, n) - P.F_first_order(W, H, bb, lw, lh, K, n), 2)))
    tag = f"recomputed (d={d}, K={K}, n={n}, seed={seed})"
    return [series("N-thmC.1", tag, ts, eH, "|dH - t F dH0|", "t"),
            series("N-thm5.1", tag, [1 / x for x in betas], eF, "|F_exact - F_(5)|_op", "1/beta")]


def orders_data(doc: dict) -> dict:
    found = order_points(doc)
    if found:
        return {"series": found, "source": "the checks' evidence"}
    return {"series": recompute_orders(), "source": "recomputed at a small size when the report was built (the "
                                                    "evidence holds no error series)"}


def search_traces(names=SEARCH_OBJECTIVES, budget: int = SEARCH_BUDGET, maxiter: int = SEARCH_MAXITER) -> dict:
    """``{"traces": {objective: {"claim", "threshold", "trace": [best after 1, 2, ... starts], "seed"}}, "budget",
    "maxiter"}`` from serial searches with the objectives' default seeds (no early stop: every trace has ``budget``
    points)."""
    out = {}
    for name in names:
        trace: list[float] = []
        obj = get_objective(name)
        run_search(name, budget=budget, client=None, progress=False, stop_on_violation=False, maxiter=maxiter,
                   on_result=lambda s, i: trace.append(float(s.best)))
        out[name] = {"claim": obj.claim, "threshold": float(obj.threshold), "trace": trace, "seed": obj.seed}
    return {"traces": out, "budget": budget, "maxiter": maxiter}


def frames_data(ms=(2, 3), rs: dict | tuple | None = None) -> dict:
    r"""Per :math:`m`: ``r``, the exact coherence of the Lemma A.4 frame over :math:`GF(2^r)` and the Weil, Welch and
    Levenstein bounds (``None`` where the Levenstein bound does not apply)."""
    rs = rs if rs is not None else FRAME_RS
    panels = {}
    for m in ms:
        rr = list(rs[m] if isinstance(rs, dict) else rs)
        certs = [certify(r, m) for r in rr]
        panels[str(m)] = {"r": rr, "coherence": [float(c.coherence) for c in certs],
                          "weil": [float(c.weil_bound) for c in certs], "welch": [float(c.welch_bound) for c in certs],
                          "levenstein": [float(c.levenstein_bound) if c.levenstein_bound else None for c in certs]}
    return {"panels": panels}


_BUILDERS = {"fig1": fig1_data, "fig3": fig3_data, "orders": orders_data,
             "search": lambda doc: search_traces(search_objectives(doc)), "frames": lambda doc: frames_data()}


def figure_data(doc: dict, which=COMPUTED, progress: bool = False) -> dict:
    """``{key: data}`` for the pictures of ``which`` (see :data:`COMPUTED`) that illustrate a claim of the report
    (:func:`shown`); a part that fails is ``{"error": "Type: message"}`` (the report is still written)."""
    from tqdm.auto import tqdm

    keys = [k for k in which if k in _BUILDERS and shown(doc, k)]
    out = {}
    for key in tqdm(keys, desc="figure data", disable=not progress, leave=False):
        try:
            out[key] = _BUILDERS[key](doc)
        except Exception as exc:  # one picture's data that cannot be computed must not cost the report the others
            out[key] = {"error": f"{type(exc).__name__}: {exc}"}
    return out
