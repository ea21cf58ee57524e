r"""Compiled kernels of the direct symmetric-tensor route of :mod:`verify.numeric.power_sums` (numba, optional).

Split contraction. A monomial of even degree 2k is written once as :math:`x^\mu = x^\rho x^\gamma` with
:math:`\rho` the 2k - h smallest and :math:`\gamma` the h largest of its sorted variables (h = min(H, 2k - 1)), so
:math:`\max\rho \le \min\gamma`; conversely every such pair gives one degree-2k monomial. Grouped by
:math:`s = \max\rho`, the pairs are the dense blocks {rho : max rho = s} x {gamma : min gamma >= s}, and in the graded
order of :func:`verify.numeric.power_sums.monomial_exponents` the gammas of a block are one contiguous tail of the
degree-h monomials. So per feature :math:`x = w_i` only the monomials of degree <= H < 2m are built (each by one
multiplication from a lower one), and the degree-2k products are never stored: row :math:`\rho` of a block adds
:math:`c\,x^\rho` times a contiguous tail into a contiguous row of :math:`S` (accumulate), or dots a contiguous row
of coefficients with the tail (contract) -- one FMA per even-degree monomial, over contiguous memory (SIMD).
H = m (:func:`verify.numeric.power_sums._kernel_top`: 286 stored monomials at d = 10, m = 3). Fast-math without
reassociation or contraction (:data:`FASTMATH`): every sum runs in the order the code writes it and every FMA is an
explicit one, so the floats are the same bit for bit whatever vector width LLVM compiles for (``NUMBA_CPU_NAME``
generic, AVX2 or AVX-512; the experiments need the same floats on every machine): LLVM's loop vectoriser may only
reorder a sum under ``reassoc``, in an order that depends on the width, and may only fuse a product into an addition
under ``contract``, which a target without FMA cannot do. W is checked finite, so the flags kept (no NaN, no infinity,
no signed zero) change no value.

Eight features per sweep, explicit SIMD (the intrinsics below: numba intrinsics on ``<W x double>``, since
numba's own vectorisation cannot keep a tile of accumulators in registers). The rows of one block (same s, same
degree) share their tail; :func:`verify.numeric.power_sums._tensor_groups` groups them.

Per vector target (:class:`Target`, :func:`host_target`: read off what LLVM emits for numba's CPU) the eight
features of a row are worked W = 8 (AVX-512, 32 zmm), 4 (AVX2, 16 ymm) or 2 (generic) lanes at a time, with
register blocks that fit the target's registers: the accumulation's tiles 4 x 6 on 32 registers and 4 x 3 on 16,
the contraction's and the gradient's rows in blocks of :func:`_row_block`, ``accumulate``'s rows four at a time
(:data:`ACC_ROWS`). Written for 32 registers only, the kernels spilled on a 16-register AVX2 build
(the 4 x 6 tile's loop: 86 stack moves per 48 FMA instructions; the 4 x 3 tile's: 5 per 24). Every lane sees the
same operations in the same order on every target, so the floats do not change (tests/numeric/test_kernel_shapes.py).

* ``contract`` and ``contract_grad`` put the eight features in the vector lanes: ``M8[j, f]`` is monomial j of
  feature f, one 64-byte row per monomial (18 KB for the eight at d = 10, m = 3). The build is one vector
  multiplication per monomial. A group of R = 1, 2, 4 or 8 rows loads each tail vector once and does one
  broadcast coefficient and one FMA per row (contract), or forms :math:`g = c_l C1 + C2` and adds
  :math:`g\,x^\gamma` to the row's adjoint and :math:`g\,x^\rho` to the tail's (``contract_grad``: three FMAs, the
  tail's adjoint loaded and stored once for the group), then reverse mode over the monomial tree, all in lanes:
  no horizontal sums anywhere.
* ``accumulate_tiled`` (where S has at most ``power_sums._TILED_MAX`` coefficients: d = 10, m = 3) also puts
  features in the lanes and treats the accumulation as what it is, a gemm over the features restricted to the
  blocks: :math:`S_{\rho\gamma} = \sum_j x_j^\rho x_j^\gamma`. A tile of G <= 4 rows sharing a tail x T <= 6
  consecutive tail entries keeps its G T sums in registers through a chunk of :data:`TILE_BLOCKS` blocks of
  eight features, loading per block T tail vectors and one vector per row (``accumulate_tile``: 24 FMAs per 10
  loads at 4 x 6, against ``accumulate``'s one load and store of S per 8 FMAs); S is written once per chunk, in
  eight lanes per coefficient, and the lanes are summed every ``GROUP`` features. The gradient's weighted pass
  multiplies each row's :math:`x^\rho` by its weight once per block (``vweight``).
* ``accumulate`` (larger S, whose eight-lane copy would leave the caches: 7.8 MB at d = 10, m = 5) puts eight
  coefficients in the lanes: the monomials of each feature are a row (``_build``), and per vector of a tail each
  feature's tail is loaded once for up to four rows (``accumulate_rows4``; :data:`ACC_ROWS`): 32 FMAs per eight
  tail loads, one load and store of each row's S. Every coefficient belongs to one row, and its eight features
  are added in order, so the grouping changes no float.

Layout (built by :func:`verify.numeric.power_sums._tensor_tables`): ``M`` holds the monomials of degrees 0..H
(``M[0] = 1``, then PAD zeros); ``blocks`` rows ``(dst, src, length, a)`` build ``M[dst:dst+L] = x_a M[src:src+L]``
in increasing degree; ``rows`` rows ``(r, t0, length, co, l)``: coefficient ``co + g`` of the block layout belongs
to the degree-2(l+1) monomial :math:`x^{M[r]}\cdot x^{M[t0+g]}` (``length`` padded to a multiple of :data:`PAD`);
a group of R rows is ``(t0, length, l, r_1..r_R, co_1..co_R)``.

Without numba the module still imports; :data:`AVAILABLE` is False and the numpy route of
:mod:`verify.numeric.power_sums` is used instead (checked equal to these kernels in the tests).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

try:  # optional dependency (extra "fast"): the package works, slower, without it
    from llvmlite import ir
    from numba import njit, types
    from numba.core import cgutils
    from numba.extending import intrinsic
    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only where numba is absent
    AVAILABLE = False

    def njit(*args, **kwargs):
        def wrap(fn):
            return fn
        return wrap if not (len(args) == 1 and callable(args[0])) else args[0]

#: LLVM fast-math flags of the kernels and their intrinsics: all but ``reassoc`` and ``contract`` (module docstring)
FASTMATH = {"nnan", "ninf", "nsz", "arcp", "afn"}

#: features per row of every kernel's memory layout: eight float64 (one zmm register; a target of narrower registers
#: works them ``Target.lanes`` at a time)
LANES = 8

#: the accumulation's tile shapes on a target of 32 vector registers of eight float64 (AVX-512): G rows x T tail
#: entries (G T accumulators and T tail vectors: 31 of 32 zmm at 4 x 6); every group of rows sharing a tail is cut
#: into such tiles exactly (no padding). Shape index 4 i + j of :data:`SHAPES` is TILE_G[i] x TILE_T[j].
TILE_G = (4, 2, 1)
TILE_T = (6, 4, 2, 1)


class Target(NamedTuple):
    r"""How the kernels use a vector target: ``lanes`` float64 per register (8 zmm, 4 ymm, 2 xmm), ``registers``
    vector registers, and the accumulation's tile shapes (rows ``tile_g`` x tail entries ``tile_t``). Every kernel
    keeps its eight features (:data:`LANES`) per row in memory and works on them ``lanes`` at a time, the
    register blocks sized so that accumulators, tail vectors and one row fit in ``registers``:
    :math:`GT + T + 1 \le` registers (4 x 6 on 32; 4 x 3 on 16). Only the lane count and the grouping of rows in
    registers change between targets; each lane (feature) sees the same operations in the same order, so the
    floats are the same bit for bit (tests/numeric/test_kernel_shapes.py)."""

    name: str
    lanes: int
    registers: int
    tile_g: tuple
    tile_t: tuple


#: the targets: AVX-512 (32 zmm), AVX2 / AVX (16 ymm), and any other (16 registers of two float64: SSE2, and the
#: generic fallback of other architectures). Measured on the 2-core Xeon, AVX2 build (NUMBA_CPU_NAME=haswell
#: NUMBA_CPU_FEATURES=), d = 10, m = 3, n = 2 x 10^5, best of 3: the accumulation with AVX2's 4 x 3 tiles 0.068 s,
#: with AVX-512's 4 x 6 (spilling) 0.125 s, with the generic 2-lane tiles 0.109 s
TARGETS = {"avx512": Target("avx512", 8, 32, TILE_G, TILE_T),
           "avx2": Target("avx2", 4, 16, (4, 2, 1), (3, 2, 1)),
           "generic": Target("generic", 2, 16, (4, 2, 1), (3, 2, 1))}

#: every tile shape of every target, ``(lanes, G, T)``: the accumulation's tile tables carry an index into it, and
#: the compiled dispatch (:func:`_acc_tile`) holds them all, so a test can force any target's shapes on any host
SHAPES = tuple((t.lanes, G, T) for t in TARGETS.values() for G in t.tile_g for T in t.tile_t)


def _asm_probe() -> str:
    """The assembly numba's code generator emits for one ``<8 x double>`` FMA (the kernels' vector operation), for
    the CPU numba compiles for (``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` when set, else the host)."""
    import llvmlite.binding as llvm
    from numba.core.registry import cpu_target

    codegen = cpu_target.target_context.codegen()
    mod = llvm.parse_assembly(
        "declare <8 x double> @llvm.fma.v8f64(<8 x double>, <8 x double>, <8 x double>)\n"
        "define <8 x double> @probe(<8 x double> %a, <8 x double> %b, <8 x double> %c) {\n"
        "  %r = call <8 x double> @llvm.fma.v8f64(<8 x double> %a, <8 x double> %b, <8 x double> %c)\n"
        "  ret <8 x double> %r\n}\n")
    return codegen._tm.emit_assembly(mod)


@lru_cache(maxsize=None)
def host_cpu() -> dict:
    """The CPU the kernels are compiled for: ``name`` (LLVM's), ``features`` (the x86 vector extensions enabled:
    numba's ``NUMBA_CPU_FEATURES`` when set, else the host's), ``host_features`` (the processor's), ``model``
    (its own name, from /proc/cpuinfo where there is one) and the :class:`Target` chosen (:func:`host_target`)."""
    import platform

    import llvmlite.binding as llvm
    from numba.core import config

    name = config.CPU_NAME or llvm.get_host_cpu_name()
    host = [k for k, v in llvm.get_host_cpu_features().items() if v]
    if config.CPU_FEATURES is None:
        flags = host
    elif config.CPU_FEATURES:
        flags = [f[1:] for f in config.CPU_FEATURES.split(",") if f.startswith("+")]
    else:                                       # empty: LLVM takes the named CPU's own features
        flags = [f"{name}'s own"]
    keep = (f"{name}'s own", "sse2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512vl", "avx512bw")
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), model)
    except OSError:
        pass
    return {"name": name, "features": [f for f in keep if f in flags], "model": model,
            "host_features": [f for f in keep if f in host], "target": host_target().name}


@lru_cache(maxsize=None)
def host_target() -> Target:
    """The :class:`Target` of the CPU numba compiles for, read off what LLVM emits for one ``<8 x double>`` FMA
    (:func:`_asm_probe`): zmm registers -> AVX-512, ymm -> AVX2, else generic. Measured, not looked up by name:
    ``NUMBA_CPU_NAME=haswell`` alone keeps the host's features (AVX-512 here); ``NUMBA_CPU_FEATURES=""`` with it
    gives Haswell's own (AVX2). numba's on-disk cache keys a compiled kernel by that same CPU name and feature
    string, so a cached kernel was compiled for the target chosen now."""
    asm = _asm_probe()
    return TARGETS["avx512" if "zmm" in asm else "avx2" if "ymm" in asm else "generic"]


def kernel_plan(target: Target | None = None) -> str:
    """One line: how the kernels use ``target`` (default the host's): lanes and registers, the accumulation's tile
    shapes, the contraction's and the gradient's rows per register block."""
    t = target or host_target()
    rows = ", ".join(f"{R} rows x {U}: {_row_block(R, U, t, grad=False)}" for R, U in CONTRACT_UNROLL)
    grads = ", ".join(f"{R} x {U}: {_row_block(R, U, t, grad=True)}" for R, U in GRAD_UNROLL)
    return (f"target {t.name}: {t.lanes} float64 per register, {t.registers} registers; accumulation tiles "
            f"{max(t.tile_g)} x {max(t.tile_t)} (rows x tail entries) and smaller; contraction rows per register "
            f"block ({rows}); gradient ({grads}); accumulate (S too large to tile) rows {ACC_ROWS[t.name]}")


#: the contraction's groups of R rows sharing a tail and their unroll U (t unrolled U times: R U accumulators)
CONTRACT_UNROLL = ((1, 4), (2, 4), (4, 4), (8, 2))
#: the gradient's groups of R rows and their unroll
GRAD_UNROLL = ((1, 4), (2, 4), (4, 2), (8, 1))
#: rows sharing a tail per sweep of ``accumulate`` (S too large to tile; lanes = coefficients): four where the
#: registers hold 4 rows x 8 coefficients (eight ymm or four zmm accumulators and one tail vector; the rows' 32
#: broadcast multipliers are read from the stack, one load in L1 each), then two and one for a block's last rows.
#: The point of grouping is the tails: a row alone reads eight features' tails from L2 for eight FMAs per vector;
#: four rows read them once for 32. Measured on the 2-core AMD EPYC (Zen 4), d = 10, m = 5, n = 10^5, best of 3:
#: AVX2 build 1.12 s with single rows, 0.83 s in pairs, 0.72-0.78 s in fours, 1.07 s in eights; native AVX-512
#: 0.80 s in pairs, 0.69-0.72 s in fours, 0.79 s in eights. The 2-lane generic build: the same time either way.
ACC_ROWS = {"avx512": (4, 2, 1), "avx2": (4, 2, 1), "generic": (1,)}


def _row_block(R: int, U: int, target: Target, grad: bool) -> int:
    """Rows of a group of R (power of two) whose accumulators a target keeps in registers at once: contraction
    :math:`R_b U` accumulators, a tail and a coefficient; gradient :math:`R_b (U + 1)` (the rows' :math:`x^\rho`
    too), the tail, its adjoint, the weight and a product. The largest power of two <= R that fits."""
    fit = (target.registers - 4) // (U + 1) if grad else (target.registers - 3) // U
    rb = 1
    while rb * 2 <= min(R, fit):
        rb *= 2
    return rb


# ---------------------------------------------------------------------------------------------------------- SIMD
# Explicit 8-lane SIMD (numba intrinsics). They live in this file, beside the kernels that inline them, on purpose:
# numba's on-disk cache (cache=True) revalidates a compiled kernel by the modification time and size of the kernel's
# own file only, so intrinsics in another module could be edited without the kernels being recompiled (measured:
# a deliberate break in such a module passed every test that used the cached kernels).
#
# Why not plain numba loops: numba leaves LLVM's SLP vectoriser off and its loop vectoriser only vectorises the
# innermost loop, so a loop whose accumulators must stay in registers across an outer loop (a small tile of rows x
# features) is compiled either with the accumulators in memory or with horizontal sums at the end of every row.
# These intrinsics emit the inner loops directly as LLVM IR on ``<8 x double>`` values: the accumulators are allocas,
# which LLVM promotes to registers, and every FMA is ``llvm.fma.v8f64`` (one AVX-512 instruction, two AVX2 ones,
# LLVM legalises the width for the host). Each intrinsic is inlined into the njit function that calls it, so the
# kernels are cached by numba like any other.
#
# All float arrays must be C-contiguous float64, indices in elements; a group table is int64 with rows ``(t0, L, l,
# r_1..r_R, co_1..co_R)`` and the intrinsic reads its row q. Loop lengths ``L`` must be multiples of the
# unroll (the kernels' tables pad every row to a multiple of ``PAD`` = 8). No bounds are checked: the kernels below
# index within their own allocations (checked by the tests against the numpy
# route and exact rationals).

def _define_intrinsics():
    """The SIMD intrinsics and the IR helpers they use, defined when this module is imported (with numba). One
    function on purpose: it runs at import and its inner functions while numba compiles a kernel, never inside a
    check's call of a kernel, so the whole of it belongs to the module's skeleton in the result cache's
    fingerprints (:class:`verify.coverage_map.SourceIndex`), where an edit of any part moves every check that
    touches or imports this module."""
    _F64 = ir.DoubleType()
    _VEC = ir.VectorType(_F64, LANES)
    _I64 = ir.IntType(64)

    def _i(v):
        return ir.Constant(_I64, v)

    def _data(context, builder, ty, value):
        """Pointer to the first element of a numba array value."""
        return cgutils.create_struct_proxy(ty)(context, builder, value=value).data

    def _vload(builder, base, idx, W=LANES):
        """W consecutive float64 from entry ``idx`` of ``base`` as one ``<W x double>``."""
        vec = ir.VectorType(_F64, W)
        ptr = builder.bitcast(builder.gep(base, [idx], inbounds=True), vec.as_pointer())
        return builder.load(ptr, align=8, typ=vec)

    def _vstore(builder, value, base, idx):
        builder.store(value, builder.bitcast(builder.gep(base, [idx], inbounds=True), value.type.as_pointer()),
                      align=8)

    def _sload(builder, base, idx):
        return builder.load(builder.gep(base, [idx], inbounds=True))

    def _splat(builder, x, W=LANES):
        vec = ir.VectorType(_F64, W)
        v = builder.insert_element(ir.Constant(vec, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(v, ir.Constant(vec, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), W), [0] * W))

    def _vfma(builder, a, b, c):
        """a * b + c, one rounding (llvm.fma: exact as in IEEE fma, not reassociated)."""
        vec, name = a.type, f"llvm.fma.v{a.type.count}f64"        # any width: the operands' own
        fn = builder.module.globals.get(name)
        if fn is None:
            fn = ir.Function(builder.module, ir.FunctionType(vec, [vec, vec, vec]), name=name)
        return builder.call(fn, [a, b, c])

    _FAST = tuple(sorted(FASTMATH))

    def _group_row(context, builder, ty, groups, q, R):
        """Row q of a group table (int64, rows ``(t0, L, l, r_1..r_R, co_1..co_R)``, see
        :func:`verify.numeric.power_sums._tensor_groups`): ``(t0, L, l, [r_j], [co_j])``."""
        proxy = cgutils.create_struct_proxy(ty)(context, builder, value=groups)
        row_stride = builder.sdiv(cgutils.unpack_tuple(builder, proxy.strides, 2)[0], _i(8))    # bytes -> entries
        base = builder.mul(q, row_stride)
        col = [_sload(builder, proxy.data, builder.add(base, _i(k))) for k in range(3 + 2 * R)]
        return col[0], col[1], col[2], col[3:3 + R], col[3 + R:]

    def _sum(builder, slots):
        """The sum of the vectors in the allocas ``slots`` (the unrolled partial sums of one row)."""
        s = builder.load(slots[0])
        for slot in slots[1:]:
            s = builder.fadd(s, builder.load(slot), flags=_FAST)
        return s

    @intrinsic
    def vscale(typingctx, M, stride, off, dst, src, L, x8, a):
        """``M[off + (dst + t) stride + f] = x8[a, f] * M[off + (src + t) stride + f]`` for t < L, f < 8 (x8: (d, 8);
        M's rows of eight lanes ``stride`` entries apart, from entry ``off``): one block of the monomial tree for
        eight features at once (the kernels pass ``stride`` = 8, a block's rows one after another; ``off`` picks the
        block of ``accumulate_tiled``'s chunk)."""
        sig = types.void(M, stride, off, dst, src, L, x8, a)

        def codegen(context, builder, signature, args):
            m8, stride, off, dst, src, L, x8, a = args
            mp, xp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[6], x8)
            xa = _vload(builder, xp, builder.mul(a, _i(LANES)))
            with cgutils.for_range(builder, L) as loop:
                v = _vload(builder, mp, builder.add(off, builder.mul(builder.add(src, loop.index), stride)))
                _vstore(builder, builder.fmul(xa, v, flags=_FAST), mp,
                        builder.add(off, builder.mul(builder.add(dst, loop.index), stride)))
            return context.get_dummy_value()
        return sig, codegen

    @intrinsic
    def vweight(typingctx, M, stride, off, dst, lo, c8):
        """``M[off + (dst + p) stride + f] = c8[l_p, f] * M[off + r_p stride + f]`` for the rows ``(r_p, l_p)`` of
        ``lo`` (int64, (rows, 2)), f < 8: the weighted copies of the block rows' :math:`x^\rho` for eight features."""
        sig = types.void(M, stride, off, dst, lo, c8)

        def codegen(context, builder, signature, args):
            m8, stride, off, dst, lo, c8 = args
            mp, cp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[5], c8)
            proxy = cgutils.create_struct_proxy(signature.args[4])(context, builder, value=lo)
            n_lo = cgutils.unpack_tuple(builder, proxy.shape, 2)[0]
            with cgutils.for_range(builder, n_lo) as loop:
                r = _sload(builder, proxy.data, builder.mul(loop.index, _i(2)))
                l = _sload(builder, proxy.data, builder.add(builder.mul(loop.index, _i(2)), _i(1)))
                v = builder.fmul(_vload(builder, cp, builder.mul(l, _i(LANES))),
                                 _vload(builder, mp, builder.add(off, builder.mul(r, stride))), flags=_FAST)
                _vstore(builder, v, mp, builder.add(off, builder.mul(builder.add(dst, loop.index), stride)))
            return context.get_dummy_value()
        return sig, codegen

    def _make_contract_rows(R, U, W, Rb):
        """Intrinsic for R block rows sharing one tail, t unrolled U times (R * U independent accumulators:
        enough FMAs in flight to cover the FMA latency), the eight lanes W at a time and Rb rows per pass over the
        tail (Rb U accumulators in registers: :func:`_row_block`). Each lane's sums run in the same order for every
        W and Rb: per row the U partial sums over t = u mod U, joined in order, then the rows into P8 in order."""
        @intrinsic
        def contract_rows(typingctx, M8, C, P8, groups, q):
            """With row q of ``groups`` = (t0, L, l, rs, cs): ``P8[l, :] += sum_j M8[rs[j], :] * sum_{t<L}
            C[cs[j] + t] * M8[t0 + t, :]`` (lanes = features)."""
            sig = types.void(M8, C, P8, groups, q)

            def codegen(context, builder, signature, args):
                m8, c, p8, groups, q = args
                mp = _data(context, builder, signature.args[0], m8)
                cp = _data(context, builder, signature.args[1], c)
                pp = _data(context, builder, signature.args[2], p8)
                t0, L, l, rr, cc = _group_row(context, builder, signature.args[3], groups, q, R)
                zero = ir.Constant(ir.VectorType(_F64, W), [0.0] * W)
                for h in range(0, LANES, W):
                    sums = []
                    for j0 in range(0, R, Rb):
                        acc = [[cgutils.alloca_once_value(builder, zero) for _ in range(U)] for _ in range(Rb)]
                        with cgutils.for_range_slice(builder, _i(0), L, _i(U)) as (t, _):
                            for u in range(U):
                                tu = builder.add(t, _i(u))
                                tail = _vload(builder, mp, builder.add(builder.mul(builder.add(t0, tu), _i(LANES)),
                                                                       _i(h)), W)
                                for j in range(Rb):
                                    coef = _splat(builder, _sload(builder, cp, builder.add(cc[j0 + j], tu)), W)
                                    builder.store(_vfma(builder, coef, tail, builder.load(acc[j][u])), acc[j][u])
                        sums += [cgutils.alloca_once_value(builder, _sum(builder, acc[j])) for j in range(Rb)]
                    at = builder.add(builder.mul(l, _i(LANES)), _i(h))
                    total = _vload(builder, pp, at, W)
                    for j in range(R):
                        total = _vfma(builder, _vload(builder, mp, builder.add(builder.mul(rr[j], _i(LANES)), _i(h)),
                                                      W), builder.load(sums[j]), total)
                    _vstore(builder, total, pp, at)
                return context.get_dummy_value()
            return sig, codegen
        return contract_rows

    def _make_accumulate_rows(R):
        """Intrinsic for R block rows sharing one tail, eight features (AoS rows of ``stride``). Feature by feature:
        one tail vector loaded, then one FMA per row, so only R accumulators and one tail are live (the 8 R
        multipliers are loop-invariant: registers where they fit, else reloaded from the stack, in L1)."""
        @intrinsic
        def accumulate_rows(typingctx, Mf, stride, cc, m, loc, groups, q):
            """With row q of ``groups`` = (t0, L, l, rs, cs): ``loc[cs[j] + t] += sum_f cc[f, l] Mf[f, rs[j]]
            Mf[f, t0 + t]`` for t < L (lanes = coefficients): the eight tails loaded once for the R rows."""
            sig = types.void(Mf, stride, cc, m, loc, groups, q)

            def codegen(context, builder, signature, args):
                mf, stride, ccv, m, loc, groups, q = args
                mp = _data(context, builder, signature.args[0], mf)
                cp = _data(context, builder, signature.args[2], ccv)
                sp = _data(context, builder, signature.args[4], loc)
                t0, L, l, rr, co = _group_row(context, builder, signature.args[5], groups, q, R)
                base = [builder.mul(_i(f), stride) for f in range(LANES)]
                a = [[_splat(builder, builder.fmul(_sload(builder, cp, builder.add(builder.mul(_i(f), m), l)),
                                                   _sload(builder, mp, builder.add(base[f], rr[j])), flags=_FAST))
                      for f in range(LANES)] for j in range(R)]
                with cgutils.for_range_slice(builder, _i(0), L, _i(LANES)) as (t, _):
                    ats = [builder.add(co[j], t) for j in range(R)]
                    s = [_vload(builder, sp, at) for at in ats]
                    for f in range(LANES):
                        tail = _vload(builder, mp, builder.add(builder.add(base[f], t0), t))
                        for j in range(R):
                            s[j] = _vfma(builder, a[j][f], tail, s[j])
                    for j in range(R):
                        _vstore(builder, s[j], sp, ats[j])
                return context.get_dummy_value()
            return sig, codegen
        return accumulate_rows

    def _make_accumulate_tile(W, G, T):
        """Intrinsic for a tile of G block rows x T consecutive entries of their shared tail, summed over NB blocks of
        eight features in registers, W lanes at a time (G * T accumulators and T tail vectors of W lanes held, one
        row vector at a time). Each lane sums its blocks in order whatever W, G and T."""
        @intrinsic
        def accumulate_tile(typingctx, X, NB, rs, bs, S8, tiles, q, rcol):
            """With row q of ``tiles`` = (shape, t0, r_1..r_4, p_1..p_4, d_1..d_4) and the rows read from columns
            ``rcol``..``rcol + G - 1``: ``S8[d_g + t, :] += sum_{b < NB} X[r_g, b, :] * X[t0 + t, b, :]`` for g < G,
            t < T (lanes = features; row r of block b of X at entry ``b bs + r rs``; S8: (entries, 8))."""
            sig = types.void(X, NB, rs, bs, S8, tiles, q, rcol)

            def codegen(context, builder, signature, args):
                x, nb, stride, bs, s8, tiles, q, rcol = args
                xp, sp = _data(context, builder, signature.args[0], x), _data(context, builder, signature.args[4], s8)
                proxy = cgutils.create_struct_proxy(signature.args[5])(context, builder, value=tiles)
                row = builder.mul(q, builder.sdiv(cgutils.unpack_tuple(builder, proxy.strides, 2)[0], _i(8)))

                def col(k):
                    return _sload(builder, proxy.data, builder.add(row, k))

                tails = builder.mul(col(_i(1)), stride)
                rows = [builder.mul(col(builder.add(rcol, _i(g))), stride) for g in range(G)]
                dsts = [col(_i(10 + g)) for g in range(G)]
                zero = ir.Constant(ir.VectorType(_F64, W), [0.0] * W)
                for h in range(0, LANES, W):
                    acc = [[cgutils.alloca_once_value(builder, zero) for _ in range(T)] for _ in range(G)]
                    with cgutils.for_range(builder, nb) as loop:
                        at = builder.add(builder.mul(loop.index, bs), _i(h))
                        hv = [_vload(builder, xp, builder.add(builder.add(tails, builder.mul(_i(t), stride)), at), W)
                              for t in range(T)]
                        for g in range(G):
                            lv = _vload(builder, xp, builder.add(rows[g], at), W)
                            for t in range(T):
                                builder.store(_vfma(builder, lv, hv[t], builder.load(acc[g][t])), acc[g][t])
                    for g in range(G):
                        for t in range(T):
                            at = builder.add(builder.mul(builder.add(dsts[g], _i(t)), _i(LANES)), _i(h))
                            _vstore(builder, builder.fadd(_vload(builder, sp, at, W), builder.load(acc[g][t]),
                                                          flags=_FAST), sp, at)
                return context.get_dummy_value()
            return sig, codegen
        return accumulate_tile

    def _make_grad_rows(R, U, W, Rb):
        """Intrinsic for the gradient's contraction of R block rows sharing one tail, t unrolled U times, the eight
        lanes W at a time and Rb rows per pass over the tail (:func:`_row_block`). Each lane sees the same order
        for every W and Rb: a tail entry's adjoint takes the rows in order (the passes store and reload it), and
        the rows' own adjoints are added after the last pass, in order."""
        @intrinsic
        def grad_rows(typingctx, M8, B8, C1, C2, c8, groups, q):
            """With :math:`g_j(t) = c_l C1[cs_j + t] + C2[cs_j + t]` (lanes = features, ``c8[l, :]``): the adjoint
            of the tail, ``B8[t0 + t, :] += sum_j g_j(t) M8[rs[j], :]``, and of each row's :math:`x^\rho`,
            ``B8[rs[j], :] += sum_t g_j(t) M8[t0 + t, :]``."""
            sig = types.void(M8, B8, C1, C2, c8, groups, q)

            def codegen(context, builder, signature, args):
                m8, b8, c1, c2, cv8, groups, q = args
                t0, L, l, rs, cc = _group_row(context, builder, signature.args[5], groups, q, R)
                mp, bp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[1], b8)
                p1, p2 = _data(context, builder, signature.args[2], c1), _data(context, builder, signature.args[3], c2)
                cvp = _data(context, builder, signature.args[4], cv8)
                zero = ir.Constant(ir.VectorType(_F64, W), [0.0] * W)
                for h in range(0, LANES, W):
                    cv = _vload(builder, cvp, builder.add(builder.mul(l, _i(LANES)), _i(h)), W)
                    rr = [builder.add(builder.mul(r, _i(LANES)), _i(h)) for r in rs]
                    sums = []
                    for j0 in range(0, R, Rb):
                        xr = [_vload(builder, mp, rr[j0 + j], W) for j in range(Rb)]
                        acc = [[cgutils.alloca_once_value(builder, zero) for _ in range(U)] for _ in range(Rb)]
                        with cgutils.for_range_slice(builder, _i(0), L, _i(U)) as (t, _):
                            for u in range(U):
                                tu = builder.add(t, _i(u))
                                at = builder.add(builder.mul(builder.add(t0, tu), _i(LANES)), _i(h))
                                tail, bt = _vload(builder, mp, at, W), _vload(builder, bp, at, W)
                                for j in range(Rb):
                                    k = builder.add(cc[j0 + j], tu)
                                    g = _vfma(builder, cv, _splat(builder, _sload(builder, p1, k), W),
                                              _splat(builder, _sload(builder, p2, k), W))
                                    builder.store(_vfma(builder, g, tail, builder.load(acc[j][u])), acc[j][u])
                                    bt = _vfma(builder, g, xr[j], bt)
                                _vstore(builder, bt, bp, at)
                        sums += [cgutils.alloca_once_value(builder, _sum(builder, acc[j])) for j in range(Rb)]
                    for j in range(R):
                        _vstore(builder, builder.fadd(_vload(builder, bp, rr[j], W), builder.load(sums[j]),
                                                      flags=_FAST), bp, rr[j])
                return context.get_dummy_value()
            return sig, codegen
        return grad_rows

    @intrinsic
    def vreverse(typingctx, M8, B8, G8, dst, src, L, x8, a):
        """Reverse mode through one block ``M8[dst + t] = x_a M8[src + t]`` (t < L) of the monomial tree:
        ``G8[a, :] += sum_t B8[dst + t, :] M8[src + t, :]`` and ``B8[src + t, :] += B8[dst + t, :] x8[a, :]``."""
        sig = types.void(M8, B8, G8, dst, src, L, x8, a)

        def codegen(context, builder, signature, args):
            m8, b8, g8, dst, src, L, x8, a = args
            mp, bp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[1], b8)
            gp, xp = _data(context, builder, signature.args[2], g8), _data(context, builder, signature.args[6], x8)
            at = builder.mul(a, _i(LANES))
            xa = _vload(builder, xp, at)
            acc = cgutils.alloca_once_value(builder, ir.Constant(_VEC, [0.0] * LANES))
            with cgutils.for_range(builder, L) as loop:
                i_dst = builder.mul(builder.add(dst, loop.index), _i(LANES))
                i_src = builder.mul(builder.add(src, loop.index), _i(LANES))
                g = _vload(builder, bp, i_dst)
                builder.store(_vfma(builder, g, _vload(builder, mp, i_src), builder.load(acc)), acc)
                _vstore(builder, _vfma(builder, g, xa, _vload(builder, bp, i_src)), bp, i_src)
            _vstore(builder, builder.fadd(_vload(builder, gp, at), builder.load(acc), flags=_FAST), gp, at)
            return context.get_dummy_value()
        return sig, codegen

    # the contraction and the gradient for the host's target (:func:`host_target`: lanes and rows per register
    # block); numba's cache keys the kernels that inline them by the same CPU name and features
    host = host_target()
    #: the gradient's contraction of 1, 2, 4, 8 rows sharing a tail (the tail and its adjoint loaded once a pass)
    grad_rows1, grad_rows2, grad_rows4, grad_rows8 = (_make_grad_rows(R, U, host.lanes, _row_block(R, U, host, True))
                                                      for R, U in GRAD_UNROLL)
    #: contraction of 1, 2, 4, 8 rows sharing a tail (4 x 4, 2 x 4, 4 x 4 and 8 x 2 accumulators)
    contract_rows1, contract_rows2, contract_rows4, contract_rows8 = (
        _make_contract_rows(R, U, host.lanes, _row_block(R, U, host, False)) for R, U in CONTRACT_UNROLL)
    #: accumulation of 1, 2 or 4 rows sharing a tail (:data:`ACC_ROWS`)
    accumulate_rows1, accumulate_rows2, accumulate_rows4 = (_make_accumulate_rows(R) for R in (1, 2, 4))

    #: the accumulation's tiles, one per entry ``(lanes, G, T)`` of :data:`SHAPES` (every target's)
    tiles = tuple(_make_accumulate_tile(W, G, T) for W, G, T in SHAPES)

    return (vscale, vweight, vreverse, contract_rows1, contract_rows2, contract_rows4, contract_rows8,
            grad_rows1, grad_rows2, grad_rows4, grad_rows8, accumulate_rows1, accumulate_rows2, accumulate_rows4, tiles)


if AVAILABLE:
    (vscale, vweight, vreverse, contract_rows1, contract_rows2, contract_rows4, contract_rows8,
     grad_rows1, grad_rows2, grad_rows4, grad_rows8, accumulate_rows1, accumulate_rows2, accumulate_rows4,
     ACC_TILES) = _define_intrinsics()
    (acc_tile4x6, acc_tile4x4, acc_tile4x2, acc_tile4x1, acc_tile2x6, acc_tile2x4,
     acc_tile2x2, acc_tile2x1, acc_tile1x6, acc_tile1x4, acc_tile1x2, acc_tile1x1,
     acc4_tile4x3, acc4_tile4x2, acc4_tile4x1, acc4_tile2x3, acc4_tile2x2, acc4_tile2x1,
     acc4_tile1x3, acc4_tile1x2, acc4_tile1x1,
     acc2_tile4x3, acc2_tile4x2, acc2_tile4x1, acc2_tile2x3, acc2_tile2x2, acc2_tile2x1,
     acc2_tile1x3, acc2_tile1x2, acc2_tile1x1) = ACC_TILES


#: features per sweep of every kernel: one vector of eight float64 (:data:`LANES`). Measured on
#: the 2-core Xeon (d = 10, n = 2 x 10^5 at m = 3 and 2 x 10^4 at m = 5, idle, best of 3, against the previous
#: kernels of four features (two for the gradient) per sweep with numba's own loop vectorisation, H = 4 / 6):
#: contract 0.063 s against 0.145 s (m = 3), 0.121 s against 0.227 s (m = 5); accumulate 0.122 s against 0.158 s
#: (m = 3), 0.195 s against 0.251 s (m = 5); contract_grad 0.158 s against 0.509 s (m = 3), 0.359 s against 0.787 s
#: (m = 5). Where the contraction's time went before: horizontal sums at the end of every row, the monomial build
#: (a third of a pass: about 3 ns per block per feature) and the tails of four features streamed from L2.
BLOCK = LANES

#: features per local accumulator: S is summed in two levels (within a group, then groups), so its rounding
#: error grows like (group + n / group) ulps instead of n ulps
GROUP = 4096

#: blocks of eight features per chunk of :func:`accumulate_tiled`: each tile's sums stay in registers through them.
#: Measured on the 2-core EPYC (d = 10, m = 3, n = 2 x 10^5, best of 5): 0.071 s at 16, 0.064 s at 32, 0.064 s at
#: 64 (the chunk's rows, 534 of 64 bytes a block: 1.1 MB at 32, 2.2 MB at 64); ``accumulate`` 0.112 s
TILE_BLOCKS = 32

#: block rows are padded to a multiple of PAD entries (a zero coefficient, and M is PAD zeros longer than its
#: monomials): the SIMD loops have no remainder (accumulate steps eight coefficients, contract unrolls 4 or 2 tail
#: entries). A zero coefficient times a finite monomial adds zero.
PAD = 8

#: the padding of the rows for contract and contract_grad: their lanes hold features, so a row's length only has to
#: be a multiple of the unroll (4, or 2 for groups of eight rows): 6068 padded coefficients at d = 10, m = 3 against
#: 6904 at PAD = 8 (5775 real)
CONTRACT_PAD = 4


@njit(cache=True, fastmath=FASTMATH)
def _build(x, M, blocks):
    M[0] = 1.0
    for k in range(blocks.shape[0]):
        dst, src, L, a = blocks[k, 0], blocks[k, 1], blocks[k, 2], blocks[k, 3]
        xa = x[a]
        out, inp = M[dst:dst + L], M[src:src + L]     # views: numba then drops the negative-index checks (5x)
        for t in range(L):
            out[t] = xa * inp[t]


@njit(cache=True)
def _aligned_rows(rows, cols):
    """(rows, cols) float64 zeros starting on a 64-byte boundary; with cols a multiple of 8 every row does (a
    vector load or store of a row's first eight then never straddles two cache lines)."""
    raw = np.zeros(rows * cols + LANES)
    off = (-(raw.ctypes.data % 64) // 8) % LANES
    return raw[off:off + rows * cols].reshape(rows, cols)


@njit(cache=True)
def _aligned(rows):
    """(rows, LANES) float64 zeros starting on a 64-byte boundary: each row of eight features is one cache line."""
    return _aligned_rows(rows, LANES)


@njit(cache=True, fastmath=FASTMATH)
def _build8(W, i0, x8, M8, blocks):
    """Features i0..i0+7 of W (d, n) into x8 (d, 8) (zero past n) and their monomials into M8 (rows, 8), one
    vector multiplication per monomial for the eight; returns the number of real features."""
    d, n = W.shape
    nb = min(LANES, n - i0)
    for a in range(d):
        for b in range(LANES):
            x8[a, b] = W[a, i0 + b] if b < nb else 0.0
    M8[0, :] = 1.0
    for k in range(blocks.shape[0]):
        vscale(M8, LANES, 0, blocks[k, 0], blocks[k, 1], blocks[k, 2], x8, blocks[k, 3])
    return nb


@njit(cache=True, fastmath=FASTMATH)
def accumulate(W, cw, weighted, blocks, g1, g2, g4, nM, m, size, group):
    r""":math:`S = \sum_j c(j)\,w_j^{\otimes 2l}` for every degree 2l (block layout), with ``c = cw[l-1, j]`` if
    ``weighted`` else 1. W is (d, n). Eight features per sweep over S (:data:`BLOCK`), their monomials in rows
    (``_build``); ``g1`` / ``g2`` / ``g4``: block rows alone / two / four rows sharing a tail
    (:func:`verify.numeric.power_sums._tensor_groups`), swept by ``accumulate_rows4`` (and 2, 1): per vector of
    eight coefficients each feature's tail loaded once for the four rows, one load and store of S per row, 32 FMAs. The partial sums of each ``group`` features
    (rounded up to a multiple of 8) are added into S at once."""
    d, n = W.shape
    # each feature's row starts on a cache line (measured: 9% off the rows' time at d = 10, m = 3; the tails' own
    # starts are not aligned, which would take gaps in the layout: another 13%, not done)
    stride = (nM + PAD + LANES - 1) // LANES * LANES
    Mf = _aligned_rows(LANES, stride)
    x = np.zeros((LANES, d))
    cc = np.zeros((LANES, m))
    S = np.zeros(size)
    loc = np.zeros(size)
    per = max(1, (group + LANES - 1) // LANES)
    for i0 in range(0, n, LANES):
        nb = min(LANES, n - i0)
        for b in range(LANES):
            for a in range(d):
                x[b, a] = W[a, i0 + b] if b < nb else 0.0
            _build(x[b], Mf[b], blocks)
            for l in range(m):
                cc[b, l] = (cw[l, i0 + b] if weighted else 1.0) if b < nb else 0.0
        for q in range(g4.shape[0]):
            accumulate_rows4(Mf, stride, cc, m, loc, g4, q)
        for q in range(g2.shape[0]):
            accumulate_rows2(Mf, stride, cc, m, loc, g2, q)
        for q in range(g1.shape[0]):
            accumulate_rows1(Mf, stride, cc, m, loc, g1, q)
        if (i0 // LANES + 1) % per == 0 or i0 + LANES >= n:
            for t in range(size):
                S[t] += loc[t]
                loc[t] = 0.0
    return S


@njit(cache=True, fastmath=FASTMATH)
def contract(W, C, blocks, g1, g2, g4, g8, nM, m):
    r""":math:`P_l(w_i) = \sum_{|\mu| = 2l} C_\mu w_i^\mu` (C in block layout) for every feature i and degree;
    returns (m, n). Eight features per sweep, one per vector lane (``_build8``: the monomials of the eight in
    rows of one cache line); ``g1``, ``g2``, ``g4``, ``g8``: 1, 2, 4, 8 block rows sharing a tail
    (:func:`verify.numeric.power_sums._tensor_groups`), swept by ``contract_rows``:
    per tail entry one vector load for the R rows, one broadcast coefficient and one FMA per row; no horizontal
    sums."""
    d, n = W.shape
    C = np.ascontiguousarray(C)
    M8 = _aligned(nM + PAD)
    x8 = _aligned(d)
    P8 = np.zeros((m, LANES))
    out = np.empty((m, n))
    for i0 in range(0, n, LANES):
        nb = _build8(W, i0, x8, M8, blocks)
        P8[:, :] = 0.0
        for q in range(g8.shape[0]):
            contract_rows8(M8, C, P8, g8, q)
        for q in range(g4.shape[0]):
            contract_rows4(M8, C, P8, g4, q)
        for q in range(g2.shape[0]):
            contract_rows2(M8, C, P8, g2, q)
        for q in range(g1.shape[0]):
            contract_rows1(M8, C, P8, g1, q)
        for l in range(m):
            for b in range(nb):
                out[l, i0 + b] = P8[l, b]
    return out


@njit(cache=True, fastmath=FASTMATH)
def contract_grad(W, C1, C2, c, blocks, g1, g2, g4, g8, nM, m):
    r""":math:`\nabla_x \sum_l \sum_\mu (c_l(i) C1_\mu + C2_\mu)\,x^\mu` at every feature :math:`x = w_i` (C1, C2 in
    block layout): eight features per sweep, one per vector lane (as :func:`contract`); per group of block rows
    sharing a tail (``grad_rows``) the adjoints of each row's :math:`x^\rho` and of
    the tail (three FMAs per even-degree monomial; the tail and its adjoint loaded and stored once for the group),
    then reverse mode over the monomial tree (``vreverse``: two FMAs per monomial); returns (d, n)."""
    d, n = W.shape
    C1, C2 = np.ascontiguousarray(C1), np.ascontiguousarray(C2)
    M8, B8 = _aligned(nM + PAD), _aligned(nM + PAD)        # monomials and their adjoints, eight features per row
    x8, G8, c8 = _aligned(d), _aligned(d), _aligned(m)
    G = np.empty((d, n))
    for i0 in range(0, n, LANES):
        nb = _build8(W, i0, x8, M8, blocks)
        for l in range(m):
            for b in range(LANES):
                c8[l, b] = c[l, i0 + b] if b < nb else 0.0
        B8[:, :] = 0.0
        for q in range(g8.shape[0]):
            grad_rows8(M8, B8, C1, C2, c8, g8, q)
        for q in range(g4.shape[0]):
            grad_rows4(M8, B8, C1, C2, c8, g4, q)
        for q in range(g2.shape[0]):
            grad_rows2(M8, B8, C1, C2, c8, g2, q)
        for q in range(g1.shape[0]):
            grad_rows1(M8, B8, C1, C2, c8, g1, q)
        G8[:, :] = 0.0
        for k in range(blocks.shape[0] - 1, -1, -1):
            vreverse(M8, B8, G8, blocks[k, 0], blocks[k, 1], blocks[k, 2], x8, blocks[k, 3])
        for a in range(d):
            for b in range(nb):
                G[a, i0 + b] = G8[a, b]
    return G


@njit(cache=True, fastmath=FASTMATH)
def _acc_tile(X, NB, rs, bs, S8, tiles, q, rcol):
    """Tile q of the accumulation, by its shape (``tiles[q, 0]``: index into :data:`SHAPES`, (lanes, G rows, T
    entries): 0-11 AVX-512's, 4 i + j for TILE_G[i] x TILE_T[j]; 12-20 AVX2's, 21-29 generic's)."""
    s = tiles[q, 0]
    if s == 0:
        acc_tile4x6(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 1:
        acc_tile4x4(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 2:
        acc_tile4x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 3:
        acc_tile4x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 4:
        acc_tile2x6(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 5:
        acc_tile2x4(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 6:
        acc_tile2x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 7:
        acc_tile2x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 8:
        acc_tile1x6(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 9:
        acc_tile1x4(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 10:
        acc_tile1x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 11:
        acc_tile1x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 12:
        acc4_tile4x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 13:
        acc4_tile4x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 14:
        acc4_tile4x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 15:
        acc4_tile2x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 16:
        acc4_tile2x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 17:
        acc4_tile2x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 18:
        acc4_tile1x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 19:
        acc4_tile1x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 20:
        acc4_tile1x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 21:
        acc2_tile4x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 22:
        acc2_tile4x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 23:
        acc2_tile4x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 24:
        acc2_tile2x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 25:
        acc2_tile2x2(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 26:
        acc2_tile2x1(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 27:
        acc2_tile1x3(X, NB, rs, bs, S8, tiles, q, rcol)
    elif s == 28:
        acc2_tile1x2(X, NB, rs, bs, S8, tiles, q, rcol)
    else:
        acc2_tile1x1(X, NB, rs, bs, S8, tiles, q, rcol)


@njit(cache=True, fastmath=FASTMATH)
def accumulate_tiled(W, cw, weighted, blocks, tiles, lo, nM, m, size, group):
    r""":math:`S = \sum_j c(j)\,w_j^{\otimes 2l}` for every degree 2l (block layout, as :func:`accumulate`), with
    ``c = cw[l-1, j]`` if ``weighted`` else 1, as a register-tiled sum over features (the accumulation is
    :math:`\sum_j x_j^\rho x_j^\gamma` for every pair of a block: a gemm over the features, restricted to the
    blocks). Per chunk of :data:`TILE_BLOCKS` blocks of eight features (lanes = features) the monomials are built
    block after block (``X``: per block its ``nM + PAD`` monomial rows, then the ``lo`` rows
    :math:`c_l(j)\,x_j^\rho` if ``weighted``); then every tile of ``tiles``
    (:func:`verify.numeric.power_sums._accumulate_tiles`: G <= 4 rows x T <= 6 entries of their shared tail) keeps
    its G T sums in registers through the chunk's blocks, with one load per row and tail vector per block
    (``accumulate_tile``), and adds them into ``S8`` (eight lanes per coefficient) once per chunk. The lanes of S8
    are summed into S every ``group`` features (rounded up to whole chunks)."""
    d, n = W.shape
    nMp = nM + PAD                               # rows nM .. nMp - 1 stay zero
    nrows = nMp + lo.shape[0]
    NB = TILE_BLOCKS
    bs = nrows * LANES                           # block b of the chunk starts at entry b * bs; its rows are LANES apart
    X = _aligned_rows(nrows * NB, LANES)
    Xf = X.reshape(-1)
    x8, c8 = _aligned(d), _aligned(m)
    S8 = _aligned(size)
    S = np.zeros(size)
    rcol = 6 if weighted else 2                  # the tiles' rows: x^rho itself, or its weighted copy
    chunk = NB * LANES
    per = max(1, (group + chunk - 1) // chunk)
    for c0 in range(0, n, chunk):
        for b in range(NB):
            i0 = c0 + b * LANES
            nb = max(0, min(LANES, n - i0))      # features past n are zero: every monomial of degree >= 1 is zero
            for a in range(d):
                for f in range(LANES):
                    x8[a, f] = W[a, i0 + f] if f < nb else 0.0
            off = b * bs
            for f in range(LANES):
                Xf[off + f] = 1.0
            for k in range(blocks.shape[0]):
                vscale(X, LANES, off, blocks[k, 0], blocks[k, 1], blocks[k, 2], x8, blocks[k, 3])
            if weighted:
                for l in range(m):
                    for f in range(LANES):
                        c8[l, f] = cw[l, i0 + f] if f < nb else 0.0
                vweight(X, LANES, off, nMp, lo, c8)
        for q in range(tiles.shape[0]):
            _acc_tile(X, NB, LANES, bs, S8, tiles, q, rcol)
        if (c0 // chunk + 1) % per == 0 or c0 + chunk >= n:
            for e in range(size):
                t = 0.0
                for f in range(LANES):
                    t += S8[e, f]
                    S8[e, f] = 0.0
                S[e] += t
    return S
