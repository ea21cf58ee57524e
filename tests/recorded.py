"""Outputs a user reads, compared whole with a file recorded in ``tests/data`` (refusal messages, signatures).

A record changed on purpose is written again by running its test with the record's environment variable set (the
test then fails once, saying it recorded) and the difference of the JSON file reviewed like any other output.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


def compare_with_record(got: dict, record: Path, env_var: str, what: str) -> None:
    """Assert ``got`` equals the JSON ``record`` key for key (the first 20 differences shown); with ``env_var`` set,
    write ``got`` as the record instead and fail, saying so."""
    if os.environ.get(env_var):
        record.write_text(json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        pytest.fail(f"recorded {len(got)} {what} in {record}: review the difference and run again without {env_var}")
    want = json.loads(record.read_text(encoding="utf-8"))
    assert got.keys() == want.keys(), sorted(set(got) ^ set(want))[:20]
    wrong = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
    assert not wrong, "\n".join(f"{k}:\n  got  {g}\n  want {w}" for k, (g, w) in list(wrong.items())[:20])
