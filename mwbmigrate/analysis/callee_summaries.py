"""Whether a call that is handed the snapshot can keep it: the proof rule for calls.

After the rewrite the snapshot is the live batch, so a callee that keeps its argument (stores it,
returns it, binds it into a `functools.partial`, a constructor or a closure) holds the batch, and
every later change of the batch shows through it. A call is admitted silently only when one of
these rules proves that it keeps nothing:

- **SGLang's consumers** (`CONSUMERS`): the functions that took the old object in 0.5.12.post1 and
  that upstream made take the batch (`ForwardBatch.init_new`, the workers' `forward_batch_*`,
  `draft`, `verify`, ...). They read the batch for one forward, as upstream's own tree relies on.
- **Pure builtins** (`len`, `isinstance`, `print`, ...): they neither change nor keep an argument;
  copies and serialisers (`copy.copy`, `pickle.dumps`, ...) keep a copy, which wild-shapes reports.
- **Helpers of the module**, followed into their body (`helper_keeps`): a module-level function
  called by name, or a method of the enclosing class called through `self`/`cls` that no class of
  the module redefines. Every use of the parameter bound to the snapshot must be a field read the
  batch answers alike, an `is` test, or an argument to a call these rules admit (up to
  `HELPER_DEPTH` helpers deep). Anything else, a write through it included, is a keep.

Every other call is assumed to keep what it is handed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst
import libcst.matchers as m
from libcst.metadata import Assignment, BaseAssignment, ClassScope, Scope

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.old_api import (
    FIELDS_COMPUTED_FROM_REQS,
    OLD_CLASS,
    OLD_OBJECT_FIELDS,
    OLD_PARAMETER,
    ONE_SHOT_OVERRIDES,
    RENAMED_FIELDS,
    UPSTREAM_RENAMED_CALLEES,
)

# SGLang's functions that took the old object in 0.5.12.post1 (a `model_worker_batch` parameter, or
# one annotated with the class; read from the wheel with `ast`): upstream hands each the batch in
# 0.5.13, so each reads it for one forward, or keeps it as upstream's own tree does.
CONSUMERS = UPSTREAM_RENAMED_CALLEES | {
    "_compute_mrope_positions",
    "_draft_extend_for_decode",
    "_draft_extend_for_prefill",
    "_init_ngram_embedding_info",
    "_mamba_verify_update",
    "compute_spec_mrope_positions",
    "get_spec_adjusted_global_num_tokens",
    "init_new",
    "move_accepted_tokens_to_target_kvcache",
    "prepare_for_extend_to_fill_draft_kvcache",
    "prepare_for_v2_draft",
    "prepare_for_v2_verify",
    "resolve_future",
    "sample",
    "verify",
}
# Builtins that neither change their arguments nor keep them.
PURE_BUILTINS = frozenset(
    {
        "len",
        "isinstance",
        "issubclass",
        "hasattr",
        "getattr",
        "id",
        "type",
        "repr",
        "str",
        "bool",
        "int",
        "float",
        "print",
        "any",
        "all",
        "sum",
        "min",
        "max",
        "sorted",
        "hash",
        "format",
        "callable",
    }
)
# Calls that copy or serialise their argument: they keep a copy, not the batch (wild-shapes reports
# the copy itself, MWB131).
COPY_CALLS = frozenset(
    {
        "copy.copy",
        "copy.deepcopy",
        "dataclasses.replace",
        "dataclasses.asdict",
        "dataclasses.astuple",
        "dataclasses.fields",
        "builtins.vars",
        "pickle.dumps",
        "pickle.dump",
        "cloudpickle.dumps",
        "cloudpickle.dump",
        "dill.dumps",
        "msgpack.packb",
        "msgpack.pack",
        "msgspec.msgpack.encode",
        "torch.save",
    }
)
HELPER_DEPTH = 3
# The engine leaves out bodies no codemod reacts to (engine.elision); such a body cannot be followed.
ELIDED_BODY_PREFIX = "__mwbmigrate_elided_"
# Fields a helper may read through a parameter that is not itself the old object: the live batch
# answers them alike only when they exist on it under the same name and with the same value.
_DIFFERENT_ON_THE_BATCH = frozenset(RENAMED_FIELDS) | frozenset(FIELDS_COMPUTED_FROM_REQS) | {"seq_lens_cpu"}


def is_builtin(scope: Scope, func: cst.BaseExpression) -> bool:
    if not isinstance(func, cst.Name):
        return False
    return any(q.name == f"builtins.{func.value}" for q in scope.get_qualified_names_for(func))


def _single_def(assignments: Iterable[BaseAssignment]) -> cst.FunctionDef | None:
    found = [a.node for a in assignments if isinstance(a, Assignment)]
    if len(found) == 1 and isinstance(found[0], cst.FunctionDef) and not found[0].decorators:
        return found[0]
    return None


def _enclosing_class(scope: Scope) -> cst.ClassDef | None:
    parent = scope.parent
    if isinstance(parent, ClassScope) and isinstance(parent.node, cst.ClassDef):
        return parent.node
    return None


def resolve_helper(scope: Scope, call: cst.Call) -> tuple[cst.FunctionDef, int] | None:
    """The module's own function a call runs, and how many leading parameters the call does not pass
    (1 for a method called through `self`), or None when it cannot be known."""
    func = call.func
    if isinstance(func, cst.Name):
        if func.value not in scope:
            return None
        found = _single_def(scope[func.value])
        return (found, 0) if found is not None and _is_module_level(scope, func.value) else None
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        owner = _enclosing_class(scope)
        if owner is None:
            return None
        name = func.attr.value
        methods = _methods_named(owner, name)
        if len(methods) != 1 or methods[0].decorators:
            return None
        for assignment in scope.globals.assignments:
            other = assignment.node if isinstance(assignment, Assignment) else None
            if isinstance(other, cst.ClassDef) and other is not owner and _methods_named(other, name):
                return None  # another class of the module redefines it: `self` may be one of those
        return methods[0], 1
    return None


def _methods_named(owner: cst.ClassDef, name: str) -> list[cst.FunctionDef]:
    body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
    return [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name]


def _is_module_level(scope: Scope, name: str) -> bool:
    current = scope
    while name not in current.assignments and current.parent is not current:
        current = current.parent
    return current is current.globals


def bound_parameter(helper: cst.FunctionDef, skipped: int, call: cst.Call, argument: cst.Arg) -> cst.Param | None:
    """The parameter of `helper` that `argument` of `call` binds, when the call spells it plainly."""
    params = helper.params
    if argument.star:
        return None
    if argument.keyword is not None:
        for param in [*params.params, *params.kwonly_params]:
            if param.name.value == argument.keyword.value:
                return param
        return None
    positional = [*params.posonly_params, *params.params][skipped:]
    index = [a for a in call.args if not a.keyword].index(argument)
    return positional[index] if index < len(positional) else None


class _ParameterUses(cst.CSTVisitor):
    """The first use of one parameter that is not proven to keep nothing (`self.keep` says how)."""

    def __init__(self, summaries: CalleeSummaries, scope: Scope, name: str, holds_old: bool, depth: int) -> None:
        self.summaries = summaries
        self.scope = scope
        self.name = name
        self.holds_old = holds_old
        self.depth = depth
        self.stack: list[cst.CSTNode] = []
        self.keep: str | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.keep is not None:
            return False
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.GeneratorExp)) and self.stack:
            if _mentions(node, self.name):
                self.keep = "captured by a nested function, lambda or generator"
            return False
        self.stack.append(node)
        if isinstance(node, cst.Name) and node.value == self.name:
            self.keep = self._judge()
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()

    def _judge(self) -> str | None:
        name = self.stack[-1]
        parent = self.stack[-2] if len(self.stack) > 1 else None
        grand = self.stack[-3] if len(self.stack) > 2 else None
        if isinstance(parent, cst.Param):  # the parameter itself
            return None
        if isinstance(parent, cst.Attribute) and parent.value is name:
            if isinstance(grand, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
                isinstance(grand, cst.AnnAssign) and grand.target is parent
            ):
                return "writes to it"
            if isinstance(grand, cst.Call) and grand.func is parent:
                return f"calls its method `{parent.attr.value}()`"
            return self._field(parent.attr.value)
        if isinstance(parent, cst.Comparison) and all(
            isinstance(t.operator, (cst.Is, cst.IsNot)) for t in parent.comparisons
        ):
            return None
        if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and parent.value is name:
            return self.summaries.call_keeps(self.scope, grand, parent, self.holds_old, self.depth - 1)
        return "keeps or hands on it"

    def _field(self, field: str) -> str | None:
        if field.startswith("__"):
            return f"reads `{field}`"
        if field in ONE_SHOT_OVERRIDES or field == "seq_lens_cpu":
            return f"reads `{field}`, which a one-shot override sets"
        if self.holds_old:
            return None  # migrated in its own right: field-renames and the reports see its reads
        if field in _DIFFERENT_ON_THE_BATCH or field not in OLD_OBJECT_FIELDS:
            return f"reads `{field}`, which the batch does not answer alike"
        return None


def _elided(function: cst.FunctionDef) -> bool:
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    return any(
        isinstance(line, cst.SimpleStatementLine)
        and any(
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Name)
            and small.value.value.startswith(ELIDED_BODY_PREFIX)
            for small in line.body
        )
        for line in body
    )


def _mentions(node: cst.CSTNode, name: str) -> bool:
    class _Finder(cst.CSTVisitor):
        found = False

        def visit_Name(self, found: cst.Name) -> None:
            self.found = self.found or found.value == name

    finder = _Finder()
    node.visit(finder)
    return finder.found


def _holds_old(param: cst.Param) -> bool:
    if param.name.value == OLD_PARAMETER:
        return True
    annotation = param.annotation
    return annotation is not None and _mentions(annotation.annotation, OLD_CLASS)


class CalleeSummaries:
    """Answers, for one module, whether a call can keep an argument; helpers are judged once."""

    def __init__(self, scope_of: Callable[[cst.CSTNode], Scope | None]) -> None:
        self._scope_of = scope_of  # a function body -> its scope (ScopeProvider)
        self._judged: dict[tuple[int, str, int], str | None] = {}

    def call_keeps(self, scope: Scope, call: cst.Call, argument: cst.Arg, holds_old: bool, depth: int) -> str | None:
        """None when `call` provably keeps nothing of `argument`, else why not (one phrase)."""
        callee = callee_name(call) or "a call"
        if argument.star:
            return f"handed to `{callee}()` unpacked"
        if callee in CONSUMERS:
            return None
        if callee in PURE_BUILTINS and is_builtin(scope, call.func):
            return None
        if {q.name for q in scope.get_qualified_names_for(call.func)} & COPY_CALLS:
            return None
        resolved = resolve_helper(scope, call)
        if resolved is None:
            return f"handed to `{callee}()`, which may keep it"
        helper, skipped = resolved
        param = bound_parameter(helper, skipped, call, argument)
        if param is None:
            return f"handed to `{callee}()`, which may keep it"
        if depth <= 0:
            return f"handed to `{callee}()`, too deep to follow"
        key = (id(helper), param.name.value, depth)
        if key not in self._judged:
            self._judged[key] = None  # recursion: assumed, then judged
            self._judged[key] = self._judge_helper(helper, param, holds_old or _holds_old(param), depth)
        why = self._judged[key]
        return None if why is None else f"handed to `{callee}()`, which {why}"

    def changes_nothing(self, scope: Scope, call: cst.Call, depth: int = HELPER_DEPTH) -> bool:
        """Whether a method of the module called through `self` provably changes no object: its
        body writes no attribute or item, deletes nothing, does not suspend, and calls only pure
        builtins and methods that are quiet in turn (`return self.model_runner_list[i]`)."""
        resolved = resolve_helper(scope, call)
        if resolved is None or depth <= 0:
            return False
        helper, _ = resolved
        key = (id(helper), "<quiet>", depth)
        if key not in self._judged:
            self._judged[key] = "assumed quiet while judged"  # recursion: not quiet
            helper_scope = self._scope_of(helper.body)
            quiet = helper_scope is not None and not _elided(helper) and self._quiet(helper, helper_scope, depth)
            self._judged[key] = None if quiet else "not quiet"
        return self._judged[key] is None

    def _quiet(self, helper: cst.FunctionDef, scope: Scope, depth: int) -> bool:
        noisy = (
            m.AugAssign() | m.Del() | m.Await() | m.Yield() | m.Global() | m.Nonlocal() | m.FunctionDef() | m.Lambda()
        )
        if m.findall(helper.body, noisy):
            return False
        for target in m.findall(helper.body, m.AssignTarget() | m.AnnAssign()):
            written = target.target if isinstance(target, (cst.AssignTarget, cst.AnnAssign)) else None
            if not isinstance(written, cst.Name):
                return False
        for inner in m.findall(helper.body, m.Call()):
            assert isinstance(inner, cst.Call)
            if callee_name(inner) in PURE_BUILTINS and is_builtin(scope, inner.func):
                continue
            if not self.changes_nothing(scope, inner, depth - 1):
                return False
        return True

    def _judge_helper(self, helper: cst.FunctionDef, param: cst.Param, holds_old: bool, depth: int) -> str | None:
        scope = self._scope_of(helper.body)
        if scope is None:
            return "may keep it"
        if _elided(helper):
            return "may keep it (its body was not read)"
        if len(scope.assignments[param.name.value]) != 1:
            return f"rebinds `{param.name.value}`"
        uses = _ParameterUses(self, scope, param.name.value, holds_old, depth)
        helper.body.visit(uses)
        return uses.keep
