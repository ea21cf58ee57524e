"""Tests of verify/numeric/distributions.py (exact moments, validation, samplers)."""

import doctest

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as hs

import verify.numeric.distributions as D
from verify.numeric.distributions import (Gaussian, Laplace, MomentSequence, Rademacher, Uniform,
                                          get_distribution)


def test_doctests():
    assert doctest.testmod(D, raise_on_error=False).failed == 0


DENSITIES = {  # name: (density, support) for an independent route to the moments: mpmath quadrature
    "gaussian": (lambda x: mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf]),
    "gaussian(1/2)": (lambda x: mpmath.npdf(x, 0, mpmath.sqrt(0.5)), [-mpmath.inf, 0, mpmath.inf]),
    "uniform": (lambda x: mpmath.mpf(1) / 2, [-1, 1]),
    "uniform(3)": (lambda x: mpmath.mpf(1) / 6, [-3, 3]),
    "laplace": (lambda x: mpmath.exp(-abs(x)) / 2, [-mpmath.inf, 0, mpmath.inf]),
    "laplace(1/2)": (lambda x: mpmath.exp(-2 * abs(x)), [-mpmath.inf, 0, mpmath.inf]),
}


@pytest.mark.parametrize("name", sorted(DENSITIES))
def test_exact_moments_match_quadrature_of_density(name):
    dist = get_distribution(name)
    density, support = DENSITIES[name]
    with mpmath.workdps(20):
        for k in range(0, 11):
            ref = mpmath.quad(lambda x: x ** k * density(x), support)
            scale = max(1, float(dist.moment(k + k % 2)))
            # quadrature at 20 digits: 1e-14 relative to the moment's scale is far above its error
            assert abs(mpmath.mpf(int(dist.moment(k).p)) / int(dist.moment(k).q) - ref) < 1e-14 * scale
            assert isinstance(dist.moment(k), sympy.Rational)


def test_rademacher_moments():
    assert Rademacher().moments(6) == [1, 0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("name", ["gaussian(2)", "uniform", "laplace", "rademacher"])
def test_sampler_moments(name):
    dist = get_distribution(name)
    x = dist.sample(np.random.default_rng(0), (200_000,))
    for k in (2, 4):
        sample = x ** k
        se = sample.std() / np.sqrt(sample.size)
        assert abs(sample.mean() - float(dist.moment(k))) <= 4.5 * se  # 4.5 sigma, fixed seed
    assert abs(x.mean()) <= 4.5 * x.std() / np.sqrt(x.size)


def test_object_construction_and_names():
    assert get_distribution(Gaussian(variance=sympy.Rational(1, 3))).moment(2) == sympy.Rational(1, 3)
    assert Gaussian(0.5).moment(4) == sympy.Rational(3, 4)
    assert Uniform(half_width=2).moment(2) == sympy.Rational(4, 3) and Laplace(scale=2).moment(2) == 8
    with pytest.raises(ValueError, match="'width'"):
        Uniform(width=2)
    assert repr(Uniform(2)) == "uniform(2)" and repr(Laplace()) == "laplace" and repr(Rademacher()) == "rademacher"
    assert get_distribution(" Gaussian ( 2 ) ").moment(2) == 2
    assert Gaussian(2).strong_log_concavity() == 2 and Laplace().strong_log_concavity() is None
    assert isinstance(get_distribution([0, 1, 0, 1]), MomentSequence)


def test_moment_sequence_quadrature_matches_moments():
    ms = MomentSequence([0, 1, 0, 3, 0, 15, 0, 105])  # Gaussian up to mu_8 -> 5-point Gauss-Hermite rule
    nodes, weights = ms.quadrature()
    assert len(nodes) == 5
    for k in range(0, 10):
        target = float(Gaussian().moment(k))
        assert np.dot(weights, nodes ** k) == pytest.approx(target, rel=1e-10, abs=1e-10)


def test_moment_sequence_finite_support():
    ms = MomentSequence([sympy.Rational(k % 2 == 0) * (1 + 9 ** (k // 2)) / 2 for k in range(1, 9)])
    nodes, weights = ms.quadrature()
    assert np.allclose(np.sort(nodes), [-3, -1, 1, 3]) and np.allclose(weights, 0.25)


@settings(max_examples=30, deadline=None)
@given(hs.lists(hs.tuples(hs.fractions(min_value=0, max_value=4), hs.integers(1, 5)), min_size=1, max_size=4))
def test_moment_sequences_of_symmetric_discrete_laws_validate(atoms):
    total = sum(w for _, w in atoms)
    moments = [sum(sympy.Rational(w, total) * sympy.Rational(x) ** k for x, w in atoms) if k % 2 == 0 else 0
               for k in range(1, 9)]
    ms = MomentSequence(moments)
    nodes, weights = ms.quadrature()
    for k in (2, 4, 6):
        assert np.dot(weights, nodes ** k) == pytest.approx(float(moments[k - 1]), rel=1e-7, abs=1e-9)


HANKEL = "Argument 'moments' must be a valid moment sequence (Hankel matrix (mu_(i+j)) positive semidefinite), "


@pytest.mark.parametrize("bad,message", [
    ([1, 1], "Argument 'moments' must be symmetric (odd moments 0), not mu_1 = 1."),
    ([0, 1, 0.5, 3], "Argument 'moments' must be symmetric (odd moments 0), not mu_3 = 1/2."),
    ([0, -1], HANKEL + "not ['0', '-1']."),
    ([0, 1, 0, 0.5], HANKEL + "not ['0', '1', '0', '1/2']."),
    ([0, 2, 0, 3, 0, 1], HANKEL + "not ['0', '2', '0', '3', '0', '1']."),
    ([0, float("nan")], "Argument 'moments' must be finite, not nan (mu_2)."),
    ([0, float("inf")], "Argument 'moments' must be finite, not inf (mu_2)."),
    ([1], "Argument 'moments' must be a sequence [mu_1, mu_2, ...] of length >= 2, not [1]."),
    ("0,1", "Argument 'moments' must be a sequence [mu_1, mu_2, ...] of length >= 2, not '0,1'."),
    ([0, "x"], "Argument 'moments' must hold real numbers, not 'x' (mu_2)."),
])
def test_invalid_moment_sequences(bad, message):
    """Each refusal whole: the parameter, the rule broken and the offending value as the caller wrote it."""
    with pytest.raises(ValueError) as info:
        MomentSequence(bad)
    assert str(info.value) == message


def test_moment_beyond_given_order():
    with pytest.raises(ValueError, match="'k'"):
        MomentSequence([0, 1, 0, 3]).moment(6)


@pytest.mark.parametrize("bad", ["cauchy", "gaussian(-1)", "gaussian(0)", "rademacher(2)", "gaussian(x)", 3, None])
def test_bad_names(bad):
    with pytest.raises(ValueError) as err:
        get_distribution(bad)
    assert "gaussian" in str(err.value) or "variance" in str(err.value)


def test_bad_moment_order():
    with pytest.raises(ValueError, match="'k'"):
        Gaussian().moment(-1)
    with pytest.raises(ValueError, match="'K'"):
        Gaussian().moments(1.5)


@pytest.mark.parametrize("name", ["gaussian", "gaussian(1/2)", "uniform", "uniform(3)", "laplace", "laplace(1/2)",
                                  "rademacher"])
def test_moment_by_quadrature_matches_table(name):
    """The package's density route to the moments agrees with the closed forms (dps ladder 15/30)."""
    dist = get_distribution(name)
    for k in (0, 1, 2, 4, 6, 10, 14):
        exact = dist.moment(k)
        for dps in (15, 30):
            with mpmath.workdps(dps):
                got = D.moment_by_quadrature(name, k)
                # tanh-sinh at dps digits: relative error far below 10^(5 - dps)
                err = abs(got - mpmath.mpf(int(exact.p)) / int(exact.q))
                assert err <= mpmath.mpf(10) ** (5 - dps) * max(1, float(exact))


def test_moment_by_quadrature_refuses_moment_sequences_and_bad_k():
    with pytest.raises(D.VerifyInputError, match="'mu'"):
        D.moment_by_quadrature(MomentSequence([0, 1, 0, 3]), 2)
    with pytest.raises(D.VerifyInputError, match="'k'"):
        D.moment_by_quadrature("gaussian", -1)
    with pytest.raises(D.VerifyInputError, match="'dps'"):
        D.moment_by_quadrature("gaussian", 2, dps=2)
    assert D.Rademacher().density(0) is None and D.Gaussian().atoms() is None


LAWS = [Gaussian(), Gaussian(sympy.Rational(1, 2)), Uniform(3), Laplace(), Rademacher(), MomentSequence([0, 1, 0, 3])]


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
@pytest.mark.parametrize("method,name", [("moment", "k"), ("moments", "K")])
@pytest.mark.parametrize("bad", [-1, -7, 1.5, True, "2", None])
def test_every_laws_moment_methods_refuse_a_bad_order_whole(law, method, name, bad):
    """The methods' own parameters (the function sweeps call functions, not methods): every law's ``moment(k)`` and
    ``moments(K)`` refuse a negative, fractional, boolean or non-number order whole, naming it."""
    with pytest.raises(D.VerifyInputError) as err:
        getattr(law, method)(bad)
    assert str(err.value) == f"Argument '{name}' must be an integer >= 0, not {bad!r}."


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
def test_moments_lists_mu_0_to_K(law):
    """The other side: at K = 0 and K = 3 the list is [mu_0 .. mu_K], mu_0 = 1, the odd moments 0."""
    assert law.moments(0) == [1]
    got = law.moments(3)
    assert got == [law.moment(k) for k in range(4)] and got[0] == 1 and got[1] == got[3] == 0 and got[2] > 0
