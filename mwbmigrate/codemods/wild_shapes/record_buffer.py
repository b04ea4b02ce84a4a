"""Shape 13: the scheduler's record of the batches in flight. Fixtures: shape13_batch_record_buffer,
shape13_watchdog_without_old_api.

0.5.12's scheduler kept each overlap forward's worker batch in `batch_record_buf` (a per-forward
snapshot), through `record_batch_in_overlap(model_worker_batch)`. After the migration the scheduler
records the live batch: SGLang 0.5.13 on stores `[batch, attr_snapshot]` (the batch and its fields'
values when recorded), and the migrated tree's own scheduler the batch. So code that reads the
buffer's entries as worker batches (a watchdog, a flight recorder) reads something else, and an
override of `record_batch_in_overlap` is handed the same live batch every step.

    stuck = [b.seq_lens for b in self.batch_record_buf if b is not None]
    # after: kept as is, and marked:
    #   mwbmigrate: MWB186 the entries of `batch_record_buf` are no longer per-forward worker batches: ...

MWB186  a read of `batch_record_buf` (its entries), outside a store into it
MWB187  an override of `record_batch_in_overlap` outside SGLang's own scheduler
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeContext, ShapeReporter

BUFFER = "batch_record_buf"
RECORDER = "record_batch_in_overlap"


class RecordBufferReporter(ShapeReporter):
    SHAPE = "13: the scheduler's batch record buffer"
    CODES = ("MWB186", "MWB187")

    def __init__(self, shapes: ShapeContext) -> None:
        super().__init__(shapes)
        self._stores: set[int] = set()  # the buffer attributes that are assignment targets' roots

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.Attribute: self.visit_attribute, cst.FunctionDef: self.visit_function}

    def on_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        # `self.batch_record_buf = [None] * 2` and `self.batch_record_buf[i] = x` write the buffer.
        root = target.value if isinstance(target, cst.Subscript) else target
        if isinstance(root, cst.Attribute) and root.attr.value == BUFFER:
            self._stores.add(id(root))
        return False

    def visit_attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != BUFFER or id(node) in self._stores:
            return
        self.review(
            node,
            "MWB186",
            f"the entries of `{BUFFER}` are no longer per-forward worker batches: the scheduler records the "
            "live batch (SGLang 0.5.13 on: `[batch, attr_snapshot]`, the batch and its fields' values when recorded)",
        )

    def visit_function(self, node: cst.FunctionDef) -> None:
        if node.name.value != RECORDER or not self.shapes.classes or self.shapes.state.location.inside_sglang:
            return  # SGLang's own method is migrated, not overridden
        self.review(
            node,
            "MWB187",
            f"`{RECORDER}` is now called with the live ScheduleBatch, the same object every step (it was a "
            f"per-forward snapshot); SGLang 0.5.13 on stores `[batch, attr_snapshot]` in `{BUFFER}`",
        )
