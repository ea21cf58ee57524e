"""Issue 42's performance targets, measured in one ``run_all.py --targets`` run, and their section of the page.

Every ratio is taken inside ONE process against a reference timed in that process: the exact-loss figures are CPU
seconds over the CPU seconds of a 3000 x 3000 float64 gemm (one BLAS thread), the loss to 1% is CPU seconds over
those of the fastest sampler run to the same accuracy, and the implicit frame operator is wall-clock seconds over one
pass over its N-vector (a copy: one read and one write; best of 3 each, as ``bench_frame_operator.pass_lines``).

Builds. The numba kernels pick their tile shapes for the vector width they are compiled for, so the targets are
measured per build, each in a child process with its own environment (:data:`BUILDS`): the host's own (``native``)
and, on a host with AVX-512, a real AVX2 build (``NUMBA_CPU_NAME=haswell`` with ``NUMBA_CPU_FEATURES`` empty, so
LLVM takes haswell's own features, and ``OPENBLAS_CORETYPE=Haswell`` so the gemm it is rated against is AVX2 too).
On a host without AVX-512 the native build is the AVX2 build and is the one measured.

Targets (:data:`TARGETS`): on an AVX2 build the loss at n = 10^6, d = 10, m = 3 in at most 0.6 gemm-equivalents,
its gradient 2.0, m = 5 at n = 10^5 1.3; on an AVX-512 build no slower than before (:data:`AVX512_BEFORE`, the
native figures measured before the AVX2 tiles: CHANGELOG, 2026-12-06); on every build the loss to 1% relative
accuracy (95% interval) at n = 10^6 by ``loss_to_accuracy`` within 2x of the fastest sampler (the output-subsampled
and the Rao-Blackwellised control-variate samplers, each RUN until its interval reaches 1%, not extrapolated from a
pilot), and V z and V^T y at N = 2^27 in at most 8 passes over the N-vector. The main job (the README's first command
in a fresh clone, install included) in at most 10 minutes is timed outside this run (it runs the whole suite) and
given with ``--main-job-seconds``; without it the row says it was not measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_exact_loss as BE  # the benchmarks' folder is on sys.path (run_all.py puts it there)
import bench_frame_operator as BF
import numpy as np
from _roofline import best_of

from verify.numeric import _tensor_kernels as TK
from verify.numeric import power_sums as PS
from verify.numeric.superposition_loss import (
    exact_loss,
    exact_loss_grad,
    loss_to_accuracy,
)

#: the environment of each build's child process (None: the variable is removed, so the build is the host's own)
BUILDS = {
    "AVX2": {"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": "", "OPENBLAS_CORETYPE": "Haswell"},
    "native": {"NUMBA_CPU_NAME": None, "NUMBA_CPU_FEATURES": None, "OPENBLAS_CORETYPE": None},
}
#: the native AVX-512 figures before the AVX2 tiles (gemm-equivalents; CHANGELOG "Measured", 2026-12-06, load
#: 2.6-4.8): "no slower than before" on an AVX-512 machine
AVX512_BEFORE = {"loss_m3": 0.61, "grad_m3": 1.88, "loss_m5": 1.54}
#: key -> (what, AVX2 limit, unit); the AVX-512 limit of the first three is AVX512_BEFORE
TARGETS = {
    "loss_m3": ("exact loss, n = 10^6, d = 10, m = 3", 0.6, "gemm-equivalents"),
    "grad_m3": ("exact gradient, n = 10^6, d = 10, m = 3", 2.0, "gemm-equivalents"),
    "loss_m5": ("exact loss, n = 10^5, d = 10, m = 5", 1.3, "gemm-equivalents"),
    "to_accuracy": ("loss to 1% (95% interval), n = 10^6, p = 0.001: loss_to_accuracy over the fastest sampler", 2.0,
                    "x the fastest sampler"),
    "matvec": ("implicit frame operator V z, N = 2^27, d = 1024, m = 3, float32", 8.0, "passes over the N-vector"),
    "rmatvec": ("implicit frame operator V^T y, N = 2^27, d = 1024, m = 3, float32", 8.0, "passes over the N-vector"),
    "main_job": ("the main job (README's first command, fresh clone, install included)", 600.0, "seconds"),
}
#: CPU seconds after which the output-subsampled sampler, if it has not reached 1%, is stopped (its time is then a
#: lower bound, "> t": once past the fastest sampler's time it cannot be the fastest; the run fits in 10 minutes), and
#: with ``--quick``; ``--sampler-budget 0`` runs it to 1% however long that takes
SAMPLER_BUDGET_S, QUICK_SAMPLER_BUDGET_S = 60.0, 10.0


def builds_for(flags: list) -> list:
    """The builds to measure on a host with these flags: native always; AVX2 beside it only where native is wider."""
    return (["AVX2"] if "avx2" in flags and "avx512f" in flags else []) + ["native"]


def build_env(name: str, base: dict | None = None) -> dict:
    """The child's environment for build ``name``: ``base`` (default this process's) with :data:`BUILDS`' settings."""
    if name not in BUILDS:
        raise ValueError(f"Argument 'name' must be one of {', '.join(BUILDS)}, not {name!r}.")
    env = dict(os.environ if base is None else base)
    for k, v in BUILDS[name].items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def build_isa(name: str, flags: list) -> str:
    """The vector extension a build's kernels use on a host with ``flags``: "AVX2" or "AVX-512" (or "generic")."""
    if name == "AVX2" or (name == "native" and "avx512f" not in flags and "avx2" in flags):
        return "AVX2"
    return "AVX-512" if "avx512f" in flags else "generic"


# --------------------------------------------------------------------------- the child: one build's measurements
def measure(build: str, quick: bool = False, sampler_budget: float | None = None) -> dict:
    """One build's figures, in this process (its environment set by the parent before numba was imported);
    ``sampler_budget``: CPU seconds for the output-subsampled sampler (default :data:`SAMPLER_BUDGET_S`; 0: none)."""
    def timed(fn, repeat=2):   # CPU seconds: the ratios to a gemm are of CPU time in one process
        return best_of(fn, repeat, clock=time.process_time)

    def say(text):
        print(f"[{build}] {text}", flush=True)

    G = np.random.default_rng(1).standard_normal((3000, 3000))

    def gemm():
        return G @ G

    def against_gemm(fn, rounds=3):
        """``(seconds, gemm seconds, result)``: the best CPU time of ``fn`` and of the gemm, timed alternately in
        ``rounds`` rounds, so that a load that changes during the run moves both (the ratio is the target)."""
        best_f = best_g = float("inf")
        for _ in range(rounds):
            t_g, _ = timed(gemm, 1)
            t_f, res = timed(fn, 1)
            best_f, best_g = min(best_f, t_f), min(best_g, t_g)
        return best_f, best_g, res

    t_gemm, _ = timed(gemm, 3)
    say(f"gemm 3000 x 3000 float64 {t_gemm:.3f} s CPU")
    n_big, n5 = (10**5, 10**4) if quick else (10**6, 10**5)
    P, M = BE.P, BE.M
    W = BE.setting_W(10, n_big, seed=3)
    exact_loss(W[:, :100], P, M), exact_loss_grad(W[:, :100], P, M)               # compile (or load) the kernels
    out = {"build": build, "quick": quick, "gemm_cpu_s": t_gemm, "numba": TK.host_cpu(), "plan": TK.kernel_plan(),
           "env": {k: os.environ.get(k) for k in BUILDS["AVX2"]}, "load_start": os.getloadavg()[0]}
    t, tg, v = against_gemm(lambda: exact_loss(W, P, M))
    out["loss_m3"] = {"seconds": t, "gemm_s": tg, "route": PS.choose_route("auto", 10, n_big, M, tensor=True),
                      "n": n_big}
    t, tg, _ = against_gemm(lambda: exact_loss_grad(W, P, M))
    out["grad_m3"] = {"seconds": t, "gemm_s": tg, "n": n_big,
                      "route": PS.choose_route("auto", 10, n_big, M, grad=True, tensor=True)}
    W5 = BE.setting_W(10, n5, seed=5)
    exact_loss(W5[:, :50], P, 5)
    t, tg, _ = against_gemm(lambda: exact_loss(W5, P, 5))
    out["loss_m5"] = {"seconds": t, "gemm_s": tg, "route": PS.choose_route("auto", 10, n5, 5, tensor=True), "n": n5}
    for k in ("loss_m3", "grad_m3", "loss_m5"):
        x = out[k]
        say(f"{k}: {x['seconds']:.3f} s = {x['seconds'] / x['gemm_s']:.3f} gemm-equivalents ({x['route']})")
    budget = (QUICK_SAMPLER_BUDGET_S if quick else SAMPLER_BUDGET_S) if sampler_budget is None else sampler_budget
    out.update(measure_to_accuracy(W, v, budget, say))

    log2n = 20 if quick else 27
    r = BF.pass_ratios(log2n)
    out["frame_operator"] = r
    say(f"V z {r['matvec_s'] / r['pass_s']:.2f} passes, V^T y {r['rmatvec_s'] / r['pass_s']:.2f} passes "
        f"(one pass {r['pass_s']:.3f} s)")
    out["load_end"] = os.getloadavg()[0]
    return out


def measure_to_accuracy(W: np.ndarray, v: float, budget: float | None, say=print) -> dict:
    """The loss-to-1% target's figures (``to_accuracy`` and ``samplers`` of :func:`measure`): ``loss_to_accuracy``'s
    own choice and each sampler run to the same 1% (95% interval), CPU seconds, at W (the exact loss ``v``);
    ``budget``: CPU seconds for the output-subsampled sampler (None or 0: run to 1%)."""
    def timed(fn, repeat=1):
        return best_of(fn, repeat, clock=time.process_time)

    P, M, MU = BE.P, BE.M, BE.MU
    n_big = W.shape[1]
    # the loss to 1%: loss_to_accuracy's own choice against each sampler run to the same 1% (95% interval)
    rtol = 0.01
    loss_to_accuracy(W[:, :2000], P, M, rtol=0.5, method="rb_cv", samples=8)   # compile the row function
    t_au, e_au = timed(lambda: loss_to_accuracy(W, P, M, MU, rtol=rtol, seed=1), 1)
    t_rb, e_rb = timed(lambda: loss_to_accuracy(W, P, M, MU, rtol=rtol, seed=1, method="rb_cv"), 1)
    budget = budget or None                                                   # 0: run to 1%, no budget
    t_os, (m_os, h_os, n_os) = timed(lambda: BE.mc_output_subsampled(W, P, M, MU, rtol, seed=1, budget_s=budget), 1)
    out = {}
    out["to_accuracy"] = {"seconds": t_au, "method": e_au.method, "half_rel": e_au.error / abs(v), "rtol": rtol,
                          "n": n_big, "reason": e_au.reason, "predicted": e_au.predicted}
    out["samplers"] = {
        "Rao-Blackwellised control-variate MC": {"seconds": t_rb, "samples": e_rb.samples,
                                                 "half_rel": e_rb.error / abs(v),
                                                 "error_rel": abs(e_rb.value - v) / abs(v),
                                                 "reached": e_rb.error <= rtol * abs(e_rb.value)},
        "output-subsampled MC": {"seconds": t_os, "samples": n_os, "half_rel": h_os / abs(v),
                                 "error_rel": abs(m_os - v) / abs(v), "reached": h_os <= rtol * abs(m_os),
                                 "budget_s": budget},
    }
    for name, s in out["samplers"].items():
        say(f"{name} to 1%: {s['seconds']:.2f} s, {s['samples']} samples, half-width {s['half_rel']:.2%}"
            + ("" if s["reached"] else " (stopped: budget)"))
    say(f"loss_to_accuracy ({e_au.method}): {t_au:.2f} s ({e_au.reason})")
    return out


def run_builds(flags: list, quick: bool, script: Path, timeout_s: float = 900.0,
               sampler_budget: float | None = None) -> tuple[list, dict]:
    """Each build of :func:`builds_for` measured in its own child process (``script --targets-child NAME``):
    ``(measurements, failures)``."""
    done, failures = [], {}
    for name in builds_for(flags):
        with tempfile.TemporaryDirectory(prefix="perf-targets-") as tmp:
            out = Path(tmp) / "m.json"
            cmd = [sys.executable, str(script), "--targets-child", name, "--results", str(out)] + \
                (["--quick"] if quick else []) + \
                ([f"--sampler-budget={sampler_budget}"] if sampler_budget is not None else [])
            print(f"\n=== targets, {name} build ===", flush=True)
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(cmd, env=build_env(name), timeout=timeout_s, check=False)
                code = proc.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
            if code != 0 or not out.exists():
                failures[f"targets ({name} build)"] = f"the child process ended with {code}"
                continue
            m = json.loads(out.read_text(encoding="utf-8"))
            m["wall_s"] = time.perf_counter() - t0
            done.append(m)
    return done, failures


# --------------------------------------------------------------------------- the verdicts and the page's section
def _pow10(n) -> str:
    """``10^6`` for 1000000 (the targets' sizes are powers of ten), else the number."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k else f"{n:,}"


def _row(build, key, measured, limit, note="", what=None, unit=None, judged=True):
    w, _, u = TARGETS[key]
    met = None if measured is None or not judged else bool(measured <= limit)
    return {"build": build, "key": key, "what": what or w, "measured": measured, "limit": limit, "unit": unit or u,
            "met": met, "note": note}


def evaluate(measured: list, flags: list, main_job_s: float | None = None) -> list:
    """One row per target and build: ``{build, key, what, measured, limit, unit, met (True / False / None: not
    measured), note}``. The exact-loss limits are the AVX2 targets on an AVX2 build and :data:`AVX512_BEFORE` on an
    AVX-512 one; the others hold for every build."""
    rows = []
    for m in measured:
        judged = not m.get("quick")                 # quick sizes are not the targets' sizes: shown, not judged
        build = m["build"]
        isa = build_isa(build, flags)
        label = f"{build} ({isa})" if build == "native" else build
        for key in ("loss_m3", "grad_m3", "loss_m5"):
            x = m[key]
            g = x.get("gemm_s", m["gemm_cpu_s"])             # the gemm timed alternately with it
            if isa == "AVX-512":
                limit, note = AVX512_BEFORE[key], "AVX-512: no slower than before (native figure before the AVX2 tiles)"
            elif isa == "AVX2":
                limit, note = TARGETS[key][1], "AVX2 target"
            else:
                continue                                  # no target for a build without AVX2
            default_n = 10**5 if key == "loss_m5" else 10**6
            rows.append(_row(label, key, x["seconds"] / g,
                             limit, f"{note}; {x['route']} route, {x['seconds']:.3f} s CPU, gemm {g:.3f} s CPU",
                             what=TARGETS[key][0].replace(_pow10(default_n), _pow10(x["n"])), judged=judged))
        samplers = m["samplers"]
        reached = {k: s for k, s in samplers.items() if s["reached"]}
        if reached:
            best = min(reached, key=lambda k: reached[k]["seconds"])
            t_best = reached[best]["seconds"]
            acc = m["to_accuracy"]
            parts = [f"loss_to_accuracy chose {acc['method']}: {acc['seconds']:.2f} s CPU"]
            for k, s in samplers.items():
                stop = "" if s["reached"] else ", stopped before 1%" + (
                    ": already slower than the fastest" if s["seconds"] >= t_best else "")
                parts.append(f"{k} {'' if s['reached'] else '> '}{s['seconds']:.2f} s ({s['samples']:,} samples, "
                             f"half-width {s['half_rel']:.2%}, error {s['error_rel']:.2%}{stop})")
            rows.append(_row(label, "to_accuracy", acc["seconds"] / t_best, TARGETS["to_accuracy"][1],
                             "; ".join(parts) + f"; fastest: {best}",
                             what=TARGETS["to_accuracy"][0].replace("10^6", _pow10(acc.get("n", 10**6))), judged=judged))
        else:
            rows.append(_row(label, "to_accuracy", None, TARGETS["to_accuracy"][1], "no sampler reached 1%"))
        f = m["frame_operator"]
        for key, t in (("matvec", f["matvec_s"]), ("rmatvec", f["rmatvec_s"])):
            rows.append(_row(label, key, t / f["pass_s"], TARGETS[key][1],
                             f"{t:.3f} s wall, one pass {f['pass_s']:.3f} s (best of {f['repeat']}; N = 2^{f['log2n']})",
                             what=TARGETS[key][0].replace("2^27", f"2^{f['log2n']}"), judged=judged))
    rows.append(_row("-", "main_job", main_job_s, TARGETS["main_job"][1],
                     "timed outside this run (--main-job-seconds)" if main_job_s is not None
                     else "not measured in this run (it runs the whole suite): give --main-job-seconds"))
    return rows


def _num(x) -> str:
    """A measured ratio or time to 3 significant digits, trailing zeros kept (1.00 against a target of 1.3 is a
    measurement to that precision, not a bare 1); from 100 on, whole units."""
    if x is None:
        return "n/a"
    return f"{x:.0f}" if x >= 100 else f"{x:#.3g}".rstrip(".")   # 99.96 -> "100", not "100."


def render(t: dict) -> list:
    """The page's section (lines) from the results file's ``targets`` entry."""
    flags, rows = t.get("flags") or [], t["rows"]
    met = [r for r in rows if r["met"] is True]
    judged = [r for r in rows if r["met"] is not None]
    unjudged = sum(r["met"] is None and r["measured"] is not None for r in rows)
    missing = sum(r["measured"] is None for r in rows)
    lines = ["## Issue 42's targets", "",
             f"CPU: {t['cpu']}; vector extensions (/proc/cpuinfo): {' '.join(flags) or 'unknown'}. "
             f"{len(met)} of {len(judged)} judged targets met" + (f", {missing} not measured" if missing else "")
             + (f", {unjudged} not judged (quick sizes, not the targets')" if unjudged else "") + ".", ""]
    for m in t.get("builds") or []:
        env = ", ".join(f"{k}={v}" for k, v in (m.get("env") or {}).items() if v is not None) or "no overrides"
        nb = m.get("numba") or {}
        feats = " ".join(nb.get("features") or []) or "no vector extensions named"
        feats += " features" if feats.endswith("'s own") else ""     # NUMBA_CPU_FEATURES empty: the named CPU's own
        lines.append(f"- build **{m['build']}** ({env}): kernels compiled for LLVM CPU {nb.get('name', '?')} with "
                     f"{feats}, target "
                     f"{nb.get('target', '?')}; {m.get('wall_s', float('nan')):.0f} s in all; load average "
                     f"{m.get('load_start', float('nan')):.1f} at its start, {m.get('load_end', float('nan')):.1f} at "
                     f"its end" + (" (quick sizes)" if m.get("quick") else ""))
    lines += ["", "| target | build | measured | target | met | how |", "|---|---|---:|---:|---|---|"]
    for r in rows:
        verdict = {True: "met", False: "**not met**"}.get(r["met"]) or \
            ("not measured" if r["measured"] is None else "not judged")
        lines.append(f"| {r['what']} | {r['build']} | {_num(r['measured'])} | <= {r['limit']:g} {r['unit']} | "
                     f"{verdict} | {r['note']} |")
    return lines
