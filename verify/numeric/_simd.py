r"""Explicit 8-lane SIMD for the numba kernels of :mod:`verify.numeric._tensor_kernels` (numba intrinsics).

Why not plain numba loops: numba leaves LLVM's SLP vectoriser off and its loop vectoriser only vectorises the
innermost loop, so a loop whose accumulators must stay in registers across an outer loop (a small tile of rows x
features) is compiled either with the accumulators in memory or with horizontal sums at the end of every row.
These intrinsics emit the inner loops directly as LLVM IR on ``<8 x double>`` values: the accumulators are allocas,
which LLVM promotes to registers, and every FMA is ``llvm.fma.v8f64`` (one AVX-512 instruction, two AVX2 ones,
LLVM legalises the width for the host). Each intrinsic is inlined into the njit function that calls it, so the
kernels are cached by numba like any other.

All arrays must be C-contiguous float64; indices are in elements. Loop lengths ``L`` must be multiples of the
unroll (the kernels' tables pad every row to a multiple of ``PAD`` = 8). No bounds are checked: the callers in
:mod:`verify.numeric._tensor_kernels` index within their own allocations (checked by the tests against the numpy
route and exact rationals).
"""

from __future__ import annotations

#: lanes of one vector: eight float64 (one zmm register; LLVM splits it on narrower hosts)
LANES = 8

try:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only where numba is absent
    AVAILABLE = False

if AVAILABLE:
    _F64 = ir.DoubleType()
    _VEC = ir.VectorType(_F64, LANES)
    _I64 = ir.IntType(64)

    def _i(v):
        return ir.Constant(_I64, v)

    def _data(context, builder, ty, value):
        """Pointer to the first element of a numba array value."""
        return cgutils.create_struct_proxy(ty)(context, builder, value=value).data

    def _vload(builder, base, idx):
        ptr = builder.bitcast(builder.gep(base, [idx], inbounds=True), _VEC.as_pointer())
        return builder.load(ptr, align=8, typ=_VEC)

    def _vstore(builder, value, base, idx):
        builder.store(value, builder.bitcast(builder.gep(base, [idx], inbounds=True), _VEC.as_pointer()), align=8)

    def _sload(builder, base, idx):
        return builder.load(builder.gep(base, [idx], inbounds=True))

    def _splat(builder, x):
        v = builder.insert_element(ir.Constant(_VEC, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(v, ir.Constant(_VEC, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))

    def _vfma(builder, a, b, c):
        """a * b + c, one rounding (llvm.fma: exact as in IEEE fma, not reassociated)."""
        fn = builder.module.globals.get("llvm.fma.v8f64")
        if fn is None:
            fn = ir.Function(builder.module, ir.FunctionType(_VEC, [_VEC, _VEC, _VEC]), name="llvm.fma.v8f64")
        return builder.call(fn, [a, b, c])

    _FAST = ("fast",)

    @intrinsic
    def vscale(typingctx, M8, dst, src, L, x8, a):
        """``M8[dst + t, :] = x8[a, :] * M8[src + t, :]`` for t < L (M8: (rows, 8), x8: (d, 8)): one block of the
        monomial tree for eight features at once."""
        sig = types.void(M8, dst, src, L, x8, a)

        def codegen(context, builder, signature, args):
            m8, dst, src, L, x8, a = args
            mp, xp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[4], x8)
            xa = _vload(builder, xp, builder.mul(a, _i(LANES)))
            with cgutils.for_range(builder, L) as loop:
                v = _vload(builder, mp, builder.mul(builder.add(src, loop.index), _i(LANES)))
                _vstore(builder, builder.fmul(xa, v, flags=_FAST), mp,
                        builder.mul(builder.add(dst, loop.index), _i(LANES)))
            return context.get_dummy_value()
        return sig, codegen

    def _make_contract_rows(R, U):
        """Intrinsic for R block rows sharing one tail, t unrolled U times (R * U independent accumulators:
        enough FMAs in flight to cover the FMA latency)."""
        @intrinsic
        def contract_rows(typingctx, M8, C, P8, t0, L, l, rs, cs):
            """``P8[l, :] += sum_j M8[rs[j], :] * sum_{t<L} C[cs[j] + t] * M8[t0 + t, :]`` (lanes = features)."""
            sig = types.void(M8, C, P8, t0, L, l, rs, cs)

            def codegen(context, builder, signature, args):
                m8, c, p8, t0, L, l, rs, cs = args
                mp = _data(context, builder, signature.args[0], m8)
                cp = _data(context, builder, signature.args[1], c)
                pp = _data(context, builder, signature.args[2], p8)
                rr = [builder.extract_value(rs, j) for j in range(R)]
                cc = [builder.extract_value(cs, j) for j in range(R)]
                zero = ir.Constant(_VEC, [0.0] * LANES)
                acc = [[cgutils.alloca_once_value(builder, zero) for _ in range(U)] for _ in range(R)]
                with cgutils.for_range_slice(builder, _i(0), L, _i(U)) as (t, _):
                    for u in range(U):
                        tu = builder.add(t, _i(u))
                        tail = _vload(builder, mp, builder.mul(builder.add(t0, tu), _i(LANES)))
                        for j in range(R):
                            coef = _splat(builder, _sload(builder, cp, builder.add(cc[j], tu)))
                            builder.store(_vfma(builder, coef, tail, builder.load(acc[j][u])), acc[j][u])
                at = builder.mul(l, _i(LANES))
                total = _vload(builder, pp, at)
                for j in range(R):
                    s = builder.load(acc[j][0])
                    for u in range(1, U):
                        s = builder.fadd(s, builder.load(acc[j][u]), flags=_FAST)
                    total = _vfma(builder, _vload(builder, mp, builder.mul(rr[j], _i(LANES))), s, total)
                _vstore(builder, total, pp, at)
                return context.get_dummy_value()
            return sig, codegen
        return contract_rows

    def _make_accumulate_rows(R):
        """Intrinsic for R block rows sharing one tail, eight features (AoS rows of ``stride``)."""
        @intrinsic
        def accumulate_rows(typingctx, Mf, stride, cc, m, loc, t0, L, l, rs, cs):
            """``loc[cs[j] + t] += sum_f cc[f, l] Mf[f, rs[j]] Mf[f, t0 + t]`` for t < L (lanes = coefficients):
            the eight tails loaded once for the R rows."""
            sig = types.void(Mf, stride, cc, m, loc, t0, L, l, rs, cs)

            def codegen(context, builder, signature, args):
                mf, stride, ccv, m, loc, t0, L, l, rs, cs = args
                mp = _data(context, builder, signature.args[0], mf)
                cp = _data(context, builder, signature.args[2], ccv)
                sp = _data(context, builder, signature.args[4], loc)
                base = [builder.mul(_i(f), stride) for f in range(LANES)]
                rr = [builder.extract_value(rs, j) for j in range(R)]
                co = [builder.extract_value(cs, j) for j in range(R)]
                a = [[_splat(builder, builder.fmul(_sload(builder, cp, builder.add(builder.mul(_i(f), m), l)),
                                                   _sload(builder, mp, builder.add(base[f], rr[j])), flags=_FAST))
                      for f in range(LANES)] for j in range(R)]
                with cgutils.for_range_slice(builder, _i(0), L, _i(LANES)) as (t, _):
                    tails = [_vload(builder, mp, builder.add(builder.add(base[f], t0), t)) for f in range(LANES)]
                    for j in range(R):
                        at = builder.add(co[j], t)
                        s1 = _vload(builder, sp, at)
                        for f in range(LANES):
                            s1 = _vfma(builder, a[j][f], tails[f], s1)
                        _vstore(builder, s1, sp, at)
                return context.get_dummy_value()
            return sig, codegen
        return accumulate_rows

    def _make_grad_rows(R, U):
        """Intrinsic for the gradient's contraction of R block rows sharing one tail, t unrolled U times."""
        @intrinsic
        def grad_rows(typingctx, M8, B8, C1, C2, c8, t0, L, l, rs, cs):
            """With :math:`g_j(t) = c_l C1[cs_j + t] + C2[cs_j + t]` (lanes = features, ``c8[l, :]``): the adjoint
            of the tail, ``B8[t0 + t, :] += sum_j g_j(t) M8[rs[j], :]``, and of each row's :math:`x^\rho`,
            ``B8[rs[j], :] += sum_t g_j(t) M8[t0 + t, :]``."""
            sig = types.void(M8, B8, C1, C2, c8, t0, L, l, rs, cs)

            def codegen(context, builder, signature, args):
                m8, b8, c1, c2, cv8, t0, L, l, rs, cs = args
                mp, bp = _data(context, builder, signature.args[0], m8), _data(context, builder, signature.args[1], b8)
                p1, p2 = _data(context, builder, signature.args[2], c1), _data(context, builder, signature.args[3], c2)
                cv = _vload(builder, _data(context, builder, signature.args[4], cv8), builder.mul(l, _i(LANES)))
                rr = [builder.mul(builder.extract_value(rs, j), _i(LANES)) for j in range(R)]
                cc = [builder.extract_value(cs, j) for j in range(R)]
                xr = [_vload(builder, mp, rr[j]) for j in range(R)]
                zero = ir.Constant(_VEC, [0.0] * LANES)
                acc = [[cgutils.alloca_once_value(builder, zero) for _ in range(U)] for _ in range(R)]
                with cgutils.for_range_slice(builder, _i(0), L, _i(U)) as (t, _):
                    for u in range(U):
                        tu = builder.add(t, _i(u))
                        at = builder.mul(builder.add(t0, tu), _i(LANES))
                        tail, bt = _vload(builder, mp, at), _vload(builder, bp, at)
                        for j in range(R):
                            k = builder.add(cc[j], tu)
                            g = _vfma(builder, cv, _splat(builder, _sload(builder, p1, k)),
                                      _splat(builder, _sload(builder, p2, k)))
                            builder.store(_vfma(builder, g, tail, builder.load(acc[j][u])), acc[j][u])
                            bt = _vfma(builder, g, xr[j], bt)
                        _vstore(builder, bt, bp, at)
                for j in range(R):
                    s = builder.load(acc[j][0])
                    for u in range(1, U):
                        s = builder.fadd(s, builder.load(acc[j][u]), flags=_FAST)
                    _vstore(builder, builder.fadd(_vload(builder, bp, rr[j]), s, flags=_FAST), bp, rr[j])
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

    #: the gradient's contraction of 1, 2, 4, 8 rows sharing a tail (the tail and its adjoint loaded once)
    grad_rows1, grad_rows2 = _make_grad_rows(1, 4), _make_grad_rows(2, 4)
    grad_rows4, grad_rows8 = _make_grad_rows(4, 2), _make_grad_rows(8, 1)
    #: contraction of 1, 2, 4, 8 rows sharing a tail (4 x 4, 2 x 4, 4 x 4 and 8 x 2 accumulators)
    contract_rows1, contract_rows2 = _make_contract_rows(1, 4), _make_contract_rows(2, 4)
    contract_rows4, contract_rows8 = _make_contract_rows(4, 4), _make_contract_rows(8, 2)
    #: accumulation of 1 or 2 rows sharing a tail (8 broadcast multipliers per row stay in registers)
    accumulate_rows1, accumulate_rows2 = _make_accumulate_rows(1), _make_accumulate_rows(2)
