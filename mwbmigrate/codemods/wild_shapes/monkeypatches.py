"""Shape 3: monkeypatches, string keys, module stubs and mocks. Fixtures: shape03_monkeypatch_wrapper,
shape03_wrapped_wrapper_no_crash, shape03_module_stubs_and_mocks.

    def _traced(self, model_worker_batch, *args, **kwargs):   # the wrapper's parameter becomes `batch`
        record(kwargs.get("model_worker_batch"))   # mwbmigrate: MWB126 string key "model_worker_batch" ...

    TpModelWorker.forward_batch_generation = _traced   # mwbmigrate: MWB125 ... replaced at run time by `_traced` ...
    sys.modules["sglang.srt.managers.schedule_batch"] = stub   # mwbmigrate: MWB127 stub of SGLang's schedule_batch module ...
    batch.get_model_worker_batch.return_value = fake   # mwbmigrate: MWB128 mock of `get_model_worker_batch` ...

    MWB125  a method replaced at run time by a function that takes the old object
    MWB126  the string key or keyword `model_worker_batch` where SGLang now passes `batch`
    MWB127  a stub of SGLang's `schedule_batch` module (`sys.modules`, `module.ModelWorkerBatch = ...`)
    MWB128  a mock standing in for `get_model_worker_batch`, or specced on the old class
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.calls import last_name
from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_METHOD, is_sglang_schedule_batch_module
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.version_gates import dotted, string_value
from mwbmigrate.codemods._shared import param_holds_old_object
from mwbmigrate.codemods.wild_shapes.facts import code
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeContext, ShapeReporter

MOCK_FACTORIES = frozenset(
    {"Mock", "MagicMock", "AsyncMock", "NonCallableMock", "NonCallableMagicMock", "create_autospec"}
)


class MonkeypatchReporter(ShapeReporter):
    SHAPE = "3: monkeypatches"
    CODES = ("MWB125", "MWB126", "MWB127", "MWB128")

    def __init__(self, shapes: ShapeContext) -> None:
        super().__init__(shapes)
        self._patch_functions: set[str] = set()  # functions that take the old object (monkeypatch wrappers)

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {
            cst.Module: self.visit_module,
            cst.Call: self.visit_call,
            cst.Attribute: self.visit_attribute,
            cst.SimpleString: self.visit_string,
        }

    def visit_module(self, node: cst.Module) -> None:
        reporter = self

        class _Wrappers(cst.CSTVisitor):
            def on_visit(self, node: cst.CSTNode) -> bool:
                return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

            def visit_FunctionDef(self, function: cst.FunctionDef) -> None:
                # A wrapper that takes the old object, or digs it out of **kwargs by name.
                params = all_params(function.params)
                if any(param_holds_old_object(reporter.shapes, p) for p in params) or _reads_old_keyword(function):
                    reporter._patch_functions.add(function.name.value)

        node.visit(_Wrappers())

    # -- replacements assigned at run time ------------------------------------------------------
    def on_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        if not isinstance(target, cst.Attribute):
            return False
        attr = target.attr.value
        if attr == OLD_METHOD:
            if isinstance(value, cst.Call) and last_name(value.func) in MOCK_FACTORIES:
                self.review(
                    anchor,
                    "MWB128",
                    f"mock standing in for `{OLD_METHOD}`: 0.5.13 code never calls it; hand the code under test the batch itself",
                )
                return True
            return False  # any other value: the own-method reporter's MWB124
        if attr == OLD_CLASS:
            self.review(
                anchor,
                "MWB127",
                f"stub sets `{OLD_CLASS}` on a module: 0.5.13 code imports only ScheduleBatch from schedule_batch",
            )
            return True
        patched: str | None = None
        if isinstance(value, cst.Lambda) and _lambda_takes_old_object(value):
            patched = "a lambda"
        elif isinstance(value, cst.Name) and dotted(value) in self._patch_functions:
            patched = f"`{dotted(value)}`"
        if patched is None:
            return False
        self.review(anchor, "MWB125", _patch_reason(code(target), patched))
        return True

    def visit_call(self, node: cst.Call) -> None:
        callee = last_name(node.func)
        if callee in MOCK_FACTORIES or callee in ("patch", "object"):
            if any(self.shapes.mentions_old_class(arg.value) for arg in node.args):
                self.review(
                    node,
                    "MWB128",
                    f"mock specced on `{OLD_CLASS}`: it becomes specced on ScheduleBatch, whose fields differ",
                )
        if callee == "setattr" and len(node.args) >= 3:
            name = string_value(node.args[1].value)
            # (`setattr(x, "get_model_worker_batch", ...)` is the own-method reporter's MWB124)
            if name != OLD_METHOD and dotted(node.args[2].value) in self._patch_functions:
                self.review(
                    node,
                    "MWB125",
                    _patch_reason(f"{code(node.args[0].value)}.{name}", f"`{dotted(node.args[2].value)}`"),
                )
        for arg in node.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == OLD_METHOD:
                self.review(node, "MWB128", f"mock configured with `{OLD_METHOD}`: 0.5.13 code never calls it")

    # -- mocks of the method ----------------------------------------------------------------------
    def visit_attribute(self, node: cst.Attribute) -> bool:
        # An attribute of the old object is a field (shape 9), one named `model_worker_batch` an
        # untracked holder (shape 8): neither is a mock.
        if self.shapes.reads_old_object(node.value) or node.attr.value == OLD_PARAMETER:
            return False
        if isinstance(node.value, cst.Attribute) and node.value.attr.value == OLD_METHOD:
            self.review(node, "MWB128", f"mock of `{OLD_METHOD}` (`.{node.attr.value}`): 0.5.13 code never calls it")
            return True
        return False

    # -- string keys, patch targets and module stubs ---------------------------------------------
    def visit_string(self, node: cst.SimpleString) -> None:
        value = string_value(node)
        if value is None:
            return
        if value == OLD_PARAMETER:
            self.review(
                node,
                "MWB126",
                f'string key "{OLD_PARAMETER}": SGLang 0.5.13 passes and names it `batch`; strings are never rewritten',
            )
            return
        shapes = self.shapes
        arg = shapes.parent(node)
        parent = shapes.parent(arg) if isinstance(arg, cst.Arg) else None
        in_attr_call = isinstance(parent, cst.Call) and last_name(parent.func) in ("hasattr", "getattr", "setattr")
        if (value == OLD_METHOD or value.endswith("." + OLD_METHOD)) and not in_attr_call:
            self.review(node, "MWB128", f'"{value}" patched or mocked: 0.5.13 code never calls it')
        elif value.endswith("." + OLD_CLASS) and not shapes.in_annotation():  # a string annotation is no patch target
            self.review(node, "MWB128", f'"{value}" patched or mocked: the class is gone in 0.5.13')
        elif (
            is_sglang_schedule_batch_module(value, shapes.state.location)
            and not value.startswith(".")
            and self._statement_mentions_module_stub(node)
        ):
            self.review(
                node,
                "MWB127",
                f"stub of SGLang's schedule_batch module: 0.5.13 code imports ScheduleBatch from it, never {OLD_CLASS}",
            )

    def _statement_mentions_module_stub(self, node: cst.CSTNode) -> bool:
        statement = self.shapes.enclosing_statement(node)
        if isinstance(statement, cst.SimpleStatementLine):
            text = code(statement)
        elif isinstance(statement, cst.With):
            text = "".join(code(item) for item in statement.items)
        else:
            return False
        return "sys.modules" in text or "ModuleType" in text


def _patch_reason(patched: str, replacement: str) -> str:
    return (
        f"`{patched}` replaced at run time by {replacement}, which takes the old object: in 0.5.13 it "
        "receives the live ScheduleBatch, passed as `batch`"
    )


def _reads_old_keyword(function: cst.FunctionDef) -> bool:
    class _Keys(cst.CSTVisitor):
        found = False

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self.found = self.found or string_value(node) == OLD_PARAMETER

    keys = _Keys()
    function.body.visit(keys)
    return keys.found


def _lambda_takes_old_object(node: cst.Lambda) -> bool:
    return any(p.name.value == OLD_PARAMETER for p in node.params.params)
