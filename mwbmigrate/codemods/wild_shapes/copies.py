"""Shape 5: copies and serialisation of the former old object. Fixture: shape05_copies_and_fields.

    def snapshot(model_worker_batch):
        return copy.copy(model_worker_batch)   # mwbmigrate: MWB131 `copy.copy` of the former old object now copies ... the live ScheduleBatch

    @dataclass
    class Step:
        batch: ModelWorkerBatch   # mwbmigrate: MWB132 field typed with the old class: it will hold the scheduler's live ScheduleBatch ...

The names and annotations are rewritten by the renaming codemods; this reporter marks what the
rewrite turns from a per-forward snapshot into the live batch.

    MWB131  a copy or serialisation of the former old object (it is the live ScheduleBatch now)
    MWB132  a field or attribute typed with the old class (it will hold the live batch)
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.old_api import OLD_CLASS
from mwbmigrate.codemods.wild_shapes.facts import code
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter

# Calls that copy or serialise their argument: what they keep is a copy of the old object.
COPY_CALLS = frozenset(
    {
        "copy.copy",
        "copy.deepcopy",
        "dataclasses.replace",
        "dataclasses.asdict",
        "dataclasses.astuple",
        "dataclasses.fields",
        "builtins.vars",
        "pickle.dumps",
        "pickle.dump",
        "cloudpickle.dumps",
        "cloudpickle.dump",
        "dill.dumps",
        "msgpack.packb",
        "msgpack.pack",
        "msgspec.msgpack.encode",
        "torch.save",
    }
)


class CopyReporter(ShapeReporter):
    SHAPE = "5: copies and serialisation"
    CODES = ("MWB131", "MWB132")

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.Call: self.visit_call, cst.Attribute: self.visit_attribute, cst.AnnAssign: self.visit_annotated}

    def visit_call(self, node: cst.Call) -> None:
        if not node.args:
            return
        names = self.shapes.qualified_names(node.func)
        if not names & COPY_CALLS:
            return
        first = node.args[0].value
        if self.shapes.reads_old_object(first):
            self.review(
                node,
                "MWB131",
                f"`{code(node.func)}` of the former old object now copies or serialises the live ScheduleBatch (pools, allocators, requests), not a per-forward snapshot",
            )
        elif "dataclasses.fields" in names and self.shapes.names_old_class(first):
            self.review(
                node, "MWB131", f"`dataclasses.fields({OLD_CLASS})` would list ScheduleBatch's fields, which differ"
            )

    def visit_attribute(self, node: cst.Attribute) -> bool:
        if node.attr.value == "__dict__" and self.shapes.reads_old_object(node.value):
            self.review(
                node, "MWB131", "`__dict__` of the former old object is the live ScheduleBatch's, with different fields"
            )
            return True
        return False

    def visit_annotated(self, node: cst.AnnAssign) -> None:
        shapes = self.shapes
        if not shapes.mentions_old_class(node.annotation.annotation):
            return
        line = shapes.parent(node)
        block = shapes.parent(line) if line is not None else None  # AnnAssign -> SimpleStatementLine -> block
        if isinstance(shapes.parent(block) if block is not None else None, cst.ClassDef):
            self.review(
                node,
                "MWB132",
                "field typed with the old class: it will hold the scheduler's live ScheduleBatch, not a per-forward copy (copies and pickles of the record now copy the batch)",
            )
        elif isinstance(node.target, cst.Attribute):
            self.review(
                node,
                "MWB132",
                "attribute typed with the old class: it will hold the scheduler's live ScheduleBatch, not a per-forward copy",
            )
