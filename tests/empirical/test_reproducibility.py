"""The experiments give the same per-seed effects, bit for bit, whatever numerical path the user's environment asks
for (issue 39): a few SGD steps of the quick Fig. 6 preset (the package's own training route: ``reproduce_interference``
with its BatchNorm kernel, two seeds, all five settings) in fresh processes under different ``ATEN_CPU_CAPABILITY``,
``MKL_CBWR``, ``NUMBA_CPU_NAME`` and thread counts. The package pins torch's and MKL's AVX2 path before torch is
imported (:mod:`verify.empirical.numerics`); the control run opts out (``VERIFY_NUMERICS=native``) on torch's default
kernels and must give other bits, so the equality is the pin's doing, not the run's insensitivity."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is the optional extra verify[torch]; the experiments train networks")
pytest.importorskip("sklearn", reason="the quick preset trains on scikit-learn's digits (the verify[torch] extra)")

from verify.empirical.numerics import host_supports_pin  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: the environment variables a run's numerical path could depend on; each run starts without them, then sets its own
KNOBS = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "NUMBA_CPU_NAME", "OMP_NUM_THREADS", "VERIFY_BLAS_THREADS",
         "VERIFY_NUMERICS", "PYTEST_XDIST_WORKER_COUNT", "MKL_NUM_THREADS")

# one fresh process: a reduced quick preset (2 seeds, 3 epochs of 2 steps, 20 images per class), effects as float.hex
WORKER = """
import json, sys
from verify.empirical import neural_collapse as nc     # selects the pinned path before torch is imported
nc._plot_interference = lambda *a, **k: None           # the figure is not the subject (and matplotlib is slow to load)
out = nc.reproduce_interference(sys.argv[1], quick=True, device="cpu",
                                preset={"n_seeds": 2, "epochs": 3, "per_class": 20})
d, m = out["decision"], out["mechanism"]
effects = {n: [float(v).hex() for v in c["effects"]]
           for n, c in {**d["comparisons"], **d["descriptive"], **m["comparisons"]}.items()}
print(json.dumps({"effects": effects, "numerics": out["numerics"]}))
"""

#: the user's environments: as it comes (numba compiles for the host), the scalar kernels with a generic numba target,
#: another MKL branch and one OpenMP thread, explicit AVX2 with numba's Haswell (AVX2) target and two threads; last the
#: control, opted out of the pin on the scalar kernels
RUNS = {
    "as it comes": {},
    "default kernels, generic numba, MKL COMPATIBLE, 1 thread": {
        "ATEN_CPU_CAPABILITY": "default", "NUMBA_CPU_NAME": "generic", "MKL_CBWR": "COMPATIBLE",
        "OMP_NUM_THREADS": "1"},
    "avx2 kernels, haswell numba, 2 threads": {
        "ATEN_CPU_CAPABILITY": "avx2", "NUMBA_CPU_NAME": "haswell", "OMP_NUM_THREADS": "2", "VERIFY_BLAS_THREADS": "2"},
    "control: not pinned, default kernels": {"VERIFY_NUMERICS": "native", "ATEN_CPU_CAPABILITY": "default"},
}


def _run(name, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in KNOBS}
    env.update(RUNS[name], PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    out_dir = tmp_path / f"run{list(RUNS).index(name)}"
    proc = subprocess.run([sys.executable, "-c", WORKER, str(out_dir)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"{name}: {proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not host_supports_pin()[0], reason=f"the pinned path needs x86-64 AVX2: {host_supports_pin()[1]}")
def test_per_seed_effects_are_the_same_bits_under_every_environment(tmp_path):
    with ThreadPoolExecutor(len(RUNS)) as pool:     # four processes at once: each waits mostly on its imports
        res = dict(zip(RUNS, pool.map(lambda n: _run(n, tmp_path), RUNS)))
    ref = res["as it comes"]
    assert len(ref["effects"]) == 4 and all(len(v) == 2 for v in ref["effects"].values())
    for name in list(RUNS)[:3]:
        num = res[name]["numerics"]
        assert num["pinned"] is True and num["aten_cpu_capability"] == "AVX2" and num["mkl_cbwr"] == "AVX2", name
        assert res[name]["effects"] == ref["effects"], name
    # the knobs reached the runs: the user's values were replaced and recorded; numba compiled for the generic target
    second = res["default kernels, generic numba, MKL COMPATIBLE, 1 thread"]["numerics"]
    assert second["replaced"] == {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}
    third = res["avx2 kernels, haswell numba, 2 threads"]["numerics"]
    assert second["numba_cpu_name"] == "generic" and third["numba_cpu_name"] == "haswell"
    assert third["torch_threads"] == min(2, len(os.sched_getaffinity(0)))
    # power: without the pin the same seeds on torch's scalar kernels train to other floats
    control = res["control: not pinned, default kernels"]
    assert control["numerics"]["pinned"] is False and control["numerics"]["aten_cpu_capability"] == "DEFAULT"
    assert control["effects"] != ref["effects"]


REFUSAL = """
import os, torch                                      # torch first: on the kernels ATEN_CPU_CAPABILITY names
from verify.empirical import numerics
try:
    numerics.require_pinned("cpu")
except numerics.NumericsError as exc:
    print("REFUSED", exc)
os.environ["VERIFY_NUMERICS"] = "native"
rec = numerics.require_pinned("cpu")
print("NATIVE", rec["pinned"], rec["aten_cpu_capability"], rec["path"])
"""


@pytest.mark.skipif(not host_supports_pin()[0], reason=f"the pinned path needs x86-64 AVX2: {host_supports_pin()[1]}")
def test_a_run_refuses_when_torch_came_first_on_other_kernels_and_says_what_to_do():
    env = {k: v for k, v in os.environ.items() if k not in KNOBS}
    env.update(ATEN_CPU_CAPABILITY="default", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", REFUSAL], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    refused = [ln for ln in proc.stdout.splitlines() if ln.startswith("REFUSED")]
    assert len(refused) == 1 and "DEFAULT kernels" in refused[0] and "VERIFY_NUMERICS=native" in refused[0]
    assert "ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2" in refused[0]
    assert "NATIVE False DEFAULT not pinned: VERIFY_NUMERICS=native" in proc.stdout


def test_a_machine_without_avx2_runs_with_a_warning_and_records_it(monkeypatch):
    from verify.empirical import numerics

    monkeypatch.setattr(numerics, "host_supports_pin", lambda: (False, "this CPU lacks AVX2"))
    monkeypatch.delenv("VERIFY_NUMERICS", raising=False)
    with pytest.warns(numerics.NumericsWarning, match="this CPU lacks AVX2: this run uses the machine's own path"):
        rec = numerics.require_pinned("cpu")
    assert rec["pinned"] is False and rec["path"].startswith("not pinned: this CPU lacks AVX2")


@pytest.mark.parametrize("vendor,pinnable", [("AuthenticAMD", False), ("HygonGenuine", False),
                                             ("GenuineIntel", True), (None, True)])
def test_only_an_intel_avx2_cpu_can_pin_mkl_and_the_others_say_why(monkeypatch, vendor, pinnable):
    from verify.empirical import numerics

    monkeypatch.setattr(numerics, "_has_avx2", lambda: (True, ""))
    monkeypatch.setattr(numerics, "_cpu_vendor", lambda: vendor)
    ok, why = numerics.host_supports_pin()
    assert ok is pinnable
    assert why == ("" if pinnable else f"this CPU is not an Intel one ({vendor}), and MKL takes its reproducible "
                                        f"AVX2 branch (MKL_CBWR=AVX2) on Intel CPUs only")
    # before torch is imported: an Intel CPU gets both pins; another AVX2 CPU ATen's AVX2 kernels only
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delenv("VERIFY_NUMERICS", raising=False)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx512")
    monkeypatch.setenv("MKL_CBWR", "AUTO")
    monkeypatch.setattr(numerics, "_REPLACED", {})
    assert numerics.pin_environment() is pinnable
    assert os.environ["ATEN_CPU_CAPABILITY"] == "avx2"
    assert os.environ["MKL_CBWR"] == ("AVX2" if pinnable else "AUTO")
    assert numerics._REPLACED == ({"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "AUTO"} if pinnable
                                  else {"ATEN_CPU_CAPABILITY": "avx512"})


def test_a_non_intel_cpus_run_warns_and_records_why(monkeypatch):
    from verify.empirical import numerics

    monkeypatch.setattr(numerics, "_has_avx2", lambda: (True, ""))
    monkeypatch.setattr(numerics, "_cpu_vendor", lambda: "AuthenticAMD")
    monkeypatch.delenv("VERIFY_NUMERICS", raising=False)
    with pytest.warns(numerics.NumericsWarning, match=r"not an Intel one \(AuthenticAMD\).*: this run uses the "):
        rec = numerics.require_pinned("cpu")
    assert rec["pinned"] is False
    assert rec["path"].startswith("not pinned: this CPU is not an Intel one (AuthenticAMD)")


def test_a_gpu_run_is_recorded_as_not_pinned():
    from verify.empirical import numerics

    rec = numerics.fingerprint("cuda")
    assert rec["pinned"] is False and "GPU model and driver" in rec["path"]


def test_an_experiments_evidence_carries_its_margins_fragility_and_numerical_path():
    from verify.decision import decide
    from verify.empirical import numerics, record_decision

    class Recorder:
        def supported(self, **kw):
            self.kw = dict(kw, verdict="supported")

    rec = Recorder()
    # 6 seeds need all 6 above 0; the last is 0.02 SD from 0: supported, but a small move makes it inconclusive
    record_decision(rec, decide({"a": [3.0, 4.0, 5.0, 3.5, 4.5, 0.05]}, claimed="a > 0"), "quick", {}, "m")
    ev = rec.kw["evidence"]
    assert rec.kw["verdict"] == "supported" and ev["fragile"] is True and ev["flip_distance_sd"] < 0.05
    assert ev["margins"]["a"]["seeds_to_spare_for"] == 0
    assert ev["numerics"] == (numerics.LAST_RUN or numerics.fingerprint())
    assert ev["numerics"]["aten_cpu_capability"] and "pinned" in ev["numerics"]
