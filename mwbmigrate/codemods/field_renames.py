"""Rename fields whose ScheduleBatch name differs, on receivers known to hold the old object.

    model_worker_batch.extend_seq_lens     ->  model_worker_batch.extend_lens
    model_worker_batch.extend_prefix_lens  ->  model_worker_batch.prefix_lens
    model_worker_batch.lora_ids            ->  [req.lora_id for req in model_worker_batch.reqs]

The receiver is renamed later by the parameter and call-site codemods. Refuses every receiver not
provably the old object: `ForwardBatch` shares these attribute names with other meanings.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import FIELDS_COMPUTED_FROM_REQS, RENAMED_FIELDS
from mwbmigrate.codemods._shared import function_facts
from mwbmigrate.codemods.base import MigrationCodemod


class RenameOldObjectFields(MigrationCodemod):
    CODE = "MWB006"
    NAME = "field-renames"
    SUMMARY = "Rename `extend_seq_lens`/`extend_prefix_lens` and compute `lora_ids`/`dllm_block_offsets` from reqs on old-object receivers."
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text, state):
        return any(field in text for field in (*RENAMED_FIELDS, *FIELDS_COMPUTED_FROM_REQS))

    def __init__(self, context) -> None:
        super().__init__(context)
        self._receivers: set[cst.Name] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._receivers |= function_facts(self, node).old_object_accesses()

    def _is_store(self, node: cst.Attribute) -> bool:
        parent = self.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return parent.target is node
        return isinstance(parent, (cst.Del, cst.Element))

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if original_node.value not in self._receivers:
            return updated_node
        field = original_node.attr.value
        if field in RENAMED_FIELDS:
            return updated_node.with_changes(attr=cst.Name(RENAMED_FIELDS[field]))
        if field in FIELDS_COMPUTED_FROM_REQS:
            if self._is_store(original_node):
                self.review(original_node, "MWB109", f"`{field}` is no ScheduleBatch field; it was computed from `reqs`")
                return updated_node
            per_request = FIELDS_COMPUTED_FROM_REQS[field]
            return cst.ListComp(
                elt=cst.Attribute(value=cst.Name("req"), attr=cst.Name(per_request)),
                for_in=cst.CompFor(
                    target=cst.Name("req"),
                    iter=cst.Attribute(value=updated_node.value, attr=cst.Name("reqs")),
                ),
            )
        return updated_node
