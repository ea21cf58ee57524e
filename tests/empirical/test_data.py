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
