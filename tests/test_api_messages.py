"""Every refusal of the one-parameter sweep, compared whole with the recorded messages.

The sweep (tests/test_api_parameters.py) asserts that a bad parameter is refused by its own name, in the house form;
it cannot tell a wrong allowed range, a garbled value or a message's lost tail, which is what a user reads. This test
runs the same cases and compares each message, whole, with ``tests/data/refusal_messages.json``. A message changed on
purpose is recorded again with ``VERIFY_RECORD_MESSAGES=1 pytest tests/test_api_messages.py`` and the difference of
the JSON file reviewed like any other output (the test then fails once, saying it recorded).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import test_api_parameters as AP
from recorded import compare_with_record

RECORD = Path(__file__).parent / "data" / "refusal_messages.json"


def _shown(exc: BaseException) -> str:
    """The message as a user reads it; object addresses (``at 0x7f...``) are not part of it."""
    return f"{type(exc).__name__}: " + re.sub(r" at 0x[0-9a-f]+", " at 0x?", str(exc))


def _messages() -> dict:
    funcs, calls = AP.public(), AP.valid()
    out = {}
    for q in sorted(calls):
        for p, label, value in AP.bad_cases(q):
            if (q, p, label) in AP.MISSING:
                continue
            with np.errstate(all="ignore"):
                try:
                    funcs[q](**{**calls[q], p: value})
                except Exception as exc:  # noqa: BLE001 - every refusal recorded, its type too (the sweep asserts it)
                    out[f"{q}|{p}|{label}"] = _shown(exc)
                else:
                    out[f"{q}|{p}|{label}"] = "(accepted)"
    return out


def test_every_refusal_message_is_the_recorded_one():
    compare_with_record(_messages(), RECORD, "VERIFY_RECORD_MESSAGES", "messages")
