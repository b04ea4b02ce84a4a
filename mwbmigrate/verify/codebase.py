"""A tree of Python modules read as facts, and names resolved across a tree and a release.

:class:`Codebase` indexes the `.py` files under a root by module name (SGLang's modules by their
real name, `sglang.srt...`, wherever the `sglang/` folder sits; a vendored copy such as
`third_party/sglang/srt/...` as well) and extracts each module's facts the first time something
asks for it. :class:`Resolver` answers "what does this name in this module denote": a class or
function of the tree, of the release, a module, or nothing known. A name in SGLang's namespace
(`sglang.*`) denotes the *release's* definition whenever the release has that module, also when
the tree is itself an (older) SGLang tree: that is what the tree's code meets once it runs
against the release.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping, Optional, Union

from mwbmigrate.verify.facts import NEEDLES, ClassFacts, FuncFacts, ModuleFacts, extract, is_sglang

if TYPE_CHECKING:
    from mwbmigrate.verify.shipped_contract import ShippedRelease

__all__ = ["ClassRef", "Codebase", "FuncRef", "ModRef", "Ref", "Resolver", "is_sglang"]

_FACTS_FORMAT = 2
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_SAFE_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"})


def module_name(root: Path, relative: Path) -> tuple[str, bool]:
    """The module a file under `root` is, and whether it is a package (`__init__.py`)."""
    parts = list(relative.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    full = [root.name, *parts]
    # SGLang's modules are named from the last `sglang` folder (a package, not a module file).
    for index in range(len(full) - 1, -1, -1):
        if full[index] == "sglang" and (index < len(full) - 1 or is_package):
            return ".".join(full[index:]), is_package
    return ".".join(parts), is_package


class Codebase:
    """The Python files under `root`, their facts extracted on demand (once)."""

    def __init__(
        self, root: Path, only: Optional[Path] = None, overlay: Optional[Mapping[Path, bytes]] = None, walk: bool = True
    ) -> None:
        """`only`: a single file under `root` (a tree given as one file). `overlay`: the text of some
        files (by resolved path) as it would be, read instead of the file (a rewrite not yet written).
        `walk=False`: no file is indexed (`shipped`)."""
        self.root = root
        self._overlay = dict(overlay or {})
        self.files: dict[str, Path] = {}
        self.packages: set[str] = set()
        self._facts: dict[str, ModuleFacts] = {}
        # Facts an earlier run kept, each module's still pickled (what the texts it mentions, its
        # pickle): unpickled when first asked for, so a run holds only the modules it reads.
        self._kept: dict[str, tuple[frozenset[bytes], bytes]] = {}
        self._saved = 0
        stamps: list[tuple[str, int, int]] = []
        # A file only the overlay has (a module read on stdin, named where it would live) is part of the tree too.
        absent = [
            root / p.relative_to(root.resolve())
            for p in self._overlay
            if not p.exists() and root.resolve() in p.parents
        ]
        walked = [] if not walk else [only] if only is not None else [*self._walk(root), *absent]
        for path in walked:
            name, is_package = module_name(root, path.relative_to(root))
            if not name or name in self.files:
                continue
            self.files[name] = path
            if is_package:
                self.packages.add(name)
            try:
                stat = path.stat()
                stamps.append((name, stat.st_size, stat.st_mtime_ns))
            except OSError:
                stamps.append((name, -1, -1))
        # What the files were when indexed: a codebase kept for reuse is only reused unchanged.
        overlaid = sorted((str(k), hashlib.sha256(v).hexdigest()) for k, v in self._overlay.items())
        self.stamp = hashlib.sha256(repr((stamps, overlaid)).encode()).hexdigest()
        # Every package name, also of folders without `__init__.py` (namespace portions).
        self.prefixes = {".".join(m.split(".")[:i]) for m in self.files for i in range(1, m.count(".") + 1)}
        self._suffixes: Optional[dict[str, list[str]]] = None
        self.unparsed: list[str] = []
        self._shipped: Optional["ShippedRelease"] = None

    @classmethod
    def shipped(cls, release: "ShippedRelease", root: Path) -> "Codebase":
        """A release's codebase from the contract shipped with mwbmigrate (`shipped_contract.py`):
        its modules' facts, decoded when first asked for; `root` names it (no file is read)."""
        codebase = cls(root, overlay=None, only=None, walk=False)
        codebase._shipped = release
        for name in release.names:
            codebase.files[name] = root / release.display(name)
            if release.is_package(name):
                codebase.packages.add(name)
        codebase.prefixes = {".".join(m.split(".")[:i]) for m in codebase.files for i in range(1, m.count(".") + 1)}
        codebase.stamp = release.digest
        return codebase

    @staticmethod
    def _walk(root: Path) -> Iterator[Path]:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".")
                and d not in _SKIP_DIRS
                and not (Path(folder, d) / "pyvenv.cfg").exists()
                and not Path(folder, d).is_symlink()
            )
            for file in sorted(files):
                path = Path(folder, file)
                if file.endswith(".py") and not path.is_symlink():
                    yield path

    def display(self, name: str) -> str:
        """The module's path relative to the root, as reports show it."""
        return self.files[name].relative_to(self.root).as_posix()

    @property
    def extracted(self) -> int:
        """How many modules' facts are known."""
        return len(self._facts.keys() | self._kept.keys())

    def has(self, name: str) -> bool:
        return name in self.files

    def source(self, name: str) -> bytes:
        if self._overlay:
            text = self._overlay.get(self.files[name].resolve())
            if text is not None:
                return text
        try:
            return self.files[name].read_bytes()
        except OSError:
            return b""

    def module(self, name: str) -> Optional[ModuleFacts]:
        if name not in self.files:
            found = self._by_suffix(name)
            if found is None:
                return None
            name = found
        facts = self._facts.get(name)
        if facts is None and name in self._kept:
            facts = self._unpickled(name)
        if facts is None and self._shipped is not None:
            facts = self._facts[name] = self._shipped.facts(name)
        if facts is None:
            facts = extract(self.source(name), name, self.display(name), name in self.packages)
            if facts.error is not None:
                self.unparsed.append(f"{facts.display}: {facts.error}")
            self._facts[name] = facts
        return facts

    def _by_suffix(self, name: str) -> Optional[str]:
        """A module named by a deeper path (a `src/` layout, a tree given above its package)."""
        if is_sglang(name):
            return None
        if self._suffixes is None:
            self._suffixes = {}
            for full in self.files:
                parts = full.split(".")
                for start in range(1, len(parts)):
                    self._suffixes.setdefault(".".join(parts[start:]), []).append(full)
        matches = self._suffixes.get(name, [])
        return matches[0] if len(matches) == 1 else None

    # -- the facts of a release, kept between runs ----------------------------------------------
    def load_facts(self, path: Path) -> None:
        """Take the facts an earlier run saved, when they are of these very files and this very
        analyser; anything else (missing, corrupt, stale) is ignored. Each module's facts stay
        pickled until asked for."""
        self._saved = 0
        try:
            with open(path, "rb") as handle:
                saved = pickle.load(handle)
        except Exception:
            return
        if not isinstance(saved, dict) or saved.get("key") != self._facts_key():
            return
        kept = saved.get("facts")
        if isinstance(kept, dict):
            for name, entry in kept.items():
                if name in self.files and _kept_entry(entry):
                    self._kept[name] = entry
            self._saved = self.extracted

    def _unpickled(self, name: str, hold: bool = True) -> ModuleFacts | None:
        """The kept facts of `name`; None (and forgotten) where they do not read back as a module's:
        its facts are extracted from its text again, as for a module never kept."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            facts = pickle.loads(self._kept[name][1])
        except Exception:
            facts = None
        finally:
            if enabled:
                gc.enable()
        if not isinstance(facts, ModuleFacts):
            del self._kept[name]
            return None
        if hold:
            self._facts[name] = facts
        return facts

    def forget_kept_facts(self) -> None:
        """Let go of the unpickled facts of kept modules (read again when asked for): after a pass
        over most of a release, only what the check then resolves is held."""
        for name in self._kept.keys() & self._facts.keys():
            del self._facts[name]

    def save_facts(self, path: Path) -> None:
        """Write the facts extracted so far (atomically), when there are new ones."""
        if self._shipped is not None or self.extracted <= getattr(self, "_saved", 0):
            return
        kept = dict(self._kept)
        for name, facts in self._facts.items():
            if name not in kept:
                kept[name] = (facts.mentions, pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
            try:
                with os.fdopen(handle, "wb") as out:
                    pickle.dump({"key": self._facts_key(), "facts": kept}, out, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, path)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            self._saved = self.extracted
        except Exception:
            return

    def _facts_key(self) -> str:
        digest = hashlib.sha256(f"{_FACTS_FORMAT}\0{sys.version}\0{self.stamp}\0{self.root.resolve()}".encode())
        here = Path(__file__).resolve().parent
        for source in ("facts.py", "codebase.py"):
            digest.update((here / source).read_bytes())
        return digest.hexdigest()

    def scan(self, *needles: bytes) -> Iterator[ModuleFacts]:
        """Every module whose text holds one of `needles` (words of `facts.NEEDLES`; all modules
        when none is given), facts
        extracted with the garbage collector paused (it is what makes parsing thousands of files
        slow, not the parsing)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            assert all(n in NEEDLES for n in needles), needles
            for name in list(self.files):
                known = self._facts.get(name)
                if known is None and name in self._kept:
                    if needles and not self._kept[name][0] & set(needles):
                        continue
                    # Not held: a pass over a release reads most of it, and keeps little.
                    known = self._unpickled(name, hold=False)
                if known is None and self._shipped is not None:
                    if needles and not self._shipped.mentions(name) & set(needles):
                        continue
                    known = self._shipped.facts(name)  # not held, as kept facts are not
                if known is not None:
                    if not needles or known.mentions & set(needles):
                        yield known
                    continue
                if needles:
                    data = self.source(name)
                    if not any(n in data for n in needles):
                        continue
                facts = self.module(name)
                if facts is not None:
                    yield facts
        finally:
            if enabled:
                gc.enable()


def _kept_entry(entry: object) -> bool:
    """(the needles its text mentions, its facts pickled): what `save_facts` writes for a module."""
    return (
        isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], frozenset) and isinstance(entry[1], bytes)
    )


@dataclass(frozen=True)
class ClassRef:
    codebase: Codebase
    module: ModuleFacts
    facts: ClassFacts

    @property
    def key(self) -> tuple[int, str, str, int]:
        return (id(self.codebase), self.module.name, self.facts.name, self.facts.line)

    @property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.facts.name}"

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassRef) and self.key == other.key


@dataclass(frozen=True)
class FuncRef:
    codebase: Codebase
    module: ModuleFacts
    facts: FuncFacts
    owner: Optional[ClassRef] = None


@dataclass(frozen=True)
class ModRef:
    name: str


Ref = Union[ClassRef, FuncRef, ModRef]


@dataclass
class Ancestry:
    """A class and its bases, in method resolution order as far as it is known (depth first, left
    to right, each class once); `complete` is False when some base could not be resolved."""

    classes: list[ClassRef]
    complete: bool


class Resolver:
    """Names of the tree and of the release, resolved (see the module docstring)."""

    def __init__(self, tree: Codebase, release: Codebase) -> None:
        self.tree = tree
        self.release = release
        self._cache: dict[tuple[int, str, str], Optional[Ref]] = {}
        self._ancestry: dict[ClassRef, Ancestry] = {}

    # -- modules ------------------------------------------------------------------------------
    def find_module(self, name: str) -> Optional[tuple[Codebase, ModuleFacts]]:
        """SGLang's modules come from the release (the tree's copy only for a module the release
        does not have); every other module from the tree."""
        order = (self.release, self.tree) if is_sglang(name) else (self.tree,)
        for codebase in order:
            if codebase.has(name) or not is_sglang(name):
                facts = codebase.module(name)
                if facts is not None:
                    return codebase, facts
        return None

    def _is_namespace(self, name: str) -> bool:
        return name in self.release.prefixes or name in self.tree.prefixes

    # -- names --------------------------------------------------------------------------------
    def resolve(self, codebase: Codebase, module: ModuleFacts, name: str, depth: int = 0) -> Optional[Ref]:
        """What the module-level `name` of `module` denotes."""
        if codebase is self.tree and is_sglang(module.name) and self.release.has(module.name):
            # The tree's own copy of an SGLang module stands for the release's.
            released = self.release.module(module.name)
            if released is not None and released is not module:
                found = self.resolve(self.release, released, name, depth)
                if found is not None:
                    return found
        key = (id(codebase), module.name, name)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # cycles resolve to nothing
        found = self._resolve(codebase, module, name, depth)
        self._cache[key] = found
        return found

    def _resolve(self, codebase: Codebase, module: ModuleFacts, name: str, depth: int) -> Optional[Ref]:
        if depth > 12:
            return None
        bindings = module.bindings.get(name)
        if not bindings:
            for star in module.star_imports:
                found = self.resolve_in(star, name, depth + 1)
                if found is not None:
                    return found
            return None
        results: list[Optional[Ref]] = []
        for binding in bindings:
            if binding.kind == "class":
                classes = module.classes.get(name, [])
                results.append(ClassRef(codebase, module, classes[0]) if len(classes) == 1 else None)
            elif binding.kind == "function":
                functions = module.functions.get(name, [])
                results.append(FuncRef(codebase, module, functions[0]) if len(functions) == 1 else None)
            elif binding.kind == "from":
                results.append(self.resolve_in(binding.target, binding.attr, depth + 1))
            elif binding.kind == "import":
                results.append(ModRef(binding.target))
            else:
                results.append(None)
        first = results[0]
        if first is None or any(not self._same(first, other) for other in results[1:]):
            return None
        return first

    @staticmethod
    def _same(one: Optional[Ref], other: Optional[Ref]) -> bool:
        if isinstance(one, ClassRef) and isinstance(other, ClassRef):
            return one.key == other.key
        if isinstance(one, FuncRef) and isinstance(other, FuncRef):
            return one.facts is other.facts
        return one == other

    def resolve_in(self, module_name: str, attr: str, depth: int = 0) -> Optional[Ref]:
        """`attr` looked up in the module `module_name` (a definition, a re-export, a submodule)."""
        found = self.find_module(module_name)
        if found is not None:
            codebase, facts = found
            ref = self.resolve(codebase, facts, attr, depth + 1)
            if ref is not None:
                return ref
        submodule = f"{module_name}.{attr}"
        if self.find_module(submodule) is not None or self._is_namespace(submodule):
            return ModRef(submodule)
        return None

    def resolve_dotted(self, codebase: Codebase, module: ModuleFacts, text: str) -> Optional[Ref]:
        """`a.b.c` in `module`: the first name, then attributes of modules and classes."""
        parts = text.split(".")
        ref = self.resolve(codebase, module, parts[0])
        for part in parts[1:]:
            if isinstance(ref, ModRef):
                ref = self.resolve_in(ref.name, part)
            elif isinstance(ref, ClassRef):
                found = self.lookup(ref, part)
                ref = found[1] if found is not None else None
            else:
                return None
        return ref

    # -- classes ------------------------------------------------------------------------------
    def ancestry(self, cls: ClassRef) -> Ancestry:
        cached = self._ancestry.get(cls)
        if cached is not None:
            return cached
        self._ancestry[cls] = Ancestry([cls], False)  # a cycle: incomplete
        classes: list[ClassRef] = [cls]
        complete = True
        for base in cls.facts.bases:
            if base is None:
                complete = False
                continue
            if base in _SAFE_BASES:
                continue
            ref = self.resolve_dotted(cls.codebase, cls.module, base)
            if not isinstance(ref, ClassRef):
                complete = False
                continue
            inherited = self.ancestry(ref)
            complete = complete and inherited.complete
            for ancestor in inherited.classes:
                if ancestor not in classes:
                    classes.append(ancestor)
        result = Ancestry(classes, complete)
        self._ancestry[cls] = result
        return result

    def lookup(self, cls: ClassRef, attr: str) -> Optional[tuple[ClassRef, Ref]]:
        """The method `attr` as the class finds it: the first class of its ancestry that defines
        it. None when none does, or when a base that could not be resolved comes first."""
        for ancestor in self.ancestry(cls).classes:
            methods = ancestor.facts.methods.get(attr)
            if methods:
                if len(methods) != 1:
                    return None
                return ancestor, FuncRef(ancestor.codebase, ancestor.module, methods[0], ancestor)
            if attr in ancestor.facts.attrs:
                return None  # an attribute that is not a method
            if not self.bases_known(ancestor):
                return None
        return None

    def bases_known(self, cls: ClassRef) -> bool:
        for base in cls.facts.bases:
            if base is None:
                return False
            if base in _SAFE_BASES:
                continue
            if not isinstance(self.resolve_dotted(cls.codebase, cls.module, base), ClassRef):
                return False
        return True

    def attributes(self, cls: ClassRef) -> Optional[set[str]]:
        """Every attribute the class and its bases define; None when that is not knowable (a base
        that is not resolved, `__getattr__`, `setattr` with a computed name)."""
        ancestry = self.ancestry(cls)
        if not ancestry.complete:
            return None
        names: set[str] = set()
        for ancestor in ancestry.classes:
            if ancestor.facts.dynamic:
                return None
            names |= ancestor.facts.attrs
        return names
