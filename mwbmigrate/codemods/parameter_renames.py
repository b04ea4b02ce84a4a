"""Rename the parameter that holds the old object to `batch`, with every use in the function.

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.run(model_worker_batch)
->
    def forward_batch_generation(self, batch: ModelWorkerBatch):   # annotation: class-references
        return self.run(batch)

Scope-aware: when `batch` is already bound or read in the function, the parameter becomes
`schedule_batch` and review item MWB102 is reported; when that is taken too, nothing is renamed.
A renamed public function gets MWB113: keyword callers outside the tree break.
A function with two old-object parameters keeps its names. Renamed signatures are recorded so
keyword callers can follow across files (see keyword-callers).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Scope, ScopeProvider

from mwbmigrate.analysis.old_api import FALLBACK_PARAMETER, NEW_PARAMETER, OLD_CLASS, OLD_PARAMETER
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.codemods._shared import param_holds_old_object
from mwbmigrate.codemods.base import MigrationCodemod


def _name_is_taken(scope: Scope, name: str) -> bool:
    if scope.assignments[name]:
        return True
    return any(True for _ in scope.accesses[name])


class RenameOldObjectParameters(MigrationCodemod):
    CODE = "MWB004"
    NAME = "parameter-renames"
    SUMMARY = "Rename `model_worker_batch` (and other old-object parameters) to `batch`, with every use."
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text, state):
        return OLD_PARAMETER in text or OLD_CLASS in text

    def __init__(self, context) -> None:
        super().__init__(context)
        self._renames: dict[cst.CSTNode, str] = {}
        self._unrenamed_uses: dict[cst.CSTNode, str] = {}  # uses of a parameter left unrenamed

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = [
            p for p in all_params(node.params)
            if param_holds_old_object(self, p)
        ]
        if len(params) != 1 or params[0].name.value == NEW_PARAMETER:
            return
        param = params[0]
        scope = self.get_metadata(ScopeProvider, node.body, None)
        if scope is None:
            return
        new_name = NEW_PARAMETER
        if _name_is_taken(scope, NEW_PARAMETER):
            if _name_is_taken(scope, FALLBACK_PARAMETER):
                reason = f"`{param.name.value}` not renamed: `batch` and `schedule_batch` are both taken"
                self.review(node, "MWB102", reason)
                for assignment in scope.assignments[param.name.value]:
                    for reference in assignment.references:
                        self._unrenamed_uses[reference.node] = reason
                return
            new_name = FALLBACK_PARAMETER
            self.review(node, "MWB102", f"`{param.name.value}` renamed to `{FALLBACK_PARAMETER}`: `batch` is already bound here")
        old_name = param.name.value
        rebinding = [a.node for a in scope.assignments[old_name] if a.node is not param and not isinstance(a.node, cst.Name)]
        if rebinding:
            # `def`, `class` or `import` of the same name inside the function: renaming the
            # parameter alone would split one variable in two.
            reason = f"`{old_name}` not renamed: the function also binds it by `def`, `class` or `import`"
            self.review(node, "MWB102", reason)
            for binding in rebinding:
                self.review(binding, "MWB102", reason)
            for assignment in scope.assignments[old_name]:
                for reference in assignment.references:
                    self._unrenamed_uses[reference.node] = reason
            return
        if not node.name.value.startswith("_"):
            self.review(node, "MWB113", f"public parameter renamed `{old_name}` -> `{new_name}`: update keyword callers outside this tree")
        self._renames[param.name] = new_name
        for assignment in scope.assignments[old_name]:
            if isinstance(assignment.node, cst.Name):
                # A later `x = ...`, `for x in ...` or `with ... as x` rebinds the same variable.
                self._renames[assignment.node] = new_name
            for reference in assignment.references:
                self._renames[reference.node] = new_name
        self.state.renamed_signatures.add((self.qualified_scope(), old_name, new_name))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node in self._unrenamed_uses:
            self.review(original_node, "MWB102", self._unrenamed_uses[original_node])
        new_name = self._renames.get(original_node)
        return updated_node.with_changes(value=new_name) if new_name else updated_node
