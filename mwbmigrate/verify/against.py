"""`mwbmigrate verify PATH --against VERSION|WHEEL|DIR`: a static contract check of a tree
against a real SGLang release, read with `ast` (SGLang is never imported; no GPU is needed).

Three kinds of mismatch, each printed with `file:line` of the tree and of the release:

* **worker-signature**: a method of the tree that SGLang's own code calls would not bind a call
  the release makes. The calls are read off the release: every call on a worker receiver
  (`self.model_worker`, `self.tp_worker`, `self.target_worker`, `target_worker`, the scheduler's
  `self.draft_worker`) and every `self.m(...)` inside a worker class. Which classes a call can
  reach is decided by its receiver: `target_worker`/`tp_worker` reach `TpModelWorker` and its
  subclasses; the scheduler's `model_worker` reaches those and the speculative workers (subclasses
  of `BaseSpecWorker`, the classes `SpeculativeAlgorithm.create_worker` returns, theirs);
  `draft_worker` (outside a worker class) the speculative workers; `self.m(...)` in class `R` the
  subclasses of `R`. The tree's method is held only to the calls that the release's *own* method
  binds: the method of the release class of the same module path (an SGLang tree checked against
  a later release), else of the nearest release base class (a fork's subclass), else of
  `TpModelWorker` (a class shaped like one: `forward_batch_generation` and
  `forward_batch_embedding`), and for a plugin worker registered with
  `SpeculativeAlgorithm.register` what every release speculative worker binds. A call that the
  release's own method does not bind either (a keyword passed to some workers only, a path a
  release class never takes) is no contract, and is not held against the tree.
* **call**: the tree calls an SGLang function, method or class of the release (through an import,
  an SGLang module's own name, `super()`, an inherited `self.m`, or a method of a batch value)
  with a keyword it does not take, too many positional arguments, or without a required one.
* **attribute**: the tree reads or writes an attribute of a `ScheduleBatch` or `ForwardBatch` value
  that the release's class does not define. A value counts only when it is certain: a parameter
  annotated with the class (`Optional` allowed), a local bound only from `X.init_new(...)` or
  annotated, the unannotated `batch` of a worker's `forward_batch_*` override; not after it is
  rebound, nor under `hasattr`/`getattr(..., default)`/`try: ... except AttributeError`. A class's
  attributes are its fields, class attributes, properties, methods, what its methods store on
  `self` (or on instances they build), those of its bases, and what the release itself stores on
  such values elsewhere.
* **import**: a module-level `from sglang.X import Y` that always runs (not under `if`, `try`,
  `with` or a loop) names a module the release does not have (and the tree does not either), or a
  name the release's module does not bind (nor has as a submodule; a module with a star import or
  a module `__getattr__` answers any name): `BaseDraftWorker`, renamed in 0.5.14.

`--baseline` (what the release a fork is based on mismatches itself is not counted) and
`--changed-since` (only what changed since a git revision counts) narrow the count afterwards:
`scope.py`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, TextIO

from mwbmigrate.verify.codebase import ClassRef, Codebase, FuncRef, Resolver, is_sglang
from mwbmigrate.verify.facts import CallShape, CallSite, ClassFacts, FuncFacts, ModuleFacts, Signature
from mwbmigrate.verify.mismatch import Mismatch
from mwbmigrate.verify.release import SUBDIR, Release, ReleaseUnavailable, cache_directory, locate_release
from mwbmigrate.verify.scope import ChangedScope, ScopeUnavailable, changed_scope, subtract_baseline
from mwbmigrate.verify.shipped_contract import shipped_release

__all__ = [
    "AgainstReport",
    "Mismatch",
    "check_against",
    "breaks_by_file",
    "check_baseline",
    "check_rewritten",
    "narrow",
    "run_against",
]

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
SCHEDULE_BATCH = ("sglang.srt.managers.schedule_batch", "ScheduleBatch")
FORWARD_BATCH = ("sglang.srt.model_executor.forward_batch_info", "ForwardBatch")
TP_MODEL_WORKER = ("sglang.srt.managers.tp_worker", "TpModelWorker")
BASE_SPEC_WORKER = "BaseSpecWorker"
# The modules of the API this migration moves: what an import from them names is the migration's.
_MIGRATED_MODULES = frozenset({SCHEDULE_BATCH[0], FORWARD_BATCH[0], TP_MODEL_WORKER[0]})
_SPECULATIVE = "sglang.srt.speculative."
_TARGET_RECEIVERS = frozenset({"target_worker", "_target_worker", "tp_worker"})
# What can reach SGLang: a module naming it or importing relatively; a worker shaped like
# TpModelWorker may name nothing but its methods.
_REACHES_SGLANG = (b"sglang", b"from .", b"import .", b"forward_batch")


@dataclass
class AgainstReport:
    tree: str
    release: str
    release_root: str
    mismatches: list[Mismatch] = field(default_factory=list)
    latent: list[Mismatch] = field(default_factory=list)  # the same in the release's own code: not counted
    # On statements a review marker names (--allow-review-markers): the migration reported them.
    reported: list[Mismatch] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    unparsed: list[str] = field(default_factory=list)
    # --baseline: the release the tree is based on, how many mismatches its own tree has against the
    # same release, and the tree's mismatches that are those (not counted).
    baseline: Optional[str] = None
    baseline_total: int = 0
    baseline_subtracted: list[Mismatch] = field(default_factory=list)
    # --changed-since: what part of the tree was checked, and how many mismatches fell outside it.
    scope: Optional[str] = None
    out_of_scope: int = 0

    @property
    def passed(self) -> bool:
        return not self.mismatches

    def to_dict(self) -> dict[str, object]:
        return {
            "tool": "mwbmigrate verify --against",
            "tree": self.tree,
            "release": self.release,
            "release_root": self.release_root,
            "passed": self.passed,
            "mismatches": [asdict(m) for m in self.mismatches],
            "release_latent": [asdict(m) for m in self.latent],
            "reported": [asdict(m) for m in self.reported],
            "counts": self.counts,
            "unparsed": self.unparsed,
            "baseline": None
            if self.baseline is None
            else {
                "release": self.baseline,
                "mismatches": self.baseline_total,
                "subtracted": len(self.baseline_subtracted),
            },
            "baseline_subtracted": [asdict(m) for m in self.baseline_subtracted],
            "scope": None if self.scope is None else {"checked": self.scope, "left_out": self.out_of_scope},
        }


# -- binding -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Failure:
    kind: str  # "keyword", "positional", "missing", "twice"
    name: str
    maybe: bool = False  # only a keyword a `**mapping` may hold

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)


def failures(signature: Signature, call: CallShape) -> list[Failure]:
    """Why `call` would not bind `signature` (a `TypeError`), as separate reasons."""
    found: list[Failure] = []
    count = call.positional
    if count is not None and not signature.vararg and count > len(signature.positional):
        found.append(Failure("positional", str(count)))
    filled = set(signature.positional[: count or 0])
    for keyword in call.keywords:
        if not signature.accepts_keyword(keyword):
            found.append(Failure("keyword", keyword))
        elif keyword in filled:
            found.append(Failure("twice", keyword))
    for keyword in sorted(call.maybe):
        if not signature.accepts_keyword(keyword):
            found.append(Failure("keyword", keyword, maybe=True))
    if not call.open_kwargs:
        supplied = set(call.keywords) | call.maybe
        if count is not None:
            for name in signature.positional[count : signature.required_positional]:
                if name not in supplied:
                    found.append(Failure("missing", name))
        for name in sorted(signature.kwonly_required - supplied):
            found.append(Failure("missing", name))
    return found


def call_signature(function: FuncRef, through: str) -> Optional[Signature]:
    """The signature a call sees: `through` is "instance" (a bound method), "class" (`C.m(...)`)
    or "plain" (a function)."""
    facts = function.facts
    if facts.signature is None or facts.kind == "property":
        return None
    if facts.kind == "classmethod" or (facts.kind == "method" and through == "instance"):
        return facts.signature.bound()
    return facts.signature


def _reason(failure: Failure, release_call: str = "") -> str:
    """A failure as `Mismatch.reason` states it: what does not bind, and at which call of the release."""
    maybe = " (in a ** mapping)" if failure.maybe else ""
    at = f" at `{release_call}`" if release_call else ""
    return f"{failure.kind} `{failure.name}`{maybe}{at}"


def _describe(failure: Failure, who: str, signature: Signature, caller: str, text: str) -> str:
    if failure.kind == "keyword":
        passes = "may pass (in a `**` mapping)" if failure.maybe else "passes"
        return (
            f"{who}{signature.render()} does not take the keyword `{failure.name}`, which {caller} {passes}: `{text}`"
        )
    if failure.kind == "positional":
        count = len(signature.positional)
        return f"{who}{signature.render()} takes {count} positional argument{'s' if count != 1 else ''}, {caller} passes {failure.name}: `{text}`"
    if failure.kind == "twice":
        return (
            f"{who}{signature.render()} gets `{failure.name}` both by position and by keyword from {caller}: `{text}`"
        )
    return f"{who}{signature.render()} requires `{failure.name}`, which {caller} does not pass: `{text}`"


def _describe_call(found: list[Failure], who: str, signature: Signature, text: str) -> str:
    """Every reason one call of the tree does not bind, in one line."""
    parts: list[str] = []
    keywords = [f"`{f.name}`" for f in found if f.kind == "keyword"]
    if keywords:
        parts.append(f"does not take the keyword{'s' if len(keywords) > 1 else ''} {', '.join(keywords)}")
    for failure in found:
        if failure.kind == "positional":
            count = len(signature.positional)
            parts.append(f"takes {count} positional argument{'s' if count != 1 else ''}, not {failure.name}")
        elif failure.kind == "twice":
            parts.append(f"gets `{failure.name}` both by position and by keyword")
    missing = [f"`{f.name}`" for f in found if f.kind == "missing"]
    if missing:
        parts.append(f"requires {', '.join(missing)}, which the tree does not pass")
    return f"{who}{signature.render()} " + "; ".join(parts) + f": `{text}`"


# -- the release ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContractCall:
    """A call the release makes that a tree method may receive."""

    method: str
    family: str  # "target", "model", "spec", "self"
    site: CallSite
    module: ModuleFacts
    owner: Optional[ClassRef] = None  # for "self": the class whose method makes the call


class ReleaseModel:
    """What the checks need of one release, computed once."""

    def __init__(self, codebase: Codebase) -> None:
        self.codebase = codebase
        resolver = Resolver(codebase, codebase)
        self.resolver = resolver
        self.schedule_batch = self._class(*SCHEDULE_BATCH)
        self.forward_batch = self._class(*FORWARD_BATCH)
        self.tp_model_worker = self._class(*TP_MODEL_WORKER)
        self.target_family: set[ClassRef] = set()
        self.spec_family: set[ClassRef] = set()
        self.worker_ancestors: set[ClassRef] = set()
        self._families()
        self.contract: dict[str, list[ContractCall]] = {}
        self._contract_calls()
        self.batch_attrs: dict[ClassRef, Optional[set[str]]] = {}
        self._batch_attributes()

    def _class(self, module: str, name: str) -> Optional[ClassRef]:
        ref = self.resolver.resolve_in(module, name)
        return ref if isinstance(ref, ClassRef) else None

    def classes(self, modules: Iterable[ModuleFacts]) -> Iterable[ClassRef]:
        for module in modules:
            for name in module.classes:
                cls = module.class_named(name)
                if cls is not None:
                    yield ClassRef(self.codebase, module, cls)

    def _families(self) -> None:
        created: set[ClassRef] = set()
        # Two passes, each module read as it comes: a release's facts are not all held at once.
        for module in self.codebase.scan(b"Worker"):
            for module_name, name in module.created_workers:
                ref = self.resolver.resolve_in(module_name, name)
                if isinstance(ref, ClassRef):
                    created.add(ref)
        for cls in self.classes(self.codebase.scan(b"Worker")):
            ancestors = self.resolver.ancestry(cls).classes
            if self.tp_model_worker is not None and self.tp_model_worker in ancestors:
                self.target_family.add(cls)
            if any(a.facts.name == BASE_SPEC_WORKER for a in ancestors) or created & set(ancestors):
                self.spec_family.add(cls)
        for cls in self.target_family | self.spec_family:
            self.worker_ancestors.update(self.resolver.ancestry(cls).classes)

    def is_worker(self, cls: Optional[ClassRef]) -> bool:
        return cls is not None and (cls in self.target_family or cls in self.spec_family)

    def migrated_api(self, cls: Optional[ClassRef]) -> bool:
        """A method of the batch, the forward batch or a worker (their bases included)."""
        if cls is None:
            return False
        return cls in (self.schedule_batch, self.forward_batch) or self.is_worker(cls) or cls in self.worker_ancestors

    def _contract_calls(self) -> None:
        for module in self.codebase.scan(b"_worker"):
            for site in module.worker_calls:
                owner = self._owner(module, site.cls)
                family = self._family(site.receiver or "", owner)
                if family is not None:
                    self.contract.setdefault(site.callee, []).append(ContractCall(site.callee, family, site, module))
        for cls in sorted(self.worker_ancestors, key=lambda c: c.key[1:]):
            for site in cls.module.calls:
                if site.cls == cls.facts.name and site.callee.startswith("self.") and site.callee.count(".") == 1:
                    method = site.callee[len("self.") :]
                    if self.resolver.lookup(cls, method) is not None:
                        self.contract.setdefault(method, []).append(ContractCall(method, "self", site, cls.module, cls))
        for calls in self.contract.values():
            calls.sort(key=lambda c: (c.module.display, c.site.line, c.site.text))

    def _owner(self, module: ModuleFacts, name: Optional[str]) -> Optional[ClassRef]:
        cls = module.class_named(name) if name else None
        return ClassRef(self.codebase, module, cls) if cls is not None else None

    def _family(self, receiver: str, owner: Optional[ClassRef]) -> Optional[str]:
        if receiver in _TARGET_RECEIVERS:
            return "target"
        inside_worker = owner is not None and owner in self.worker_ancestors
        if receiver == "model_worker" and not inside_worker:
            return "model"
        if receiver == "draft_worker" and not inside_worker:
            return "spec"
        return None  # a worker's own `draft_worker` may be a TpModelWorker or a draft runner

    def reaches(self, call: ContractCall, stands_for: Iterable[ClassRef]) -> bool:
        for cls in stands_for:
            ancestors = self.resolver.ancestry(cls).classes
            target = self.tp_model_worker is not None and self.tp_model_worker in ancestors
            spec = cls in self.spec_family or bool(self.spec_family & set(ancestors))
            if call.family == "target" and target:
                return True
            if call.family == "model" and (target or spec):
                return True
            if call.family == "spec" and spec:
                return True
            if call.family == "self" and call.owner is not None and call.owner in ancestors:
                return True
        return False

    def _batch_attributes(self) -> None:
        extra: dict[ClassRef, set[str]] = {}
        batches = [c for c in (self.schedule_batch, self.forward_batch) if c is not None]
        for module in self.codebase.scan(b"ScheduleBatch", b"ForwardBatch"):
            for function in module.typed_functions:
                for typed in function.typed:
                    cls = batch_class(self.resolver, self.codebase, module, typed.sources)
                    if cls in batches and cls is not None:
                        extra.setdefault(cls, set()).update(u.attr for u in typed.uses if u.write)
        for cls in batches:
            attrs = self.resolver.attributes(cls)
            self.batch_attrs[cls] = None if attrs is None else attrs | extra.get(cls, set())


def batch_class(
    resolver: Resolver, codebase: Codebase, module: ModuleFacts, sources: tuple[str, ...]
) -> Optional[ClassRef]:
    """The one class a typed name's sources (annotations, `C.init_new` results) denote."""
    found: set[ClassRef] = set()
    for source in sources:
        text = source[len("init_new:") :] if source.startswith("init_new:") else source
        ref = resolver.resolve_dotted(codebase, module, text)
        if not isinstance(ref, ClassRef):
            return None
        found.add(ref)
    return found.pop() if len(found) == 1 else None


_MODELS: dict[tuple[str, int], ReleaseModel] = {}


def release_model(codebase: Codebase) -> ReleaseModel:
    key = (str(codebase.root.resolve()), id(codebase))
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = ReleaseModel(codebase)
        # Building it read most of the release; the check resolves a few modules of it again.
        codebase.forget_kept_facts()
    return model


# -- the tree ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Role:
    """What a tree class stands for in the release: `how` is "twin" (the release class of the same
    module path), "subclass", "shaped" (like `TpModelWorker`) or "plugin"."""

    how: str
    stands_for: tuple[ClassRef, ...]


@dataclass
class _Released:
    calls: set[tuple[str, str, CallShape]] = field(default_factory=set)
    uses: set[tuple[str, str, str, bool]] = field(default_factory=set)


class _Check:
    def __init__(
        self, tree: Codebase, model: ReleaseModel, label: str, prefix: str, only: Optional[frozenset[str]] = None
    ) -> None:
        self.tree = tree
        self.only = only  # the module names to check (None: every module that can reach SGLang)
        self.prefix = prefix
        self.model = model
        self.release = model.codebase
        self.resolver = Resolver(tree, self.release)
        self.label = label
        self.mismatches: list[Mismatch] = []
        self.counts = {
            "worker_methods": 0,
            "contract_calls": 0,
            "calls": 0,
            "attribute_uses": 0,
            "imports": 0,
            "files": 0,
        }
        self.roles: dict[tuple[str, str], Role] = {}
        self.latent: list[Mismatch] = []  # mismatches in code the release itself has, unchanged
        self._released_cache: dict[str, _Released] = {}

    def here(self, module: ModuleFacts) -> str:
        """A tree module's path as the user named the tree."""
        return self.prefix + module.display

    def run(self) -> None:
        if self.only is not None:
            modules = [m for m in (self.tree.module(name) for name in sorted(self.only)) if m is not None]
        else:
            modules = list(self.tree.scan(*_REACHES_SGLANG))
        self.counts["files"] = len(modules)
        self.counts["contract_calls"] = sum(len(v) for v in self.model.contract.values())
        plugins = self._plugins(modules)
        for module in modules:
            for name in module.classes:
                cls = module.class_named(name)
                if cls is not None:
                    self._worker_class(module, cls, plugins)
        for module in modules:
            self._calls(module)
            self._attributes(module)
            self._imports(module)

    # -- worker signatures --------------------------------------------------------------------
    def _plugins(self, modules: list[ModuleFacts]) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        for module in modules:
            for module_name, name in module.registered_workers:
                ref = self.resolver.resolve_in(module_name, name)
                if isinstance(ref, ClassRef) and ref.codebase is self.tree:
                    found.add((ref.module.name, ref.facts.name))
        return found

    def role(self, module: ModuleFacts, cls: ClassFacts, plugins: set[tuple[str, str]]) -> Optional[Role]:
        ref = ClassRef(self.tree, module, cls)
        if is_sglang(module.name):
            if not self.release.has(module.name):
                return None  # a module the release removed: nothing in the release reaches it
            released = self.release.module(module.name)
            twin = released.class_named(cls.name) if released is not None else None
            if released is not None and twin is not None:
                return Role("twin", (ClassRef(self.release, released, twin),))
        bases = tuple(c for c in self.resolver.ancestry(ref).classes if c.codebase is self.release)
        if any(self.model.is_worker(c) or c in self.model.worker_ancestors for c in bases):
            return Role("subclass", bases)
        if (module.name, cls.name) in plugins:
            return Role("plugin", tuple(sorted(self.model.spec_family, key=lambda c: c.key[1:])))
        methods = cls.methods
        shaped = "forward_batch_generation" in methods and (
            "forward_batch_embedding" in methods or "TpWorker" in cls.name or "TpModelWorker" in cls.name
        )
        if shaped and self.model.tp_model_worker is not None and not bases:
            return Role("shaped", (self.model.tp_model_worker,))
        return None

    def _worker_class(self, module: ModuleFacts, cls: ClassFacts, plugins: set[tuple[str, str]]) -> None:
        role = self.role(module, cls, plugins)
        if role is None:
            return
        self.roles[(module.name, cls.name)] = role
        for name, definitions in cls.methods.items():
            calls = self.model.contract.get(name)
            if not calls or len(definitions) != 1:
                continue
            method = definitions[0]
            signature = call_signature(FuncRef(self.tree, module, method), "instance")
            if signature is None:
                continue
            self.counts["worker_methods"] += 1
            if role.how == "plugin":
                self._plugin_method(module, cls, method, signature, calls, role)
            else:
                self._method(module, cls, method, signature, calls, role)

    def _counterpart(self, role: Role, name: str) -> Optional[FuncRef]:
        for cls in role.stands_for:
            found = self.resolver.lookup(cls, name)
            if found is not None and isinstance(found[1], FuncRef):
                return found[1]
        return None

    def _method(
        self,
        module: ModuleFacts,
        cls: ClassFacts,
        method: FuncFacts,
        signature: Signature,
        calls: list[ContractCall],
        role: Role,
    ) -> None:
        counterpart = self._counterpart(role, method.name)
        if counterpart is None:
            return
        theirs = call_signature(counterpart, "instance")
        if theirs is None or (counterpart.facts is method):
            return
        found: dict[tuple[str, str], list[tuple[ContractCall, Failure]]] = {}
        for call in calls:
            if not self.model.reaches(call, role.stands_for):
                continue
            release_failures = failures(theirs, call.site.shape)
            if any(not f.maybe for f in release_failures):
                continue  # the release's own method does not take this call: it never makes it
            excused = {f.key for f in release_failures}
            for failure in failures(signature, call.site.shape):
                if failure.key not in excused:
                    found.setdefault(failure.key, []).append((call, failure))
        owner = counterpart.owner.facts.name if counterpart.owner else "?"
        where = f"{counterpart.module.display}:{counterpart.facts.line}"
        for (kind, _), sites in sorted(found.items()):
            call, failure = sites[0]
            message = _describe(failure, f"{cls.name}.{method.name}", signature, f"SGLang {self.label}", call.site.text)
            verb = "does not need it" if kind == "missing" else "takes it"
            if kind == "positional":
                verb = "binds that call"
            message += f"; the release's {owner}.{method.name}{theirs.render()} ({where}) {verb}"
            self.mismatches.append(
                Mismatch(
                    "worker-signature",
                    self.here(module),
                    method.line,
                    call.module.display,
                    call.site.line,
                    message,
                    len(sites) - 1,
                    module.name,
                    method.qualname,
                    _reason(failure, call.site.text),
                    migrated_api=True,
                )
            )

    def _plugin_method(
        self,
        module: ModuleFacts,
        cls: ClassFacts,
        method: FuncFacts,
        signature: Signature,
        calls: list[ContractCall],
        role: Role,
    ) -> None:
        """A registered plugin worker is held to what every release speculative worker takes."""
        found: dict[tuple[str, str], list[tuple[ContractCall, Failure]]] = {}
        for call in calls:
            if call.family not in ("model", "spec"):
                continue
            excused: set[tuple[str, str]] = set()
            universal = False
            for worker in role.stands_for:
                counterpart = self._counterpart(Role("twin", (worker,)), method.name)
                theirs = call_signature(counterpart, "instance") if counterpart is not None else None
                if theirs is None:
                    continue
                release_failures = failures(theirs, call.site.shape)
                if any(not f.maybe for f in release_failures):
                    universal = False  # some speculative worker never gets this call
                    break
                excused |= {f.key for f in release_failures}
                universal = True
            if not universal:
                continue
            for failure in failures(signature, call.site.shape):
                if not failure.maybe and failure.key not in excused:
                    found.setdefault(failure.key, []).append((call, failure))
        for _, sites in sorted(found.items()):
            call, failure = sites[0]
            message = _describe(failure, f"{cls.name}.{method.name}", signature, f"SGLang {self.label}", call.site.text)
            message += "; every speculative worker of the release binds that call"
            self.mismatches.append(
                Mismatch(
                    "worker-signature",
                    self.here(module),
                    method.line,
                    call.module.display,
                    call.site.line,
                    message,
                    len(sites) - 1,
                    module.name,
                    method.qualname,
                    _reason(failure, call.site.text) + " (every speculative worker)",
                    migrated_api=True,
                )
            )

    # -- calls into the release ---------------------------------------------------------------
    def _calls(self, module: ModuleFacts) -> None:
        for site in module.calls:
            target = self._call_target(module, site)
            if target is None:
                continue
            function, signature, label = target
            self.counts["calls"] += 1
            key = (site.function, site.callee, site.shape)
            self._bind(module, site.line, site.text, site.shape, function, signature, label, key)

    def _bind(
        self,
        module: ModuleFacts,
        line: int,
        text: str,
        shape: CallShape,
        function: FuncRef,
        signature: Signature,
        label: str,
        key: tuple[str, str, CallShape],
    ) -> None:
        found = [f for f in failures(signature, shape) if not f.maybe]
        if not found:
            return
        message = _describe_call(found, f"SGLang {self.label}'s {label}", signature, text)
        mismatch = Mismatch(
            "call",
            self.here(module),
            line,
            function.module.display,
            function.facts.line,
            message,
            module=module.name,
            function=key[0],
            reason=f"{label}: " + ", ".join(_reason(failure) for failure in found),
            migrated_api=self.model.migrated_api(function.owner),
        )
        if key in self._released(module).calls:
            self.latent.append(mismatch)
        else:
            self.mismatches.append(mismatch)

    def _released(self, module: ModuleFacts) -> "_Released":
        """What the release's copy of an SGLang module does itself: a call or an attribute use the
        release makes in the same function, the same way, is the release's own (a latent bug in
        it, or a use this analysis cannot see through), not a break of the tree against it."""
        cached = self._released_cache.get(module.name)
        if cached is not None:
            return cached
        released = _Released()
        twin = module if self.tree is self.release else None
        if twin is None and is_sglang(module.name) and self.release.has(module.name):
            twin = self.release.module(module.name)
        if twin is not None:
            released.calls = {(c.function, c.callee, c.shape) for c in twin.calls}
            for function in twin.typed_functions:
                for typed in function.typed:
                    for use in typed.uses:
                        released.uses.add((function.qualname, typed.name, use.attr, use.write))
                        if use.call is not None:
                            released.calls.add((function.qualname, f"{typed.name}.{use.attr}", use.call))
        self._released_cache[module.name] = released
        return released

    def _call_target(self, module: ModuleFacts, site: CallSite) -> Optional[tuple[FuncRef, Signature, str]]:
        owner = module.class_named(site.cls) if site.cls else None
        if site.callee.startswith("super().") or site.callee.startswith("self."):
            if owner is None:
                return None
            name = site.callee.split(".", 1)[1]
            classes = self.resolver.ancestry(ClassRef(self.tree, module, owner)).classes
            if site.callee.startswith("super()."):
                classes = classes[1:]
            for cls in classes:
                if name in cls.facts.methods or name in cls.facts.attrs:
                    methods = cls.facts.methods.get(name, [])
                    if cls.codebase is not self.release or len(methods) != 1:
                        return None  # the tree's own method, or an attribute
                    function = FuncRef(self.release, cls.module, methods[0], cls)
                    signature = call_signature(function, "instance")
                    if signature is None:
                        return None
                    return function, signature, f"{cls.facts.name}.{name}"
                if not self.resolver.bases_known(cls):
                    return None
            return None
        ref = self.resolver.resolve_dotted(self.tree, module, site.callee)
        if isinstance(ref, ClassRef):
            return self._constructor(ref)
        if not isinstance(ref, FuncRef) or ref.codebase is not self.release:
            return None
        through = "class" if ref.owner is not None else "plain"
        signature = call_signature(ref, through)
        if signature is None:
            return None
        label = f"{ref.owner.facts.name}.{ref.facts.name}" if ref.owner else ref.facts.name
        return ref, signature, label

    def _constructor(self, cls: ClassRef) -> Optional[tuple[FuncRef, Signature, str]]:
        if cls.codebase is not self.release:
            return None
        for ancestor in self.resolver.ancestry(cls).classes:
            facts = ancestor.facts
            if facts.decorators or facts.has_class_keywords or "__new__" in facts.methods:
                return None
            if "__init__" in facts.methods:
                found = self.resolver.lookup(ancestor, "__init__")
                if found is None or not isinstance(found[1], FuncRef):
                    return None
                signature = call_signature(found[1], "instance")
                return (found[1], signature, cls.facts.name) if signature is not None else None
            if not self.resolver.bases_known(ancestor):
                return None
        return None

    # -- attributes of batches ----------------------------------------------------------------
    def _attributes(self, module: ModuleFacts) -> None:
        batches = {
            c: n
            for c, n in ((self.model.schedule_batch, "ScheduleBatch"), (self.model.forward_batch, "ForwardBatch"))
            if c
        }
        for function in module.typed_functions:
            for typed in function.typed:
                if typed.sources:
                    cls = batch_class(self.resolver, self.tree, module, typed.sources)
                elif self._worker_override(module, function):
                    cls = self.model.schedule_batch
                else:
                    cls = None
                if cls is None or cls not in batches:
                    continue
                attrs = self.model.batch_attrs.get(cls)
                if attrs is None:
                    continue
                reported: set[tuple[str, bool]] = set()
                for use in typed.uses:
                    self.counts["attribute_uses"] += 1
                    if use.attr not in attrs:
                        if (use.attr, use.write) in reported:
                            continue
                        reported.add((use.attr, use.write))
                        verb = "writes" if use.write else "reads"
                        message = (
                            f"`{typed.name}.{use.attr}` {verb} an attribute that SGLang {self.label}'s "
                            f"{batches[cls]} does not define"
                        )
                        mismatch = Mismatch(
                            "attribute",
                            self.here(module),
                            use.line,
                            cls.module.display,
                            cls.facts.line,
                            message,
                            module=module.name,
                            function=function.qualname,
                            reason=f"{verb} {batches[cls]}.{use.attr}",
                            migrated_api=True,
                            attribute=use.attr,
                        )
                        if (function.qualname, typed.name, use.attr, use.write) in self._released(module).uses:
                            self.latent.append(mismatch)
                        else:
                            self.mismatches.append(mismatch)
                    elif use.call is not None:
                        found = self.resolver.lookup(cls, use.attr)
                        if found is not None and isinstance(found[1], FuncRef):
                            signature = call_signature(found[1], "instance")
                            if signature is not None:
                                self.counts["calls"] += 1
                                text = f"{typed.name}.{use.attr}(...)"
                                label = f"{found[0].facts.name}.{use.attr}"
                                key = (function.qualname, f"{typed.name}.{use.attr}", use.call)
                                self._bind(module, use.line, text, use.call, found[1], signature, label, key)

    def _imports(self, module: ModuleFacts) -> None:
        """`from sglang.X import Y` at module level, run unconditionally: the release must have
        module X and bind Y in it (or have a submodule X.Y). A module the release lacks but the tree
        has is the tree's own; a module with a star import or a module `__getattr__` answers any
        name. An SGLang module's import the release's copy makes too is the release's own."""
        released = (
            self.release.module(module.name) if is_sglang(module.name) and self.release.has(module.name) else None
        )
        own = {(b.target, b.attr) for bs in (released.bindings.values() if released else ()) for b in bs}
        for bindings in module.bindings.values():
            for binding in bindings:
                if binding.kind != "from" or binding.conditional or not is_sglang(binding.target):
                    continue
                self.counts["imports"] += 1
                message = self._import_problem(binding.target, binding.attr)
                if message is None:
                    continue
                mismatch = Mismatch(
                    "import",
                    self.here(module),
                    binding.line,
                    "",
                    0,
                    message,
                    module=module.name,
                    reason=message,
                    migrated_api=binding.target in _MIGRATED_MODULES or binding.target.startswith(_SPECULATIVE),
                )
                if (binding.target, binding.attr) in own:
                    self.latent.append(mismatch)
                else:
                    self.mismatches.append(mismatch)

    def _import_problem(self, target: str, attr: str) -> Optional[str]:
        if self.release.has(target):
            facts = self.release.module(target)
            if facts is None or facts.star_imports or "__getattr__" in facts.bindings or attr in facts.bindings:
                return None
            if self._fork_addition(target, attr):
                return None
            if self.release.has(f"{target}.{attr}") or f"{target}.{attr}" in self.release.prefixes:
                return None
            return f"SGLang {self.label}'s `{target}` does not define `{attr}`"
        if self.tree.has(target) or target in self.release.prefixes or target in self.tree.prefixes:
            return None
        return f"SGLang {self.label} has no module `{target}` (imported for `{attr}`)"

    def _fork_addition(self, target: str, attr: str) -> bool:
        """A name the tree's own copy of an SGLang module binds (a fork's helper, which a rebase onto
        the release keeps), outside the modules of the API this migration moves, where upstream
        renamed names the fork's copy still binds (`BaseDraftWorker`)."""
        if target in _MIGRATED_MODULES or target.startswith(_SPECULATIVE) or self.tree is self.release:
            return False
        own = self.tree.module(target) if self.tree.has(target) else None
        return own is not None and attr in own.bindings

    def _worker_override(self, module: ModuleFacts, function: FuncFacts) -> bool:
        """An unannotated `batch` counts in a worker's `forward_batch_*` override only."""
        class_name, _, method = function.qualname.rpartition(".")
        return bool(class_name) and method.startswith("forward_batch") and (module.name, class_name) in self.roles


# -- entry points --------------------------------------------------------------------------------
def check_against(path: Path, release: Release) -> AgainstReport:
    """Check the tree at `path` (a folder or one file) against the unpacked `release`."""
    folder = path if path.is_dir() else path.parent
    prefix = "" if str(folder) in ("", ".") else str(folder).rstrip("/") + "/"
    release_codebase = _release_codebase(release)
    if path.is_dir():
        tree = _codebase(path)
        if tree is not release_codebase and not tree.extracted:
            tree.load_facts(facts_file(path))  # a tree that is itself a release checked before
    else:
        # One file: named from the folder above its `sglang` package, if it is in one.
        above = next((p.parent for p in path.resolve().parents if p.name == "sglang"), path.resolve().parent)
        tree = Codebase(above, only=path.resolve())
        shown = path.resolve().relative_to(above).as_posix()
        prefix = str(path)[: -len(shown)] if str(path).endswith(shown) else f"{above}/"
    check = _Check(tree, release_model(release_codebase), release.label, prefix)
    check.run()
    release_codebase.save_facts(facts_file(release.root))
    return AgainstReport(
        tree=str(path),
        release=release.label,
        release_root=str(release.root),
        mismatches=sorted(set(check.mismatches), key=lambda m: (m.path, m.line, m.kind, m.message)),
        latent=sorted(set(check.latent), key=lambda m: (m.path, m.line, m.kind, m.message)),
        counts=dict(check.counts),
        unparsed=sorted(set(tree.unparsed)),
    )


def check_rewritten(
    root: Path, release: Release, texts: Mapping[Path, bytes], checked: Optional[Iterable[Path]] = None
) -> list[Mismatch]:
    """The mismatches `verify --against` finds in the files of `texts` (resolved path -> the bytes a
    rewrite would write), read in the tree at `root` with those texts in place of the files: what
    `rewrite --target-version`'s last step marks. Each mismatch's path is the file's resolved path;
    what the release itself does the same way (its latent ones) is left out, as verify leaves it.
    `checked`: the files of `texts` to check (default: all of them); the others only resolve names."""
    root = root.resolve()
    release_codebase = _release_codebase(release)
    tree = Codebase(root, overlay=texts)
    by_path = {path.resolve(): name for name, path in tree.files.items()}
    only = frozenset(
        by_path[path]
        for path in (texts if checked is None else checked)
        if path in by_path and any(n in tree.source(by_path[path]) for n in _REACHES_SGLANG)
    )
    check = _Check(tree, release_model(release_codebase), release.label, f"{root}/", only)
    check.run()
    release_codebase.save_facts(facts_file(release.root))
    return sorted(set(check.mismatches), key=lambda m: (m.path, m.line, m.kind, m.message))


def breaks_by_file(mismatches: Iterable[Mismatch]) -> dict[Path, list[Mismatch]]:
    """`check_rewritten`'s mismatches as `rewrite`'s contract pass takes them, by file."""
    found: dict[Path, list[Mismatch]] = {}
    for mismatch in mismatches:
        found.setdefault(Path(mismatch.path), []).append(mismatch)
    return found


def _release_codebase(release: Release) -> Codebase:
    """The release's codebase, with the facts an earlier run kept (`save_facts` keeps new ones)."""
    if release.shipped:
        return _codebase(release.root, release.label)
    codebase = _codebase(release.root)
    if not codebase.extracted:
        codebase.load_facts(facts_file(release.root))
    return codebase


def facts_file(root: Path) -> Path:
    """Where a release's facts are kept between runs, in the cache folder."""
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:24]
    return cache_directory() / SUBDIR / "facts" / f"{key}.pickle"


_CODEBASES: dict[str, Codebase] = {}
_KEEP = 2  # codebases kept in this process: a release and a tree or two, facts extracted once


def _codebase(root: Path, shipped: Optional[str] = None) -> Codebase:
    """One codebase per folder in this process (its facts are extracted once), the last few kept.
    `shipped`: the version whose shipped contract `root` names."""
    key = f"shipped:{shipped}" if shipped is not None else str(root.resolve())
    if shipped is not None:
        contract = shipped_release(shipped)
        if contract is None:
            raise ReleaseUnavailable(f"{shipped}: no contract shipped for this release")
        fresh = Codebase.shipped(contract, root)
    else:
        fresh = Codebase(root)
    codebase = _CODEBASES.pop(key, None)
    if codebase is None or codebase.stamp != fresh.stamp:
        codebase = fresh
        while len(_CODEBASES) >= _KEEP:
            oldest = next(iter(_CODEBASES))
            dropped = _CODEBASES.pop(oldest)
            for model_key in [k for k in _MODELS if k[1] == id(dropped)]:
                del _MODELS[model_key]
    _CODEBASES[key] = codebase  # most recently used last
    return codebase


def _on_marked_statement(mismatch: Mismatch) -> bool:
    """Whether the tree's line carries a `# mwbmigrate:` review marker, at its end or on the comment
    lines right above it (where a marker too long for its line stands)."""
    try:
        lines = Path(mismatch.path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    if not 0 < mismatch.line <= len(lines):
        return False
    if "# mwbmigrate: MWB" in lines[mismatch.line - 1]:
        return True
    number = mismatch.line - 1
    while number >= 1 and lines[number - 1].lstrip().startswith("#"):
        if lines[number - 1].lstrip().startswith("# mwbmigrate: MWB"):
            return True
        number -= 1
    return False


def check_baseline(baseline: Release, release: Release) -> AgainstReport:
    """The baseline release's own tree checked against `release`; its facts are kept in the cache
    folder as a release's are, so the next run against the same baseline reads no file again."""
    report = check_against(baseline.root, release)
    _codebase(baseline.root).save_facts(facts_file(baseline.root))
    return report


def narrow(
    report: AgainstReport,
    baseline: Optional[tuple[Release, AgainstReport]] = None,
    scope: Optional[ChangedScope] = None,
) -> None:
    """Leave out of `report.mismatches` what the baseline's own tree has too (`scope.py` says how
    they are matched), then what lies outside `scope`."""
    if baseline is not None:
        base_release, base = baseline
        report.baseline = base_release.label
        report.baseline_total = len(base.mismatches)
        on_changed = scope.on_touched_statement if scope is not None else None
        report.mismatches, report.baseline_subtracted = subtract_baseline(
            report.mismatches, base.mismatches, on_changed
        )
    if scope is not None:
        kept = [m for m in report.mismatches if scope.includes(m)]
        report.out_of_scope = len(report.mismatches) - len(kept)
        report.mismatches = kept
        report.scope = scope.describe()


def run_against(
    path: Path,
    against: str,
    fmt: str = "text",
    out: Optional[TextIO] = None,
    allow_review_markers: bool = False,
    baseline: Optional[str] = None,
    changed_since: Optional[str] = None,
    touched_statements: bool = False,
) -> int:
    """What `mwbmigrate verify PATH --against X` runs: 0 no mismatch, 1 mismatches, 2 no release
    (or no baseline, or no such revision).
    `allow_review_markers`: a mismatch on a statement that a review marker names is listed as
    reported (the migration said so there), and does not fail, as `verify` treats markers.
    `baseline`: a release the tree is based on; what its own tree mismatches is not counted.
    `changed_since`: a git revision; only the files changed since then are counted, and with
    `touched_statements` only the statements the diff touches."""
    stream = out or sys.stdout
    try:
        release = locate_release(against)
    except ReleaseUnavailable as error:
        print(f"error: --against {against}: {error}", file=sys.stderr)
        return EXIT_ERROR
    base_release: Optional[Release] = None
    if baseline is not None:
        try:
            base_release = locate_release(baseline)
        except ReleaseUnavailable as error:
            print(f"error: --baseline {baseline}: {error}", file=sys.stderr)
            return EXIT_ERROR
    scope: Optional[ChangedScope] = None
    if changed_since is not None:
        try:
            scope = changed_scope(path, changed_since, touched_statements)
        except ScopeUnavailable as error:
            print(f"error: --changed-since {changed_since}: {error}", file=sys.stderr)
            return EXIT_ERROR
    report = check_against(path, release)
    base = (base_release, check_baseline(base_release, release)) if base_release is not None else None
    narrow(report, base, scope)
    if allow_review_markers:
        report.reported = [m for m in report.mismatches if _on_marked_statement(m)]
        report.mismatches = [m for m in report.mismatches if m not in report.reported]
    if fmt == "json":
        stream.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        render_text(report, stream)
    return EXIT_OK if report.passed else EXIT_MISMATCH


def _plural(count: int, one: str, many: Optional[str] = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def render_text(report: AgainstReport, stream: TextIO) -> None:
    stream.write(f"verify {report.tree} --against {report.release} (release read from {report.release_root})\n")
    for mismatch in report.mismatches:
        stream.write(mismatch.render() + "\n")
    by_kind: dict[str, int] = {}
    for mismatch in report.mismatches:
        by_kind[mismatch.kind] = by_kind.get(mismatch.kind, 0) + 1
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(by_kind.items()))
    counts = report.counts
    stream.write(
        f"{_plural(len(report.mismatches), 'mismatch', 'mismatches')}"
        + (f" ({kinds})" if kinds else "")
        + f"; checked {_plural(counts.get('worker_methods', 0), 'worker method')} against "
        f"{_plural(counts.get('contract_calls', 0), 'release call')}, "
        f"{_plural(counts.get('calls', 0), 'call')} into the release, "
        f"{_plural(counts.get('attribute_uses', 0), 'batch attribute use')} in {_plural(counts.get('files', 0), 'file')}\n"
    )
    for mismatch in report.reported:
        stream.write(f"reported by a review marker, not counted: {mismatch.render()}\n")
    if report.baseline is not None:
        stream.write(
            f"not counted: {len(report.baseline_subtracted)} that the baseline {report.baseline}'s own tree has too "
            f"(it has {_plural(report.baseline_total, 'mismatch', 'mismatches')} against {report.release}; matched by "
            "kind, module, function and reason, not by line; `--format json` lists them)\n"
        )
    if report.scope is not None:
        stream.write(f"not counted: {report.out_of_scope} outside {report.scope}\n")
    if report.latent:
        stream.write(
            f"not counted: {len(report.latent)} in code the release has unchanged (the same call or attribute in "
            "the same function of the release: SGLang's own, not this tree's; `--format json` lists them)\n"
        )
    for line in report.unparsed:
        stream.write(f"not read: {line}\n")
