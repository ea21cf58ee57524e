"""``verify frame build | certify | info``: Lemma A.4 frames over GF(2^r), built once, certified exactly, reused.

::

    verify frame build --d 256 --m 2 -o f.npz          # d a power of two
    verify frame build --d 100 --m 2 --general -o g.npz
    verify frame certify f.npz --json                   # re-certify the stored frame
    verify frame certify --d 1024 --m 3                 # certify without materialising the frame
    verify frame info f.npz
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
    b.add_argument("--m", type=int, required=True, help="the m of Lemma 4.1 (>= 1)")
    b.add_argument("--general", action="store_true", help="any d: 2m coefficients, first d^m columns, zero rows")
    b.add_argument("-o", "--output", required=True, metavar="FILE", help="output .npz file")
    b.add_argument("--json", action="store_true", help="print the certificate as JSON")
    b.set_defaults(func=run_build)

    c = fsub.add_parser("certify", help="exact coherence certificate of a frame file (or of --d/--m)")
    c.add_argument("file", nargs="?", help="frame file written by 'verify frame build'")
    c.add_argument("--d", type=int, help="certify the construction for this d without a file")
    c.add_argument("--m", type=int, help="with --d")
    c.add_argument("--general", action="store_true", help="with --d: the general-d construction")
    c.add_argument("--json", action="store_true", help="one JSON object on stdout")
    c.set_defaults(func=run_certify)

    i = fsub.add_parser("info", help="metadata of a frame file")
    i.add_argument("file")
    i.set_defaults(func=run_info)
    for q in (b, c, i):
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


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def run_build(args) -> int:
    from ..numeric import frames

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

    if args.file is not None:
        if args.d is not None or args.m is not None:
            raise VerifyInputError("Argument 'file' must be given alone, not together with --d/--m.")
        frame, _ = frames.load_frame(args.file)
        cert = frames.certify_frame(frame)
    else:
        if args.d is None or args.m is None:
            raise VerifyInputError("Argument 'file' is required (or give both --d and --m).")
        if args.general:
            cert = frames.certify_general(args.d, args.m)
        else:
            from .._validate import verify_int

            cert = frames.certify(_pow2_r(args.d), verify_int(args.m, "m", minimum=1))
    _print_cert(cert, args.json)
    return 0


def run_info(args) -> int:
    from ..numeric import frames

    _, meta = frames.load_frame(args.file)
    cert = meta.pop("certificate", None)
    for key in sorted(meta):
        print(f"{key:<22} {meta[key]}")
    if cert:
        print(f"{'coherence (stored)':<22} {cert['coherence_exact']} (max |sum| {cert['max_abs_sum']})")
    return 0
