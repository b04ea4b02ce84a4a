"""Added imports where the tree's import sorter puts them, inserted calls within its line length, and
the configuration both are read from (config.project_import_sorting, config.configured_line_length).

Without a configured sorter or line length the output is LibCST's placement and the one-line calls,
byte for byte: tests/engine/test_import_insertion.py and the codemod fixtures hold that."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mwbmigrate.config import configured_line_length, project_import_sorting
from mwbmigrate.engine.import_insertion import insert_imports
from mwbmigrate.engine.import_sorting import FIRST_PARTY, STANDARD_LIBRARY, THIRD_PARTY, ImportSorting
from mwbmigrate.engine.transform import TransformOptions, transform_source

SORTING = ImportSorting(first_party=("sglang", "forkext"))
RUNTIME = "mwbmigrate.runtime"


def _inserted(source: str, *requests: tuple[str, str | None], sorting: ImportSorting | None = SORTING) -> str:
    context = CodemodContext()
    for module, obj in requests:
        AddImportsVisitor.add_needed_import(context, module, obj)
    return insert_imports(cst.parse_module(textwrap.dedent(source)), context, sorting).code


def _visitor(source: str, *requests: tuple[str, str | None]) -> str:
    context = CodemodContext()
    for module, obj in requests:
        AddImportsVisitor.add_needed_import(context, module, obj)
    return AddImportsVisitor(context).transform_module(cst.parse_module(textwrap.dedent(source))).code


def test_sections_follow_isort() -> None:
    assert SORTING.section("__future__") < SORTING.section("typing") == STANDARD_LIBRARY
    assert SORTING.section("mwbmigrate.runtime") == THIRD_PARTY
    assert SORTING.section("sglang.srt.managers.schedule_batch") == FIRST_PARTY
    assert ImportSorting(source_packages=("forkext",)).section("forkext.streams") == FIRST_PARTY
    assert ImportSorting(third_party=("sglang.srt*",), first_party=("sglang",)).section("sglang.srt.x") == THIRD_PARTY


def test_a_runtime_import_goes_into_the_third_party_section() -> None:
    source = """\
        import logging

        import torch

        from sglang.srt.managers.schedule_batch import ScheduleBatch
        """
    assert _inserted(source, (RUNTIME, "forward_batch_view")) == textwrap.dedent(
        """\
        import logging

        import torch
        from mwbmigrate.runtime import forward_batch_view

        from sglang.srt.managers.schedule_batch import ScheduleBatch
        """
    )


def test_a_missing_third_party_section_is_opened_between_its_neighbours_and_wrapped() -> None:
    source = '''\
        """Doc."""

        import logging

        from sglang.srt.managers.schedule_batch import ScheduleBatch

        logger = logging.getLogger(__name__)
        '''
    added = [(RUNTIME, name) for name in ("worker_batch_snapshot", "BatchRecordRing", "overlap_forward_isolation")]
    assert _inserted(source, *added) == textwrap.dedent(
        '''\
        """Doc."""

        import logging

        from mwbmigrate.runtime import (
            BatchRecordRing,
            overlap_forward_isolation,
            worker_batch_snapshot,
        )

        from sglang.srt.managers.schedule_batch import ScheduleBatch

        logger = logging.getLogger(__name__)
        '''
    )


def test_a_section_before_the_whole_block_takes_its_place() -> None:
    source = """\
        # A comment above the block.
        from sglang.x import y

        x = 1
        """
    assert _inserted(source, ("typing", "Optional")) == textwrap.dedent(
        """\
        # A comment above the block.
        from typing import Optional

        from sglang.x import y

        x = 1
        """
    )


def test_a_name_merged_into_a_from_import_is_sorted_in() -> None:
    source = """\
        from __future__ import annotations

        from typing import TYPE_CHECKING, List
        """
    assert _inserted(source, ("typing", "Optional")) == textwrap.dedent(
        """\
        from __future__ import annotations

        from typing import TYPE_CHECKING, List, Optional
        """
    )


def test_a_merge_that_no_longer_fits_is_exploded() -> None:
    source = "from mwbmigrate.runtime import BatchRecordRing, overlap_forward_isolation\n"
    assert _inserted(source, (RUNTIME, "worker_batch_snapshot")) == textwrap.dedent(
        """\
        from mwbmigrate.runtime import (
            BatchRecordRing,
            overlap_forward_isolation,
            worker_batch_snapshot,
        )
        """
    )


def test_a_new_block_gets_the_blank_lines_black_and_isort_want() -> None:
    source = '''\
        """Doc."""


        class Scheduler:
            pass
        '''
    assert _inserted(source, (RUNTIME, "BatchRecordRing")) == textwrap.dedent(
        '''\
        """Doc."""

        from mwbmigrate.runtime import BatchRecordRing


        class Scheduler:
            pass
        '''
    )


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nimport os\n\nx = 1\n",  # out of order
        "import os\nimport torch\n\nx = 1\n",  # two sections without their blank line
        "import os\n\nimport sys\n\nx = 1\n",  # a blank line inside a section
        "from typing import List, Optional\nimport os, sys\n\nx = 1\n",  # `import a, b`
    ],
)
def test_an_unsorted_block_keeps_the_visitors_placement(source: str) -> None:
    requests = [(RUNTIME, "forward_batch_view"), ("typing", "Optional")]
    assert _inserted(source, *requests) == _visitor(source, *requests)


def test_without_a_sorter_the_placement_is_the_visitors() -> None:
    source = "import os\n\nfrom sglang.x import y\n\nx = 1\n"
    assert _inserted(source, (RUNTIME, "forward_batch_view"), sorting=None) == _visitor(
        source, (RUNTIME, "forward_batch_view")
    )


def test_without_a_sorter_a_long_added_import_is_still_wrapped_to_the_line_length() -> None:
    context = CodemodContext()
    for name in ("BatchRecordRing", "overlap_forward_isolation", "worker_batch_snapshot"):
        AddImportsVisitor.add_needed_import(context, RUNTIME, name)
    module = cst.parse_module("import os\n\nx = 1\n")
    assert insert_imports(module, context, None, 88).code == textwrap.dedent(
        """\
        import os
        from mwbmigrate.runtime import (
            BatchRecordRing,
            overlap_forward_isolation,
            worker_batch_snapshot,
        )

        x = 1
        """
    )


# --- inserted calls within the line length ----------------------------------------------------------

VERIFY = """\
import torch


class EAGLEWorkerV2:
    def verify(self, speculative_draft_verify_batch):
        speculative_draft_verify_batch.seq_lens.record_stream(torch.cuda.current_stream())
        out = speculative_draft_verify_batch.spec_info.prepare_for_v2_verify(self.pool)
        return out
"""


def test_inserted_calls_are_wrapped_only_when_a_line_length_is_configured() -> None:
    plain = transform_source(VERIFY, "spec.py", TransformOptions()).text
    assert (
        "        record_stream_for_v2_verify(speculative_draft_verify_batch, "
        "speculative_draft_verify_batch.spec_info, torch.cuda.current_stream())\n" in plain
    )
    wrapped = transform_source(VERIFY, "spec.py", TransformOptions(wrap_line_length=88)).text
    assert wrapped.endswith(
        """\
    def verify(self, speculative_draft_verify_batch):
        record_stream_for_v2_verify(
            speculative_draft_verify_batch,
            speculative_draft_verify_batch.spec_info,
            torch.cuda.current_stream(),
        )
        out = speculative_draft_verify_batch.spec_info.prepare_for_v2_verify(self.pool)
        record_stream_each(
            (
                speculative_draft_verify_batch.input_ids,
                speculative_draft_verify_batch.out_cache_loc,
            ),
            torch.cuda.current_stream(),
        )
        return out
"""
    )
    # The arguments fit on a line of their own at 130 columns: black hugs them.
    hugged = transform_source(VERIFY, "spec.py", TransformOptions(wrap_line_length=130)).text
    assert (
        "        record_stream_each(\n"
        "            (speculative_draft_verify_batch.input_ids, speculative_draft_verify_batch.out_cache_loc), "
        "torch.cuda.current_stream()\n"
        "        )\n" in hugged
    )


# --- reading the configuration ----------------------------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> list[Path]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    return [tmp_path]


def test_no_configuration_configures_nothing(tmp_path: Path) -> None:
    paths = _tree(tmp_path, {"pkg/mod.py": "x = 1\n"})
    assert configured_line_length(paths) is None
    assert project_import_sorting(paths) is None


@pytest.mark.parametrize(
    ("files", "length"),
    [
        ({"pyproject.toml": "[tool.black]\n"}, 88),  # a formatter with its default
        ({".pre-commit-config.yaml": "  - id: black\n    args: [--line-length=100]\n"}, 100),
        ({".pre-commit-config.yaml": '  - id: black\n    args: ["-l", "99"]\n'}, 99),
        ({"setup.cfg": "[isort]\nline_length = 79\n"}, 79),
        ({".flake8": "[flake8]\nmax-line-length = 110\n"}, 110),
    ],
)
def test_the_line_length_is_read_wherever_the_tree_sets_it(tmp_path: Path, files: dict[str, str], length: int) -> None:
    assert configured_line_length(_tree(tmp_path, files)) == length


def test_isort_settings_are_read_from_pyproject_and_ruff(tmp_path: Path) -> None:
    paths = _tree(
        tmp_path,
        {
            "pyproject.toml": """\
                [tool.isort]
                profile = "black"
                known_first_party = ["sglang"]

                [tool.ruff.lint]
                extend-select = ["I"]

                [tool.ruff.lint.isort]
                known-first-party = ["forkext"]
                """,
            "mypkg/__init__.py": "",
        },
    )
    sorting = project_import_sorting(paths)
    assert sorting is not None
    assert sorting.first_party == ("forkext", "sglang")
    assert "mypkg" in sorting.source_packages
    assert sorting.line_length == 88


@pytest.mark.parametrize(
    ("files", "first_party"),
    [
        ({".isort.cfg": "[settings]\nknown_first_party = sglang,forkext\n"}, ("forkext", "sglang")),
        ({"setup.cfg": "[tool:isort]\nknown_first_party =\n    sglang\n"}, ("sglang",)),
        ({"ruff.toml": '[lint]\nselect = ["I"]\n[lint.isort]\nknown-first-party = ["sglang"]\n'}, ("sglang",)),
        ({".pre-commit-config.yaml": "  - id: isort\n"}, ()),
    ],
)
def test_a_sorter_is_found_in_any_of_its_files(
    tmp_path: Path, files: dict[str, str], first_party: tuple[str, ...]
) -> None:
    sorting = project_import_sorting(_tree(tmp_path, files))
    assert sorting is not None and sorting.first_party == first_party


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n'},  # ruff without its isort rules
        {"pyproject.toml": '[tool.isort]\nprofile = "google"\n'},  # a profile this placement does not model
        {"pyproject.toml": "[tool.isort]\nforce_single_line = true\n"},
    ],
)
def test_no_modelled_sorter_keeps_the_visitors_placement(tmp_path: Path, files: dict[str, str]) -> None:
    assert project_import_sorting(_tree(tmp_path, files)) is None
