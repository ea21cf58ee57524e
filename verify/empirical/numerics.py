r"""One numerical path for the experiment runs on every x86-64 machine with AVX2.

Why: torch's CPU build dispatches its ATen kernels by the CPU's vector width (``DEFAULT``, ``AVX2``, ``AVX512``)
and links MKL, whose BLAS picks its own code path by CPU as well. Each path rounds differently, training amplifies
the difference, and the per-seed effects of the experiments then carry a machine-dependent part: the quick Fig. 6
contrast of one seed moved from 0.305 to 0.200 between two kernel paths (measured), and a contrast near Holm's
threshold changes side. Pinned here, before torch is imported:

* ``ATEN_CPU_CAPABILITY=avx2``: ATen's AVX2 kernels, also on an AVX-512 machine (where torch would pick its AVX-512
  ones), whatever value the user's environment held;
* ``MKL_CBWR=AVX2``: MKL's conditional numerical reproducibility on its AVX2 branch (measured on an AVX-512 Xeon,
  torch 2.13: a few steps of the quick Fig. 6 training give other bits without it, and the same bits as MKL
  restricted to AVX2 by ``MKL_ENABLE_INSTRUCTIONS=AVX2``, i.e. as an AVX2 machine's MKL; ``AVX2,STRICT`` gives
  other bits again, so it is not used);

and, for the duration of a run (:func:`experiment_numerics`), torch's deterministic algorithms and denormals
flushed to zero. The thread count is the package's (``VERIFY_BLAS_THREADS``, default 1, whatever
``OMP_NUM_THREADS`` says: :func:`verify.empirical.limit_threads`) and is recorded, since ATen splits a large
reduction into one partial sum per thread. numba's target (``NUMBA_CPU_NAME``) needs no pin: the package's kernels
(:mod:`verify.empirical._bn_kernels`, :mod:`verify.numeric._tensor_kernels`) allow no reassociation, so every sum
runs in the order of its loop whatever the vector width; it is recorded.

:func:`pin_environment` runs when :mod:`verify.empirical` or the pytest plugin is imported; where torch was
imported earlier on another path, an experiment run refuses (:class:`NumericsError`, saying what to do) rather
than re-running itself in a subprocess: a subprocess would silently lose the caller's state (generators, tensors,
progress). ``VERIFY_NUMERICS=native`` keeps the machine's own path; the run then records that its numbers hold on
this kind of machine only. A machine without AVX2 and FMA (or not x86-64) cannot run the pinned path, nor can a
non-Intel CPU (MKL honours ``MKL_CBWR=AVX2`` on Intel CPUs only; an AMD CPU with AVX2 still takes ATen's AVX2
kernels): their runs warn (:class:`NumericsWarning`) and are recorded as not pinned, as are runs on a GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import sys
import warnings
from pathlib import Path

from ..cache import environment

__all__ = ["PINNED_ENV", "OPT_OUT", "NumericsError", "NumericsWarning", "host_supports_pin", "pin_environment",
           "fingerprint", "require_pinned", "experiment_numerics"]

#: the environment of the pinned path (set before torch is imported)
PINNED_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
#: torch's name of the pinned ATen path (``torch.backends.cpu.get_cpu_capability()``)
PINNED_CAPABILITY = "AVX2"
#: MKL's code of its AVX2 branch (``MKL_CBWR_AVX2`` of ``mkl_cbwr.h``)
_MKL_CBWR_AVX2 = 10
_MKL_BRANCHES = {0: "OFF", 1: "not set", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1",
                 8: "SSE4_2", 9: "AVX", 10: "AVX2", 12: "AVX512", 14: "AVX512_E1", 16: "AVX512_E2"}
#: ``VERIFY_NUMERICS=native``: keep this machine's own numerical path (recorded as not pinned)
OPT_OUT = "VERIFY_NUMERICS"

#: the user's values that :func:`pin_environment` replaced (recorded in the fingerprint)
_REPLACED: dict[str, str | None] = {}
#: the fingerprint of this process's latest experiment run (:func:`experiment_numerics`), for its evidence
LAST_RUN: dict | None = None


class NumericsError(RuntimeError):
    """torch runs on another numerical path than the pinned one and cannot be switched in this process."""


class NumericsWarning(UserWarning):
    """This machine cannot run the pinned path; the run's numbers hold on this kind of machine only."""


def _cpu_flags() -> set[str] | None:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    try:  # not Linux: LLVM's view of the host (llvmlite comes with numba, a dependency of galois)
        from llvmlite import binding

        return {name for name, on in binding.get_host_cpu_features().items() if on}
    except Exception:  # noqa: BLE001 - any failure means: unknown
        return None


def _cpu_vendor() -> str | None:
    """The CPU's vendor string (``GenuineIntel``, ``AuthenticAMD``, ...) from ``/proc/cpuinfo``; None where unread."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("vendor_id"):
            return line.split(":", 1)[1].strip() or None
    return None


def _has_avx2() -> tuple[bool, str]:
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return False, f"this machine is {machine}, not x86-64"
    flags = _cpu_flags()
    if flags is None:
        return False, "this machine's CPU features could not be read"
    missing = sorted({"avx2", "fma"} - flags)
    if missing:
        return False, f"this CPU lacks {' and '.join(m.upper() for m in missing)}"
    return True, ""


def host_supports_pin() -> tuple[bool, str]:
    """``(True, "")`` on an Intel x86-64 CPU with AVX2 and FMA (the pinned path's instructions), else ``(False,
    why)``. Intel only: MKL honours a reproducibility branch other than ``COMPATIBLE`` on Intel CPUs alone (measured
    on an AMD EPYC, torch 2.13: with ``MKL_CBWR=AVX2`` MKL reports and runs its ``AUTO`` branch, and the Fig. 6
    training gives other bits than the Intel machine's pinned run; ``COMPATIBLE``, which MKL does honour there, makes
    that training 1.8x slower)."""
    ok, why = _has_avx2()
    if not ok:
        return ok, why
    vendor = _cpu_vendor()
    if vendor is not None and vendor != "GenuineIntel":
        return False, (f"this CPU is not an Intel one ({vendor}), and MKL takes its reproducible AVX2 branch "
                       f"(MKL_CBWR=AVX2) on Intel CPUs only")
    return True, ""


def pin_environment() -> bool:
    """Set :data:`PINNED_ENV` in ``os.environ`` unless torch is imported already, the user opted out
    (``VERIFY_NUMERICS=native``) or the CPU cannot run the path; replaced user values are remembered. Returns
    whether the environment is now pinned. Also inherited by subprocesses (pytest-xdist workers)."""
    if os.environ.get(OPT_OUT) == "native" or "torch" in sys.modules:
        return all(os.environ.get(k) == v for k, v in PINNED_ENV.items())
    if not host_supports_pin()[0]:
        # an AVX2 CPU whose MKL cannot be pinned (not Intel) still takes ATen's AVX2 kernels: the same ones on every
        # such machine whatever its vector width (an AVX-512 AMD core would otherwise run ATen's AVX-512 ones)
        if _has_avx2()[0] and os.environ.get("ATEN_CPU_CAPABILITY") != PINNED_ENV["ATEN_CPU_CAPABILITY"]:
            if "ATEN_CPU_CAPABILITY" in os.environ:
                _REPLACED.setdefault("ATEN_CPU_CAPABILITY", os.environ["ATEN_CPU_CAPABILITY"])
            os.environ["ATEN_CPU_CAPABILITY"] = PINNED_ENV["ATEN_CPU_CAPABILITY"]
        return False
    for key, value in PINNED_ENV.items():
        if os.environ.get(key) != value:
            if key in os.environ:
                _REPLACED.setdefault(key, os.environ[key])
            os.environ[key] = value
    return True


def _mkl_branch() -> int | None:
    """MKL's current CBWR branch inside torch (``mkl_cbwr_get(MKL_CBWR_BRANCH)``), None where not exported."""
    import torch

    try:
        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        return int(lib.mkl_serv_cbwr_get(1))
    except (OSError, AttributeError):
        return None


def fingerprint(device: str = "cpu") -> dict:
    """The numerical path of this process: what an experiment's evidence records (``numerics``)."""
    import torch

    ok, why = host_supports_pin()
    branch = _mkl_branch()
    cap = torch.backends.cpu.get_cpu_capability()
    mkl = _MKL_BRANCHES.get(branch, str(branch)) if branch is not None else os.environ.get("MKL_CBWR", "not set")
    rec = {"aten_cpu_capability": cap, "mkl_cbwr": mkl, "torch_threads": torch.get_num_threads(),
           "blas_threads": os.environ.get("VERIFY_BLAS_THREADS", "1"),
           "numba_cpu_name": os.environ.get("NUMBA_CPU_NAME", "host"), "device": device,
           "versions": dict(environment()["versions"])}
    if _REPLACED:
        rec["replaced"] = {k: v for k, v in sorted(_REPLACED.items())}
    if device != "cpu":
        why = f"a {device} run: its kernels hold for this GPU model and driver only"
    elif os.environ.get(OPT_OUT) == "native":
        why = f"{OPT_OUT}=native: this machine's own path ({cap})"
    elif not ok:
        why = f"{why}, so torch runs on its {cap} kernels"
    elif cap != PINNED_CAPABILITY or mkl != "AVX2":
        why = f"torch runs on {cap} kernels with MKL's branch {mkl}, not the pinned AVX2 ones"
    rec["pinned"] = not why
    rec["path"] = "x86-64 AVX2 (ATen AVX2, MKL CBWR AVX2)" if not why else "not pinned: " + why
    return rec


def require_pinned(device: str = "cpu") -> dict:
    """Check that an experiment run about to start is on the pinned path; returns :func:`fingerprint`.

    Raises :class:`NumericsError` where the CPU could run it but torch was imported on another path before
    :mod:`verify.empirical` could select it; warns (:class:`NumericsWarning`) where the CPU cannot run it."""
    pin_environment()
    rec = fingerprint(device)
    if rec["pinned"] or device != "cpu" or os.environ.get(OPT_OUT) == "native":
        return rec
    ok, why = host_supports_pin()
    if not ok:
        warnings.warn(f"verify's experiments run on one numerical path (torch's and MKL's AVX2 kernels) so that "
                      f"the same seeds give the same numbers on every machine, but {why}: this run uses the "
                      f"machine's own path and its numbers may differ from other machines' (recorded in the "
                      f"evidence as not pinned).", NumericsWarning, stacklevel=2)
        return rec
    raise NumericsError(
        f"verify's experiments run on one numerical path, torch's and MKL's AVX2 kernels, so that the same seeds "
        f"give the same numbers on every machine; here torch was imported before verify could select it and runs "
        f"on its {rec['aten_cpu_capability']} kernels with MKL's branch {rec['mkl_cbwr']}. Import verify.empirical "
        f"before torch, or start Python with ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2, or set {OPT_OUT}=native to "
        f"run on this machine's own path (its numbers then hold on this kind of machine only).")


@contextlib.contextmanager
def experiment_numerics(device):
    """For one training run on ``device`` (a ``torch.device``): :func:`require_pinned`, then on a CPU torch's
    deterministic algorithms and denormals flushed to zero, all restored afterwards. Yields the fingerprint.
    (Not on a GPU: there deterministic algorithms need cuBLAS's workspace setting before CUDA starts, and a GPU
    run is recorded as not pinned anyway.)"""
    import torch

    from . import flush_denormals

    global LAST_RUN
    rec = LAST_RUN = require_pinned(device.type)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(was or device.type == "cpu")
    try:
        with flush_denormals(device):
            yield rec
    finally:
        torch.use_deterministic_algorithms(was)
