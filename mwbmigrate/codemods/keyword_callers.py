"""Follow renamed parameters to keyword call sites, across files, where the callee is known.

    self.target_worker.forward_batch_generation(model_worker_batch=None, ...)
->  self.target_worker.forward_batch_generation(batch=None, ...)

Runs in the engine's second pass with the signatures every file's parameter rename recorded, each
with the module that defines it (analysis.signatures). A keyword is renamed only where the callee
resolves to a renamed definition:

- a function or class of this module called by its name (a class: its `__init__`);
- `self.m(...)` / `cls.m(...)` in a method of a class that defines or inherits `m` in this module,
  `super().m(...)`, `SomeClass.m(self, ...)`, `SomeClass(...).m(...)`, and a local bound once to
  `SomeClass(...)` or annotated `SomeClass`;
- a name imported from the module that defines it (`from pkg.mod import f`, `import pkg.mod as m;
  m.f(...)`, an imported class's method);
- SGLang's own renamed API (`forward_batch_generation`, `draft`, ...) on any receiver that resolves
  to nothing in this project: plugins call it on workers they were handed (README, shape 12).

Otherwise the call is left as it is: MWB147 when some function of that name was renamed in the
project but this call cannot be pinned to it (an unknown receiver, or `self.m` that a subclass here
overrides differently), MWB115 when nothing of that name was renamed, MWB108 when the definitions
the call may reach were renamed two different ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union

import libcst as cst
from libcst.metadata import Assignment, BaseAssignment, QualifiedNameSource, ScopeProvider

from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.signatures import RenamedSignature, module_parts, renames_of
from mwbmigrate.codemods.base import REPORTS, MigrationCodemod, MigrationState, marked_codes, statement_markers


@dataclass(frozen=True)
class _Local:
    """A class of this module, by its dotted path (`Outer.Inner`)."""

    path: str


@dataclass(frozen=True)
class _Imported:
    """Something imported, by the dotted name it was imported as (relative ones keep their dots)."""

    dotted: str


_ClassRef = Union[_Local, _Imported]
_NO_METHODS = object()  # a base known to add nothing (`object`, `Generic[T]`)
_KEPT_CODES = ("MWB147", "MWB108")  # this codemod's reasons for keeping a keyword it knew was renamed


@dataclass(frozen=True)
class _Callee:
    """What a call's function resolved to; neither `local` nor `imported`: not resolved."""

    name: str  # the bare name called
    local: str | None = None  # dotted path of a function of this module
    imported: str | None = None  # dotted name of an imported function or method
    dispatch: str | None = None  # the receiver may be any subclass of this local class (self, cls, an annotation)


@dataclass(frozen=True)
class _Plan:
    """What to do at one call: rename `renames` (old -> new, None: ambiguous), and/or report."""

    what: str  # the callee, as the markers name it
    renames: dict[str, str | None]
    review: tuple[str, str] | None = None  # (code, reason)


class _ModuleIndex(cst.CSTVisitor):
    """Classes and functions of one module by dotted path, the first parameter of each method, and
    the value or annotation bound to each simply assigned name."""

    def __init__(self) -> None:
        self.paths: dict[int, tuple[cst.CSTNode, str]] = {}  # id -> (ClassDef or FunctionDef, dotted path)
        self.classes: dict[str, cst.ClassDef] = {}
        self.functions: dict[str, list[cst.FunctionDef]] = {}  # dotted path -> its definitions
        self.method_receivers: dict[int, tuple[cst.Param, str]] = {}  # id(first parameter) -> (it, class path)
        self.bound: dict[int, tuple[cst.Name, cst.BaseExpression | None, cst.BaseExpression | None]] = {}
        self._stack: list[str] = []

    def path_of(self, node: cst.CSTNode) -> str | None:
        entry = self.paths.get(id(node))
        return entry[1] if entry is not None and entry[0] is node else None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._stack.append(node.name.value)
        path = ".".join(self._stack)
        self.paths[id(node)] = (node, path)
        self.classes[path] = node
        for statement in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
            if isinstance(statement, cst.FunctionDef) and not _is_static(statement):
                params = [*statement.params.posonly_params, *statement.params.params]
                if params:
                    self.method_receivers[id(params[0])] = (params[0], path)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._stack.append(node.name.value)
        path = ".".join(self._stack)
        self.paths[id(node)] = (node, path)
        self.functions.setdefault(path, []).append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            target = node.targets[0].target
            self.bound[id(target)] = (target, node.value, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.bound[id(node.target)] = (node.target, node.value, node.annotation.annotation)

    def binding(self, name: cst.Name) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None:
        """(value, annotation) of a simple `name = value` / `name: annotation = value`."""
        entry = self.bound.get(id(name))
        return entry[1:] if entry is not None and entry[0] is name else None

    def receiver_class(self, param: cst.Param) -> str | None:
        entry = self.method_receivers.get(id(param))
        return entry[1] if entry is not None and entry[0] is param else None


def _is_static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _defines(class_def: cst.ClassDef, name: str) -> cst.CSTNode | None:
    """The statement of a class body that binds `name` (a `def`, or anything else that assigns it)."""
    for statement in class_def.body.body if isinstance(class_def.body, cst.IndentedBlock) else ():
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value == name:
            return statement
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else ([small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else [])
            )
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                return statement
    return None


def _listing(signatures: Iterable[RenamedSignature]) -> str:
    return " or ".join(sorted({f"`{s.qualname}`" for s in signatures}))


def _unknown(what: str, passed: list[str]) -> tuple[str, str] | None:
    if OLD_PARAMETER not in passed:
        return None
    return (
        "MWB115",
        f"`{OLD_PARAMETER}=` passed to {what}, not known to be renamed here: if it is SGLang's, it takes `batch=` now",
    )


class RenameKeywordArguments(MigrationCodemod):
    CODE = "MWB007"
    NAME = "keyword-callers"
    SUMMARY = "Rename `model_worker_batch=` keywords in calls that resolve to a function whose parameter was renamed."
    TRIGGERS = (OLD_PARAMETER,)
    REVIEW_CODES = ("MWB108", "MWB115", "MWB147")
    REQUIRES = REPORTS
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return any(old in text for old in state.project_signatures.old_names())

    def visit_Module(self, node: cst.Module) -> None:
        self._index = _ModuleIndex()
        node.visit(self._index)
        self._module = module_parts(self.state.location.path)
        self._olds = self.state.project_signatures.old_names()
        self._bases: dict[
            str, list[_ClassRef | object | None]
        ] = {}  # class path -> what each of its bases names (_class_ref)

    # -- what a name or expression is bound to -------------------------------------------------
    def _referents(self, name: cst.Name) -> list[BaseAssignment]:
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return []
        return [r for access in scope.accesses[name.value] if access.node is name for r in access.referents]

    def _imported_name(self, node: cst.BaseExpression) -> str | None:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return None
        names = {q.name for q in scope.get_qualified_names_for(node) if q.source is QualifiedNameSource.IMPORT}
        return names.pop() if len(names) == 1 else None

    def _class_ref(self, node: cst.BaseExpression) -> _ClassRef | object | None:
        """A class named by an expression: one of this module's, an imported one, `_NO_METHODS` for
        `object` / `Generic[T]`, or None."""
        if isinstance(node, cst.Subscript):
            base = self._class_ref(node.value)
            return _NO_METHODS if isinstance(base, _Imported) and base.dotted.startswith("typing.") else base
        if isinstance(node, cst.Name):
            referents = self._referents(node)
            if len(referents) != 1:
                return None
            referent = referents[0]
            if not isinstance(referent, Assignment):
                return _NO_METHODS if node.value == "object" else None
            path = self._index.path_of(referent.node)
            if isinstance(referent.node, cst.ClassDef) and path is not None:
                return _Local(path)
        imported = self._imported_name(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        return _Imported(imported) if imported is not None else None

    def _receiver(self, node: cst.BaseExpression) -> tuple[_ClassRef, bool] | None:
        """(class, whether a subclass may stand in) of a call's receiver."""
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name) and (owner := self._method_receiver_class(node.func)) is not None:
                return _Local(owner), True  # `cls(...)`: this class or a subclass
            cls = self._class_ref(node.func)
            return (cls, False) if isinstance(cls, (_Local, _Imported)) else None
        if isinstance(node, cst.Name):
            referents = self._referents(node)
            if len(referents) != 1 or not isinstance(referents[0], Assignment):
                return None
            bound = referents[0].node
            if isinstance(bound, cst.Param):
                owner = self._index.receiver_class(bound)
                if owner is not None:
                    return _Local(owner), True
                if bound.annotation is not None:
                    cls = self._class_ref(bound.annotation.annotation)
                    return (cls, True) if isinstance(cls, (_Local, _Imported)) else None
                return None
            if isinstance(bound, cst.Name):
                binding = self._index.binding(bound)
                if binding is None:
                    return None
                value, annotation = binding
                if annotation is not None:
                    cls = self._class_ref(annotation)
                    return (cls, True) if isinstance(cls, (_Local, _Imported)) else None
                return self._receiver(value) if isinstance(value, cst.Call) else None
        cls = self._class_ref(node)  # a class or module named directly: `Worker.run`, `pkg.mod.f`
        return (cls, False) if isinstance(cls, (_Local, _Imported)) else None

    def _method_receiver_class(self, name: cst.Name) -> str | None:
        """The class when `name` is the first parameter (`self`, `cls`) of one of its methods."""
        referents = self._referents(name)
        if len(referents) == 1 and isinstance(referents[0], Assignment) and isinstance(referents[0].node, cst.Param):
            return self._index.receiver_class(referents[0].node)
        return None

    # -- which definition a call reaches -------------------------------------------------------
    def _lookup(self, cls: _ClassRef, name: str, dispatch: str | None, seen: set[str]) -> _Callee | None | bool:
        """The method `name` of `cls`, through its bases in order: a callee, None when no class on
        this path defines it, False when a base that cannot be resolved is reached first."""
        if isinstance(cls, _Imported):
            return _Callee(name, imported=f"{cls.dotted}.{name}", dispatch=dispatch)
        if cls.path in seen:
            return None
        seen.add(cls.path)
        class_def = self._index.classes[cls.path]
        definition = _defines(class_def, name)
        if definition is not None:
            if isinstance(definition, cst.FunctionDef):
                return _Callee(name, local=f"{cls.path}.{name}", dispatch=dispatch)
            return False  # bound some other way: `run = staticmethod(_impl)`
        return self._lookup_bases(class_def, name, dispatch, seen)

    def _bases_of(self, path: str) -> list[_ClassRef | object | None]:
        if path not in self._bases:
            bases = self._index.classes[path].bases
            self._bases[path] = [self._class_ref(b.value) for b in bases if b.keyword is None and not b.star]
        return self._bases[path]

    def _lookup_bases(
        self, class_def: cst.ClassDef, name: str, dispatch: str | None, seen: set[str]
    ) -> _Callee | None | bool:
        for cls in self._bases_of(self._index.path_of(class_def) or ""):
            if cls is _NO_METHODS:
                continue
            if not isinstance(cls, (_Local, _Imported)):
                return False
            found = self._lookup(cls, name, dispatch, seen)
            if found is not None:
                return found
        return None

    def _enclosing_method_class(self) -> str | None:
        """The class whose method encloses the node being visited (what `super()` starts after)."""
        functions = [n for n in self._ancestors if isinstance(n, cst.FunctionDef)]
        if not functions:
            return None
        block = self.parent(functions[-1])
        owner = self.parent(block) if block is not None else None
        return self._index.path_of(owner) if isinstance(owner, cst.ClassDef) else None

    def _resolve(self, func: cst.BaseExpression, depth: int = 0) -> _Callee | None:
        if isinstance(func, cst.Name):
            referents = self._referents(func)
            if len(referents) == 1 and isinstance(referents[0], Assignment):
                node = referents[0].node
                path = self._index.path_of(node)
                binding = self._index.binding(node) if isinstance(node, cst.Name) else None
                if (
                    binding is not None
                    and binding[1] is None
                    and isinstance(binding[0], (cst.Name, cst.Attribute))
                    and depth < 4
                ):
                    # `f = helper` bound once: the call reaches what `helper` is.
                    return self._resolve(binding[0], depth + 1)
                if isinstance(node, cst.FunctionDef) and path is not None:
                    return _Callee(func.value, local=path)
                if isinstance(node, cst.ClassDef) and path is not None:
                    found = self._lookup(_Local(path), "__init__", None, set())
                    return found if isinstance(found, _Callee) else _Callee("__init__")
                if isinstance(node, (cst.Import, cst.ImportFrom)):
                    imported = self._imported_name(func)
                    # Known by the name it was defined with: `from m import helper as h` calls `helper`.
                    return _Callee(imported.rsplit(".", 1)[-1], imported=imported) if imported else _Callee(func.value)
            return _Callee(func.value)
        if not isinstance(func, cst.Attribute):
            return None
        name = func.attr.value
        receiver = func.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            owner = self._enclosing_method_class() if not receiver.args else None
            if owner is not None:
                found = self._lookup_bases(self._index.classes[owner], name, None, {owner})
                if isinstance(found, _Callee):
                    return found
            return _Callee(name)
        resolved = self._receiver(receiver)
        if resolved is None:
            return _Callee(name)
        cls, may_be_subclass = resolved
        dispatch = cls.path if may_be_subclass and isinstance(cls, _Local) else None
        found = self._lookup(cls, name, dispatch, set())
        return found if isinstance(found, _Callee) else _Callee(name, dispatch=dispatch)

    def _overriders(self, owner: str, name: str) -> list[str]:
        """Local subclasses of `owner`, at any depth, that define `name` themselves."""
        found, seen, frontier = [], {owner}, [owner]
        while frontier:
            current = frontier.pop()
            for path, class_def in self._index.classes.items():
                if path not in seen and any(isinstance(b, _Local) and b.path == current for b in self._bases_of(path)):
                    seen.add(path)
                    frontier.append(path)
                    if _defines(class_def, name) is not None:
                        found.append(path)
        return sorted(found)

    # -- the rewrite ---------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        passed = [
            arg.keyword.value
            for arg in original_node.args
            if arg.keyword is not None and arg.keyword.value in self._olds
        ]
        if not passed or self._kept_before(original_node):
            return updated_node
        callee = self._resolve(original_node.func)
        plan = self._plan(callee, passed)
        if callee is not None and callee.dispatch is not None:
            plan = self._dispatch_conflict(callee, plan, passed) or plan
        if plan.review is not None:
            self.review(original_node, *plan.review)
        return self._apply(original_node, updated_node, plan) if plan.renames else updated_node

    def _plan(self, callee: _Callee | None, passed: list[str]) -> _Plan:
        signatures = self.state.project_signatures
        if callee is None:
            return _Plan("this callable", {}, _unknown("this callable", passed))
        if callee.local is not None:
            found = signatures.defined_at(self._module, callee.local)
            if found:
                return _Plan(f"`{callee.local}`", self._keyword_renames(callee.local, renames_of(found)))
            kept = ("MWB115", f"`{OLD_PARAMETER}=` passed to `{callee.local}`, whose parameters were not renamed here")
            return _Plan(f"`{callee.local}`", {}, kept if OLD_PARAMETER in passed else None)
        if callee.imported is not None:
            found = signatures.imported(callee.imported, self.state.location.path)
            if found:
                return _Plan(f"`{callee.name}`", renames_of(found))
        what = f"`{callee.name}`"
        upstream = signatures.upstream.get(callee.name)
        same_name = signatures.named(callee.name)
        if upstream is not None:
            # SGLang's own API on a receiver nothing here defines: renamed as upstream did, unless
            # the project renamed a function of the same name another way (MWB108).
            return _Plan(
                what, renames_of([*(RenamedSignature((), callee.name, o, n) for o, n in upstream.items()), *same_name])
            )
        if same_name:
            keywords = "/".join(f"`{k}=`" for k in dict.fromkeys(passed))
            new = "/".join(sorted({f"`{s.new}=`" for s in same_name}))
            reason = f"{keywords} kept: cannot tell whether this `{callee.imported or callee.name}` is {_listing(same_name)}, which takes {new} now"
            return _Plan(what, {}, ("MWB147", reason))
        return _Plan(what, {}, _unknown(what, passed))

    def _keyword_renames(self, path: str, renames: dict[str, str | None]) -> dict[str, str | None]:
        """Less the renamed parameters that are positional-only here (pass 1 renamed the definition
        already): a keyword of that name never reached them (it went to `**kwargs`, if anywhere),
        and must keep its name."""
        positional_only = {p.name.value for f in self._index.functions.get(path, ()) for p in f.params.posonly_params}
        return {old: new for old, new in renames.items() if new not in positional_only}

    def _kept_before(self, call: cst.Call) -> bool:
        """Whether an earlier run already kept this call's keyword and said why (MWB147, MWB108).
        A later run knows less: the definitions it was matched against are renamed already, so
        their signatures are recorded no more, and it would rename what the first run refused, or
        add a vaguer MWB115 beside the first reason. The marker goes when the site is fixed."""
        markers = statement_markers(self.enclosing_statement(call))
        return bool(marked_codes(markers) & set(_KEPT_CODES))

    def _dispatch_conflict(self, callee: _Callee, plan: _Plan, passed: list[str]) -> _Plan | None:
        """`self.m(...)` may run a subclass's own `m`: kept, and said, when one defined here takes
        the passed keywords under other names than the plan gives them."""
        for path in self._overriders(callee.dispatch or "", callee.name):
            renames = renames_of(self.state.project_signatures.defined_at(self._module, f"{path}.{callee.name}"))
            for keyword in passed:
                ours, theirs = plan.renames.get(keyword, keyword), renames.get(keyword, keyword)
                if ours != theirs:
                    target = callee.local or callee.imported or callee.name
                    reason = (
                        f"`{keyword}=` kept: this call may run `{target}` (takes `{ours}=` now) or the "
                        f"override `{path}.{callee.name}` (takes `{theirs}=`)"
                    )
                    return _Plan(plan.what, {}, ("MWB147", reason))
        return None

    def _apply(self, original: cst.Call, updated: cst.Call, plan: _Plan) -> cst.Call:
        args = []
        for arg in updated.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in plan.renames:
                new = plan.renames[keyword]
                if new is None:
                    self.review(original, "MWB108", f"{plan.what} renames `{keyword}` differently in different places")
                else:
                    arg = arg.with_changes(keyword=cst.Name(new))
            elif keyword == OLD_PARAMETER:
                self.review(
                    original,
                    "MWB115",
                    f"`{OLD_PARAMETER}=` passed to {plan.what}, which does not rename that parameter",
                )
            args.append(arg)
        return updated.with_changes(args=args)
