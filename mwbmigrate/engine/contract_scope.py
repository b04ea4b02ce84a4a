"""What `rewrite --target-version`'s contract step owes: the breaks it marks in code, and the rest.

The contract check (`verify --against`'s, on the rewritten texts) finds every statement of the tree
that the target release would break, most of them API drift that has nothing to do with this
migration: a fork's tests calling a helper the release renamed, a benchmark importing a module it
moved. A maintainer reads a marker in code as work this migration left, so only these are marked:

* a break in a file this rewrite changes, on a statement it changed (a keyword it added, a call it
  reworded, an import it placed), or on the API it moves wherever the statement stands in that file:
  the batch, the forward batch, a worker, and their signatures (`Mismatch.migrated_api`).

Never a break, and not counted:

* an attribute of a batch that no release ever had (a fork's own field, a plugin's bookkeeping):
  neither 0.5.12.post1's `ModelWorkerBatch` nor any `ScheduleBatch` / `ForwardBatch` the release
  table knows. Batch classes take new attributes, so the release takes it as the old one did;
* a name the tree's own copy of an SGLang module binds (a fork's helper): `verify` leaves those out
  (`verify/against.py: _fork_addition`).

Everything else is counted by cause, for one line in the report that points at `verify --against`.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Protocol, Sequence

from mwbmigrate.analysis.release_table import FIRST_RELEASE_ATTRIBUTES, REMOVED_ATTRIBUTES
from mwbmigrate.runtime.snapshot import CONSUMER_READS, OLD_FIELDS

__all__ = ["ContractBreak", "ContractScope", "counted", "describe_causes", "in_sglang_package", "owed_breaks"]

# Every batch attribute some release had: 0.5.12.post1's `ModelWorkerBatch` (whose fields moved),
# what its consumers read, and every `ScheduleBatch` / `ForwardBatch` attribute from 0.5.13 on.
_RELEASED_ATTRIBUTES = frozenset(
    {
        *(name for name, _ in OLD_FIELDS),
        *CONSUMER_READS,
        *REMOVED_ATTRIBUTES,
        *(name for names in FIRST_RELEASE_ATTRIBUTES.values() for name in names),
    }
)


class ContractBreak(Protocol):
    """One break the contract check found (`verify.against.Mismatch` answers it)."""

    @property
    def kind(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def migrated_api(self) -> bool: ...
    @property
    def attribute(self) -> str: ...


@dataclass
class ContractScope:
    """The breaks the run owes (marked), and the others, counted by cause."""

    owed: int = 0
    elsewhere: Counter[str] = field(default_factory=Counter)


_CAUSES = {"import": "import", "call": "call", "attribute": "attribute use", "worker-signature": "worker method"}


def counted(number: int, noun: str) -> str:
    """`1 call`, `3 calls`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def describe_causes(elsewhere: Mapping[str, int]) -> str:
    """`12 imports, 3 calls`: the breaks left to `verify --against`, by cause, the most first."""
    ordered = sorted(elsewhere.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(counted(count, _CAUSES.get(cause, cause)) for cause, count in ordered)


def never_a_break(found: ContractBreak) -> bool:
    """An attribute no release ever had: the batch takes it at the target as it did before."""
    return found.kind == "attribute" and bool(found.attribute) and found.attribute not in _RELEASED_ATTRIBUTES


def owed_breaks(
    original: str | None, final: str | None, found: Iterable[ContractBreak], scope: ContractScope
) -> list[ContractBreak]:
    """Of the breaks `found` in one file, those this run owes; the rest are counted in `scope`.
    `original` and `final`: the file's text before and after the rewrite (`final` None: unchanged)."""
    breaks = [b for b in found if not never_a_break(b)]
    if original is None or final is None or original == final:
        scope.elsewhere.update(b.kind for b in breaks)
        return []
    changed = _ChangedStatements(original, final)
    owed: list[ContractBreak] = []
    for found_break in breaks:
        if found_break.migrated_api or changed.holds(found_break.line):
            owed.append(found_break)
        else:
            scope.elsewhere[found_break.kind] += 1
    scope.owed += len(owed)
    return owed


class _ChangedStatements:
    """The statements of `final` that differ from `original`: a changed line within the statement
    (for a compound statement, its header), or lines removed between two of its lines."""

    def __init__(self, original: str, final: str) -> None:
        before, after = original.splitlines(), final.splitlines()
        self.lines: set[int] = set()
        self.removals: set[int] = set()  # a removal after this line of `final` (0: at the top)
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, _, _, first, last in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                self.lines.update(range(first + 1, last + 1))
            elif tag == "delete":
                self.removals.add(first)
        self.spans = _statement_spans(final)

    def holds(self, line: int) -> bool:
        spans = [span for span in self.spans if span[0] <= line <= span[1]]
        first, last = max(spans) if spans else (line, line)  # the innermost: the one that starts last
        return any(first <= n <= last for n in self.lines) or any(first <= n < last for n in self.removals)


def _statement_spans(text: str) -> Sequence[tuple[int, int]]:
    """Every statement's lines (a compound statement's header only); none where the text does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(node.lineno, body[0].lineno - 1)
        spans.append((first, last))
    return spans


def in_sglang_package(path: Path) -> bool:
    """Whether the file is one of SGLang's own modules, known by what its package is, not by a
    folder's name: under a folder named `sglang` that is a top-level package (no `__init__.py`
    beside it) holding SGLang's server (`srt/`). A third-party package's `collector/sglang/` is
    the third party's code, and the contract step checks it. A path not on disk (stdin) is judged
    by its folders' names alone."""
    folders = path.parent.parts
    for index in range(len(folders) - 1, -1, -1):
        if folders[index] == "sglang" and _is_sglang_package(Path(*folders[: index + 1])):
            return True
    return False


@lru_cache(maxsize=256)
def _is_sglang_package(folder: Path) -> bool:
    if not folder.is_dir():
        return True  # not on disk: the folder's name is all there is
    top_level = not (folder.parent / "__init__.py").is_file()
    return top_level and (folder / "srt").is_dir()
