"""Documented defaults, observed through behaviour: an omitted argument acts as its documented default.

A default that no call ever leaves out is never checked (a mutated ``seed: int = 0`` -> ``1`` keeps "same seed, same
numbers" true). The rule for seeds is the package's: every seeded public function of the mathematics takes seed 0
when none is given, so two sessions that omit it get the same numbers. The calls are the one-parameter sweep's valid
calls (tests/test_api_parameters.py), so every seeded function of the swept modules is covered as it joins them.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
import test_api_parameters as AP

from verify.numeric import superposition_loss as SL
from verify.symbolic import upper_bounds as SUB


#: fields of a result that are measured on the host, not computed from the arguments (loss_to_accuracy's costs in
#: CPU seconds and the text that quotes them): left out of the comparison
TIMED_FIELDS = {"predicted", "reason"}


def _plain(value):
    """A comparable form of a result: dataclasses and records by their fields (less the timed ones), arrays as
    arrays."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in TIMED_FIELDS}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "x") and hasattr(value, "fun"):          # scipy's OptimizeResult
        return {"x": np.asarray(value.x), "fun": value.fun}
    return value


def test_an_omitted_seed_is_seed_zero():
    table = {**AP.valid(), **AP.valid_s(), **AP.valid_frames()}
    funcs = AP.public()
    checked = []
    for qual, kwargs in sorted(table.items()):
        f = funcs.get(qual)
        if f is None or isinstance(f, type) or "seed" not in kwargs:
            continue
        if inspect.signature(f).parameters["seed"].default is None:   # None: a documented fresh random draw
            continue
        rest = {k: v for k, v in kwargs.items() if k != "seed"}
        np.testing.assert_equal(_plain(f(**rest)), _plain(f(**rest, seed=0)), err_msg=qual)
        checked.append(qual)
    assert {"verify.numeric.superposition_loss.rb_loss_samples", "verify.numeric.superposition_loss.monte_carlo_loss",
            "verify.numeric.superposition_loss.loss_to_accuracy", "verify.numeric.ufm.solve_ufm",
            "verify.numeric.frames.random_frame"} <= set(checked), checked


def test_rb_samples_default_seed_draws_what_seed_zero_draws_and_not_seed_one():
    """Both sides: the omitted seed's arrays are seed 0's bit for bit, and differ from seed 1's (so the comparison
    above can tell seeds apart at this size)."""
    W = np.random.default_rng(3).normal(size=(3, 40)) * 0.8
    y0, h0 = SL.rb_loss_samples(W, 0.2, 3, "laplace", samples=8)
    y, h = SL.rb_loss_samples(W, 0.2, 3, "laplace", samples=8, seed=0)
    y1, _ = SL.rb_loss_samples(W, 0.2, 3, "laplace", samples=8, seed=1)
    assert y0.tobytes() == y.tobytes() and h0.tobytes() == h.tobytes() and y1.tobytes() != y0.tobytes()


@pytest.mark.parametrize("q,rr", [(1, 1), (2, 3), (3, 2), (2, 4)])
def test_lemA3_gradient_residual_shape_and_default_dimensions(q, rr):
    """The residual of Lemma A.3's gradient is the q x rr zero matrix (C is q x rr); omitted, q and rr are the
    documented 2 and 3: its shape is asserted, not only its zeros."""
    import sympy

    R = SUB.lemA3_gradient_residual(q, rr)
    assert isinstance(R, sympy.MatrixBase) and R.is_zero_matrix and R.shape == (q, rr)
    if (q, rr) == (2, 3):
        D = SUB.lemA3_gradient_residual()
        assert D.shape == (2, 3) and D.is_zero_matrix and SUB.lemA3_gradient_residual(2).shape == (2, 3)
