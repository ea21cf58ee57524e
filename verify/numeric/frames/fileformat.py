r"""Layer 6 of :mod:`verify.numeric.frames`: the file format. ``save_frame`` / ``load_frame`` (the packed
signs), ``save_implicit`` / ``load_implicit`` (parameters only), the sha256 digest and the format versions.

Version 2 (current): canonical JSON metadata and digest. Version 1 (verify 0.1.0), whose digest was over
``json.dumps(meta, sort_keys=True)`` with int histogram keys, still loads when its checksum verifies under
that rule. :func:`load_frame` returns a :class:`LoadedFrame`, which unpacks as ``(frame, meta)`` and
exports the frame as a numpy array, a scipy ``LinearOperator`` or a torch tensor / function.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
from typing import Any, NamedTuple

import numpy as np

from ..._io import atomic_write, canonical_json, check_output_path
from ..._validate import (VerifyInputError, verify_float_dtype, verify_int, verify_json_object,
                          verify_torch_device)
from .constructions import build_frame
from .description import MAX_FRAME_BITS, Frame
from .field import MAX_R
from .operator import ImplicitCodeFrame, ImplicitFrame

__all__ = ["FORMAT_VERSION", "save_frame", "load_frame", "save_implicit", "load_implicit", "is_implicit_file",
           "LoadedFrame"]

#: 2: canonical JSON metadata and digest (version 1 files, whose digest was over non-canonical JSON,
#: still load when their checksum verifies under the old rule)
FORMAT_VERSION = 2


def _digest(bits: np.ndarray, meta: dict) -> str:
    """sha256 over the canonical JSON of the metadata (without the checksum) and the packed bits.

    The canonical text (:func:`verify._io.canonical_json`) is the same before saving and after loading,
    so integer histogram keys, which come back from JSON as strings, digest alike."""
    h = hashlib.sha256()
    h.update(canonical_json({k: v for k, v in meta.items() if k != "checksum"}).encode())
    h.update(np.ascontiguousarray(bits).tobytes())
    return h.hexdigest()


def _legacy_digest(bits: np.ndarray, meta: dict) -> str:
    """The digest of format version 1 (verify 0.1.0): ``json.dumps(meta, sort_keys=True)`` taken while the
    certificate's histogram keys were still ints. Restoring int keys reproduces that text exactly."""
    meta = {k: v for k, v in meta.items() if k != "checksum"}
    cert = meta.get("certificate")
    if isinstance(cert, dict) and isinstance(cert.get("histogram"), dict):
        try:
            hist = {int(k): v for k, v in cert["histogram"].items()}
        except ValueError:
            hist = cert["histogram"]
        meta["certificate"] = {**cert, "histogram": hist}
    h = hashlib.sha256()
    h.update(json.dumps(meta, sort_keys=True).encode())
    h.update(np.ascontiguousarray(bits).tobytes())
    return h.hexdigest()


def save_frame(frame: Frame, path: str | os.PathLike, certificate=None,
               user: dict | None = None) -> dict:
    r"""Write ``frame`` to ``path`` (``.npz``, loadable with plain ``numpy.load``), atomically:

    * ``bits``: uint8, ``numpy.packbits`` of the sign bits along axis 1 (shape ``(2**r, ceil(N/8))``),
      entry = scale * (1 - 2 * bit), zero rows below row ``2**r`` up to ``d``;
    * ``scale``: float64; ``shape``: int64 ``[d, N]``; ``meta``: canonical JSON string (r, m, polynomial,
      column order, certificate, package version, sha256 checksum of bits and metadata).

    ``user``: the caller's own JSON metadata (stored under ``meta["user"]``, covered by the checksum).
    Returns the metadata as :func:`load_frame` will return it (string keys throughout).
    """
    from ..._version import __version__ as pkg_version

    # every argument before any byte is written (a missing folder is named, never the temporary .part file)
    if not isinstance(frame, Frame):
        raise VerifyInputError(f"Argument 'frame' must be a Frame (from build_frame, build_general_frame, "
                               f"build_code_frame or load_frame), not {type(frame).__name__}.")
    if not isinstance(path, (str, os.PathLike)):
        raise VerifyInputError(f"Argument 'path' must be a file path (str or os.PathLike), not {type(path).__name__}.")
    check_output_path(path, "path")
    if user is not None:
        verify_json_object(user, "user")
    if certificate is not None and not callable(getattr(certificate, "as_dict", None)):
        raise VerifyInputError(f"Argument 'certificate' must be a certificate (from certify, certify_general or "
                               f"code_certificate) or None, not {type(certificate).__name__}.")
    bits = np.packbits((frame.signs < 0).view(np.uint8), axis=1)
    meta = {"format_version": FORMAT_VERSION, **frame.metadata()}
    meta["package_version"] = pkg_version
    if certificate is not None:
        # no timing in the file: the same build must give the same bytes
        meta["certificate"] = {k: v for k, v in certificate.as_dict().items() if k != "seconds"}
    if user is not None:
        meta["user"] = user
    meta = json.loads(canonical_json(meta))
    meta["checksum"] = _digest(bits, meta)
    with atomic_write(path) as fh:
        np.savez(fh, bits=bits, scale=np.float64(frame.scale), shape=np.array([frame.n_rows, frame.n_columns], dtype=np.int64),
                 meta=np.array(canonical_json(meta)))
    return meta


def _bad_file(path, why: str) -> VerifyInputError:
    return VerifyInputError(f"Argument 'path' must be a frame file written by 'verify frame build'; {path}: {why}.")


def load_frame(path: str | os.PathLike, allow_implicit: bool = False, dtype=np.float64) -> "LoadedFrame":
    """Read a frame file; returns a :class:`LoadedFrame` (unpacks as ``(Frame, meta)``). Refuses files whose
    checksum or shape is wrong. ``allow_implicit``: also open parameter-only files (``--implicit``); their
    ``frame`` is then an :class:`~verify.numeric.frames.operator.ImplicitFrame` (``dtype``: its working dtype)."""
    if allow_implicit and is_implicit_file(path):
        return LoadedFrame(*load_implicit(path, dtype=dtype))
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in ("bits", "scale", "shape", "meta")}
    except KeyError as exc:
        if is_implicit_file(path):
            raise _bad_file(path, "parameters only (--implicit); open it with load_frame(path, allow_implicit=True) "
                                  "or verify.numeric.frames.load_implicit") from None
        raise _bad_file(path, f"missing array {exc}") from None
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as exc:  # a truncated file is a bad zip
        if isinstance(exc, FileNotFoundError):
            raise
        raise _bad_file(path, f"not a readable .npz ({type(exc).__name__})") from None
    try:
        meta = json.loads(str(arrays["meta"]))
        r, m, D, N = (int(meta[k]) for k in ("r", "m", "d", "n_columns"))
        poly = int(meta["irreducible_poly"])
    except (ValueError, KeyError, TypeError):
        raise _bad_file(path, "metadata unreadable") from None
    bits = arrays["bits"]
    if not isinstance(meta, dict) or _digest(bits, meta) != meta.get("checksum"):
        legacy = isinstance(meta, dict) and meta.get("format_version") == 1
        if not (legacy and _legacy_digest(bits, meta) == meta.get("checksum")):
            hint = (" - if it was written by verify 0.1.0, rebuild it with 'verify frame build' "
                    f"--d {meta.get('d')} --m {meta.get('m_paper') or meta.get('m')}"
                    + (" --general" if meta.get("general") else "") if legacy else "")
            raise _bad_file(path, "checksum mismatch (corrupt or modified)" + hint)
    want = (2 ** r, (N + 7) // 8)
    if bits.dtype != np.uint8 or bits.shape != want or list(arrays["shape"]) != [D, N] or D < 2 ** r:
        raise _bad_file(path, f"wrong shape: bits {bits.shape}, shape {arrays['shape'].tolist()}, expected bits {want}")
    if not math.isclose(float(arrays["scale"]), 1 / math.sqrt(2 ** r), rel_tol=1e-15):
        raise _bad_file(path, "wrong scale")
    signs = 1 - 2 * np.unpackbits(bits, axis=1, count=N).view(np.int8)
    frame = Frame(r=r, m=m, n_rows=D, n_columns=N, signs=signs, irreducible_poly=poly,
                  general=bool(meta.get("general")), m_paper=meta.get("m_paper"),
                  construction=meta.get("construction", "bch"), delta=meta.get("delta"))
    return LoadedFrame(frame, meta)



# --------------------------------------------------------------------------- parameter-only files
def save_implicit(op: ImplicitFrame, path: str | os.PathLike, certificate=None) -> dict:
    r"""Write only the parameters (and the certificate) of an implicit frame: an ``.npz`` with ``meta``
    (canonical JSON, ``"implicit": true``, sha256 checksum), ``scale`` and ``shape``, no bits. Plain
    ``numpy.load`` reads it; :func:`load_implicit` rebuilds the operator."""
    from ..._version import __version__ as pkg_version

    meta = {"format_version": FORMAT_VERSION, "implicit": True, "construction": "bch", **op.parameters(),
            "field_rows": op.d, "general": False, "m_paper": None if isinstance(op, ImplicitCodeFrame) else op.m,
            "package_version": pkg_version,
            "column_order": "column n <-> (a_0..a_{m-1}), a_j = (n >> (r*j)) & (2^r - 1); a_0 least significant",
            "entry": "V[x, n] = scale * (-1)^tr(sum_j a_j x^(2j+1)) (galois integer representation, polynomial basis)",
            "scale": op.scale}
    if isinstance(op, ImplicitCodeFrame):  # the code frames' own conventions (as in Frame.metadata)
        mp = op.mp
        meta["column_order"] = (f"column n <-> (u, c_1..c_delta, b): b = n & (2^r - 1), code = n >> r, u = code & "
                                f"(2^{mp} - 1), c_j = (code >> ({mp}*j)) & (2^{mp} - 1)")
        meta["entry"] = ("V[v, n] = scale * (-1)^(K_u(x, eps) + sum_j tr(c_j x^(2^j+1)) + <b, v>), v = x | (eps << "
                         f"{mp}), K_u = sum_(k=1..t) tr((u x)^(2^k+1)) + eps tr(u x), x in GF(2^{mp})")
    if certificate is not None:
        meta["certificate"] = {k: v for k, v in certificate.as_dict().items() if k != "seconds"}
    meta = json.loads(canonical_json(meta))
    meta["checksum"] = _digest(np.zeros(0, dtype=np.uint8), meta)
    with atomic_write(path) as fh:
        np.savez(fh, scale=np.float64(op.scale), shape=np.array([op.d, op.n], dtype=np.int64),
                 meta=np.array(canonical_json(meta)))
    return meta


def is_implicit_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a parameter-only frame file written by :func:`save_implicit`."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return "bits" not in z.files and "meta" in z.files and bool(json.loads(str(z["meta"])).get("implicit"))
    except Exception:  # noqa: BLE001 - anything unreadable is simply not an implicit file
        return False


def load_implicit(path: str | os.PathLike, dtype=np.float64) -> tuple[ImplicitFrame, dict]:
    """Read a parameter-only frame file; returns ``(ImplicitFrame, meta)``. Refuses a bad checksum."""
    if not is_implicit_file(path):
        raise _bad_file(path, "not a parameter-only (implicit) frame file")
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
    if _digest(np.zeros(0, dtype=np.uint8), meta) != meta.get("checksum"):
        raise _bad_file(path, "checksum mismatch (corrupt or modified)")
    r = verify_int(int(meta["r"]), "r", minimum=1, maximum=MAX_R)
    if meta.get("construction", "bch") != "bch":
        return ImplicitCodeFrame(meta["construction"], r, meta.get("delta") or None, int(meta["n_columns"]),
                                 int(meta["irreducible_poly"]), dtype=dtype), meta
    return ImplicitFrame(r, int(meta["m"]), int(meta["n_columns"]), int(meta["irreducible_poly"]), dtype=dtype), meta


class LoadedFrame(NamedTuple):
    r"""What :func:`load_frame` returns: ``frame`` (a :class:`Frame`, or an :class:`ImplicitFrame` for a
    parameter-only file) and ``meta`` (the file's metadata, certificate included). Unpacks as ``(frame, meta)``.

    Bit packing of the dense file: ``bits = numpy.packbits(sign < 0, axis=1)`` (row x = field element x, column
    n = tuple :math:`a_j = (n \gg rj) \& (d-1)`), entry ``scale * (1 - 2 * bit)``, zero rows below :math:`2^r`.
    """

    frame: Any
    meta: dict

    @property
    def implicit(self) -> bool:
        return isinstance(self.frame, ImplicitFrame)

    def as_array(self, dtype=np.float64) -> np.ndarray:
        """The dense d x N matrix V (an implicit frame is materialised column by column: only if it fits);
        ``dtype`` float64 or float32."""
        dtype = verify_float_dtype(dtype, "dtype")
        if not self.implicit:
            return self.frame.as_array(dtype)
        op = self.frame
        if op.d * op.n > MAX_FRAME_BITS:
            raise VerifyInputError(f"Argument 'frame' is a {op.d} x {op.n} implicit frame, more than {MAX_FRAME_BITS} "
                                   "entries; use as_linear_operator() or as_torch() (matrix-free) instead.")
        return op.columns(np.arange(op.n)).astype(dtype, copy=False)

    def _implicit_twin(self, dtype=np.float64):
        """The matrix-free operator of a dense Lemma A.4 file, only if its signs are exactly the construction's
        (a file may hold any signs: the fast route must compute the same matrix); ``None`` otherwise."""
        fr = self.frame
        if fr.construction != "bch" or fr.general:
            return None
        expect = build_frame(fr.r, fr.m, n_columns=fr.n_columns, irreducible_poly=fr.irreducible_poly)
        if not np.array_equal(expect.signs, fr.signs):
            return None
        return ImplicitFrame(fr.r, fr.m, fr.n_columns, fr.irreducible_poly, dtype=dtype)

    def as_linear_operator(self, dtype=None):
        r"""V as a :class:`scipy.sparse.linalg.LinearOperator`: matrix-free :math:`O(N \log d)` for the Lemma A.4
        frames (implicit files, and dense files whose signs are the construction's, checked), otherwise the
        stored signs applied in column blocks (float64 unless ``dtype``)."""
        if self.implicit:
            return self.frame.as_linear_operator()
        twin = self._implicit_twin(dtype or np.float64)
        if twin is not None:
            return twin.as_linear_operator()
        from scipy.sparse.linalg import LinearOperator

        fr, dt = self.frame, np.dtype(dtype or np.float64)
        rows, block = 2 ** fr.r, max(1, 2 ** 22 // 2 ** fr.r)  # 4 Mi entries of signs converted at a time

        def mv(z):
            Z = np.asarray(z, dtype=dt).reshape(fr.n_columns, -1)
            out = np.zeros((fr.n_rows, Z.shape[1]), dtype=dt)
            for s in range(0, fr.n_columns, block):
                out[:rows] += fr.signs[:, s:s + block].astype(dt) @ Z[s:s + block]
            return out * fr.scale

        def rmv(y):
            Y = np.asarray(y, dtype=dt).reshape(fr.n_rows, -1)[:rows]
            out = np.empty((fr.n_columns, Y.shape[1]), dtype=dt)
            for s in range(0, fr.n_columns, block):
                out[s:s + block] = fr.signs[:, s:s + block].astype(dt).T @ Y
            return out * fr.scale

        return LinearOperator((fr.n_rows, fr.n_columns), matvec=mv, rmatvec=rmv, matmat=mv, rmatmat=rmv, dtype=dt)

    def as_torch(self, device=None, dtype=None, matrix_free: bool | None = None):
        r"""V in torch on ``device`` (``"cpu"``, ``"cuda"``, ...). ``matrix_free`` (default: True for implicit
        files): a differentiable function ``z -> V z`` for z of shape ``(N,)`` or ``(N, k)`` (backward
        :math:`V^T g`), else the dense ``(d, N)`` tensor (float32 unless ``dtype``)."""
        import torch

        device = verify_torch_device(device, "device")
        if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            raise VerifyInputError(f"Argument 'dtype' must be a torch floating dtype (torch.float32, torch.float64) "
                                   f"or None, not {dtype!r}.")
        if matrix_free is not None and not isinstance(matrix_free, bool):
            raise VerifyInputError(f"Argument 'matrix_free' must be True, False or None, not {matrix_free!r}.")
        dtype = dtype or torch.float32
        if matrix_free is None:
            matrix_free = self.implicit
        if not matrix_free:
            return torch.as_tensor(self.as_array(np.float64), dtype=dtype, device=device)
        from .operator import frame_matvec_torch

        fr = self.frame
        if not self.implicit:
            fr = self._implicit_twin()
            if fr is None:
                raise VerifyInputError("Argument 'matrix_free' must be False for kerdock / dg / general-d frames and "
                                       f"for signs that are not the construction's, not True ({self.frame.construction}).")

        def apply(z):
            return frame_matvec_torch(fr, z.to(device=device, dtype=dtype))
        apply.shape = (fr.d, fr.n)
        return apply
