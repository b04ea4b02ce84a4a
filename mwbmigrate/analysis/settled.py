"""What a codemod can tell without LibCST of a module that holds its words: that it has nothing left
to do there, the way a migrated module looks. The prefilter (engine/code_view.py `code_candidate`)
leaves such a module unparsed, so `--check` of a migrated tree parses nothing it need not.

Each test answers for one codemod alone, by its code, and only True where that codemod, run on the
module as it is, changes nothing and reports nothing; anything it cannot tell is False (parse).
tests/analysis/test_settled.py checks each against the codemod on every fixture module, before and
after, at several targets and places.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterator

from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.target_versions import overrides_are_arguments

# req-pool-mirror's names (codemods/req_pool_mirror.py).
_MIRROR = "req_pool_indices_cpu"
_ENSURE = "ensure_req_pool_indices_cpu"
# class-removal's (codemods/class_removal.py).
_OLD_CLASS, _NEW_CLASS, _OLD_METHOD = "ModelWorkerBatch", "ScheduleBatch", "get_model_worker_batch"
_ONE_SHOT_FIELDS = ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class ModuleAtTarget:
    """A module the byte and token prefilters kept, with what the tests read of the run."""

    text: str
    location: ModuleLocation
    target_version: str
    clear_emptied_batches: bool = False
    _tree: ast.Module | None = field(default=None, repr=False)
    _unparsable: bool = field(default=False, repr=False)

    def tree(self) -> ast.Module | None:
        """The module's `ast`, parsed once; None when `ast` cannot read it (the transform says why)."""
        if self._tree is None and not self._unparsable:
            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                self._unparsable = True
        return self._tree


def _worker_signatures(module: ModuleAtTarget) -> bool:
    """SGLang's own workers are the callers' contract, not stand-ins: a rebase replaces them
    (`worker_classes`, `undecided_mixins` and `_wrapper` answer nothing inside SGLang's package)."""
    return module.location.inside_sglang


def _classes(tree: ast.AST, enclosing: str | None = None) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node with the name of the innermost class around it."""
    for child in ast.iter_child_nodes(tree):
        yield child, enclosing
        yield from _classes(child, child.name if isinstance(child, ast.ClassDef) else enclosing)


def _ensured(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names passed alone to `ensure_req_pool_indices_cpu(...)` as statements of the function's body."""
    found = set()
    for statement in function.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == _ENSURE
            and len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], ast.Name)
        ):
            found.add(call.args[0].id)
    return found


def _builds_device_indices(statement: ast.AST) -> bool:
    """`<name>.req_pool_indices = torch.tensor(...)`: a builder the repair may complete."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target, value = statement.targets[0], statement.value
    return (
        isinstance(target, ast.Attribute)
        and target.attr == "req_pool_indices"
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "tensor"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "torch"
    )


def _request_pool_mirror(module: ModuleAtTarget) -> bool:
    """Every `prepare_for_decode` / `merge_batch` of a `ScheduleBatch` that keeps the mirror restores
    it first, and every builder of the device indices outside that class sits in a function that
    names the mirror. Clearing emptied batches (`--clear-emptied-batches`) is never told here."""
    tree = module.tree()
    if tree is None or module.clear_emptied_batches:
        return False
    keeps_mirror = _MIRROR in module.text  # the codemod asks the class's text: this asks more
    functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]] = []
    for node, enclosing in _classes(tree):
        if isinstance(node, _FUNCTIONS):
            functions.append((node, enclosing))
    for function, enclosing in functions:
        if enclosing == _NEW_CLASS:
            params = [a.arg for a in function.args.args]
            if function.name == "prepare_for_decode" and params[:1] == ["self"]:
                targets = params[:1]
            elif function.name == "merge_batch" and len(params) >= 2:
                targets = params[:2]
            else:
                continue
            if keeps_mirror and not set(targets) <= _ensured(function):
                return False
            continue
        segment = ast.get_source_segment(module.text, function) or ""
        builds = any(_builds_device_indices(node) for node in ast.walk(function))
        if builds and _MIRROR not in segment:
            return False
    return True


def _class_removal(module: ModuleAtTarget) -> bool:
    """No `class ModelWorkerBatch`, no `ScheduleBatch.get_model_worker_batch`, and the one-shot
    fields declared on `ScheduleBatch` where the target has them as fields."""
    if not module.location.is_schedule_batch_module:
        return True
    tree = module.tree()
    if tree is None:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        if node.name == _OLD_CLASS:
            return False
        if node.name != _NEW_CLASS:
            continue
        if any(isinstance(s, _FUNCTIONS) and s.name == _OLD_METHOD for s in node.body):
            return False
        declared = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        if not overrides_are_arguments(module.target_version) and not set(_ONE_SHOT_FIELDS) <= declared:
            return False
    return True


# By codemod code: the codemods that can tell a module they have nothing left to do in.
SETTLED: dict[str, Callable[[ModuleAtTarget], bool]] = {
    "MWB016": _worker_signatures,
    "MWB012": _request_pool_mirror,
    "MWB009": _class_removal,
}
