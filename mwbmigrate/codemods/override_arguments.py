"""With `--target-version 0.5.16` or later: the one-shot override writes become keyword arguments of
the call that consumes them, as SGLang 0.5.16 on passes them (it removed the fields from `ScheduleBatch`).

    batch.capture_hidden_mode = M                     forward_batch = ForwardBatch.init_new(
    batch.return_hidden_states_before_norm = True  ->     batch,
    forward_batch = ForwardBatch.init_new(batch, r)       r,
                                                          capture_hidden_mode=M,
                                                          return_hidden_states_before_norm=True,
                                                      )

    batch.capture_hidden_mode = M                  -> out = self.target_worker.forward_batch_generation(
    out = self.target_worker.forward_batch_generation(batch)      batch, capture_hidden_mode=M)

A write converts only from the statements right before the call (override-moves puts them there
when that is safe), on the name the call takes as its batch. 0.5.16's `init_new` requires
`return_hidden_states_before_norm`, so every `ForwardBatch.init_new` call gets `=False` unless a
write says otherwise; a `forward_batch_generation` that builds the forward batch from its first
parameter (`ForwardBatch.init_new(batch, ...)`, or `super().forward_batch_generation(batch, ...)`)
gains the keyword-only `capture_hidden_mode=None` and hands it on, as `TpModelWorker`'s does (the
old object's mode where the caller gives none: `worker_batch_capture_mode(batch, capture_hidden_mode)`); not
a speculative worker's (`analysis.worker_classes`): the scheduler never passes it one, and no
`EAGLEWorkerV2` from 0.5.13 to 0.5.23 takes it (worker-signatures gives such a method what its
callers do pass).

Every other `init_new` call passes the capture mode the old object carried, which the old `init_new`
read from what it was handed: a kept snapshot's field, else `worker_batch_capture_mode(batch)` (the
runtime's answer for a snapshot or the live batch). The target would derive its own at the forward,
and from 0.5.17 by another rule (NULL on a draft runner).

Refused, the write kept with a review marker:
    MWB138  not right before a call that takes it (a later statement, another function, a
            nested block), or the call already passes that keyword; or written on a kept snapshot
            that the function hands on (a forward past it may not read the snapshot's field)
    MWB139  `seq_lens_cpu_cache`: 0.5.16 has no such override (init_new reads `batch.seq_lens_cpu`)
    MWB140  right before `forward_batch_generation`, which takes only `capture_hidden_mode` in 0.5.16
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.names import ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.old_api import CAPTURE_MODE_HELPER, OVERRIDE_ARGUMENT, SNAPSHOT_HELPER
from mwbmigrate.analysis.override_sites import (
    CONSUMING_CALLS,
    OverrideWrite,
    escaping_snapshots,
    kept_snapshots,
    last_use_of,
    names_bound_in,
    override_write,
    read_back_by_snapshot,
    unplain_binding,
    writes_field,
)
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.target_versions import (
    OVERRIDE_KEYWORDS,
    TARGET_VERSIONS,
    at_least,
    init_new_parameters,
    overrides_are_arguments,
)
from mwbmigrate.analysis.worker_classes import worker_classes
from mwbmigrate.analysis.worker_kinds import SPEC_WORKER, WorkerClass
from mwbmigrate.codemods._call_layout import (
    _FORWARD_BATCH,
    _SCHEDULE_BATCH,
    CAPTURE,
    MAX_LINE,
    PASS_THROUGH_FUNCTION,
    _code,
    _free_of_effects,
    _keywords,
    _statement_call,
    _strip_comma,
    _with_call,
    arguments_on_their_own_line,
    batch_argument,
    calls_split_to_fit,
    consuming_call,
    fitted_signature,
    one_line,
    override_parameters,
    with_keyword,
    with_keyword_only_parameter,
)
from mwbmigrate.codemods.base import OLD_API, REPORTS, MigrationCodemod, MigrationState, NodeSet, add_marker


@dataclass
class FunctionFrame:
    function: cst.FunctionDef
    batch_names: set[str]  # names holding the ScheduleBatch in this function
    # Names bound to a snapshot kept in code: the old object, whose override fields the old
    # `init_new` read wherever they were written; its `init_new` takes them from it. Those also
    # handed to a worker's forward are folded or reported there, as any batch name is.
    kept: set[str] = field(default_factory=set)
    kept_forwarded: set[str] = field(default_factory=set)
    kept_capture_written: set[str] = field(default_factory=set)  # kept snapshots whose capture mode is written
    # Kept snapshots the function hands on (to a call, a return, an attribute): an override written
    # on one may reach a forward that does not read it from the snapshot.
    kept_escaping: dict[str, set[int]] = field(default_factory=dict)  # by name: the uses that hand it on
    pass_through: str | None = None  # the batch parameter of a forward_batch_generation that builds the forward batch
    # Per block statement (by id): the override writes folded into that consuming call.
    folded: dict[int, list[int]] = field(default_factory=dict)
    # The consuming calls (by id) a `capture_hidden_mode` write is folded into: they get that value.
    capture_folded: set[int] = field(default_factory=set)
    # Batch names whose `seq_lens_cpu_cache` a kept snapshot of this function takes as its override.
    cache_read_back_by: set[str] = field(default_factory=set)
    # Batch names bound from an expression (`mwb = self.mwb`, `getattr(...)`, `with ... as`, a tuple
    # unpacked): they may hold an object other code keeps, a snapshot whose later forwards read a
    # write on it, so a write on one is never folded. By name: the binding, as code.
    held_aliases: dict[str, str] = field(default_factory=dict)


class _CallsIn(cst.CSTVisitor):
    """Calls in a function body, nested functions and classes left out."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.forward_batches: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        # `forward_batch = ForwardBatch.init_new(...)`: a ForwardBatch, whose fields are its own.
        if consuming_call(node.value) == "init_new" or m.matches(node.value, m.Call(func=m.Name("ForwardBatch"))):
            self.forward_batches.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))


# Where SGLang keeps the `TpModelWorker` a speculative worker drives (its forward takes
# `capture_hidden_mode=` from 0.5.16); any other worker may be a speculative one, which takes none.
_TARGET_WORKERS = frozenset({"target_worker", "_target_worker", "tp_worker"})


def _receiver_name(call: cst.Call) -> str | None:
    """The last name of `<worker>` in `<worker>.method(...)`: `self.target_worker` -> "target_worker"."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    worker = func.value
    return (
        worker.attr.value
        if isinstance(worker, cst.Attribute)
        else worker.value
        if isinstance(worker, cst.Name)
        else None
    )


def takes_capture_mode(call: cst.Call) -> bool:
    """Whether `<worker>.forward_batch_generation(...)` calls a worker known to take `capture_hidden_mode=`."""
    return _receiver_name(call) in _TARGET_WORKERS


def _functions_handed_a_snapshot(module: cst.Module) -> dict[str, str]:
    """Function names this module calls with a kept snapshot as an argument and reads the snapshot
    again after (`self.verify(mwb)`, then `mwb` in a later statement of the block), each with one
    such call: not a consuming call, which this codemod follows itself."""
    handed: dict[str, str] = {}
    for function in m.findall(module, m.FunctionDef()):
        kept = kept_snapshots(cst.ensure_type(function, cst.FunctionDef))
        if not kept:
            continue
        snapshot = m.Name(m.MatchIfTrue(kept.__contains__))
        for block in m.findall(cst.ensure_type(function, cst.FunctionDef).body, m.IndentedBlock()):
            body = cst.ensure_type(block, cst.IndentedBlock).body
            for index, statement in enumerate(body):
                for found in m.findall(statement, m.Call(args=[m.ZeroOrMore(), m.Arg(value=snapshot), m.ZeroOrMore()])):
                    call = cst.ensure_type(found, cst.Call)
                    callee = callee_name(call)
                    if callee is None or consuming_call(call) or callee in {SNAPSHOT_HELPER, CAPTURE_MODE_HELPER}:
                        continue
                    handed_name = next(
                        cst.ensure_type(arg.value, cst.Name).value
                        for arg in call.args
                        if m.matches(arg.value, snapshot)
                    )
                    if any(m.findall(later, m.Name(handed_name)) for later in body[index + 1 :]):
                        handed.setdefault(callee, _code(call))
    return handed


def _known_write(statement: cst.CSTNode) -> OverrideWrite:
    """The override write of a statement already found to be one."""
    write = override_write(statement)
    assert write is not None, "not an override write"
    return write


class PassOverridesAsArguments(MigrationCodemod):
    CODE = "MWB015"
    NAME = "override-arguments"
    SUMMARY = "With --target-version 0.5.16 or later: an override write right before `ForwardBatch.init_new` / `forward_batch_generation` becomes its keyword argument."
    TRIGGERS = OLD_API
    BODY_WORDS = ("init_new", PASS_THROUGH_FUNCTION, *ONE_SHOT_OVERRIDES, "ForwardBatch")  # + a class taken as a value
    REVIEW_CODES = ("MWB138", "MWB139", "MWB140", "MWB189")
    REQUIRES = REPORTS
    SINCE = next(v for v in TARGET_VERSIONS if overrides_are_arguments(v))  # applies_to's test
    METADATA_DEPENDENCIES = ()

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return overrides_are_arguments(state.target_version) and (
            "init_new" in text or PASS_THROUGH_FUNCTION in text or any(name in text for name in ONE_SHOT_OVERRIDES)
        )

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._frames: list[FunctionFrame] = []
        self._indents: list[str] = []
        self._default_indent = "    "
        self._grown = NodeSet()  # calls given a keyword: laid out again when too long
        self._laid_out = NodeSet()  # one-line calls this codemod spread over several lines
        self._forward_batch_module: str | None = None
        self._module_names: set[str] = set()
        self._workers: dict[str, WorkerClass] = {}
        self._held_snapshots: set[str] = set()  # `self.mwb`: where the module keeps a snapshot other than in a local
        self._snapshots_in_containers = False
        # Functions this module hands a kept snapshot, by name -> one such call, as code.
        self._handed_snapshots: dict[str, str] = {}

    # -- module facts --------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._default_indent = node.default_indent
        self._handed_snapshots = _functions_handed_a_snapshot(node)
        self._held_snapshots = {
            _code(target.target)
            for assign in m.findall(node, m.Assign(value=m.Call(func=m.Name(SNAPSHOT_HELPER))))
            for target in cst.ensure_type(assign, cst.Assign).targets
            if not isinstance(target.target, cst.Name)
        }
        # A snapshot put in a container (`{"mwb": worker_batch_snapshot(batch)}`): any item may hold it.
        in_container = m.Element(value=m.Call(func=m.Name(SNAPSHOT_HELPER))) | m.DictElement(
            value=m.Call(func=m.Name(SNAPSHOT_HELPER))
        )
        self._snapshots_in_containers = bool(m.findall(node, in_container))
        # Inside SGLang's package too: its own spec workers are no more a target worker than a fork's.
        self._workers = worker_classes(
            node, inside_sglang=False, project=self.state.project_workers.of_module(self.state.location.path)
        )
        for statement in node.body:
            if isinstance(statement, cst.ClassDef):
                self._module_names.add(statement.name.value)
            for small in getattr(statement, "body", ()) if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    names = {
                        (cst.ensure_type(a.asname.name, cst.Name).value if a.asname else a.name.value)
                        for a in small.names
                        if isinstance(a.name, cst.Name)
                    }
                    self._module_names |= names
                    if "ForwardBatch" in names and small.module is not None and not small.relative:
                        self._forward_batch_module = _code(small.module)

    def visit_Assign(self, node: cst.Assign) -> None:
        """An override written on a snapshot this module keeps in an attribute or a container
        (`self.mwb = worker_batch_snapshot(batch)`): the old forward read it from the old object; from
        0.5.16 a worker or `init_new` takes it as a keyword, which a forward of `self.mwb` is not given."""
        if not self._held_snapshots and not self._snapshots_in_containers:
            return
        for target in node.targets:
            written = target.target
            if (
                isinstance(written, cst.Attribute)
                and written.attr.value in ONE_SHOT_OVERRIDES
                and not isinstance(written.value, cst.Name)
                and (
                    _code(written.value) in self._held_snapshots
                    or (self._snapshots_in_containers and isinstance(written.value, cst.Subscript))
                )
            ):
                self._written_on_held(node, written.attr.value, f"`{_code(written.value)}`")

    def _written_on_held(self, statement: cst.CSTNode, field_name: str, where: str) -> None:
        self.review(
            statement,
            "MWB138",
            f"`{field_name}` written on what may be a snapshot kept elsewhere, {where}: "
            f"{self.state.target_version}'s `ForwardBatch.init_new` and workers take it as a keyword, which "
            f"this rewrite does not pass from there; pass `{field_name}=` to the call that consumes it",
        )

    # -- which names hold the batch ------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        scan = _CallsIn()
        node.body.visit(scan)
        scope = self.qualified_scope()
        renamed = {new for function, _, new in self.state.renamed_signatures if function == scope}
        annotated, forward_batches = set(), set(scan.forward_batches) | {"forward_batch"}
        for param in all_params(node.params):
            annotation = _code(param.annotation.annotation) if param.annotation else ""
            if _SCHEDULE_BATCH.search(annotation):
                annotated.add(param.name.value)
            elif _FORWARD_BATCH.search(annotation):
                forward_batches.add(param.name.value)
        passed = {
            batch
            for batch in (batch_argument(call) for call in scan.calls if consuming_call(call))
            if batch is not None
        }
        kept = kept_snapshots(node)
        enclosing = self._frames[-1] if self._frames else None
        if enclosing is not None:  # a closure's free variable: the enclosing function's snapshot
            kept |= enclosing.kept - names_bound_in(node)
        forwarded = {batch_argument(call) for call in scan.calls if consuming_call(call) == PASS_THROUGH_FUNCTION}
        batch_names = (renamed | annotated | passed) - forward_batches
        bound_from = {name: unplain_binding(node, name) for name in batch_names - kept}
        held_aliases = {name: binding for name, binding in bound_from.items() if binding is not None}
        if self._held_snapshots:  # any name written an override and bound from where one is kept
            for written in m.findall(node.body, m.AssignTarget(m.Attribute(value=m.Name()))):
                target = cst.ensure_type(cst.ensure_type(written, cst.AssignTarget).target, cst.Attribute)
                name = cst.ensure_type(target.value, cst.Name).value
                if target.attr.value not in ONE_SHOT_OVERRIDES or name in held_aliases or name in kept:
                    continue
                binding = unplain_binding(node, name)
                if binding is not None and any(held in binding for held in self._held_snapshots):
                    held_aliases[name] = binding
        frame = FunctionFrame(
            function=node,
            batch_names=batch_names,
            kept=kept,
            kept_forwarded={name for name in kept if name in forwarded},
            kept_escaping=escaping_snapshots(node, kept),
            kept_capture_written={name for name in kept | held_aliases.keys() if writes_field(node, name, CAPTURE)}
            | ((enclosing.kept_capture_written & kept) if enclosing is not None else set()),
            held_aliases=held_aliases,
        )
        frame.cache_read_back_by = {name for name in frame.batch_names if read_back_by_snapshot(node, name)}
        frame.pass_through = self._pass_through_parameter(node, scan.calls)
        self._frames.append(frame)

    def _pass_through_parameter(self, node: cst.FunctionDef, calls: Sequence[cst.Call]) -> str | None:
        """The batch parameter of a `forward_batch_generation(self, batch, ...)` that builds the forward batch."""
        params = node.params
        if node.name.value != PASS_THROUGH_FUNCTION or len(params.params) < 2 or params.params[0].name.value != "self":
            return None
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None or params.kwonly_params:
            return None
        if any(p.name.value == CAPTURE for p in params.params):
            return None
        # A speculative worker is its scheduler's callee, not a spec worker's target: no release
        # passes it `capture_hidden_mode`, and its SGLang base (`EAGLEWorkerV2`, ...) takes none.
        owner = self._workers.get(self.enclosing_class() or "")
        if owner is not None and owner.kind == SPEC_WORKER:
            return None
        batch = params.params[1].name.value
        builds = any(
            batch_argument(call) == batch and (consuming_call(call) == "init_new" or self._is_super_forward(call))
            for call in calls
        )
        return batch if builds else None

    @staticmethod
    def _is_super_forward(call: cst.Call) -> bool:
        return m.matches(call.func, m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name(PASS_THROUGH_FUNCTION)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        frame = self._frames.pop()
        if frame.pass_through is None:
            return updated_node
        param = override_parameters(self._capture_mode_annotation())[0]
        grown = updated_node.with_changes(params=with_keyword_only_parameter(updated_node.params, _strip_comma(param)))
        return fitted_signature(grown, self._default_indent)

    def _capture_mode_annotation(self) -> bool:
        """Annotate `Optional[CaptureHiddenMode]` when both names can be had at module level."""
        if "CaptureHiddenMode" not in self._module_names:
            if self._forward_batch_module is None:
                return False
            AddImportsVisitor.add_needed_import(self.context, self._forward_batch_module, "CaptureHiddenMode")
        if "Optional" not in self._module_names:
            AddImportsVisitor.add_needed_import(self.context, "typing", "Optional")
        return True

    # -- calls ---------------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if m.matches(original_node.func, m.Attribute(value=m.Call(func=m.Name("type")), attr=m.Name("init_new"))):
            self._class_taken_as_a_value(original_node, "`type(...).init_new(...)`")  # a forward batch's class
        callee = consuming_call(updated_node)
        frame = self._frames[-1] if self._frames else None
        call = updated_node
        handing_on = frame.pass_through if frame is not None else None
        hands_on = handing_on is not None and batch_argument(call) == handing_on
        if hands_on and (callee == "init_new" or self._is_super_forward(call)) and CAPTURE not in _keywords(call):
            assert handing_on is not None
            # The caller's mode where it gives one, else the one the old object carried, which the old
            # forward read from it (the target would derive its own: NULL on a draft runner from 0.5.17).
            AddImportsVisitor.add_needed_import(self.context, self.state.runtime_module, CAPTURE_MODE_HELPER)
            handed = cst.Call(
                cst.Name(CAPTURE_MODE_HELPER), [cst.Arg(cst.Name(handing_on)), cst.Arg(cst.Name(CAPTURE))]
            )
            call = with_keyword(call, CAPTURE, handed)
        snapshot = batch_argument(call) if frame is not None and callee else None
        if frame is not None and callee == PASS_THROUGH_FUNCTION:
            call = self._worker_forward(original_node, call, frame)
        if frame is not None and snapshot is not None and snapshot in frame.kept and callee == "init_new":
            # A kept snapshot: the old `init_new` read each override from the old object, written
            # there or derived by the old method (its capture mode); so does this call, whatever the
            # target derives when the keyword is left out (from 0.5.17: the server's mode, NULL on a
            # draft runner).
            for name in OVERRIDE_KEYWORDS["init_new"]:
                if name in self._init_new_parameter_names() and name not in _keywords(call):
                    call = with_keyword(call, name, cst.Attribute(cst.Name(snapshot), cst.Name(name)))
        if (
            callee == "init_new"
            and CAPTURE not in _keywords(call)
            and CAPTURE in self._init_new_parameter_names()
            and (frame is None or id(original_node) not in frame.capture_folded)
        ):
            call = self._with_old_capture_mode(original_node, call)
        if callee == "init_new":
            # The target's required keywords of init_new (0.5.16 on: `return_hidden_states_before_norm`),
            # passed as False unless a write right before the call said otherwise.
            for required in self._required_init_new_keywords():
                if required not in _keywords(call):
                    call = with_keyword(call, required, cst.Name("False"))
        if call is not updated_node:
            self._grown.add(call)
        return call

    def _worker_forward(self, original: cst.Call, call: cst.Call, frame: FunctionFrame) -> cst.Call:
        """A worker's forward of what held the old object. The old forward read the capture mode the
        old object carried: derived when it was taken (from the speculative input as it was then,
        tested by truth) or written on it since. From 0.5.16 a `TpModelWorker` derives its own at the
        forward, and from 0.5.17 by another rule (the batch's request ignored on a draft runner, the
        server's mode taken): a target worker is given the old object's mode, as `init_new` is; a
        worker that may be speculative takes no such keyword, so a snapshot handed to it is marked."""
        batch = batch_argument(call)
        held = frame.batch_names | frame.kept | frame.held_aliases.keys()
        if takes_capture_mode(call):
            if batch not in held or CAPTURE in _keywords(call) or id(original) in frame.capture_folded:
                return call
            # Unpacked arguments may hold the keyword where the function is itself some speculative
            # worker's target (a wrapper of `tp_worker`): a second one raises. A class that drives a
            # `target_worker`, or a speculative worker, is called by the scheduler, which passes none.
            owner = self._workers.get(self.enclosing_class() or "")
            driver = (owner is not None and owner.kind == SPEC_WORKER) or _receiver_name(call) != "tp_worker"
            if any(arg.star for arg in call.args) and not driver:
                if batch in frame.kept_capture_written:
                    self.review(
                        original,
                        "MWB138",
                        f"`{batch}` has its capture mode written in this function and goes to a forward that "
                        f"unpacks its arguments, which this rewrite does not give `capture_hidden_mode=`: from "
                        f"{self.state.target_version} the target derives its own; pass it unless they hold it",
                    )
                return call
            # The runtime's answer for a snapshot is its field; no read of a field the batch's class
            # lacks, which a snapshot annotated as the batch would seem to make.
            return with_keyword(call, CAPTURE, self._old_capture_mode(batch))
        first = next((arg.value for arg in call.args if arg.keyword is None and not arg.star), None)
        inline = first is not None and (
            m.matches(first, m.Call(func=m.Name(SNAPSHOT_HELPER))) or _code(first) in self._held_snapshots
        )
        if not inline and batch not in frame.kept | frame.held_aliases.keys():
            receiver = _receiver_name(call) or ""
            if batch in frame.batch_names and "draft" in receiver and at_least(self.state.target_version, "0.5.17"):
                self.review(
                    original,
                    "MWB138",
                    f"`{batch}` goes to `{receiver}`, which may run on a draft runner: from 0.5.17 a `TpModelWorker` "
                    f"there derives NULL (the batch's request for hidden states ignored), where the old forward read "
                    f"the mode the old object carried; pass it `capture_hidden_mode={CAPTURE_MODE_HELPER}(...)` if it "
                    f"is one (a speculative worker takes none)",
                )
            return call
        if m.matches(call.func, m.Attribute(value=m.Name("self"))):
            return call  # the class's own forward: worker-signatures gives it what its kind takes
        what = f"`{batch}`" if batch is not None else "the kept snapshot"
        written = ", its capture mode written here," if batch in frame.kept_capture_written else ""
        worker = _code(cst.ensure_type(call.func, cst.Attribute).value)
        self.review(
            original,
            "MWB138",
            f"{what}{written} goes to `{worker}`, which from {self.state.target_version} derives the capture mode at "
            f"the forward if it is a `TpModelWorker`: pass it `capture_hidden_mode={CAPTURE_MODE_HELPER}(...)` "
            f"then (a speculative worker takes none)",
        )
        return call

    def _with_old_capture_mode(self, original: cst.Call, call: cst.Call) -> cst.Call:
        """The capture mode the old object carried, passed: the old `init_new` read it from the object
        it was handed, where the target derives its own when none is given (at the forward, and from
        0.5.17 by another rule: NULL on a draft runner). The runtime answers it for a kept snapshot
        (its field) and for the live batch (the old method's derivation)."""
        batch = next((arg.value for arg in call.args if arg.keyword is None and not arg.star), None)
        if not isinstance(batch, cst.Name):
            self.review(
                original,
                "MWB189",
                f"`ForwardBatch.init_new` takes its batch as an expression this rewrite does not repeat: "
                f"{self.state.target_version} derives the capture mode itself where the old `init_new` read the "
                f"old object's; pass `capture_hidden_mode=` (`{CAPTURE_MODE_HELPER}(batch)` answers the old one)",
            )
            return call
        return with_keyword(call, CAPTURE, self._old_capture_mode(batch.value))

    def _old_capture_mode(self, batch: str) -> cst.Call:
        """`worker_batch_capture_mode(batch)`, its import added: the mode the old object carried."""
        AddImportsVisitor.add_needed_import(self.context, self.state.runtime_module, CAPTURE_MODE_HELPER)
        return cst.Call(cst.Name(CAPTURE_MODE_HELPER), [cst.Arg(cst.Name(batch))])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """`ForwardBatch.init_new` taken as a value (`functools.partial(ForwardBatch.init_new, ...)`,
        a table of builders): the calls through it are not calls of it this codemod sees."""
        if not m.matches(node, m.Attribute(value=m.Name("ForwardBatch"), attr=m.Name("init_new"))):
            return
        parent = self.parent(node)
        required = self._required_init_new_keywords()
        if (isinstance(parent, cst.Call) and parent.func is node) or not required:
            return
        names = ", ".join(f"`{name}`" for name in required)
        self.review(
            node,
            "MWB189",
            f"`ForwardBatch.init_new` taken as a value: SGLang {self.state.target_version} requires {names}, "
            "which the calls through it do not pass and this rewrite cannot add; pass "
            f"{'it' if len(required) == 1 else 'them'} where it is bound (`functools.partial(..., {required[0]}=False)`), "
            f"and the old object's capture mode where it is called (`capture_hidden_mode={CAPTURE_MODE_HELPER}(batch)`)",
        )

    def visit_Name(self, node: cst.Name) -> None:
        """`ForwardBatch` itself taken as a value (`forward_batch_cls = ForwardBatch`, handed to a call,
        kept in a table): `init_new` called through it is not a call this codemod sees."""
        if node.value != "ForwardBatch" or not self._required_init_new_keywords():
            return
        parent = self.parent(node)
        valued = (cst.Assign, cst.AnnAssign, cst.Return, cst.Element, cst.DictElement, cst.NamedExpr, cst.Yield)
        held = (
            (isinstance(parent, valued) and parent.value is node)
            or (isinstance(parent, cst.Param) and parent.default is node)
            or (isinstance(parent, cst.Lambda) and parent.body is node)
            or isinstance(parent, (cst.IfExp, cst.BooleanOperation))  # `custom or ForwardBatch`
            or (isinstance(parent, cst.Arg) and parent.value is node and not self._is_type_test(self.parent(parent)))
            or (isinstance(parent, cst.ImportAlias) and parent.asname is not None)  # `import ForwardBatch as FB`
        )
        if held:
            self._class_taken_as_a_value(node, "`ForwardBatch` taken as a value")

    def _class_taken_as_a_value(self, node: cst.CSTNode, what: str) -> None:
        if not self._required_init_new_keywords():
            return
        names = ", ".join(f"`{name}`" for name in self._required_init_new_keywords())
        self.review(
            node,
            "MWB189",
            f"{what}: a call of `init_new` through it is not one this rewrite sees, and "
            f"SGLang {self.state.target_version} requires {names} there and derives its own capture mode where the "
            f"old `init_new` read the old object's; pass them where it is called "
            f"(`capture_hidden_mode={CAPTURE_MODE_HELPER}(batch)`)",
        )

    @staticmethod
    def _is_type_test(call: cst.CSTNode | None) -> bool:
        return isinstance(call, cst.Call) and m.matches(call.func, m.Name("isinstance") | m.Name("issubclass"))

    def _init_new_parameter_names(self) -> set[str]:
        return {p.name for p in init_new_parameters(self.state.target_version)}

    def _required_init_new_keywords(self) -> tuple[str, ...]:
        return tuple(p.name for p in init_new_parameters(self.state.target_version) if p.keyword_only and not p.default)

    # -- blocks: fold the writes right before a consuming call into it --------------------------
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._indents.append(node.indent if node.indent is not None else self._default_indent)
        if not self._frames:
            return
        frame = self._frames[-1]
        body = node.body
        folded: set[int] = set()
        not_taken: dict[int, str] = {}  # write statement -> the adjacent call that takes no such keyword
        for index, statement in enumerate(body):
            call = _statement_call(statement)
            callee = consuming_call(call) if call is not None else None
            if call is None or not callee:
                continue
            batch = batch_argument(call)
            if batch is None or batch not in frame.batch_names or batch in frame.held_aliases:
                continue
            if not _free_of_effects(call):
                continue
            if batch in frame.kept and (
                batch in frame.kept_escaping or not last_use_of(frame.function, batch, statement)
            ):
                continue  # the call takes the snapshot's own fields (leave_Call): its writes stay on it
            accepted, taken = OVERRIDE_KEYWORDS[callee], _keywords(call)
            # A worker other than a target one may be speculative, which takes no `capture_hidden_mode=`:
            # nothing is folded into its forward, and its writes stay, marked.
            folds = callee != PASS_THROUGH_FUNCTION or takes_capture_mode(call)
            writes: list[int] = []
            for before in range(index - 1, -1, -1):
                write = override_write(body[before])
                if write is None or write.receiver != batch:
                    break
                if write.field in accepted and not folds:
                    break
                if write.field not in accepted:
                    not_taken[id(body[before])] = callee
                    break
                if write.field in taken or any(_known_write(body[w]).field == write.field for w in writes):
                    break
                writes.append(before)
            if writes:
                self._folded_on_a_handed_parameter(frame, statement, batch)
                frame.folded[id(statement)] = sorted(writes)
                if any(_known_write(body[w]).field == CAPTURE for w in writes):
                    frame.capture_folded.add(id(call))
                folded.update(id(body[w]) for w in writes)
        for statement in body:
            write = override_write(statement)
            if write is None or id(statement) in folded:
                continue
            if write.receiver in frame.held_aliases:
                bound = frame.held_aliases[write.receiver]
                self._written_on_held(statement, write.field, f"`{write.receiver}` (bound by `{bound}`)")
                continue
            if write.receiver not in frame.batch_names | frame.kept:
                continue
            if write.receiver in frame.kept:
                # A write on the old object, which every forward of it here reads from it (leave_Call);
                # one the worker's forward takes no keyword for, or a snapshot handed further, is marked.
                if write.receiver in frame.kept_escaping:
                    if self._reaches_a_hand_off(body, statement, write, frame.kept_escaping[write.receiver]):
                        self._handed_on(statement, write)
                elif write.receiver in frame.kept_forwarded and write.field != CAPTURE:
                    forward_takes_it = write.field in OVERRIDE_KEYWORDS[PASS_THROUGH_FUNCTION]
                    self._refuse(statement, write, None if forward_takes_it else PASS_THROUGH_FUNCTION)
                continue
            self._refuse(statement, write, not_taken.get(id(statement)))

    def _folded_on_a_handed_parameter(self, frame: FunctionFrame, statement: cst.CSTNode, batch: str) -> None:
        """A write folded on a parameter of a function this module hands a kept snapshot: the old
        object kept the write, which the caller may read after the call; the keyword does not."""
        if batch not in {param.name.value for param in all_params(frame.function.params)}:
            return
        name = frame.function.name.value
        handed = self._handed_snapshots.get(name)
        if handed is not None:
            self.review(
                statement,
                "MWB138",
                f"the override written on `{batch}` is passed as a keyword here, and `{handed}` hands this function a "
                f"kept snapshot: the old object kept the write for the caller, which the snapshot no longer does; "
                f"write it on the snapshot in the caller too if the caller reads it",
            )
        elif name not in CONSUMING_CALLS and (
            name in self.state.project_callers.one_call_away.read_after_the_call
            or not self.state.project_callers.complete
        ):  # (a worker's own forward: the target's scheduler and workers call it, and read no override after)
            self.review(
                statement,
                "MWB138",
                f"the override written on `{batch}` is passed as a keyword here, and a caller of `{name}` reads what it "
                f"handed after the call: the old object kept the write for that caller, the keyword does not; "
                f"write it where the caller reads it too",
            )

    @staticmethod
    def _reaches_a_hand_off(
        body: Sequence[cst.BaseStatement], statement: cst.BaseStatement, write: OverrideWrite, hand_offs: set[int]
    ) -> bool:
        """False only where a later statement of the block writes the same field on the snapshot
        before any statement in between hands the snapshot on: that value never leaves."""
        index = next(i for i, s in enumerate(body) if s is statement)
        for later in body[index + 1 :]:
            again = override_write(later)
            if again is not None and again.receiver == write.receiver and again.field == write.field:
                return False
            if any(id(node) in hand_offs for node in m.findall(later, m.Name())):
                return True
        return True

    def _handed_on(self, statement: cst.CSTNode, write: OverrideWrite) -> None:
        self.review(
            statement,
            "MWB138",
            f"`{write.field}` written on the kept snapshot `{write.receiver}`, which this function hands on: "
            f"{self.state.target_version}'s `ForwardBatch.init_new` and workers take it as a keyword, and a forward "
            f"past this function may not read it from the snapshot; pass `{write.field}=` to the call that consumes it",
        )

    def _refuse(self, statement: cst.CSTNode, write: OverrideWrite, adjacent_call: str | None) -> None:
        if write.field == OVERRIDE_ARGUMENT and self._frames and write.receiver in self._frames[-1].cache_read_back_by:
            return  # 0.5.12's split-prefill cache: a field its snapshot reads back, which nothing consumes
        if write.field == OVERRIDE_ARGUMENT:
            self.review(
                statement,
                "MWB139",
                f"`{OVERRIDE_ARGUMENT}` kept: {self.state.target_version} has no such override and `ForwardBatch.init_new` reads `batch.seq_lens_cpu`; set that around the forward and restore it after",
            )
        elif adjacent_call is not None:
            self.review(
                statement,
                "MWB140",
                f"`{write.field}` kept: {self.state.target_version}'s `{adjacent_call}` takes no `{write.field}=`; build the forward batch with `ForwardBatch.init_new(..., {write.field}=...)`",
            )
        else:
            self.review(
                statement,
                "MWB138",
                f"`{write.field}` kept: {self.state.target_version} has no such ScheduleBatch field; pass `{write.field}=` to the call that consumes it (converted only from the statements right before it)",
            )

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        indent = "".join(self._indents)
        self._indents.pop()
        frame = self._frames[-1] if self._frames else None
        if frame is None or not any(id(s) in frame.folded for s in original_node.body):
            return updated_node
        removed: set[int] = set()
        body = list(updated_node.body)
        for index, statement in enumerate(original_node.body):
            writes = frame.folded.pop(id(statement), None)
            if writes:
                # The consuming call's statement and the writes before it: simple statement lines.
                body[index] = self._fold(
                    cst.ensure_type(body[index], cst.SimpleStatementLine),
                    [cst.ensure_type(body[w], cst.SimpleStatementLine) for w in writes],
                    indent,
                )
                removed.update(writes)
        return updated_node.with_changes(body=[s for i, s in enumerate(body) if i not in removed])

    def _fold(
        self, statement: cst.SimpleStatementLine, writes: list[cst.SimpleStatementLine], indent: str
    ) -> cst.SimpleStatementLine:
        call = cst.ensure_type(_statement_call(statement), cst.Call)  # the consuming call
        if call in self._laid_out:  # laid out for its first new keyword: again for all of them
            call = one_line(call)
        values = {_known_write(w).field: _known_write(w).value for w in writes}
        callee = consuming_call(call)
        assert callee is not None, "folded into a consuming call"
        for name in OVERRIDE_KEYWORDS[callee]:
            if name in values:
                call = with_keyword(call, name, values[name])
        self._grown.add(call)
        folded = _with_call(statement, call)
        # Comments above or beside a folded write stay with the code that now carries its value;
        # blank lines inside the group go with it (the first write's open it, at the block's start too).
        later = [*writes[1:], statement]
        leading = [
            *writes[0].leading_lines,
            *(line for s in later for line in s.leading_lines if line.comment is not None),
        ]
        folded = folded.with_changes(leading_lines=leading)
        for write in writes:
            comment = write.trailing_whitespace.comment
            if comment is not None:
                folded = cst.ensure_type(add_marker(folded, comment.value), cst.SimpleStatementLine)
        # The folded line keeps the call's findings, then the writes' (as their comments were).
        for source in (statement, *writes):
            self.carry_findings(source, folded)
        return self._fitted(folded, indent)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        return self._fitted(updated_node, "".join(self._indents))

    def _fitted(self, statement: cst.SimpleStatementLine, indent: str) -> cst.SimpleStatementLine:
        """Lay a grown call out as black would when a line of it got longer than black allows."""
        call = _statement_call(statement)
        if call is None or call not in self._grown:
            return statement
        code = _code(statement.with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace()))
        if all(len(indent) + len(line) <= MAX_LINE for line in code.rstrip("\n").split("\n")):
            return statement
        if "\n" in _code(call):
            if "#" in _code(call):
                return statement  # its comments stay where they are, the line long
            call = one_line(call)  # its arguments had one line of their own: laid out again
        exploded = arguments_on_their_own_line(call, indent, self._default_indent)
        exploded = calls_split_to_fit(exploded, indent, self._default_indent)
        self._grown.add(exploded)
        self._laid_out.add(exploded)
        return _with_call(statement, exploded)
