"""``verify frame build | certify | info``: Lemma A.4 frames over GF(2^r), built once, certified exactly, reused.

::

    verify frame build --d 256 --m 2 -o f.npz          # d a power of two
    verify frame build --d 100 --m 2 --general -o g.npz
    verify frame certify f.npz --json                   # re-certify the stored frame
    verify frame certify --d 1024 --m 3                 # certify without materialising the frame
    verify frame info f.npz
    verify frame build --d 256 --construction kerdock -o k.npz     # Kerdock (d^2/2 columns, coherence 1/sqrt d)
    verify frame build --d 256 --construction dg --delta 1 -o g.npz
    verify frame build --d 1024 --m 3 --implicit -o big.npz        # parameters + certificate only (N = 2^30)
    verify frame certify --d 4096 --m 3 --method quadratic          # exact, by GF(2) ranks (m <= 3)
    verify frame table --d 256                  # every construction: N, exact coherence, certified lower bound, ratio
    verify frame best --d 4096 --n 2^24 -o b.npz   # lowest certified coherence with >= N columns, vs the lower bound

Every subcommand checks its output (-o) and input paths before any work (one line on stderr, exit 2).
"""

from __future__ import annotations

import json
import sys


def _raise(message):  # nested parsers: one-line error, exit 2 through verify.cli
    raise ValueError(message)


def register(sub) -> None:
    p = sub.add_parser("frame", help="build, certify and inspect Lemma A.4 frames")
    p.error = _raise
    fsub = p.add_subparsers(dest="frame_command", metavar="ACTION")
    fsub.required = True

    b = fsub.add_parser("build", help="build a frame and save it (.npz)")
    b.add_argument("--d", type=int, required=True, help="dimension d (a power of two unless --general)")
    b.add_argument("--m", type=int, help="the m of Lemma 4.1 (>= 1; construction bch only)")
    b.add_argument("--general", action="store_true", help="any d: 2m coefficients, first d^m columns, zero rows")
    b.add_argument("--construction", default="bch", metavar="NAME",
                   help="bch (the paper's Lemma A.4 frame, default), kerdock (d = 4^k) or dg (Delsarte-Goethals)")
    b.add_argument("--delta", type=int, help="with --construction dg: 1 <= delta <= (log2 d - 2)/2 (default 1)")
    b.add_argument("--implicit", action="store_true",
                   help="write the parameters and the certificate, not the signs (load_frame(..., allow_implicit=True) / ImplicitFrame)")
    b.add_argument("-o", "--output", required=True, metavar="FILE", help="output .npz file")
    b.add_argument("--json", action="store_true", help="print the certificate as JSON")
    b.set_defaults(func=run_build)

    c = fsub.add_parser("certify", help="exact coherence certificate of a frame file (or of --d/--m)")
    c.add_argument("file", nargs="?", help="frame file written by 'verify frame build'")
    c.add_argument("--d", type=int, help="certify the construction for this d without a file")
    c.add_argument("--m", type=int, help="with --d")
    c.add_argument("--general", action="store_true", help="with --d: the general-d construction")
    c.add_argument("--construction", default="bch", metavar="NAME", help="with --d: bch, kerdock or dg")
    c.add_argument("--delta", type=int, help="with --construction dg")
    c.add_argument("--method", default="wht", metavar="NAME",
                   help="with --d: wht (Walsh-Hadamard scan, default) or quadratic (GF(2) ranks, m <= 3)")
    c.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --d (bch): run the independent chunks on a Dask cluster (tcp://HOST:PORT, "
                        "or 'local' for a LocalCluster on this machine)")
    c.add_argument("--json", action="store_true", help="one JSON object on stdout")
    c.set_defaults(func=run_certify)

    t = fsub.add_parser("table", help="every construction at d: N, certified coherence, certified lower bound, ratio")
    t.add_argument("--d", type=int, required=True, help="a power of two")
    t.add_argument("--no-lp", action="store_true", help="skip the Delsarte LP bound (Welch / Levenstein only)")
    t.add_argument("--max-forms", type=int, default=None, metavar="K",
                   help="certify a kerdock / dg row only if its scan ranks at most K forms (default 2^20: seconds; "
                        "DG(14, 1) needs about 5.2e6)")
    t.add_argument("--json", action="store_true", help="one JSON list on stdout")
    t.set_defaults(func=run_table)

    e = fsub.add_parser("best", help="lowest-coherence certified frame with at least N columns, vs the lower bound")
    e.add_argument("--d", type=int, required=True, help="a power of two")
    e.add_argument("--n", type=_count, required=True, metavar="N", help="columns wanted (an integer or 2^k)")
    e.add_argument("-o", "--output", metavar="FILE", help="save the chosen frame (.npz; parameters only if too big)")
    e.add_argument("--max-forms", type=int, default=None, metavar="K", help="as for 'frame table'")
    e.add_argument("--json", action="store_true", help="one JSON object on stdout")
    e.set_defaults(func=run_best)

    i = fsub.add_parser("info", help="metadata of a frame file")
    i.add_argument("file")
    i.set_defaults(func=run_info)
    for q in (b, c, i, t, e):
        q.error = _raise


def _count(text: str) -> int:
    """``--n``: a positive integer written as digits or as ``2^k`` / ``2**k``."""
    t = text.strip().replace("**", "^")
    try:
        if "^" in t:
            base, exp = t.split("^")
            base, exp = int(base), int(exp)
            if base < 2 or not 0 <= exp <= 256:
                raise ValueError
            return base ** exp
        return int(t)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"Argument 'n' must be an integer or a power written b^k, not {text!r}.") from None


def _check_output(args) -> None:
    from .._io import check_output_path

    check_output_path(getattr(args, "output", None), "-o")


def _check_input(args) -> None:
    from .._io import check_input_file

    check_input_file(getattr(args, "file", None), "file")


def _warn_coherence_one(cert) -> None:
    """Coherence 1 means some columns coincide up to sign: say so, and from which d Lemma 4.1's bound is < 1."""
    from ..numeric.frames import coherence_one_reason

    why = coherence_one_reason(cert)
    if why:
        print(f"verify: warning: {why}", file=sys.stderr)


def _pow2_r(d: int) -> int:
    from .._validate import VerifyInputError
    from ..numeric.frames import MAX_R

    if not isinstance(d, int) or d < 2 or d & (d - 1) or d.bit_length() - 1 > MAX_R:
        raise VerifyInputError(
            f"Argument 'd' must be a power of two 2^r with 1 <= r <= {MAX_R} (or use --general), not {d!r}.")
    return d.bit_length() - 1


def _construct(d: int, m: int, general: bool):
    from .._validate import verify_int
    from ..numeric import frames

    m = verify_int(m, "m", minimum=1)
    if general:
        return frames.build_general_frame(d, m)
    return frames.build_frame(_pow2_r(d), m)


def _print_cert(cert, as_json: bool) -> None:
    data = cert.as_dict()
    if as_json:
        print(json.dumps(data, sort_keys=True))
        return
    if not hasattr(cert, "weil_bound"):  # quadratic / code certificates
        _print_other_cert(cert)
        return
    lev = "n/a (N <= d(d+1)/2)" if cert.levenstein_bound is None else f"{cert.levenstein_bound:.6g}"
    lines = [
        f"frame: d = {cert.d}, field GF(2^{cert.r}), construction m = {cert.m}"
        + (f" (general d, lemma m = {cert.m_paper})" if cert.general else "") + f", N = {cert.n_columns} columns",
        f"max |character sum|   {cert.max_abs_sum}  (exact integer)",
        f"coherence             {cert.coherence_exact} = {cert.coherence:.6g}   (< 1: {cert.below_one})",
        f"Weil bound            {cert.weil_bound:.6g}   ratio {_fmt(cert.ratio_to_weil)}",
        f"Welch bound           {cert.welch_bound:.6g}   ratio {_fmt(cert.ratio_to_welch)}",
        f"Levenstein bound      {lev}   ratio {_fmt(cert.ratio_to_levenstein)}",
        f"Weil gives < 1 from d {cert.weil_below_one_from_d}",
        f"seconds               {cert.seconds:.3f}",
    ]
    print("\n".join(lines))


def _print_other_cert(cert) -> None:
    name = getattr(cert, "construction", "bch")
    extra = f", delta = {cert.delta}" if name == "dg" else (f", m = {cert.m}" if name == "bch" else "")
    lev = "n/a (N <= d(d+1)/2)" if cert.levenstein_bound is None else f"{cert.levenstein_bound:.6g}"
    lines = [
        f"frame: {name}, d = {cert.d}{extra}, N = {cert.n_columns} columns",
        f"max |character sum|   {cert.max_abs_sum}  (exact integer)",
        f"coherence             {cert.coherence_exact} = {cert.coherence:.6g}",
        f"Welch bound           {cert.welch_bound:.6g}   ratio {_fmt(cert.ratio_to_welch)}",
        f"Levenstein bound      {lev}   ratio {_fmt(cert.ratio_to_levenstein)}",
        f"histogram |S|: count  {cert.histogram}",
        f"seconds               {cert.seconds:.3f}",
    ]
    print("\n".join(lines))


def run_table(args) -> int:
    from ..numeric.frames import frame_table

    from ..numeric.frames import TABLE_MAX_FORMS

    rows = frame_table(_pow2_r(args.d) and args.d, max_forms=TABLE_MAX_FORMS if args.max_forms is None else args.max_forms, lp=not args.no_lp,
                       progress=not args.json)
    if args.json:
        print(json.dumps([row.as_dict() for row in rows], sort_keys=True))
        return 0
    print(f"frames at d = {args.d}: coherence certified exactly; lower bound = the best of Welch, Levenstein and "
          "the Delsarte LP, each certified exactly; ratio = coherence / lower bound")
    print(f"{'construction':<13}{'param':<10}{'N':>14}{'coherence':>12}{'Welch':>10}{'Levenstein':>12}"
          f"{'lower bound':>13}{'(by)':<12}{'ratio':>8}  note")
    for row in rows:
        coh = "-" if row.coherence_exact is None else row.coherence_exact
        lev = "-" if row.levenstein_bound is None else f"{row.levenstein_bound:.4g}"
        print(f"{row.construction:<13}{row.parameter:<10}{row.n_columns:>14}{coh:>12}{row.welch_bound:>10.4g}"
              f"{lev:>12}{row.lower_bound:>13.5g} {row.lower_bound_name:<11}{_fmt(row.ratio_to_lower_bound):>8}"
              f"  {row.note}")
    return 0


def run_best(args) -> int:
    from .._validate import VerifyInputError

    _check_output(args)  # before importing galois (over a second): a bad -o fails at once
    from ..numeric import frames as FR

    best = FR.best_frame(_pow2_r(args.d) and args.d, args.n, max_forms=FR.TABLE_MAX_FORMS if args.max_forms is None else args.max_forms,
                         progress=not args.json)
    wrote = None
    if args.output is not None:
        r = _pow2_r(args.d)
        if best.construction == "bch":
            m = int(best.parameter.split("=")[1])
            cert = (FR.quadratic_certificate(r, m) if best.n == best.n_full and m <= 3
                    else FR.certify(r, m, n_columns=best.n))
            if 2 ** r * best.n <= FR.MAX_FRAME_BITS:
                FR.save_frame(FR.build_frame(r, m, n_columns=best.n), args.output, cert)
                wrote = "signs"
            else:
                FR.save_implicit(FR.ImplicitFrame(r, m, best.n), args.output, cert)
                wrote = "parameters only (implicit)"
        elif best.construction in ("kerdock", "dg") and best.exact and 2 ** r * best.n_full <= FR.MAX_FRAME_BITS:
            delta = int(best.parameter.split("=")[1]) or None
            FR.save_frame(FR.build_code_frame(best.construction, r, delta), args.output,
                          FR.code_certificate(best.construction, r, delta, method="wht"))
            wrote = "signs"
        elif best.construction in ("kerdock", "dg") and r <= FR.CODE_MAX_R:
            delta = int(best.parameter.split("=")[1]) or None
            FR.save_implicit(FR.ImplicitCodeFrame(best.construction, r, delta, n_columns=best.n), args.output,
                             FR.code_certificate(best.construction, r, delta))
            wrote = ("parameters only (implicit); the certificate is the whole frame's, an upper bound for its "
                     f"first {best.n} columns")
        else:
            raise VerifyInputError(f"Argument '-o' can save bch frames and whole kerdock / dg frames that fit, not the "
                                   f"first {best.n} columns of {best.construction} {best.parameter}.")
    if args.json:
        print(json.dumps({**best.as_dict(), "wrote": wrote}, sort_keys=True))
        return 0
    rel = "" if best.exact else "<= "
    print(f"best certified frame at d = {best.d} with N >= {best.n}: {best.construction} {best.parameter} "
          f"(first {best.n} of {best.n_full} columns)")
    print(f"coherence             {rel}{best.coherence_exact} = {best.coherence:.6g}"
          + ("" if best.exact else "   (sub-frame: at most the whole frame's exact coherence)"))
    print(f"lower bound           {best.lower_bound:.6g}   (by {best.lower_bound_name}, certified exactly: "
          f"mu^2 >= {best.lower_bound_sq})")
    print(f"ratio                 {_fmt(best.ratio_to_lower_bound)}")
    for c in best.candidates:
        print(f"  candidate {c['construction']:<9}{c['parameter']:<10}N = {c['n_full']:<14} coherence "
              f"{'' if c['exact'] else '<= '}{c['coherence_exact']}")
    if wrote:
        print(f"wrote {args.output}: {wrote}")
    return 0


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def _code_args(args, m_given: bool):
    """Validated construction name; refuses options that do not belong to it."""
    from .._validate import VerifyInputError, verify_choice
    from ..numeric.frames import CONSTRUCTIONS

    cons = verify_choice(args.construction, "construction", CONSTRUCTIONS)
    if cons != "bch":
        if m_given or args.general:
            raise VerifyInputError(f"Argument 'construction' must be bch to use --m/--general, not {cons!r}.")
    elif args.delta is not None:
        raise VerifyInputError("Argument 'delta' must be given only with --construction dg, not with bch.")
    return cons


def _build_code(args) -> int:
    from ..numeric import frames

    r = _pow2_r(args.d)
    if args.implicit:  # parameters + the exact rank certificate (Frobenius reduction); d >= 4096 fits here
        op = frames.ImplicitCodeFrame(args.construction, r, args.delta)
        cert = frames.code_certificate(args.construction, r, args.delta, method="rank", progress=not args.json)
        frames.save_implicit(op, args.output, cert)
        desc = f"implicit {op.d} x {op.n} {args.construction} frame (parameters only)"
    else:
        frame = frames.build_code_frame(args.construction, r, args.delta)
        cert = frames.code_certificate(args.construction, r, args.delta, method="wht")
        frames.save_frame(frame, args.output, cert)
        desc = f"{frame.n_rows} x {frame.n_columns} {args.construction} frame"
    if args.json:
        _print_json(cert)
    else:
        print(f"wrote {args.output}: {desc}, coherence {cert.coherence_exact}")
    return 0


def _build_implicit(args) -> int:
    from .._validate import VerifyInputError, verify_int
    from ..numeric import frames
    from ..numeric.frames import quadratic_certificate

    if args.general:
        raise VerifyInputError("Argument 'general' must not be combined with --implicit (d must be a power of two).")
    r, m = _pow2_r(args.d), verify_int(args.m, "m", minimum=1)
    op = frames.ImplicitFrame(r, m)
    cert = quadratic_certificate(r, m) if m <= 3 else frames.certify(r, m)
    frames.save_implicit(op, args.output, cert)
    _warn_coherence_one(cert)
    if args.json:
        _print_json(cert)
    else:
        print(f"wrote {args.output}: implicit {op.d} x {op.n} frame (parameters only), coherence {cert.coherence_exact}")
    return 0


def _print_json(cert) -> None:
    print(json.dumps(cert.as_dict(), sort_keys=True))


def run_build(args) -> int:
    from .._validate import VerifyInputError

    _check_output(args)  # before importing galois (over a second): a bad -o fails at once
    from ..numeric import frames

    if _code_args(args, args.m is not None) != "bch":
        return _build_code(args)
    if args.m is None:
        raise VerifyInputError("Argument 'm' is required with --construction bch (the m of Lemma 4.1, >= 1).")
    if args.implicit:
        return _build_implicit(args)
    frame = _construct(args.d, args.m, args.general)
    cert = frames.certify(frame.r, frame.m, n_columns=frame.n_columns, irreducible_poly=frame.irreducible_poly,
                          general_d=frame.n_rows if frame.general else None, m_paper=frame.m_paper)
    frames.save_frame(frame, args.output, cert)
    _warn_coherence_one(cert)
    if args.json:
        _print_cert(cert, True)
    else:
        print(f"wrote {args.output}: {frame.n_rows} x {frame.n_columns} frame, coherence {cert.coherence_exact}")
    return 0


def run_certify(args) -> int:
    from .._validate import VerifyInputError
    from ..numeric import frames

    from .._validate import verify_choice
    from ..numeric.frames import quadratic_certificate

    _check_input(args)
    method = verify_choice(args.method, "method", ("wht", "quadratic"))
    cons = _code_args(args, args.m is not None)
    if args.file is not None:
        if args.d is not None or args.m is not None or cons != "bch" or args.delta is not None:
            raise VerifyInputError("Argument 'file' must be given alone, not together with --d/--m/--construction.")
        if frames.is_implicit_file(args.file):
            op, _ = frames.load_implicit(args.file)
            if isinstance(op, frames.ImplicitCodeFrame):
                if op.n != frames.code_parameters(op.construction, op.r, op.delta or None)[2]:
                    raise VerifyInputError("Argument 'file' must hold a whole kerdock / dg frame to be re-certified.")
                cert = frames.code_certificate(op.construction, op.r, op.delta or None,
                                               irreducible_poly=op.irreducible_poly)
            else:
                cert = (quadratic_certificate(op.r, op.m) if op.m <= 3 and op.n == 2 ** (op.r * op.m)
                        else frames.certify(op.r, op.m, n_columns=op.n, irreducible_poly=op.irreducible_poly))
        else:
            frame, _ = frames.load_frame(args.file)
            cert = frames.certify_frame(frame)
    elif cons != "bch":
        if args.d is None:
            raise VerifyInputError(f"Argument 'd' is required with --construction {cons}.")
        cert = frames.code_certificate(cons, _pow2_r(args.d), args.delta,
                                            method="rank" if method == "quadratic" else "wht")
    else:
        if args.d is None or args.m is None:
            raise VerifyInputError("Argument 'file' is required (or give both --d and --m).")
        if args.scheduler is not None:
            return _certify_distributed(args, method)
        if method == "quadratic":
            if args.general:
                raise VerifyInputError("Argument 'method' must be wht with --general, not 'quadratic'.")
            from .._validate import verify_int

            cert = quadratic_certificate(_pow2_r(args.d), verify_int(args.m, "m", minimum=1, maximum=3), progress=True)
        elif args.general:
            cert = frames.certify_general(args.d, args.m)
        else:
            from .._validate import verify_int

            cert = frames.certify(_pow2_r(args.d), verify_int(args.m, "m", minimum=1))
    _print_cert(cert, args.json)
    return 0


def _certify_distributed(args, method: str) -> int:
    """``certify --d --m --scheduler``: the same certificate, its chunks run as Dask tasks."""
    from .._validate import VerifyInputError, verify_int
    from ..distributed import get_client
    from ..numeric import frames
    from ..numeric.frames import quadratic_certificate

    if args.general:
        raise VerifyInputError("Argument 'scheduler' must not be combined with --general.")
    r = _pow2_r(args.d)
    m = verify_int(args.m, "m", minimum=1, maximum=3 if method == "quadratic" else None)
    address = None if args.scheduler == "local" else args.scheduler
    with get_client(address) as client:
        cert = (quadratic_certificate(r, m, client=client, progress=True) if method == "quadratic"
                else frames.certify(r, m, client=client))
    _print_cert(cert, args.json)
    return 0


def run_info(args) -> int:
    from ..numeric import frames

    _check_input(args)
    if frames.is_implicit_file(args.file):
        _, meta = frames.load_implicit(args.file)
    else:
        _, meta = frames.load_frame(args.file)
    cert = meta.pop("certificate", None)
    for key in sorted(meta):
        print(f"{key:<22} {meta[key]}")
    if cert:
        print(f"{'coherence (stored)':<22} {cert['coherence_exact']} (max |sum| {cert['max_abs_sum']})")
    return 0
