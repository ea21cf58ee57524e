r"""Data sets for the empirical checks of paper N (numpy only; torch is not needed here).

Paper N trains on CIFAR-10 and MNIST. Nothing can be downloaded where the checks run, so the
default data set is scikit-learn's bundled handwritten digits (1,797 real 8x8 images, 10 classes);
:func:`load_mnist` and :func:`load_cifar10` read the standard files from a local folder for users
who have them:

* MNIST: the idx files ``train-images-idx3-ubyte`` / ``train-labels-idx1-ubyte`` (and ``t10k-*``),
  optionally gzipped. An idx file is a big-endian header ``0x00 0x00 <type> <ndim>``, ``ndim``
  uint32 sizes, then the raw array (type ``0x08`` = uint8).
* CIFAR-10: the python pickles ``data_batch_1`` ... ``data_batch_5`` and ``test_batch`` of
  ``cifar-10-python.tar.gz`` (dict with ``b"data"``: N x 3072 uint8, ``b"labels"``).

Every loader returns ``(X, y, image_shape)``: ``X`` float32 of shape ``(N, features)`` scaled to
:math:`[0, 1]`, ``y`` int64 labels, and the ``(channels, height, width)`` of one image.

>>> X, y, shape = load_digits_data()
>>> X.shape, int(y.max()), shape
((1797, 64), 9, (1, 8, 8))
"""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._validate import VerifyInputError, verify_choice, verify_int

__all__ = ["load_digits_data", "load_mnist", "load_cifar10", "load_dataset", "read_idx",
           "balanced_subset", "blur_classes", "DATASETS"]

DATASETS = ("digits", "mnist", "cifar10")

_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def load_digits_data() -> tuple[np.ndarray, np.ndarray, tuple]:
    r"""scikit-learn's 8x8 digits, pixel values :math:`/16` so that :math:`X \in [0, 1]`."""
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return (bunch.data / 16.0).astype(np.float32), bunch.target.astype(np.int64), (1, 8, 8)


def read_idx(path: Any) -> np.ndarray:
    """Read one idx file (MNIST format; ``.gz`` is decompressed)."""
    path = Path(path)
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise VerifyInputError(f"Argument 'path' must be an idx file (magic 00 00 <type> <ndim>), not {str(path)!r}.")
    ndim = raw[3]
    dims = np.frombuffer(raw, dtype=">u4", count=ndim, offset=4).astype(int)
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    expected = 4 + 4 * ndim + int(np.prod(dims)) * dtype.itemsize
    if len(raw) != expected:
        raise VerifyInputError(f"idx file {str(path)!r} has {len(raw)} bytes; its header announces {expected}.")
    return np.frombuffer(raw, dtype=dtype, offset=4 + 4 * ndim).reshape(tuple(dims))


def _find(folder: Path, stem: str) -> Path:
    for name in (stem, stem + ".gz", stem.replace("-idx", ".idx"), stem.replace("-idx", ".idx") + ".gz"):
        if (folder / name).exists():
            return folder / name
    raise VerifyInputError(f"Argument 'folder' must contain {stem!r} (or .gz), not {str(folder)!r}.")


def load_mnist(folder: Any, train: bool = True) -> tuple[np.ndarray, np.ndarray, tuple]:
    """MNIST (or any idx data set laid out the same way) from ``folder``; pixels scaled by 1/255."""
    folder = Path(folder)
    prefix = "train" if train else "t10k"
    images = read_idx(_find(folder, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(_find(folder, f"{prefix}-labels-idx1-ubyte"))
    if images.ndim != 3 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
        raise VerifyInputError(f"MNIST files in {str(folder)!r} disagree: images {images.shape}, labels {labels.shape}.")
    X = (images.reshape(images.shape[0], -1) / 255.0).astype(np.float32)
    return X, labels.astype(np.int64), (1, images.shape[1], images.shape[2])


def load_cifar10(folder: Any, train: bool = True) -> tuple[np.ndarray, np.ndarray, tuple]:
    """CIFAR-10 python batches from ``folder`` (or its ``cifar-10-batches-py`` subfolder); pixels / 255."""
    folder = Path(folder)
    if (folder / "cifar-10-batches-py").is_dir():
        folder = folder / "cifar-10-batches-py"
    names = [f"data_batch_{i}" for i in range(1, 6)] if train else ["test_batch"]
    files = [folder / nm for nm in names if (folder / nm).exists()]
    if not files:
        raise VerifyInputError(f"Argument 'folder' must contain CIFAR-10 batches {names[0]!r}..., not {str(folder)!r}.")
    xs, ys = [], []
    for f in files:
        with open(f, "rb") as fh:
            batch = pickle.load(fh, encoding="bytes")
        xs.append(np.asarray(batch[b"data"], dtype=np.uint8))
        ys.append(np.asarray(batch[b"labels"], dtype=np.int64))
    X = np.concatenate(xs)
    if X.ndim != 2 or X.shape[1] != 3 * 32 * 32:
        raise VerifyInputError(f"CIFAR-10 batches must hold N x 3072 arrays, not {X.shape}.")
    return (X / 255.0).astype(np.float32), np.concatenate(ys), (3, 32, 32)


def load_dataset(name: str = "digits", root: Any = None, train: bool = True) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Dispatch on ``name`` in :data:`DATASETS`; ``root`` is the folder for MNIST / CIFAR-10."""
    verify_choice(name, "name", DATASETS)
    if name == "digits":
        return load_digits_data()
    if root is None:
        raise VerifyInputError(f"Argument 'root' must name a local folder holding {name}, not None.")
    return load_mnist(root, train) if name == "mnist" else load_cifar10(root, train)


def balanced_subset(y: Any, per_class: int, seed: int = 0) -> np.ndarray:
    """Indices of ``per_class`` samples of every class (sorted), drawn without replacement with ``seed``.

    The paper uses 3K / 5K samples per class of MNIST; balanced classes are what the NC metrics assume.
    """
    y = np.asarray(y)
    per_class = verify_int(per_class, "per_class", minimum=1)
    rng = np.random.default_rng(seed)
    idx = []
    for k in np.unique(y):
        members = np.flatnonzero(y == k)
        if members.size < per_class:
            raise VerifyInputError(
                f"Argument 'per_class' must be <= {members.size} (the size of class {int(k)}), not {per_class}.")
        idx.append(rng.choice(members, per_class, replace=False))
    return np.sort(np.concatenate(idx))


def blur_classes(X: Any, y: Any, classes: Iterable[int], image_shape: tuple, size: int) -> np.ndarray:
    r"""Copy of ``X`` whose samples of ``classes`` are degraded by a ``size x size`` uniform blur
    (paper N Fig. 6 blurs digits 4 and 9 of MNIST with a 9 x 9 kernel); channels are blurred separately."""
    from scipy.ndimage import uniform_filter

    size = verify_int(size, "size", minimum=1)
    X = np.array(X, dtype=np.float32, copy=True)
    y = np.asarray(y)
    mask = np.isin(y, list(classes))
    imgs = X[mask].reshape((-1, *image_shape))
    # blur only the two spatial axes; 'nearest' keeps the border intensity
    imgs = uniform_filter(imgs, size=(1, 1, size, size), mode="nearest")
    X[mask] = imgs.reshape(imgs.shape[0], -1)
    return X
