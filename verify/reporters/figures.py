r"""The pictures of the HTML report, drawn with matplotlib (Agg, no pyplot state) as SVG data URIs.

Each builder takes the report document and returns a *picture*: ``{"key", "title", "caption", "claims", "img",
"note"}``; ``img`` is a ``data:image/svg+xml;base64,...`` URI (or ``None`` with a ``note`` saying why), so the
page needs no file and no network. The builders only draw: the data are the checks' evidence and the report's
``figure_data`` (:mod:`verify.figure_data`, computed when the report was built), so a saved report
(``verify report --from-json``) gives the same pictures as the run that wrote it.

Determinism: the SVG's ids are salted with a fixed string (``svg.hashsalt``) and the date metadata is dropped, so
the same document gives the same bytes.

* ``fig1`` - Figure 1 of paper N (spectrum of :math:`F_{k,k}`);
* ``fig3`` - Figure 3 of paper S (:math:`\log_d\tilde L` against :math:`\log_d p`);
* ``orders`` - log-log error fits behind Thm C.1 (error :math:`O(t^2)`, :math:`O(t^3)` at :math:`H_0 = 0`), Thm 5.1
  and eq. (5) (:math:`O(\beta^{-2})`), each with a guide of its own order;
* ``ladder`` - precision-ladder agreement (``ladder_rel_discrepancy`` and the like) of every check that has one;
* ``search`` - adversarial-search traces: the worst ratio against the number of starts;
* ``emp`` - per-seed effects with their 95% intervals for every experiment (:mod:`verify.decision` evidence);
* ``frames`` - coherence of the Lemma A.4 frames against the Weil, Welch and Levenstein bounds over r.

>>> from verify.figure_data import frames_data
>>> pic = frames_figure({"figure_data": {"frames": frames_data(ms=(2,), rs=(2, 3))}})
>>> pic["img"].startswith("data:image/svg+xml;base64,"), pic["claims"][0]
(True, 'S-lemA.4-weil')
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any, Callable

import numpy as np

from ..figure_data import COMPUTED, check_label, fig1_curves, fig3_evidence, numbers, order_points, records, \
    rows_by_id, shown, walk

#: every picture, in the order the report shows them
FIGURES = ("fig1", "fig3", "orders", "ladder", "search", "emp", "frames")

_RC = {"svg.hashsalt": "verify-report", "svg.fonttype": "path", "font.size": 9, "axes.grid": True,
       "grid.alpha": 0.3, "figure.dpi": 100}
#: what a picture says when its report carries no data for it
_NO_DATA = ("This report carries no data for this picture (it was written before reports recorded their figure "
            "data); 'verify report --json' writes one that does.")


def _figure(w: float = 6.4, h: float = 3.6, ncols: int = 1):
    from matplotlib.figure import Figure  # no pyplot: nothing global, any backend

    fig = Figure(figsize=(w, h))
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, axes


def svg_uri(fig) -> str:
    """The figure as a deterministic SVG data URI (fixed id salt, no date)."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": _RC["svg.hashsalt"], "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _style():
    import matplotlib

    return matplotlib.rc_context(_RC)


def _pic(key, title, caption, claims, img=None, note=None) -> dict:
    return {"key": key, "title": title, "caption": caption, "claims": list(claims), "img": img, "note": note}


def _data(doc: dict, key: str) -> dict | None:
    """The report's data for picture ``key`` (``doc["figure_data"][key]``), if it has them."""
    fd = doc.get("figure_data")
    v = fd.get(key) if isinstance(fd, dict) else None
    return v if isinstance(v, dict) else None


def _failed(key: str, title: str, claims, data: dict) -> dict | None:
    """The picture's note when its data could not be computed, or carry a note instead of data."""
    if "error" in data:
        return _pic(key, title, "", claims, note=f"Its data could not be computed: {data['error']}")
    if "note" in data:
        return _pic(key, title, "", claims, note=str(data["note"]))
    return None


# --------------------------------------------------------------------------- Figure 1 (paper N)
def fig1_figure(doc: dict) -> dict:
    r"""Figure 1 of paper N: the sorted spectrum of :math:`F_{k,k}` for several :math:`\lambda_H`, closed form (21)
    as lines, numeric (dense block of the dense :math:`F`) as dots; data: the report's ``figure_data``, else the
    N-fig1 evidence."""
    title, claims = "Figure 1 (paper N): spectrum of F_kk against lambda_H", ["N-fig1", "N-thm5.2", "N-D-eig"]
    data = _data(doc, "fig1")
    if data is not None and _failed("fig1", title, claims, data):
        return _failed("fig1", title, claims, data)
    if data is None:
        found = fig1_curves(doc)
        if found is None:
            return _pic("fig1", title, "", claims, note=_NO_DATA)
        data = {"curves": found[0], "config": found[1], "source": "the N-fig1 evidence"}
    curves, cfg, source = data["curves"], data.get("config") or {}, data.get("source", "")
    with _style():
        fig, (ax,) = _figure()
        for i, (lh, c) in enumerate(curves.items()):
            col = f"C{i}"
            ax.plot(c["closed_form"], "-", lw=1.2, color=col, label=f"closed form (21), $\\lambda_H$ = {lh}")
            numeric = c.get("numeric_dense") or c.get("numeric_reduced")
            if numeric:
                ax.plot(numeric, "o", ms=2.2, color=col)
        ax.set_xlabel("index (sorted)")
        ax.set_ylabel("singular value of $F_{k,k}$")
        ax.legend(fontsize=7)
        img = svg_uri(fig)
    setting = ", ".join(f"{k} = {cfg[k]:g}" for k in ("beta", "K", "d", "n", "lam_W") if isinstance(cfg.get(k), (int, float)))
    return _pic("fig1", title, f"Closed form (21) of App. D (lines) and the numeric spectrum of the dense block (dots), "
                f"{setting}; data: {source}. The paper's text calls this figure 'Figure 2'.", claims, img)


# --------------------------------------------------------------------------- Figure 3 (paper S)
def fig3_figure(doc: dict) -> dict:
    r"""Figure 3 of paper S: :math:`\log_d\tilde L` of the optimised W against :math:`\log_d p`, per seed and mean,
    with guide lines of slope 1 and :math:`1/m` through the point :math:`p = d^{-m}`."""
    title = "Figure 3 (paper S): optimised loss against sparsity"
    claims = ["S-fig3"]
    saved = _data(doc, "fig3")
    if saved is not None and _failed("fig3", title, claims, saved):
        return _failed("fig3", title, claims, saved)
    data, source = (saved["data"], saved.get("source", "")) if saved is not None else fig3_evidence(doc)
    if data is None:
        return _pic("fig3", title, "", claims, note=_NO_DATA)
    m = int(data.get("m", 3))
    with _style():
        fig, axes = _figure(4.2 * len(data["per_d"]), 3.4, ncols=len(data["per_d"]))
        for ax, (d, r) in zip(axes, data["per_d"].items()):
            lp = np.asarray(r["log_d_p"], dtype=float)
            L = np.log(np.maximum(np.asarray(r["Ltilde"], dtype=float), 1e-300)) / math.log(int(d))
            L = L.reshape(-1, lp.size)
            for row in L:
                ax.plot(lp, row, "o", ms=2.5, alpha=0.5, color="C0")
            mean = L.mean(0)
            ax.plot(lp, mean, "-", color="C0", label=r"optimised $\log_d\tilde L$")
            k = int(np.argmin(np.abs(lp + m)))
            ax.plot(lp, mean[k] + (lp + m), "--", color="C1", label="slope 1")
            ax.plot(lp, mean[k] + (lp + m) / m, ":", color="C2", label=f"slope 1/{m}")
            slope = r.get("slope_mean")
            ax.set_title(f"d = {d}, m = {m}" + (f": sparse slope {slope:.3f}" if isinstance(slope, (int, float)) else ""))
            ax.set_xlabel(r"$\log_d p$")
            ax.set_ylabel(r"$\log_d \tilde L$")
            ax.legend(fontsize=7)
        img = svg_uri(fig)
    scale = data.get("scale") or data.get("scaled_down") or _fig3_scale(data)
    return _pic("fig3", title, f"Dots: one seed each; line: mean over seeds. Scale: {scale}. Data: {source}.", claims, img)


def _fig3_scale(data: dict) -> str:
    """The scale of Figure 3 data that does not state one: its dimensions, m, sparsities and seeds (the paper's
    Figure 3 is d = 256, 512, 1024)."""
    ds = ", ".join(str(d) for d in data["per_d"])
    first = next(iter(data["per_d"].values()))
    n_p = len(first.get("log_d_p", []))
    n_l = len(first.get("Ltilde", []))
    seeds = data.get("seeds") or (n_l // n_p if n_p else None)
    seeds = len(seeds) if isinstance(seeds, list) else seeds
    return f"d = {ds}, m = {data.get('m', 3)}, {n_p} sparsities" + (f", {seeds} seeds" if seeds else "")


# --------------------------------------------------------------------------- log-log order fits
def orders_plot(series: list[dict], claims=("N-thmC.1", "N-thm5.1")):
    """The log-log panels, one per claim: each series' points and least-squares line (its fitted slope in the
    legend), and a dashed guide of the series' own integer order (:func:`_series`) through its smallest-x point."""
    fig, axes = _figure(9.6, 3.6, ncols=len(claims))
    for ax, claim in zip(axes, claims):
        mine = [s for s in series if s["claim"] == claim]
        for i, s in enumerate(mine):
            x, y = np.log10(s["x"]), np.log10(np.maximum(s["y"], 1e-300))
            slope, icpt = np.polyfit(x, y, 1)
            ax.loglog(s["x"], s["y"], "o", ms=3, color=f"C{i}")
            xx = np.array([min(s["x"]), max(s["x"])])
            ax.loglog(xx, 10 ** (icpt + slope * np.log10(xx)), "-", lw=1, color=f"C{i}",
                      label=f"{s['label']} {s['check'][:32]}: order {slope:.2f}")
            k = int(np.argmin(s["x"]))  # the guide starts where the expansion is most accurate
            ax.loglog(xx, s["y"][k] * (xx / s["x"][k]) ** s["order"], "--", lw=0.8, color=f"C{i}", alpha=0.6,
                      label=f"guide: slope {s['order']}")
        ax.set_ylabel("error")
        if not mine:
            ax.set_title(f"{claim}: no error series in the evidence")
            continue
        ax.set_xlabel(mine[0]["xlabel"])
        ax.set_title(f"{claim}: error orders " + ", ".join(str(o) for o in sorted({s["order"] for s in mine})))
        ax.legend(fontsize=6)
    return fig


def orders_figure(doc: dict) -> dict:
    r"""Log-log plots of the approximation errors behind Thm C.1 (in :math:`t`) and Thm 5.1 / eq. (5) (in
    :math:`1/\beta`), each series with its least-squares line, fitted order and a guide of its own order."""
    title = "Order fits: Thm C.1, Thm 5.1 and eq. (5)"
    claims = ["N-thmC.1", "N-thm5.1"]
    saved = _data(doc, "orders")
    if saved is not None and _failed("orders", title, claims, saved):
        return _failed("orders", title, claims, saved)
    if saved is not None:
        series, source = saved["series"], saved.get("source", "")
    else:
        series, source = order_points(doc), "the checks' evidence"
        if not series:
            return _pic("orders", title, "", claims, note=_NO_DATA)
    with _style():
        img = svg_uri(orders_plot(series, claims))
    return _pic("orders", title, "Points and least-squares lines in log-log coordinates; the slope is the fitted "
                "order; dashed: a guide of the integer order nearest to the order each check fitted (2 for a generic "
                f"H0, 3 at H0 = 0 in Thm C.1, where the map is odd). Data: {source}.", claims, img)


# --------------------------------------------------------------------------- precision ladder
def _is_ladder_key(key: str) -> bool:
    k = key.lower()
    return "ladder" in k and ("disc" in k or "agree" in k or "err" in k)


def ladder_points(doc: dict) -> list[tuple[str, float]]:
    """``(claim: check, worst ladder discrepancy)`` over every check whose evidence records one."""
    worst: dict[str, float] = {}
    for row in doc.get("claims", []) + doc.get("beyond", []):
        for chk in row.get("checks", []):
            for rec in chk.get("records", []) or []:
                for path, v in walk(rec.get("evidence", {})):
                    if path and _is_ladder_key(path[-1]) and isinstance(v, (int, float)) and not isinstance(v, bool):
                        key = f"{row['id']}: {check_label(chk['check'])}"
                        worst[key] = max(worst.get(key, 0.0), abs(float(v)))
    return sorted(worst.items())


def ladder_figure(doc: dict) -> dict:
    """The largest relative discrepancy between the rungs of each check's mpmath precision ladder (dps 15/30/50),
    on a log scale with the default agreement threshold :math:`10^{-10}` (5 digits fewer than dps 15)."""
    title = "Precision-ladder agreement"
    pts = ladder_points(doc)
    claims = sorted({p[0].split(":")[0] for p in pts})
    if not pts:
        return _pic("ladder", title, "", claims, note="No check in this report recorded a precision ladder.")
    floor = 1e-60  # an exact agreement (0) is drawn at this floor, far below any float round-off
    with _style():
        fig, (ax,) = _figure(6.4, 0.8 + 0.22 * len(pts))
        vals = [max(v, floor) for _, v in pts]
        ax.barh(range(len(pts)), vals, color=["C2" if v <= 1e-10 else "C3" for _, v in pts], left=floor)
        ax.set_xscale("log")
        ax.set_yticks(range(len(pts)))
        ax.set_yticklabels([k[:60] for k, _ in pts], fontsize=6)
        ax.axvline(1e-10, color="k", lw=0.8, ls="--", label="agreement threshold 1e-10")
        ax.set_xlabel("max relative discrepancy between rungs (0 drawn at 1e-60)")
        ax.legend(fontsize=7)
        img = svg_uri(fig)
    return _pic("ladder", title, "Green: the rungs agree to within the threshold; red: they do not.", claims, img)


# --------------------------------------------------------------------------- adversarial search traces
def search_figure(doc: dict) -> dict:
    """Worst violation ratio found against the number of starts, per objective, with the claim's threshold."""
    title = "Adversarial search: worst ratio against the number of starts"
    saved = _data(doc, "search")
    if saved is None:
        return _pic("search", title, "", [], note=_NO_DATA)
    if _failed("search", title, [], saved):
        return _failed("search", title, [], saved)
    traces = saved["traces"]
    with _style():
        fig, (ax,) = _figure()
        for i, (name, t) in enumerate(traces.items()):
            ax.step(range(1, len(t["trace"]) + 1), t["trace"], where="post", color=f"C{i}", marker="o", ms=3,
                    label=f"{name} (seed {t['seed']})")
        for thr in sorted({t["threshold"] for t in traces.values()}):
            ax.axhline(thr, color="k", lw=0.8, ls="--")
        ax.set_xlabel("number of starts")
        ax.set_ylabel("worst ratio so far")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
        img = svg_uri(fig)
    return _pic("search", title, f"Serial adversarial searches, {saved.get('budget')} starts of at most "
                f"{saved.get('maxiter')} Nelder-Mead iterations each; dashed: the claimed bound (ratio 1). A curve above "
                "it is a counterexample (N-thmC.2: the paper's constant is false).",
                sorted({t["claim"] for t in traces.values()}), img)


# --------------------------------------------------------------------------- per-seed effects
#: interval keys, preferred first: the exact interval of the median (the estimand of verify.decision), then the
#: descriptive t-interval of the mean that older reports carry
_CI_KEYS = ("ci95_median", "ci95_t", "ci95", "ci")
_EFFECT_KEYS = ("effects", "per_seed_effects", "per_seed")


def comparisons(evidence: Any) -> list[dict]:
    """Every comparison inside an experiment's evidence: a dict with per-seed effects (``effects``) and, where
    recorded, a 95% interval (``ci95_median``, else ``ci95_t``: ``ci_key`` says which), p-values and the outcome.
    Returns ``[{"name", "effects", "ci", "ci_key", "p_for", "p_against", "outcome", "primary"}]``, named by their key
    inside ``comparisons`` / ``descriptive``; a second decision's (``mechanism``: the paper's explanation) named
    ``mechanism: <key>`` and not primary."""
    out, seen = [], set()
    for path, v in walk(evidence):
        if not isinstance(v, dict):
            continue
        eff = next((numbers(v.get(k)) for k in _EFFECT_KEYS if numbers(v.get(k))), None)
        if eff is None:
            continue
        ci_key = next((k for k in _CI_KEYS if isinstance(v.get(k), list) and len(v[k]) == 2), None)
        ci = v[ci_key] if ci_key else None
        keys = [p for p in path if not p.startswith("[")]
        mechanism = "mechanism" in keys   # the paper's explanation, decided beside the claim (never its verdict)
        for marker in ("comparisons", "descriptive"):  # the decision's own grouping: name the comparison only
            if marker in keys:
                keys = keys[keys.index(marker) + 1:] or keys
        name = ("mechanism: " if mechanism else "") + ("/".join(keys) or "effect")
        if path in seen:
            continue
        seen.add(path)
        out.append({"name": name, "effects": eff, "ci": ci, "ci_key": ci_key, "p_for": v.get("p_for_holm", v.get("p_for")),
                    "p_against": v.get("p_against_holm", v.get("p_against")), "outcome": v.get("outcome"),
                    "primary": "descriptive" not in path and not mechanism})
    return out


def emp_figure(row: dict) -> dict:
    """Per-seed effects of one experiment (dots), their median (the estimand of :mod:`verify.decision`) and its exact
    95% interval (bar; the t-interval of the mean for a report that records only that); 0 is 'no effect' and a
    positive effect is the direction the paper claims."""
    from ._common import verdict_label

    comps = []
    for _, ev in records(row):
        comps = comparisons(ev)
        if comps:
            break
    title = f"{row['id']}: per-seed effects"
    if not comps:
        return _pic(f"emp-{row['id']}", title, "", [row["id"]],
                    note=f"No per-seed effects in the evidence ({verdict_label(row)}).")
    comps = comps[:24]  # the primary comparisons come first in the evidence; more would not be legible
    with _style():
        fig, (ax,) = _figure(6.4, 0.9 + 0.3 * len(comps))
        for i, c in enumerate(comps):
            y = len(comps) - 1 - i
            e = np.asarray(c["effects"])
            jitter = (np.arange(e.size) - (e.size - 1) / 2) * (0.25 / max(1, e.size))  # deterministic spread
            ax.plot(e, y + jitter, "o", ms=3, color="C0" if c["primary"] else "C7", alpha=0.7)
            if c["ci"] and all(isinstance(b, (int, float)) and math.isfinite(b) for b in c["ci"]):
                lo, hi = c["ci"]
                ax.plot([lo, hi], [y, y], "-", lw=2, color="C3" if c["primary"] else "C7")
            ax.plot([np.median(e)], [y], "|", ms=10, color="k")
        ax.axvline(0, color="k", lw=0.8, ls="--")
        ax.set_yticks(range(len(comps)))
        labels = [f"{c['name'][-40:]}" + (f" [{c['outcome']}]" if c["outcome"] else "") for c in comps]
        ax.set_yticklabels(list(reversed(labels)), fontsize=6)
        ax.set_xlabel("per-seed signed effect (> 0: the paper's direction)")
        img = svg_uri(fig)
    keys = {c["ci_key"] for c in comps if c["ci"]}
    bar = " and ".join(t for k, t in (("ci95_median", "the exact distribution-free 95% interval of the median (order "
                                       "statistics)"), ("ci95_t", "the 95% t-interval of the mean (descriptive: "
                                       "this report records no interval of the median)")) if k in keys) or "none"
    return _pic(f"emp-{row['id']}", title, "Dots: seeds; black tick: the median, the estimand of verify.decision; "
                f"red bar: {bar}. The verdict: exact one-sided sign tests (binomial) of the median per primary "
                "comparison, all of them for 'supported', Holm-Bonferroni against for 'contradicted'; grey: "
                f"descriptive comparisons (never decide). Verdict: {verdict_label(row)}.", [row["id"]], img)


# --------------------------------------------------------------------------- frames
def frames_figure(doc: dict) -> dict:
    r"""Coherence of the Lemma A.4 frames (exact certificates) against the Weil bound :math:`(2m-2)/\sqrt{2^r}`, the
    Welch bound and the Levenstein bound, over :math:`r`, one panel per :math:`m`."""
    title = "Frame coherence against the Weil, Welch and Levenstein bounds"
    claims = ["S-lemA.4-weil", "S-lem4.1", "S-lemA.4-pow2"]
    saved = _data(doc, "frames")
    if saved is None:
        return _pic("frames", title, "", claims, note=_NO_DATA)
    if _failed("frames", title, claims, saved):
        return _failed("frames", title, claims, saved)
    panels = saved["panels"]
    with _style():
        fig, axes = _figure(4.4 * len(panels), 3.4, ncols=len(panels))
        for ax, (m, p) in zip(axes, panels.items()):
            ax.semilogy(p["r"], p["coherence"], "o-", color="C0", label="coherence (exact)")
            ax.semilogy(p["r"], p["weil"], "--", color="C1", label="Weil (2m-2)/sqrt(2^r)")
            ax.semilogy(p["r"], p["welch"], ":", color="C2", label="Welch")
            lev = [(r, v) for r, v in zip(p["r"], p["levenstein"]) if v]
            if lev:
                ax.semilogy(*zip(*lev), "-.", color="C3", label="Levenstein")
            ax.set_xlabel("r (d = 2^r, N = 2^(rm) columns)")
            ax.set_ylabel("coherence")
            ax.set_title(f"m = {m}")
            ax.legend(fontsize=7)
        img = svg_uri(fig)
    return _pic("frames", title, "Exact character sums over GF(2^r); " +
                "; ".join(f"r from {min(p['r'])} to {max(p['r'])} for m = {m}" for m, p in panels.items()) + ".",
                claims, img)


# --------------------------------------------------------------------------- all of them
def build_figures(doc: dict, which=FIGURES, progress: bool = False) -> list[dict]:
    """The pictures named in ``which`` (see :data:`FIGURES`), in that order, drawn from the document alone. A builder
    that raises gives a picture with a note instead (the report is still written)."""
    from tqdm.auto import tqdm

    from .._validate import VerifyInputError

    unknown = [w for w in which if w not in FIGURES]
    if unknown:
        raise VerifyInputError(f"Argument 'figures' must name pictures among {', '.join(FIGURES)}, not {unknown}.")
    rows = rows_by_id(doc)
    simple = {"fig1": fig1_figure, "fig3": fig3_figure, "orders": orders_figure, "ladder": ladder_figure,
              "search": search_figure, "frames": frames_figure}
    jobs: list[tuple[str, Callable[[], dict]]] = []
    for key in which:
        if key in COMPUTED and not shown(doc, key):  # a computed picture only beside a claim it illustrates
            continue
        if key == "emp":
            for row in [r for r in rows.values() if "emp" in r.get("kind", "")]:
                jobs.append((f"emp {row['id']}", lambda row=row: emp_figure(row)))
        else:
            jobs.append((key, lambda f=simple[key]: f(doc)))
    out = []
    for key, job in tqdm(jobs, desc="figures", disable=not progress, leave=False):
        try:
            out.append(job())
        except Exception as exc:  # a picture that cannot be drawn must not cost the reader the whole report
            out.append(_pic(key.replace(" ", "-"), key, "", [], note=f"Could not be drawn: {type(exc).__name__}: {exc}"))
    return out
