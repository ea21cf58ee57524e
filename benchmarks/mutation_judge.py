"""Judge sampled mutmut mutants with the theorem suite; run by ``mutation_score.py`` inside its work clone.

mutmut generated the mutants (``mutants/`` in the clone: every function of ``verify/symbolic`` and
``verify/numeric`` with its mutated copies). This script turns each sampled mutant back into one plain edit of
the clone's source - the mutated function in place of the original, exactly as ``mutmut apply`` writes it - and
judges it with :mod:`verify.mutants`, the engine of ``verify mutants``: the edit is applied in a temporary copy,
and the default-tier checks of ``proofs_checks/`` that executed the mutated function (per-check coverage, from
the cache of a ``verify report --fast`` run of the clone) run in a forked child, fastest first, stopping at
the first failure. That is the selection mutmut's own "stats" run makes (the tests that call the function),
read from coverage instead of from mutmut's trampolines, which made the suite's numeric loops too slow to
record here (over 90 minutes for the stats step alone).

A mutant is tried claim by claim (the claims whose checks execute it, cheapest first) until one claim's checks
kill it; it is

* ``killed`` - a check fails, errors, times out, the check modules no longer import, or the claim's verdict
  moves (:func:`verify.mutants._classify`);
* ``survived`` - every claim whose checks execute the mutated function passes with its verdict unchanged;
* ``no tests`` - no default-tier check executes the mutated function (a survivor: the suite cannot see it);
* ``error`` - the edit could not be rebuilt from mutmut's files (listed, not counted).

Union mode (``"union": true`` in the spec, the default of ``mutation_score.py`` since the fourth sitting): a
mutant that many claims' checks execute (up to 75 claims for a helper of the moment sequences) needs as many
claim runs, one round each, to survive. It is judged instead in ONE forked run of the union of those checks
(deduplicated: a check marked with several claims runs once), fastest first, stopping at the first failure. The
kill rule is the same: a check of the union fails, errors, times out, or one of the claims' verdicts moves (each
claim's verdict from its checks, the unrun ones keeping their baseline results), so the outcome is the one the
claim-by-claim rounds reach. Its timeout is ``timeout`` plus three times the recorded seconds of the checks it
runs: a long union of passing checks on a loaded machine is not a kill.

Usage (from ``mutation_score.py``): ``cd CLONE && PYTHONPATH=CLONE python mutation_judge.py SPEC.json``; the
spec names the mutants, their files, the jobs, the timeout, the cache folder and the result file, which is
rewritten whole after every round, so an interrupted run keeps what it judged.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path


def _find(module, func: str, cls: str | None):
    """The top-level function ``func``, or the method ``func`` of the top-level class ``cls`` (mutmut mutates
    only these). Not :func:`mutmut.mutation.diff_apply.find_top_level_function_or_method`, which returns the
    first method of that name in any class, so a mutant of ``B.f`` would be applied to ``A.f``."""
    import libcst as cst

    for node in module.body:
        if cls is None and isinstance(node, cst.FunctionDef) and node.name.value == func:
            return node
        if cls is not None and isinstance(node, cst.ClassDef) and node.name.value == cls \
                and isinstance(node.body, cst.IndentedBlock):
            for item in node.body.body:
                if isinstance(item, cst.FunctionDef) and item.name.value == func:
                    return item
    return None


_PARSED: dict = {}   # path -> (text, libcst module): the source does not change during a run


def edit_of(name: str, path: str) -> tuple[str, str]:
    """``(old, new)``: the lines of ``path`` that mutant ``name`` changes, and their mutated text, with as
    many unchanged lines before them as make ``old`` occur exactly once in the file.

    The new module is built as ``mutmut apply`` builds it (:func:`mutmut.mutation.diff_apply.apply_mutant`):
    libcst replaces the original function by the mutant, and libcst round-trips the rest byte for byte."""
    import libcst as cst
    from mutmut.mutation import diff_apply as da
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    if path not in _PARSED:
        text = Path(path).read_text(encoding="utf-8")
        _PARSED[path] = (text, cst.parse_module(text))
    text, module = _PARSED[path]
    func, cls = orig_function_and_class_names_from_key(name)
    orig_name = func.rpartition(".")[-1]
    original = _find(module, orig_name, cls)
    if original is None:
        raise LookupError(f"{name}: function {orig_name} not found in {path}")
    functions = da.read_functions_from_index(name, path)
    mutant = functions[1] if functions is not None else da.read_mutant_function(da.read_mutants_module(path), name)
    new_text = module.deep_replace(original, mutant.with_changes(name=cst.Name(orig_name))).code
    a, b = text.splitlines(keepends=True), new_text.splitlines(keepends=True)
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    if a == b:
        raise LookupError(f"{name}: the mutant does not change the source text")
    while True:   # widen upwards until the old text is unique (and not empty: a pure insertion)
        old, new = "".join(a[p:len(a) - s]), "".join(b[p:len(b) - s])
        if (old and text.count(old) == 1) or p == 0:
            return old, new
        p -= 1


def claim_map(store, root: Path, claim_ids: list[str]):
    """``{(path, qualname): {claim: seconds}}`` from the report cache: per claim whose default-tier checks
    executed the function, the recorded seconds of the fastest of them (where a run of that claim on a mutant
    of the function starts: its checks run fastest first and stop at the first failure)."""
    from verify.mutants import _baseline_from_report

    out: dict = {}
    bases = {}
    for claim in claim_ids:
        base = _baseline_from_report(store, claim, root)
        if base is None:
            continue
        bases[claim] = base
        for c in base["checks"]:
            deps = c.get("deps") or {}
            for f in deps.get("functions", []):
                row = out.setdefault(tuple(f), {})
                # the fastest check executing it: a claim's checks run fastest first and stop at the first failure
                row[claim] = min(row.get(claim, float("inf")), float(deps.get("seconds", 0.0)))
    return out, bases


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    root = Path.cwd()
    from verify._io import atomic_write_text

    if spec.get("suite") == "tests":     # the unit and reference tests of tests/, selected by line coverage
        result = Path(spec["result"])

        def save(got):   # after every mutant: a run stopped half-way keeps what it judged
            atomic_write_text(result, json.dumps(got, indent=1, sort_keys=True) + "\n")

        save(judge_tests_suite(spec["paths"], root, spec["timeout"], order=spec.get("order"), on_result=save))
        return 0
    import verify
    from verify.cache import Cache
    from verify.claims import claim_ids
    from verify.mutants import Mutant, mutated_functions, run_all

    if not os.path.realpath(verify.__file__).startswith(os.path.realpath(root) + os.sep):
        raise SystemExit(f"mutation_judge: verify must come from the clone {root}, not {verify.__file__}")
    store = Cache(spec["cache"])
    fmap, bases = claim_map(store, root, claim_ids(None, beyond=True))
    if not bases:
        raise SystemExit("mutation_judge: the cache holds no baseline of any claim (run verify report --fast first)")
    result_path = Path(spec["result"])
    results = json.loads(result_path.read_text(encoding="utf-8")) if result_path.exists() else {}
    plan = {}   # name -> (edit, candidate claims in order)
    for name in spec["names"]:
        if name in results:
            continue
        path = spec["paths"][name]
        try:
            old, new = edit_of(name, path)
        except (LookupError, FileNotFoundError) as exc:
            results[name] = {"status": "error", "detail": str(exc)}
            continue
        targets = mutated_functions(Path(path).read_text(encoding="utf-8"), old)
        if targets is None:   # a def line or decorator: every claim whose checks run a function of the file
            cost = {}
            for (p, _), row in fmap.items():
                if p == path:
                    for c, sec in row.items():
                        cost[c] = min(cost.get(c, float("inf")), sec)
        else:
            cost = {}
            for q in targets:
                for c, sec in fmap.get((path, q), {}).items():
                    cost[c] = min(cost.get(c, float("inf")), sec)
        order = sorted(cost, key=lambda c: (cost[c], c))
        if not order:
            results[name] = {"status": "no tests", "targets": targets,
                             "detail": "no default-tier check executes the mutated function"}
            continue
        plan[name] = ((path, old, new), order, targets)
    atomic_write_text(result_path, json.dumps(results, indent=1, sort_keys=True) + "\n")
    if spec.get("union"):
        judge_union(plan, bases, fmap, results, result_path, root, spec)
        return 0
    tried: dict = {n: [] for n in plan}
    rnd = 0
    while True:
        batch = [(n, plan[n][1][rnd]) for n in plan if n not in results and rnd < len(plan[n][1])]
        if not batch:
            break
        print(f"mutation_judge: round {rnd + 1}: {len(batch)} mutants", file=sys.stderr, flush=True)
        ms = [Mutant(claim, *plan[n][0], why=f"mutmut {n}") for n, claim in batch]
        got = run_all(ms, root=root, jobs=spec["jobs"], timeout=spec["timeout"], cache_dir=spec["cache"],
                      progress=True)
        for (n, claim), res in zip(batch, got):
            tried[n].append(claim)
            if res.outcome == "killed":
                results[n] = {"status": "killed", "claim": claim, "tried": tried[n], "detail": res.detail[:600]}
            elif res.outcome == "error":
                results[n] = {"status": "error", "claim": claim, "tried": tried[n], "detail": res.detail[:600]}
            elif rnd + 1 >= len(plan[n][1]):
                results[n] = {"status": "survived", "tried": tried[n], "targets": plan[n][2],
                              "detail": res.detail[:600]}
        atomic_write_text(result_path, json.dumps(results, indent=1, sort_keys=True) + "\n")
        rnd += 1
    return 0


def union_timeout(seconds: list[float], timeout: float) -> float:
    """A union run's limit: ``timeout`` plus three times its checks' recorded seconds (the machine's load may
    triple a check's time; a run past that is killed, as a claim run past ``timeout`` is)."""
    return float(timeout) + 3.0 * float(sum(seconds))


def union_checks(bases: dict, claims: list[str]) -> list[dict]:
    """The baseline checks of ``claims``, each node id once (a check marked with several claims is one run)."""
    seen, out = set(), []
    for c in claims:
        for chk in bases[c]["checks"]:
            if chk["nodeid"] not in seen:
                seen.add(chk["nodeid"])
                out.append(chk)
    return out


def union_outcome(code, run_checks, base_checks, claims, base_verdicts, failed_tail=""):
    """``(status, detail)`` of one union run, by the rule of :func:`verify.mutants._classify` applied to every
    claim of the union: killed if a check failed (exit 1), the modules no longer import (2), the run timed out
    (None), or a claim's verdict (its checks' results, the unrun ones at their baseline) moved; survived if
    none did; error otherwise."""
    from verify.mutants import _verdict_of

    if code is None:
        return "killed", "timeout (union run)"
    if code == 1:
        failed = [c["nodeid"] for c in (run_checks or []) if c.get("outcome") in ("failed", "error")]
        return "killed", "a check failed: " + ", ".join(failed) + ("\n" + failed_tail if failed_tail else "")
    if code == 2:
        return "killed", "the checks no longer import: " + failed_tail
    if code != 0 or run_checks is None:
        return "error", f"pytest exit code {code}: {failed_tail}"
    ran = {c["nodeid"] for c in run_checks}
    merged = [c for c in base_checks if c["nodeid"] not in ran] + list(run_checks)
    for claim in claims:
        v = _verdict_of(merged, claim)
        if v != base_verdicts[claim]:
            return "killed", f"verdict of {claim} moved from {base_verdicts[claim]} to {v}"
    return "survived", f"the {len(ran)} checks of the union pass, the verdicts of {len(claims)} claims unchanged"


def judge_union(plan, bases, fmap, results, result_path, root: Path, spec, chunk: int = 4) -> None:
    """Judge ``plan``'s mutants in union mode (module docstring), ``chunk`` mutants per claim-server process
    (the clone's :data:`verify.mutants._SERVER`, unchanged but for a per-run limit), ``spec["jobs"]`` servers at
    a time; ``results`` is rewritten after every chunk."""
    import subprocess
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    from verify._io import atomic_write_text
    from verify.mutants import PRELOAD, _SERVER, _copy_tree

    per_run = 'deadline, code = t0 + run.get("timeout", spec["timeout"]), None'
    server = _SERVER.replace('deadline, code = t0 + spec["timeout"], None', per_run)
    if server.count(per_run) != 1:
        raise SystemExit("mutation_judge: the claim server of this clone has no per-run limit to set")
    names = sorted(n for n in plan if n not in results)
    # a seeded random order: a run stopped part-way has judged a simple random subsample of the mutants still
    # to judge, so the score of the rest is estimated without bias from it (mutation_score.py, two-phase)
    random.Random(int(spec.get("order_seed", 1))).shuffle(names)

    def one_chunk(batch):
        runs, meta = [], {}
        for i, n in enumerate(batch):
            (path, old, new), claims, targets = plan[n]
            checks = union_checks(bases, claims)
            if targets is None:   # module-level edit: the functions of the file the claims' checks executed
                targets = sorted({q for (p, q), row in fmap.items() if p == path and set(row) & set(claims)})
            want = {(path, q) for q in targets}
            secs = [float((c.get("deps") or {}).get("seconds", 0.0)) for c in checks
                    if want & {tuple(f) for f in (c.get("deps") or {}).get("functions", [])}]
            runs.append({"id": f"m{i}", "path": path, "old": old, "new": new,
                         "targets": [[path, q] for q in targets], "timeout": union_timeout(secs, spec["timeout"])})
            meta[f"m{i}"] = (n, claims, checks)
        base_checks = union_checks(bases, sorted({c for n in batch for c in plan[n][1]}))
        files = sorted({c["nodeid"].split("::")[0] for c in base_checks})
        with tempfile.TemporaryDirectory(prefix="verify-union-") as tmp:
            dest = Path(tmp) / "tree"
            dest.mkdir()
            _copy_tree(root, dest)
            args = ["-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
                    "--import-mode=importlib", "-m", "not slow", "--tb=line", f"--rootdir={dest}"]
            sp = {"dest": str(dest), "tmp": tmp, "runs": runs, "files": files, "args": args,
                  "timeout": float(spec["timeout"]), "base_checks": base_checks, "preload": list(PRELOAD) + ["torch"],
                  "result": str(Path(tmp) / "out.json")}
            (Path(tmp) / "spec.json").write_text(json.dumps(sp), encoding="utf-8")
            env = {**os.environ, "VERIFY_BLAS_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(dest),
                   "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            proc = subprocess.run([sys.executable, "-c", server, str(Path(tmp) / "spec.json")], cwd=dest, env=env,
                                  capture_output=True, text=True)
            if proc.returncode != 0 or not Path(sp["result"]).exists():
                return {meta[r["id"]][0]: {"status": "error", "detail": "claim server failed: "
                                           + (proc.stdout + proc.stderr)[-400:]} for r in runs}
            done = json.loads(Path(sp["result"]).read_text(encoding="utf-8"))
        out = {}
        for r in done:
            n, claims, checks = meta[r["id"]]
            status, detail = union_outcome(r["code"], r["checks"], checks, claims,
                                           {c: bases[c]["verdict"] for c in claims}, r.get("tail", ""))
            out[n] = {"status": status, "tried": claims, "mode": "union", "targets": plan[n][2],
                      "seconds": r.get("seconds"), "detail": detail[:600]}
        return out

    batches = [names[k:k + chunk] for k in range(0, len(names), chunk)]
    print(f"mutation_judge: union mode, {len(names)} mutants in {len(batches)} chunks", file=sys.stderr, flush=True)
    with ThreadPoolExecutor(max_workers=max(1, int(spec["jobs"]))) as pool:
        for k, got in enumerate(pool.map(one_chunk, batches)):
            results.update(got)
            atomic_write_text(result_path, json.dumps(results, indent=1, sort_keys=True) + "\n")
            print(f"mutation_judge: chunk {k + 1}/{len(batches)} done, {len(results)} judged", file=sys.stderr,
                  flush=True)




# --------------------------------------------------------------------------- the whole default tier (tests/ too)
# The theorem suite is judged above through the report's per-check records. The unit and reference tests of
# tests/ carry no claim, so they are selected here by line coverage instead: one coverage.py run of the test files
# that import a sampled module, each test's lines recorded under its node id (``switch_context`` from the hook
# below, loaded with ``-p mutation_judge``: coverage's own ``test_function`` contexts name hypothesis's inner runner,
# not the test), then per mutant the tests that executed its first changed line, run with ``-x``.

def pytest_runtest_setup(item):
    """pytest hook (this file loaded as a plugin): record the lines the test runs under its node id."""
    import coverage

    cov = coverage.Coverage.current()
    if cov is not None:
        cov.switch_context(item.nodeid)


def package_imports(root: Path, package: str = "verify") -> dict:
    """``{module: the package's modules it imports}`` (dotted names; ``pkg/__init__.py`` is ``pkg``), from every
    ``import`` and ``from ... import`` anywhere in its source (a function's lazy import included), relative ones
    resolved, and every string that is a module's dotted name (``importlib.import_module`` of a registry);
    ``from a import b`` names ``a`` and, where ``b`` is a module, ``a.b``."""
    import ast

    base = root / package
    names = {}
    for f in sorted(base.rglob("*.py")):
        rel = f.relative_to(root).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        names[".".join(parts)] = f
    out = {}
    for mod, f in names.items():
        try:
            tree = ast.parse(f.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            out[mod] = set()
            continue
        pkg = mod if f.name == "__init__.py" else mod.rpartition(".")[0]
        got = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                got.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                    src = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                got.add(src)
                got.update(f"{src}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                got.add(node.value)   # a module named as a string, imported with importlib (verify.latex's registry)
        # a module's import runs its packages' __init__ first
        closed = set()
        for g in got:
            bits = g.split(".")
            closed.update(".".join(bits[:i]) for i in range(1, len(bits) + 1))
        out[mod] = {g for g in closed if g in names and g != mod}
    return out


def reaching_modules(root: Path, module_paths: list, package: str = "verify") -> set:
    """The dotted names of the modules ``module_paths`` (paths under ``root``) and of every module of the package
    that imports one of them, directly or through others: importing any of these can run the module's code."""
    graph = package_imports(root, package)
    targets = {p[:-3].replace("/", ".").removesuffix(".__init__") for p in module_paths}
    reach = set(targets)
    while True:
        more = {m for m, deps in graph.items() if m not in reach and deps & reach}
        if not more:
            return reach
        reach |= more


def importing_tests(root: Path, module_paths: list) -> list:
    """The test files under ``root/tests`` whose text names one of the modules or a module of the package that
    imports one (:func:`reaching_modules`: ``tests/test_latex_notation.py`` runs ``verify/symbolic/central_path.py``
    through ``verify.latex``; ``verify/numeric/x.py`` is named by ``verify.numeric.x`` or by ``from verify.numeric
    import ... x``), or that import a module of ``tests/`` that does (transitively: ``tests/test_api_messages.py``
    reaches every module of the sweep through ``test_api_parameters``, which names them as strings), sorted."""
    import ast

    pats = []
    reach = sorted(reaching_modules(root, module_paths)) if (root / "verify").is_dir() else []
    for dotted in reach or [p[:-3].replace("/", ".") for p in module_paths]:
        pkg, _, mod = dotted.rpartition(".")
        pats.append((dotted, f"from {pkg} import", mod))
    tests = root / "tests"
    files = sorted(tests.rglob("*.py"))
    local = {f.stem: f for f in files if f.parent == tests}      # tests/ is on pytest's pythonpath
    names, imports = {}, {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        names[f] = any(d in text or (fi in text and f" {m}" in text) for d, fi, m in pats)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
        imports[f] = {local[n] for node in ast.walk(tree) for n in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            if n in local}
    selected = {f for f in files if names[f]}
    while True:   # the closure over local imports
        more = {f for f in files if f not in selected and imports[f] & selected}
        if not more:
            break
        selected |= more
    return sorted(str(f.relative_to(root)) for f in selected if f.name.startswith("test_"))


def tests_by_line(data_file: Path, root: Path) -> dict:
    """``{(path relative to root, line): sorted node ids}`` from a coverage data file with node-id contexts."""
    import coverage

    data = coverage.CoverageData(str(data_file))
    data.read()
    out = {}
    for f in data.measured_files():
        rel = str(Path(f).resolve().relative_to(root.resolve()))
        for line, ctxs in data.contexts_by_lineno(f).items():
            ids = sorted(c for c in ctxs if "::" in c)
            if ids:
                out[(rel, line)] = ids
    return out


def first_changed_line(text: str, old: str, new: str) -> int:
    """1-based line in ``text`` of the first line that the edit ``old -> new`` of :func:`edit_of` changes (``old``
    starts with as many unchanged lines as make it unique, so its first line is not the changed one)."""
    a, b = old.splitlines(), new.splitlines()
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return text.count("\n", 0, text.index(old)) + 1 + same


def function_lines(text: str, line: int) -> range:
    """The lines of the innermost function whose definition holds ``line`` (its whole extent; empty if none):
    a mutant of a def line (a default value) runs at import, so the tests that run the body are its tests."""
    import ast

    best = range(0)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
            if not best or node.lineno >= best.start:
                best = range(node.lineno, node.end_lineno + 1)
    return best


def judge_tests_suite(names: dict, root: Path, timeout: float, pytest_args: list | None = None,
                      order: list | None = None, on_result=None) -> dict:
    """``{mutant: {"status", "tests"}}`` for ``names`` (mutant -> module path), judged by the default tier of
    ``root/tests``: ``killed`` when a selected test fails, errors or times out; ``survived`` when all pass; ``no
    tests`` when no test of tests/ runs the mutated line. Each mutant is applied in a fresh copy of ``verify/``.

    ``order``: the order to judge them in (default sorted; a seeded random order makes a run stopped half-way a
    random subsample); ``on_result(outcomes so far)`` after each. The coverage run is kept in ``root`` with the
    list of test files it ran, and reused by a later call that needs the same files (a resumed run)."""
    import shutil
    import subprocess
    import tempfile

    env = {**os.environ, "VERIFY_BLAS_THREADS": "1", "OMP_NUM_THREADS": "1"}
    modules = sorted(set(names.values()))
    files = importing_tests(root, modules)
    data = root / ".coverage-tests"
    rc = root / ".coveragerc-tests"
    stamp = root / ".coverage-tests.files"
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0", "-q",
            *(pytest_args or [])]
    ran = stamp.read_text().split("\n") if stamp.exists() and data.exists() else None
    if ran is None or not set(files) <= set(ran):
        rc.write_text(f"[run]\nsource = verify\ndata_file = {data}\n")
        stamp.unlink(missing_ok=True)
        subprocess.run([sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", *base[1:], "-p", "mutation_judge",
                        *files], cwd=root, env={**env, "PYTHONPATH": f"{root}{os.pathsep}{Path(__file__).parent}"},
                       capture_output=True)
        stamp.write_text("\n".join(files))
    lines = tests_by_line(data, root)
    out = {}
    for name in (order if order is not None else sorted(names)):
        if on_result is not None and out:
            on_result(out)
        path = names[name]
        try:
            old, new = edit_of(name, path)      # mutmut reads its files relative to the clone (the working folder)
        except (LookupError, FileNotFoundError) as exc:
            out[name] = {"status": "error", "tests": [], "detail": str(exc)}
            continue
        text = (root / path).read_text(encoding="utf-8")
        at = first_changed_line(text, old, new)
        ids = lines.get((path, at), [])
        if not ids:   # a line no test's own code runs (a def line, a default): the tests that run its function
            ids = sorted({i for ln in function_lines(text, at) for i in lines.get((path, ln), [])})
        if not ids:
            out[name] = {"status": "no tests", "tests": []}
            continue
        with tempfile.TemporaryDirectory() as tmp:
            # the package copied and edited; everything else linked (``python -m`` puts the working folder first
            # on sys.path, so the run happens in the copy, never in root)
            for entry in sorted(root.iterdir()):
                if entry.name == "verify":
                    shutil.copytree(entry, Path(tmp) / "verify", ignore=shutil.ignore_patterns("__pycache__"))
                elif not entry.name.startswith("."):
                    (Path(tmp) / entry.name).symlink_to(entry)
            (Path(tmp) / path).write_text(text.replace(old, new, 1), encoding="utf-8")
            try:
                res = subprocess.run([*base, "-x", *ids], cwd=tmp, env={**env, "PYTHONPATH": tmp},
                                     capture_output=True, timeout=timeout)
                status = "survived" if res.returncode == 0 else "killed"
            except subprocess.TimeoutExpired:
                status = "timeout"
        out[name] = {"status": status, "tests": ids}
    return out


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
