"""Put an SGLang core tree onto `mwbmigrate.runtime`: what upstream moved by hand in 0.5.13.

The helpers are imported from `MigrationState.runtime_module`: `mwbmigrate.runtime`, or the private
copy `--runtime vendor` puts into the tree (`<package>._mwbmigrate_runtime`).

In the module defining `ForwardBatch.init_new`, the method starts by reading the batch through the
runtime's view, which consumes and resets the one-shot overrides and recomputes what
`get_model_worker_batch` derived (decode/idle gating, `capture_hidden_mode`, grammars, the
`seq_lens_cpu` override with its shape check):

    def init_new(cls, batch, model_runner):        def init_new(cls, batch, model_runner):
        ret = cls(...)                       ->        batch = forward_batch_view(batch, CaptureHiddenMode)
                                                       ret = cls(...)

With `--target-version 0.5.16`, `init_new` takes the overrides as keyword-only arguments, as 0.5.16's
does, and hands them to the view (which then reads and resets nothing on the batch):

    def init_new(cls, batch, model_runner, *, capture_hidden_mode: Optional[CaptureHiddenMode] = None,
                 return_hidden_states_before_norm: bool = False):
        batch = forward_batch_view(batch, CaptureHiddenMode, capture_hidden_mode=capture_hidden_mode, ...)

In the scheduler, the overlap forward's copy-and-pin becomes the isolation context manager:

    self.record_batch_in_overlap(batch)             with overlap_forward_isolation(batch, self.batch_record_ring):
    batch.sampling_info = (                   ->        bs = len(batch.seq_lens)
        batch.sampling_info.copy_for_forward())         ...
    bs = len(batch.seq_lens)                            with self.forward_stream_ctx:
    ...                                                     ...
    with self.forward_stream_ctx:
        ...

and the ring is created beside `self.batch_record_buf`. In a spec-v2 `verify`, the lone
`batch.seq_lens.record_stream(stream)` covers every tensor the verify forward reads:

    batch.seq_lens.record_stream(s)    ->   record_stream_for_v2_verify(batch, batch.spec_info, s)
    ... = verify_input.prepare_for_v2_verify(...)
                                       ->   ... then record_stream_each((batch.input_ids, batch.out_cache_loc), s)

Only these exact shapes are rewritten;
anything else is left to the review items of semantic-review.

In a tree that configures a line length or a formatter (`TransformOptions.wrap_line_length`), a call
these statements make that does not fit on its line is laid out as black lays it out: its arguments
on a line of their own, else one argument a line with a magic trailing comma (a tuple argument too
long for its line exploded the same way), so black leaves it as it is.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mwbmigrate.analysis.override_sites import CORE_RUNTIME, reads_through_view
from mwbmigrate.analysis.target_versions import KEYWORD_OVERRIDES_SINCE, overrides_are_arguments
from mwbmigrate.codemods._call_layout import hugged_arguments, init_new_with_override_arguments, one_argument_a_line
from mwbmigrate.codemods._shared import leading_lines
from mwbmigrate.codemods.base import OLD_API, REPORTS, MigrationCodemod, MigrationState, deleted, settled

VIEW = "forward_batch_view"
ISOLATION = "overlap_forward_isolation"
RING = "BatchRecordRing"
RING_ATTRIBUTE = "batch_record_ring"
VERIFY_STREAMS = "record_stream_for_v2_verify"
EACH_STREAM = "record_stream_each"
_EMPTY = cst.SimpleWhitespace("")
_SPACE = cst.SimpleWhitespace(" ")


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _fitted(
    call: cst.Call, indent: int, unit: str, line_length: int | None, before: int = 0, after: int = 0
) -> cst.Call:
    """`call`, on a line `indent` wide with `before` and `after` characters around it, as black lays
    it out when it does not fit in `line_length`: the arguments on a line of their own one `unit`
    deeper, else one argument a line with a trailing comma. A call with a comment inside keeps its
    layout, which is the user's own.

    An argument the user wrote over several lines (a stream expression black had split in the
    statement replaced) did not fit one `unit` deeper on its own: the arguments cannot fit there
    together either, so they go one a line, and that argument keeps its lines at the same depth."""
    code = _code(call)
    if line_length is None or "#" in code:
        return call
    split = "\n" in code
    if not split and indent + before + len(code) + after <= line_length:
        return call
    inline = ", ".join(
        _code(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_EMPTY)) for arg in call.args
    )
    if not split and indent + len(unit) + len(inline) <= line_length:
        return hugged_arguments(call, unit, "")
    exploded = one_argument_a_line(call, unit)
    width = indent + len(unit)
    return exploded.with_changes(args=[_exploded_tuple(arg, width, unit, line_length) for arg in exploded.args])


def _exploded_tuple(arg: cst.Arg, indent: int, unit: str, line_length: int) -> cst.Arg:
    """A parenthesized tuple argument too long for its line (`indent` wide, trailing comma included)
    with one element a line and a trailing comma, as black explodes a collection."""
    value = arg.value
    if not isinstance(value, cst.Tuple) or not value.lpar or indent + len(_code(value)) + 1 <= line_length:
        return arg
    inner = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(unit * 2))
    closing = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(unit))
    last = len(value.elements) - 1
    elements = [
        element.with_changes(comma=cst.Comma(whitespace_after=closing if i == last else inner))
        for i, element in enumerate(value.elements)
    ]
    lpar = [value.lpar[0].with_changes(whitespace_after=inner), *value.lpar[1:]]
    rpar = [value.rpar[0].with_changes(whitespace_before=_EMPTY), *value.rpar[1:]]
    return arg.with_changes(value=value.with_changes(lpar=lpar, elements=elements, rpar=rpar))


def _seq_lens_record_stream(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """`<batch>.seq_lens.record_stream(<stream>)` -> (batch name, stream expression)."""
    if m.matches(
        statement,
        m.SimpleStatementLine(
            body=[
                m.Expr(
                    m.Call(
                        func=m.Attribute(m.Attribute(m.Name(), m.Name("seq_lens")), m.Name("record_stream")),
                        args=[m.Arg(keyword=None)],
                    )
                )
            ]
        ),
    ):
        call = _expression_call(statement)
        seq_lens = cst.ensure_type(cst.ensure_type(call.func, cst.Attribute).value, cst.Attribute)
        return cst.ensure_type(seq_lens.value, cst.Name).value, call.args[0].value
    return None


def _is_pin(statement: cst.CSTNode) -> str | None:
    """`self.record_batch_in_overlap(<name>)` -> the name."""
    if m.matches(
        statement,
        m.SimpleStatementLine(
            body=[
                m.Expr(
                    m.Call(
                        func=m.Attribute(m.Name("self"), m.Name("record_batch_in_overlap")),
                        args=[m.Arg(m.Name())],
                    )
                )
            ]
        ),
    ):
        return cst.ensure_type(_expression_call(statement).args[0].value, cst.Name).value
    return None


def _expression_call(statement: cst.CSTNode) -> cst.Call:
    """The call of `f(...)` alone on its line (a statement a matcher found to be one)."""
    line = cst.ensure_type(statement, cst.SimpleStatementLine)
    return cst.ensure_type(cst.ensure_type(line.body[0], cst.Expr).value, cst.Call)


def _is_copy_for_forward(statement: cst.CSTNode, name: str) -> bool:
    return m.matches(
        statement,
        m.SimpleStatementLine(
            body=[
                m.Assign(
                    targets=[m.AssignTarget(m.Attribute(m.Name(name), m.Name("sampling_info")))],
                    value=m.Call(
                        func=m.Attribute(
                            m.Attribute(m.Name(name), m.Name("sampling_info")), m.Name("copy_for_forward")
                        ),
                        args=[],
                    ),
                )
            ]
        ),
    )


def _is_forward_stream(statement: cst.CSTNode) -> bool:
    return m.matches(statement, m.With(items=[m.WithItem(m.Attribute(m.Name("self"), m.Name("forward_stream_ctx")))]))


class MoveCoreOntoRuntime(MigrationCodemod):
    CODE, NAME = CORE_RUNTIME
    SUMMARY = "In an SGLang core tree: `ForwardBatch.init_new` reads the batch through the runtime's view; the overlap forward runs in `overlap_forward_isolation`."
    # applies_to's three shapes: `init_new` (which names the old class), the overlap ring and the verify stream.
    TRIGGERS = (*OLD_API, "record_batch_in_overlap", "seq_lens.record_stream(")
    # applies_to's words, and the attribute the ring is created beside (in another method).
    BODY_WORDS = (
        "init_new",
        "copy_for_forward",
        "forward_stream_ctx",
        "record_stream",
        "batch_record_buf",
    )
    REQUIRES = REPORTS
    BOUNDARIES = (KEYWORD_OVERRIDES_SINCE,)  # where overrides_are_arguments() turns true
    METADATA_DEPENDENCIES = ()

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        init_new = (
            "class ForwardBatch" in text
            and "def init_new" in text
            and "CaptureHiddenMode" in text
            and "ModelWorkerBatch" in text
        )
        overlap = "record_batch_in_overlap" in text and "copy_for_forward" in text and "forward_stream_ctx" in text
        verify = "seq_lens.record_stream(" in text
        return init_new or overlap or verify

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        # Per function: the (batch, stream) of a replaced seq_lens.record_stream, if any.
        self._verify_streams: list[tuple[str, cst.BaseExpression] | None] = []

    def _need(self, helper: str) -> None:
        # mwbmigrate.runtime, or the tree's vendored copy under `--runtime vendor`.
        AddImportsVisitor.add_needed_import(self.context, self.state.runtime_module, helper)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._verify_streams.append(None)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        found = _seq_lens_record_stream(updated_node)
        if found is None or not self._verify_streams:
            return updated_node
        if "def verify" not in "".join(self._function_names[-1:]):
            return updated_node
        batch, stream = found
        self._verify_streams[-1] = found
        self._need(VERIFY_STREAMS)
        call = cst.ensure_type(
            cst.parse_expression(f"{VERIFY_STREAMS}({batch}, {batch}.spec_info, __stream__)"), cst.Call
        )
        call = call.with_changes(args=[*call.args[:2], call.args[2].with_changes(value=stream)])
        return updated_node.with_changes(body=[cst.Expr(self._fitted(call))])

    @property
    def _line_length(self) -> int | None:
        return self.state.wrap_line_length

    def _indent(self, inner: cst.IndentedBlock | None = None) -> int:
        """How wide the indentation of a statement of the innermost block being visited is (of
        `inner`, a block of the node being left, when given)."""
        unit = self.module.default_indent
        blocks = [n for n in self._ancestors if isinstance(n, cst.IndentedBlock)] + ([inner] if inner else [])
        return sum(len(unit if block.indent is None else block.indent) for block in blocks)

    def _fitted(
        self, call: cst.Call, before: str = "", after: str = "", inner: cst.IndentedBlock | None = None
    ) -> cst.Call:
        """`call` laid out for the tree's line length, on its line between `before` and `after`."""
        unit = self.module.default_indent
        return _fitted(call, self._indent(inner), unit, self._line_length, len(before), len(after))

    @property
    def _function_names(self) -> list[str]:
        return [f"def {n.name.value}" for n in self._ancestors if isinstance(n, cst.FunctionDef)]

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._verify_streams.pop()
        if reads_through_view(self.enclosing_class(), updated_node.name.value):
            return self._view_in_init_new(updated_node)
        return updated_node

    def _view_in_init_new(self, function: cst.FunctionDef) -> cst.FunctionDef:
        params = function.params.params
        if len(params) < 2 or not isinstance(function.body, cst.IndentedBlock):
            return function
        if VIEW in cst.Module([]).code_for_node(function.body):
            return function
        batch = params[1].name.value
        self._need(VIEW)
        statement = cst.ensure_type(
            cst.parse_statement(f"{batch} = {VIEW}({batch}, CaptureHiddenMode)"), cst.SimpleStatementLine
        )
        if overrides_are_arguments(self.state.target_version):
            # 0.5.16: the overrides are init_new's keyword arguments, handed on to the view.
            function, statement = init_new_with_override_arguments(function, statement)
            AddImportsVisitor.add_needed_import(self.context, "typing", "Optional")
        else:
            assignment = cst.ensure_type(statement.body[0], cst.Assign)
            view = self._fitted(
                cst.ensure_type(assignment.value, cst.Call),
                f"{batch} = ",
                inner=cst.ensure_type(function.body, cst.IndentedBlock),
            )
            statement = statement.with_changes(body=[assignment.with_changes(value=view)])
        body = list(function.body.body)
        first = 1 if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])) else 0
        body.insert(first, statement)
        return function.with_changes(body=function.body.with_changes(body=body))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        body = list(updated_node.body)
        body = self._create_ring(body)
        if isinstance(self.parent(original_node), cst.FunctionDef):
            body = self._record_after_verify_prepare(body)
        for index, statement in enumerate(body):
            name = _is_pin(statement)
            if name is None or index + 1 >= len(body) or not _is_copy_for_forward(body[index + 1], name):
                continue
            end = next((j for j in range(index + 2, len(body)) if _is_forward_stream(body[j])), None)
            if end is None:
                continue
            self._need(ISOLATION)
            inner = body[index + 2 : end + 1]
            inner[0] = inner[0].with_changes(
                leading_lines=[line for line in leading_lines(inner[0]) if line.comment is not None]
            )
            entered = cst.ensure_type(cst.parse_expression(f"{ISOLATION}({name}, self.{RING_ATTRIBUTE})"), cst.Call)
            isolation = cst.With(
                items=[cst.WithItem(self._fitted(entered, "with ", ":"))],
                body=cst.IndentedBlock(body=inner),
            )
            # What the pin and the copy said (why the copy is needed) now heads the isolation that does both.
            body[index : end + 1] = [deleted(statement), deleted(body[index + 1]), isolation]
            body, footer = settled(body, updated_node.footer)
            return updated_node.with_changes(body=body, footer=footer)
        return updated_node.with_changes(body=body) if body != list(updated_node.body) else updated_node

    def _record_after_verify_prepare(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """After `prepare_for_v2_verify` rebinds `input_ids`/`out_cache_loc`, record those too.

        Placed after the top-level statement that holds the call, not inside it: a `with` around
        the call may switch the current stream, and the stream expression must mean the same.
        """
        found = self._verify_streams[-1] if self._verify_streams else None
        if found is None:
            return body
        batch, stream = found
        result: list[cst.BaseStatement] = []
        for statement in body:
            result.append(statement)
            code = cst.Module([]).code_for_node(statement)
            if ".prepare_for_v2_verify(" in code and EACH_STREAM not in code:
                self._need(EACH_STREAM)
                call = cst.ensure_type(
                    cst.parse_expression(f"{EACH_STREAM}(({batch}.input_ids, {batch}.out_cache_loc), __stream__)"),
                    cst.Call,
                )
                call = call.with_changes(args=[call.args[0], call.args[1].with_changes(value=stream)])
                result.append(cst.SimpleStatementLine(body=[cst.Expr(self._fitted(call))]))
        return result

    def _create_ring(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """`self.batch_record_ring = BatchRecordRing(2)` right after `self.batch_record_buf = ...`."""
        if any(
            m.matches(
                s,
                m.SimpleStatementLine(
                    body=[m.Assign(targets=[m.AssignTarget(m.Attribute(m.Name("self"), m.Name(RING_ATTRIBUTE)))])]
                ),
            )
            for s in body
        ):
            return body
        for index, statement in enumerate(body):
            if m.matches(
                statement,
                m.SimpleStatementLine(
                    body=[m.Assign(targets=[m.AssignTarget(m.Attribute(m.Name("self"), m.Name("batch_record_buf")))])]
                ),
            ):
                self._need(RING)
                ring = cst.parse_statement(f"self.{RING_ATTRIBUTE} = {RING}(2)")
                return [*body[: index + 1], ring, *body[index + 1 :]]
        return body
