"""When reading the live batch where a snapshot was read is proven the same: an allowlist.

`get_model_worker_batch()` returned a per-forward snapshot. The rewrite reads the live batch instead
only where the snapshot's *window* (the statements from the snapshot to its last use) runs no code the
tool has not resolved, so nothing can change the batch in between, and the snapshot flows only into
field reads and SGLang's own consumers. Everywhere else the rewrite keeps the snapshot in code
(`runtime.worker_batch_snapshot`), which behaves as the old object did whatever the window runs.

The allowlist (README, "When the live batch is read"):

1. the snapshot is one local, bound once, by a call without the override argument, and every use is
   in the statements that follow it in its block;
2. those statements are expression statements, assignments to plain local names (neither the
   batch's nor the snapshot's), `assert`, `return`, `pass` and `if` with allowed parts: no `with`,
   `del`, attribute or subscript store, augmented assignment, loop, `try`, `await`, `yield`, nested
   function, class, lambda, comprehension, import, `global`;
3. a call is one of: `ForwardBatch.init_new(...)`, the name resolved to SGLang's class through the
   imports; `forward_batch_generation` / `forward_batch_embedding` on a worker resolved to one of
   SGLang's classes (a local bound only to `SGLangWorker(...)`, a parameter annotated with it, or
   `self.<attr>` that this module's class assigns only from such a call); an argument-free `is_*`
   test or a tensor reader (`item`, `tolist`, `numel`, `size`, `dim`) on a field of the batch or
   the snapshot; `len` / `isinstance`;
4. attributes are read only on the batch, the snapshot, a name imported from SGLang, or `self.<attr>`
   as in 3; and the snapshot itself appears only as the object of a field read or as an argument of
   an allowed consumer (3, first two).

Anything else, however harmless it looks, keeps the snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BuiltinAssignment, QualifiedNameSource, Scope

CONSUMER_METHODS = frozenset({"forward_batch_generation", "forward_batch_embedding"})
BUILTINS = frozenset({"len", "isinstance"})
FIELD_READERS = frozenset({"item", "tolist", "numel", "size", "dim"})
_SIMPLE_OK = (cst.Pass, cst.Break, cst.Continue)


@dataclass(frozen=True)
class Unproven:
    """Why a snapshot is kept: the first window statement that the allowlist does not prove.
    `hazard`: the copy keeps the old object, yet what reaches the forward may still differ."""

    statement: cst.CSTNode
    why: str
    hazard: str | None = None


# What the old method read out of each request when it was called; `init_new` reads them at the forward.
REQUEST_FIELDS = frozenset({"lora_id", "dllm_block_offset", "grammar"})
# The old object's lists built from the requests: the forward read them; a snapshot's copy it does not.
REQUEST_LISTS = frozenset({"lora_ids", "dllm_block_offsets"})


def writes_request_fields(module: cst.Module) -> str | None:
    """The first write in the module to a request field the old method read at call time, if any."""

    class _Finder(cst.CSTVisitor):
        found: str | None = None

        def _target(self, target: cst.BaseExpression) -> None:
            if isinstance(target, cst.Attribute) and target.attr.value in REQUEST_FIELDS and self.found is None:
                self.found = f"`.{target.attr.value}` is written"
            for element in getattr(target, "elements", ()):
                self._target(element.value)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._target(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._target(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._target(node.target)

        def visit_Del(self, node: cst.Del) -> None:
            self._target(node.target)

        def visit_For(self, node: cst.For) -> None:
            self._target(node.target)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            if node.raw_value in REQUEST_FIELDS and self.found is None:
                self.found = f"`{node.raw_value}` is named in a string (`setattr`?)"

    finder = _Finder()
    module.visit(finder)
    return finder.found


def _code(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node).strip().splitlines()
    first = text[0] if text else ""
    return first if len(first) <= 60 else first[:57] + "..."


def _block_of(function: cst.FunctionDef, statement: cst.CSTNode) -> Sequence[cst.BaseStatement] | None:
    """The statements of the block that holds `statement` directly."""

    class _Finder(cst.CSTVisitor):
        found: Sequence[cst.BaseStatement] | None = None

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
            if any(s is statement for s in node.body):
                self.found = node.body
            return self.found is None

    finder = _Finder()
    function.visit(finder)
    return finder.found


def _contains(root: cst.CSTNode, targets: set[int]) -> bool:
    class _Finder(cst.CSTVisitor):
        hit = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            if id(node) in targets:
                self.hit = True
            return not self.hit

    finder = _Finder()
    root.visit(finder)
    return finder.hit


class WindowProof:
    """The allowlist, for one function of one module."""

    def __init__(self, module: cst.Module, function: cst.FunctionDef, scope: Scope, enclosing: cst.ClassDef | None):
        self.module = module
        self.function = function
        self.scope = scope
        self.enclosing = enclosing
        self._self_workers = _self_workers(enclosing, _sglang_import_names(module)) if enclosing is not None else {}

    # --- a bound snapshot -------------------------------------------------------------------------------

    def bound(self, binding: cst.SimpleStatementLine, name: str, receiver: str) -> Unproven | None:
        """None when `name = receiver.get_model_worker_batch()` may read the live batch instead."""
        assignments = list(self.scope.assignments[name])
        if len(assignments) != 1:
            return Unproven(binding, f"`{name}` is bound more than once")
        block = _block_of(self.function, binding)
        if block is None:
            return Unproven(binding, f"`{name}` is bound outside a block the tool follows")
        references = {id(reference.node) for reference in assignments[0].references}
        start = next(i for i, s in enumerate(block) if s is binding) + 1
        last = start - 1
        for index in range(start, len(block)):
            if _contains(block[index], references):
                last = index
        reached = [s for s in block[start : last + 1] if _contains(s, references)]
        found = {id(n) for s in reached for n in _all_nodes(s)}
        if not references <= found:
            return Unproven(binding, f"`{name}` is used outside the statements that follow it")
        for statement in block[start : last + 1]:
            why = self._statement(statement, name, receiver)
            if why is not None:
                return Unproven(statement, f"`{_code(statement)}` {why}")
        return None

    # --- an inline snapshot -----------------------------------------------------------------------------

    def inline(self, statement: cst.CSTNode, call: cst.Call, argument: cst.Arg, consumer: cst.Call) -> str | None:
        """None when `consumer(..., receiver.get_model_worker_batch(), ...)` may read the live batch."""
        receiver = call.func.value.value if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) else None  # fmt: skip
        if receiver is None or not self._is_consumer(consumer):
            return "is not handed straight to a forward the tool has resolved"
        return self._statement(statement, None, receiver, inline=call)

    # --- the rules --------------------------------------------------------------------------------------

    def _statement(self, statement: cst.CSTNode, name: str | None, receiver: str, inline: cst.Call | None = None) -> str | None:  # fmt: skip
        checker = _Checker(self, name, receiver, inline)
        return checker.statement(statement)

    def _is_consumer(self, call: cst.Call) -> bool:
        func = call.func
        if not isinstance(func, cst.Attribute):
            return False
        if func.attr.value == "init_new":
            return isinstance(func.value, cst.Name) and self._sglang(func.value, "ForwardBatch")
        if func.attr.value not in CONSUMER_METHODS:
            return False
        return self._is_sglang_worker(func.value)

    def _sglang(self, name: cst.Name, class_name: str | None = None) -> bool:
        for qualified in self.scope.get_qualified_names_for(name.value):
            if qualified.source is not QualifiedNameSource.IMPORT:
                continue
            if qualified.name.startswith("sglang.") and (class_name is None or qualified.name.endswith("." + class_name)):
                return True
        return False

    def _is_sglang_worker(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Name):
            assignments = list(self.scope.assignments[value.value])
            if not assignments:
                return False
            for assignment in assignments:
                node = assignment.node
                if isinstance(node, cst.Param):
                    annotation = node.annotation.annotation if node.annotation is not None else None
                    if not (isinstance(annotation, cst.Name) and self._sglang(annotation)):
                        return False
                    continue
                if not self._bound_to_sglang_call(node):
                    return False
            return True
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
            return self._self_workers.get(value.attr.value, False) and self._plain_self_attribute(value.attr.value)
        return False

    def _bound_to_sglang_call(self, target: cst.CSTNode) -> bool:
        """`target` is the Name of `name = SGLangClass(...)`."""

        class _Finder(cst.CSTVisitor):
            value: cst.BaseExpression | None = None

            def visit_Assign(self, node: cst.Assign) -> None:
                if len(node.targets) == 1 and node.targets[0].target is target:
                    self.value = node.value

        finder = _Finder()
        self.function.visit(finder)
        value = finder.value
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and self.scope is not None
            and self._sglang(value.func)
        )

    def is_builtin(self, name: str) -> bool:
        return all(isinstance(a, BuiltinAssignment) for a in self.scope[name])

    def _plain_self_attribute(self, attr: str) -> bool:
        """`self.<attr>` reads an instance attribute: the class and its bases in this module define
        nothing of that name, nor `__getattr__` / `__getattribute__`, and every base is resolved."""
        return self.enclosing is not None and _plain_attribute(self.module, self.enclosing, attr, set())


def _plain_attribute(module: cst.Module, klass: cst.ClassDef, attr: str, seen: set[str]) -> bool:
    if klass.name.value in seen:
        return False
    seen.add(klass.name.value)
    for statement in klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ():
        names: list[str] = []
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names = [statement.name.value]
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    names = [t.value for t in targets if isinstance(t, cst.Name)]
        if attr in names or {"__getattr__", "__getattribute__"} & set(names):
            return False
    classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    for base in klass.bases:
        if base.keyword is not None:
            return False
        value = base.value
        if isinstance(value, cst.Name) and value.value == "object":
            continue
        if isinstance(value, cst.Name) and value.value in classes:
            if not _plain_attribute(module, classes[value.value], attr, seen):
                return False
            continue
        return False
    return True


def _self_workers(klass: cst.ClassDef, sglang_names: frozenset[str]) -> dict[str, bool]:
    """`self.<attr>` -> whether every assignment of it in the class is `SGLangClass(...)`."""
    result: dict[str, bool] = {}

    class _Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                value = target.target
                if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
                    call = node.value
                    ok = isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in sglang_names
                    result[value.attr.value] = result.get(value.attr.value, True) and ok

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            target = node.target
            if isinstance(target, cst.Attribute):
                result[target.attr.value] = False

    klass.visit(_Finder())
    return result


def _sglang_import_names(module: cst.Module) -> frozenset[str]:
    """The names a module binds by `from sglang... import ...`."""
    names: set[str] = set()
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None:
                continue
            dotted = cst.Module([]).code_for_node(small.module)
            if (dotted == "sglang" or dotted.startswith("sglang.")) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname is not None else alias.name
                    if isinstance(bound, cst.Name):
                        names.add(bound.value)
    return frozenset(names)


def _all_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class _All(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    root.visit(_All())
    return nodes


class _Checker:
    """Rules 2 to 4 over one window statement; each method answers None (allowed) or why not."""

    def __init__(self, proof: WindowProof, name: str | None, receiver: str, inline: cst.Call | None) -> None:
        self.proof = proof
        self.name = name
        self.receiver = receiver
        self.inline = inline

    def statement(self, node: cst.CSTNode) -> str | None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                why = self._small(small)
                if why is not None:
                    return why
            return None
        if isinstance(node, cst.If):
            why = self.expression(node.test)
            if why is None:
                why = self._suite(node.body)
            if why is None and node.orelse is not None:
                orelse = node.orelse
                why = self.statement(orelse) if isinstance(orelse, cst.If) else self._suite(orelse.body)
            return why
        return f"is a `{_keyword(node)}` statement"

    def _suite(self, suite: cst.BaseSuite) -> str | None:
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                why = self._small(small)
                if why is not None:
                    return why
            return None
        for statement in cst.ensure_type(suite, cst.IndentedBlock).body:
            why = self.statement(statement)
            if why is not None:
                return why
        return None

    def _small(self, node: cst.BaseSmallStatement) -> str | None:
        if isinstance(node, _SIMPLE_OK):
            return None
        if isinstance(node, cst.Expr):
            return self.expression(node.value)
        if isinstance(node, cst.Return):
            return self.expression(node.value) if node.value is not None else None
        if isinstance(node, cst.Assert):
            return self.expression(node.test) or (self.expression(node.msg) if node.msg is not None else None)
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if not isinstance(target, cst.Name):
                    return "stores into an attribute, a subscript or a tuple"
                if target.value in (self.receiver, self.name):
                    return f"rebinds `{target.value}`"
            return self.expression(node.value) if node.value is not None else None
        return f"is a `{_keyword(node)}` statement"

    def expression(self, node: cst.BaseExpression, as_consumer_argument: bool = False) -> str | None:
        if self.inline is not None and node is self.inline:
            return None if as_consumer_argument else "is not handed straight to a forward the tool has resolved"
        if isinstance(node, cst.Name):
            if node.value == self.name and not as_consumer_argument:
                return f"hands `{self.name}` to something other than a field read or a resolved forward"
            return None
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)):
            return None
        if isinstance(node, cst.ConcatenatedString):
            return self.expression(node.left) or self.expression(node.right)
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    why = self.expression(part.expression)
                    if why is not None:
                        return why
            return None
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Subscript):
            why = self.expression(node.value)
            for element in node.slice:
                if why is None and isinstance(element.slice, cst.Index):
                    why = self.expression(element.slice.value)
                elif why is None:
                    why = "slices"
            return why
        if isinstance(node, cst.Comparison):
            return self.expression(node.left) or next(
                (w for c in node.comparisons if (w := self.expression(c.comparator)) is not None), None
            )
        if isinstance(node, cst.BooleanOperation):
            return self.expression(node.left) or self.expression(node.right)
        if isinstance(node, cst.BinaryOperation):
            return self.expression(node.left) or self.expression(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self.expression(node.expression)
        if isinstance(node, cst.IfExp):
            return self.expression(node.test) or self.expression(node.body) or self.expression(node.orelse)
        if isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    return "unpacks with `*`"
                why = self.expression(element.value)
                if why is not None:
                    return why
            return None
        if isinstance(node, cst.Call):
            return self._call(node)
        return f"evaluates a {type(node).__name__.lower()} the tool does not follow"

    def _root(self, node: cst.BaseExpression) -> cst.BaseExpression:
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        return node

    def _attribute(self, node: cst.Attribute) -> str | None:
        value = node.value
        if isinstance(value, cst.Name):
            if value.value in (self.receiver, self.name):
                return None
            if value.value == "self":
                if self.proof._plain_self_attribute(node.attr.value):
                    return None
                return f"reads `self.{node.attr.value}`, which the tool cannot resolve to a plain attribute"
            if self.proof._sglang(value):
                return None
            return f"reads an attribute of `{value.value}`, which the tool has not resolved"
        if isinstance(value, cst.Call) and value is self.inline:
            return None
        why = self.expression(value)
        if why is not None:
            return why
        root = self._root(value)
        if isinstance(root, cst.Name) and root.value in (self.receiver, self.name):
            return None
        if isinstance(root, cst.Call) and root is self.inline:
            return None
        if isinstance(root, cst.Name) and self.proof._sglang(root):
            return None
        return "reads an attribute of a value the tool has not resolved"

    def _call(self, node: cst.Call) -> str | None:
        func = node.func
        if self.proof._is_consumer(node):
            why = self._attribute(func) if isinstance(func, cst.Attribute) else None
            if why is not None and not (isinstance(func, cst.Attribute) and self.proof._is_sglang_worker(func.value)):
                return why
            for argument in node.args:
                if argument.star:
                    return "unpacks arguments with `*`"
                why = self.expression(argument.value, as_consumer_argument=True)
                if why is not None:
                    return why
            return None
        if isinstance(func, cst.Name) and func.value in BUILTINS and self.proof.is_builtin(func.value):
            for argument in node.args:
                if argument.star or argument.keyword is not None:
                    return f"calls `{func.value}` with unpacked or keyword arguments"
                why = self.expression(argument.value)
                if why is not None:
                    return why
            return None
        if isinstance(func, cst.Attribute) and not node.args:
            method = func.attr.value
            root = self._root(func.value)
            on_fields = isinstance(func.value, (cst.Attribute, cst.Subscript)) and (
                (isinstance(root, cst.Name) and root.value in (self.receiver, self.name))
                or (isinstance(root, cst.Call) and root is self.inline)
            )
            if on_fields and (method.startswith("is_") or method in FIELD_READERS):
                return self.expression(func.value)
        callee = _code(func)
        return f"calls `{callee}`, which the tool has not resolved"


def _keyword(node: cst.CSTNode) -> str:
    names = {
        cst.With: "with",
        cst.For: "for",
        cst.While: "while",
        cst.Try: "try",
        cst.TryStar: "try",
        cst.FunctionDef: "def",
        cst.ClassDef: "class",
        cst.Del: "del",
        cst.AugAssign: "augmented assignment",
        cst.Raise: "raise",
        cst.Global: "global",
        cst.Nonlocal: "nonlocal",
        cst.Import: "import",
        cst.ImportFrom: "import",
        cst.Match: "match",
    }
    return names.get(type(node), type(node).__name__.lower())
