"""Helpers several codemods need: recognising old-object parameters and empty blocks."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from mwbmigrate.analysis.old_api import OLD_PARAMETER
from mwbmigrate.analysis.receivers import FunctionFacts, analyse_function

PASS_LINE = cst.SimpleStatementLine(body=[cst.Pass()])


def annotation_is_old_class(codemod, annotation: cst.BaseExpression) -> bool:
    """`ModelWorkerBatch` or `Optional[ModelWorkerBatch]` (a `Union` with ScheduleBatch is not)."""
    if codemod.names_old_class(annotation):
        return True
    if m.matches(annotation, m.Subscript(value=m.Name("Optional") | m.Attribute(attr=m.Name("Optional")))):
        elements = annotation.slice
        return len(elements) == 1 and isinstance(elements[0].slice, cst.Index) and codemod.names_old_class(
            elements[0].slice.value
        )
    return False


def param_holds_old_object(codemod, param: cst.Param) -> bool:
    annotation = param.annotation.annotation if param.annotation is not None else None
    if annotation is not None and annotation_is_old_class(codemod, annotation):
        return True
    if param.name.value != OLD_PARAMETER:
        return False
    # A parameter named after the old object holds it unless its annotation says otherwise.
    return annotation is None or m.matches(annotation, m.Name("Any") | m.Attribute(attr=m.Name("Any")))


def function_facts(codemod, function: cst.FunctionDef) -> FunctionFacts:
    return analyse_function(codemod, function, lambda param: param_holds_old_object(codemod, param))


def is_pass_only(block: cst.BaseSuite) -> bool:
    return isinstance(block, cst.IndentedBlock) and all(
        m.matches(statement, m.SimpleStatementLine(body=[m.Pass()])) for statement in block.body
    )
