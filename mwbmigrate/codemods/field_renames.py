"""Rename fields whose ScheduleBatch name differs, on receivers known to hold the old object.

    model_worker_batch.extend_seq_lens     ->  model_worker_batch.extend_lens
    model_worker_batch.extend_prefix_lens  ->  model_worker_batch.prefix_lens
    model_worker_batch.lora_ids            ->  [req.lora_id for req in model_worker_batch.reqs]

The receiver is renamed later by the parameter and call-site codemods. Refuses every receiver not
provably the old object: `ForwardBatch` shares these attribute names with other meanings.

`lora_ids` / `dllm_block_offsets` were one list per snapshot; the comprehension is a new list at
each read, so only a read whose list nobody can change or keep is converted silently:

    model_worker_batch.lora_ids = ids          kept   MWB109 (no ScheduleBatch field to write)
    model_worker_batch.lora_ids.append(i)      kept   MWB148 (the change would be lost)
    ids = model_worker_batch.lora_ids; ids[0] = i      kept at the read, MWB148
    patch(model_worker_batch.lora_ids)         converted, MWB149 (`patch` may change or keep it)
    len(model_worker_batch.lora_ids)           converted
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import Assignment, QualifiedNameSource, Scope, ScopeProvider

from mwbmigrate.analysis.old_api import FIELDS_COMPUTED_FROM_REQS, RENAMED_FIELDS
from mwbmigrate.codemods._shared import function_facts
from mwbmigrate.codemods.base import INSTALLED_OVER_OLD_API, OLD_API, REPORTS, MigrationCodemod, MigrationState, NodeSet

# List methods that neither change the list nor hand it on; any other attribute of it may.
READ_ONLY_METHODS = frozenset({"copy", "count", "index", "__len__", "__contains__", "__getitem__", "__iter__"})
# Callees that only read the list they are given (or copy it), by qualified name.
READING_CALLEES = frozenset(
    {
        *(
            f"builtins.{name}"
            for name in (
                "len",
                "list",
                "tuple",
                "set",
                "frozenset",
                "sorted",
                "sum",
                "min",
                "max",
                "any",
                "all",
                "enumerate",
                "zip",
                "iter",
                "reversed",
                "map",
                "filter",
                "str",
                "repr",
                "print",
                "bool",
                "isinstance",
            )
        ),
        "torch.tensor",
        "torch.as_tensor",
        "numpy.array",
        "numpy.asarray",
    }
)
# The forward batch built from the old object: upstream 0.5.13 passes it exactly this comprehension
# (`ForwardBatch(..., lora_ids=[req.lora_id for req in batch.reqs])`), and it is where the worker
# reads the list from after the migration.
FORWARD_BATCH = "ForwardBatch"
ALIAS_DEPTH = 3  # `a = x.lora_ids; b = a; ...`: further than this counts as handed on

# How a read of a computed field is used, worst last.
READ, ESCAPE, MUTATE, STORE = range(4)


def _code(node: cst.CSTNode) -> str:
    """Source of a node on one line (a marker is one line)."""
    return " ".join(cst.Module([]).code_for_node(node).split())


class RenameOldObjectFields(MigrationCodemod):
    CODE = "MWB006"
    NAME = "field-renames"
    SUMMARY = "Rename `extend_seq_lens`/`extend_prefix_lens` and compute `lora_ids`/`dllm_block_offsets` from reqs on old-object receivers."
    TRIGGERS = (*OLD_API, *INSTALLED_OVER_OLD_API)
    BODY_WORDS = (*RENAMED_FIELDS, *FIELDS_COMPUTED_FROM_REQS)
    REVIEW_CODES = ("MWB109", "MWB148", "MWB149")
    REQUIRES = REPORTS
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return any(field in text for field in (*RENAMED_FIELDS, *FIELDS_COMPUTED_FROM_REQS))

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._receivers: set[cst.Name] = set()
        self._parents: dict[int, cst.CSTNode] | None = None
        self._private = NodeSet()  # receivers whose one computed-field read nobody else can observe

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = function_facts(self, node)
        self._receivers |= facts.old_object_accesses()
        if facts.scope is not None:
            for name in facts.aliases:
                self._note_private_reads(facts.scope, name)

    def _note_private_reads(self, scope: Scope, name: str) -> None:
        """A snapshot bound in this function that only ever has fields read off it, and this field
        once: nobody else can see its list, so handing that list on cannot differ from a new one."""
        references = [r.node for a in scope.assignments[name] for r in a.references]
        fields: dict[str, list[cst.CSTNode]] = {}
        for reference in references:
            parent = self._parent_of(reference)
            if not (isinstance(parent, cst.Attribute) and parent.value is reference):
                return
            fields.setdefault(parent.attr.value, []).append(reference)
        for field, readers in fields.items():
            if field in FIELDS_COMPUTED_FROM_REQS and len(readers) == 1:
                self._private.add(readers[0])

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if original_node.value not in self._receivers:
            return updated_node
        field = original_node.attr.value
        if field in RENAMED_FIELDS:
            return updated_node.with_changes(attr=cst.Name(RENAMED_FIELDS[field]))
        if field not in FIELDS_COMPUTED_FROM_REQS:
            return updated_node
        per_request = FIELDS_COMPUTED_FROM_REQS[field]
        kind, detail = self._use_of(original_node)
        if kind == STORE:
            self.review(original_node, "MWB109", f"`{field}` is no ScheduleBatch field; it was computed from `reqs`")
            return updated_node
        if kind == MUTATE:
            self.review(
                original_node,
                "MWB148",
                f"`{field}` changed in place ({detail}): kept; a list rebuilt from `reqs` at each read would "
                f"drop the change (set `req.{per_request}` on the requests instead)",
            )
            return updated_node
        if kind == ESCAPE and original_node.value not in self._private:
            self.review(
                original_node,
                "MWB149",
                f"`{field}` {detail}: now a new list built from `reqs` at each read, so a change made "
                f"through it no longer reaches the batch or a later read",
            )
        return cst.ListComp(
            elt=cst.Attribute(value=cst.Name("req"), attr=cst.Name(per_request)),
            for_in=cst.CompFor(
                target=cst.Name("req"),
                iter=cst.Attribute(value=updated_node.value, attr=cst.Name("reqs")),
            ),
        )

    # -- how the list read at a node is used ------------------------------------------------------
    def _parent_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """Parents in the original module; built once, and only for files with a computed-field read
        (aliases are judged at their references, which are off the path being visited)."""
        if self._parents is None:
            parents: dict[int, cst.CSTNode] = {}
            stack: list[cst.CSTNode] = []

            class _Parents(cst.CSTVisitor):
                def on_visit(self, child: cst.CSTNode) -> bool:
                    if stack:
                        parents[id(child)] = stack[-1]
                    stack.append(child)
                    return True

                def on_leave(self, original_node: cst.CSTNode) -> None:
                    stack.pop()

            self.module.visit(_Parents())
            self._parents = parents
        return self._parents.get(id(node))

    def _store_target(self, node: cst.CSTNode) -> bool:
        """Whether `node` is written (or deleted) here: an assignment, `for`, `with ... as` or `del`
        target, possibly inside a tuple or list of targets. Only these positions are writes."""
        current = node
        parent = self._parent_of(current)
        while isinstance(parent, (cst.Element, cst.StarredElement)) or (
            isinstance(parent, (cst.Tuple, cst.List)) and current in parent.elements
        ):
            current, parent = parent, self._parent_of(parent)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.Del)):
            return parent.target is current
        return isinstance(parent, cst.AsName) and parent.name is current

    def _use_of(self, node: cst.CSTNode, depth: int = 0) -> tuple[int, str]:
        """(READ, STORE, MUTATE or ESCAPE, what the code does) for the value of `node`."""
        if self._store_target(node):
            return STORE, "assigned"
        parent = self._parent_of(node)
        if isinstance(parent, cst.BooleanOperation) or (isinstance(parent, cst.IfExp) and parent.test is not node):
            return self._use_of(parent, depth)  # the list itself is the result
        if isinstance(parent, cst.NamedExpr):
            return max(self._aliases_use([parent.target], depth), self._use_of(parent, depth))
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return self._attribute_use(parent)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            if self._augmented(parent):
                return MUTATE, "augmented item assignment"
            if self._store_target(parent):
                return MUTATE, "`del` of an item" if self._deleted(parent) else "item assignment"
            return READ, ""
        if isinstance(parent, cst.Arg):
            return self._argument_use(parent)
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            return self._aliases_use(targets, depth)
        if isinstance(parent, cst.Element):
            unpacked = self._unpacked_into(parent)
            if unpacked is not None:
                return self._aliases_use(unpacked, depth)
            return ESCAPE, "kept inside a tuple, list or set"
        if self._only_reads(node, parent):
            return READ, ""
        if isinstance(parent, cst.Return):
            return ESCAPE, "returned"
        if isinstance(parent, (cst.Yield, cst.From)):
            return ESCAPE, "yielded"
        return ESCAPE, "handed on"

    @staticmethod
    def _only_reads(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
        """Positions where the list is only looked at (compared, iterated, tested, formatted, copied)."""
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.BinaryOperation, cst.UnaryOperation)):
            return True
        if isinstance(parent, (cst.Expr, cst.FormattedStringExpression, cst.StarredElement, cst.AugAssign)):
            return True  # a bare expression, an f-string, `[*x]` and `y += x` copy or drop it
        if isinstance(parent, (cst.For, cst.CompFor)):
            return parent.iter is node
        if isinstance(parent, (cst.If, cst.While, cst.IfExp)):
            return parent.test is node
        return isinstance(parent, cst.Assert)

    def _deleted(self, node: cst.CSTNode) -> bool:
        parent = self._parent_of(node)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            parent = self._parent_of(parent)
        return isinstance(parent, cst.Del)

    def _augmented(self, node: cst.CSTNode) -> bool:
        parent = self._parent_of(node)
        return isinstance(parent, cst.AugAssign) and parent.target is node

    def _attribute_use(self, attribute: cst.Attribute) -> tuple[int, str]:
        call = self._parent_of(attribute)
        method = attribute.attr.value
        if method in READ_ONLY_METHODS and isinstance(call, cst.Call) and call.func is attribute:
            return READ, ""
        return MUTATE, f"`.{method}`"

    def _argument_use(self, argument: cst.Arg) -> tuple[int, str]:
        call = self._parent_of(argument)
        if argument.star or not isinstance(call, cst.Call) or self._reads_only(call):
            return READ, ""  # `f(*x)` hands on the items, not the list
        return ESCAPE, f"passed to `{_code(call.func)}()`"

    def _reads_only(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Name) and call.func.value == "cls" and self.enclosing_class() == FORWARD_BATCH:
            return True
        scope = self.get_metadata(ScopeProvider, call.func, None)
        names = scope.get_qualified_names_for(call.func) if scope is not None else set()
        for qualified in names:
            if qualified.name in READING_CALLEES and (
                qualified.source is QualifiedNameSource.BUILTIN or not qualified.name.startswith("builtins.")
            ):
                return True
            if qualified.source is QualifiedNameSource.IMPORT and qualified.name.rpartition(".")[2] == FORWARD_BATCH:
                return True
        return False

    def _unpacked_into(self, element: cst.Element) -> list[cst.BaseExpression] | None:
        """`a, b = x.lora_ids, 1`: the targets that receive this element, when the shapes match."""
        display = self._parent_of(element)
        assign = self._parent_of(display) if isinstance(display, (cst.Tuple, cst.List)) else None
        if (
            not isinstance(display, (cst.Tuple, cst.List))
            or not isinstance(assign, cst.Assign)
            or assign.value is not display
        ):
            return None
        index = list(display.elements).index(element)
        received = []
        for target in assign.targets:
            shape = target.target
            if not isinstance(shape, (cst.Tuple, cst.List)) or len(shape.elements) != len(display.elements):
                return None
            if any(isinstance(e, cst.StarredElement) for e in [*shape.elements, *display.elements]):
                return None
            received.append(shape.elements[index].value)
        return received

    def _aliases_use(self, targets: Sequence[cst.BaseExpression], depth: int) -> tuple[int, str]:
        """The worst use of the list through the names it is bound to; stored elsewhere is handed on."""
        worst: tuple[int, str] = (READ, "")
        for target in targets:
            if not isinstance(target, cst.Name):
                return ESCAPE, f"stored in `{_code(target)}`"
            if depth >= ALIAS_DEPTH:
                return ESCAPE, f"bound to `{target.value}`, which is handed on"
            if self._augmented_elsewhere(target):
                return MUTATE, f"through `{target.value}`: augmented assignment"  # `+=` extends a list in place
            for reference in self._references(target):
                if self._store_target(reference):
                    continue  # `del name` drops the name, not the list
                kind, detail = self._use_of(reference, depth + 1)
                if kind == MUTATE:
                    return MUTATE, f"through `{target.value}`: {detail}"
                if kind > worst[0]:
                    worst = (kind, f"bound to `{target.value}`, which is {detail}")
        return worst

    def _augmented_elsewhere(self, name: cst.Name) -> bool:
        """`name += ...` in the same scope (a binding of its own, not a reference, to the scope)."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return False
        return any(
            isinstance(assignment, Assignment)
            and isinstance(assignment.node, cst.Name)
            and self._augmented(assignment.node)
            for assignment in scope.assignments[name.value]
        )

    def _references(self, name: cst.Name) -> list[cst.CSTNode]:
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return []
        found: list[cst.CSTNode] = []
        for assignment in scope.assignments[name.value]:
            if getattr(assignment, "node", None) is name:
                found.extend(access.node for access in assignment.references)
        return found
