"""Paper S, the frames over GF(2^r) (Lemma 4.1, Lemma A.4, and the frames beyond them): adversarial and
hypothesis-necessity searches, and the violation ratios they maximise.
"""

from __future__ import annotations


import pytest


from proofs_checks._searches import _params, _replayed, check_necessity, check_replay, necessity_rows


@pytest.mark.parametrize("row", _params(necessity_rows("S/frames")))
def test_hypothesis_necessity(row, verdict):
    """Default tier (:func:`proofs_checks._searches.check_necessity`)."""
    check_necessity(verdict, row)


@pytest.mark.parametrize("name", _replayed("S/frames"))
def test_replay_route_equals_float_ratio_at_the_seeded_start(verdict, name):
    """The replay route equals the float64 ratio at the seeded start (:func:`proofs_checks._searches.check_replay`)."""
    check_replay(verdict, name)
