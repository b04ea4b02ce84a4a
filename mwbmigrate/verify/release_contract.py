"""SGLang's worker-facing API, read from one release with `ast` (nothing of SGLang is imported).

`scripts/release_table.py` writes `mwbmigrate/analysis/release_table.py`, the table shipped for the
releases known when this version of the tool was made, from these functions; `rewrite
--target-version WHEEL|DIR` reads a release the table does not know with the very same functions,
at run time (`derive`).

What is read, per release:
* the parameters after the batch that SGLang's callers pass to `forward_batch_generation`: to
  `TpModelWorker` (calls on a target worker in `speculative/`, and the scheduler's calls on its
  model worker, which is a `TpModelWorker` without speculative decoding), and to a speculative
  worker (the scheduler's calls, kept to what SGLang's own speculative workers declare). A
  parameter's default and kind are those the release's class declares;
* `ForwardBatch.init_new`'s parameters after `cls`;
* the attributes of `ScheduleBatch` and `ForwardBatch`;
* keyword parameters of their methods (and `TpModelWorker`'s), to find those renamed in place.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional

from mwbmigrate.verify.facts import CallSite, ClassFacts, ModuleFacts, extract

__all__ = [
    "BATCH_CLASSES",
    "ContractUnreadable",
    "Release",
    "ReleaseRows",
    "Row",
    "build_table",
    "derive",
    "init_new_parameters",
    "method_parameters",
    "removed_attributes",
    "renamed_keywords",
    "spec_worker_parameters",
    "tp_worker_parameters",
]

SCHEDULE_BATCH = ("sglang.srt.managers.schedule_batch", "ScheduleBatch")
FORWARD_BATCH = ("sglang.srt.model_executor.forward_batch_info", "ForwardBatch")
TP_WORKER = ("sglang.srt.managers.tp_worker", "TpModelWorker")
BATCH_CLASSES = (SCHEDULE_BATCH, FORWARD_BATCH)
METHOD = "forward_batch_generation"
# The reference speculative worker: where a parameter's declaration is read first. The others
# only add what it lacks; they disagree on some (DSparkWorkerV2 takes `pp_proxy_tensors`
# keyword-only).
SPEC_REFERENCE = "EAGLEWorkerV2"
TARGET_RECEIVERS = frozenset({"target_worker", "_target_worker", "tp_worker"})
SCHEDULER_RECEIVERS = frozenset({"model_worker"})


class ContractUnreadable(ValueError):
    """The release lacks what the contract is read from (not an SGLang release of this line)."""


Row = tuple[str, str, bool]  # name, default source ("" when required), keyword-only


# -- reading one release ---------------------------------------------------------------------


def parameter_rows(function: ast.FunctionDef | ast.AsyncFunctionDef, skip: int) -> tuple[Row, ...]:
    """The parameters after the first `skip` ones; `*args` and `**kwargs` are left out (they take
    anything, so they say nothing about what a caller passes)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    rows = [(a.arg, "" if d is None else ast.unparse(d), False) for a, d in zip(positional, defaults, strict=True)]
    rows += [
        (a.arg, "" if d is None else ast.unparse(d), True)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return tuple(rows[skip:])


class Module:
    """One module of a release: its facts and its syntax tree, each made when first asked for."""

    def __init__(self, name: str, source: bytes, display: str, is_package: bool) -> None:
        self.name, self._source, self._display, self._is_package = name, source, display, is_package
        self._facts: Optional[ModuleFacts] = None
        self._tree: Optional[ast.Module] = None

    @property
    def facts(self) -> ModuleFacts:
        if self._facts is None:
            self._facts = extract(self._source, self.name, self._display, self._is_package)
        return self._facts

    @property
    def tree(self) -> ast.Module:
        if self._tree is None:
            self._tree = ast.parse(self._source, filename=self._display)
        return self._tree


class Release:
    """One release, read from its wheel without unpacking it, each module parsed only when asked for."""

    def __init__(self, files: Mapping[str, Callable[[], bytes]]) -> None:
        self._files = files  # "sglang/srt/managers/tp_worker.py" -> its bytes
        self._modules: dict[str, Optional[Module]] = {}

    @classmethod
    def from_wheel(cls, wheel: Path) -> "Release":
        archive = zipfile.ZipFile(wheel)
        names = [n for n in archive.namelist() if n.startswith("sglang/") and n.endswith(".py")]
        return cls({n: functools.partial(archive.read, n) for n in names})

    @classmethod
    def from_folder(cls, root: Path) -> "Release":
        """An unpacked release: `root` holds the `sglang/` package."""
        paths = sorted(p for p in (root / "sglang").rglob("*.py") if p.is_file())
        return cls({p.relative_to(root).as_posix(): p.read_bytes for p in paths})

    def module(self, name: str) -> Optional[Module]:
        if name not in self._modules:
            self._modules[name] = self._load(name)
        return self._modules[name]

    def _load(self, name: str) -> Optional[Module]:
        base = name.replace(".", "/")
        for path, is_package in ((f"{base}.py", False), (f"{base}/__init__.py", True)):
            if path in self._files:
                return Module(name, self._files[path](), path, is_package)
        return None

    def modules_under(self, package: str, pattern: str, needle: bytes) -> Iterator[Module]:
        """Modules of `package` whose file name matches `pattern` and whose text holds `needle`
        (the others are not parsed)."""
        prefix = package.replace(".", "/") + "/"
        for path in sorted(self._files):
            if not path.startswith(prefix) or not fnmatch.fnmatch(path.rsplit("/", 1)[-1], pattern):
                continue
            if needle in self._files[path]():
                parts = path[: -len(".py")].split("/")
                module = self.module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
                if module is not None:
                    yield module

    def class_node(self, module_name: str, class_name: str) -> Optional[ast.ClassDef]:
        module = self.module(module_name)
        if module is None:
            return None
        return next((n for n in ast.walk(module.tree) if isinstance(n, ast.ClassDef) and n.name == class_name), None)

    def method(
        self, module_name: str, class_name: str, method: str
    ) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
        node = self.class_node(module_name, class_name)
        if node is None:
            return None
        return next(
            (n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == method),
            None,
        )

    def class_facts(self, module_name: str, class_name: str) -> list[ClassFacts]:
        """The class and its bases that this release defines (followed through imports), nearest first."""
        found: list[ClassFacts] = []
        pending = [(module_name, class_name)]
        seen: set[tuple[str, str]] = set()
        while pending:
            where = pending.pop(0)
            module = self.module(where[0])
            if where in seen or module is None:
                continue
            seen.add(where)
            facts = module.facts.class_named(where[1])
            if facts is None:
                binding = next((b for b in module.facts.bindings.get(where[1], []) if b.kind == "from"), None)
                if binding is not None:
                    pending.append((binding.target, binding.attr))
                continue
            found.append(facts)
            for base in facts.bases:
                if base is not None and "." not in base:
                    pending.append((where[0], base))
        return found

    def attributes(self, module_name: str, class_name: str) -> frozenset[str]:
        return frozenset().union(*(c.attrs for c in self.class_facts(module_name, class_name)))


def _calls(module: Module) -> Iterator[CallSite]:
    for call in module.facts.worker_calls:
        if call.callee == METHOD:
            yield call


def _passed(call: CallSite, positional: tuple[str, ...]) -> set[str]:
    """The parameters a call passes after the batch: its keywords (those of a `**mapping` built
    beside it included) and, by position, the parameters its extra positional arguments fill."""
    passed = set(call.shape.keywords) | set(call.shape.maybe)
    if call.shape.positional:
        passed |= set(positional[1 : call.shape.positional])
    return passed - {"batch", "model_worker_batch"}


def _ordered(declared: Iterable[Row], passed: set[str]) -> tuple[Row, ...]:
    return tuple(row for row in declared if row[0] in passed)


def tp_worker_parameters(release: Release) -> tuple[Row, ...]:
    method = release.method(*TP_WORKER, METHOD)
    if method is None:
        raise ContractUnreadable(f"no {TP_WORKER[1]}.{METHOD}")
    declared = parameter_rows(method, skip=2)
    positional = tuple(a.arg for a in [*method.args.posonlyargs, *method.args.args][1:])
    passed: set[str] = set()
    for module in release.modules_under("sglang.srt.speculative", "*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in TARGET_RECEIVERS:
                passed |= _passed(call, positional)
    for module in release.modules_under("sglang.srt.managers", "scheduler*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in TARGET_RECEIVERS | SCHEDULER_RECEIVERS:
                passed |= _passed(call, positional)
    return _ordered(declared, passed)


def _spec_workers(release: Release) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """SGLang's speculative workers: classes of `speculative/` with their own `forward_batch_generation`,
    except those that are target workers themselves (`TpModelWorker` subclasses)."""
    found = {}
    for module in release.modules_under("sglang.srt.speculative", "*.py", METHOD.encode()):
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.ClassDef) or any("TpModelWorker" in ast.unparse(b) for b in node.bases):
                continue
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == METHOD:
                    found[node.name] = statement
    return found


def spec_worker_parameters(release: Release) -> tuple[Row, ...]:
    workers = _spec_workers(release)
    if SPEC_REFERENCE not in workers:
        raise ContractUnreadable(f"no {SPEC_REFERENCE}.{METHOD}")
    declared: dict[str, Row] = {}
    for name in [SPEC_REFERENCE, *sorted(set(workers) - {SPEC_REFERENCE})]:
        for row in parameter_rows(workers[name], skip=2):
            declared.setdefault(row[0], row)
    positional = tuple(a.arg for a in workers[SPEC_REFERENCE].args.args[1:])
    passed: set[str] = set()
    for module in release.modules_under("sglang.srt.managers", "scheduler*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in SCHEDULER_RECEIVERS:
                passed |= _passed(call, positional)
    return _ordered(declared.values(), passed)


def init_new_parameters(release: Release) -> tuple[Row, ...]:
    method = release.method(*FORWARD_BATCH, "init_new")
    if method is None:
        raise ContractUnreadable("no ForwardBatch.init_new")
    return parameter_rows(method, skip=1)


def method_parameters(release: Release, where: tuple[str, str]) -> dict[str, tuple[Row, ...]]:
    node = release.class_node(*where)
    if node is None:
        return {}
    return {
        n.name: parameter_rows(n, skip=1)
        for n in node.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("__")
    }


# -- across releases -------------------------------------------------------------------------


def removed_attributes(releases: Mapping[str, Release]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Public attributes of `ScheduleBatch` / `ForwardBatch` in the first release that a later one
    lacks: name -> (first release without it, the classes it left). One that comes back later is
    left out: no target lacks it for good."""
    versions = list(releases)
    found: dict[str, tuple[str, set[str]]] = {}
    for where in (SCHEDULE_BATCH, FORWARD_BATCH):
        present = {v: releases[v].attributes(*where) for v in versions}
        for name in sorted(present[versions[0]]):
            if name.startswith("_"):
                continue
            gone = [v for v in versions if name not in present[v]]
            if not gone or any(name in present[v] for v in versions[versions.index(gone[0]) :]):
                continue
            since, classes = found.get(name, (gone[0], set()))
            if versions.index(gone[0]) != versions.index(since):
                raise ContractUnreadable(f"{name} leaves ScheduleBatch and ForwardBatch in different releases")
            found[name] = (since, classes | {where[1]})
    ordered = sorted(found.items(), key=lambda item: (versions.index(item[1][0]), item[0]))
    return {name: (since, tuple(sorted(classes))) for name, (since, classes) in ordered}


def _rename(before: tuple[Row, ...], after: tuple[Row, ...]) -> Optional[tuple[str, str]]:
    """(old, new) when `after` is `before` with exactly one parameter renamed in place."""
    if len(before) != len(after):
        return None
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    if len(changed) != 1:
        return None
    (old, old_default, old_kw), (new, new_default, new_kw) = changed[0]
    if old == new or (old_default, old_kw) != (new_default, new_kw) or new in {r[0] for r in before}:
        return None
    return old, new


def renamed_keywords(releases: Mapping[str, Release]) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(class, method, old keyword) -> (new keyword, first release with it)."""
    found: dict[tuple[str, str, str], tuple[str, str]] = {}
    versions = list(releases)
    for where in (SCHEDULE_BATCH, FORWARD_BATCH, TP_WORKER):
        previous = method_parameters(releases[versions[0]], where)
        for version in versions[1:]:
            current = method_parameters(releases[version], where)
            for method in sorted(set(previous) & set(current)):
                renamed = _rename(previous[method], current[method])
                if renamed is not None:
                    found[(where[1], method, renamed[0])] = (renamed[1], version)
            previous = current
    return found


def build_table(release_of: Callable[[str], Release], versions: Iterable[str]) -> dict[str, object]:
    """The table's contents for `versions` (oldest first)."""
    releases = {v: release_of(v) for v in versions}
    first = next(iter(releases.values()))
    return {
        "RELEASES": tuple(releases),
        "WORKER_CALL_PARAMETERS": {
            v: {"tp_worker": tp_worker_parameters(r), "spec_worker": spec_worker_parameters(r)}
            for v, r in releases.items()
        },
        "INIT_NEW_PARAMETERS": {v: init_new_parameters(r) for v, r in releases.items()},
        "REMOVED_ATTRIBUTES": removed_attributes(releases),
        "RENAMED_KEYWORDS": renamed_keywords(releases),
        "FIRST_RELEASE_ATTRIBUTES": public_attributes(first),
    }


def public_attributes(release: Release) -> dict[str, tuple[str, ...]]:
    """Class name -> the public attributes of `ScheduleBatch` and `ForwardBatch` (with their bases')."""
    return {
        where[1]: tuple(sorted(n for n in release.attributes(*where) if not n.startswith("_")))
        for where in BATCH_CLASSES
    }


@dataclass(frozen=True)
class ReleaseRows:
    """One release's rows, as the table holds them for a known release, with what a release the
    table does not know is compared by: its batch classes' attributes and its methods' parameters."""

    tp_worker: tuple[Row, ...]
    spec_worker: tuple[Row, ...]
    init_new: tuple[Row, ...]
    batch_attributes: dict[str, tuple[str, ...]]  # class -> its public attributes
    method_parameters: dict[str, dict[str, tuple[Row, ...]]]  # class -> method -> its parameters


def derive(release: Release) -> ReleaseRows:
    """What `rewrite --target-version WHEEL|DIR` reads of a release at run time."""
    return ReleaseRows(
        tp_worker=tp_worker_parameters(release),
        spec_worker=spec_worker_parameters(release),
        init_new=init_new_parameters(release),
        batch_attributes=public_attributes(release),
        method_parameters={
            where[1]: method_parameters(release, where) for where in (SCHEDULE_BATCH, FORWARD_BATCH, TP_WORKER)
        },
    )
