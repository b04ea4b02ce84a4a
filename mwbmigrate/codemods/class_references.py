"""Replace references to `ModelWorkerBatch` with `ScheduleBatch`: annotations, generic subscripts,
`typing.cast`, `TypeVar` bounds, string annotations.

    def f(batch: ModelWorkerBatch) -> Optional[ModelWorkerBatch]   ->   def f(batch: ScheduleBatch) -> Optional[ScheduleBatch]
    Union[ScheduleBatch, ModelWorkerBatch]                         ->   ScheduleBatch
    def f(batch: ModelWorkerBatch): if batch is not None: ...      ->   def f(batch: Optional[ScheduleBatch]): ...

Every spelling of the class counts: a star import from SGLang's `schedule_batch`, a module alias
(`sbm.ModelWorkerBatch`, also inside a string annotation), type comments, and module-level aliases
(`Alias = ModelWorkerBatch`: the definition is rewritten, its uses keep their spelling and are
migrated as the class).

    x = f()  # type: ModelWorkerBatch                              ->   x = f()  # type: ScheduleBatch

Refuses a direct construction `ModelWorkerBatch(...)`: a ScheduleBatch cannot be built from the
same fields (review item MWB111). Reports the class used as a run-time value, where the rewrite
hands ScheduleBatch on to code it cannot see (MWB152: a public alias, an argument, a default, a
base class, a container), and a function whose parameters only a signature type comment types
with the class (MWB153: they are not migrated as annotated parameters are).
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import QualifiedNameSource, ScopeProvider

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.names import TYPE_COMMENT
from mwbmigrate.analysis.old_api import (
    NEW_CLASS,
    OLD_CLASS,
    OldClassSpellings,
    is_alias_use,
    old_class_spellings,
)
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.codemods._shared import param_holds_old_object
from mwbmigrate.codemods.base import MARKER_PREFIX, REPORTS, MigrationCodemod

_UNION = m.Name("Union") | m.Attribute(attr=m.Name("Union"))
# Where the class is only a type: nothing at run time sees which class it is.
_TYPING_MODULES = ("typing", "typing_extensions", "collections", "collections.abc", "queue", "builtins")


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _NoneTests(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if m.matches(
            node,
            m.Comparison(
                left=m.Name(self.name),
                comparisons=[m.ComparisonTarget(operator=m.Is() | m.IsNot(), comparator=m.Name("None"))],
            ),
        ):
            self.found = True


class ReplaceClassReferences(MigrationCodemod):
    CODE = "MWB002"
    NAME = "class-references"
    SUMMARY = "Replace `ModelWorkerBatch` in annotations and type expressions with `ScheduleBatch`; collapse `Union`s; widen to `Optional` where the body tests `is None`."
    TRIGGERS = (OLD_CLASS,)
    REVIEW_CODES = ("MWB111", "MWB152", "MWB153")
    REQUIRES = ("MWB001", *REPORTS)
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._spellings: OldClassSpellings | None = None
        self._spelling_pattern: re.Pattern[str] | None = None
        self._old_annotated_params: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        # Spellings of the class in strings and comments, which metadata does not resolve.
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return
        self._spellings = old_class_spellings(node, scope, self.state.location)
        self._spelling_pattern = self._spellings.pattern()

    def _replacement(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, cst.Attribute):
            return node.with_changes(attr=cst.Name(NEW_CLASS))
        return cst.Name(NEW_CLASS)

    def _is_alias_use(self, node: cst.BaseExpression) -> bool:
        scope = self.get_metadata(ScopeProvider, node, None)
        return (
            isinstance(node, cst.Name)
            and scope is not None
            and self._spellings is not None
            and is_alias_use(scope, node, self._spellings)
        )

    def _is_reference(self, original: cst.BaseExpression) -> bool:
        if not self.names_old_class(original):
            return False
        parent = self.parent(original)
        if isinstance(parent, (cst.ImportAlias, cst.ClassDef)):
            return False
        if isinstance(parent, cst.Attribute) and parent.value is original:
            return False
        if isinstance(parent, cst.Call) and parent.func is original:
            self.review(
                original,
                "MWB111",
                f"`{OLD_CLASS}(...)` built directly: a ScheduleBatch cannot be built from these fields",
            )
            return False
        if self._is_alias_use(original):
            return False  # the alias's definition now names ScheduleBatch; its uses keep their spelling
        if isinstance(parent, cst.MatchClass) and parent.cls is original:
            return True  # a class pattern is a type test: isinstance-checks says where it now matches more
        if not self._type_only(original):
            self._report_value_use(original)
        return True

    # -- the class as a run-time value ---------------------------------------------------------
    def _type_only(self, node: cst.CSTNode) -> bool:
        """Whether the class sits where only a type checker (or a generic alias) sees it."""
        child, current = node, self.parent(node)
        while current is not None:
            if isinstance(current, cst.Annotation):
                return not self._dispatched_on(current)
            if isinstance(current, cst.Subscript):
                return child is not current.value and self._is_generic(current.value)
            if isinstance(current, cst.Arg) and current.keyword is not None and current.keyword.value == "bound":
                return self._callee(self.parent(current)) == "TypeVar"
            if isinstance(current, cst.Call):
                callee, args = self._callee(current), current.args
                if callee == "cast":
                    return bool(args) and child is args[0]
                return callee in ("TypeVar", "NewType") and any(child is arg for arg in args[1:])
            if isinstance(current, cst.BinaryOperation) and not isinstance(current.operator, cst.BitOr):
                return False  # `X | Y` is a union of types; any other operator is arithmetic on a value
            if not isinstance(
                current,
                (cst.Index, cst.SubscriptElement, cst.Arg, cst.List, cst.Tuple, cst.Element, cst.BinaryOperation),
            ):
                return False
            child, current = current, self.parent(current)
        return False

    def _dispatched_on(self, annotation: cst.Annotation) -> bool:
        """A parameter's annotation that `singledispatch` reads at run time: the function is
        decorated with `<dispatcher>.register` (a registration for ScheduleBatch now)."""
        param = self.parent(annotation)
        parameters = self.parent(param) if isinstance(param, cst.Param) else None
        function = self.parent(parameters) if parameters is not None else None
        if not isinstance(function, cst.FunctionDef):
            return False
        for decorator in function.decorators:
            target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if isinstance(target, cst.Attribute) and target.attr.value == "register":
                return True
        return False

    def _callee(self, call: cst.CSTNode | None) -> str | None:
        return callee_name(call) if isinstance(call, cst.Call) else None

    def _is_generic(self, value: cst.BaseExpression) -> bool:
        """`List`, `Optional`, `queue.Queue`, `list`: a generic from a library, not a local mapping
        whose key would change (`handlers[ModelWorkerBatch]`)."""
        scope = self.get_metadata(ScopeProvider, value, None)
        if scope is None:
            return False
        names = scope.get_qualified_names_for(value)
        return bool(names) and all(
            q.name.rpartition(".")[0] in _TYPING_MODULES or q.source is QualifiedNameSource.BUILTIN for q in names
        )

    def _report_value_use(self, node: cst.CSTNode) -> None:
        statement = self.enclosing_statement(node)
        if OLD_CLASS in self.reasons_on(statement):
            return  # already reported for what this statement does with the class (MWB110, MWB133, ...)
        alias = self._defined_alias(node)
        if alias is not None:
            if not alias.startswith("_"):
                # Followed in this module; another module importing it is not.
                self.review(
                    node,
                    "MWB152",
                    f"public alias `{alias}` of `{OLD_CLASS}` now names ScheduleBatch: modules that import it see ScheduleBatch",
                )
            return
        self.review(
            node,
            "MWB152",
            f"`{OLD_CLASS}` used as a run-time value ({self._value_role(node)}): it becomes ScheduleBatch there, which the old class never matched",
        )

    def _defined_alias(self, node: cst.CSTNode) -> str | None:
        """The alias name when `node` is the value of a module-level `Alias = ModelWorkerBatch`."""
        parent = self.parent(node)
        if self._spellings is None or not isinstance(parent, (cst.Assign, cst.AnnAssign)) or parent.value is not node:
            return None
        target = parent.targets[0].target if isinstance(parent, cst.Assign) else parent.target
        return target.value if isinstance(target, cst.Name) and id(target) in self._spellings.alias_targets else None

    def _value_role(self, node: cst.CSTNode) -> str:
        parent = self.parent(node)
        if isinstance(parent, cst.Arg) and isinstance(self.parent(parent), cst.ClassDef):
            return "a base class"
        if isinstance(parent, cst.Arg):
            return "an argument"
        if isinstance(parent, cst.Param):
            return "a default"
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return "bound to a name"
        if isinstance(parent, cst.Return):
            return "returned"
        if isinstance(parent, cst.Comparison) or isinstance(parent, cst.ComparisonTarget):
            return "compared"
        if isinstance(parent, cst.Annotation):
            return "an annotation `singledispatch` registers: another registration for ScheduleBatch replaces or is replaced by it"
        return "stored or passed on"

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._replacement(updated_node) if self._is_reference(original_node) else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._replacement(updated_node) if self._is_reference(original_node) else updated_node

    def _respell(self, text: str) -> str:
        """`ModelWorkerBatch` -> `ScheduleBatch` under every spelling, keeping a module prefix."""
        if self._spelling_pattern is None:
            return text
        return self._spelling_pattern.sub(lambda match: match.group(1) + NEW_CLASS, text)

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.BaseExpression:
        if not self._in_annotation(original_node):
            return updated_node
        new_value = self._respell(updated_node.value)
        return updated_node.with_changes(value=new_value) if new_value != updated_node.value else updated_node

    def leave_Comment(self, original_node: cst.Comment, updated_node: cst.Comment) -> cst.Comment:
        text = updated_node.value
        found = TYPE_COMMENT.search(text.split(MARKER_PREFIX, 1)[0])
        if found is None or text.startswith(MARKER_PREFIX):
            return updated_node
        # Only the type comment itself, never a review marker appended after it.
        head, sep, tail = text.partition("  " + MARKER_PREFIX)
        new_head = self._respell(head)
        if new_head == head:
            return updated_node
        if head[found.end() :].lstrip().startswith("("):
            self._report_signature_comment(original_node, head[found.end() :])
        return updated_node.with_changes(value=new_head + sep + tail)

    def _report_signature_comment(self, comment: cst.Comment, signature: str) -> None:
        """`# type: (ModelWorkerBatch, int) -> None` types parameters the renames never see."""
        function = next((n for n in reversed(self._ancestors) if isinstance(n, cst.FunctionDef)), None)
        if function is None:
            return
        params = [p for p in all_params(function.params)]
        arguments = _signature_arguments(signature)
        if arguments is None:
            return
        if len(arguments) == len(params) - 1 and params and params[0].name.value in ("self", "cls"):
            params = params[1:]
        typed = [p for p, text in zip(params, arguments, strict=False) if self._respell(text) != text]
        renamed = {new for scope, _, new in self.state.renamed_signatures if scope == self.qualified_scope()}
        missed = [p.name.value for p in typed if not param_holds_old_object(self, p) and p.name.value not in renamed]
        if missed or len(arguments) != len(params):
            names = ", ".join(f"`{name}`" for name in missed) or "its parameters"
            self.review(
                function,
                "MWB153",
                f"signature type comment types {names} with `{OLD_CLASS}`: not renamed or migrated like an annotated parameter; annotate it",
            )

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None:
            if isinstance(current, cst.Annotation):
                return True
            if isinstance(current, (cst.BaseStatement, cst.Module)):
                return False
            current = self.parent(current)
        return False

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not m.matches(updated_node.value, _UNION):
            return updated_node
        seen: dict[str, cst.SubscriptElement] = {}
        for element in updated_node.slice:
            seen.setdefault(_code(element.slice), element)
        if len(seen) == len(updated_node.slice):
            return updated_node
        if len(seen) == 1:
            only = next(iter(seen.values())).slice
            if isinstance(only, cst.Index):
                RemoveImportsVisitor.remove_unused_import(self.context, "typing", "Union")
                return only.value
        elements = list(seen.values())
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(slice=elements)

    def leave_BinaryOperation(
        self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation
    ) -> cst.BaseExpression:
        # `ScheduleBatch | ModelWorkerBatch` has become `ScheduleBatch | ScheduleBatch`: one is enough.
        if (
            isinstance(updated_node.operator, cst.BitOr)
            and _code(updated_node.left) == _code(updated_node.right) == NEW_CLASS
        ):
            return updated_node.left
        return updated_node

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is not None and self.names_old_class(node.annotation.annotation):
            self._old_annotated_params.add(id(node))

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        # A parameter that callers pass None to: the body's `is None` test is the evidence.
        originals = all_params(original_node.params)
        widened = {p.name.value for p in originals if id(p) in self._old_annotated_params}
        if not widened:
            return updated_node

        def widen(param: cst.Param) -> cst.Param:
            if param.name.value not in widened or param.annotation is None:
                return param
            finder = _NoneTests(param.name.value)
            updated_node.body.visit(finder)
            if not finder.found:
                return param
            AddImportsVisitor.add_needed_import(self.context, "typing", "Optional")
            optional = cst.Subscript(
                value=cst.Name("Optional"),
                slice=[cst.SubscriptElement(cst.Index(param.annotation.annotation))],
            )
            return param.with_changes(annotation=param.annotation.with_changes(annotation=optional))

        params = updated_node.params
        return updated_node.with_changes(
            params=params.with_changes(
                posonly_params=[widen(p) for p in params.posonly_params],
                params=[widen(p) for p in params.params],
                kwonly_params=[widen(p) for p in params.kwonly_params],
            )
        )


def _signature_arguments(signature: str) -> list[str] | None:
    """The argument types of `(A, B[C, D]) -> R`, split at top-level commas; None if unreadable."""
    depth, current, arguments = 0, "", []
    for index, char in enumerate(signature):
        if char in "([{":
            depth += 1
            if depth == 1 and char == "(":
                continue
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                if current.strip():
                    arguments.append(current.strip())
                return arguments if signature[index + 1 :].lstrip().startswith("->") else None
        if depth == 1 and char == ",":
            arguments.append(current.strip())
            current = ""
        elif depth >= 1:
            current += char
    return None
