"""verify/empirical/neural_collapse.py: the batched MLP against torch.nn, weight decay, metrics plumbing."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]")

from verify.empirical import neural_collapse as nc  # noqa: E402


def _as_nn(net, j):
    """Model j of a BatchedMLP as a torch.nn.Sequential with the same weights (eval mode)."""
    layers = []
    for L in net.hidden:
        lin = torch.nn.Linear(*L["W"].shape[1:])
        lin.weight.data = L["W"][j].detach().T.clone()
        lin.bias.data = L["b"][j].detach().clone()
        bn = torch.nn.BatchNorm1d(L["W"].shape[2])
        bn.weight.data, bn.bias.data = L["gamma"][j].detach().clone(), L["beta"][j].detach().clone()
        bn.running_mean, bn.running_var = L["rm"][j].clone(), L["rv"][j].clone()
        layers += [lin, bn, torch.nn.ReLU()]
    out = torch.nn.Linear(*net.W.shape[1:], bias=net.b is not None)
    out.weight.data = net.W[j].detach().T.clone()
    if net.b is not None:
        out.bias.data = net.b[j].detach().clone()
    return torch.nn.Sequential(*layers, out)


def test_batched_mlp_matches_nn_and_is_seeded():
    X = torch.randn(32, 6, generator=torch.Generator().manual_seed(0))
    y = torch.arange(32) % 3
    net = nc.BatchedMLP(3, 6, [5, 4], 3, seeds=[0, 1, 0], bias_last=False)
    assert torch.equal(net.W[0], net.W[2]) and not torch.equal(net.W[0], net.W[1])
    nc.train_batched(net, X, y, [(p, None) for p in net.feature_params() + net.last_params()], epochs=3,
                     batch=8, lr=0.01, loss="mse", optimizer="adam")
    _, logits = net(X, train=False)
    for j in range(3):
        ref = _as_nn(net, j).eval()(X)
        assert torch.allclose(logits[j], ref, atol=1e-5)  # float32 round-off of the same operations
    # same seed, same data order, same settings -> identical models
    assert torch.allclose(logits[0], logits[2])


def test_train_mode_batchnorm_matches_nn():
    X = torch.randn(16, 4, generator=torch.Generator().manual_seed(1))
    net = nc.BatchedMLP(1, 4, [3], 2, seeds=[7])
    model = _as_nn(net, 0).train()
    ref = model(X)
    _, logits = net(X, train=True)
    assert torch.allclose(logits[0], ref, atol=1e-5)
    assert torch.allclose(net.hidden[0]["rv"][0], model[1].running_var, atol=1e-6)


def test_weight_decay_is_coupled_l2_per_model():
    # one step of SGD(momentum 0.9, weight_decay) on the classifier, compared with torch.optim.SGD itself
    X = torch.zeros(4, 3)
    y = torch.tensor([0, 1, 0, 1])
    net = nc.BatchedMLP(2, 3, [2], 2, seeds=[0, 0], bias_last=False)
    W0 = net.W.detach().clone()
    wd = torch.tensor([0.1, 0.0])
    nc.train_batched(net, X, y, [(net.W, wd)], epochs=1, batch=4, lr=0.5, loss="mse", milestones=())
    ref = torch.nn.Parameter(W0[0].clone())
    opt = torch.optim.SGD([ref], lr=0.5, momentum=0.9, weight_decay=0.1)
    h, _ = nc.BatchedMLP.__call__(nc.BatchedMLP(1, 3, [2], 2, seeds=[0], bias_last=False), X, train=True)
    loss = 0.5 * ((h[-1][0] @ ref - torch.nn.functional.one_hot(y, 2).float()) ** 2).sum() / 4
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert torch.allclose(net.W[0], ref.detach(), atol=1e-6)
    assert not torch.allclose(net.W[0], net.W[1])  # the model without decay moved differently


def test_wd_scale_matches_paper_total():
    s = nc.wd_scale(100, 195, 0.05, milestones=(0.4, 0.8))
    assert s == pytest.approx(1.0, rel=0.01)  # the paper's own run: 195 steps/epoch (50000 // 256 = 195)


def test_features_metrics_and_comparisons():
    X = torch.randn(60, 5, generator=torch.Generator().manual_seed(2))
    y = torch.arange(60) % 3
    net = nc.BatchedMLP(2, 5, [8, 8], 3, seeds=[0, 1])
    mets = nc.features_metrics(net, X, y, layers=(0, 1))
    assert len(mets) == 2 and [m["layer"] for m in mets[0]] == [1, 2]
    assert "NC3" in mets[0][1] and "NC3" not in mets[0][0]
    assert math.isclose(np.mean(mets[0][1]["NC1_per_class"]), mets[0][1]["NC1"], rel_tol=1e-9)
    fake = {"mse": {st: [[{"NC1": 1.0, "NC2": 1.0}, {"NC1": 1.0 + dv, "NC2": 1.0}] for dv in (0.0, 0.0)]
                    for st in ("baseline", "WDx2 for W", "WDx2 for H", "WD=0 for W", "WD=0 for H")}}
    mid = {"NC1": 3.0, "NC2": 3.0}  # the intermediate layer's metrics
    fake["mse"]["WDx2 for H"] = [[mid, {"NC1": 1.5, "NC2": 1.2}], [mid, {"NC1": 1.4, "NC2": 1.3}]]
    fake["mse"]["WDx2 for W"] = [[mid, {"NC1": 1.1, "NC2": 1.1}], [mid, {"NC1": 1.1, "NC2": 1.1}]]
    comp = nc.wd_comparisons(fake)
    # doubling the feature layers' WD *raised* NC1 (1.5, 1.4) more than doubling the last layer's (1.1): the
    # paper says it lowers it, so the signed effect is negative (an absolute deviation would call it support)
    assert comp["mse/NC1/x2"] == pytest.approx([math.log(1.1 / 1.5), math.log(1.1 / 1.4)])
    assert comp["mse/NC1/zero"] == pytest.approx([0.0, 0.0])  # the same NC1 with either WD zeroed
    assert set(comp) == {f"mse/{m}/{k}" for m in ("NC1", "NC2") for k in ("x2", "zero")}
    depth = nc.depth_comparison(fake)
    assert depth["mse/WDx2 for H/NC1"] == pytest.approx([math.log(3 / 1.5), math.log(3 / 1.4)])


def test_interference_effects_use_the_clean_control():
    """Fig. 6: the primary effect is the blurred minus the clean log ratio; the raw blurred effect is descriptive."""
    o = {"original": [1.0, 1.0], "original, WD_W = 0": [2.0, 3.0], "WD_W = base": [1.0, 1.0],
         "WD_W = base/10": [1.5, 1.5], "WD_W = 0": [2.0, 3.3]}
    primary, desc = nc.interference_effects({k: {"other_classes_NC1": v} for k, v in o.items()})
    assert list(primary) == list(nc.INTERFERENCE_PRIMARY)
    assert primary[nc.INTERFERENCE_PRIMARY[0]] == pytest.approx([0.0, math.log(1.1)])
    assert desc["blurred: WD_W = 0 vs base"] == pytest.approx([math.log(2.0), math.log(3.3)])


def test_presets_have_the_seeds_the_rule_needs():
    from verify.decision import min_seeds

    for presets, k in ((nc.LAYERWISE_PRESETS, len(nc.LAYERWISE_PRIMARY)), (nc.WD_PRESETS, len(nc.WD_PRIMARY)),
                       (nc.WD_PRESETS, len(nc.DEPTH_PRIMARY)),
                       (nc.INTERFERENCE_PRESETS, len(nc.INTERFERENCE_PRIMARY))):
        assert presets["quick"]["n_seeds"] >= min_seeds(k)
        assert presets["full"]["n_seeds"] >= max(5, min_seeds(k))
    assert len(nc.WD_PRIMARY) == 8 and len(set(nc.WD_PRIMARY)) == 8


def test_scale_words():
    cfg = dict(nc.LAYERWISE_PRESETS["full"])
    assert nc.layerwise_scale(cfg, "digits").startswith("reduced: sklearn digits 8x8 for CIFAR-10; width 192 for 3072")
    assert nc.layerwise_scale(dict(cfg, width=3072, epochs=3), "cifar10") == "paper"
    assert "ResNet18" in nc.wd_scale_text(nc.WD_PRESETS["quick"], "mnist", 14, 1e-3)


def test_tiny_reproductions_write_outputs(tmp_path):
    small = {"epochs": 2, "n_seeds": 2, "width": 16}
    r = nc.reproduce_layerwise(tmp_path, quick=True, device="cpu", preset=dict(small, layers=2))
    assert len(r["NC1"]["values"][0]) == 2 and (tmp_path / "nc_layerwise.png").exists()
    # two seeds cannot decide anything under the rule: inconclusive, and the reason says so
    assert r["decision"]["verdict"] == "inconclusive" and "underpowered" in r["decision"]["reason"]
    assert r["scale"].startswith("reduced: ")
    r = nc.reproduce_wd(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert set(r["comparisons"]) == set(nc.WD_PRIMARY)
    assert set(r["decision"]) == {"N-table1-wd", "N-E2-depth"}
    assert set(r["decision"]["N-E2-depth"]["comparisons"]) == set(nc.DEPTH_PRIMARY)
    assert len(r["decision"]["N-E2-depth"]["descriptive"]) == 18  # 2 losses x 5 settings x 2 metrics, less 2
    r = nc.reproduce_wd_zero(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert set(r["decision"]["comparisons"]) == set(nc.ZERO_WD_PRIMARY) and r["seeds"] == [1000, 1001]
    r = nc.reproduce_interference(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert (tmp_path / "nc_interference.json").exists() and len(r["summary"]) == 5
    assert r["decision"]["comparisons"][nc.INTERFERENCE_PRIMARY[0]]["effects"] == pytest.approx(
        nc.interference_effects(r["summary"])[0][nc.INTERFERENCE_PRIMARY[0]])
