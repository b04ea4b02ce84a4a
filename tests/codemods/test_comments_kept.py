"""Nothing the user wrote is lost: every comment of the input is in the output.

Compared as a multiset of comment texts (a comment folded onto another line counts where it went,
so a token is split where a new `#` starts after whitespace). The tool's own `# mwbmigrate: ...`
markers do not count, on either side. Two exemptions, computed rather than listed. A tool's
directive (`# type: X`, `# noqa`, `# pylint: ...`) ending a line whose code the output deleted: it
was about that code, and on a line of its own it would say something else. And a comment inside
a compound statement, or one branch of it (an if/elif/else branch, a try's body or handler, a
class, a function), that the output deleted whole, i.e. none of whose lines of code is still in the
output (`deleted_spans`, from the original's `ast` and a line alignment of the code without its
comments). The comments above such a statement are outside it, and must survive.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from fixture_cases import DEFAULT_PATH, FIXTURES, cases, migrate
from mwbmigrate.analysis.names import TYPE_COMMENT
from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS
from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
from mwbmigrate.codemods.base import kept_lines
from mwbmigrate.codemods.findings import MARKER_PREFIX
from mwbmigrate.engine.transform import TransformOptions
from tests.soundness.harness import migrate as soundness_migrate

_PIECE = re.compile(r"\s+(?=#)")
_OLD_CLASS = re.compile(rf"\b{OLD_CLASS}\b")
# Tools' directives about the line they end: they go with its code (and only then).
_DIRECTIVE = re.compile(r"#\s*(type:|(?i:noqa)\b|(?i:pragma)\b|pylint:|mypy:|pyright:|fmt:|isort:|ruff:|nosec\b)")


def _comment_tokens(text: str) -> list[tuple[int, int, str]]:
    """(line, column, text) of each comment token."""
    return [
        (token.start[0], token.start[1], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]


def user_comments(text: str) -> list[tuple[int, str]]:
    """(line, text) of each comment the user wrote: markers cut off (they always come last on a
    line), a token holding several comments split into them. A type comment is code for type
    checkers, which class-references migrates: it is compared with the old class read as the new."""
    found: list[tuple[int, str]] = []
    for line, _, comment in _comment_tokens(text):
        marker = comment.find(MARKER_PREFIX)
        if marker >= 0:
            comment = comment[:marker]
        for piece in _PIECE.split(comment):
            if TYPE_COMMENT.match(piece):
                piece = _OLD_CLASS.sub(NEW_CLASS, piece)
            if piece.strip():
                found.append((line, piece.strip()))
    return found


def _code_lines(text: str) -> list[tuple[int, str]]:
    """(line, code) of each line holding code, comments cut off and whitespace normalised."""
    lines = text.splitlines()
    for line, column, _ in _comment_tokens(text):
        lines[line - 1] = lines[line - 1][:column]
    return [(number, " ".join(code.split())) for number, code in enumerate(lines, 1) if code.strip()]


_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.With,
    ast.AsyncWith,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


def _branch_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """First and last line of every compound statement (decorators included) and of each of its
    branches: the body from the header, each handler or `case`, then `else` and `finally` from the
    line after what precedes them (their header, and any comment above it, included)."""
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, _COMPOUND):
            continue
        assert node.end_lineno is not None
        decorators = getattr(node, "decorator_list", [])
        spans.append((min([node.lineno, *(d.lineno for d in decorators)]), node.end_lineno))
        body: list[ast.stmt] = getattr(node, "body", [])
        after = node.lineno
        if body:
            spans.append((node.lineno, _end(body)))
            after = _end(body) + 1
        for branch in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
            spans.append((after, _end(branch.body)))
            after = _end(branch.body) + 1
        for part in ("orelse", "finalbody"):
            statements: list[ast.stmt] = getattr(node, part, [])
            if statements:
                spans.append((after, _end(statements)))
                after = _end(statements) + 1
    return spans


def _end(statements: list[ast.stmt]) -> int:
    end = statements[-1].end_lineno
    assert end is not None
    return end


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\"[^\"]*\"|'[^']*'")


def _shape(code: str) -> str:
    """A line of code with each name and string as one symbol: a renamed line keeps its shape."""
    return _WORD.sub(lambda found: "s" if found.group()[0] in "\"'" else "n", code)


def _kept_lines(original: str, output: str) -> set[int]:
    """Lines of the original whose code is still in the output: aligned as they are (indentation
    ignored, so a dedented kept branch is kept); then, within each stretch that differs, by shape,
    so a line the migration only renamed in (`def f(model_worker_batch)` -> `def f(batch)`) is kept."""
    before, after = _code_lines(original), _code_lines(output)
    matcher = difflib.SequenceMatcher(None, [c for _, c in before], [c for _, c in after], autojunk=False)
    kept: set[int] = set()
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            kept.update(number for number, _ in before[a1:a2])
        elif tag == "replace":
            shapes = difflib.SequenceMatcher(
                None, [_shape(c) for _, c in before[a1:a2]], [_shape(c) for _, c in after[b1:b2]], autojunk=False
            )
            for block in shapes.get_matching_blocks():
                kept.update(number for number, _ in before[a1 + block.a : a1 + block.a + block.size])
    return kept


def deleted_spans(original: str, output: str) -> list[tuple[int, int]]:
    """Line spans of the original's compound statements and branches of which no line of code is in
    the output (`_kept_lines`)."""
    kept = _kept_lines(original, output)
    code = [number for number, _ in _code_lines(original)]
    return [
        (start, end)
        for start, end in _branch_spans(ast.parse(original))
        if not any(start <= number <= end and number in kept for number in code)
    ]


def lost_comments(original: str, output: str) -> list[tuple[int, str]]:
    """(line in the original, text) of each comment the output lost, but for the two exemptions."""
    remaining = Counter(text for _, text in user_comments(output))
    missing: list[tuple[int, str]] = []
    for line, text in user_comments(original):
        if remaining[text] > 0:
            remaining[text] -= 1
        else:
            missing.append((line, text))
    if not missing:
        return []
    spans = deleted_spans(original, output)
    kept, code = _kept_lines(original, output), {number for number, _ in _code_lines(original)}

    def about_deleted_code(line: int, text: str) -> bool:
        # A directive ending a line whose code went: it was about that code only.
        return bool(_DIRECTIVE.match(text)) and line in code and line not in kept

    return [
        (line, text)
        for line, text in missing
        if not any(start <= line <= end for start, end in spans) and not about_deleted_code(line, text)
    ]


def describe(lost: list[tuple[int, str]], where: str = "") -> str:
    return "\n".join(f"{where}:{line}: lost {text!r}" for line, text in lost)


# -- fixtures -----------------------------------------------------------------------------------

_EXPECTATIONS = [
    ("after.py", TransformOptions()),
    *((f"after-{target}.py", TransformOptions(target_version=target)) for target in TARGET_VERSIONS),
    ("after-collapse.py", TransformOptions(collapse_compat=True)),
]
FIXTURE_OUTPUTS = [
    (case, name, options)
    for folder in sorted(FIXTURES.iterdir())
    if folder.is_dir()
    for case in cases(folder.name)
    for name, options in _EXPECTATIONS
    if (case / name).exists()
]


def _fixture_id(item: tuple[Path, str, TransformOptions]) -> str:
    case, name, _ = item
    return f"{case.parent.name}/{case.name}/{name}"


@pytest.mark.parametrize("item", FIXTURE_OUTPUTS, ids=_fixture_id)
def test_fixture_keeps_comments(item: tuple[Path, str, TransformOptions]) -> None:
    case, name, options = item
    before = (case / "before.py").read_text()
    lost = lost_comments(before, (case / name).read_text())
    assert not lost, describe(lost, f"{_fixture_id(item)} (expected output)")
    path = (case / "path").read_text().strip() if (case / "path").exists() else DEFAULT_PATH
    lost = lost_comments(before, migrate(before, path, options))
    assert not lost, describe(lost, f"{_fixture_id(item)} (migrated)")


# -- soundness cases ----------------------------------------------------------------------------

SOUNDNESS_CASES = sorted((Path(__file__).resolve().parent.parent / "soundness" / "cases").rglob("*.py"))


@pytest.mark.parametrize("case", SOUNDNESS_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_soundness_case_keeps_comments(case: Path) -> None:
    text = case.read_text()
    migration = soundness_migrate(text)
    assert migration.refused is None, migration.refused
    lost = lost_comments(text, migration.text)
    assert not lost, describe(lost, case.name)


# -- the shapes the mechanism handles, and the checker itself -----------------------------------

_HEAD = "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n\n\n"


def _migrate(text: str, path: str = DEFAULT_PATH, options: TransformOptions | None = None) -> str:
    """The migration, which must compile and which a second run must leave as it is (the handed-on
    comments parse back where they were put)."""
    out = migrate(text, path, options)
    ast.parse(out)
    assert migrate(out, path, options) == out, out
    return out


def _run(body: str, options: TransformOptions | None = None) -> str:
    return _migrate(_HEAD + body, options=options)


# A binding is deleted where the live batch is read: with `--live-batch`, or where the window
# allowlist proves it (only `ForwardBatch.init_new` in the window). The hazard marker of a window
# the allowlist does not prove (MWB141) is left out: these tests are about the comments.
LIVE = TransformOptions(live_batch=True, ignored_reviews=frozenset({"MWB141"}))


def test_comments_above_a_deleted_binding_go_to_the_next_statement() -> None:
    before = (
        "def run(self, batch: ScheduleBatch):\n"
        "    prepare(batch)\n"
        "\n"
        "    # Build the worker batch, then forward it.\n"
        "    model_worker_batch = batch.get_model_worker_batch()  # snapshot\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n"
    )
    assert _run(before, LIVE) == _HEAD.replace("ModelWorkerBatch, ", "") + (
        "def run(self, batch: ScheduleBatch):\n"
        "    prepare(batch)\n"
        "\n"
        "    # Build the worker batch, then forward it.\n"
        "    # snapshot\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )


def test_a_deleted_first_statement_keeps_its_comments_but_not_its_blank_lines() -> None:
    before = (
        "def run(self, batch: ScheduleBatch):\n"
        "    # Snapshot for the worker.\n"
        "    model_worker_batch = batch.get_model_worker_batch()\n"
        "\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n"
    )
    assert _run(before, LIVE).endswith(
        "def run(self, batch: ScheduleBatch):\n"
        "    # Snapshot for the worker.\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )


def test_a_binding_the_allowlist_proves_is_deleted_with_its_comments_kept() -> None:
    before = (
        "from sglang.srt.model_executor.forward_batch_info import ForwardBatch\n"
        "\n"
        "\n"
        "def run(batch: ScheduleBatch, runner):\n"
        "    # Build the worker batch, then the forward batch.\n"
        "    model_worker_batch = batch.get_model_worker_batch()  # snapshot\n"
        "    return ForwardBatch.init_new(model_worker_batch, runner)\n"
    )
    assert _run(before).endswith(
        "def run(batch: ScheduleBatch, runner):\n"
        "    # Build the worker batch, then the forward batch.\n"
        "    # snapshot\n"
        "    return ForwardBatch.init_new(batch, runner)\n"
    )


def test_a_deleted_last_statement_leaves_its_comments_in_the_block() -> None:
    before = (
        "def run(self, batch: ScheduleBatch):\n"
        "    if batch.ready:\n"
        "        log(batch)\n"
        "        # only the snapshot is needed\n"
        "        model_worker_batch = batch.get_model_worker_batch()  # one-shot\n"
        "    done()\n"
    )
    assert _run(before).endswith(
        "    if batch.ready:\n"
        "        log(batch)\n"
        "        # only the snapshot is needed\n"
        "        # one-shot\n"
        "    done()\n"
    )


def test_an_emptied_block_keeps_its_comments_above_pass() -> None:
    before = (
        "def run(self, batch: ScheduleBatch):\n"
        "    try:\n"
        "        # may fail on old trees\n"
        "        model_worker_batch = batch.get_model_worker_batch()\n"
        "    finally:\n"
        "        done()\n"
    )
    assert _run(before).endswith(
        "    try:\n        # may fail on old trees\n        pass\n    finally:\n        done()\n"
    )


def test_a_removed_import_hands_its_comment_block_on() -> None:
    text = (
        "import torch\n"
        "\n"
        "# Design note: the worker batch is a snapshot.\n"
        "# It is built once per forward.\n"
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch  # noqa: F401\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return x\n"
    )
    out = _migrate(text)
    assert lost_comments(text, out) == [], out
    assert "# Design note: the worker batch is a snapshot.\n# It is built once per forward.\n" in out


def test_the_checker_sees_a_lost_comment() -> None:
    original = "x = 1\n# kept\ny = 2  # gone\nz = 3  # also kept  # mwbmigrate: MWB101 why\n"
    assert lost_comments(original, "x = 1\n# kept\nz = 3  # also kept\n") == [(3, "# gone")]


def test_a_directive_on_a_deleted_line_goes_with_it() -> None:
    text = (
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch  # type: ignore  # the old class\n"
        "import torch  # noqa: F401\n"
    )
    out = _migrate(text)
    assert out == "# the old class\nimport torch  # noqa: F401\n", out  # no `# type: ignore` for the module
    assert lost_comments(text, out) == []
    assert lost_comments(text, "import torch\n") == [(1, "# the old class"), (2, "# noqa: F401")]


def test_the_checker_does_not_take_a_renamed_function_for_a_deleted_one() -> None:
    original = "def f(model_worker_batch):\n    # c\n    return model_worker_batch.reqs\n"
    assert lost_comments(original, "def f(batch):\n    return batch.reqs\n") == [(2, "# c")]


def test_the_checker_exempts_only_what_was_deleted_whole() -> None:
    original = (
        "# above\n"
        "if isinstance(x, A):\n"
        "    # inside the dead branch\n"
        "    f(x)\n"
        "else:\n"
        "    # inside the kept branch\n"
        "    g(x)\n"
    )
    dead_branch_gone = "# above\n# inside the kept branch\ng(x)\n"
    assert lost_comments(original, dead_branch_gone) == []
    assert lost_comments(original, "g(x)\n") == [(1, "# above"), (6, "# inside the kept branch")]


def test_an_import_removed_from_a_type_checking_block_keeps_its_comment() -> None:
    text = (
        "from typing import TYPE_CHECKING\n"
        "\n"
        "if TYPE_CHECKING:\n"
        "    import torch\n"
        "\n"
        "    # for the worker signatures\n"
        "    from sglang.srt.managers.schedule_batch import ModelWorkerBatch  # old API\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return x\n"
    )
    out = _migrate(text)
    assert "    import torch\n\n    # for the worker signatures\n    # old API\n\n\ndef f(x):\n" in out, out


def test_isinstance_checks_keep_the_comments_around_the_branch_that_stays() -> None:
    before = (
        "def forward(self, batch: ScheduleBatch):\n"
        "    prepare(batch)\n"
        "    # the old object took a shortcut\n"
        "    if isinstance(batch, ModelWorkerBatch):\n"
        "        # dead on 0.5.13\n"
        "        return None\n"
        "    # the live batch\n"
        "    else:  # always, now\n"
        "        out = self.run(batch)\n"
        "        # end of the live path\n"
        "    return out\n"
    )
    out = _run(before)
    assert lost_comments(_HEAD + before, out) == [], out
    assert "# dead on 0.5.13" not in out  # inside the branch that can no longer run


def test_isinstance_checks_keep_the_comments_above_a_branch_deleted_whole() -> None:
    before = (
        "def forward(self, batch: ScheduleBatch):\n"
        "    prepare(batch)\n"
        "\n"
        "    # only for the old object\n"
        "    if isinstance(batch, ModelWorkerBatch):\n"
        "        return None\n"
        "    return self.run(batch)\n"
    )
    out = _run(before)
    assert "    prepare(batch)\n\n    # only for the old object\n    return self.run(batch)\n" in out, out


def test_class_removal_keeps_the_comments_above_what_it_deletes() -> None:
    text = (
        "import dataclasses\n"
        "\n"
        "\n"
        "class ScheduleBatch:\n"
        "    reqs: list\n"
        "\n"
        "    # Build the worker's snapshot.\n"
        "    def get_model_worker_batch(self):\n"
        "        return ModelWorkerBatch(reqs=self.reqs)\n"
        "\n"
        "\n"
        "# What the worker takes.\n"
        "@dataclasses.dataclass\n"
        "class ModelWorkerBatch:\n"
        "    # the requests\n"
        "    reqs: list\n"
        "\n"
        "\n"
        "def helper():\n"
        "    return 1\n"
    )
    out = _migrate(text, "sglang/srt/managers/schedule_batch.py")
    assert "class ModelWorkerBatch" not in out and "def get_model_worker_batch" not in out, out
    assert lost_comments(text, out) == [], out
    assert "# the requests" not in out  # inside the class upstream removed
    # Where they stood: the method's after the class's last field, the class's above the blank lines.
    assert "    # Build the worker's snapshot.\n\n\n# What the worker takes.\n\n\ndef helper():" in out, out


def test_collapse_keeps_the_comments_of_the_fallback_it_drops() -> None:
    text = (
        "try:\n"
        "    from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"
        "# sglang >= 0.5.13 has no such class\n"
        "except ImportError:  # new API\n"
        "    ModelWorkerBatch = None  # nothing to test against\n"
        "    HAS_OLD = False\n"
        "\n"
        "\n"
        "def is_worker_batch(obj) -> bool:\n"
        "    return ModelWorkerBatch is not None and isinstance(obj, ModelWorkerBatch)\n"
    )
    out = _migrate(text, options=TransformOptions(collapse_compat=True))
    assert "ModelWorkerBatch" not in out, out
    assert lost_comments(text, out) == [], out


def test_override_moves_keep_the_comments_of_what_they_move() -> None:
    before = (
        "def draft(self, batch):\n"
        "    # the draft needs every hidden state\n"
        "    batch.capture_hidden_mode = CaptureHiddenMode.FULL  # one-shot\n"
        "    if batch.has_grammar:\n"
        "        self.grammar(batch.reqs)\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )
    text = "from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode\n\n\n" + before
    out = _migrate(text)
    assert (
        "    # the draft needs every hidden state\n    batch.capture_hidden_mode = CaptureHiddenMode.FULL  # one-shot\n    return"
        in out
    ), out


def test_kept_lines_leave_an_earlier_runs_markers_with_the_code() -> None:
    line = cst.parse_statement("x = f()  # why  # mwbmigrate: MWB101 kept\n")
    assert [line.comment.value for line in kept_lines(line) if line.comment] == ["# why"]
    marked_only = cst.parse_statement("x = f()  # mwbmigrate: MWB101 kept\n")
    assert kept_lines(marked_only) == []


def test_a_moved_assert_leaves_its_comments_above_the_init_new_it_follows() -> None:
    text = (
        "from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch\n"
        "\n"
        "\n"
        "def draft(self, batch):\n"
        "    batch.return_hidden_states = False\n"
        "\n"
        "    # Get forward batch\n"
        "    model_worker_batch = batch.get_model_worker_batch()\n"
        "    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.LAST  # draft mode\n"
        "    forward_batch = ForwardBatch.init_new(model_worker_batch, self.draft_model_runner)\n"
        "    return forward_batch\n"
    )
    assert _migrate(text, options=LIVE).endswith(
        "    batch.return_hidden_states = False\n"
        "\n"
        "    # Get forward batch\n"
        "    forward_batch = ForwardBatch.init_new(batch, self.draft_model_runner)\n"
        "    assert forward_batch.capture_hidden_mode == CaptureHiddenMode.LAST  # draft mode\n"
        "    return forward_batch\n"
    )


def test_collapse_keeps_the_comments_of_the_side_that_runs_on_the_new_api() -> None:
    text = (
        "class CompatRunner:\n"
        "    def run_batch(self, batch):\n"
        "        # both APIs\n"
        '        if hasattr(batch, "get_model_worker_batch"):  # sglang <= 0.5.12\n'
        "            # the snapshot\n"
        "            model_worker_batch = batch.get_model_worker_batch()\n"
        "        # sglang 0.5.13\n"
        "        else:  # the batch itself\n"
        "            model_worker_batch = batch\n"
        "            # nothing else to do\n"
        "        return self.worker.forward_batch_generation(model_worker_batch)\n"
    )
    out = _migrate(text, options=TransformOptions(collapse_compat=True))
    assert "hasattr" not in out, out
    assert lost_comments(text, out) == [], out
    assert "# the snapshot" not in out and "# sglang <= 0.5.12" not in out  # the side that no longer runs


def test_a_pruned_typing_import_keeps_its_comments() -> None:
    text = (
        "import os\n"
        "\n"
        "# typing for the worker API\n"
        "from typing import Union  # for the batch union\n"
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n"
        "\n"
        "\n"
        "def forward(self, batch: Union[ScheduleBatch, ModelWorkerBatch]):\n"
        "    return batch\n"
    )
    out = _migrate(text)
    assert out == (
        "import os\n"
        "\n"
        "# typing for the worker API\n"
        "# for the batch union\n"
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
        "\n"
        "\n"
        "def forward(self, batch: ScheduleBatch):\n"
        "    return batch\n"
    ), out
    assert lost_comments(text, out) == [], out


def test_a_pruned_first_import_leaves_no_blank_line_opening_the_module() -> None:
    text = (
        "from typing import Union\n"
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n"
        "\n"
        "\n"
        "def forward(batch: Union[ScheduleBatch, ModelWorkerBatch]):\n"
        "    return batch\n"
    )
    assert _migrate(text) == (
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
        "\n"
        "\n"
        "def forward(batch: ScheduleBatch):\n"
        "    return batch\n"
    )


def test_an_if_left_with_no_statement_keeps_the_comments_above_and_inside_it() -> None:
    before = (
        "def run_batch(self, batch):\n"
        "    prepare(batch)\n"
        "    # pick what the worker takes\n"
        "    if self.spec_algorithm.is_none() or self.enable_overlap:  # overlap\n"
        "        # the snapshot\n"
        "        worker_batch_or_batch = batch.get_model_worker_batch()  # old API\n"
        "    # otherwise\n"
        "    else:\n"
        "        worker_batch_or_batch = batch  # the batch itself\n"
        "    return self.worker.forward_batch_generation(worker_batch_or_batch)\n"
    )
    out = _migrate(before, options=LIVE)
    assert out == (
        "def run_batch(self, batch):\n"
        "    prepare(batch)\n"
        "    # pick what the worker takes\n"
        "    # overlap\n"
        "    # the snapshot\n"
        "    # old API\n"
        "    # otherwise\n"
        "    # the batch itself\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    ), out
    assert lost_comments(before, out) == [], out


def test_an_if_left_with_no_statement_at_module_level_keeps_its_comments() -> None:
    before = (
        "import os\n"
        "\n"
        "# choose the batch\n"
        "if os.environ.get('SNAPSHOT'):\n"
        "    wb = batch.get_model_worker_batch()  # old API\n"
        "else:\n"
        "    wb = batch\n"
        "run(wb)\n"
    )
    out = _migrate(before, options=LIVE)
    assert lost_comments(before, out) == [], out


_ELIF_ON_THE_OLD_CLASS = (
    "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n"
    "\n"
    "\n"
    "def f(x: ScheduleBatch):\n"
    "    if x is None:\n"
    "        return 0\n"
    "    # the old object\n"
    "    elif isinstance(x, ModelWorkerBatch):\n"
    "        return 1\n"
)


def test_a_deleted_elif_hands_the_comments_above_it_to_the_else_that_takes_its_place() -> None:
    text = _ELIF_ON_THE_OLD_CLASS + "    # the fallback\n    else:\n        return 2\n"
    assert _migrate(text) == (
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
        "\n"
        "\n"
        "def f(x: ScheduleBatch):\n"
        "    if x is None:\n"
        "        return 0\n"
        "    # the old object\n"
        "    # the fallback\n"
        "    else:\n"
        "        return 2\n"
    )


def test_a_deleted_last_elif_leaves_the_comments_above_it_after_the_branch_before_it() -> None:
    text = _ELIF_ON_THE_OLD_CLASS + "    return 2\n"
    out = _migrate(text.replace("    if x is None:\n        return 0\n", "    if x is None: return 0\n"))
    assert out == (
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
        "\n"
        "\n"
        "def f(x: ScheduleBatch):\n"
        "    if x is None:\n"
        "        return 0\n"
        "        # the old object\n"
        "    return 2\n"
    )


# A parenthesised import list: the comments live in the whitespace between the names.
_LISTED = "from sglang.srt.managers.schedule_batch import (\n"
_USES_NEW_CLASS = "\n\ndef f(batch: ScheduleBatch):\n    return batch\n"


def test_a_name_that_stays_in_a_pruned_list_keeps_its_comment_and_the_list_its_layout() -> None:
    text = _LISTED + "    ModelWorkerBatch,\n    ScheduleBatch,  # the batch\n)\n" + _USES_NEW_CLASS
    out = _migrate(text)
    assert out == _LISTED + "    ScheduleBatch,  # the batch\n)\n" + _USES_NEW_CLASS
    assert lost_comments(text, out) == [], out


def test_a_name_removed_from_a_list_leaves_its_comment_where_it_stood() -> None:
    text = _LISTED + "    ModelWorkerBatch,  # the old class\n    ScheduleBatch,\n)\n" + _USES_NEW_CLASS
    out = _migrate(text)
    assert out == _LISTED + "    # the old class\n    ScheduleBatch,\n)\n" + _USES_NEW_CLASS
    assert lost_comments(text, out) == [], out


def test_the_footer_of_a_pruned_list_stays() -> None:
    text = _LISTED + "    ModelWorkerBatch,\n    ScheduleBatch,\n    # footer\n)\n" + _USES_NEW_CLASS
    out = _migrate(text)
    assert out == _LISTED + "    ScheduleBatch,\n    # footer\n)\n" + _USES_NEW_CLASS
    assert lost_comments(text, out) == [], out


def test_a_list_removed_whole_leaves_its_comments_where_it_stood() -> None:
    text = _LISTED + "    ModelWorkerBatch,  # the old class\n)\n"
    out = _migrate(text)
    assert out == "# the old class\n"
    assert lost_comments(text, out) == [], out


def test_the_comment_after_the_opening_parenthesis_of_a_removed_list_stays() -> None:
    text = "from sglang.srt.managers.schedule_batch import (  # open paren\n    ModelWorkerBatch,\n)\n"
    out = _migrate(text)
    assert out == "# open paren\n"
    assert lost_comments(text, out) == [], out


_UNION_OF_BOTH = (
    "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n"
    "\n"
    "\n"
    "def f(batch: Union[ScheduleBatch, ModelWorkerBatch]) -> Optional[int]:\n"
    "    return None\n"
)
_NEW_CLASS_ONLY = (
    "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
    "\n"
    "\n"
    "def f(batch: ScheduleBatch) -> Optional[int]:\n"
    "    return None\n"
)


def test_a_typing_list_pruned_by_remove_imports_keeps_the_comment_of_the_name_it_drops() -> None:
    text = "from typing import (\n    Optional,\n    Union,  # union\n)\n" + _UNION_OF_BOTH
    out = _migrate(text)
    assert out == "from typing import (\n    Optional,\n    # union\n)\n" + _NEW_CLASS_ONLY
    assert lost_comments(text, out) == [], out


def test_a_typing_list_removed_whole_by_remove_imports_hands_its_comment_on() -> None:
    text = "from typing import (\n    Union,  # union\n)\n" + _UNION_OF_BOTH.replace(" -> Optional[int]", "")
    out = _migrate(text)
    assert out == "# union\n" + _NEW_CLASS_ONLY.replace(" -> Optional[int]", "")
    assert lost_comments(text, out) == [], out


def test_the_new_class_takes_the_place_of_the_old_in_a_sorted_list_under_its_comment() -> None:
    text = (
        _LISTED
        + "    Alpha,  # a\n    ModelWorkerBatch,  # the old class\n    Zed,  # z\n)\n"
        + "\n\ndef f(batch: ModelWorkerBatch, a: Alpha, z: Zed):\n    return batch\n"
    )
    out = _migrate(text)
    assert out == (
        _LISTED
        + "    Alpha,  # a\n    # the old class\n    ScheduleBatch,\n    Zed,  # z\n)\n"
        + "\n\ndef f(batch: ScheduleBatch, a: Alpha, z: Zed):\n    return batch\n"
    )
    assert lost_comments(text, out) == [], out
