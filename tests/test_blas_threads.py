"""verify.pytest_plugin holds every BLAS library at VERIFY_BLAS_THREADS (default 1), also the ones loaded after
pytest_configure (scipy's own OpenBLAS, loaded when a check module imports scipy.linalg): unlimited, it ran at
one thread per core inside each xdist worker, oversubscribing the cores."""

import os
import subprocess
import sys
import textwrap

CHECK = textwrap.dedent('''
    import scipy.linalg  # loaded at collection, after pytest_configure, as in the check modules


    def test_threads():
        from threadpoolctl import threadpool_info

        blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
        assert blas and all(i["num_threads"] == {want} for i in blas), [(i["filepath"], i["num_threads"]) for i in blas]
''')


def test_a_blas_library_loaded_after_configure_runs_at_the_plugins_thread_count(tmp_path):
    # a fresh pytest process (this one loaded scipy before its plugin was configured), with the thread variables
    # of the environment removed, as on a user's machine; the check module must be the first to import scipy
    for want in (1, 2):
        (tmp_path / "test_blas_probe.py").write_text(CHECK.format(want=want))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                                 "MKL_NUM_THREADS", "PYTEST_ADDOPTS")}
        env["VERIFY_BLAS_THREADS"] = str(want)
        res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                              "-p", "no:xdist", str(tmp_path / "test_blas_probe.py")], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stdout[-2000:]
