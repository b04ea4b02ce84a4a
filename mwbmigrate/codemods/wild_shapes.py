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

Runs right after semantic-review, before any rename, so the old names are still there to see. A
module whose `ModelWorkerBatch` comes from another project (a JAX port) is left alone entirely.
The rewriting codemods can share its facts: `imports_foreign_old_class`, `module_facts`,
`version_gates` and `local_instances` say what they must leave alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import (
    FIELDS_COMPUTED_FROM_REQS,
    NEW_CLASS,
    OLD_CLASS,
    OLD_METHOD,
    OLD_PARAMETER,
    RENAMED_FIELDS,
    ModuleLocation,
    is_sglang_schedule_batch_module,
)
from mwbmigrate.analysis.receivers import all_params, old_method_call
from mwbmigrate.codemods._shared import function_facts, param_holds_old_object
from mwbmigrate.codemods.base import MigrationCodemod

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
FEATURE_CHECKS = frozenset({"hasattr", "getattr"})
# What a `try` around an import catches when it is a version guard.
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})
# Identifiers that read the environment or the installed version.
_SWITCH_WORDS = re.compile(r"^(environ|getenv|envs|__version__)$|(^|_)env(_var)?(_|$)")
_OLD_TOKEN = re.compile(rf"\b({OLD_CLASS}|{OLD_METHOD}|{OLD_PARAMETER})\b")
OLD_TOKENS = frozenset({OLD_CLASS, OLD_METHOD, OLD_PARAMETER})

KEPT_IN_GATE = "old API kept in version-gated code"


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _string_value(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - an odd literal is simply not a key
            return None
        return value if isinstance(value, str) else None
    return None


def _last_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def feature_check(node: cst.CSTNode) -> str | None:
    """The old-API name a `hasattr(x, "get_model_worker_batch")`-style call tests for, if it is one."""
    if not isinstance(node, cst.Call) or _last_name(node.func) not in FEATURE_CHECKS or len(node.args) < 2:
        return None
    name = _string_value(node.args[1].value)
    return name if name in (OLD_METHOD, OLD_CLASS) else None


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


@dataclass
class ModuleFacts:
    guarded_imports: set[int]  # ids of `from ... import ModelWorkerBatch` under try/except ImportError
    switch_names: dict[str, str]  # flag (name or dotted attribute) -> review code of what it tests
    method_classes: set[str]  # classes of this module that define get_model_worker_batch


def module_facts(module: cst.Module) -> ModuleFacts:
    """Guarded imports, module flags that tell the APIs apart, and classes with their own old method."""
    facts = ModuleFacts(set(), {}, set())

    class _Facts(cst.CSTVisitor):
        def visit_Try(self, node: cst.Try) -> None:
            def catches(handler: cst.ExceptHandler) -> bool:
                if handler.type is None:
                    return True
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [cst.Element(handler.type)]
                return any(_dotted(t.value) in GUARD_EXCEPTIONS for t in types)

            guarded = [s for s in _simple_statements(node.body) if isinstance(s, cst.ImportFrom) and _imports_old_class(s)]
            if not guarded or not any(catches(h) for h in node.handlers):
                return
            facts.guarded_imports.update(id(s) for s in guarded)
            blocks = [node.body, *(h.body for h in node.handlers), *([node.orelse.body] if node.orelse else [])]
            for block in blocks:
                for statement in _simple_statements(block):
                    if isinstance(statement, cst.Assign):
                        for target in statement.targets:
                            name = _dotted(target.target)
                            if name and name != OLD_CLASS:
                                facts.switch_names.setdefault(name, "MWB121")

        def visit_Assign(self, node: cst.Assign) -> None:
            found = _contains(node.value)
            code = "MWB120" if found.feature_check else "MWB122" if found.environment else None
            if code is None:
                return
            for target in node.targets:
                name = _dotted(target.target)
                if name:
                    facts.switch_names.setdefault(name, code)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if _defines_old_method(node):
                facts.method_classes.add(node.name.value)

    module.visit(_Facts())
    return facts


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


def version_gates(region: cst.CSTNode, switch_names: dict[str, str]) -> list[tuple[cst.CSTNode, str, str]]:
    """The statements of a function (or module-level `if`) that pick between the old and new API."""
    scan = _Scan(region, switch_names)
    region.visit(scan)
    return scan.gates


class _Contains(cst.CSTVisitor):
    """Whether a subtree holds an old-API token, a feature check, or a read of the environment."""

    def __init__(self, switch_names: dict[str, str] | None = None) -> None:
        self.switch_names = switch_names or {}
        self.old_api = False
        self.feature_check: str | None = None  # the old-API name a hasattr/getattr tests for
        self.environment = False
        self.switch_codes: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in OLD_TOKENS:
            self.old_api = True
        if _SWITCH_WORDS.search(node.value):
            self.environment = True
        if node.value in self.switch_names:
            self.switch_codes.add(self.switch_names[node.value])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        dotted = _dotted(node)
        if dotted in self.switch_names:
            self.switch_codes.add(self.switch_names[dotted])

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _OLD_TOKEN.search(node.value):
            self.old_api = True

    def visit_Call(self, node: cst.Call) -> None:
        self.feature_check = self.feature_check or feature_check(node)
        if _last_name(node.func) == "version" and node.args and _string_value(node.args[0].value) == "sglang":
            self.environment = True


def _contains(node: cst.CSTNode, switch_names: dict[str, str] | None = None) -> _Contains:
    found = _Contains(switch_names)
    node.visit(found)
    return found


class _Scan(cst.CSTVisitor):
    """Old-API tokens of one region, each with its innermost statement, and the region's gates."""

    def __init__(self, root: cst.CSTNode, switch_names: dict[str, str]) -> None:
        self.root = root
        self.switch_names = switch_names
        self.statements: list[cst.CSTNode] = []
        self.tokens: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (Name or SimpleString, statement)
        self.names: dict[cst.Name, cst.CSTNode] = {}  # every Name -> its statement
        self.gates: list[tuple[cst.CSTNode, str, str]] = []  # (statement, code, reason)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not self.root:
            return False
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and not (
            node is self.root and isinstance(node, cst.FunctionDef)
        ):
            self.statements.append(node)
            self._check_gate(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.statements and self.statements[-1] is original_node:
            self.statements.pop()
        super().on_leave(original_node)

    def _check_gate(self, statement: cst.CSTNode) -> None:
        header = statement.test if isinstance(statement, (cst.If, cst.While)) else statement
        if isinstance(statement, cst.BaseCompoundStatement) and header is statement:
            return  # a def/for/with/try header is never the gate itself
        found = _contains(header, self.switch_names)
        if found.feature_check:
            self.gates.append((statement, "MWB120", f"feature check on `{found.feature_check}`: kept working on both APIs; remove the legacy branch once 0.5.13 is the minimum"))
            return
        if not isinstance(statement, cst.If):
            return
        # An `if` on a flag or the environment gates the API only when its branches use the old one.
        if "MWB120" in found.switch_codes or "MWB121" in found.switch_codes:
            if _contains(statement).old_api:
                code = "MWB120" if "MWB120" in found.switch_codes else "MWB121"
                self.gates.append((statement, code, "branch on a flag that tells the two APIs apart: kept working on both APIs"))
        elif found.environment or "MWB122" in found.switch_codes:
            if _contains(statement).old_api:
                self.gates.append((statement, "MWB122", "old API chosen by an environment variable or version switch: kept working on both APIs"))

    def visit_Name(self, node: cst.Name) -> None:
        if self.statements:
            self.names[node] = self.statements[-1]
            if node.value in OLD_TOKENS:
                self.tokens.append((node, self.statements[-1]))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _OLD_TOKEN.search(node.value) and self.statements:
            self.tokens.append((node, self.statements[-1]))


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

    def __init__(self, context) -> None:
        super().__init__(context)
        self._foreign = False
        self._guarded_imports: set[int] = set()  # ImportFrom nodes under try/except ImportError
        self._guarded_names: set[cst.CSTNode] = set()  # Name nodes binding or reading a guarded import
        self._switch_names: dict[str, str] = {}  # module-level flag -> code of what it tests
        self._patch_functions: set[str] = set()  # functions that take the old object (monkeypatch wrappers)
        self._method_classes: set[str] = set()  # classes of this module defining get_model_worker_batch
        self._classes: list[tuple[str, bool]] = []  # (name, defines the old method)
        self._functions: list[_Function] = []
        self._accesses: set[cst.Name] = set()  # Names that read the old object

    # -- module facts ---------------------------------------------------------------------------
    # A module importing another project's ModelWorkerBatch never reaches any codemod: the engine
    # checks `imports_foreign_old_class` once, before the first.
    def visit_Module(self, node: cst.Module) -> None:
        facts = module_facts(node)
        self._guarded_imports = facts.guarded_imports
        self._switch_names = facts.switch_names
        self._method_classes = facts.method_classes
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
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return
        guarded_local = {
            assignment.name for assignment in scope.assignments
            if isinstance(assignment.node, cst.ImportFrom) and id(assignment.node) in self._guarded_imports
        }
        for name in guarded_local:
            for assignment in scope.assignments[name]:
                if isinstance(assignment.node, cst.Name):
                    self._guarded_names.add(assignment.node)
                for reference in assignment.references:
                    self._guarded_names.add(reference.node)

    # -- scopes ---------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append((node.name.value, _defines_old_method(node)))

    def leave_ClassDef(self, original_node, updated_node):
        self._classes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == OLD_METHOD:
            self._report_definition(node)
        scan = _Scan(node, self._switch_names)
        node.visit(scan)
        tokens = dict(scan.tokens)
        self._functions.append(_Function(node, tokens, scan.names, local_instances(node, self._method_classes)))
        self._mark_region(scan)
        facts = function_facts(self, node)
        self._accesses |= facts.old_object_accesses()
        self._report_unproven_locals(node, facts, tokens)

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions.pop()
        return updated_node

    def visit_If(self, node: cst.If) -> None:
        if not self._functions and not any(isinstance(a, cst.If) for a in self._ancestors[:-1]):
            # A module-level gate: the region is the `if` statement itself.
            scan = _Scan(node, self._switch_names)
            node.visit(scan)
            self._mark_region(scan)

    def _mark_region(self, scan: _Scan) -> None:
        if not scan.gates:
            return
        gate_statements = set()
        for statement, code, reason in scan.gates:
            gate_statements.add(id(statement))
            self.review(statement, code, reason)
        code = scan.gates[0][1]
        for _, statement in scan.tokens:
            if id(statement) not in gate_statements:
                self.review(statement, code, KEPT_IN_GATE)

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
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if id(node) in self._guarded_imports:
            self.review(node, "MWB121", f"`{OLD_CLASS}` imported under try/except ImportError: kept so both APIs keep working")

    def visit_Name(self, node: cst.Name) -> None:
        if node in self._guarded_names:
            parent = self.parent(node)
            if not isinstance(parent, cst.ImportAlias):
                self.review(node, "MWB121", f"uses the ImportError-guarded `{OLD_CLASS}`: kept")

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
            self.review(node, "MWB133", f"`issubclass(..., {OLD_CLASS})` would become a test against ScheduleBatch, which the old test never matched")
        if callee == "register" and node.args and self.names_old_class(node.args[0].value):
            self.review(node, "MWB133", f"handler registered for `{OLD_CLASS}`: after the rewrite it is registered for ScheduleBatch, possibly twice")
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
        if field in MISSING_FIELDS:
            self.review(node, "MWB136", f"`{field}`: {MISSING_FIELDS[field]}")
        elif field not in OLD_OBJECT_FIELDS:
            self.review(node, "MWB137", f"`{field}` is no field of 0.5.12.post1's {OLD_CLASS} (fork-only?): ScheduleBatch may not have it, and setting it now mutates the live batch")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)) for c in node.comparisons):
            return
        type_of = any(
            (isinstance(o, cst.Call) and _dotted(o.func) == "type") or (isinstance(o, cst.Attribute) and o.attr.value == "__class__")
            for o in operands
        )
        if type_of and any(self.names_old_class(o) for o in operands):
            self.review(node, "MWB133", f"exact type test against `{OLD_CLASS}` would become a test against ScheduleBatch, which the old test never matched")

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if self.names_old_class(node.key):
            self.review(node, "MWB133", f"`{OLD_CLASS}` used as a key: after the rewrite it is ScheduleBatch, which may already be a key")

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
        elif value.endswith("." + OLD_CLASS):
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


def _simple_statements(block: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    result: list[cst.BaseSmallStatement] = []
    for line in lines:
        if isinstance(line, cst.SimpleStatementLine):
            result.extend(line.body)
        elif isinstance(line, cst.SimpleStatementSuite):
            result.extend(line.body)
    return result


def _imports_old_class(node: cst.ImportFrom) -> bool:
    return not isinstance(node.names, cst.ImportStar) and any(
        isinstance(a.name, cst.Name) and a.name.value == OLD_CLASS for a in node.names
    )


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
