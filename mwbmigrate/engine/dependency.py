"""The migrated tree's declaration of `mwbmigrate-runtime`, once rewritten files import `mwbmigrate.runtime`.

A rewrite in import mode (the default; under `--runtime vendor` only the files in no package) makes
the tree import `mwbmigrate.runtime`, which the distribution `mwbmigrate-runtime` provides. This
module finds where the tree declares its dependencies and computes the edit that adds it, as a
reported change of one file: in the `--dry-run` patch, counted by `--check`, written in place.

Where: the package that imports it. For each importing file that is not a test or a script, the
nearest folder above it, up to the tree's root (its git work tree, else the PATH given), that has a
`pyproject.toml`, a `setup.py`, a `setup.cfg` or a `requirements*.txt` (SGLang keeps its
`pyproject.toml` in `python/`, below the repository's root). Tests and scripts (a `tests`, `scripts`,
`benchmarks` or `examples` folder, a `test_*.py` or `conftest.py`) never decide it: a test that
imports the runtime runs where the package is installed. Only where nothing else imports it do they.
Importers in two packages: the run names each file to edit, and edits none.

What it edits, as text and minimally: a literal `[project].dependencies` array of `pyproject.toml`
gets one element, in the layout of the ones before it (its line, indent, quotes and trailing comma),
and the result must parse to the same document with that one element added; a `[project]` table
without `dependencies` gets the key on the line after its header; `requirements.txt` gets one
line. Everything else (dynamic dependencies, Poetry's tables, `setup.py`, a file that does not
parse, several requirements files none of which is `requirements.txt`) is left alone and the run
says which file to edit. Nothing is edited when the requirement is already declared there.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from mwbmigrate import __version__
from mwbmigrate.analysis.names import RUNTIME_MODULE
from mwbmigrate.engine.source import UnreadableFile, read_regular_file
from mwbmigrate.engine.vendoring import imports_module
from mwbmigrate.engine.writer import write_atomically
from mwbmigrate.result import FileResult, RuntimeDependency

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport, a dependency there
    import tomli as tomllib

RUNTIME_DISTRIBUTION = "mwbmigrate-runtime"
PYPROJECT = "pyproject.toml"
REQUIREMENTS = "requirements.txt"
# Files that declare what a Python project needs but that no tool can edit safely as text.
_BY_HAND = ("setup.py", "setup.cfg")
# declare_in_pyproject's answer for a file that holds no packaging metadata: another file may declare.
NO_METADATA = "no-metadata"
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def runtime_requirement() -> str:
    """The requirement the run declares: the runtime of this release or a later one."""
    return f"{RUNTIME_DISTRIBUTION}>={__version__}"


def _normalised(name: str) -> str:
    """A distribution name as PEP 503 compares it (`Mwbmigrate_Runtime` is `mwbmigrate-runtime`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _names_runtime(requirement: str) -> bool:
    match = _REQUIREMENT_NAME.match(requirement.strip())
    return match is not None and _normalised(match.group()) == RUNTIME_DISTRIBUTION


@dataclass(frozen=True)
class DeclarationEdit:
    """What to do with one declaration file: `updated` is its new text, or `advice` says why not."""

    status: str  # "added", "declared", "manual", or NO_METADATA (a pyproject.toml of tool settings only)
    updated: str | None = None
    advice: str = ""


# -- pyproject.toml ------------------------------------------------------------------------


def _parse_toml(text: str) -> dict[str, Any] | None:
    try:
        document: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    return document


def _table_span(text: str, name: str) -> tuple[int, int] | None:
    """(end of the `[name]` header line, start of the next header), None without that header."""
    header = re.search(r"(?m)^[ \t]*\[[ \t]*" + re.escape(name) + r"[ \t]*\][ \t]*(?:#[^\r\n]*)?(?=\r?$)", text)
    if header is None:
        return None
    following = re.compile(r"(?m)^[ \t]*\[").search(text, header.end())
    return header.end(), following.start() if following is not None else len(text)


def _skip_string(text: str, start: int) -> int:
    """Index just after the TOML string starting at `start` (basic, literal, or multi-line)."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        end = text.find(quote * 3, start + 3)
        while quote == '"' and end != -1 and _escaped(text, end):
            end = text.find(quote * 3, end + 1)
        if end == -1:
            raise ValueError("unterminated string")
        # A multi-line string may end with up to two more quotes of its own.
        end += 3
        while end < len(text) and text[end] == quote:
            end += 1
        return end
    index = start + 1
    while index < len(text) and text[index] != quote and text[index] != "\n":
        index += 2 if quote == '"' and text[index] == "\\" else 1
    if index >= len(text) or text[index] != quote:
        raise ValueError("unterminated string")
    return index + 1


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


@dataclass(frozen=True)
class _ArrayLayout:
    close: int  # index of the closing `]`
    last_start: int | None  # where the last element starts, None for an empty array
    last_end: int | None  # just after it
    comma: int | None  # index of the comma after the last element, when there is one


def _array_layout(text: str, opening: int) -> _ArrayLayout:
    """The layout of the array whose `[` is at `opening`: strings and comments skipped."""
    depth, index = 0, opening
    last_start: int | None = None
    last_end: int | None = None
    comma: int | None = None
    while index < len(text):
        char = text[index]
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline == -1 else newline
            continue
        if char in "\"'":
            end = _skip_string(text, index)
            if depth == 1:
                last_start, last_end, comma = index, end, None
            index = end
            continue
        if char in "[{":
            if depth == 1:
                last_start, comma = index, None
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return _ArrayLayout(index, last_start, last_end, comma)
            if depth == 1:
                last_end = index + 1
        elif char == "," and depth == 1:
            comma = index
        elif depth == 1 and not char.isspace():
            # A bare value (a number, true): never a requirement; the validation refuses the result.
            if last_end != index:
                last_start = index
            last_end = index + 1
        index += 1
    raise ValueError("unterminated array")


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    newline = text.find("\n", index)
    return len(text) if newline == -1 else newline


def _insert_element(text: str, opening: int, key_indent: str, requirement: str, newline: str) -> str:
    """`text` with `requirement` as the last element of the array at `opening`, in its layout."""
    layout = _array_layout(text, opening)
    if layout.last_start is None or layout.last_end is None:
        inner = text[opening + 1 : layout.close]
        if "\n" not in inner:
            return f'{text[: opening + 1]}"{requirement}"{text[layout.close :]}'
        element = f'{newline}{key_indent}    "{requirement}",'
        return text[: opening + 1] + element + text[opening + 1 :]
    quote = "'" if text[layout.last_start] == "'" else '"'
    value = f"{quote}{requirement}{quote}"
    anchor = layout.comma + 1 if layout.comma is not None else layout.last_end
    line_end = _line_end(text, anchor)
    rest = text[anchor:line_end].strip()
    multiline = "\n" in text[opening : layout.close]
    if multiline and layout.close > line_end and (not rest or rest.startswith("#")):
        # One element a line: the new one on its own line after the last (and after its comment).
        start_of_line = _line_start(text, layout.last_start)
        prefix = text[start_of_line : layout.last_start]
        indent = prefix if not prefix.strip() else key_indent + "    "
        trailing = "," if layout.comma is not None else ""
        insertion_point = line_end - 1 if text[line_end - 1 : line_end] == "\r" else line_end
        text = text[:insertion_point] + f"{newline}{indent}{value}{trailing}" + text[insertion_point:]
        if layout.comma is None:
            text = text[: layout.last_end] + "," + text[layout.last_end :]
        return text
    if layout.comma is not None:
        return text[:anchor] + f" {value}," + text[anchor:]
    return text[:anchor] + f", {value}" + text[anchor:]


def _without_dependencies(document: dict[str, Any]) -> dict[str, Any]:
    project = {key: value for key, value in document.get("project", {}).items() if key != "dependencies"}
    return {**document, "project": project}


def _newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def declare_in_pyproject(text: str, requirement: str) -> DeclarationEdit:
    """The edit of a `pyproject.toml` that declares `requirement` in `[project].dependencies`."""
    document = _parse_toml(text)
    if document is None:
        return DeclarationEdit("manual", advice=f"{PYPROJECT} does not parse as TOML; add {requirement} by hand")
    project = document.get("project")
    if not isinstance(project, dict):
        if isinstance(document.get("tool"), dict) and "poetry" in document["tool"]:
            return DeclarationEdit(
                "manual", advice=f'add {RUNTIME_DISTRIBUTION} = ">={__version__}" to [tool.poetry.dependencies]'
            )
        return DeclarationEdit(NO_METADATA, advice=f"{PYPROJECT} has no [project] table; declare {requirement} by hand")
    dependencies = project.get("dependencies", [])
    if isinstance(dependencies, list) and any(isinstance(d, str) and _names_runtime(d) for d in dependencies):
        return DeclarationEdit("declared")
    if "dependencies" in project.get("dynamic", []):
        return DeclarationEdit(
            "manual",
            advice=f"[project].dependencies is dynamic: add {requirement} where the build backend reads them",
        )
    try:
        updated = _edited_pyproject(text, requirement)
    except ValueError:
        updated = None
    if updated is None or not _only_added(document, _parse_toml(updated), requirement):
        return DeclarationEdit(
            "manual", advice=f"[project].dependencies could not be edited safely as text; add {requirement} by hand"
        )
    return DeclarationEdit("added", updated=updated)


def _edited_pyproject(text: str, requirement: str) -> str | None:
    span = _table_span(text, "project")
    if span is None:
        return None  # `project.dependencies = ...` as dotted keys: not a layout worth guessing
    body_start, body_end = span
    newline = _newline_of(text)
    key = re.compile(r"(?m)^([ \t]*)dependencies[ \t]*=[ \t]*\[").search(text, body_start, body_end)
    if key is None:
        # No key yet: the line right after the header belongs to the table whatever follows it.
        return text[:body_start] + f'{newline}dependencies = ["{requirement}"]' + text[body_start:]
    return _insert_element(text, key.end() - 1, key.group(1), requirement, newline)


def _only_added(before: dict[str, Any], after: dict[str, Any] | None, requirement: str) -> bool:
    """The edit's proof: the same document, with `requirement` appended to the dependencies."""
    if after is None:
        return False
    old = before.get("project", {}).get("dependencies", [])
    new = after.get("project", {}).get("dependencies")
    return new == [*old, requirement] and _without_dependencies(before) == _without_dependencies(after)


# -- requirements.txt ----------------------------------------------------------------------


def _requirement_lines(text: str) -> Iterable[str]:
    for line in text.splitlines():
        content = line.split(" #", 1)[0].strip()
        if content and not content.startswith(("#", "-")):
            yield content


def declares_runtime(text: str) -> bool:
    """True when a requirements file names the runtime distribution (any version)."""
    return any(_names_runtime(line) for line in _requirement_lines(text))


def declare_in_requirements(text: str, requirement: str) -> DeclarationEdit:
    """The edit of a `requirements.txt` that declares `requirement`: one line at its end."""
    if declares_runtime(text):
        return DeclarationEdit("declared")
    lines = text.splitlines()
    if lines and lines[-1].rstrip().endswith("\\"):
        # A continued last line would swallow the new one.
        return DeclarationEdit("manual", advice=f"{REQUIREMENTS} ends in a continued line; add {requirement} by hand")
    newline = _newline_of(text)
    separator = newline if text and not text.endswith("\n") else ""
    return DeclarationEdit("added", updated=f"{text}{separator}{requirement}{newline}")


# -- the tree ------------------------------------------------------------------------------


def runtime_importers(results: Iterable[FileResult]) -> list[FileResult]:
    """The files this run rewrites to import `mwbmigrate.runtime`."""
    return [
        result
        for result in results
        if result.changed
        and result.rewritten is not None
        and imports_module(result.rewritten.encode("utf-8", "surrogateescape"), RUNTIME_MODULE)
    ]


def _requirements_files(folder: Path) -> list[Path]:
    try:
        return sorted(path for path in folder.glob("requirements*.txt") if path.is_file())
    except OSError:
        return []


def _declares_anything(folder: Path) -> bool:
    names = (PYPROJECT, *_BY_HAND)
    return any((folder / name).is_file() for name in names) or bool(_requirements_files(folder))


def project_folder(start: Path, root: Path) -> Path | None:
    """The nearest folder from `start` up to `root` (inclusive) that declares dependencies."""
    for folder in [start, *start.parents]:
        if _declares_anything(folder):
            return folder
        if folder == root or not folder.is_relative_to(root):
            break
    return None


def _read_text(path: Path) -> str | None:
    try:
        return read_regular_file(path).decode("utf-8")
    except (UnreadableFile, UnicodeDecodeError):
        return None


def _display(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


# Folders and files of tests and scripts: they run where the package is installed, and never decide
# where it declares what it needs.
_NOT_THE_PACKAGE = frozenset({"test", "tests", "testing", "scripts", "benchmark", "benchmarks", "examples", "docs"})


def _test_or_script(display_path: str) -> bool:
    parts = Path(display_path).parts
    name = parts[-1] if parts else ""
    return (
        bool(_NOT_THE_PACKAGE & set(parts[:-1]))
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def plan_runtime_dependency(results: Iterable[FileResult], root: Path) -> RuntimeDependency | None:
    """Where and how the tree under `root` declares the runtime, None when no file needs it."""
    importers = runtime_importers(results)
    if not importers:
        return None
    requirement = runtime_requirement()
    names = tuple(result.display_path for result in importers)
    deciding = [result for result in importers if not _test_or_script(result.display_path)] or importers
    folders = {project_folder(Path(result.path).parent, root) for result in deciding}
    if None in folders and len(folders) > 1:
        folders.discard(None)  # a script outside every package, beside a package that imports it
    if len(folders) > 1:
        found = sorted(_display(f, root) or "." for f in folders if f is not None)
        advice = f"files in {len(found)} packages import it ({', '.join(found)}); declare {requirement} in each"
        return RuntimeDependency(requirement, names, "manual", advice=advice)
    folder = folders.pop()
    if folder is None:
        advice = f"no {PYPROJECT}, setup.py or requirements*.txt found; declare {requirement} where the tree's dependencies are"
        return RuntimeDependency(requirement, names, "manual", advice=advice)

    def planned(path: Path, edit: DeclarationEdit, original: str | None) -> RuntimeDependency:
        return RuntimeDependency(
            requirement,
            names,
            edit.status,
            path=str(path),
            display_path=_display(path, root),
            original=original if edit.status == "added" else None,
            updated=edit.updated,
            advice=edit.advice,
        )

    pyproject = folder / PYPROJECT
    requirements = _requirements_files(folder)
    declared_in = [path for path in requirements if declares_runtime(_read_text(path) or "")]
    if declared_in:
        return planned(declared_in[0], DeclarationEdit("declared"), None)
    pyproject_edit = None
    if pyproject.is_file():
        text = _read_text(pyproject)
        if text is None:
            advice = f"{PYPROJECT} is not readable UTF-8; add {requirement} by hand"
            return planned(pyproject, DeclarationEdit("manual", advice=advice), None)
        pyproject_edit = declare_in_pyproject(text, requirement)
        if pyproject_edit.status != NO_METADATA:
            return planned(pyproject, pyproject_edit, text)
    # A pyproject.toml without packaging metadata (only tool settings) declares nothing.
    if (folder / REQUIREMENTS).is_file():
        text = _read_text(folder / REQUIREMENTS)
        if text is None:
            advice = f"{REQUIREMENTS} is not readable UTF-8; add {requirement} by hand"
            return planned(folder / REQUIREMENTS, DeclarationEdit("manual", advice=advice), None)
        return planned(folder / REQUIREMENTS, declare_in_requirements(text, requirement), text)
    if requirements:
        listed = ", ".join(_display(path, root) for path in requirements)
        advice = f"add {requirement} to the requirements file the server installs from ({listed})"
        return planned(requirements[0], DeclarationEdit("manual", advice=advice), None)
    by_hand = [folder / name for name in _BY_HAND if (folder / name).is_file()]
    if by_hand:
        advice = f"add {requirement} to the dependencies {by_hand[0].name} declares (install_requires)"
        return planned(by_hand[0], DeclarationEdit("manual", advice=advice), None)
    assert pyproject_edit is not None  # project_folder found one of these files
    return planned(pyproject, replace(pyproject_edit, status="manual"), None)


# -- writing -------------------------------------------------------------------------------


def edited_file(dependency: RuntimeDependency | None) -> Path | None:
    """The declaration file the run edits (or would), None when it edits none."""
    if dependency is None or not dependency.changed or dependency.path is None:
        return None
    return Path(dependency.path)


def write_runtime_dependency(dependency: RuntimeDependency | None) -> RuntimeDependency | None:
    """Write a planned edit atomically; the dependency with `error` set when it could not be."""
    if dependency is None or not dependency.changed or dependency.path is None or dependency.updated is None:
        return dependency
    path = Path(dependency.path)
    try:
        current = read_regular_file(path)
        if dependency.original is None or current != dependency.original.encode("utf-8"):
            return replace(dependency, error="changed on disk during the run; not written")
        write_atomically(path, dependency.updated.encode("utf-8"))
    except UnreadableFile as error:
        return replace(dependency, error=f"{error}; file left untouched")
    except PermissionError:
        return replace(dependency, error="permission denied while writing; file left untouched")
    except OSError as error:
        return replace(dependency, error=f"could not be written ({error.strerror or error}); file left untouched")
    return replace(dependency, written=True)
