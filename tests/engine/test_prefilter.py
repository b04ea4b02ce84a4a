"""The token prefilter (mwbmigrate.engine.prefilter): old-API words only in prose skip the parse;
anything a codemod reads as code (names, string annotations, patch targets, type comments, the
docstring data-flow line, f-strings) still sends the file to parsing. A skipped file is one the
transform would have left unchanged with nothing to report: checked on every fixture module."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mwbmigrate.codemods import CODEMODS
from mwbmigrate.engine.code_view import code_candidate, code_view
from mwbmigrate.engine.prefilter import byte_candidate, needs_parsing
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import CodeGate, TransformOptions, migration_state, transform_file, transform_source
from mwbmigrate.result import FileStatus

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PLUGIN = "plugin/module.py"


def _needs(source: str, path: str = PLUGIN, options: TransformOptions | None = None) -> bool:
    data = textwrap.dedent(source).encode()
    assert byte_candidate(data), "the case must pass the byte prefilter to test the token one"
    return needs_parsing(data, path, options or TransformOptions())


PROSE_ONLY = {
    "comment": "def f(batch):\n    # was model_worker_batch before 0.5.13\n    return batch\n",
    "docstring": 'def f(batch):\n    """The ScheduleBatch (formerly a ModelWorkerBatch snapshot)."""\n    return batch\n',
    "marker": "x = forward(batch)  # mwbmigrate: MWB112 the former old object is passed to `forward`, model_worker_batch\n",
    "log_message": 'import logging\nlogging.info("dropped the model_worker_batch copy")\n',
    "override_field_beside_a_comment": (
        "def step(batch, worker):\n    # ModelWorkerBatch used to carry this\n"
        "    batch.capture_hidden_mode = None\n    return worker.forward_batch_generation(batch)\n"
    ),
}
CODE = {
    "name": "def f(model_worker_batch):\n    return model_worker_batch\n",
    "attribute": "def f(b):\n    return b.get_model_worker_batch()\n",
    "string_annotation": 'def f(b: "ModelWorkerBatch"):\n    return b\n',
    "string_annotation_optional": 'def f(b: "Optional[ModelWorkerBatch]"):\n    return b\n',
    "patch_target": 'patch("sglang.srt.managers.schedule_batch.ModelWorkerBatch")\n',
    "hasattr_probe": 'HAS_OLD = hasattr(batch, "get_model_worker_batch")\n',
    "string_key": 'kwargs["model_worker_batch"] = batch\n',
    "type_comment": "def f(b):\n    x = b  # type: ModelWorkerBatch\n    return x\n",
    "f_string": 'print(f"{model_worker_batch.seq_lens}")\n',
    "data_flow_docstring": '"""\nScheduleBatch -> ModelWorkerBatch -> ForwardBatch\n"""\n',
    "request_pool_builder": "batch.req_pool_indices = [req.req_pool_idx for req in reqs]  # ModelWorkerBatch\n",
    "exec_source": 'exec("mwb = batch.get_model_worker_batch()")\n',
}


@pytest.mark.parametrize("name", list(PROSE_ONLY))
def test_prose_only_mentions_are_not_parsed(name: str) -> None:
    assert not _needs(PROSE_ONLY[name])


@pytest.mark.parametrize("name", list(CODE))
def test_code_mentions_are_parsed(name: str) -> None:
    assert _needs(CODE[name])


def test_the_schedule_batch_module_is_always_parsed() -> None:
    assert _needs(PROSE_ONLY["comment"], "sglang/srt/managers/schedule_batch.py")


@pytest.mark.parametrize("text", ["def f(:\n    # model_worker_batch\n", "x = '''model_worker_batch\n"])
def test_what_tokenize_cannot_read_is_parsed(text: str) -> None:
    assert _needs(text)


def test_the_view_keeps_code_where_it_was() -> None:
    text = "a = 1  # ModelWorkerBatch\nb = 'no more model_worker_batch'\n"
    view = code_view(text)
    assert view is not None and len(view) == len(text)
    assert view.splitlines() == ["a = 1" + " " * 20, "b = " + " " * len("'no more model_worker_batch'")]


def test_prose_that_happens_to_be_python_counts_as_code() -> None:
    """`"model_worker_batch is gone"` is an identity test: not provably prose, so parsed."""
    assert _needs("b = 'model_worker_batch is gone'\n")


def test_a_disabled_codemod_does_not_make_a_file_parsed() -> None:
    text = PROSE_ONLY["override_field_beside_a_comment"]
    assert not _needs(text, options=TransformOptions(disabled=frozenset({"override-moves"})))


def _fixture_modules() -> list[tuple[Path, str]]:
    found = []
    for case in sorted(p for p in FIXTURES.glob("*/*") if p.is_dir()):
        path = (case / "path").read_text().strip() if (case / "path").exists() else PLUGIN
        found += [(module, path) for module in sorted(case.glob("*.py"))]
    return found


def test_every_fixture_module_it_skips_is_one_the_transform_leaves_alone() -> None:
    """Inputs and expected outputs (the already-migrated shape a `--check` sees) alike."""
    modules = _fixture_modules()
    assert len(modules) > 200, "the fixtures moved: this test must see them"
    skipped = []
    for module, path in modules:
        data = module.read_bytes()
        if not byte_candidate(data) or needs_parsing(data, path, TransformOptions()):
            continue
        skipped.append(module)
        text = data.decode("utf-8")
        outcome = transform_source(text, path, TransformOptions(), CODEMODS)
        assert (outcome.text, outcome.review_items) == (text, ()), module.relative_to(FIXTURES)
    assert len(skipped) >= 5, "no fixture exercises the skip: the test would prove nothing"


def test_a_prose_only_file_still_gets_its_keyword_callers_renamed(tmp_path: Path) -> None:
    """Pass 2 reads every file the byte prefilter let through, parsed in pass 1 or not."""
    (tmp_path / "worker.py").write_text(
        textwrap.dedent(
            """\
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch


        def step(mwb: ModelWorkerBatch):
            return mwb.seq_lens
        """
        )
    )
    caller = "from worker import step\n\n# step() used to take a ModelWorkerBatch\nstep(mwb=current)\n"
    (tmp_path / "caller.py").write_text(caller)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    results = {r.display_path: r for r in summary.results}
    assert results["worker.py"].status is FileStatus.CHANGED
    renamed = results["worker.py"].renamed_signatures
    assert renamed, "the case needs a renamed parameter"
    new = renamed[0][2]
    assert results["caller.py"].status is FileStatus.CHANGED
    assert results["caller.py"].rewritten == caller.replace("step(mwb=", f"step({new}=")


# -- the same rule, per codemod, inside a file the prefilter lets through (engine/transform.py CodeGate)
BUILDER_WITH_PROSE = (
    "import torch\n\n\n"
    "def build(batch, reqs, device):\n"
    "    # the ModelWorkerBatch copy is gone since 0.5.13\n"
    "    batch.req_pool_indices = torch.tensor([r.req_pool_idx for r in reqs], device=device)\n"
    "    batch.capture_hidden_mode = None\n"
    "    return batch\n"
)


def test_the_gate_admits_only_the_codemods_triggered_in_code() -> None:
    from mwbmigrate.codemods.req_pool_mirror import RepairRequestPoolMirror

    state = migration_state(PLUGIN, TransformOptions())
    assert CodeGate.of(BUILDER_WITH_PROSE, state, CODEMODS).admitted == frozenset({RepairRequestPoolMirror})
    # Old API in code: every codemod.
    assert CodeGate.of(CODE["name"], state, CODEMODS).admitted is None
    # The schedule batch module: class-removal too, which acts there whatever the module names.
    from mwbmigrate.codemods.class_removal import RemoveOldClass

    batch_module = migration_state("sglang/srt/managers/schedule_batch.py", TransformOptions())
    admitted = CodeGate.of(BUILDER_WITH_PROSE, batch_module, CODEMODS).admitted
    assert admitted == frozenset({RepairRequestPoolMirror, RemoveOldClass})


def test_an_edit_that_puts_the_old_api_into_code_opens_the_gate() -> None:
    from mwbmigrate.codemods.override_moves import MoveOverridesToTheirForward
    from mwbmigrate.engine.transform import _ProseOnly

    gate = CodeGate.of(BUILDER_WITH_PROSE, migration_state(PLUGIN, TransformOptions()), CODEMODS)
    gate.check_still_prose(MoveOverridesToTheirForward, code_view(BUILDER_WITH_PROSE + "x = 1\n"))  # still prose
    with pytest.raises(_ProseOnly):
        gate.check_still_prose(MoveOverridesToTheirForward, code_view(BUILDER_WITH_PROSE + "model_worker_batch = 1\n"))
    from mwbmigrate.codemods.req_pool_mirror import RepairRequestPoolMirror

    prose = "x = 1  # ModelWorkerBatch\n"
    closed = CodeGate.of(prose, migration_state(PLUGIN, TransformOptions()), CODEMODS)
    assert closed.admitted == frozenset()
    with pytest.raises(_ProseOnly):  # an edit that puts a left-out codemod's trigger into code
        closed.check_still_prose(RepairRequestPoolMirror, code_view(prose + "y = [r.req_pool_idx for r in reqs]\n"))


def _migrated_fixture_modules() -> list[tuple[Path, str]]:
    return [(module, path) for module, path in _fixture_modules() if module.name.startswith("after")]


def test_the_gate_changes_nothing_on_the_migrated_fixtures() -> None:
    """What a `--check` of a migrated tree sees: with and without the gate, the same output and items."""
    gated = 0
    for module, path in _migrated_fixture_modules():
        text = module.read_text(encoding="utf-8")
        if CodeGate.of(text, migration_state(path, TransformOptions()), CODEMODS).admitted is None:
            continue
        gated += 1
        open_run = transform_source(text, path, TransformOptions(), CODEMODS)
        gated_run = transform_source(text, path, TransformOptions(), CODEMODS, prose_gate=True)
        assert (gated_run.text, gated_run.review_items) == (open_run.text, open_run.review_items), module
    assert gated >= 50, "the fixtures moved: this test must see gated modules"


def test_the_file_path_is_gated_as_the_prefilter_judged_the_file(tmp_path: Path) -> None:
    """A builder beside a prose mention: req-pool-mirror runs (its trigger is code); override-moves,
    whose triggers are only in the comment, does not, as it would not in a file without the comment."""
    path = tmp_path / "builder.py"
    path.write_text(BUILDER_WITH_PROSE)
    result = transform_file(path, "builder.py", TransformOptions())
    assert result.status is FileStatus.CHANGED and result.applied == ("MWB012",)
    without_comment = BUILDER_WITH_PROSE.replace("    # the ModelWorkerBatch copy is gone since 0.5.13\n", "")
    assert result.rewritten is not None
    assert (
        result.rewritten.replace("    # the ModelWorkerBatch copy is gone since 0.5.13\n", "")
        == transform_source(without_comment, "builder.py", TransformOptions(), CODEMODS).text
    )


@pytest.mark.parametrize(
    ("source", "target", "parsed"),
    [
        # A module that names a worker class but never its forward: worker-signatures has nothing to adapt.
        ("from sglang.srt.managers.tp_worker import TpModelWorker\nworker = TpModelWorker(args)\n", "0.5.13", False),
        (
            "from sglang.srt.managers.tp_worker import TpModelWorker\n\n\nclass W(TpModelWorker):\n"
            "    def forward_batch_generation(self, batch):\n        return super().forward_batch_generation(batch)\n",
            "0.5.13",
            True,
        ),
        # A field 0.5.14 removed: removed-fields models 0.5.14 on (its SINCE), and runs only there.
        ("def f(batch):\n    return batch.is_spec_v2\n", "0.5.13", False),
        ("def f(batch):\n    return batch.is_spec_v2\n", "0.5.16", True),
    ],
    ids=["worker-named-only", "worker-override", "removed-field-at-0.5.13", "removed-field-at-0.5.16"],
)
def test_a_trigger_of_a_codemod_the_target_does_not_run_or_cannot_act_on_parses_nothing(
    source: str, target: str, parsed: bool
) -> None:
    options = TransformOptions(target_version=target)
    assert _needs(source, options=options) is parsed
    outcome = transform_source(source, PLUGIN, options, CODEMODS)
    assert (outcome.text != source or bool(outcome.review_items)) is parsed


def test_every_fixture_module_the_byte_prefilter_skips_at_a_target_is_one_the_transform_leaves_alone() -> None:
    """The byte prefilter counts only the words of the codemods that run for the target, and a
    codemod's REQUIRED_WORDS beside its TRIGGERS."""
    narrowed = []
    for target in ("0.5.13", "0.5.16", "0.5.23"):
        options = TransformOptions(target_version=target)
        for module, path in _fixture_modules():
            data = module.read_bytes()
            if not byte_candidate(data) or options.candidate(data, path):
                continue
            narrowed.append(module)
            text = data.decode("utf-8")
            outcome = transform_source(text, path, options, CODEMODS)
            assert (outcome.text, outcome.review_items) == (text, ()), (target, module.relative_to(FIXTURES))
    assert len(narrowed) >= 5, "no fixture exercises the narrowing: the test would prove nothing"


@pytest.mark.parametrize(
    ("source", "target", "candidate"),
    [
        ("done = batch.is_spec_v2\n", "0.5.13", False),  # removed-fields runs from 0.5.14
        ("done = batch.is_spec_v2\n", "0.5.14", True),
        ("class Worker(TpModelWorker):\n    pass\n", "0.5.23", False),  # no forward_batch_generation
        ("class Worker(TpModelWorker):\n    def forward_batch_generation(self, b):\n        pass\n", "0.5.13", True),
        ("def f(b):\n    return [r.req_pool_idx for r in b.reqs]\n", "0.5.13", False),  # no req_pool_indices
    ],
)
def test_the_byte_prefilter_counts_the_words_of_the_codemods_that_run(
    source: str, target: str, candidate: bool
) -> None:
    assert byte_candidate(source.encode())
    assert TransformOptions(target_version=target).candidate(source.encode(), PLUGIN) is candidate


@pytest.mark.parametrize("target", ["0.5.13", "0.5.16"])
def test_every_fixture_module_the_prefilter_without_libcst_skips_is_one_the_run_leaves_alone(target: str) -> None:
    """`code_candidate` (the words of the codemods that run, in code, and the settled tests), at each
    fixture's own place and at SGLang's batch and scheduler modules, against the transform as the
    run gates it."""
    options = TransformOptions(target_version=target)
    skipped = 0
    for module, own in _fixture_modules():
        text = module.read_text(encoding="utf-8")
        for path in dict.fromkeys((own, "sglang/srt/managers/schedule_batch.py", "sglang/srt/managers/scheduler.py")):
            if code_candidate(text.encode(), path, options):
                continue
            skipped += 1
            outcome = transform_source(text, path, options, CODEMODS, prose_gate=True)
            assert (outcome.text, outcome.review_items) == (text, ()), (path, module.relative_to(FIXTURES))
    assert skipped >= 50, "the fixtures must exercise the skip, or the test proves nothing"
