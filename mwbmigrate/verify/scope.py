"""What `verify --against` counts against a tree: `--baseline` and `--changed-since`.

A fork that vendors SGLang's own modules differs from a release in hundreds of places that are
SGLang's, not the fork's. Two ways to leave those out:

* **baseline** (`--baseline RELEASE`): the release the fork is based on, checked against the same
  target. What that release's own tree already mismatches is not the fork's doing, so it is
  subtracted. Lines shift between a fork and its base, so a mismatch is matched by what it is
  about, never by line: its kind, its module (`sglang.srt.managers.tp_worker`, wherever the
  package sits), the function it is in, the release file it names, and why it fails
  (`Mismatch.reason`: the keyword not taken or the parameter not passed, and of what; the attribute
  read or written), without the tree's own wording. A statement the fork or the migration reworded
  (`model_worker_batch` renamed `batch`) that fails as the baseline's does is the baseline's break;
  one that fails in a new way (a keyword the baseline's call did not pass, an attribute of a value
  newly typed as a batch) has a reason the baseline lacks and still shows. Matching is a multiset:
  two identical mismatches in the fork against one in the baseline subtract one and keep one.
* **changed since** (`--changed-since REV`): only the files `git diff REV` (REV against the working
  tree) changes, and files git does not track yet; with `--touched-statements`, only the mismatches
  whose statement the diff touches: a changed line falls within the statement (for a `def`, `class`
  or other compound statement, its header), or within the comment lines right above it; for an
  attribute of a batch value, a changed line in the header of its function counts too (a migration
  retypes `batch: ModelWorkerBatch` there and leaves the uses as they are). A review marker is the
  migration's report, not a change: an added `# mwbmigrate: MWB...` comment line (with the indented
  comment lines that continue it), or a marker added at the end of an otherwise unchanged line,
  touches nothing.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from mwbmigrate.verify.mismatch import Mismatch

__all__ = ["ChangedScope", "ScopeUnavailable", "changed_scope", "identity", "subtract_baseline"]

_LINE_REFERENCE = re.compile(r"(\.py):\d+")
_HUNK = re.compile(r"^@@+ (?:-\d+(?:,\d+)? )+\+(\d+)(?:,(\d+))? @@")


class ScopeUnavailable(RuntimeError):
    """`--changed-since` cannot be answered (no git, not a repository, no such revision)."""


# -- the baseline ----------------------------------------------------------------------------------
def identity(mismatch: Mismatch) -> tuple[str, str, str, str, str]:
    """What a mismatch is about, the same in a fork and in the release it is based on: no line of
    the tree (lines shift), no path above the package (a fork may vendor SGLang anywhere), none of
    the tree's own wording of the statement (a reworded statement that fails the same way is the
    same break; one that fails in a new way has a new reason)."""
    return (
        mismatch.kind,
        mismatch.module or mismatch.path,
        mismatch.function,
        mismatch.release_path,
        mismatch.reason or _LINE_REFERENCE.sub(r"\1", mismatch.message),
    )


def subtract_baseline(
    mismatches: Iterable[Mismatch],
    baseline: Iterable[Mismatch],
    changed: Optional[Callable[[Mismatch], bool]] = None,
) -> tuple[list[Mismatch], list[Mismatch]]:
    """(kept, subtracted): each baseline mismatch takes away one fork mismatch of the same identity.
    Of identical ones, an unchanged statement's goes first (`changed` says which are on changed
    statements, when known), then the earlier one: a later copy is more likely the fork's addition."""
    available = Counter(identity(m) for m in baseline)
    ordered = sorted(mismatches, key=lambda m: (changed(m) if changed else False, m.path, m.line))
    subtracted: list[Mismatch] = []
    for mismatch in ordered:
        key = identity(mismatch)
        if available[key] > 0:
            available[key] -= 1
            subtracted.append(mismatch)
    taken = Counter(subtracted)
    kept: list[Mismatch] = []
    for mismatch in mismatches:
        if taken[mismatch] > 0:
            taken[mismatch] -= 1
        else:
            kept.append(mismatch)
    return kept, sorted(subtracted, key=lambda m: (m.path, m.line, m.kind, m.message))


# -- what changed since a revision -----------------------------------------------------------------
@dataclass
class _FileChanges:
    lines: set[int] = field(default_factory=set)  # lines of the working tree's file that changed
    deletions: set[int] = field(default_factory=set)  # lines removed right after this line (0: at the top)
    whole: bool = False  # a file git does not track: all of it is new


@dataclass(frozen=True)
class _Span:
    """One statement of a file: its lines (a compound statement's header only), from the comment
    lines right above it; `last_of_body` is where a compound statement ends (0: a simple one)."""

    above: int
    first: int
    last: int
    last_of_body: int = 0
    is_function: bool = False


@dataclass
class ChangedScope:
    """The files (resolved paths) that changed between `revision` and the working tree, and where."""

    revision: str
    repository: Path
    touched_statements: bool
    files: dict[Path, _FileChanges] = field(default_factory=dict)
    _spans: dict[Path, Optional[list[_Span]]] = field(default_factory=dict)

    def in_changed_file(self, mismatch: Mismatch) -> bool:
        return _resolved(mismatch.path) in self.files

    def on_touched_statement(self, mismatch: Mismatch) -> bool:
        """Whether the diff touches the mismatch's statement; for an attribute of a batch value, also
        the header of the function it is in, where the parameter's annotation that makes the value
        a batch stands (a migration retypes `batch: ModelWorkerBatch` and leaves the uses as they are)."""
        path = _resolved(mismatch.path)
        changes = self.files.get(path)
        if changes is None:
            return False
        if changes.whole:
            return True
        if path not in self._spans:
            self._spans[path] = _spans(path)
        spans = self._spans[path] or []
        statement = _innermost(spans, lambda s: s.first <= mismatch.line <= s.last)
        ranges = [(statement.above, statement.last) if statement else (mismatch.line, mismatch.line)]
        if mismatch.kind == "attribute":
            function = _innermost(spans, lambda s: s.is_function and s.first <= mismatch.line <= s.last_of_body)
            if function is not None:
                ranges.append((function.above, function.last))
        return any(_touches(changes, first, last) for first, last in ranges)

    def includes(self, mismatch: Mismatch) -> bool:
        """Whether the mismatch is in the part of the tree this scope keeps."""
        return self.on_touched_statement(mismatch) if self.touched_statements else self.in_changed_file(mismatch)

    def describe(self) -> str:
        what = "statements" if self.touched_statements else "files"
        count = len(self.files)
        return f"the {what} changed since {self.revision} ({count} changed file{'s' if count != 1 else ''})"


def _touches(changes: _FileChanges, first: int, last: int) -> bool:
    """A changed line within first..last, or lines removed between two of them."""
    return any(first <= line <= last for line in changes.lines) or any(
        first <= line < last for line in changes.deletions
    )


def _innermost(spans: list[_Span], holds: Callable[[_Span], bool]) -> Optional[_Span]:
    """Of the statements that `holds`, the innermost: the one that starts last."""
    best: Optional[_Span] = None
    for span in spans:
        if holds(span) and (best is None or span.first >= best.first):
            best = span
    return best


def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _spans(path: Path) -> Optional[list[_Span]]:
    """Every statement of the file; None when it does not parse (a mismatch then stands for its
    line alone)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    lines = text.splitlines()

    def code_line(number: int) -> bool:
        stripped = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return bool(stripped) and not stripped.startswith("#")

    spans: list[_Span] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        decorators = getattr(node, "decorator_list", [])
        first = min([node.lineno, *(d.lineno for d in decorators)])
        last = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        last_of_body = 0
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last_of_body = last
            # The header ends at the last code line before the body (not at comments above it).
            last = max(node.lineno, body[0].lineno - 1)
            while last > node.lineno and not code_line(last):
                last -= 1
        above = first
        while above > 1 and lines[above - 2].strip().startswith("#"):
            above -= 1
        is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        spans.append(_Span(above, first, last, last_of_body, is_function))
    return spans


def changed_scope(tree: Path, revision: str, touched_statements: bool) -> ChangedScope:
    """What changed in `tree` (a folder or file in a git work tree) since `revision`."""
    folder = tree if tree.is_dir() else tree.parent
    if revision.startswith("-"):
        raise ScopeUnavailable("not a revision (it starts with `-`)")
    top = _git(folder, "rev-parse", "--show-toplevel", failure=f"{tree} is not in a git repository")
    repository = Path(top.strip()).resolve()
    _git(
        repository,
        "rev-parse",
        "--verify",
        "--quiet",
        f"{revision}^{{commit}}",
        failure=f"no such revision in the git repository {repository}",
    )
    relative = tree.resolve().relative_to(repository).as_posix() if tree.resolve() != repository else "."
    pathspec = ["--", f":(top,literal){relative}" if relative != "." else ":(top)"]
    scope = ChangedScope(revision, repository, touched_statements)
    diff = _git(
        repository,
        "-c",
        "core.quotePath=false",
        "diff",
        "-U0",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        revision,
        *pathspec,
        failure="`git diff` failed",
    )
    current: Optional[_FileChanges] = None
    hunk_start = 0
    removed: list[str] = []
    added: list[str] = []

    def close_hunk() -> None:
        if current is None:
            return
        markers, restored = _marker_lines(added, removed)
        for offset, _ in enumerate(added):
            if offset not in markers:
                current.lines.add(hunk_start + offset)
        if len(removed) > restored and len(markers) == len(added):
            current.deletions.add(hunk_start - 1)  # only lines removed, after the line above the hunk
        removed.clear()
        added.clear()

    for line in diff.splitlines():
        if line.startswith("+++ "):
            close_hunk()
            name = _unquote(line[4:])
            current = None
            if name.startswith("b/"):
                current = scope.files.setdefault((repository / name[2:]).resolve(), _FileChanges())
        elif line.startswith("@@"):
            close_hunk()
            hunk = _HUNK.match(line)
            if hunk is None or current is None:
                continue
            start, count = int(hunk.group(1)), int(hunk.group(2) if hunk.group(2) is not None else 1)
            hunk_start = start if count else start + 1  # git numbers a removal by the line above it
        elif line.startswith("-") and not line.startswith("--- "):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
    close_hunk()
    untracked = _git(
        repository,
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        *pathspec,
        failure="`git ls-files` failed",
    )
    for name in filter(None, untracked.split("\0")):
        scope.files[(repository / name).resolve()] = _FileChanges(whole=True)
    return scope


_MARKER = "# mwbmigrate: MWB"


def _marker_lines(added: list[str], removed: list[str]) -> tuple[set[int], int]:
    """The added lines (by offset) that only carry review markers: a marker comment line and the
    indented comment lines that continue it, or a line whose only change is a marker at its end; and
    how many removed lines those last ones restore. A marker is the migration's report, not a change
    of the statement it stands on."""
    found: set[int] = set()
    before = Counter(text.rstrip() for text in removed)
    restored = 0
    in_marker = False
    for offset, text in enumerate(added):
        stripped = text.strip()
        if stripped.startswith(_MARKER) or (in_marker and stripped.startswith("#   ")):
            found.add(offset)
            in_marker = True
            continue
        in_marker = False
        at = text.find(_MARKER)
        if at > 0 and before[text[:at].rstrip()] > 0:
            before[text[:at].rstrip()] -= 1
            restored += 1
            found.add(offset)
    return found, restored


def _git(folder: Path, *arguments: str, failure: str) -> str:
    try:
        completed = subprocess.run(["git", *arguments], cwd=folder, capture_output=True)
    except OSError as error:
        raise ScopeUnavailable(f"git could not run: {error}") from error
    if completed.returncode != 0:
        raise ScopeUnavailable(failure)
    return completed.stdout.decode("utf-8", "surrogateescape")


def _unquote(name: str) -> str:
    """A path as git writes it in a diff header: C-quoted when it holds odd characters."""
    if not (len(name) >= 2 and name.startswith('"') and name.endswith('"')):
        return name
    raw = name[1:-1].encode("utf-8", "surrogateescape")
    return raw.decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")
