"""Rename the parameter that holds the old object to `batch`, with every use in the function.

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.run(model_worker_batch)
->
    def forward_batch_generation(self, batch: ModelWorkerBatch):   # annotation: class-references
        return self.run(batch)

Scope-aware: when `batch` is already bound or read in the function, the parameter becomes
`schedule_batch` and review item MWB102 is reported; when that is taken too, nothing is renamed.
Every nested scope counts (analysis.capture): a comprehension, lambda, nested function or class body
that binds `batch` where it reads the parameter would capture the new name, and a nested read of
another `batch` would be shadowed by it; the same fallback then applies, reported as MWB144. A
nested `nonlocal model_worker_batch` is renamed with the parameter. `locals()`, `eval` and the like
see the new name, and a self-documenting f-string (`f"{model_worker_batch.seq_lens=}"`) prints it:
MWB145 on each. A renamed public function gets MWB113 (keyword callers outside the
tree break), unless the parameter is positional-only.
A function with two old-object parameters keeps its names. Renamed signatures are recorded so
keyword callers can follow across files (see keyword-callers).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import Assignment, Scope, ScopeProvider

from mwbmigrate.analysis.capture import NestedScopes, dynamic_read_names
from mwbmigrate.analysis.names import NEW_PARAMETER, OLD_PARAMETER
from mwbmigrate.analysis.old_api import FALLBACK_PARAMETER, OLD_CLASS
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.scopes import printed_expressions
from mwbmigrate.codemods._shared import param_holds_old_object
from mwbmigrate.codemods.base import REPORTS, MigrationCodemod


def _variable_names(scope: Scope, name: str) -> list[cst.CSTNode]:
    """The Name nodes of one variable in the function: every read, and every rebinding by `=`,
    `for`, `with ... as` (a `nonlocal` write in a nested function included)."""
    nodes: list[cst.CSTNode] = []
    for assignment in scope.assignments[name]:
        if isinstance(assignment, Assignment) and isinstance(assignment.node, cst.Name):
            nodes.append(assignment.node)
        nodes.extend(reference.node for reference in assignment.references)
    return nodes


class RenameOldObjectParameters(MigrationCodemod):
    CODE = "MWB004"
    NAME = "parameter-renames"
    SUMMARY = "Rename `model_worker_batch` (and other old-object parameters) to `batch`, with every use."
    TRIGGERS = (OLD_PARAMETER, OLD_CLASS)
    REVIEW_CODES = ("MWB102", "MWB113", "MWB144", "MWB145")
    REQUIRES = ("MWB007", *REPORTS)
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._renames: dict[cst.CSTNode, str] = {}
        self._unrenamed_uses: dict[cst.CSTNode, tuple[str, str]] = {}  # use -> (code, reason), parameter left unrenamed
        self._dynamic_reads: dict[cst.CSTNode, str] = {}  # `locals()`, `f"{x=}"` and the like -> MWB145 reason

    def _scope_of(self, node: cst.CSTNode) -> Scope | None:
        return self.get_metadata(ScopeProvider, node, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = [p for p in all_params(node.params) if param_holds_old_object(self, p)]
        if len(params) != 1 or params[0].name.value == NEW_PARAMETER:
            return
        param = params[0]
        scope = self.get_metadata(ScopeProvider, node.body, None)
        if scope is None:
            return
        old_name = param.name.value
        scopes = NestedScopes(node.body, scope, self._scope_of)
        # Every Name the rename rewrites, in the body: uses, rebindings, a nested `nonlocal` of it.
        occurrences = [*_variable_names(scope, old_name), *scopes.nonlocal_names(old_name)]
        new_name = self._choose_name(node, old_name, scopes, occurrences)
        if new_name is None:
            return
        rebinding = [
            a.node
            for a in scope.assignments[old_name]
            if isinstance(a, Assignment) and a.node is not param and not isinstance(a.node, cst.Name)
        ]
        if rebinding:
            # `def`, `class` or `import` of the same name inside the function: renaming the
            # parameter alone would split one variable in two.
            reason = f"`{old_name}` not renamed: the function also binds it by `def`, `class` or `import`"
            self.review(node, "MWB102", reason)
            for binding in rebinding:
                self.review(binding, "MWB102", reason)
            self._keep(occurrences, "MWB102", reason)
            return
        # A positional-only parameter has no keyword callers to break.
        if not node.name.value.startswith("_") and param not in node.params.posonly_params:
            self.review(
                node,
                "MWB113",
                f"public parameter renamed `{old_name}` -> `{new_name}`: update keyword callers outside this tree",
            )
        for call in scopes.dynamic_reads():
            self._dynamic_reads[call] = (
                f"{dynamic_read_names([call])} sees the parameter as `{new_name}` now, not `{old_name}`: check the names it looks up"
            )
        for part in printed_expressions(node.body).get(old_name, []):
            self._dynamic_reads[part] = (
                f"a self-documenting f-string prints the parameter's name, now `{new_name}`, not `{old_name}`"
            )
        self._renames[param.name] = new_name
        for occurrence in occurrences:
            self._renames[occurrence] = new_name
        self.state.renamed_signatures.add((self.qualified_scope(), old_name, new_name))

    def _choose_name(
        self, node: cst.FunctionDef, old_name: str, scopes: NestedScopes, occurrences: list[cst.CSTNode]
    ) -> str | None:
        """`batch`, else `schedule_batch`: the first that the function does not already bind or read
        and that no nested scope captures or shadows. None (reported, uses marked) when neither."""
        refusals: list[tuple[str, str]] = []  # (code, why)
        for candidate in (NEW_PARAMETER, FALLBACK_PARAMETER):
            if scopes.taken(candidate):
                refusals.append(("MWB102", f"`{candidate}` is already bound here"))
                continue
            planned = [name for name, new in self._renames.items() if new == candidate]
            hazard = scopes.shadowed(candidate, planned) or scopes.captured(occurrences, candidate)
            if hazard is not None:
                refusals.append(("MWB144", hazard))
                continue
            if refusals:
                code, why = refusals[0]
                self.review(node, code, f"`{old_name}` renamed to `{candidate}`: {why}")
            return candidate
        if all(code == "MWB102" for code, _ in refusals):
            code, reason = (
                "MWB102",
                f"`{old_name}` not renamed: `{NEW_PARAMETER}` and `{FALLBACK_PARAMETER}` are both taken",
            )
        else:
            code, reason = "MWB144", f"`{old_name}` not renamed: " + "; ".join(why for _, why in refusals)
        self.review(node, code, reason)
        self._keep(occurrences, code, reason)
        return None

    def _keep(self, occurrences: list[cst.CSTNode], code: str, reason: str) -> None:
        """Mark every line where a parameter left unrenamed is read or rebound."""
        for occurrence in occurrences:
            self._unrenamed_uses[occurrence] = (code, reason)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        reason = self._dynamic_reads.get(original_node)
        if reason is not None:
            self.review(original_node, "MWB145", reason)
        return updated_node

    def leave_FormattedStringExpression(
        self, original_node: cst.FormattedStringExpression, updated_node: cst.FormattedStringExpression
    ) -> cst.FormattedStringExpression:
        reason = self._dynamic_reads.get(original_node)
        if reason is not None:
            self.review(original_node, "MWB145", reason)
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node in self._unrenamed_uses:
            self.review(original_node, *self._unrenamed_uses[original_node])
        new_name = self._renames.get(original_node)
        return updated_node.with_changes(value=new_name) if new_name else updated_node
