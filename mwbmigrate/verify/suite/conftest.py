"""Implementations, markers and the per-test result log of the shipped suite.

* ``--mwb-tree PATH`` (or ``MWBMIGRATE_VERIFY_TREE``): also test that SGLang tree's own code.
* ``@pytest.mark.contract(group)``: the test applies to implementations whose profile has
  ``group``; the ``impl`` fixture is parametrized over those (``runtime`` always qualifies).
* ``@pytest.mark.cuda``: skipped with reason ``"not run: no CUDA"`` unless
  ``torch.cuda.is_available()``.
* ``MWBMIGRATE_VERIFY_CUDA_MODE=defer``: on a CUDA host, leave the CUDA tests out (the runner runs
  each CUDA module in a process of its own, as upstream runs one file per process).
* ``MWBMIGRATE_VERIFY_RESULTS=FILE``: write one JSON document with every test's outcome, its group
  and implementation, the implementations and the CUDA status (what ``mwbmigrate verify`` reads).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mwbmigrate.verify.suite import CUDA_MODE_ENV, NO_CUDA_REASON, RESULTS_ENV, TREE_ENV

_IMPLS_KEY = pytest.StashKey[dict[str, Any]]()
_LOG_KEY = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mwbmigrate")
    group.addoption("--mwb-tree", default=None, help="SGLang tree whose own implementations are tested too")


def _cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cuda: needs a CUDA device; reported as not run elsewhere")
    config.addinivalue_line(
        "markers",
        "contract(*groups, profile=None): applies to implementations whose profile has the groups",
    )
    from mwbmigrate.verify.suite._impls import RuntimeImpl, load_tree

    tree_path = config.getoption("--mwb-tree") or os.environ.get(TREE_ENV) or None
    impls: dict[str, Any] = {"runtime": RuntimeImpl()}
    tree_impl, status = load_tree(tree_path)
    if tree_impl is not None:
        impls["tree"] = tree_impl
    config.stash[_IMPLS_KEY] = {"impls": impls, "tree_status": status}
    config.stash[_LOG_KEY] = {}


def _state(config: pytest.Config) -> dict[str, Any]:
    return config.stash[_IMPLS_KEY]


@pytest.fixture(scope="session")
def tree_status(pytestconfig: pytest.Config) -> Any:
    return _state(pytestconfig)["tree_status"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "impl" not in metafunc.fixturenames:
        return
    impls = _state(metafunc.config)["impls"]
    chosen = [
        impl
        for impl in impls.values()
        if all(
            impl.supports(group, marker.kwargs.get("profile"))
            for marker in metafunc.definition.iter_markers("contract")
            for group in marker.args
        )
    ]
    metafunc.parametrize("impl", chosen, ids=[impl.name for impl in chosen])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _state(config)["tree_status"] is None:
        # The import check exists only when a tree is given.
        deselected = [item for item in items if _group_of(item.nodeid) == "import"]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if _group_of(item.nodeid) != "import"]
    if _cuda_available():
        if os.environ.get(CUDA_MODE_ENV) == "defer":
            # The runner runs each CUDA module in a process of its own afterwards.
            deselected = [item for item in items if item.get_closest_marker("cuda") is not None]
            if deselected:
                config.hook.pytest_deselected(items=deselected)
                items[:] = [item for item in items if item.get_closest_marker("cuda") is None]
        return
    skip = pytest.mark.skip(reason=NO_CUDA_REASON)
    for item in items:
        if item.get_closest_marker("cuda") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _clear_stream_log() -> Any:
    from mwbmigrate.verify.suite._fakes import CudaLike

    CudaLike.LOG.clear()
    yield
    CudaLike.LOG.clear()


# ------------------------------------------------------------------------------- result log


def _group_of(item_or_nodeid: str) -> str:
    module = item_or_nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    return module.removesuffix(".py").removeprefix("test_")


def _impl_of(nodeid: str) -> str | None:
    if _group_of(nodeid) == "import":
        return "tree"
    if "[" not in nodeid:
        return None
    params = nodeid.rsplit("[", 1)[1].rstrip("]").split("-")
    for name in ("runtime", "tree"):
        if name in params:
            return name
    return None


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return f"{crash.message}".strip()[:2000]
    return str(report.longrepr or "")[:2000]


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # The log is per process; keep it on the module so the hook needs no config.
    log = _RESULTS
    entry = log.setdefault(
        report.nodeid,
        {
            "nodeid": report.nodeid,
            "group": _group_of(report.nodeid),
            "impl": _impl_of(report.nodeid),
            "outcome": "passed",
            "message": "",
            "duration": 0.0,
        },
    )
    entry["duration"] += report.duration
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if xfail:
            entry["outcome"] = "xfailed" if report.skipped else "xpassed"
            entry["message"] = str(report.wasxfail)
        elif report.failed:
            entry["outcome"], entry["message"] = "failed", _message(report)
        elif report.skipped:
            entry["outcome"], entry["message"] = "skipped", _message(report)
    elif report.failed:  # setup or teardown
        entry["outcome"], entry["message"] = "error", _message(report)
    elif report.skipped and report.when == "setup":
        if xfail:
            entry["outcome"], entry["message"] = "xfailed", str(report.wasxfail)
        else:
            entry["outcome"], entry["message"] = "skipped", _message(report)


_RESULTS: dict[str, dict[str, Any]] = {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get(RESULTS_ENV)
    if not target:
        return
    state = _state(session.config)
    status = state["tree_status"]
    document = {
        "exitstatus": int(exitstatus),
        "cuda_available": _cuda_available(),
        "implementations": [impl.to_dict() for impl in state["impls"].values()],
        "tree": None
        if status is None
        else {
            "path": status.path,
            "root": status.root,
            "version": status.version,
            "importable": status.importable,
            "is_core": status.is_core,
            "reason": status.reason,
            "stubbed": list(status.stubbed),
            "problems": status.problems,
            "absent": list(status.absent),
        },
        "tests": list(_RESULTS.values()),
    }
    Path(target).write_text(json.dumps(document, indent=1), encoding="utf-8")
