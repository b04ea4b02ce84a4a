"""Report the shapes old-API code takes outside upstream: shims, fakes, monkeypatches, stubs, copies.

Rewrites nothing. Forks, plugins, RL frameworks and tests use the old API in ways a rewrite cannot
prove safe; each such site keeps its code and gets a marker naming what to check:

    if hasattr(batch, "get_model_worker_batch"):   # mwbmigrate: MWB120 feature check ... kept
        model_worker_batch = batch.get_model_worker_batch()   # mwbmigrate: MWB120 old API kept ...

    MWB120  a feature check (`hasattr`/`getattr` of `get_model_worker_batch`), and the old API
            in the code it gates
    MWB121  `ModelWorkerBatch` imported under `try/except ImportError`, and every use of it
    MWB122  an `if` on an environment variable or SGLang's version that picks the old API
    MWB123  a class other than SGLang's `ScheduleBatch` that defines `get_model_worker_batch`
    MWB124  `get_model_worker_batch` assigned at run time (a lambda, `setattr`)
    MWB125  a method replaced at run time by a function that takes the old object
    MWB126  the string key or keyword `model_worker_batch` where SGLang now passes `batch`
    MWB127  a stub of SGLang's `schedule_batch` module (`sys.modules`, `module.ModelWorkerBatch = ...`)
    MWB128  a mock standing in for `get_model_worker_batch`, or specced on the old class
    MWB129  `get_model_worker_batch()` on an object whose class (in this module) defines its own
    MWB130  `ModelWorkerBatch(...)` keywords that have no `ScheduleBatch` field of that name
    MWB131  a copy or serialisation of the former old object (it is the live ScheduleBatch now)
    MWB132  a field or attribute typed with the old class (it will hold the live batch)
    MWB133  a run-time type test or registry keyed on the old class (`type(x) is`, `issubclass`)
    MWB134  `model_worker_batch` bound by something other than `get_model_worker_batch()`, or an
            attribute of that name: not provably the old object, kept
    MWB135  `get_model_worker_batch()` whose result is not bound to a plain local, or whose
            receiver is not a plain name: kept (or only inlined), its result is not tracked
    MWB136  an attribute of the old object that `ScheduleBatch` does not have (`bid`, `launch_done`, ...)
    MWB137  an attribute that was no field of 0.5.12.post1's `ModelWorkerBatch` (fork-only state)
    MWB154  (--collapse-compat) a version gate whose side on 0.5.13 cannot be told: kept
    MWB155  a version-gated override of an SGLang method renamed in 0.5.13 keeps `model_worker_batch`
    MWB156  `model_worker_batch=` kept in version-gated code, where the callee may take `batch=` now

Version gates (MWB120-122) are `analysis.version_gates`' facts: each gate keeps its function (or
module-level statement) untouched, every codemod skips it (`MigrationCodemod.on_visit`), and this
one marks it. With --collapse-compat the engine first calls `collapse_version_gates`, which turns
each gate into the side that runs on 0.5.13.

Runs right after semantic-review, before any rename, so the old names are still there to see. A
module whose `ModelWorkerBatch` comes from another project (a JAX port) is left alone entirely.
The rewriting codemods can share its facts: `imports_foreign_old_class`, `method_classes` and
`local_instances` say what they must leave alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ClassScope, GlobalScope, ScopeProvider

from mwbmigrate.analysis.old_api import (
    FIELDS_COMPUTED_FROM_REQS,
    NEW_CLASS,
    OLD_CLASS,
    OLD_METHOD,
    OLD_PARAMETER,
    ONE_SHOT_OVERRIDES,
    RENAMED_FIELDS,
    UPSTREAM_RENAMED_PARAMETERS,
    ModuleLocation,
    is_sglang_schedule_batch_module,
)
from mwbmigrate.analysis.receivers import all_params, old_method_call
from mwbmigrate.analysis.version_gates import (
    _OLD_TOKEN,
    CATCHES_MISSING_NAME,
    OLD_TOKENS,
    NewWorld,
    VersionGates,
    feature_check,
    following,
    handler_types,
    leaves_block,
    mentions_gate,
    new_api_bool,
    new_api_value,
    uses_old_api,
)
from mwbmigrate.analysis.version_gates import (
    dotted as _dotted,
)
from mwbmigrate.analysis.version_gates import (
    imports_old_class as _imports_old_class,
)
from mwbmigrate.analysis.version_gates import (
    last_name as _last_name,
)
from mwbmigrate.analysis.version_gates import (
    simple_statements as _simple_statements,
)
from mwbmigrate.analysis.version_gates import (
    string_value as _string_value,
)
from mwbmigrate.codemods._shared import function_facts, param_holds_old_object
from mwbmigrate.codemods.base import MigrationCodemod, tidy_block_start

# The 51 fields of 0.5.12.post1's ModelWorkerBatch (migration spec, section 2).
OLD_OBJECT_FIELDS = frozenset({
    "forward_mode", "input_ids", "req_pool_indices", "seq_lens", "out_cache_loc", "seq_lens_cpu",
    "seq_lens_sum", "return_logprob", "top_logprobs_nums", "token_ids_logprobs", "global_num_tokens",
    "global_num_tokens_for_logprob", "is_extend_in_batch", "all_extend_in_batch", "can_run_dp_cuda_graph",
    "tbo_split_seq_index", "global_forward_mode", "extend_num_tokens", "extend_seq_lens",
    "extend_prefix_lens", "extend_logprob_start_lens", "extend_input_logprob_token_ids",
    "multimodal_inputs", "encoder_cached", "encoder_lens", "encoder_lens_cpu", "encoder_out_cache_loc",
    "lora_ids", "sampling_info", "input_embeds", "replace_embeds", "replace_positions", "ne_token_table",
    "token_type_ids", "dimensions", "return_pooled_hidden_states", "multi_item_delimiter_indices",
    "spec_algorithm", "spec_info", "hicache_consumer_index", "capture_hidden_mode", "is_prefill_only",
    "dllm_block_offsets", "dllm_config", "reqs", "has_grammar", "mamba_track_indices", "mamba_track_mask",
    "mamba_track_seqlens", "return_hidden_states_before_norm", "orig_seq_lens",
})
# Attributes of the old object that ScheduleBatch (0.5.13) does not have, and where the value went.
MISSING_FIELDS = {
    "bid": "a field of older ModelWorkerBatch versions; ScheduleBatch has no `bid`",
    "launch_done": "a field of older ModelWorkerBatch versions (overlap event); ScheduleBatch has no `launch_done`",
    "token_type_ids": "removed from ScheduleBatch in 0.5.13; read forward_batch.token_type_ids",
    "dimensions": "removed from ScheduleBatch in 0.5.13; read forward_batch.dimensions",
    "return_pooled_hidden_states": "removed from ScheduleBatch in 0.5.13; read forward_batch.return_pooled_hidden_states",
    "multi_item_delimiter_indices": "removed from ScheduleBatch in 0.5.13; read forward_batch.multi_item_delimiter_indices",
}
# Constructor keywords with no ScheduleBatch field of the same name, and why (MWB130).
NO_COUNTERPART_KEYWORDS = {
    **{old: f"ScheduleBatch.{new}" for old, new in RENAMED_FIELDS.items()},
    **{field: "computed from reqs" for field in FIELDS_COMPUTED_FROM_REQS},
    "bid": "gone",
    "launch_done": "gone",
    "token_type_ids": "removed in 0.5.13",
    "dimensions": "removed in 0.5.13",
    "return_pooled_hidden_states": "removed in 0.5.13",
    "multi_item_delimiter_indices": "removed in 0.5.13",
}
# SGLang functions whose `model_worker_batch` parameter upstream renamed to `batch` (spec C, J).
UPSTREAM_RENAMED_CALLEES = frozenset({
    "forward_batch_generation", "forward_batch_embedding", "record_batch_in_overlap", "draft",
    "_forward_batch_generation_mlx", "async_forward_batch_generation_mlx", "_async_extend_batch",
})
COPY_CALLS = frozenset({
    "copy.copy", "copy.deepcopy", "dataclasses.replace", "dataclasses.asdict", "dataclasses.astuple",
    "dataclasses.fields", "builtins.vars", "pickle.dumps", "pickle.dump", "cloudpickle.dumps",
    "cloudpickle.dump", "dill.dumps", "msgpack.packb", "msgpack.pack", "msgspec.msgpack.encode",
    "torch.save",
})
MOCK_FACTORIES = frozenset({"Mock", "MagicMock", "AsyncMock", "NonCallableMock", "NonCallableMagicMock", "create_autospec"})

KEPT_IN_GATE = "old API kept in version-gated code"
# MWB137: what an access to a fork-only attribute does now that it reaches the live batch.
ACCESS_CONSEQUENCES = {
    "read": "reading it now reads the live batch (AttributeError where it was never set there)",
    "set": "setting it now mutates the live batch",
    "update": "updating it now reads and mutates the live batch",
}
# --collapse-compat: what each kind of gate it could not collapse is called in its marker.
NOT_COLLAPSED = {
    "MWB120": "a feature check", "MWB121": "an ImportError-guarded import", "MWB122": "an environment or version switch",
}
# What wild-shapes still reports inside a gated region: the gates themselves.
GATE_CODES = frozenset({"MWB120", "MWB121", "MWB122", "MWB154", "MWB155", "MWB156"})


# -- facts other codemods can share ---------------------------------------------------------------
def imports_foreign_old_class(module: cst.Module, location: ModuleLocation) -> bool:
    """True when the module imports a `ModelWorkerBatch` that is not SGLang's (a JAX port's, say)."""

    class _Imports(cst.CSTVisitor):
        foreign = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            # Imports are statements: expressions (most of a module's nodes) cannot hold one.
            return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if not _imports_old_class(node):
                return
            dotted = "." * len(node.relative) + (_code(node.module) if node.module else "")
            if not is_sglang_schedule_batch_module(dotted, location):
                self.foreign = True

    imports = _Imports()
    module.visit(imports)
    return imports.foreign


def method_classes(module: cst.Module) -> set[str]:
    """Classes of this module that define their own `get_model_worker_batch` (adapters, fakes)."""
    found: set[str] = set()

    class _Classes(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if _defines_old_method(node):
                found.add(node.name.value)

    module.visit(_Classes())
    return found


def local_instances(function: cst.FunctionDef, method_classes: set[str]) -> dict[str, str]:
    """Locals of `function` bound to `Cls(...)` where `Cls` (of this module) defines its own old method.

    Their `get_model_worker_batch()` is that class's, not SGLang's, and must not be eliminated.
    """
    found: dict[str, str] = {}
    if not method_classes:
        return found

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if isinstance(node.value, cst.Call) and _dotted(node.value.func) in method_classes:
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        found[target.target.value] = _dotted(node.value.func)

    function.body.visit(_Assigns())
    return found


class _Scan(cst.CSTVisitor):
    """Old-API tokens of one function (nested definitions excepted), each with its innermost
    statement, and the statement of every Name."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.statements: list[cst.CSTNode] = []
        self.tokens: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (Name or SimpleString, statement)
        self.names: dict[cst.Name, cst.CSTNode] = {}  # every Name -> its statement

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not self.root:
            return False
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and not (
            node is self.root and isinstance(node, cst.FunctionDef)
        ):
            self.statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.statements and self.statements[-1] is original_node:
            self.statements.pop()
        super().on_leave(original_node)

    def visit_Name(self, node: cst.Name) -> None:
        if self.statements:
            self.names[node] = self.statements[-1]
            if node.value in OLD_TOKENS:
                self.tokens.append((node, self.statements[-1]))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _OLD_TOKEN.search(node.value) and self.statements:
            self.tokens.append((node, self.statements[-1]))


def region_tokens(region: cst.CSTNode) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    """Old-API tokens of a gated region (nested definitions included), each with its innermost
    statement; a token of a `def` line (a parameter) belongs to the `def`."""
    found: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    statements: list[cst.CSTNode] = []

    class _Tokens(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                statements.append(node)
            if isinstance(node, cst.Name) and node.value in OLD_TOKENS:
                found.append((node, statements[-1]))
            if isinstance(node, cst.SimpleString) and _OLD_TOKEN.search(node.value):
                found.append((node, statements[-1]))
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if statements and statements[-1] is original_node:
                statements.pop()

    region.visit(_Tokens())
    return found


@dataclass
class _Function:
    node: cst.FunctionDef
    tokens: dict[cst.CSTNode, cst.CSTNode]  # old-API token node -> its statement
    names: dict[cst.Name, cst.CSTNode]  # every Name of the body -> its statement
    local_instances: dict[str, str]  # local name -> class (of this module) defining the old method


class ReportWildShapes(MigrationCodemod):
    CODE = "MWB011"
    NAME = "wild-shapes"
    SUMMARY = "Mark old-API shapes of forks, plugins and tests (shims, fakes, monkeypatches, stubs, copies, fork-only fields); rewrites nothing."
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text, state):
        return OLD_PARAMETER in text or OLD_CLASS in text

    # It visits gated regions (to put its markers there) but reports nothing else inside them:
    # the code stays as it is, so no rewrite hazard applies.
    SKIPS_GATED_REGIONS = False

    def __init__(self, context) -> None:
        super().__init__(context)
        self._patch_functions: set[str] = set()  # functions that take the old object (monkeypatch wrappers)
        self._method_classes: set[str] = set()  # classes of this module defining get_model_worker_batch
        self._classes: list[tuple[str, bool]] = []  # (name, defines the old method)
        self._functions: list[_Function] = []
        self._accesses: set[cst.Name] = set()  # Names that read the old object

    def review(self, node: cst.CSTNode, code: str, reason: str, suggestion: str = "") -> None:
        if self.in_gated_region() and code not in GATE_CODES:
            return
        super().review(node, code, reason, suggestion)

    # -- module facts ---------------------------------------------------------------------------
    # A module importing another project's ModelWorkerBatch never reaches any codemod: the engine
    # checks `imports_foreign_old_class` once, before the first.
    def visit_Module(self, node: cst.Module) -> None:
        self._method_classes = method_classes(node)
        codemod = self

        class _Wrappers(cst.CSTVisitor):
            def on_visit(self, node: cst.CSTNode) -> bool:
                return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

            def visit_FunctionDef(self, function: cst.FunctionDef) -> None:
                # A wrapper that takes the old object, or digs it out of **kwargs by name.
                params = all_params(function.params)
                if any(param_holds_old_object(codemod, p) for p in params) or _reads_old_keyword(function):
                    codemod._patch_functions.add(function.name.value)

        node.visit(_Wrappers())
        self._report_gates(self.state.version_gates(node))

    # -- shape 1: version gates (analysis.version_gates) -----------------------------------------
    def _report_gates(self, gates: VersionGates) -> None:
        """Mark each gate, and every old-API token of the regions they keep (nothing there is rewritten)."""
        gate_statements = set()
        for gate in gates.gates:
            gate_statements.add(id(gate.statement))
            if self.state.collapse_compat and _is_flag_definition(gate.statement):
                continue  # its readers were collapsed; it is merely false on 0.5.13, and others may import it
            if isinstance(gate.statement, cst.Try):
                for line in gate.statement.body.body if isinstance(gate.statement.body, cst.IndentedBlock) else ():
                    if isinstance(line, cst.SimpleStatementLine) and any(s in gates.guarded_imports for s in line.body):
                        gate_statements.add(id(line))
                        self._review_gate(line, gate.code, gate.reason)
            else:
                self._review_gate(gate.statement, gate.code, gate.reason)
        for region in gates.regions:
            code = gates.region_codes[id(region)]
            if isinstance(region, cst.FunctionDef):
                self._report_kept_parameter(region)
            for token, statement in region_tokens(region):
                if id(statement) not in gate_statements:
                    self._review_gate(statement, code, KEPT_IN_GATE)
                if isinstance(token, cst.Name) and token.value == OLD_PARAMETER and _is_keyword(token, statement):
                    self.review(statement, "MWB156", f"`{OLD_PARAMETER}=` kept in version-gated code: a callee whose parameter the migration renamed (this project's, or SGLang 0.5.13's) now takes `batch=`")

    def _review_gate(self, statement: cst.CSTNode, code: str, reason: str) -> None:
        if self.state.collapse_compat:
            # What --collapse-compat left: it cannot tell which side runs on the new API.
            kind = NOT_COLLAPSED[code]
            code, reason = "MWB154", (
                f"{kind} kept: --collapse-compat cannot tell what it runs on 0.5.13" if reason != KEPT_IN_GATE
                else f"old API kept: it is gated by {kind} that --collapse-compat could not resolve"
            )
        self.review(statement, code, reason)

    def _report_kept_parameter(self, function: cst.FunctionDef) -> None:
        """A gated SGLang method override keeps `model_worker_batch`, which 0.5.13 passes as `batch=`."""
        if function.name.value not in UPSTREAM_RENAMED_PARAMETERS:
            return
        if any(p.name.value == OLD_PARAMETER for p in all_params(function.params)):
            self.review(function, "MWB155", f"`{function.name.value}` keeps `{OLD_PARAMETER}` in version-gated code: SGLang 0.5.13 and the migrated keyword callers pass it as `batch=`")

    # -- scopes ---------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append((node.name.value, _defines_old_method(node)))

    def leave_ClassDef(self, original_node, updated_node):
        self._classes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == OLD_METHOD:
            self._report_definition(node)
        scan = _Scan(node)
        node.visit(scan)
        tokens = dict(scan.tokens)
        self._functions.append(_Function(node, tokens, scan.names, local_instances(node, self._method_classes)))
        facts = function_facts(self, node)
        self._accesses |= facts.old_object_accesses()
        self._report_unproven_locals(node, facts, tokens)

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions.pop()
        return updated_node

    # -- shape 2: definitions and the calls that reach them --------------------------------------
    def _report_definition(self, node: cst.FunctionDef) -> None:
        owner = self._classes[-1][0] if self._classes and self._directly_in_class(node) else None
        if owner is None:
            self.review(node, "MWB123", f"a function named `{OLD_METHOD}`: 0.5.13 callers pass the batch itself and never call it")
            return
        if owner == NEW_CLASS and self.state.location.is_schedule_batch_module:
            return  # SGLang's own method: class-removal deletes it
        if self._subclasses_schedule_batch():
            reason = f"`{owner}` subclasses ScheduleBatch and overrides `{OLD_METHOD}`, which 0.5.13 neither has nor calls: move its logic to where the batch is consumed"
        elif _returns_self(node):
            reason = f"`{owner}.{OLD_METHOD}` returns self (a fake): 0.5.13 never calls it; drop it once callers pass the object itself"
        else:
            reason = f"`{owner}` defines its own `{OLD_METHOD}` (an adapter?): calls on it are not SGLang's and are kept; 0.5.13 callers pass the batch itself"
        self.review(node, "MWB123", reason)

    def _directly_in_class(self, node: cst.FunctionDef) -> bool:
        parent = self.parent(node)
        return isinstance(parent, cst.IndentedBlock) and isinstance(self.parent(parent), cst.ClassDef)

    def _subclasses_schedule_batch(self) -> bool:
        for ancestor in reversed(self._ancestors):
            if isinstance(ancestor, cst.ClassDef):
                for base in ancestor.bases:
                    scope = self.get_metadata(ScopeProvider, base.value, None)
                    names = scope.get_qualified_names_for(base.value) if scope is not None else set()
                    for qualified in names:
                        module, _, name = qualified.name.rpartition(".")
                        if name == NEW_CLASS and (is_sglang_schedule_batch_module(module, self.state.location) or not module):
                            return True
                return False
        return False

    def _own_method_owner(self, receiver: cst.BaseExpression) -> str | None:
        if isinstance(receiver, cst.Name) and receiver.value == "self" and self._classes and self._classes[-1][1]:
            return self._classes[-1][0]
        if isinstance(receiver, cst.Name) and self._functions:
            return self._functions[-1].local_instances.get(receiver.value)
        return None

    # -- shapes 6 and 8: names and call results that are not tracked -----------------------------
    def _report_unproven_locals(self, node: cst.FunctionDef, facts, tokens: dict[cst.CSTNode, cst.CSTNode]) -> None:
        scope = facts.scope
        if scope is None or OLD_PARAMETER in facts.aliases:
            return
        assignments = list(scope.assignments[OLD_PARAMETER])
        if not assignments or any(isinstance(a.node, cst.Param) for a in assignments):
            return
        from_old_method = False
        for assignment in assignments:
            statement = tokens.get(assignment.node)
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if isinstance(small, cst.Assign) and old_method_call(small.value) is not None:
                if isinstance(old_method_call(small.value).func.value, cst.Name):
                    from_old_method = True
        if from_old_method:
            return  # worker-batch-calls merges it or reports why not (MWB101)
        for assignment in assignments:
            statement = tokens.get(assignment.node)
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            bound_from_call = isinstance(small, cst.Assign) and old_method_call(small.value) is not None
            if statement is not None and not bound_from_call:
                # (a call on an attribute receiver is reported as MWB135 where it is bound)
                self.review(statement, "MWB134", f"`{OLD_PARAMETER}` {_binding_kind(statement)}: not renamed, kept")
            for reference in assignment.references:
                used = tokens.get(reference.node)
                if used is not None:
                    self.review(used, "MWB134", f"`{OLD_PARAMETER}` kept: not merged into a receiver (see where it is bound)")

    # -- per-node checks ------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check_assigned(node, node.target, node.value)
        if self._mentions_old_class(node.annotation.annotation):
            parent = self.parent(self.parent(node))  # AnnAssign -> SimpleStatementLine -> block
            if isinstance(self.parent(parent), cst.ClassDef):
                self.review(node, "MWB132", "field typed with the old class: it will hold the scheduler's live ScheduleBatch, not a per-forward copy (copies and pickles of the record now copy the batch)")
            elif isinstance(node.target, cst.Attribute):
                self.review(node, "MWB132", "attribute typed with the old class: it will hold the scheduler's live ScheduleBatch, not a per-forward copy")

    def _check_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`anchor` is the assignment being visited: the target itself is not on the visiting path yet."""
        if isinstance(target, cst.Attribute):
            attr = target.attr.value
            if attr == OLD_METHOD:
                if isinstance(value, cst.Call) and _last_name(value.func) in MOCK_FACTORIES:
                    self.review(anchor, "MWB128", f"mock standing in for `{OLD_METHOD}`: 0.5.13 code never calls it; hand the code under test the batch itself")
                else:
                    kind = "a lambda" if isinstance(value, cst.Lambda) else f"`{_code(value)}`"
                    self.review(anchor, "MWB124", f"`{OLD_METHOD}` assigned {kind} at run time: 0.5.13 callers never call it")
                return
            if attr == OLD_CLASS:
                self.review(anchor, "MWB127", f"stub sets `{OLD_CLASS}` on a module: 0.5.13 code imports only ScheduleBatch from schedule_batch")
                return
            patched = _dotted(value) if isinstance(value, cst.Name) else None
            if isinstance(value, cst.Lambda) and _lambda_takes_old_object(value):
                patched = "a lambda"
            elif patched not in self._patch_functions:
                patched = None
            if patched is not None and patched != "a lambda":
                patched = f"`{patched}`"
            if patched is not None:
                self.review(anchor, "MWB125", _patch_reason(_code(target), patched))
                return
        if isinstance(target, (cst.Tuple, cst.List)) and _has_old_method_call(value):
            names = ", ".join(f"`{_code(e.value)}`" for e in target.elements)
            self.review(anchor, "MWB135", f"`{OLD_METHOD}()` unpacked into {names}: the batch is inlined, but the names are not merged and their field reads are not migrated")
            return
        call = old_method_call(value)
        if call is None:
            return
        owner = self._own_method_owner(call.func.value)
        if owner is not None and isinstance(target, cst.Name) and self._functions:
            self._mark_uses(target.value, "MWB129", f"`{target.value}` holds what `{owner}.{OLD_METHOD}()` returned: kept")
        elif not isinstance(target, cst.Name):
            self.review(anchor, "MWB135", f"`{OLD_METHOD}()` stored in `{_code(target)}`: kept (attributes and containers are not tracked)")
        elif not isinstance(call.func.value, cst.Name):
            self.review(anchor, "MWB135", f"`{OLD_METHOD}()` on `{_code(call.func.value)}`, not a plain name: kept; `{target.value}` is not merged into the receiver")
        elif not self._functions:
            self.review(anchor, "MWB135", f"`{OLD_METHOD}()` at module level: kept")

    def _mark_uses(self, name: str, code: str, reason: str) -> None:
        """Mark every statement of the current function that reads local `name`."""
        function = self._functions[-1]
        scope = self.get_metadata(ScopeProvider, function.node.body, None)
        if scope is None:
            return
        for assignment in scope.assignments[name]:
            for reference in assignment.references:
                statement = function.names.get(reference.node)
                if statement is not None:
                    self.review(statement, code, reason)

    def visit_Call(self, node: cst.Call) -> None:
        callee = _last_name(node.func)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == OLD_METHOD:
            owner = self._own_method_owner(node.func.value)
            if owner is not None:
                self.review(node, "MWB129", f"`{_code(node.func.value)}.{OLD_METHOD}()` calls `{owner}`'s own method, not SGLang's: kept")
        if self.names_old_class(node.func):
            self._report_construction(node)
        if callee in MOCK_FACTORIES or callee in ("patch", "object"):
            if any(self._mentions_old_class(arg.value) for arg in node.args):
                self.review(node, "MWB128", f"mock specced on `{OLD_CLASS}`: it becomes specced on ScheduleBatch, whose fields differ")
        if callee == "setattr" and len(node.args) >= 3:
            name = _string_value(node.args[1].value)
            if name == OLD_METHOD:
                self.review(node, "MWB124", f"`{OLD_METHOD}` set at run time with setattr: 0.5.13 callers never call it")
            elif _dotted(node.args[2].value) in self._patch_functions:
                self.review(node, "MWB125", _patch_reason(f"{_code(node.args[0].value)}.{name}", f"`{_dotted(node.args[2].value)}`"))
        if callee in ("issubclass",) and len(node.args) >= 2 and self._mentions_old_class(node.args[1].value):
            self.review(node, "MWB133", f"`issubclass(..., {OLD_CLASS})` now tests against ScheduleBatch, which the old test never matched")
        if callee == "register" and node.args and self.names_old_class(node.args[0].value):
            self.review(node, "MWB133", f"handler registered for `{OLD_CLASS}` is now registered for ScheduleBatch, possibly twice")
        for arg in node.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == OLD_METHOD:
                self.review(node, "MWB128", f"mock configured with `{OLD_METHOD}`: 0.5.13 code never calls it")
        self._check_copy(node)
        self._check_attribute_by_name(node)

    def _report_construction(self, node: cst.Call) -> None:
        missing = [
            f"{arg.keyword.value} ({NO_COUNTERPART_KEYWORDS[arg.keyword.value]})"
            for arg in node.args
            if arg.keyword is not None and arg.keyword.value in NO_COUNTERPART_KEYWORDS
        ]
        if missing:
            self.review(node, "MWB130", f"keywords with no ScheduleBatch field of that name: {', '.join(missing)}")

    def _check_copy(self, node: cst.Call) -> None:
        if not node.args:
            return
        names = self._qualified_names(node.func)
        if not names & COPY_CALLS:
            return
        first = node.args[0].value
        if first in self._accesses:
            self.review(node, "MWB131", f"`{_code(node.func)}` of the former old object now copies or serialises the live ScheduleBatch (pools, allocators, requests), not a per-forward snapshot")
        elif "dataclasses.fields" in names and self.names_old_class(first):
            self.review(node, "MWB131", f"`dataclasses.fields({OLD_CLASS})` would list ScheduleBatch's fields, which differ")

    def _check_attribute_by_name(self, node: cst.Call) -> None:
        callee = _last_name(node.func)
        if callee not in ("getattr", "hasattr", "setattr") or len(node.args) < 2 or node.args[0].value not in self._accesses:
            return
        name = _string_value(node.args[1].value)
        if name:
            self._check_field(node, name)

    def _qualified_names(self, func: cst.BaseExpression) -> set[str]:
        scope = self.get_metadata(ScopeProvider, func, None)
        names = {q.name for q in scope.get_qualified_names_for(func)} if scope is not None else set()
        dotted = _dotted(func)
        if not names and dotted:
            names = {dotted}
        return names

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if node.value in self._accesses:
            if attr == "__dict__":
                self.review(node, "MWB131", "`__dict__` of the former old object is the live ScheduleBatch's, with different fields")
            else:
                self._check_field(node, attr)
            return
        if attr == OLD_PARAMETER:
            self.review(node, "MWB134", f"attribute `.{OLD_PARAMETER}` kept: attributes are not tracked (it may hold the old object)")
        elif isinstance(node.value, cst.Attribute) and node.value.attr.value == OLD_METHOD:
            self.review(node, "MWB128", f"mock of `{OLD_METHOD}` (`.{attr}`): 0.5.13 code never calls it")
        elif self.names_old_class(node.value) and not isinstance(self.parent(node), cst.ImportFrom):
            self.review(node, "MWB133", f"`{OLD_CLASS}.{attr}` read at run time: the class is gone in 0.5.13")

    def _check_field(self, node: cst.CSTNode, field: str) -> None:
        if field.startswith("__") or field in RENAMED_FIELDS or field in FIELDS_COMPUTED_FROM_REQS:
            return  # dunders are not fields; field-renames handles the renamed and computed ones
        if field in ONE_SHOT_OVERRIDES:
            return  # ScheduleBatch has all three in 0.5.13 (semantic-review judges their use)
        if field in MISSING_FIELDS:
            self.review(node, "MWB136", f"`{field}`: {MISSING_FIELDS[field]}")
        elif field not in OLD_OBJECT_FIELDS:
            self.review(node, "MWB137", f"`{field}` is no field of 0.5.12.post1's {OLD_CLASS} (fork-only?): ScheduleBatch may not have it, and {ACCESS_CONSEQUENCES[self._access_kind(node)]}")

    def _access_kind(self, node: cst.CSTNode) -> str:
        """Whether an attribute (or a getattr/hasattr/setattr call) reads, sets or updates it."""
        if isinstance(node, cst.Call):
            return "set" if _last_name(node.func) == "setattr" else "read"
        parent = self.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            return "update"
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or (isinstance(parent, cst.AnnAssign) and parent.target is node):
            return "set"
        return "read"

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)) for c in node.comparisons):
            return
        type_of = any(
            (isinstance(o, cst.Call) and _dotted(o.func) == "type") or (isinstance(o, cst.Attribute) and o.attr.value == "__class__")
            for o in operands
        )
        if type_of and any(self.names_old_class(o) for o in operands):
            self.review(node, "MWB133", f"exact type test against `{OLD_CLASS}` now tests against ScheduleBatch, which the old test never matched")

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if self.names_old_class(node.key):
            self.review(node, "MWB133", f"`{OLD_CLASS}` used as a key is now ScheduleBatch, which may already be a key")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = _string_value(node)
        if value is None:
            return
        if value == OLD_PARAMETER:
            self.review(node, "MWB126", f'string key "{OLD_PARAMETER}": SGLang 0.5.13 passes and names it `batch`; strings are never rewritten')
            return
        parent = self.parent(self.parent(node)) if isinstance(self.parent(node), cst.Arg) else None
        in_attr_call = isinstance(parent, cst.Call) and _last_name(parent.func) in ("hasattr", "getattr", "setattr")
        if (value == OLD_METHOD or value.endswith("." + OLD_METHOD)) and not in_attr_call:
            self.review(node, "MWB128", f'"{value}" patched or mocked: 0.5.13 code never calls it')
        elif value.endswith("." + OLD_CLASS) and not any(isinstance(a, cst.Annotation) for a in self._ancestors):  # a string annotation is no patch target
            self.review(node, "MWB128", f'"{value}" patched or mocked: the class is gone in 0.5.13')
        elif is_sglang_schedule_batch_module(value, self.state.location) and not value.startswith(".") and self._statement_mentions_module_stub(node):
            self.review(node, "MWB127", f"stub of SGLang's schedule_batch module: 0.5.13 code imports ScheduleBatch from it, never {OLD_CLASS}")

    def _statement_mentions_module_stub(self, node: cst.CSTNode) -> bool:
        statement = self.enclosing_statement(node)
        if isinstance(statement, cst.SimpleStatementLine):
            code = _code(statement)
        elif isinstance(statement, cst.With):
            code = "".join(_code(item) for item in statement.items)
        else:
            return False
        return "sys.modules" in code or "ModuleType" in code

    def _mentions_old_class(self, node: cst.CSTNode) -> bool:
        codemod = self

        class _Finder(cst.CSTVisitor):
            found = False

            def visit_Name(self, name: cst.Name) -> None:
                self.found = self.found or (name.value == OLD_CLASS and codemod.names_old_class(name))

            def visit_Attribute(self, attribute: cst.Attribute) -> bool:
                if attribute.attr.value == OLD_CLASS and codemod.names_old_class(attribute):
                    self.found = True
                return True

        finder = _Finder()
        node.visit(finder)
        return finder.found


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)






def _defines_old_method(node: cst.ClassDef) -> bool:
    if not isinstance(node.body, cst.IndentedBlock):
        return False
    return any(isinstance(s, cst.FunctionDef) and s.name.value == OLD_METHOD for s in node.body.body)


def _returns_self(node: cst.FunctionDef) -> bool:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    statements = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr))]
    return (
        len(statements) == 1
        and isinstance(statements[0], cst.SimpleStatementLine)
        and isinstance(statements[0].body[0], cst.Return)
        and isinstance(statements[0].body[0].value, cst.Name)
        and statements[0].body[0].value.value == "self"
    )


def _patch_reason(patched: str, replacement: str) -> str:
    return (
        f"`{patched}` replaced at run time by {replacement}, which takes the old object: in 0.5.13 it "
        "receives the live ScheduleBatch, passed as `batch`"
    )


def _reads_old_keyword(function: cst.FunctionDef) -> bool:
    class _Keys(cst.CSTVisitor):
        found = False

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self.found = self.found or _string_value(node) == OLD_PARAMETER

    keys = _Keys()
    function.body.visit(keys)
    return keys.found


def _lambda_takes_old_object(node: cst.Lambda) -> bool:
    return any(p.name.value == OLD_PARAMETER for p in node.params.params)


def _has_old_method_call(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Tuple, cst.List)):
        return any(old_method_call(e.value) is not None for e in node.elements)
    return False


def _binding_kind(statement: cst.CSTNode) -> str:
    if isinstance(statement, cst.For):
        return "is a loop variable"
    if isinstance(statement, cst.With):
        return "is bound by `with ... as`"
    if isinstance(statement, cst.SimpleStatementLine):
        small = statement.body[0]
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)):
                return "is bound by tuple unpacking"
            return f"is bound from `{_code(small.value)}`"
    return "is bound here"


# -- --collapse-compat: each gate becomes what it runs on the new API ------------------------------
def collapse_version_gates(module: cst.Module, state) -> cst.Module:
    """`if hasattr(batch, "get_model_worker_batch"): <old> else: <new>` -> `<new>`; a guarded
    `try: from ... import ModelWorkerBatch / except ImportError: ModelWorkerBatch = None` -> removed
    once nothing reads the name; `ModelWorkerBatch is not None and isinstance(x, ModelWorkerBatch)`
    -> False, as on 0.5.13. A gate whose new-API side cannot be told is left (wild-shapes: MWB154).
    """
    wrapper = state.metadata_for(module)
    collapsed = wrapper.visit(_CollapseTests(state.version_gates(module), _new_world(wrapper, state.version_gates(module))))
    if collapsed.deep_equals(module):
        return module
    # Second round, on the collapsed module: the guarded imports and the local feature-check
    # flags nothing reads any more.
    wrapper = state.metadata_for(collapsed)
    collapsed = wrapper.visit(_CollapseImports(state.version_gates(collapsed)))
    return state.metadata_for(collapsed).visit(_DropDeadFlags())


def _new_world(wrapper, gates: VersionGates) -> NewWorld:
    scopes = wrapper.resolve(ScopeProvider)
    # id(Name bound by a plain assignment in a guarded try) -> the literal it gets on 0.5.13
    # ("True", "False", "None"), or None when that assignment does not run there (or is no literal).
    on_new_api: dict[int, str | None] = {}
    for statement in _guarded_trys(gates):
        handler = _handler_on_new_api(statement)
        for block, runs in ((statement.body, False), *((h.body, h is handler) for h in statement.handlers)):
            smalls = _simple_statements(block)
            if block is statement.body:  # what runs before the import that fails runs on 0.5.13 too
                first = next((i for i, small in enumerate(smalls) if small in gates.guarded_imports), 0)
                smalls = smalls[first:]
            for small in smalls:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                    literal = small.value.value if isinstance(small.value, cst.Name) else None
                    on_new_api[id(small.targets[0].target)] = literal if runs and literal in ("True", "False", "None") else None
    module_scope = scopes.get(wrapper.module)
    none_names = set()
    for name in gates.guarded_names:
        # None on 0.5.13 only when every binding besides the import is the handler's `= None`.
        bindings = [a for a in module_scope.assignments[name] if not isinstance(a.node, cst.ImportFrom)] if module_scope else []
        if bindings and all(on_new_api.get(id(a.node)) == "None" for a in bindings):
            none_names.add(name)
    world = NewWorld(none_names=frozenset(none_names), own_old_method=bool(method_classes(wrapper.module)))
    flag_values: dict[int, bool | None] = {}

    def name_value(node: cst.BaseExpression) -> bool | None:
        """A flag bound once, from a test whose value on 0.5.13 is known (or a guarded try's handler)."""
        if not isinstance(node, cst.Name):
            return None  # attributes (`self.legacy`) can be rebound anywhere
        scope = scopes.get(node)
        if scope is None:
            return None
        assignments = list(scope[node.value])
        if not assignments or not all(isinstance(a.node, cst.Name) for a in assignments):
            return None
        if all(id(a.node) in on_new_api for a in assignments):
            # A flag set in a guarded try: its value is what the handler sets (the one that runs).
            literals = [on_new_api[id(a.node)] for a in assignments if on_new_api[id(a.node)] is not None]
            return {"True": True, "False": False, "None": False}[literals[0]] if len(literals) == 1 else None
        if len(assignments) != 1:
            return None
        key = id(assignments[0].node)
        if key not in flag_values:
            flag_values[key] = None  # a cycle reads as unknown
            value = _assigned_value(wrapper.module, assignments[0].node)
            flag_values[key] = new_api_value(value, world) if value is not None else None
        return flag_values[key]

    return NewWorld(none_names=world.none_names, names=name_value, own_old_method=world.own_old_method)


def _assigned_value(module: cst.Module, target: cst.Name) -> cst.BaseExpression | None:
    """The value of `target = value` (a plain, single-target assignment), found by identity."""

    class _Find(cst.CSTVisitor):
        value: cst.BaseExpression | None = None

        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and node.targets[0].target is target:
                self.value = node.value

    finder = _Find()
    module.visit(finder)
    return finder.value


def _guarded_trys(gates: VersionGates) -> list[cst.Try]:
    return [g.statement for g in gates.gates if isinstance(g.statement, cst.Try)]


def _handler_on_new_api(node: cst.Try) -> cst.ExceptHandler | None:
    """The handler that runs when 0.5.13 raises ImportError for the guarded name: the first that
    catches it, if every one before it is known not to (ModuleNotFoundError does not)."""
    for handler in node.handlers:
        types = handler_types(handler)
        if types is None or types & CATCHES_MISSING_NAME:
            return handler
        if not types <= {"ModuleNotFoundError", "AttributeError", "TypeError", "ValueError", "KeyError", "OSError"}:
            return None
    return None


def _as_statements(block: cst.BaseSuite, leading: Sequence[cst.EmptyLine]) -> list[cst.BaseStatement]:
    if isinstance(block, cst.SimpleStatementSuite):
        statements: list[cst.BaseStatement] = [cst.SimpleStatementLine(body=block.body)]
    else:
        statements = list(block.body)
    if statements:
        statements[0] = statements[0].with_changes(leading_lines=[*leading, *statements[0].leading_lines])
    return statements


class _TidyBlocks(cst.CSTTransformer):
    """A block whose first statement went starts without the blank lines that followed it, and a
    block left empty holds `pass`."""

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if original_node.body and not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        return updated_node.with_changes(body=tidy_block_start(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=tidy_block_start(original_node.body, updated_node.body))


class _CollapseTests(_TidyBlocks):
    """Gated `if` statements and conditional expressions become their side that runs on 0.5.13."""

    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, gates: VersionGates, world: NewWorld) -> None:
        super().__init__()
        self.gates = {id(g.statement): g for g in gates.gates}
        self.gate_nodes = [g.statement for g in gates.gates]  # keeps the ids above taken
        self.world = world
        self.blocks: list[cst.CSTNode] = []
        self.in_gate = 0  # gate statements around the node

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            self.blocks.append(node)
        if id(node) in self.gates:
            self.in_gate += 1
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        if id(original_node) in self.gates:
            self.in_gate -= 1
        if self.blocks and self.blocks[-1] is original_node:
            self.blocks.pop()
        return result

    def _fold(self, original_node: cst.BaseExpression, updated_node: cst.BaseExpression) -> cst.BaseExpression:
        """`ModelWorkerBatch is not None and isinstance(x, ModelWorkerBatch)` -> `False`, as on 0.5.13."""
        if not self.in_gate or not mentions_gate(original_node, self.world):
            return updated_node
        value = new_api_bool(original_node, self.world)
        if value is None:
            return updated_node
        return cst.Name(str(value), lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_BooleanOperation(self, original_node, updated_node):
        return self._fold(original_node, updated_node)

    def leave_Comparison(self, original_node, updated_node):
        return self._fold(original_node, updated_node)

    def leave_UnaryOperation(self, original_node, updated_node):
        return self._fold(original_node, updated_node)

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        value = new_api_value(original_node.test, self.world) if self.in_gate else None
        if value is None:
            return updated_node
        kept = updated_node.body if value else updated_node.orelse
        if updated_node.lpar and not kept.lpar:
            kept = kept.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return kept

    def leave_If(self, original_node: cst.If, updated_node: cst.If):
        gate = self.gates.get(id(original_node))
        if gate is None:
            return updated_node
        branch: cst.If | cst.Else | None = updated_node
        original: cst.If | cst.Else | None = original_node
        first = True
        while isinstance(branch, cst.If):
            value = new_api_value(original.test, self.world)
            if value is None and first and gate.code == "MWB122":
                value = self._environment_side(original_node)
            if value is None:
                if first:
                    return updated_node
                # The branches before were false on 0.5.13: the chain starts here.
                return branch.with_changes(leading_lines=updated_node.leading_lines)
            if value:
                return cst.FlattenSentinel(_as_statements(branch.body, updated_node.leading_lines)) if _has_statements(branch.body) else cst.RemoveFromParent()
            branch, original, first = branch.orelse, original.orelse, False
        if isinstance(branch, cst.Else) and _has_statements(branch.body):
            return cst.FlattenSentinel(_as_statements(branch.body, updated_node.leading_lines))
        return cst.RemoveFromParent()

    def _environment_side(self, node: cst.If) -> bool | None:
        """Which side of an environment or version switch is the new API: the one that does not
        use the old API. Without an `else`, only a body that uses the old API and leaves the block
        can go (what follows is the new side)."""
        if isinstance(node.orelse, cst.If):
            return None
        body_old = uses_old_api(node.body)
        if node.orelse is not None:
            other_old = uses_old_api(node.orelse)
        elif leaves_block(node.body):
            other_old = uses_old_api(*following(self.blocks[-1] if self.blocks else None, node))
            if not body_old:
                return None  # the legacy code follows the gate
        else:
            return None
        return None if body_old == other_old else not body_old



def _is_keyword(name: cst.Name, statement: cst.CSTNode) -> bool:
    """Whether `name` is the keyword of an argument (`f(model_worker_batch=...)`) within `statement`."""

    class _Keywords(cst.CSTVisitor):
        found = False

        def visit_Arg(self, arg: cst.Arg) -> None:
            self.found = self.found or arg.keyword is name

    finder = _Keywords()
    statement.visit(finder)
    return finder.found


def _has_statements(block: cst.BaseSuite) -> bool:
    return bool(block.body)


class _CollapseImports(_TidyBlocks):
    """A guarded `try` becomes its handler (less the `None` fallbacks) once nothing reads the names."""

    def __init__(self, gates: VersionGates) -> None:
        super().__init__()
        self._all_names: set[str] = set()
        self.gates = gates
        self.trys = [g.statement for g in gates.gates if isinstance(g.statement, cst.Try)]

    def leave_Try(self, original_node: cst.Try, updated_node: cst.Try):
        if not any(t is original_node for t in self.trys):
            return updated_node
        first = original_node.body.body[0] if isinstance(original_node.body, cst.IndentedBlock) and original_node.body.body else None
        if not (isinstance(first, cst.SimpleStatementLine) and first.body[0] in self.gates.guarded_imports):
            return updated_node  # something runs before the import: it may raise, too
        handler = _handler_on_new_api(original_node)
        if handler is None or handler.name is not None:
            return updated_node
        names = self._guarded_names_of(original_node)
        if names is None:
            return updated_node
        kept: list[cst.BaseStatement] = []
        for line in _as_statements(handler.body, ()):
            if isinstance(line, cst.SimpleStatementLine):
                body = [s for s in line.body if not _binds_only(s, names)]
                if not body:
                    continue
                line = line.with_changes(body=[*body[:-1], body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
            kept.append(line)
        if original_node.finalbody is not None:
            kept += _as_statements(original_node.finalbody.body, ())
        if not kept:
            return cst.RemoveFromParent()
        kept[0] = kept[0].with_changes(leading_lines=[*updated_node.leading_lines, *kept[0].leading_lines])
        return cst.FlattenSentinel(kept)

    def _guarded_names_of(self, node: cst.Try) -> set[str] | None:
        """The names this try's guarded import binds, when nothing outside the try reads them and
        no `__all__` exports them; None otherwise."""
        names: set[str] = set()
        for statement in _simple_statements(node.body):
            if isinstance(statement, cst.ImportFrom) and statement in self.gates.guarded_imports:
                for alias in statement.names:
                    names.add(_code(alias.asname.name) if alias.asname else _code(alias.name))
        inside = set()

        class _Inside(cst.CSTVisitor):
            def visit_Name(self, name: cst.Name) -> None:
                inside.add(id(name))

        node.visit(_Inside())
        for name in names:
            for use in self.gates.guarded_names.get(name, ()):
                if id(use) not in inside:
                    return None
        # A name `__all__` exports may be imported from here by other modules: it stays.
        return None if names & self._all_names else names

    def visit_Module(self, node: cst.Module) -> None:  # type: ignore[override]
        self._all_names = set()
        for statement in node.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets) and small.value is not None:
                        self._all_names |= {v for e in getattr(small.value, "elements", ()) if (v := _string_value(e.value))}


def _binds_only(statement: cst.BaseSmallStatement, names: set[str]) -> bool:
    return isinstance(statement, cst.Assign) and all(
        isinstance(t.target, cst.Name) and t.target.value in names for t in statement.targets
    )


class _DropDeadFlags(_TidyBlocks):
    """`flag = getattr(batch, "get_model_worker_batch", None)` in a function, read by nothing once its
    tests were collapsed, goes. (A module-level flag stays: other modules may import it.)"""

    METADATA_DEPENDENCIES = (ScopeProvider,)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine, updated_node):
        if len(original_node.body) != 1 or not isinstance(original_node.body[0], cst.Assign):
            return updated_node
        assign = original_node.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) or not _pure_feature_check(assign.value):
            return updated_node
        target = assign.targets[0].target
        scope = self.get_metadata(ScopeProvider, target, None)
        if scope is None or isinstance(scope, (GlobalScope, ClassScope)):
            return updated_node
        if any(a.references for a in scope.assignments[target.value]) or target.value in getattr(scope, "_nonlocal_names", ()):
            return updated_node
        return cst.RemoveFromParent()


def _is_flag_definition(statement: cst.CSTNode) -> bool:
    """`HAS_OLD = hasattr(ScheduleBatch, "get_model_worker_batch")`: a flag, not old-API code."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) and _pure_feature_check(small.value)


def _pure_feature_check(node: cst.BaseExpression) -> bool:
    """`hasattr`/`getattr(x, "get_model_worker_batch"[, None])` on a name or attribute: dropping it changes nothing."""
    if not isinstance(node, cst.Call) or feature_check(node) is None:
        return False
    return all(isinstance(a.value, (cst.Name, cst.Attribute, cst.SimpleString)) and a.keyword is None for a in node.args)
