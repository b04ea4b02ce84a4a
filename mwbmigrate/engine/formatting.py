"""Format only what a rewrite changed, with the formatter the target repository already uses.

`--format-changed black|ruff|auto|none`. The lines a rewrite added or replaced are handed to black's
line ranges (`black.format_file_contents(..., lines=...)`) or to `ruff format --range`, one range at
a time from the bottom up so the line numbers of the ranges above stay valid. Untouched code is never
reformatted, so a migration diff stays a migration diff.

`auto` reads the repository's configuration: `[tool.black]` or a black hook in
`.pre-commit-config.yaml` means black; `[tool.ruff.format]` or a `ruff-format` hook means ruff; none of
them means no formatting. Both formatters are optional extras: a missing one is a `FormatterMissing`
with a one-line message, raised once when the run starts.
"""

from __future__ import annotations

import ast
import difflib
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:  # black is an optional extra, imported when it formats
    from black.mode import Mode

CHOICES = ("auto", "black", "ruff", "none")


class FormatterMissing(Exception):
    """The chosen formatter is not installed."""


class FormattingFailed(Exception):
    """The formatter rejected the rewritten text."""


@dataclass(frozen=True)
class Formatter:
    """A resolved formatter: which one, and black's settings read from the repository."""

    name: str  # "black" or "ruff"
    black_settings: tuple[tuple[str, Any], ...] = field(default=())
    ruff_config_dir: str | None = None  # where ruff looks for its configuration

    def format(self, original: str, rewritten: str, path: str) -> str:
        ranges = changed_line_ranges(original, rewritten)
        if not ranges or rewritten == original:
            return rewritten
        if self.name == "black":
            return _format_with_black(rewritten, ranges, dict(self.black_settings))
        return _format_with_ruff(rewritten, ranges, path, self.ruff_config_dir)


def changed_line_ranges(original: str, rewritten: str) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of `rewritten` that the rewrite added or replaced, each widened
    to the simple statements it touches (ruff formats only whole nodes inside a range)."""
    matcher = difflib.SequenceMatcher(a=original.splitlines(), b=rewritten.splitlines(), autojunk=False)
    spans = _simple_statement_spans(rewritten)
    ranges = []
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert") and end > start:
            first, last = start + 1, end
            for span_start, span_end in spans:
                if span_start <= last and first <= span_end:
                    first, last = min(first, span_start), max(last, span_end)
            ranges.append((first, last))
    return _merged(ranges)


def _simple_statement_spans(text: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt) and not hasattr(node, "body")
    ]


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _black_mode(settings: dict[str, Any]) -> Mode:
    # From the defining modules: `black` re-exports these without declaring them public.
    from black.const import DEFAULT_LINE_LENGTH
    from black.mode import Mode, TargetVersion

    versions = {TargetVersion[v.upper()] for v in settings.get("target_version", ()) or ()}
    return Mode(
        target_versions=versions,
        line_length=int(settings.get("line_length", DEFAULT_LINE_LENGTH)),
        string_normalization=not settings.get("skip_string_normalization", False),
        magic_trailing_comma=not settings.get("skip_magic_trailing_comma", False),
        preview=bool(settings.get("preview", False)),
    )


def _format_with_black(text: str, ranges: list[tuple[int, int]], settings: dict[str, Any]) -> str:
    import black
    from black.report import NothingChanged

    try:
        return black.format_file_contents(text, fast=True, mode=_black_mode(settings), lines=ranges)
    except NothingChanged:
        return text
    except Exception as error:  # black's own parse errors carry the reason
        raise FormattingFailed(f"black could not format the rewritten text: {error}") from error


def _format_with_ruff(text: str, ranges: list[tuple[int, int]], path: str, config_dir: str | None) -> str:
    ruff = _ruff_executable()
    for start, end in reversed(ranges):
        completed = subprocess.run(
            [ruff, "format", f"--range={start}-{end}", "--stdin-filename", path, "-"],
            input=text, capture_output=True, text=True, cwd=config_dir,
        )
        if completed.returncode != 0:
            reason = (completed.stderr.strip().splitlines() or ["no reason given"])[-1]
            raise FormattingFailed(f"ruff could not format the rewritten text: {reason}")
        text = completed.stdout
    return text


def _ruff_executable() -> str:
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return str(beside)
    found = shutil.which("ruff")
    if found is None:
        raise FormatterMissing("ruff is not installed: pip install 'mwbmigrate[ruff]' (or ruff)")
    return found


def _tool_tables(root: Path) -> dict[str, Any]:
    pyproject = root / "pyproject.toml"
    try:
        tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # an unreadable configuration configures no formatter; the run reports it elsewhere
    return tool if isinstance(tool, dict) else {}


def _configured_formatter(root: Path) -> str | None:
    tool = _tool_tables(root)
    if "black" in tool:
        return "black"
    if "format" in tool.get("ruff", {}):
        return "ruff"
    pre_commit = root / ".pre-commit-config.yaml"
    if pre_commit.is_file():
        hooks = pre_commit.read_text(errors="replace")
        if "id: ruff-format" in hooks:
            return "ruff"
        if "id: black" in hooks:
            return "black"
    return None


def resolve_formatter(choice: str, root: Path) -> Formatter | None:
    """The formatter for a run over `root`, or None. Raises FormatterMissing when it is not installed."""
    name = _configured_formatter(root) if choice == "auto" else (None if choice == "none" else choice)
    if name is None:
        return None
    if name == "black":
        try:
            import black  # noqa: F401
        except ImportError:
            raise FormatterMissing("black is not installed: pip install 'mwbmigrate[black]' (or black)") from None
        settings = _tool_tables(root).get("black", {})
        normalised = {key.replace("-", "_"): value for key, value in settings.items()}
        return Formatter("black", black_settings=tuple(sorted((k, _hashable(v)) for k, v in normalised.items())))
    _ruff_executable()
    return Formatter("ruff", ruff_config_dir=str(root))


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
