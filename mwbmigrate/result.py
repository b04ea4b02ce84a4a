"""Typed, frozen, picklable results: one `FileResult` per file feeds the summary, JSON, markdown and exit code."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path


class FileStatus(str, enum.Enum):
    SKIPPED = "skipped"  # the prefilter proved the file cannot need a change; never parsed
    UNCHANGED = "unchanged"  # parsed, nothing to do
    CHANGED = "changed"
    FAILED = "failed"  # could not be processed; never modified


@dataclass(frozen=True)
class ReviewItem:
    """A site the tool could not migrate with certainty."""

    code: str
    path: str
    line: int
    column: int
    message: str
    suggestion: str = ""
    # "hazard": behaviour may differ or the code breaks on the target (a marker in the code);
    # "note": nothing on the line behaves differently (the report only, unless `--markers all`).
    kind: str = "hazard"
    # A marker an earlier run left in the code that no rule of this run reported again: work still
    # open on the tree, counted with the run's own items (engine/standing_markers.py).
    standing: bool = False

    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class FileResult:
    path: str  # absolute path on disk
    display_path: str  # path relative to the repository root, as it appears in diffs
    status: FileStatus
    original: str | None = None  # decoded text, kept only for changed files (diffs)
    rewritten: str | None = None
    encoding: str = "utf-8"
    has_bom: bool = False
    error: str | None = None
    review_items: tuple[ReviewItem, ...] = ()
    applied: tuple[str, ...] = ()  # codes of the codemods that changed something
    renamed_signatures: tuple[tuple[str, str, str], ...] = ()  # (function, old parameter, new parameter)
    parsed: bool = False  # the parser ran on it (failures after reading count, before do not)
    note: str | None = None  # why a file was skipped without being read (a symbolic link)
    # Why the formatter's text was not taken (`--format-changed`): the rewrite stands as written.
    unformatted: str | None = None

    @property
    def changed(self) -> bool:
        return self.status is FileStatus.CHANGED


@dataclass(frozen=True)
class VendoredFile:
    """One file of the runtime's private copy in the migrated tree (`--runtime vendor`)."""

    path: str  # absolute path on disk
    display_path: str  # as it appears in diffs, like FileResult.display_path
    content: bytes  # the runtime's file, byte for byte
    previous: bytes | None = None  # what is on disk now; None when the file does not exist yet
    error: str | None = None  # why it could not be written (the run then fails)

    @property
    def status(self) -> str:
        if self.error is not None:
            return "failed"
        if self.previous is None:
            return "created"
        return "unchanged" if self.previous == self.content else "refreshed"

    @property
    def changed(self) -> bool:
        return self.status in ("created", "refreshed")


@dataclass(frozen=True)
class RuntimeDependency:
    """The migrated tree's declaration of the runtime distribution, once rewritten files import
    `mwbmigrate.runtime` (engine/dependency.py)."""

    requirement: str  # what is declared, "mwbmigrate-runtime>=0.1.0"
    importers: tuple[str, ...]  # display paths of the files this run makes import `mwbmigrate.runtime`
    # "added": the run edits `path` (`original` -> `updated`); "declared": `path` already names it;
    # "manual": nothing edited, `advice` says what to do (and `path`, when known, where).
    status: str
    path: str | None = None  # absolute path of the declaration file
    display_path: str | None = None  # as it appears in diffs, like FileResult.display_path
    original: str | None = None
    updated: str | None = None
    advice: str = ""
    error: str | None = None  # why the edit could not be written (the run then fails)
    written: bool = False  # the edit is on disk (stdin's run, which writes only the module, never writes it)

    @property
    def changed(self) -> bool:
        """An edit that is (or would be) written."""
        return self.status == "added" and self.error is None


@dataclass
class RunSummary:
    results: list[FileResult] = field(default_factory=list)
    discovered: int = 0  # files found, plus paths that could not be taken as files
    stale_temporaries: list[Path] = field(default_factory=list)  # Paths of temporary files a killed run left
    runtime: str = "import"  # how rewritten files reach the runtime helpers: "import" or "vendor"
    vendored: list[VendoredFile] = field(default_factory=list)  # the private copy, when vendoring
    runtime_notes: list[str] = field(default_factory=list)  # files that could not use a vendored copy
    # --target-version's contract check: breaks the run owes (None: it did not run),
    # and one line saying against what it ran, or why it did not.
    contract_breaks: int | None = None
    contract_note: str = ""
    # The breaks the run does not owe (on statements it did not change, in code that does not use the
    # migrated API), by cause ("import", "call", ...): left to `verify --against`, never marked.
    contract_elsewhere: dict[str, int] = field(default_factory=dict)
    # Where the tree declares the runtime its rewritten files now import (None: no file imports it).
    runtime_dependency: RuntimeDependency | None = None

    @property
    def parsed(self) -> int:
        return sum(r.parsed for r in self.results)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.status is FileStatus.CHANGED]

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.status is FileStatus.FAILED]

    @property
    def review_items(self) -> list[ReviewItem]:
        return [item for r in self.results for item in r.review_items]
