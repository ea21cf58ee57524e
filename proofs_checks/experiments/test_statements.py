"""The experiments of both papers (kind emp: trained networks, decided by verify.decision): the statements, tested.

Paper N's empirical claims (Fig. 2 / App. E.1, Fig. 3 / Table 1, Fig. 6, App. E.2) and paper S's Figure 3
(``S-fig3``: the trained Ltilde has slope 1 in log_d p for p <= d^-m) are re-run in torch. Every verdict comes from
the one pre-registered decision rule (:mod:`verify.decision`): signed per-seed effects oriented to the paper's
direction, the median per-seed effect as estimand, an exact one-sided sign test per comparison, all primary
comparisons significant for ``supported``, Holm over them for ``contradicted``; ``supported`` / ``contradicted`` /
``inconclusive``, always with the scale of the run. Seeds come from the power analysis
(``verify.decision.seeds_for_power``). The corrected statement of Table 1 (chosen post hoc) is tested only where the
claim as stated is contradicted, on held-out seeds.

For ``S-fig3`` the rule is applied to an equivalence test of "slope 1" per d
(:func:`verify.empirical.superposition.slope_effects`: slope above 1 - tol and below 1 + tol, tol = SLOPE_TOL), with
2 x len(ds) comparisons. Its quick preset runs d = 4, 6; n = 250 > d^m; batched Adam; seeds for 80% power at 2 SD.
Its full preset runs L-BFGS with continuation along p; seeds for 80% power at 1 SD.

Fig. 6 (``N-fig6-interference``) is decided twice on the same runs: the effect the figure shows sets the claim's
verdict; the paper's explanation (interference: the effect is larger with the blurred classes than without) is the
mechanism, decided by the same rule and recorded beside it (``verify.empirical.neural_collapse``).

**One pre-designated run per claim decides its verdict**: the quick preset (default tier; sklearn digits for paper
N) in ``verify report --fast`` / plain ``pytest``; the full preset (real data at reduced model size for paper N;
slow tier) whenever its check runs in the same pytest run (``verify report``, ``pytest -m ""``) and its data are
installed. The other run is then descriptive: the quick check trains, asserts, and skips with its own verdict in the
skip reason, so it never sets the claim's verdict.
"""

from __future__ import annotations

import pytest


torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]; the empirical checks train networks")

# after the importorskip: without torch the module is skipped before these import it
from verify.decision import seeds_for_power  # noqa: E402
from verify.empirical import describe_or_none, record_decision  # noqa: E402
from verify.empirical import neural_collapse as nc  # noqa: E402
from verify.empirical.data import data_available  # noqa: E402
from verify.empirical.superposition import FIG3_PRESETS, SLOPE_TOL, reproduce_fig3  # noqa: E402


def _run(fn, tmp_path_factory, quick, **kw):
    return fn(tmp_path_factory.mktemp(fn.__name__), quick=quick, device="cpu", **kw)


def _need(dataset):
    ok, how = data_available(dataset)
    if not ok:
        pytest.skip(f"the full preset needs the data set {dataset!r}: {how}")


@pytest.fixture(scope="session")  # trained once per worker even if pytest interleaves other modules
def layerwise(tmp_path_factory):
    return _run(nc.reproduce_layerwise, tmp_path_factory, True)


@pytest.fixture(scope="session")
def wd(tmp_path_factory):
    return _run(nc.reproduce_wd, tmp_path_factory, True)


@pytest.fixture(scope="session")
def wd_zero(tmp_path_factory):
    return _run(nc.reproduce_wd_zero, tmp_path_factory, True)


@pytest.fixture(scope="session")
def interference(tmp_path_factory):
    return _run(nc.reproduce_interference, tmp_path_factory, True)


def _common(res) -> dict:
    return {"preset": res["preset"], "seeds": res["seeds"], "config": res["config"], "dataset": res["dataset"]}


def _quick_is_descriptive(request, full_check: str, dataset: str) -> str | None:
    return describe_or_none(request, full_check, data_available(dataset)[0])


def _layerwise_check(res, verdict):
    assert set(res["decision"]["comparisons"]) == set(nc.LAYERWISE_PRIMARY)
    assert len(res["NC1"]["values"][0]) >= 6  # a depth trend needs several layers: at least 6 (App. E.1: 1 to 10)
    evidence = dict(_common(res), **{k: {"per_layer_geomean": [float(v) for v in _geomean(res[k]["values"])],
                                         "first_over_last": res[k]["first_over_last"],
                                         "decreasing_steps_of": [res[k]["monotone_decrease_steps"],
                                                                 res["config"]["layers"] - 1]}
                                     for k in ("NC1", "NC1_tilde")})
    record_decision(verdict, res["decision"], res["scale"], evidence,
                    "emp: layer-wise Adam training of a BN-ReLU MLP (App. E.1); per seed minus the slope of log10 NC1 "
                    "/ NC1~ of the deepest features against depth; sign test on the median (verify.decision)",
                    designated=res["preset"])


def _geomean(rows):
    import numpy as np

    return np.exp(np.log(np.asarray(rows)).mean(0))


@pytest.mark.claim("N-fig2-layerwise")
def test_layerwise_nc1_falls_with_depth(layerwise, verdict, request):
    assert len(layerwise["seeds"]) == nc.preset_seeds(len(nc.LAYERWISE_PRIMARY), quick=True)  # power-planned
    skip = _quick_is_descriptive(request, "test_layerwise_full", nc.LAYERWISE_PRESETS["full"]["dataset"])
    _layerwise_check(layerwise, verdict if skip is None else _Discard())
    if skip:
        pytest.skip(skip + _summary(layerwise["decision"]))


class _Discard:
    """A verdict sink for a descriptive run: the checks' assertions run, nothing is recorded."""

    def __getattr__(self, name):
        return lambda *a, **k: None


def _summary(dec) -> str:
    return f"; this run's verdict: {dec['verdict']} ({dec['reason']})"


def _wd_check(res, verdict, replication=None, descriptive=None):
    # the paper's regime: (near) zero training error in every run; outside it the claim is not tested (the report
    # shows the failed check as inconclusive, with this message and the rule's would-be verdict)
    assert res["min_train_acc"] > 0.99, (
        f"not the paper's regime: lowest training accuracy {res['min_train_acc']:.4f} <= 0.99 ({res['scale']}); the "
        f"rule on this run would say {res['decision']['N-table1-wd']['verdict']}")
    evidence = dict(_common(res), wd_baseline=res["wd_baseline"], min_train_acc=res["min_train_acc"],
                    table_mean_sd=res["table_mean_sd"])
    if descriptive is not None:  # Table 1's MNIST part: reported, outside the verdict
        evidence["descriptive_run"] = {"what": "Table 1's MNIST part on real MNIST (descriptive; the Fashion-MNIST "
                                               "run decides)", "verdict": descriptive["decision"]["N-table1-wd"]["verdict"],
                                       "reason": descriptive["decision"]["N-table1-wd"]["reason"],
                                       "scale": descriptive["scale"], "seeds": descriptive["seeds"],
                                       "medians": {k: c["median"] for k, c in
                                                   descriptive["decision"]["N-table1-wd"]["comparisons"].items()}}
    dec = res["decision"]["N-table1-wd"]
    against = [k for k, c in dec["comparisons"].items() if c["outcome"] == "against"]
    # the corrected statement keeps only zeroing: offered when only doubling went against the paper; it is post hoc,
    # so its verdict on fresh seeds goes with it wherever the correction is shown
    corrected = None
    if against and all(k.endswith("/x2") for k in against):
        rep = replication()
        rd = rep["decision"]
        corrected = (f"{nc.ZERO_WD_STATEMENT} [post hoc: chosen after seeing data; on fresh seeds "
                     f"{rep['seeds'][0]}-{rep['seeds'][-1]} it is {rd['verdict']} ({rep['scale']})]")
        evidence["post_hoc_replication"] = {"statement": nc.ZERO_WD_STATEMENT, "post_hoc": True, "note": nc.POST_HOC,
                                            "seeds": rep["seeds"], "verdict": rd["verdict"], "reason": rd["reason"],
                                            "scale": rep["scale"]}
    record_decision(verdict, dec, res["scale"], evidence,
                    "emp: SGD on 5 WD settings (paired inits, subsets and data order), MSE no bias / CE bias; per seed "
                    "log NC(W changed) - log NC(H changed), oriented to the paper's direction, at the deepest features; "
                    "sign test on the median (verify.decision)", corrected=corrected, designated=res["preset"])


@pytest.mark.claim("N-table1-wd")
def test_wd_feature_layers_matter_more(wd, verdict, request):
    assert len(wd["seeds"]) == nc.preset_seeds(len(nc.WD_PRIMARY), quick=True)
    skip = _quick_is_descriptive(request, "test_wd_full", nc.WD_PRESETS["full"]["dataset"])
    _wd_check(wd, verdict if skip is None else _Discard(), replication=lambda: request.getfixturevalue("wd_zero"))
    if skip:
        pytest.skip(skip + _summary(wd["decision"]["N-table1-wd"]))


def _zero_check(rep, verdict):
    assert rep["min_train_acc"] > 0.99
    assert rep["post_hoc"] and min(rep["seeds"]) >= nc.REPLICATION_SEED
    assert len(rep["seeds"]) == nc.preset_seeds(len(nc.ZERO_WD_PRIMARY), quick=rep["preset"] == "quick")
    record_decision(verdict, rep["decision"], rep["scale"], {"preset": rep["preset"], "seeds": rep["seeds"],
                                                             "statement": rep["corrected"], "post_hoc": True,
                                                             "post_hoc_note": rep["post_hoc_note"]},
                    "emp: held-out replication (fresh seeds) of the four WD=0 comparisons of N-table1-wd (post hoc "
                    "statement); sign test on the median (verify.decision)", designated=rep["preset"])


@pytest.mark.claim("N-table1-wd", corrected=True)
def test_wd_zeroing_feature_layers_matters_more(wd, verdict, request):
    """The corrected statement (nc.ZERO_WD_STATEMENT, post hoc), tested only when the claim as stated is contradicted,
    on held-out seeds (nc.REPLICATION_SEED on), never on the run that suggested it."""
    if wd["decision"]["N-table1-wd"]["verdict"] != "contradicted":
        pytest.skip(f"N-table1-wd is {wd['decision']['N-table1-wd']['verdict']} at this scale: no corrected statement")
    skip = _quick_is_descriptive(request, "test_wd_zero_full", nc.WD_PRESETS["full"]["dataset"])
    rep = request.getfixturevalue("wd_zero")
    _zero_check(rep, verdict if skip is None else _Discard())
    if skip:
        pytest.skip(skip + _summary(rep["decision"]))


def _depth_check(res, verdict):
    evidence = dict(_common(res), scale_note="same runs as N-table1-wd")
    record_decision(verdict, res["decision"]["N-E2-depth"], res["scale"], evidence,
                    "emp: log NC at hidden layer depth-1 minus at depth (intermediate vs deepest), CE with bias, "
                    "baseline WD (Fig. 4(b) vs 4(c)); other settings and MSE descriptive; sign test on the median "
                    "(verify.decision)", designated=res["preset"])


@pytest.mark.claim("N-E2-depth")
def test_intermediate_features_less_collapsed(wd, verdict, request):
    skip = _quick_is_descriptive(request, "test_depth_full", nc.WD_PRESETS["full"]["dataset"])
    _depth_check(wd, verdict if skip is None else _Discard())
    if skip:
        pytest.skip(skip + _summary(wd["decision"]["N-E2-depth"]))


def _interference_check(res, verdict):
    """Fig. 6: the effect the figure shows sets the claim's verdict; the paper's explanation of it (interference) is
    decided by the same rule on the same seeds and recorded beside it (evidence ``mechanism``)."""
    assert set(res["decision"]["comparisons"]) == set(nc.INTERFERENCE_PRIMARY)
    assert set(res["mechanism"]["comparisons"]) == set(nc.INTERFERENCE_MECHANISM)
    # the contrast is the effect less its no-blur control, seed by seed (the two decisions read the same runs)
    eff = res["decision"]["comparisons"][nc.INTERFERENCE_PRIMARY[0]]["effects"]
    clean = res["decision"]["descriptive"]["clean control: WD_W = 0 vs base"]["effects"]
    assert res["mechanism"]["comparisons"][nc.INTERFERENCE_MECHANISM[0]]["effects"] == pytest.approx(
        [a - b for a, b in zip(eff, clean)], abs=1e-12)
    evidence = dict(_common(res), wd_baseline=res["wd_baseline"], min_train_acc=res["min_train_acc"], arch=res["arch"],
                    other_classes_NC1={st: v["other_classes_NC1"] for st, v in res["summary"].items()})
    record_decision(verdict, res["decision"], res["scale"], evidence,
                    f"emp: CE+bias {nc.ARCHITECTURES[res['arch']]}, digits 4 and 9 blurred, last-layer WD in {{base, "
                    "base/10, 0}, unblurred control at {base, 0}; effect (the verdict): per seed the blurred log ratio "
                    "of the other classes' mean per-class NC1, WD_W = 0 over base; mechanism (beside it): that minus "
                    "the clean log ratio; sign test on the median of each (verify.decision)",
                    designated=res["preset"], mechanism=res["mechanism"])


@pytest.mark.claim("N-fig6-interference")
def test_last_layer_wd_shields_other_classes(interference, verdict, request):
    assert len(interference["seeds"]) == nc.preset_seeds(len(nc.INTERFERENCE_PRIMARY), quick=True)
    skip = _quick_is_descriptive(request, "test_interference_full", nc.INTERFERENCE_PRESETS["full"]["dataset"])
    _interference_check(interference, verdict if skip is None else _Discard())
    if skip:
        pytest.skip(skip + _summary(interference["decision"]) + _mechanism_summary(interference["mechanism"]))


def _mechanism_summary(mech) -> str:
    return f"; the mechanism (interference): {mech['verdict']} ({mech['reason'] or 'all comparisons significant'})"


# --------------------------------------------------------------------------- full presets: real data, slow tier
@pytest.mark.slow
@pytest.mark.claim("N-fig2-layerwise")
def test_layerwise_full(tmp_path_factory, verdict):
    _need(nc.LAYERWISE_PRESETS["full"]["dataset"])
    _layerwise_check(_run(nc.reproduce_layerwise, tmp_path_factory, False), verdict)


@pytest.fixture(scope="module")
def wd_full(tmp_path_factory):
    _need(nc.WD_PRESETS["full"]["dataset"])
    return _run(nc.reproduce_wd, tmp_path_factory, False)


@pytest.fixture(scope="module")
def wd_zero_full(tmp_path_factory):
    return _run(nc.reproduce_wd_zero, tmp_path_factory, False)


@pytest.fixture(scope="module")
def wd_mnist(tmp_path_factory):
    """Table 1's MNIST part on real MNIST (descriptive: the Fashion-MNIST run, for CIFAR-10, decides the claim)."""
    _need("mnist5k")
    return _run(nc.reproduce_wd, tmp_path_factory, False, dataset="mnist5k")


@pytest.mark.slow
@pytest.mark.claim("N-table1-wd")
def test_wd_full(wd_full, verdict, request):
    _wd_check(wd_full, verdict, replication=lambda: request.getfixturevalue("wd_zero_full"),
              descriptive=request.getfixturevalue("wd_mnist") if data_available("mnist5k")[0] else None)


@pytest.mark.slow
@pytest.mark.claim("N-table1-wd", corrected=True)
def test_wd_zero_full(wd_full, verdict, request):
    if wd_full["decision"]["N-table1-wd"]["verdict"] != "contradicted":
        pytest.skip(f"N-table1-wd is {wd_full['decision']['N-table1-wd']['verdict']} at this scale: no corrected "
                    "statement")
    _zero_check(request.getfixturevalue("wd_zero_full"), verdict)


@pytest.mark.slow
@pytest.mark.claim("N-E2-depth")
def test_depth_full(wd_full, verdict):
    _depth_check(wd_full, verdict)


@pytest.mark.slow
@pytest.mark.claim("N-fig6-interference")
def test_interference_full(tmp_path_factory, verdict):
    _need(nc.INTERFERENCE_PRESETS["full"]["dataset"])
    _interference_check(_run(nc.reproduce_interference, tmp_path_factory, False), verdict)


@pytest.mark.slow
@pytest.mark.claim("N-fig6-interference")
def test_interference_small_resnet(tmp_path_factory):
    """Fig. 6 on a residual CNN (closer to the paper's ResNet18; ``INTERFERENCE_ARCH_PRESETS["small-resnet"]``, about
    45 minutes on an idle 2-core CPU, 80 on a loaded one): a descriptive run beside the MLP's full preset, which decides
    the claim. It must reach
    the paper's regime (zero training error) and decide both the effect and the mechanism on its power-planned seeds;
    it skips with both verdicts in the reason."""
    cfg = nc.INTERFERENCE_ARCH_PRESETS["small-resnet"]
    _need(cfg["dataset"])
    res = _run(nc.reproduce_interference, tmp_path_factory, False, preset=cfg)
    assert res["arch"] == "small-resnet" and "residual CNN" in res["scale"] and "MLP" not in res["scale"]
    assert len(res["seeds"]) == nc.preset_seeds(len(nc.INTERFERENCE_PRIMARY), quick=False)
    assert res["min_train_acc"] > 0.99, f"not the paper's regime: lowest training accuracy {res['min_train_acc']:.4f}"
    _interference_check(res, _Discard())
    pytest.skip("descriptive run (residual CNN): the full MLP preset decides the claim" + _summary(res["decision"])
                + _mechanism_summary(res["mechanism"]))


def _record(summary, verdict):
    per_d = summary["per_d"]
    cfg = FIG3_PRESETS[summary["preset"]]
    assert len(summary["seeds"]) == seeds_for_power(2 * len(per_d), cfg["effect_of_interest"])  # power-planned
    evidence = {"preset": summary["preset"], "m": summary["m"], "n": summary["n"], "seeds": summary["seeds"],
                "optimizer": summary["optimizer"], "steps": summary["steps"],
                "evals": (summary["first_evals"], summary["next_evals"]), "slope_tol": SLOPE_TOL,
                "per_d": {d: {"sparse_slopes": r["sparse_slopes"], "slope_mean": r["slope_mean"],
                              "slope_sd": r["slope_sd"], "max_ratio_to_thm31": r["max_ratio_to_thm31"],
                              "gain_over_unsuperposed_at_sparsest": r["gain_over_unsuperposed_at_sparsest"],
                              "log_d_p": r["log_d_p"], "Ltilde": r["Ltilde"]}  # the curves: the HTML report draws Fig. 3
                          for d, r in per_d.items()}}
    # a trained W can never beat Theorem 3.1's rigorous bound: a ratio > 1 would be a bug (or a refutation of S-thm3.1)
    assert all(r["max_ratio_to_thm31"] <= 1 for r in per_d.values())
    method = (f"emp: {summary['optimizer']} on the exact population loss (torch; quick: Adam batched over p and seeds, "
              f"full: L-BFGS continued along p); least-squares slope for p <= d^-m; TOST |slope - 1| < {SLOPE_TOL} "
              "per d under verify.decision")
    record_decision(verdict, summary["decision"], summary["scale"], evidence, method, designated=summary["preset"])


class _Discard_2:
    """A verdict sink for a descriptive run: the check's assertions run, nothing is recorded."""

    def __getattr__(self, name):
        return lambda *a, **k: None


@pytest.mark.claim("S-fig3")
def test_fig3_sparse_slope_quick(tmp_path, verdict, request):
    summary = reproduce_fig3(tmp_path, quick=True, device="cpu", seed=0)
    assert (tmp_path / "s_fig3.png").stat().st_size > 0
    skip = describe_or_none(request, "test_fig3_sparse_slope_full")
    _record(summary, verdict if skip is None else _Discard_2())
    if skip:
        dec = summary["decision"]
        pytest.skip(f"{skip}; this run's verdict: {dec['verdict']} ({dec['reason']})")


@pytest.mark.slow
@pytest.mark.claim("S-fig3")
def test_fig3_sparse_slope_full(tmp_path, verdict):
    summary = reproduce_fig3(tmp_path, quick=False, device="auto", seed=0)
    _record(summary, verdict)
