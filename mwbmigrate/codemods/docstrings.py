"""Update the data-flow description in docstrings: the middle layer is gone.

    ScheduleBatch -> ModelWorkerBatch -> ForwardBatch   ->   ScheduleBatch -> ForwardBatch

The bullet describing ModelWorkerBatch and the TODO about removing it are deleted, and the
ForwardBatch bullet says how it is built now. Other prose is left to people.
"""

from __future__ import annotations

import re

import libcst as cst

from mwbmigrate.analysis.names import OLD_FLOW
from mwbmigrate.codemods.base import OLD_API, MigrationCodemod, MigrationState

NEW_FLOW = "ScheduleBatch -> ForwardBatch"
# "- ModelWorkerBatch is managed by ..." and its indented continuation lines.
_OLD_BULLET = re.compile(r"^([ \t]*)- ModelWorkerBatch\b.*\n(?:\1[ \t]+\S.*\n)*", re.MULTILINE)
_OLD_TODO = re.compile(r"(?:^[ \t]*\n)?^[ \t]*TODO[^\n]*ModelWorkerBatch[^\n]*\n", re.MULTILINE)
_FORWARD_BULLET = re.compile(r"^([ \t]*)- ForwardBatch\b.*\n(?:\1[ \t]+\S.*\n)*", re.MULTILINE)
CONSTRUCTED_LINE = "It is constructed directly from a ScheduleBatch by `ForwardBatch.init_new`."


def rewrite_docstring(text: str) -> str:
    if OLD_FLOW not in text:
        return text
    text = text.replace(OLD_FLOW, NEW_FLOW)
    text = _OLD_BULLET.sub("", text)
    text = _OLD_TODO.sub("", text)

    def add_constructed(match: re.Match[str]) -> str:
        block = match.group(0)
        if CONSTRUCTED_LINE in block:
            return block
        return f"{block}{match.group(1)}  {CONSTRUCTED_LINE}\n"

    return _FORWARD_BULLET.sub(add_constructed, text, count=1)


class UpdateDataFlowDocstrings(MigrationCodemod):
    CODE = "MWB003"
    NAME = "docstrings"
    SUMMARY = "Rewrite the data-flow line `ScheduleBatch -> ModelWorkerBatch -> ForwardBatch` in docstrings."
    TRIGGERS = OLD_API
    BODY_WORDS = (OLD_FLOW,)
    METADATA_DEPENDENCIES = ()

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return OLD_FLOW in text

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.BaseExpression:
        if OLD_FLOW not in updated_node.value:
            return updated_node
        return updated_node.with_changes(value=rewrite_docstring(updated_node.value))
