"""Drop `get_model_worker_batch()`: the batch itself is what workers take now.

    model_worker_batch = batch.get_model_worker_batch()        (deleted)
    self.worker.forward_batch_generation(model_worker_batch)   ->  ...(batch)

    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=E)
                                                               ->  batch.seq_lens_cpu_cache = E

Aliases (`mwb = model_worker_batch`) and an if/else binding the old object on one branch and the
batch on the other collapse to the batch. Also refused (MWB101) when the call takes arguments it
never had.

The old object was a snapshot. The live batch is read only where the window allowlist proves it the
same (analysis.window); by default every other call keeps the snapshot in code, which behaves as the
old object did, and is reported as a note (MWB182):

    mwb = batch.get_model_worker_batch()        ->  mwb = worker_batch_snapshot(batch)
    batch.prepare_for_decode()                      (unchanged: the copy was taken before it)
    worker.forward_batch_generation(mwb)

With `--live-batch` every site reads the live batch, as upstream did, and a site the allowlist does
not prove gets one hazard marker naming the first window statement it did not prove (MWB141; MWB142
for an inline call, whose window is its statement):

    mwb = batch.get_model_worker_batch()        (deleted)
    batch.prepare_for_decode()                  # MWB141: `mwb` now reads the live `batch`, ...
    worker.forward_batch_generation(batch)
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import Assignment, Scope, ScopeProvider

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT, SNAPSHOT_HELPER
from mwbmigrate.analysis.receivers import call_is_migratable, old_method_call, override_argument
from mwbmigrate.analysis.scopes import printed_expressions
from mwbmigrate.analysis.window import (
    REQUEST_FIELDS,
    REQUEST_LISTS,
    SIGNATURE_WORDS,
    Unproven,
    WindowProof,
    changes_request_fields,
    changes_requests,
    derived_mode_expression,
    reflection_reached,
    reflects_on_signatures,
    statement_code,
    window_end,
    writes_reached,
)
from mwbmigrate.codemods._shared import bound_name, function_facts, receivers_with_own_method
from mwbmigrate.codemods.base import (
    REPORTS,
    MigrationCodemod,
    NodeSet,
    comment_line,
    deleted,
    is_deleted,
    settle_block,
    settle_module,
)

_REQUESTS_READ = (
    ": the snapshot read each request's `lora_id`, `dllm_block_offset` and `grammar` when it was taken, "
    "`init_new` reads them at the forward"
)
# A kept snapshot's local `model_worker_batch` is renamed, so no old-API name is left in code.
SNAPSHOT_NAME = "worker_batch"
FORK_FIELDS = "fork_fields"
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _unchanged(text: str) -> str:
    return text


def _renaming(old: str, new: str) -> Callable[[str], str]:
    """`text` with the name `old` written `new` (a renamed local, in a note about it)."""
    pattern = re.compile(rf"\b{re.escape(old)}\b")
    return lambda text: pattern.sub(new, text)


_DYNAMIC_READS = frozenset({"locals", "vars", "dir", "eval", "exec", "_getframe", "currentframe", "stack"})


def _request_list_uses(function: cst.FunctionDef, name: str) -> list[tuple[cst.CSTNode, str]]:
    """The statements where `name.lora_ids` / `name.dllm_block_offsets` is used other than compared or
    measured with `len`."""
    uses: list[tuple[cst.CSTNode, str]] = []

    class _Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == name
                and node.attr.value in REQUEST_LISTS
                and not self._only_read(node)
            ):
                statement = next(
                    n
                    for n in reversed(self.stack)
                    if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                )
                uses.append((statement, node.attr.value))
            self.stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.stack.pop()

        def _only_read(self, node: cst.Attribute) -> bool:
            parent = self.stack[-1] if self.stack else None
            if isinstance(parent, cst.ComparisonTarget) or (isinstance(parent, cst.Comparison) and parent.left is node):
                return True
            grand = self.stack[-2] if len(self.stack) > 1 else None
            return (
                isinstance(parent, cst.Arg)
                and isinstance(grand, cst.Call)
                and m.matches(grand.func, m.Name("len") | m.Name("list") | m.Name("tuple") | m.Name("sorted"))
            )

    function.body.visit(_Finder())
    return uses


def _accessor_only(test: cst.BaseExpression) -> bool:
    """A condition made of names, attributes and argument-free method calls: safe to stop evaluating."""

    class _Finder(cst.CSTVisitor):
        safe = True

        def visit_Call(self, node: cst.Call) -> None:
            if node.args:
                self.safe = False

        def visit_Await(self, node: cst.Await) -> None:
            self.safe = False

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self.safe = False

    finder = _Finder()
    test.visit(finder)
    return finder.safe


def _certainly_changes(statement: cst.CSTNode, receiver: str) -> bool:
    """`statement` is a simple statement that writes, deletes or augments a part of `receiver`
    (`receiver.x = ...`, `receiver.x[i] += ...`, `del receiver.x`), or binds the name `receiver`
    again: the batch a later use reads is then certainly not the one the snapshot saw."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    part = m.Attribute(value=m.Name(receiver)) | m.Subscript(value=m.Name(receiver))
    rooted = part | m.Attribute(value=part) | m.Subscript(value=part)
    written = m.Name(receiver) | rooted
    for small in statement.body:
        if isinstance(small, cst.Assign) and any(m.matches(t.target, written) for t in small.targets):
            return True
        if isinstance(small, (cst.AugAssign, cst.AnnAssign)) and m.matches(small.target, written):
            return small.value is not None if isinstance(small, cst.AnnAssign) else True
        if isinstance(small, cst.Del) and m.matches(small.target, rooted):
            return True
    return False


def _marker_anchor(
    unproven: Unproven, candidates: dict[str, str], group: frozenset[str], proof: WindowProof | None
) -> cst.CSTNode:
    """Where the marker of `unproven` goes: on the statement it stopped at, unless another rewrite
    may delete that one (a binding of a snapshot or an alias, an import, a compound statement with
    nothing else in it), then on the snapshot's first use after it; at the end, on the function."""
    statement = unproven.statement
    if proof is None or _kept_statement(statement, candidates):
        return statement
    names = m.Name(value=m.MatchIfTrue(group.__contains__))
    for line in _lines_from(proof.function.body, statement):
        if _kept_statement(line, candidates) and m.findall(line, names):
            return line
    return proof.function


def _lines_from(root: cst.CSTNode, start: cst.CSTNode) -> list[cst.SimpleStatementLine]:
    """The simple statements under `root` from `start` on (those inside it included), in source order."""
    lines: list[cst.SimpleStatementLine] = []

    class _Lines(cst.CSTVisitor):
        started = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.started = self.started or node is start
            if self.started and isinstance(node, cst.SimpleStatementLine):
                lines.append(node)
            return True

    root.visit(_Lines())
    return lines


def _kept_statement(statement: cst.CSTNode, candidates: dict[str, str]) -> bool:
    """A statement that no rewrite deletes: a simple statement that binds no snapshot (one with an
    override becomes the override's write) or alias and imports nothing, or a compound statement
    that holds such a statement (so its body is never emptied)."""
    if isinstance(statement, cst.BaseCompoundStatement):
        return any(_kept_statement(line, candidates) for line in m.findall(statement, m.SimpleStatementLine()))
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            return False
        if not isinstance(small, cst.Assign):
            continue
        call = old_method_call(small.value)
        if call is not None and override_argument(call) is not None:
            continue  # becomes the override's write on the batch
        if call is not None or any(
            isinstance(t.target, cst.Name) and t.target.value in candidates for t in small.targets
        ):
            return False
    return True


def _live_hazard(
    unproven: Unproven, group: frozenset[str], receiver: str, anchor: cst.CSTNode
) -> tuple[cst.CSTNode, str, str]:
    """`--live-batch`: the one marker of a site the allowlist did not prove, at `anchor`, naming the
    statement the allowlist stopped at (the binding itself when the site fails as a whole) as it
    now reads. A write, `del` or rebinding of the batch there is a certain change, and says so."""
    names = ", ".join(f"`{name}`" for name in sorted(group))
    statement = unproven.statement
    written = statement_code(statement)
    # The statement as the rewrite leaves it: each name of the snapshot reads the receiver.
    renamed = m.replace(statement, m.Name(value=m.MatchIfTrue(group.__contains__)), cst.Name(receiver))
    now = statement_code(renamed) if isinstance(renamed, cst.CSTNode) else written
    if _certainly_changes(statement, receiver):
        return (
            anchor,
            "MWB141",
            f"`{now}` changes `{receiver}` before {names} is used: {names} {'was' if len(group) == 1 else 'were'} "
            f"a snapshot, now {'it is' if len(group) == 1 else 'they are'} the live batch",
        )
    why = unproven.why
    if why.startswith(f"`{written}`"):
        why = f"`{now}`{why[len(written) + 2 :]}"
    reads = "reads" if len(group) == 1 else "read"
    return anchor, "MWB141", f"{names} now {reads} the live `{receiver}`, not proven the same: {why}"


class DropWorkerBatchCalls(MigrationCodemod):
    CODE = "MWB005"
    NAME = "worker-batch-calls"
    SUMMARY = "Delete `x = batch.get_model_worker_batch()` and read `batch` wherever `x` was read; overrides become `batch.seq_lens_cpu_cache = E`."
    TRIGGERS = (OLD_METHOD,)
    # The module-wide scans of a kept snapshot (MWB183) read every body that writes a request field,
    # changes a request list in place or reflects on signatures: elision must not leave those out.
    BODY_WORDS = (*sorted(REQUEST_FIELDS), ".reqs", "merge_batch", *SIGNATURE_WORDS)
    REVIEW_CODES = ("MWB101", "MWB141", "MWB142", "MWB182", "MWB183")
    REQUIRES = ("MWB006", *REPORTS)
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._renames: dict[cst.Name, str] = {}
        self._bindings: dict[cst.SimpleStatementLine, str] = {}  # binding statement -> receiver
        self._emptied = NodeSet()  # blocks this pass filled with `pass`
        self._function_depth = 0
        self._own_method_receivers: list[set[str]] = []
        # Reads of a name whose get_model_worker_batch() was kept: each line is marked.
        self._refused_uses: dict[cst.Name, str] = {}
        self._kept: set[cst.SimpleStatementLine] = set()  # bindings whose call becomes the snapshot helper
        self._proofs: list[WindowProof | None] = []
        self._module_names: frozenset[str] | None = None  # every name in the module, for renames
        self._module_hazards: list[str] | None = None  # what a kept snapshot cannot keep, found in the module
        # `<snapshot>.capture_hidden_mode` in a window's assert, by node id -> (batch name, enum name).
        self._derived_modes: dict[int, tuple[str, str]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._function_depth += 1
        self._own_method_receivers.append(receivers_with_own_method(self, node))
        facts = function_facts(self, node)
        scope = self.get_metadata(ScopeProvider, node.body, None)
        proof = None if scope is None else WindowProof(self.module, node, scope, self.state.window_facts)
        self._proofs.append(proof)
        own_method = bool(self._own_method_receivers[-1])
        renamed = False
        if proof is not None and not self.state.live_batch and not own_method and OLD_PARAMETER not in facts.aliases and self._may_rename(node, proof.scope):  # fmt: skip
            renamed = True
            # A local that holds a snapshot, now kept in code (or what it was bound from): the name goes,
            # the value stays. Not where a class of the module defines its own `get_model_worker_batch`.
            for assignment in proof.scope.assignments[OLD_PARAMETER]:
                if isinstance(assignment, Assignment) and isinstance(assignment.node, cst.Name):
                    self._renames[assignment.node] = SNAPSHOT_NAME
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        self._renames[reference.node] = SNAPSHOT_NAME
        # A note names the code as it now reads: the local's new name where this pass renames it.
        as_written = _renaming(OLD_PARAMETER, SNAPSHOT_NAME) if renamed else _unchanged
        for statement, unproven in facts.kept.items():
            self._kept.add(statement)
            name = bound_name(statement)
            self._note_kept(statement, f"`{as_written(name)}`", as_written(unproven.why))
            if unproven.hazard is not None:
                self.review(statement, "MWB183", as_written(unproven.hazard))
            self._request_hazards(statement, node, name, as_written)
            for use, field in _request_list_uses(node, name):
                self.review(
                    use,
                    "MWB183",
                    f"`{as_written(name)}.{field}` is changed or handed on: the old forward read the snapshot's list, "
                    f"`init_new` now builds its own from the requests",
                )
        for refused, reason in facts.refusals:
            self.review(refused, "MWB101", f"`{OLD_METHOD}()` kept: {reason}")
            name = bound_name(refused)
            for assignment in facts.scope.assignments[name] if facts.scope else ():
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        self._refused_uses[reference.node] = name
        # `--live-batch`: each site the allowlist did not prove, marked once.
        for unproven, group, receiver in facts.live_sites:
            anchor = _marker_anchor(unproven, facts.aliases, group, proof)
            self.review(*_live_hazard(unproven, group, receiver, anchor))
        if facts.scope is None:
            return  # no aliases are found without the function's scope
        for name, receiver in facts.aliases.items():
            for assignment in facts.scope.assignments[name]:
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        self._renames[reference.node] = receiver
            for binding in facts.bindings[name]:
                self._bindings[binding.statement] = receiver
            # Where the allowlist proved the window (entry 6 holds only with the derivation read where
            # the assert stands); elsewhere, with `--live-batch`, override-moves moves it as upstream did.
            proven = name not in facts.unproven_live
            if proof is not None and proven and any(binding.call is not None for binding in facts.bindings[name]):
                self._note_derived_modes(node, proof, name, receiver)

    def _note_derived_modes(self, function: cst.FunctionDef, proof: WindowProof, name: str, receiver: str) -> None:
        """The window's asserts on the snapshot's capture mode read what the old method derived,
        from the batch (analysis/window.py, `derived_mode_check`)."""
        enum = proof.capture_mode_enum()
        # The snapshot's own uses: not a nested function's local of the same name.
        uses = {id(use.node) for assignment in proof.scope.assignments[name] for use in assignment.references}
        for statement in m.findall(function.body, m.SimpleStatementLine()):
            read = proof.derived_mode_check(statement, name)
            if read is not None and enum is not None and id(read.value) in uses:
                self._derived_modes[id(read)] = (receiver, enum)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        found = self._derived_modes.get(id(original_node))
        if found is None:
            return updated_node
        receiver, enum = found
        return derived_mode_expression(cst.Name(receiver), enum)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._function_depth -= 1
        self._own_method_receivers.pop()
        self._proofs.pop()
        return updated_node

    def _may_rename(self, function: cst.FunctionDef, scope: Scope) -> bool:
        """`model_worker_batch` -> `worker_batch` changes nothing: the local lives in this scope alone,
        nothing in the module names `worker_batch`, and nothing looks names up dynamically."""
        assignments = list(scope.assignments[OLD_PARAMETER])
        if not assignments or any(
            not isinstance(a, Assignment) or a.scope is not scope or not isinstance(a.node, cst.Name)
            for a in assignments
        ):
            return False  # a parameter (parameter-renames' business), or bound elsewhere
        if any(r.scope is not scope for a in assignments for r in a.references):
            return False
        if self._module_names is None:
            self._module_names = frozenset(cst.ensure_type(n, cst.Name).value for n in m.findall(self.module, m.Name()))
        if SNAPSHOT_NAME in self._module_names:
            return False
        called = {callee_name(cst.ensure_type(c, cst.Call)) for c in m.findall(function, m.Call())}
        declared = m.findall(function, m.Global() | m.Nonlocal())
        printed = OLD_PARAMETER in printed_expressions(function)  # `f"{model_worker_batch...=}"`
        return not (called & _DYNAMIC_READS) and not declared and not printed

    def _note_kept(self, node: cst.CSTNode, what: str, why: str) -> None:
        self.review(
            node,
            "MWB182",
            f"{what} stays a per-forward snapshot (`{SNAPSHOT_HELPER}`): {why}; delete the copy if nothing "
            f"between it and its last use can change the batch",
        )

    def _request_hazards(
        self,
        node: cst.CSTNode,
        function: cst.FunctionDef | None,
        name: str | None,
        as_written: Callable[[str], str] = lambda text: text,
    ) -> None:
        """What no copy keeps, reported on a kept snapshot: found in the module (a write of a request
        field, reflection on parameter names), in its function (the request lists changed in place),
        or where the snapshot reaches (reflection on its class or attributes)."""
        if self._module_hazards is None:
            self._module_hazards = [
                f"the tree's own `ModelWorkerBatch.{name}` is computed by its `{OLD_METHOD}()` (`{code}`), "
                f"which the kept snapshot does not hold"
                for name, code in self.state.own_worker_batch_fields.computed
            ]
            method = self.state.window_facts.forward_method
            if method is not None:
                self._module_hazards.append(
                    f"the tree defines {method}, which 0.5.13's `init_new` calls on the batch's parts at every "
                    f"forward, where the old forward called other methods"
                )
            between = self.state.window_facts.code_between_request_reads
            if between is not None:
                # The old method read each request's values, then ran that code, then took `reqs`:
                # the target's `init_new` derives those values from `reqs` at the forward.
                self._module_hazards.append(
                    f"the tree runs code where the old method read the batch between its requests' values and "
                    f"its request list ({between}), which may change that list{_REQUESTS_READ}"
                )
            changed = changes_request_fields(self.module)
            if changed is not None:
                self._module_hazards.append(f"in this module {changed}{_REQUESTS_READ}")
            signatures = reflects_on_signatures(self.module)
            if signatures is not None:
                self._module_hazards.append(
                    f"this module reflects on signatures ({signatures}): renamed parameters answer it differently"
                )
        reasons = list(self._module_hazards)
        if function is not None:
            scope = self.get_metadata(ScopeProvider, function.body, None) if name is not None else None
            end = window_end(function, node, name, scope) if name is not None and scope is not None else None
            changed = changes_requests(function, end)
            if changed is not None:
                reasons.append(f"in this function {changed}{_REQUESTS_READ}")
        if function is not None and name is not None:
            consumed, reset = writes_reached(self.module, function, name)
            if consumed is not None:
                reasons.append(
                    f"{consumed} is written: the old object had no such field and its forward never read it, "
                    f"the target's `init_new` reads it on the kept snapshot"
                )
            if reset is not None:
                reasons.append(
                    f"{reset} writes, or may write, the reset value a consuming forward writes: straight after a read of that "
                    f"field the kept snapshot keeps its value, where the old object took the write"
                )
            reached = reflection_reached(self.module, function, name)
            if reached is not None:
                reasons.append(
                    f"reflection on `{name}` ({reached}): the kept snapshot is the runtime's `ModelWorkerBatch`, "
                    f"whose `__class__` is the batch's and which also answers the new API's field names"
                )
        for reason in reasons:
            self.review(node, "MWB183", as_written(reason))

    def _snapshot_helper(self, call: cst.Call, receiver: cst.BaseExpression) -> cst.Call:
        # mwbmigrate.runtime, or the tree's vendored copy under `--runtime vendor`.
        AddImportsVisitor.add_needed_import(self.context, self.state.runtime_module, SNAPSHOT_HELPER)
        arguments = [cst.Arg(receiver), *call.args]
        own = self.state.own_worker_batch_fields
        if own.copied:
            # The fork's own `ModelWorkerBatch` fields that its method copied from the batch.
            names = [cst.Element(cst.SimpleString(f'"{name}"')) for name in own.copied]
            value = cst.Tuple(names if len(names) > 1 else [names[0].with_changes(comma=cst.Comma())])
            arguments.append(cst.Arg(value, keyword=cst.Name(FORK_FIELDS), equal=_EQUAL))
        return call.with_changes(func=cst.Name(SNAPSHOT_HELPER), args=arguments)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        refused = self._refused_uses.get(original_node)
        if refused is not None:
            self.review(
                original_node, "MWB101", f"`{refused}` still holds the old object: its `{OLD_METHOD}()` was kept"
            )
        receiver = self._renames.get(original_node)
        return updated_node.with_changes(value=receiver) if receiver else updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        # An inline `f(batch.get_model_worker_batch())` evaluates to the batch at the same point.
        call = old_method_call(updated_node)
        if call is None or self._function_depth == 0:
            return updated_node
        receiver = cst.ensure_type(
            call.func, cst.Attribute
        ).value  # old_method_call: `<receiver>.get_model_worker_batch(...)`
        if isinstance(receiver, cst.Name) and receiver.value in self._own_method_receivers[-1]:
            return updated_node
        parent = self.parent(original_node)
        proof = self._proofs[-1]
        if proof is not None and not self.state.live_batch:
            return self._keep_or_read_live(original_node, updated_node, receiver, parent, proof)
        if isinstance(parent, cst.Assign) or original_node.args:
            if original_node.args and not isinstance(parent, cst.Assign):
                self.review(
                    original_node,
                    "MWB101",
                    f"inline `{OLD_METHOD}({OVERRIDE_ARGUMENT}=...)` kept: hoist the override by hand",
                )
            return updated_node
        # `--live-batch`: the live batch, marked where the allowlist does not prove it the same.
        if proof is None:
            why: str | None = "its function is not followed"
        elif not isinstance(receiver, cst.Name):
            why = "its receiver is not a plain name"
        else:
            why = self._inline_unproven(original_node, parent, proof)
        if why is not None:
            self.review(
                original_node,
                "MWB142",
                f"the inline `{OLD_METHOD}()` now reads the live `{statement_code(receiver)}`, not proven the "
                f"same: {why}",
            )
        return receiver

    def _keep_or_read_live(
        self,
        original_node: cst.Call,
        updated_node: cst.Call,
        receiver: cst.BaseExpression,
        parent: cst.CSTNode | None,
        proof: WindowProof,
    ) -> cst.BaseExpression:
        """The default: the live batch where the allowlist proves it, else the snapshot in code."""
        statement = self.parent(parent) if isinstance(parent, cst.Assign) else None
        if isinstance(statement, cst.SimpleStatementLine) and statement in self._bindings:
            return updated_node  # a proven binding: leave_SimpleStatementLine deletes it
        if not call_is_migratable(original_node):
            if not isinstance(parent, cst.Assign):
                self.review(
                    original_node, "MWB101", f"inline `{OLD_METHOD}(...)` kept: its arguments have no translation"
                )
            return updated_node
        if isinstance(statement, cst.SimpleStatementLine) and statement in self._kept:
            return self._snapshot_helper(updated_node, receiver)  # noted with its binding
        why = self._inline_unproven(original_node, parent, proof)
        if why is None and isinstance(receiver, cst.Name):
            return receiver
        why = why or "its receiver is not a plain name"
        self._note_kept(original_node, f"the inline `{OLD_METHOD}()`", why)
        function = next((n for n in reversed(self._ancestors) if isinstance(n, cst.FunctionDef)), None)
        self._request_hazards(original_node, function, None)
        return self._snapshot_helper(updated_node, receiver)

    def _inline_unproven(self, call: cst.Call, parent: cst.CSTNode | None, proof: WindowProof) -> str | None:
        if call.args:
            return f"it takes `{OVERRIDE_ARGUMENT}`, which the snapshot kept for every forward"
        if not isinstance(parent, cst.Arg):
            return "it is not handed straight to `ForwardBatch.init_new`"
        statement = next(
            (
                n
                for n in reversed(self._ancestors)
                if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            ),
            None,
        )
        if statement is None:
            return "it is not in a statement the tool follows"
        why = proof.inline(statement, call)
        return None if why is None else f"`{statement_code(statement)}` {why}"

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        receiver = self._bindings.get(original_node)
        if receiver is None:
            return updated_node
        call = old_method_call(cst.ensure_type(updated_node.body[0], cst.Assign).value)  # a binding `name = ...`
        value = override_argument(call) if call is not None else None
        if value is None:
            return deleted(updated_node)  # its comments, usually about the forward that follows, stay
        # The override becomes a one-shot field on the batch, consumed by the next ForwardBatch.init_new.
        target = cst.Attribute(value=cst.Name(receiver), attr=cst.Name(OVERRIDE_ARGUMENT))
        return updated_node.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)], value=value)])

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        emptied = bool(original_node.body) and all(is_deleted(s) for s in updated_node.body)
        settled = settle_block(original_node, updated_node)
        if emptied:
            self._emptied.add(settled)  # a `pass`, under the deleted statements' comments if any
        return settled

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        body_emptied = updated_node.body in self._emptied
        orelse = updated_node.orelse
        if not body_emptied or not _accessor_only(updated_node.test):
            return updated_node
        parent = self.parent(original_node)
        if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
            return updated_node
        if orelse is None or (isinstance(orelse, cst.Else) and orelse.body in self._emptied):
            # Its branches hold only the comments of what they held: they stay where it stood.
            lines = [*deleted(updated_node).leading_lines, *_comments_of_emptied(updated_node.body)]
            if isinstance(orelse, cst.Else):
                lines += [*orelse.leading_lines, *_comments_of_emptied(orelse.body)]
            return deleted(updated_node).with_changes(leading_lines=lines)
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return settle_module(updated_node)


def _comments_of_emptied(block: cst.BaseSuite) -> list[cst.EmptyLine]:
    """The comment lines of a block left holding only `pass`: its header's, the deleted statements'
    (above the `pass`) and its footer's."""
    block = cst.ensure_type(block, cst.IndentedBlock)
    lines = [*comment_line(block.header)]
    for statement in block.body:
        lines += getattr(statement, "leading_lines", ())
        if isinstance(statement, cst.SimpleStatementLine):
            lines += comment_line(statement.trailing_whitespace)
    return [line for line in [*lines, *block.footer] if line.comment is not None]
