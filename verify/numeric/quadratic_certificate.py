"""Compatibility shim: the GF(2)-rank certificates are :mod:`verify.numeric.frames.cert_rank`; re-exported here
so existing imports keep working.

>>> quadratic_certificate(5, 3).max_abs_sum
16
"""

from .frames.cert_rank import (BATCH, QuadraticCertificate, _slice_counts, alternating_rows,  # noqa: F401
                               evaluation_points, gf2_rank, lemma_radical_dims, quadratic_certificate,
                               radical_dim_counts, sums_from_radicals)

__all__ = [
    "gf2_rank", "alternating_rows", "evaluation_points", "lemma_radical_dims", "radical_dim_counts",
    "QuadraticCertificate", "quadratic_certificate", "sums_from_radicals",
]
