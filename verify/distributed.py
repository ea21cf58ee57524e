"""One code path from a laptop to a cluster: a Dask client, and an ordered map with a progress bar.

Every embarrassingly parallel job of the package (counterexample searches, long frame certificates,
paper-size sweeps) runs its independent pieces as Dask tasks through the two functions here:

* :func:`get_client` - a context manager yielding a :class:`dask.distributed.Client`. Without an
  address it starts a :class:`~dask.distributed.LocalCluster` of worker *processes* with one thread
  each on this machine; with ``scheduler="tcp://HOST:PORT"`` it connects to an existing cluster
  (``dask scheduler`` + ``dask worker tcp://HOST:PORT``). A bad or unreachable address raises a
  :class:`~verify.VerifyInputError` naming ``'scheduler'`` after a short timeout.
* :func:`map_ordered` / :func:`iter_completed` - submit ``fn(item)`` for every item (``pure=False``
  with explicit keys, so equal items are still separate tasks), show a tqdm bar, and return the
  results in item order (or yield ``(index, result)`` as tasks finish, for early stopping and
  checkpointing). A task whose worker dies is re-run by the scheduler on another worker, so a pure
  ``fn`` of its item gives the same results whatever happens to the workers.

Example (a LocalCluster with two worker processes)::

    from verify.distributed import get_client, map_ordered
    with get_client(n_workers=2) as client:
        values = map_ordered(client, abs, [-1, 2, -3], desc="abs")      # [1, 2, 3]

Functions sent to workers must be importable there (module-level functions of an installed
``verify``), because workers unpickle them by reference.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import uuid
from typing import Any, Callable, Iterable, Iterator, Sequence

from ._validate import VerifyInputError, verify_int

__all__ = ["get_client", "map_ordered", "iter_completed", "parse_scheduler", "DEFAULT_CONNECT_TIMEOUT"]

#: seconds to wait for a scheduler before declaring the address bad. A scheduler on a reachable host
#: answers in milliseconds; a few seconds covers a loaded machine without making a typo hang long.
DEFAULT_CONNECT_TIMEOUT = 5.0

_ADDRESS = re.compile(r"^(?P<proto>tcp|tls|inproc|ucx|ws|wss)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^:/\s]+)(?::(?P<port>\d+))?/?$")


def parse_scheduler(scheduler: Any) -> str:
    """Validate a scheduler address ``tcp://HOST:PORT`` (also ``tls://``, ``ws://``...) and return it.

    ``HOST:PORT`` without a protocol is read as ``tcp://HOST:PORT``, as Dask itself does.

    >>> parse_scheduler("127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> parse_scheduler("tcp://node-3:99999")
    Traceback (most recent call last):
    ...
    verify._validate.VerifyInputError: Argument 'scheduler' must be a Dask scheduler address tcp://HOST:PORT with 1 <= PORT <= 65535, not 'tcp://node-3:99999'.
    """
    allowed = "a Dask scheduler address tcp://HOST:PORT with 1 <= PORT <= 65535"
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise VerifyInputError(f"Argument 'scheduler' must be {allowed}, not {scheduler!r}.")
    addr = scheduler.strip()
    if "://" not in addr:
        addr = "tcp://" + addr
    m = _ADDRESS.match(addr)
    if m is None or (m.group("proto") != "inproc" and m.group("port") is None):
        raise VerifyInputError(f"Argument 'scheduler' must be {allowed}, not {scheduler!r}.")
    if m.group("port") is not None and not 1 <= int(m.group("port")) <= 65535:
        raise VerifyInputError(f"Argument 'scheduler' must be {allowed}, not {scheduler!r}.")
    return addr.rstrip("/")


def _probe(address: str, given: str, timeout: float) -> None:
    """Fail fast on a ``tcp://`` address where nothing listens: Dask's own connect retries a refused
    connection until ``timeout``; one plain socket connect tells in milliseconds."""
    import socket

    m = _ADDRESS.match(address)
    if m is None or m.group("proto") != "tcp":
        return
    host = m.group("host").strip("[]")
    try:
        socket.create_connection((host, int(m.group("port"))), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise VerifyInputError(f"Argument 'scheduler' must be the address of a running Dask scheduler, not "
                               f"{given!r} (could not connect: {reason}).") from None


@contextlib.contextmanager
def get_client(scheduler: str | None = None, n_workers: int | None = None, *,
               threads_per_worker: int = 1, timeout: float = DEFAULT_CONNECT_TIMEOUT) -> Iterator[Any]:
    """Yield a :class:`dask.distributed.Client`; close it (and a cluster it started) on exit.

    :param scheduler: ``None`` starts a :class:`~dask.distributed.LocalCluster` of ``n_workers``
        processes (default: this machine's cores) with ``threads_per_worker`` threads each, no
        dashboard; ``"tcp://HOST:PORT"`` connects to a running scheduler (``n_workers`` is then
        ignored: the cluster has the workers it has).
    :param timeout: seconds to wait for the scheduler before raising
        :class:`~verify.VerifyInputError` (``Argument 'scheduler' ...``).

    Worker processes (not threads) because the tasks are CPU-bound Python (scipy's Nelder-Mead,
    sympy), which holds the GIL.

    >>> with get_client(n_workers=1) as client:           # doctest: +SKIP
    ...     client.submit(abs, -3).result()
    3
    """
    from dask.distributed import Client, LocalCluster

    threads_per_worker = verify_int(threads_per_worker, "threads_per_worker", minimum=1)
    if scheduler is None:
        n = (os.cpu_count() or 1) if n_workers is None else verify_int(n_workers, "n_workers", minimum=1)
        cluster = LocalCluster(n_workers=n, threads_per_worker=threads_per_worker, processes=True,
                               dashboard_address=None, host="127.0.0.1",
                               # cancelled tasks at an early stop are routine: keep worker logs to errors
                               silence_logs=logging.ERROR)
        try:
            client = Client(cluster)
        except BaseException:
            cluster.close()
            raise
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return

    address = parse_scheduler(scheduler)
    _probe(address, scheduler, timeout)
    try:
        client = Client(address, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - refused, timed out, or something that is no Dask scheduler
        # (a non-Dask server answering on the port can make the handshake fail in arbitrary ways)
        if isinstance(exc, (OSError, TimeoutError)):
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        else:
            reason = f"the server there does not speak Dask's protocol ({type(exc).__name__})"
        if len(reason) > 120:
            reason = reason[:117] + "..."
        raise VerifyInputError(
            f"Argument 'scheduler' must be the address of a running Dask scheduler, not {scheduler!r} "
            f"(could not connect: {reason}).") from None
    try:
        yield client
    finally:
        client.close()


def iter_completed(client: Any, fn: Callable[[Any], Any], items: Iterable[Any], *, desc: str | None = None,
                   progress: bool = True, key_prefix: str | None = None, window: int | None = None,
                   total: int | None = None) -> Iterator[tuple[int, Any]]:
    """Run ``fn(item)`` for every item as Dask tasks; yield ``(index, result)`` in completion order.

    :param items: any iterable, consumed lazily: at most ``window`` tasks are in flight (default: all
        at once), so a budget of millions of starts never sits in memory.
    :param total: length for the progress bar when ``items`` has no ``len``.

    Tasks get explicit keys unique to the call (``key_prefix``, a random suffix, the item's position;
    ``client.submit(..., key=..., pure=False)``), so two equal items are two tasks, and two calls with one
    prefix (two phases of a run, two users of one scheduler) never read each other's results. If the consumer
    stops early (``break``, an exception, ``close()``), the unfinished tasks are cancelled. A task that raises re-raises its exception here. A task whose worker dies is
    re-run elsewhere by the scheduler (``distributed.scheduler.allowed-failures`` times).
    """
    from dask.distributed import as_completed
    from tqdm.auto import tqdm

    if window is not None:
        window = verify_int(window, "window", minimum=1)
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    # unique per call, also with a prefix: a key the scheduler still holds (an earlier call's, another client's on a
    # shared scheduler) would hand back that task's result instead of running this one
    prefix = f"{key_prefix or getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex[:12]}"
    source = enumerate(items)
    index: dict = {}  # key -> item position, for the tasks in flight only (a finished future is dropped,
    # so its result can leave the worker's memory)
    live: dict = {}
    ac = as_completed(with_results=True)

    def submit_next() -> bool:
        try:
            i, item = next(source)
        except StopIteration:
            return False
        fut = client.submit(fn, item, key=f"{prefix}-{i}", pure=False)
        index[fut.key] = i
        live[fut.key] = fut
        ac.add(fut)
        return True

    bar = tqdm(total=total, desc=desc, disable=not progress, leave=False)
    try:
        while (window is None or len(index) < window) and submit_next():
            pass
        for fut, result in ac:
            bar.update(1)
            i = index.pop(fut.key)
            live.pop(fut.key, None)
            submit_next()
            yield i, result
    finally:
        bar.close()
        pending = [f for f in live.values() if not f.done()]
        if pending:
            client.cancel(pending)


def map_ordered(client: Any, fn: Callable[[Any], Any], items: Iterable[Any], *, desc: str | None = None,
                progress: bool = True) -> list:
    """``[fn(item) for item in items]`` computed as Dask tasks, with a tqdm bar; results in item order.

    >>> with get_client(n_workers=1) as client:           # doctest: +SKIP
    ...     map_ordered(client, abs, [-1, 2, -3], progress=False)
    [1, 2, 3]
    """
    items = list(items)
    out: list = [None] * len(items)
    for i, result in iter_completed(client, fn, items, desc=desc, progress=progress):
        out[i] = result
    return out
