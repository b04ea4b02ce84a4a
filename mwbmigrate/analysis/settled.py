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
import io
import re
import tokenize
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
    request_mirror: bool | None = None  # the tree's own ScheduleBatch keeps the mirror (TransformOptions)
    # Whether an old-API name is in code, not prose only (engine/code_view.py `code_view` is None).
    old_api_in_code: bool = True
    code: str | None = None  # that view of the text, prose blanked, when known
    _tree: ast.Module | None = field(default=None, repr=False)
    _unparsable: bool = field(default=False, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)

    def tree(self) -> ast.Module | None:
        """The module's `ast`, parsed once; None when `ast` cannot read it (the transform says why),
        or when a name in it is not ASCII: `ast` folds `ＳcheduleBatch` to `ScheduleBatch` (NFKC),
        where the codemods compare the text as written."""
        if self._tree is None and not self._unparsable:
            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                self._unparsable = True
            names_ascii = self.text.isascii() or (self.code is not None and self.code.isascii())
            if self._tree is not None and not names_ascii and _has_folded_names(self.text):
                self._tree, self._unparsable = None, True
        return self._tree

    def lines_of(self, node: ast.AST) -> str:
        """The whole lines `node` spans: all of its text, and what else stands on those lines."""
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        first, last = getattr(node, "lineno", 1), getattr(node, "end_lineno", None) or len(self._lines)
        return "\n".join(self._lines[first - 1 : last])


_NEWLINE = re.compile(r"\r\n?|\n")


def _has_folded_names(text: str) -> bool:
    """Whether a name token of `text` is not ASCII (or `text` cannot be read as tokens)."""
    try:
        return any(
            token.type == tokenize.NAME and not token.string.isascii()
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
        )
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True


def _worker_signatures(module: ModuleAtTarget) -> bool:
    """SGLang's own workers are the callers' contract, not stand-ins: a rebase replaces them
    (`worker_classes`, `undecided_mixins` and `_wrapper` answer nothing inside SGLang's package).
    A module that does not parse is parsed anyway, for the transform to say why."""
    return module.location.inside_sglang and module.tree() is not None


def _classes(tree: ast.AST) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node with the name of the innermost class around it."""
    pending: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while pending:
        node, enclosing = pending.pop()
        inner = node.name if isinstance(node, ast.ClassDef) else enclosing
        for child in ast.iter_child_nodes(node):
            yield child, inner
            pending.append((child, inner))


def _alone_on_its_line(statement: ast.stmt, statements: list[ast.stmt]) -> bool:
    return sum(1 for other in statements if other.lineno == statement.lineno) == 1


def _ensured(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names passed alone to `ensure_req_pool_indices_cpu(...)` as statements of the function's body."""
    found = set()
    for statement in function.body:
        # Alone on its line, as the codemod counts it (a line of one statement).
        call = (
            statement.value
            if isinstance(statement, ast.Expr) and _alone_on_its_line(statement, function.body)
            else None
        )
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
        if module.request_mirror is False:
            continue  # a tree whose own batch keeps no mirror: its builders are left alone
        segment = module.lines_of(function)
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


_BUFFER, _RECORDER, _RING = "batch_record_buf", "record_batch_in_overlap", "batch_record_ring"


def _is_self_attribute(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _stored_buffers(tree: ast.Module) -> set[int]:
    """The `batch_record_buf` attributes written, by id: a target of `=` (or `x: T = ...`), itself or
    subscripted (`self.batch_record_buf[i] = x`), as wild-shapes counts a store."""
    stored = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            root = target.value if isinstance(target, ast.Subscript) else target
            if isinstance(root, ast.Attribute) and root.attr == _BUFFER:
                stored.add(id(root))
    return stored


def _wild_shapes(module: ModuleAtTarget) -> bool:
    """With no old-API name in code, only the record buffer's shapes are left to mark: a read of
    `batch_record_buf`'s entries (MWB186) and an override of `record_batch_in_overlap` outside
    SGLang's package (MWB187). Every other shape names the old class, parameter or method."""
    tree = module.tree()
    if tree is None or module.old_api_in_code:
        return False
    stored = _stored_buffers(tree)
    for node, enclosing in _classes(tree):
        if isinstance(node, ast.Attribute) and node.attr == _BUFFER and id(node) not in stored:
            return False
        if isinstance(node, _FUNCTIONS) and node.name == _RECORDER and enclosing is not None:
            if not module.location.inside_sglang:
                return False
    return True


def _statement_lists(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            statements = getattr(node, name, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                yield statements


def _assigns_self(statement: ast.stmt, name: str) -> bool:
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and _is_self_attribute(statement.targets[0], name)
    )


def _core_runtime(module: ModuleAtTarget) -> bool:
    """The overlap ring created beside the record buffer, no pinned batch copied for the forward
    right after (the isolation does both), no `seq_lens.record_stream` in a verify, and a
    `ForwardBatch.init_new` that reads through the view already."""
    tree = module.tree()
    if tree is None:
        return False
    for statements in _statement_lists(tree):
        if any(_assigns_self(s, _BUFFER) for s in statements) and not any(
            _assigns_self(s, _RING) and _alone_on_its_line(s, statements) for s in statements
        ):
            return False
        for pinned, after in zip(statements, statements[1:], strict=False):
            call = pinned.value if isinstance(pinned, ast.Expr) else None
            if isinstance(call, ast.Call) and _is_self_attribute(call.func, _RECORDER):
                if "copy_for_forward" in module.lines_of(after):
                    return False
    for node, enclosing in _classes(tree):
        if not isinstance(node, _FUNCTIONS):
            continue
        segment = module.lines_of(node)
        if node.name.startswith("verify") and "record_stream" in segment:
            return False
        if enclosing == "ForwardBatch" and node.name == "init_new" and "forward_batch_view" not in segment:
            return False
    return True


# By codemod code: the codemods that can tell a module they have nothing left to do in.
SETTLED: dict[str, Callable[[ModuleAtTarget], bool]] = {
    "MWB016": _worker_signatures,
    "MWB012": _request_pool_mirror,
    "MWB009": _class_removal,
    "MWB011": _wild_shapes,
    "MWB013": _core_runtime,
}
