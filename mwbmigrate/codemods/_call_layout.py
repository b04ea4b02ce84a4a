"""Call and signature layout shared by core-runtime and override-arguments (no codemod imports another).

Keyword arguments added to a call, one-shot override parameters added to a signature, and the black-like
layout of a line that grew past black's limit.
"""

from __future__ import annotations

import re
from typing import cast

import libcst as cst
import libcst.matchers as m

from mwbmigrate.analysis.target_versions import OVERRIDE_KEYWORDS, REQUIRED_INIT_NEW_KEYWORD

CAPTURE = "capture_hidden_mode"
PASS_THROUGH_FUNCTION = "forward_batch_generation"

MAX_LINE = 88  # black's default, which SGLang formats with: longer grown calls get one argument a line
_SCHEDULE_BATCH = re.compile(r"\bScheduleBatch\b")
_FORWARD_BATCH = re.compile(r"\bForwardBatch\b")
_EMPTY = cst.SimpleWhitespace("")
_SPACE = cst.SimpleWhitespace(" ")


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def consuming_call(call: cst.BaseExpression) -> str | None:
    """`ForwardBatch.init_new(...)` -> "init_new"; `<x>.forward_batch_generation(...)` -> its name."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    name = call.func.attr.value
    if name == "init_new" and m.matches(call.func.value, m.Name("ForwardBatch")):
        return name
    return name if name == PASS_THROUGH_FUNCTION else None


def _statement_call(statement: cst.CSTNode) -> cst.Call | None:
    """The call a simple statement evaluates last: `x = f(...)`, `f(...)`, `return f(...)`, with `await`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = (
        getattr(small, "value", None) if isinstance(small, (cst.Assign, cst.AnnAssign, cst.Expr, cst.Return)) else None
    )
    if isinstance(value, cst.Await):
        value = value.expression
    return value if isinstance(value, cst.Call) else None


def _with_call(statement: cst.SimpleStatementLine, call: cst.Call) -> cst.SimpleStatementLine:
    # `statement` is one `_statement_call` found its call in: an assignment, expression or return.
    small = cast("cst.Assign | cst.AnnAssign | cst.Expr | cst.Return", statement.body[0])
    value = small.value.with_changes(expression=call) if isinstance(small.value, cst.Await) else call
    return statement.with_changes(body=[small.with_changes(value=value)])


def batch_argument(call: cst.Call) -> str | None:
    """The name passed as the batch: the first positional argument, or `batch=`."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value.value if isinstance(arg.value, cst.Name) else None
        if arg.keyword is not None and arg.keyword.value == "batch":
            return arg.value.value if isinstance(arg.value, cst.Name) else None
    return None


def _keywords(call: cst.Call) -> set[str]:
    return {arg.keyword.value for arg in call.args if arg.keyword is not None}


def _free_of_effects(call: cst.Call) -> bool:
    """Arguments with no call, await or assignment: the write's value may be evaluated after them."""
    unsafe = m.Call() | m.Await() | m.NamedExpr() | m.Yield() | m.Lambda()
    return not any(m.findall(arg.value, unsafe) for arg in call.args)


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Pass `name=value`: replace an existing one, else insert it where 0.5.16 has it.

    `capture_hidden_mode` goes before `return_hidden_states_before_norm`, any keyword before
    `**kwargs`, otherwise it is last; the separator follows the call's layout (inline or one
    argument a line, trailing comma kept).
    """
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    new = cst.Arg(
        value=value, keyword=cst.Name(name), equal=cst.AssignEqual(whitespace_before=_EMPTY, whitespace_after=_EMPTY)
    )

    def later(a: cst.Arg) -> bool:
        return a.star == "**" or (
            name == CAPTURE and a.keyword is not None and a.keyword.value == REQUIRED_INIT_NEW_KEYWORD
        )

    index = next((i for i, arg in enumerate(args) if later(arg)), len(args))
    if index < len(args):
        previous = args[index - 1].comma if index else cst.MaybeSentinel.DEFAULT
        new = new.with_changes(
            comma=previous if isinstance(previous, cst.Comma) else cst.Comma(whitespace_after=_SPACE)
        )
        return call.with_changes(args=[*args[:index], new, *args[index:]])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument takes it
        separator = args[-2].comma if len(args) > 1 else cst.MaybeSentinel.DEFAULT
        if not isinstance(separator, cst.Comma):
            opening = call.whitespace_before_args
            separator = cst.Comma(
                whitespace_after=opening if isinstance(opening, cst.ParenthesizedWhitespace) else _SPACE
            )
        args[-1] = last.with_changes(comma=separator)
        new = new.with_changes(comma=last.comma)
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_arg=_EMPTY)
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new])


def arguments_on_their_own_line(call: cst.Call, indent: str, unit: str) -> cst.Call:
    """What black does with a call too long for its line: the arguments on one line of their own
    when they fit there (`indent` is the statement's), else one argument a line, trailing comma."""
    inline = ", ".join(
        _code(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_EMPTY)) for arg in call.args
    )
    if "\n" in inline or len(indent) + len(unit) + len(inline) > MAX_LINE:
        return one_argument_a_line(call, unit)
    return hugged_arguments(call, unit, "")


def hugged_arguments(call: cst.Call, inside: str, closing: str) -> cst.Call:
    """The arguments together on a line of their own, indented by `inside` past the statement, and
    the closing parenthesis on the next, indented by `closing`."""
    before = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(inside))
    after = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(closing))
    last = len(call.args) - 1
    args = [
        arg.with_changes(
            comma=cst.Comma(whitespace_after=_SPACE) if i < last else cst.MaybeSentinel.DEFAULT,
            whitespace_after_arg=after if i == last else _EMPTY,
        )
        for i, arg in enumerate(call.args)
    ]
    return call.with_changes(whitespace_before_args=before, args=args)


def one_line(call: cst.Call) -> cst.Call:
    args = [
        arg.with_changes(
            comma=cst.Comma(whitespace_after=_SPACE) if i < len(call.args) - 1 else cst.MaybeSentinel.DEFAULT,
            whitespace_after_arg=_EMPTY,
        )
        for i, arg in enumerate(call.args)
    ]
    return call.with_changes(whitespace_before_args=_EMPTY, args=args)


def one_argument_a_line(call: cst.Call, indent: str) -> cst.Call:
    """Black's exploded layout with a magic trailing comma, so a formatter keeps it."""
    inner = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))
    closing = cst.ParenthesizedWhitespace(indent=True, last_line=_EMPTY)
    last = len(call.args) - 1
    args = [
        arg.with_changes(comma=cst.Comma(whitespace_after=closing if i == last else inner), whitespace_after_arg=_EMPTY)
        for i, arg in enumerate(call.args)
    ]
    return call.with_changes(whitespace_before_args=inner, args=args)


def calls_split_to_fit(call: cst.Call, indent: str, unit: str) -> cst.Call:
    """In a call laid out one argument a line, an argument still longer than its line whose value is
    a call gets that call's arguments on a line of their own, as black splits it."""
    args = list(call.args)
    for index, arg in enumerate(args):
        value = arg.value
        line = _code(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_EMPTY))
        if len(indent) + len(unit) + len(line) + 1 <= MAX_LINE or "\n" in line:
            continue
        if not isinstance(value, cst.Call) or not value.args:
            continue
        args[index] = arg.with_changes(value=hugged_arguments(value, unit * 2, unit))
    return call.with_changes(args=args)


def with_keyword_only_parameter(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    """Append a keyword-only parameter after a bare `*` (a signature without `*`/`**` parts)."""
    last = params.params[-1]
    if isinstance(last.comma, cst.Comma):  # one parameter a line, trailing comma kept
        separator = params.params[-2].comma if len(params.params) > 1 else cst.MaybeSentinel.DEFAULT
        if not isinstance(separator, cst.Comma):
            separator = cst.Comma(whitespace_after=_SPACE)
        new_last, param = last.with_changes(comma=separator), param.with_changes(comma=last.comma)
    else:
        separator = cst.Comma(whitespace_after=_SPACE)
        new_last = last.with_changes(comma=separator, whitespace_after_param=_EMPTY)
        param = param.with_changes(whitespace_after_param=last.whitespace_after_param)
    return params.with_changes(
        params=[*params.params[:-1], new_last], star_arg=cst.ParamStar(comma=separator), kwonly_params=[param]
    )


def override_parameters(annotated: bool) -> list[cst.Param]:
    """The keyword-only parameters of 0.5.16's `ForwardBatch.init_new` (its required one defaulted)."""
    source = (
        "def f(*, capture_hidden_mode: Optional[CaptureHiddenMode] = None, return_hidden_states_before_norm: bool = False): ..."
        if annotated
        else "def f(*, capture_hidden_mode=None, return_hidden_states_before_norm=False): ..."
    )
    return list(cst.ensure_type(cst.parse_statement(source), cst.FunctionDef).params.kwonly_params)


def _strip_comma(param: cst.Param) -> cst.Param:
    return param.with_changes(comma=cst.MaybeSentinel.DEFAULT)


def with_override_parameters(params: cst.Parameters, annotated: bool = True) -> cst.Parameters:
    """`init_new(cls, batch, model_runner)` -> `init_new(cls, batch, model_runner, *, capture_hidden_mode=..., ...)`."""
    for param in override_parameters(annotated):
        params = with_keyword_only_parameter_appended(params, _strip_comma(param))
    return params


def with_keyword_only_parameter_appended(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    if not params.kwonly_params:
        return with_keyword_only_parameter(params, param)
    last = params.kwonly_params[-1]
    if isinstance(last.comma, cst.Comma):
        star_comma = (
            params.star_arg.comma if isinstance(params.star_arg, cst.ParamStar) else cst.Comma(whitespace_after=_SPACE)
        )
        return params.with_changes(
            kwonly_params=[
                *params.kwonly_params[:-1],
                last.with_changes(comma=star_comma),
                param.with_changes(comma=last.comma),
            ]
        )
    return params.with_changes(
        kwonly_params=[
            *params.kwonly_params[:-1],
            last.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_param=_EMPTY),
            param.with_changes(whitespace_after_param=last.whitespace_after_param),
        ]
    )


def init_new_with_override_arguments(
    function: cst.FunctionDef, view: cst.SimpleStatementLine
) -> tuple[cst.FunctionDef, cst.SimpleStatementLine]:
    """For core-runtime under 0.5.16: `init_new` takes the overrides as keyword-only parameters
    (`capture_hidden_mode: Optional[CaptureHiddenMode] = None`, `return_hidden_states_before_norm:
    bool = False`; 0.5.16 requires the latter, and every call the migration touches passes it) and
    hands them to the view, which then reads and resets nothing on the batch."""
    params = function.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None or params.kwonly_params:
        return function, view  # a signature of its own: left to the review of its callers
    call = _statement_call(view)
    assert call is not None, "the view is `batch = forward_batch_view(batch, ...)`"
    for name in OVERRIDE_KEYWORDS["init_new"]:
        call = with_keyword(call, name, cst.Name(name))
    function = fitted_signature(function.with_changes(params=with_override_parameters(params)))
    return function, _with_call(view, one_argument_a_line(call, "    "))


def fitted_signature(function: cst.FunctionDef, unit: str = "    ") -> cst.FunctionDef:
    """A one-line `def` header that grew past black's limit: one parameter a line, trailing comma."""
    header = _code(
        function.with_changes(
            body=cst.SimpleStatementSuite([cst.Expr(cst.Ellipsis())]), leading_lines=(), decorators=()
        )
    )
    if "\n" in header.rstrip("\n") or len(unit) + len(header.rstrip("\n")) <= MAX_LINE:
        return function
    params = function.params
    inner = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(unit)))
    closing = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True, last_line=_EMPTY))
    star_arg = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else None
    ordered = [
        *params.posonly_params,
        *params.params,
        *([star_arg] if star_arg else []),
        *params.kwonly_params,
        *([params.star_kwarg] if params.star_kwarg else []),
    ]
    laid = {id(p): p.with_changes(comma=closing if i == len(ordered) - 1 else inner) for i, p in enumerate(ordered)}
    laid = {
        k: (p.with_changes(whitespace_after_param=_EMPTY) if isinstance(p, cst.Param) else p) for k, p in laid.items()
    }
    return function.with_changes(
        whitespace_before_params=inner.whitespace_after,
        params=params.with_changes(
            posonly_params=[laid[id(p)] for p in params.posonly_params],
            params=[laid[id(p)] for p in params.params],
            star_arg=laid[id(star_arg)] if star_arg else params.star_arg,
            kwonly_params=[laid[id(p)] for p in params.kwonly_params],
            star_kwarg=laid[id(params.star_kwarg)] if params.star_kwarg else None,
        ),
    )
