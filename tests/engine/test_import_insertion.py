"""insert_imports is AddImportsVisitor's output, byte for byte, on every fixture module and on the
shapes its parity argument rests on (leading docstring or `__strict__`, star imports, nested and
TYPE_CHECKING imports, imports after code, comments, empty modules)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mwbmigrate.engine.import_insertion import insert_imports

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# (module, object, alias) requests, as codemods schedule them.
Request = tuple[str, "str | None", "str | None"]
REQUESTS: dict[str, tuple[Request, ...]] = {
    "optional": (("typing", "Optional", None),),
    "runtime-helpers": (
        ("mwbmigrate.runtime", "seq_lens_cpu_of", None),
        ("mwbmigrate.runtime", "capture_hidden_of", None),
        ("typing", "Optional", None),
        ("__future__", "annotations", None),
    ),
    "mixed": (
        ("os", None, None),
        ("sglang.srt.managers.schedule_batch", "ScheduleBatch", None),
        ("sglang.srt.model_executor.forward_batch_info", "CaptureHiddenMode", "Mode"),
        ("numpy", None, "np"),
        ("typing", "Optional", None),
    ),
}

SHAPES = {
    "empty": "",
    "docstring_only": '"""Doc."""\n',
    "strict_flag": "__strict__ = True\nimport os\n\nx = 1\n",
    "docstring_then_imports": '"""Doc."""\n\nfrom typing import List\nimport os\n\n\ndef f():\n    pass\n',
    "comment_before_code": "import os\n# a comment\nx = 1\n",
    "star_import": "from typing import *\nfrom sglang.srt.managers.schedule_batch import *\n\nx = 1\n",
    "existing_object": "from typing import Optional, List\n\nx: Optional[int] = None\n",
    "existing_module_import": "import os\nimport numpy as np\n\nx = os.sep\n",
    "nested_same_module": textwrap.dedent(
        """\
        from typing import List


        def f():
            from typing import Dict
            return Dict
        """
    ),
    "type_checking_block": textwrap.dedent(
        """\
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from typing import Optional
            from sglang.srt.managers.schedule_batch import ScheduleBatch
        """
    ),
    "imports_after_code": "x = 1\nfrom typing import List\nimport os\n",
    "two_imports_one_line": "import os; import sys\nfrom typing import List\n\nx = 1\n",
    "relative_import": "from . import sibling\nfrom .schedule_batch import ScheduleBatch\n\nx = 1\n",
    "parenthesised": "from typing import (\n    List,  # keep\n    Dict,\n)\n\nx = 1\n",
    "only_code": "def f():\n    return 1\n",
    "future_present": "from __future__ import annotations\n\nx = 1\n",
}


def _fixture_modules() -> list[Path]:
    """Every fixture's input module."""
    return sorted(FIXTURES.glob("*/*/before.py"))


def _schedule(requests: tuple[Request, ...]) -> CodemodContext:
    context = CodemodContext(filename="module.py")
    for module, obj, alias in requests:
        AddImportsVisitor.add_needed_import(context, module, obj, alias)
    return context


def _both(text: str, requests: tuple[Request, ...]) -> tuple[str, str]:
    module = cst.parse_module(text)
    expected = AddImportsVisitor(_schedule(requests)).transform_module(module).code
    actual = insert_imports(module, _schedule(requests)).code
    return expected, actual


@pytest.mark.parametrize("requests", list(REQUESTS.values()), ids=list(REQUESTS))
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_shapes_match_add_imports_visitor(shape: str, requests: tuple[Request, ...]) -> None:
    expected, actual = _both(SHAPES[shape], requests)
    assert actual == expected


def test_every_fixture_module_matches_add_imports_visitor() -> None:
    # One request of every kind at once (the visitor's cost bounds how many runs this test affords).
    requests = tuple(dict.fromkeys(r for group in REQUESTS.values() for r in group))
    paths = _fixture_modules()
    assert len(paths) > 100, "the fixtures moved: this test must see them"
    mismatches = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            expected, actual = _both(text, requests)
        except cst.ParserSyntaxError:
            continue  # fixtures of unparsable input
        if actual != expected:
            mismatches.append(path.relative_to(FIXTURES).as_posix())
    assert mismatches == []


def test_the_input_module_is_left_as_it_was() -> None:
    module = cst.parse_module(SHAPES["docstring_then_imports"])
    before = module.code
    result = insert_imports(module, _schedule(REQUESTS["mixed"]))
    assert module.code == before
    assert result.code != before


def test_an_import_already_there_adds_nothing() -> None:
    module = cst.parse_module(SHAPES["existing_object"])
    assert insert_imports(module, _schedule(REQUESTS["optional"])).code == SHAPES["existing_object"]
