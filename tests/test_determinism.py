"""A check's recorded evidence does not depend on what ran before it in the same process, so the report is the same
byte for byte however pytest-xdist (or verify.xdist_schedule) places the checks on workers.

The case found: scipy's ``eigsh`` without ``v0`` starts ARPACK from a generator that lives for the whole process;
two runs of ``verify report -n 2`` that placed the checks differently recorded norms differing in the 14th digit."""

import json
import subprocess
import sys
from pathlib import Path

from verify.check_ids import check_nodeid

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
