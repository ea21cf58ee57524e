r"""Counterexample search at scale: the seeded starts of :func:`verify.engine.adversarial_max` as Dask tasks.

Start :math:`i` of a search over objective :math:`f` (:mod:`verify.objectives`) with seed :math:`s`
begins at the :math:`i`-th draw of the objective's sampler from ``numpy.random.default_rng(s)`` and
runs :func:`verify.engine.optimise_start` (Nelder-Mead) from there. The starts are drawn in order on
the client and each optimisation is one task, so the best value over starts :math:`0..B-1` equals
``adversarial_max(f, sampler, n_starts=B, seed=s).best`` whatever the cluster, the order in which
tasks finish, or the workers that die on the way (the scheduler re-runs their tasks).

The state (starts done, best so far, a counterexample) is checkpointed atomically to a JSON file; a
search started again with ``resume=True`` skips the starts already done and keeps the best, so an
interrupted search loses nothing. A start whose value exceeds the claim's threshold
(:meth:`~verify.objectives.Objective.violates`) stops the search (``stop_on_violation``) and is kept
as the counterexample; :func:`verify.objectives.replay_point` re-evaluates it exactly.

>>> out = run_search("S-lemA.2", budget=2, seed=2, client=None, progress=False)
>>> out.n_done, 0.9 < out.best <= 1, out.counterexample is None
(2, True, True)
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from ._validate import VerifyInputError, verify_int
from .objectives import get_objective

__all__ = ["run_start", "run_search", "SearchOutcome", "load_state", "FORMAT"]

#: identifies the checkpoint files (bumped if the layout changes)
FORMAT = "verify-search/1"


def run_start(task: tuple) -> tuple:
    """One Dask task: ``(name, index, x0, method, maxiter) -> (index, best, x, start_value)``.

    Looks the objective up by name on the worker (workers import :mod:`verify.objectives`; nothing but
    numbers crosses the wire).
    """
    from .engine import optimise_start

    name, index, x0, method, maxiter = task
    obj = get_objective(name)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"), warnings.catch_warnings():
        # nan/inf outside a claim's hypotheses are part of the objective's contract (-inf for the optimiser)
        warnings.simplefilter("ignore", RuntimeWarning)
        best, x, value = optimise_start(obj.ratio, np.asarray(x0, dtype=float), method=method, maxiter=maxiter)
    return index, best, None if x is None else [float(v) for v in x], value


@dataclass
class SearchOutcome:
    """What a search found; :meth:`as_dict` is the checkpoint's content."""

    objective: str
    claim: str
    seed: int
    budget: int
    method: str
    maxiter: int
    threshold: float
    done: set = field(default_factory=set)
    best: float = -math.inf
    best_x: list | None = None
    best_start: int | None = None
    counterexample: dict | None = None

    @property
    def n_done(self) -> int:
        return len(self.done)

    @property
    def complete(self) -> bool:
        return all(i in self.done for i in range(self.budget))

    def update(self, index: int, best: float, x: list | None) -> bool:
        """Record start ``index``; True when it is the new best (ties go to the lower start, as in
        :func:`~verify.engine.adversarial_max`)."""
        self.done.add(index)
        if x is None or not math.isfinite(best):
            return False
        if best > self.best or (best == self.best and (self.best_start is None or index < self.best_start)):
            self.best, self.best_x, self.best_start = float(best), list(x), int(index)
            return True
        return False

    def as_dict(self) -> dict:
        return {"format": FORMAT, "objective": self.objective, "claim": self.claim, "seed": self.seed,
                "budget": self.budget, "method": self.method, "maxiter": self.maxiter, "threshold": self.threshold,
                "n_done": self.n_done, "done": _ranges(self.done),
                "best": None if self.best_start is None else self.best,
                "best_start": self.best_start, "x": self.best_x, "counterexample": self.counterexample}


def _ranges(done: set) -> list:
    """``{0, 1, 2, 5}`` -> ``[[0, 2], [5, 5]]`` (compact, and the same bytes for the same set)."""
    out: list = []
    for i in sorted(done):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def load_state(path: str | Path) -> dict:
    """Read a checkpoint (or any JSON with ``objective`` and ``x``); :class:`~verify.VerifyInputError` if unusable."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise VerifyInputError(f"Argument 'file' must be an existing search checkpoint, not {str(path)!r}.") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise VerifyInputError(f"Argument 'file' must be a JSON search checkpoint, not {str(path)!r} "
                               f"(not valid JSON).") from None
    if not isinstance(data, dict) or "objective" not in data:
        raise VerifyInputError(f"Argument 'file' must be a search checkpoint with an 'objective', not {str(path)!r}.")
    return data


def _write(path: Path, state: SearchOutcome) -> None:
    from ._io import atomic_write_text, canonical_json

    atomic_write_text(path, canonical_json(state.as_dict()) + "\n")


def _starts(name: str, seed: int, budget: int, skip: set, method: str, maxiter: int) -> Iterator[tuple]:
    """The tasks not done yet; every start is drawn (the sampler's stream is sequential) but only the
    missing ones are yielded."""
    obj = get_objective(name)
    rng = np.random.default_rng(seed)
    for i in range(budget):
        x0 = np.asarray(obj.sampler(rng), dtype=float)
        if i not in skip:
            yield (name, i, [float(v) for v in x0], method, maxiter)


def run_search(name: str, budget: int = 32, seed: int | None = None, *, client: Any = None,
               out: str | Path | None = None, resume: bool = False, progress: bool = True,
               stop_on_violation: bool = True, method: str | None = None, maxiter: int | None = None,
               window: int | None = None, checkpoint_s: float = 1.0,
               on_result: Callable[[SearchOutcome, int], None] | None = None) -> SearchOutcome:
    """Maximise objective ``name`` over ``budget`` seeded starts; see the module docstring.

    :param client: a :class:`dask.distributed.Client` (:func:`verify.distributed.get_client`), or
        ``None`` to run the starts one after another in this process (reference and benchmark).
    :param out: checkpoint file, written atomically on every new best, every ``checkpoint_s``
        seconds and at the end (also on an interruption).
    :param resume: continue from ``out``: same objective, seed, method and maxiter; ``budget`` may grow.
    :param window: tasks in flight at once (default: 4 per worker thread, at least 8).
    :param on_result: called as ``on_result(state, index)`` after every finished start (tests, progress hooks).
    """
    obj = get_objective(name)
    budget = verify_int(budget, "budget", minimum=1)
    seed = obj.seed if seed is None else verify_int(seed, "seed", minimum=0)
    method = method or obj.method
    maxiter = obj.maxiter if maxiter is None else verify_int(maxiter, "maxiter", minimum=1)
    state = SearchOutcome(name, obj.claim, seed, budget, method, maxiter, obj.threshold)
    path = None if out is None else Path(out)
    if resume:
        if path is None:
            raise VerifyInputError("Argument 'resume' needs a checkpoint file: pass --out FILE as well.")
        if path.exists():
            state = _resumed(state, load_state(path))

    budget = state.budget
    todo = _starts(name, seed, budget, set(state.done), method, maxiter)
    n_todo = budget - sum(1 for i in state.done if i < budget)
    last = time.monotonic()
    try:
        if state.counterexample is not None and stop_on_violation:
            return state
        results = contextlib.closing(_results(client, todo, n_todo, name, progress, window))
        with results as stream:  # closing it cancels the tasks still in flight (early stop, Ctrl-C)
            for index, best, x, _value in stream:
                improved = state.update(index, best, x)
                if state.counterexample is None and x is not None and obj.violates(best):
                    state.counterexample = {"start": index, "value": best, "x": x}
                if on_result is not None:
                    on_result(state, index)
                if path is not None and (improved or time.monotonic() - last >= checkpoint_s):
                    _write(path, state)
                    last = time.monotonic()
                if state.counterexample is not None and stop_on_violation:
                    break
    finally:
        if path is not None:
            _write(path, state)
    return state


def _resumed(state: SearchOutcome, data: dict) -> SearchOutcome:
    for key in ("objective", "seed", "method", "maxiter"):
        if data.get(key) != getattr(state, key):
            raise VerifyInputError(f"Argument 'resume' must continue the same search: the checkpoint has "
                                   f"{key} = {data.get(key)!r}, this run {getattr(state, key)!r}.")
    state.budget = max(state.budget, int(data.get("budget", 0)))
    state.done = {i for a, b in data.get("done", []) for i in range(int(a), int(b) + 1)}
    if data.get("best_start") is not None:
        state.best, state.best_x, state.best_start = float(data["best"]), list(data["x"]), int(data["best_start"])
    state.counterexample = data.get("counterexample")
    return state


def _results(client: Any, todo: Iterator[tuple], n_todo: int, name: str, progress: bool,
             window: int | None) -> Iterator[tuple]:
    desc = f"search {name}"
    if client is None:
        from tqdm.auto import tqdm

        for task in tqdm(todo, total=n_todo, desc=desc, disable=not progress, leave=False):
            yield run_start(task)
        return
    from .distributed import iter_completed

    if window is None:
        threads = sum(client.nthreads().values()) or 1
        window = max(8, 4 * threads)
    prefix = "search-" + "".join(c if c.isalnum() else "_" for c in name)   # iter_completed makes it unique
    for _pos, result in iter_completed(client, run_start, todo, desc=desc, progress=progress,
                                       key_prefix=prefix, window=window, total=n_todo):
        yield result
