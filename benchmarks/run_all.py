"""Run every benchmark against its strongest baseline; write the results file and the performance page made from it.

The run's results file is ``docs/_data/performance.json``; ``docs/performance.md`` is generated from it (both written
atomically): one table row per comparison with the ratio (baseline time / ours) and our time as a multiple of this
machine's roofline minimum, the date and the machine, the fitted scaling exponents and links to the scaling PNGs.

Every performance number of the documentation comes from one run's results file.

    python benchmarks/run_all.py [--quick] [--readme] [--only exact_loss,certificate,...] [--out docs/performance.md]
    python benchmarks/run_all.py --from-json docs/_data/performance.json     # regenerate the page, run nothing
    python benchmarks/run_all.py --targets [--main-job-seconds S]            # issue 42's targets (alone: ~10 min)

``--readme`` runs exactly the rows the README quotes (the exact loss at n = 2000 against the Monte Carlo baselines,
at n = 10^6 with peak memory, and m = 5 at n = 10^5, and the exact-loss scaling plot) plus the certificate rows
(with the rank certificate's), skipping the Figure 3 route rows, the gram before/after rows and the other
benchmarks.

``--targets`` measures issue 42's targets (``perf_targets.py``): each build (the native one and, on an AVX-512 host,
an AVX2 one) in a child process of this run with its own environment, one table row per target and build with the
measured ratio, the target and whether it is met; alone it runs no other benchmark (with ``--readme`` or ``--only``
it runs those too, into the same results file).

BLAS and torch threads: ``BENCH_THREADS`` (default 1; see ``_roofline.set_threads``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
import perf_targets
from _roofline import cpu_flags, machine, machine_line, print_rows, set_threads  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: name -> module; each module has run(quick) -> (rows, {curve: {label: exponent}})
BENCHMARKS = {
    "exact_loss": "bench_exact_loss",
    "certificate": "bench_certificate_baselines",
    "nc_metrics": "bench_nc_metrics",
    "F_spectrum": "bench_F_spectrum",
    "flow": "bench_flow",
}


def _fmt(x: float) -> str:
    if x != x:  # nan
        return "n/a"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


ROOFLINE = """## Roofline: the fewest operations of the problem

*x limit* divides our time by a bound on the problem, not by our own algorithm's operation count: the fewest
floating-point operations (multiplications and additions, one each; gemm's rate counts an FMA as two) that any
method of the family needs, at the measured gemm rate, or the bytes any method must read (W once; the gradient also
writes it) at the measured copy bandwidth, whichever is larger (`benchmarks/_roofline.py`, `exact_loss_bound`).

*Exact loss, symmetric-tensor family* (the `tensor` and `power_sums` routes: every method that sums
S_2k = Σ_j w_j^{⊗2k}, k ≤ m, from each column's symmetric powers in any basis or redundant layout, then contracts
each row's symmetric powers with it). With D_j = C(d+j-1, j) and Σ = D_2 + D_4 + ... + D_2m, per feature:
- *accumulating S*: the Σ coordinates of w^{⊗2k} (k = 1..m) are linearly independent forms of degree >= 2, and every
  value a straight-line program computes lies in the span of 1, its inputs and its products, so forming them needs at
  least Σ multiplications; adding them into S needs Σ additions (every coordinate of S depends on every column);
- *contracting* ⟨w_i^{⊗2k}, S_2k⟩ with S as given coefficients: Winograd's column-rank theorem (the monomials are
  linearly independent modulo constants) gives at least Σ multiplications. S is shared by all n rows, so a method
  may preprocess it; then the column-rank argument does not apply, but Belaga's does (each addition raises the
  transcendence degree of the polynomials a scheme can reach by at most one, and the m forms have Σ algebraically
  independent coefficients): at least Σ - m additions. Either way at least Σ - m operations, the number counted;
  additions beyond that are not counted.
- Loss: **3Σ - m** per feature (17,322 at d = 10, m = 3; 367,384 at m = 5). Gradient: plus S^c_2k = Σ_j c_k(j) w_j^{⊗2k}
  (Σ multiplications by the span argument with c_k(j) as one more input, Σ additions) and the d-vector
  c_k(i)∇⟨x^{⊗2k}, S⟩ + ∇⟨x^{⊗2k}, S^c⟩ (column rank 2Σ: 2Σ multiplications without preprocessing; with it,
  Belaga's argument on the 2Σ independent coefficients of S and S^c, less dm for the d outputs of m degrees):
  **7Σ - m - dm** per feature.
@OURS@

*Exact loss, gram family* (the `gram` routes: methods that form each A_ij, i < j, as a d-term inner product): per
pair 2d - 1 operations for A_ij, m multiplications for its even powers and 2m additions into T_i, T_j; the gradient
adds the two rank-one updates (4d) and m coefficient products.

*F_kk spectrum*: no useful lower bound on the operations of a symmetric eigenproblem is known, so its limit is the
bytes any method reads (W, H) and writes (dn eigenvalues). Other benchmarks: see their scripts.
"""


def _commit() -> str:
    """The checkout's commit and whether its tracked files differ from it (the benchmarked code is the tree)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit (no git)"
    return f"commit {head}" + (" plus uncommitted changes" if dirty else "")


def results(rows: list, exponents: dict, failures: dict, loads: tuple = (), argv: str = "", commit: str | None = None,
            notes: list = (), targets: dict | None = None) -> dict:
    """The run's results file: everything :func:`render` shows, as JSON (the machine measured once, here);
    ``targets``: issue 42's (:func:`targets_entry`), where they were measured."""
    mc = machine()
    res = {"argv": argv, "date": _dt.date.today().isoformat(), "commit": commit or _commit(),
           "machine": {**mc, "threads": os.environ.get("BENCH_THREADS", "1")}, "machine_line": machine_line(),
           "loads": list(loads), "rows": [r.as_dict() for r in rows], "exponents": exponents, "failures": failures,
           "notes": list(notes)}
    if targets is not None:
        res["targets"] = targets
    return res


def targets_entry(measured: list, flags: list, main_job_s: float | None = None) -> dict:
    """The results file's ``targets``: the CPU, its vector flags, each build's measurements and the verdict rows."""
    return {"cpu": machine()["cpu"], "flags": list(flags), "builds": measured,
            "rows": perf_targets.evaluate(measured, flags, main_job_s)}


def render(res: dict, out_dir: Path | None = None) -> str:
    """``docs/performance.md`` from a results file (:func:`results`): runs nothing, measures nothing."""
    mc, date, loads = res["machine"], res["date"], res.get("loads") or ()
    mach = f"{mc['cpu']}, {mc['cores']} cores, {mc.get('threads', '1')} BLAS thread(s)"
    lines = [
        "# Performance",
        "",
        f"<!-- Generated from docs/_data/performance.json by `python benchmarks/run_all.py --from-json "
        "docs/_data/performance.json`; do not edit by hand. -->",
        "",
        f"Every figure below is from ONE run: `python benchmarks/run_all.py{res['argv']}` on {date}, of "
        f"{res['commit']}.",
        "",
        f"Machine: {res['machine_line']}."
        + (f" Load average (1 / 5 / 15 min) at the start of the run {loads[0]}, at the end {loads[1]}." if loads else ""),
        "",
    ]
    if res.get("targets"):            # issue 42's targets first: the page's verdicts
        lines += perf_targets.render(res["targets"]) + [""]
    if res["rows"] or not res.get("targets"):
        lines += [
            "*ratio* = baseline time / our time (> 1: we are faster); *x limit* = our time / the roofline minimum of "
            "our workload (its FLOPs at the measured gemm rate or its bytes at the measured copy bandwidth, whichever "
            "is larger; 1 = at the machine's limit). The machine is shared: times are best-of-k wall clock and noisy; "
            f"the load average was {mc['load']:.1f} when the limits were measured.",
            "",
            "| figure / workload | ours | baseline | ours [s] | baseline [s] | ratio | x limit | date | machine |",
            "|---|---|---|---:|---:|---:|---:|---|---|",
        ]
    for r in res["rows"]:
        base = r["baseline"] + (f" ({r['note']})" if r.get("note") else "")
        lines.append(f"| {r['figure']} | {r['ours']} | {base} | {r['t_ours']:.4g} | {r['t_baseline']:.4g} | "
                     f"{_fmt(r['ratio'])} | {_fmt(r['multiple_of_limit'])} | {date} | {mach} |")
    if not res["rows"]:               # a targets-only run: no table, so no roofline to explain it
        return _tail(lines, res, out_dir)
    from verify.numeric.power_sums import tensor_flops

    f3, f3g, f5 = tensor_flops(10, 3), tensor_flops(10, 3, grad=True), tensor_flops(10, 5)
    ours = (f"Our direct route does {f3['ours']:,} (loss) and {f3g['ours']:,} (gradient) per feature at d = 10, m = 3, "
            f"{f5['ours']:,} (loss) at\nm = 5 (`verify.numeric.power_sums.tensor_flops`): the split contraction builds "
            "the monomials up to degree H = m\nonce and forms each even-degree monomial as one product inside its FMA "
            "(`verify/numeric/_tensor_kernels.py`), the\ngradient by reverse mode. So at the measured gemm rate our own "
            f"operation count alone is {f3['ours'] / f3['bound']:.2f}x, {f3g['ours'] / f3g['bound']:.2f}x and\n"
            f"{f5['ours'] / f5['bound']:.2f}x the bound; the rest of *x limit* is the kernels' rate below the gemm's "
            "(eight features per sweep in\nexplicit 8-lane SIMD, `verify/numeric/_tensor_kernels.py`; measured by "
            "`bench_exact_loss.py --kernels`, see the kernel\nlines below): at m = 3 the accumulation runs in register "
            "tiles of 4 block rows x 6 tail entries through 256\nfeatures (`accumulate_tiled`: a gemm over the "
            "features restricted to the blocks), the contraction sweeps groups of up\nto eight block rows sharing each "
            "tail load, and the monomial build takes a tenth of a pass or more; at m = 5\nS's eight-lane copy would "
            "leave the caches, so S is accumulated eight coefficients per vector (`accumulate`,\nrows padded to eight: "
            "its FMAs are bound by one load and store of S per eight).")
    lines += ["", ROOFLINE.replace("@OURS@", ours).rstrip()]
    return _tail(lines, res, out_dir)


def _tail(lines: list, res: dict, out_dir: Path | None) -> str:
    """The kernel lines, the scaling exponents and plots and the failures, after the table (or the targets)."""
    notes, exponents, failures = res.get("notes") or [], res.get("exponents") or {}, res.get("failures") or {}
    if notes:
        lines += ["", "## The tensor kernels alone (this run; `bench_exact_loss.kernel_lines`, as `--kernels` prints)",
                  "", "Each kernel against a 2048 gemm timed in the same loop, best of 3 alternating:", ""]
        lines += [f"- {line}" for line in notes]
    if exponents or res["rows"]:      # a targets-only run measured no scaling: no section, no older run's plots
        lines += ["", "## Scaling (fitted exponent of time against size, upper half of the sizes)", ""]
        for curve, exps in exponents.items():
            lines.append(f"- {curve}: " + ", ".join(f"{k} {v:.2f}" for k, v in exps.items()))
    pngs = sorted((ROOT / "docs" / "performance").glob("*.png")) if exponents or res["rows"] else []
    if pngs:                          # links relative to the written file (docs/ or docs/performance/)
        base = out_dir or ROOT / "docs"
        lines.append("")
        lines += [f"![{p.stem}]({Path(os.path.relpath(p, base)).as_posix()})" for p in pngs]
    if failures:
        lines += ["", "## Benchmarks that did not complete", ""]
        lines += [f"- {k}: {v}" for k, v in failures.items()]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes)")
    ap.add_argument("--only", default="", help="comma-separated subset of " + ", ".join(BENCHMARKS))
    ap.add_argument("--readme", action="store_true", help="only the rows the README quotes (see the module doc)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    ap.add_argument("--results", default=str(ROOT / "docs" / "_data" / "performance.json"),
                    help="where the run's results file goes (the page is generated from it)")
    ap.add_argument("--from-json", metavar="RESULTS.json",
                    help="generate the page from a results file of an earlier run; run no benchmark")
    ap.add_argument("--targets", action="store_true",
                    help="issue 42's targets, each build in a child process (alone: no other benchmark)")
    ap.add_argument("--main-job-seconds", type=float, default=None, metavar="S",
                    help="the main job's time, measured outside this run, for its target row")
    ap.add_argument("--sampler-budget", type=float, default=None, metavar="S",
                    help=f"CPU seconds for the output-subsampled sampler per build (default "
                         f"{perf_targets.SAMPLER_BUDGET_S:g}; 0: run it to 1%% however long)")
    ap.add_argument("--targets-child", choices=sorted(perf_targets.BUILDS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.main_job_seconds is not None and not (0 < args.main_job_seconds < float("inf")):
        print(f"error: Argument 'main-job-seconds' must be a positive number of seconds, not {args.main_job_seconds}.",
              file=sys.stderr)
        return 2
    if args.sampler_budget is not None and not (0 <= args.sampler_budget < float("inf")):
        print(f"error: Argument 'sampler-budget' must be a number of seconds >= 0, not {args.sampler_budget}.",
              file=sys.stderr)
        return 2
    if args.targets_child:            # one build's measurements, in the environment the parent gave this process
        from verify._io import atomic_write_text

        set_threads()
        m = perf_targets.measure(args.targets_child, args.quick, args.sampler_budget)
        atomic_write_text(args.results, json.dumps(m, indent=1) + "\n")
        return 0
    if args.from_json:
        from verify._io import atomic_write_text

        try:
            res = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
            page = render(res, Path(args.out).resolve().parent)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"error: Argument 'from-json' must be a results file written by run_all.py, not {args.from_json} "
                  f"({type(exc).__name__}: {exc}).", file=sys.stderr)
            return 2
        atomic_write_text(args.out, page)
        print(f"wrote {args.out}")
        return 0
    names = [n for n in args.only.split(",") if n] or (["exact_loss", "certificate"] if args.readme else
                                                        [] if args.targets else list(BENCHMARKS))
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"error: Argument 'only' must name benchmarks among {', '.join(BENCHMARKS)}, not {unknown}.",
              file=sys.stderr)
        return 2
    out_dir = Path(args.out).resolve().parent
    if not out_dir.is_dir():          # validate the output paths before any work
        print(f"error: Argument 'out' must be in an existing directory, not {args.out}.", file=sys.stderr)
        return 2
    if not Path(args.results).resolve().parent.is_dir():
        print(f"error: Argument 'results' must be in an existing directory, not {args.results}.", file=sys.stderr)
        return 2
    set_threads()
    load0 = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    commit = _commit()                # before the run writes its plots: the benchmarked code is the tree now
    print(machine_line())
    rows, exponents, failures, notes = [], {}, {}, []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        try:
            mod = importlib.import_module(BENCHMARKS[name])
            r, e = mod.run(args.quick, readme=True) if (args.readme and name == "exact_loss") else mod.run(args.quick)
            if name == "certificate" and not any("rank" in row.baseline or "quadratic" in row.baseline for row in r):
                failures["certificate"] = "the rank (quadratic-form) certificate row is missing"
        except Exception as exc:  # one failing benchmark must not lose the others' rows
            traceback.print_exc()
            failures[name] = f"{type(exc).__name__}: {exc}"
            continue
        rows += r
        exponents.update(e)
        if name == "exact_loss":      # the kernels alone, in the same run (the README quotes them from here)
            try:
                notes = mod.kernel_lines(args.quick)
                print("\n".join(notes))
            except Exception as exc:  # noqa: BLE001 - the table's rows are kept without the diagnosis
                traceback.print_exc()
                failures["exact_loss kernels"] = f"{type(exc).__name__}: {exc}"
    targets = None
    if args.targets:
        flags = cpu_flags()
        measured, fails = perf_targets.run_builds(flags, args.quick, Path(__file__).resolve(),
                                                  sampler_budget=args.sampler_budget)
        failures.update(fails)
        targets = targets_entry(measured, flags, args.main_job_seconds)
        print("\n" + "\n".join(perf_targets.render(targets)))
    print()
    print_rows(rows)
    from verify._io import atomic_write_text

    load1 = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    argv = "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))
    res = results(rows, exponents, failures, (load0, load1), argv, commit, notes, targets)
    atomic_write_text(args.results, json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    atomic_write_text(args.out, render(res, out_dir))
    print(f"\nwrote {args.results} and {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
