"""Follow renamed parameters to keyword call sites, across files.

    self.target_worker.forward_batch_generation(model_worker_batch=None, ...)
->  self.target_worker.forward_batch_generation(batch=None, ...)

Runs in the engine's second pass with the signatures every file's parameter rename recorded. Only
keywords of functions renamed in this project are touched; a name renamed two different ways is
left alone and reported (MWB108).
"""

from __future__ import annotations

import libcst as cst

from mwbmigrate.analysis.old_api import OLD_PARAMETER

from mwbmigrate.codemods.base import MigrationCodemod


def _callee_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


class RenameKeywordArguments(MigrationCodemod):
    CODE = "MWB007"
    NAME = "keyword-callers"
    SUMMARY = "Rename `model_worker_batch=` keywords in calls to functions whose parameter was renamed."
    METADATA_DEPENDENCIES = ()

    @classmethod
    def applies_to(cls, text, state):
        return any(old in text for renames in state.project_signatures.values() for old in renames)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        callee = _callee_name(updated_node.func)
        renames = self.state.project_signatures.get(callee or "", {})
        if not renames:
            if any(arg.keyword is not None and arg.keyword.value == OLD_PARAMETER for arg in updated_node.args):
                self.review(original_node, "MWB115", f"`{OLD_PARAMETER}=` passed to `{callee}`, not known to be renamed here: if it is SGLang's, it takes `batch=` now")
            return updated_node
        args = []
        for arg in updated_node.args:
            if arg.keyword is not None and arg.keyword.value in renames:
                new = renames[arg.keyword.value]
                if new is None:
                    self.review(original_node, "MWB108", f"`{callee}` renames `{arg.keyword.value}` differently in different places")
                else:
                    arg = arg.with_changes(keyword=cst.Name(new))
            args.append(arg)
        return updated_node.with_changes(args=args)
