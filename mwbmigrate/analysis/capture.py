"""Whether a variable can take another name without any occurrence changing meaning (name capture).

parameter-renames turns `model_worker_batch` into `batch`, and worker-batch-calls reads the receiver
`batch` wherever the local `mwb = batch.get_model_worker_batch()` was read. Both rewrite names in
every scope nested in the function, and Python resolves a name in the innermost scope that binds it:

    captured   a scope between an occurrence and the function binds the new name
                   [w.run(model_worker_batch, batch) for batch in others]    comprehension target
                   lambda batch: model_worker_batch                           parameter
                   class Local: batch = 1; seen = model_worker_batch          class body
    shadowed   the function gains a binding of the new name that an existing read meant elsewhere
                   def helper(): return batch                                 the module's `batch`
    dynamic    the function looks names up by string: `locals()`, `vars()`, `eval`, `exec`, frames
    printed    a self-documenting f-string prints the name: `f"{model_worker_batch.seq_lens=}"`

A class body is invisible to the scopes nested in it, and a comprehension's first iterable belongs to
the enclosing scope, as in Python (LibCST resolves both). A walrus target inside a comprehension
binds in the enclosing function in Python, while LibCST records it in the comprehension: corrected
here. `global`/`nonlocal` declarations of the new name are counted as bindings (conservative).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import ClassScope, ComprehensionScope, FunctionScope, Scope

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.window import Unproven

if TYPE_CHECKING:
    from mwbmigrate.analysis.receivers import FunctionFacts

ScopeOf = Callable[[cst.CSTNode], "Scope | None"]

# Calls that read a function's variables by name: renaming a variable changes what they see.
_DYNAMIC_READS = frozenset(
    {
        "builtins.locals",
        "builtins.vars",
        "builtins.dir",
        "builtins.eval",
        "builtins.exec",
        "sys._getframe",
        "inspect.currentframe",
        "inspect.stack",
    }
)
# `vars(x)` and `dir(x)` read an object, not the caller's variables.
_ONLY_WITHOUT_ARGUMENTS = {"builtins.vars", "builtins.dir"}
_DYNAMIC_CALLEES = {name.rsplit(".", 1)[-1] for name in _DYNAMIC_READS}


def _parent(scope: Scope) -> Scope | None:
    # LibCST's builtin scope is its own parent.
    return scope.parent if scope.parent is not scope else None


def describe(scope: Scope) -> str:
    """`a comprehension`, `a lambda`, `the nested function `helper``, `the class body `Local``."""
    node = getattr(scope, "node", None)
    if isinstance(scope, ComprehensionScope):
        return "a comprehension"
    if isinstance(node, cst.Lambda):
        return "a lambda"
    if isinstance(node, cst.FunctionDef):
        return f"the nested function `{node.name.value}`"
    if isinstance(node, cst.ClassDef):
        return f"the class body `{node.name.value}`"
    return "a nested scope"


class _Survey(cst.CSTVisitor):
    """One walk over a function body: its nested scopes, declarations, walrus targets, dynamic reads."""

    def __init__(self, home: Scope, scope_of: ScopeOf) -> None:
        self.home = home
        self.scope_of = scope_of
        self.scopes: dict[Scope, None] = {}  # nested scopes, in order of appearance
        self.names: set[int] = set()  # ids of the Name nodes of the body (the body keeps them alive)
        self.declared: dict[Scope, set[str]] = {}  # scope -> names it declares global or nonlocal
        self.nonlocals: list[tuple[Scope, cst.Name]] = []
        self.declaring: dict[int, Scope] = {}  # id of a declared Name (LibCST gives it no scope) -> its scope
        self.walrus: dict[Scope, set[str]] = {}  # scope a comprehension's walrus binds in -> names
        self.dynamic: list[cst.Call] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(id(node))
        scope = self.scope_of(node)
        if scope is not None and scope is not self.home:
            self.scopes.setdefault(scope, None)

    def _declare(self, node: cst.Global | cst.Nonlocal) -> None:
        scope = self.scope_of(node)
        if scope is None:
            return
        for item in node.names:
            self.declared.setdefault(scope, set()).add(item.name.value)
            self.declaring[id(item.name)] = scope
            if isinstance(node, cst.Nonlocal):
                self.nonlocals.append((scope, item.name))

    def visit_Global(self, node: cst.Global) -> None:
        self._declare(node)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._declare(node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        scope = self.scope_of(node)
        if not isinstance(node.target, cst.Name) or not isinstance(scope, ComprehensionScope):
            return
        while isinstance(scope, ComprehensionScope):
            scope = _parent(scope)
        if scope is not None:
            self.walrus.setdefault(scope, set()).add(node.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if callee_name(node) not in _DYNAMIC_CALLEES:
            return
        scope = self.scope_of(func)
        for qualified in scope.get_qualified_names_for(func) if scope is not None else ():
            if qualified.name in _DYNAMIC_READS and not (qualified.name in _ONLY_WITHOUT_ARGUMENTS and node.args):
                self.dynamic.append(node)
                return


class NestedScopes:
    """The scopes of one function body, asked whether one of its variables can take a new name.

    `home` is the function's own scope, where the variable is bound (or, for an alias merge, where
    the receiver's name already means what the alias held).
    """

    def __init__(self, body: cst.CSTNode, home: Scope, scope_of: ScopeOf) -> None:
        self.home = home
        self._scope_of = scope_of
        self._survey = _Survey(home, scope_of)
        body.visit(self._survey)

    # -- facts ---------------------------------------------------------------------------------
    def scope_of(self, node: cst.CSTNode) -> Scope | None:
        declaring = self._survey.declaring.get(id(node))
        return declaring if declaring is not None else self._scope_of(node)

    def contains(self, node: cst.CSTNode) -> bool:
        """Whether a Name node lies in the surveyed body."""
        return id(node) in self._survey.names

    def _binds(self, scope: Scope, name: str) -> bool:
        return (
            bool(scope.assignments[name])
            or name in self._survey.declared.get(scope, ())
            or name in self._survey.walrus.get(scope, ())
        )

    def taken(self, name: str) -> bool:
        """The function itself binds or reads `name` (a walrus in a comprehension included)."""
        return self._binds(self.home, name) or bool(self.home.accesses[name])

    def dynamic_reads(self) -> list[cst.Call]:
        """`locals()`, `vars()`, `eval(...)`, ... anywhere in the body."""
        return list(self._survey.dynamic)

    def declarations_of(self, name: str) -> list[Scope]:
        """Nested scopes that declare `name` global or nonlocal."""
        return [scope for scope, names in self._survey.declared.items() if name in names and scope is not self.home]

    def nonlocal_names(self, name: str) -> list[cst.Name]:
        """The `x` of each `nonlocal x` in a nested function that refers to `home`'s `x`."""
        found = []
        for scope, item in self._survey.nonlocals:
            if item.value == name and self._nonlocal_target(_parent(scope), name) is self.home:
                found.append(item)
        return found

    def _nonlocal_target(self, scope: Scope | None, name: str) -> Scope | None:
        # `nonlocal` skips class bodies and scopes that only forward the name (their own `nonlocal`).
        while scope is not None:
            if scope is self.home:
                return scope
            declared = name in self._survey.declared.get(scope, ())
            if isinstance(scope, FunctionScope) and not declared and scope.assignments[name]:
                return scope
            scope = _parent(scope)
        return None

    # -- hazards -------------------------------------------------------------------------------
    def captured(self, occurrences: Iterable[cst.CSTNode], new_name: str) -> str | None:
        """Why `new_name`, written at one of `occurrences`, would not mean what it means in `home`:
        a scope between that occurrence and `home` binds it."""
        for node in occurrences:
            if not isinstance(node, cst.Name):
                continue
            scope = self.scope_of(node)
            innermost = True
            while scope is not None and scope is not self.home:
                # A class body binds names for its own statements only, not for the scopes inside it.
                if (innermost or not isinstance(scope, ClassScope)) and self._binds(scope, new_name):
                    return f"{describe(scope)} binds `{new_name}`"
                innermost = False
                scope = _parent(scope)
            if scope is None:
                return "an occurrence lies outside the function's scopes"
        return None

    def shadowed(self, new_name: str, planned: Iterable[cst.CSTNode] = ()) -> str | None:
        """Why a new binding of `new_name` in `home` would change an existing read in a nested scope:
        the read means another variable (the module's, a builtin, an outer function's), or a nested
        scope declares the name global/nonlocal. `planned` are Name nodes another rename of this pass
        already turns into `new_name`."""
        nested = self._survey.scopes
        for scope in nested:
            if new_name in self._survey.declared.get(scope, ()):
                return f"{describe(scope)} declares `{new_name}` global or nonlocal"
            for access in scope.accesses[new_name]:
                referents = access.referents
                if not referents or any(referent.scope not in nested for referent in referents):
                    return f"{describe(scope)} reads another `{new_name}`"
        if any(self.contains(node) for node in planned):
            return f"an enclosing function's variable read here is renamed `{new_name}` too"
        return None


def dynamic_read_names(calls: Iterable[cst.Call]) -> str:
    """`locals()`, `eval()`: the calls in a reason, once each, in order."""
    labels = []
    for call in calls:
        func = call.func
        callee = func.value if isinstance(func, cst.Name) else cst.Module([]).code_for_node(func)
        label = f"`{callee}()`"
        if label not in labels:
            labels.append(label)
    return ", ".join(labels)


def alias_occurrences(facts: FunctionFacts, name: str) -> list[cst.CSTNode]:
    """Every read of a local of the function."""
    if facts.scope is None:
        return []
    return [reference.node for assignment in facts.scope.assignments[name] for reference in assignment.references]


def alias_merge_hazard(facts: FunctionFacts, scopes: NestedScopes, name: str, receiver: str) -> str | None:
    """Why reading `receiver` where `name` was read would change what some occurrence means: a
    nested scope binds `receiver` there, or declares `name` global/nonlocal (the merge deletes the
    binding it refers to), or the function reads its variables by name."""
    declared = scopes.declarations_of(name)
    if declared:
        return f"{describe(declared[0])} declares `{name}` global or nonlocal"
    captured = scopes.captured(alias_occurrences(facts, name), receiver)
    if captured is not None:
        return f"{captured} and reads `{name}`, so `{receiver}` there would be another variable"
    dynamic = scopes.dynamic_reads()
    if dynamic:
        return f"the function reads its variables by name ({dynamic_read_names(dynamic)}), which would no longer see `{name}`"
    return None


def refuse_captured_aliases(facts: FunctionFacts, scope_of: ScopeOf, keep_snapshots: bool = False) -> FunctionFacts:
    """Move to `facts.refusals` every alias whose merge into its receiver would change what a name
    means (`alias_merge_hazard`), with every other alias of that receiver (they are merged together
    or not at all), so that every codemod reading the facts keeps them as the old object alike."""
    if not facts.aliases or facts.scope is None:
        return facts
    scopes = NestedScopes(facts.function.body, facts.scope, scope_of)
    refused: dict[str, str] = {}  # receiver -> reason
    for name, receiver in facts.aliases.items():
        if receiver not in refused:
            reason = alias_merge_hazard(facts, scopes, name, receiver)
            if reason is not None:
                refused[receiver] = reason
    kept: set[str] = set()
    for name, receiver in list(facts.aliases.items()):
        if receiver in refused:
            # The call is what is kept and marked; `alias = mwb` then simply holds what the call returned.
            calls = [binding.statement for binding in facts.bindings[name] if binding.call is not None]
            if keep_snapshots:
                for statement in calls:  # safe mode: the copy keeps the old object under its own name
                    facts.kept[statement] = Unproven(statement, refused[receiver])
            elif calls:
                facts.refusals.append((calls[0], refused[receiver]))
            del facts.aliases[name]
            del facts.bindings[name]
            kept.add(name)
    # A site whose call is kept is not read live: no marker says it is.
    facts.live_sites[:] = [site for site in facts.live_sites if not site[1] & kept]
    return facts
