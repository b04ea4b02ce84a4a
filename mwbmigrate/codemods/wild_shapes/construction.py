"""Shape 4: direct construction of the old class. Fixture: shape04_construction_fields.

mwb = ModelWorkerBatch(bid=0, extend_seq_lens=[3], lora_ids=[None])
# after: kept as is, and marked:
#   mwbmigrate: MWB130 keywords with no ScheduleBatch field of that name: bid (gone),
#   extend_seq_lens (ScheduleBatch.extend_lens), lora_ids (computed from reqs)

MWB130  `ModelWorkerBatch(...)` keywords that have no `ScheduleBatch` field of that name
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.old_api import FIELDS_COMPUTED_FROM_REQS, RENAMED_FIELDS
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter

# Constructor keywords with no ScheduleBatch field of the same name, and why (MWB130).
NO_COUNTERPART_KEYWORDS = {
    **{old: f"ScheduleBatch.{new}" for old, new in RENAMED_FIELDS.items()},
    **{field: "computed from reqs" for field in FIELDS_COMPUTED_FROM_REQS},
    "bid": "gone",
    "launch_done": "gone",
    "token_type_ids": "removed in 0.5.13",
    "dimensions": "removed in 0.5.13",
    "return_pooled_hidden_states": "removed in 0.5.13",
    "multi_item_delimiter_indices": "removed in 0.5.13",
}


class ConstructionReporter(ShapeReporter):
    SHAPE = "4: direct construction"
    CODES = ("MWB130",)

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.Call: self.visit_call}

    def visit_call(self, node: cst.Call) -> None:
        if not self.shapes.names_old_class(node.func):
            return
        missing = [
            f"{arg.keyword.value} ({NO_COUNTERPART_KEYWORDS[arg.keyword.value]})"
            for arg in node.args
            if arg.keyword is not None and arg.keyword.value in NO_COUNTERPART_KEYWORDS
        ]
        if missing:
            self.review(node, "MWB130", f"keywords with no ScheduleBatch field of that name: {', '.join(missing)}")
