"""verify: claim-by-claim checks of two ML-theory papers.

* paper S - sparsity and superposition in tied autoencoders with power activations;
* paper N - a perturbation analysis of neural collapse (unconstrained features, central path).

>>> import numpy as np
>>> from verify import exact_loss
>>> W = 0.2 ** (1 / 6) * np.eye(2, 3)   # two features, no superposition, optimal scale (eq. 10)
>>> round(exact_loss(W, p=0.1, m=3, mu="gaussian"), 6)   # = p d mu_4^2 / mu_6 = 0.1 * 2 * 9 / 15
0.12
"""

from __future__ import annotations

from ._validate import VerifyInputError
from ._version import __version__
from .claims import CLAIMS, get_claim

__all__ = ["exact_loss", "CLAIMS", "get_claim", "VerifyInputError", "__version__"]


def __getattr__(name):
    # imported lazily: `import verify` stays light for the CLI and the pytest plugin
    if name == "exact_loss":
        from .numeric.superposition_loss import exact_loss

        return exact_loss
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
