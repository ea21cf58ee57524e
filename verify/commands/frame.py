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
    verify frame table --d 256                                      # every construction vs Welch / Levenstein
"""

from __future__ import annotations

import json


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
                   help="bch only: write the parameters and the certificate, not the signs (use with frame_operator)")
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

    t = fsub.add_parser("table", help="every construction at d: n, certified coherence, Welch / Levenstein ratios")
    t.add_argument("--d", type=int, required=True, help="a power of two")
    t.add_argument("--json", action="store_true", help="one JSON list on stdout")
    t.set_defaults(func=run_table)

    i = fsub.add_parser("info", help="metadata of a frame file")
    i.add_argument("file")
    i.set_defaults(func=run_info)
    for q in (b, c, i, t):
        q.error = _raise


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
    from ..numeric.frame_codes import frame_table

    rows = frame_table(_pow2_r(args.d) and args.d)
    if args.json:
        print(json.dumps([row.as_dict() for row in rows], sort_keys=True))
        return 0
    head = f"{'construction':<13}{'param':<10}{'n':>14}{'coherence':>12}{'Welch':>10}{'ratio':>8}{'Levenstein':>12}{'ratio':>8}  note"
    print(f"frames at d = {args.d} (coherence certified exactly; ratio = coherence / bound)")
    print(head)
    for row in rows:
        coh = "-" if row.coherence_exact is None else row.coherence_exact
        lev = "-" if row.levenstein_bound is None else f"{row.levenstein_bound:.4g}"
        print(f"{row.construction:<13}{row.parameter:<10}{row.n_columns:>14}{coh:>12}{row.welch_bound:>10.4g}"
              f"{_fmt(row.ratio_to_welch):>8}{lev:>12}{_fmt(row.ratio_to_levenstein):>8}  {row.note}")
    return 0


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def _code_args(args, m_given: bool):
    """Validated construction name; refuses options that do not belong to it."""
    from .._validate import VerifyInputError, verify_choice
    from ..numeric.frame_codes import CONSTRUCTIONS

    cons = verify_choice(args.construction, "construction", CONSTRUCTIONS)
    if cons != "bch":
        if m_given or args.general:
            raise VerifyInputError(f"Argument 'construction' must be bch to use --m/--general, not {cons!r}.")
        if getattr(args, "implicit", False):
            raise VerifyInputError(f"Argument 'construction' must be bch with --implicit, not {cons!r}.")
    elif args.delta is not None:
        raise VerifyInputError("Argument 'delta' must be given only with --construction dg, not with bch.")
    return cons


def _build_code(args) -> int:
    from ..numeric import frame_codes, frames

    r = _pow2_r(args.d)
    frame = frame_codes.build_code_frame(args.construction, r, args.delta)
    cert = frame_codes.code_certificate(args.construction, r, args.delta, method="wht")
    frames.save_frame(frame, args.output, cert)
    if args.json:
        _print_json(cert)
    else:
        print(f"wrote {args.output}: {frame.n_rows} x {frame.n_columns} {args.construction} frame, "
              f"coherence {cert.coherence_exact}")
    return 0


def _build_implicit(args) -> int:
    from .._validate import VerifyInputError, verify_int
    from ..numeric import frame_operator, frames
    from ..numeric.quadratic_certificate import quadratic_certificate

    if args.general:
        raise VerifyInputError("Argument 'general' must not be combined with --implicit (d must be a power of two).")
    r, m = _pow2_r(args.d), verify_int(args.m, "m", minimum=1)
    op = frame_operator.ImplicitFrame(r, m)
    cert = quadratic_certificate(r, m) if m <= 3 else frames.certify(r, m)
    frame_operator.save_implicit(op, args.output, cert)
    if args.json:
        _print_json(cert)
    else:
        print(f"wrote {args.output}: implicit {op.d} x {op.n} frame (parameters only), coherence {cert.coherence_exact}")
    return 0


def _print_json(cert) -> None:
    print(json.dumps(cert.as_dict(), sort_keys=True))


def run_build(args) -> int:
    from .._validate import VerifyInputError
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
    if args.json:
        _print_cert(cert, True)
    else:
        print(f"wrote {args.output}: {frame.n_rows} x {frame.n_columns} frame, coherence {cert.coherence_exact}")
    return 0


def run_certify(args) -> int:
    from .._validate import VerifyInputError
    from ..numeric import frames

    from .._validate import verify_choice
    from ..numeric import frame_codes, frame_operator
    from ..numeric.quadratic_certificate import quadratic_certificate

    method = verify_choice(args.method, "method", ("wht", "quadratic"))
    cons = _code_args(args, args.m is not None)
    if args.file is not None:
        if args.d is not None or args.m is not None or cons != "bch" or args.delta is not None:
            raise VerifyInputError("Argument 'file' must be given alone, not together with --d/--m/--construction.")
        if frame_operator.is_implicit_file(args.file):
            op, _ = frame_operator.load_implicit(args.file)
            cert = (quadratic_certificate(op.r, op.m) if op.m <= 3 and op.n == 2 ** (op.r * op.m)
                    else frames.certify(op.r, op.m, n_columns=op.n, irreducible_poly=op.irreducible_poly))
        else:
            frame, _ = frames.load_frame(args.file)
            cert = frames.certify_frame(frame)
    elif cons != "bch":
        if args.d is None:
            raise VerifyInputError(f"Argument 'd' is required with --construction {cons}.")
        cert = frame_codes.code_certificate(cons, _pow2_r(args.d), args.delta,
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
    from ..numeric.quadratic_certificate import quadratic_certificate

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
    from ..numeric import frame_operator, frames

    if frame_operator.is_implicit_file(args.file):
        _, meta = frame_operator.load_implicit(args.file)
    else:
        _, meta = frames.load_frame(args.file)
    cert = meta.pop("certificate", None)
    for key in sorted(meta):
        print(f"{key:<22} {meta[key]}")
    if cert:
        print(f"{'coherence (stored)':<22} {cert['coherence_exact']} (max |sum| {cert['max_abs_sum']})")
    return 0
