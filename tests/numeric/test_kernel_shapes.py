"""Every vector target's shapes of the exact-loss kernels (verify/numeric/_tensor_kernels.py), on this host.

The kernels keep eight features per row in memory and work on them ``lanes`` at a time (8 on AVX-512, 4 on AVX2, 2
elsewhere) in register blocks sized for the target (the accumulation's tiles of G rows x T tail entries, the
contraction's rows per pass). Every lane sees the same operations in the same order whatever the shape, so the
floats must agree bit for bit across shapes; and they must be right: equal to exact rationals where every product
and sum is exact in float64 (dyadic entries), and to the numpy route to 1e-13 relative on random data.

* In process: the accumulation with each target's tile tables (all 30 tile shapes are compiled into the dispatch on
  every host) and each target's row groups of ``accumulate``.
* In subprocesses: the whole route compiled for Haswell's own features (AVX2: ``NUMBA_CPU_NAME=haswell`` with
  ``NUMBA_CPU_FEATURES=""``; the name alone keeps the host's AVX-512) and for a generic x86-64 (SSE2), whose
  contraction and gradient use 4 and 2 lanes: the same bytes as this host's.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import verify.numeric._tensor_kernels as TK
import verify.numeric.power_sums as PS

pytestmark = pytest.mark.skipif(not TK.AVAILABLE, reason="numba not installed: the kernels do not exist")

ROOT = Path(__file__).resolve().parents[2]


def _dyadic(rng, shape, den):
    """Entries k / den, |k| <= 6, den a power of two: every monomial up to degree 10 and every sum of a few hundred
    of them is exact in float64, so a kernel that adds the right terms returns the exact rationals."""
    return rng.integers(-6, 7, size=shape) / den


def _standard(out, lay):
    """A block-layout result of ``_accumulate_blocked`` in the standard layout (degrees 2, 4, .., 2m)."""
    S = np.empty(len(lay.weights) + 1)
    S[lay.pos] = out
    return S[:-1]


def _same(a, b) -> bool:
    """Equal nested tuples of arrays and numbers (a layout's fields), arrays compared entry by entry."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _exact_S(W, cw, m, den=8, cden=4):
    r""":math:`S_{2k} = \sum_j c_k(j) w_j^{\otimes 2k}` in exact rationals (``cw`` None: weights 1), standard layout,
    for W = integers / ``den`` and cw = integers / ``cden``: the integer sums (int64, far from overflow at these
    sizes) over :math:`den^{2k}\,cden`."""
    X = np.rint(W.T * den).astype(np.int64)
    assert np.array_equal(X / den, W.T)
    phis = PS.monomials(X, 2 * m)
    out = []
    for k in range(1, m + 1):
        if cw is None:
            c, scale = np.ones(W.shape[1], dtype=np.int64), den ** (2 * k)
        else:
            c, scale = np.rint(cw[k - 1] * cden).astype(np.int64), den ** (2 * k) * cden
        assert np.abs(phis[2 * k]).max() * np.abs(c).max() * W.shape[1] < 2 ** 62
        out.extend(Fraction(int(v), scale) for v in (phis[2 * k] * c[:, None]).sum(0))
    return out


def test_every_shape_is_compiled_and_each_target_tiles_with_its_own():
    """SHAPES lists each target's (lanes, G, T) once; a target's tiles fit its registers (G T accumulators, T tail
    vectors, one row: 32 on AVX-512, 16 elsewhere); the tile tables of each target use only its own shapes and
    cover every coefficient exactly once (d = 10, m = 3: the layout the loss runs)."""
    assert len(SHAPES_SET := set(TK.SHAPES)) == len(TK.SHAPES) == 30
    for name, t in TK.TARGETS.items():
        assert t.lanes * 64 == {"avx512": 512, "avx2": 256, "generic": 128}[name]
        assert max(t.tile_g) * max(t.tile_t) + max(t.tile_t) + 1 <= t.registers
        tiles, _ = PS._accumulate_tiles(10, 3, target=name)
        used = {TK.SHAPES[s] for s in tiles[:, 0].tolist()}
        assert used <= SHAPES_SET and {lanes for lanes, _, _ in used} == {t.lanes}
        assert (t.lanes, max(t.tile_g), max(t.tile_t)) in used                  # the large tile does the work
        lay = PS._kernel_layout(10, 3, name)
        cover = []
        for shape, _t0, *cols in tiles.tolist():
            _, G, T = TK.SHAPES[shape]
            cover += [dst + j for dst in cols[8:8 + G] for j in range(T)]
        assert sorted(cover) == sorted(np.flatnonzero(lay.pos >= 0).tolist())
    with pytest.raises(ValueError, match="target"):
        PS._accumulate_tiles(10, 3, target="avx1024")


@pytest.mark.parametrize("d,m", [(10, 3), (5, 3), (3, 4), (4, 5), (10, 5)])
def test_the_layout_carries_the_asked_targets_tiles_and_row_groups(d, m):
    """``_kernel_layout(d, m, target)`` is the target's own layout, not the host's: its tiles use only that target's
    lane count (so the per-target runs below run that target's tiles), its row groups are ``ACC_ROWS[target]``'s,
    and no target (default: the host's) reads another's; the AVX-512 and AVX2 layouts differ wherever tiles exist."""
    H = PS._kernel_top(d, m)
    lays = {name: PS._kernel_layout(d, m, name) for name in TK.TARGETS}
    for name, lay in lays.items():
        assert _same(lay, PS._kernel_layout_for(d, m, name))
        want = PS._tensor_groups(d, m, H, TK.ACC_ROWS[name])[:3]
        assert all(np.array_equal(a, b) for a, b in zip(lay.acc_groups, want, strict=True))
        if lay.tiles is not None:
            tiles, _ = lay.tiles
            assert {TK.SHAPES[s][0] for s in tiles[:, 0].tolist()} == {TK.TARGETS[name].lanes}
    assert _same(PS._kernel_layout(d, m), lays[TK.host_target().name])
    if lays["avx512"].tiles is not None:
        assert not np.array_equal(lays["avx512"].tiles[0], lays["avx2"].tiles[0])
    else:      # accumulate's row groups: fours on AVX-512 and AVX2, single rows on the generic target
        for name, lay in lays.items():
            assert (len(lay.acc_groups[2]) > 0) == (4 in TK.ACC_ROWS[name]), name
        assert len(lays["generic"].acc_groups[1]) == len(lays["generic"].acc_groups[2]) == 0


@pytest.mark.parametrize("d,m,n", [(10, 3, 301), (5, 3, 2085), (3, 4, 77)])
def test_tiled_accumulation_every_target_exact_and_bit_identical(d, m, n):
    """Each target's tiles (forced on this host), unweighted and weighted, on dyadic W: equal to the exact rationals
    and to each other bit for bit. n = 2085 crosses a chunk of 256 features and, with group = 300, several flushes
    of the eight-lane sums; n not a multiple of eight leaves a partial block."""
    rng = np.random.default_rng(100 * d + m)
    W = np.ascontiguousarray(_dyadic(rng, (d, n), 8.0))
    cw = np.ascontiguousarray(_dyadic(rng, (m, n), 4.0))
    exact = {False: _exact_S(W, None, m), True: _exact_S(W, cw, m)}
    for weighted in (False, True):
        runs = {}
        for name in TK.TARGETS:
            lay = PS._kernel_layout(d, m, name)
            assert lay.tiles is not None
            runs[name] = _standard(PS._accumulate_blocked(W, cw, weighted, m, 300, target=name), lay)
        assert [Fraction(float(v)) for v in runs["avx512"]] == exact[weighted]
        assert runs["avx2"].tobytes() == runs["generic"].tobytes() == runs["avx512"].tobytes()


def test_tiled_accumulation_every_target_against_numpy_route():
    """Random normal W (rounding in every product): each target's tiles within 1e-13 relative of the numpy route
    (another summation order: pairwise sums of numpy against chunked lane sums; the bound is ~n eps / sqrt(n)),
    and the targets bit-identical to each other."""
    rng = np.random.default_rng(7)
    d, m, n = 10, 3, 1203
    W = np.ascontiguousarray(rng.normal(size=(d, n)) * 0.7)
    ref = np.concatenate(PS.TensorPowerSums(W, m, kernel="numpy").S)
    runs = [_standard(PS._accumulate_blocked(W, np.empty((m, 1)), False, m, TK.GROUP, target=t), PS._kernel_layout(d, m, t))
            for t in TK.TARGETS]
    scale = np.abs(ref).max()
    for S in runs:
        assert np.abs(S - ref).max() <= 1e-13 * scale
        assert S.tobytes() == runs[0].tobytes()


def test_untiled_accumulation_row_groups_of_every_target():
    """``accumulate`` (S too large to tile: lanes = coefficients) with each target's row groups (:data:`ACC_ROWS`)
    and every other grouping the kernel takes (rows alone, in pairs, in fours, fours then singles), forced through
    small d: exact on dyadic W, bit-identical across groupings."""
    rng = np.random.default_rng(3)
    d, m, n = 4, 5, 45
    W = np.ascontiguousarray(_dyadic(rng, (d, n), 8.0))
    cw = np.ascontiguousarray(_dyadic(rng, (m, n), 4.0))
    H = PS._kernel_top(d, m)
    blocks, _, pos, _, _ = PS._tensor_tables(d, m, H)
    nM = int(blocks[-1, 0] + blocks[-1, 2])
    exact = _exact_S(W, cw, m)
    runs = []
    for sizes in sorted({*TK.ACC_ROWS.values(), (1,), (2, 1), (4, 2, 1), (4, 1)}):
        g1, g2, g4 = PS._tensor_groups(d, m, H, sizes)[:3]
        assert (len(g2) > 0) == (2 in sizes) and (len(g4) > 0) == (4 in sizes)
        out = TK.accumulate(W, cw, True, blocks, g1, g2, g4, nM, m, len(pos), 16)
        S = np.empty(int(pos.max()) + 2)
        S[pos] = out
        runs.append(S[:-1])
        assert [Fraction(float(v)) for v in S[:-1]] == exact
    assert all(r.tobytes() == runs[0].tobytes() for r in runs)


def test_host_target_is_read_off_the_compiled_code():
    """The host's target is what LLVM emits for numba's CPU: zmm registers -> avx512, ymm -> avx2, else generic;
    the kernel plan names it, and numba's CPU name and extensions are reported."""
    asm = TK._asm_probe()
    want = "avx512" if "zmm" in asm else "avx2" if "ymm" in asm else "generic"
    assert TK.host_target().name == want
    cpu = TK.host_cpu()
    assert cpu["target"] == want and cpu["name"] and isinstance(cpu["features"], list)
    if want == "avx512":
        assert "avx512f" in cpu["features"]
    plan = TK.kernel_plan()
    assert plan.startswith(f"target {want}: {TK.TARGETS[want].lanes} float64 per register")
    # row blocks: the largest power of two that fits the registers, never more rows than the group
    for t in TK.TARGETS.values():
        for R, U in TK.CONTRACT_UNROLL:
            rb = TK._row_block(R, U, t, grad=False)
            assert rb <= R and R % rb == 0 and (rb == 1 or rb * U + 3 <= t.registers)
            assert rb == R or 2 * rb * U + 3 > t.registers
    assert TK._row_block(8, 2, TK.TARGETS["avx512"], grad=False) == 8
    assert TK._row_block(4, 4, TK.TARGETS["avx2"], grad=False) == 2


ROUTE = """
import hashlib, sys
import numpy as np
from verify.numeric import _tensor_kernels as TK
from verify.numeric.power_sums import TensorPowerSums, collapsed_sums, collapsed_grad
rng = np.random.default_rng(5)
out = [TK.host_target().name]
for d, n, m in ((10, 203, 3), (4, 37, 5), (6, 150, 4)):
    W = rng.normal(size=(d, n)) * 1.3
    t = TensorPowerSums(W, m, kernel="numba")
    g = t.grad(rng.normal(size=n), [rng.normal(size=n) * 0.1 ** k for k in range(1, m + 1)])
    cs = collapsed_sums(W, m, kernel="numba")
    gc = collapsed_grad(W, m, cs, rng.normal(size=n), [rng.normal(size=n) for _ in range(m - 1)], 0.3)
    out += [hashlib.sha256(np.asarray(x).tobytes()).hexdigest() for x in (*t.T, g, *cs.P, cs.S, gc)]
print(" ".join(out))
"""


def _run_route(env_extra: dict) -> list:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", ROUTE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="Haswell and x86-64 are x86 CPUs")
def test_avx2_and_generic_builds_give_the_host_bytes():
    """Compiled for Haswell's own features (AVX2, 16 ymm: 4 lanes, 4 x 3 tiles, row blocks of <= 4) and for a
    generic x86-64 (2 lanes), the tensor and collapsed routes' sums, values and gradients are the host's bytes."""
    host = _run_route({})
    avx2 = _run_route({"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": ""})
    generic = _run_route({"NUMBA_CPU_NAME": "generic"})
    assert avx2[0] == "avx2" and generic[0] == "generic"
    assert len(host) == 1 + (3 + 1 + 2 + 1 + 1) + (5 + 1 + 4 + 1 + 1) + (4 + 1 + 3 + 1 + 1)
    assert avx2[1:] == generic[1:] == host[1:]


def test_auto_takes_the_collapsed_route_at_the_benchmark_sizes():
    """At n = 10^6, d = 10, m = 3 (loss and gradient) and n = 10^5, m = 5 the collapsed route is the fastest
    measured (benchmarks/bench_exact_loss.py --accuracy: about 0.6x, 0.7x and 0.65x the tensor route's time; gram
    and the moment matrices are orders slower), and the cost model takes it; at n = 100 gram wins and is taken."""
    for d, n, m, grad in ((10, 10**6, 3, False), (10, 10**6, 3, True), (10, 10**5, 5, False)):
        assert PS.choose_route("auto", d, n, m, grad=grad, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 100, 3, tensor=True) == "gram"



@pytest.mark.parametrize("name", sorted(TK.TARGETS))
def test_kernel_plan_reports_every_targets_blocks_whole(name):
    """The plan a user reads (``verify kernels``, the performance page) is parsed back, every number of it, and
    compared with the target's own tables and the register rule of :func:`_row_block`: lanes, registers, the largest
    accumulation tile, each contraction group's and each gradient group's rows per register block, and the rows per
    sweep of ``accumulate``."""
    import re

    t = TK.TARGETS[name]
    plan = TK.kernel_plan(t)
    head = re.fullmatch(r"target (\w+): (\d+) float64 per register, (\d+) registers; accumulation tiles (\d+) x (\d+) "
                        r"\(rows x tail entries\) and smaller; contraction rows per register block \((.*)\); gradient "
                        r"\((.*)\); accumulate \(S too large to tile\) rows (\(.*\))", plan)
    assert head, plan
    assert (head[1], int(head[2]), int(head[3])) == (name, t.lanes, t.registers)
    assert (int(head[4]), int(head[5])) == (max(t.tile_g), max(t.tile_t))

    def blocks(text, sep):
        return [tuple(int(v) for v in re.fullmatch(rf"(\d+){sep}(\d+): (\d+)", part).groups())
                for part in text.split(", ")]

    # each group's rows per block: the largest power of two <= R whose accumulators fit the registers
    def fit(R, U, grad):
        need = (lambda rb: rb * (U + 1) + 4) if grad else (lambda rb: rb * U + 3)
        return max(rb for rb in (1, 2, 4, 8, 16) if rb <= R and (rb == 1 or need(rb) <= t.registers))

    assert blocks(head[6], " rows x ") == [(R, U, fit(R, U, False)) for R, U in TK.CONTRACT_UNROLL]
    assert blocks(head[7], " x ") == [(R, U, fit(R, U, True)) for R, U in TK.GRAD_UNROLL]
    assert eval(head[8]) == TK.ACC_ROWS[name]   # a tuple literal of ints, as the plan prints it
    # on 16 registers a group can be split: 4 rows x 4 accumulators each need 19 (two passes of 2 rows)
    if name == "avx2":
        assert fit(4, 4, False) == 2 and fit(8, 2, False) == 4 and fit(8, 1, True) == 4


def test_default_target_without_numba_is_avx512s_tables(monkeypatch):
    """Without numba the tile tables are only inspected, for AVX-512's shapes, and the host is not probed (the probe
    compiles with numba); with numba the default is the host's target."""
    def no_probe():
        raise AssertionError("the host was probed without numba")

    host = TK.host_target().name
    monkeypatch.setattr(TK, "AVAILABLE", False)
    monkeypatch.setattr(TK, "host_target", no_probe)
    assert PS._target_name(None) == "avx512"
    assert PS._target_name("avx2") == "avx2" and PS._target_name("generic") == "generic"
    monkeypatch.setattr(TK, "AVAILABLE", True)
    monkeypatch.setattr(TK, "host_target", lambda: TK.TARGETS["generic"])
    assert PS._target_name(None) == "generic"
    monkeypatch.undo()
    assert PS._target_name(None) == host


@pytest.mark.parametrize("target", sorted(TK.TARGETS))
@pytest.mark.parametrize("d,m", [(10, 3), (4, 5)])
def test_the_accumulation_runs_the_layout_of_the_target_asked(monkeypatch, target, d, m):
    """Every target's shapes give the same floats (the point of the design), so the sums cannot tell which layout
    ran: the layout the accumulation asks for is observed, for the tiled (d = 10, m = 3) and the row-group
    (d = 4, m = 5) kernels, and the sums are the same bytes as with AVX-512's layout."""
    seen = []
    real = PS._kernel_layout

    def spy(dd, mm, t=None):
        seen.append(t)
        return real(dd, mm, t)

    W = np.ascontiguousarray(_dyadic(np.random.default_rng(3), (d, 19), 4))
    monkeypatch.setattr(PS, "_kernel_layout", spy)
    got = PS._accumulate_blocked(W, np.empty((m, 1)), False, m, TK.GROUP, target=target)
    assert seen == [target]
    monkeypatch.undo()
    ref = PS._accumulate_blocked(W, np.empty((m, 1)), False, m, TK.GROUP, target="avx512")
    assert got.tobytes() == ref.tobytes()
