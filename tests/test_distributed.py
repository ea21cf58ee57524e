"""verify.distributed: the Dask client (local or by address) and the ordered map with a progress bar."""

import socket

import pytest

from verify import VerifyInputError
from verify.distributed import get_client, iter_completed, map_ordered, parse_scheduler


def _square(x):
    return x * x


@pytest.mark.parametrize("given, expected", [("127.0.0.1:8786", "tcp://127.0.0.1:8786"),
                                             ("tcp://node-3:1", "tcp://node-3:1"),
                                             ("tls://[::1]:8786/", "tls://[::1]:8786")])
def test_parse_scheduler_accepts(given, expected):
    assert parse_scheduler(given) == expected


@pytest.mark.parametrize("bad", ["", "foo", "tcp://host", "tcp://host:0", "tcp://host:70000", "http://h:1",
                                 "bad host:1", None, 8786])
def test_parse_scheduler_rejects_naming_the_parameter(bad):
    with pytest.raises(VerifyInputError, match="Argument 'scheduler'"):
        parse_scheduler(bad)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_fails_fast_with_a_clear_error():
    with pytest.raises(VerifyInputError, match="Argument 'scheduler' must be the address of a running Dask"):
        with get_client(f"tcp://127.0.0.1:{_free_port()}", timeout=3):
            pass


def test_bad_worker_count():
    with pytest.raises(VerifyInputError, match="'n_workers'"):
        with get_client(n_workers=0):
            pass


@pytest.fixture(scope="module")
def client():
    with get_client(n_workers=1) as c:
        yield c


def test_map_ordered_keeps_item_order_and_repeats(client):
    items = [3, -1, 3, 0, 2]
    assert map_ordered(client, _square, items, progress=False) == [9, 1, 9, 0, 4]
    assert len(client.nthreads()) == 1 and list(client.nthreads().values()) == [1]


def test_iter_completed_window_and_early_stop(client):
    seen = {}
    it = iter_completed(client, _square, iter(range(20)), progress=False, window=3, total=20)
    for i, r in it:
        seen[i] = r
        if len(seen) == 5:
            break
    it.close()
    assert all(r == i * i for i, r in seen.items()) and len(seen) == 5
    # lazily consumed: a generator without len works, every index comes back once
    assert sorted(iter_completed(client, _square, (i for i in range(7)), progress=False, window=2)) == \
        [(i, i * i) for i in range(7)]


def test_task_error_propagates(client):
    with pytest.raises(TypeError):
        map_ordered(client, _square, ["a"], progress=False)


def _negate(x):
    return -x


def test_two_calls_with_one_key_prefix_each_get_their_own_results(client):
    """A prefix names a call's tasks, it does not make their keys: two calls with one prefix on one client (the two
    phases of ``verify mutants``' split claims) and an earlier call's futures still held each read their own
    results, never a result the scheduler keeps under an equal key."""
    first = iter_completed(client, _square, [2, 3], progress=False, key_prefix="phase")
    held = dict(first)
    assert held == {0: 4, 1: 9}
    assert dict(iter_completed(client, _negate, [5, 7], progress=False, key_prefix="phase")) == {0: -5, 1: -7}
    futs = [client.submit(_square, 6, key="phase-0", pure=False)]   # a key as the old scheme made it, held
    assert futs[0].result() == 36
    assert dict(iter_completed(client, _negate, [1], progress=False, key_prefix="phase")) == {0: -1}
