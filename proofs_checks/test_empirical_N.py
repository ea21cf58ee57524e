"""Paper N, empirical claims (Fig. 2 / App. E.1, Fig. 3 / Table 1, Fig. 6, App. E.2) on a reduced-scale setting.

Every verdict comes from the one pre-registered decision rule (:mod:`verify.decision`): signed per-seed
effects oriented to the paper's direction, an exact one-sided sign-flip test per comparison, Holm over
the claim's primary comparisons at family-wise alpha = 0.05; ``supported`` / ``contradicted`` /
``inconclusive``, always with the scale of the run. The default tier runs the quick presets (exactly the
rule's minimum number of seeds); ``slow`` runs the full ones (at least 5 seeds, one above the minimum).
"""

import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]; the empirical checks train networks")

from verify.decision import min_seeds  # noqa: E402
from verify.empirical import neural_collapse as nc  # noqa: E402
from verify.empirical import record_decision  # noqa: E402


def _run(fn, tmp_path_factory, quick):
    return fn(tmp_path_factory.mktemp(fn.__name__), quick=quick, device="cpu", seed=0)


@pytest.fixture(scope="session")  # trained once per worker even if pytest interleaves other modules
def layerwise(tmp_path_factory):
    return _run(nc.reproduce_layerwise, tmp_path_factory, True)


@pytest.fixture(scope="session")  # trained once per worker even if pytest interleaves other modules
def wd(tmp_path_factory):
    return _run(nc.reproduce_wd, tmp_path_factory, True)


@pytest.fixture(scope="session")  # trained once per worker even if pytest interleaves other modules
def interference(tmp_path_factory):
    return _run(nc.reproduce_interference, tmp_path_factory, True)


def _common(res) -> dict:
    return {"preset": res["preset"], "seeds": res["seeds"], "config": res["config"], "dataset": res["dataset"]}


def _layerwise_check(res, verdict):
    assert set(res["decision"]["comparisons"]) == set(nc.LAYERWISE_PRIMARY)
    evidence = dict(_common(res), **{k: {"per_layer_geomean": [float(v) for v in _geomean(res[k]["values"])],
                                         "first_over_last": res[k]["first_over_last"],
                                         "decreasing_steps_of": [res[k]["monotone_decrease_steps"],
                                                                 res["config"]["layers"] - 1]}
                                     for k in ("NC1", "NC1_tilde")})
    record_decision(verdict, res["decision"], res["scale"], evidence,
                    "emp: layer-wise Adam training of a BN-ReLU MLP (App. E.1); per seed minus the slope of log10 NC1 "
                    "/ NC1~ of the deepest features against depth; verify.decision")


def _geomean(rows):
    import numpy as np

    return np.exp(np.log(np.asarray(rows)).mean(0))


@pytest.mark.claim("N-fig2-layerwise")
def test_layerwise_nc1_falls_with_depth(layerwise, verdict):
    assert len(layerwise["NC1"]["values"][0]) >= 6  # the issue asks for at least 6 layers
    assert len(layerwise["seeds"]) >= min_seeds(len(nc.LAYERWISE_PRIMARY))  # the claim can be decided at all
    _layerwise_check(layerwise, verdict)


def _wd_check(res, verdict):
    assert res["min_train_acc"] > 0.99  # the paper's regime: (near) zero training error in every run
    evidence = dict(_common(res), wd_baseline=res["wd_baseline"], min_train_acc=res["min_train_acc"],
                    table_mean_sd=res["table_mean_sd"])
    dec = res["decision"]["N-table1-wd"]
    against = [k for k, c in dec["comparisons"].items() if c["outcome"] == "against"]
    # the corrected statement keeps only zeroing: offered when only doubling went against the paper
    corrected = nc.ZERO_WD_STATEMENT if against and all(k.endswith("/x2") for k in against) else None
    record_decision(verdict, dec, res["scale"], evidence,
                    "emp: SGD on 5 WD settings (paired inits), MSE no bias / CE bias; per seed log NC(W changed) - "
                    "log NC(H changed), oriented to the paper's direction, at the deepest features; verify.decision",
                    corrected=corrected)


@pytest.mark.claim("N-table1-wd")
def test_wd_feature_layers_matter_more(wd, verdict):
    assert len(wd["seeds"]) >= min_seeds(len(nc.WD_PRIMARY))
    _wd_check(wd, verdict)


@pytest.mark.claim("N-table1-wd", corrected=True)
def test_wd_zeroing_feature_layers_matters_more(wd, tmp_path_factory, verdict):
    """The corrected statement (nc.ZERO_WD_STATEMENT), tested only when the claim as stated is contradicted, on
    held-out seeds (nc.REPLICATION_SEED on), never on the run that suggested it."""
    if wd["decision"]["N-table1-wd"]["verdict"] != "contradicted":
        pytest.skip(f"N-table1-wd is {wd['decision']['N-table1-wd']['verdict']} at this scale: no corrected statement")
    _zero_check(nc.reproduce_wd_zero(tmp_path_factory.mktemp("wd_zero"), quick=True, device="cpu"), verdict)


def _zero_check(rep, verdict):
    assert rep["min_train_acc"] > 0.99
    assert min(rep["seeds"]) >= nc.REPLICATION_SEED and len(rep["seeds"]) >= min_seeds(len(nc.ZERO_WD_PRIMARY))
    record_decision(verdict, rep["decision"], rep["scale"], {"preset": rep["preset"], "seeds": rep["seeds"],
                                                             "statement": rep["corrected"]},
                    "emp: held-out replication (fresh seeds) of the four WD=0 comparisons of N-table1-wd; "
                    "verify.decision")


def _depth_check(res, verdict):
    evidence = dict(_common(res), scale_note="same runs as N-table1-wd")
    record_decision(verdict, res["decision"]["N-E2-depth"], res["scale"], evidence,
                    "emp: log NC at hidden layer depth-1 minus at depth (intermediate vs deepest), CE with bias, "
                    "baseline WD (Fig. 4(b) vs 4(c)); other settings and MSE descriptive; verify.decision")


@pytest.mark.claim("N-E2-depth")
def test_intermediate_features_less_collapsed(wd, verdict):
    _depth_check(wd, verdict)


def _interference_check(res, verdict):
    evidence = dict(_common(res), wd_baseline=res["wd_baseline"],
                    other_classes_NC1={st: v["other_classes_NC1"] for st, v in res["summary"].items()})
    record_decision(verdict, res["decision"], res["scale"], evidence,
                    "emp: CE+bias MLP, digits 4 and 9 blurred, last-layer WD in {base, base/10, 0}, unblurred control "
                    "at {base, 0}; per seed the interference contrast (blurred minus clean log ratio of the other "
                    "classes' mean per-class NC1); verify.decision")


@pytest.mark.claim("N-fig6-interference")
def test_last_layer_wd_shields_other_classes(interference, verdict):
    assert set(interference["decision"]["comparisons"]) == set(nc.INTERFERENCE_PRIMARY)
    _interference_check(interference, verdict)


# --------------------------------------------------------------------------- full presets
@pytest.mark.slow
@pytest.mark.claim("N-fig2-layerwise")
def test_layerwise_full(tmp_path_factory, verdict):
    _layerwise_check(_run(nc.reproduce_layerwise, tmp_path_factory, False), verdict)


@pytest.fixture(scope="module")
def wd_full(tmp_path_factory):
    return _run(nc.reproduce_wd, tmp_path_factory, False)


@pytest.mark.slow
@pytest.mark.claim("N-table1-wd")
def test_wd_full(wd_full, verdict):
    _wd_check(wd_full, verdict)


@pytest.mark.slow
@pytest.mark.claim("N-E2-depth")
def test_depth_full(wd_full, verdict):
    _depth_check(wd_full, verdict)


@pytest.mark.slow
@pytest.mark.claim("N-fig6-interference")
def test_interference_full(tmp_path_factory, verdict):
    _interference_check(_run(nc.reproduce_interference, tmp_path_factory, False), verdict)
