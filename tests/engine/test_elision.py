"""Leaving out function bodies (engine/elision.py) never changes a rewrite or a review item.

The equivalence tests run every fixture, every soundness case and the hand-written cases under
`elision_cases/` (shapes where a body that names no trigger still matters to some codemod) twice,
with and without elision, through both passes, and compare the text and every review item.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fixture_cases import DEFAULT_PATH, FIXTURES
from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
from mwbmigrate.codemods import CODEMODS, SECOND_PASS_CODEMODS, modelled_targets
from mwbmigrate.engine.elision import PLACEHOLDER, elide, restored_line
from mwbmigrate.engine.runner import merge_signatures
from mwbmigrate.engine.transform import TextOutcome, TransformOptions, transform_source
from mwbmigrate.result import FileResult, FileStatus

TESTS = Path(__file__).resolve().parents[1]
CASES = Path(__file__).resolve().parent / "elision_cases"
WORDS = ("model_worker_batch", "ModelWorkerBatch")


def both_passes(text: str, path: str, options: TransformOptions) -> tuple[TextOutcome, TextOutcome]:
    first = transform_source(text, path, options, CODEMODS)
    signatures = merge_signatures(
        [FileResult(path, path, FileStatus.CHANGED, renamed_signatures=first.renamed_signatures)]
    )
    second = transform_source(first.text, path, replace(options, project_signatures=signatures), SECOND_PASS_CODEMODS)
    return first, second


def assert_elision_invisible(text: str, path: str, options: TransformOptions) -> None:
    whole = both_passes(text, path, replace(options, elide=False))
    reduced = both_passes(text, path, replace(options, elide=True))
    assert reduced[0] == whole[0]
    assert reduced[1] == whole[1]


def _inputs() -> list[tuple[str, Path, str, TransformOptions]]:
    found = []
    for before in sorted(FIXTURES.glob("*/*/before.py")):
        case = before.parent
        path = (case / "path").read_text().strip() if (case / "path").exists() else DEFAULT_PATH
        options = [TransformOptions()]
        options += [TransformOptions(target_version=v) for v in TARGET_VERSIONS if (case / f"after-{v}.py").exists()]
        if (case / "after-collapse.py").exists():
            options.append(TransformOptions(collapse_compat=True))
        for option in options:
            found.append(
                (
                    f"fixture:{case.parent.name}/{case.name}:{option.target_version}:{option.collapse_compat}",
                    before,
                    path,
                    option,
                )
            )
    for source in sorted((TESTS / "soundness" / "cases").glob("*/*.py")):
        found.append((f"soundness:{source.parent.name}/{source.name}", source, "plugin/worker.py", TransformOptions()))
    for source in sorted(CASES.glob("*.py")):
        path = (
            "python/sglang/srt/managers/schedule_batch.py"
            if source.name.startswith("schedule_batch")
            else "plugin/worker.py"
        )
        for version in modelled_targets():  # one per distinct output of the codemods
            found.append((f"case:{source.name}:{version}", source, path, TransformOptions(target_version=version)))
    return found


INPUTS = _inputs()


@pytest.mark.parametrize("source, path, options", [entry[1:] for entry in INPUTS], ids=[entry[0] for entry in INPUTS])
def test_output_and_review_items_are_the_same_with_and_without_elision(
    source: Path, path: str, options: TransformOptions
) -> None:
    assert_elision_invisible(source.read_text(), path, options)


# -- the reduction itself -------------------------------------------------------------------------
MODULE = '''\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def untouched(x):
    """Nothing of the old API here."""
    return x + 1


class Worker:
    @staticmethod
    def helper(y):
        @decorate
        def inner():
            return y
        return inner

    def forward(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.seq_lens

    def one_line(self): return 1
'''


def test_bodies_without_a_trigger_become_one_placeholder_line_each() -> None:
    elision = elide(MODULE, WORDS)
    assert elision is not None
    assert elision.text == (
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"
        "\n"
        "\n"
        "def untouched(x):\n"
        f"    {PLACEHOLDER.format(0)}\n"
        "\n"
        "\n"
        "class Worker:\n"
        "    @staticmethod\n"
        "    def helper(y):\n"
        f"        {PLACEHOLDER.format(1)}\n"
        "\n"
        "    def forward(self, model_worker_batch: ModelWorkerBatch):\n"
        "        return model_worker_batch.seq_lens\n"
        "\n"
        "    def one_line(self): return 1\n"
    )
    restored, shifts = elision.restore(elision.text) or ("", [])
    assert restored == MODULE
    assert shifts == [(5, 1), (11, 3)]
    assert [restored_line(line, shifts) for line in (4, 5, 6, 11, 13)] == [4, 5, 7, 12, 17]


def test_crlf_and_a_missing_final_newline_are_restored_byte_for_byte() -> None:
    text = "def f():\r\n    return 1\r\n\r\ndef g(model_worker_batch):\r\n    return 2"
    elision = elide(text, WORDS)
    assert elision is not None
    assert elision.text == f"def f():\r\n    {PLACEHOLDER.format(0)}\r\n\r\ndef g(model_worker_batch):\r\n    return 2"
    assert elision.restore(elision.text) == (text, [(2, 0)])
    last = "def g(model_worker_batch):\n    return 2\n\ndef f():\n    return 1"
    reduced = elide(last, WORDS)
    assert reduced is not None and reduced.text.endswith(PLACEHOLDER.format(0))
    assert reduced.restore(reduced.text) == (last, [(5, 0)])


def test_form_feeds_and_vertical_tabs_inside_lines_do_not_shift_the_bodies() -> None:
    """Python counts lines at newlines only; a form feed or vertical tab in a comment or on a blank
    line is inside a line. Found by the hardening properties: the placeholder landed on a blank line."""
    text = "\n#\x0b\n\x0c\x0c\x0c    \ndef f():  # \x0c\n    return 1\n\ndef g(model_worker_batch):\n    return 2\n"
    elision = elide(text, WORDS)
    assert elision is not None
    assert elision.text == (
        "\n#\x0b\n\x0c\x0c\x0c    \ndef f():  # \x0c\n"
        f"    {PLACEHOLDER.format(0)}\n"
        "\ndef g(model_worker_batch):\n    return 2\n"
    )
    assert elision.restore(elision.text) == (text, [(5, 0)])


@pytest.mark.parametrize(
    "keeps",
    [
        "def f():\n    global state\n    state = 1\n",  # binds a module name
        "def f():\n    return globals()['x']\n",
        "def f():\n    # mentions model_worker_batch in a comment\n    return 1\n",
        "MWB = ModelWorkerBatch\n\ndef f():\n    return MWB\n",  # an alias of the old class
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch as Batch\n\ndef f(b: Batch):\n    return b\n",
        "HAS_OLD = hasattr(W, 'get_model_worker_batch')\nUSE = HAS_OLD\n\ndef f():\n    return USE\n",  # a flag, to a fixpoint
        "class A:\n    def __init__(self, w):\n        self.use_old = hasattr(w, 'get_model_worker_batch')\n\n    def run(self):\n        return self.use_old\n",
        "class B(ModelWorkerBatch):\n    def run(self):\n        return 1\n",  # a class named by a trigger stays whole
    ],
)
def test_what_a_codemod_may_read_is_never_left_out(keeps: str) -> None:
    elision = elide(keeps, WORDS)
    kept_functions = [line for line in keeps.splitlines() if line.lstrip().startswith("def ")]
    assert elision is None or all(line in elision.text for line in kept_functions)
    if elision is not None:  # only the other bodies went, never the one that matters
        assert "return MWB" in elision.text or "MWB" not in keeps
        assert "self.use_old\n" in elision.text or "use_old" not in keeps
        assert "return USE" in elision.text or "USE" not in keeps


def test_a_placeholder_a_codemod_moved_falls_back_to_the_whole_text() -> None:
    elision = elide("def f():\n    return 1\n", WORDS)
    assert elision is not None
    assert elision.restore(f"def f():\n        {PLACEHOLDER.format(0)}\n") is None  # re-indented
    assert elision.restore("def f():\n    pass\n") is None  # dropped
    assert elision.restore(f"def f():\n    {PLACEHOLDER.format(0)}\n    {PLACEHOLDER.format(0)}\n") is None  # copied


def test_nothing_is_left_out_of_a_module_this_python_cannot_parse_or_that_names_the_placeholder() -> None:
    assert elide("def f(:\n    return 1\n", WORDS) is None
    assert elide(f"def f():\n    return '{PLACEHOLDER.format(3)}'\n", WORDS) is None


def test_the_whole_pipeline_on_a_reduced_module_reports_lines_of_the_full_file() -> None:
    text = (
        "def untouched():\n"
        "    a = 1\n"
        "    b = 2\n"
        "    return a + b\n"
        "\n"
        "\n"
        "def run(worker, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch()\n"
        "    batch.seq_lens = None\n"
        "    return worker.forward_batch_generation(model_worker_batch)\n"
    )
    outcome = transform_source(text, DEFAULT_PATH, TransformOptions())
    whole = transform_source(text, DEFAULT_PATH, TransformOptions(elide=False))
    assert outcome == whole
    assert outcome.review_items and all(item.line >= 8 for item in outcome.review_items)
