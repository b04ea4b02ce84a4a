"""`--runtime vendor`: a private copy of `mwbmigrate/runtime/` inside the migrated tree.

Under `--runtime vendor` a rewritten file imports the runtime helpers from
`<package>._mwbmigrate_runtime`, where `<package>` is the top-level package that holds it, and this
module plans and writes that copy: every `.py` file of `mwbmigrate/runtime/` and its `py.typed`,
byte for byte. The runtime imports itself only relatively, so the copy works under its new name,
and the migrated server gains no dependency.

The top-level package of a file: the nearest folder at or above it that has an `__init__.py`, then
outwards while the parent has one too. Folders without `__init__.py` below that package are its
namespace portions (SGLang's `sglang/srt/...` has none), so `sglang/srt/managers/scheduler.py`
vendors into `sglang/_mwbmigrate_runtime/`. Inside a git work tree the search stops at its root.

What it refuses:
- a file in no package, or in one whose folder name is no identifier, keeps importing
  `mwbmigrate.runtime` and the run says so (`RunSummary.runtime_notes`): a top-level
  `_mwbmigrate_runtime` beside a script is importable only when that folder happens to be on
  `sys.path`, so vendoring there would trade a declared dependency for a silent one;
- nothing is copied unless some file, rewritten now or migrated before, imports the copy;
- a file that already imports `mwbmigrate.runtime` (migrated in import mode) is not switched over,
  only reported: its import lines are the user's to change;
- a file in the copy that the runtime no longer has is never deleted;
- the copy itself is never fed to the codemods (`is_vendored`);
- when any file of the copy cannot be written, no rewritten file that imports it is written.
"""

from __future__ import annotations

import functools
import keyword
import os
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Iterable

from mwbmigrate.analysis.names import RUNTIME_MODULE
from mwbmigrate.engine.options import TransformOptions
from mwbmigrate.engine.source import UnreadableFile, read_regular_file
from mwbmigrate.engine.writer import create_atomically, write_atomically
from mwbmigrate.result import FileResult, FileStatus, RunSummary, VendoredFile

VENDORED_PACKAGE = "_mwbmigrate_runtime"
# The package this module copies; found by path so that planning a copy never imports it.
RUNTIME_SOURCE = Path(__file__).resolve().parent.parent / "runtime"
TYPED_MARKER = "py.typed"


def runtime_files() -> dict[str, bytes]:
    """File name -> bytes of everything copied: the runtime's modules and its `py.typed`."""
    return {
        path.name: path.read_bytes()
        for path in sorted(RUNTIME_SOURCE.iterdir())
        if path.is_file() and (path.suffix == ".py" or path.name == TYPED_MARKER)
    }


def is_vendored(path: Path) -> bool:
    """True for a file inside a vendored copy: it is the runtime's code, not the user's."""
    return VENDORED_PACKAGE in Path(path).parts[:-1]


# -- where the copy goes ---------------------------------------------------------------------


def display_root(path: Path, display_path: str) -> Path:
    """The folder `display_path` is relative to (the git work tree, else the PATH given)."""
    return Path(path).parents[len(PurePosixPath(display_path).parts) - 1]


def _top_level_package(directory: Path, boundary: Path | None) -> Path | None:
    """Nearest folder with an `__init__.py` at or above `directory`, then outwards while the parent
    has one too; never past `boundary`."""
    current = directory
    while not (current / "__init__.py").is_file():
        if current == boundary or current.parent == current:
            return None
        current = current.parent
    while current != boundary and (current.parent / "__init__.py").is_file():
        current = current.parent
    return current


def package_of(path: Path, display_path: str) -> Path | None:
    """The top-level package folder holding `path`, None when it is in no importable package."""
    root = display_root(path, display_path)
    # Only a git work tree bounds the search: outside one, the PATH given may be a subfolder.
    boundary = root if (root / ".git").exists() else None
    package = _top_level_package(Path(path).parent, boundary)
    if package is None or not package.name.isidentifier() or keyword.iskeyword(package.name):
        return None
    return package


def vendored_module(package: Path) -> str:
    return f"{package.name}.{VENDORED_PACKAGE}"


def options_for_file(options: TransformOptions, path: Path, display_path: str) -> TransformOptions:
    """`options` with the runtime module this file imports under `--runtime vendor`."""
    package = package_of(path, display_path)
    module = vendored_module(package) if package is not None else RUNTIME_MODULE
    return replace(options, runtime_module=module) if module != options.runtime_module else options


# -- what the run needs ----------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _import_of(module: str) -> re.Pattern[bytes]:
    name = re.escape(module.encode("utf-8"))
    return re.compile(rb"(?m)^[ \t]*(?:from[ \t]+" + name + rb"[ \t]+import\b|import[ \t]+" + name + rb"\b)")


def imports_module(text: bytes, module: str) -> bool:
    return module.encode("utf-8") in text and _import_of(module).search(text) is not None


def _final_bytes(result: FileResult) -> bytes | None:
    """The file as the run leaves it; None for a file that was not processed."""
    if result.status is FileStatus.FAILED:
        return None
    if result.rewritten is not None:
        return result.rewritten.encode("utf-8", "surrogateescape")
    try:
        return read_regular_file(result.path)
    except UnreadableFile:
        return None


def _fallback_note(result: FileResult, package: Path | None) -> str:
    if package is None:
        return (
            f"{result.display_path}: in no importable package (no __init__.py in its folder or above), "
            f"so it imports {RUNTIME_MODULE}: install mwbmigrate-runtime where it runs, or move it into a package"
        )
    return (
        f"{result.display_path}: imports {RUNTIME_MODULE} (migrated in import mode); change that import to "
        f"{vendored_module(package)} to drop the dependency, and run again to vendor it"
    )


def _display_path(path: Path, root: Path, package: Path) -> str:
    base = root if path.is_relative_to(root) else package.parent
    return path.relative_to(base).as_posix()


def _on_disk(path: Path) -> tuple[bytes | None, str | None]:
    """(current bytes or None when absent, why it cannot be replaced)."""
    if not os.path.lexists(path):
        return None, None
    if path.is_symlink() or not path.is_file():
        return None, "exists and is not a regular file; not replaced"
    try:
        return read_regular_file(path), None
    except UnreadableFile as error:
        return None, f"cannot read ({error})"


def _copy_into(package: Path, root: Path, sources: dict[str, bytes]) -> list[VendoredFile]:
    copy = package / VENDORED_PACKAGE
    files = []
    for name, content in sources.items():
        path = copy / name
        previous, error = _on_disk(path)
        files.append(VendoredFile(str(path), _display_path(path, root, package), content, previous, error))
    return files


def plan_vendoring(results: Iterable[FileResult]) -> tuple[list[VendoredFile], list[str]]:
    """The copy every package needs (including files already up to date), and notes on files that
    keep importing `mwbmigrate.runtime`."""
    packages: dict[Path, Path] = {}  # package folder -> the root its display paths are relative to
    notes: list[str] = []
    for result in results:
        text = _final_bytes(result)
        if text is None or (VENDORED_PACKAGE.encode() not in text and RUNTIME_MODULE.encode() not in text):
            continue
        path = Path(result.path)
        package = package_of(path, result.display_path)
        if package is not None and imports_module(text, vendored_module(package)):
            packages.setdefault(package, display_root(path, result.display_path))
        elif imports_module(text, RUNTIME_MODULE):
            notes.append(_fallback_note(result, package))
    sources = runtime_files() if packages else {}
    vendored = [file for package, root in sorted(packages.items()) for file in _copy_into(package, root, sources)]
    return vendored, notes


# -- writing ---------------------------------------------------------------------------------


def write_vendored(file: VendoredFile) -> str | None:
    """Create or refresh one file of the copy atomically; a reason when it could not be written."""
    path = Path(file.path)
    try:
        current, problem = _on_disk(path)
        if problem is not None:
            return problem
        if current != file.previous:
            return "changed on disk during the run; not written"
        path.parent.mkdir(exist_ok=True)
        if current is None:
            create_atomically(path, file.content)
        else:
            write_atomically(path, file.content)
    except PermissionError:
        return "permission denied while writing; file left untouched"
    except OSError as error:
        return f"could not be written ({error.strerror or error}); file left untouched"
    return None


def _package_of_copy(file: VendoredFile) -> Path:
    return Path(file.path).parent.parent


def apply_vendoring(summary: RunSummary) -> None:
    """Write the copy first; a rewritten file that would import an incomplete copy is kept back.

    A copy with a file that cannot be replaced (found while planning) is not started at all.
    """
    broken = {_package_of_copy(file) for file in summary.vendored if file.error is not None}
    for index, file in enumerate(summary.vendored):
        if file.error is not None or not file.changed:
            continue
        package = _package_of_copy(file)
        reason = (
            "not written: another file of this copy cannot be written" if package in broken else write_vendored(file)
        )
        if reason is not None:
            summary.vendored[index] = replace(file, error=reason)
            broken.add(package)
    if not broken:
        return
    for index, result in enumerate(summary.results):
        if not result.changed or result.rewritten is None:
            continue
        owner = package_of(Path(result.path), result.display_path)
        if owner is None or owner not in broken:
            continue
        if imports_module(result.rewritten.encode("utf-8", "surrogateescape"), vendored_module(owner)):
            reason = f"not written: its vendored runtime {vendored_module(owner)} could not be written completely"
            summary.results[index] = replace(result, status=FileStatus.FAILED, error=reason)
