"""What `verify --against` reads of one Python module, extracted with `ast` and kept small.

A module is parsed once and reduced to :class:`ModuleFacts`: its top-level bindings (definitions
and imports), its classes (bases as written, methods with their signatures, every attribute they
define), the calls that may reach SGLang (through an imported or module-level name, `self`,
`super()` or a worker receiver such as `self.target_worker`), and the attribute uses of names that
may hold a `ScheduleBatch` or `ForwardBatch`. The syntax tree itself is dropped: a whole SGLang
release kept as trees is gigabytes, as facts a few tens of megabytes. Nothing is resolved here;
:mod:`mwbmigrate.verify.codebase` resolves names across modules.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Union

__all__ = [
    "NEEDLES",
    "WORKER_RECEIVERS",
    "AttrUse",
    "Binding",
    "CallShape",
    "CallSite",
    "ClassFacts",
    "FuncFacts",
    "ModuleFacts",
    "Signature",
    "TypedName",
    "dotted",
    "extract",
    "is_sglang",
]

# Attribute names under which SGLang keeps a worker: a call `X.<receiver>.<method>(...)` is a call
# on a worker.
WORKER_RECEIVERS = frozenset({"target_worker", "_target_worker", "tp_worker", "model_worker", "draft_worker"})

# The words `Codebase.scan` filters modules by; each module records which of them its text holds.
NEEDLES = (
    b"sglang",
    b"from .",
    b"import .",
    b"forward_batch",
    b"Worker",
    b"_worker",
    b"ScheduleBatch",
    b"ForwardBatch",
)

# Decorators that leave a function's call signature as it was written.
_SAFE_DECORATORS = frozenset(
    {
        "abstractmethod",
        "abc.abstractmethod",
        "override",
        "typing.override",
        "typing_extensions.override",
        "final",
        "typing.final",
        "lru_cache",
        "functools.lru_cache",
        "cache",
        "functools.cache",
        "contextmanager",
        "contextlib.contextmanager",
        "asynccontextmanager",
        "contextlib.asynccontextmanager",
        "torch.no_grad",
        "torch.inference_mode",
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "no_grad",
        "inference_mode",
        "DynamicGradMode",
        "torch.enable_grad",
    }
)
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "functools.cached_property", "abc.abstractproperty"})
_BROAD_EXCEPTIONS = frozenset({"AttributeError", "Exception", "BaseException", "TypeError"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def dotted(node: ast.expr) -> Optional[str]:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


@dataclass(frozen=True)
class Signature:
    """A call signature, as `inspect` would bind it (names only; annotations are not checked)."""

    positional: tuple[str, ...]  # positional-only, then positional-or-keyword, in order
    posonly: int  # how many of `positional` are positional-only
    required_positional: int  # the first this many of `positional` have no default
    vararg: bool
    kwonly: tuple[str, ...]
    kwonly_required: frozenset[str]
    kwarg: bool

    @classmethod
    def of(cls, args: ast.arguments) -> "Signature":
        positional = tuple(a.arg for a in [*args.posonlyargs, *args.args])
        kwonly = tuple(a.arg for a in args.kwonlyargs)
        required_kw = frozenset(a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None)
        return cls(
            positional=positional,
            posonly=len(args.posonlyargs),
            required_positional=len(positional) - len(args.defaults),
            vararg=args.vararg is not None,
            kwonly=kwonly,
            kwonly_required=required_kw,
            kwarg=args.kwarg is not None,
        )

    def bound(self) -> "Signature":
        """The signature once the first parameter (`self`, `cls`) is bound."""
        if not self.positional:
            return self
        return Signature(
            positional=self.positional[1:],
            posonly=max(0, self.posonly - 1),
            required_positional=max(0, self.required_positional - 1),
            vararg=self.vararg,
            kwonly=self.kwonly,
            kwonly_required=self.kwonly_required,
            kwarg=self.kwarg,
        )

    def accepts_keyword(self, name: str) -> bool:
        return self.kwarg or name in self.kwonly or name in self.positional[self.posonly :]

    def render(self) -> str:
        """`(batch, forward_batch=..., *, capture_hidden_mode=...)`: a parameter with a default
        shows `=...`."""
        parts = [n if i < self.required_positional else f"{n}=..." for i, n in enumerate(self.positional)]
        if self.posonly:
            parts.insert(self.posonly, "/")
        if self.vararg:
            parts.append("*args")
        elif self.kwonly:
            parts.append("*")
        parts.extend(n if n in self.kwonly_required else f"{n}=..." for n in self.kwonly)
        if self.kwarg:
            parts.append("**kwargs")
        return "(" + ", ".join(parts) + ")"


@dataclass(frozen=True)
class CallShape:
    """What a call passes: how many positional arguments (None: a `*args` we cannot count), the
    keywords it certainly passes, those a `**mapping` built in the same function may pass, and
    whether some `**` is not known at all."""

    positional: Optional[int]
    keywords: tuple[str, ...]
    maybe: frozenset[str] = frozenset()
    open_kwargs: bool = False


@dataclass(frozen=True)
class CallSite:
    """A call that may reach SGLang: `callee` is the dotted text of the called expression, or
    `super().NAME`, or `self.NAME`; `receiver` is set for a call on a worker receiver."""

    callee: str
    shape: CallShape
    line: int
    text: str
    function: str  # enclosing function's qualified name in the module ("" at module level)
    cls: Optional[str]  # enclosing class, for `self` and `super()`
    receiver: Optional[str] = None


@dataclass(frozen=True)
class AttrUse:
    attr: str
    line: int
    write: bool
    call: Optional[CallShape] = None  # `x.attr(...)`: the shape of that call


@dataclass
class TypedName:
    """A name in one function that may hold a batch: a parameter, or a local bound only from
    `X.init_new(...)` or with an annotation. `sources` are the annotation's candidate class names
    (dotted, `Optional`/`None` removed) or `init_new:<callee>`; an empty tuple for an unannotated
    parameter (a worker override's `batch`)."""

    name: str
    sources: tuple[str, ...]
    parameter: bool
    uses: list[AttrUse] = field(default_factory=list)


@dataclass
class FuncFacts:
    name: str
    qualname: str
    line: int
    signature: Optional[Signature]  # None: a decorator that may change how it is called
    kind: str  # "function", "method", "staticmethod", "classmethod", "property"
    typed: list[TypedName] = field(default_factory=list)


@dataclass
class ClassFacts:
    name: str
    line: int
    bases: tuple[Optional[str], ...]  # dotted text of each base; None for anything else
    has_class_keywords: bool  # metaclass= and the like
    decorators: tuple[str, ...]
    methods: dict[str, list[FuncFacts]] = field(default_factory=dict)
    attrs: set[str] = field(default_factory=set)
    dynamic: bool = False  # __getattr__, or setattr with a computed name: attributes are open


@dataclass(frozen=True)
class Binding:
    """How a module-level name is bound: `class`/`function` (defined here; `target` is its name),
    `from` (`target` module, `attr`), `import` (`target` module), or `other`."""

    kind: str
    target: str = ""
    attr: str = ""
    line: int = 0
    conditional: bool = False  # inside an `if`, `try`, `with` or loop at module level: may not run


@dataclass
class ModuleFacts:
    name: str
    display: str  # the path shown in reports
    is_package: bool
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    classes: dict[str, list[ClassFacts]] = field(default_factory=dict)
    functions: dict[str, list[FuncFacts]] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    worker_calls: list[CallSite] = field(default_factory=list)
    typed_functions: list[FuncFacts] = field(default_factory=list)
    created_workers: list[tuple[str, str]] = field(default_factory=list)  # `create_worker` returns
    registered_workers: list[tuple[str, str]] = field(default_factory=list)  # plugin factories' returns
    mentions: frozenset[bytes] = frozenset()  # the NEEDLES its text holds
    error: Optional[str] = None

    def class_named(self, name: str) -> Optional[ClassFacts]:
        found = self.classes.get(name)
        return found[0] if found and len(found) == 1 else None


def is_sglang(module: str) -> bool:
    """Whether a module name is in SGLang's namespace (`sglang`, `sglang.*`)."""
    return module == "sglang" or module.startswith("sglang.")


def extract(source: bytes, name: str, display: str, is_package: bool) -> ModuleFacts:
    facts = ModuleFacts(name=name, display=display, is_package=is_package)
    facts.mentions = frozenset(n for n in NEEDLES if n in source)
    try:
        tree = ast.parse(source, filename=display)
    except (SyntaxError, ValueError) as error:
        facts.error = f"does not parse: {error}"
        return facts
    _Extractor(facts, source).module(tree)
    return facts


def absolute_module(module: str, is_package: bool, level: int, target: Optional[str]) -> str:
    """The absolute name of `from <level dots><target> import ...` in `module`."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return dotted(target) or "?"


def _function_kind(node: FunctionNode, in_class: bool) -> tuple[str, bool]:
    """The function's kind and whether its decorators keep its signature."""
    kind = "method" if in_class else "function"
    safe = True
    for decorator in node.decorator_list:
        name = _decorator_name(decorator)
        if name == "staticmethod" and in_class:
            kind = "staticmethod"
        elif name == "classmethod" and in_class:
            kind = "classmethod"
        elif name in _PROPERTY_DECORATORS or name.endswith((".setter", ".getter", ".deleter")):
            kind = "property"
        elif name == "overload" or name == "typing.overload":
            safe = False
        elif name not in _SAFE_DECORATORS:
            safe = False
    return kind, safe


def _bound_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_names(target.value)


def _annotation_sources(node: Optional[ast.expr]) -> Optional[tuple[str, ...]]:
    """Candidate classes of an annotation: `X`, `Optional[X]`, `X | None`, `"X"`; None when it is
    no plain class (a `Union` of several classes, a generic, ...)."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not _is_none(s)]
        return _annotation_sources(sides[0]) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript):
        head = dotted(node.value) or ""
        if head.split(".")[-1] == "Optional":
            return _annotation_sources(node.slice)
        if head.split(".")[-1] == "Union" and isinstance(node.slice, ast.Tuple):
            sides = [s for s in node.slice.elts if not _is_none(s)]
            return _annotation_sources(sides[0]) if len(sides) == 1 else None
        return None
    name = dotted(node)
    return (name,) if name is not None else None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _mentions_batch(sources: Optional[tuple[str, ...]]) -> bool:
    return bool(sources) and any("Batch" in s.split(".")[-1] for s in sources or ())


def _short(node: ast.AST, limit: int = 120) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Index:
    """Every node of one function, nested scopes included, grouped by type: the function is walked
    once, and each fact reads the node types it needs."""

    def __init__(self, node: ast.AST) -> None:
        self.nodes: dict[type, list[ast.AST]] = {}
        for child in ast.walk(node):
            self.nodes.setdefault(type(child), []).append(child)
        self.root = node

    def of(self, *types: type) -> Iterator[ast.AST]:
        for kind in types:
            yield from self.nodes.get(kind, ())

    def bindings(self) -> dict[str, list[ast.AST]]:
        """The names bound in the function, with those its nested scopes bind (a nested binding
        of a name only makes the checks more careful about it)."""
        found: dict[str, list[ast.AST]] = {}

        def bind(name: str, node: ast.AST) -> None:
            found.setdefault(name, []).append(node)

        for scope in self.of(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            assert isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            args = scope.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    bind(arg.arg, arg)
            if scope is not self.root and not isinstance(scope, ast.Lambda):
                bind(scope.name, scope)
        for node in self.of(ast.ClassDef):
            assert isinstance(node, ast.ClassDef)
            bind(node.name, node)
        for node in self.of(ast.Assign, ast.AugAssign, ast.AnnAssign):
            assert isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for name in _bound_names(target):
                    bind(name, node)
        for node in self.of(ast.For, ast.AsyncFor, ast.comprehension):
            assert isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension))
            for name in _bound_names(node.target):
                bind(name, node)
        for node in self.of(ast.withitem):
            assert isinstance(node, ast.withitem)
            if node.optional_vars is not None:
                for name in _bound_names(node.optional_vars):
                    bind(name, node)
        for node in self.of(ast.ExceptHandler, ast.MatchAs, ast.MatchStar):
            bound: Optional[str] = getattr(node, "name", None)
            if bound:
                bind(bound, node)
        for node in self.of(ast.MatchMapping):
            assert isinstance(node, ast.MatchMapping)
            if node.rest:
                bind(node.rest, node)
        for node in self.of(ast.NamedExpr):
            assert isinstance(node, ast.NamedExpr)
            bind(node.target.id, node)
        for node in self.of(ast.Import, ast.ImportFrom):
            assert isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names:
                bind((alias.asname or alias.name).split(".")[0], node)
        for node in self.of(ast.Global, ast.Nonlocal, ast.Delete):
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    for name in _bound_names(target):
                        bind(name, node)
            else:
                assert isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names:
                    bind(name, node)
        return found


def _binds(node: ast.AST, name: str) -> bool:
    """Whether the nested scope `node` (function, lambda, comprehension) binds `name` itself."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return name in _Index(node).bindings()
    if isinstance(node, _COMPREHENSIONS):
        return any(name in set(_bound_names(g.target)) for g in node.generators)
    return False


def _holds(node: ast.expr, name: str) -> bool:
    """Whether `node` is the name `name`, or the attribute chain `self.x` when `name` is one."""
    if isinstance(node, ast.Name):
        return node.id == name
    head, _, tail = name.partition(".")
    return (
        bool(tail)
        and isinstance(node, ast.Attribute)
        and node.attr == tail
        and isinstance(node.value, ast.Name)
        and node.value.id == head
    )


def _walk_module_code(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module-level statement, without the functions and classes it defines."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is not node and isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield current
        stack.extend(ast.iter_child_nodes(current))


class _Extractor:
    def __init__(self, facts: ModuleFacts, source: bytes) -> None:
        self.facts = facts
        self.module_names: set[str] = set()
        self.lines = source.splitlines()
        self.index: Optional[_Index] = None

    # -- module level -------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> None:
        self._module_bindings(tree.body)
        self.module_names = set(self.facts.bindings)
        for node, class_name in self._definitions(tree.body, None):
            if isinstance(node, ast.ClassDef):
                self._class(node)
            else:
                self._function(node, class_name, node.name if class_name is None else f"{class_name}.{node.name}")
        # Calls at module level (rare for workers; kept for completeness of keyword checks).
        for statement in tree.body:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._calls(_walk_module_code(statement), None, "", None, set())

    def _module_bindings(self, body: Iterable[ast.stmt], conditional: bool = False) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._bind(node.name, Binding("function", node.name))
            elif isinstance(node, ast.ClassDef):
                self._bind(node.name, Binding("class", node.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self._bind(alias.asname, Binding("import", alias.name))
                    else:
                        root = alias.name.split(".")[0]
                        self._bind(root, Binding("import", root))
            elif isinstance(node, ast.ImportFrom):
                module = absolute_module(self.facts.name, self.facts.is_package, node.level, node.module)
                for alias in node.names:
                    if alias.name == "*":
                        self.facts.star_imports.append(module)
                    else:
                        binding = Binding("from", module, alias.name, node.lineno, conditional)
                        self._bind(alias.asname or alias.name, binding)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
                self._module_bindings(self._blocks(node), conditional=True)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if isinstance(node, ast.AnnAssign) and node.value is None:
                    continue
                for target in targets:
                    for bound in _bound_names(target):
                        self._bind(bound, Binding("other"))

    @staticmethod
    def _blocks(node: ast.stmt) -> list[ast.stmt]:
        statements: list[ast.stmt] = []
        for name in ("body", "orelse", "finalbody"):
            statements.extend(getattr(node, name, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            statements.extend(handler.body)
        return statements

    def _bind(self, name: str, binding: Binding) -> None:
        self.facts.bindings.setdefault(name, []).append(binding)

    def _definitions(
        self, body: Iterable[ast.stmt], class_name: Optional[str]
    ) -> Iterator[tuple[Union[ast.ClassDef, FunctionNode], Optional[str]]]:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield node, class_name
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)):
                yield from self._definitions(self._blocks(node), class_name)

    # -- classes ------------------------------------------------------------------------------
    def _class(self, node: ast.ClassDef) -> None:
        facts = ClassFacts(
            name=node.name,
            line=node.lineno,
            bases=tuple(dotted(b.value if isinstance(b, ast.Subscript) else b) for b in node.bases),
            has_class_keywords=bool(node.keywords),
            decorators=tuple(_decorator_name(d) for d in node.decorator_list),
        )
        self.facts.classes.setdefault(node.name, []).append(facts)
        methods: list[tuple[FunctionNode, FuncFacts, _Index]] = []
        declared: dict[str, set[tuple[str, ...]]] = {}  # `self.x: T` and class-level `x: T`
        for statement in self._class_body(node.body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                facts.attrs.add(statement.name)
                function = self._function(statement, node.name, f"{node.name}.{statement.name}")
                facts.methods.setdefault(statement.name, []).append(function)
                if statement.name in ("__getattr__", "__getattribute__"):
                    facts.dynamic = True
                if self.index is not None:
                    self._instance_attrs(self.index, statement, node.name, facts, function.kind)
                    methods.append((statement, function, self.index))
                    self._declared(statement, self.index, function.kind, declared)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                facts.attrs.add(statement.target.id)
                sources = _annotation_sources(statement.annotation)
                if sources is not None and _mentions_batch(sources):
                    declared.setdefault(statement.target.id, set()).add(sources)
            elif isinstance(statement, ast.ClassDef):
                facts.attrs.add(statement.name)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    names = list(_bound_names(target))
                    facts.attrs.update(names)
                    if "__slots__" in names and statement.value is not None:
                        facts.attrs.update(self._strings(statement.value))
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                for alias in statement.names:
                    facts.attrs.add((alias.asname or alias.name).split(".")[0])
        typed = {name: next(iter(found)) for name, found in declared.items() if len(found) == 1}
        if typed:
            for method, function, index in methods:
                self._attribute_uses(method, function, index, typed)

    @staticmethod
    def _declared(method: FunctionNode, index: _Index, kind: str, declared: dict[str, set[tuple[str, ...]]]) -> None:
        """`self.x: ScheduleBatch = ...` in a method declares the attribute's class."""
        params = [a.arg for a in [*method.args.posonlyargs, *method.args.args]]
        if not params or kind in ("staticmethod", "classmethod"):
            return
        for node in index.of(ast.AnnAssign):
            assert isinstance(node, ast.AnnAssign)
            target = node.target
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == params[0]
            ):
                sources = _annotation_sources(node.annotation)
                if sources is not None and _mentions_batch(sources):
                    declared.setdefault(target.attr, set()).add(sources)

    def _attribute_uses(
        self, method: FunctionNode, function: FuncFacts, index: _Index, typed: dict[str, tuple[str, ...]]
    ) -> None:
        """Uses of `self.x.attr` in a method, for the attributes `x` the class declares a batch."""
        params = [a.arg for a in [*method.args.posonlyargs, *method.args.args]]
        if not params or function.kind in ("staticmethod", "classmethod", "property"):
            return
        first = params[0]
        named = {
            n.attr
            for n in index.of(ast.Attribute)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == first
        }
        found = False
        for attr in sorted(named & set(typed)):
            candidate = TypedName(f"{first}.{attr}", typed[attr], False)
            self._uses(method.body, candidate, self._guards(index), suppressed=False)
            if candidate.uses:
                function.typed.append(candidate)
                found = True
        if found and function not in self.facts.typed_functions:
            self.facts.typed_functions.append(function)

    def _class_body(self, body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
        for statement in body:
            if isinstance(statement, (ast.If, ast.Try, ast.With)):
                yield from self._class_body(self._blocks(statement))
            else:
                yield statement

    @staticmethod
    def _strings(node: ast.expr) -> Iterator[str]:
        for child in ast.walk(node):
            if isinstance(child, ast.Constant) and isinstance(child.value, str):
                yield child.value

    def _instance_attrs(
        self, index: _Index, method: FunctionNode, class_name: str, facts: ClassFacts, kind: str
    ) -> None:
        """Attributes a method gives instances of its class: stores on `self`, on `cls`, and on
        locals it builds with `cls(...)`, `ClassName(...)` or `type(self)(...)`."""
        params = [a.arg for a in [*method.args.posonlyargs, *method.args.args]]
        instances = {params[0]} if params and kind != "staticmethod" else set()
        for node in index.of(ast.Assign):
            assert isinstance(node, ast.Assign)
            if isinstance(node.value, ast.Call):
                builder = node.value.func
                builds = dotted(builder) in {class_name, *instances} or (
                    isinstance(builder, ast.Call) and dotted(builder.func) == "type"
                )
                if builds:
                    for target in node.targets:
                        instances.update(_bound_names(target))
        if not instances:
            return
        for node in index.of(ast.Attribute):
            assert isinstance(node, ast.Attribute)
            if isinstance(node.value, ast.Name) and node.value.id in instances:
                if not isinstance(node.ctx, ast.Load):
                    facts.attrs.add(node.attr)
                elif node.attr == "__dict__":
                    facts.dynamic = True
        for node in index.of(ast.Call):
            assert isinstance(node, ast.Call)
            if dotted(node.func) in ("setattr", "object.__setattr__"):
                if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in instances:
                    if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                        facts.attrs.add(str(node.args[1].value))
                    else:
                        facts.dynamic = True

    # -- functions ----------------------------------------------------------------------------
    def _function(self, node: FunctionNode, class_name: Optional[str], qualname: str) -> FuncFacts:
        kind, safe = _function_kind(node, class_name is not None)
        function = FuncFacts(
            name=node.name,
            qualname=qualname,
            line=node.lineno,
            signature=Signature.of(node.args) if safe else None,
            kind=kind,
        )
        if class_name is None:
            self.facts.functions.setdefault(node.name, []).append(function)
        index = _Index(node)
        bindings = index.bindings()
        self._typed(node, index, bindings, function, class_name)
        if node.name == "create_worker":
            self._returns(node, self.facts.created_workers)
        elif class_name is None and any(self._registers(d) for d in node.decorator_list):
            self._returns(node, self.facts.registered_workers)
        locals_ = {n for n in bindings if n not in ("self", "cls", "super")}
        self._calls(index.of(ast.Call), class_name, qualname, node, locals_)
        self.index = index  # the method's nodes, for the instance attributes of its class
        return function

    @staticmethod
    def _registers(decorator: ast.expr) -> bool:
        name = _decorator_name(decorator)
        return name.endswith("SpeculativeAlgorithm.register") or name.split(".")[-1] == "register_algorithm"

    def _returns(self, node: FunctionNode, into: list[tuple[str, str]]) -> None:
        """The classes a factory returns: names imported in the function, or module-level names."""
        imported: dict[str, tuple[str, str]] = {}
        for child in ast.walk(node):
            if isinstance(child, ast.ImportFrom):
                module = absolute_module(self.facts.name, self.facts.is_package, child.level, child.module)
                for alias in child.names:
                    imported[alias.asname or alias.name] = (module, alias.name)
        for child in ast.walk(node):
            if isinstance(child, ast.Return) and isinstance(child.value, ast.Name):
                name = child.value.id
                into.append(imported.get(name, (self.facts.name, name)))

    def _typed(
        self,
        node: FunctionNode,
        index: _Index,
        bindings: dict[str, list[ast.AST]],
        function: FuncFacts,
        class_name: Optional[str],
    ) -> None:
        """Names that may hold a batch, and their attribute uses."""
        candidates: list[TypedName] = []
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        first = args[0].arg if args and class_name is not None and function.kind != "staticmethod" else None
        for arg in args:
            if arg.arg == first or len(bindings.get(arg.arg, [])) != 1:
                continue
            sources = _annotation_sources(arg.annotation)
            if arg.annotation is None and arg.arg == "batch" and class_name is not None:
                candidates.append(TypedName(arg.arg, (), True))
            elif sources is not None and _mentions_batch(sources):
                candidates.append(TypedName(arg.arg, sources, True))
        params = {a.arg for a in args}
        for name, bound in bindings.items():
            if name in params:
                continue
            sources = self._local_sources(bound)
            if sources is not None:
                candidates.append(TypedName(name, sources, False))
        if not candidates:
            return
        guarded = self._guards(index)
        for candidate in candidates:
            self._uses(node.body, candidate, guarded, suppressed=False)
        function.typed = [c for c in candidates if c.uses]
        if function.typed:
            self.facts.typed_functions.append(function)

    @staticmethod
    def _local_sources(bound: list[ast.AST]) -> Optional[tuple[str, ...]]:
        """A local counts when every binding of it is `x = C.init_new(...)` or annotated the same."""
        sources: set[str] = set()
        for node in bound:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                callee = dotted(value.func) if isinstance(value, ast.Call) else None
                if callee is None or not callee.endswith(".init_new"):
                    return None
                sources.add(f"init_new:{callee[: -len('.init_new')]}")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                annotation = _annotation_sources(node.annotation)
                if annotation is None or not _mentions_batch(annotation):
                    return None
                sources.update(annotation)
            else:
                return None
        return tuple(sorted(sources)) if len(sources) == 1 else None

    @staticmethod
    def _guards(index: _Index) -> set[tuple[str, str]]:
        """`hasattr(x, "a")` anywhere in the function: `x.a` is then not held against it."""
        guarded: set[tuple[str, str]] = set()
        for child in index.of(ast.Call):
            assert isinstance(child, ast.Call)
            if dotted(child.func) in ("hasattr", "getattr") and len(child.args) >= 2:
                target, attr = child.args[0], child.args[1]
                held = dotted(target)
                if held is not None and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                    if dotted(child.func) == "hasattr" or len(child.args) > 2:
                        guarded.add((held, attr.value))
        return guarded

    def _uses(
        self, nodes: Iterable[ast.AST], typed: TypedName, guarded: set[tuple[str, str]], suppressed: bool
    ) -> None:
        for node in nodes:
            self._use(node, typed, guarded, suppressed)

    def _use(self, node: ast.AST, typed: TypedName, guarded: set[tuple[str, str]], suppressed: bool) -> None:
        name = typed.name
        if isinstance(node, (*_SCOPES, *_COMPREHENSIONS)):
            if isinstance(node, ast.ClassDef) or _binds(node, name.split(".")[0]):
                return
        if isinstance(node, ast.Try) and self._catches_attribute_error(node):
            self._uses(node.body, typed, guarded, True)
            self._uses([*node.handlers, *node.orelse, *node.finalbody], typed, guarded, suppressed)
            return
        if isinstance(node, ast.Call):
            function = node.func
            name_of = dotted(function)
            if name_of in ("getattr", "setattr") and len(node.args) >= 2:
                target, attr = node.args[0], node.args[1]
                if (
                    _holds(target, name)
                    and isinstance(attr, ast.Constant)
                    and isinstance(attr.value, str)
                    and not suppressed
                    and (name_of == "setattr" or len(node.args) == 2)
                    and (name, attr.value) not in guarded
                ):
                    typed.uses.append(AttrUse(attr.value, node.lineno, name_of == "setattr"))
            if (
                isinstance(function, ast.Attribute)
                and _holds(function.value, name)
                and not suppressed
                and (name, function.attr) not in guarded
                and not function.attr.startswith("__")
            ):
                typed.uses.append(AttrUse(function.attr, node.lineno, False, self._shape(node, None)))
                self._uses([*node.args, *(k.value for k in node.keywords)], typed, guarded, suppressed)
                return
        if (
            isinstance(node, ast.Attribute)
            and _holds(node.value, name)
            and not suppressed
            and (name, node.attr) not in guarded
            and not node.attr.startswith("__")
        ):
            typed.uses.append(AttrUse(node.attr, node.lineno, not isinstance(node.ctx, ast.Load)))
        for child in ast.iter_child_nodes(node):
            self._use(child, typed, guarded, suppressed)

    @staticmethod
    def _catches_attribute_error(node: ast.Try) -> bool:
        for handler in node.handlers:
            if handler.type is None:
                return True
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            if any((dotted(t) or "").split(".")[-1] in _BROAD_EXCEPTIONS for t in types):
                return True
        return False

    # -- calls --------------------------------------------------------------------------------
    def _calls(
        self,
        nodes: Iterable[ast.AST],
        class_name: Optional[str],
        qualname: str,
        function: Optional[FunctionNode],
        locals_: set[str],
    ) -> None:
        """Calls that may reach SGLang: through a module-level name (not shadowed by a local),
        `self.m(...)`, `super().m(...)`, and any call on a worker receiver."""
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            if isinstance(callee, ast.Attribute):
                receiver = self._receiver(callee.value)
                if receiver is not None:
                    self.facts.worker_calls.append(
                        CallSite(
                            callee.attr,
                            self._shape(node, function),
                            node.lineno,
                            self._text(node),
                            qualname,
                            class_name,
                            receiver,
                        )
                    )
                    continue
            if (
                isinstance(callee, ast.Attribute)
                and isinstance(callee.value, ast.Call)
                and isinstance(callee.value.func, ast.Name)
                and callee.value.func.id == "super"
                and not callee.value.args
            ):
                name = f"super().{callee.attr}"
            else:
                name = dotted(callee) or ""
                root = name.split(".")[0]
                if not name or root in locals_:
                    continue
                if root in ("self", "cls"):
                    if class_name is None or name.count(".") != 1:
                        continue
                elif root not in self.module_names:
                    continue
            self.facts.calls.append(
                CallSite(name, self._shape(node, function), node.lineno, self._text(node), qualname, class_name)
            )

    def _text(self, node: ast.expr) -> str:
        """The call's source, whitespace folded, shortened."""
        lines = self.lines
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if start >= len(lines):
            return ""
        if start == end:
            chunk = lines[start][node.col_offset : node.end_col_offset]
        else:
            middle = lines[start + 1 : min(end, start + 8)]
            tail = lines[end][: node.end_col_offset] if end < len(lines) and end < start + 8 else b""
            chunk = b" ".join([lines[start][node.col_offset :], *middle, tail])
        text = " ".join(chunk.decode("utf-8", "replace").split())
        text = text.replace("( ", "(").replace(" )", ")").replace(", )", ")").replace(",)", ")")
        return text if len(text) <= 120 else text[:117] + "..."

    @staticmethod
    def _receiver(node: ast.expr) -> Optional[str]:
        if isinstance(node, ast.Attribute) and node.attr in WORKER_RECEIVERS:
            return node.attr
        if isinstance(node, ast.Name) and node.id in WORKER_RECEIVERS:
            return node.id
        return None

    def _shape(self, call: ast.Call, function: Optional[FunctionNode]) -> CallShape:
        positional: Optional[int] = 0
        for argument in call.args:
            if isinstance(argument, ast.Starred):
                positional = None
            elif positional is not None:
                positional += 1
        keywords: list[str] = []
        maybe: set[str] = set()
        open_kwargs = False
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords.append(keyword.arg)
                continue
            keys = self._mapping_keys(keyword.value, function)
            if keys is None:
                open_kwargs = True
            else:
                maybe |= keys
        return CallShape(positional, tuple(keywords), frozenset(maybe - set(keywords)), open_kwargs)

    def _mapping_keys(self, node: ast.expr, function: Optional[FunctionNode]) -> Optional[set[str]]:
        """The keys a `**mapping` may hold: a literal, or a local the function builds only from
        literals, `name[key] = ...`, `.update(...)` and `.setdefault(key, ...)`; None otherwise."""
        literal = self._literal_keys(node)
        if literal is not None or not isinstance(node, ast.Name) or function is None:
            return literal
        name = node.id
        arguments = function.args
        if name in {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}:
            return None
        if any(a is not None and a.arg == name for a in (arguments.vararg, arguments.kwarg)):
            return None
        keys: set[str] = set()
        assigned = False  # a name the function never assigns (a lambda's parameter, a global): unknown
        for child in ast.walk(function):
            found: Optional[set[str]] = set()
            if isinstance(child, ast.Assign) and any(name in set(_bound_names(t)) for t in child.targets):
                found = self._literal_keys(child.value) if all(isinstance(t, ast.Name) for t in child.targets) else None
                assigned = True
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign)) and dotted(child.target) == name:
                found = self._literal_keys(child.value)
                assigned = assigned or isinstance(child, ast.AnnAssign)
            elif isinstance(child, (ast.For, ast.AsyncFor, ast.comprehension)) and name in set(
                _bound_names(child.target)
            ):
                found = None
            elif isinstance(child, (ast.With, ast.AsyncWith)) and any(
                i.optional_vars is not None and name in set(_bound_names(i.optional_vars)) for i in child.items
            ):
                found = None
            elif isinstance(child, ast.NamedExpr) and child.target.id == name:
                found = None
            elif isinstance(child, ast.Subscript) and dotted(child.value) == name and isinstance(child.ctx, ast.Store):
                key = child.slice
                found = {key.value} if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
            elif isinstance(child, ast.Call):
                found = self._call_keys(child, name)
            if found is None:
                return None
            keys |= found
        return keys if assigned else None

    def _call_keys(self, call: ast.Call, name: str) -> Optional[set[str]]:
        """Keys a call adds to the mapping `name`; None when it may add any (it is handed on)."""
        target = call.func
        if isinstance(target, ast.Attribute) and dotted(target.value) == name:
            if target.attr == "update":
                keys: set[str] = set()
                for argument in call.args:
                    found = self._literal_keys(argument)
                    if found is None:
                        return None
                    keys |= found
                for keyword in call.keywords:
                    if keyword.arg is None:
                        return None
                    keys.add(keyword.arg)
                return keys
            if target.attr == "setdefault":
                first = call.args[0] if call.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    return {first.value}
                return None
            return set() if target.attr in ("get", "items", "keys", "values", "copy", "pop") else None
        if any(dotted(a) == name for a in call.args):
            return None
        if any(k.arg is not None and dotted(k.value) == name for k in call.keywords):
            return None
        return set()

    def _literal_keys(self, node: Optional[ast.expr]) -> Optional[set[str]]:
        if node is None:
            return set()
        if isinstance(node, ast.Dict):
            keys: set[str] = set()
            for key in node.keys:
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                keys.add(key.value)
            return keys
        if isinstance(node, ast.IfExp):
            body, orelse = self._literal_keys(node.body), self._literal_keys(node.orelse)
            return None if body is None or orelse is None else body | orelse
        if isinstance(node, ast.Call) and dotted(node.func) == "dict" and not node.args:
            if any(k.arg is None for k in node.keywords):
                return None
            return {k.arg for k in node.keywords if k.arg is not None}
        return None
