import math

import numpy as np
import pytest

from verify._validate import (
    VerifyInputError,
    verify_array,
    verify_choice,
    verify_int,
    verify_nonnegative,
    verify_odd_m,
    verify_positive,
    verify_probability,
    verify_square_symmetric,
)


@pytest.mark.parametrize("m", [0, 2, 4, -1, 3.0, "3", True])
def test_odd_m_rejects(m):
    with pytest.raises(VerifyInputError, match="'m' must be an odd integer >= 1"):
        verify_odd_m(m)


@pytest.mark.parametrize("m", [1, 3, 5, np.int64(7)])
def test_odd_m_accepts(m):
    assert verify_odd_m(m) == int(m)


@pytest.mark.parametrize("p", [0, -0.1, 1.0000001, math.nan, math.inf, "x"])
def test_probability_rejects(p):
    with pytest.raises(ValueError, match=r"'p' must be a real number in \(0, 1\]"):
        verify_probability(p)


def test_probability_keeps_exact_type():
    import sympy

    half = sympy.Rational(1, 2)
    assert verify_probability(half) is half
    assert verify_probability(1) == 1


def test_positive_and_nonnegative():
    with pytest.raises(ValueError, match="'lam_W' must be a finite real number > 0"):
        verify_positive(0.0, "lam_W")
    with pytest.raises(ValueError, match="'lam_H' must be a finite real number >= 0"):
        verify_nonnegative(-1e-9, "lam_H")
    assert verify_nonnegative(0, "lam_H") == 0


def test_array_shape_and_finiteness():
    with pytest.raises(ValueError, match=r"'W' must have shape \(3, \*\)"):
        verify_array(np.zeros((2, 4)), "W", shape=(3, None))
    with pytest.raises(ValueError, match="'W' must be finite"):
        verify_array([[1.0, np.nan]], "W")
    with pytest.raises(ValueError, match="'W' must be a 2-D array"):
        verify_array([1.0, 2.0], "W", ndim=2)
    assert verify_array([[1, 2]], "W").dtype == np.float64


def test_square_symmetric():
    with pytest.raises(ValueError, match="'A' must be symmetric"):
        verify_square_symmetric([[1.0, 2.0], [0.0, 1.0]], "A")
    with pytest.raises(ValueError, match="'A' must be a square matrix"):
        verify_square_symmetric(np.zeros((2, 3)), "A")


def test_int_and_choice():
    with pytest.raises(ValueError, match="'K' must be an integer >= 2 and <= 5"):
        verify_int(6, "K", minimum=2, maximum=5)
    with pytest.raises(ValueError, match="'paper' must be one of 'S', 'N'"):
        verify_choice("X", "paper", ("S", "N"))


def test_a_refusal_is_one_line_whatever_value_it_shows():
    """A value shown in a refusal (a numpy matrix prints over several lines) keeps the message on one line, in the
    validators' messages and in any message the package writes itself."""
    M = np.ones((3, 3)) + 1j
    with pytest.raises(VerifyInputError) as info:
        verify_int(M, "K", minimum=1)
    assert "\n" not in str(info.value) and str(info.value).startswith("Argument 'K' must be an integer >= 1, not array(")
    assert str(VerifyInputError(f"Argument 'x' must be real, not {M!r}.")) == (
        "Argument 'x' must be real, not " + " ".join(repr(M).split()) + ".")
    assert str(VerifyInputError("Argument 'x'  keeps  its spacing.")) == "Argument 'x'  keeps  its spacing."
