"""Tests of the verify/numeric/frames/ package shape: one-way layers (no module imports a later layer), the old
module paths as re-export shims, and the ready-to-use exports of a loaded frame (numpy, scipy, torch), plus the
implicit Kerdock / DG operator against the materialised frame."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric.frames import operator as OP

PKG = Path(F.__file__).resolve().parent
#: the layers, bottom first (docs/architecture.md); a module may import only modules listed before it
LAYERS = ["delsarte_lp", "bounds", "field", "description", "constructions", "cert_wht", "cert_rank", "cert_codes",
          "operator", "fileformat", "catalogue", "theorem42"]


def _relative_imports(path: Path) -> set:
    """Package-internal modules a file imports (``from .x import``, function-level imports included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_every_module_has_a_layer():
    mods = {p.stem for p in PKG.glob("*.py")} - {"__init__"}
    assert mods == set(LAYERS)


@pytest.mark.parametrize("name", LAYERS)
def test_imports_run_one_way(name):
    imported = _relative_imports(PKG / f"{name}.py")
    assert imported <= set(LAYERS), imported - set(LAYERS)
    later = [m for m in imported if LAYERS.index(m) >= LAYERS.index(name)]
    assert not later, f"{name} imports {later}: an upward (or circular) import"
    # and no layer goes back through the old shims or the package face
    text = (PKG / f"{name}.py").read_text()
    for old in ("frame_codes", "frame_operator", "quadratic_certificate", "frame_lower_bound"):
        assert f"from ..{old}" not in text and f"numeric.{old}" not in text


def test_layer_check_can_fail(tmp_path):
    bad = tmp_path / "field.py"
    bad.write_text("from .catalogue import frame_table\n")
    assert _relative_imports(bad) == {"catalogue"}


@pytest.mark.parametrize("old", ["frame_codes", "frame_operator", "quadratic_certificate", "frame_lower_bound"])
def test_the_old_module_paths_are_retired(old):
    """The re-export shims of the move into verify/numeric/frames/ are gone: every importer uses the package."""
    assert importlib.util.find_spec(f"verify.numeric.{old}") is None


def test_face_reexports_the_old_frames_api():
    old_all = ["MAX_R", "field_of", "parity_table", "trace_mask", "fast_trace", "trace_form", "power_table",
               "fwht", "wht_rows", "sign_bits", "Frame", "build_frame", "build_general_frame", "general_parameters",
               "build_frame_reference", "character_sums", "Certificate", "certify", "certify_general",
               "welch_bound", "levenstein_bound", "weil_threshold_d", "gram_coherence", "random_frame",
               "save_frame", "load_frame", "certify_frame", "MAX_FRAME_BITS", "CHUNK_ELEMENTS", "FORMAT_VERSION"]
    for n in old_all:
        assert hasattr(F, n), n


# ----------------------------------------------------------------------------- exports of a loaded frame
def test_loaded_frame_exports_dense(tmp_path):
    fr = F.build_frame(3, 2)
    path = tmp_path / "f.npz"
    F.save_frame(fr, path, F.certify(3, 2))
    loaded = F.load_frame(path)
    frame, meta = loaded                       # still unpacks as before
    assert meta["certificate"]["max_abs_sum"] == 4 and not loaded.implicit
    V = loaded.as_array()
    assert V.shape == (8, 64) and np.array_equal(V, fr.dense())
    rng = np.random.default_rng(5)
    z, y = rng.standard_normal(64) * 3.5, rng.standard_normal(8) * 0.25  # non-unit scales
    op = loaded.as_linear_operator()           # matrix-free (ImplicitFrame) for the Lemma A.4 frame
    assert op.shape == (8, 64)
    # float64 WHT sums of 64 terms vs BLAS: 1e-12 absolute at these scales
    assert np.allclose(op.matvec(z), V @ z, atol=1e-12) and np.allclose(op.rmatvec(y), V.T @ y, atol=1e-12)
    Z = rng.standard_normal((64, 3))
    assert np.allclose(op.matmat(Z), V @ Z, atol=1e-12)
    # a file whose signs are not the construction's (one flipped): the operator must apply the stored signs
    odd = F.build_frame(3, 2)
    odd.signs = odd.signs.copy()
    odd.signs[2, 7] *= -1
    F.save_frame(odd, tmp_path / "odd.npz")
    oop = F.load_frame(tmp_path / "odd.npz").as_linear_operator()
    assert np.allclose(oop.matvec(z), odd.dense() @ z, atol=1e-12) and np.allclose(oop.rmatvec(y), odd.dense().T @ y,
                                                                                  atol=1e-12)
    assert not np.allclose(oop.matvec(z), V @ z, atol=1e-6)
    general = F.build_general_frame(12, 2)
    F.save_frame(general, tmp_path / "g.npz")
    gop = F.load_frame(tmp_path / "g.npz").as_linear_operator()  # dense route for general d (zero rows)
    zg = rng.standard_normal(144)
    assert np.allclose(gop.matvec(zg), general.dense() @ zg, atol=1e-12)


def test_loaded_frame_exports_torch(tmp_path):
    torch = pytest.importorskip("torch")
    fr = F.build_frame(4, 2)
    F.save_frame(fr, tmp_path / "f.npz")
    loaded = F.load_frame(tmp_path / "f.npz")
    T = loaded.as_torch(dtype=torch.float64)
    assert T.shape == (16, 256) and np.array_equal(T.numpy(), fr.dense())
    apply = loaded.as_torch(dtype=torch.float64, matrix_free=True)
    z = torch.randn(256, dtype=torch.float64, requires_grad=True)
    y = apply(z)
    assert apply.shape == (16, 256) and torch.allclose(y, T @ z, atol=1e-12)
    y.sum().backward()  # backward is V^T g
    assert torch.allclose(z.grad, T.T @ torch.ones(16, dtype=torch.float64), atol=1e-12)
    code = F.build_code_frame("kerdock", 4)
    F.save_frame(code, tmp_path / "k.npz")
    with pytest.raises(VerifyInputError, match="Argument 'matrix_free'"):
        F.load_frame(tmp_path / "k.npz").as_torch(matrix_free=True)
    if torch.cuda.is_available():  # pragma: no cover - only on a GPU machine
        Tc = loaded.as_torch(device="cuda", dtype=torch.float64)
        assert torch.equal(Tc.cpu(), T)
        assert torch.allclose(loaded.as_torch(device="cuda", dtype=torch.float64, matrix_free=True)(z.detach().cuda()).cpu(),
                              T @ z.detach(), atol=1e-12)


def test_loaded_implicit_exports(tmp_path):
    op = F.ImplicitFrame(4, 3)
    F.save_implicit(op, tmp_path / "i.npz", F.quadratic_certificate(4, 3))
    with pytest.raises(VerifyInputError, match="allow_implicit=True"):
        F.load_frame(tmp_path / "i.npz")
    loaded = F.load_frame(tmp_path / "i.npz", allow_implicit=True)
    assert loaded.implicit and loaded.meta["certificate"]["max_abs_sum"] == 16
    V = F.build_frame(4, 3).dense()
    assert np.array_equal(loaded.as_array(), V)
    z = np.random.default_rng(2).standard_normal(4096) * 7
    assert np.allclose(loaded.as_linear_operator().matvec(z), V @ z, atol=1e-10)  # 4096-term sums: 1e-10
    big = F.ImplicitFrame(10, 3)
    F.save_implicit(big, tmp_path / "big.npz")
    with pytest.raises(VerifyInputError, match="as_linear_operator"):
        F.load_frame(tmp_path / "big.npz", allow_implicit=True).as_array()


# ----------------------------------------------------------------------------- implicit Kerdock / DG operator
@pytest.mark.parametrize("cons,r,delta,n", [("kerdock", 4, None, None), ("dg", 6, 1, None), ("dg", 6, 2, 3000)])
def test_implicit_code_frame_equals_materialised(cons, r, delta, n):
    op = F.ImplicitCodeFrame(cons, r, delta, n_columns=n, chunk_elements=2 ** 9)  # several chunks
    if n is None:  # the whole frame, as build_code_frame materialises it
        V = F.build_code_frame(cons, r, delta).dense()
    else:          # DG(6, 2) has 2^21 columns (1 GiB dense): its first n, from the construction's sign bits
        V = (1 - 2 * F.code_sign_bits(cons, r, np.arange(n), delta).T.astype(float)) / 2 ** (r / 2)
    rng = np.random.default_rng(11)
    z, y = rng.standard_normal(op.n) * 2.5, rng.standard_normal(op.d) * 0.5
    assert np.array_equal(op.columns(np.arange(op.n)), V)
    # float64 sums of <= 2^17 terms of size ~1: 1e-9 absolute
    assert np.allclose(op.matvec(z), V @ z, atol=1e-9) and np.allclose(op.rmatvec(y), V.T @ y, atol=1e-9)


def test_implicit_code_file_roundtrip(tmp_path):
    op = F.ImplicitCodeFrame("dg", 6, 1)
    path = tmp_path / "dg.npz"
    meta = F.save_implicit(op, path, F.code_certificate("dg", 6, 1))
    back, meta2 = F.load_implicit(path)
    assert isinstance(back, OP.ImplicitCodeFrame) and back.parameters() == op.parameters() and meta2 == meta
    assert meta["construction"] == "dg" and "K_u" in meta["entry"]
    with pytest.raises(VerifyInputError, match="Argument 'r'"):
        F.ImplicitCodeFrame("dg", 16, 1)


@pytest.mark.parametrize("make", [
    lambda: OP.ImplicitFrame(5, 2),
    lambda: OP.ImplicitFrame(4, 3, 100, irreducible_poly=0b11001),
    lambda: OP.ImplicitCodeFrame("kerdock", 4),
    lambda: OP.ImplicitCodeFrame("kerdock", 6, irreducible_poly=0b111101),
    lambda: OP.ImplicitCodeFrame("dg", 6, 1),
    lambda: OP.ImplicitCodeFrame("dg", 6, 2),                       # delta >= 2: read back, not taken as 1
    lambda: OP.ImplicitCodeFrame("dg", 8, 3, n_columns=5000, irreducible_poly=0b11100101),
], ids=["bch", "bch-poly-partial", "kerdock", "kerdock-poly", "dg1", "dg2", "dg3-poly-partial"])
def test_every_implicit_frame_round_trips_through_its_file(tmp_path, make):
    """Every parameter of every implicit construction (delta, the modulus, a partial column count) is read back:
    the same parameters, the same columns and products."""
    op = make()
    path = tmp_path / "f.npz"
    meta = F.save_implicit(op, path)
    back, meta2 = F.load_implicit(path)
    assert type(back) is type(op) and back.parameters() == op.parameters() and meta2 == meta
    rng = np.random.default_rng(op.n)
    cols = rng.integers(0, op.n, size=7)
    np.testing.assert_array_equal(back.columns(cols), op.columns(cols))
    z = rng.standard_normal(op.n) if op.n <= 1 << 16 else None
    if z is not None:
        np.testing.assert_array_equal(back.matvec(z), op.matvec(z))


@pytest.mark.parametrize("implicit", [False, True])
def test_matrix_free_torch_frame_computes_in_the_dtype_asked_whatever_the_input(tmp_path, implicit):
    """``as_torch(dtype=..., matrix_free=True)``: z of another dtype is converted, so V z comes back in the dtype
    asked (float32 by default), for a materialised file and an implicit one, both ways round."""
    torch = pytest.importorskip("torch")
    path = tmp_path / "f.npz"
    if implicit:
        F.save_implicit(OP.ImplicitFrame(4, 2), path)
    else:
        F.save_frame(F.build_frame(4, 2), path)
    loaded = F.load_frame(path, allow_implicit=True)
    V = torch.as_tensor(F.build_frame(4, 2).dense(), dtype=torch.float64)
    z64 = torch.randn(256, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    for asked, given in [(None, torch.float64), (torch.float32, torch.float64), (torch.float64, torch.float32)]:
        y = loaded.as_torch(dtype=asked, matrix_free=True)(z64.to(given))
        want = asked or torch.float32
        assert y.dtype == want, (asked, given)
        torch.testing.assert_close(y.to(torch.float64), V @ z64.to(given).to(torch.float64), rtol=0,
                                   atol=1e-5 if torch.float32 in (want, given) else 1e-12)
