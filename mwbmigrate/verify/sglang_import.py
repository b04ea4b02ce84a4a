"""Import an SGLang tree on a CPU-only machine, the way upstream's own unit tests do.

``import_sglang_tree(root)`` puts the tree first on ``sys.path`` and imports the modules the
verify suite needs (``schedule_batch``, ``forward_batch_info``, ``sampling_batch_info``,
``scheduler``, ``spec_utils``) with three stand-ins for what a GPU-less machine lacks:

* ``sgl_kernel``: when it cannot be imported, every ``sgl_kernel.*`` module becomes a module
  whose attributes are ``MagicMock``s -- what upstream's ``maybe_stub_sgl_kernel()`` does
  (re-implemented here: ``sglang.test.test_utils`` itself needs aiohttp, numpy, PIL...).
* ``triton``: when it cannot be imported, the tree's own ``sglang/_triton_stub.py`` (the stub
  upstream installs on macOS) is loaded from its file and installed; a tree without one gets the
  generic stub below.
* other third-party modules (numpy, transformers, zmq, ...): a module that cannot be found *and*
  is imported by a file of the tree outside a ``try`` that handles ImportError becomes a
  permissive stub (attributes are subclassable, callable stand-ins). Imports from elsewhere
  (torch, pytest, sympy...) and guarded optional imports are never stubbed, so feature probes
  see the module as absent, as on a real machine without it.

``torch.compile`` is a pass-through decorator while the tree is imported (decorating would import
torch's inductor, which sees the triton stub and fails); it is restored afterwards.

Heavy constructors are not run: build ``ScheduleBatch(...)`` directly as the dataclass it is, and
a ``Scheduler`` with ``object.__new__`` plus only the attributes the method under test reads.

Importing a second tree in the same process drops the first one's ``sglang`` modules from
``sys.modules``; classes obtained before keep working but belong to the old tree. The verify
runner imports a tree in its own pytest process.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, cast

__all__ = [
    "REQUIRED_MODULES",
    "OPTIONAL_MODULES",
    "SGLangImportError",
    "SGLangTree",
    "find_sglang_root",
    "import_sglang_tree",
    "tree_version",
]

SCHEDULE_BATCH = "sglang.srt.managers.schedule_batch"
FORWARD_BATCH_INFO = "sglang.srt.model_executor.forward_batch_info"
SAMPLING_BATCH_INFO = "sglang.srt.sampling.sampling_batch_info"
SCHEDULER = "sglang.srt.managers.scheduler"
SPEC_UTILS = "sglang.srt.speculative.spec_utils"

#: Without these the tree cannot be tested at all.
REQUIRED_MODULES = (SCHEDULE_BATCH,)
#: Imported when present; a failure is recorded in ``SGLangTree.problems``.
OPTIONAL_MODULES = (FORWARD_BATCH_INFO, SAMPLING_BATCH_INFO, SCHEDULER, SPEC_UTILS)

# Modules that must never be stubbed even when missing (a stub would only hide the real error).
_NEVER_STUB = frozenset({"sglang", "torch", "pytest", "mwbmigrate"})
# Missing modules replaced by a stdlib one with the same API for what runs at import time
# (``dill.dumps(cls).hex()`` at class-definition time in a config module).
_SHIMS = {"dill": "pickle"}


class SGLangImportError(ImportError):
    """The tree cannot be imported on this machine; ``reason`` says why in one line."""

    def __init__(self, root: Path | str, reason: str) -> None:
        self.root = str(root)
        self.reason = reason
        super().__init__(f"cannot import the SGLang tree at {root}: {reason}")


@dataclass
class SGLangTree:
    """What the verify suite needs from an imported tree."""

    root: Path  # the folder holding the ``sglang/`` package
    version: str | None
    modules: dict[str, types.ModuleType]
    stubbed: tuple[str, ...]  # top-level module names replaced by stubs
    problems: dict[str, str] = field(default_factory=dict)  # optional module -> why it failed
    absent: tuple[str, ...] = ()  # optional modules the tree does not have

    def module(self, name: str) -> types.ModuleType | None:
        return self.modules.get(name)

    def _attr(self, module: str, name: str) -> Any:
        mod = self.modules.get(module)
        return getattr(mod, name, None) if mod is not None else None

    def _class(self, module: str, name: str) -> type | None:
        # A class of the imported tree: what it is is only known at run time.
        return cast("type | None", self._attr(module, name))

    @property
    def schedule_batch(self) -> types.ModuleType:
        return self.modules[SCHEDULE_BATCH]

    @property
    def ScheduleBatch(self) -> type:  # noqa: N802 - the class
        return cast(type, self.schedule_batch.ScheduleBatch)  # a required module's class, known at run time

    @property
    def ForwardBatch(self) -> type | None:  # noqa: N802
        return self._class(FORWARD_BATCH_INFO, "ForwardBatch")

    @property
    def ForwardMode(self) -> Any:  # noqa: N802
        return self._attr(FORWARD_BATCH_INFO, "ForwardMode") or getattr(self.schedule_batch, "ForwardMode", None)

    @property
    def CaptureHiddenMode(self) -> Any:  # noqa: N802
        return self._attr(FORWARD_BATCH_INFO, "CaptureHiddenMode")

    @property
    def SamplingBatchInfo(self) -> type | None:  # noqa: N802
        return self._class(SAMPLING_BATCH_INFO, "SamplingBatchInfo")

    @property
    def Scheduler(self) -> type | None:  # noqa: N802
        return self._class(SCHEDULER, "Scheduler")

    @property
    def spec_utils(self) -> types.ModuleType | None:
        return self.modules.get(SPEC_UTILS)

    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self.ScheduleBatch))


# --------------------------------------------------------------------------- locating a tree


def find_sglang_root(path: Path | str) -> Path | None:
    """The folder holding ``sglang/__init__.py`` for ``path``.

    Accepts that folder itself, the ``sglang`` package folder, or an upstream checkout (which
    keeps the package under ``python/``). None when there is no SGLang package there.
    """
    path = Path(path).resolve()
    for candidate in (path, path / "python"):
        if (candidate / "sglang" / "__init__.py").is_file():
            return candidate
    if path.name == "sglang" and (path / "__init__.py").is_file():
        return path.parent
    return None


def tree_version(root: Path) -> str | None:
    """The version the wheel was built as (``sglang/_version.py``, read, not imported)."""
    for name in ("_version.py", "version.py"):
        try:
            text = (root / "sglang" / name).read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.findall(r"""^__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""", text, re.M)
        if found:
            return str(found[-1])
    return None


# --------------------------------------------------------------------------- the stubs


def _is_probe(name: str) -> bool:
    # Dunders are how Python and libraries probe an object (pydantic, dataclasses, typing...);
    # answering them with a stub breaks those probes. ``__func__`` is read off class methods.
    return name.startswith("__") and name.endswith("__") and name != "__func__"


class _StubMeta(type):
    """Metaclass of stand-in classes: any attribute is another stand-in class."""

    def __getattr__(cls, name: str) -> Any:
        if _is_probe(name):
            raise AttributeError(name)
        return _stub_class(f"{cls.__qualname__}.{name}", cls.__module__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], types.FunctionType):
            return args[0]  # used as a decorator
        return super().__call__(*args, **kwargs)

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __setitem__(cls, key: Any, value: Any) -> None:
        pass

    def __contains__(cls, item: Any) -> bool:
        return False

    def __iter__(cls) -> Iterator[Any]:
        return iter(())

    def __len__(cls) -> int:
        return 0

    def __bool__(cls) -> bool:
        return False

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__


class _Stub(metaclass=_StubMeta):
    """Base of every stand-in class; instances accept anything as well."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        pass

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema  # only called when pydantic is installed

        return core_schema.any_schema()

    def __getattr__(self, name: str) -> Any:
        if _is_probe(name):
            raise AttributeError(name)
        return _stub_class(f"{type(self).__qualname__}.{name}", type(self).__module__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], types.FunctionType):
            return args[0]
        return _stub_class(f"{type(self).__qualname__}()", type(self).__module__)()

    def __getitem__(self, key: Any) -> Any:
        return _stub_class(f"{type(self).__qualname__}[]", type(self).__module__)()

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        return iter(())


def _stub_class(qualname: str, module: str) -> type:
    return _StubMeta(qualname.rsplit(".", 1)[-1], (_Stub,), {"__qualname__": qualname, "__module__": module})


class _StubModule(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []
        self.__mwbmigrate_stub__ = True

    def __getattr__(self, name: str) -> Any:
        if _is_probe(name):
            raise AttributeError(name)
        value = _stub_class(name, self.__name__)
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _SglKernelLoader(importlib.abc.Loader):
    """Upstream's ``maybe_stub_sgl_kernel``: a module whose attributes are MagicMocks."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        from unittest.mock import MagicMock

        module.__getattr__ = lambda name: MagicMock()  # type: ignore[method-assign]


class _SglKernelFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "sgl_kernel" or fullname.startswith("sgl_kernel."):
            return importlib.machinery.ModuleSpec(fullname, _SglKernelLoader(), is_package=True)
        return None


@functools.lru_cache(maxsize=4096)
def _guarded_lines(filename: str) -> frozenset[int]:
    """Lines of ``filename`` inside a ``try`` whose handlers catch ImportError (or broader)."""
    try:
        source = Path(filename).read_text(encoding="utf-8-sig")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()
    catching = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}

    def catches(handler: ast.ExceptHandler) -> bool:
        if handler.type is None:
            return True
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        return any(
            (isinstance(n, ast.Name) and n.id in catching) or (isinstance(n, ast.Attribute) and n.attr in catching)
            for n in names
        )

    lines: set[int] = set()
    try_types = (ast.Try, getattr(ast, "TryStar", ast.Try))
    for node in ast.walk(tree):
        if isinstance(node, try_types) and any(catches(h) for h in node.handlers):
            for statement in node.body:
                lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return frozenset(lines)


class _TreeStubFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: stubs a missing module imported by the tree's own code."""

    def __init__(self, package_dir: Path) -> None:
        self.package_dir = str(package_dir) + os.sep
        self.stubbed: set[str] = set()

    def _importer(self) -> tuple[str, int] | None:
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith("<frozen"):  # skip importlib's own frames
                return filename, frame.f_lineno
            frame = frame.f_back
        return None

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        top = fullname.partition(".")[0]
        if top in _NEVER_STUB:
            return None
        importer = self._importer()
        if importer is None or not importer[0].startswith(self.package_dir):
            return None  # somebody else's import (or importlib.util.find_spec): leave it missing
        if importer[1] in _guarded_lines(importer[0]):
            return None  # an optional import: the tree handles its absence itself
        self.stubbed.add(top)
        if fullname in _SHIMS:
            return importlib.util.find_spec(_SHIMS[fullname])
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure means "use the stub"
        return False
    return True


def _install_sgl_kernel_stub() -> bool:
    if any(isinstance(f, _SglKernelFinder) for f in sys.meta_path):
        return True
    if _importable("sgl_kernel"):
        return False
    sys.meta_path.insert(0, _SglKernelFinder())
    return True


def _install_triton_stub(root: Path) -> bool:
    if "triton" in sys.modules:
        return getattr(sys.modules["triton"], "__mwbmigrate_stub__", False) or "stub" in repr(sys.modules["triton"])
    if importlib.util.find_spec("triton") is not None:
        return False
    stub_file = root / "sglang" / "_triton_stub.py"
    if stub_file.is_file():
        spec = importlib.util.spec_from_file_location("_mwbmigrate_sglang_triton_stub", stub_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.install()
    return True  # without the tree's stub the generic finder stubs `triton` on first import


@contextlib.contextmanager
def _compile_is_passthrough() -> Iterator[None]:
    import torch

    original = torch.compile

    def passthrough(model: Any = None, *args: Any, **kwargs: Any) -> Any:
        if model is None:
            return lambda fn: fn
        return model

    torch.compile = passthrough
    try:
        yield
    finally:
        torch.compile = original


def _purge_other_tree(root: Path) -> None:
    loaded = sys.modules.get("sglang")
    if loaded is None:
        return
    location = Path(getattr(loaded, "__file__", "") or "").resolve().parent.parent
    if location == root:
        return
    for name in [n for n in sys.modules if n == "sglang" or n.startswith("sglang.")]:
        del sys.modules[name]
    _guarded_lines.cache_clear()


def _module_file_exists(root: Path, name: str) -> bool:
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


_FINDERS: dict[Path, _TreeStubFinder] = {}


def import_sglang_tree(
    path: Path | str,
    *,
    required: tuple[str, ...] = REQUIRED_MODULES,
    optional: tuple[str, ...] = OPTIONAL_MODULES,
) -> SGLangTree:
    """Import the SGLang package found at ``path`` on CPU and return its modules.

    Raises :class:`SGLangImportError` (an ImportError) with a one-line reason when ``path``
    holds no SGLang package, torch is missing, or a required module fails to import. A failing
    optional module is recorded in ``SGLangTree.problems`` instead, one the tree does not have
    in ``SGLangTree.absent``.
    """
    root = find_sglang_root(path)
    if root is None:
        raise SGLangImportError(path, "no sglang/ package (looked in PATH, PATH/python, PATH/..)")
    try:
        importlib.import_module("torch")
    except ImportError as error:
        raise SGLangImportError(root, f"torch is not installed ({error})") from error

    _purge_other_tree(root)
    for other in [p for p in _FINDERS if p != root]:
        stale = _FINDERS.pop(other)
        if stale in sys.meta_path:
            sys.meta_path.remove(stale)
        with contextlib.suppress(ValueError):
            sys.path.remove(str(other))
    if str(root) in sys.path:
        sys.path.remove(str(root))
    sys.path.insert(0, str(root))

    stubbed: set[str] = set()
    if _install_sgl_kernel_stub():
        stubbed.add("sgl_kernel")
    if _install_triton_stub(root):
        stubbed.add("triton")
    finder = _FINDERS.get(root)
    if finder is None:
        finder = _FINDERS[root] = _TreeStubFinder(root / "sglang")
    if finder not in sys.meta_path:
        sys.meta_path.append(finder)  # last: only what nothing else can find

    modules: dict[str, types.ModuleType] = {}
    problems: dict[str, str] = {}
    absent: list[str] = []
    with _compile_is_passthrough(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in (*required, *optional):
            if name not in required and not _module_file_exists(root, name):
                absent.append(name)  # e.g. a trimmed tree: not a failure, its tests do not apply
                continue
            try:
                modules[name] = importlib.import_module(name)
            except BaseException as error:  # noqa: BLE001 - SystemExit from argparse, too
                if isinstance(error, KeyboardInterrupt):
                    raise
                reason = f"import {name} failed: {type(error).__name__}: {error}".splitlines()[0]
                if name in required:
                    raise SGLangImportError(root, reason[:400]) from error
                problems[name] = reason[:400]
    schedule_batch = modules[SCHEDULE_BATCH]
    if not dataclasses.is_dataclass(getattr(schedule_batch, "ScheduleBatch", None)):
        raise SGLangImportError(root, f"{SCHEDULE_BATCH}.ScheduleBatch is missing or not a dataclass")
    return SGLangTree(
        root=root,
        version=tree_version(root),
        modules=modules,
        stubbed=tuple(sorted(stubbed | finder.stubbed)),
        problems=problems,
        absent=tuple(absent),
    )
