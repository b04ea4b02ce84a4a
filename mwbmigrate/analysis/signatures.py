"""Renamed signatures, project-wide, with the identity keyword callers resolve against.

Pass 1 records, per file, `(qualified scope, old parameter, new parameter)` for every parameter it
renamed (`Worker.run`, `helper`, `outer.inner`). The engine merges them with the path of the file
that defines them:

    RenamedSignature(module=("plugin", "workers"), qualname="Worker.run", old="model_worker_batch", new="batch")

so pass 2 renames `model_worker_batch=` only where the callee *is* that definition (a name of the
same module, `self.run` in `Worker`, `from plugin.workers import Worker`), never at every call of
some `run`. A bare name still answers one question: was any function of that name renamed here?
That is what a call on a receiver nobody can resolve is reported against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Iterable, Mapping

from mwbmigrate.analysis.names import UPSTREAM_RENAMED_PARAMETERS


def module_parts(path: str) -> tuple[str, ...]:
    """The dotted-module components a file's path ends with: `a/b/c.py` -> (a, b, c); a package's
    `__init__.py` is the package itself."""
    parts = PurePath(path).with_suffix("").parts
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def absolute_parts(dotted: str, importer: str) -> tuple[tuple[str, ...], bool]:
    """(components, exact) of a dotted name imported by the file at `importer`. A relative one
    (`..pkg.mod.f`) resolves against the importer's folder (its package, `__init__.py` or not) and
    must match a file exactly; an absolute one matches any file whose path ends with its module
    part (the tree's root is not known)."""
    stripped = dotted.lstrip(".")
    dots = len(dotted) - len(stripped)
    names = tuple(stripped.split(".")) if stripped else ()
    if not dots:
        return names, False
    package = PurePath(importer).parent.parts
    if dots > 1:
        package = package[: max(0, len(package) - (dots - 1))]
    return package + names, True


@dataclass(frozen=True)
class RenamedSignature:
    module: tuple[str, ...]  # module_parts() of the defining file
    qualname: str  # dotted classes and functions around the parameter: `Worker.run`, `helper`
    old: str
    new: str

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    def is_imported_as(self, parts: tuple[str, ...], exact: bool) -> bool:
        """Whether an imported name (`pkg.mod.Worker.run` as components) is this definition."""
        own = tuple(self.qualname.split("."))
        if len(parts) <= len(own) or parts[-len(own) :] != own:
            return False
        module = parts[: -len(own)]
        return module == self.module if exact else self.module[-len(module) :] == module


@dataclass(frozen=True)
class ProjectSignatures:
    """Every signature renamed in the project, and SGLang's own renamed API (by name only: its
    definitions are not in a plugin's tree)."""

    renamed: tuple[RenamedSignature, ...] = ()
    upstream: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: UPSTREAM_RENAMED_PARAMETERS)

    def old_names(self) -> set[str]:
        return {s.old for s in self.renamed} | {old for renames in self.upstream.values() for old in renames}

    def defined_at(self, module: tuple[str, ...], qualname: str) -> list[RenamedSignature]:
        return [s for s in self.renamed if s.module == module and s.qualname == qualname]

    def imported(self, dotted: str, importer: str) -> list[RenamedSignature]:
        parts, exact = absolute_parts(dotted, importer)
        return [s for s in self.renamed if parts and s.name == parts[-1] and s.is_imported_as(parts, exact)]

    def named(self, name: str) -> list[RenamedSignature]:
        return [s for s in self.renamed if s.name == name]


def renames_of(signatures: Iterable[RenamedSignature]) -> dict[str, str | None]:
    """{old: new} over definitions that may all be the callee; None where they disagree."""
    renames: dict[str, str | None] = {}
    for signature in signatures:
        if signature.old in renames and renames[signature.old] != signature.new:
            renames[signature.old] = None
        else:
            renames.setdefault(signature.old, signature.new)
    return renames
