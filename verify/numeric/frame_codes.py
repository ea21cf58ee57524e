"""Compatibility shim: the Kerdock / Delsarte-Goethals frames now live in :mod:`verify.numeric.frames`
(:mod:`~verify.numeric.frames.constructions`, :mod:`~verify.numeric.frames.cert_codes`,
:mod:`~verify.numeric.frames.catalogue`). This module re-exports them so existing imports keep working.

>>> code_certificate("kerdock", 6).coherence_exact
'1/8'
"""

from .frames.catalogue import TABLE_MAX_FORMS, TableRow, frame_table  # noqa: F401
from .frames.cert_codes import CodeCertificate, code_certificate  # noqa: F401
from .frames.constructions import (CHUNK_FORMS, CONSTRUCTIONS, _form_bits, _tables, build_code_frame,  # noqa: F401
                                   code_parameters, code_sign_bits)

__all__ = ["CONSTRUCTIONS", "code_parameters", "build_code_frame", "code_sign_bits", "CodeCertificate",
           "code_certificate", "frame_table", "TableRow"]
