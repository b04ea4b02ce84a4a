"""Version gates: the tests that really choose between the old and the new API, and what they keep.

A gate is a test that picks an API, nothing else:

    MWB120  a feature check on the old API (`hasattr(x, "get_model_worker_batch")`, `getattr(...)`),
            and every statement that reads a flag computed from one (`HAS_OLD = hasattr(...)`);
    MWB121  `ModelWorkerBatch` imported under try/except ImportError (the `try`), and every statement
            that reads a name that import binds (`ModelWorkerBatch = None` fallback included);
    MWB122  an `if` on the environment or SGLang's version whose two sides differ in which API they
            use: one calls `get_model_worker_batch`, names `ModelWorkerBatch` or passes
            `model_worker_batch=`, the other does not.

A debug or feature flag whose branch merely uses the old object (`if os.environ.get("DEBUG"):
print(model_worker_batch.seq_lens)`, or a branch that adds work and falls through) is no gate: it is
migrated like any code.

Each gate keeps a *region* untouched: its outermost enclosing function (a parameter rename or a
merged local must be all or nothing within a function), or the gate statement itself at module or
class level. The rest of the file migrates. Regions are nodes of one module object, by identity.

`new_api_value` says what a gate's test evaluates to on SGLang >= 0.5.13, which is what
`--collapse-compat` keeps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import Assignment, MetadataWrapper, ScopeProvider

from mwbmigrate.analysis.calls import last_name
from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.nodes import NodeSet
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_METHOD

FEATURE_CHECKS = frozenset({"hasattr", "getattr"})
# What a `try` around an import catches when it is a version guard.
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})
# What a missing name in `from module import Name` raises on 0.5.13: ImportError, which
# ModuleNotFoundError (a subclass) does not catch.
CATCHES_MISSING_NAME = frozenset({"ImportError", "Exception", "BaseException"})
# Identifiers that read the environment (`os.environ`, `os.getenv`, SGLang's `envs`, `get_bool_env_var`).
_ENVIRONMENT_WORDS = re.compile(r"^(environ|getenv|envs)$|(^|_)env(_var)?(_|$)")
# Names that hold SGLang's version (`SGLANG_VERSION`, `sglang_version`).
_SGLANG_VERSION_NAME = re.compile(r"sglang_?version", re.IGNORECASE)
_OLD_TOKEN = re.compile(rf"\b({OLD_CLASS}|{OLD_METHOD}|{OLD_PARAMETER})\b")
OLD_TOKENS = frozenset({OLD_CLASS, OLD_METHOD, OLD_PARAMETER})
_LEAVES_BLOCK = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def dotted(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def string_value(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - an odd literal is simply not a key
            return None
        return value if isinstance(value, str) else None
    return None


def feature_check(node: cst.CSTNode) -> str | None:
    """The old-API name a `hasattr(x, "get_model_worker_batch")`-style call tests for, if it is one."""
    if not isinstance(node, cst.Call) or last_name(node.func) not in FEATURE_CHECKS or len(node.args) < 2:
        return None
    name = string_value(node.args[1].value)
    return name if name in (OLD_METHOD, OLD_CLASS) else None


def simple_statements(block: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    result: list[cst.BaseSmallStatement] = []
    for line in lines:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            result.extend(line.body)
    return result


def imports_old_class(node: cst.ImportFrom) -> bool:
    return not isinstance(node.names, cst.ImportStar) and any(
        isinstance(a.name, cst.Name) and a.name.value == OLD_CLASS for a in node.names
    )


def handler_types(handler: cst.ExceptHandler) -> set[str] | None:
    """The exception names an `except` clause catches; None for a bare `except:` (everything)."""
    if handler.type is None:
        return None
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [cst.Element(handler.type)]
    return {name.rsplit(".", 1)[-1] for t in types if (name := dotted(t.value))}


def guarded_imports(node: cst.Try) -> list[cst.ImportFrom]:
    """The `from ... import ModelWorkerBatch` statements a `try` guards against ImportError."""
    if not any((types := handler_types(h)) is None or types & GUARD_EXCEPTIONS for h in node.handlers):
        return []
    return [s for s in simple_statements(node.body) if isinstance(s, cst.ImportFrom) and imports_old_class(s)]


class _Reads(cst.CSTVisitor):
    """What a test or a branch reads: the environment, SGLang's version, feature checks, flags."""

    def __init__(self, flags: dict[str, str]) -> None:
        self.flags = flags
        self.feature_check: str | None = None
        self.environment = False
        self.flag_codes: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        if _ENVIRONMENT_WORDS.search(node.value) or _SGLANG_VERSION_NAME.search(node.value):
            self.environment = True
        if node.value in self.flags:
            self.flag_codes.add(self.flags[node.value])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = dotted(node)
        if name in self.flags:
            self.flag_codes.add(self.flags[name])
        # Only SGLang's version chooses its API; torch's or another package's does not.
        if node.attr.value == "__version__" and name and name.split(".", 1)[0] == "sglang":
            self.environment = True

    def visit_Call(self, node: cst.Call) -> None:
        self.feature_check = self.feature_check or feature_check(node)
        # importlib.metadata.version("sglang"), pkg_resources.get_distribution("sglang")
        if (
            last_name(node.func) in ("version", "get_distribution")
            and node.args
            and string_value(node.args[0].value) == "sglang"
        ):
            self.environment = True


def reads(node: cst.CSTNode, flags: dict[str, str] | None = None) -> _Reads:
    found = _Reads(flags or {})
    node.visit(found)
    return found


class _OldApi(cst.CSTVisitor):
    """Whether code uses the old *API* (its method, its class, its keyword), not merely the old object."""

    found = False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value in (OLD_METHOD, OLD_CLASS)

    def visit_Arg(self, node: cst.Arg) -> None:
        self.found = self.found or (node.keyword is not None and node.keyword.value == OLD_PARAMETER)


def uses_old_api(*nodes: cst.CSTNode) -> bool:
    finder = _OldApi()
    for node in nodes:
        node.visit(finder)
    return finder.found


def leaves_block(block: cst.BaseSuite) -> bool:
    """Whether a branch never falls through (its last statement returns, raises, breaks or continues)."""
    statements = simple_statements(block) if isinstance(block, cst.SimpleStatementSuite) else None
    if statements is None:
        body = block.body if isinstance(block, cst.IndentedBlock) else []
        last = body[-1] if body else None
        statements = list(last.body) if isinstance(last, cst.SimpleStatementLine) else []
    return bool(statements) and isinstance(statements[-1], _LEAVES_BLOCK)


@dataclass(frozen=True)
class Gate:
    statement: cst.CSTNode  # the gate: an `if`, a `try`, or a statement with a feature check or flag
    code: str  # MWB120, MWB121 or MWB122
    reason: str
    region: cst.CSTNode  # what it keeps untouched: its outermost function, or the statement itself


@dataclass
class VersionGates:
    gates: list[Gate] = field(default_factory=list)
    regions: NodeSet = field(default_factory=NodeSet)
    region_codes: dict[int, str] = field(default_factory=dict)  # id(region) -> code of its first gate
    guarded_imports: NodeSet = field(default_factory=NodeSet)  # ImportFrom nodes under try/except ImportError
    guarded_names: dict[str, NodeSet] = field(default_factory=dict)  # name a guarded import binds -> its Name nodes
    flags: dict[str, str] = field(default_factory=dict)  # flag (name or dotted attribute) -> code of what it tests

    def is_region(self, node: cst.CSTNode) -> bool:
        return node in self.regions

    def add(self, gate: Gate) -> None:
        self.gates.append(gate)
        if gate.region not in self.regions:
            self.regions.add(gate.region)
            self.region_codes[id(gate.region)] = gate.code


def module_flags(module: cst.Module) -> tuple[NodeSet, dict[str, str]]:
    """Guarded imports, and the flags (names and dotted attributes) assigned from a feature check,
    the environment or SGLang's version, or inside a guarded import's try/except."""
    imports = NodeSet()
    flags: dict[str, str] = {}

    class _Flags(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            # What it looks for are statements, and no expression holds one: most nodes are skipped.
            return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

        def visit_Try(self, node: cst.Try) -> None:
            guarded = guarded_imports(node)
            if not guarded:
                return
            for guarded_import in guarded:
                imports.add(guarded_import)
            blocks = [node.body, *(h.body for h in node.handlers), *([node.orelse.body] if node.orelse else [])]
            for block in blocks:
                for statement in simple_statements(block):
                    if isinstance(statement, cst.Assign):
                        for target in statement.targets:
                            name = dotted(target.target)
                            if name and name != OLD_CLASS:
                                flags.setdefault(name, "MWB121")

        def visit_Assign(self, node: cst.Assign) -> None:
            found = reads(node.value)
            code = "MWB120" if found.feature_check else "MWB122" if found.environment else None
            if code is None:
                return
            for target in node.targets:
                name = dotted(target.target)
                if name:
                    flags.setdefault(name, code)

    module.visit(_Flags())
    return imports, flags


class _FindGates(cst.CSTVisitor):
    def __init__(self, gates: VersionGates, guarded_uses: NodeSet) -> None:
        self.found = gates
        self.guarded_uses = guarded_uses  # Name nodes reading or rebinding a guarded import's names
        self.functions: list[cst.FunctionDef] = []
        self.statements: list[cst.CSTNode] = []
        self.blocks: list[cst.CSTNode] = []  # enclosing IndentedBlock / Module, for what follows an `if`

    def region(self, statement: cst.CSTNode) -> cst.CSTNode:
        return self.functions[0] if self.functions else statement

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            self.blocks.append(node)
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if not self._is_elif(node):
                self._check(node)
            self.statements.append(node)
        if isinstance(node, cst.FunctionDef):
            self.functions.append(node)
        if not self.guarded_uses and isinstance(node, cst.BaseExpression):
            return False  # gates are statements, read by `_check`; only a guarded name's use needs the Names
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.FunctionDef):
            self.functions.pop()
        if self.statements and self.statements[-1] is original_node:
            self.statements.pop()
        if self.blocks and self.blocks[-1] is original_node:
            self.blocks.pop()
        super().on_leave(original_node)

    def visit_Name(self, node: cst.Name) -> None:
        if node in self.guarded_uses and self.statements:
            self._add(self.statements[-1], "MWB121", f"uses the ImportError-guarded `{node.value}`: kept")

    def _is_elif(self, node: cst.CSTNode) -> bool:
        parent = self.statements[-1] if self.statements else None
        return isinstance(parent, cst.If) and parent.orelse is node

    def _add(self, statement: cst.CSTNode, code: str, reason: str) -> None:
        self.found.add(Gate(statement, code, reason, self.region(statement)))

    def _check(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.Try):
            if any(s in self.found.guarded_imports for s in simple_statements(statement.body)):
                self._add(
                    statement,
                    "MWB121",
                    f"`{OLD_CLASS}` imported under try/except ImportError: both APIs kept; `--collapse-compat` keeps only the new one",
                )
            return
        if isinstance(statement, (cst.If, cst.While)):
            headers: list[cst.CSTNode] = [statement.test]
            branch = statement.orelse
            while isinstance(branch, cst.If):  # an `elif` test is part of the same gate
                headers.append(branch.test)
                branch = branch.orelse
        elif isinstance(statement, cst.SimpleStatementLine):
            headers = [statement]
        else:
            return  # a def/class/for/with header is never the gate itself
        found = _Reads(self.found.flags)
        for header in headers:
            header.visit(found)
        if found.feature_check:
            self._add(
                statement,
                "MWB120",
                f"feature check on `{found.feature_check}`: both APIs kept; `--collapse-compat` keeps only the new one",
            )
        elif "MWB120" in found.flag_codes or "MWB121" in found.flag_codes:
            code = "MWB120" if "MWB120" in found.flag_codes else "MWB121"
            self._add(
                statement,
                code,
                "reads a flag that tells the two APIs apart: both APIs kept; `--collapse-compat` keeps only the new one",
            )
        elif (
            isinstance(statement, cst.If)
            and (found.environment or "MWB122" in found.flag_codes)
            and self._sides_differ(statement)
        ):
            self._add(
                statement,
                "MWB122",
                "old API chosen by an environment variable or version switch: both APIs kept; `--collapse-compat` keeps only the new one",
            )

    def _sides_differ(self, statement: cst.If) -> bool:
        """Whether one side of the `if` uses the old API and the other does not. Without an `else`,
        the other side is what follows the `if` when its body never falls through; a body that
        falls through only adds work (a debug dump, a trace) and chooses nothing."""
        body_old = uses_old_api(statement.body)
        if statement.orelse is not None:
            return body_old != uses_old_api(statement.orelse)
        if not leaves_block(statement.body):
            return False
        return body_old != uses_old_api(*following(self.blocks[-1] if self.blocks else None, statement))


def following(block: cst.CSTNode | None, statement: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements after `statement` in its block."""
    body = list(getattr(block, "body", ()))
    for index, node in enumerate(body):
        if node is statement:
            return body[index + 1 :]
    return []


def find_version_gates(wrapper: MetadataWrapper) -> VersionGates:
    """Every gate of the wrapper's module, with the regions they keep."""
    module = wrapper.module
    imports, flags = module_flags(module)
    gates = VersionGates(guarded_imports=imports, flags=flags)
    guarded_uses = NodeSet()
    scope = wrapper.resolve(ScopeProvider).get(module) if imports else None
    if scope is not None:
        assignments = scope.assignments
        for assignment in assignments:
            # An `Assignment` has the node that binds; a module scope holds no other kind.
            if (
                isinstance(assignment, Assignment)
                and isinstance(assignment.node, cst.ImportFrom)
                and assignment.node in imports
            ):
                names = gates.guarded_names.setdefault(assignment.name, NodeSet())
                for other in assignments[assignment.name]:
                    if isinstance(other, Assignment) and isinstance(other.node, cst.Name):
                        names.add(other.node)
                        guarded_uses.add(other.node)
                    for reference in other.references:
                        names.add(reference.node)
                        guarded_uses.add(reference.node)
    module.visit(_FindGates(gates, guarded_uses))
    return gates


# -- what a gate's test is on the new API (--collapse-compat) -------------------------------------
@dataclass(frozen=True)
class NewWorld:
    """What is known on SGLang >= 0.5.13: each guarded name is its fallback (`None`), each feature
    check is false (unless this module defines its own old method), and `names` gives the value of
    a flag read (None: unknown)."""

    none_names: frozenset[str] = frozenset()  # guarded names whose fallback is `None`
    names: Callable[[cst.BaseExpression], bool | None] = lambda node: None
    own_old_method: bool = False  # a class of this module defines get_model_worker_batch


def new_api_value(node: cst.BaseExpression, world: NewWorld) -> bool | None:
    """The truth value of a test on the new API; None when it cannot be known (or could raise)."""
    if isinstance(node, cst.Name):
        if node.value in ("True", "False"):
            return node.value == "True"
        if node.value in world.none_names:
            return False
    if isinstance(node, (cst.Name, cst.Attribute)):
        return world.names(node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        value = new_api_value(node.expression, world)
        return None if value is None else not value
    if isinstance(node, cst.BooleanOperation):
        left = new_api_value(node.left, world)
        if left is None:
            return None  # evaluated first: it could raise, whatever the right side is
        if isinstance(node.operator, cst.And):
            return False if not left else new_api_value(node.right, world)
        return True if left else new_api_value(node.right, world)
    if isinstance(node, cst.Call) and feature_check(node) and not world.own_old_method:
        if last_name(node.func) == "hasattr":
            return False
        # getattr(x, "get_model_worker_batch", None) is None; without a default it raises.
        if len(node.args) == 3 and isinstance(node.args[2].value, cst.Name) and node.args[2].value.value == "None":
            return False
        return None
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        operands = [node.left, target.comparator]
        nones = [o for o in operands if isinstance(o, cst.Name) and o.value == "None"]
        guarded = [o for o in operands if isinstance(o, cst.Name) and o.value in world.none_names]
        if len(nones) == 1 and len(guarded) == 1:
            if isinstance(target.operator, (cst.Is, cst.Equal)):
                return True
            if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
                return False
    return None


def new_api_bool(node: cst.BaseExpression, world: NewWorld) -> bool | None:
    """The exact value of an expression on the new API when it is a bool that can be known
    (a comparison with a guarded name, `hasattr`, `not`, and/or of those); None otherwise. Unlike
    `new_api_value`, a truthy flag is not enough: the expression itself can be replaced by the result."""
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return new_api_value(node, world)
    if isinstance(node, cst.BooleanOperation):
        left = new_api_bool(node.left, world)
        if left is None:
            return None
        if isinstance(node.operator, cst.And):
            return False if not left else new_api_bool(node.right, world)
        return True if left else new_api_bool(node.right, world)
    if isinstance(node, cst.Call) and last_name(node.func) == "hasattr":
        return new_api_value(node, world)
    if isinstance(node, cst.Comparison):
        return new_api_value(node, world)
    return None


def mentions_gate(node: cst.CSTNode, world: NewWorld) -> bool:
    """Whether an expression reads a guarded name or makes a feature check (what a fold may replace)."""

    class _Mentions(cst.CSTVisitor):
        found = False

        def visit_Name(self, name: cst.Name) -> None:
            self.found = self.found or name.value in world.none_names

        def visit_Call(self, call: cst.Call) -> None:
            self.found = self.found or feature_check(call) is not None

    finder = _Mentions()
    node.visit(finder)
    return finder.found
