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

**Table 1 and App. E.2 in the full report** are decided on real MNIST and on Fashion-MNIST together (rule 5 of
``verify.decision``: supported / contradicted only when both data sets agree, otherwise "inconclusive:
data-dependent"). Their training is four units (data set x loss), one check each (``test_wd_full[...]``), so that
two pytest-xdist workers train two units at a time; the units go through the session's shared store
(``verify.empirical.shared_runs``): each is trained once, and every check that needs it reads the same values.
Every one of the four checks records the same joint verdict.
"""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]; the empirical checks train networks")

# after the importorskip: without torch the module is skipped before these import it
from verify.decision import seeds_for_power  # noqa: E402
from verify.empirical import describe_or_none, record_decision  # noqa: E402
from verify.empirical import neural_collapse as nc  # noqa: E402
from verify.empirical.data import data_available  # noqa: E402
from verify.empirical.shared_runs import RunStore, session_folder  # noqa: E402
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


# module, not session: the three quick checks that share this run (Table 1, its corrected statement, App. E.2) are one
# unit of verify.xdist_schedule, on one worker, so the run trains once per pytest session, not once per worker
@pytest.fixture(scope="module")
def wd(tmp_path_factory):
    return _run(nc.reproduce_wd, tmp_path_factory, True)


@pytest.fixture(scope="module")
def wd_zero(tmp_path_factory):
    return _run(nc.reproduce_wd_zero, tmp_path_factory, True)


@pytest.fixture(scope="session")
def interference(tmp_path_factory):
    return _run(nc.reproduce_interference, tmp_path_factory, True)


def _common(res) -> dict:
    return {"preset": res["preset"], "seeds": res["seeds"], "config": res["config"], "dataset": res["dataset"]}


def _quick_is_descriptive(request, full_check: str, *datasets: str) -> str | None:
    return describe_or_none(request, full_check, all(data_available(d)[0] for d in datasets))


def _layerwise_check(res, verdict):
    assert set(res["decision"]["comparisons"]) == set(nc.LAYERWISE_PRIMARY)
    assert len(res["NC1"]["values"][0]) >= 6  # a depth trend needs several layers: at least 6 (App. E.1: 1 to 10)
    evidence = dict(_common(res), **{k: {"per_layer_geomean": [float(v) for v in _geomean(res[k]["values"])],
                                         "first_over_last": res[k]["first_over_last"],
                                         "decreasing_steps_of": [res[k]["monotone_decrease_steps"],
                                                                 res["config"]["layers"] - 1]}
                                     for k in ("NC1", "NC1_tilde")})
    # the distance from zero training error at each number of layers (the paper trains each layer a fixed budget)
    evidence.update(regime=res["regime"], regime_text=res["regime_text"],
                    min_train_acc=min(v["min_train_acc"] for v in res["regime"]["ce"].values()))
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


def _wd_check(res, verdict, replication=None):
    # the paper's regime: (near) zero training error in every run; outside it the claim is not tested (the report
    # shows the failed check as inconclusive, with this message and the rule's would-be verdict)
    assert res["min_train_acc"] > 0.99, (
        f"not the paper's regime: lowest training accuracy {res['min_train_acc']:.4f} <= 0.99 ({res['regime_text']}; "
        f"{res['scale']}); the rule on this run would say {res['decision']['N-table1-wd']['verdict']}")
    evidence = dict(_common(res), wd_baseline=res["wd_baseline"], min_train_acc=res["min_train_acc"],
                    table_mean_sd=res["table_mean_sd"], regime=res["regime"],
                    zero_error_only=res["decision"]["N-table1-wd"]["zero_error_only"])
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
    skip = _quick_is_descriptive(request, "test_wd_full", *nc.WD_DATASETS)
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
    skip = _quick_is_descriptive(request, "test_wd_zero_full", *nc.WD_DATASETS)
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
    skip = _quick_is_descriptive(request, "test_depth_full", *nc.WD_DATASETS)
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
                    regime=res["regime"], regime_text=res["regime_text"],
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


#: Table 1's units of training in the full report, one check each (so two workers train two at a time): the data sets
#: that decide (nc.WD_DATASETS, rule 5 of verify.decision) x the losses
WD_UNITS = [(d, loss) for d in nc.WD_DATASETS for loss in nc.WD_LOSSES]


@pytest.fixture(scope="session")  # session: the scheduler must not bind the checks that share it into one unit
def runs(tmp_path_factory):
    return RunStore(session_folder(tmp_path_factory))


def _unit_request(dataset, loss, zero=False, variant=None):
    seed = nc.REPLICATION_SEED if zero else 0
    preset = nc.WD_SENSITIVITY[variant] if variant else None
    key = {"dataset": dataset, "loss": loss, "zero": zero, "seed": seed, "preset": nc.WD_PRESETS["full"],
           "variant": preset}
    return (f"wd{'-zero' if zero else ''}{'-' + variant if variant else ''}-{dataset}-{loss}", key,
            lambda: nc.wd_unit(dataset, loss, quick=False, device="cpu", seed=seed, zero=zero, preset=preset))


def _full_runs(runs, tmp_path_factory, first=None, zero=False, variant=None):
    """Every data set's full run (replication: ``zero``; a sensitivity run: ``variant`` of nc.WD_SENSITIVITY) from the
    session's shared units; ``first``: this check's own unit (data set, loss), trained or waited for first."""
    for d in nc.WD_DATASETS:
        _need(d)
    order = ([first] if first else []) + [u for u in WD_UNITS if u != first]
    units = dict(zip(order, runs.get_all([_unit_request(d, loss, zero, variant) for d, loss in order])))
    fn = nc.reproduce_wd_zero if zero else nc.reproduce_wd
    return {d: fn(tmp_path_factory.mktemp(f"{fn.__name__}-{d}"), quick=False, device="cpu", dataset=d,
                  units=lambda loss, d=d: units[(d, loss)]) for d in nc.WD_DATASETS}


def _with_sensitivity(joint, cid, evidence, runs, tmp_path_factory, first=None):
    """Where asked for (nc.sensitivity_enabled), the pre-registered sensitivity runs beside the main decision: each
    joined over the data sets, the budget one by nc.budget_rule (a verdict that changes with the budget is
    inconclusive: budget-dependent), the paper's per-step WD one descriptive."""
    if not nc.sensitivity_enabled():
        # said in every summary, so a reader of the main decision knows the sensitivity runs exist and were not run
        evidence["sensitivity"] = {v: {"what": nc.SENSITIVITY_LABELS[v], "verdict": "not run",
                                       "reason": "run with 'verify report --sensitivity' (about 3x the training)"}
                                   for v in nc.WD_SENSITIVITY}
        return joint
    sens = {}
    for variant in nc.WD_SENSITIVITY:
        res = _full_runs(runs, tmp_path_factory, first=first, variant=variant)
        if variant == "budget":   # it can set the verdict (budget rule): the paper's regime is required of it too
            _regime_gate(res)
        j = nc.across_datasets(res)[cid]
        sens[variant] = {"what": nc.SENSITIVITY_LABELS[variant], "verdict": j["verdict"], "reason": j["reason"],
                         "per_dataset": [{k: r.get(k) for k in ("name", "verdict", "zero_error_only", "min_train_acc",
                                                                 "regime")} for r in j["per_dataset"]],
                         "medians": {k: c["median"] for k, c in j["comparisons"].items()}, "scale": nc.joint_scale(res)}
    evidence["sensitivity"] = sens
    return nc.budget_rule(joint, sens["budget"])


def _joint_evidence(res, joint):
    first = next(iter(res.values()))
    return {"preset": "full", "seeds": first["seeds"], "config": first["config"],
            "dataset": " and ".join(nc.DATASET_LABELS[d] for d in res), "datasets": list(res),
            "per_dataset": joint["per_dataset"], "zero_error_only": joint.get("zero_error_only"),
            "min_train_acc": min(r["min_train_acc"] for r in res.values()),
            "regime": {d: r["regime"] for d, r in res.items()}}


def _regime_gate(res):
    # the paper's regime: (near) zero training error in every run of every data set (the wrong images per setting
    # and the decision on the runs at zero error only are in the evidence)
    for d, r in res.items():
        assert r["min_train_acc"] > 0.99, (
            f"not the paper's regime on {d}: lowest training accuracy {r['min_train_acc']:.4f} <= 0.99 "
            f"({r['regime_text']}; {r['scale']})")


def _wd_full_check(res, verdict, replication, runs, tmp_path_factory, first=None):
    _regime_gate(res)
    joint = nc.across_datasets(res)["N-table1-wd"]
    evidence = dict(_joint_evidence(res, joint), wd_baseline={d: r["wd_baseline"] for d, r in res.items()},
                    table_mean_sd={d: r["table_mean_sd"] for d, r in res.items()})
    joint = _with_sensitivity(joint, "N-table1-wd", evidence, runs, tmp_path_factory, first)
    against = [k for k, c in joint["comparisons"].items() if c["outcome"] == "against"]
    corrected = None
    if joint["verdict"] == "contradicted" and all(k.endswith("/x2") for k in against):
        rep = replication()
        rj = nc.across_datasets(rep, claims=(None,))[None]
        seeds = next(iter(rep.values()))["seeds"]
        corrected = (f"{nc.ZERO_WD_STATEMENT} [post hoc: chosen after seeing data; on fresh seeds "
                     f"{seeds[0]}-{seeds[-1]} it is {rj['verdict']} ({rj['reason']}; {nc.joint_scale(rep)})]")
        evidence["post_hoc_replication"] = {"statement": nc.ZERO_WD_STATEMENT, "post_hoc": True, "note": nc.POST_HOC,
                                            "seeds": seeds, "verdict": rj["verdict"], "reason": rj["reason"],
                                            "scale": nc.joint_scale(rep)}
    record_decision(verdict, joint, nc.joint_scale(res), evidence,
                    "emp: SGD on 5 WD settings (paired inits, subsets and data order), MSE no bias / CE bias, on real "
                    "MNIST and on Fashion-MNIST (for CIFAR-10); per seed log NC(W changed) - log NC(H changed), "
                    "oriented to the paper's direction, at the deepest features; sign test on the median per data "
                    "set, supported / contradicted only when the data sets agree (verify.decision)",
                    corrected=corrected, designated="full")


@pytest.mark.slow
@pytest.mark.claim("N-table1-wd")
@pytest.mark.parametrize("dataset,loss", WD_UNITS)
def test_wd_full(dataset, loss, runs, tmp_path_factory, verdict, request):
    """One check per unit of training (data set x loss): each trains its own unit, then takes the others from the
    session's store (training those no other worker has started), and records the one joint verdict."""
    res = _full_runs(runs, tmp_path_factory, first=(dataset, loss))
    _wd_full_check(res, verdict, lambda: _full_runs(runs, tmp_path_factory, zero=True), runs, tmp_path_factory,
                   first=(dataset, loss))


@pytest.mark.slow
@pytest.mark.claim("N-table1-wd", corrected=True)
def test_wd_zero_full(runs, tmp_path_factory, verdict):
    res = _full_runs(runs, tmp_path_factory)
    joint = nc.across_datasets(res)["N-table1-wd"]
    if joint["verdict"] != "contradicted":
        pytest.skip(f"N-table1-wd is {joint['verdict']} ({joint['reason']}): no corrected statement")
    rep = _full_runs(runs, tmp_path_factory, zero=True)
    for r in rep.values():
        _zero_check(r, _Discard())
    rj = nc.across_datasets(rep, claims=(None,))[None]
    first = next(iter(rep.values()))
    record_decision(verdict, rj, nc.joint_scale(rep),
                    {"preset": "full", "seeds": first["seeds"], "statement": first["corrected"], "post_hoc": True,
                     "post_hoc_note": first["post_hoc_note"], "per_dataset": rj["per_dataset"],
                     "dataset": " and ".join(nc.DATASET_LABELS[d] for d in rep)},
                    "emp: held-out replication (fresh seeds) of the four WD=0 comparisons of N-table1-wd (post hoc "
                    "statement) on every deciding data set; sign test on the median, joined over the data sets "
                    "(verify.decision)", designated="full")


@pytest.mark.slow
@pytest.mark.claim("N-E2-depth")
def test_depth_full(runs, tmp_path_factory, verdict):
    res = _full_runs(runs, tmp_path_factory)
    _regime_gate(res)
    joint = nc.across_datasets(res)["N-E2-depth"]
    evidence = dict(_joint_evidence(res, joint), scale_note="same runs as N-table1-wd")
    joint = _with_sensitivity(joint, "N-E2-depth", evidence, runs, tmp_path_factory)
    record_decision(verdict, joint, nc.joint_scale(res), evidence,
                    "emp: log NC at hidden layer depth-1 minus at depth (intermediate vs deepest), CE with bias, "
                    "baseline WD (Fig. 4(b) vs 4(c)), on real MNIST (the paper's data for this comparison) and on "
                    "Fashion-MNIST; other settings and MSE descriptive; sign test on the median per data set, "
                    "supported / contradicted only when the data sets agree (verify.decision)", designated="full")


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
    it skips with both verdicts in the reason. Its cost would put the report's main job far past its time budget, so
    it runs only where asked for (``VERIFY_RESIDUAL_CNN=1``)."""
    flag = os.environ.get("VERIFY_RESIDUAL_CNN", "0").strip()
    if flag not in ("0", "1", ""):
        raise ValueError(f"Environment variable 'VERIFY_RESIDUAL_CNN' must be 0 or 1, not {flag!r}.")
    if flag != "1":
        pytest.skip("the residual-CNN run of Fig. 6 (about 45 minutes on 2 idle cores) runs only where asked for: "
                    "VERIFY_RESIDUAL_CNN=1")
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
