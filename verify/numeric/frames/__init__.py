r"""Frames over :math:`\mathbb F_{2^r}` (paper S, Lemma 4.1 / A.4, and beyond), as a library with one-way layers.

Each layer imports only the layers above it in this list (never a later one):

0. :mod:`.bounds`, :mod:`.delsarte_lp` - lower bounds on coherence (Welch, Levenstein, the exactly certified
   Delsarte LP bound) and the Weil threshold; no frame code at all;
1. :mod:`.field` - the field (galois), the trace, the trace form, Walsh-Hadamard transforms;
2. :mod:`.description` - :class:`Frame`, the frame description every other layer passes around;
3. :mod:`.constructions` - the paper's BCH-dual frame (d = 2^r and general d), Kerdock, Delsarte-Goethals,
   random frames: each produces a :class:`Frame` (or its sign rows);
4. certificates, reading a description and never a file: :mod:`.cert_wht` (Walsh-Hadamard),
   :mod:`.cert_rank` (GF(2) rank / radical), :mod:`.cert_codes` (Kerdock / DG);
5. :mod:`.operator` - the implicit (matrix-free) operator;
6. :mod:`.fileformat` - save / load, digest, format versions, :class:`LoadedFrame` exports;
7. :mod:`.catalogue` - the frame table, the best frame for a size, re-certifying a loaded frame;
   :mod:`.theorem42` (Thm 4.2 with code frames; uses :mod:`verify.numeric.lower_bound`, so it is not
   imported here).

This face re-exports the public API (the old module paths ``verify.numeric.frame_codes``, ``frame_operator``,
``quadratic_certificate`` and ``frame_lower_bound`` are retired: import from here or from a layer).

>>> cert = certify(3, 2)
>>> (cert.max_abs_sum, cert.n_columns, cert.coherence <= cert.weil_bound)
(4, 64, True)
"""

from .bounds import (LowerBound, best_lower_bound, levenstein_bound, levenstein_bound_sq, weil_threshold_d,
                     welch_bound, welch_bound_sq)
from .delsarte_lp import LPBound, certify_lp_polynomial, gegenbauer_x, lp_bound, lp_value
from .field import (CHUNK_ELEMENTS, MAX_R, TABLE_MAX_R, _digits, _hadamard32, _poly_int, _trace_table, _work_dtype,
                    fast_trace, field_of, fwht, parity_table, power_table, sign_bits, trace_form, trace_mask, wht_rows)
from .description import MAX_FRAME_BITS, Frame, _check_size, _frame_size
from .constructions import (CHUNK_FORMS, CONSTRUCTIONS, build_code_frame, build_frame, build_frame_reference,
                            build_general_frame, code_parameters, code_sign_bits, general_parameters, random_frame)
from .cert_wht import (Certificate, CertificateRecord, _check_codes, _ratio, _sum_chunks, certify, certify_general,
                       character_sums, gram_coherence)
from .cert_rank import (BATCH, QuadraticCertificate, alternating_rows, evaluation_points, gf2_rank,
                        lemma_radical_dims, quadratic_certificate, radical_dim_counts, sums_from_radicals)
from .cert_codes import CodeCertificate, code_certificate
from .operator import CODE_MAX_R, ImplicitCodeFrame, ImplicitFrame, frame_matvec_torch, fwht_kron
from .fileformat import (FORMAT_VERSION, LoadedFrame, _bad_file, _digest, _legacy_digest, is_implicit_file,
                         load_frame, load_implicit, save_frame, save_implicit)
from .catalogue import (TABLE_MAX_FORMS, BestFrame, TableRow, best_frame, certify_frame, code_scan_size,
                        coherence_one_reason, frame_table)

__all__ = [
    "MAX_R", "field_of", "parity_table", "trace_mask", "fast_trace", "trace_form", "power_table",
    "fwht", "wht_rows", "sign_bits", "Frame", "build_frame", "build_general_frame", "general_parameters",
    "build_frame_reference", "character_sums", "Certificate", "certify", "certify_general",
    "welch_bound", "levenstein_bound", "weil_threshold_d", "gram_coherence", "random_frame",
    "save_frame", "load_frame", "certify_frame",
    # beyond the old frames module
    "welch_bound_sq", "levenstein_bound_sq", "LowerBound", "best_lower_bound", "LPBound", "lp_bound",
    "CONSTRUCTIONS", "code_parameters", "build_code_frame", "code_sign_bits", "CodeCertificate", "code_certificate",
    "gf2_rank", "alternating_rows", "evaluation_points", "lemma_radical_dims", "radical_dim_counts",
    "QuadraticCertificate", "quadratic_certificate", "sums_from_radicals", "ImplicitFrame", "ImplicitCodeFrame",
    "fwht_kron",
    "frame_matvec_torch", "save_implicit", "load_implicit", "is_implicit_file", "LoadedFrame", "TableRow",
    "frame_table", "BestFrame", "best_frame", "coherence_one_reason",
]
