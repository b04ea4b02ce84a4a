"""Fork programs written for SGLang 0.5.12, migrated with `--target-version 0.5.23` and run on the
0.5.23 stand-in (`standins_0523`): each ends `same`, `reported` (a hazard names the site) or
`refused` (the file left as it was, with a reason), as its header says; never `silent`.

The rewrite is `rewrite --target-version 0.5.23` whole: both passes, then the contract step against
the real 0.5.23 release (its wheel, downloaded once, as the corpus tests keep it)."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from mwbmigrate.engine.transform import TransformOptions
from tests.soundness import standins
from tests.soundness.harness import CASE_PATH, Migration
from tests.soundness.standins_0523 import NEW, OLD, installed

pytestmark = pytest.mark.corpus

TARGET = "0.5.23"
STANDIN = "`sglang.standin`"  # the stand-in's own helpers, which no release has: not the program's break
CASES = sorted((Path(__file__).parent / "cases_0523").glob("*.py"))
_EXPECT = re.compile(r"^# expect: (same|reported|refused)((?: MWB\d+)*)\s*$", re.MULTILINE)


# A program of several modules: after the main module (`plugin/case.py`), each further one starts
# with this line; the modules import one another as a package's (`from .mixins import ...`).
_MODULE = re.compile(r"^# --- module: (\S+) ---\n", re.MULTILINE)
MAIN_MODULE = CASE_PATH


def modules(text: str) -> dict[str, str]:
    """The program's modules by path: the main one, then those its `# --- module: ---` lines start."""
    parts = _MODULE.split(text)
    found = {MAIN_MODULE: parts[0]}
    found.update(zip(parts[1::2], parts[2::2], strict=True))
    return found


def joined(texts: dict[str, str]) -> str:
    """`modules`' inverse: one text of the program's modules, the main one first."""
    return texts[MAIN_MODULE] + "".join(
        f"# --- module: {path} ---\n{t}" for path, t in texts.items() if path != MAIN_MODULE
    )


def _write(root: Path, texts: dict[str, str]) -> None:
    for path, module_text in texts.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(module_text, encoding="utf-8")
    if len(texts) > 1:
        (root / "plugin" / "__init__.py").touch()


def observe(text: str, version: str) -> list[Any]:
    texts = modules(text)
    with installed(version):
        if len(texts) == 1:
            namespace: dict[str, Any] = {"__name__": "soundness_case"}
            try:
                exec(compile(text, CASE_PATH, "exec", dont_inherit=True), namespace)
                ending: Any = ("returned", standins.canonical(namespace["main"]()))
            except Exception as error:
                ending = ("raised", type(error).__name__)
            return [*standins.LOG, ending]
        with tempfile.TemporaryDirectory() as folder:
            _write(Path(folder), texts)
            sys.path.insert(0, folder)
            try:
                ending = ("returned", standins.canonical(importlib.import_module("plugin.case").main()))
            except Exception as error:
                ending = ("raised", type(error).__name__)
            finally:
                sys.path.remove(folder)
                for name in [n for n in sys.modules if n == "plugin" or n.startswith("plugin.")]:
                    del sys.modules[name]
        return [*standins.LOG, ending]


def _driver_lines(texts: dict[Path, bytes] | Any) -> set[int]:
    """The lines of each program's `main()`: the driver that builds stand-in workers and batches
    (`TpModelWorker()` with no arguments), which no release would take; what the contract says of
    them is not the program's migration, and would otherwise count as reporting it."""
    lines: set[int] = set()
    for data in texts.values():
        for node in ast.parse(data).body:
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                lines |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def rewrite(text: str) -> Migration:
    """`mwbmigrate rewrite --target-version 0.5.23` on the program alone in a folder."""
    from mwbmigrate.engine.runner import run_rewrite
    from mwbmigrate.verify.against import breaks_by_file, check_rewritten
    from mwbmigrate.verify.release import locate_release

    # The contract shipped with mwbmigrate, as `rewrite` reads it (tests/corpus/test_corpus_shipped_contract.py
    # holds it to the wheels).
    release = locate_release(TARGET, shipped=True)
    sources = modules(text)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _write(root, sources)
        summary = run_rewrite(
            [root],
            TransformOptions(target_version=TARGET),
            jobs=1,
            contract=lambda texts, checked: breaks_by_file(
                m
                for m in check_rewritten(root, release, texts, checked)
                if STANDIN not in m.message and m.line not in _driver_lines(texts)
            ),
        )
        by_path = {Path(r.path).resolve().relative_to(root.resolve()).as_posix(): r for r in summary.results}
    refused = [result.error for result in by_path.values() if result.error is not None]
    if refused:
        return Migration(text, (), refused[0])
    codes = tuple(
        sorted({item.code for result in by_path.values() for item in result.review_items if item.kind == "hazard"})
    )
    rewritten = {
        path: by_path[path].rewritten if path in by_path and by_path[path].rewritten is not None else module_text
        for path, module_text in sources.items()
    }
    return Migration(joined(rewritten), codes)


def judge(text: str) -> tuple[str, Migration, list[Any], list[Any]]:
    migration = rewrite(text)
    if migration.refused:
        return "refused", migration, [], []
    old, new = observe(text, OLD), observe(migration.text, NEW)
    if old == new:
        return "same", migration, old, new
    return ("reported" if migration.codes else "silent"), migration, old, new


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_case(case: Path) -> None:
    text = case.read_text()
    wanted = _EXPECT.search(text)
    assert wanted is not None, "a case starts with `# expect: same|reported MWBnnn...|refused`"
    outcome, migration, old, new = judge(text)
    detail = f"{outcome} {migration.codes}\n{migration.text}\nold: {old}\nnew: {new}"
    # A program the stand-in cannot even import proves nothing, whatever the outcome; nor does a
    # program of several modules that fails on the old one (a module that lacks a name it uses).
    assert old[-1:] != [("raised", "ModuleNotFoundError")] and old[-1:] != [("raised", "ImportError")], detail
    assert len(modules(text)) == 1 or old[-1][0] == "returned", detail
    assert outcome == wanted.group(1), detail
    assert set(wanted.group(2).split()) <= set(migration.codes), detail
