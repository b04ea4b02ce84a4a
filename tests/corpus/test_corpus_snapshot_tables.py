"""The kept snapshot's tables (`mwbmigrate/runtime/snapshot.py`) are what the wheels say.

- `OLD_FIELDS` is 0.5.12.post1's `ModelWorkerBatch`: its fields in order, with their defaults;
- `OLD_METHOD_READS` is the order in which 0.5.12.post1's `get_model_worker_batch()` passes them,
  each copied field from the batch attribute of the same name;
- `CONSUMER_READS` holds every attribute that `ForwardBatch.init_new` and `TpModelWorker` of the
  target releases read on the batch beyond the old fields (0.5.13 and 0.5.23, the two wheels the
  corpus tests download anyway).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mwbmigrate.runtime.snapshot import CONSUMER_READS, OLD_FIELDS, OLD_METHOD_READS, REQUIRED
from sglang_corpus import OLD_VERSION, CorpusUnavailable, sglang_tree

pytestmark = pytest.mark.corpus

SCHEDULE_BATCH = Path("sglang/srt/managers/schedule_batch.py")
FORWARD_BATCH = Path("sglang/srt/model_executor/forward_batch_info.py")
TP_WORKER = Path("sglang/srt/managers/tp_worker.py")


def _module(version: str, path: Path) -> ast.Module:
    try:
        return ast.parse((sglang_tree(version) / path).read_text(encoding="utf-8"))
    except CorpusUnavailable as error:
        pytest.fail(f"wheel download failed: {error}")


def _class(module: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in module.body if isinstance(n, ast.ClassDef) and n.name == name)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


def test_old_fields_are_the_wheels_model_worker_batch() -> None:
    cls = _class(_module(OLD_VERSION, SCHEDULE_BATCH), "ModelWorkerBatch")
    declared = []
    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            default = REQUIRED if statement.value is None else ast.literal_eval(statement.value)
            declared.append((statement.target.id, default))
    assert list(OLD_FIELDS) == declared


def test_old_method_reads_are_the_wheels_get_model_worker_batch() -> None:
    method = _method(_class(_module(OLD_VERSION, SCHEDULE_BATCH), "ScheduleBatch"), "get_model_worker_batch")
    build = next(
        n for n in ast.walk(method) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "ModelWorkerBatch"
    )
    passed = []
    for keyword in build.keywords:
        value = keyword.value
        copied = isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"
        passed.append((keyword.arg, value.attr if copied else None))  # type: ignore[union-attr]
    assert list(OLD_METHOD_READS) == passed


@pytest.mark.parametrize("version", ["0.5.13", "0.5.23"])
def test_consumer_reads_cover_what_the_release_reads_beyond_the_old_fields(version: str) -> None:
    old = {name for name, _ in OLD_FIELDS}
    read: set[str] = set()
    init_new = _method(_class(_module(version, FORWARD_BATCH), "ForwardBatch"), "init_new")
    worker = _class(_module(version, TP_WORKER), "TpModelWorker")
    functions = [init_new] + [f for f in worker.body if isinstance(f, ast.FunctionDef)]
    for function in functions:
        if "batch" not in [a.arg for a in function.args.args]:
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "batch":
                read.add(node.attr)
    beyond = {name for name in read - old if not name.startswith("_") and not _is_method(version, name)}
    assert beyond <= CONSUMER_READS, sorted(beyond - CONSUMER_READS)


def _is_method(version: str, name: str) -> bool:
    """A method of the release's ScheduleBatch (`batch.batch_size()`): not a value the snapshot holds."""
    cls = _class(_module(version, SCHEDULE_BATCH), "ScheduleBatch")
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in cls.body)
