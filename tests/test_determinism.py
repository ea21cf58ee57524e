"""A check's recorded evidence does not depend on what ran before it in the same process, so the report is the same
byte for byte however pytest-xdist (or verify.xdist_schedule) places the checks on workers.

The case found: scipy's ``eigsh`` without ``v0`` starts ARPACK from a generator that lives for the whole process;
two runs of ``verify report -n 2`` that placed the checks differently recorded norms differing in the 14th digit."""

import json
import os
import subprocess
import sys
from pathlib import Path

from verify.check_ids import check_nodeid
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the checks that call ARPACK (scipy.sparse.linalg.eigsh) on an operator (node ids found where they are defined)
ARPACK_CHECKS = [check_nodeid("test_matrix_free_exact_F_equals_dense_at_a_minimiser"),
                 check_nodeid("test_matrix_free_first_order_F_equals_dense_and_structured_spectrum")]


def _evidence(tmp_path, before: str) -> list:
    out = tmp_path / f"checks{len(before)}.json"
    code = (f"{before}\nimport pytest, sys\n"
            f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--verify-json={out}', *{ARPACK_CHECKS!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(out.read_text())["checks"]


def test_arpack_checks_record_the_same_digits_after_other_arpack_calls(tmp_path):
    fresh = _evidence(tmp_path, "")
    # another check's eigsh earlier in the same worker: moves ARPACK's process-wide generator
    after = _evidence(tmp_path, "import numpy as np\nfrom scipy.sparse.linalg import eigsh\n"
                                "eigsh(np.diag(np.arange(1.0, 30.0)), k=1, return_eigenvectors=False)")
    assert [c["outcome"] for c in fresh] == ["passed", "passed"]
    assert json.dumps(fresh, sort_keys=True) == json.dumps(after, sort_keys=True)


# ----------------------------------------------------------------------------- issue 39: different environments
def _doc(versions=None, numerics=None, verdict="supported"):
    """A report document (as 'verify report --json' writes it) with one experiment and one proof claim."""
    ev = {"median": 0.4}
    if numerics is not None:
        ev["numerics"] = numerics
    doc = {"claims": [{"id": "N-fig6-interference", "paper": "N", "verdict": verdict, "scale": "quick", "evidence": ev},
                      {"id": "S-eq9", "paper": "S", "verdict": "verified", "evidence": {}}], "beyond": []}
    if versions is not None:
        doc["environment"] = {"versions": versions, "blas_threads": "1"}
    return doc


PINNED = {"pinned": True, "aten_cpu_capability": "AVX2", "mkl_cbwr": "AVX2", "torch_threads": 1,
          "versions": {"torch": "2.13.0", "numpy": "2.4.6"}, "replaced": {"ATEN_CPU_CAPABILITY": "default"}}


def test_compare_says_when_two_reports_come_from_different_environments():
    from verify.reporters.compare import compare, environment_changes, format_changes

    base = _doc({"torch": "2.13.0", "numpy": "2.4.6"}, PINNED)
    same = _doc({"torch": "2.13.0", "numpy": "2.4.6"}, dict(PINNED, replaced={}))   # the user's overridden knobs
    assert environment_changes(base, same) == []                                     # changed no number: not a change
    assert format_changes(compare(base, same)) == "compare: no verdict, severity or scale changed\n"
    other = _doc({"torch": "2.12.1", "numpy": "2.4.6"}, dict(PINNED, aten_cpu_capability="AVX512", pinned=False,
                                                         versions={"torch": "2.12.1", "numpy": "2.4.6"}))
    ch = compare(base, other)
    assert ch == []                       # no verdict moved: the exit code stays 0 (environments are not verdicts)
    fields = {e["field"]: (e["old"], e["new"]) for e in ch.environment}
    assert fields == {"versions.torch": ("2.13.0", "2.12.1"), "numerics.versions.torch": ("2.13.0", "2.12.1"),
                      "numerics.aten_cpu_capability": ("AVX2", "AVX512"), "numerics.pinned": (True, False)}
    text = format_changes(ch)
    assert "different environments (4 difference(s))" in text and "numerics.aten_cpu_capability" in text
    assert "AVX2 -> AVX512" in text
    # with a verdict change as well: both are said, the verdict change first
    moved = compare(base, _doc({"torch": "2.12.1", "numpy": "2.4.6"}, PINNED, verdict="inconclusive"))
    assert [(c["id"], c["field"]) for c in moved] == [("N-fig6-interference", "verdict")]
    assert moved.environment == [{"field": "versions.torch", "old": "2.13.0", "new": "2.12.1"}]
    out = format_changes(moved).splitlines()
    assert out[0] == "compare: 1 change(s)" and out[2].startswith("compare: the two reports come from different")
    # an older report without any environment: every recorded entry shows against None
    assert {e["field"] for e in environment_changes(_doc(), base)} >= {"versions.torch", "numerics.pinned"}


KERNELS = """
import sys
import numpy as np
from verify.numeric import _tensor_kernels as TK
from verify.numeric.power_sums import TensorPowerSums
if not TK.AVAILABLE:
    sys.exit(3)
rng = np.random.default_rng(11)
out = []
for d, n, m in ((10, 203, 3), (4, 37, 5)):          # the tiled accumulation (d = 10, m = 3) and the rows one
    W = rng.normal(size=(d, n)) * 1.7
    t = TensorPowerSums(W, m, kernel="numba")
    g = t.grad(rng.normal(size=n), [rng.normal(size=n) * 0.1 ** k for k in range(1, m + 1)])
    out += [np.asarray(x).tobytes().hex() for x in (*t.T, g)]
print("\\n".join(out))
"""


def test_tensor_kernels_give_the_same_bits_for_a_generic_an_avx2_and_the_host_target():
    """The exact loss's numba kernels (verify.numeric._tensor_kernels) sum in the order their code writes, whatever
    width LLVM vectorises for: compiled for a generic x86-64 (SSE2, no FMA instruction), for Haswell (AVX2, FMA) and
    for this host (numba's default), values and gradient agree bit for bit (issue 39; fast-math without reassoc and
    contract). (LLVM does not know ``NUMBA_CPU_NAME=host``: it ignores the name and compiles for a generic CPU.)"""
    runs = {}
    for cpu in ("generic", "haswell", None):
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
        # a named CPU with NUMBA_CPU_FEATURES empty compiles for that CPU's own features: without it numba adds the
        # host's (AVX-512 here), and "haswell" would not be an AVX2 build
        env.update({"NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": ""} if cpu else {}, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, "-c", KERNELS], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=900)
        if proc.returncode == 3:
            pytest.skip("numba is not installed (the optional extra verify[fast])")
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[cpu] = proc.stdout.split()
    assert len(runs[None]) == (3 + 1) + (5 + 1) and runs["generic"] == runs["haswell"] == runs[None]
