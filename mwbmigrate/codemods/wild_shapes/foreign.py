"""Shape 11: another project's class of the same name. Fixtures: shape11_jax_port_calls_untouched,
shape11_jax_port_types_untouched.

    from sgl_jax.srt.managers.schedule_batch import ModelWorkerBatch   # a JAX port's class

    def run(batch):
        model_worker_batch = batch.get_model_worker_batch()   # before and after: untouched

No reporter: the engine asks `imports_foreign_old_class` once, before the first codemod, and a
module that imports a `ModelWorkerBatch` that is not SGLang's reaches no codemod at all.
"""

from __future__ import annotations

import libcst as cst

from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.old_api import is_sglang_schedule_batch_module
from mwbmigrate.analysis.version_gates import imports_old_class
from mwbmigrate.codemods.wild_shapes.facts import code


def imports_foreign_old_class(module: cst.Module, location: ModuleLocation) -> bool:
    """True when the module imports a `ModelWorkerBatch` that is not SGLang's (a JAX port's, say)."""

    class _Imports(cst.CSTVisitor):
        foreign = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            # Imports are statements: expressions (most of a module's nodes) cannot hold one.
            return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if not imports_old_class(node):
                return
            dotted = "." * len(node.relative) + (code(node.module) if node.module else "")
            if not is_sglang_schedule_batch_module(dotted, location):
                self.foreign = True

    imports = _Imports()
    module.visit(imports)
    return imports.foreign
