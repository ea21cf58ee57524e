r"""The certification kernel (:mod:`verify.certified`) against independent references, on random and adversarial
inputs: exact rationals with denominators from 1 to :math:`10^{30}`, python-flint's ``fmpq_mat`` (determinants,
minors) and Arb balls, rational orthogonal matrices (Cayley transforms) with known, repeated eigenvalues, singular
and near-singular matrices, zero and near-zero margins, wide balls.

The rule checked everywhere: an enclosure contains the exact value, and a "certified" answer is never given when
the truth is not strict. The references never call the kernel's own elimination (:func:`verify.certified.is_pd`):
definiteness is decided by leading / principal minors (``fmpq_mat.det``), eigenvalue counts by construction.

The number of examples comes from the hypothesis profile ``reference`` (``tests/conftest.py``; more with
``VERIFY_REFERENCE_PROFILE=slow``).
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, fmpq, fmpq_mat
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify import certified as C

REF = settings.get_profile("reference")


# --------------------------------------------------------------------------- references
def q(x) -> fmpq:
    """An exact rational of a Fraction / int / float (binary value) / exact arb, without the kernel's code."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, arb):
        assert x.rad() == 0
        m, e = x.mid().man_exp()
        return fmpq(int(m)) * (fmpq(2) ** int(e)) if int(e) >= 0 else fmpq(int(m), 2 ** (-int(e)))
    f = Fraction(x)
    return fmpq(f.numerator, f.denominator)


def as_fmpq_mat(M) -> fmpq_mat:
    M = np.asarray(M, dtype=object)
    return fmpq_mat([[q(x) for x in row] for row in M])


def det(M) -> fmpq:
    return as_fmpq_mat(M).det() if len(M) else fmpq(1)


def ref_pd(M) -> bool:
    """Sylvester's criterion: every leading principal minor > 0."""
    M = np.asarray(M, dtype=object)
    return all(det(M[:k, :k]) > 0 for k in range(1, M.shape[0] + 1))


def ref_psd(M) -> bool:
    """Every principal minor >= 0 (all 2^n - 1 index subsets)."""
    M = np.asarray(M, dtype=object)
    n = M.shape[0]
    return all(det(M[np.ix_(s, s)]) >= 0 for k in range(1, n + 1) for s in itertools.combinations(range(n), k))


def cayley(Kv: list, n: int) -> np.ndarray:
    r"""A rational orthogonal matrix :math:`Q = (I - S)(I + S)^{-1}`, :math:`S` skew with entries ``Kv``."""
    S = fmpq_mat(n, n)
    it = iter(Kv)
    for i in range(n):
        for j in range(i + 1, n):
            v = next(it)
            S[i, j], S[j, i] = v, -v
    I = fmpq_mat([[1 if i == j else 0 for j in range(n)] for i in range(n)])
    Q = (I - S) * (I + S).inv()
    return np.array([[Q[i, j] for j in range(n)] for i in range(n)], dtype=object)


def with_spectrum(D: list, Kv: list) -> np.ndarray:
    """``Q diag(D) Q^T``: a symmetric exact matrix whose eigenvalues (with multiplicity) are ``D``."""
    n = len(D)
    Q = cayley(Kv, n)
    return Q @ np.diag(np.array(D, dtype=object)) @ Q.T


# --------------------------------------------------------------------------- strategies
def rationals(max_den_exp: int = 30, max_num: int = 10 ** 6):
    """Rationals with denominators spanning 1 .. 10^30 (powers of ten, primes, random)."""
    den = st.one_of(st.integers(1, 10).map(lambda e: 10 ** e), st.integers(0, max_den_exp).map(lambda e: 10 ** e),
                    st.integers(1, 10 ** max_den_exp), st.sampled_from([1, 3, 7, 2 ** 61 - 1]))
    return st.builds(lambda a, b: fmpq(a, b), st.integers(-max_num, max_num), den)


def floats(lo: float = -1e6, hi: float = 1e6):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


scalars = st.one_of(rationals(), floats().map(q), st.integers(-10 ** 20, 10 ** 20).map(fmpq))


@st.composite
def symmetric(draw, n_max: int = 5, singular_ok: bool = True):
    """A symmetric exact matrix of one of the kinds where definiteness tests go wrong: random, Gram of rank < n
    (singular PSD), Gram + delta I with delta in {0, +-10^-k} (near-singular either side), with a non-unit scale."""
    n = draw(st.integers(1, n_max))
    kind = draw(st.sampled_from(["random", "gram", "near"]))
    scale = draw(st.sampled_from([fmpq(1), fmpq(1, 10 ** 9), fmpq(10 ** 7), fmpq(3, 7)]))
    if kind == "random":
        M = np.empty((n, n), dtype=object)
        for i in range(n):
            for j in range(i, n):
                M[i, j] = M[j, i] = draw(rationals(12, 10))
        return M * scale
    r = draw(st.integers(0 if singular_ok else n, n))
    X = np.array([[draw(rationals(6, 5)) for _ in range(r)] for _ in range(n)], dtype=object).reshape(n, r)
    G = X @ X.T if r else np.full((n, n), fmpq(0), dtype=object)
    if kind == "near":
        k = draw(st.integers(0, 30))
        sign = draw(st.sampled_from([-1, 0, 1]))
        G = G + np.diag([fmpq(sign, 10 ** k)] * n).astype(object)
    return G * scale


# --------------------------------------------------------------------------- conversions
@REF
@given(st.one_of(floats(-1e300, 1e300), st.floats(-1e-300, 1e-300), st.integers(-10 ** 40, 10 ** 40),
                 st.fractions(max_denominator=10 ** 30)))
def test_to_fmpq_and_to_arb_are_the_exact_value(x):
    num, den = (x.numerator, x.denominator) if not isinstance(x, float) else x.as_integer_ratio()
    v = C.to_fmpq(x)
    assert v == fmpq(num, den) and C.exact_array([[x, x]])[0, 1] == v
    b = C.to_arb(x)
    assert b.contains(v) and b.rad() == 0 or (b.contains(v) and not isinstance(x, (int, float)))


@pytest.mark.parametrize("x", [np.longdouble(1) / 3, np.float32(0.1), np.float16(0.1), -np.longdouble(2) / 7])
def test_to_fmpq_takes_every_float_width_at_its_binary_value(x):
    """Long doubles carry more bits than a float64: rounding through ``float`` would certify a nearby point."""
    num, den = x.as_integer_ratio()
    assert C.to_fmpq(x) == fmpq(int(num), int(den))


# --------------------------------------------------------------------------- definiteness
@REF
@given(symmetric())
def test_is_pd_and_is_psd_agree_with_minors(M):
    assert C.is_pd(M) == ref_pd(M)
    assert C.is_psd(M) == ref_psd(M)


@REF
@given(st.integers(1, 5), st.integers(0, 4), st.data())
def test_is_pd_is_false_on_exact_singular_matrices(n, r, data):
    """A rank-deficient Gram matrix is PSD, never PD, however small its entries or its null direction."""
    r = min(r, n - 1)
    X = np.array([[data.draw(rationals(30, 10 ** 3)) for _ in range(r)] for _ in range(n)], dtype=object)
    G = X.reshape(n, r) @ X.reshape(n, r).T if r else np.full((n, n), fmpq(0), dtype=object)
    assert not C.is_pd(G) and C.is_psd(G)
    assert det(G) == 0 and not ref_pd(G)


@REF
@given(symmetric(n_max=4), st.sampled_from([0.0, 2.0 ** -60, 2.0 ** -20, 2.0 ** -3, 1.0]), st.data())
def test_is_pd_on_balls_is_a_proof_for_every_matrix_inside(M, rad, data):
    """Ball entries: ``True`` only when every symmetric matrix in the box is PD (checked at the centre and at random
    vertices); a box around a singular matrix is never certified."""
    n = M.shape[0]
    mids = np.vectorize(lambda x: float(x.p) / float(x.q), otypes=[float])(M)
    mids = (mids + mids.T) / 2
    balls = np.array([[arb(mids[i, j], rad) for j in range(n)] for i in range(n)], dtype=object)
    centre = np.vectorize(q, otypes=[object])(mids)
    if C.is_pd(balls):
        for _ in range(3):
            V = centre.copy()
            for i in range(n):
                for j in range(i, n):
                    V[i, j] = V[j, i] = centre[i, j] + data.draw(st.sampled_from([-1, 1])) * q(rad)
            assert ref_pd(V) and ref_pd(centre)
    if det(centre) == 0:
        assert not C.is_pd(balls)


# --------------------------------------------------------------------------- inertia and spectra
spectra = st.lists(st.sampled_from([fmpq(-3), fmpq(0), fmpq(1, 3), fmpq(1, 3), fmpq(2), fmpq(10 ** 9, 7),
                                    fmpq(-1, 10 ** 20)]) | rationals(20, 100), min_size=1, max_size=5)


@REF
@given(spectra, st.data())
def test_count_below_counts_eigenvalues_of_known_spectrum(D, data):
    n = len(D)
    Kv = data.draw(st.lists(rationals(4, 9), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    S = with_spectrum(D, Kv)
    t = data.draw(st.one_of(st.sampled_from(D), st.sampled_from(D).map(lambda v: v + fmpq(1, 10 ** 25)),
                            st.sampled_from(D).map(lambda v: v - fmpq(1, 10 ** 25)), rationals(), floats(-20, 20)))
    got = C.count_below(S, t)
    tq = C.to_fmpq(t)
    if any(v == tq for v in D):
        assert got is None  # S - tI is singular: a zero pivot must stop the elimination
    else:
        # None only when a leading minor of S - tI vanishes (elimination without pivoting cannot go on)
        St = S - np.diag([tq] * n).astype(object)
        if all(det(St[:k, :k]) != 0 for k in range(1, n + 1)):
            assert got == sum(1 for v in D if v < tq)
        else:
            assert got is None


@REF
@given(spectra, st.data())
def test_spectrum_matches_never_certifies_a_wrong_spectrum(D, data):
    """Soundness: ``ok`` implies every window (v - eps, v + eps) (exact ends) holds exactly its multiplicity of
    eigenvalues and no eigenvalue lies outside all windows; completeness when the windows are disjoint and hold
    the spectrum with a clear gap."""
    n = len(D)
    Kv = data.draw(st.lists(rationals(4, 9), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    S = with_spectrum(D, Kv)
    values = [float(Fraction(int(v.p), int(v.q))) for v in D]
    mode = data.draw(st.sampled_from(["true", "move", "drop-add", "overlap"]))
    if mode == "move":
        i = data.draw(st.integers(0, n - 1))
        values[i] += data.draw(st.sampled_from([1e-9, 0.5, 3.0, -7.0]))
    elif mode == "drop-add":
        values[data.draw(st.integers(0, n - 1))] = data.draw(floats(-20, 20))
    elif mode == "overlap":
        values = [values[0] + data.draw(st.sampled_from([-1.0, 1.0])) * k * 0.75 for k in range(n)]
    eps = data.draw(st.sampled_from([1e-12, 1e-6, 0.1, 0.5, 1.0, 3e-16]))
    res = C.spectrum_matches(S, values, eps)
    # the reference: groups as documented (a value joins the current group when within eps of its first value)
    groups = []
    for v in sorted(values):
        if groups and abs(v - groups[-1][0]) <= eps:
            groups[-1][1] += 1
        else:
            groups.append([v, 1])
    e = q(eps)
    windows = [(q(v) - e, q(v) + e, m) for v, m in groups]
    inside = lambda lam: any(lo < lam < hi for lo, hi, _ in windows)  # noqa: E731
    truth = all(sum(1 for lam in D if lo < lam < hi) == m for lo, hi, m in windows) and all(inside(l) for l in D)
    if res["ok"]:
        assert truth, (D, values, eps, res)
    disjoint = all(b[0] - a[0] > 2 * eps for a, b in zip(groups, groups[1:]))
    clear = all(abs(lam - lo) > e / 4 and abs(lam - hi) > e / 4 for lam in D for lo, hi, _ in windows)
    if truth and disjoint and clear and eps >= 1e-6:
        ends = [t for lo, hi, _ in windows for t in (lo, hi)]
        if all(C.count_below(S, t) is not None for t in ends):
            assert res["ok"]


def test_spectrum_matches_counts_overlapping_windows_once():
    """Windows (0 +- 1) and (1.5 +- 1) overlap on (0.5, 1): the eigenvalue 0.8 lies in both, 10 in neither. Summed
    per-window counts (1 + 1 = n) would certify the spectrum {0, 1.5} for {0.8, 10}."""
    S = with_spectrum([fmpq(4, 5), fmpq(10)], [fmpq(1, 2)])
    res = C.spectrum_matches(S, [0.0, 1.5], 1.0)
    assert [w["eigenvalues_in_window"] for w in res["windows"]] == [1, 1] and not res["ok"]
    assert C.spectrum_matches(S, [0.8, 10.0], 0.5)["ok"]


def test_spectrum_matches_windows_have_exact_ends():
    r"""The window :math:`(v - \epsilon, v + \epsilon)` with exact ends: the float ``1 - 3e-16`` rounds outward to
    :math:`1 - 3.33\cdot10^{-16}`, which would let the eigenvalue :math:`1 - 3.2\cdot10^{-16}` in."""
    lam = fmpq(1) - fmpq(32, 10 ** 17)
    S = with_spectrum([lam, fmpq(5)], [fmpq(1, 3)])
    assert not C.spectrum_matches(S, [1.0, 5.0], 3e-16)["ok"]
    assert C.spectrum_matches(S, [1.0, 5.0], 4e-16)["ok"]


# --------------------------------------------------------------------------- eigenvalue enclosures
@REF
@given(symmetric(n_max=4), st.integers(1, 4), st.data())
def test_gen_lambda_max_encloses_the_exact_value(B, r, data):
    r"""Exact containment, decided by minors: :math:`hi\,A - B \succeq 0` (so :math:`\lambda_{\max} \le hi`) and
    :math:`lo\,A - B \not\succ 0` (so :math:`\lambda_{\max} \ge lo`); ``A`` positive definite with a condition
    number up to :math:`10^{12}`, or ``I``; ``B`` singular, indefinite, scaled."""
    n = B.shape[0]
    if data.draw(st.booleans()):
        A, I = None, np.diag([fmpq(1)] * n).astype(object)
    else:
        X = np.array([[data.draw(rationals(3, 9)) for _ in range(n)] for _ in range(n)], dtype=object)
        delta = data.draw(st.sampled_from([fmpq(1), fmpq(1, 10 ** 4), fmpq(1, 10 ** 12)]))
        A = X @ X.T + np.diag([delta] * n).astype(object)
        I = A
    try:
        e = C.gen_lambda_max(B, A)
    except VerifyInputError:
        # allowed only where float eigh cannot resolve the pencil (near-singular A)
        assert A is not None and not ref_pd(A * fmpq(10 ** 6) - np.diag([fmpq(1)] * n).astype(object))
        return
    assert ref_psd(I * e.hi - B) and not ref_pd(I * e.lo - B)
    lo, hi = e.bounds()
    assert q(lo) <= e.lo and e.hi <= q(hi)
    if A is None:  # well conditioned: the enclosure is also tight (a loose one would pass the containment)
        assert float(e.hi - e.lo) <= 1e-9 * (1 + abs(float(e.hi)))
        assert C.lambda_max(B).hi == e.hi


@REF
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_op_norm_sq_and_frob_sq_against_exact_gram(m, n, data):
    X = np.array([[data.draw(scalars) for _ in range(n)] for _ in range(m)], dtype=object)
    G = X.T @ X
    e = C.op_norm_sq(X)
    I = np.diag([fmpq(1)] * n).astype(object)
    assert ref_psd(I * e.hi - G) and not ref_pd(I * e.lo - G) if any(x != 0 for x in X.flat) else e.hi >= 0
    assert C.frob_sq(X) == sum((x * x for x in X.flat), fmpq(0))
    # the trace of the Gram matrix bounds lambda_max from above, and lambda_max >= trace / n
    tr = sum((G[i, i] for i in range(n)), fmpq(0))
    assert e.lo <= tr and tr <= n * e.hi


def test_gen_lambda_max_refuses_a_pencil_that_is_not_positive_definite():
    r""":math:`\lambda_{\max}(B, A)` is only an upper bound's certificate for :math:`A \succ 0`; an indefinite or singular
    ``A`` must be refused with the package's error (a bare scipy error or an "enclosure" are both wrong)."""
    B = np.diag([fmpq(0), fmpq(-5)]).astype(object)
    for A in (np.diag([fmpq(1), fmpq(-1)]).astype(object), np.diag([fmpq(1), fmpq(0)]).astype(object),
              np.array([[fmpq(1), fmpq(1)], [fmpq(1), fmpq(1) - fmpq(1, 10 ** 30)]], dtype=object)):
        with pytest.raises(VerifyInputError, match="Argument 'A'"):
            C.gen_lambda_max(B, A)


# --------------------------------------------------------------------------- outward rounding and intervals
@REF
@given(st.one_of(scalars, rationals(30, 10 ** 30), st.sampled_from([fmpq(1, 10 ** 400), -fmpq(1, 10 ** 400),
                                                                    fmpq(10 ** 400), fmpq(0)])),
       st.sampled_from([0.0, 2.0 ** -80, 1e-3, 10.0]))
def test_lower_and_upper_float_round_outward_by_at_most_two_steps(x, rad):
    for v in (x, arb(x, rad) if rad else arb(x)):
        lo_end = q(v.lower()) if isinstance(v, arb) else v
        hi_end = q(v.upper()) if isinstance(v, arb) else v
        lo, hi = C.lower_float(v), C.upper_float(v)
        assert math.isinf(lo) or q(lo) <= lo_end
        assert math.isinf(hi) or hi_end <= q(hi)
        if abs(lo_end) < fmpq(10 ** 300) and abs(hi_end) < fmpq(10 ** 300):
            up2 = math.nextafter(math.nextafter(lo, math.inf), math.inf)
            assert q(up2) > lo_end or lo == up2  # at most two steps below (not uselessly loose)
            dn2 = math.nextafter(math.nextafter(hi, -math.inf), -math.inf)
            assert q(dn2) < hi_end
        e = C.enclosure(v)
        assert e.bounds()[0] == C.lower_float(e.lo) and q(e.bounds()[0]) <= lo_end and hi_end <= q(e.bounds()[1])


@pytest.mark.parametrize("x", [fmpq(10 ** 400), -fmpq(10 ** 400), fmpq(10 ** 400, 3), arb(10) ** 400])
def test_outward_rounding_beyond_the_float_range(x):
    """Beyond the largest float the lower end is the largest float (or -inf) and the upper end +inf (or the most
    negative float), never an OverflowError."""
    lo, hi = C.lower_float(x), C.upper_float(x)
    if x > 0:
        assert lo == np.finfo(float).max and hi == math.inf
    else:
        assert lo == -math.inf and hi == -np.finfo(float).max
    assert C.enclosure(x).bounds() == [lo, hi]


@REF
@given(scalars, scalars, scalars, scalars, st.sampled_from([0.0, 2.0 ** -70, 1.0]))
def test_ratio_interval_contains_every_corner_ratio(a, b, c, d, rad):
    nlo, nhi = min(a, b), max(a, b)
    dlo, dhi = sorted([abs(c), abs(d)])
    if dlo == 0:
        with pytest.raises(VerifyInputError, match="Argument 'den'"):
            C.ratio_interval(C.enclosure(nlo, nhi), C.enclosure(dlo, dhi))
        return
    num = C.enclosure(nlo, nhi) if not rad else C.enclosure(arb(nlo, rad), arb(nhi, rad))
    e = C.ratio_interval(num, C.enclosure(dlo, dhi))
    nl, nh = (nlo, nhi) if not rad else (q(arb(nlo, rad).lower()), q(arb(nhi, rad).upper()))
    corners = [x / y for x in (nl, nh) for y in (dlo, dhi)]
    lo, hi = q(e.lo), q(e.hi)
    assert lo <= min(corners) and max(corners) <= hi
    # tight: within Arb's rounding of the true extremes
    assert float(min(corners) - lo) <= 1e-12 * (1 + abs(float(min(corners))))
    assert float(hi - max(corners)) <= 1e-12 * (1 + abs(float(max(corners))))
    if nlo == nhi and dlo == dhi and not rad:
        assert e.exact and e.lo == nlo / dlo


@REF
@given(st.one_of(rationals(), floats(0, 1e6).map(q)).map(abs), st.one_of(rationals(), floats(0, 1e6).map(q)).map(abs),
       st.sampled_from([0.0, 2.0 ** -70, 0.5]))
def test_sqrt_enclosure_contains_the_square_roots(a, b, rad):
    lo, hi = min(a, b), max(a, b)
    e = C.enclosure(lo, hi) if not rad else C.enclosure(arb(lo, rad), arb(hi, rad))
    if not C.to_arb(e.lo) >= 0:
        with pytest.raises(VerifyInputError, match="Argument 'e'"):
            C.sqrt_enclosure(e)
        return
    s = C.sqrt_enclosure(e)
    assert q(s.lo) ** 2 <= q(e.lo) and q(e.hi) <= q(s.hi) ** 2
    assert float(q(s.hi) - q(s.lo)) <= math.sqrt(float(q(e.hi))) - math.sqrt(float(q(e.lo))) + 1e-12 * (1 + float(hi))


@REF
@given(st.lists(st.one_of(scalars, st.sampled_from([fmpq(0), fmpq(1, 10 ** 30), -fmpq(1, 10 ** 30)]),
                          st.builds(lambda m, r: arb(m, r), floats(-1, 1), st.sampled_from([0.0, 1e-20, 0.5]))),
                min_size=1, max_size=6), st.booleans())
def test_margin_evidence_certifies_exactly_when_every_margin_is_decided(margins, strict):
    lows = [q(m.lower()) if isinstance(m, arb) else m for m in margins]
    holds = all(lo > 0 if strict else lo >= 0 for lo in lows)
    if not holds:
        with pytest.raises(VerifyInputError, match="Argument 'margins'"):
            C.margin_evidence(margins, "w", "r", "c", strict=strict)
        return
    rec = C.margin_evidence(margins, "w", "r", "c", strict=strict, extra=1)
    assert rec["points"] == len(margins) and rec["extra"] == 1 and rec["route"] == "r" and rec["certified"] == "c"
    assert q(rec["margin_lower"]) <= min(lows)  # a lower bound of the smallest margin, never above it
    assert float(min(lows)) - rec["margin_lower"] <= 4 * math.ulp(float(min(lows))) + 5e-324
    assert f"{len(margins)} points" in rec["statement"] and f"{rec['margin_lower']:.3g}" in rec["statement"]


def test_margin_evidence_lower_bound_is_below_margins_that_differ_below_float_resolution():
    """Two margins within 10^-30 of each other round to one float: the record must bound the smaller one."""
    lows = [fmpq(1, 2), fmpq(1, 2) - fmpq(1, 10 ** 30)]
    for order in (lows, lows[::-1]):
        assert q(C.margin_evidence(order, "w", "r", "c")["margin_lower"]) < fmpq(1, 2)


@REF
@given(scalars, scalars)
def test_interval_evidence_reports_the_outward_bounds(a, b):
    e = C.enclosure(min(a, b), max(a, b))
    rec = C.interval_evidence(e, "ratio", "r", "c", k=2)
    assert rec["interval"] == e.bounds() and rec["k"] == 2
    assert q(rec["interval"][0]) <= e.lo and e.hi <= q(rec["interval"][1])
    assert (" exactly" in rec["statement"]) == (a == b and len(str(a)) <= 40)


def test_not_certified_reasons_name_registered_claims():
    from verify.claims import CLAIMS

    ids = {c.id for c in CLAIMS}
    for cid, why in C.NOT_CERTIFIED.items():
        assert cid in ids and C.why_not_certified(cid) == why and len(why) > 20
    assert "no certified recomputation" in C.why_not_certified("N-not-a-claim")


# --------------------------------------------------------------------------- exact derivatives of the loss
class Jet:
    r"""A truncated two-variable jet :math:`a + b\,s + c\,t + e\,st` over exact rationals (:math:`s^2 = t^2 = 0`):
    forward-mode differentiation in exact arithmetic, written here from the definition (not the kernel's series)."""

    def __init__(self, a, b=0, c=0, e=0):
        self.v = tuple(q(x) for x in (a, b, c, e))

    @staticmethod
    def of(x):
        return x if isinstance(x, Jet) else Jet(x)

    def __add__(self, o):
        o = Jet.of(o)
        return Jet(*(x + y for x, y in zip(self.v, o.v)))

    __radd__ = __add__

    def __neg__(self):
        return Jet(*(-x for x in self.v))

    def __sub__(self, o):
        return self + (-Jet.of(o))

    def __rsub__(self, o):
        return Jet.of(o) - self

    def __mul__(self, o):
        o = Jet.of(o)
        a, b, c, e = self.v
        x, y, z, w = o.v
        return Jet(a * x, a * y + b * x, a * z + c * x, a * w + b * z + c * y + e * x)

    __rmul__ = __mul__

    def inv(self):
        a, b, c, e = self.v
        return Jet(1 / a, -b / a ** 2, -c / a ** 2, 2 * b * c / a ** 3 - e / a ** 2)

    def __truediv__(self, o):
        return self * Jet.of(o).inv()


def mat_inv(M: list) -> list:
    """Adjugate-free Gauss-Jordan over Jets (pivot: first entry with non-zero constant part)."""
    n = len(M)
    A = [list(r) + [Jet(int(i == j)) for j in range(n)] for i, r in enumerate(M)]
    for c in range(n):
        p = next(r for r in range(c, n) if A[r][c].v[0] != 0)
        A[c], A[p] = A[p], A[c]
        piv = A[c][c].inv()
        A[c] = [x * piv for x in A[c]]
        for r in range(n):
            if r != c:
                f = A[r][c]
                A[r] = [x - f * y for x, y in zip(A[r], A[c])]
    return [r[n:] for r in A]


def mm(A, B):
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Jet(0)) for j in range(len(B[0]))] for i in range(len(A))]


def loss_jet(H: list, lw: Fraction, lh: Fraction, K: int) -> Jet:
    r"""Objective (1) at :math:`W^*(H) = YH^\top(HH^\top + n\lambda_WI)^{-1}` (the minimiser, from the normal
    equations), on a jet matrix ``H``."""
    d, N = len(H), len(H[0])
    n = N // K
    Y = [[Jet(int(j // n == k)) for j in range(N)] for k in range(K)]
    HT = [list(r) for r in zip(*H)]
    G = mm(H, HT)
    G = [[G[i][j] + (n * lw if i == j else 0) for j in range(d)] for i in range(d)]
    W = mm(mm(Y, HT), mat_inv(G))
    R = mm(W, H)
    sq = lambda A: sum((x * x for r in A for x in r), Jet(0))  # noqa: E731
    res = [[R[k][j] - Y[k][j] for j in range(N)] for k in range(K)]
    return sq(res) / (2 * K * n) + sq(W) * lw / (2 * K) + sq(H) * lh / (2 * K * n)


def frac(x) -> fmpq:
    return q(x)


@st.composite
def ufm_point(draw, d_max: int = 3):
    d, K, n = draw(st.integers(1, d_max)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    ent = st.one_of(rationals(12, 50), floats(-3, 3).map(q))
    H = [[frac(draw(ent)) for _ in range(K * n)] for _ in range(d)]
    D = [[frac(draw(ent)) for _ in range(K * n)] for _ in range(d)]
    lw = frac(draw(st.one_of(st.sampled_from([fmpq(1, 10 ** 6), fmpq(1), fmpq(37, 3)]), floats(1e-3, 50).map(q))))
    lh = frac(draw(st.one_of(st.sampled_from([fmpq(0), fmpq(1, 10 ** 6), fmpq(5, 2)]), floats(0, 10).map(q))))
    return H, D, lw, lh, K


@REF
@given(ufm_point())
def test_directional_derivative_of_loss_against_jets(pt):
    H, D, lw, lh, K = pt
    got = C.directional_derivative_of_loss(np.array(H, dtype=object), np.array(D, dtype=object), lw, lh, K)
    line = [[Jet(h, dd) for h, dd in zip(rh, rd)] for rh, rd in zip(H, D)]
    assert frac(got) == loss_jet(line, lw, lh, K).v[1]


@REF
@given(ufm_point(d_max=2), st.data())
def test_derivative_of_gradient_is_the_mixed_second_derivative_of_the_loss(pt, data):
    r""":math:`\langle E, \tfrac{d}{dt}\nabla\mathcal L(H + tD)\rangle = \partial_s\partial_t\mathcal L(H + tD + sE)` at 0,
    for a random direction ``E`` and every unit direction (so each entry is compared)."""
    H, D, lw, lh, K = pt
    assume(lw > 0)
    dG = C.derivative_of_gradient(np.array(H, dtype=object), np.array(D, dtype=object), lw, lh, K)
    d, N = len(H), len(H[0])
    i, j = data.draw(st.integers(0, d - 1)), data.draw(st.integers(0, N - 1))
    E = [[Fraction(int((a, b) == (i, j))) for b in range(N)] for a in range(d)]
    jet = [[Jet(H[a][b], E[a][b], D[a][b]) for b in range(N)] for a in range(d)]
    assert frac(dG[i, j]) == loss_jet(jet, lw, lh, K).v[3]


@settings(REF, max_examples=max(4, REF.max_examples // 4))  # eight exact jets per example
@given(st.lists(floats(-3, 3), min_size=10, max_size=10))
def test_lemb1_sq_ratio_is_the_exact_gradient_norm_ratio(x):
    """Lemma B.1's squared ratio, with the gradient's entries as exact first derivatives of the loss (jets)."""
    x = np.array(x)
    H, lw, lh = C.central_point(x)
    from verify.objectives import unpack_central

    Hf, lwf, lhf = unpack_central(x)
    assert all(C.to_fmpq(a) == b for a, b in zip(Hf.flat, H.flat)) and C.to_fmpq(lwf) == lw and C.to_fmpq(lhf) == lh
    Hq = [[frac(v) for v in row] for row in H]
    lwq, lhq = frac(lw), frac(lh)
    g2 = fmpq(0)
    for a in range(2):
        for b in range(4):
            jet = [[Jet(Hq[i][j], int((i, j) == (a, b))) for j in range(4)] for i in range(2)]
            g2 += loss_jet(jet, lwq, lhq, 2).v[1] ** 2
    hh = sum((v * v for r in Hq for v in r), fmpq(0))
    assume(hh > 0)
    M = (3 / lwq + lhq) / 4
    assert frac(C.lemb1_sq_ratio(x)) == g2 / (M * M * hh)


# --------------------------------------------------------------------------- the claims' certifiers
@REF
@given(st.lists(floats(-3, 3), min_size=6, max_size=6), st.lists(floats(-1, 1), min_size=6, max_size=6))
def test_lemc3_bound_hypotheses_and_enclosure_exact(la, lb):
    x = np.array(la + lb)

    def gram(v):
        L = np.full((3, 3), fmpq(0), dtype=object)
        for (i, j), t in zip(zip(*np.tril_indices(3)), v):
            L[int(i), int(j)] = q(t)
        return L @ L.T

    A, B = gram(la), gram(lb)
    inside, e = C.lemc3_bound(x)
    assert inside == (ref_pd(A) and ref_pd(A - B))
    if inside:
        assert ref_psd(A * e.hi - B) and not ref_pd(A * e.lo - B)
        assert e.hi < 1 or not ref_pd(A - B)  # the lemma: ||A^-1/2 B A^-1/2|| < 1 inside


@REF
@given(st.lists(floats(-2, 2), min_size=16, max_size=16))
def test_lema2_bound_encloses_the_exact_schur_ratio(z):
    """Numerator and denominator enclosed by exact containment (minors), the ratio's ends by their quotients."""
    Bq = np.array([q(v) for v in z], dtype=object).reshape(4, 4)
    A = Bq @ Bq.T + np.diag([q(1e-9)] * 4).astype(object)
    A22 = as_fmpq_mat(A[2:, 2:]).inv()
    X = A[:2, 2:] @ np.array([[A22[i, j] for j in range(2)] for i in range(2)], dtype=object) @ A[2:, :2]
    e = C.lema2_bound(np.array(z))
    I2, I4 = np.diag([fmpq(1)] * 2).astype(object), np.diag([fmpq(1)] * 4).astype(object)
    # e.lo <= lx / la  and  lx / la <= e.hi for every lx in [lambda(X)], la in [lambda(A)]: check with the exact tests
    ex, ea = C.gen_lambda_max(X), C.gen_lambda_max(A)
    assert ref_psd(I2 * ex.hi - X) and not ref_pd(I2 * ex.lo - X)
    assert ref_psd(I4 * ea.hi - A) and not ref_pd(I4 * ea.lo - A)
    assert q(e.lo) <= ex.lo / ea.hi and ex.hi / ea.lo <= q(e.hi)
    assert e.hi <= 1 or not ref_pd(A)  # the lemma: <= ||A||


@REF
@given(st.lists(floats(-3, 3), min_size=12, max_size=12), floats(-3, 2))
def test_lemc4_bounds_enclose_the_four_exact_ratios(h, a):
    x = np.array(h + [a])
    H = np.array([q(v) for v in h], dtype=object).reshape(3, 4)
    lw = q(10.0 ** a)
    K, n = 2, 2
    Hbar = np.array([[sum(H[i, k * n:(k + 1) * n], fmpq(0)) / n for k in range(K)] for i in range(3)], dtype=object)
    Hc = H - np.repeat(Hbar, n, axis=1)
    ST = H @ H.T / (K * n)
    A = ST + np.diag([lw / K] * 3).astype(object)
    mats = {"(13)": ST, "(14)": Hc @ Hc.T / (K * n), "(15)": H @ H.T / (K * n), "(16)": Hc @ Hc.T / (K * n)}
    out = C.lemc4_bounds(x)
    for key, M in mats.items():
        e = out[key]
        assert ref_psd(A * e.hi - M) and not ref_pd(A * e.lo - M), key
        assert e.hi <= 1, key  # each bound of the lemma holds (tight where try_first proves exactly 1)


@REF
@given(st.lists(floats(-3, 3), min_size=10, max_size=10))
def test_tw_margin_encloses_the_float_objective(x):
    """The float route (:func:`verify.objectives.tw_violation`, numpy) lies in the certified enclosure up to its
    round-off, and the theorem's sign holds."""
    from verify.objectives import tw_violation

    x = np.array(x)
    f = tw_violation(x)
    assume(np.isfinite(f))
    e = C.tw_margin(x)
    lo, hi = e.bounds()
    tol = 1e-7 * (1 + abs(f))
    assert lo - tol <= -f <= hi + tol and hi - lo <= tol
    assert e.hi >= 0


@pytest.mark.parametrize("name,n", [("N-lemC.3", 3), ("S-lemA.2", 2)])
def test_objective_points_are_the_objectives_seeded_draws(name, n):
    from verify.objectives import get_objective

    obj = get_objective(name)
    rng = np.random.default_rng(obj.seed)
    ref = [np.asarray(obj.sampler(rng), dtype=float) for _ in range(n)]
    got = C.objective_points(name, n)
    assert len(got) == n and all(np.array_equal(a, b) for a, b in zip(got, ref))


# --------------------------------------------------------------------------- tightest outward rounding, Arb spectra
def float_candidates(f: float) -> list:
    """The floats two steps either side of ``f`` (the answer of a tightest rounding is among them)."""
    out = [f]
    for direction in (math.inf, -math.inf):
        g = f
        for _ in range(2):
            g = math.nextafter(g, direction)
            out.append(g)
    return [c for c in out if math.isfinite(c)]


TINY = [fmpq(1, 10 ** 400), -fmpq(1, 10 ** 400), fmpq(1, 2 ** 1075), -fmpq(1, 2 ** 1075), fmpq(3, 2 ** 1076),
        q(5e-324), -q(5e-324), q(2.0 ** -1022), fmpq(0)]


@REF
@given(st.one_of(scalars, st.sampled_from(TINY), rationals(30, 10 ** 30).map(lambda v: v / 10 ** 310)),
       st.sampled_from([0.0, 2.0 ** -1070, 2.0 ** -80, 1e-3]))
def test_outward_rounding_is_the_tightest_float_and_keeps_the_sign(x, rad):
    """The largest float <= the lower end and the smallest >= the upper end, by enumeration of the floats around
    it: a tiny positive margin (below the smallest subnormal) rounds down to 0.0, never to a negative float."""
    for v in (x, arb(x, rad) if rad else arb(x)):
        lo_end = q(v.lower()) if isinstance(v, arb) else v
        hi_end = q(v.upper()) if isinstance(v, arb) else v
        near_lo, near_hi = float(Fraction(int(lo_end.p), int(lo_end.q))), float(Fraction(int(hi_end.p), int(hi_end.q)))
        want_lo = max(c for c in float_candidates(near_lo) if q(c) <= lo_end)
        want_hi = min(c for c in float_candidates(near_hi) if q(c) >= hi_end)
        assert C.lower_float(v) == want_lo and C.upper_float(v) == want_hi
        if lo_end >= 0:
            assert C.lower_float(v) >= 0
        if hi_end <= 0:
            assert C.upper_float(v) <= 0
    if x > 0:  # a certified positive margin is never reported with a negative lower bound
        assert C.margin_evidence([x], "w", "r", "c")["margin_lower"] >= 0


def ref_lambda_max_ball(G: np.ndarray):
    """lambda_max of the symmetric exact G: the largest real root of its characteristic polynomial, isolated by
    Arb (fmpz_poly.complex_roots), independent of the kernel's elimination."""
    p = as_fmpq_mat(G).charpoly().numer()
    return max((z.real for z, _ in p.complex_roots()), key=lambda b: b.mid())


@st.composite
def wide_matrices(draw):
    """X of shape (n, m), m possibly > n (wide), rank possibly < min(n, m) (singular Gram), or zero, with entries
    spanning up to 40 decades (large dynamic range) and a non-unit overall scale."""
    n, m = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["random", "low_rank", "zero", "range"]))
    scale = fmpq(10) ** draw(st.integers(-30, 30))
    if kind == "zero":
        return np.full((n, m), fmpq(0), dtype=object)
    ent = lambda: draw(rationals(6, 10 ** 4))  # noqa: E731
    if kind == "low_rank":
        k = draw(st.integers(0, min(n, m)))
        U = np.array([[ent() for _ in range(k)] for _ in range(n)], dtype=object).reshape(n, k)
        W = np.array([[ent() for _ in range(m)] for _ in range(k)], dtype=object).reshape(k, m)
        X = U @ W if k else np.full((n, m), fmpq(0), dtype=object)
    else:
        X = np.array([[ent() for _ in range(m)] for _ in range(n)], dtype=object)
        if kind == "range":
            X = X * np.array([[fmpq(10) ** draw(st.integers(-20, 20)) for _ in range(m)] for _ in range(n)],
                             dtype=object)
    return X * scale


@REF
@given(wide_matrices())
def test_op_norm_sq_and_lambda_max_against_arb_on_zero_singular_wide_and_ranged(X):
    """The enclosure contains lambda_max (decided exactly: lo I - G is not positive definite, hi I - G is positive
    semi-definite, by minors) and is tight relative to lambda_max itself, whatever the scale: an absolute slack
    would give [1e-60, 2e-16] for a matrix of scale 1e-30."""
    G = X.T @ X if X.shape[0] >= X.shape[1] else X @ X.T
    n = G.shape[0]
    I = np.diag([fmpq(1)] * n).astype(object)
    lam = ref_lambda_max_ball(G)
    for e in (C.op_norm_sq(X), C.lambda_max(G)):
        lo, hi = q(e.lo), q(e.hi)
        assert not ref_pd(I * lo - G)      # lo <= lambda_max
        assert ref_psd(I * hi - G)         # lambda_max <= hi
        assert arb(lo) <= lam.upper() or lam.contains(arb(lo)) and arb(hi) >= lam.lower()
        width = hi - lo
        if lam.upper() > 0:
            assert width <= q(lam.mid().upper()) * fmpq(1, 2 ** 30)
        else:  # the zero matrix: lambda_max = 0 enclosed by [0, a subnormal]
            assert lo == 0 and hi <= q(2.0 ** -1000)
    assert C.frob_sq(X) == sum((x * x for x in X.flat), fmpq(0))


def test_frob_sq_and_op_norm_sq_of_empty_matrices_are_zero():
    """No entries: both norms are 0 (an empty sum), not an IndexError or a scipy shape error."""
    for shape in [(0, 3), (3, 0), (0, 0)]:
        X = np.zeros(shape)
        assert C.frob_sq(X) == 0
        assert q(C.op_norm_sq(X).lo) == 0 and q(C.op_norm_sq(X).hi) == 0


@REF
@given(scalars, scalars, st.one_of(floats(), st.integers(-10 ** 6, 10 ** 6), rationals(), st.sampled_from([5e-324]),
                                   st.builds(lambda m, r: arb(m, r), floats(-1, 1), st.sampled_from([0.0, 1e-9]))))
def test_enclosure_shift_by_every_kind_of_number(a, b, c):
    """[lo, hi] + c for a float, int, rational or ball c: the exact shifted ends (balls widen outward)."""
    e = C.enclosure(min(a, b), max(a, b))
    s = e + c
    lo_c = q(c.lower()) if isinstance(c, arb) else q(c)
    hi_c = q(c.upper()) if isinstance(c, arb) else q(c)
    assert q(s.lo) <= q(e.lo) + lo_c and q(e.hi) + hi_c <= q(s.hi)
    if not isinstance(c, arb):
        assert q(s.lo) == q(e.lo) + q(c) and q(s.hi) == q(e.hi) + q(c)
    t = e + C.enclosure(min(a, b), max(a, b))
    assert q(t.lo) == 2 * q(e.lo) and q(t.hi) == 2 * q(e.hi)


# --------------------------------------------------------------------------- inertia at and near the window ends
def charpoly_inertia(S, t) -> tuple:
    r"""``(#eigenvalues < t, #eigenvalues == t)`` of the symmetric exact ``S`` from its characteristic polynomial
    alone (no elimination): :math:`p(x + t)` has only real roots, so Descartes' rule of signs is exact, the number of
    roots :math:`> 0` is the number of sign changes of its coefficients, and the number at 0 the index of its lowest
    non-zero coefficient."""
    from flint import fmpq_poly

    n = S.shape[0]
    p = as_fmpq_mat(S).charpoly()(fmpq_poly([q(t), 1]))
    c = [p[i] for i in range(n + 1)]
    at = next(i for i, x in enumerate(c) if x != 0)
    signs = [x > 0 for x in c if x != 0]
    above = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    return n - above - at, at


def eliminable(S, t) -> bool:
    """Whether every leading principal minor of ``S - tI`` is non-zero (elimination without pivoting goes through)."""
    n = S.shape[0]
    St = S - np.diag([q(t)] * n).astype(object)
    return all(det(St[:k, :k]) != 0 for k in range(1, n + 1))


#: scales far from 1 in both directions (the kernel's exact arithmetic must not care), and one that is not a power of 2
SCALES = [fmpq(1, 10 ** 8), fmpq(1), fmpq(10 ** 8), fmpq(3, 7)]


@st.composite
def adversarial_spectrum(draw):
    """``(D, centres, eps)``: eigenvalues placed on, just inside and just outside the exact window ends
    ``q(c) +- q(eps)`` of float centres ``c``, repeated and clustered, at a non-unit scale; ``centres`` lists each
    centre with the multiplicity it claims (as ``spectrum_matches``' ``values``)."""
    scale = draw(st.sampled_from(SCALES))
    g = draw(st.integers(1, 3))
    gaps = draw(st.lists(st.sampled_from([fmpq(3), fmpq(7, 4), fmpq(5, 2)]), min_size=g, max_size=g))
    start = draw(st.sampled_from([fmpq(-2), fmpq(0), fmpq(1, 3)]))
    cs, acc = [], start
    for gap in gaps:  # centres more than eps apart (each its own group), windows overlap when the gap < 2 eps
        cs.append(float(Fraction(int((acc * scale).p), int((acc * scale).q))))
        acc += gap
    eps = float(Fraction(int((fmpq(1) * scale).p), int((fmpq(1) * scale).q)))
    e = q(eps)
    rel = fmpq(1, 10 ** 14)  # within 1e-14 (relative) of a window end, either side
    D, values = [], []
    for c in cs:
        m = draw(st.integers(1, 2))
        values += [c] * m
        for _ in range(m):
            where = draw(st.sampled_from(["centre", "lo", "hi", "lo-in", "lo-out", "hi-in", "hi-out", "cluster"]))
            lo, hi = q(c) - e, q(c) + e
            width = (abs(lo) + abs(hi) + e) * rel
            D.append({"centre": q(c), "lo": lo, "hi": hi, "lo-in": lo + width, "lo-out": lo - width,
                      "hi-in": hi - width, "hi-out": hi + width, "cluster": q(c) + e * rel}[where])
    while len(D) > 5:  # keep the exact elimination small
        D.pop()
    if draw(st.booleans()):  # a surplus eigenvalue or a missing one
        D.append(draw(st.sampled_from([q(cs[0]), q(cs[-1]) + 10 * e, fmpq(0)])))
    return D, values, eps


@REF
@given(adversarial_spectrum(), st.booleans(), st.data())
def test_count_below_at_and_near_eigenvalues_against_the_characteristic_polynomial(spec, diagonal, data):
    """``count_below`` never returns a wrong count: ``None`` exactly when a leading minor of ``S - tI`` vanishes
    (always when ``t`` is an eigenvalue), else the number of eigenvalues ``< t`` as Descartes' rule counts it on the
    characteristic polynomial; ``t`` on, and within 1e-14 of, repeated and clustered eigenvalues at scales 1e-8 to
    1e8, ``S`` diagonal (every end a zero pivot) or rotated."""
    D, _, _ = spec
    n = len(D)
    Kv = [fmpq(0)] * (n * (n - 1) // 2) if diagonal else data.draw(
        st.lists(rationals(4, 9), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    S = with_spectrum(D, Kv)
    width = (max(abs(v) for v in D) + 1) * fmpq(1, 10 ** 14)
    for t in sorted(set(D)) + [D[0] - width, D[0] + width, fmpq(0)]:
        below, at = charpoly_inertia(S, t)
        assert below == sum(1 for v in D if v < t) and at == sum(1 for v in D if v == t)  # the reference itself
        got = C.count_below(S, t)
        if at:
            assert got is None
        elif eliminable(S, t):
            assert got == below
        else:
            assert got is None


@REF
@given(adversarial_spectrum(), st.booleans(), st.data())
def test_spectrum_matches_is_ok_exactly_when_the_truth_is_strict_and_decidable(spec, diagonal, data):
    """On eigenvalues on, and within 1e-14 of, the exact window ends (diagonal and rotated matrices, scales 1e-8 to
    1e8, repeated and clustered eigenvalues, surplus ones): never an exception; ``ok`` exactly when every open window
    holds its multiplicity, no eigenvalue lies outside them, and every end is decidable by elimination (an
    eigenvalue on an end is never decidable); a window with an undecidable end reports ``None``."""
    D, values, eps = spec
    n = len(D)
    Kv = [fmpq(0)] * (n * (n - 1) // 2) if diagonal else data.draw(
        st.lists(rationals(4, 9), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    S = with_spectrum(D, Kv)
    res = C.spectrum_matches(S, values, eps)
    e = q(eps)
    centres = sorted(set(values))
    windows = [(q(c) - e, q(c) + e, values.count(c)) for c in centres]
    truth = (len(values) == n and all(sum(1 for lam in D if lo < lam < hi) == m for lo, hi, m in windows)
             and all(any(lo < lam < hi for lo, hi, _ in windows) for lam in D))
    decidable = all(eliminable(S, t) for lo, hi, _ in windows for t in (lo, hi))
    assert res["ok"] == (truth and decidable), (D, values, eps, res)
    for w, (lo, hi, m) in zip(res["windows"], windows):
        assert w["multiplicity"] == m
        if eliminable(S, lo) and eliminable(S, hi):
            assert w["eigenvalues_in_window"] == sum(1 for lam in D if lo <= lam < hi)
        else:
            assert w["eigenvalues_in_window"] is None
    if any(lam == t for lam in D for lo, hi, _ in windows for t in (lo, hi)):
        assert not res["ok"]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("end", ["lo", "hi"])
def test_spectrum_matches_with_an_eigenvalue_on_a_window_end_is_not_certified(scale, end):
    """The eigenvalue exactly on an end of an otherwise matching spectrum: no count exists at that end, so the answer
    is "not certified" (``ok`` False, that window ``None``), not an exception; just inside, it is certified."""
    c, eps = float(2 * scale), float(scale / 4)
    lam = q(c) - q(eps) if end == "lo" else q(c) + q(eps)
    other = q(c) + 10 * q(eps)
    for Kv in ([fmpq(0)], [fmpq(1, 3)]):
        S = with_spectrum([lam, other], Kv)
        res = C.spectrum_matches(S, [c, float(other.p) / float(other.q)], eps)
        assert not res["ok"] and res["windows"][0]["eigenvalues_in_window"] is None
        inner = lam + (1 if end == "lo" else -1) * q(eps) * fmpq(1, 10 ** 14)
        S = with_spectrum([inner, other], Kv)
        assert C.spectrum_matches(S, [c, float(other.p) / float(other.q)], eps)["ok"]


def test_spectrum_matches_on_a_singular_matrix_with_a_zero_pivot_end_is_not_certified():
    """``S - aI`` with a zero leading pivot but not singular ([[a, 1], [1, a]], eigenvalues a +- 1): the end is not
    decidable without pivoting, so the spectrum is not certified (and nothing raises), though it is right; the
    singular zero matrix with a window end at 0 likewise."""
    for s in SCALES:
        a = q(float(s))
        S = np.array([[a, s], [s, a]], dtype=object)
        vals = [float((a - s).p) / float((a - s).q), float((a + s).p) / float((a + s).q)]
        eps = float(s)  # window (a - s - s, a) ends at a: its leading pivot a - a = 0
        res = C.spectrum_matches(S, vals, eps)
        assert not res["ok"] and C.count_below(S, a) is None and eliminable(S, a) is False
        Z = np.full((2, 2), fmpq(0), dtype=object)
        assert C.count_below(Z, 0) is None and C.count_below(Z, float(s)) == 2 and C.count_below(Z, -float(s)) == 0
        assert not C.spectrum_matches(Z, [float(s)] * 2, float(s))["ok"]   # window (0, 2s): 0 on its end
        assert C.spectrum_matches(Z, [0.0, 0.0], float(s))["ok"]


@pytest.mark.parametrize("name,n,starts", [("N-lemC.3", 2, 1), ("N-lemC.3", 0, 2), ("S-lemA.2", 1, 3)])
def test_objective_points_search_point_is_the_best_of_that_many_starts(name, n, starts):
    """With ``search_starts`` = s the last point is the best optimised start among the objective's first s seeded
    draws (each start run by :func:`verify.engine.optimise_start`, as the check's maximiser runs it), the same as
    :func:`verify.engine.adversarial_max` with ``n_starts=s``; s is chosen where the maximiser's default number of
    starts (8) finds another point, so an ignored ``search_starts`` shows."""
    from verify.engine import adversarial_max, optimise_start
    from verify.objectives import get_objective

    obj = get_objective(name)
    rng = np.random.default_rng(obj.seed)
    best, best_x = -math.inf, None
    with np.errstate(all="ignore"):
        for _ in range(starts):
            v, x, _ = optimise_start(obj.ratio, np.asarray(obj.sampler(rng), dtype=float), maxiter=obj.maxiter)
            if np.isfinite(v) and v > best:
                best, best_x = v, x
        direct = adversarial_max(obj.ratio, obj.sampler, n_starts=starts, seed=obj.seed, maxiter=obj.maxiter)
        default = adversarial_max(obj.ratio, obj.sampler, seed=obj.seed, maxiter=obj.maxiter)
    got = C.objective_points(name, n, search_starts=starts)
    assert len(got) == n + 1 and np.array_equal(got[-1], best_x) and np.array_equal(got[-1], direct.x)
    assert not np.array_equal(got[-1], default.x)   # the case can tell s starts from the default
    assert all(np.array_equal(a, b) for a, b in zip(got[:n], C.objective_points(name, n)))
    assert len(C.objective_points(name, n, search_starts=0)) == n


def test_lema2_bound_takes_integer_and_float32_points_at_their_exact_values():
    """Integer and float32 points (exactly representable in float64) are certified at the same exact matrix as
    their float64 form: the same enclosure, end for end."""
    z = np.array([3, -1, 0, 2, 1, 4, -2, 0, 0, 1, 5, -3, 2, 0, 1, 1])
    ref = C.lema2_bound(z.astype(float))
    for variant in (z, list(map(int, z)), z.astype(np.float32), z.astype(float) / 8, (z / 8).astype(np.float32)):
        e = C.lema2_bound(np.asarray(variant))
        base = ref if np.asarray(variant).max() > 1 else C.lema2_bound(z.astype(float) / 8)
        assert (e.lo, e.hi) == (base.lo, base.hi)
