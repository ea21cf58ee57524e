"""Paper S, the frames over GF(2^r) (Lemma 4.1, Lemma A.4, and the frames beyond them): adversarial and
hypothesis-necessity searches, and the violation ratios they maximise.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verify.necessity import DEFAULT_BUDGET, FAST_BUDGET, run_row
from verify.objectives import get_objective, replay_point

from proofs_checks._searches import _params, _record, _replayed, necessity_rows


@pytest.mark.parametrize("row", _params(necessity_rows("S/frames")))
def test_hypothesis_necessity(row, verdict):
    """Default tier: a search stops at its first counterexample (needed rows: one or a few starts, up to verify
    search's default budget); the rows it cannot break run FAST_BUDGET starts here, DEFAULT_BUDGET in the slow tier."""
    _record(verdict, row, run_row(row, budget=DEFAULT_BUDGET if row.expect == "needed" else FAST_BUDGET))


@pytest.mark.parametrize("name", _replayed("S/frames"))
def test_replay_route_equals_float_ratio_at_the_seeded_start(verdict, name):
    r"""The replay route of an objective (exact rationals or an mpmath ladder) at the check's seeded start equals
    the float64 ratio within the registry's own float slack ``tol`` (relative, at least 1e-9: the float ratio's
    round-off), and the violation flag it reports agrees with the float one unless the value lies within that
    slack of the threshold. A point outside the hypotheses (``nan``) is ``nan`` by both routes and never a
    violation."""
    import math

    obj = get_objective(name)
    x = obj.sampler(np.random.default_rng(obj.seed))
    out = replay_point(name, x)
    fv = out["float_value"]
    assert out["objective"] == name and out["claim"] == obj.claim and out["threshold"] == obj.threshold
    if not math.isfinite(fv):
        assert out["violates"] is False and "nan" in out["value"]
        kind = "nan"
    else:
        text = out["value"]
        v = float(Fraction(text)) if "/" in text else float(text)
        slack = max(obj.tol, 1e-9)
        assert abs(v - fv) <= slack * max(1.0, abs(fv)), (name, v, fv)
        if abs(fv - obj.threshold) > slack * max(1.0, abs(obj.threshold)):
            assert out["violates"] == (fv > obj.threshold)
        kind = "exact" if "/" in text else "mpmath"
    verdict.verified(method=f"num: replay route ({kind}) == float64 ratio at the seeded start",
                     evidence={"objective": name, "float_value": fv, "replay_value": out["value"], "seed": obj.seed})
