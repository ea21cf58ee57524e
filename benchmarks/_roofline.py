"""Shared benchmark helpers: this machine's limits (BLAS FLOP rate, memory bandwidth) measured in-process, a
roofline minimum time for a workload, best-of timing, and the result rows that ``run_all.py`` turns into
``docs/performance.md``.

Roofline: a workload doing ``flops`` floating-point operations and moving ``bytes`` through memory needs at
least ``max(flops / peak_flops, bytes / bandwidth)`` seconds; a benchmark prints measured / minimum (1 = at the
limit). The peaks are measured, not looked up: float64 and float32 ``gemm`` on 2048 x 2048 matrices (the best
BLAS case) and a streaming copy of 256 MiB (read + write).
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np


def best_of(fn, repeat: int = 3, clock=time.perf_counter):
    """``(seconds, result)``: the minimum over ``repeat`` runs (on a shared machine the least disturbed run);
    ``clock``: wall time by default, ``time.process_time`` for CPU seconds (the targets' ratios)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = clock()
        out = fn()
        best = min(best, clock() - t)
    return best, out


@lru_cache(maxsize=None)
def machine() -> dict:
    """Measured limits of this machine: ``gflops64``, ``gflops32`` (gemm), ``bandwidth_gbs`` (copy), plus a
    description (CPU model, cores, load average at measurement)."""
    rng = np.random.default_rng(0)
    n = 2048
    A = rng.standard_normal((n, n))
    A32 = A.astype(np.float32)
    t64, _ = best_of(lambda: A @ A, 3)
    t32, _ = best_of(lambda: A32 @ A32, 3)
    big = np.ones(1 << 25)                     # 256 MiB: far beyond the last-level cache
    out = np.empty_like(big)
    tbw, _ = best_of(lambda: np.copyto(out, big), 3)
    cpu = platform.processor() or platform.machine()
    flags = set()
    try:
        with open("/proc/cpuinfo") as fh:
            lines = fh.read().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
        flags = set(next(line.split(":", 1)[1].split() for line in lines if line.startswith("flags")))
    except (OSError, StopIteration):
        pass
    return {"gflops64": 2 * n ** 3 / t64 / 1e9, "gflops32": 2 * n ** 3 / t32 / 1e9,
            "bandwidth_gbs": 2 * big.nbytes / tbw / 1e9, "cpu": cpu, "cores": os.cpu_count(),
            "vector": vector_extensions(flags), "flags": [f for f in VECTOR_FLAGS if f in flags],
            "load": os.getloadavg()[0]}


#: the x86 vector extensions the machine line names, in this order, where /proc/cpuinfo lists them
VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx_vnni", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl",
                "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile")


def cpu_flags(path: str = "/proc/cpuinfo") -> list:
    """The vector extensions of :data:`VECTOR_FLAGS` the CPU lists (``[]`` where there is no such file)."""
    try:
        with open(path, encoding="utf-8") as fh:
            flags = set(next((ln.split(":", 1)[1].split() for ln in fh if ln.startswith("flags")), []))
    except OSError:
        return []
    return [f for f in VECTOR_FLAGS if f in flags]


def vector_extensions(flags: set) -> str:
    """The widest x86 vector extension in the CPU's flags (the kernels' registers: 32 zmm with AVX-512, 16 ymm with
    AVX2); "unknown" where /proc/cpuinfo has no flags (other systems)."""
    if "avx512f" in flags:
        return "AVX-512 (32 x 512-bit registers)"
    if "avx2" in flags:
        return "AVX2 (16 x 256-bit registers)" + (", FMA" if "fma" in flags else "")
    return "no AVX2" if flags else "unknown"


def minimum_time(flops: float = 0.0, bytes_moved: float = 0.0, dtype: str = "float64") -> float:
    """Roofline lower bound (seconds) of a workload on this machine."""
    mc = machine()
    rate = mc["gflops64"] if dtype == "float64" else mc["gflops32"]
    return max(flops / (rate * 1e9), bytes_moved / (mc["bandwidth_gbs"] * 1e9))


def exact_loss_family_time(d: int, n: int, m: int, family: str = "tensor", grad: bool = False,
                           dtype: str = "float64") -> float:
    """Family count in seconds for Paper S's exact loss (or loss and gradient) for W of shape (d, n): the fewest
    operations any method of ``family`` needs at the measured gemm rate, or reading W once (8 d n bytes; the
    gradient also writes 8 d n), whichever is larger. A *family count*, not a lower bound on the problem: it
    covers the methods of that family only (the collapsed route, ``verify.numeric.power_sums.collapsed_flops``,
    does fewer operations than the "tensor" family's count). What is proved for every method is reading W once:
    :func:`read_W_time`. The arguments are in docs/performance.md ("Roofline"):

    * ``"tensor"`` / ``"moments"`` (methods through S_2k = sum_j w_j^(x)2k, in any basis or layout: the direct
      route and the moment-matrix route): :func:`verify.numeric.power_sums.tensor_flops` ``["bound"]`` (the family count) per feature;
    * ``"gram"`` (methods forming each A_ij, i < j, as a d-term inner product): per pair 2d - 1 operations for A_ij,
      m multiplications for A_ij^2..A_ij^2m and 2m additions into T_i and T_j; with the gradient also 4d for its
      two rank-one updates (w_j into row i and w_i into row j) and m more multiplications for the coefficients.
    """
    from verify.numeric.power_sums import tensor_flops

    if family in ("tensor", "moments"):
        flops = n * tensor_flops(d, m, grad)["bound"]
    elif family == "gram":
        flops = n * (n - 1) / 2 * (2 * d - 1 + 3 * m + ((4 * d + m) if grad else 0))
    else:
        raise ValueError(f"Argument 'family' must be 'tensor', 'moments' or 'gram', not {family!r}.")
    return minimum_time(flops=flops, bytes_moved=8.0 * d * n * (2 if grad else 1), dtype=dtype)


#: the former name (benchmarks/run_all.py still imports it): the family count, not a bound on the problem
exact_loss_bound = exact_loss_family_time


def read_W_time(d: int, n: int, grad: bool = False) -> float:
    """The one lower bound proved for every method of the exact loss: W (8 d n bytes) read once (and the gradient
    written once) at the measured copy bandwidth."""
    return minimum_time(bytes_moved=8.0 * d * n * (2 if grad else 1))


def machine_line() -> str:
    mc = machine()
    return (f"{mc['cpu']} ({mc['vector']}; {' '.join(mc['flags']) or 'no x86 vector flags listed'}), {mc['cores']} cores, BLAS threads {os.environ.get('BENCH_THREADS', '1')}: gemm {mc['gflops64']:.0f} GFLOP/s float64, "
            f"{mc['gflops32']:.0f} float32; copy {mc['bandwidth_gbs']:.1f} GB/s; load average {mc['load']:.1f}")


@dataclass
class Row:
    """One line of the performance table: ``ours`` against ``baseline`` on ``figure``'s workload."""

    figure: str
    ours: str
    baseline: str
    t_ours: float
    t_baseline: float
    limit: float            # roofline minimum of our workload (s)
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.t_baseline / self.t_ours

    @property
    def multiple(self) -> float:
        return self.t_ours / self.limit if self.limit > 0 else float("nan")

    def as_dict(self) -> dict:
        return {**asdict(self), "ratio": self.ratio, "multiple_of_limit": self.multiple}


def print_rows(rows: list) -> None:
    print(f"{'workload':<34}{'ours':<30}{'baseline':<36}{'ours s':>9}{'base s':>9}{'ratio':>8}{'x limit':>9}")
    for r in rows:
        print(f"{r.figure[:33]:<34}{r.ours[:29]:<30}{r.baseline[:35]:<36}{r.t_ours:>9.4f}{r.t_baseline:>9.4f}"
              f"{r.ratio:>8.2f}{r.multiple:>9.1f}" + (f"  ({r.note})" if r.note else ""))


def set_threads() -> int:
    """Fix BLAS and torch threads for the whole run to ``BENCH_THREADS`` (default 1), before the limits are
    measured, so that the roofline and the workloads use the same cores. Why 1: on a 2-core machine shared with
    other jobs, multithreaded OpenBLAS spin-waits and small GEMMs get up to ~100x slower (see bench_flow.py)."""
    threads = int(os.environ.get("BENCH_THREADS", "1"))
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(threads)
    except ImportError:  # optional: then BLAS uses its default
        pass
    try:
        import torch
        torch.set_num_threads(threads)
    except ImportError:
        pass
    return threads


def fit_exponent(xs, ts) -> float:
    """Slope of log t against log x over the upper half of the sizes (where fixed overheads no longer dominate)."""
    xs, ts = np.asarray(xs, float), np.asarray(ts, float)
    k = max(2, len(xs) // 2)
    return float(np.polyfit(np.log(xs[-k:]), np.log(ts[-k:]), 1)[0])


def scaling_plot(path, title: str, xlabel: str, curves: dict) -> dict:
    """Log-log plot of ``curves`` (label -> (xs, seconds)) with the fitted exponent in each label, written
    atomically as PNG (matplotlib Agg); returns label -> exponent."""
    import matplotlib

    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    from verify._io import atomic_write

    fig, ax = plt.subplots(figsize=(5.5, 4))
    exps = {}
    for label, (xs, ts) in curves.items():
        exps[label] = fit_exponent(xs, ts)
        ax.loglog(xs, ts, "o-", label=f"{label}: t ~ x^{exps[label]:.2f}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("seconds")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    with atomic_write(path, "wb") as fh:
        fh.write(buf.getvalue())
    return exps
