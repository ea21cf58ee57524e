"""The public signatures, defaults included, compared whole with the recorded ones (issue 41, gap class (e): a
default never observed).

A default is what a user gets without asking: ``kmax=6`` moments, ``tol=1e-15``, ``method="blas"``. The checks pass
arguments explicitly or cannot tell one default from a neighbouring one (a seventh moment computed, a looser
tolerance that still reaches rounding), so a changed default passes them and changes every call that omits it. The
API pages print these signatures; this test pins them: every public callable of the mathematics (the modules of
the one-parameter sweep and :mod:`verify.symbolic`) has its ``inspect.signature`` recorded in
``tests/data/public_signatures.json``. A signature changed on purpose is recorded again with
``VERIFY_RECORD_SIGNATURES=1 pytest tests/test_api_signatures.py`` and the difference reviewed.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path

import test_api_parameters as AP
from recorded import compare_with_record

RECORD = Path(__file__).parent / "data" / "public_signatures.json"
MODULES = AP.MODULES + ("verify.symbolic.central_path", "verify.symbolic.frames", "verify.symbolic.lower_bound",
                        "verify.symbolic.perturbation", "verify.symbolic.superposition_loss",
                        "verify.symbolic.upper_bounds")


def signatures() -> dict:
    out = {}
    for qual, obj in AP.public(MODULES).items():
        try:
            sig = str(inspect.signature(obj))
        except (TypeError, ValueError):       # a builtin without a signature: nothing to pin
            continue
        out[qual] = re.sub(r" at 0x[0-9a-f]+", " at 0x?", sig)
    return out


def test_every_public_signature_is_the_recorded_one():
    compare_with_record(signatures(), RECORD, "VERIFY_RECORD_SIGNATURES", "signatures")


def test_the_record_covers_the_defaults_a_user_omits():
    """The record holds every public callable of the listed modules (none skipped for want of a signature) and
    their defaults, a documented one among them."""
    want = json.loads(RECORD.read_text(encoding="utf-8"))
    n_callable = sum(callable(getattr(importlib.import_module(m), name)) for m in MODULES
                     for name in importlib.import_module(m).__all__)
    assert len(want) == n_callable
    assert "kmax: 'int' = 6" in want["verify.numeric.upper_bounds.centred_slc_1d"]
