"""The old API's names, the field mapping and how SGLang's `ModelWorkerBatch` is recognised.

The class is identified by qualified name, never by spelling: a JAX port or a test that defines its
own `ModelWorkerBatch` must not be touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Collection

import libcst as cst
import libcst.matchers as m
from libcst.metadata import QualifiedName, QualifiedNameSource, Scope

from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.scopes import OwnScopeVisitor

OLD_CLASS = "ModelWorkerBatch"
NEW_CLASS = "ScheduleBatch"
OLD_METHOD = "get_model_worker_batch"
# The runtime helper a snapshot kept in code is taken with (`x = worker_batch_snapshot(batch)`).
SNAPSHOT_HELPER = "worker_batch_snapshot"
# What a kept snapshot or the live batch answers as the old object's capture mode (`init_new` keyword).
CAPTURE_MODE_HELPER = "worker_batch_capture_mode"
# Used when `batch` is already bound to something else in the scope (upstream gives no precedent).
FALLBACK_PARAMETER = "schedule_batch"

# ModelWorkerBatch field -> ScheduleBatch field, where the names differ (spec section 2).
RENAMED_FIELDS = {
    "extend_seq_lens": "extend_lens",
    "extend_prefix_lens": "prefix_lens",
}
# ModelWorkerBatch fields that were lists computed from the requests: field -> per-request attribute.
FIELDS_COMPUTED_FROM_REQS = {
    "lora_ids": "lora_id",
    "dllm_block_offsets": "dllm_block_offset",
}
# The 51 fields of 0.5.12.post1's ModelWorkerBatch (migration spec, section 2): what a use of the
# whole old object could observe.
OLD_OBJECT_FIELDS = frozenset(
    {
        "forward_mode",
        "input_ids",
        "req_pool_indices",
        "seq_lens",
        "out_cache_loc",
        "seq_lens_cpu",
        "seq_lens_sum",
        "return_logprob",
        "top_logprobs_nums",
        "token_ids_logprobs",
        "global_num_tokens",
        "global_num_tokens_for_logprob",
        "is_extend_in_batch",
        "all_extend_in_batch",
        "can_run_dp_cuda_graph",
        "tbo_split_seq_index",
        "global_forward_mode",
        "extend_num_tokens",
        "extend_seq_lens",
        "extend_prefix_lens",
        "extend_logprob_start_lens",
        "extend_input_logprob_token_ids",
        "multimodal_inputs",
        "encoder_cached",
        "encoder_lens",
        "encoder_lens_cpu",
        "encoder_out_cache_loc",
        "lora_ids",
        "sampling_info",
        "input_embeds",
        "replace_embeds",
        "replace_positions",
        "ne_token_table",
        "token_type_ids",
        "dimensions",
        "return_pooled_hidden_states",
        "multi_item_delimiter_indices",
        "spec_algorithm",
        "spec_info",
        "hicache_consumer_index",
        "capture_hidden_mode",
        "is_prefill_only",
        "dllm_block_offsets",
        "dllm_config",
        "reqs",
        "has_grammar",
        "mamba_track_indices",
        "mamba_track_mask",
        "mamba_track_seqlens",
        "return_hidden_states_before_norm",
        "orig_seq_lens",
    }
)
OVERRIDE_ARGUMENT = "seq_lens_cpu_cache"  # the only parameter get_model_worker_batch took

# A file that never mentions these bytes cannot need a change and is never parsed.
OLD_API_BYTES = re.compile(rb"ModelWorkerBatch|model_worker_batch")
# What any codemod can act on (the engine's prefilter) is the union of their TRIGGERS: mwbmigrate.rules.byte_candidate.

SCHEDULE_BATCH_MODULE_SUFFIX = "managers.schedule_batch"


def is_sglang_schedule_batch_module(module: str, location: ModuleLocation) -> bool:
    """True when dotted `module` (possibly relative, leading dots) is SGLang's `schedule_batch`."""
    if module in location.extra_modules:
        return True
    if module.startswith("."):
        # Relative imports are SGLang's only when the importing file lives inside an `sglang` package.
        stripped = module.lstrip(".")
        return location.inside_sglang and (stripped == "schedule_batch" or stripped.endswith(".schedule_batch"))
    parts = module.split(".")
    return module.endswith(SCHEDULE_BATCH_MODULE_SUFFIX) and "sglang" in parts[:-2]


def is_old_class(qualified_names: Collection[QualifiedName], location: ModuleLocation) -> bool:
    for qualified in qualified_names:
        module, _, name = qualified.name.rpartition(".")
        if name != OLD_CLASS:
            continue
        if qualified.source is QualifiedNameSource.IMPORT and is_sglang_schedule_batch_module(module, location):
            return True
        if qualified.source is QualifiedNameSource.LOCAL and not module and location.is_schedule_batch_module:
            return True
    return False


# -- spellings of the class beyond a resolved qualified name -----------------------------------
# LibCST's scopes record nothing for `from m import *` and never look through `Alias = Class`,
# and type comments are not code at all; the facts below fill those gaps so that every codemod,
# asking through `refers_to_old_class`, sees the same class behind every spelling.


@dataclass(frozen=True)
class OldClassSpellings:
    """How one module names SGLang's old class outside what qualified names resolve."""

    star: bool  # a `from <SGLang's schedule_batch> import *` binds the bare name
    aliases: frozenset[str]  # module-level names bound once, to the class (`Alias = ModelWorkerBatch`)
    alias_targets: frozenset[int]  # ids of those assignments' target `Name`s (definitions, not uses)
    dotted: frozenset[str]  # spellings in strings and type comments: `ModelWorkerBatch`, `sbm.ModelWorkerBatch`, ...

    def pattern(self) -> re.Pattern[str] | None:
        """Matches a spelling as a whole dotted name; group 1 is the prefix before the class name."""
        if not self.dotted:
            return None
        prefixes = sorted({s[: -len(OLD_CLASS)] for s in self.dotted}, key=len, reverse=True)
        alternatives = "|".join(re.escape(p) for p in prefixes)
        return re.compile(rf"(?<![\w.])({alternatives}){OLD_CLASS}\b")


_SPELLINGS_CACHE: list[tuple[object, OldClassSpellings]] = []  # one entry: (module, its spellings)


def _dotted(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)


def _import_from_module(node: cst.ImportFrom) -> str:
    return "." * len(node.relative) + (_dotted(node.module) if node.module is not None else "")


class _ModuleLevelStatements(OwnScopeVisitor):
    """Imports anywhere at module level (inside `if TYPE_CHECKING:`/`try:` too), and module-level
    single-target assignments; function and class bodies are not module level."""

    def __init__(self) -> None:
        self.imports: list[cst.Import | cst.ImportFrom] = []
        self.assignments: list[tuple[cst.Name, cst.BaseExpression]] = []

    def visit_Import(self, node: cst.Import) -> bool:
        self.imports.append(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.imports.append(node)
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assignments.append((node.targets[0].target, node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, cst.Name):
            self.assignments.append((node.target, node.value))


def old_class_spellings(module: cst.Module, global_scope: Scope, location: ModuleLocation) -> OldClassSpellings:
    """The module's star imports, aliases and dotted spellings of SGLang's old class (cached per module)."""
    if _SPELLINGS_CACHE and _SPELLINGS_CACHE[0][0] is module:
        return _SPELLINGS_CACHE[0][1]
    found = _ModuleLevelStatements()
    module.visit(found)
    star = False
    dotted: set[str] = set()
    for node in found.imports:
        if isinstance(node, cst.ImportFrom):
            module_name = _import_from_module(node)
            if isinstance(node.names, cst.ImportStar):
                star = star or is_sglang_schedule_batch_module(module_name, location)
                continue
            for alias in node.names:
                local = _dotted(alias.asname.name) if alias.asname is not None else _dotted(alias.name)
                imported = _dotted(alias.name)
                if imported == OLD_CLASS and is_sglang_schedule_batch_module(module_name, location):
                    dotted.add(local)
                elif is_sglang_schedule_batch_module(
                    module_name + imported if module_name.endswith(".") else f"{module_name}.{imported}", location
                ):
                    dotted.add(f"{local}.{OLD_CLASS}")  # `from sglang.srt.managers import schedule_batch as sbm`
        else:
            for alias in node.names:
                imported = _dotted(alias.name)
                if is_sglang_schedule_batch_module(imported, location):
                    local = _dotted(alias.asname.name) if alias.asname is not None else imported
                    dotted.add(f"{local}.{OLD_CLASS}")
    if star:
        dotted.add(OLD_CLASS)
    aliases: dict[str, cst.Name] = {}
    changed = True
    while changed:  # `A = ModelWorkerBatch; B = A` follows the chain
        changed = False
        for target, value in found.assignments:
            name = target.value
            if name in aliases or name == OLD_CLASS or len(global_scope.assignments[name]) != 1:
                continue
            if _is_old_class_value(value, global_scope, location, star, aliases):
                aliases[name] = target
                changed = True
    spellings = OldClassSpellings(
        star=star,
        aliases=frozenset(aliases),
        alias_targets=frozenset(id(t) for t in aliases.values()),
        dotted=frozenset(dotted),
    )
    _SPELLINGS_CACHE[:] = [(module, spellings)]
    return spellings


def _is_old_class_value(
    value: cst.BaseExpression, scope: Scope, location: ModuleLocation, star: bool, aliases: dict[str, cst.Name]
) -> bool:
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return False
    if is_old_class(scope.get_qualified_names_for(value), location):
        return True
    if isinstance(value, cst.Name):
        if value.value == OLD_CLASS and star and OLD_CLASS not in scope:
            return True
        return value.value in aliases
    return False


def refers_to_old_class(scope: Scope, node: cst.CSTNode, location: ModuleLocation, module: cst.Module) -> bool:
    """Whether `node` (a name, attribute or string annotation) names SGLang's old class: resolved by
    qualified name, bound by a star import from SGLang's schedule_batch, or a use of a module-level
    alias of the class (the alias's own definition is not a use)."""
    if isinstance(node, cst.SimpleString):
        # A string annotation names the class when the one type it admits (None aside) is a
        # spelling of it; resolving its names alone would also take `"Union[ScheduleBatch, ...]"`.
        return _string_names_old_class(node, old_class_spellings(module, scope.globals, location))
    if is_old_class(scope.get_qualified_names_for(node), location):
        return True
    if not isinstance(node, cst.Name):
        return False
    spellings = old_class_spellings(module, scope.globals, location)
    if node.value == OLD_CLASS:
        # Nothing the scope knows binds it: only a star import can have.
        return spellings.star and OLD_CLASS not in scope
    return node.value in spellings.aliases and is_alias_use(scope, node, spellings)


def is_alias_use(scope: Scope, node: cst.Name, spellings: OldClassSpellings) -> bool:
    """A read of a module-level alias of the old class (not its definition, not a local of that name)."""
    if id(node) in spellings.alias_targets or node.value not in spellings.aliases:
        return False
    qualified = scope.get_qualified_names_for(node)
    return {q.name for q in qualified} == {node.value} and all(q.source is QualifiedNameSource.LOCAL for q in qualified)


def _string_names_old_class(node: cst.SimpleString, spellings: OldClassSpellings) -> bool:
    value = node.evaluated_value
    if not isinstance(value, str):
        return False
    try:
        expression = cst.parse_expression(value.strip())
    except cst.ParserSyntaxError:
        return False
    members = union_members(expression)
    if len(members) != 1 or not isinstance(members[0], (cst.Name, cst.Attribute)):
        return False
    spelled = _dotted(members[0])
    return spelled in spellings.dotted or spelled in spellings.aliases


_OPTIONAL = m.Name("Optional") | m.Attribute(attr=m.Name("Optional"))
_UNION = m.Name("Union") | m.Attribute(attr=m.Name("Union"))


def union_members(annotation: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The types an annotation admits besides `None`: `Optional[X]`, `Union[X, None]`, `X | None`
    and `None | X` all admit `[X]`; anything else admits itself."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        members = union_members(annotation.left) + union_members(annotation.right)
    elif isinstance(annotation, cst.Subscript) and m.matches(annotation.value, _OPTIONAL | _UNION):
        indexes = [e.slice for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if len(indexes) != len(annotation.slice):  # a slice `a:b` is no type
            return [annotation]
        members = [m_ for index in indexes for m_ in union_members(index.value)]
    else:
        return [annotation]
    return [member for member in members if not m.matches(member, m.Name("None"))]
