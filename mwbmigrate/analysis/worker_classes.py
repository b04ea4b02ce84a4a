"""Which classes of a module stand in for one of SGLang's workers, and what SGLang's own workers accept.

A class stands in for a worker when it subclasses one of SGLang's worker classes (a base imported
from an `sglang.` module), directly or through classes of the same module, or when a factory
registered with `@SpeculativeAlgorithm.register(...)` returns it (SGLang then drives it as a
speculative worker, whatever its bases). Its `forward_batch_generation` is called as SGLang calls
that kind of worker (`target_versions.worker_call_parameters`).

Classes of a module inside SGLang's own package are SGLang's definitions: the rebase onto the target
replaces them, so none is a stand-in.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.target_versions import TARGET_VERSIONS, at_least, worker_call_parameters
from mwbmigrate.analysis.worker_kinds import (
    ACCEPTED_LATE,
    REGISTER_DECORATOR,
    SGLANG_WORKERS,
    SHAPED_WORKER_METHOD,
    SPEC_WORKER,
    TP_WORKER,
    WORKER_METHOD,
    WorkerClass,
)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def _module_statements(module: cst.Module) -> list[cst.CSTNode]:
    """Top-level statements, and those in top-level `if` / `try` blocks (guarded imports)."""
    found: list[cst.CSTNode] = []
    pending: list[cst.CSTNode] = list(module.body)
    while pending:
        statement = pending.pop(0)
        found.append(statement)
        if isinstance(statement, (cst.If, cst.Try)):
            blocks: list[cst.BaseSuite] = [statement.body]
            if isinstance(statement, cst.If) and statement.orelse is not None:
                blocks.append(statement.orelse.body)
            if isinstance(statement, cst.Try):
                blocks += [handler.body for handler in statement.handlers]
            for block in blocks:
                if isinstance(block, cst.IndentedBlock):
                    pending.extend(block.body)
    return found


def _imports(statements: list[cst.CSTNode]) -> dict[str, str]:
    """Local name -> the dotted path it was imported as (`from a.b import C as D`: D -> a.b.C)."""
    names: dict[str, str] = {}
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                if small.relative or small.module is None:
                    continue
                module = _dotted(small.module)
                for alias in small.names:
                    imported = _dotted(alias.name)
                    if module is None or imported is None:
                        continue
                    local = alias.asname.name if alias.asname else alias.name
                    if isinstance(local, cst.Name):
                        names[local.value] = f"{module}.{imported}"
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    imported = _dotted(alias.name)
                    if imported is None:
                        continue
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        names[alias.asname.name.value] = imported
                    else:
                        head = imported.split(".")[0]
                        names[head] = head
    return names


def _sglang_worker(base: cst.BaseExpression, imports: dict[str, str]) -> str | None:
    """SGLang's worker class that a base expression names, through the module's imports."""
    dotted = _dotted(base)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    if head not in imports:
        return None
    path = imports[head] + (f".{rest}" if rest else "")
    module, _, name = path.rpartition(".")
    if module.split(".")[0] == "sglang" and name in SGLANG_WORKERS:
        return name
    return None


def _shaped_like_tp_worker(node: cst.ClassDef) -> bool:
    """A class of no base that SGLang drives as its `TpModelWorker` (a hardware backend's worker):
    it defines `forward_batch_generation` and `forward_batch_embedding` (`verify --against` also
    takes a class named like a TpWorker that defines the first only). A class named exactly as one
    of SGLang's is a copy of SGLang's own code, which SGLang's callers never reach."""
    if node.name.value in SGLANG_WORKERS or any(
        not (isinstance(arg.value, cst.Name) and arg.value.value == "object") for arg in node.bases
    ):
        return False
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    methods = {s.name.value for s in body if isinstance(s, cst.FunctionDef)}
    return WORKER_METHOD in methods and SHAPED_WORKER_METHOD in methods


def _defines_worker_method(node: cst.ClassDef) -> bool:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return any(isinstance(s, cst.FunctionDef) and s.name.value == WORKER_METHOD for s in body)


def _registered(statements: list[cst.CSTNode], imports: dict[str, str]) -> set[str]:
    """Names a factory decorated with `SpeculativeAlgorithm.register(...)` returns."""
    returned: set[str] = set()
    for statement in statements:
        if not isinstance(statement, cst.FunctionDef):
            continue
        if not any(_is_register(d.decorator, imports) for d in statement.decorators):
            continue
        collector = _Returns()
        statement.body.visit(collector)
        returned |= collector.names
    return returned


def _is_register(decorator: cst.BaseExpression, imports: dict[str, str]) -> bool:
    func = decorator.func if isinstance(decorator, cst.Call) else decorator
    dotted = _dotted(func)
    if dotted is None or "." not in dotted:
        return False
    owner, _, method = dotted.rpartition(".")
    head, _, rest = owner.partition(".")
    path = imports.get(head, "") + (f".{rest}" if rest else "")
    return (
        method == REGISTER_DECORATOR[1]
        and path.split(".")[0] == "sglang"
        and path.rpartition(".")[2] == REGISTER_DECORATOR[0]
    )


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Name):
            self.names.add(node.value.value)


def worker_classes(
    module: cst.Module, inside_sglang: bool, project: Mapping[str, WorkerClass | None] | None = None
) -> dict[str, WorkerClass]:
    """The module's top-level classes that stand in for an SGLang worker, by name. `project`: what
    the project's other modules decide of this module's classes (`project_classes.ProjectWorkers`:
    a worker, or None for a class that is no single kind), which wins over the module alone."""
    if inside_sglang:
        return {}
    statements = _module_statements(module)
    imports = _imports(statements)
    classes = {s.name.value: s for s in statements if isinstance(s, cst.ClassDef)}
    registered = _registered(statements, imports) & set(classes)
    found: dict[str, WorkerClass] = {}
    # Bases come before their subclasses in a module that runs, so one pass in order resolves chains.
    for name, node in classes.items():
        entry: WorkerClass | None = None
        for arg in node.bases:
            sglang = _sglang_worker(arg.value, imports)
            local = arg.value.value if isinstance(arg.value, cst.Name) else None
            if sglang is not None:
                kind = SGLANG_WORKERS[sglang]
                entry = WorkerClass(kind, sglang, kind)
            elif local is not None and local in found:
                parent = found[local]
                if _defines_worker_method(classes[local]):
                    entry = WorkerClass(parent.kind, None, parent.kind)
                else:
                    entry = WorkerClass(parent.kind, parent.base, parent.base_kind)
            if entry is not None:
                break
        if entry is None and _shaped_like_tp_worker(node):
            entry = WorkerClass(TP_WORKER, None, "")
        if name in registered:
            entry = (
                WorkerClass(SPEC_WORKER, entry.base, entry.base_kind) if entry else WorkerClass(SPEC_WORKER, None, "")
            )
        if entry is not None:
            found[name] = entry
    found.update(_mixins(classes, found)[0])
    for name, decided in (project or {}).items():
        if name not in classes:
            continue
        if decided is None:
            found.pop(name, None)
        else:
            found[name] = decided
    return found


def undecided_mixins(
    module: cst.Module, inside_sglang: bool, project: Mapping[str, WorkerClass | None] | None = None
) -> set[str]:
    """The module's mixins that override the worker method and are mixed into workers of different
    kinds, in this module or (`project`) across the project's: no one signature takes what SGLang
    passes each of them."""
    if inside_sglang:
        return set()
    statements = _module_statements(module)
    classes = {s.name.value: s for s in statements if isinstance(s, cst.ClassDef)}
    local = _mixins(classes, worker_classes(module, inside_sglang))[1]
    decided = project or {}
    return {name for name in local if decided.get(name) is None} | {
        name for name, worker in decided.items() if worker is None and name in classes
    }


def _mixins(
    classes: dict[str, cst.ClassDef], workers: dict[str, WorkerClass]
) -> tuple[dict[str, WorkerClass], set[str]]:
    """Mixins of the module that override the worker method: `class W(Mixin, EAGLEWorkerV2)` runs
    `Mixin.forward_batch_generation` as W's, and its `super()` reaches what W's own base is (the
    mixin has no base of its own). A mixin mixed into workers of different kinds stays unknown
    (the second set)."""
    found: dict[str, WorkerClass] = {}
    conflicting: set[str] = set()
    for name, node in classes.items():
        worker = workers.get(name)
        if worker is None:
            continue
        for arg in node.bases:
            local = arg.value.value if isinstance(arg.value, cst.Name) else None
            if local is None or local in workers or local not in classes:
                break  # the mixins come first; from the worker base on, MRO leaves them
            mixin = classes[local]
            if mixin.bases or not _defines_worker_method(mixin):
                continue
            entry = WorkerClass(worker.kind, worker.base, worker.base_kind)
            if found.get(local, entry) != entry:
                conflicting.add(local)
            found[local] = entry
    return {name: entry for name, entry in found.items() if name not in conflicting}, conflicting


def worker_boundaries(since: str) -> tuple[str, ...]:
    """The releases after `since` where what a worker override is passed, or what SGLang's bases
    accept, changes: a codemod that follows them produces another output from there on."""
    releases = [v for v in TARGET_VERSIONS if at_least(v, since)]
    changed = {
        later
        for earlier, later in zip(releases, releases[1:], strict=False)
        for kind in (TP_WORKER, SPEC_WORKER)
        if worker_call_parameters(earlier, kind) != worker_call_parameters(later, kind)
    }
    changed |= {r for late in ACCEPTED_LATE.values() for r in late.values() if r is not None and r in releases}
    return tuple(v for v in releases if v in changed and v != since)
