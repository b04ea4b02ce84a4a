"""Format only what a rewrite changed, with the formatter the target repository already uses.

`--format-changed black|ruff|auto|none`. The lines a rewrite added or replaced are handed to black's
line ranges (`black.format_file_contents(..., lines=...)`) or to `ruff format --range`, one range at
a time from the bottom up so the line numbers of the ranges above stay valid. Untouched code is never
reformatted, so a migration diff stays a migration diff.

`auto` reads the repository's configuration: `[tool.black]` or a black hook in
`.pre-commit-config.yaml` means black; `[tool.ruff.format]` or a `ruff-format` hook means ruff; none of
them means no formatting. Both formatters are optional extras: a missing one is a `FormatterMissing`
with a one-line message, raised once when the run starts.

`format_result` applies a formatter to one changed `FileResult` (the runner calls it once per file,
after both passes, so the diff, `--check`, in-place writes and stdin all see the same text): the
formatted text is validated again, and review items are moved to the lines their markers moved to.
A formatter never costs a migration: where it fails, or would change a line the rewrite did not
change (a file that was not formatted before), the rewrite stands as written, and the report says
why the file is not formatted (`FileResult.unformatted`).
"""

from __future__ import annotations

import ast
import difflib
import shutil
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from mwbmigrate.analysis.names import MARKER_PREFIX
from mwbmigrate.engine.source import UnreadableFile, read_regular_file, source_line_texts, source_lines
from mwbmigrate.result import FileResult, FileStatus, ReviewItem

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

    name: str | None  # "black" or "ruff"; None: imports sorted only
    black_settings: tuple[tuple[str, Any], ...] = field(default=())
    ruff_config_dir: str | None = None  # where ruff looks for its configuration
    # The tree's folder when it sorts its imports with isort (its settings are read from there).
    isort_root: str | None = None

    def sort_imports(self, original: str, text: str) -> str:
        """`text` with its imports sorted as the tree sorts them, where `original` was sorted so:
        isort then changes only what the rewrite left unsorted (an import it added or renamed)."""
        if self.isort_root is None:
            return text
        import isort

        config = isort.Config(settings_path=self.isort_root)
        try:
            if not isort.check_code(original, show_diff=False, config=config, disregard_skip=True):
                return text
            return isort.code(text, config=config, disregard_skip=True)
        except Exception as error:  # isort's own errors carry the reason
            raise FormattingFailed(f"isort could not sort the rewritten imports: {error}") from error

    def format(self, original: str, rewritten: str, path: str) -> str:
        ranges = changed_line_ranges(original, rewritten)
        if not ranges or rewritten == original or self.name is None:
            return rewritten
        # The formatters see "\n" only (ruff would turn every CRLF of the file into LF, untouched lines
        # included); the file's own newline goes back afterwards. A mix of both cannot be given back.
        crlf = "\r\n" in rewritten
        if crlf and rewritten.count("\n") != rewritten.count("\r\n"):
            raise FormattingFailed("mixed line endings (CRLF and LF)")
        text = rewritten.replace("\r\n", "\n") if crlf else rewritten
        if self.name == "black":
            formatted = _format_with_black(text, ranges, dict(self.black_settings))
        else:
            formatted = _format_with_ruff(text, ranges, path, self.ruff_config_dir)
        if not text.endswith("\n") and formatted.endswith("\n") and ranges[-1][1] < len(source_lines(text)):
            formatted = formatted[:-1]  # black ends the file with a newline even when its last line is untouched
        return formatted.replace("\n", "\r\n") if crlf else formatted


def changed_line_ranges(original: str, rewritten: str) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of `rewritten` that the rewrite added or replaced, each widened
    to the simple statements and compound-statement headers it touches (ruff formats only whole nodes
    inside a range; black formats the whole logical line of a header one of whose lines is in one)."""
    matcher = difflib.SequenceMatcher(a=source_line_texts(original), b=source_line_texts(rewritten), autojunk=False)
    spans = _statement_spans(rewritten)
    ranges = []
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert") and end > start:
            first, last = start + 1, end
            for span_start, span_end in spans:
                if span_start <= last and first <= span_end:
                    first, last = min(first, span_start), max(last, span_end)
            ranges.append((first, last))
    return _merged(ranges)


def _statement_spans(text: str) -> list[tuple[int, int]]:
    """The lines of each simple statement, and of each compound statement's (first) header."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = source_line_texts(text)
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.excepthandler)):
            continue
        inner = getattr(node, "body", None) or getattr(node, "cases", None)  # `match` has cases, no body
        if not isinstance(inner, list):
            spans.append((node.lineno, node.end_lineno or node.lineno))
            continue
        # The header ends on the last code line before its body (or first case).
        first = inner[0].pattern if isinstance(inner[0], ast.match_case) else inner[0]
        last = max(first.lineno, node.lineno + 1) - 1
        while last > node.lineno and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
            last -= 1
        spans.append((node.lineno, last))
    return spans


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
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=config_dir,
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
        tool = tomllib.loads(read_regular_file(pyproject, follow_symlinks=True).decode("utf-8")).get("tool", {})
    except (UnreadableFile, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # an unreadable configuration configures no formatter; the run reports it elsewhere
    return tool if isinstance(tool, dict) else {}


def configured_formatter(root: Path) -> str | None:
    """The formatter `root`'s configuration names (`[tool.black]`, `[tool.ruff.format]`, or a black
    or ruff-format hook in `.pre-commit-config.yaml`), or None."""
    tool = _tool_tables(root)
    if "black" in tool:
        return "black"
    if "format" in tool.get("ruff", {}):
        return "ruff"
    pre_commit = root / ".pre-commit-config.yaml"
    try:
        hooks = read_regular_file(pre_commit, follow_symlinks=True).decode("utf-8", "replace")
    except UnreadableFile:
        hooks = ""
    if hooks:
        if "id: ruff-format" in hooks:
            return "ruff"
        if "id: black" in hooks:
            return "black"
    return None


def sorts_imports(root: Path) -> bool:
    """Whether `root`'s configuration sorts imports with isort: `[tool.isort]`, an `.isort.cfg`, or
    an isort hook in `.pre-commit-config.yaml`."""
    if "isort" in _tool_tables(root) or (root / ".isort.cfg").is_file():
        return True
    try:
        hooks = read_regular_file(root / ".pre-commit-config.yaml", follow_symlinks=True).decode("utf-8", "replace")
    except UnreadableFile:
        return False
    return "id: isort" in hooks


def resolve_formatter(choice: str, root: Path) -> Formatter | None:
    """The formatter for a run over `root`, or None. Raises FormatterMissing when it is not installed.
    `auto` also sorts imports with isort where the tree does (and isort is installed)."""
    name = configured_formatter(root) if choice == "auto" else (None if choice == "none" else choice)
    isort_root = str(root) if choice == "auto" and sorts_imports(root) else None
    if isort_root is not None:
        try:
            import isort  # noqa: F401
        except ImportError:
            raise FormatterMissing("isort is not installed: pip install 'mwbmigrate[isort]' (or isort)") from None
    if name is None:
        return Formatter(None, isort_root=isort_root) if isort_root is not None else None
    if name == "black":
        try:
            import black  # noqa: F401
        except ImportError:
            raise FormatterMissing("black is not installed: pip install 'mwbmigrate[black]' (or black)") from None
        settings = _tool_tables(root).get("black", {})
        normalised = {key.replace("-", "_"): value for key, value in settings.items()}
        settings_tuple = tuple(sorted((k, _hashable(v)) for k, v in normalised.items()))
        return Formatter("black", black_settings=settings_tuple, isort_root=isort_root)
    _ruff_executable()
    return Formatter("ruff", ruff_config_dir=str(root), isort_root=isort_root)


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


# -- applying a formatter to a run's result ---------------------------------------------------


def format_result(result: FileResult, formatter: Formatter) -> FileResult:
    """`result` with its rewritten text formatted (the changed lines) and its imports sorted, each
    validated again, its review items on their markers' new lines. Where a step cannot be taken, the
    text stands as the step before left it, and `unformatted` says why. Anything but a changed file
    is returned as it is. Never raises."""
    if result.status is not FileStatus.CHANGED or result.original is None or result.rewritten is None:
        return result
    original = result.original
    # The formatter may touch only what the rewrite changed; isort changes import statements only,
    # and only where the original was sorted (what the rewrite added or renamed).
    formatted = _step(
        result, formatter.name or "the formatter", lambda text: formatter.format(original, text, result.path), True
    )
    if formatted.unformatted is None and formatter.isort_root is not None:
        formatted = _step(formatted, "isort", lambda text: formatter.sort_imports(original, text), False)
    if formatted.rewritten == original:  # the formatter took the rewrite back: nothing left to write
        return replace(formatted, status=FileStatus.UNCHANGED, original=None, rewritten=None)
    return formatted


def _step(result: FileResult, name: str, produce: Callable[[str], str], only_changed_lines: bool) -> FileResult:
    """`result` with the text `produce` makes of its rewritten text, validated again and its review
    items relocated; as it was, with why, where that cannot be done."""
    assert result.original is not None and result.rewritten is not None
    try:
        text = produce(result.rewritten)
    except Exception as error:  # FormattingFailed, or a surprise: never lose a file to the formatter
        return _left_unformatted(
            result, str(error) if isinstance(error, FormattingFailed) else f"{name} failed ({error})"
        )
    if text == result.rewritten:
        return result
    outside = _outside_changes(name, result.original, result.rewritten, text) if only_changed_lines else None
    reason = outside or _invalid(text, result)
    items = _relocated(name, result.review_items, result.rewritten, text) if reason is None else reason
    if isinstance(items, str):
        return _left_unformatted(result, items)
    return replace(result, rewritten=text, review_items=items)


def _left_unformatted(result: FileResult, reason: str) -> FileResult:
    """The rewrite as written, with why the formatter's text was not taken."""
    return replace(result, unformatted=" ".join(reason.split()))


def _outside_changes(name: str, original: str, rewritten: str, formatted: str) -> str | None:
    """A reason when the formatter changed a line the rewrite did not change (blank lines excepted:
    black adjusts the empty lines around a statement it formats)."""
    ranges = changed_line_ranges(original, rewritten)
    before, after = source_line_texts(rewritten), source_line_texts(formatted)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, start, end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        for number in range(start + 1, end + 1):  # rewritten lines replaced or deleted
            if before[number - 1].strip() and not any(first <= number <= last for first, last in ranges):
                return f"{name} changed line {number}, which the rewrite did not change"
        if tag == "insert" and any(line.strip() for line in after[new_start:new_end]):
            # Added text lands between two rewritten lines: one of them must have been rewritten.
            if not any(first <= number <= last for first, last in ranges for number in (start, start + 1)):
                return f"{name} added code after line {start}, which the rewrite did not change"
    return None


def _invalid(formatted: str, result: FileResult) -> str | None:
    """A reason when the formatted text may not be written: as the transform checks rewritten text."""
    try:
        compile(formatted, result.path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        try:
            compile(result.rewritten or "", result.path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            # This Python does not compile the rewrite either (another Python's syntax): LibCST's
            # parse is the check left, as for the rewrite itself (engine/transform.py).
            import libcst as cst  # only for a rewrite this Python cannot compile

            try:
                cst.parse_module(formatted)
            except cst.ParserSyntaxError as parse_error:
                return f"formatted text does not parse ({parse_error.message.splitlines()[0]})"
        else:
            return f"formatted text did not compile ({error})"
    try:
        formatted.encode(result.encoding)
    except UnicodeEncodeError:
        return f"formatted text cannot be encoded as {result.encoding}"
    return None


def _relocated(
    name: str, items: tuple[ReviewItem, ...], rewritten: str, formatted: str
) -> tuple[ReviewItem, ...] | str:
    """The review items on their lines of the formatted text, or the reason why one cannot be placed.

    An item's line is the line of its statement's marker slot (codemods/findings.py `marker_slot`:
    the end of a simple statement's line, or of a compound statement's header), where the marker
    `# mwbmigrate: CODE reason` is, or would be with --no-markers. In that order:
    - a formatter keeps comments, their text and their order, so the k-th line carrying an item's
      marker in the rewritten text is the k-th line carrying it in the formatted text;
    - without a marker, a line the formatter left as it was is followed through the diff of the two;
    - else, a formatter keeps statements and their order too: the k-th marker slot of the rewritten
      module is the k-th of the formatted one (both parsed, the engine's positions); a formatter that
      changed the statements (split `a; b`) leaves no reliable position, and the file is refused
      rather than reported at a wrong line.
    """
    if not items:
        return items
    before, after = source_line_texts(rewritten), source_line_texts(formatted)
    moved: dict[int, int] = {}  # rewritten line -> formatted line, for the lines the formatter kept
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for start, new_start, size in matcher.get_matching_blocks():
        moved.update((start + offset + 1, new_start + offset + 1) for offset in range(size))
    slots: tuple[list[int], list[int]] | None = None  # marker slot lines of both texts, parsed once when needed
    relocated = []
    for item in items:
        marker = f"{MARKER_PREFIX}{item.code} {item.message}"
        old_lines = [number for number, line in enumerate(before, 1) if marker in line]
        if item.line in old_lines:
            new_lines = [number for number, line in enumerate(after, 1) if marker in line]
            if len(new_lines) != len(old_lines):
                return f"{name} moved or changed the {item.code} marker of line {item.line}"
            line = new_lines[old_lines.index(item.line)]
        elif item.line in moved:
            line = moved[item.line]
        else:
            if slots is None:
                from mwbmigrate.engine.marker_layout import slot_lines

                slots = slot_lines(rewritten), slot_lines(formatted)
            old_slots, new_slots = slots
            candidates = (
                {new for old, new in zip(old_slots, new_slots, strict=True) if old == item.line}
                if len(old_slots) == len(new_slots)
                else set()
            )
            if len(candidates) != 1:
                return f"{name} changed the statement of line {item.line}, where {item.code} is reported, beyond recognition"
            (line,) = candidates
        text = after[line - 1]
        relocated.append(replace(item, line=line, column=len(text) - len(text.lstrip()) + 1))
    return tuple(relocated)
