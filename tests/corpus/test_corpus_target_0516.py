"""0.5.12.post1 migrated with `--target-version 0.5.16`, compared with the real 0.5.16 where the two
are comparable: the one-shot overrides are keyword arguments, not ScheduleBatch fields.

Only the files that write, declare or consume the overrides are migrated (a whole-tree run costs
minutes on CI). 0.5.16 also restructured the speculative workers (the v1 workers are gone,
`eagle_info_v2`'s forward-batch builders moved to `eagle_worker_common`/`eagle_utils`, `dflash_worker`
and `frozen_kv_mtp_worker` became `*_v2`), so call sites are compared by file pair where the file
survives, and by keyword names across the files otherwise.
"""

from __future__ import annotations

import ast
import shutil

import pytest
from typer.testing import CliRunner

from corpus_trees import marked_statement
from mwbmigrate.analysis.old_api import CAPTURE_MODE_HELPER
from mwbmigrate.cli import app
from sglang_corpus import OLD_VERSION, CorpusUnavailable, sglang_tree

pytestmark = pytest.mark.corpus

OVERRIDES = ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm")
CONSUMERS = ("init_new", "forward_batch_generation")
AFFECTED = (
    "srt/managers/schedule_batch.py",
    "srt/managers/tp_worker.py",
    "srt/managers/scheduler_pp_mixin.py",
    "srt/model_executor/forward_batch_info.py",
    "srt/hardware_backend/mlx/tp_worker.py",
    "srt/speculative/eagle_worker_v2.py",
    "srt/speculative/multi_layer_eagle_worker_v2.py",
    "srt/speculative/eagle_info_v2.py",
    "srt/speculative/dflash_worker.py",
    "srt/speculative/frozen_kv_mtp_worker.py",
)
# Migrated file -> its 0.5.16 successor.
SUCCESSORS = {
    "srt/managers/tp_worker.py": "srt/managers/tp_worker.py",
    "srt/managers/scheduler_pp_mixin.py": "srt/managers/scheduler_pp_mixin.py",
    "srt/hardware_backend/mlx/tp_worker.py": "srt/hardware_backend/mlx/tp_worker.py",
    "srt/speculative/eagle_worker_v2.py": "srt/speculative/eagle_worker_v2.py",
    "srt/speculative/multi_layer_eagle_worker_v2.py": "srt/speculative/multi_layer_eagle_worker_v2.py",
    "srt/speculative/dflash_worker.py": "srt/speculative/dflash_worker_v2.py",
    "srt/speculative/frozen_kv_mtp_worker.py": "srt/speculative/frozen_kv_mtp_worker_v2.py",
}


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    try:
        old_root, new_root = sglang_tree(OLD_VERSION), sglang_tree("0.5.16")
    except CorpusUnavailable as error:
        pytest.fail(f"corpus download failed: {error}")
    work = tmp_path_factory.mktemp("corpus0516") / "tree"
    for relative in AFFECTED:
        target = work / "sglang" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(old_root / "sglang" / relative, target)
    result = CliRunner().invoke(
        app, ["rewrite", str(work), "--target-version", "0.5.16", "--no-progress", "--jobs", "2", "--format", "json"]
    )
    assert result.exit_code == 0, result.output[-2000:]
    read = lambda root, relative: ast.parse((root / "sglang" / relative).read_text())  # noqa: E731
    return {
        "migrated": {r: read(work, r) for r in AFFECTED},
        "text": {r: (work / "sglang" / r).read_text() for r in AFFECTED},
        "upstream": lambda relative: read(new_root, relative),
    }


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)


def _declared(cls: ast.ClassDef) -> set[str]:
    return {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


def _override_keywords(tree: ast.Module) -> set[tuple[str, str]]:
    """(consuming call, override keyword) pairs passed anywhere in the module. A kept snapshot's own
    capture mode handed on (`capture_hidden_mode=worker_batch.capture_hidden_mode`, or
    `worker_batch_capture_mode(batch)`: the old `init_new` read it from the old object, where
    upstream reads the live batch and passes nothing) is no override of `init_new`; handed to a
    worker's forward, it is the mode the function wrote on the snapshot, which upstream passes; `return_hidden_states_before_norm`, which 0.5.16 requires, is passed either way."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CONSUMERS:
            found |= {
                (node.func.attr, k.arg)
                for k in node.keywords
                if k.arg in OVERRIDES
                and not (node.func.attr == "init_new" and k.arg == "capture_hidden_mode" and _handed_on(k))
            }
    return found


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def _handed_on(keyword: ast.keyword) -> bool:
    """The old object's own mode handed on: a kept snapshot's field, or the runtime's answer for
    whatever `init_new` is handed (`worker_batch_capture_mode(batch)`), which upstream does not pass."""
    value = keyword.value
    if isinstance(value, ast.Attribute) and value.attr == keyword.arg:
        return True
    # With a second argument it hands on the worker's own `capture_hidden_mode`, as upstream passes it.
    helper = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == CAPTURE_MODE_HELPER
    return helper and len(_arguments(value)) == 1


def test_no_one_shot_field_is_declared_on_schedule_batch(migrated):
    declared = _declared(_class(migrated["migrated"]["srt/managers/schedule_batch.py"], "ScheduleBatch"))
    upstream = _declared(_class(migrated["upstream"]("srt/managers/schedule_batch.py"), "ScheduleBatch"))
    assert not upstream & set(OVERRIDES)
    # 0.5.12.post1 already had `seq_lens_cpu_cache`, as tp_worker's persistent split-prefill cache;
    # 0.5.16 dropped it with that restructure, which no migration of the overrides implies.
    assert declared & set(OVERRIDES) == {"seq_lens_cpu_cache"}


def test_init_new_takes_the_keywords_of_0_5_16(migrated):
    def keywords(tree):
        method = next(
            n for n in _class(tree, "ForwardBatch").body if isinstance(n, ast.FunctionDef) and n.name == "init_new"
        )
        return [a.arg for a in method.args.kwonlyargs], [a.arg for a in method.args.args]

    ours, upstream = (
        keywords(migrated["migrated"]["srt/model_executor/forward_batch_info.py"]),
        keywords(migrated["upstream"]("srt/model_executor/forward_batch_info.py")),
    )
    assert (
        ours
        == upstream
        == (["capture_hidden_mode", "return_hidden_states_before_norm"], ["cls", "batch", "model_runner"])
    )


def test_forward_batch_generation_takes_capture_hidden_mode_as_0_5_16(migrated):
    for relative in ("srt/managers/tp_worker.py", "srt/hardware_backend/mlx/tp_worker.py"):
        for tree in (migrated["migrated"][relative], migrated["upstream"](relative)):
            method = next(
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef)
                and n.name == "forward_batch_generation"
                and n.args.args[1].arg == "batch"
            )
            assert [a.arg for a in method.args.kwonlyargs] == ["capture_hidden_mode"], relative


# 0.5.16 call sites the migration does not reach, and why. The draft-extend capture mode is set in
# `forward_batch_generation` before calling `_draft_extend_for_prefill`, whose `init_new` consumes it:
# a flow across functions, which upstream moved into the callee by hand in 0.5.13. The write stays,
# marked MWB103 and MWB138.
NOT_REACHED = {
    "srt/speculative/eagle_worker_v2.py": {("init_new", "capture_hidden_mode")},
    "srt/speculative/multi_layer_eagle_worker_v2.py": {("init_new", "capture_hidden_mode")},
}


def test_overrides_are_passed_as_keywords_where_0_5_16_passes_them(migrated):
    for ours, theirs in SUCCESSORS.items():
        expected = _override_keywords(migrated["upstream"](theirs)) - NOT_REACHED.get(ours, set())
        assert _override_keywords(migrated["migrated"][ours]) == expected, ours
    # eagle_info_v2's three forward-batch builders moved to eagle_worker_common / eagle_utils in 0.5.16.
    moved = _override_keywords(migrated["upstream"]("srt/speculative/eagle_worker_common.py"))
    moved |= _override_keywords(migrated["upstream"]("srt/speculative/eagle_utils.py"))
    assert _override_keywords(migrated["migrated"]["srt/speculative/eagle_info_v2.py"]) <= moved


def _unmarked_override_writes(relative: str, text: str) -> list[tuple[str, int]]:
    """Override writes on a name whose statement carries no review marker (on one of its lines, or
    above it where the marker is too long for the line)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute)
            and t.attr in OVERRIDES
            and isinstance(t.value, ast.Name)
            and t.value.id == "batch"
            for t in node.targets
        ):
            if not marked_statement(text, node.lineno):
                found.append((relative, node.lineno))
    return found


def _line(text: str, number: int) -> str:
    return text.splitlines()[number - 1].strip()


def test_no_override_is_written_on_a_batch_unless_marked(migrated):
    """Every write left on the batch says why (an override 0.5.16 has no keyword for, or one not
    right before its consuming call); eagle_info_v2, whose writes 0.5.16 passes as keywords, has none."""
    unmarked = [
        site for relative, text in migrated["text"].items() for site in _unmarked_override_writes(relative, text)
    ]
    # The one left is tp_worker's split-prefill cache, which its kept snapshot reads back: from 0.5.16
    # no release consumes `seq_lens_cpu_cache`, so it is a plain field of the batch.
    assert [(relative, _line(migrated["text"][relative], line)) for relative, line in unmarked] == [
        ("srt/managers/tp_worker.py", "batch.seq_lens_cpu_cache = worker_batch.seq_lens_cpu")
    ]
    assert "worker_batch_snapshot(batch, batch.seq_lens_cpu_cache)" in migrated["text"]["srt/managers/tp_worker.py"]
    assert "batch.capture_hidden_mode =" not in migrated["text"]["srt/speculative/eagle_info_v2.py"]
