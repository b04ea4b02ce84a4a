"""Write `mwbmigrate/analysis/release_table.py`: SGLang's worker-facing API in every target release.

    .venv/bin/python scripts/release_table.py [--check] [--cache DIR]

Each release's wheel is downloaded once (`pip download --no-deps`, with the pins of
`mwbmigrate.verify.release`) into the git-ignored `.cache/sglang/wheels/`, where the corpus tests
keep theirs, and read without unpacking. Nothing is imported from SGLang: its modules are read with
`ast`, partly through `mwbmigrate.verify.facts`. `--check` writes nothing and exits 1 when the
checked-in table is not what the wheels give (tests/corpus/test_corpus_release_table.py checks the
same).

What is read, per release:
* the parameters after the batch that SGLang's callers pass to `forward_batch_generation`: to
  `TpModelWorker` (calls on a target worker in `speculative/`, and the scheduler's calls on its
  model worker, which is a `TpModelWorker` without speculative decoding), and to a speculative
  worker (the scheduler's calls, kept to what SGLang's own speculative workers declare). A
  parameter's default and kind are those the release's class declares;
* `ForwardBatch.init_new`'s parameters after `cls`;
* `ScheduleBatch` / `ForwardBatch` attributes of the first release that a later one no longer has;
* keyword parameters of their methods (and `TpModelWorker`'s) renamed in place.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import fnmatch
import sys
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from mwbmigrate.verify.facts import CallSite, ClassFacts, ModuleFacts, extract  # noqa: E402
from mwbmigrate.verify.release import download_wheel  # noqa: E402

OUTPUT = REPO_ROOT / "mwbmigrate" / "analysis" / "release_table.py"
DEFAULT_CACHE = REPO_ROOT / ".cache" / "sglang"
# Every release on PyPI from the first without ModelWorkerBatch on, oldest first.
RELEASES = (
    "0.5.13",
    "0.5.13.post1",
    "0.5.14",
    "0.5.15",
    "0.5.15.post1",
    "0.5.16",
    "0.5.17",
    "0.5.18",
    "0.5.19",
    "0.5.20",
    "0.5.21",
    "0.5.22",
    "0.5.23",
)

SCHEDULE_BATCH = ("sglang.srt.managers.schedule_batch", "ScheduleBatch")
FORWARD_BATCH = ("sglang.srt.model_executor.forward_batch_info", "ForwardBatch")
TP_WORKER = ("sglang.srt.managers.tp_worker", "TpModelWorker")
METHOD = "forward_batch_generation"
# The reference speculative worker: where a parameter's declaration is read first. The others
# only add what it lacks; they disagree on some (DSparkWorkerV2 takes `pp_proxy_tensors`
# keyword-only).
SPEC_REFERENCE = "EAGLEWorkerV2"
TARGET_RECEIVERS = frozenset({"target_worker", "_target_worker", "tp_worker"})
SCHEDULER_RECEIVERS = frozenset({"model_worker"})

Row = tuple[str, str, bool]  # name, default source ("" when required), keyword-only


# -- reading one release ---------------------------------------------------------------------


def parameter_rows(function: ast.FunctionDef | ast.AsyncFunctionDef, skip: int) -> tuple[Row, ...]:
    """The parameters after the first `skip` ones; `*args` and `**kwargs` are left out (they take
    anything, so they say nothing about what a caller passes)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    rows = [(a.arg, "" if d is None else ast.unparse(d), False) for a, d in zip(positional, defaults, strict=True)]
    rows += [
        (a.arg, "" if d is None else ast.unparse(d), True)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return tuple(rows[skip:])


class Module:
    """One module of a release: its facts and its syntax tree, each made when first asked for."""

    def __init__(self, name: str, source: bytes, display: str, is_package: bool) -> None:
        self.name, self._source, self._display, self._is_package = name, source, display, is_package
        self._facts: Optional[ModuleFacts] = None
        self._tree: Optional[ast.Module] = None

    @property
    def facts(self) -> ModuleFacts:
        if self._facts is None:
            self._facts = extract(self._source, self.name, self._display, self._is_package)
        return self._facts

    @property
    def tree(self) -> ast.Module:
        if self._tree is None:
            self._tree = ast.parse(self._source, filename=self._display)
        return self._tree


class Release:
    """One release, read from its wheel without unpacking it, each module parsed only when asked for."""

    def __init__(self, files: Mapping[str, Callable[[], bytes]]) -> None:
        self._files = files  # "sglang/srt/managers/tp_worker.py" -> its bytes
        self._modules: dict[str, Optional[Module]] = {}

    @classmethod
    def from_wheel(cls, wheel: Path) -> "Release":
        archive = zipfile.ZipFile(wheel)
        names = [n for n in archive.namelist() if n.startswith("sglang/") and n.endswith(".py")]
        return cls({n: (lambda n=n: archive.read(n)) for n in names})

    def module(self, name: str) -> Optional[Module]:
        if name not in self._modules:
            self._modules[name] = self._load(name)
        return self._modules[name]

    def _load(self, name: str) -> Optional[Module]:
        base = name.replace(".", "/")
        for path, is_package in ((f"{base}.py", False), (f"{base}/__init__.py", True)):
            if path in self._files:
                return Module(name, self._files[path](), path, is_package)
        return None

    def modules_under(self, package: str, pattern: str, needle: bytes) -> Iterator[Module]:
        """Modules of `package` whose file name matches `pattern` and whose text holds `needle`
        (the others are not parsed)."""
        prefix = package.replace(".", "/") + "/"
        for path in sorted(self._files):
            if not path.startswith(prefix) or not fnmatch.fnmatch(path.rsplit("/", 1)[-1], pattern):
                continue
            if needle in self._files[path]():
                parts = path[: -len(".py")].split("/")
                module = self.module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
                if module is not None:
                    yield module

    def class_node(self, module_name: str, class_name: str) -> Optional[ast.ClassDef]:
        module = self.module(module_name)
        if module is None:
            return None
        return next((n for n in ast.walk(module.tree) if isinstance(n, ast.ClassDef) and n.name == class_name), None)

    def method(
        self, module_name: str, class_name: str, method: str
    ) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
        node = self.class_node(module_name, class_name)
        if node is None:
            return None
        return next(
            (n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == method),
            None,
        )

    def class_facts(self, module_name: str, class_name: str) -> list[ClassFacts]:
        """The class and its bases that this release defines (followed through imports), nearest first."""
        found: list[ClassFacts] = []
        pending = [(module_name, class_name)]
        seen: set[tuple[str, str]] = set()
        while pending:
            where = pending.pop(0)
            module = self.module(where[0])
            if where in seen or module is None:
                continue
            seen.add(where)
            facts = module.facts.class_named(where[1])
            if facts is None:
                binding = next((b for b in module.facts.bindings.get(where[1], []) if b.kind == "from"), None)
                if binding is not None:
                    pending.append((binding.target, binding.attr))
                continue
            found.append(facts)
            for base in facts.bases:
                if base is not None and "." not in base:
                    pending.append((where[0], base))
        return found

    def attributes(self, module_name: str, class_name: str) -> frozenset[str]:
        return frozenset().union(*(c.attrs for c in self.class_facts(module_name, class_name)))


def _calls(module: Module) -> Iterator[CallSite]:
    for call in module.facts.worker_calls:
        if call.callee == METHOD:
            yield call


def _passed(call: CallSite, positional: tuple[str, ...]) -> set[str]:
    """The parameters a call passes after the batch: its keywords (those of a `**mapping` built
    beside it included) and, by position, the parameters its extra positional arguments fill."""
    passed = set(call.shape.keywords) | set(call.shape.maybe)
    if call.shape.positional:
        passed |= set(positional[1 : call.shape.positional])
    return passed - {"batch", "model_worker_batch"}


def _ordered(declared: Iterable[Row], passed: set[str]) -> tuple[Row, ...]:
    return tuple(row for row in declared if row[0] in passed)


def tp_worker_parameters(release: Release) -> tuple[Row, ...]:
    method = release.method(*TP_WORKER, METHOD)
    if method is None:
        raise SystemExit(f"{release.root}: no {TP_WORKER[1]}.{METHOD}")
    declared = parameter_rows(method, skip=2)
    positional = tuple(a.arg for a in [*method.args.posonlyargs, *method.args.args][1:])
    passed: set[str] = set()
    for module in release.modules_under("sglang.srt.speculative", "*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in TARGET_RECEIVERS:
                passed |= _passed(call, positional)
    for module in release.modules_under("sglang.srt.managers", "scheduler*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in TARGET_RECEIVERS | SCHEDULER_RECEIVERS:
                passed |= _passed(call, positional)
    return _ordered(declared, passed)


def _spec_workers(release: Release) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """SGLang's speculative workers: classes of `speculative/` with their own `forward_batch_generation`,
    except those that are target workers themselves (`TpModelWorker` subclasses)."""
    found = {}
    for module in release.modules_under("sglang.srt.speculative", "*.py", METHOD.encode()):
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.ClassDef) or any("TpModelWorker" in ast.unparse(b) for b in node.bases):
                continue
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == METHOD:
                    found[node.name] = statement
    return found


def spec_worker_parameters(release: Release) -> tuple[Row, ...]:
    workers = _spec_workers(release)
    if SPEC_REFERENCE not in workers:
        raise SystemExit(f"{release.root}: no {SPEC_REFERENCE}.{METHOD}")
    declared: dict[str, Row] = {}
    for name in [SPEC_REFERENCE, *sorted(set(workers) - {SPEC_REFERENCE})]:
        for row in parameter_rows(workers[name], skip=2):
            declared.setdefault(row[0], row)
    positional = tuple(a.arg for a in workers[SPEC_REFERENCE].args.args[1:])
    passed: set[str] = set()
    for module in release.modules_under("sglang.srt.managers", "scheduler*.py", METHOD.encode()):
        for call in _calls(module):
            if call.receiver in SCHEDULER_RECEIVERS:
                passed |= _passed(call, positional)
    return _ordered(declared.values(), passed)


def init_new_parameters(release: Release) -> tuple[Row, ...]:
    method = release.method(*FORWARD_BATCH, "init_new")
    if method is None:
        raise SystemExit(f"{release.root}: no ForwardBatch.init_new")
    return parameter_rows(method, skip=1)


def method_parameters(release: Release, where: tuple[str, str]) -> dict[str, tuple[Row, ...]]:
    node = release.class_node(*where)
    if node is None:
        return {}
    return {
        n.name: parameter_rows(n, skip=1)
        for n in node.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("__")
    }


# -- across releases -------------------------------------------------------------------------


def removed_attributes(releases: Mapping[str, Release]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Public attributes of `ScheduleBatch` / `ForwardBatch` in the first release that a later one
    lacks: name -> (first release without it, the classes it left). One that comes back later is
    left out: no target lacks it for good."""
    versions = list(releases)
    found: dict[str, tuple[str, set[str]]] = {}
    for where in (SCHEDULE_BATCH, FORWARD_BATCH):
        present = {v: releases[v].attributes(*where) for v in versions}
        for name in sorted(present[versions[0]]):
            if name.startswith("_"):
                continue
            gone = [v for v in versions if name not in present[v]]
            if not gone or any(name in present[v] for v in versions[versions.index(gone[0]) :]):
                continue
            since, classes = found.get(name, (gone[0], set()))
            if versions.index(gone[0]) != versions.index(since):
                raise SystemExit(f"{name} leaves ScheduleBatch and ForwardBatch in different releases")
            found[name] = (since, classes | {where[1]})
    ordered = sorted(found.items(), key=lambda item: (versions.index(item[1][0]), item[0]))
    return {name: (since, tuple(sorted(classes))) for name, (since, classes) in ordered}


def _rename(before: tuple[Row, ...], after: tuple[Row, ...]) -> Optional[tuple[str, str]]:
    """(old, new) when `after` is `before` with exactly one parameter renamed in place."""
    if len(before) != len(after):
        return None
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    if len(changed) != 1:
        return None
    (old, old_default, old_kw), (new, new_default, new_kw) = changed[0]
    if old == new or (old_default, old_kw) != (new_default, new_kw) or new in {r[0] for r in before}:
        return None
    return old, new


def renamed_keywords(releases: Mapping[str, Release]) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(class, method, old keyword) -> (new keyword, first release with it)."""
    found: dict[tuple[str, str, str], tuple[str, str]] = {}
    versions = list(releases)
    for where in (SCHEDULE_BATCH, FORWARD_BATCH, TP_WORKER):
        previous = method_parameters(releases[versions[0]], where)
        for version in versions[1:]:
            current = method_parameters(releases[version], where)
            for method in sorted(set(previous) & set(current)):
                renamed = _rename(previous[method], current[method])
                if renamed is not None:
                    found[(where[1], method, renamed[0])] = (renamed[1], version)
            previous = current
    return found


def build_table(release_of: Callable[[str], Release], versions: Iterable[str] = RELEASES) -> dict[str, object]:
    """The table's contents for `versions` (oldest first)."""
    releases = {v: release_of(v) for v in versions}
    return {
        "RELEASES": tuple(releases),
        "WORKER_CALL_PARAMETERS": {
            v: {"tp_worker": tp_worker_parameters(r), "spec_worker": spec_worker_parameters(r)}
            for v, r in releases.items()
        },
        "INIT_NEW_PARAMETERS": {v: init_new_parameters(r) for v, r in releases.items()},
        "REMOVED_ATTRIBUTES": removed_attributes(releases),
        "RENAMED_KEYWORDS": renamed_keywords(releases),
    }


HEADER = '''"""SGLang's worker-facing API in each target release, read from the published wheels with `ast`.

Generated by scripts/release_table.py; do not edit.

WORKER_CALL_PARAMETERS: release -> worker kind -> what SGLang's callers pass to
    `forward_batch_generation` after the batch, as (name, default source, keyword-only), in the
    order the release's class declares them ("tp_worker": `TpModelWorker`; "spec_worker": a
    speculative worker, from the scheduler).
INIT_NEW_PARAMETERS: release -> `ForwardBatch.init_new`'s parameters after `cls` (default "": required).
REMOVED_ATTRIBUTES: attribute -> (first release without it, the classes it left).
RENAMED_KEYWORDS: (class, method, old keyword) -> (new keyword, first release with it).
"""
'''


def _literal(value: object, indent: int) -> str:
    """`value` as the source `ruff format` leaves alone: a dict or a tuple of containers one item a
    line with a trailing comma (which keeps it so), a short tuple of plain values on one line, strings
    in double quotes."""
    pad, inner = "    " * indent, "    " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{_literal(k, indent + 1)}: {_literal(v, indent + 1)},\n" for k, v in value.items()]
        return "{\n" + "".join(items) + pad + "}"
    if isinstance(value, tuple):
        if not value:
            return "()"
        if len(value) == 1:  # its trailing comma is no magic one: ruff joins the lines
            return f"({_literal(value[0], indent)},)"
        if len(value) <= 3 and not any(isinstance(item, (dict, tuple)) for item in value):
            flat = ", ".join(_literal(item, indent) for item in value)
            return f"({flat},)" if len(value) == 1 else f"({flat})"
        return "(\n" + "".join(f"{inner}{_literal(item, indent + 1)},\n" for item in value) + pad + ")"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool) or value is None:
        return repr(value)
    raise TypeError(f"no literal for {value!r}")


def render(table: Mapping[str, object]) -> str:
    return HEADER + "".join(f"\n{name} = {_literal(value, 0)}\n" for name, value in table.items())


# -- README.md's summary -----------------------------------------------------------------------

README = REPO_ROOT / "README.md"
README_BEGIN = "<!-- release table: written by scripts/release_table.py from mwbmigrate/analysis/release_table.py -->"
README_END = "<!-- end of release table -->"
_SHORT = {"ScheduleBatch": "SB", "ForwardBatch": "FB", "TpModelWorker": "TMW"}


def _names(rows: Iterable[Row]) -> list[str]:
    """Parameter names as a caller sees them: `*x` keyword-only, `x!` required."""
    return [f"{'*' if kw else ''}{name}{'' if default else '!'}" for name, default, kw in rows]


def _change(before: Optional[Iterable[Row]], after: Iterable[Row]) -> str:
    """The first release's parameters, then what each later one adds (+) and drops (-)."""
    now = _names(after)
    if before is None:
        return ", ".join(f"`{n}`" for n in now) or "(none)"
    was = _names(before)
    return ", ".join([f"+`{n}`" for n in now if n not in was] + [f"-`{n}`" for n in was if n not in now])


def readme_table(table: Mapping[str, object]) -> str:
    """One row per release: what SGLang's callers pass each kind of worker and `init_new`'s keyword
    parameters (the first release in full, then what changes), and the attributes and keywords the
    release removed or renamed."""
    releases = table["RELEASES"]
    calls = table["WORKER_CALL_PARAMETERS"]
    init_new = table["INIT_NEW_PARAMETERS"]
    removed = table["REMOVED_ATTRIBUTES"]
    renamed = table["RENAMED_KEYWORDS"]
    assert isinstance(releases, tuple) and isinstance(calls, dict) and isinstance(init_new, dict)
    assert isinstance(removed, dict) and isinstance(renamed, dict)
    lines = [
        README_BEGIN,
        "| target | callers pass `TpModelWorker.forward_batch_generation(batch, ...)` | the scheduler passes a"
        " speculative worker's | `ForwardBatch.init_new(batch, model_runner, ...)` | removed from `ScheduleBatch`"
        " (SB) / `ForwardBatch` (FB), or renamed |",
        "|---|---|---|---|---|",
    ]
    previous: Optional[str] = None
    for release in releases:
        gone = [
            f"{'/'.join(_SHORT[c] for c in classes)} `{name}`"
            for name, (since, classes) in removed.items()
            if since == release
        ]
        gone += [
            f"`{_SHORT[cls]}.{method}({old}=)`: now `{new}=`"
            for (cls, method, old), (new, since) in renamed.items()
            if since == release
        ]
        cells = [f"`{release}`"]
        for kind in ("tp_worker", "spec_worker"):
            cells.append(_change(None if previous is None else calls[previous][kind], calls[release][kind]))
        before = None if previous is None else init_new[previous][2:]
        cells.append(_change(before, init_new[release][2:]))
        cells.append(", ".join(gone))
        lines.append("| " + " | ".join(cells) + " |")
        previous = release
    lines.append(README_END)
    return "\n".join(lines) + "\n"


def with_readme_table(readme: str, block: str) -> str:
    begin, end = readme.index(README_BEGIN), readme.index(README_END) + len(README_END) + 1
    return readme[:begin] + block + readme[end:]


def checked_in_table() -> dict[str, object]:
    """The table as `mwbmigrate/analysis/release_table.py` holds it."""
    from mwbmigrate.analysis import release_table

    return {name: getattr(release_table, name) for name in TABLE_NAMES}


TABLE_NAMES = ("RELEASES", "WORKER_CALL_PARAMETERS", "INIT_NEW_PARAMETERS", "REMOVED_ATTRIBUTES", "RENAMED_KEYWORDS")


# -- the wheels ------------------------------------------------------------------------------


def wheel(version: str, cache: Path = DEFAULT_CACHE) -> Path:
    """The release's wheel in `cache/wheels`, downloaded once (under the lock of tests/sglang_corpus.py,
    which keeps its wheels there too)."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return download_wheel(version, cache / "wheels")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the checked-in table; write nothing")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the wheels are kept (in wheels/)")
    args = parser.parse_args(argv)
    table = build_table(lambda version: Release.from_wheel(wheel(version, args.cache)))
    readme = README.read_text(encoding="utf-8")
    outputs = {OUTPUT: render(table), README: with_readme_table(readme, readme_table(table))}
    stale = [path for path, text in outputs.items() if path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(REPO_ROOT)} is not what the wheels give; run scripts/release_table.py")
        return 1 if stale else 0
    for path in stale:
        path.write_text(outputs[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
