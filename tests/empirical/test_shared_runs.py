"""verify/empirical/shared_runs.py: units of training shared by the checks of one session, computed once."""

from verify.empirical.shared_runs import RunStore, session_folder


def test_the_run_store_is_the_session_store(tmp_path):
    """The training units are kept by the session store (its tests: ``tests/test_session_store.py``)."""
    from verify.session_store import SessionStore

    store = RunStore(tmp_path)
    assert isinstance(store, SessionStore)
    assert store.get("wd-x", {"seed": 0}, lambda: {"v": 0.25}) == {"v": 0.25}
    assert session_folder.__module__ == "verify.session_store"


def test_a_parametrized_full_check_makes_the_quick_one_descriptive():
    """The quick preset's check is descriptive when the full check runs in the same session, also when the full check
    is parametrized (one item per unit of training: ``test_wd_full[mnist5k-mse]``), and not when its data are missing
    or it is not selected."""
    from types import SimpleNamespace

    from verify.empirical import describe_or_none

    module = object()
    items = [SimpleNamespace(name="test_wd_full[mnist5k-mse]", originalname="test_wd_full", module=module),
             SimpleNamespace(name="test_quick", originalname="test_quick", module=module)]
    request = SimpleNamespace(session=SimpleNamespace(items=items), node=SimpleNamespace(module=module))
    assert "test_wd_full decides this claim" in describe_or_none(request, "test_wd_full")
    assert describe_or_none(request, "test_wd_full", full_can_run=False) is None
    assert describe_or_none(request, "test_depth_full") is None
