"""Shape 7: run-time uses of the class name. Fixture: shape07_runtime_class_uses.

    if type(x) is ModelWorkerBatch:   # mwbmigrate: MWB133 exact type test against `ModelWorkerBatch` now tests against ScheduleBatch ...
    HANDLERS = {ModelWorkerBatch: h}   # mwbmigrate: MWB133 `ModelWorkerBatch` used as a key is now ScheduleBatch ...
    name = ModelWorkerBatch.__name__   # mwbmigrate: MWB133 `ModelWorkerBatch.__name__` read at run time: the class is gone in 0.5.13

Subscripts, `cast`, `TypeVar` bounds and `isinstance` tuples are rewritten by class-references and
isinstance-checks; what is marked here would, after the rewrite, match the batch where the old
test never did.

    MWB133  a run-time type test or registry keyed on the old class (`type(x) is`, `issubclass`)
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.calls import last_name
from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS
from mwbmigrate.analysis.version_gates import dotted, string_value
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter


class RuntimeClassUseReporter(ShapeReporter):
    SHAPE = "7: run-time uses of the class name"
    CODES = ("MWB133",)

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {
            cst.Call: self.visit_call,
            cst.Attribute: self.visit_attribute,
            cst.Comparison: self.visit_comparison,
            cst.DictElement: self.visit_dict_element,
        }

    def visit_call(self, node: cst.Call) -> None:
        callee = last_name(node.func)
        if callee == "issubclass" and len(node.args) >= 2 and self.shapes.mentions_old_class(node.args[1].value):
            self.review(
                node,
                "MWB133",
                f"`issubclass(..., {OLD_CLASS})` now tests against ScheduleBatch, which the old test never matched",
            )
        if callee == "register" and node.args and self.shapes.names_old_class(node.args[0].value):
            self.review(
                node,
                "MWB133",
                f"handler registered for `{OLD_CLASS}` is now registered for ScheduleBatch, possibly twice",
            )

    def visit_attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in ("__name__", "__qualname__") and self._class_of_old_object(node.value):
            self.review(
                node,
                "MWB133",
                f"the class name of the old object is read: it is `{NEW_CLASS}` now, a test on it takes another branch",
            )
            return
        # An attribute named `model_worker_batch` is an untracked holder (shape 8), whatever it is read from.
        if node.attr.value == OLD_PARAMETER or self.shapes.reads_old_object(node.value):
            return
        if self.shapes.names_old_class(node.value) and not isinstance(self.shapes.parent(node), cst.ImportFrom):
            self.review(
                node, "MWB133", f"`{OLD_CLASS}.{node.attr.value}` read at run time: the class is gone in 0.5.13"
            )

    def _class_of_old_object(self, node: cst.BaseExpression) -> bool:
        """`type(mwb)` or `mwb.__class__`, where `mwb` holds the old object."""
        if isinstance(node, cst.Call) and dotted(node.func) == "type" and len(node.args) == 1:
            return self.shapes.reads_old_object(node.args[0].value)
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == "__class__"
            and self.shapes.reads_old_object(node.value)
        )

    def visit_comparison(self, node: cst.Comparison) -> None:
        if any(string_value(o) == OLD_CLASS for o in [node.left, *(c.comparator for c in node.comparisons)]):
            self.review(
                node,
                "MWB133",
                f"a class is compared with the name `{OLD_CLASS}`: the batch's class is `{NEW_CLASS}`, so the test changes",
            )
            return
        if not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)) for c in node.comparisons):
            return
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        type_of = any(
            (isinstance(o, cst.Call) and dotted(o.func) == "type")
            or (isinstance(o, cst.Attribute) and o.attr.value == "__class__")
            for o in operands
        )
        if type_of and any(self.shapes.names_old_class(o) for o in operands):
            self.review(
                node,
                "MWB133",
                f"exact type test against `{OLD_CLASS}` now tests against ScheduleBatch, which the old test never matched",
            )

    def visit_dict_element(self, node: cst.DictElement) -> None:
        if self.shapes.names_old_class(node.key):
            self.review(node, "MWB133", f"`{OLD_CLASS}` used as a key is now ScheduleBatch, which may already be a key")
