import mpmath
import numpy as np
import sympy

from verify.engine import adversarial_max, exact_zero, jsonable, precision_ladder, random_rational_matrix


def test_random_rational_matrix_is_exact_and_seeded():
    a = random_rational_matrix(np.random.default_rng(3), 2, 3)
    b = random_rational_matrix(np.random.default_rng(3), 2, 3)
    assert a == b and all(isinstance(x, sympy.Rational) for x in a)


def test_exact_zero():
    x = sympy.Symbol("x")
    assert exact_zero((x + 1) ** 2 - x**2 - 2 * x - 1)
    assert not exact_zero((x + 1) ** 2 - x**2)


def test_precision_ladder_agrees_and_detects_disagreement():
    good = precision_ladder(lambda: mpmath.zeta(3))
    assert good.agrees() and good.discrepancy < 1e-13
    # a computation whose answer depends on the precision (catastrophic cancellation) must not agree
    bad = precision_ladder(lambda: ((mpmath.mpf(1) + mpmath.mpf(10) ** -20) - 1) * mpmath.mpf(10) ** 20)
    assert not bad.agrees(digits=10)


def test_adversarial_max_finds_the_maximum():
    res = adversarial_max(lambda x: -((x[0] - 1.5) ** 2) + 2.0, lambda rng: rng.normal(size=1), n_starts=3, seed=1)
    assert abs(res.best - 2.0) < 1e-6 and abs(res.x[0] - 1.5) < 1e-3


def test_adversarial_max_skips_nan_regions():
    res = adversarial_max(lambda x: float("nan") if x[0] < 0 else -x[0], lambda rng: np.array([1.0]), n_starts=2)
    assert np.isfinite(res.best)


def test_jsonable():
    out = jsonable({"a": np.float64(1.5), "b": mpmath.mpf(2), "c": sympy.Rational(1, 3), "d": np.arange(2),
                    "e": float("nan")})
    assert out == {"a": 1.5, "b": "2.0", "c": "1/3", "d": [0, 1], "e": "nan"}
