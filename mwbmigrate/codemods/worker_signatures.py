"""A `forward_batch_generation` that stands in for an SGLang worker takes what the target's callers
pass it, with the target's defaults, and hands on to its base or target worker what that callee takes.

    class MyEagle(EAGLEWorkerV2):                            class MyEagle(EAGLEWorkerV2):
        def forward_batch_generation(self, batch):   ->         def forward_batch_generation(
            return super().forward_batch_generation(                self, batch, on_publish=None, grammar_barrier=None, pp_proxy_tensors=None
                batch)                                          ):
                                                                    return super().forward_batch_generation(
                                                                        batch, on_publish=on_publish, ...)

A stand-in is a method of a class that subclasses one of SGLang's workers (`TpModelWorker`,
`EAGLEWorkerV2`, `NGRAMWorker`, ...), directly or through classes of the module, or of a class that
a factory registered with `@SpeculativeAlgorithm.register(...)` returns (`analysis.worker_classes`).
SGLang's scheduler passes a speculative worker `on_publish=` (0.5.14 on), `grammar_barrier=`
(0.5.17) and `pp_proxy_tensors=` (0.5.19); the spec-v2 workers pass their `TpModelWorker`
`capture_hidden_mode=` (0.5.16) and `return_kv_loc_plan=` (0.5.22): without them the call raises
`TypeError`. A new parameter is handed on, by keyword, to `super().forward_batch_generation(...)`
where the base takes it on the target, and a speculative worker's to
`self.target_worker.forward_batch_generation(...)` where `TpModelWorker` takes it (SGLang's callers
pass them by keyword, so a method with `*args` gets them keyword-only); a call with `**kwargs` is
left as it is. An override that takes `**kwargs` already accepts every keyword and is not touched.

Reported:
    MWB157  (a note: nothing behaves differently where the callers pass the defaults) the
            parameters the method gained, and where they are handed on
    MWB159  a gained parameter whose value the caller needs acted on (`on_publish`,
            `grammar_barrier`, `capture_hidden_mode`, `return_kv_loc_plan`) is not handed on
    MWB188  an override the callers reach through code this codemod does not adapt: a decorator
            of the project's or a library's own (its wrapper decides what binds), or a function
            installed in the class body (`forward_batch_generation = traced_forward`)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext

from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION, CallerParameter, worker_call_parameters
from mwbmigrate.analysis.worker_classes import undecided_mixins, worker_boundaries, worker_classes
from mwbmigrate.analysis.worker_kinds import (
    REGISTRY_CLASS,
    SGLANG_WORKERS,
    SHAPED_WORKER_METHOD,
    SPEC_WORKER,
    TP_WORKER,
    WORKER_METHOD,
    WorkerClass,
    accepts,
    caller_parameters,
)
from mwbmigrate.codemods._call_layout import (
    MAX_LINE,
    _code,
    _statement_call,
    _with_call,
    arguments_on_their_own_line,
    fitted_signature,
    one_line,
    with_keyword,
    with_keyword_only_parameter_appended,
)
from mwbmigrate.codemods.base import MigrationCodemod, MigrationState

_EMPTY = cst.SimpleWhitespace("")
_SPACE = cst.SimpleWhitespace(" ")
_SUPER_CALL = m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name(WORKER_METHOD))
_TARGET_WORKER_CALL = m.Attribute(
    value=m.Attribute(value=m.Name("self"), attr=m.Name("target_worker")), attr=m.Name(WORKER_METHOD)
)
_CALLEE = {SPEC_WORKER: "speculative worker", TP_WORKER: "`TpModelWorker`"}
# Parameters whose value the caller needs the worker to act on: one the method neither reads nor
# hands on changes what runs (the others only select what the defaults already do).
ACTED_ON = {
    "on_publish": "the overlap scheduler publishes a speculative step's results only through it",
    "grammar_barrier": "it resolves the previous batch's grammar state before the mask is built",
    "capture_hidden_mode": "a spec-v2 worker asks its target for hidden states with it",
    "return_kv_loc_plan": "a spec-v2 worker asks its target for the KV location plan with it",
}


@dataclass
class _Override:
    worker: WorkerClass
    added: tuple[CallerParameter, ...]
    handed_on: dict[str, list[str]] = field(default_factory=dict)  # callee -> names handed on


class MatchWorkerCallers(MigrationCodemod):
    CODE = "MWB016"
    NAME = "worker-signatures"
    SUMMARY = "A `forward_batch_generation` standing in for an SGLang worker takes the parameters the target's callers pass, and hands them on to its base or target worker."
    # A stand-in's module names its SGLang base or the registering decorator, or defines both
    # worker methods (a worker shaped like `TpModelWorker`, analysis.worker_classes).
    TRIGGERS = (*SGLANG_WORKERS, REGISTRY_CLASS, SHAPED_WORKER_METHOD)
    BODY_WORDS = (WORKER_METHOD,)
    # Every change and finding is on a `forward_batch_generation` defined, installed or called: a
    # module that never names it (most that name a worker class) has nothing to adapt.
    REQUIRED_WORDS = (WORKER_METHOD,)
    REVIEW_CODES = ("MWB157", "MWB159", "MWB188")
    SINCE = DEFAULT_TARGET_VERSION
    BOUNDARIES = worker_boundaries(DEFAULT_TARGET_VERSION)
    METADATA_DEPENDENCIES = ()

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._workers: dict[str, WorkerClass] = {}
        self._frames: list[_Override | None] = []
        self._default_indent = "    "
        self._indents: list[str] = []
        self._grown: set[int] = set()  # ids of calls given a keyword: laid out again when too long
        self._handed_mapping: dict[int, str] = {}  # overrides whose `**mapping` super() gets (by id)
        self._patched: dict[str, str | None] = {}  # module function installed as a worker method -> the saved original
        self._undecided: set[str] = set()  # mixins of workers of different kinds (MWB188)

    @classmethod
    def triggered_by_project(cls, state: MigrationState) -> bool:
        """A mixin or a registered worker whose module names no SGLang worker, or a mixin of workers of
        different kinds (analysis/project_classes.py)."""
        return bool(state.project_workers.of_module(state.location.path))

    def visit_Module(self, node: cst.Module) -> None:
        self._default_indent = node.default_indent
        self._workers = worker_classes(
            node, self.state.location.inside_sglang, self.state.project_workers.of_module(self.state.location.path)
        )
        self._patched = _patched_worker_methods(node)
        self._undecided = undecided_mixins(
            node, self.state.location.inside_sglang, self.state.project_workers.of_module(self.state.location.path)
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append(self._override(node))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """`forward_batch_generation = some_function` in a worker's body: the function is the
        override, and this codemod adapts only methods defined in a worker's class body."""
        worker = self._workers.get(node.name.value)
        passed = self._caller_names(worker)
        if worker is None or not passed or not isinstance(node.body, cst.IndentedBlock):
            return
        for statement in node.body.body:
            if not m.matches(
                statement, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(m.Name(WORKER_METHOD))])])
            ):
                continue
            value = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign).value
            self.review(
                statement,
                "MWB188",
                f"`{_code(value).strip()}` is installed as this worker's `{WORKER_METHOD}`: SGLang "
                f"{self.state.target_version} passes it {passed}, which only a method defined here is "
                f"given; it must take {_them(passed)} and hand {_them(passed)} on",
            )

    def _caller_names(self, worker: WorkerClass | None) -> str:
        """What the target's callers pass a worker of this kind besides the batch, as a marker names it."""
        if worker is None:
            return ""
        return ", ".join(f"`{p.name}`" for p in caller_parameters(worker, self.state.target_version))

    def _wrapped_by(self, node: cst.FunctionDef, worker: WorkerClass) -> None:
        """A decorator whose wrapper the callers' keywords pass through first (MWB188): only a
        few library decorators are known to take any arguments and hand them all on."""
        passed = self._caller_names(worker)
        for decorator in node.decorators:
            target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            name = _code(target).strip()
            if passed and name not in _PASS_THROUGH_DECORATORS:
                self.review(
                    node,
                    "MWB188",
                    f"`@{name}` wraps this worker override: SGLang {self.state.target_version} passes "
                    f"{passed} through its wrapper, which must take {_them(passed)} and hand {_them(passed)} on",
                )
                return

    def _override(self, node: cst.FunctionDef) -> _Override | None:
        owner = self.parent(node)
        cls = self.parent(owner) if isinstance(owner, cst.IndentedBlock) else None
        if node.name.value != WORKER_METHOD or not isinstance(cls, cst.ClassDef):
            return None
        if cls.name.value in self._undecided and node.params.star_kwarg is None:
            self.review(
                node,
                "MWB188",
                f"`{cls.name.value}` is mixed into workers of different kinds, which SGLang "
                f"{self.state.target_version} passes different keywords: no one signature takes both; "
                "take `**kwargs` and hand them on",
            )
        worker = self._workers.get(cls.name.value)
        params = node.params
        if worker is not None:
            self._wrapped_by(node, worker)
        if worker is not None and isinstance(params.star_kwarg, cst.Param):
            self._swallowed(node, worker, params.star_kwarg.name.value)
        if worker is None or params.star_kwarg is not None or len(params.posonly_params) + len(params.params) < 2:
            return None
        taken = {p.name.value for p in all_params(params)}
        added = tuple(
            p for p in caller_parameters(worker, self.state.target_version) if p.name not in taken and p.default
        )
        return _Override(worker, added) if added else None

    def _swallowed(self, node: cst.FunctionDef, worker: WorkerClass, mapping: str) -> None:
        """An override whose `**mapping` takes what SGLang passes but never hands the mapping on.
        With one call to its base's forward (`super()`) that takes every such keyword and passes none
        of them itself, the mapping is handed on there (on 0.5.12 the caller passed nothing else, so
        nothing changes); else what the worker must act on is dropped, reported (MWB159). A
        speculative worker that hands the mapping to its target worker hands it keywords only a
        speculative worker takes: reported (MWB159), since the target raises `TypeError`."""
        if m.findall(node.body, m.Arg(star="**", value=m.Name(mapping))):
            self._handed_to_target(node, worker, mapping)
            return
        taken = {p.name.value for p in all_params(node.params)}
        passed = [p.name for p in caller_parameters(worker, self.state.target_version) if p.name not in taken]
        dropped = [name for name in passed if name in ACTED_ON]
        if not dropped:
            return
        calls = m.findall(node.body, m.Call(func=m.Attribute(attr=m.Name(WORKER_METHOD))))
        call = cst.ensure_type(calls[0], cst.Call) if len(calls) == 1 else None
        if (
            call is not None
            and m.matches(call, m.Call(func=_SUPER_CALL))
            and _reads_only_own_keys(node.body, mapping, frozenset(passed))
            and all(accepts(worker, name, self.state.target_version, through_super=True) for name in passed)
            # Nothing in the call may meet the mapping's keys: a star argument, or a keyword SGLang
            # passes too (a TypeError for the keyword given twice).
            and not any(a.star or (a.keyword is not None and a.keyword.value in passed) for a in call.args)
        ):
            self._handed_mapping[id(node)] = mapping
            return
        self.review(
            node,
            "MWB159",
            f"`**{mapping}` takes {', '.join(f'`{n}`' for n in dropped)} from SGLang "
            f"{self.state.target_version} but nothing hands `{mapping}` on: dropped here "
            f"({'; '.join(ACTED_ON[n] for n in dropped)})",
        )

    def _handed_to_target(self, node: cst.FunctionDef, worker: WorkerClass, mapping: str) -> None:
        if worker.kind != SPEC_WORKER:
            return
        handed = m.findall(
            node.body,
            m.Call(
                func=_TARGET_WORKER_CALL, args=[m.ZeroOrMore(), m.Arg(star="**", value=m.Name(mapping)), m.ZeroOrMore()]
            ),
        )
        if not handed:
            return
        taken = {p.name.value for p in all_params(node.params)}
        target = self.state.target_version
        rejected = [
            p.name
            for p in caller_parameters(worker, target)
            if p.name not in taken and not accepts(worker, p.name, target, through_super=False)
        ]
        if rejected:
            names = ", ".join(f"`{name}`" for name in rejected)
            self.review(
                node,
                "MWB159",
                f"`**{mapping}` takes {names} from SGLang {target} and hands {_them(names)} to the target "
                f"worker, which takes none of them: `TypeError`; act on {_them(names)} here and hand on only "
                "what the target worker takes",
            )

    def _hand_on_mapping(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        mapping = self._handed_mapping.pop(id(original))
        (call,) = m.findall(updated.body, m.Call(func=_SUPER_CALL))
        body = _handing_on(updated.body, cst.ensure_type(call, cst.Call), mapping)
        self.review(
            original,
            "MWB157",
            f"`**{mapping}` now handed on to `super().{WORKER_METHOD}`: SGLang {self.state.target_version} "
            "passes keywords through it that the base must act on",
        )
        return updated.with_changes(body=body)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        frame = self._frames[-1] if self._frames else None
        if frame is None:
            return updated_node
        through_super = m.matches(updated_node.func, _SUPER_CALL)
        if not through_super and not (
            frame.worker.kind == SPEC_WORKER and m.matches(updated_node.func, _TARGET_WORKER_CALL)
        ):
            return updated_node
        if any(arg.star == "**" for arg in updated_node.args):
            return updated_node  # the mapping may hold the same keyword: a TypeError
        target = self.state.target_version
        passed = self._passed(updated_node, frame.worker, through_super)
        call = updated_node
        handed: list[str] = []
        for param in frame.added:
            if param.name in passed or not accepts(frame.worker, param.name, target, through_super=through_super):
                continue
            call = with_keyword(call, param.name, cst.Name(param.name))
            handed.append(param.name)
        if handed:
            callee = "super()" if through_super else "self.target_worker"
            frame.handed_on.setdefault(callee, []).extend(handed)
            self._grown.add(id(call))
        return call

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._indents.append(node.indent if node.indent is not None else self._default_indent)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        self._indents.pop()
        return updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        """A grown call laid out again as black would: on one line when it fits, else its arguments
        on a line of their own, else one a line (a call already one a line keeps that layout)."""
        call = _statement_call(updated_node)
        if call is None or id(call) not in self._grown:
            return updated_node
        if "\n" in _code(call) and isinstance(call.args[-1].comma, cst.Comma):
            return updated_node  # the magic trailing comma: black keeps one argument a line
        flat = one_line(call)
        line = _code(
            _with_call(updated_node, flat).with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace())
        )
        indent = "".join(self._indents)
        if len(indent) + len(line.rstrip("\n")) <= MAX_LINE:
            return _with_call(updated_node, flat)
        return _with_call(updated_node, arguments_on_their_own_line(flat, indent, self._default_indent))

    def _passed(self, call: cst.Call, worker: WorkerClass, through_super: bool) -> set[str]:
        """The callee's parameters the call already fills, by keyword or by position."""
        kind = (worker.base_kind or worker.kind) if through_super else TP_WORKER
        order = [
            "batch",
            *(p.name for p in worker_call_parameters(self.state.target_version, kind) if not p.keyword_only),
        ]
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        return {arg.keyword.value for arg in call.args if arg.keyword is not None} | set(order[: len(positional)])

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        frame = self._frames.pop()
        if id(original_node) in self._handed_mapping:
            return self._hand_on_mapping(original_node, updated_node)
        if frame is None:
            return self._wrapper(original_node, updated_node)
        params = updated_node.params
        for param in frame.added:
            params = _with_parameter(params, param)
        grown = fitted_signature(updated_node.with_changes(params=params), self._default_indent)
        handed_names = {name for names_ in frame.handed_on.values() for name in names_}
        for param in frame.added:
            if param.name in ACTED_ON and param.name not in handed_names:
                self.review(
                    original_node,
                    "MWB159",
                    f"`{param.name}` added but neither used nor handed on: SGLang {self.state.target_version} "
                    f"passes a value the worker must act on ({ACTED_ON[param.name]})",
                )
        names = ", ".join(f"`{p.name}={p.default}`" for p in frame.added)
        handed = "; ".join(
            f"handed on to `{callee}`: {', '.join(names_)}" for callee, names_ in frame.handed_on.items()
        )
        self.review(
            original_node,
            "MWB157",
            f"`{WORKER_METHOD}` now takes {names}: SGLang {self.state.target_version} passes "
            f"{'it' if len(frame.added) == 1 else 'them'} to a {_CALLEE[frame.worker.kind]}"
            + (f" ({handed})" if handed else ""),
        )
        return grown

    def _wrapper(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        """A worker method that hands the batch to one other worker's forward, of a kind nothing
        here tells: a method of a class of no base calling `self.inner.forward_batch_generation(batch)`
        (a worker installed by composition), or a module function installed over a worker's method
        (`W.forward_batch_generation = f`) calling the method it saved (`_orig(self, batch)`). It takes
        `**kwargs` and hands them on, so whatever SGLang's caller passes reaches the worker it wraps
        (on 0.5.12 nothing else was passed: the same)."""
        if self.state.location.inside_sglang:
            return updated  # SGLang's own code: the rebase onto the target replaces it
        params = updated.params
        positional = [*params.posonly_params, *params.params]
        if isinstance(params.star_kwarg, cst.Param) or isinstance(params.star_arg, cst.Param) or len(positional) != 2:
            return updated
        batch = positional[1].name.value
        annotation = positional[1].annotation
        if batch not in ("batch", "model_worker_batch") and not (
            annotation is not None
            and m.matches(annotation.annotation, m.Name("ScheduleBatch") | m.Name("ModelWorkerBatch"))
        ):
            return updated
        inner = self._wrapped_call(original, positional[0].name.value, batch)
        if inner is None:
            return updated
        calls = m.findall(updated.body, inner)
        # The one call that reaches a worker's forward: no other forward is called beside it.
        forwards = m.findall(updated.body, m.Call(func=m.Attribute(attr=m.Name(WORKER_METHOD))) | inner)
        if len(calls) != 1 or len(forwards) != 1:
            return updated
        taken = {p.name.value for p in all_params(params)}
        mapping = next(n for n in ("kwargs", "forward_kwargs", "_kwargs") if n not in taken)
        body = _handing_on(updated.body, cst.ensure_type(calls[0], cst.Call), mapping)
        last = positional[-1]
        grown = params.with_changes(
            params=[*params.params[:-1], last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
            if params.params
            else params.params,
            star_kwarg=cst.Param(name=cst.Name(mapping)),
        )
        self.review(
            original,
            "MWB157",
            f"`{original.name.value}` now takes `**{mapping}` and hands it to the worker method it wraps: "
            f"SGLang {self.state.target_version} passes keywords that only that worker knows",
        )
        return updated.with_changes(params=grown, body=body)

    def _wrapped_call(self, original: cst.FunctionDef, first: str, batch: str) -> m.Call | None:
        """What `_wrapper` hands the mapping to in `original`, None when it wraps nothing."""
        owner = self.parent(original)
        batch_only = [m.Arg(value=m.Name(batch), keyword=None, star="")]
        if isinstance(owner, cst.Module):
            saved = self._patched.get(original.name.value)
            if saved is None:
                return None
            return m.Call(func=m.Name(saved), args=[m.Arg(value=m.Name(first), keyword=None, star=""), *batch_only])
        cls = self.parent(owner) if isinstance(owner, cst.IndentedBlock) else None
        if original.name.value != WORKER_METHOD or not isinstance(cls, cst.ClassDef) or cls.bases:
            return None
        if cls.name.value in self._workers or not isinstance(self.parent(cls), cst.Module):
            return None
        return m.Call(
            func=m.Attribute(value=~m.Name("self") & ~m.Call(func=m.Name("super")), attr=m.Name(WORKER_METHOD)),
            args=batch_only,
        )


def _handing_on(body: cst.BaseSuite, call: cst.Call, mapping: str) -> cst.BaseSuite:
    """`body` with `call` given `**mapping` as its last argument."""
    args = list(call.args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    handed = body.deep_replace(call, call.with_changes(args=[*args, cst.Arg(value=cst.Name(mapping), star="**")]))
    assert isinstance(handed, (cst.IndentedBlock, cst.SimpleStatementSuite))
    return handed


def _reads_only_own_keys(body: cst.BaseSuite, mapping: str, passed: frozenset[str]) -> bool:
    """Whether every use of `mapping` in `body` takes out a key of its own by a constant
    (`mapping.pop("k", d)`, `mapping.get("k")`, `mapping["k"]`), none of the keywords SGLang passes:
    then handing the rest on gives the base what SGLang meant for it, and nothing twice."""
    uses = m.findall(body, m.Name(mapping))
    own = [
        *m.findall(body, m.Call(func=m.Attribute(value=m.Name(mapping), attr=m.Name("pop") | m.Name("get")))),
        *m.findall(body, m.Subscript(value=m.Name(mapping))),
    ]
    keys: list[object] = []
    for use in own:
        if isinstance(use, cst.Call):
            first = use.args[0].value if use.args else None
        else:
            element = cst.ensure_type(use, cst.Subscript).slice[0].slice
            first = element.value if isinstance(element, cst.Index) else None
        keys.append(first.evaluated_value if isinstance(first, cst.SimpleString) else None)
    return len(uses) == len(own) and all(isinstance(k, str) and k not in passed for k in keys)


def _them(names: str) -> str:
    """How a marker refers back to the keywords `_caller_names` listed."""
    return "them" if "," in names else "it"


# Decorators that take any arguments and hand them all on to the method (or change no call at all).
_PASS_THROUGH_DECORATORS = frozenset(
    {
        "abstractmethod",
        "abc.abstractmethod",
        "override",
        "typing.override",
        "typing_extensions.override",
        "torch.no_grad",
        "torch.inference_mode",
        "torch.enable_grad",
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "DynamicGradMode",
    }
)


def _patched_worker_methods(module: cst.Module) -> dict[str, str | None]:
    """Module functions installed over a worker's method at module level (`W.forward_batch_generation
    = f`) -> the name the original was saved in (`_orig = W.forward_batch_generation`), when saved
    once; None when it was not."""
    method = m.Attribute(value=m.Name(), attr=m.Name(WORKER_METHOD))
    installed: list[str] = []
    saved: list[str] = []
    for statement in module.body:
        if not m.matches(statement, m.SimpleStatementLine(body=[m.Assign()])):
            continue
        assign = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
        if len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if m.matches(target, method) and isinstance(assign.value, cst.Name):
            installed.append(assign.value.value)
        elif isinstance(target, cst.Name) and m.matches(assign.value, method):
            saved.append(target.value)
    original = saved[0] if len(saved) == 1 else None
    return {name: original for name in installed}


def _parameter(param: CallerParameter) -> cst.Param:
    return cst.Param(
        name=cst.Name(param.name),
        default=cst.parse_expression(param.default),
        equal=cst.AssignEqual(whitespace_before=_EMPTY, whitespace_after=_EMPTY),
    )


def _with_parameter(params: cst.Parameters, caller: CallerParameter) -> cst.Parameters:
    """Add one parameter where the callers reach it: keyword-only after `*` / `*args` (or when the
    target declares it so), else after the last positional-or-keyword parameter."""
    new = _parameter(caller)
    if isinstance(params.star_arg, cst.Param) and not params.kwonly_params:
        star = params.star_arg
        return params.with_changes(
            star_arg=star.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_param=_EMPTY),
            kwonly_params=[new.with_changes(whitespace_after_param=star.whitespace_after_param)],
        )
    if caller.keyword_only or not params.params or isinstance(params.star_arg, cst.Param):
        return with_keyword_only_parameter_appended(params, new)
    last = params.params[-1]
    followed = isinstance(params.star_arg, cst.ParamStar) or bool(params.kwonly_params)
    if followed:
        # The last one's comma separates it from `*`: the new parameter takes the same separator.
        return params.with_changes(params=[*params.params, new.with_changes(comma=last.comma)])
    if isinstance(last.comma, cst.Comma):  # one parameter a line, trailing comma kept
        previous = params.params[-2].comma if len(params.params) > 1 else cst.MaybeSentinel.DEFAULT
        separator = previous if isinstance(previous, cst.Comma) else cst.Comma(whitespace_after=_SPACE)
        return params.with_changes(
            params=[*params.params[:-1], last.with_changes(comma=separator), new.with_changes(comma=last.comma)]
        )
    return params.with_changes(
        params=[
            *params.params[:-1],
            last.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_param=_EMPTY),
            new.with_changes(whitespace_after_param=last.whitespace_after_param),
        ]
    )
