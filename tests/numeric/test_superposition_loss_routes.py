r"""Every route a user can ask :func:`exact_loss` and :func:`exact_loss_grad` for runs its own implementation, and
no other (issue 41, gap class (e): a route asked for but never observed).

The routes agree to rounding (the tests of their values compare them with each other and with exact rationals),
so a route that silently runs another one gives the same number: only the implementation that ran can tell. Each
call here records which of the routes' implementations it entered (spies that delegate to the real functions) and
compares that set, whole, with the route asked for; the value is compared with the reference route's as well.
"""

import mpmath
import numpy as np
import pytest

from verify.numeric import _tensor_kernels as TK
from verify.numeric import power_sums as PS
from verify.numeric import superposition_loss as SL

#: the implementations, by the module attribute through which the routes reach them
SPIED = {SL: ("_stats", "_stats_symmetric", "_grad_symmetric", "_collapsed_loss", "_collapsed_loss_grad", "_mp_loss",
              "_mp_loss_power_sums"),
         PS: ("row_power_sums", "RowPowerSums", "TensorPowerSums", "collapsed_sums")}

#: (function, precision, route) -> the implementations it must enter, and only those
EXPECTED = {
    ("loss", "float", "gram"): {"_stats_symmetric"},
    ("loss", "float", "gram_rows"): {"_stats"},
    ("loss", "float", "power_sums"): {"row_power_sums", "RowPowerSums"},
    ("loss", "float", "tensor"): {"TensorPowerSums"},
    ("loss", "float", "collapsed"): {"_collapsed_loss", "collapsed_sums"},
    # with dps set: auto and both gram routes form A in mpmath
    ("loss", "mp", "auto"): {"_mp_loss"},
    ("loss", "mp", "gram"): {"_mp_loss"},
    ("loss", "mp", "gram_rows"): {"_mp_loss"},
    ("loss", "mp", "power_sums"): {"_mp_loss_power_sums", "row_power_sums", "RowPowerSums"},
    ("loss", "mp", "tensor"): {"_mp_loss_power_sums", "TensorPowerSums"},
    ("loss", "mp", "collapsed"): {"_collapsed_loss", "collapsed_sums"},
    ("grad", "float", "gram"): {"_stats_symmetric", "_grad_symmetric"},
    ("grad", "float", "gram_rows"): {"_stats"},
    ("grad", "float", "power_sums"): {"RowPowerSums"},
    ("grad", "float", "tensor"): {"TensorPowerSums"},
    ("grad", "float", "collapsed"): {"_collapsed_loss_grad", "collapsed_sums"},
}


def _spy(monkeypatch, entered: set) -> None:
    for module, names in SPIED.items():
        for name in names:
            real = getattr(module, name)
            if isinstance(real, type):
                spy = type(name, (real,), {"__init__": _recording_init(real, name, entered)})
            else:
                def spy(*args, _real=real, _name=name, **kwargs):
                    entered.add(_name)
                    return _real(*args, **kwargs)
            monkeypatch.setattr(module, name, spy)


def _recording_init(real: type, name: str, entered: set):
    def __init__(self, *args, **kwargs):
        entered.add(name)
        real.__init__(self, *args, **kwargs)
    return __init__


def _cases():
    for (fn, prec, route) in EXPECTED:
        marks = []
        if (fn, route) == ("grad", "collapsed") and not TK.AVAILABLE:
            marks = [pytest.mark.skip(reason="the collapsed gradient runs the numba kernels (refused without numba)")]
        yield pytest.param(fn, prec, route, id=f"{fn}-{prec}-{route}", marks=marks)


@pytest.mark.parametrize("m", [3, 5])
@pytest.mark.parametrize("fn, prec, route", list(_cases()))
def test_each_route_runs_its_own_implementation(monkeypatch, fn, prec, route, m):
    rng = np.random.default_rng(m * 101 + len(route))
    d, n = 3, 11
    W = rng.normal(scale=0.7, size=(d, n))              # non-unit scale: the routes' values differ from 0 and 1
    p = 0.3
    want = SL.exact_loss(W, p, m, "gaussian(1/2)", route="gram_rows") if fn == "loss" else \
        SL.exact_loss_grad(W, p, m, "gaussian(1/2)", route="gram_rows")
    entered: set = set()
    _spy(monkeypatch, entered)
    if fn == "loss":
        got = SL.exact_loss(W, p, m, "gaussian(1/2)", route=route, dps=30 if prec == "mp" else None)
        assert isinstance(got, mpmath.mpf) == (prec == "mp")
        assert float(got) == pytest.approx(want, rel=1e-12)
    else:
        got = SL.exact_loss_grad(W, p, m, "gaussian(1/2)", route=route)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert entered == EXPECTED[fn, prec, route]
