"""Delete branches guarded by `isinstance(x, ModelWorkerBatch)`: no such object exists after migration.

    if isinstance(batch, ModelWorkerBatch):
        return fallback(batch)
    else:
        run(batch)
->
    run(batch)

`isinstance(x, (A, ModelWorkerBatch))` loses the old class; `if not isinstance(x, ModelWorkerBatch)`
keeps its body. Any other use (an assert, part of a boolean expression) is reported as MWB110.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from mwbmigrate.analysis.old_api import OLD_CLASS

from mwbmigrate.codemods.base import MigrationCodemod


class DropOldClassInstanceChecks(MigrationCodemod):
    CODE = "MWB008"
    NAME = "isinstance-checks"
    SUMMARY = "Delete branches guarded by `isinstance(x, ModelWorkerBatch)` (always false now), keep the `else`."

    @classmethod
    def applies_to(cls, text, state):
        return "isinstance" in text and OLD_CLASS in text

    def _checked_class(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        if m.matches(node, m.Call(func=m.Name("isinstance"), args=[m.Arg(keyword=None), m.Arg(keyword=None)])):
            return node.args[1].value
        return None

    def _is_old_instance_check(self, node: cst.BaseExpression) -> bool:
        checked = self._checked_class(node)
        return checked is not None and self.names_old_class(checked)

    def leave_If(self, original_node: cst.If, updated_node: cst.If):
        test = original_node.test
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        if not self._is_old_instance_check(test.expression if negated else test):
            return updated_node
        parent = self.parent(original_node)
        if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
            self.review(original_node, "MWB110", "`elif isinstance(..., ModelWorkerBatch)` is always false now; remove the branch")
            return updated_node
        kept: cst.BaseSuite | None
        if negated:
            kept = updated_node.body
        elif isinstance(updated_node.orelse, cst.Else):
            kept = updated_node.orelse.body
        elif isinstance(updated_node.orelse, cst.If):
            return updated_node.orelse.with_changes(leading_lines=updated_node.leading_lines)
        else:
            return cst.RemoveFromParent()
        if not isinstance(kept, cst.IndentedBlock):
            self.review(original_node, "MWB110", "branch on `isinstance(..., ModelWorkerBatch)` left as is")
            return updated_node
        statements = list(kept.body)
        if statements:
            statements[0] = statements[0].with_changes(
                leading_lines=[*updated_node.leading_lines, *statements[0].leading_lines]
            )
        return cst.FlattenSentinel(statements)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        checked = self._checked_class(original_node)
        if checked is None or not isinstance(checked, cst.Tuple):
            if checked is not None and self.names_old_class(checked):
                parent = self.parent(original_node)
                grandparent = self.parent(parent)
                is_if_test = isinstance(parent, cst.If) or (
                    isinstance(parent, cst.UnaryOperation) and isinstance(grandparent, cst.If)
                )
                if not is_if_test:
                    self.review(original_node, "MWB110", "`isinstance(..., ModelWorkerBatch)` is always false after migration")
            return updated_node
        kept = [element for element in checked.elements if not self.names_old_class(element.value)]
        if len(kept) == len(checked.elements):
            return updated_node
        if len(kept) == 1:
            new_class: cst.BaseExpression = kept[0].value
        elif not kept:
            self.review(original_node, "MWB110", "`isinstance` against only the removed class")
            return updated_node
        else:
            last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            new_class = checked.with_changes(elements=[*kept[:-1], last])
        args = list(updated_node.args)
        args[1] = args[1].with_changes(value=new_class)
        return updated_node.with_changes(args=args)
