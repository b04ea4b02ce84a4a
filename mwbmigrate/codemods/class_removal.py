"""In SGLang's own `schedule_batch.py`: delete `class ModelWorkerBatch` and `get_model_worker_batch`,
and declare the one-shot override fields on `ScheduleBatch`.

    class ScheduleBatch:                        class ScheduleBatch:
        ...                                         ...
        def get_model_worker_batch(self): ... ->    capture_hidden_mode: Optional[CaptureHiddenMode] = None
    class ModelWorkerBatch: ...                     return_hidden_states_before_norm: bool = False

Only in a module that defines SGLang's class (by qualified name); another project's class of the
same name is never touched. With `--target-version 0.5.16` no field is declared: 0.5.16 has none,
the overrides are keyword arguments of `ForwardBatch.init_new` (override-arguments). What
`get_model_worker_batch` computed moves to `ForwardBatch.init_new` (core migration onto the runtime).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, OLD_METHOD
from mwbmigrate.analysis.target_versions import KEYWORD_OVERRIDES_SINCE, overrides_are_arguments
from mwbmigrate.codemods.base import REPORTS, MigrationCodemod, MigrationState, deleted, settle_module, settled

# Names the declarations use: (module, object); object None for `import module`.
DECLARATION_IMPORTS = {
    "Optional": ("typing", "Optional"),
    "torch": ("torch", None),
    "CaptureHiddenMode": ("model_executor.forward_batch_info", "CaptureHiddenMode"),  # under SGLang's root
}

ONE_SHOT_FIELD_DECLARATIONS = {
    "seq_lens_cpu_cache": "seq_lens_cpu_cache: Optional[torch.Tensor] = None",
    "capture_hidden_mode": "capture_hidden_mode: Optional[CaptureHiddenMode] = None",
    "return_hidden_states_before_norm": "return_hidden_states_before_norm: bool = False",
}


def _field_names(body: cst.IndentedBlock) -> set[str]:
    names = set()
    for statement in body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    names.add(small.target.value)
    return names


class RemoveOldClass(MigrationCodemod):
    CODE = "MWB009"
    NAME = "class-removal"
    SUMMARY = "Delete `class ModelWorkerBatch` and `ScheduleBatch.get_model_worker_batch`; declare the one-shot override fields."
    TRIGGERS = (OLD_CLASS, OLD_METHOD)
    REQUIRES = ("MWB002", "MWB005", "MWB008", "MWB004", "MWB013", *REPORTS)
    BOUNDARIES = (KEYWORD_OVERRIDES_SINCE,)  # where overrides_are_arguments() turns true
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return state.location.is_schedule_batch_module

    def visit_Module(self, node: cst.Module) -> bool:
        return self.state.location.is_schedule_batch_module

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if original_node.name.value == OLD_CLASS:
            return deleted(updated_node)  # the class goes with what is inside it; the comments above it stay
        if original_node.name.value != NEW_CLASS or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        body, footer = settled(
            [
                deleted(statement)
                if isinstance(statement, cst.FunctionDef) and statement.name.value == OLD_METHOD
                else statement
                for statement in updated_node.body.body
            ],
            updated_node.body.footer,
        )
        present = _field_names(updated_node.body)
        missing = [decl for name, decl in ONE_SHOT_FIELD_DECLARATIONS.items() if name not in present]
        if overrides_are_arguments(self.state.target_version):
            missing = []  # 0.5.16 passes the overrides to init_new; a field would never be read
        if missing:
            last_field = max(
                (
                    i
                    for i, s in enumerate(body)
                    if isinstance(s, cst.SimpleStatementLine)
                    and any(isinstance(small, cst.AnnAssign) for small in s.body)
                ),
                default=-1,
            )
            new_fields = [cst.parse_statement(decl) for decl in missing]
            new_fields[0] = new_fields[0].with_changes(
                leading_lines=[
                    cst.EmptyLine(indent=False),
                    cst.EmptyLine(
                        comment=cst.Comment(
                            "# One-shot per-forward overrides, consumed and reset by ForwardBatch.init_new."
                        )
                    ),
                ]
            )
            body[last_field + 1 : last_field + 1] = new_fields
            self._import_declaration_names(original_node, " ".join(missing))
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body, footer=footer))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return settle_module(updated_node)

    def _import_declaration_names(self, class_node: cst.ClassDef, declarations: str) -> None:
        """A fork's schedule_batch.py may lack what the new annotations name: import it then."""
        scope = self.get_metadata(ScopeProvider, class_node, None)
        parts = self.state.location.parts
        sglang_root = ".".join(parts[len(parts) - 1 - parts[::-1].index("sglang") : -2])
        for name, (module, obj) in DECLARATION_IMPORTS.items():
            if name not in declarations or (scope is not None and name in scope):
                continue
            if obj == "CaptureHiddenMode":
                module = f"{sglang_root}.{module}"
            AddImportsVisitor.add_needed_import(self.context, module, obj)
