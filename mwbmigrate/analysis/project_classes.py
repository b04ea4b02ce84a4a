"""The project's classes across its modules: which of them stand in for an SGLang worker.

`worker_classes` reads one module. A fork spreads a worker over several: a mixin in `mixins.py`
mixed into a worker in `workers.py` (`class W(Mixin, EAGLEWorkerV2)`), a subclass of the fork's
own EAGLE subclass in another module, a plugin worker with no base that a factory in `registry.py`
registers (`@SpeculativeAlgorithm.register(...)`, returning the class or a value of a module-level
dict of classes). Each of those classes is a worker of the kind its module alone does not show.

This index is read in the pre-pass that reads every file, with `ast`, once per run: the modules
outside SGLang's own package that define a class (SGLang's own workers are not stand-ins, and the
rebase onto the target replaces them). Bases and registered classes are resolved through each
module's imports, absolute and relative, to the project's modules (by their dotted names below the
run's root, or a unique suffix of one: a `src/` layout), and to SGLang's worker classes. The
answers follow `worker_classes`' rules, with the project in place of one module:

- a class whose base is one of SGLang's workers is that kind of worker; a subclass of a project
  worker is its kind (its `super()` reaches the base's own override, if the base has one);
- a class a registered factory returns is a speculative worker;
- a mixin with no base that overrides the worker method takes the kind of the workers it is mixed
  into ahead of their worker base; one mixed into workers of different kinds stays unknown.

A module that does not parse leaves its classes unknown, as one module's rules do.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from mwbmigrate.analysis.worker_kinds import SGLANG_WORKERS, SPEC_WORKER, WORKER_METHOD, WorkerClass

__all__ = ["ProjectClassScan", "ProjectWorkers"]

# What makes a module a starting point: it names the worker method, one of SGLang's workers, or the
# registry. Modules holding only a class that one of those names as a base join from there.
_SEEDS = (b"forward_batch_generation", b"SpeculativeAlgorithm", *(name.encode() for name in SGLANG_WORKERS))
_REGISTER = "register"
_REGISTRY_CLASS = "SpeculativeAlgorithm"


@dataclass(frozen=True)
class ProjectWorkers:
    """The project's worker classes by (resolved posix path of the module, class name); `unknown`:
    classes the project shows to be no single kind (a mixin mixed into workers of two kinds)."""

    workers: frozenset[tuple[str, str, WorkerClass]] = frozenset()
    unknown: frozenset[tuple[str, str]] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.workers or self.unknown)

    def of_module(self, path: str) -> dict[str, WorkerClass | None]:
        """The module's classes the project decides: a worker, or None for one that is no single kind."""
        found: dict[str, WorkerClass | None] = {name: None for where, name in self.unknown if where == path}
        found.update({name: worker for where, name, worker in self.workers if where == path})
        return found


@dataclass
class _Module:
    path: str
    name: str
    is_package: bool
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted path
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    dicts: dict[str, list[ast.expr]] = field(default_factory=dict)  # module-level `NAME = {...}`: its values


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head is not None else None
    return None


def _module_name(display: str) -> tuple[str, bool]:
    parts = list(PurePosixPath(display).with_suffix("").parts)
    if any(part in ("", ".", "..") or not part.isidentifier() for part in parts[:-1]):
        return "", False
    is_package = bool(parts) and parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """Top-level statements, and those in top-level `if` / `try` blocks (guarded imports)."""
    found: list[ast.stmt] = []
    pending = list(tree.body)
    while pending:
        statement = pending.pop(0)
        found.append(statement)
        if isinstance(statement, ast.If):
            pending.extend([*statement.body, *statement.orelse])
        elif isinstance(statement, ast.Try):
            pending.extend([*statement.body, *(s for h in statement.handlers for s in h.body), *statement.orelse])
    return found


class ProjectClassScan:
    """Fed every file of the run in the pre-pass (`feed`), then asked once (`workers`)."""

    def __init__(self) -> None:
        self._held: list[tuple[str, str, bytes]] = []

    def feed(self, path: str, display: str, data: bytes) -> None:
        """`path`: the module's resolved posix path (what the codemods know it by); `display`: its
        path below the run's root (what its dotted name is read from)."""
        # A package's `__init__.py` too: it may re-export a class (`from .mixins import Mixin`).
        if b"class " in data or b"register" in data or display.endswith("__init__.py"):
            self._held.append((path, display, data))

    def workers(self) -> ProjectWorkers:
        modules = self._parsed()
        self._held = []
        return _Index(modules).workers()

    def _parsed(self) -> dict[str, _Module]:
        """The modules that can take part: those naming a seed, and, to a fixed point, those that
        name a class one of them defines (a base of a class there, or a class based on one).

        Only what can make a worker is followed: the classes of a module that have a base or define
        the worker method (a class of neither makes no subclass a worker), and the names it imports
        from the project's own modules as a class's base; a seed module's every such import (a
        registered factory may return one)."""
        modules: dict[str, _Module] = {}
        # The dotted names the held modules may be imported by (the index resolves them by suffix):
        # a name imported from anywhere else (`os`, `typing.Any`, SGLang) leads to no module here.
        project = {
            ".".join(parts[start:])
            for parts in (_module_name(display)[0].split(".") for _, display, _ in self._held)
            for start in range(len(parts))
        }
        pending = [entry for entry in self._held if any(seed in entry[2] for seed in _SEEDS)]
        rest = [entry for entry in self._held if not any(seed in entry[2] for seed in _SEEDS)]
        while pending:
            names: set[bytes] = set()
            for path, display, data in pending:
                module = _parse(path, display, data)
                if module is not None and module.name not in modules:
                    modules[module.name] = module
                    seed = any(word in data for word in _SEEDS)
                    bases = {
                        (_dotted(base) or "").split(".")[0] for node in module.classes.values() for base in node.bases
                    }
                    names |= {
                        name.encode()
                        for name, node in module.classes.items()
                        if node.bases or _defines_worker_method(node)
                    }
                    names |= {
                        local.encode()
                        for local, dotted in module.imports.items()
                        if (seed or local in bases) and (dotted.rpartition(".")[0] in project or dotted in project)
                    }
            pending = [entry for entry in rest if any(name in entry[2] for name in names)]
            rest = [entry for entry in rest if entry not in pending]
        return modules


def _defines_worker_method(node: ast.ClassDef) -> bool:
    """Whether the class body defines or assigns the worker method (a mixin, a TpModelWorker shape)."""
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == WORKER_METHOD:
            return True
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == WORKER_METHOD for t in statement.targets
        ):
            return True
    return False


def _parse(path: str, display: str, data: bytes) -> _Module | None:
    name, is_package = _module_name(display)
    if not name:
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    module = _Module(path, name, is_package, tree)
    for statement in _top_level(tree):
        if isinstance(statement, ast.ImportFrom):
            source = _absolute(name, is_package, statement.level, statement.module)
            for alias in statement.names:
                if alias.name != "*":
                    module.imports[alias.asname or alias.name] = f"{source}.{alias.name}" if source else alias.name
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    module.imports[head] = head
        elif isinstance(statement, ast.ClassDef):
            module.classes[statement.name] = statement
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Dict)
        ):
            module.dicts[statement.targets[0].id] = list(statement.value.values)
    return module


def _returned_values(module: _Module, value: ast.expr) -> list[ast.expr]:
    """What a factory's `return` may hand back: the value, either branch of a conditional or operand
    of `and`/`or`, or any value of a dict it indexes (a module-level one by name, or a literal)."""
    if isinstance(value, ast.IfExp):
        return [*_returned_values(module, value.body), *_returned_values(module, value.orelse)]
    if isinstance(value, ast.BoolOp):
        return [found for operand in value.values for found in _returned_values(module, operand)]
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return [found for item in module.dicts.get(value.value.id, []) for found in _returned_values(module, item)]
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict):
        return [found for item in value.value.values for found in _returned_values(module, item)]
    return [value]


class _Index:
    def __init__(self, modules: dict[str, _Module]) -> None:
        self.modules = modules
        self._suffixes: dict[str, list[str]] = {}
        for full in modules:
            parts = full.split(".")
            for start in range(1, len(parts)):
                self._suffixes.setdefault(".".join(parts[start:]), []).append(full)
        self._entries: dict[tuple[str, str], WorkerClass | None] = {}
        self._visiting: set[tuple[str, str]] = set()

    # -- names ------------------------------------------------------------------------------
    def _module(self, name: str) -> _Module | None:
        if name in self.modules:
            return self.modules[name]
        found = self._suffixes.get(name, [])
        return self.modules[found[0]] if len(found) == 1 else None

    def resolve(self, module: _Module, dotted: str, depth: int = 0) -> tuple[str, str] | None:
        """What `dotted` names in `module`: ("sglang", SGLang's worker class), or (module, class)
        of the project, or None."""
        if depth > 8:
            return None
        head, _, rest = dotted.partition(".")
        if head in module.classes and not rest:
            return module.name, head
        path = module.imports.get(head)
        if path is None:
            return None
        full = path + (f".{rest}" if rest else "")
        owner, _, name = full.rpartition(".")
        if full.split(".")[0] == "sglang":
            return ("sglang", name) if name in SGLANG_WORKERS else None
        target = self._module(owner)
        if target is None:
            return None
        if name in target.classes:
            return target.name, name
        if name in target.imports:  # a re-export (`from .mixins import Mixin` in a package)
            return self.resolve(target, name, depth + 1)
        return None

    # -- roles ------------------------------------------------------------------------------

    def entry(self, module: _Module, name: str) -> WorkerClass | None:
        key = (module.name, name)
        if key in self._entries:
            return self._entries[key]
        if key in self._visiting:
            return None  # a cycle of bases: no class of it is known
        self._visiting.add(key)
        found: WorkerClass | None = None
        for base in module.classes[name].bases:
            dotted = _dotted(base)
            target = self.resolve(module, dotted) if dotted is not None else None
            if target is None:
                continue
            if target[0] == "sglang":
                kind = SGLANG_WORKERS[target[1]]
                found = WorkerClass(kind, target[1], kind)
                break
            parent_module = self.modules[target[0]]
            parent = self.entry(parent_module, target[1])
            if parent is not None:
                if _defines_worker_method(parent_module.classes[target[1]]):
                    found = WorkerClass(parent.kind, None, parent.kind)
                else:
                    found = WorkerClass(parent.kind, parent.base, parent.base_kind)
                break
        self._visiting.discard(key)
        self._entries[key] = found
        return found

    def _registered(self) -> set[tuple[str, str]]:
        """The classes a factory registered with `SpeculativeAlgorithm.register(...)` returns."""
        found: set[tuple[str, str]] = set()
        for module in self.modules.values():
            for statement in _top_level(module.tree):
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                if not any(self._is_register(module, d) for d in statement.decorator_list):
                    continue
                for node in ast.walk(statement):
                    if not isinstance(node, ast.Return) or node.value is None:
                        continue
                    for value in _returned_values(module, node.value):
                        dotted = _dotted(value)
                        target = self.resolve(module, dotted) if dotted is not None else None
                        if target is not None and target[0] != "sglang":
                            found.add(target)
        return found

    def _is_register(self, module: _Module, decorator: ast.expr) -> bool:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = _dotted(func)
        if dotted is None or not dotted.endswith(f".{_REGISTER}"):
            return False
        owner = dotted[: -len(_REGISTER) - 1]
        head, _, rest = owner.partition(".")
        path = module.imports.get(head, "") + (f".{rest}" if rest else "")
        return path.split(".")[0] == "sglang" and path.rpartition(".")[2] == _REGISTRY_CLASS

    def workers(self) -> ProjectWorkers:
        entries: dict[tuple[str, str], WorkerClass] = {}
        for module in self.modules.values():
            for name in module.classes:
                found = self.entry(module, name)
                if found is not None:
                    entries[(module.name, name)] = found
        for key in self._registered():
            own = entries.get(key)
            entries[key] = (
                WorkerClass(SPEC_WORKER, own.base, own.base_kind) if own else WorkerClass(SPEC_WORKER, None, "")
            )
        mixins, conflicting = self._mixins(entries)
        workers = {**entries, **{key: value for key, value in mixins.items() if key not in conflicting}}
        return ProjectWorkers(
            frozenset((self.modules[m].path, name, worker) for (m, name), worker in workers.items()),
            frozenset((self.modules[m].path, name) for m, name in conflicting),
        )

    def _mixins(
        self, workers: dict[tuple[str, str], WorkerClass]
    ) -> tuple[dict[tuple[str, str], WorkerClass], set[tuple[str, str]]]:
        found: dict[tuple[str, str], WorkerClass] = {}
        conflicting: set[tuple[str, str]] = set()
        for (module_name, name), worker in workers.items():
            module = self.modules[module_name]
            for base in module.classes[name].bases:
                dotted = _dotted(base)
                target = self.resolve(module, dotted) if dotted is not None else None
                if target is None or target[0] == "sglang" or target in workers:
                    break  # the mixins come first; from the worker base on, MRO leaves them
                mixin = self.modules[target[0]].classes[target[1]]
                if mixin.bases or not _defines_worker_method(mixin):
                    continue
                entry = WorkerClass(worker.kind, worker.base, worker.base_kind)
                if found.get(target, entry) != entry:
                    conflicting.add(target)
                found[target] = entry
        return found, conflicting
