"""Which writes to the batch the target's scheduler undoes after the forward (`_forward_isolation`).

From 0.5.13 a worker writes to the scheduler's own batch where the old object was a throw-away
copy. Every release's `Scheduler._forward_isolation(batch, overlap=...)` wraps the forward: it
snapshots every field of the batch and sets them all back after the forward for a speculative
forward (0.5.13: when `batch.is_spec_v2`, that is EAGLE, EAGLE3 or STANDALONE, run by the V2
workers; from 0.5.14: `not batch.spec_algorithm.is_none()`, every speculative algorithm), and only
`sampling_info` for any other forward.

So `old.f = v` on the batch a forward was handed leaves the scheduler's batch as the throw-away copy
left it once the forward is over, when the write can only run inside such a forward:

- rule I1: it is in a method of a class that is, or subclasses, one of the workers whose forwards
  the target isolates whole (`isolated_workers`), on a parameter of that method;
- rule I2: it is in a function whose every call site in the tree (`ProjectCallers`) is in a method
  of such a class, on a parameter of that function (a helper such as
  `EagleDraftInput.prepare_for_v2_draft`, called only by the EAGLE draft workers).

What it does not undo, and stays a hazard (MWB106): the same write in a non-speculative worker, a
write into an object the batch holds (the snapshot is shallow), and anything that reads the batch
through another name during the forward (it sees the write where it saw the copy's absence).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from mwbmigrate.analysis.one_call_away import COPIED_FIELDS, OneCallAway, one_call_away
from mwbmigrate.analysis.target_versions import at_least

# The workers 0.5.13 isolates whole: the V2 workers of EAGLE, EAGLE3 and STANDALONE, and the draft
# workers only they drive.
_EAGLE_V2_WORKERS = frozenset(
    {
        "EAGLEWorkerV2",
        "MultiLayerEagleWorkerV2",
        "StandaloneWorkerV2",
        "BaseDraftWorker",
        "EagleDraftWorker",
        "MultiLayerEagleDraftWorker",
    }
)
# From 0.5.14 every speculative forward is isolated: any speculative worker and its draft workers.
_SPECULATIVE_WORKERS = _EAGLE_V2_WORKERS | frozenset(
    {
        "BaseSpecWorker",
        "EagleDraftWorkerBase",
        "NGRAMWorker",
        "DFlashWorker",
        "DFlashWorkerV2",
        "FrozenKVMTPWorkerV2",
        "DSparkWorkerV2",
        "UnoWorkerV2",
    }
)
EVERY_SPECULATIVE_FORWARD_SINCE = "0.5.14"


def isolated_workers(target: str) -> frozenset[str]:
    """The worker classes whose every forward `target`'s scheduler isolates whole."""
    return _SPECULATIVE_WORKERS if at_least(target, EVERY_SPECULATIVE_FORWARD_SINCE) else _EAGLE_V2_WORKERS


@dataclass(frozen=True)
class ProjectCallers:
    """Where the tree calls each function that takes the old object: its name -> the classes whose
    methods call it, each with its bases as written ("" for a call outside any class); and what the
    call sites of the tree's helpers prove one call away (analysis/one_call_away.py)."""

    sites: Mapping[str, frozenset[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)
    complete: bool = True  # False when a module naming the old API could not be read: any function may be called there
    one_call_away: OneCallAway = field(default_factory=OneCallAway)

    def callers_of(self, name: str) -> frozenset[tuple[str, tuple[str, ...]]]:
        return self.sites.get(name, frozenset())


_OLD_WORDS = (b"ModelWorkerBatch", b"model_worker_batch")


def scan_callers(sources: Iterable[bytes], own_copied_fields: Iterable[str] = ()) -> ProjectCallers:
    """The call sites of the tree's functions that take the old object (a parameter named
    `model_worker_batch` or annotated with `ModelWorkerBatch`), read with `ast`. Only modules that
    name the old API can hand the old object on, so only those are parsed. `own_copied_fields`: the
    fields a fork's own `ModelWorkerBatch` adds that its method copied from the batch."""
    trees = []
    complete = True
    named_elsewhere = NamedElsewhere()
    for data in sources:
        if not any(word in data for word in _OLD_WORDS):
            named_elsewhere.sources.append(data)
            continue
        try:
            trees.append(ast.parse(data))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            complete = False  # LibCST may still migrate it (another Python's syntax): its calls are unknown
            continue
    takes_old = {
        node.name: parameter
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (parameter := _old_object_parameter(node)) is not None
    }
    sites: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
    for tree in trees:
        _collect_calls(tree, ("", ()), set(takes_old), sites)
    found = {name: frozenset(found) for name, found in sorted(sites.items())}
    return ProjectCallers(
        found,
        complete,
        one_call_away(trees, takes_old, named_elsewhere, COPIED_FIELDS | set(own_copied_fields))
        if complete
        else OneCallAway(),
    )


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# A line that is a comment alone names nothing the code can reach (inside a triple-quoted string it
# is part of a string that also holds a `#`, which no name equals).
_FULL_LINE_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*")
_CALL_OPENS = re.compile(rb"[ \t]*\(")


@dataclass
class NamedElsewhere:
    """The identifiers of the modules the pre-pass does not parse, read at the first question (a
    tree where no helper qualifies is never asked one)."""

    sources: list[bytes] = field(default_factory=list)
    _identifiers: set[bytes] | None = None

    def __contains__(self, name: object) -> bool:
        if self._identifiers is None:
            self._identifiers = set()
            for data in self.sources:
                self._identifiers.update(_IDENTIFIER.findall(_FULL_LINE_COMMENT.sub(b"", data)))
        return name in self._identifiers

    def bound(self, name: str) -> bool:
        """`name` occurs in one of the modules other than as a method call (`.name(`): a definition,
        a binding, a read as a value or a string may put another body behind `x.name(...)`."""
        word = name.encode()
        pattern = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])")
        for data in self.sources:
            if word not in data:
                continue
            text = _FULL_LINE_COMMENT.sub(b"", data)
            for found in pattern.finditer(text):
                called = found.start() > 0 and text[found.start() - 1 : found.start()] == b"."
                if not (called and _CALL_OPENS.match(text, found.end())):
                    return True
        return False


def _old_object_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The parameter that takes the old object: named `model_worker_batch` or annotated with the class."""
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    for argument in arguments:
        if argument.arg == "model_worker_batch" or (
            argument.annotation is not None and "ModelWorkerBatch" in ast.unparse(argument.annotation)
        ):
            return argument.arg
    return None


def _collect_calls(
    tree: ast.AST,
    owner: tuple[str, tuple[str, ...]],
    takes_old: set[str],
    sites: dict[str, set[tuple[str, tuple[str, ...]]]],
) -> None:
    # A stack, not recursion: a 1,000-operand expression is valid Python.
    pending: list[tuple[ast.AST, tuple[str, tuple[str, ...]]]] = [(tree, owner)]
    while pending:
        node, around = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                pending.append((child, (child.name, tuple(_last_name(base) for base in child.bases))))
                continue
            if isinstance(child, ast.Call):
                name = _last_name(child.func)
                if name in takes_old:
                    sites.setdefault(name, set()).add(around)
            pending.append((child, around))


def _last_name(node: ast.expr) -> str:
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def runs_isolated(class_names: set[str], target: str) -> bool:
    """Whether a method of a class with these names (its own, its bases') runs only in forwards
    `target` isolates whole (rule I1)."""
    return bool(class_names & isolated_workers(target))


def called_only_isolated(function: str, callers: ProjectCallers, target: str) -> bool:
    """Rule I2: the tree calls `function`, and only from methods of classes that run isolated."""
    sites = callers.callers_of(function)
    return (
        callers.complete
        and bool(sites)
        and all(owner and runs_isolated({owner, *bases}, target) for owner, bases in sites)
    )
