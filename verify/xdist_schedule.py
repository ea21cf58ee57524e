r"""How the theorem suite is shared out among pytest-xdist workers (``pytest -n N``, ``verify report -n N``).

pytest-xdist's default (``--dist load``) hands each worker chunks of consecutive checks up front. Near the end of
a run the last chunks stay queued behind whatever their worker is running: measured on ``verify report -n 2`` of
both tiers (2-core machine, idle), 26 checks waited 22 minutes behind one Table 1 training check (1,295 s) while the other
worker slept. And two checks that share a module-scoped fixture (one training run of a preset) may land on two
workers, each computing it.

Here instead (:class:`FixtureGroupScheduling`, a :class:`xdist.scheduler.LoadScopeScheduling`):

* a **unit of work** is one check, except that the checks sharing a module-, class- or package-scoped fixture form
  one unit (:func:`shared_fixture_groups`, computed by each worker from its collection), so the fixture is computed
  once;
* units are handed out **one at a time** as workers free up (at most three checks queued per worker), so no worker
  idles while checks wait elsewhere;
* the longest units go **first** (longest-processing-time order): by the durations the last run recorded in pytest's
  cache (``.pytest_cache``, key :data:`DURATIONS_KEY`) or, for ``verify report`` (which runs without pytest's
  cache), in the durations file of its cache folder (:data:`REPORT_DURATIONS`, pytest option
  ``--verify-durations``), over those of the hint shipped with the package (:data:`HINT`, for a fresh clone;
  ``python -m verify.xdist_schedule`` rewrites it from either record); a unit that none timed goes first if it
  shares a fixture (a training run), last otherwise.

Only the order and the placement change, never which checks run or what they find (each check is as independent of
its neighbours as under ``--dist load``). An explicit ``--dist`` other than ``load`` keeps pytest-xdist's own
scheduler.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

from ._io import atomic_write_text
from ._validate import verify_int
from .check_ids import rehome

#: pytest cache key of the per-check durations (seconds, setup + call + teardown) the last run recorded
DURATIONS_KEY = "verify/durations"
#: fixture scopes whose value is computed once for several checks (a session fixture may serve the whole suite:
#: grouping by it would make one unit of everything, so it is left out)
SHARED_SCOPES = ("module", "class", "package")
_WORKER_INPUT = "verify_groups_dir"
#: the durations hint shipped with the package (seconds per check node id, from a run on the 2-core machine)
HINT = Path(__file__).resolve().parent / "data" / "check_durations.json"
_HINT_FORMAT, _HINT_VERSION = "verify-check-durations", 1
#: the file in ``verify report``'s cache folder where it records its checks' durations (the hint's format): the
#: report runs pytest without its cache, so this is its only record of them
REPORT_DURATIONS = "check-durations.json"


class DurationsWarning(UserWarning):
    """A durations hint that is corrupt or foreign, and so is ignored (it only ever orders checks)."""


def shared_fixture_groups(items) -> dict[str, str]:
    """``nodeid -> group``: checks that use one module-, class- or package-scoped fixture (directly or through
    another fixture) are in one group, named by its first check in collection order. A check that shares none is
    not listed."""
    parent: dict[str, str] = {}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    pos = {item.nodeid: i for i, item in enumerate(items)}
    first: dict[tuple, str] = {}
    for item in items:
        parent.setdefault(item.nodeid, item.nodeid)
        info = getattr(item, "_fixtureinfo", None)
        for name, defs in (getattr(info, "name2fixturedefs", None) or {}).items():
            if not defs or defs[-1].scope not in SHARED_SCOPES:
                continue
            key = (defs[-1].baseid, name)
            if key not in first:
                first[key] = item.nodeid
                continue
            a, b = sorted((find(first[key]), find(item.nodeid)), key=pos.__getitem__)
            parent[b] = a   # the earlier check names the group: the same groups on every worker
    groups = {n: find(n) for n in parent}
    sizes: dict[str, int] = {}
    for g in groups.values():
        sizes[g] = sizes.get(g, 0) + 1
    return {n: g for n, g in groups.items() if sizes[g] > 1}


def check_estimates(durations: dict):
    """``seconds(nodeid)``: the recorded duration of a check, else the mean of its module's recorded checks, else 0."""
    by_module: dict[str, list] = {}
    for n, v in durations.items():
        by_module.setdefault(n.split("::")[0], []).append(float(v))
    mean = {m: sum(v) / len(v) for m, v in by_module.items()}
    return lambda n: float(durations[n]) if n in durations else mean.get(n.split("::")[0], 0.0)


def unit_order(units: dict, durations: dict, grouped: set) -> list:
    """The units (``scope -> nodeids``, in collection order) longest first: by the sum of their checks' recorded
    durations, a check the record lacks counted as the mean of the timed checks of its module (a new parameter of a
    timed check, a renamed one: without it a long one would go last and end the run alone); a unit with none
    recorded, in its module either, goes before every timed one if it is a shared-fixture group (a training run the
    last run did not time) and after them otherwise; ties keep collection order."""
    seconds = check_estimates(durations)

    def key(item):
        i, (scope, nodeids) = item
        est = sum(seconds(n) for n in nodeids)
        if est <= 0.0 or (scope in grouped and not any(n in durations for n in nodeids)):
            est = math.inf if scope in grouped else 0.0
        return (-est, i)

    return [scope for _, (scope, _) in sorted(enumerate(units.items()), key=key)]


def simulate(units: dict, durations: dict, workers: int = 2, grouped: set = frozenset()) -> dict:
    """The schedule :class:`FixtureGroupScheduling` makes of ``units`` (``scope -> nodeids``) if every check takes
    its recorded seconds: units in :func:`unit_order`, each to the worker that frees up first (an untimed check
    counts as :func:`unit_order` estimates it: its module's mean, else 0 s). Returns ``{"makespan": s, "workers": [[(start, end, scope), ...] per worker], "idle": s, "bound":
    s}``: ``bound`` is the least any schedule of these units can take (their sum over the workers, or the longest
    unit), ``idle`` the workers' seconds spent waiting for the last one to finish."""
    n = verify_int(workers, "workers", minimum=1)
    seconds = check_estimates(durations)
    cost = {scope: sum(seconds(n) for n in nodeids) for scope, nodeids in units.items()}
    free = [0.0] * n
    plan: list[list] = [[] for _ in range(n)]
    for scope in unit_order(units, durations, set(grouped)):
        w = min(range(n), key=lambda i: (free[i], i))
        plan[w].append((free[w], free[w] + cost[scope], scope))
        free[w] += cost[scope]
    makespan = max(free)
    total = sum(cost.values())
    return {"makespan": makespan, "workers": plan, "idle": n * makespan - total,
            "bound": max(total / n, max(cost.values(), default=0.0))}


def valid_durations(raw) -> dict:
    """The cached durations if they are a ``{nodeid: seconds >= 0}`` mapping, else nothing (a foreign or corrupt
    entry only loses the order, never a check)."""
    if not isinstance(raw, dict):
        return {}
    return {k: float(v) for k, v in raw.items() if isinstance(k, str) and isinstance(v, (int, float))
            and not isinstance(v, bool) and math.isfinite(v) and v >= 0}


def load_hint(path=HINT) -> dict:
    """``{nodeid: seconds}`` of the shipped hint; ``{}`` when absent. A file that is not one (unreadable, not JSON,
    another format or version, a malformed entry) is ignored whole with a :class:`DurationsWarning`."""
    if path is None or not Path(path).is_file():
        return {}
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        raw = doc.get("durations") if isinstance(doc, dict) else None
        ok = doc.get("format") == _HINT_FORMAT and doc.get("version") == _HINT_VERSION and isinstance(raw, dict) \
            and valid_durations(raw).keys() == raw.keys()
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        ok = False
    if not ok:
        warnings.warn(f"ignored the check-durations hint {path}: not a {_HINT_FORMAT} file of version {_HINT_VERSION} "
                      "(corrupt or foreign); checks run in collection order", DurationsWarning, stacklevel=2)
        return {}
    # keyed by node id, read by check: a check moved to another module of the suite keeps its duration (verify.check_ids)
    return {rehome(k): v for k, v in valid_durations(raw).items()}


def write_hint(durations: dict, path=HINT) -> int:
    """Write the hint ``path`` (canonical JSON, atomically) from ``{nodeid: seconds}``; returns its size."""
    clean = {k: round(v, 1) for k, v in sorted(valid_durations(durations).items())}
    atomic_write_text(path, json.dumps({"format": _HINT_FORMAT, "version": _HINT_VERSION, "durations": clean},
                                       indent=0, sort_keys=True) + "\n")
    return len(clean)


def durations_file(config) -> Path | None:
    """The durations file of this run (pytest option ``--verify-durations``), if any."""
    try:
        value = config.getoption("--verify-durations")
    except (ValueError, AttributeError):   # the verify plugin's options are not registered (a bare config)
        return None
    return Path(value) if value else None


def known_durations(config) -> dict:
    """``{nodeid: seconds}`` the scheduler orders by: pytest's cache over this run's durations file over the hint."""
    cache = getattr(config, "cache", None)
    path = durations_file(config)
    return {**load_hint(), **(load_hint(path) if path is not None else {}),
            **valid_durations(cache.get(DURATIONS_KEY, {}) if cache is not None else {})}


def make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class FixtureGroupScheduling(LoadScopeScheduling):
        """Units as in the module docstring: one check, or the checks sharing a fixture; longest first."""

        def __init__(self, config, log=None):
            super().__init__(config, log)
            self._groups: dict | None = None
            self._ordered = False

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                self._groups = read_groups(self.config)
            return self._groups.get(nodeid, nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:   # the first call comes right after schedule() has built the whole queue
                self._ordered = True
                durations = known_durations(self.config)
                grouped = set((self._groups or {}).values())
                for scope in unit_order(dict(self.workqueue), durations, grouped):
                    self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return FixtureGroupScheduling(config, log)


# --------------------------------------------------------------------------- the hooks' work (verify.pytest_plugin)
def uses_our_scheduler(config) -> bool:
    return config.getvalue("dist") == "load" and not hasattr(config, "workerinput")


def configure_node(config, node) -> None:
    """Controller: give each worker the folder where it writes its groups."""
    if not uses_our_scheduler(config):
        return
    if getattr(config, "_verify_groups_dir", None) is None:
        config._verify_groups_dir = tempfile.mkdtemp(prefix="verify-xdist-")
    node.workerinput[_WORKER_INPUT] = config._verify_groups_dir


def write_groups(config, items) -> None:
    """Worker: its collection's groups, written whole before the collection reaches the controller."""
    folder = getattr(config, "workerinput", {}).get(_WORKER_INPUT)
    if folder:
        name = str(config.workerinput.get("workerid", "worker"))
        atomic_write_text(Path(folder) / f"{name}.json", json.dumps(shared_fixture_groups(items), sort_keys=True))


def read_groups(config) -> dict:
    """Controller: the workers' groups (identical: the same collection); none if no worker wrote any."""
    folder = getattr(config, "_verify_groups_dir", None)
    groups: dict = {}
    for f in sorted(Path(folder).glob("*.json")) if folder else ():
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(data, dict):
            groups.update({k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)})
    return groups


def record_duration(config, report) -> None:
    """Controller (or a run without workers): add one phase of a check to its duration."""
    if hasattr(config, "workerinput"):
        return
    seen = config.__dict__.setdefault("_verify_durations", {})
    seen[report.nodeid] = seen.get(report.nodeid, 0.0) + float(getattr(report, "duration", 0.0) or 0.0)


def save_durations(config) -> None:
    """Controller: this run's durations over the last ones (checks not run keep theirs), in pytest's cache and in
    the run's durations file (``--verify-durations``) where there is one."""
    seen = config.__dict__.get("_verify_durations")
    cache = getattr(config, "cache", None)
    if seen and cache is not None and not hasattr(config, "workerinput"):
        merged = valid_durations(cache.get(DURATIONS_KEY, {}))
        merged.update({k: round(v, 3) for k, v in seen.items()})
        cache.set(DURATIONS_KEY, merged)
    path = durations_file(config)
    if seen and path is not None and not hasattr(config, "workerinput"):
        try:
            write_hint({**load_hint(path), **seen}, path)
        except OSError as exc:   # the record only orders the next run: losing it must not fail this one
            warnings.warn(f"could not record the check durations in {path}: {exc}", DurationsWarning, stacklevel=2)
    folder = config.__dict__.pop("_verify_groups_dir", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def _recorded(opts) -> dict | str:
    """The durations ``main`` reads (``--report`` folder's record, else pytest's cache), or the error line."""
    if opts.report is not None:
        src = Path(opts.report) / REPORT_DURATIONS
        if not src.is_file():
            return (f"argument --report: no recorded durations at {src} (a report with a cache folder records "
                    "them)")
        with warnings.catch_warnings():
            warnings.simplefilter("error", DurationsWarning)
            try:
                return load_hint(src)
            except DurationsWarning:
                return f"argument --report: {src} is not a durations record"
    src = Path(opts.cache) / "v" / DURATIONS_KEY
    if not src.is_file():
        return f"argument --cache: no recorded durations at {src}"
    try:
        return valid_durations(json.loads(src.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError):
        return f"argument --cache: {src} is not a durations record"


def format_simulation(sim: dict, top: int = 5) -> str:
    """What :func:`simulate` found, as lines: the makespan against the bound, and each worker's longest units, the
    worker that finishes last (the critical path) first."""
    head = (f"simulated makespan {sim['makespan']:.0f} s on {len(sim['workers'])} workers (least possible "
            f"{sim['bound']:.0f} s; idle {sim['idle']:.0f} worker-seconds)")
    lines = [head]
    order = sorted(range(len(sim["workers"])), key=lambda w: -(sim["workers"][w][-1][1] if sim["workers"][w] else 0))
    for rank, w in enumerate(order):
        units = sim["workers"][w]
        end = units[-1][1] if units else 0.0
        lines.append(f"worker {w}{' (critical path)' if rank == 0 else ''}: {len(units)} units, ends at {end:.0f} s; "
                     "longest: " + "; ".join(f"{scope} {b - a:.0f} s at {a:.0f} s" for a, b, scope in
                                            sorted(units, key=lambda u: u[0] - u[1])[:top]))
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m verify.xdist_schedule [--cache DIR | --report FOLDER] [--out FILE | --simulate [-n N]]``: the
    shipped hint from the durations in pytest's cache folder (default ``.pytest_cache``) or those ``verify report``
    recorded in its cache folder (``--report .verify-cache``), over the hint's own entries for checks the record
    lacks; ``--simulate``: instead, the schedule of the report's checks those durations give (each check one unit)."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    src_opt = ap.add_mutually_exclusive_group()
    src_opt.add_argument("--cache", default=".pytest_cache", help="pytest's cache folder")
    src_opt.add_argument("--report", default=None, metavar="FOLDER",
                         help=f"verify report's cache folder (its {REPORT_DURATIONS}), e.g. .verify-cache")
    ap.add_argument("--out", default=str(HINT))
    ap.add_argument("--simulate", action="store_true",
                    help="print the schedule of the claim checks (proofs_checks/) these durations give; write nothing")
    ap.add_argument("-n", dest="workers", type=int, default=2, help="workers of --simulate (default 2)")
    opts = ap.parse_args(argv)
    out = Path(opts.out)
    if not opts.simulate and (out.is_dir() or not out.parent.is_dir()):
        print(f"verify.xdist_schedule: error: argument --out: must be a file in an existing folder, not {out}",
              file=sys.stderr)
        return 2
    if opts.workers < 1:
        print(f"verify.xdist_schedule: error: argument -n: must be a positive integer, not {opts.workers}",
              file=sys.stderr)
        return 2
    recorded = _recorded(opts)
    if isinstance(recorded, str):
        print(f"verify.xdist_schedule: error: {recorded}", file=sys.stderr)
        return 2
    if opts.simulate:
        durations = {**load_hint(out), **recorded}
        checks = {k: [k] for k in sorted(durations) if k.startswith("proofs_checks/")}
        print(format_simulation(simulate(checks, durations, opts.workers)))
        return 0
    n = write_hint({**load_hint(out), **recorded}, out)
    print(f"wrote {n} check durations to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
