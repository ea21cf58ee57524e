"""Curated mutants for paper S's frame claims, Lemma 4.1 and Lemma A.4 (see :mod:`verify.mutants`)."""

from verify.mutants import Mutant

# the frames package (verify/numeric/frames/): one file per layer
FIELD = "verify/numeric/frames/field.py"
BOUNDS = "verify/numeric/frames/bounds.py"
CONS = "verify/numeric/frames/constructions.py"
WHT = "verify/numeric/frames/cert_wht.py"

MUTANTS = [
    # tr: GF(2^r) -> GF(2) through a bit mask
    Mutant("S-lemA.4-trace", FIELD, "    return int(np.sum(bits << np.arange(r)))",
           "    return int(np.sum(bits << np.arange(r))) ^ 1",
           "trace mask with the lowest basis element's trace flipped"),
    Mutant("S-lemA.4-trace", FIELD, "    for _ in range(r):  # parity(z | 2^k) = parity(z) ^ 1 for z < 2^k",
           "    for _ in range(r - 1):  # parity(z | 2^k) = parity(z) ^ 1 for z < 2^k",
           "parity table one bit short (off-by-one range)"),
    # character sums by the Walsh-Hadamard transform
    Mutant("S-lemA.4-weil", FIELD, "    Y = (1.0 - 2.0 * bits.astype(np.float32)).reshape(-1, 2 ** r1, 2 ** (r - r1))",
           "    Y = (1.0 - 2.0 * bits.astype(np.float32)).reshape(-1, 2 ** (r - r1), 2 ** r1)",
           "BLAS Walsh-Hadamard transform with the two Kronecker factors' shapes swapped (odd r)"),
    Mutant("S-lemA.4-weil", WHT, "        out[s * d:(s + F.shape[0]) * d] = F[:, beta].reshape(-1)",
           "        out[s * d:(s + F.shape[0]) * d] = F[:, np.arange(d)].reshape(-1)",
           "character sums indexed by u instead of beta(c_0) (the trace form dropped)"),
    Mutant("S-lemA.4-weil", FIELD, "    return np.asarray(GF(np.arange(2 ** r)) ** (2 * j + 1), dtype=np.int64)",
           "    return np.asarray(GF(np.arange(2 ** r)) ** (2 * j + 2), dtype=np.int64)",
           "even exponents x^(2j+2) in place of the odd x^(2j+1)"),
    # certificate of d = 2^r
    Mutant("S-lemA.4-pow2", WHT, "            F[0, 0] = 0  # c = 0: the diagonal",
           "            F[0, 1] = 0  # c = 0: the diagonal",
           "the diagonal (code 0) not excluded; a real off-diagonal entry dropped instead"),
    Mutant("S-lemA.4-pow2", WHT, "    coh = Fraction(max_abs, dq)", "    coh = Fraction(max_abs, 2 * dq)",
           "coherence normalised by 2d instead of d"),
    Mutant("S-lemA.4-pow2", WHT, "    weil = (2 * m - 2) / math.sqrt(dq)", "    weil = (2 * m - 1) / math.sqrt(dq)",
           "Weil bound with the degree 2m-1 in place of deg - 1 = 2m-2"),
    # the general-d construction
    Mutant("S-lemA.4-general", CONS, "    return r, 2 * m, d ** m", "    return r, 2 * m - 1, d ** m",
           "2m-1 coefficients instead of 2m"),
    Mutant("S-lemA.4-general", WHT, "    n_codes = max(2 ** r, 1 << (n - 1).bit_length())",
           "    n_codes = max(2 ** r, 1 << (n - 1).bit_length() - 1)",
           "certificate scans half the column differences of a partial frame"),
    # Lemma 4.1: "d large enough"
    Mutant("S-lem4.1", BOUNDS, "    c = 4 * m - 2 if general else 2 * m - 2", "    c = 4 * m - 3 if general else 2 * m - 2",
           "Weil threshold constant too small for the general construction"),
    Mutant("S-lem4.1", BOUNDS, "    while (2 ** r) <= c * c:", "    while (2 ** r) < c * c:",
           "threshold off by one power of two at equality (coherence exactly 1 counted as < 1)"),
    # random frames
    Mutant("S-random-frames", CONS, "        return V / np.linalg.norm(V, axis=0, keepdims=True)",
           "        return V / np.linalg.norm(V, axis=1, keepdims=True)",
           "Gaussian frame normalised by rows instead of columns"),
    Mutant("S-random-frames", CONS, "    return rng.choice(np.array([-1.0, 1.0]), size=(d, n)) / math.sqrt(d)",
           "    return rng.choice(np.array([-1.0, 1.0]), size=(d, n)) / d",
           "sign frame scaled by 1/d instead of 1/sqrt(d)"),
]
