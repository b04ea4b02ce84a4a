"""The contracts shipped with mwbmigrate: what `verify --against` reads of each release it knows,
pruned, so that `rewrite --target-version VERSION` checks its result with no network and no wheel.

`scripts/release_contracts.py` writes `contracts/contracts-N.xz` next to this module from the published
wheels (and CI checks it against them, as it checks `analysis/release_table.py`). For each release
from 0.5.13 on it keeps every module's facts (`verify/facts.py`) except what the contract step
never reads of a release:

* calls: only a worker class's calls of its own methods (`self.m(...)`), which are contract calls
  (`against.ReleaseModel`); the release's other calls serve only to recognise the release's own
  code in a vendored copy of SGLang, which the contract step does not check;
* typed names: only their writes (what the release stores on a batch value), without call shapes.

A module whose pruned facts are the same in several releases is stored once. Nothing here reads a
wheel or SGLang's code: a release the file does not know is read from its wheel, as before.
"""

from __future__ import annotations

import functools
import hashlib
import json
import lzma
import zlib
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

from mwbmigrate.verify.facts import (
    AttrUse,
    Binding,
    CallShape,
    CallSite,
    ClassFacts,
    FuncFacts,
    ModuleFacts,
    Signature,
    TypedName,
    is_sglang,
)

__all__ = [
    "CONTRACT_DIR",
    "FORMAT",
    "ShippedRelease",
    "decode_module",
    "encode_module",
    "prune",
    "shipped_release",
    "shipped_versions",
    "write_contracts",
]

CONTRACT_DIR = Path(__file__).resolve().parent / "contracts"
# The modules are spread over a few files by their name (each file well under 2 MB): every version
# of one module stays in one file, side by side, which is what the compression feeds on.
SHARDS = 3
FORMAT = 1
Encoded = list[Any]


# -- the codec: each fact as a list of its fields, in the dataclass's order ----------------------
def _signature(signature: Optional[Signature]) -> Optional[Encoded]:
    if signature is None:
        return None
    return [
        list(signature.positional),
        signature.posonly,
        signature.required_positional,
        signature.vararg,
        list(signature.kwonly),
        sorted(signature.kwonly_required),
        signature.kwarg,
    ]


def _unsignature(data: Optional[Encoded]) -> Optional[Signature]:
    if data is None:
        return None
    positional, posonly, required, vararg, kwonly, kwonly_required, kwarg = data
    return Signature(tuple(positional), posonly, required, vararg, tuple(kwonly), frozenset(kwonly_required), kwarg)


def _shape(shape: Optional[CallShape]) -> Optional[Encoded]:
    if shape is None:
        return None
    return [shape.positional, list(shape.keywords), sorted(shape.maybe), shape.open_kwargs]


def _unshape(data: Optional[Encoded]) -> Optional[CallShape]:
    if data is None:
        return None
    return CallShape(data[0], tuple(data[1]), frozenset(data[2]), data[3])


def _site(site: CallSite) -> Encoded:
    return [site.callee, _shape(site.shape), site.line, site.text, site.function, site.cls, site.receiver]


def _unsite(data: Encoded) -> CallSite:
    shape = _unshape(data[1])
    assert shape is not None
    return CallSite(data[0], shape, data[2], data[3], data[4], data[5], data[6])


def _function(function: FuncFacts, owner: str = "") -> Encoded:
    """`owner`: the class of a method, whose qualified name is then not stored."""
    qualname = None if function.qualname == f"{owner}{function.name}" else function.qualname
    encoded: Encoded = [function.name, qualname, function.line, _signature(function.signature), function.kind]
    if function.typed:
        encoded.append(
            [
                [t.name, list(t.sources), t.parameter, [[u.attr, u.line, u.write, _shape(u.call)] for u in t.uses]]
                for t in function.typed
            ]
        )
    return encoded


def _unfunction(data: Encoded, owner: str = "") -> FuncFacts:
    typed = [
        TypedName(name, tuple(sources), parameter, [AttrUse(u[0], u[1], u[2], _unshape(u[3])) for u in uses])
        for name, sources, parameter, uses in (data[5] if len(data) > 5 else ())
    ]
    qualname = data[1] if data[1] is not None else f"{owner}{data[0]}"
    return FuncFacts(data[0], qualname, data[2], _unsignature(data[3]), data[4], typed)


def _class(cls: ClassFacts) -> Encoded:
    methods = {name: [_function(f, f"{cls.name}.") for f in functions] for name, functions in cls.methods.items()}
    return [
        cls.name,
        cls.line,
        list(cls.bases),
        cls.has_class_keywords,
        list(cls.decorators),
        methods,
        sorted(cls.attrs),
        cls.dynamic,
    ]


def _unclass(data: Encoded) -> ClassFacts:
    name, line, bases, keywords, decorators, methods, attrs, dynamic = data
    return ClassFacts(
        name,
        line,
        tuple(bases),
        keywords,
        tuple(decorators),
        {method: [_unfunction(f, f"{name}.") for f in functions] for method, functions in methods.items()},
        set(attrs),
        dynamic,
    )


def decode_display(name: str, encoded: Encoded) -> str:
    return str(encoded[1]) if encoded[1] is not None else _display(name, bool(encoded[2]))


def _display(name: str, is_package: bool) -> str:
    """Where a release module's file is, below the folder holding `sglang/`."""
    return name.replace(".", "/") + ("/__init__.py" if is_package else ".py")


# A module's own definitions and the names it binds otherwise, each as one small number.
_BINDING_CODES = {"other": 0, "function": 1, "class": 2}
_BINDING_KINDS = {code: kind for kind, code in _BINDING_CODES.items()}


def _binding(name: str, binding: Binding) -> Any:
    code = _BINDING_CODES.get(binding.kind)
    target = name if binding.kind in ("function", "class") else ""
    if code is not None and (binding.target, binding.attr, binding.line, binding.conditional) == (target, "", 0, False):
        return code
    return [binding.kind, binding.target, binding.attr, binding.line, binding.conditional]


def _unbinding(name: str, data: Any) -> Binding:
    if isinstance(data, int):
        kind = _BINDING_KINDS[data]
        return Binding(kind, name if kind in ("function", "class") else "")
    return Binding(*data)


def encode_module(facts: ModuleFacts) -> Encoded:
    bindings = {name: [_binding(name, b) for b in found] for name, found in facts.bindings.items()}
    return [
        facts.name,
        None if facts.display == _display(facts.name, facts.is_package) else facts.display,
        facts.is_package,
        bindings,
        list(facts.star_imports),
        {name: [_class(c) for c in found] for name, found in facts.classes.items()},
        {name: [_function(f) for f in found] for name, found in facts.functions.items()},
        [_site(s) for s in facts.calls],
        [_site(s) for s in facts.worker_calls],
        [_function(f) for f in facts.typed_functions],
        [list(pair) for pair in facts.created_workers],
        [list(pair) for pair in facts.registered_workers],
        sorted(m.decode() for m in facts.mentions),
        facts.error,
    ]


def decode_module(data: Encoded) -> ModuleFacts:
    (
        name,
        display,
        is_package,
        bindings,
        stars,
        classes,
        functions,
        calls,
        worker_calls,
        typed,
        created,
        registered,
        mentions,
        error,
    ) = data
    return ModuleFacts(
        name=name,
        display=decode_display(name, data),
        is_package=is_package,
        bindings={key: [_unbinding(key, b) for b in found] for key, found in bindings.items()},
        star_imports=list(stars),
        classes={key: [_unclass(c) for c in found] for key, found in classes.items()},
        functions={key: [_unfunction(f) for f in found] for key, found in functions.items()},
        calls=[_unsite(s) for s in calls],
        worker_calls=[_unsite(s) for s in worker_calls],
        typed_functions=[_unfunction(f) for f in typed],
        created_workers=[(a, b) for a, b in created],
        registered_workers=[(a, b) for a, b in registered],
        mentions=frozenset(m.encode() for m in mentions),
        error=error,
    )


# -- pruning -------------------------------------------------------------------------------------
def prune(facts: ModuleFacts, worker_classes: Iterable[str]) -> ModuleFacts:
    """The facts the contract step reads of a release module; `worker_classes`: the module's
    classes that are a worker or a worker's base (whose `self.m(...)` calls are contract calls)."""
    workers = frozenset(worker_classes)
    typed_functions: list[FuncFacts] = []
    for function in facts.typed_functions:
        typed = [
            TypedName(t.name, t.sources, t.parameter, [AttrUse(u.attr, u.line, True) for u in t.uses if u.write])
            for t in function.typed
        ]
        typed = [t for t in typed if t.uses]
        if typed:
            typed_functions.append(
                FuncFacts(function.name, function.qualname, function.line, function.signature, function.kind, typed)
            )

    def bare(function: FuncFacts) -> FuncFacts:
        return FuncFacts(function.name, function.qualname, function.line, function.signature, function.kind)

    classes = {
        name: [
            ClassFacts(
                c.name,
                c.line,
                c.bases,
                c.has_class_keywords,
                c.decorators,
                {m: [bare(f) for f in found] for m, found in c.methods.items()},
                set(c.attrs),
                c.dynamic,
            )
            for c in found
        ]
        for name, found in facts.classes.items()
    }
    return ModuleFacts(
        name=facts.name,
        display=facts.display,
        is_package=facts.is_package,
        bindings={name: [_within_sglang(b) for b in found] for name, found in facts.bindings.items()},
        star_imports=facts.star_imports,
        classes=classes,
        functions={name: [bare(f) for f in found] for name, found in facts.functions.items()},
        calls=[
            s for s in facts.calls if s.cls in workers and s.callee.startswith("self.") and s.callee.count(".") == 1
        ],
        worker_calls=facts.worker_calls,
        typed_functions=typed_functions,
        created_workers=facts.created_workers,
        registered_workers=facts.registered_workers,
        mentions=facts.mentions,
        error=facts.error,
    )


def _within_sglang(binding: Binding) -> Binding:
    """A name imported from outside SGLang only says that the module binds it: what it denotes is
    resolved in the tree checked, which is not the release's environment (`codebase.Resolver`)."""
    if binding.kind in ("from", "import") and not is_sglang(binding.target):
        return Binding("other", conditional=binding.conditional)
    # Where a release imports a name is never shown: only the tree's lines are.
    return Binding(binding.kind, binding.target, binding.attr, 0, binding.conditional)


# -- the files -----------------------------------------------------------------------------------
# Each file is one xz stream of lines: a header (the format, the releases), a line per module of each release,
# `@version TAB name TAB key`, then one line per distinct module facts, `key TAB mentions TAB path
# TAB json`, in
# order of module name and release: the versions of one module sit side by side, which is what
# makes thirteen releases compress to about what one does. A reader streams it and keeps only the
# lines of the release it reads, each decoded when first asked for.
def write_contracts(releases: Mapping[str, Mapping[str, ModuleFacts]]) -> dict[str, bytes]:
    """The files for `releases` (version -> module name -> pruned facts), by name: deterministic, so
    that a check can compare them with the checked-in files byte for byte."""
    return {
        f"contracts-{shard}.xz": _write_shard(
            {
                version: {name: facts for name, facts in by_name.items() if _shard(name) == shard}
                for version, by_name in releases.items()
            }
        )
        for shard in range(SHARDS)
    }


def _shard(module: str) -> int:
    return zlib.crc32(module.encode()) % SHARDS


def _write_shard(releases: Mapping[str, Mapping[str, ModuleFacts]]) -> bytes:
    lines: dict[str, tuple[str, str, str]] = {}  # key -> (module name, mentions, json)
    index: dict[str, dict[str, str]] = {}
    order = {version: position for position, version in enumerate(releases)}
    for version, by_name in releases.items():
        names: dict[str, str] = {}
        for name in sorted(by_name):
            facts = by_name[name]
            text = json.dumps(encode_module(facts), separators=(",", ":"), sort_keys=True)
            key = hashlib.sha256(text.encode()).hexdigest()[:16]
            mentions = ",".join(sorted(m.decode() for m in facts.mentions))
            lines.setdefault(key, (f"{name}\0{order[version]:04d}", f"{mentions}\t{facts.display}", text))
            names[name] = key
        index[version] = names
    header = json.dumps({"format": FORMAT, "releases": list(index)}, separators=(",", ":"))
    listing = "".join(
        f"@{version}\t{name}\t{key}\n" for version, by_name in index.items() for name, key in by_name.items()
    )
    body = "".join(
        f"{key}\t{mentions}\t{text}\n"
        for key, (_, mentions, text) in sorted(lines.items(), key=lambda item: item[1][0])
    )
    return lzma.compress(f"{header}\n{listing}{body}".encode(), preset=6)


class ShippedRelease:
    """One shipped release's modules, each decoded when first asked for."""

    def __init__(
        self, version: str, modules: Mapping[str, str], lines: Mapping[str, tuple[frozenset[bytes], str, bytes]]
    ) -> None:
        self.version = version
        self.names = dict(modules)
        self._lines = lines  # key -> (mentions, display, json)
        self.digest = hashlib.sha256(json.dumps([version, sorted(self.names.items())]).encode()).hexdigest()

    def _encoded(self, name: str) -> Encoded:
        encoded: Encoded = json.loads(self._lines[self.names[name]][2])
        return encoded

    def facts(self, name: str) -> ModuleFacts:
        return decode_module(self._encoded(name))

    def is_package(self, name: str) -> bool:
        return self.display(name).endswith("/__init__.py")

    def display(self, name: str) -> str:
        return self._lines[self.names[name]][1]

    def mentions(self, name: str) -> frozenset[bytes]:
        """The `facts.NEEDLES` the module's text holds, without decoding its facts."""
        return self._lines[self.names[name]][0]


def _lines_of(path: Path) -> Iterator[bytes]:
    """The file's lines, decompressed a megabyte at a time (the whole text is some 80 MB)."""
    decompressor = lzma.LZMADecompressor()
    pending = b""
    with open(path, "rb") as handle:
        while not decompressor.eof:
            if decompressor.needs_input:
                block = handle.read(1 << 16)
                if not block:
                    raise lzma.LZMAError("the file ends before its stream does")
            else:
                block = b""
            pending += decompressor.decompress(block, max_length=1 << 20)
            *complete, pending = pending.split(b"\n")
            yield from complete
    if pending:
        yield pending


def _header(path: Path) -> Optional[dict[str, Any]]:
    try:
        first = next(_lines_of(path), b"")
        header = json.loads(first)
    except (OSError, ValueError, lzma.LZMAError):
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("releases"), list):
        return None
    return header


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("contracts-*.xz"))


@functools.lru_cache(maxsize=1)
def shipped_versions(folder: Path = CONTRACT_DIR) -> tuple[str, ...]:
    """The releases whose contract ships with this installation (every file must name the same)."""
    headers = [_header(path) for path in _files(folder)]
    if not headers or any(h is None or h["releases"] != headers[0]["releases"] for h in headers):  # type: ignore[index]
        return ()
    return tuple(headers[0]["releases"])  # type: ignore[index]


@functools.lru_cache(maxsize=2)
def shipped_release(version: str, folder: Path = CONTRACT_DIR) -> Optional[ShippedRelease]:
    """The contract of `version` as shipped, or None when this installation has none for it."""
    if version not in shipped_versions(folder):
        return None
    names: dict[str, str] = {}
    kept: dict[str, tuple[frozenset[bytes], str, bytes]] = {}
    try:
        for path in _files(folder):
            _read_release(path, version, names, kept)
    except (OSError, ValueError, lzma.LZMAError):
        return None
    if not names or kept.keys() != set(names.values()):
        return None
    return ShippedRelease(version, names, kept)


def _read_release(
    path: Path, version: str, names: dict[str, str], kept: dict[str, tuple[frozenset[bytes], str, bytes]]
) -> None:
    """Add one file's modules of `version` to `names` (module -> key) and `kept` (key -> its line)."""
    tag = f"@{version}".encode()
    wanted: Optional[set[str]] = None
    lines = _lines_of(path)
    next(lines, b"")
    for line in lines:
        if line.startswith(b"@"):
            release, name, key = line.split(b"\t")
            if release == tag:
                names[name.decode()] = key.decode()
            continue
        if wanted is None:  # the names come first: the release's keys are all known here
            wanted = set(names.values())
        key, mentions, display, text = line.split(b"\t", 3)
        if key.decode() in wanted:
            kept[key.decode()] = (frozenset(m for m in mentions.split(b",") if m), display.decode(), text)
