"""Facts of the whole tree that decide whether a snapshot's window may read the live batch.

The window allowlist (`analysis/window.py`) proves that the statements between a snapshot and its
last use run nothing but SGLang's `ForwardBatch.init_new`. Two things anywhere in the tree break
that proof, whichever module they are in:

* a patch of the consumer: an `init_new` attribute stored (`ForwardBatch.init_new = ...`), or named
  in a string as the last part of a dotted name (`setattr(ForwardBatch, "init_new", ...)`,
  `mock.patch("...ForwardBatch.init_new")`). A docstring that mentions `init_new` in prose is not one;
* code that runs when the forward reads or writes an attribute: a property (or `cached_property`, a
  setter, a getter) named as an attribute the old method or a release's `init_new` reads through the
  batch, its speculative input, its sampling info or its requests; a descriptor class (`__get__`);
  a `__getattribute__`, `__setattr__` or `__delattr__` installed on a class anywhere, or defined in
  a module that names the batch or the old API (`ScheduleBatch`, `ModelWorkerBatch`,
  `get_model_worker_batch`), and there also a class built on a container (`dict`, `list`, ...),
  false when empty: the old method tested the speculative input by truth, `init_new` by `is not
  None`. The old method ran such reads when the snapshot was taken, in its order;
  `init_new` on the live batch runs them at the forward, in another order, and writes the one-shot
  fields' resets on the batch, which the old method never wrote.

Both are read from every file's bytes in the pre-pass that already reads the tree (engine/runner.py);
a module migrated alone (stdin, the differential oracle) is its own tree. Assumed, and said in the
README: a `__getattr__` that answers one of these names for an object lacking it, a patch whose name
is computed, and an attribute hook defined in a module that names neither the batch nor the old API
(and reaching a batch class by inheritance from elsewhere) are not seen.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterable

from mwbmigrate.runtime.snapshot import CONSUMER_READS, OLD_CLASS_NAME, OLD_FIELDS, OLD_METHOD_READS

__all__ = [
    "OwnWorkerBatchFields",
    "WindowFacts",
    "WindowFactsScan",
    "own_worker_batch_fields",
    "scan_window_facts",
]

# What the forward reads: the old object's fields (the old method read each from the batch), what a
# release's consumers read beyond them, and what both read through the batch's parts.
FORWARD_READS = frozenset(
    {
        *(name for name, _ in OLD_FIELDS),
        *CONSUMER_READS,
        "extend_lens",
        "prefix_lens",
        "lora_id",
        "dllm_block_offset",
        "grammar",
        "grammars",
        "rid",
    }
)
_NAMES = b"|".join(sorted(name.encode() for name in FORWARD_READS))
# What the old method read after it first read the requests' values (`lora_ids`) and before it took
# the request list (`reqs`), the capture mode's inputs and each request's own values among them: code
# run by one of these reads may change the list between the two, so the values the old object held
# and those the target's `init_new` derives from its list at the forward part ways.
_OLD_KEYWORDS = [keyword for keyword, _ in OLD_METHOD_READS]
BETWEEN_REQUEST_READS = frozenset(
    {
        *_OLD_KEYWORDS[_OLD_KEYWORDS.index("lora_ids") : _OLD_KEYWORDS.index("reqs") + 1],
        "return_hidden_states",
        "lora_id",
        "dllm_block_offset",
        "grammar",
    }
)
_HOOKS = frozenset({"__getattribute__", "__get__"})  # the hooks that run on a read
# `x.init_new = f`, a string naming `init_new` as a dotted name's last part, or any `setattr` on the
# forward-batch class (its name may be computed: `setattr(ForwardBatch, "_".join(...), f)`).
_PATCH = re.compile(rb"\.init_new\s*=(?!=)|[\"'][\w.]*\binit_new[\"']|\bsetattr\(\s*(?:[\w.]+\.)?ForwardBatch\b")
# Its last alternative alone, for bytes without `init_new` (the others need the word): the same matches.
_PATCH_BY_SETATTR = re.compile(rb"\bsetattr\(\s*(?:[\w.]+\.)?ForwardBatch\b")
# Any decorator, not only `property`: an alias of it (`prop = property`) or a descriptor of the
# tree's own makes the method run on a read too. A hook named in a string (a `type()` dict, a
# `setattr`) is installed as surely as one assigned.
_DECORATED_READ = (
    rb"@[ \t]*[\w.]+\b[^\n]*\n"
    rb"(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?def[ \t]+(?P<decorated>" + _NAMES + rb")\b"
)
_CODE_ON_READ = re.compile(
    _DECORATED_READ + rb"|\b(?P<assigned>" + _NAMES + rb")[ \t]*=[ \t]*(?:[\w.]+\.)?(?:property|cached_property)\("
    rb"|\.(?P<installed>__getattribute__|__get__|__setattr__|__delattr__)[ \t]*=(?!=)"
    rb"|def[ \t]+(?P<descriptor>__get__)\b"
    rb"|[\"'](?P<keyed>__getattribute__|__get__|__setattr__|__delattr__)[\"']"
)
# Its first alternative alone, for bytes without the words every other one needs: the same matches,
# and the word-boundary alternatives, tried at every word, cost most of the scan.
_DECORATED_ON_READ = re.compile(_DECORATED_READ)
_OTHER_READ_WORDS = (b"property(", b"__get", b"__setattr__", b"__delattr__")


# A class's own attribute hooks count in a module that names the batch or the old API: a batch class,
# a subclass of one, or the speculative input it holds, is defined or built there. (A descriptor class,
# `__get__`, counts anywhere: its instances may sit on a batch class as any field.)
_HOOK_DEFINED = re.compile(
    rb"def[ \t]+(?:(?P<hook>__getattribute__|__setattr__|__delattr__)"
    # What the old method and `init_new` call on the batch's parts: the forward mode's tests, the
    # truth of the sampling info and the speculative input.
    rb"|(?P<method>is_decode_or_idle|is_extend|is_decode|is_idle|is_mixed|is_target_verify|is_draft_extend"
    rb"|__bool__|__len__))\b"
)
# A class built on a container, a number or a string is false when empty or zero, with no `__bool__`
# or `__len__` of its own: the old method tested the speculative input by truth (`if self.spec_info`),
# 0.5.13's `init_new` tests `is not None`, so such an input takes another capture mode on the live batch.
_FALSY_CLASS = re.compile(
    rb"(?m)^[ \t]*class[ \t]+\w+[ \t]*\([^)]*?\b(?P<falsy>dict|list|tuple|set|frozenset|deque|OrderedDict"
    rb"|defaultdict|Counter|UserDict|UserList|Dict|List|Tuple|Set|FrozenSet|Deque"
    rb"|int|float|complex|str|bytes|bytearray|bool|memoryview)\b"
)
_NAMES_THE_BATCH = (b"ScheduleBatch", b"ModelWorkerBatch", b"get_model_worker_batch")
# `def __eq__`, or one installed (`X.__eq__ = f`, `__eq__ = f` in a class body, a `type()` dict or
# `setattr` naming it).
_EQUALITY = re.compile(
    rb"(?m)def[ \t]+(?P<name>__eq__|__ne__)\b|(?:\.|^[ \t]*)(?P<installed>__eq__|__ne__)[ \t]*=(?!=)"
    rb"|[\"'](?P<keyed>__eq__|__ne__)[\"']"
)
# SGLang's own: `PPProxyTensors`, the compiler's cache key and the vendored pynvml's structs.
_UPSTREAM_EQUALITY = (
    "sglang/srt/model_executor/forward_batch_info.py",
    "sglang/srt/compilation/compile.py",
    "sglang/multimodal_gen/third_party/pynvml.py",
)
# SGLang 0.5.12.post1's own (module, name) hits: `Req.is_prefill_only` is a property on the request,
# which neither the old method nor `init_new` reads (they read the batch's field of that name); the
# forward mode's tests and the sampling info's length are SGLang's, which the target shares.
_UPSTREAM_HITS = frozenset(
    {
        ("sglang/srt/managers/schedule_batch.py", "is_prefill_only"),
        *(
            ("sglang/srt/model_executor/forward_batch_info.py", name)
            for name in ("is_decode_or_idle", "is_extend", "is_decode", "is_idle", "is_mixed", "is_target_verify",
                         "is_draft_extend", "__len__")
        ),
        ("sglang/srt/sampling/sampling_batch_info.py", "__len__"),
    }
)  # fmt: skip


@dataclass(frozen=True)
class WindowFacts:
    """Where the tree breaks the window proof, as `path:line (what)`; None where it does not."""

    consumer_patched: str | None = None
    code_on_read: str | None = None
    # Where the tree defines a method a release's `init_new` calls on the batch's parts (a forward
    # mode's test, `__bool__`, `__len__`): it runs at every forward, a kept snapshot's included,
    # where the old forward called other ones.
    forward_method: str | None = None
    # Where the tree runs code on a read the old method made between its reads of the requests'
    # values and of the request list (`BETWEEN_REQUEST_READS`), or on any read (a hook).
    code_between_request_reads: str | None = None
    # Attributes of `self` the tree hands to `init_new` (`ForwardBatch.init_new(b, self.model_runner)`)
    # that are plain: assigned as `self.name = ...` somewhere in the tree, or defined as a property
    # whose body only returns another attribute of `self` (`return self._model_runner`), and defined
    # nowhere as another property or through `__getattribute__`, so reading one runs no code.
    plain_self_attributes: frozenset[str] = frozenset()
    # Where the tree defines or installs `__eq__` or `__ne__` (SGLang's own classes that hold no
    # capture mode aside): a comparison with a value of such a class runs its code.
    equality_defined: str | None = None

    def breaks_window(self) -> str | None:
        if self.consumer_patched is not None:
            return f"the tree patches `ForwardBatch.init_new` ({self.consumer_patched})"
        if self.code_on_read is not None:
            return f"the tree runs code when the forward reads an attribute ({self.code_on_read})"
        return None


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


_SELF_ASSIGNED = re.compile(rb"\bself\.(\w+)[ \t]*(?::[^=\n]*)?=(?!=)")
_CONSUMER_ARGUMENTS = re.compile(rb"\binit_new\(([^()]*)\)")
_SELF_READ = re.compile(rb"\bself\.(\w+)\b")
_ANY_DECORATED = (
    rb"@[ \t]*(?P<decorator>[\w.]+)\b[^\n]*\n"
    rb"(?:[ \t]*@[^\n]*\n)*(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<decorated>\w+)[^\n]*:[ \t]*(?:#[^\n]*)?\n"
)
_ANY_PROPERTY = re.compile(
    _ANY_DECORATED + rb"|\b(?P<assigned>\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?(?:property|cached_property)\("
)
# Its first alternative alone, for bytes without `property(` (the second needs it): the same matches.
_ANY_DECORATOR = re.compile(_ANY_DECORATED)
# SGLang's and the standard library's property decorators: only theirs run nothing but the body.
_PROPERTY = re.compile(rb"(?:[\w.]+\.)?(?:property|cached_property|setter|getter|deleter)")
# A property body that runs nothing of the tree's: `return self._name`, `pass`, `...`, a docstring.
_ACCESSOR_LINE = re.compile(rb"(?:return[ \t]+self\.\w+|pass|\.\.\.|(?:\"\"\"|'|\")[^\n]*)[ \t]*(?:#[^\n]*)?")


def _accessor_body(data: bytes, start: int, indent: bytes) -> bool:
    """Whether the property defined just before `start` is a plain accessor (one line of
    `_ACCESSOR_LINE`, a docstring line besides)."""
    body = []
    for line in data[start:].split(b"\n"):
        if not line.strip() or line.strip().startswith(b"#"):
            continue
        if len(line) - len(line.lstrip()) <= len(indent):
            break
        body.append(line.strip())
        if len(body) > 2:
            return False
    docstring = [line for line in body if line[:1] in (b'"', b"'")]
    code = [line for line in body if line[:1] not in (b'"', b"'")]
    return len(docstring) <= 1 and len(code) <= 1 and all(_ACCESSOR_LINE.fullmatch(line) for line in code)


class WindowFactsScan:
    """Fed each file's bytes once, in the pre-pass; keeps the first patch and the first code on a read."""

    def __init__(self) -> None:
        self._patched: str | None = None
        self._code: str | None = None
        self._handed: set[bytes] = set()  # `self.x` read inside an `init_new(...)` call
        self._assigned: set[bytes] = set()
        self._properties: set[bytes] = set()
        self._accessors: set[bytes] = set()  # properties that only return an attribute of `self`
        self._method: str | None = None
        self._between: str | None = None
        self._equality: str | None = None

    def feed(self, path: str, data: bytes, location: str | None = None) -> None:
        """`path`: the file as reports name it; `location`: where it is (its resolved path), which
        tells SGLang's own modules also when the tree was given below its `sglang/` folder."""
        where_it_is = location if location is not None else path
        if self._patched is None and (b"init_new" in data or b"ForwardBatch" in data):
            found = (_PATCH if b"init_new" in data else _PATCH_BY_SETATTR).search(data)
            if found is not None:
                self._patched = f"{path}:{_line(data, found.start())}"
        if (self._code is None or self._method is None or self._between is None) and (
            b"def" in data or b"property" in data or b".__" in data or b"class" in data
        ):
            hits = list(
                (_CODE_ON_READ if any(w in data for w in _OTHER_READ_WORDS) else _DECORATED_ON_READ).finditer(data)
            )
            if any(word in data for word in _NAMES_THE_BATCH):
                hits += _HOOK_DEFINED.finditer(data)
                hits += _FALSY_CLASS.finditer(data)
            for hit in sorted(hits, key=lambda h: h.start()):
                name = next(g for g in hit.groups() if g is not None).decode()
                if any(where_it_is.endswith(module) and name == upstream for module, upstream in _UPSTREAM_HITS):
                    continue
                where = f"{path}:{_line(data, hit.start())} `{name}`"
                self._code = self._code or where
                if name in BETWEEN_REQUEST_READS or name in _HOOKS:
                    self._between = self._between or where
                if "method" in hit.re.groupindex and hit.group("method") is not None:
                    self._method = self._method or where
                if self._method is not None and self._between is not None:
                    break
        if self._equality is None and (b"__eq__" in data or b"__ne__" in data):
            for hit in _EQUALITY.finditer(data):
                if not any(where_it_is.endswith(module) for module in _UPSTREAM_EQUALITY):
                    name = hit.group("name") or hit.group("installed") or hit.group("keyed")
                    self._equality = f"{path}:{_line(data, hit.start())} `{name.decode()}`"
                    break
        if b"init_new(" in data:
            for call in _CONSUMER_ARGUMENTS.finditer(data):
                self._handed.update(_SELF_READ.findall(call.group(1)))
        if b"self." in data:
            self._assigned.update(_SELF_ASSIGNED.findall(data))
        if b"@" in data or b"property" in data:
            for match in (_ANY_PROPERTY if b"property(" in data else _ANY_DECORATOR).finditer(data):
                assigned = match.groupdict().get("assigned")
                if assigned is not None:
                    self._properties.add(assigned)
                elif _PROPERTY.fullmatch(match.group("decorator")) and _accessor_body(
                    data, match.end(), match.group("indent")
                ):
                    self._accessors.add(match.group("decorated"))
                else:
                    self._properties.add(match.group("decorated"))

    def facts(self) -> WindowFacts:
        # A `__getattribute__` that could reach `self` breaks every window already (`code_on_read`).
        plain = (self._handed & (self._assigned | self._accessors)) - self._properties
        return WindowFacts(
            self._patched,
            self._code,
            self._method,
            self._between,
            frozenset(name.decode() for name in plain),
            self._equality,
        )


def scan_window_facts(sources: Iterable[tuple[str, bytes]]) -> WindowFacts:
    """The facts of a tree given as `(path, bytes)` pairs."""
    scan = WindowFactsScan()
    for path, data in sources:
        scan.feed(path, data)
    return scan.facts()


@dataclass(frozen=True)
class OwnWorkerBatchFields:
    """The fields a fork's own `ModelWorkerBatch` (in its SGLang `schedule_batch.py`) has beyond
    0.5.12.post1's: those its `get_model_worker_batch()` copies from the batch attribute of the same
    name, which a kept snapshot copies too, and the others with what computes them (`field: code`)."""

    copied: tuple[str, ...] = ()
    computed: tuple[tuple[str, str], ...] = ()
    # The fields the tree's own `ScheduleBatch` declares that its old method copied into the old
    # object from the batch attribute of the same name: on this tree, `batch.<field>` is what the
    # old object held (whatever a later release removed; the contract check judges the release).
    batch_copies: tuple[str, ...] = ()


def _copies_itself(value: ast.expr | None, name: str) -> bool:
    """`name=self.name`: the old method's keyword copies the batch attribute of the same name."""
    return (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == "self"
        and value.attr == name
    )


def own_worker_batch_fields(source: bytes) -> OwnWorkerBatchFields:
    """What the tree's own `ModelWorkerBatch` adds, read from its schedule_batch module's source."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return OwnWorkerBatchFields()
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    declared = classes.get(OLD_CLASS_NAME)
    if declared is None:
        return OwnWorkerBatchFields()
    batch = classes.get("ScheduleBatch")
    batch_declares = {
        statement.target.id
        for statement in (batch.body if batch is not None else ())
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    }
    known = {name for name, _ in OLD_FIELDS}
    own = [
        statement.target.id
        for statement in declared.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.target.id not in known
    ]
    passed: dict[str, ast.expr] = {}
    for node in ast.walk(classes["ScheduleBatch"]) if "ScheduleBatch" in classes else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == OLD_CLASS_NAME:
            passed.update({k.arg: k.value for k in node.keywords if k.arg is not None})
    batch_copies = sorted(name for name in batch_declares if _copies_itself(passed.get(name), name))
    copied, computed = [], []
    for name in own:
        value = passed.get(name)
        if _copies_itself(value, name):
            copied.append(name)
            continue
        code = ast.unparse(value) if value is not None else "the class's default"
        computed.append((name, code if len(code) <= 60 else code[:57] + "..."))
    return OwnWorkerBatchFields(tuple(copied), tuple(computed), tuple(batch_copies))
