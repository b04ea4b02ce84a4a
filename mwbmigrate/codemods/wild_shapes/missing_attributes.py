"""Shape 9: attributes the new object lacks. Fixtures: shape09_missing_attributes,
shape09_fork_field_access_kinds.

    def run(model_worker_batch):
        print(model_worker_batch.bid)      # mwbmigrate: MWB136 `bid`: a field of older ModelWorkerBatch versions; ScheduleBatch has no `bid`
        model_worker_batch.my_state = 1    # mwbmigrate: MWB137 `my_state` is no field of 0.5.12.post1's ModelWorkerBatch (fork-only?) ...

    MWB136  a read of an attribute of the old object that `ScheduleBatch` does not have (`bid`,
            `launch_done`, ...): AttributeError
    MWB181  a write of such an attribute: a stray attribute on the live batch, which nothing reads
    MWB137  an attribute that was no field of 0.5.12.post1's `ModelWorkerBatch` (fork-only state)

Judged against the classes this tree defines (analysis/tree_facts.py: the tree's own
`schedule_batch.py`): a field its `ScheduleBatch` declares, which its `get_model_worker_batch()`
copied into the old object from the batch attribute of the same name, reads the same on the batch,
and is not reported. Where the tree has no such module, 0.5.12.post1's and 0.5.13's classes decide.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.calls import last_name
from mwbmigrate.analysis.names import ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.old_api import FIELDS_COMPUTED_FROM_REQS, OLD_CLASS, OLD_OBJECT_FIELDS, RENAMED_FIELDS
from mwbmigrate.analysis.version_gates import string_value
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter

# Attributes of the old object that ScheduleBatch (0.5.13) does not have, and where the value went.
MISSING_FIELDS = {
    "bid": "a field of older ModelWorkerBatch versions; ScheduleBatch has no `bid`",
    "launch_done": "a field of older ModelWorkerBatch versions (overlap event); ScheduleBatch has no `launch_done`",
    "token_type_ids": "removed from ScheduleBatch in 0.5.13; read forward_batch.token_type_ids",
    "dimensions": "removed from ScheduleBatch in 0.5.13; read forward_batch.dimensions",
    "return_pooled_hidden_states": "removed from ScheduleBatch in 0.5.13; read forward_batch.return_pooled_hidden_states",
    "multi_item_delimiter_indices": "removed from ScheduleBatch in 0.5.13; read forward_batch.multi_item_delimiter_indices",
}
# MWB137: what an access to a fork-only attribute does now that it reaches the live batch.
ACCESS_CONSEQUENCES = {
    "read": "reading it now reads the live batch (AttributeError where it was never set there)",
    "set": "setting it now mutates the live batch",
    "update": "updating it now reads and mutates the live batch",
}
ATTRIBUTE_BUILTINS = ("getattr", "hasattr", "setattr")


class MissingAttributeReporter(ShapeReporter):
    SHAPE = "9: attributes the new object lacks"
    CODES = ("MWB136", "MWB137", "MWB181")

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.Call: self.visit_call, cst.Attribute: self.visit_attribute}

    def visit_attribute(self, node: cst.Attribute) -> None:
        # (`__dict__` of the old object is the copy reporter's MWB131)
        if node.attr.value != "__dict__" and self.shapes.reads_old_object(node.value):
            self._check_field(node, node.attr.value)

    def visit_call(self, node: cst.Call) -> None:
        """`getattr(mwb, "bid")` and its kin name the attribute in a string."""
        if (
            last_name(node.func) not in ATTRIBUTE_BUILTINS
            or len(node.args) < 2
            or not self.shapes.reads_old_object(node.args[0].value)
        ):
            return
        name = string_value(node.args[1].value)
        callee = last_name(node.func)
        if name is None:
            self.review(
                node,
                "MWB137",
                f"`{callee}()` of the old object with a computed name: it now reaches the live batch, whose fields are named differently",
            )
        elif name in RENAMED_FIELDS:
            self.review(
                node,
                self._missing_code(node),
                f"`{callee}(..., {name!r})`: ScheduleBatch calls it `{RENAMED_FIELDS[name]}` (not gated on decode); a name in a string is not renamed",
            )
        elif name in FIELDS_COMPUTED_FROM_REQS:
            self.review(
                node,
                self._missing_code(node),
                f"`{callee}(..., {name!r})`: ScheduleBatch has no `{name}`; it is computed from `reqs[i].{FIELDS_COMPUTED_FROM_REQS[name]}`",
            )
        else:
            self._check_field(node, name)

    def _check_field(self, node: cst.CSTNode, field: str) -> None:
        if field.startswith("__") or field in RENAMED_FIELDS or field in FIELDS_COMPUTED_FROM_REQS:
            return  # dunders are not fields; field-renames handles the renamed and computed ones
        if field in ONE_SHOT_OVERRIDES:
            return  # ScheduleBatch has all three in 0.5.13 (semantic-review judges their use)
        own = self.shapes.state.own_worker_batch_fields
        if field in own.batch_copies or field in own.copied:
            return  # this tree's batch declares it, and its old method copied it from there
        if field in MISSING_FIELDS:
            self.review(node, self._missing_code(node), f"`{field}`: {MISSING_FIELDS[field]}")
        elif field not in OLD_OBJECT_FIELDS:
            self.review(
                node,
                "MWB137",
                f"`{field}` is no field of 0.5.12.post1's {OLD_CLASS} (fork-only?): ScheduleBatch may not have it, and {ACCESS_CONSEQUENCES[self._access_kind(node)]}",
            )

    def _missing_code(self, node: cst.CSTNode) -> str:
        """MWB136 where the attribute is read (an AttributeError now), MWB181 where it is only set
        (a stray attribute of the live batch, which nothing of SGLang's reads)."""
        return "MWB181" if self._access_kind(node) == "set" else "MWB136"

    def _access_kind(self, node: cst.CSTNode) -> str:
        """Whether an attribute (or a getattr/hasattr/setattr call) reads, sets or updates it."""
        if isinstance(node, cst.Call):
            return "set" if last_name(node.func) == "setattr" else "read"
        parent = self.shapes.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            return "update"
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, cst.AnnAssign) and parent.target is node
        ):
            return "set"
        return "read"
