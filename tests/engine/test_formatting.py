"""Formatting only what a rewrite changed: exact output for both formatters, detection, failures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mwbmigrate.engine.formatting import FormatterMissing, FormattingFailed, changed_line_ranges, resolve_formatter

ORIGINAL = """\
def run(worker, model_worker_batch):
    result = worker.forward_batch_generation(model_worker_batch,
                                             skip_sample=True)
    untouched = {  'a':1 }
    return result
"""
REWRITTEN = """\
def run(worker, batch):
    result = worker.forward_batch_generation(batch,
                                             skip_sample=True)
    untouched = {  'a':1 }
    return result
"""
FORMATTED = """\
def run(worker, batch):
    result = worker.forward_batch_generation(batch, skip_sample=True)
    untouched = {  'a':1 }
    return result
"""


def test_changed_ranges_cover_whole_statements() -> None:
    assert changed_line_ranges(ORIGINAL, REWRITTEN) == [(1, 3)]


@pytest.mark.parametrize("name", ["black", "ruff"])
def test_only_changed_statements_are_formatted(name: str, tmp_path: Path) -> None:
    formatter = resolve_formatter(name, tmp_path)
    assert formatter is not None
    assert formatter.format(ORIGINAL, REWRITTEN, "module.py") == FORMATTED


def test_unchanged_text_is_returned_as_is(tmp_path: Path) -> None:
    formatter = resolve_formatter("black", tmp_path)
    assert formatter is not None
    assert formatter.format(ORIGINAL, ORIGINAL, "module.py") == ORIGINAL


def test_black_reads_the_repositorys_line_length(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 40\n")
    formatter = resolve_formatter("auto", tmp_path)
    assert formatter is not None and formatter.name == "black"
    assert formatter.format(ORIGINAL, REWRITTEN, "module.py").splitlines()[1:5] == [
        "    result = (",
        "        worker.forward_batch_generation(",
        "            batch, skip_sample=True",
        "        )",
    ]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, None),
        ({"pyproject.toml": "[tool.black]\n"}, "black"),
        ({"pyproject.toml": "[tool.ruff.format]\nquote-style = 'single'\n"}, "ruff"),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, None),
        ({".pre-commit-config.yaml": "repos:\n- repo: x\n  hooks:\n  - id: ruff-format\n"}, "ruff"),
        ({".pre-commit-config.yaml": "repos:\n- repo: x\n  hooks:\n  - id: black\n"}, "black"),
        ({"pyproject.toml": "not toml ["}, None),
    ],
)
def test_auto_uses_what_the_repository_configures(tmp_path: Path, files: dict[str, str], expected: str | None) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    formatter = resolve_formatter("auto", tmp_path)
    assert (formatter.name if formatter else None) == expected


def test_none_formats_nothing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\n")
    assert resolve_formatter("none", tmp_path) is None


def test_a_missing_formatter_is_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "black", None)  # makes `import black` raise ImportError
    with pytest.raises(FormatterMissing, match="black is not installed"):
        resolve_formatter("black", tmp_path)


HEADER_ORIGINAL = """\
class Worker:
    def forward(self,
                model_worker_batch,
                skip = False):
        # the body's first line is a comment

        return model_worker_batch
"""
HEADER_REWRITTEN = HEADER_ORIGINAL.replace("model_worker_batch", "batch")


def test_a_changed_header_line_widens_to_the_whole_header() -> None:
    # Black formats a def header as one logical line: the range must hold all of it.
    assert changed_line_ranges(HEADER_ORIGINAL, HEADER_REWRITTEN) == [(2, 4), (7, 7)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("black", "class Worker:\n\n    def forward(self, batch, skip=False):\n"),
        ("ruff", "class Worker:\n    def forward(self, batch, skip=False):\n"),
    ],
)
def test_a_multi_line_header_is_formatted_whole(name: str, expected: str, tmp_path: Path) -> None:
    formatter = resolve_formatter(name, tmp_path)
    assert formatter is not None
    tail = "        # the body's first line is a comment\n\n        return batch\n"
    assert formatter.format(HEADER_ORIGINAL, HEADER_REWRITTEN, "module.py") == expected + tail


def test_crlf_is_kept_and_mixed_newlines_refused(tmp_path: Path) -> None:
    formatter = resolve_formatter("ruff", tmp_path)  # ruff alone would write LF throughout
    assert formatter is not None
    crlf = ORIGINAL.replace("\n", "\r\n"), REWRITTEN.replace("\n", "\r\n")
    assert formatter.format(*crlf, "module.py") == FORMATTED.replace("\n", "\r\n")
    mixed = REWRITTEN.replace("\n", "\r\n", 1)
    with pytest.raises(FormattingFailed, match="mixed line endings"):
        formatter.format(ORIGINAL, mixed, "module.py")
